-- UC (the unreliable connection) on rxe, between two QPs of one process:
-- every state, RC's attributes refused at RTR and RTS with the reason, SEND,
-- RDMA WRITE (with and without immediate) by value, READ and atomics
-- refused at post, and what "unreliable" means: a SEND with no receive
-- posted and a WRITE the responder refuses both complete SUCCESS at the
-- sender, and nothing arrives. Prints "observed: ..." lines.
local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/verbs_lib.lua")
local check, eq = T.check, T.eq
local function seen(what, v) print(("observed: %s: %s"):format(what, tostring(v))) end

local ctx = verbs.open(os.getenv("RXE_DEV"))
local gid = ctx:query_gid(1, T.gid_index)
local pd = ctx:alloc_pd()
local cq_a, cq_b = ctx:create_cq(16), ctx:create_cq(16)
local mr_a = pd:reg_mr(4096, "LOCAL_WRITE")
local mr_b = pd:reg_mr(4096, { "LOCAL_WRITE", "REMOTE_WRITE" })
local function uc_qp(cq) return pd:create_qp{ qp_type = "UC", send_cq = cq, recv_cq = cq,
  cap = { max_send_wr = 8, max_recv_wr = 8, max_send_sge = 1, max_recv_sge = 1 } } end
local a, b = uc_qp(cq_a), uc_qp(cq_b)
eq(a.qp_type, "UC", "qp_type")
eq(a.state, "RESET", "new UC QP")

local AV = { is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = T.gid_index, hop_limit = 1 } }
for _, p in ipairs{ { a, b }, { b, a } } do
  local qp, peer = p[1], p[2]
  qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = "REMOTE_WRITE" }
  eq(qp.state, "INIT", "UC INIT")
  -- RC's RTR, as a learner would copy it: the RC-only attributes are refused
  local e = T.raises("UC RTR with RC's attributes", qp.modify, qp, { qp_state = "RTR", path_mtu = "1024",
    dest_qp_num = peer.qp_num, rq_psn = 0, max_dest_rd_atomic = 1, min_rnr_timer = 12, ah_attr = AV })
  eq(e.errname, "EINVAL", "UC RTR with RC's attributes")
  check(tostring(e):find("present but not allowed in UC INIT->RTR: IBV_QP_MIN_RNR_TIMER (min_rnr_timer),"
    .. " IBV_QP_MAX_DEST_RD_ATOMIC (max_dest_rd_atomic)", 1, true)
    and tostring(e):find("UC has no READ or atomics", 1, true), "explained: %s", tostring(e))
  if qp == a then seen("UC RTR with max_dest_rd_atomic and min_rnr_timer", tostring(e):match("present[^\n]*")) end
  eq(qp.state, "INIT", "still INIT")
  qp:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = peer.qp_num, rq_psn = 0x1234, ah_attr = AV }
  eq(qp.state, "RTR", "UC RTR")
  e = T.raises("UC RTS with RC's attributes", qp.modify, qp, { qp_state = "RTS", sq_psn = 0x1234, timeout = 14,
    retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1 })
  eq(e.errname, "EINVAL", "UC RTS with RC's attributes")
  check(tostring(e):find("UC sends no ACKs", 1, true) and tostring(e):find("UC never retransmits", 1, true),
    "explained: %s", tostring(e))
  if qp == a then seen("UC RTS with timeout, retry_cnt, rnr_retry, max_rd_atomic", tostring(e):match("present[^\n]*")) end
  qp:modify{ qp_state = "RTS", sq_psn = 0x1234 }
  eq(qp.state, "RTS", "UC RTS")
end
local attr = a:query()
eq(attr.dest_qp_num, b.qp_num, "dest_qp_num"); eq(attr.sq_psn, 0x1234, "sq_psn"); eq(attr.path_mtu, "1024", "path_mtu")
seen("connected", tostring(a) .. " <-> " .. tostring(b))

