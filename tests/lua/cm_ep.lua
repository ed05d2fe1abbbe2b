-- librdmacm's short path in one process: the server as rdma_server.c has it
-- (rdma_getaddrinfo, rdma_create_ep, rdma_listen, rdma_get_request, the
-- rdma_verbs.h helpers), and a client with an event channel (a synchronous
-- client would block in rdma_connect until this same process accepted).
-- Then the helpers' data path on ids of event channels, which connect in
-- one process: post_write, post_read, post_sendv and post_ud_send.
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
-- a length's range is reg_mr's, 0..2^40, checked before anything is allocated
e = raises("reg_msgs of -1 bytes", id.reg_msgs, id, -1)
check(tostring(e):find("length: -1 is out of range (0..1099511627776)", 1, true), "%s", tostring(e))
e = raises("reg_write of 2^40 + 1 bytes", id.reg_write, id, (1 << 40) + 1)
check(tostring(e):find("length: 1099511627777 is out of range (0..1099511627776)", 1, true), "%s", tostring(e))
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
-- rdma_getaddrinfo's other fields: librdmacm asks getaddrinfo for no
-- canonical name, and without ibacm gives no route, no connect data, and
-- one entry; an active lookup prints its destination after " -> ".
local a4 = verbs.getaddrinfo(ADDR, 7498, { ai_port_space = "TCP" })
eq(tostring(a4), "cm_addrinfo TCP RC -> " .. ADDR .. ":7498", "an active IPv4 result, without a source")
eq(a4.ai_dst_len, 16, "sizeof(struct sockaddr_in)"); eq(a4.ai_src_len, 0, "no source: ai_src_len")
eq(a4.ai_src_addr, nil, "no source address")
eq(a4.ai_src_canonname, nil, "ai_src_canonname"); eq(a4.ai_dst_canonname, nil, "ai_dst_canonname")
eq(a4.ai_route_len, 0, "ai_route_len"); eq(a4.ai_connect_len, 0, "ai_connect_len"); eq(a4.ai_next, nil, "ai_next")
eq(#a4.ai_flags, 0, "an active lookup: no flags")
local a6 = verbs.getaddrinfo("::1", "7499", { ai_port_space = "UDP", ai_src_addr = "[::1]:7506" })
eq(tostring(a6), "cm_addrinfo UDP UD [::1]:7506 -> [::1]:7499", "IPv6, with the hints' source")
eq(a6.ai_family, "INET6", "ai_family"); eq(a6.ai_dst_len, 28, "sizeof(struct sockaddr_in6)")
eq(a6.ai_src_len, 28, "the hints' IPv6 source: its length too")
a4:free(); a6:free()
-- an EAI_* code is getaddrinfo's, not an errno
e = raises("a name with NUMERICHOST", verbs.getaddrinfo, "no-such-host", 7, { ai_flags = "NUMERICHOST" })
eq(tostring(e):match("^[^\n]*"):gsub("^.-rdma_getaddrinfo", "rdma_getaddrinfo"), "rdma_getaddrinfo(no-such-host, 7) failed:"
  .. " Name or service not known (EAI_NONAME -2): the node is looked up as a host name or numeric address; give"
  .. " an address on the RDMA netdev, e.g. \"192.0.2.1\"", "EAI_NONAME")

-- The rdma_verbs.h helpers on ids of event channels, connected in this
-- process: post_write and post_read land byte for byte where the remote
-- address says, post_sendv gathers its SGEs into one message.
local sch, cch = verbs.create_event_channel(), verbs.create_event_channel()
local lid = sch:create_id("TCP")
e = raises("create_srq on an id with no PD", lid.create_srq, lid, nil, { max_wr = 4, max_sge = 1 })
check(tostring(e):find("rdma_create_srq: this id has no PD yet, and none was given", 1, true), "%s", tostring(e))
e = raises("create_srq_ex on an id with no PD", lid.create_srq_ex, lid, { srq_type = "BASIC", attr = { max_wr = 4, max_sge = 1 } })
check(tostring(e):find("rdma_create_srq_ex: this id has no PD yet, and the table gives none", 1, true), "%s", tostring(e))
e = raises("create_qp_ex without a pd", lid.create_qp_ex, lid, { qp_type = "RC" })
check(tostring(e):find("key 'pd' is required (rdma_create_qp_ex takes the PD in the attributes", 1, true), "%s", tostring(e))
e = raises("set_option level 2", lid.set_option, lid, 2, "TOS", 1)
check(tostring(e):find("level 2: \"ID\" (0) or \"IB\" (1) expected", 1, true), "%s", tostring(e))
e = raises("set_option optname 4", lid.set_option, lid, "ID", 4, 1)
check(tostring(e):find("optname 4: TOS, REUSEADDR, AFONLY or ACK_TIMEOUT expected", 1, true), "%s", tostring(e))
e = raises("migrate to no channel", lid.migrate, lid, nil)
check(tostring(e):find("a cm_channel expected: rdma_migrate_id(id, NULL)", 1, true), "%s", tostring(e))
lid:bind_addr("*:7498")
lid:listen(1)
-- the kernel takes AFONLY only before listen (rdma_set_afonly: IDLE or ADDR_BOUND)
e = raises("AFONLY on a listener", lid.set_option, lid, "ID", "AFONLY", 1)
eq(e.verb, "rdma_set_option", "set_option's verb"); eq(e.errname, "EINVAL", "AFONLY on a listener")
eq(e.context.optname, "AFONLY", "the option refused")
-- private_data_len is a uint8_t: 255 bytes get to the kernel, which refuses a reject on a listener
e = raises("reject with a number", lid.reject, lid, 5)
check(tostring(e):find("bad argument #1 to 'reject' (string (private_data) expected, got number)", 1, true), "%s", tostring(e))
e = raises("reject with 256 bytes", lid.reject, lid, ("x"):rep(256))
check(tostring(e):find("bad argument #1 to 'reject' (private_data_len is a uint8_t: at most 255 bytes)", 1, true), "%s", tostring(e))
e = raises("reject with 255 bytes", lid.reject, lid, ("x"):rep(255))
eq(e.verb, "rdma_reject", "255 bytes: rdma_reject's own error"); eq(e.errname, "EINVAL", "a reject on a listener")
e = raises("reject_ece with 256 bytes", lid.reject_ece, lid, ("x"):rep(256))
check(tostring(e):find("bad argument #1 to 'reject_ece' (private_data is longer than 255 bytes (its length is a uint8_t))", 1, true),
  "%s", tostring(e))
e = raises("reject_ece with 255 bytes", lid.reject_ece, lid, ("x"):rep(255))
eq(e.verb, "rdma_reject_ece", "255 bytes: rdma_reject_ece's own error"); eq(e.errname, "EINVAL", "reject_ece on a listener")
e = raises("init_qp_attr of no state", lid.init_qp_attr, lid, "RTX")
check(tostring(e):find("bad argument #1 to 'init_qp_attr' ('RTX' is not a name of ibv_qp_state: did you mean \"RTR\"?", 1, true),
  "%s", tostring(e))
eq(lid.port_num, 0, "a wildcard listener: no port yet")
local kid = cch:create_id("TCP")
kid:resolve_addr(nil, ADDR .. ":7498"); cch:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()
kid:resolve_route(); cch:get_cm_event(5000):expect("ROUTE_RESOLVED"):ack()
eq(kid.port_num, 1, "a resolved id: its device's port 1")
local kpd, kcq = kid.verbs:alloc_pd(), kid.verbs:create_cq(8)
local kcap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 2, max_recv_sge = 1 }
local half = verbs.getaddrinfo(ADDR, 7498, { ai_port_space = "TCP" })
e = raises("create_ep with a send_cq alone", verbs.create_ep, half, nil, { send_cq = kcq, cap = kcap })
check(tostring(e):find("give both send_cq and recv_cq, or neither (librdmacm then makes both", 1, true), "%s", tostring(e))
half:free()
local sges = kid.verbs:query_device().max_srq_sge + 1   -- one SGE past the device's limit
e = raises("an SRQ past max_srq_sge", kid.create_srq, kid, kpd, { max_wr = 4, max_sge = sges })
eq(e.verb, "rdma_create_srq", "create_srq's verb"); eq(e.errname, "EINVAL", "max_sge past max_srq_sge")
e = raises("an SRQ_ex past max_srq_sge", kid.create_srq_ex, kid, { srq_type = "BASIC", pd = kpd, attr = { max_wr = 4, max_sge = sges } })
eq(e.verb, "rdma_create_srq_ex", "create_srq_ex's verb"); eq(e.errname, "EINVAL", "max_sge past max_srq_sge (ex)")
kid:create_qp(kpd, { qp_type = "RC", send_cq = kcq, recv_cq = kcq, cap = kcap })
kid:connect{ responder_resources = 1, initiator_depth = 1 }
local kreq = sch:get_cm_event(5000):expect("CONNECT_REQUEST")
e = raises("a typo in an event's field", function() return kreq.statsu end)
check(tostring(e):find("has no field 'statsu'", 1, true), "%s", tostring(e))
local sid2, scq2 = kreq.id, kid.verbs:create_cq(8)
sid2:create_qp(kpd, { qp_type = "RC", send_cq = scq2, recv_cq = scq2, cap = kcap })
local target = sid2:reg_write(24)
local source = sid2:reg_read("read me: 0x12345678 and no more")
local inbox = sid2:reg_msgs(32)
e = raises("reg_msgs of a boolean", sid2.reg_msgs, sid2, true)
check(tostring(e):find("bad argument #1 to 'reg_msgs' (length (integer) or initial contents (string) expected, got boolean)", 1, true),
  "%s", tostring(e))
