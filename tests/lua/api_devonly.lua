-- Every hardware-only verb on rxe (src/devonly.c's rows and the other
-- refusals of lua/explain_dev.lua's table): the errno rxe answered in a C
-- program (kernel 6.1, rdma-core 44), and an explanation that names the
-- device, the feature and its help topic.
local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/verbs_lib.lua")
local check, eq = T.check, T.eq
local dev = os.getenv("RXE_DEV")

local ctx = verbs.open(dev)
local pd = ctx:alloc_pd()
local cq = ctx:create_cq(8)
local mr = pd:reg_mr(4096, "LOCAL_WRITE")
local cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 }
local qp = pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq, cap = cap }
local srq = pd:create_srq{ max_wr = 4, max_sge = 1 }

-- { call, the verb, rxe's errno, the help topic }
local rows = {
  { function() return ctx:open_xrcd() end, "ibv_open_xrcd", "EOPNOTSUPP", "XRC" },
  { function() return ctx:open_qp(0x11) end, "ibv_open_qp", "EOPNOTSUPP", "XRC" },
  { function() return srq:get_srq_num() end, "ibv_get_srq_num", "EOPNOTSUPP", "XRC" },
  { function() return ctx:alloc_dm(4096) end, "ibv_alloc_dm", "EOPNOTSUPP", "DM" },
  { function() return ctx:import_dm(1) end, "ibv_import_dm", "EOPNOTSUPP", "DM" },
  { function() return ctx:alloc_td() end, "ibv_alloc_td", "EOPNOTSUPP", "TD" },
  { function() return ctx:alloc_parent_domain(pd) end, "ibv_alloc_parent_domain", "EOPNOTSUPP", "TD" },
  { function() return ctx:create_counters() end, "ibv_create_counters", "EOPNOTSUPP", "COUNTERS" },
  { function() return ctx:create_wq(pd, cq) end, "ibv_create_wq", "EOPNOTSUPP", "WQ" },
  { function() return ctx:create_rwq_ind_table() end, "ibv_create_rwq_ind_table", "EOPNOTSUPP", "WQ" },
  { function() return ctx:create_flow_action_esp() end, "ibv_create_flow_action_esp", "EOPNOTSUPP", "ESP" },
  { function() return ctx:import_pd(1) end, "ibv_import_pd", "EOPNOTSUPP", "IMPORT" },
  { function() return verbs.import_device(ctx) end, "ibv_import_device", "EOPNOTSUPP", "IMPORT" },
  { function() return ctx:query_rt_values_ex() end, "ibv_query_rt_values_ex", "EOPNOTSUPP", "CLOCK" },
  { function() return pd:reg_dmabuf_mr(-1, 0, 4096, 0, "LOCAL_WRITE") end, "ibv_reg_dmabuf_mr", "EOPNOTSUPP", "DMABUF" },
  { function() return pd:alloc_null_mr() end, "ibv_alloc_null_mr", "EOPNOTSUPP", "NULL_MR" },
  { function() return pd:advise_mr(mr) end, "ibv_advise_mr", "EOPNOTSUPP", "ODP" },
  { function() return pd:import_mr(mr.handle) end, "ibv_import_mr", "EOPNOTSUPP", "IMPORT" },
  { function() return qp:create_flow(1) end, "ibv_create_flow", "EOPNOTSUPP", "FLOW" },
  { function() return qp:modify_rate_limit(100000) end, "ibv_modify_qp_rate_limit", "EOPNOTSUPP", "RATE_LIMIT" },
  { function() return qp:query_ece() end, "ibv_query_ece", "EOPNOTSUPP", "ECE" },
  { function() return qp:set_ece(0x15b3, 1) end, "ibv_set_ece", "EOPNOTSUPP", "ECE" },
  { function() return cq:modify(4, 10) end, "ibv_modify_cq", "EOPNOTSUPP", "MODERATION" },
  { function() return srq:post_srq_ops(1) end, "ibv_post_srq_ops", "EOPNOTSUPP", "TM" },
}
for i, r in ipairs(rows) do
  local e = T.raises("row " .. i .. " " .. r[2], r[1])
  eq(type(e) == "table" and e.verb, r[2], "row " .. i .. " verb")
  eq(e.errname, r[3], r[2] .. " errno")
  local text = tostring(e)
  local want = ("does not implement %s (%s); hardware such as %s does: see help %q"):format(
    require("verbs.explain_dev").FEATURES[r[4]].what, r[3], require("verbs.explain_dev").FEATURES[r[4]].hw, r[4])
  check(text:find(want, 1, true), "%s explained: %s", r[2], text)
  check(r[2] == "ibv_import_device" or text:find(dev .. " does not implement", 1, true), "%s names %s: %s", r[2], dev, text)
end
-- verbs.import_device of a bad fd: EINVAL, and no hardware topic
local e = T.raises("import_device(-1)", verbs.import_device, -1)
eq(e.errname, "EINVAL", "import_device(-1)")
eq(e.context and e.context.fd, -1, "import_device(-1): the error's context holds the fd")
eq(e.context.device, nil, "import_device(-1): an fd names no device")
local e_ctx = T.raises("import_device(ctx)", verbs.import_device, ctx)
eq(e_ctx.context and e_ctx.context.device, dev, "import_device(ctx): the error's context names the device")
check(not tostring(e):find("see help", 1, true), "EINVAL is not a missing feature")

-- a device object's method wants its kind: no device object can be made on rxe, so the check is on arguments
check(tostring(T.raises("open_qp with a pd as xrcd", ctx.open_qp, ctx, 1, pd)):find("verbs.devobj expected", 1, true),
  "open_qp checks its xrcd argument")

-- the completion reads and the send ops of hardware features
e = T.raises("cq_ex CVLAN", ctx.create_cq_ex, ctx, { cqe = 4, wc_flags = { "BYTE_LEN", "CVLAN" } })
eq(e.errname, "EOPNOTSUPP", "create_cq_ex CVLAN")
for _, f in ipairs { "COMPLETION_TIMESTAMP_WALLCLOCK", "FLOW_TAG", "TM_INFO" } do
  eq(T.raises("cq_ex " .. f, ctx.create_cq_ex, ctx, { cqe = 4, wc_flags = { f } }).errname, "EOPNOTSUPP", "create_cq_ex " .. f)
end
local cqx = ctx:create_cq_ex{ cqe = 4, wc_flags = { "BYTE_LEN" } }
check(tostring(T.raises("read_cvlan", cqx.read_cvlan, cqx)):find("read_cvlan", 1, true), "read_cvlan outside a poll")
eq(T.raises("qp_ex TSO", ctx.create_qp_ex, ctx, { pd = pd, qp_type = "UD", send_cq = cq, recv_cq = cq, cap = cap,
  send_ops_flags = { "TSO" } }).errname, "EOPNOTSUPP", "create_qp_ex TSO")
eq(T.raises("qp_ex XRC_SEND", ctx.create_qp_ex, ctx, { pd = pd, qp_type = "XRC_SEND", send_cq = cq, recv_cq = cq,
  cap = { max_send_wr = 2, max_send_sge = 1 } }).errname, "EOPNOTSUPP", "create_qp_ex XRC_SEND")

-- atomic write: rdma-core 44 posts it, the 6.1 kernel completes it LOC_QP_OP_ERR and the target stays as it was

rawset(_G, "ctx", ctx)
local K = require "verbs.lesson_kit"
local cq2 = ctx:create_cq(8)
local a = ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq2, recv_cq = cq2, cap = cap,
  send_ops_flags = { "ATOMIC_WRITE" } }
local b = pd:create_qp{ qp_type = "RC", send_cq = cq2, recv_cq = cq2, cap = cap }
K.rc_connect(a, b); K.rc_connect(b, a)
local target = pd:reg_mr("abcdefgh", { "LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_ATOMIC" })
a:wr_start(); a.wr_id = 9; a.wr_flags = "SIGNALED"
check(tostring(T.raises("wr_atomic_write 7 bytes", a.wr_atomic_write, a, target.rkey, target.addr, "1234567")):find(
  "8 bytes", 1, true), "atomic write data is 8 bytes")
a:wr_atomic_write(target.rkey, target.addr, "12345678")
a:wr_complete()
local wc = T.wc(cq2, "atomic write", 2000)
eq(wc.wr_id, 9, "atomic write wr_id"); eq(wc.status, "LOC_QP_OP_ERR", "atomic write on rxe of kernel 6.1")
eq(target:read(0, 8), "abcdefgh", "target untouched")
T.done("api_devonly")
