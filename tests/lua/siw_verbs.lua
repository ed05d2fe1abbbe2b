-- verbsh on soft-iWARP (siw), beside rxe in the same guest: what siw refuses
-- and how each refusal is explained, with rxe doing the same steps as the
-- contrast (so that an iWARP explanation never leaks onto RoCE); then the
-- device suite's RC subset over rdma_cm on siw: SEND, WRITE and READ with
-- their data, the opcodes refused at the post (-22), and the QP still usable.
local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/verbs_lib.lua")
local check, eq, raises = T.check, T.eq, T.raises
local SIW, SIW_ADDR, RXE = os.getenv("SIW_DEV"), os.getenv("SIW_ADDR"), os.getenv("RXE_DEV")
local PORT = 7491
local function has(e, text) check(tostring(e):find(text, 1, true), "%q in: %s", text, tostring(e)) end

-- The devices: siw is an RNIC of transport IWARP, rxe a CA of transport IB.
local kinds = {}
for _, d in ipairs(verbs.devices()) do kinds[d.name] = d.node_type .. "/" .. d.transport_type end
eq(kinds[SIW], "RNIC/IWARP", "siw's node and transport type")
eq(kinds[RXE], "CA/IB", "rxe's node and transport type")

local ctx = verbs.open(SIW)
local d = ctx:query_device()
eq(d.atomic_cap, "NONE", "siw atomic_cap"); eq(d.max_ah, 0, "siw max_ah"); eq(d.max_sge_rd, 1, "siw max_sge_rd")
eq(ctx:query_port(1).gid_tbl_len, 1, "siw gid_tbl_len")
local pd, cq, cq2 = ctx:alloc_pd(), ctx:create_cq(8), ctx:create_cq(8)
local cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 }

-- UD and UC at create: the device's EOPNOTSUPP, named as iWARP's RC-only transport.
for _, t in ipairs{ "UD", "UC" } do
  local e = raises(t .. " on siw", pd.create_qp, pd, { qp_type = t, send_cq = cq, recv_cq = cq2, cap = cap })
  eq(e.errname, "EOPNOTSUPP", t .. " errname")
  has(e, t .. " QP on " .. SIW .. " (iWARP)")
  has(e, "iWARP has one transport, reliable connected (RC)")
end
local e = raises("AH on siw", pd.create_ah, pd, { is_global = 1, port_num = 1, grh = { dgid = "::ffff:198.51.100.9", sgid_index = 0 } })
eq(e.errname, "EOPNOTSUPP", "AH errname"); has(e, "address handle on " .. SIW .. " (iWARP)")
-- siw's provider has no extended verbs (rxe's has: lesson 15)
e = raises("create_cq_ex on siw", ctx.create_cq_ex, ctx, { cqe = 8, wc_flags = { "BYTE_LEN" } })
eq(e.errname, "EOPNOTSUPP", "create_cq_ex errname"); has(e, "has no extended verbs")

