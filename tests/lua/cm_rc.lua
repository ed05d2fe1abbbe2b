-- rdma_cm in one process, both sides: listen, resolve, connect with private
-- data, accept, a SEND over the CM's QP, disconnect; then the lifetime rules
-- (unacked events, the CM's QP and context), the error events (REJECTED by
-- nobody listening and by the server) and failing rdma_* verbs, explained.
local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/verbs_lib.lua")
local check, eq, raises = T.check, T.eq, T.raises
local ADDR, DEV = os.getenv("RXE_ADDR"), os.getenv("RXE_DEV")
local PORT = 7471

local trace = {}
verbs.trace(function(call, ret) trace[#trace + 1] = call .. " = " .. ret end)

local sch, cch = verbs.create_event_channel(), verbs.create_event_channel()
check(math.type(sch.fd) == "integer", "channel fd %s", tostring(sch.fd))
local listen = sch:create_id("TCP")
eq(listen.ps, "TCP", "listen ps"); eq(listen.qp_type, "RC", "TCP id qp_type")
listen:bind_addr("*:" .. PORT)
listen:listen(4)
eq(listen:get_local_addr(), "0.0.0.0:" .. PORT, "listener address")
eq(listen:get_src_port(), PORT, "listener port")
eq(listen.verbs, nil, "a wildcard listener has no device")

-- Client: resolve the address, then the route; each answer is an event.
local cid = cch:create_id("RDMA_PS_TCP")
eq(sch:get_cm_event(0), nil, "no event yet: nil at once")
cid:resolve_addr(nil, ADDR .. ":" .. PORT)
local ev = cch:get_cm_event(5000)
eq(ev.event, "ADDR_RESOLVED", "first event"); eq(ev.status, 0, "status"); check(rawequal(ev.id, cid), "event.id is cid")
eq(ev.listen_id, nil, "no listen_id on the active side")
check(tostring(ev):find("^cm_event ADDR_RESOLVED on cm_id%d+, status 0"), "tostring %s", tostring(ev))
ev:ack()
local e = raises("read after ack", function() return ev.event end)
check(tostring(e):find("cm_event is acked (rdma_ack_cm_event freed it", 1, true), "after ack: %s", tostring(e))
cid:resolve_route(2000)
cch:get_cm_event(5000):expect("ROUTE_RESOLVED"):ack()
eq(cid.verbs.name, DEV, "id.verbs after resolution")
eq(cid:get_peer_addr(), ADDR .. ":" .. PORT, "peer address"); eq(cid:get_dst_port(), PORT, "dst port")

-- The CM's context is librdmacm's: PD and CQs must come from it.
local ctx = cid.verbs
check(rawequal(ctx, cid.verbs), "id.verbs is one object")
e = raises("close the CM's context", ctx.close, ctx)
check(tostring(e):find("librdmacm's (cm_id.verbs)", 1, true), "close: %s", tostring(e))
local cap = { max_send_wr = 8, max_recv_wr = 8, max_send_sge = 1, max_recv_sge = 1 }
local mine = verbs.open(DEV)
local cq = ctx:create_cq(16)
e = raises("a PD from another context", cid.create_qp, cid, mine:alloc_pd(),
  { qp_type = "RC", send_cq = cq, recv_cq = cq, cap = cap })
eq(e.verb, "rdma_create_qp", "verb"); eq(e.errname, "EINVAL", "errname")
check(tostring(e):find("pd = id.verbs:alloc_pd()", 1, true), "hint: %s", tostring(e))
local pd = ctx:alloc_pd()
e = raises("no send_cq", cid.create_qp, cid, pd, { qp_type = "RC", recv_cq = cq, cap = cap })
check(tostring(e):find("key 'send_cq' is required", 1, true), "%s", tostring(e))
local cqp = cid:create_qp(pd, { qp_type = "RC", send_cq = cq, recv_cq = cq, cap = cap })
check(rawequal(cid.qp, cqp), "id.qp is the QP")
eq(cqp.state, "INIT", "rdma_create_qp leaves an RC QP in INIT")
e = raises("a second QP", cid.create_qp, cid, pd, { qp_type = "RC", send_cq = cq, recv_cq = cq, cap = cap })
check(tostring(e):find("already has a QP", 1, true), "%s", tostring(e))

e = raises("unknown conn_param key", cid.connect, cid, { responder_resorces = 1 })
check(tostring(e):find("unknown key 'responder_resorces'", 1, true), "%s", tostring(e))
e = raises("private_data too long", cid.connect, cid, { private_data = ("x"):rep(256) })
check(tostring(e):find("256 bytes: private_data_len is a uint8_t", 1, true), "%s", tostring(e))
e = raises("private_data_len above #private_data", cid.connect, cid, { private_data = "ab", private_data_len = 3 })
check(tostring(e):find("key 'private_data_len': 3 is more than the 2 bytes of private_data", 1, true), "%s", tostring(e))
cid:connect{ private_data = "hello from client", responder_resources = 1, initiator_depth = 1,
             retry_count = 7, rnr_retry_count = 7 }

-- Server: the request brings a new id, bound to the device.
local req = sch:get_cm_event(5000):expect("CONNECT_REQUEST")
check(rawequal(req.listen_id, listen), "listen_id is the listener")
local sid = req.id
check(not rawequal(sid, listen), "a new id")
local conn = req.param.conn
eq(conn.private_data_len, 56, "a REQ's private data field is 56 bytes")
eq(conn.private_data:sub(1, 17), "hello from client", "private data")
eq(conn.private_data:sub(18), ("\0"):rep(39), "zero padded")
eq(conn.qp_num, cqp.qp_num, "the REQ carries the client's QPN")
eq(conn.responder_resources, 1, "responder_resources"); eq(conn.initiator_depth, 1, "initiator_depth")
check(rawequal(sid.verbs, ctx), "one context object per device")
local scq = ctx:create_cq(16)
local sqp = sid:create_qp(pd, { qp_type = "RC", send_cq = scq, recv_cq = scq, cap = cap })
local smr = pd:reg_mr(4096, "LOCAL_WRITE")
sqp:post_recv{ wr_id = 7, sg_list = { { mr = smr, length = 64 } } }
e = raises("destroy with an unacked event and a QP", sid.destroy, sid)
check(tostring(e):find("is still used by 2 objects: cm_event%d+ %(cm_event CONNECT_REQUEST"), "%s", tostring(e))
check(tostring(e):find("ack or destroy them first", 1, true), "%s", tostring(e))
sid:accept{ private_data = "welcome", responder_resources = 1, initiator_depth = 1 }
req:ack()
local est = cch:get_cm_event(5000):expect("ESTABLISHED")
eq(est.param.conn.private_data:sub(1, 7), "welcome", "the REP's private data")
eq(est.param.conn.private_data_len, 196, "a REP's private data field is 196 bytes")
est:ack()
sch:get_cm_event(5000):expect("ESTABLISHED"):ack()
eq(cqp.state, "RTS", "client QP after ESTABLISHED"); eq(sqp.state, "RTS", "server QP after ESTABLISHED")

-- The CM's QPs post and poll as any other.
local cmr = pd:reg_mr(4096, "LOCAL_WRITE")
cmr:write(0, "ping via rdma_cm")
cqp:post_send{ wr_id = 8, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = cmr, length = 64 } } }
eq(T.wc(cq, "client send").status, "SUCCESS", "send WC")
local rwc = T.wc(scq, "server recv")
eq(rwc.opcode, "RECV", "recv opcode"); eq(rwc.byte_len, 64, "recv byte_len"); eq(rwc.wr_id, 7, "recv wr_id")
eq(smr:read(0, 16), "ping via rdma_cm", "data")

