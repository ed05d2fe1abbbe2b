-- Issue 19 items 7-10 and "Smaller": inputs that librdmacm or the provider
-- would crash on (or silently ignore) are refused, naming why. Each
-- reproducer from the issue, on rxe; prints "robust_preconditions: ok (N checks)".
local T = dofile((arg[0]:match("^(.*)/[^/]*$") or ".") .. "/verbs_lib.lua")
local check = T.check
local function refused(what, want, fn, ...)
  local ok, e = pcall(fn, ...)
  check(not ok, "%s: accepted", what)
  check(tostring(e):find(want, 1, true), "%s: %q lacks %q", what, tostring(e), want)
  print(("%-26s %s"):format(what .. ":", tostring(e):match("[^\n]*")))
end

-- 7. resolve_route before resolve_addr
local ch = verbs.create_event_channel()
local id = ch:create_id("TCP")
refused("resolve_route first", "rdma_resolve_route: this cm_id has no device yet", id.resolve_route, id, 100)
-- 8. connect / accept on an unbound id
refused("connect unbound", "rdma_connect: this cm_id has no device yet", id.connect, id,
  { responder_resources = 1, initiator_depth = 1 })
refused("accept unbound", "rdma_accept: this cm_id has no device yet", id.accept, id, { responder_resources = 1 })
-- accept with neither a QP nor a conn_param on a resolved (active-side) id
local id2 = ch:create_id("TCP")
id2:resolve_addr(nil, os.getenv("RXE_ADDR") .. ":7999", 2000)
local ev = ch:get_cm_event(5000)
check(ev and ev.event == "ADDR_RESOLVED", "resolve_addr: %s", tostring(ev and ev.event))
ev:ack()
refused("accept without QP/param", "with no QP on the id, a conn_param is needed", id2.accept, id2)

local ctx = verbs.open(os.getenv("RXE_DEV"))
local pd, cq = ctx:alloc_pd(), ctx:create_cq(8)
local cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 2, max_recv_sge = 2 }
-- 9. BIND_MW: the fuzzer's reproducer (a bind with no window and no MR
-- crashed rxe's provider) is now validated, as are its halves
local rc = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = cap }
refused("BIND_MW", "opcode BIND_MW needs bind_mw = { mw =, rkey =, bind_info", rc.post_send, rc, { opcode = "BIND_MW" })
local mw = pd:alloc_mw("TYPE_2")
refused("BIND_MW without MR", "bad argument #1 to 'post_send' (key 'bind_mw.bind_info.mr' is required", rc.post_send, rc,
  { opcode = "BIND_MW", bind_mw = { mw = mw, rkey = verbs.inc_rkey(mw.rkey), bind_info = { addr = 0, length = 0 } } })
refused("BIND_MW without mw", "bad argument #1 to 'post_send' (key 'bind_mw.mw' is required", rc.post_send, rc,
  { opcode = "BIND_MW", bind_mw = { rkey = 1, bind_info = { mr = pd:reg_mr(64, "MW_BIND") } } })
-- 10. UD union aliasing: rdma's remote_addr where ud.ah lives
local ud = pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq, cap = cap }
ud:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = 0x11 }
ud:modify{ qp_state = "RTR" }
ud:modify{ qp_state = "RTS", sq_psn = 0 }
refused("UD with rdma", "its remote_addr would be taken for the AH pointer", ud.post_send, ud,
  { opcode = "SEND", rdma = { remote_addr = 0x4141414141414141, rkey = 1 } })
local wr = verbs.send_wr{ opcode = "SEND" }
wr.rdma = { remote_addr = 0x4141414141414141, rkey = 1 }
refused("prepared UD with rdma", "key 'rdma' on a UD QP", ud.post_send, ud, wr)
refused("UD without ud", "the provider would dereference a NULL AH", ud.post_send, ud, { opcode = "SEND" })
-- Smaller: keys modify would ignore; errno names
refused("sq_draining", "key 'sq_draining' cannot be set: ibv_query_qp reports it", rc.modify, rc,
  { qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0, sq_draining = 1 })
local srq = pd:create_srq{ max_wr = 4, max_sge = 1 }
refused("srq max_sge", "key 'max_sge' is fixed when the SRQ is created", srq.modify, srq, { max_wr = 8, max_sge = 2 })
print("robust_preconditions: ok (" .. T.checks .. " checks)")
