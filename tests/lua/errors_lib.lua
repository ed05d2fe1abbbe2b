-- Shared by the tests/lua/errors_*.lua scenarios (run by tests/device/errors.bats
-- inside verbsh on rxe): one device, one PD, RC QPs on the same port talking
-- to each other, and checks that fail with a message saying what was seen.
local L = {}

L.gid_index = tonumber(os.getenv("RXE_GID_INDEX")) or 1
L.ctx = verbs.open(os.getenv("RXE_DEV"))
L.pd = L.ctx:alloc_pd()
L.gid = L.ctx:query_gid(1, L.gid_index)

function L.check(cond, fmt, ...)
  if not cond then error(fmt:format(...), 0) end
end

function L.qp(qp_type)
  local cq = L.ctx:create_cq(16)
  local qp = L.pd:create_qp{ qp_type = qp_type or "RC", send_cq = cq, recv_cq = cq,
    cap = { max_send_wr = 8, max_recv_wr = 8, max_send_sge = 1, max_recv_sge = 1 } }
  return qp, cq
end

local function merge(t, over)
  for k, v in pairs(over or {}) do t[k] = v end
  return t
end
-- The attributes of each step, as ibv_rc_pingpong uses them; `over` replaces
-- some (false removes one, so a test can leave a required attribute out).
local function drop_false(t)
  for k, v in pairs(t) do if v == false then t[k] = nil end end
  return t
end
function L.INIT(over)
  return drop_false(merge({ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }, over))
end
function L.RTR(dest_qpn, over)
  return drop_false(merge({ qp_state = "RTR", path_mtu = "1024", dest_qp_num = dest_qpn, rq_psn = 0,
    max_dest_rd_atomic = 1, min_rnr_timer = 1,
    ah_attr = { is_global = 1, port_num = 1, grh = { dgid = L.gid, sgid_index = L.gid_index, hop_limit = 1 } } },
    over))
end
function L.RTS(over)
  return drop_false(merge({ qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7,
    max_rd_atomic = 1 }, over))
end

-- Two RC QPs connected to each other; opts.a / opts.b: { init=, rtr=, rts= } overrides.
function L.pair(opts)
  opts = opts or {}
  local a, cqa = L.qp("RC")
  local b, cqb = L.qp("RC")
  for _, side in ipairs{ { a, b, opts.a or {} }, { b, a, opts.b or {} } } do
    local qp, peer, o = side[1], side[2], side[3]
    qp:modify(L.INIT(o.init))
    if o.before_rtr then o.before_rtr(qp) end
    qp:modify(L.RTR(peer.qp_num, o.rtr))
    qp:modify(L.RTS(o.rts))
  end
  return a, cqa, b, cqb
end

-- Calls fn(...) expecting a verb error object; returns it.
function L.fails(what, fn, ...)
  local ok, e = pcall(fn, ...)
  L.check(not ok, "%s: expected an error, but it succeeded", what)
  L.check(type(e) == "table" and getmetatable(e) and getmetatable(e).__name == "verbs.error",
    "%s: expected a verbs.error object, got %s: %s", what, type(e), tostring(e))
  return e
end

-- Waits for one completion; fails after ms milliseconds.
function L.wc(cq, what, ms)
  local wcs = cq:wait(1, ms or 10000)
  L.check(#wcs >= 1, "%s: no completion within %d ms", what, ms or 10000)
  return wcs[1]
end

-- "observed: <what>: <value>" lines are what the bats file asserts.
function L.seen(what, v) print(("observed: %s: %s"):format(what, v)) end

return L
