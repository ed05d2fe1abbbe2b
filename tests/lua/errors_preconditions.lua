-- What librdmacm and the provider would crash on instead of failing: each is
-- an explained error before the call (issue 19, items 7-10 and "Smaller").
local L = dofile((arg[0]:match("^(.*)/") or ".") .. "/errors_lib.lua")
local check, seen = L.check, L.seen

-- A plain Lua error (not a verb's: the verb is never called); its message.
local function refused(what, fn, ...)
  local ok, e = pcall(fn, ...)
  check(not ok, "%s: expected an error, but it succeeded", what)
  check(type(e) == "string", "%s: expected a message, got %s: %s", what, type(e), tostring(e))
  seen(what, e)
  return e
end

-- rdma_cm: verbs that read id->verbs before any address resolved.
local ch = verbs.create_event_channel()
local id = ch:create_id("TCP")
refused("resolve_route before resolve_addr", id.resolve_route, id, 100)
refused("connect on an unbound id", id.connect, id, { responder_resources = 1, initiator_depth = 1 })
refused("accept on an unbound id", id.accept, id, { responder_resources = 1 })
refused("accept with nothing on an unbound id", id.accept, id)

-- An active-side id after ADDR_RESOLVED: it has a device, but accept with no
-- QP and no conn_param would read conn_param->qp_num (TCP and UDP alike).
for _, ps in ipairs{ "TCP", "UDP" } do
  local a = ch:create_id(ps)
  a:resolve_addr(nil, "127.0.0.1:7999")
  local ev = ch:get_cm_event(5000):expect("ADDR_RESOLVED")
  refused(ps .. " accept with no QP and no conn_param", ev.id.accept, ev.id)
  ev:ack()
  a:destroy()
end
id:destroy()
ch:destroy()

-- Post: BIND_MW with nothing to bind (the fuzzer's crash), TSO, and the union `wr` by QP type and opcode.
local mr = L.pd:reg_mr(4096, "LOCAL_WRITE")
local rc = L.qp("RC")
local ud = L.qp("UD")
local ah = L.pd:create_ah{ is_global = 1, port_num = 1, grh = { dgid = L.gid, sgid_index = L.gid_index } }
local sge = { { mr = mr, offset = 0, length = 8 } }
refused("BIND_MW", rc.post_send, rc, { opcode = "BIND_MW" })
refused("TSO", rc.post_send, rc, { opcode = "TSO", sg_list = sge })
refused("UD SEND with rdma", ud.post_send, ud,
  { opcode = "SEND", sg_list = sge, rdma = { remote_addr = 0x4141414141414141, rkey = 1 } })
refused("UD SEND with atomic", ud.post_send, ud,
  { opcode = "SEND", sg_list = sge, atomic = { remote_addr = 0x4141414141414141, rkey = 1 } })
refused("UD SEND without ud", ud.post_send, ud, { opcode = "SEND", sg_list = sge })
refused("RC SEND with ud", rc.post_send, rc, { opcode = "SEND", sg_list = sge, ud = { ah = ah, remote_qpn = 1 } })
refused("RC SEND with rdma", rc.post_send, rc, { opcode = "SEND", sg_list = sge, rdma = { remote_addr = 0, rkey = 1 } })
refused("RC RDMA_WRITE with atomic", rc.post_send, rc, { opcode = "RDMA_WRITE", sg_list = sge, atomic = { rkey = 1 } })
refused("list: the second WR", rc.post_send, rc,
  { { opcode = "SEND", sg_list = sge }, { opcode = "SEND", sg_list = sge, ud = { ah = ah } } })

-- A prepared UD WR whose union was overwritten by wr.rdma = {...}.
local w = verbs.send_wr{ opcode = "SEND", sg_list = sge, ud = { ah = ah, remote_qpn = 1, remote_qkey = 0x11111111 } }
w.rdma = { remote_addr = 0x4141414141414141, rkey = 1 }
refused("prepared UD WR after wr.rdma", ud.post_send, ud, w)
check(w.ud == nil and w.rdma == nil, "prepared WR reads back: ud %s rdma %s", tostring(w.ud), tostring(w.rdma))

-- A prepared WR whose MR had its __gc called by hand (found by the fuzzer:
-- the WR still pointed at the freed node).
local m2 = L.pd:reg_mr(64, "LOCAL_WRITE")
local pr = verbs.recv_wr{ sg_list = { { mr = m2 } } }
getmetatable(m2).__gc(m2)
refused("prepared WR after its MR's __gc", rc.post_recv, rc, pr)

-- What passes the checks reaches the verb: rxe refuses a send in RESET.
local e = L.fails("UD SEND in RESET", ud.post_send, ud,
  { opcode = "SEND", sg_list = sge, ud = { ah = ah, remote_qpn = 1, remote_qkey = 0x11111111 } })
seen("UD SEND with ud in RESET", ("%s %d"):format(e.errname, e.errno))
local p = verbs.send_wr{ opcode = "RDMA_WRITE", sg_list = sge, rdma = { remote_addr = 0, rkey = 1 } }
e = L.fails("prepared RDMA_WRITE in RESET", rc.post_send, rc, p)
seen("RC prepared RDMA_WRITE in RESET", ("%s %d"):format(e.errname, e.errno))

-- Keys that C would ignore: no mask bit in ibv_modify_qp / ibv_modify_srq.
refused("modify sq_draining", rc.modify, rc, { sq_draining = 1 })
local srq = L.pd:create_srq{ max_wr = 4, max_sge = 1 }
refused("srq modify max_sge", srq.modify, srq, { max_sge = 2 })
srq:modify{ srq_limit = 1 }
seen("srq modify srq_limit", srq:query().srq_limit)
print("errors_preconditions: ok")