sid2:post_recv(0x21, inbox, 0, 32)
sid2:accept{ responder_resources = 1, initiator_depth = 1 }
kreq:ack()
cch:get_cm_event(5000):expect("ESTABLISHED"):ack()
sch:get_cm_event(5000):expect("ESTABLISHED"):ack()
local out = kid:reg_msgs("wrote 0x2a17 by rdma_post_write")
-- "0x2a17 by r" (11 bytes from offset 6) to 3 bytes into the target
kid:post_write(0x11, out, 6, 11, "SIGNALED", target.addr + 3, target.rkey)
local wc = T.wc(kcq, "post_write")
eq(wc.wr_id, 0x11, "post_write's wr_id"); eq(wc.status, "SUCCESS", "post_write"); eq(wc.opcode, "RDMA_WRITE", "opcode")
eq(target:read(0, 24), "\0\0\0" .. "0x2a17 by r" .. ("\0"):rep(10), "the target, byte for byte")
-- "0x12345678" (10 bytes from 9) of the source to 4 bytes into in_mr
local in_mr = kid:reg_msgs(20)
kid:post_read(0x12, in_mr, 4, 10, "SIGNALED", source.addr + 9, source.rkey)
wc = T.wc(kcq, "post_read")
eq(wc.wr_id, 0x12, "post_read's wr_id"); eq(wc.opcode, "RDMA_READ", "opcode"); eq(wc.byte_len, 10, "bytes read")
eq(in_mr:read(0, 20), ("\0"):rep(4) .. "0x12345678" .. ("\0"):rep(6), "read back, byte for byte")
-- "wrote" and "post_w": two SGEs, one message of 11 bytes
kid:post_sendv(0x13, { { mr = out, offset = 0, length = 5 }, { mr = out, offset = 21, length = 6 } }, "SIGNALED")
wc = T.wc(kcq, "post_sendv")
eq(wc.wr_id, 0x13, "post_sendv's wr_id"); eq(wc.opcode, "SEND", "opcode")
wc = T.wc(scq2, "post_sendv's receive")
eq(wc.wr_id, 0x21, "the receive's wr_id"); eq(wc.byte_len, 11, "5 + 6 bytes")
eq(inbox:read(0, 12), "wrotepost_w\0", "the SGEs gathered in order")
kid:disconnect(); sch:get_cm_event(5000):expect("DISCONNECTED"):ack()
sid2:disconnect(); cch:get_cm_event(5000):expect("DISCONNECTED"):ack()
for _, m in ipairs { target, source, inbox, out, in_mr } do m:dereg() end
sid2:destroy_qp(); sid2:destroy(); kid:destroy_qp(); kid:destroy(); lid:destroy()
scq2:destroy(); kcq:destroy()