-- SEND
mr_a:write(0, "unreliable")
b:post_recv{ wr_id = 100, sg_list = { { mr = mr_b, offset = 0, length = 64 } } }
a:post_send{ wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr_a, offset = 0, length = 10 } } }
local s, r = T.wc(cq_a, "UC SEND"), T.wc(cq_b, "UC RECV")
eq(s.status, "SUCCESS", "send status"); eq(s.opcode, "SEND", "send opcode")
eq(r.status, "SUCCESS", "recv status"); eq(r.byte_len, 10, "recv byte_len"); eq(r.wr_id, 100, "recv wr_id")
eq(mr_b:read(0, 10), "unreliable", "received bytes")
seen("SEND", tostring(r))
-- a 3000-byte SEND: three packets at path MTU 1024, one message
mr_a:fill(0x5a, 0, 3000)
b:post_recv{ wr_id = 101, sg_list = { { mr = mr_b, offset = 0, length = 4096 } } }
a:post_send{ wr_id = 2, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr_a, offset = 0, length = 3000 } } }
eq(T.wc(cq_a, "UC SEND 3000").status, "SUCCESS", "3000-byte send")
eq(T.wc(cq_b, "UC RECV 3000").byte_len, 3000, "3000-byte receive")
eq(mr_b:read(0, 3000), ("\x5a"):rep(3000), "3000 bytes received")

-- RDMA WRITE, and WRITE with immediate (which consumes a receive)
mr_a:write(0, "\x12\x34\x56\x78written")
a:post_send{ wr_id = 3, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = { { mr = mr_a, offset = 0, length = 11 } },
  rdma = { remote_addr = mr_b.addr + 100, rkey = mr_b.rkey } }
eq(T.wc(cq_a, "UC WRITE").status, "SUCCESS", "write status")
eq(mr_b:read(100, 11), "\x12\x34\x56\x78written", "written bytes")
seen("RDMA_WRITE", "bytes arrived")
b:post_recv{ wr_id = 102, sg_list = { { mr = mr_b, offset = 0, length = 0 } } }
a:post_send{ wr_id = 4, opcode = "RDMA_WRITE_WITH_IMM", send_flags = "SIGNALED", imm_data = 0x12345678,
  sg_list = { { mr = mr_a, offset = 0, length = 4 } }, rdma = { remote_addr = mr_b.addr + 200, rkey = mr_b.rkey } }
eq(T.wc(cq_a, "UC WRITE_WITH_IMM").status, "SUCCESS", "write imm status")
r = T.wc(cq_b, "UC WRITE_WITH_IMM receive")
eq(r.opcode, "RECV_RDMA_WITH_IMM", "imm opcode"); eq(r.imm_data, 0x12345678, "imm_data"); eq(r.wr_id, 102, "imm wr_id")
eq(mr_b:read(200, 4), "\x12\x34\x56\x78", "bytes of the WRITE_WITH_IMM")
seen("RDMA_WRITE_WITH_IMM", tostring(r))

-- READ and atomics: refused at post, with the reason
local e = T.raises("UC READ", a.post_send, a, { wr_id = 5, opcode = "RDMA_READ",
  sg_list = { { mr = mr_a, offset = 0, length = 8 } }, rdma = { remote_addr = mr_b.addr, rkey = mr_b.rkey } })
check(tostring(e):find("opcode RDMA_READ on a UC QP: UC has no READ or atomics", 1, true), "%s", tostring(e))
seen("UC RDMA_READ", tostring(e):match("opcode RDMA_READ on a UC QP[^.]*"))
e = T.raises("UC FETCH_ADD", a.post_send, a, { wr_id = 6, opcode = "ATOMIC_FETCH_AND_ADD",
  sg_list = { { mr = mr_a, offset = 0, length = 8 } }, atomic = { remote_addr = mr_b.addr, rkey = mr_b.rkey, compare_add = 1 } })
check(tostring(e):find("opcode ATOMIC_FETCH_AND_ADD on a UC QP", 1, true), "%s", tostring(e))
e = T.raises("UC CMP_AND_SWP", a.post_send, a, { wr_id = 7, opcode = "ATOMIC_CMP_AND_SWP",
  sg_list = { { mr = mr_a, offset = 0, length = 8 } }, atomic = { remote_addr = mr_b.addr, rkey = mr_b.rkey } })
