-- INIT -> RTR without ah_attr on RoCE fails with EINVAL; the QP stays in
-- INIT, and the same transition with the address succeeds.
local ctx = verbs.open(os.getenv("RXE_DEV"))
local gidx = tonumber(os.getenv("RXE_GID_INDEX"))
local pd = ctx:alloc_pd()
local cq = ctx:create_cq(4)
local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,
  cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }
local ok, err = pcall(qp.modify, qp, { qp_state = "RTR", path_mtu = "1024", dest_qp_num = qp.qp_num, rq_psn = 0,
  max_dest_rd_atomic = 1, min_rnr_timer = 1 })
print(ok, err and err.errname, qp:query().qp_state)
local gid = ctx:query_gid(1, gidx)
qp:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = qp.qp_num, rq_psn = 0, max_dest_rd_atomic = 1,
  min_rnr_timer = 1, ah_attr = { is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = gidx, hop_limit = 1 } } }
print(qp:query().qp_state)
