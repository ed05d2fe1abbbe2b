-- Runs the mistakes corpus (tests/mistakes/corpus.lua) on RXE_DEV: each
-- case on fresh objects, its error checked for every wanted string.
-- Prints "ok N name" or "not ok N name" with what was shown instead, and
-- a last line "mistakes: K of N show their guidance"; exits 1 on a miss.
local dir = arg[0]:match("^(.*)/[^/]*$") or "."
local cases = dofile(dir .. "/corpus.lua")
local dev = assert(os.getenv("RXE_DEV"), "RXE_DEV is not set")
local ctx = verbs.open(dev)
local gid_index = tonumber(os.getenv("RXE_GID_INDEX") or "1")
local pd = ctx:alloc_pd()
local mr = pd:reg_mr(4096, { "LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC" })
local cq = ctx:create_cq(64)
local cap = { max_send_wr = 8, max_recv_wr = 8, max_send_sge = 2, max_recv_sge = 2 }
local function qp(t) return pd:create_qp{ qp_type = t, send_cq = cq, recv_cq = cq, cap = cap } end

local helpers = {}
function helpers.init(q)
  if q.qp_type == "UD" then
    return q:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = 0x11 }
  end
  q:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }
end
function helpers.rtr(q, peer)
  q:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = peer.qp_num, rq_psn = 0, max_dest_rd_atomic = 1,
            min_rnr_timer = 12, ah_attr = { is_global = 1, port_num = 1,
            grh = { dgid = ctx:query_gid(1, gid_index), sgid_index = gid_index, hop_limit = 1 } } }
end
function helpers.rts(q)
  q:modify{ qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1 }
end

-- For the recorder's differential: VERBSH_MISTAKES_TRACE=on runs every
-- case with verbs.trace on (a silent function), =record with verbs.record;
-- VERBSH_MISTAKES_SHOW=1 prints each case's whole outcome, to compare.
local trace_mode, show = os.getenv("VERBSH_MISTAKES_TRACE"), os.getenv("VERBSH_MISTAKES_SHOW") == "1"
if trace_mode == "on" then verbs.trace(function() end) elseif trace_mode == "record" then verbs.record(true) end

local passed = 0
for n, case in ipairs(cases) do
  local name, code, want = case[1], case[2], case[3]
  local env = setmetatable({ ctx = ctx, pd = pd, cq = cq, mr = mr, rc = qp("RC"), rc2 = qp("RC"), ud = qp("UD"),
                             gid_index = gid_index }, { __index = function(_, k) return helpers[k] or _G[k] end })
  local chunk = assert(load(code, "=mistake", "t", env))
  verbs.strict(case.warn == true)
  local ok, err = pcall(chunk)
  verbs.strict(false)
  local shown = tostring(err)
  if show then print(("case %d %s: %s %s"):format(n, name, ok and "ok" or "error", shown)) end
  local missing
  if ok then missing = "(no error at all)" end
  for _, w in ipairs(want) do
    if not missing and not shown:find(w, 1, true) then missing = w end
  end
  if missing then
    print(("not ok %d %s: wanted %q in:\n%s"):format(n, name, missing, shown))
  else
    passed = passed + 1
    print(("ok %d %s"):format(n, name))
  end
  for _, k in ipairs { "rc", "rc2", "ud" } do pcall(env[k].destroy, env[k]) end
end
print(("mistakes: %d of %d show their guidance"):format(passed, #cases))
os.exit(passed == #cases and 0 or 1)
