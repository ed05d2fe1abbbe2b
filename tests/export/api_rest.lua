-- The rest of verbs.h for the C export (tests/device/api_rest.bats): P_Keys,
-- query_device_ex, cq:resize, an MR at an IOVA, mr:rereg refused, an SRQ of
-- ibv_create_srq_ex, data ordering, fork_init after reg_mr, the hardware
-- rows' refusals, and the *_str and rate helpers.
local ctx = verbs.open(os.getenv("RXE_DEV"))
local pd = ctx:alloc_pd()
print(ctx:query_pkey(1, 0), ctx:get_pkey_index(1, 0xffff), pcall(ctx.get_pkey_index, ctx, 1, 0x7fff))
print(ctx:query_device_ex().max_qp)
local cq = ctx:create_cq(16)
print(cq:resize(64), pcall(cq.resize, cq, 0))
local mr = pd:reg_mr_iova(4096, 0x12345000, { "LOCAL_WRITE", "REMOTE_WRITE" })
local mr2 = pd:reg_mr_iova2("hello", 0x20000, "LOCAL_WRITE")
print(pcall(mr.rereg, mr, "CHANGE_ACCESS", nil, { "LOCAL_WRITE", "REMOTE_READ" }))
local srq = ctx:create_srq_ex{ srq_type = "BASIC", pd = pd, attr = { max_wr = 16, max_sge = 1 } }
local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, srq = srq,
  cap = { max_send_wr = 4, max_send_sge = 1 } }
print(qp:query_data_in_order("RDMA_WRITE"), verbs.is_fork_initialized(), pcall(verbs.fork_init))
print(pcall(ctx.open_xrcd, ctx), pcall(ctx.alloc_dm, ctx, 4096), pcall(cq.modify, cq, 4, 10), pcall(qp.query_ece, qp))
print(pcall(pd.alloc_null_mr, pd), pcall(srq.get_srq_num, srq), pcall(srq.post_srq_ops, srq, 3))
print(pcall(ctx.create_wq, ctx, pd, cq), pcall(ctx.open_qp, ctx, 0x11), pcall(pd.advise_mr, pd, mr),
  pcall(ctx.alloc_parent_domain, ctx, pd), pcall(verbs.import_device, ctx), pcall(pd.reg_dmabuf_mr, pd, -1, 0, 4096, 0))
print(verbs.wc_status_str("REM_ACCESS_ERR"), verbs.rate_to_mbps("25_GBPS"), verbs.mult_to_rate(4))
qp:destroy(); srq:destroy(); mr2:dereg(); mr:dereg(); cq:destroy(); pd:dealloc()
