-- Multicast on one rxe device: qp:attach_mcast / detach_mcast and their
-- errors, the rdma_cm join (MULTICAST_JOIN and its ud params), leave, and
-- the lifetimes (a QP still attached, an id still joined). Frames between
-- two devices are tested in tests/vm/multicast.bats.
local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/verbs_lib.lua")
local check, eq, raises = T.check, T.eq, T.raises
local ADDR, DEV = os.getenv("RXE_ADDR"), os.getenv("RXE_DEV")
local GROUP, GROUP_GID = "239.1.2.3", "::ffff:239.1.2.3"

local trace = {}
verbs.trace(function(call, ret) trace[#trace + 1] = call .. " = " .. ret end)

local ctx = verbs.open(DEV)
local pd = ctx:alloc_pd()
local cq = ctx:create_cq(16)
local cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 }
local ud = pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq, cap = cap }
local rc = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = cap }

-- The verbs level: attach, detach, and what the kernel refuses.
ud:attach_mcast(GROUP_GID, 0)
ud:attach_mcast("ff0e::1234", 0x1234)
local e = raises("destroy while attached", ud.destroy, ud)
check(tostring(e):find("still attached to the group ::ffff:239.1.2.3: qp:detach_mcast(\"::ffff:239.1.2.3\", 0) first",
  1, true), "destroy attached: %s", tostring(e))
ud:detach_mcast(GROUP_GID, 0)
e = raises("destroy while still attached to the second group", ud.destroy, ud)
check(tostring(e):find("ff0e::1234", 1, true), "the second group: %s", tostring(e))
ud:detach_mcast("ff0e::1234", 0x1234)

e = raises("an RC QP", rc.attach_mcast, rc, GROUP_GID, 0)
eq(e.verb, "ibv_attach_mcast", "verb"); eq(e.errname, "EINVAL", "RC: errname")
check(tostring(e):find("only a UD QP joins a multicast group", 1, true), "RC explained: %s", tostring(e))
e = raises("a unicast GID", ud.attach_mcast, ud, "::ffff:" .. ADDR, 0)
eq(e.errname, "EINVAL", "unicast: errname")
check(tostring(e):find("not a multicast address", 1, true), "unicast explained: %s", tostring(e))
-- the boundary: 224.0.0.0 is the first IPv4 multicast address, 223.255.255.255 the last before it
ud:attach_mcast("::ffff:224.0.0.0", 0); ud:detach_mcast("::ffff:224.0.0.0", 0)
e = raises("223.255.255.255", ud.attach_mcast, ud, "::ffff:223.255.255.255", 0)
eq(e.errname, "EINVAL", "223.255.255.255: errname")
eq(e.context.multicast, false, "223.255.255.255: not multicast in the context")
-- an IPv6 unicast GID whose 13th byte is that of an IPv4 group (224-239) is
-- no group either: only an IPv4-mapped GID is read as IPv4
e = raises("2001:db8::e000:1", ud.attach_mcast, ud, "2001:db8::e000:1", 0)
eq(e.errname, "EINVAL", "2001:db8::e000:1: errname"); eq(e.context.multicast, false, "2001:db8::e000:1: not multicast")
check(tostring(e):find("not a multicast address", 1, true), "2001:db8::e000:1 explained: %s", tostring(e))
e = raises("a GID that is no GID", ud.attach_mcast, ud, "239.1.2.3", 0)
check(tostring(e):find("bad argument #1 to 'attach_mcast' ('239.1.2.3' is not a GID", 1, true), "%s", tostring(e))
e = raises("lid out of range", ud.attach_mcast, ud, GROUP_GID, 0x10000)
check(tostring(e):find("lid", 1, true) and tostring(e):find("65536", 1, true), "%s", tostring(e))
ud:attach_mcast(GROUP_GID, 0xffff); ud:detach_mcast(GROUP_GID, 0xffff)
e = raises("detach a group never attached", ud.detach_mcast, ud, "::ffff:239.9.9.9", 0)
eq(e.errname, "EINVAL", "detach unknown: errname")
check(tostring(e):find("not attached to that group", 1, true), "detach explained: %s", tostring(e))
-- attached twice, a QP is in the group once (rxe keeps one membership): one
-- detach leaves it, a second finds nothing, and nothing refuses the destroy
do
  local twice = pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq, cap = cap }
  twice:attach_mcast("::ffff:239.1.2.7", 0); twice:attach_mcast("::ffff:239.1.2.7", 0)
  twice:detach_mcast("::ffff:239.1.2.7", 0)
  e = raises("detach again", twice.detach_mcast, twice, "::ffff:239.1.2.7", 0)
  eq(e.errname, "EINVAL", "attached twice, detached once: not attached any more")
  twice:destroy()
  eq(tostring(twice), "qp (destroyed)", "a QP attached twice and detached once is destroyed")
end

-- rxe's limit of QPs per group (56): the 56th attaches, the 57th fails ENOMEM, explained.
local dev = ctx:query_device()
eq(dev.max_mcast_qp_attach, 56, "rxe's max_mcast_qp_attach"); eq(dev.max_mcast_grp, 8192, "max_mcast_grp")
local many = {}
for i = 1, dev.max_mcast_qp_attach + 1 do
  many[i] = pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq, cap = cap }
  if i <= dev.max_mcast_qp_attach then many[i]:attach_mcast("::ffff:239.1.2.5", 0) end