-- Disconnect: rdma_disconnect moves the caller's QP to ERR; the server sees
-- DISCONNECTED, and the client too once the server disconnects as well.
cid:disconnect()
eq(cqp.state, "ERR", "client QP after its rdma_disconnect")
sch:get_cm_event(5000):expect("DISCONNECTED"):ack()
eq(sqp.state, "RTS", "server QP after DISCONNECTED, before its own disconnect")
sid:disconnect()
eq(sqp.state, "ERR", "server QP after its rdma_disconnect")
cch:get_cm_event(5000):expect("DISCONNECTED"):ack()
e = raises("destroy the id before its QP", cid.destroy, cid)
check(tostring(e):find("still used by 1 object: qp%d+ %(qp RC .* ERR%); destroy it first"), "%s", tostring(e))
cid:destroy_qp()
eq(tostring(cqp), "qp (destroyed)", "id:destroy_qp destroys id.qp"); eq(cid.qp, nil, "id.qp after destroy_qp")
cid:destroy()
sqp:destroy(); sid:destroy()

-- Nobody listens on that port: REJECTED, reason 8.
local x = cch:create_id("TCP")
x:resolve_addr(nil, ADDR .. ":" .. (PORT + 1)); cch:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()
x:resolve_route(); cch:get_cm_event(5000):expect("ROUTE_RESOLVED"):ack()
e = raises("connect without QP or conn_param", x.connect, x)
check(tostring(e):find("this id has no QP and no conn_param", 1, true), "%s", tostring(e))
x:connect{ qp_num = 0x123, responder_resources = 1, initiator_depth = 1 }   -- a QPN without a QP on the id
local rej = cch:get_cm_event(10000)
eq(rej.event, "REJECTED", "no listener"); eq(rej.status, 8, "reject reason INVALID_SERVICE_ID")
check(tostring(rej):find("why: nobody listens on that port", 1, true), "REJECTED explained: %s", tostring(rej))
e = raises("expect ESTABLISHED", rej.expect, rej, "ESTABLISHED")
eq(e.event, "REJECTED", "error object event")
check(tostring(e):find("^rdma_get_cm_event: expected ESTABLISHED, got REJECTED %(status 8%)"), "%s", tostring(e))
rej:ack(); x:destroy()

