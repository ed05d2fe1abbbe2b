-- librdmacm's short path in one process: the server as rdma_server.c has it
-- (rdma_getaddrinfo, rdma_create_ep, rdma_listen, rdma_get_request, the
-- rdma_verbs.h helpers), and a client with an event channel (a synchronous
-- client would block in rdma_connect until this same process accepted).
local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/verbs_lib.lua")
local check, eq, raises = T.check, T.eq, T.raises
local ADDR, DEV = os.getenv("RXE_ADDR"), os.getenv("RXE_DEV")
local PORT = 7493

local trace = {}
verbs.trace(function(call, ret) trace[#trace + 1] = call .. " = " .. ret end)

-- rdma_getaddrinfo: hints with the C field names; the result's fields.
local res = verbs.getaddrinfo(nil, tostring(PORT), { ai_flags = "PASSIVE", ai_port_space = "TCP" })
eq(res.ai_src_addr, "0.0.0.0:" .. PORT, "passive: the wildcard source")
eq(res.ai_dst_addr, nil, "passive: no destination")
eq(res.ai_port_space, "TCP", "ai_port_space"); eq(res.ai_qp_type, "RC", "TCP gives RC")
eq(res.ai_flags[1], "PASSIVE", "ai_flags"); eq(res.ai_family, "INET", "ai_family")
eq(res.ai_src_len, 16, "sizeof(struct sockaddr_in)")
check(tostring(res):find("TCP RC passive 0.0.0.0:" .. PORT, 1, true), "tostring %s", tostring(res))
local cres = verbs.getaddrinfo(ADDR, PORT, { ai_port_space = "TCP" })   -- a port as a number too
eq(cres.ai_dst_addr, ADDR .. ":" .. PORT, "active: the destination")
local ures = verbs.getaddrinfo(ADDR, "7494", { ai_port_space = "UDP" })
eq(ures.ai_qp_type, "UD", "UDP gives UD")
ures:free()
local e = raises("freed", function() return ures.ai_dst_addr end)
check(tostring(e):find("freed (rdma_freeaddrinfo)", 1, true), "%s", tostring(e))
e = raises("an unknown hint", verbs.getaddrinfo, ADDR, "1", { ai_port_spcae = "TCP" })
check(tostring(e):find("unknown key 'ai_port_spcae' (did you mean 'ai_port_space'?)", 1, true), "%s", tostring(e))
e = raises("a port out of range", verbs.getaddrinfo, ADDR, 65536)
check(tostring(e):find("service", 1, true), "%s", tostring(e))
e = raises("nothing to look up", verbs.getaddrinfo, nil, nil)
check(tostring(e):find("node and service are both nil", 1, true), "%s", tostring(e))
e = raises("no device on lo", verbs.create_ep, verbs.getaddrinfo("127.0.0.1", "7", { ai_port_space = "TCP" }))
eq(e.verb, "rdma_create_ep", "create_ep on lo: verb")
eq(e.errname, "ENODEV", "create_ep on lo")
check(tostring(e):find("netdev without an RDMA device", 1, true), "explained: %s", tostring(e))

-- The listener: its QP attributes are kept for each request (rdma_server.c).
local cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 2, max_recv_sge = 2, max_inline_data = 16 }
local listen = verbs.create_ep(res, nil, { cap = cap, sq_sig_all = 1 })
eq(listen.qp, nil, "a listener has no QP"); eq(listen.channel, nil, "a synchronous id")
e = raises("reg_msgs without a PD", listen.reg_msgs, listen, 16)
check(tostring(e):find("this id has no PD yet", 1, true), "%s", tostring(e))
e = raises("post without a QP", listen.post_send, listen, 1, nil)
check(tostring(e):find("this id has no QP", 1, true), "%s", tostring(e))
listen:listen(1)
eq(listen:get_request(0), nil, "no request yet: nil at the timeout")
eq(#verbs.wait_fds({ listen }, 0), 0, "no request yet: the listener's own channel (id->channel->fd) is quiet")

-- The client, as cm_rc.lua does it, with an event channel.
local ch = verbs.create_event_channel()
local cid = ch:create_id("TCP")
cid:resolve_addr(nil, ADDR .. ":" .. PORT)
ch:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()
cid:resolve_route()
ch:get_cm_event(5000):expect("ROUTE_RESOLVED"):ack()
local cpd, ccq = cid.verbs:alloc_pd(), cid.verbs:create_cq(8)
local cqp = cid:create_qp(cpd, { qp_type = "RC", send_cq = ccq, recv_cq = ccq, cap = cap })
local cmr = cpd:reg_mr(4096, { "LOCAL_WRITE", "REMOTE_READ", "REMOTE_WRITE" })
cqp:post_recv{ wr_id = 31, sg_list = { { mr = cmr, offset = 0, length = 64 } } }
cid:connect{ responder_resources = 1, initiator_depth = 1, retry_count = 7, rnr_retry_count = 7 }
-- the request makes the listener's private channel readable, not the client's
local ready = verbs.wait_fds({ ch, listen }, 5000)
eq(#ready, 1, "one entry readable"); eq(ready[1], listen, "the listener, by its id")

-- rdma_get_request: the new id comes with its QP, made from the listener's attributes.
local id = listen:get_request(5000)
check(id ~= nil, "a request")
local qp = id.qp
eq(qp.qp_type, "RC", "the request's QP"); eq(qp.state, "INIT", "before accept")
local e2 = raises("get_request on an id with a channel", cid.get_request, cid)
check(tostring(e2):find("its requests arrive there as CONNECT_REQUEST events", 1, true), "%s", tostring(e2))

-- The rdma_verbs.h helpers: MRs on the id's PD, posts, completions.
local recv_mr = id:reg_msgs(64)
local send_mr = id:reg_msgs("reply from the ep")
local read_mr = id:reg_read("read me: 0x5eed")
local write_mr = id:reg_write(32)
eq(recv_mr.access[1], "LOCAL_WRITE", "reg_msgs: LOCAL_WRITE"); eq(#recv_mr.access, 1, "reg_msgs: only that")
eq(table.concat(read_mr.access, " "), "LOCAL_WRITE REMOTE_READ", "reg_read")
eq(table.concat(write_mr.access, " "), "LOCAL_WRITE REMOTE_WRITE", "reg_write")
id:post_recv(0x1001, recv_mr, 0, 64)
e = raises("a length past the MR", id.post_recv, id, 2, recv_mr, 60, 5)
check(tostring(e):find("offset 60 + length 5 is beyond the MR's 64 bytes", 1, true), "%s", tostring(e))
id:post_recv(0x1002, recv_mr, 60, 4)   -- the last 4 bytes: the boundary that fits
-- (the data path needs the client's RTU, which this process would send only
-- after accept returned: two processes run it, tests/device/cm_ep.bats)
eq(id:get_recv_comp(0), nil, "nothing received: nil at the timeout")
e = raises("get_send_comp on an id with CQs of its own", cid.get_send_comp, cid, 0)
check(tostring(e):find("this id has no CQ of librdmacm's (id->send_cq is NULL)", 1, true), "%s", tostring(e))
e = raises("ud_send on an RC id", id.post_ud_send, id, 1, send_mr, 0, 1, nil, cpd:create_ah{ is_global = 1, port_num = 1,
  grh = { dgid = "::ffff:" .. ADDR, sgid_index = T.gid_index } }, 1)
check(tostring(e):find("this id's QP is RC, not UD", 1, true), "%s", tostring(e))
e = raises("a bad flag", id.post_send, id, 1, send_mr, 0, 4, "SIGNALLED")
check(tostring(e):find("SIGNALLED", 1, true), "%s", tostring(e))
e = raises("an SGE list that is no list", id.post_sendv, id, 1, send_mr)
check(tostring(e):find("a list of { mr=, offset=, length= }", 1, true), "%s", tostring(e))
-- rdma_create_srq: the id's receives go to its SRQ; librdmacm makes the receive CQ.
local srq = cid:create_srq(cpd, { max_wr = 4, max_sge = 1 })
check(srq:query().max_wr >= 4, "srq max_wr")
e = raises("a second SRQ", cid.create_srq, cid, cpd, { max_wr = 4, max_sge = 1 })
check(tostring(e):find("this id has an SRQ already", 1, true), "%s", tostring(e))
local smr = cpd:reg_mr(64, "LOCAL_WRITE")
cid:post_recv(0x5001, smr, 0, 64)   -- to the SRQ (rdma_post_recv takes id->srq first)
-- a BASIC SRQ gets no CQ of librdmacm's: its completions go to the CQ of the QP that takes them
e = raises("get_recv_comp with a BASIC SRQ", cid.get_recv_comp, cid, 0)
check(tostring(e):find("id->recv_cq is NULL", 1, true), "%s", tostring(e))
e = raises("the id with its SRQ", cid.destroy, cid)
check(tostring(e):find("still used by", 1, true), "%s", tostring(e))
srq:destroy()
-- rdma_create_srq_ex: the same through struct ibv_srq_init_attr_ex (max_wr 5: rxe rounds it up, never down)
e = raises("create_srq_ex with an XRC SRQ's cq", cid.create_srq_ex, cid, { srq_type = "BASIC", pd = cpd,
  attr = { max_wr = 5, max_sge = 1 }, comp_mask = { "PD", "TYPE", "CQ" } })
check(tostring(e):find("key 'cq' is an XRC SRQ's", 1, true), "%s", tostring(e))
local srq2 = cid:create_srq_ex{ srq_type = "BASIC", pd = cpd, attr = { max_wr = 5, max_sge = 1, srq_limit = 0 } }
local q2 = srq2:query()
check(q2.max_wr >= 5 and q2.max_wr < 64, "srq_ex max_wr %d", q2.max_wr)
e = raises("a second SRQ through create_srq_ex", cid.create_srq_ex, cid, { srq_type = "BASIC", pd = cpd, attr = { max_wr = 4, max_sge = 1 } })
check(tostring(e):find("rdma_create_srq_ex: this id has an SRQ already", 1, true), "%s", tostring(e))
srq2:destroy()
smr:dereg()
id:reject()

-- The lifetimes: MRs before the endpoint, as rdma_server.c deregisters them.
e = raises("destroy_ep with MRs", id.destroy_ep, id)
check(tostring(e):find("still used by", 1, true), "%s", tostring(e))
for _, m in ipairs { recv_mr, send_mr, read_mr, write_mr } do m:dereg() end
id:destroy_ep()
e = raises("after destroy_ep", function() return id.qp end)
check(tostring(e):find("cm_id is destroyed", 1, true), "%s", tostring(e))
e = raises("wait_fds on a destroyed id", verbs.wait_fds, { ch, id })
check(tostring(e):find("bad argument #1 to 'verbs.wait_fds' ([2]: cm_id is destroyed", 1, true), "%s", tostring(e))
listen:destroy_ep()
res:free(); cres = nil
cqp:destroy(); cid:destroy(); ch:destroy()
collectgarbage(); collectgarbage()

-- A listener made with CQs of the user's: librdmacm keeps them to make each
-- request's QP, so the listener uses them (C would hand a freed CQ to the
-- next rdma_get_request), and the request's QP has them.
do
  local lres = verbs.getaddrinfo(nil, tostring(PORT + 2), { ai_flags = "PASSIVE", ai_port_space = "TCP" })
  local lctx   -- the request's QP is made on librdmacm's own context of the device: its PD and CQs must be of it
  for _, c in ipairs(verbs.get_devices()) do if c.name == DEV then lctx = c end end
  local lpd = lctx:alloc_pd()
  local scq, rcq = lctx:create_cq(4), lctx:create_cq(5)
  local l2 = verbs.create_ep(lres, lpd, { send_cq = scq, recv_cq = rcq, cap = cap })
  eq(l2.qp, nil, "a listener with CQs has no QP either")
  local e3 = raises("destroying a listener's CQ", scq.destroy, scq)
  check(tostring(e3):find("is still used by 1 object: cm_id", 1, true), "%s", tostring(e3))
  l2:listen(1)
  local ch2 = verbs.create_event_channel()
  local c2 = ch2:create_id("TCP")
  c2:resolve_addr(nil, ADDR .. ":" .. (PORT + 2))
  ch2:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()
  c2:resolve_route()
  ch2:get_cm_event(5000):expect("ROUTE_RESOLVED"):ack()
  local c2pd, c2cq = c2.verbs:alloc_pd(), c2.verbs:create_cq(8)
  local c2qp = c2:create_qp(c2pd, { qp_type = "RC", send_cq = c2cq, recv_cq = c2cq, cap = cap })
  c2:connect{ responder_resources = 1, initiator_depth = 1 }
  local r2 = l2:get_request(5000)
  eq(r2.qp.send_cq, scq, "the request's QP: the listener's send_cq")
  eq(r2.qp.recv_cq, rcq, "the request's QP: the listener's recv_cq (another CQ)")
  eq(r2.qp.pd, lpd, "the request's QP: the listener's PD")
  eq(r2.qp.srq, nil, "the request's QP: no SRQ, as the listener has none")
  r2:destroy_ep()
  c2qp:destroy(); c2:destroy(); c2cq:destroy(); c2pd:dealloc(); ch2:destroy()
  l2:destroy_ep()
  check(pcall(scq.destroy, scq), "the CQ is free once the listener is destroyed")
  rcq:destroy(); lpd:dealloc(); lres:free()
end

-- a source address in the hints is the result's source (rdma_getaddrinfo copies it)
local sres = verbs.getaddrinfo(ADDR, PORT, { ai_port_space = "TCP", ai_src_addr = ADDR .. ":7493" })
eq(sres.ai_src_addr, ADDR .. ":7493", "hints' ai_src_addr")
eq(sres.ai_dst_addr, ADDR .. ":" .. PORT, "with a source: the destination")
sres:free()

verbs.trace(false)
local text = table.concat(trace, "\n")
for _, want in ipairs { "rdma_getaddrinfo(NULL, \"7493\", &hints1, &addrinfo1) = 0",
    "rdma_create_ep(&cm_id2, addrinfo1, NULL, &init_attr1) = 0", "rdma_get_request(cm_id2, &cm_id4) = 0",
    "rdma_create_ep(&cm_id_failed1, addrinfo4, NULL, NULL) = -1 /* errno ENODEV */",
    "rdma_reg_msgs(cm_id", "rdma_reg_read(cm_id", "rdma_post_recv(cm_id", "(void *)(uintptr_t)0x1001",
    "rdma_get_recv_comp(cm_id", "rdma_destroy_ep(cm_id", "rdma_create_srq(cm_id3, pd1, &srq_init_attr",
    "rdma_destroy_srq(cm_id3)", "rdma_freeaddrinfo(addrinfo1)" } do
  check(text:find(want, 1, true), "trace has %q", want)
end
T.done("cm_ep")
