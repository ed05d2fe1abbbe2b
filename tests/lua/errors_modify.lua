-- ibv_modify_qp on rxe: for each RC step, leave each required attribute out
-- once (EINVAL, the QP stays where it was, the message names the attribute),
-- then the RoCE pitfalls and illegal transitions.
local L = dofile((arg[0]:match("^(.*)/") or ".") .. "/errors_lib.lua")
local check, seen = L.check, L.seen

-- attr key -> IBV_QP_* name, for the steps' required attributes.
local STEPS = {
  { "RESET", "INIT", L.INIT, { pkey_index = "PKEY_INDEX", port_num = "PORT", qp_access_flags = "ACCESS_FLAGS" } },
  { "INIT", "RTR", L.RTR, { ah_attr = "AV", path_mtu = "PATH_MTU", dest_qp_num = "DEST_QPN", rq_psn = "RQ_PSN",
                            max_dest_rd_atomic = "MAX_DEST_RD_ATOMIC", min_rnr_timer = "MIN_RNR_TIMER" } },
  { "RTR", "RTS", L.RTS, { sq_psn = "SQ_PSN", timeout = "TIMEOUT", retry_cnt = "RETRY_CNT", rnr_retry = "RNR_RETRY",
                           max_rd_atomic = "MAX_QP_RD_ATOMIC" } },
}

local qp = L.qp("RC")
local function attrs(step, over)
  if step[3] == L.RTR then return L.RTR(qp.qp_num, over) end
  return step[3](over)
end

for _, step in ipairs(STEPS) do
  local from, to, _, req = table.unpack(step)
  local keys = {}
  for key in pairs(req) do keys[#keys + 1] = key end
  table.sort(keys)
  for _, key in ipairs(keys) do
    local what = ("RC %s->%s without %s"):format(from, to, key)
    local e = L.fails(what, qp.modify, qp, attrs(step, { [key] = false }))
    local text = tostring(e)
    check(e.errname == "EINVAL" and e.errno == 22, "%s: %s %s", what, e.errname, e.errno)
    check(e.verb == "ibv_modify_qp", "%s: verb %s", what, e.verb)
    local want = ("required but missing for RC %s->%s: IBV_QP_%s (%s)\n"):format(from, to, req[key], key)
    check(text:find(want, 1, true), "%s: the message does not say %q:\n%s", what, want, text)
    check(qp.state == from, "%s: the QP moved to %s", what, qp.state)
    seen(what, ("%s %d, still %s"):format(e.errname, e.errno, qp.state))
  end
  if to == "RTR" then
    -- RoCE: no GRH.
    local e = L.fails("RTR with is_global = 0", qp.modify, qp,
      L.RTR(qp.qp_num, { ah_attr = { is_global = 0, port_num = 1, dlid = 0 } }))
    check(e.errname == "EINVAL", "RTR with is_global = 0: %s", e.errname)
    check(tostring(e):find("ah_attr.is_global is not set, but rxe is RoCEv2", 1, true), "no is_global text:\n%s", tostring(e))
    seen("RTR with is_global = 0", ("%s %d, still %s"):format(e.errname, e.errno, qp.state))
    -- An empty GID slot.
    local empty = 7
    local e2 = L.fails("RTR with sgid_index 7", qp.modify, qp,
      L.RTR(qp.qp_num, { ah_attr = { is_global = 1, port_num = 1, grh = { dgid = L.gid, sgid_index = empty, hop_limit = 1 } } }))
    check(tostring(e2):find("grh.sgid_index 7 points at an empty slot", 1, true), "no sgid text:\n%s", tostring(e2))
    seen("RTR with sgid_index 7 (empty)", ("%s %d"):format(e2.errname, e2.errno))
  end
  if to == "RTS" then
    -- A 5-bit field of the IBA: refused before ibv_modify_qp, as are
    -- retry_cnt and rnr_retry (3 bits) and min_rnr_timer (5 bits).
    local ok, e = pcall(qp.modify, qp, L.RTS{ timeout = 40 })
    check(not ok and tostring(e):find("key 'timeout': 40 is out of range (0..31)", 1, true), "timeout 40:\n%s", tostring(e))
    seen("RTS with timeout 40", "refused: " .. tostring(e):match("%((key .*)%)$"))
    for k, max in pairs { retry_cnt = 7, rnr_retry = 7 } do
      local ok2, e2 = pcall(qp.modify, qp, L.RTS{ [k] = max + 1 })
      check(not ok2 and tostring(e2):find(("key '%s': %d is out of range (0..%d)"):format(k, max + 1, max), 1, true),
        "%s = %d:\n%s", k, max + 1, tostring(e2))
    end
  end
  qp:modify(attrs(step))
  check(qp.state == to, "the full %s->%s attributes did not reach %s (%s)", from, to, to, qp.state)
end

-- Illegal transitions on a fresh QP.
local fresh = L.qp("RC")
for _, to in ipairs{ "RTS", "RTR", "ERR" } do
  local e = L.fails("RESET->" .. to, fresh.modify, fresh, { qp_state = to })
  check(e.errname == "EINVAL", "RESET->%s: %s", to, e.errname)
  check(tostring(e):find("RESET->" .. to .. " is an illegal transition", 1, true), "RESET->%s:\n%s", to, tostring(e))
  seen("RESET->" .. to, ("%s %d, still %s"):format(e.errname, e.errno, fresh.state))
end

-- ACCESS_FLAGS on UD.
local ud = L.qp("UD")
local e = L.fails("UD RESET->INIT with qp_access_flags", ud.modify, ud,
  { qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = 0x11111111, qp_access_flags = 0 })
check(e.errname == "EINVAL", "UD access flags: %s", e.errname)
check(tostring(e):find("present but not allowed in UD RESET->INIT: IBV_QP_ACCESS_FLAGS (qp_access_flags)", 1, true),
  "UD access flags:\n%s", tostring(e))
seen("UD RESET->INIT with qp_access_flags", ("%s %d"):format(e.errname, e.errno))
print("errors_modify: ok")
