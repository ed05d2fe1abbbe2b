-- RC and UC when one packet is lost, between rxe0 and rxe1 of
-- scripts/rxe-vm --two. rxe0 sends one 1000-byte SEND to rxe1 while a
-- routing rule throws away what arrives on rxe1's veth for rxe1's address
-- (ip rule ... blackhole): the frame reaches the veth, where the capture on
-- rxe1 sees it, and IP drops it before rxe1's UDP port. RC retransmits it
-- once the rule is gone and completes; UC completed SUCCESS when it sent,
-- and its receiver gets nothing. Prints each capture and "observed: ..."
-- lines. (A netem qdisc on rxe0's veth drops a frame too, but before the
-- capture's tap: the wire view would not show the lost frame.)
--   verbsh tests/wire/uc_drop.lua
local function seen(what, v) print(("observed: %s: %s"):format(what, tostring(v))) end
local function sh(cmd) assert(os.execute(cmd), cmd) end
local netdev_b, addr_b = os.getenv("RXE1_NETDEV"), os.getenv("RXE1_ADDR")
assert(netdev_b, "needs scripts/rxe-vm --two")
local DROP = ("pref 5 iif %s to %s blackhole"):format(netdev_b, addr_b)

local function side(dev, gid_index, qp_type)
  local s = { ctx = verbs.open(dev), gid_index = gid_index }
  s.pd = s.ctx:alloc_pd()
  s.mr = s.pd:reg_mr(4096, "LOCAL_WRITE")
  s.cq = s.ctx:create_cq(8)
  s.qp = s.pd:create_qp{ qp_type = qp_type, send_cq = s.cq, recv_cq = s.cq,
    cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }
  s.gid = s.ctx:query_gid(1, gid_index)
  return s
end
local function connect(s, peer)
  local rc = s.qp.qp_type == "RC"
  s.qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }
  local rtr = { qp_state = "RTR", path_mtu = "1024", dest_qp_num = peer.qp.qp_num, rq_psn = 100,
    ah_attr = { is_global = 1, port_num = 1, grh = { dgid = peer.gid, sgid_index = s.gid_index, hop_limit = 1 } } }
  if rc then rtr.max_dest_rd_atomic, rtr.min_rnr_timer = 1, 1 end
  s.qp:modify(rtr)
  -- RC: timeout 17 waits 0.5 s for the ACK, well after the MTU is back
  local rts = { qp_state = "RTS", sq_psn = 100 }
  if rc then rts.timeout, rts.retry_cnt, rts.rnr_retry, rts.max_rd_atomic = 17, 7, 7, 1 end
  s.qp:modify(rts)
end

for _, qp_type in ipairs{ "RC", "UC" } do
  local a = side("rxe0", tonumber(os.getenv("RXE_GID_INDEX")), qp_type)
  local b = side("rxe1", tonumber(os.getenv("RXE1_GID_INDEX")), qp_type)
  connect(a, b); connect(b, a)
  b.qp:post_recv{ wr_id = 2, sg_list = { { mr = b.mr, offset = 0, length = 4096 } } }
  a.mr:write(0, qp_type .. (" payload"):rep(124))
  local cap = verbs.capture{ device = "rxe1" }
  sh("ip rule add " .. DROP)
  a.qp:post_send{ wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = a.mr, offset = 0, length = 1000 } } }
  local early = a.cq:wait(1, 200)
  sh("ip rule del " .. DROP)
  seen(qp_type .. " sender's completion while the frame was lost",
    #early == 1 and early[1].status or "none yet (waits for an ACK)")
  local t0 = os.time()
  local wcs = #early == 1 and early or a.cq:wait(1, 60000)
  print(("(%s: the sender's completion came %d s after the rule was gone)"):format(qp_type, os.time() - t0))
  seen(qp_type .. " sender's completion", #wcs == 1 and wcs[1].status or "none")
  local got = b.cq:wait(1, 1500)
  seen(qp_type .. " receiver", #got == 1 and ("%s byte_len=%d %q"):format(got[1].status, got[1].byte_len,
    b.mr:read(0, 10)) or "nothing")
  os.execute("sleep 0.05")
  cap:stop()
  print("== " .. qp_type)
  print(cap)
  local frames = {}
  for _, p in ipairs(cap:packets()) do
    local d = require("verbs.wire").decode(p.bytes)
    if d then frames[#frames + 1] = ("%s %s psn %d"):format(d.bth.transport, d.opcode, d.bth.psn) end
  end
  seen(qp_type .. " frames on rxe1's veth", table.concat(frames, ", "))
end
