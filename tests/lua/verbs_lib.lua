-- Shared by the tests/lua/verbs_*.lua scenarios (run by tests/device/verbs_*.bats
-- inside verbsh on rxe): the device, checks that say what was seen, and the
-- RC/UD transitions written out by hand, the way a learner types them.
local T = {}

T.gid_index = tonumber(os.getenv("RXE_GID_INDEX")) or 1
T.checks = 0

function T.check(cond, fmt, ...)
  if not cond then error("FAILED: " .. fmt:format(...), 2) end
  T.checks = T.checks + 1
end

function T.eq(got, want, what)
  if got ~= want then
    error(("FAILED: %s: got %s, want %s"):format(what, tostring(got), tostring(want)), 2)
  end
  T.checks = T.checks + 1
end

-- Expects fn(...) to raise; returns the error (object or string).
function T.raises(what, fn, ...)
  local ok, e = pcall(fn, ...)
  if ok then error("FAILED: " .. what .. ": expected an error, but it succeeded", 2) end
  T.checks = T.checks + 1
  return e
end

-- One WC, or fail after ms.
function T.wc(cq, what, ms)
  local wcs = cq:wait(1, ms or 5000)
  if #wcs ~= 1 then error(("FAILED: %s: no completion within %d ms"):format(what, ms or 5000), 2) end
  return wcs[1]
end

function T.done(name) print(("%s: ok (%d checks)"):format(name, T.checks)) end

return T
