-- Recording is an observer: each case below runs with the trace off and
-- then on (verbs.trace(fn), or verbs.record(true) when arg[1] is "record"),
-- and must give the same values, or the same error with the same message
-- and location. Prints one line per case: "same NAME: OUTCOME" or
-- "DIFFERENT NAME: off=... on=...", then "observer: K of N the same".
local mode = arg and arg[1] or "trace"
local ctx = verbs.open(); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4); local cq2 = ctx:create_cq(4)
local mr0 = pd:reg_mr(64, "LOCAL_WRITE")   -- made before any recording
mr0:write(0, "abcdefgh")
local qx = ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq2,
  cap = { max_send_wr = 2, max_recv_wr = 1 }, send_ops_flags = { "SEND" } }
local deep = {}
do local t = deep; for _ = 1, 200000 do t.x = {}; t = t.x end end

local function on(yes)
  if mode == "record" then verbs.record(yes) else verbs.trace(yes and function() end or false) end
end

-- Each case is a function; its outcome is what pcall gives, as text. The
-- calls are on their own lines, so that a location would show a change.
local cases = {
  { "verbs.open that fails", function()
      return verbs.open("no-such-device") end },
  { "verbs.open with a wrong type", function()
      return verbs.open(42) end },
  { "mr:read of an MR made before", function()
      return mr0:read(0, 8) end },
  { "mr:write of an MR made before", function()
      mr0:write(2, "XY"); return mr0:read(0, 8) end },
  { "mr:fill of an MR made before", function()
      mr0:fill(0x41, 6, 2); return mr0:read(0, 8) end },
  { "an unknown field", function()
      return cq.qp_numx end },
  { "a field of the extended CQ on a plain CQ", function()
      return cq.status end },
  { "an assignment of a bad value", function()
      qx.wr_id = "x" end },
  { "an assignment of a bad flag", function()
      qx.wr_flags = "BOGUS" end },
  { "a method called as the last statement (a tail call)", function()
      return pd:reg_mr({}) end },
  { "a method's argument error", function()
      local m = pd:reg_mr({}); return m end },
  { "arguments nested 200000 deep", function()
      local m = pd:reg_mr(deep); return m end },
  { "wr_set_inline_data with a number", function()
      qx:wr_start(); qx:wr_send(); local ok, e = pcall(qx.wr_set_inline_data, qx, 123); qx:wr_abort(); error(e, 0) end },
  { "wr_set_inline_data with a file", function()
      qx:wr_start(); qx:wr_send(); local ok, e = pcall(qx.wr_set_inline_data, qx, io.stdout); qx:wr_abort(); error(e, 0) end },
  { "an unaligned atomic remote_addr", function()
      local q = ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq2, cap = { max_send_wr = 1, max_recv_wr = 1 },
        send_ops_flags = { "ATOMIC_FETCH_AND_ADD" } }
      q:wr_start(); local ok, e = pcall(q.wr_atomic_fetch_add, q, 1, 0x1003, 5); q:wr_abort(); q:destroy(); error(e, 0) end },
  { "an INLINE SGE outside every MR", function()
      local q = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq2, cap = { max_send_wr = 1, max_recv_wr = 1, max_inline_data = 64 } }
      local ok, e = pcall(q.post_send, q, { opcode = "SEND", send_flags = "INLINE", sg_list = { { addr = 0x1000, length = 0x90000000, lkey = 1 } } })
      q:destroy(); error(e, 0) end },
  { "a query's values", function()
      local a = qx:query(); return a.qp_state, a.cap.max_send_wr, qx.send_cq == cq, qx.recv_cq == cq2 end },
}

local function outcome(f)
  local r = table.pack(pcall(f))
  local parts = {}
  for i = 1, r.n do parts[i] = tostring(r[i]) end
  return table.concat(parts, " | ")
end

local same = 0
for _, c in ipairs(cases) do
  local name, f = c[1], c[2]
  local off = outcome(f)
  on(true)
  local traced = outcome(f)
  on(false)
  if off == traced then
    same = same + 1
    print(("same %s: %s"):format(name, (off:gsub("\n.*", " ..."))))
  else
    print(("DIFFERENT %s:\n  off=%s\n  on =%s"):format(name, off, traced))
  end
end
print(("observer: %d of %d the same"):format(same, #cases))
