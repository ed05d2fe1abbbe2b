-- Shared by the tests/lua/robust_*.lua scripts (issue 19: hostile input,
-- re-entrant recorders, foreign objects). Each case runs a call that must
-- fail with a Lua error, never crash, and prints "observed: <case>: <message>"
-- for the .bats file to assert; a wrong or missing message fails the script.
local R = {}

function R.check(cond, fmt, ...)
  if not cond then error(fmt:format(...), 0) end
end

-- fn must raise an error whose text contains every one of the plain strings.
function R.refused(case, fn, ...)
  local ok, e = pcall(fn)
  local msg = tostring(e)
  R.check(not ok, "%s: accepted, expected an error", case)
  for _, want in ipairs({ ... }) do
    R.check(msg:find(want, 1, true), "%s: error %q lacks %q", case, msg, want)
  end
  print(("observed: %s: %s"):format(case, (msg:gsub("\n.*", ""))))
  return msg
end

function R.ok(case, fn)
  local ok, e = pcall(fn)
  R.check(ok, "%s: %s", case, tostring(e))
  print(("observed: %s: ok"):format(case))
  return e
end

-- The issue's R: a context, a PD, a CQ and small QP caps.
function R.setup()
  local ctx = verbs.open(os.getenv("RXE_DEV"))
  local pd = ctx:alloc_pd()
  local cq = ctx:create_cq(8)
  local caps = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 2, max_recv_sge = 2 }
  return ctx, pd, cq, caps
end

return R
