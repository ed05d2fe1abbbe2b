-- On siw (iWARP), over rdma_cm: a SEND, then SEND_WITH_IMM and an atomic that
-- siw refuses at the post (ibv_post_send returns -22), then a READ that shows
-- the QP still works. The C program must expect -22, not 22.
local ADDR, PORT = os.getenv("SIW_ADDR"), 7493
local server, client = verbs.create_event_channel(), verbs.create_event_channel()
local listen = server:create_id("TCP")
listen:bind_addr(ADDR .. ":" .. PORT)
listen:listen(4)
local cid = client:create_id("TCP")
cid:resolve_addr(nil, ADDR .. ":" .. PORT, 2000)
client:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()
cid:resolve_route(2000)
client:get_cm_event(5000):expect("ROUTE_RESOLVED"):ack()
local ctx = cid.verbs
local pd = ctx:alloc_pd()
local cq = ctx:create_cq(16)
local cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 }
local cqp = cid:create_qp(pd, { qp_type = "RC", send_cq = cq, recv_cq = cq, cap = cap })
local mr = pd:reg_mr(4096, { "LOCAL_WRITE", "REMOTE_READ" })
cid:connect{ responder_resources = 1, initiator_depth = 1 }
local req = server:get_cm_event(5000):expect("CONNECT_REQUEST")
local sid = req.id
local sqp = sid:create_qp(pd, { qp_type = "RC", send_cq = cq, recv_cq = cq, cap = cap })
sqp:post_recv{ wr_id = 20, sg_list = { { mr = mr, offset = 2048, length = 64 } } }
sid:accept{ responder_resources = 1, initiator_depth = 1 }
req:ack()
client:get_cm_event(5000):expect("ESTABLISHED"):ack()
server:get_cm_event(5000):expect("ESTABLISHED"):ack()

mr:write(0, "iwarp send")
cqp:post_send{ wr_id = 10, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 0, length = 10 } } }
cq:wait(2, 2000)
print(pcall(cqp.post_send, cqp, { wr_id = 11, opcode = "SEND_WITH_IMM", imm_data = 0x12345678, send_flags = "SIGNALED",
  sg_list = { { mr = mr, offset = 0, length = 4 } } }))
print(pcall(cqp.post_send, cqp, { wr_id = 12, opcode = "ATOMIC_FETCH_AND_ADD", send_flags = "SIGNALED",
  sg_list = { { mr = mr, offset = 8, length = 8 } }, atomic = { remote_addr = mr.addr + 512, rkey = mr.rkey, compare_add = 7 } }))
mr:write(1024, "read back")
cqp:post_send{ wr_id = 13, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 3072, length = 9 } },
  rdma = { remote_addr = mr.addr + 1024, rkey = mr.rkey } }
cq:wait(1, 2000)
print(mr:read(2048, 10), mr:read(3072, 9))
cid:disconnect()
server:get_cm_event(5000):expect("DISCONNECTED"):ack()
sid:disconnect()
client:get_cm_event(5000):expect("DISCONNECTED"):ack()
cid:destroy_qp()
sid:destroy_qp()
mr:dereg()
cq:destroy()
pd:dealloc()
cid:destroy()
sid:destroy()
listen:destroy()
client:destroy()
server:destroy()
