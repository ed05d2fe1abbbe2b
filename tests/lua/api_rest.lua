-- The rest of verbs.h on rxe (src/api_rest.c), against the values a C
-- program measured on the same rxe (kernel 6.1, rdma-core 44): P_Keys,
-- query_device_ex, cq:resize, an MR at an IOVA written through remotely,
-- create_srq_ex, data ordering, and each hardware-only verb's explained
-- refusal (src/devonly.c, lua/explain_dev.lua).
local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/verbs_lib.lua")
local check, eq = T.check, T.eq
local dev = os.getenv("RXE_DEV")

ctx = verbs.open(dev)   -- a global: rc_connect reads it
local K = require "verbs.lesson_kit"
local pd = ctx:alloc_pd()

-- P_Keys: one, the default 0xffff at index 0
eq(ctx:query_pkey(1, 0), 0xffff, "query_pkey(1, 0)")
local e = T.raises("query_pkey(1, 1)", ctx.query_pkey, ctx, 1, 1)
eq(e.errname, "ENOENT", "query_pkey(1, 1) errno")
eq(e.verb, "ibv_query_pkey", "query_pkey's error names its verb"); eq(e.object, ctx, "query_pkey's error is about ctx")
eq(ctx:get_pkey_index(1, 0xffff), 0, "get_pkey_index(1, 0xffff)")
e = T.raises("get_pkey_index(1, 0x7fff)", ctx.get_pkey_index, ctx, 1, 0x7fff)
eq(e.errname, "ENOENT", "get_pkey_index(1, 0x7fff) errno")
eq(e.verb, "ibv_get_pkey_index", "get_pkey_index's error names its verb"); eq(e.object, ctx, "get_pkey_index's error is about ctx")
e = T.raises("query_pkey(1, 0x10000)", ctx.query_pkey, ctx, 1, 0x10000)
check(tostring(e):find("index: 65536 is out of range", 1, true), "query_pkey range: %s", tostring(e))

-- query_device_ex: ibv_device_attr's keys as query_device gives them, the hardware ones 0 on rxe
local d, x = ctx:query_device(), ctx:query_device_ex()
eq(x.max_qp, d.max_qp, "query_device_ex().max_qp")
eq(x.max_qp, 1048560, "rxe max_qp")
eq(x.max_cqe, d.max_cqe, "query_device_ex().max_cqe")
eq(x.fw_ver, d.fw_ver, "fw_ver")
eq(x.max_dm_size, 0, "max_dm_size")
eq(x.tm_caps.max_num_tags, 0, "tm_caps.max_num_tags")
eq(x.cq_mod_caps.max_cq_count, 0, "cq_mod_caps.max_cq_count")
eq(x.packet_pacing_caps.qp_rate_limit_max, 0, "packet_pacing_caps.qp_rate_limit_max")
eq(x.hca_core_clock, 0, "hca_core_clock")

-- cq:resize: rxe rounds up (64 -> 127), and 1 stays 1; 0 and above max_cqe are EINVAL
local cq1, cq2 = ctx:create_cq(16), ctx:create_cq(16)
eq(cq1:resize(64), 127, "cq1:resize(64)")
eq(cq2:resize(1), 1, "cq2:resize(1)")
e = T.raises("resize(0)", cq1.resize, cq1, 0)
eq(e.errname, "EINVAL", "resize(0)"); eq(e.verb, "ibv_resize_cq", "resize's verb"); eq(e.object, cq1, "resize's error is about cq1, not cq2")
eq(T.raises("resize(max_cqe + 1)", cq1.resize, cq1, d.max_cqe + 1).errname, "EINVAL", "resize(max_cqe + 1)")
eq(cq1:resize(d.max_cqe) >= d.max_cqe, true, "resize(max_cqe)")

-- an MR at IOVA 0x12345000: the peer writes to 0x12345000 + 100, the bytes land at offset 100
local cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 }
local a = pd:create_qp{ qp_type = "RC", send_cq = cq2, recv_cq = cq2, cap = cap }
local b = pd:create_qp{ qp_type = "RC", send_cq = cq2, recv_cq = cq2, cap = cap }
K.rc_connect(a, b); K.rc_connect(b, a)
local src = pd:reg_mr("0123456789abcdef", "LOCAL_WRITE")
local dst = pd:reg_mr_iova(4096, 0x12345000, { "LOCAL_WRITE", "REMOTE_WRITE" })
local dst2 = pd:reg_mr_iova2(4096, 0x54321000, { "LOCAL_WRITE", "REMOTE_WRITE" })
check(dst.rkey ~= dst2.rkey, "two IOVA MRs, two rkeys")
a:post_send{ wr_id = 7, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = { { mr = src, length = 16 } },
  rdma = { remote_addr = 0x12345000 + 100, rkey = dst.rkey } }
