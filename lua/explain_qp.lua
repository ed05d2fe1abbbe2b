-- Why ibv_modify_qp and the post verbs fail: the kernel's QP state table
-- (drivers/infiniband/core/verbs.c, qp_state_table + ib_modify_qp_is_ok, which
-- rxe_qp_chk_attr calls first) as data, then the value checks rxe makes.
-- Each analysis returns a list of findings { why = ..., fix = ... }.
local sys = require "verbs.explain_sys"

local M = {}

-- The ibv_qp_attr_mask bits: an example of each for the fix line. Which
-- attr keys set a bit, and its value, come from the marshaller's own
-- descriptor (verbs.fields: mask, bit), the map the binding ORs in.
local EXAMPLE = {
  STATE = 'qp_state = "RTS"',
  CUR_STATE = 'cur_qp_state = "RTS"',
  EN_SQD_ASYNC_NOTIFY = "en_sqd_async_notify = 1",
  ACCESS_FLAGS = 'qp_access_flags = { "REMOTE_WRITE", "REMOTE_READ" }',
  PKEY_INDEX = "pkey_index = 0",
  PORT = "port_num = 1",
  QKEY = "qkey = 0x11111111",
  AV = "ah_attr = { is_global = 1, port_num = 1, grh = { dgid = PEER_GID, sgid_index = GID_INDEX, hop_limit = 1 } }",
  PATH_MTU = 'path_mtu = "1024"',
  TIMEOUT = "timeout = 14",
  RETRY_CNT = "retry_cnt = 7",
  RNR_RETRY = "rnr_retry = 7",
  RQ_PSN = "rq_psn = PEER_SQ_PSN",
  MAX_QP_RD_ATOMIC = "max_rd_atomic = 1",
  ALT_PATH = "alt_ah_attr = {...}",
  MIN_RNR_TIMER = "min_rnr_timer = 12",
  SQ_PSN = "sq_psn = MY_PSN",
  MAX_DEST_RD_ATOMIC = "max_dest_rd_atomic = 1",
  PATH_MIG_STATE = 'path_mig_state = "MIGRATED"',
  CAP = "cap = {...}",
  DEST_QPN = "dest_qp_num = PEER_QPN",
  RATE_LIMIT = "rate_limit = 0",
}
local BIT = {}          -- name -> { name, keys, example, order = bit value }
local KEY_BIT = {}      -- attr key -> bit name
local verbs = require "verbs"
-- M.BITS: { name, keys, example, value = bit }, by bit value
M.BITS = {}
for _, f in ipairs(verbs.fields("ibv_qp_attr")) do
  if f.bit then
    local name = f.mask:gsub("^IBV_QP_", "")
    local b = BIT[name]
    if not b then
      local bits = { name, {}, EXAMPLE[name] or error("explain_qp: no example for " .. f.mask), value = f.bit }
      M.BITS[#M.BITS + 1] = bits
      b = { name = name, keys = bits[2], example = bits[3], order = f.bit }
      BIT[name] = b
    end
    b.keys[#b.keys + 1] = f.name
    KEY_BIT[f.name] = name
  end
end
table.sort(M.BITS, function(x, y) return x.value < y.value end)
M.KEY_BIT = KEY_BIT

-- [0] = "RESET", ... [6] = "ERR": each state by its C value (the enum's
-- names are a list, in order, from 1)
M.STATES = {}
do
  local e = verbs.enum("ibv_qp_state")
  for _, name in ipairs(e.names) do M.STATES[e.values[name]] = name end
end

-- "PKEY_INDEX PORT" -> set
local function set(words)
  local s = {}
  for w in (words or ""):gmatch("%S+") do s[w] = true end
  return s
end

-- The transition table: T[from][to] = { req = {per QP type}, opt = {...} };
-- a missing T[from][to] is an illegal transition. Only RC, UC and UD here.
local RC_RTS_OPT = "CUR_STATE ALT_PATH ACCESS_FLAGS MIN_RNR_TIMER PATH_MIG_STATE"
local UC_RTS_OPT = "CUR_STATE ALT_PATH ACCESS_FLAGS PATH_MIG_STATE"
local UD_RTS_OPT = "CUR_STATE QKEY"
local TO_RTS_OPT = { RC = RC_RTS_OPT, UC = UC_RTS_OPT, UD = UD_RTS_OPT }
local NONE = {}
M.T = {
  RESET = {
    RESET = NONE,
    INIT = { req = { RC = "PKEY_INDEX PORT ACCESS_FLAGS", UC = "PKEY_INDEX PORT ACCESS_FLAGS",
                     UD = "PKEY_INDEX PORT QKEY" } },
  },
  INIT = {
    RESET = NONE, ERR = NONE,
    INIT = { opt = { RC = "PKEY_INDEX PORT ACCESS_FLAGS", UC = "PKEY_INDEX PORT ACCESS_FLAGS",
                     UD = "PKEY_INDEX PORT QKEY" } },
    RTR = { req = { RC = "AV PATH_MTU DEST_QPN RQ_PSN MAX_DEST_RD_ATOMIC MIN_RNR_TIMER",
                    UC = "AV PATH_MTU DEST_QPN RQ_PSN" },
            opt = { RC = "ALT_PATH ACCESS_FLAGS PKEY_INDEX", UC = "ALT_PATH ACCESS_FLAGS PKEY_INDEX",
                    UD = "PKEY_INDEX QKEY" } },
  },
  RTR = {
    RESET = NONE, ERR = NONE,
    RTS = { req = { RC = "SQ_PSN TIMEOUT RETRY_CNT RNR_RETRY MAX_QP_RD_ATOMIC", UC = "SQ_PSN", UD = "SQ_PSN" },
            opt = TO_RTS_OPT },
  },
  RTS = {
    RESET = NONE, ERR = NONE,
    RTS = { opt = TO_RTS_OPT },
    SQD = { opt = { RC = "EN_SQD_ASYNC_NOTIFY", UC = "EN_SQD_ASYNC_NOTIFY", UD = "EN_SQD_ASYNC_NOTIFY" } },
  },
  SQD = {
    RESET = NONE, ERR = NONE,
    RTS = { opt = TO_RTS_OPT },
    SQD = { opt = { RC = "PORT AV TIMEOUT RETRY_CNT RNR_RETRY MAX_QP_RD_ATOMIC MAX_DEST_RD_ATOMIC"
                         .. " ALT_PATH ACCESS_FLAGS PKEY_INDEX MIN_RNR_TIMER PATH_MIG_STATE",
                    UC = "AV ALT_PATH ACCESS_FLAGS PKEY_INDEX PATH_MIG_STATE", UD = "PKEY_INDEX QKEY" } },
  },
  SQE = {
    RESET = NONE, ERR = NONE,
    RTS = { opt = { UC = "CUR_STATE ACCESS_FLAGS", UD = "CUR_STATE QKEY" } },
  },
  ERR = { RESET = NONE, ERR = NONE },
}
local ORDER = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" }

-- Extra words for a bit that is present but not allowed, by "TYPE BIT".
local NOT_ALLOWED_NOTE = {
  ["UD ACCESS_FLAGS"] = "a UD QP has no RDMA or atomics, so it has no remote access rights",
  ["UD AV"] = "a UD QP has no fixed peer: each send names its peer with an AH (wr.ud.ah)",
  ["UD DEST_QPN"] = "a UD QP has no fixed peer: each send names remote_qpn",
  ["UD PATH_MTU"] = "a UD QP's message size is bounded by the port's active MTU, not a path_mtu",
  ["RC QKEY"] = "Q_Keys belong to UD (datagram) QPs",
  ["UC QKEY"] = "Q_Keys belong to UD (datagram) QPs",
  ["UC TIMEOUT"] = "UC sends no ACKs, so nothing waits for one to time out",
  ["UC RETRY_CNT"] = "UC never retransmits: a lost packet loses its message",
  ["UC RNR_RETRY"] = "a UC receiver sends no RNR NAK: a SEND that finds no receive is dropped",
  ["UC MIN_RNR_TIMER"] = "a UC receiver sends no RNR NAK: a SEND that finds no receive is dropped",
  ["UC MAX_QP_RD_ATOMIC"] = "UC has no READ or atomics, so nothing is outstanding that waits for a response",
  ["UC MAX_DEST_RD_ATOMIC"] = "UC has no READ or atomics, so the responder keeps no resources for them",
}

-- Extra words for an illegal transition.
local ILLEGAL_NOTE = {
  ["RESET->ERR"] = " (a QP in RESET has no work to flush, so ERR is not reachable from it)",
  ["RESET->RTR"] = " (the QP first needs its port, P_Key and access rights: INIT)",
  ["RESET->RTS"] = " (a QP climbs RESET, INIT, RTR, RTS: each step adds its own attributes)",
  ["INIT->RTS"] = " (RTR, where the QP learns its peer, comes first)",
  ["ERR->RTS"] = " (a QP leaves ERR only through RESET)",
  ["ERR->INIT"] = " (a QP leaves ERR only through RESET)",
}

local function norm_state(s)
  if type(s) == "number" then return M.STATES[s] end
  if type(s) == "string" then return (s:upper():gsub("^IBV_QPS_", "")) end
end
M.norm_state = norm_state

local function norm_type(t)
  if type(t) == "number" then return ({ [2] = "RC", [3] = "UC", [4] = "UD" })[t] or tostring(t) end
  return t and (t:upper():gsub("^IBV_QPT_", ""))
end

-- "IBV_QP_AV (ah_attr)"
local function label(name)
  local b = BIT[name]
  return ("IBV_QP_%s (%s)"):format(name, b and table.concat(b.keys, ", ") or "?")
end
local function sorted(s)
  local l = {}
  for name in pairs(s) do l[#l + 1] = name end
  table.sort(l, function(a, b) return (BIT[a] and BIT[a].order or math.huge) < (BIT[b] and BIT[b].order or math.huge) end)
  return l
end
local function labels(s)
  local l = sorted(s)
  for i, n in ipairs(l) do l[i] = label(n) end
  return table.concat(l, ", ")
end

-- The mask as a set: the context's list of names (or an integer), else the
-- attr table's keys, the way the bindings derive it.
local function mask_set(ctx)
  local s, mask = {}, ctx.mask
  if type(mask) == "table" then
    for _, n in ipairs(mask) do s[(tostring(n):upper():gsub("^IBV_QP_", ""))] = true end
  elseif math.type(mask) == "integer" then
    for _, b in ipairs(M.BITS) do if mask & b.value ~= 0 then s[b[1]] = true end end
  else
    for k in pairs(ctx.attr or {}) do if KEY_BIT[k] then s[KEY_BIT[k]] = true end end
  end
  return s
end
M.mask_set = mask_set

-- Shortest legal path between two states (breadth-first over M.T).
local function path(from, to)
  local prev, queue = { [from] = from }, { from }
  for _, s in ipairs(queue) do
    if s == to then break end
    for _, n in ipairs(ORDER) do
      if M.T[s] and M.T[s][n] and not prev[n] then prev[n] = s; queue[#queue + 1] = n end
    end
  end
  if not prev[to] then return nil end
  local p = { to }
  while p[1] ~= from do table.insert(p, 1, prev[p[1]]) end
  return table.concat(p, "->")
end

local function targets(from)
  local l = {}
  for _, n in ipairs(ORDER) do if M.T[from] and M.T[from][n] then l[#l + 1] = n end end
  return table.concat(l, ", ")
end

-- Returns the required and allowed (required + optional + STATE) sets.
function M.transition(from, to, qp_type)
  local t = M.T[from] and M.T[from][to]
  if not t then return nil end
  local req = set(t.req and t.req[qp_type])
  local allowed = set(t.opt and t.opt[qp_type])
  for n in pairs(req) do allowed[n] = true end
  allowed.STATE = true
  return req, allowed
end

local function mtu_bytes(v)
  if type(v) == "string" then v = tonumber((v:gsub("^IBV_MTU_", ""))) end
  if math.type(v) == "integer" and v >= 1 and v <= 5 then return 128 << v end
  return v
end

-- Value checks, each run when its bit is in the mask: test(attr, e) -> why, fix.
local VALUE_CHECKS = {
  { "AV", function(a, e)
      local ah = type(a.ah_attr) == "table" and a.ah_attr or {}
      if ah.is_global ~= 1 and ah.is_global ~= true then
        return "ah_attr.is_global is not set, but rxe is RoCEv2 (every Ethernet port is RoCE): "
          .. "the GRH, and so is_global = 1 with grh.dgid and grh.sgid_index, is mandatory",
          "ah_attr = { is_global = 1, port_num = 1, grh = { dgid = PEER_GID, sgid_index = GID_INDEX, hop_limit = 1 } }"
      end
    end },
  { "AV", function(a, e)
      local ah = type(a.ah_attr) == "table" and a.ah_attr or {}
      if ah.port_num ~= nil and ah.port_num ~= 1 then
        return ("ah_attr.port_num is %s; rxe has one port, number 1"):format(tostring(ah.port_num)),
          "ah_attr.port_num = 1"
      end
    end },
  { "AV", function(a, e)
      if e.errname ~= "ENODATA" then return end
      local grh = type(a.ah_attr) == "table" and type(a.ah_attr.grh) == "table" and a.ah_attr.grh or {}
      local filled = {}
      for _, g in ipairs(sys.gids(e.context.device, e.context.port_num)) do
        filled[#filled + 1] = ("%d %s (%s)"):format(g.index, g.gid, g.type or "?")
      end
      return ("grh.sgid_index %s points at an empty slot of the port's GID table (rxe answers ENODATA, not EINVAL)%s")
        :format(tostring(grh.sgid_index or 0), #filled > 0 and "; filled slots: " .. table.concat(filled, ", ") or ""),
        "pick a filled slot: ctx:query_gid(1, i); the RoCE v2 IPv4 GID (::ffff:a.b.c.d) is usually index 1"
        .. " (see /sys/class/infiniband/DEV/ports/1/gid_attrs/types/N)"
    end },
  { "PATH_MTU", function(a)
      local m = mtu_bytes(a.path_mtu)
      if not ({ [256] = 1, [512] = 1, [1024] = 1, [2048] = 1, [4096] = 1 })[m] then
        return ("path_mtu %s is not an ibv_mtu (256, 512, 1024, 2048, 4096)"):format(tostring(a.path_mtu)),
          'path_mtu = "1024" (RoCE counts payload only: 1500-byte Ethernet gives an active_mtu of 1024)'
      elseif m > 1024 then
        return ("path_mtu %d: rxe refuses a path_mtu above the port's max_mtu (4096); one above the active_mtu "
          .. "passes modify, but then the traffic fails with RETRY_EXC_ERR"):format(m),
          'path_mtu = ctx:query_port(1).active_mtu (1024 over 1500-byte Ethernet)', true
      end
    end },
  { "TIMEOUT", function(a)
      if math.type(a.timeout) == "integer" and a.timeout > 31 then
        return ("timeout %d is above 31 (it is an exponent: 4.096 us * 2^timeout)"):format(a.timeout),
          "timeout = 14 (about 67 ms; 0 means wait forever)"
      end
    end },
  { "RETRY_CNT", function(a)
      if math.type(a.retry_cnt) == "integer" and a.retry_cnt > 7 then
        return ("retry_cnt %d does not fit its 3 bits (0..7)"):format(a.retry_cnt), "retry_cnt = 7"
      end
    end },
  { "RNR_RETRY", function(a)
      if math.type(a.rnr_retry) == "integer" and a.rnr_retry > 7 then
        return ("rnr_retry %d does not fit its 3 bits (0..7; 7 means retry forever)"):format(a.rnr_retry),
          "rnr_retry = 7"
      end
    end },
  { "PORT", function(a)
      if a.port_num ~= nil and a.port_num ~= 1 then
        return ("port_num %s: rxe devices have one port, number 1"):format(tostring(a.port_num)), "port_num = 1"
      end
    end },
}

-- What rxe checks after the state table (rxe_qp_chk_attr and the AV checks).
M.RXE_ALSO = "rxe also checks: port_num and ah_attr.port_num = 1; pkey_index inside the P_Key table (0);"
  .. " ah_attr.is_global = 1 with grh.sgid_index a filled GID slot; path_mtu <= the port's max_mtu;"
  .. " timeout <= 31; max_rd_atomic and max_dest_rd_atomic <= the device's max_qp_rd_atom;"
  .. " cap within the device limits"

-- ibv_modify_qp: returns a headline ("RC QP, INIT->RTR") and findings.
function M.modify(e)
  local ctx = e.context or {}
  local attr = type(ctx.attr) == "table" and ctx.attr or {}
  local qp_type = norm_type(ctx.qp_type) or "?"
  local mask = mask_set(ctx)
  local from = norm_state(mask.CUR_STATE and attr.cur_qp_state or ctx.cur_state) or "?"
  local to = norm_state(mask.STATE and (ctx.qp_state or attr.qp_state) or nil) or from
  local head = ("%s QP, %s->%s"):format(qp_type, from, to)
  local f = {}
  local function add(why, fix) f[#f + 1] = { why = why, fix = fix } end

  if not M.T[from] then
    add(("the QP's current state %s is unknown to the state table"):format(from),
        "qp:query() to see its state")
    return head, f
  end
  if mask.CUR_STATE and not ({ RTR = 1, RTS = 1, SQD = 1, SQE = 1 })[from] then
    add(("IBV_QP_CUR_STATE (cur_qp_state) is only allowed when the QP is in RTR, RTS, SQD or SQE, not %s")
      :format(from), "drop cur_qp_state")
  end
  if not M.T[from][to] and from == to then
    -- A retry of a step that worked (RTR->RTR): no path helps, RESET does.
    add(("the QP is already in %s, and %s->%s is not a transition; from %s a QP can go to: %s"):format(
        from, from, to, from, targets(from)),
      ("to set the %s attributes again, go back through RESET: qp:modify{qp_state = \"RESET\"}, then"
        .. " RESET->INIT->%s one qp:modify per step (RESET forgets all outstanding work)"):format(to,
        to == "INIT" and "" or (path("INIT", to) or to):gsub("^INIT%->", "")))
    return head, f
  end
  if not M.T[from][to] then
    local p = path(from, to)
    add(("%s->%s is an illegal transition; from %s a QP can go to: %s%s"):format(from, to, from, targets(from),
        ILLEGAL_NOTE[from .. "->" .. to] or ""),
      p and ("go %s, one qp:modify per step"):format(p)
        or ("a QP in %s cannot reach %s; from RESET it has nothing to flush, so leave it there or go to INIT first")
          :format(from, to))
    return head, f
  end
  if not ({ RC = 1, UC = 1, UD = 1 })[qp_type] then
    add(("the state table here covers RC, UC and UD, not %s"):format(qp_type), nil)
    return head, f
  end

  local req, allowed = M.transition(from, to, qp_type)
  local missing, extra = {}, {}
  for n in pairs(req) do if not mask[n] then missing[n] = true end end
  for n in pairs(mask) do if not allowed[n] then extra[n] = true end end
  if next(missing) then
    local ex = {}
    for _, n in ipairs(sorted(missing)) do ex[#ex + 1] = BIT[n].example end
    add(("required but missing for %s %s->%s: %s"):format(qp_type, from, to, labels(missing)),
        "add " .. table.concat(ex, ", "))
  end
  if next(extra) then
    local because, keys, opt = {}, {}, {}
    for _, n in ipairs(sorted(extra)) do
      because[#because + 1] = NOT_ALLOWED_NOTE[qp_type .. " " .. n]
      keys[#keys + 1] = table.concat(BIT[n] and BIT[n].keys or { n }, "/")
    end
    for n in pairs(allowed) do if not req[n] and n ~= "STATE" then opt[n] = true end end
    add(("present but not allowed in %s %s->%s: %s%s"):format(qp_type, from, to, labels(extra),
          #because > 0 and " (" .. table.concat(because, "; ") .. ")" or ""),
        ("remove %s; allowed here besides the required ones: %s"):format(table.concat(keys, ", "),
          next(opt) and labels(opt) or "nothing"))
  end
  -- (rxe lets a draining QP go to ERR alone)
  local leaves_sqd = from == "SQD" and to ~= "ERR"
  if leaves_sqd and ctx.sq_draining ~= nil and ctx.sq_draining ~= 0 then
    add(("the QP was still draining its send queue (sq_draining = %s when the modify failed): until the WRs"
          .. " posted before SQD have completed, rxe refuses every change of the QP but a move to ERR"):format(
          tostring(ctx.sq_draining)),
        "wait for the drain to end: the IBV_EVENT_SQ_DRAINED async event (ctx:get_async_event(), when SQD was"
          .. " entered with en_sqd_async_notify = 1), or qp:query() until sq_draining reads 0; then modify again")
  end
  local notes = {}
  for _, c in ipairs(VALUE_CHECKS) do
    if mask[c[1]] then
      local why, fix, note = c[2](attr, e)
      if why then
        if note then notes[#notes + 1] = { why = why, fix = fix, note = true } else add(why, fix) end
      end
    end
  end
  if #f == 0 then
    add(("the transition and the mask are legal for %s %s->%s (required: %s), so a value was refused")
        :format(qp_type, from, to, next(req) and labels(req) or "none"), M.RXE_ALSO)
  end
  if leaves_sqd and ctx.sq_draining == 0 then
    notes[#notes + 1] = { why = "leaving SQD is refused too while the send queue still drains; sq_draining read 0"
        .. " just after the failure, so a drain may have ended in between", fix = "try the modify again", note = true }
  end
  table.move(notes, 1, #notes, #f + 1, f)
  return head, f
end

-- ---------------------------------------------------------------------------
-- Post verbs: the QP's state, the WR's shape.

local function opname(op)
  return type(op) == "string" and (op:upper():gsub("^IBV_WR_", "")) or op
end
local function dig(t, ...)   -- first non-nil t[a][b]... among the given paths
  for _, p in ipairs({ ... }) do
    local v = t
    for k in p:gmatch("[^.]+") do v = type(v) == "table" and v[k] or nil end
    if v ~= nil then return v end
  end
end
local function has_flag(flags, name)
  if type(flags) == "string" then flags = { flags } end
  if type(flags) ~= "table" then return false end
  for _, f in ipairs(flags) do if (tostring(f):upper():gsub("^IBV_SEND_", "")) == name then return true end end
  return false
end
local function total_len(wr)
  local n = 0
  for _, sge in ipairs(type(wr.sg_list) == "table" and wr.sg_list or {}) do
    n = n + (math.tointeger(type(sge) == "table" and sge.length) or 0)
  end
  return n
end
local ATOMIC = { ATOMIC_CMP_AND_SWP = true, ATOMIC_FETCH_AND_ADD = true }
local RDMA = { RDMA_WRITE = true, RDMA_WRITE_WITH_IMM = true, RDMA_READ = true }
local SEND_STATES = { RTS = true, SQD = true }

-- Each check: test(ctx, wr, send?) -> why, fix.
local POST_CHECKS = {
  function(c, wr, send)
    if not send and c.qp_state == "RESET" then
      return "post_recv on a QP in RESET: its receive queue takes WRs from INIT on",
        'qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 } first'
          .. " (posting receives in INIT, before the peer is known, is the usual order)"
    end
  end,
  function(c, wr, send)
    if send and c.qp_state and not SEND_STATES[c.qp_state] and c.qp_state ~= "ERR" then
      return ("post_send on a QP in %s: its send queue takes WRs only in RTS"):format(c.qp_state),
        ("bring it to RTS first (%s)"):format(path(c.qp_state, "RTS") or "through RESET")
    end
  end,
  function(c, wr, send)
    local op = opname(wr.opcode)
    if send and c.qp_type == "UD" and (RDMA[op] or ATOMIC[op]) then
      return ("opcode %s on a UD QP: UD can only SEND and SEND_WITH_IMM (rxe's provider may accept the post;"
        .. " the WR then completes with LOC_QP_OP_ERR)"):format(op), "use an RC QP for RDMA and atomics"
    elseif send and c.qp_type == "UC" and (op == "RDMA_READ" or ATOMIC[op]) then
      return ("opcode %s on a UC QP: UC has no READ or atomics (no responder state)"):format(op), "use an RC QP"
    end
  end,
  function(c, wr, send)
    local n = type(wr.sg_list) == "table" and #wr.sg_list or 0
    local cap = type(c.cap) == "table" and (send and c.cap.max_send_sge or not send and c.cap.max_recv_sge)
    if cap and n > cap then
      return ("num_sge %d is above the QP's cap.max_%s_sge %d"):format(n, send and "send" or "recv", cap),
        ("use at most %d sg_list entries, or create the QP with a larger cap.max_%s_sge"):format(cap, send and "send" or "recv")
    end
  end,
  function(c, wr, send)
    if not (send and ATOMIC[opname(wr.opcode)]) then return end
    local addr = dig(wr, "wr.atomic.remote_addr", "atomic.remote_addr", "remote_addr")
    local len = total_len(wr)
    if math.type(addr) == "integer" and addr % 8 ~= 0 then
      return ("atomic remote_addr 0x%x is not 8-byte aligned"):format(addr), "align the remote address to 8 bytes"
    elseif len ~= 8 then
      return ("an atomic's sg_list must cover exactly 8 bytes (the old value lands there), not %d"):format(len),
        "sg_list = { { mr = mr, offset = OFF, length = 8 } }"
    end
  end,
  function(c, wr, send)
    if not (send and has_flag(wr.send_flags, "INLINE")) then return end
    local max = type(c.cap) == "table" and c.cap.max_inline_data
    local len = total_len(wr)
    if not max or len > max then
      return ("INLINE send of %d bytes is above the QP's cap.max_inline_data%s"):format(len,
          max and (" " .. max) or ""),
        "drop the INLINE flag, or create the QP with cap.max_inline_data >= the size"
    end
  end,
  function(c, wr, send)
    if send and c.qp_type == "UD" and not dig(wr, "wr.ud.ah", "ud.ah", "ah") then
      return "a UD send needs an address handle (wr.ud.ah), remote_qpn and remote_qkey",
        "ah = pd:create_ah{...}; wr.ud = { ah = ah, remote_qpn = PEER_QPN, remote_qkey = QKEY }"
    end
  end,
}

-- ibv_post_send / ibv_post_recv / ibv_post_srq_recv
function M.post(e)
  local c = {}
  for k, v in pairs(e.context or {}) do c[k] = v end
  c.qp_type, c.qp_state = norm_type(c.qp_type), norm_state(c.qp_state)
  local wr = type(c.wr) == "table" and c.wr or {}
  local send = e.verb == "ibv_post_send"
  local head = ("%s%s, WR #%s%s"):format(c.qp_type and c.qp_type .. " QP" or (e.verb == "ibv_post_srq_recv" and "SRQ" or "QP"),
    c.qp_state and " in " .. c.qp_state or "", tostring(c.bad_wr or "?"),
    wr.wr_id ~= nil and (" (wr_id=%s)"):format(tostring(wr.wr_id)) or "")
  local f = {}
  if c.bad_wr then
    f[1] = { info = ("WR #%d of the list was rejected: the WRs before it were posted, it and the ones after it were not")
      :format(c.bad_wr) }
  end
  local found = false
  for _, check in ipairs(POST_CHECKS) do
    local why, fix = check(c, wr, send)
    if why then f[#f + 1] = { why = why, fix = fix }; found = true end
  end
  if not found and e.errname == "EINVAL" then
    f[#f + 1] = { why = "the WR looks well-formed here; rxe also rejects: num_sge above the QP's max, an atomic"
      .. " with a remote address not 8-byte aligned or a length other than 8, inline data above max_inline_data,"
      .. " an opcode the QP type lacks, or a QP not in a state that accepts posts", fix = "qp:query() to compare with the QP's cap and state" }
  elseif not found and e.errname == "ENOMEM" then
    f[#f + 1] = { why = "the queue is full: more WRs outstanding than cap.max_" .. (send and "send" or "recv") .. "_wr",
      fix = "poll the CQ to retire completions before posting more, or create the QP with a deeper queue" }
  end
  return head, f
end

return M
