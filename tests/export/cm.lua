-- rdma_cm between two ids of one process: listen, resolve, connect with
-- private data, accept, a SEND over the CM's QPs, disconnect. Each side
-- reads its own event channel, so the order of events is the recorded one.
local ADDR, PORT = os.getenv("RXE_ADDR"), 7479
local server, client = verbs.create_event_channel(), verbs.create_event_channel()
local listen = server:create_id("TCP")
listen:bind_addr("*:" .. PORT)
listen:listen(4)
local cid = client:create_id("TCP")
cid:set_option("ID", "TOS", 32)   -- the export names the option and its uint8_t
cid:resolve_addr(nil, ADDR .. ":" .. PORT, 2000)
client:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()
cid:resolve_route(2000)
client:get_cm_event(5000):expect("ROUTE_RESOLVED"):ack()

-- The client's QP, on the device the route resolved to.
local ctx = cid.verbs
local pd = ctx:alloc_pd()
local cq = ctx:create_cq(16)
local cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 }
local cqp = cid:create_qp(pd, { qp_type = "RC", send_cq = cq, recv_cq = cq, cap = cap })
local mr = pd:reg_mr(4096, "LOCAL_WRITE")
cid:connect{ private_data = "hello from client", responder_resources = 1, initiator_depth = 1,
             retry_count = 7, rnr_retry_count = 7 }

-- The server: the request brings a new id; it gets a QP and a receive.
local req = server:get_cm_event(5000):expect("CONNECT_REQUEST")
local sid = req.id
assert(req.param.conn.private_data:sub(1, 17) == "hello from client")
local sqp = sid:create_qp(pd, { qp_type = "RC", send_cq = cq, recv_cq = cq, cap = cap })
sqp:post_recv{ wr_id = 20, sg_list = { { mr = mr, offset = 2048, length = 64 } } }
sid:accept{ responder_resources = 1, initiator_depth = 1 }
req:ack()
client:get_cm_event(5000):expect("ESTABLISHED"):ack()
server:get_cm_event(5000):expect("ESTABLISHED"):ack()
print(cid:get_peer_addr(), cid:get_dst_port())
-- What librdmacm would pass to ibv_modify_qp, for a QP made and moved by hand.
local attr, mask = sid:init_qp_attr("INIT")
print(attr.qp_state, attr.port_num, #mask)

mr:write(0, "over rdma_cm")
cqp:post_send{ wr_id = 10, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 0, length = 12 } } }
cq:wait(2, 2000)
print(mr:read(2048, 12))

-- The server sees DISCONNECTED first; the client once the server disconnects too.
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
