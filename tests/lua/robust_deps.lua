-- Issue 19 items 1 and 3: every object a verb takes from a table is read
-- once, raw (as the rest of the table), and checked, however the table is
-- built. A proxy's __index is never called: the objects kept as
-- dependencies are the ones in the C struct.
local R = dofile((arg[0]:gsub("[^/]*$", "")) .. "robust_lib.lua")
local ctx, pd, cq, caps = R.setup()
local mr = pd:reg_mr(64, { "LOCAL_WRITE" })
local calls = 0
local function proxy(t, value)
  return setmetatable(t, { __index = function() calls = calls + 1; return value end })
end

-- Item 1: create_qp, create_qp_ex, create_cq, create_cq_ex, id:create_qp.
for _, v in ipairs({ 42, pd, mr }) do
  local what = type(v) == "number" and "42" or tostring(v):match("^%a+")
  local qp = R.ok("pd:create_qp, __index gives " .. what, function()
    return pd:create_qp(proxy({ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = caps }, v)) end)
  R.check(qp.srq == nil and rawequal(qp.send_cq, cq) and rawequal(qp.pd, pd), "qp deps are not the raw ones")
  qp:destroy()
  qp = R.ok("ctx:create_qp_ex, __index gives " .. what, function()
    return ctx:create_qp_ex(proxy({ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq, cap = caps }, v)) end)
  R.check(qp.srq == nil and rawequal(qp.recv_cq, cq), "qp_ex deps are not the raw ones")
  qp:destroy()
  local c = R.ok("ctx:create_cq opts, __index gives " .. what, function()
    return ctx:create_cq(4, proxy({}, v)) end)
  c:destroy()
  c = R.ok("ctx:create_cq_ex, __index gives " .. what, function()
    return ctx:create_cq_ex(proxy({ cqe = 4 }, v)) end)
  c:destroy()
end
R.check(calls == 0, "__index was called %d times", calls)

-- Wrong classes and non-objects, raw: an error naming the key.
R.refused("create_qp srq=pd", function()
  return pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, srq = pd, cap = caps } end,
  "bad argument #1 to 'create_qp' (key 'srq': verbs.srq expected, got verbs.pd)")
R.refused("create_qp send_cq=42", function()
  return pd:create_qp{ qp_type = "RC", send_cq = 42, recv_cq = cq, cap = caps } end,
  "key 'send_cq': verbs.cq expected, got number")
R.refused("create_qp_ex pd=cq", function()
  return ctx:create_qp_ex{ pd = cq, qp_type = "RC", send_cq = cq, recv_cq = cq, cap = caps } end,
  "bad argument #1 to 'create_qp_ex' (key 'pd': verbs.pd expected, got verbs.cq)")
R.refused("create_cq channel=mr", function() return ctx:create_cq(4, { channel = mr }) end,
  "bad argument #2 to 'create_cq' (key 'channel': verbs.comp_channel expected, got verbs.mr)")
R.refused("create_cq_ex channel={}", function() return ctx:create_cq_ex{ cqe = 4, channel = {} } end,
  "key 'channel': verbs.comp_channel expected, got table")
local dead = ctx:create_cq(2)
dead:destroy()
R.refused("create_qp recv_cq destroyed", function()
  return pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = dead, cap = caps } end,
  "key 'recv_cq': cq is destroyed")

-- id:create_qp: the CM's context, resolved on the test address.
local ch = verbs.create_event_channel()
local id = ch:create_id("TCP")
id:resolve_addr(nil, os.getenv("RXE_ADDR") .. ":7479")
ch:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()
local ipd, icq = id.verbs:alloc_pd(), id.verbs:create_cq(4)
R.refused("id:create_qp srq=icq", function()
  return id:create_qp(ipd, { qp_type = "RC", send_cq = icq, recv_cq = icq, srq = icq, cap = caps }) end,
  "bad argument #2 to 'create_qp' (key 'srq': verbs.srq expected, got verbs.cq)")
R.refused("id:create_qp send_cq of another context", function()
  return id:create_qp(ipd, { qp_type = "RC", send_cq = cq, recv_cq = icq, cap = caps }) end,
  "bad argument #2 to 'create_qp' (key 'send_cq': cq1 belongs to ctx1, but pd")
local iqp = R.ok("id:create_qp, __index gives 42", function()
  return id:create_qp(ipd, proxy({ qp_type = "RC", send_cq = icq, recv_cq = icq, cap = caps }, 42)) end)
R.check(iqp.srq == nil and rawequal(id.qp, iqp), "id qp deps")
id:destroy_qp()
id:destroy()

-- Item 3: a prepared WR reads sg_list once, raw: the issue's reproducer,
-- whose __index gave a longer list each time, wrote past the WR's memory.
local n = 0
local wr = R.ok("send_wr with an sg_list __index", function()
  return verbs.send_wr(setmetatable({ opcode = "SEND" }, { __index = function(t, k)
    if k == "sg_list" then
      n = n + 1
      local l = {}
      for i = 1, 8 * n do l[i] = { mr = mr } end
      return l
    end
  end })) end)
R.check(n == 0, "sg_list read through __index %d times", n)
R.check(tostring(wr) == "send_wr SEND wr_id=0 (1 WR, 0 SGEs)", "wr: %s", tostring(wr))
-- The objects it names are the ones read: a destroyed MR is seen at post time.
local mr2 = pd:reg_mr(64, { "LOCAL_WRITE" })
local rwr = verbs.recv_wr{ { wr_id = 1, sg_list = { { mr = mr2 }, { mr = mr2 } } }, { wr_id = 2, sg_list = { { mr = mr } } } }
R.check(tostring(rwr) == "recv_wr wr_id=1 (2 WRs, 3 SGEs)", "rwr: %s", tostring(rwr))
local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = caps }
mr2:dereg()
R.refused("post a prepared WR naming a dereg'd MR", function() return qp:post_recv(rwr) end,
  "this prepared WR names mr", "which is destroyed since")
qp:destroy()
print("robust_deps: ok")