check(tostring(e):find("responder resources", 1, true), "%s", tostring(e))
seen("UC atomics", "refused")
-- the extended API: rxe sets up no READ for UC
e = T.raises("UC create_qp_ex with RDMA_READ", ctx.create_qp_ex, ctx, { pd = pd, qp_type = "UC", send_cq = cq_a,
  recv_cq = cq_a, cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 },
  send_ops_flags = { "SEND", "RDMA_READ" } })
eq(e.errname, "EOPNOTSUPP", "UC create_qp_ex with RDMA_READ")
seen("UC create_qp_ex with RDMA_READ", e.errname)

-- Unreliable: a SEND with no receive posted completes SUCCESS and is gone
mr_a:write(0, "lost")
a:post_send{ wr_id = 8, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr_a, offset = 0, length = 4 } } }
eq(T.wc(cq_a, "UC SEND with no receive").status, "SUCCESS", "sender of the dropped SEND")
eq(#cq_b:wait(1, 300), 0, "nothing at the receiver")
mr_a:write(0, "kept")
b:post_recv{ wr_id = 103, sg_list = { { mr = mr_b, offset = 0, length = 64 } } }
a:post_send{ wr_id = 9, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr_a, offset = 0, length = 4 } } }
eq(T.wc(cq_a, "the next SEND").status, "SUCCESS", "next send")
r = T.wc(cq_b, "the next SEND's receive")
eq(mr_b:read(0, 4), "kept", "the receive holds the second message, not the dropped one")
seen("SEND with no receive posted", "sender SUCCESS, receiver nothing; the next SEND is the one received")
-- a WRITE the responder's MR refuses: SUCCESS at the sender (no ACK, no NAK), nothing written, both QPs stay in RTS
local ro = pd:reg_mr("read-only here", "LOCAL_WRITE")
mr_a:write(0, "XXXX")
a:post_send{ wr_id = 10, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = { { mr = mr_a, offset = 0, length = 4 } },
  rdma = { remote_addr = ro.addr, rkey = ro.rkey } }
eq(T.wc(cq_a, "UC WRITE refused by the responder").status, "SUCCESS", "sender of the refused WRITE")
eq(ro:read(0, 4), "read", "nothing written")
eq(a.state, "RTS", "requester after the refused WRITE"); eq(b.state, "RTS", "responder after the refused WRITE")
seen("UC WRITE to an MR without REMOTE_WRITE", "sender SUCCESS, nothing written, both QPs in RTS")

-- The rest of the states: SQD and back, ERR, RESET, INIT again
a:modify{ qp_state = "SQD" }
check(a.state == "SQD" or a.state == "SQE", "RTS->SQD: %s", a.state)
local sqd = a.state
-- rxe refuses to leave SQD (EINVAL) while the send queue still drains, and
-- ends the drain on its own time: as in C, wait for ibv_query_qp's
-- sq_draining to read 0 (or for the SQ_DRAINED event) before RTS
local drained = false
for _ = 1, 500 do
  if a:query().sq_draining == 0 then drained = true break end
  require("socket").sleep(0.01)
end
check(drained, "SQD: the send queue still draining after 5 s")
a:modify{ qp_state = "RTS" }
eq(a.state, "RTS", "SQD->RTS")
a:modify{ qp_state = "ERR" }
eq(a.state, "ERR", "RTS->ERR")
e = T.raises("ERR->RTS", a.modify, a, { qp_state = "RTS" })
check(tostring(e):find("ERR->RTS is an illegal transition", 1, true), "%s", tostring(e))
a:modify{ qp_state = "RESET" }
eq(a.state, "RESET", "ERR->RESET")
a:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }
eq(a.state, "INIT", "RESET->INIT again")
e = T.raises("UC INIT with a qkey", a.modify, a, { qp_state = "INIT", qkey = 0x11 })
check(tostring(e):find("Q_Keys belong to UD", 1, true), "%s", tostring(e))
seen("states", "RESET INIT RTR RTS " .. sqd .. " RTS ERR RESET INIT")
T.done("verbs_uc")
