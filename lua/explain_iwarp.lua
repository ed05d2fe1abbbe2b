-- What an iWARP device (siw) refuses, and why. iWARP runs RDMA over TCP:
-- the connection is a TCP stream set up by the iWARP connection manager
-- (rdma_cm) with an MPA exchange, and the protocol (RDMAP over DDP) has
-- reliable connected transport only, no immediate data and no atomics.
-- The bindings put context.transport ("IWARP") and context.device in the
-- errors these analyzers read; each returns nil on any other device, and the
-- generic explanation stands.
local M = {}

local function iwarp(e) return (e.context or {}).transport == "IWARP" end
local function dev(e) return tostring((e.context or {}).device or "this device") end

M.RC_ONLY = "iWARP has one transport, reliable connected (RC) over a TCP stream: no UD, UC or RAW_PACKET QP,"
  .. " no address handles, no multicast"
M.CM_WAY = 'connect with rdma_cm: id = channel:create_id("TCP"), resolve_addr, resolve_route, id:create_qp(pd, {...}),'
  .. ' id:connect{...} (and rdma_listen/accept on the other side; lesson 14)'

-- The extended verbs on siw (rdma-core 44's libsiw): ibv_create_qp_ex with
-- send_ops_flags and ibv_create_cq_ex give EOPNOTSUPP, whatever is asked.
function M.extended(e)
  if not iwarp(e) or e.errname ~= "EOPNOTSUPP" then return nil end
  local plain = e.verb == "ibv_create_cq_ex" and "ctx:create_cq(cqe) and cq:poll" or "pd:create_qp{...} and qp:post_send"
  return ("%s on %s (iWARP)"):format(e.verb, dev(e)), {
    { why = ("%s's provider (siw's libsiw) has no extended verbs: %s is refused whatever it asks (measured:"
        .. " an RC QP with send_ops_flags SEND, a CQ with wc_flags BYTE_LEN)"):format(dev(e), e.verb),
      fix = ("use the classic verbs on siw: %s; the extended ones work on rxe (lesson 15)"):format(plain) } }
end

-- ibv_create_qp / rdma_create_qp EOPNOTSUPP for a type iWARP lacks
function M.create_qp(e)
  if not iwarp(e) or e.errname ~= "EOPNOTSUPP" then return nil end
  local t = tostring((e.context or {}).qp_type or "this")
  return ("%s QP on %s (iWARP)"):format(t, dev(e)), {
    { why = ("%s is an iWARP device, and %s; the provider refuses a %s QP at create"):format(dev(e), M.RC_ONLY, t),
      fix = 'use qp_type = "RC" connected through rdma_cm, or a RoCE/InfiniBand device (rxe) for UD and UC' } }
end

function M.create_ah(e)
  if not iwarp(e) or e.errname ~= "EOPNOTSUPP" then return nil end
  return ("address handle on %s (iWARP)"):format(dev(e)), {
    { why = ("%s is an iWARP device: an AH addresses UD sends, and %s (query_device: max_ah 0)"):format(dev(e), M.RC_ONLY),
      fix = "address the peer through an rdma_cm connection (RC); use rxe for UD" } }
end

-- ibv_modify_qp to RTS on iWARP: the QP needs the TCP socket and the MPA
-- negotiation that only the iWARP connection manager hands over.
function M.modify(e)
  local c = e.context or {}
  if not iwarp(e) or e.errname ~= "EINVAL" then return nil end
  local to = type(c.qp_state) == "string" and c.qp_state:upper():gsub("^IBV_QPS_", "") or nil
  if to ~= "RTS" then return nil end
  local from = type(c.cur_state) == "string" and c.cur_state or "?"
  local f = { { why = ("%s is an iWARP device: an RC QP reaches RTS only through rdma_cm, which hands the"
      .. " device a TCP connection and its MPA negotiation; a QP connected out of band (QP numbers exchanged"
      .. " over a socket, as ibv_rc_pingpong does) stops at RTR"):format(dev(e)), fix = M.CM_WAY } }
  if c.state_unreported then
    f[#f + 1] = { why = ("the QP's state %s is the one verbsh's last qp:modify set: %s does not report QP states")
      :format(from, dev(e)), note = true }
  end
  return ("RC QP on %s (iWARP), %s->RTS"):format(dev(e), from), f
end

local REFUSED = {
  SEND_WITH_IMM = "iWARP (RDMAP) carries no immediate data",
  RDMA_WRITE_WITH_IMM = "iWARP (RDMAP) carries no immediate data",
  ATOMIC_FETCH_AND_ADD = "iWARP (RDMAP) has no atomic operations (query_device: atomic_cap NONE)",
  ATOMIC_CMP_AND_SWP = "iWARP (RDMAP) has no atomic operations (query_device: atomic_cap NONE)",
}
local FIX = {
  SEND_WITH_IMM = "send the 32-bit value in the payload (SEND), or use a RoCE device (rxe)",
  RDMA_WRITE_WITH_IMM = "RDMA_WRITE the data, then SEND a small message to notify the peer",
  ATOMIC_FETCH_AND_ADD = "keep the counter at one side and update it by SEND/RECV, or use a RoCE device (rxe)",
  ATOMIC_CMP_AND_SWP = "keep the value at one side and update it by SEND/RECV, or use a RoCE device (rxe)",
}

-- A post that returned a negative value: the provider's own refusal at the
-- post, before anything reaches the wire; the QP stays usable.
function M.post(e)
  local c = e.context or {}
  local ret = math.tointeger(c.returned)
  if not ret then return nil end
  local wr = type(c.wr) == "table" and c.wr or {}
  local op = type(wr.opcode) == "string" and wr.opcode:upper():gsub("^IBV_WR_", "") or tostring(wr.opcode)
  local f = { { info = ("%s returned %d, a negative value: the provider refused the WR itself, at the post;"
      .. " nothing reached the wire and no completion will come (test rc ~= 0 in C, not rc > 0)"):format(e.verb, ret) } }
  if ret == -1 and e.errname == "ENOTCONN" then
    f[#f + 1] = { why = ("%s's QP is not connected (not in RTS): an iWARP QP sends only on the TCP connection"
        .. " rdma_cm made"):format(dev(e)), fix = M.CM_WAY .. ", then post after ESTABLISHED" }
  elseif REFUSED[op] and iwarp(e) then
    f[#f + 1] = { why = ("%s is an iWARP device: %s, so it refuses opcode %s (the QP stays usable)")
      :format(dev(e), REFUSED[op], op), fix = FIX[op] }
  else
    f[#f + 1] = { why = ("the provider refused opcode %s on this QP (its own check, before the wire)"):format(op),
      fix = "check the opcode against ctx:query_device() (atomic_cap) and the QP type" }
  end
  return ("%s QP on %s, WR #%s (wr_id=%s)"):format(tostring(c.qp_type or "?"), dev(e), tostring(c.bad_wr or "?"),
    tostring(wr.wr_id)), f
