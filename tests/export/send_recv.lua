-- SEND/RECV between two RC QPs of one device: the receive's bytes and byte_len.
verbs.record(true)
local ctx = verbs.open(os.getenv("RXE_DEV"))
local gidx = tonumber(os.getenv("RXE_GID_INDEX"))
local pd = ctx:alloc_pd()
local cq = ctx:create_cq(16)
local mr_a = pd:reg_mr(4096, { "LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC" })
local mr_b = pd:reg_mr(4096, { "LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC" })
local caps = { max_send_wr = 8, max_recv_wr = 8, max_send_sge = 2, max_recv_sge = 2 }
local qa = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = caps }
local qb = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = caps }
local gid = ctx:query_gid(1, gidx)
local function connect(q, peer)
  q:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = { "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC" } }
  q:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = peer.qp_num, rq_psn = 0, max_dest_rd_atomic = 1,
    min_rnr_timer = 1, ah_attr = { is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = gidx, hop_limit = 1 } } }
  q:modify{ qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1 }
end
connect(qa, qb); connect(qb, qa)
mr_a:write(0, "hello, verbs")
qb:post_recv{ wr_id = 2, sg_list = { { mr = mr_b, offset = 0, length = 64 } } }
qa:post_send{ wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr_a, offset = 0, length = 12 } } }
local wcs = cq:wait(2, 2000)
print(#wcs, wcs[1].status, wcs[2].status)
print(mr_b:read(0, 12))
verbs.export_c(arg[1] or "/tmp/send_recv.c")
