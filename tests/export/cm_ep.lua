-- librdmacm's short path, the passive side: rdma_getaddrinfo, rdma_create_ep,
-- rdma_listen, rdma_get_request (a client with an event channel sends the
-- request), the rdma_verbs.h helpers on the new id, reject, rdma_destroy_ep.
local ADDR, PORT = os.getenv("RXE_ADDR"), 7495
local res = verbs.getaddrinfo(nil, tostring(PORT), { ai_flags = "PASSIVE", ai_port_space = "TCP" })
local listen = verbs.create_ep(res, nil, { sq_sig_all = 1,
  cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 2, max_recv_sge = 2 } })
listen:listen(1)
local ch = verbs.create_event_channel()
local cid = ch:create_id("TCP")
cid:resolve_addr(nil, ADDR .. ":" .. PORT, 2000)
ch:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()
cid:resolve_route(2000)
ch:get_cm_event(5000):expect("ROUTE_RESOLVED"):ack()
local cpd, ccq = cid.verbs:alloc_pd(), cid.verbs:create_cq(4)
local cqp = cid:create_qp(cpd, { qp_type = "RC", send_cq = ccq, recv_cq = ccq,
  cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 } })
cid:connect{ responder_resources = 1, initiator_depth = 1 }
local id = listen:get_request(5000)
local recv_mr = id:reg_msgs(64)
local rd = id:reg_read("read me")
local wr = id:reg_write(32)
id:post_recv(0x1001, recv_mr, 0, 32)
id:post_recvv(0x1002, { { mr = recv_mr, offset = 32, length = 16 }, { mr = recv_mr, offset = 48, length = 16 } })
id:reject()
ch:get_cm_event(5000):expect("REJECTED"):ack()
for _, m in ipairs { recv_mr, rd, wr } do m:dereg() end
id:destroy_ep()
listen:destroy_ep()
res:free()
cqp:destroy(); ccq:destroy(); cpd:dealloc(); cid:destroy(); ch:destroy()