-- The server rejects with private data: REJECTED, reason 28 (consumer defined).
local y = cch:create_id("TCP")
y:resolve_addr(nil, ADDR .. ":" .. PORT); cch:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()
y:resolve_route(); cch:get_cm_event(5000):expect("ROUTE_RESOLVED"):ack()
y:connect{ private_data = "let me in", qp_num = 0x124 }
local req2 = sch:get_cm_event(5000):expect("CONNECT_REQUEST")
req2.id:reject("no: full")
local rej2 = cch:get_cm_event(5000)
eq(rej2.event, "REJECTED", "rejected by the server"); eq(rej2.status, 28, "reject reason CONSUMER_DEFINED")
eq(rej2.param.conn.private_data:sub(1, 8), "no: full", "the REJ's private data")
check(tostring(rej2):find("the server called rdma_reject", 1, true), "%s", tostring(rej2))
rej2:ack(); req2:ack(); y:destroy()

-- 127.0.0.1 is on lo, which has no RDMA device: the route fails.
local z = cch:create_id("TCP")
z:resolve_addr(nil, "127.0.0.1:" .. PORT); cch:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()
e = raises("route over lo", z.resolve_route, z, 2000)
eq(e.verb, "rdma_resolve_route", "verb"); eq(e.errname, "ENODEV", "route over lo errno")
check(tostring(e):find("lo", 1, true), "lo explained: %s", tostring(e))
z:destroy()

-- No route at all: rdma_resolve_addr fails at once.
local u = cch:create_id("TCP")
e = raises("unroutable address", u.resolve_addr, u, nil, "10.1.2.3:1", 1000)
eq(e.errname, "ENETUNREACH", "unroutable errno")
check(tostring(e):find("ip route get ADDR", 1, true), "ENETUNREACH explained: %s", tostring(e))
u:destroy()

