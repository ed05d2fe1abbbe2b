-- Multicast: a QP attached and detached at the verbs level, then a UD id
-- that joins a group through rdma_cm; its QP receives a datagram another
-- QP sends to the group (on one device, once the id joined).
local ADDR, GROUP = os.getenv("RXE_ADDR"), "239.1.2.7"
local ch = verbs.create_event_channel()
local id = ch:create_id("UDP")
id:bind_addr(ADDR .. ":0")
id:resolve_addr(ADDR, GROUP .. ":0", 2000)
ch:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()
local ctx = id.verbs
local pd, cq = ctx:alloc_pd(), ctx:create_cq(16)
local cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 }
local other = pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq, cap = cap }
other:attach_mcast("::ffff:239.1.2.8", 0)
other:detach_mcast("::ffff:239.1.2.8", 0)
local joined = id:create_qp(pd, { qp_type = "UD", send_cq = cq, recv_cq = cq, cap = cap })
local mr = pd:reg_mr(4096, "LOCAL_WRITE")
joined:post_recv{ wr_id = 21, sg_list = { { mr = mr, offset = 1024, length = 256 } } }
id:join_multicast(GROUP, 0x77)
local ev = ch:get_cm_event(5000):expect("MULTICAST_JOIN")
local ud = ev.param.ud
local ah = pd:create_ah(ud.ah_attr)
ev:ack()
other:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = ud.qkey }
other:modify{ qp_state = "RTR" }
other:modify{ qp_state = "RTS", sq_psn = 0 }
mr:write(0, "to the group")
other:post_send{ wr_id = 22, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 0, length = 12 } },
  ud = { ah = ah, remote_qpn = 0xffffff, remote_qkey = ud.qkey } }
cq:wait(2, 5000)
print(mr:read(1024 + 40, 12))
id:leave_multicast(GROUP)
ah:destroy()
other:destroy()
joined:destroy()
mr:dereg(); cq:destroy(); pd:dealloc()
id:destroy(); ch:destroy()