end
e = raises("the 57th QP on one group", many[#many].attach_mcast, many[#many], "::ffff:239.1.2.5", 0)
eq(e.errname, "ENOMEM", "past max_mcast_qp_attach")
check(tostring(e):find("max_mcast_qp_attach", 1, true), "limit explained: %s", tostring(e))
many[1]:detach_mcast("::ffff:239.1.2.5", 0)
many[#many]:attach_mcast("::ffff:239.1.2.5", 0)   -- a place freed: the 57th fits now
many = nil

-- A QP left attached to the garbage collector is detached, then destroyed.
do
  local q = pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq, cap = cap }
  q:attach_mcast(GROUP_GID, 0)
end
collectgarbage(); collectgarbage()

-- rdma_cm: a UD id joins; MULTICAST_JOIN brings the group's AH, QPN and Q_Key.
local ch = verbs.create_event_channel()
local id = ch:create_id("UDP")
id:bind_addr(ADDR .. ":0")
id:resolve_addr(ADDR, GROUP .. ":0")
ch:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()
local cctx = id.verbs
local cpd, ccq = cctx:alloc_pd(), cctx:create_cq(16)
local cqp = id:create_qp(cpd, { qp_type = "UD", send_cq = ccq, recv_cq = ccq, cap = cap })
id:join_multicast(GROUP, 0x5eed)
local ev = ch:get_cm_event(5000):expect("MULTICAST_JOIN")
local u = ev.param.ud
eq(u.qp_num, 0xffffff, "a group's QPN")
eq(u.context, 0x5eed, "the join's context comes back")
eq(u.ah_attr.grh.dgid, GROUP_GID, "the group's GID")
eq(u.ah_attr.is_global, 1, "is_global")
eq(u.qkey, 0x01234567, "RDMA_UDP_QKEY")
eq(u.ah_attr.grh.sgid_index, T.gid_index, "the id's RoCE v2 GID")
ev:ack()
e = raises("destroy the QP while joined", cqp.destroy, cqp)
check(tostring(e):find("id:leave_multicast(\"239.1.2.3\") first", 1, true), "%s", tostring(e))
id:leave_multicast(GROUP)
e = raises("leave twice", id.leave_multicast, id, GROUP)
eq(e.errname, "EADDRNOTAVAIL", "leave twice")
check(tostring(e):find("has not joined that group", 1, true), "%s", tostring(e))
cqp:destroy()   -- left: the QP goes
cqp = id:create_qp(cpd, { qp_type = "UD", send_cq = ccq, recv_cq = ccq, cap = cap })

-- join_multicast_ex: the struct's keys; comp_mask from the keys given.
id:join_multicast_ex({ addr = "239.1.2.4", join_flags = "SENDONLY_FULLMEMBER" }, 7)
ev = ch:get_cm_event(5000):expect("MULTICAST_JOIN")
eq(ev.param.ud.context, 7, "join_multicast_ex's context"); eq(ev.param.ud.ah_attr.grh.dgid, "::ffff:239.1.2.4", "dgid")
ev:ack()
e = raises("no addr", id.join_multicast_ex, id, { join_flags = "FULLMEMBER" })
check(tostring(e):find("key 'addr' is required", 1, true), "%s", tostring(e))
e = raises("unknown flag", id.join_multicast_ex, id, { addr = GROUP, join_flags = "FULL" })
check(tostring(e):find("join_flags", 1, true), "%s", tostring(e))
e = raises("TCP id", ch:create_id("TCP").join_multicast, ch:create_id("TCP"), GROUP)
check(tostring(e):find("multicast is for UD ids: this id's port space is TCP", 1, true), "%s", tostring(e))
local tcp = ch:create_id("TCP")
e = raises("TCP id, join_multicast_ex", tcp.join_multicast_ex, tcp, { addr = GROUP })
check(tostring(e):find("rdma_join_multicast_ex: multicast is for UD ids: this id's port space is TCP", 1, true), "%s", tostring(e))
tcp:destroy()
-- the kernel refuses a join on an id bound to no device (EINVAL); the error
-- names the group and whether the id has a QP
local fresh = ch:create_id("UDP")
e = raises("join on an unbound id", fresh.join_multicast, fresh, "239.1.2.8")
eq(e.verb, "rdma_join_multicast", "join's verb"); eq(e.errname, "EINVAL", "join on an unbound id")
eq(e.context.addr, "239.1.2.8", "the group"); eq(e.context.has_qp, false, "no QP")
e = raises("join_ex on an unbound id", fresh.join_multicast_ex, fresh, { addr = "239.1.2.9" })
eq(e.verb, "rdma_join_multicast_ex", "join_ex's verb"); eq(e.errname, "EINVAL", "join_ex on an unbound id")
eq(e.context.addr, "239.1.2.9", "join_ex's group"); eq(e.context.has_qp, false, "join_ex: no QP")
fresh:destroy()
e = raises("join_ex of the zero address", id.join_multicast_ex, id, { addr = "0.0.0.0" })
eq(e.errname, "EINVAL", "the zero address is no group"); eq(e.context.addr, "0.0.0.0", "the address given")
eq(e.context.has_qp, true, "this id has its QP")

-- An id left joined to the garbage collector leaves, and its QP goes
-- (the bats test checks that no "ibv_destroy_qp failed" leak is printed).
verbs.trace(false)
local text = table.concat(trace, "\n")
for _, want in ipairs { "ibv_attach_mcast(qp1, &gid1, 0) = 0", "ibv_detach_mcast(qp1, &gid",
    "ibv_attach_mcast(qp2, &gid", ") = 22 /* EINVAL */", "rdma_join_multicast(cm_id1, sockaddr_of(&addr",
    "\"239.1.2.3\"), (void *)(uintptr_t)0x5eed) = 0", "rdma_leave_multicast(cm_id1, sockaddr_of(&addr",
    "rdma_join_multicast_ex(cm_id1, &mc_attr", "= -1 /* errno EADDRNOTAVAIL */" } do
  check(text:find(want, 1, true), "trace has %q", want)
end
T.done("mcast")