local wc = T.wc(cq2, "write to the IOVA", 2000)
eq(wc.status, "SUCCESS", "write through the IOVA")
eq(dst:read(100, 16), "0123456789abcdef", "bytes at IOVA + 100")
-- the buffer's own address is not the MR's remote address
a:post_send{ wr_id = 8, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = { { mr = src, length = 16 } },
  rdma = { remote_addr = dst2.addr, rkey = dst2.rkey } }
eq(T.wc(cq2, "write to the buffer address", 2000).status, "REM_ACCESS_ERR", "write to mr.addr of an IOVA MR")
-- an IOVA at another page offset: EINVAL, explained
e = T.raises("reg_mr_iova(.., 0x12345064)", pd.reg_mr_iova, pd, 4096, 0x12345064, "LOCAL_WRITE")
eq(e.errname, "EINVAL", "iova offset errno"); eq(e.object, pd, "reg_mr_iova's error is about pd")
check(tostring(e):find("iova 0x12345064 is at offset 0x64 in its page", 1, true), "iova explained: %s", tostring(e))
check(tostring(e):find("e.g. 0x12345000", 1, true), "iova fix: %s", tostring(e))

-- mr:rereg: rxe returns -4 (IBV_REREG_MR_ERR_CMD) with EOPNOTSUPP
local mr = pd:reg_mr(4096, "LOCAL_WRITE")
e = T.raises("rereg", mr.rereg, mr, "CHANGE_ACCESS", nil, { "LOCAL_WRITE", "REMOTE_READ" })
eq(e.errname, "EOPNOTSUPP", "rereg errno")
eq(e.context.ret, -4, "rereg return code"); eq(e.object, mr, "rereg's error is about the MR")
eq(e.context.ret_name, "IBV_REREG_MR_ERR_CMD", "rereg code name")
check(tostring(e):find(dev .. ' does not implement re-registering an MR in place', 1, true), "rereg: %s", tostring(e))
check(tostring(T.raises("rereg translation", mr.rereg, mr, "CHANGE_TRANSLATION")):find("verbsh owns the MR's memory", 1, true),
  "CHANGE_TRANSLATION refused")

-- create_srq_ex: BASIC works (rxe rounds 64 up to 127), TM is refused with its topic, XRC without a domain EINVAL
local srq = ctx:create_srq_ex{ srq_type = "BASIC", pd = pd, attr = { max_wr = 64, max_sge = 1 } }
eq(srq:query().max_wr, 127, "create_srq_ex BASIC max_wr")
srq:post_recv{ wr_id = 1, sg_list = { { mr = mr, length = 64 } } }
e = T.raises("create_srq_ex TM", ctx.create_srq_ex, ctx, { srq_type = "TM", pd = pd, cq = cq1,
  attr = { max_wr = 16, max_sge = 1 }, tm_cap = { max_num_tags = 4, max_ops = 4 } })
eq(e.errname, "EOPNOTSUPP", "TM SRQ errno")
check(tostring(e):find('see help "TM"', 1, true), "TM SRQ explained: %s", tostring(e))
eq(T.raises("create_srq_ex XRC", ctx.create_srq_ex, ctx, { srq_type = "XRC", pd = pd, cq = cq1,
  attr = { max_wr = 16, max_sge = 1 } }).errname, "EINVAL", "XRC SRQ without a domain")
check(tostring(T.raises("create_srq_ex no pd", ctx.create_srq_ex, ctx, { attr = { max_wr = 4 } })):find("key 'pd' is missing",
  1, true), "create_srq_ex without pd")

-- data ordering: rxe answers 0 (not guaranteed) to every opcode and to the caps query
eq(a:query_data_in_order("RDMA_WRITE"), 0, "query_data_in_order RDMA_WRITE")
eq(a:query_data_in_order("SEND", 1), 0, "query_data_in_order SEND, RETURN_CAPS")
T.raises("query_data_in_order flags 2", a.query_data_in_order, a, "SEND", 2)

-- fork: the 6.1 kernel copies pinned pages (UNNEEDED), and fork_init after the first reg_mr is EINVAL, explained
eq(verbs.is_fork_initialized(), "UNNEEDED", "is_fork_initialized")
e = T.raises("fork_init after reg_mr", verbs.fork_init)
eq(e.errname, "EINVAL", "fork_init errno")
check(tostring(e):find("ibv_fork_init must come before the first reg_mr", 1, true), "fork_init explained: %s", tostring(e))

-- verbs.devices(): the kernel's device index
eq(verbs.devices()[1].index, 0, "devices()[1].index")
T.done("api_rest")
