-- The extended post-send API with memory windows: ibv_wr_bind_mw,
-- ibv_wr_send_inv and ibv_wr_local_inv, and a READ through the window.
local gidx = tonumber(os.getenv("RXE_GID_INDEX"))
local ctx = verbs.open(os.getenv("RXE_DEV"))
local pd, cq = ctx:alloc_pd(), ctx:create_cq(16)
local mr_a = pd:reg_mr(64, "LOCAL_WRITE")
local mr_b = pd:reg_mr("granted, then revoked", { "LOCAL_WRITE", "MW_BIND" })
local function qp() return ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq,
  cap = { max_send_wr = 8, max_recv_wr = 8, max_send_sge = 1, max_recv_sge = 1 },
  send_ops_flags = { "SEND_WITH_INV", "RDMA_READ", "BIND_MW", "LOCAL_INV" } } end
local a, b = qp(), qp()
local gid = ctx:query_gid(1, gidx)
for _, p in ipairs{ { a, b }, { b, a } } do
  p[1]:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = "REMOTE_READ" }
  p[1]:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = p[2].qp_num, rq_psn = 0, max_dest_rd_atomic = 1,
    min_rnr_timer = 1, ah_attr = { is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = gidx, hop_limit = 1 } } }
  p[1]:modify{ qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1 }
end
local mw = pd:alloc_mw("TYPE_2")
local k = verbs.inc_rkey(mw.rkey)
b:wr_start(); b.wr_id = 1; b.wr_flags = "SIGNALED"
b:wr_bind_mw(mw, k, { mr = mr_b, addr = mr_b.addr, length = 21, mw_access_flags = "REMOTE_READ" })
b:wr_complete()
cq:wait(1, 5000)
a:wr_start(); a.wr_id = 2; a.wr_flags = "SIGNALED"
a:wr_rdma_read(k, mr_b.addr, 7); a:wr_set_sge(mr_a, 0, 7)
a:wr_complete()
cq:wait(1, 5000)
print(mr_a:read(0, 7))
b:post_recv{ wr_id = 3, sg_list = { { mr = mr_a, offset = 32, length = 16 } } }
a:wr_start(); a.wr_id = 4; a.wr_flags = "SIGNALED"
a:wr_send_inv(k); a:wr_set_sge(mr_a, 0, 3)
a:wr_complete()
cq:wait(2, 5000)
mw.rkey = k
k = verbs.inc_rkey(k)
b:wr_start(); b.wr_id = 5; b.wr_flags = "SIGNALED"
b:wr_bind_mw(mw, k, { mr = mr_b, addr = mr_b.addr, length = 8, mw_access_flags = "REMOTE_READ" })
b.wr_id = 6
b:wr_local_inv(k)
b:wr_complete()
cq:wait(2, 5000)
mw:dealloc()
