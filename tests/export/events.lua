-- Completion events, the extended CQ and prepared WRs: the sender's CQ
-- reports through a completion channel, the receiver's is an ibv_cq_ex
-- read with start_poll and the ibv_wc_read_* accessors, and both WRs are
-- prepared (verbs.send_wr, verbs.recv_wr) and polled into a wc_array.
local ctx = verbs.open(os.getenv("RXE_DEV"))
local gidx = tonumber(os.getenv("RXE_GID_INDEX"))
local pd = ctx:alloc_pd()
local ch = ctx:create_comp_channel()
local scq = ctx:create_cq(16, { channel = ch })
local rcq = ctx:create_cq_ex{ cqe = 16, wc_flags = { "BYTE_LEN", "IMM", "QP_NUM" } }
local mr = pd:reg_mr(4096, "LOCAL_WRITE")
local caps = { max_send_wr = 8, max_recv_wr = 8, max_send_sge = 1, max_recv_sge = 1 }
local qa = pd:create_qp{ qp_type = "RC", send_cq = scq, recv_cq = scq, cap = caps }
local qb = pd:create_qp{ qp_type = "RC", send_cq = rcq, recv_cq = rcq, cap = caps }
local gid = ctx:query_gid(1, gidx)
local function connect(q, peer)
  q:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = "REMOTE_WRITE" }
  q:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = peer.qp_num, rq_psn = 0, max_dest_rd_atomic = 1,
    min_rnr_timer = 1, ah_attr = { is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = gidx, hop_limit = 1 } } }
  q:modify{ qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1 }
end
connect(qa, qb); connect(qb, qa)

local precv = verbs.recv_wr{ wr_id = 7, sg_list = { { mr = mr, offset = 2048, length = 64 } } }
local psend = verbs.send_wr{ wr_id = 1, opcode = "SEND_WITH_IMM", imm_data = 0x1234, send_flags = "SIGNALED",
  sg_list = { { mr = mr, offset = 0, length = 5 } } }
mr:write(0, "event")
scq:req_notify()
qb:post_recv(precv)
qa:post_send(psend)

-- The send's completion event, then the completion itself into a wc_array.
assert(ch:get_cq_event(2000) == scq)
scq:ack_events(1)
local wcs = verbs.wc_array(4)
scq:wait(wcs, 1, 2000)
print(wcs[1].wr_id, wcs[1].status)

-- The send completed once the receiver ACKed, so the receive is there.
assert(rcq:start_poll())
print(rcq.wr_id, rcq.status, rcq:read_opcode(), rcq:read_byte_len(), rcq:read_imm_data(), rcq:read_qp_num())
rcq:end_poll()
print(mr:read(2048, 5))

-- Two more receives, read with cq:iter(): start_poll, next_poll until
-- ENOENT, end_poll. Then two more, and a loop left after the first.
local function two()
  qb:post_recv(precv); qb:post_recv(precv)
  qa:post_send(psend); qa:post_send(psend)
  scq:wait(wcs, 2, 2000)
end
two()
for wc in rcq:iter() do print(wc.wr_id, wc.status, wc.opcode, wc.byte_len, wc.imm_data) end
two()
for wc in rcq:iter() do print("first", wc.wr_id); break end
for wc in rcq:iter() do print("then", wc.wr_id, wc.qp_num == qb.qp_num) end