-- A port outside 0..65535, or not a number, is refused naming the argument
-- (getaddrinfo would take 70000 modulo 65536, and bind port 4464).
local pid = cch:create_id("TCP")
for _, bad in ipairs{ "65536", "70000", "99999", "123456789012345678901", "http", "" } do
  e = raises("port '" .. bad .. "'", pid.bind_addr, pid, ADDR .. ":" .. bad)
  check(tostring(e):find(("bad argument #1 to 'bind_addr' (addr '%s:%s': "):format(ADDR, bad), 1, true)
    and tostring(e):find(#bad > 0 and bad:find("^%d+$") and "is out of range (0..65535)" or "is not a number", 1, true),
    "port '%s' refused: %s", bad, tostring(e))
end
e = raises("dst port 65536", pid.resolve_addr, pid, nil, ADDR .. ":65536")
check(tostring(e):find(("bad argument #2 to 'resolve_addr' (dst_addr '%s:65536': port 65536 is out of range (0..65535))")
  :format(ADDR), 1, true), "dst port: %s", tostring(e))
e = raises("[v6]:port", pid.bind_addr, pid, "[::1]:65536")
check(tostring(e):find("port 65536 is out of range (0..65535)", 1, true), "[v6] port: %s", tostring(e))
pid:bind_addr(ADDR .. ":65535")   -- the largest port is taken as it is
eq(pid:get_local_addr(), ADDR .. ":65535", "port 65535 bound")
pid:destroy()

-- UD (RDMA_PS_UDP): rdma_create_qp leaves the QP in RTS at once; a lookup
-- with nobody listening is UNREACHABLE with the SIDR status 1.
local d = cch:create_id("UDP")
eq(d.qp_type, "UD", "UDP id qp_type")
d:resolve_addr(nil, ADDR .. ":" .. (PORT + 2)); cch:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()
d:resolve_route(); cch:get_cm_event(5000):expect("ROUTE_RESOLVED"):ack()
local dqp = d:create_qp(pd, { qp_type = "UD", send_cq = cq, recv_cq = cq, cap = cap })
eq(dqp.state, "RTS", "a UD QP from rdma_create_qp")
d:connect()
local un = cch:get_cm_event(10000)
eq(un.event, "UNREACHABLE", "UD lookup, no listener"); eq(un.status, 1, "SIDR status UNSUPPORTED")
check(tostring(un):find("nobody listens on that port", 1, true), "%s", tostring(un))
un:ack(); dqp:destroy(); d:destroy()

-- The listener's port is taken: rdma_cm says EADDRNOTAVAIL, not EADDRINUSE.
local w = sch:create_id("TCP")
e = raises("bind a taken port", w.bind_addr, w, "*:" .. PORT)
eq(e.errname, "EADDRNOTAVAIL", "taken port errno")
check(tostring(e):find("already bound", 1, true), "taken port explained: %s", tostring(e))
w:destroy()

-- Bad input names the argument.
e = raises("no port space", sch.create_id, sch)
check(tostring(e):find("bad argument #1 to 'create_id' (port space expected", 1, true), "%s", tostring(e))
e = raises("bad port space", sch.create_id, sch, "SCTP")
check(tostring(e):find("create_id", 1, true) and tostring(e):find("SCTP", 1, true), "%s", tostring(e))
e = raises("address as a number", listen.bind_addr, listen, 7471)
check(tostring(e):find("addr expected as \"host:port\"", 1, true), "%s", tostring(e))
e = raises("bad address", cch:create_id("TCP").resolve_addr, cch:create_id("TCP"), nil, "300.1.1.1:1")
check(tostring(e):find("dst_addr '300.1.1.1:1'", 1, true), "%s", tostring(e))
e = raises("negative timeout", sch.get_cm_event, sch, -1)
check(tostring(e):find("timeout_ms", 1, true), "%s", tostring(e))

listen:destroy()
e = raises("destroy twice", listen.destroy, listen)
check(tostring(e):find("cm_id is destroyed", 1, true), "%s", tostring(e))

-- The trace speaks librdmacm's C.
verbs.trace(false)
local text = table.concat(trace, "\n")
for _, want in ipairs { "rdma_create_event_channel() = cm_channel", "rdma_create_id(cm_channel",
    ", RDMA_PS_TCP) = 0", "rdma_resolve_route(cm_id", "rdma_get_cm_event(cm_channel",
    "RDMA_CM_EVENT_CONNECT_REQUEST", "rdma_accept(cm_id", "rdma_ack_cm_event(cm_event", "rdma_destroy_qp(cm_id",
    "rdma_disconnect(cm_id" } do
  check(text:find(want, 1, true), "trace has %q", want)
end
T.done("cm_rc")