-- An RC QP out of band: RESET is siw's true state before any modify; after
-- one, verbsh shows the state it set and says once that siw reports none.
local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq2, cap = cap }
eq(qp.state, "RESET", "a new QP")
qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }
verbs.strict(true)
e = raises("qp.state under strict", function() return qp.state end)
has(e, SIW .. " (iWARP) does not report QP states"); has(e, "INIT is the state verbsh's last qp:modify set")
-- (no argument is at fault: the script's line, then the warning)
check(tostring(e):find("^[^:]*siw_verbs%.lua:%d+: " .. SIW .. " %(iWARP%) does not report QP states %(siw in Linux 6%.1 says"
  .. " RESET whatever the state%): INIT is the state verbsh's last qp:modify set, not the device's report %(an error"
  .. " under verbs%.strict%(true%)%)$"), "%s", tostring(e))
verbs.strict(false)
eq(qp.state, "INIT", "the state verbsh set (said once)")
eq(qp:query().qp_state, "INIT", "qp:query's qp_state, corrected")
check(tostring(qp):find(" INIT (as verbsh set it: the iWARP device does not report QP states)", 1, true), "%s", tostring(qp))

local mr = pd:reg_mr(4096, "LOCAL_WRITE")
e = raises("post_send before RTS", qp.post_send, qp, { wr_id = 0x5101, opcode = "SEND", sg_list = { { mr = mr, length = 8 } } })
eq(e.errname, "ENOTCONN", "post before RTS errname"); eq(e.context.returned, -1, "what C got")
-- (siw's query says RESET: the context has the state verbsh set, and says so)
eq(e.context.qp_state, "INIT", "post before RTS: the state in the error's context")
eq(e.context.state_unreported, true, "post before RTS: the state is verbsh's, not the device's")
has(e, "ibv_post_send returned -1, a negative value"); has(e, "not connected")

local gid = ctx:query_gid(1, 0)
local rtr = { qp_state = "RTR", path_mtu = "1024", dest_qp_num = qp.qp_num, rq_psn = 0x1234, max_dest_rd_atomic = 1,
  min_rnr_timer = 12, ah_attr = { is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = 0, hop_limit = 1 } } }
local rts = { qp_state = "RTS", timeout = 14, retry_cnt = 7, rnr_retry = 7, sq_psn = 0x1234, max_rd_atomic = 1 }
qp:modify(rtr)
eq(qp.state, "RTR", "RTR reached")
e = raises("RTS out of band", qp.modify, qp, rts)
eq(e.errname, "EINVAL", "RTS errname")
has(e, "RC QP on " .. SIW .. " (iWARP), RTR->RTS"); has(e, "reaches RTS only through rdma_cm")
has(e, "note: the QP's state RTR is the one verbsh's last qp:modify set")
eq(qp.state, "RTR", "still RTR after the refused RTS")
qp:modify{ qp_state = "RESET" }
eq(qp.state, "RESET", "RESET set by verbsh is believed")
check(not tostring(qp):find("as verbsh set it", 1, true), "RESET is not marked: %s", tostring(qp))
qp:destroy()

-- The same on rxe: UD is created, RTS is reached out of band, the state is the device's.
do
  local rctx = verbs.open(RXE)
  local rpd, rcq = rctx:alloc_pd(), rctx:create_cq(8)
  rpd:create_qp{ qp_type = "UD", send_cq = rcq, recv_cq = rcq, cap = cap }:destroy()
  local rqp = rpd:create_qp{ qp_type = "RC", send_cq = rcq, recv_cq = rcq, cap = cap }
  rqp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }
  local r = {}
  for k, v in pairs(rtr) do r[k] = v end
  r.dest_qp_num = rqp.qp_num
  r.ah_attr = { is_global = 1, port_num = 1, grh = { dgid = rctx:query_gid(1, T.gid_index), sgid_index = T.gid_index, hop_limit = 1 } }
  rqp:modify(r); rqp:modify(rts)
  eq(rqp.state, "RTS", "rxe reaches RTS out of band")
  eq(tostring(rqp):find("as verbsh set it", 1, true), nil, "rxe's state is its own")
  rqp:destroy(); rcq:destroy(); rpd:dealloc(); rctx:close()
end

-- RC over rdma_cm on siw.
local sch, cch = verbs.create_event_channel(), verbs.create_event_channel()
local listen = sch:create_id("TCP")
listen:bind_addr(SIW_ADDR .. ":" .. PORT); listen:listen(2)
local cid = cch:create_id("TCP")
cid:resolve_addr(nil, SIW_ADDR .. ":" .. PORT, 2000); cch:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()
cid:resolve_route(2000); cch:get_cm_event(5000):expect("ROUTE_RESOLVED"):ack()
eq(cid.verbs.name, SIW, "rdma_cm picks siw for siw's address")
local cctx = cid.verbs
local cpd = cctx:alloc_pd()
local ccq, scq = cctx:create_cq(16), cctx:create_cq(16)
local cqp = cid:create_qp(cpd, { qp_type = "RC", send_cq = ccq, recv_cq = ccq, cap = cap })
cid:connect{ responder_resources = 1, initiator_depth = 1 }
local req = sch:get_cm_event(5000):expect("CONNECT_REQUEST")
local sid = req.id
local sqp = sid:create_qp(cpd, { qp_type = "RC", send_cq = scq, recv_cq = scq, cap = cap })
local smr = cpd:reg_mr(4096, { "LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ" })
smr:write(1024, "read me from siw")
sqp:post_recv{ wr_id = 0x701, sg_list = { { mr = smr, offset = 0, length = 64 } } }
sid:accept{ responder_resources = 1, initiator_depth = 1 }
req:ack()
cch:get_cm_event(5000):expect("ESTABLISHED"):ack()
sch:get_cm_event(5000):expect("ESTABLISHED"):ack()
eq(cqp.state, "UNKNOWN", "a QP rdma_cm moved on siw")   -- (and its warning, once)
local cmr = cpd:reg_mr(4096, "LOCAL_WRITE")

