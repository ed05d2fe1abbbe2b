-- Issue 19 item 5: every object argument belongs to the context of the
-- object it is used with. The kernel resolves handle numbers per context:
-- c2:create_qp_ex{pd = pd1, ...} used to make a QP on c2's own PD and CQ
-- while verbsh recorded c1's, which then leaked or failed with EBUSY.
local R = dofile((arg[0]:gsub("[^/]*$", "")) .. "robust_lib.lua")
local PID = io.open("/proc/self/stat"):read("n")
-- What the kernel holds for this process: `rdma res show cq` / `qp` lines of our pid.
local function held(what)
  local n, p = 0, io.popen("rdma res show " .. what .. " 2>/dev/null")
  for line in p:lines() do if line:find(" pid " .. PID .. " ", 1, true) then n = n + 1 end end
  p:close()
  return n
end
local c1, pd1, cq1, caps = R.setup()
local cqs0, qps0 = held("cq"), held("qp")
local c2 = verbs.open(os.getenv("RXE_DEV"))
local pd2, cq2 = c2:alloc_pd(), c2:create_cq(8)
local ch1 = c1:create_comp_channel()

R.refused("c2:create_qp_ex{pd = pd1}", function()
  return c2:create_qp_ex{ pd = pd1, qp_type = "RC", send_cq = cq1, recv_cq = cq1, cap = caps } end,
  "bad argument #1 to 'create_qp_ex' (key 'pd': pd1 belongs to ctx1, not to ctx2:")
R.refused("c2:create_qp_ex{send_cq = cq1}", function()
  return c2:create_qp_ex{ pd = pd2, qp_type = "RC", send_cq = cq1, recv_cq = cq2, cap = caps } end,
  "key 'send_cq': cq1 belongs to ctx1, not to ctx2:")
R.refused("pd2:create_qp{recv_cq = cq1}", function()
  return pd2:create_qp{ qp_type = "RC", send_cq = cq2, recv_cq = cq1, cap = caps } end,
  "bad argument #1 to 'create_qp' (key 'recv_cq': cq1 belongs to ctx1, but pd2 belongs to ctx2:")
local srq1 = pd1:create_srq{ max_wr = 4, max_sge = 1 }
R.refused("pd2:create_qp{srq = srq1}", function()
  return pd2:create_qp{ qp_type = "RC", send_cq = cq2, recv_cq = cq2, srq = srq1, cap = caps } end,
  "key 'srq': srq1 belongs to ctx1, but pd2 belongs to ctx2:")
R.refused("c2:create_cq(4, {channel = ch1})", function() return c2:create_cq(4, { channel = ch1 }) end,
  "bad argument #2 to 'create_cq' (key 'channel': channel1 belongs to ctx1, not to ctx2:")
R.refused("c2:create_cq_ex{channel = ch1}", function() return c2:create_cq_ex{ cqe = 4, channel = ch1 } end,
  "key 'channel': channel1 belongs to ctx1, not to ctx2:")

-- The same objects, each with its own context, work.
local qp2 = R.ok("c2:create_qp_ex, all from c2", function()
  return c2:create_qp_ex{ pd = pd2, qp_type = "RC", send_cq = cq2, recv_cq = cq2, cap = caps } end)

-- GC in any order never closes c2 under its live QP, nor leaks its CQ.
c2, pd2, cq2 = nil, nil, nil
collectgarbage(); collectgarbage()
qp2:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }
R.check(qp2.state == "INIT" and tostring(qp2.send_cq):find("^cq "), "qp2 after GC: %s", tostring(qp2))
print("observed: qp2 after its context, PD and CQ were collected: " .. tostring(qp2))
R.check(held("cq") == cqs0 + 1 and held("qp") == qps0 + 1, "kernel holds %d CQs, %d QPs", held("cq"), held("qp"))
qp2:destroy()
qp2 = nil
collectgarbage(); collectgarbage()
-- c2's CQ went with it: nothing leaked in the kernel.
R.check(held("cq") == cqs0 and held("qp") == qps0, "after GC the kernel holds %d CQs (%d before), %d QPs (%d)",
  held("cq"), cqs0, held("qp"), qps0)
print(("observed: kernel CQs of this process after GC: %d, as before c2"):format(held("cq")))
srq1:destroy()
print("robust_context: ok")
