-- A finalizer that posts or prepares a WR while verbs.send_wr reads a chain
-- (a GC step in the warning each RDMA_WRITE without rdma formats) must not
-- take over the chain's record of the MRs it names: every one is still
-- kept, and a post once one is gone is refused, not made with a stale lkey.
-- A script of its own, with nothing loaded but what it needs: on a larger
-- heap a GC cycle, and so the finalizers, no longer fit inside one read.
-- MODE=post or MODE=prepare: what the finalizers do.
local nested = os.getenv("MODE") or "post"
local ctx = verbs.open(os.getenv("RXE_DEV"))
local pd = ctx:alloc_pd()
local cq = ctx:create_cq(16)
local mr = pd:reg_mr(64, "LOCAL_WRITE")
local idle = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,   -- RESET: a post is read, then refused
  cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }
local mrs, list = {}, {}
for i = 1, 100 do
  mrs[i] = pd:reg_mr(64, "LOCAL_WRITE")
  list[#list + 1] = { opcode = "RDMA_WRITE" }
  list[#list + 1] = { opcode = "SEND", sg_list = { { mr = mrs[i], length = 8 } } }
end
verbs.warnings(false)   -- the message is still formatted
local fired, armed = 0, true
local function arm()
  setmetatable({}, { __gc = function()
    if not armed then return end
    fired = fired + 1
    if nested == "post" then pcall(idle.post_recv, idle, { wr_id = 1 })
    else pcall(verbs.send_wr, { opcode = "SEND", sg_list = { { mr = mr, length = 8 } } }) end
    arm()
  end })
end
for _ = 1, 10 do arm() end
-- generational: a minor cycle, and its finalizers, at nearly every
-- allocation; incremental (pause 1, stepmul 1000) no longer finished a cycle
-- inside one read once verbsh's heap at start grew with its new modules
collectgarbage("generational", 1, 100)
local w = verbs.send_wr(list)
armed = false
collectgarbage("incremental", 200, 100)
assert(fired > 0, "the finalizers did not run inside verbs.send_wr: the test tests nothing")
mrs[100]:dereg()
local ok, e = pcall(idle.post_send, idle, w)
assert(not ok, "the chain was posted once its last MR was deregistered")
assert(tostring(e):find("names mr%d+, which is destroyed since"), tostring(e))
print(("verbs_prepared_gc %s: ok (%d finalizers ran inside the read)"):format(nested, fired))