cmr:write(0, "send over iWARP")
cqp:post_send{ wr_id = 0x11, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = cmr, length = 15 } } }
local w = T.wc(ccq, "SEND"); eq(w.status, "SUCCESS", "SEND status"); eq(w.wr_id, 0x11, "SEND wr_id")
w = T.wc(scq, "RECV"); eq(w.opcode, "RECV", "RECV opcode"); eq(w.byte_len, 15, "RECV byte_len"); eq(w.wr_id, 0x701, "RECV wr_id")
eq(smr:read(0, 15), "send over iWARP", "the SEND's data")

cmr:write(64, "written by RDMA_WRITE")
cqp:post_send{ wr_id = 0x12, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = { { mr = cmr, offset = 64, length = 21 } },
               rdma = { remote_addr = smr.addr + 2048, rkey = smr.rkey } }
eq(T.wc(ccq, "WRITE").status, "SUCCESS", "WRITE status")
eq(smr:read(2048, 21), "written by RDMA_WRITE", "the WRITE's data")

-- Refused at the post: -22, errno EINVAL, nothing completes.
for _, x in ipairs{ { "SEND_WITH_IMM", "no immediate data" }, { "RDMA_WRITE_WITH_IMM", "no immediate data" },
                    { "ATOMIC_FETCH_AND_ADD", "no atomic operations" }, { "ATOMIC_CMP_AND_SWP", "no atomic operations" } } do
  local op = x[1]
  local wr = { wr_id = 0x20, opcode = op, send_flags = "SIGNALED", sg_list = { { mr = cmr, length = op:find("ATOMIC") and 8 or 4 } } }
  if op:find("IMM") then wr.imm_data = 0x12345678 end
  if op:find("RDMA") then wr.rdma = { remote_addr = smr.addr, rkey = smr.rkey } end
  if op:find("ATOMIC") then wr.atomic = { remote_addr = smr.addr, rkey = smr.rkey, compare_add = 3, swap = 5 } end
  e = raises(op, cqp.post_send, cqp, wr)
  eq(e.errno, 22, op .. " errno"); eq(e.errname, "EINVAL", op .. " errname"); eq(e.context.returned, -22, op .. " returned")
  -- (rdma_cm moved the QP: verbsh does not know its state, and does not say RESET)
  eq(e.context.qp_state, "UNKNOWN", op .. ": the state in the error's context"); eq(e.context.state_unreported, true, op .. ": unreported")
  has(e, "ibv_post_send returned -22, a negative value"); has(e, x[2]); has(e, "refuses opcode " .. op)
end
eq(#ccq:poll(4), 0, "no completion from the refused WRs")

-- The QP is still usable: a READ after the refusals brings the server's bytes.
cqp:post_send{ wr_id = 0x13, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = { { mr = cmr, offset = 512, length = 16 } },
               rdma = { remote_addr = smr.addr + 1024, rkey = smr.rkey } }
w = T.wc(ccq, "READ"); eq(w.status, "SUCCESS", "READ status"); eq(w.wr_id, 0x13, "READ wr_id")
eq(cmr:read(512, 16), "read me from siw", "the READ's data")

cid:disconnect()
sch:get_cm_event(5000):expect("DISCONNECTED"):ack()
sid:disconnect()
cch:get_cm_event(5000):expect("DISCONNECTED"):ack()
cid:destroy_qp(); sid:destroy_qp(); cid:destroy(); sid:destroy(); listen:destroy()
T.done("siw_verbs")