-- rdma_post_ud_send on two UD ids: the receive holds the 40-byte GRH, then
-- the bytes; its src_qp is the sender's QP. (kpd is the device's, as both ids')
local uch = verbs.create_event_channel()
local u = {}
for i = 1, 2 do
  u[i] = uch:create_id("UDP")
  u[i]:resolve_addr(nil, ADDR .. ":" .. (7506 + i)); uch:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()
  u[i]:resolve_route(); uch:get_cm_event(5000):expect("ROUTE_RESOLVED"):ack()
end
local ucq1, ucq2 = u[1].verbs:create_cq(4), u[2].verbs:create_cq(4)
local uq1 = u[1]:create_qp(kpd, { qp_type = "UD", send_cq = ucq1, recv_cq = ucq1, cap = kcap })
local uq2 = u[2]:create_qp(kpd, { qp_type = "UD", send_cq = ucq2, recv_cq = ucq2, cap = kcap })
local urecv = u[2]:reg_msgs(64)
u[2]:post_recv(nil, urecv, 0, 64)   -- no wr_id: C's NULL context, 0 in the WC
local usend = u[1]:reg_msgs("UD: 0x5eed 0x1234")
local ah = kpd:create_ah{ is_global = 1, port_num = 1, grh = { dgid = "::ffff:" .. ADDR, sgid_index = T.gid_index, hop_limit = 1 } }
u[1]:post_ud_send(0x32, usend, 4, 11, "SIGNALED", ah, uq2.qp_num)
wc = T.wc(ucq1, "post_ud_send")
eq(wc.wr_id, 0x32, "post_ud_send's wr_id"); eq(wc.status, "SUCCESS", "post_ud_send"); eq(wc.opcode, "SEND", "opcode")
wc = T.wc(ucq2, "the UD receive")
eq(wc.wr_id, 0, "the UD receive's wr_id (NULL)"); eq(wc.byte_len, 40 + 11, "GRH + 11 bytes")
eq(wc.src_qp, uq1.qp_num, "src_qp: the sender's QP"); check(uq1.qp_num ~= uq2.qp_num, "two QPs")
eq(urecv:read(40, 12), "0x5eed 0x12\0", "the bytes after the GRH")
ah:destroy(); urecv:dereg(); usend:dereg()
for i = 1, 2 do u[i]:destroy_qp(); u[i]:destroy() end
ucq1:destroy(); ucq2:destroy(); kpd:dealloc(); uch:destroy(); sch:destroy(); cch:destroy()
T.done("cm_ep")
