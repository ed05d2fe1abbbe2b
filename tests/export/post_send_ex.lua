-- The extended post-send API (ibv_qp_ex): a SEND and a WRITE built with
-- wr_start / wr_* / wr_complete on a QP from create_qp_ex.
local ctx = verbs.open(os.getenv("RXE_DEV"))
local gidx = tonumber(os.getenv("RXE_GID_INDEX"))
local pd = ctx:alloc_pd()
local cq = ctx:create_cq(16)
local mr_a = pd:reg_mr(4096, { "LOCAL_WRITE", "REMOTE_WRITE" })
local mr_b = pd:reg_mr(4096, { "LOCAL_WRITE", "REMOTE_WRITE" })
local caps = { max_send_wr = 8, max_recv_wr = 8, max_send_sge = 1, max_recv_sge = 1 }
local qa = ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq, cap = caps,
  send_ops_flags = { "SEND", "RDMA_WRITE" } }
local qb = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = caps }
local gid = ctx:query_gid(1, gidx)
local function connect(q, peer)
  q:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = { "REMOTE_WRITE" } }
  q:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = peer.qp_num, rq_psn = 0, max_dest_rd_atomic = 1,
    min_rnr_timer = 1, ah_attr = { is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = gidx, hop_limit = 1 } } }
  q:modify{ qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1 }
end
connect(qa, qb); connect(qb, qa)
mr_a:write(0, "built, not posted")
qb:post_recv{ wr_id = 9, sg_list = { { mr = mr_b, offset = 0, length = 64 } } }
qa:wr_start()
qa.wr_id = 1
qa.wr_flags = "SIGNALED"
qa:wr_send()
qa:wr_set_sge(mr_a, 0, 17)
qa.wr_id = 2
qa.wr_flags = "SIGNALED"
qa:wr_rdma_write(mr_b.rkey, mr_b.addr + 256)
qa:wr_set_sge_list{ { mr = mr_a, offset = 0, length = 5 } }
qa:wr_complete()
cq:wait(3, 2000)
print(mr_b:read(0, 17), mr_b:read(256, 5))