end

-- explain("iWARP") / explain("siw"): what differs from RoCE, in one place.
M.TOPIC = [[
iWARP (siw, soft-iWARP): RDMA over TCP. The verbs are the same as on RoCE (rxe); what the device does differs:
  - RC only: create_qp of UD, UC or RAW_PACKET fails with EOPNOTSUPP; create_ah too (max_ah 0, max_mcast_grp 0).
  - an RC QP reaches RTS only through rdma_cm (RESET->INIT->RTR work, RTR->RTS gives EINVAL): the device needs
    the TCP connection and MPA negotiation the iWARP connection manager hands over; ibv_rc_pingpong cannot work.
  - no immediate data and no atomics: post_send of SEND_WITH_IMM, RDMA_WRITE_WITH_IMM or an ATOMIC_* returns
    -22 (negative: the provider's refusal at the post; nothing on the wire, the QP stays usable).
    SEND, RDMA_WRITE and RDMA_READ work (atomic_cap NONE in query_device).
  - post_send on a QP that is not connected returns -1 with errno ENOTCONN.
  - no extended verbs: create_qp_ex (with send_ops_flags) and create_cq_ex give EOPNOTSUPP; use create_qp, create_cq.
  - siw in Linux 6.1 does not report QP states (ibv_query_qp says RESET): qp.state is the state verbsh's last
    qp:modify set, or UNKNOWN for a QP rdma_cm moved, and verbsh warns that it is not the device's report.
  - the GID table has one entry, the netdev's MAC: not an IP-based GID; address peers by IP through rdma_cm.
  - rdma_cm picks, for an address, the device created first on its netdev: give siw a netdev of its own.
On the wire: TCP, then MPA (framing, markers, CRC), DDP (tagged: STag and offset; untagged: queue, MSN, offset)
and RDMAP (Send, RDMA Write, Read Request/Response); TCP's ACKs carry the reliability. Lesson 22 compares the two.]]
-- ("IWARP", all capitals, stays the enum value ibv_transport_type's.)
function M.topic(s)
  if s == "iwarp" or s == "iWARP" or s == "siw" then return M.TOPIC end
end

-- Wraps the analyzers: the iWARP one first, the usual one when it has nothing.
function M.wrap(analyze)
  local function first(mine, other)
    return function(e)
      local head, f = mine(e)
      if head then return head, f end
      if other then return other(e) end
      return nil, {}
    end
  end
  for verb, mine in pairs{ ibv_create_qp = M.create_qp, ibv_create_qp_ex = M.extended, ibv_create_cq_ex = M.extended,
                           rdma_create_qp = M.create_qp,
                           ibv_create_ah = M.create_ah, ibv_modify_qp = M.modify, ibv_post_send = M.post,
                           ibv_post_recv = M.post, ibv_post_srq_recv = M.post } do
    analyze[verb] = first(mine, analyze[verb])
  end
end

return M
