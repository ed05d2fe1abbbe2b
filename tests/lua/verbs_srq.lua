-- A shared receive queue: receives posted once, as a list, consumed by an RC
-- QP created with srq =; srq:query/modify; the SRQ_LIMIT_REACHED async event.
local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/verbs_lib.lua")
local check, eq = T.check, T.eq

local ctx = verbs.open(os.getenv("RXE_DEV"))
local gid = ctx:query_gid(1, T.gid_index)
local pd = ctx:alloc_pd()
local cq = ctx:create_cq(32)
local mr = pd:reg_mr(8192, "LOCAL_WRITE")
local srq = pd:create_srq{ max_wr = 16, max_sge = 1 }
local q = srq:query()
check(q.max_wr >= 16, "srq max_wr %d", q.max_wr); eq(q.srq_limit, 0, "srq_limit")

local a = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,
  cap = { max_send_wr = 8, max_recv_wr = 8, max_send_sge = 1, max_recv_sge = 1 } }
local b = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, srq = srq,
  cap = { max_send_wr = 8, max_send_sge = 1 } }
eq(b.srq, srq, "qp.srq")
eq(select(2, b:query()).srq, srq, "init_attr.srq")
for _, p in ipairs{ { a, b }, { b, a } } do
  p[1]:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }
  p[1]:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = p[2].qp_num, rq_psn = 0, max_dest_rd_atomic = 0,
    min_rnr_timer = 12, ah_attr = { is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = T.gid_index } } }
  p[1]:modify{ qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 0 }
end

-- Three receives in one ibv_post_srq_recv call
local list = {}
for i = 1, 3 do list[i] = { wr_id = 200 + i, sg_list = { { mr = mr, offset = 1024 * i, length = 256 } } } end
srq:post_recv(list)
srq:modify{ srq_limit = 2 }
eq(srq:query().srq_limit, 2, "srq_limit after modify")
-- An explicit mask is the one passed: MAX_WR alone leaves srq_limit as it is.
local ok_mask, e_mask = pcall(srq.modify, srq, { srq_limit = 1 }, "MAX_WR")
print("modify with mask MAX_WR only:", ok_mask, tostring(e_mask):match("^[^\n]*"))
T.check(not ok_mask and e_mask.errname == "EINVAL", "max_wr = 0 under mask MAX_WR: %s", tostring(e_mask))
-- the error's context: the mask as passed and the attributes as given (a known table, not just any)
local cm = type(e_mask) == "table" and e_mask.context or {}
T.check(type(cm.mask) == "table" and #cm.mask == 1 and cm.mask[1] == "MAX_WR", "err.context.mask: %s",
  tostring(cm.mask and table.concat(cm.mask, ",")))
T.check(type(cm.attr) == "table" and cm.attr.srq_limit == 1 and cm.attr.max_wr == nil, "err.context.attr: %s",
  tostring(cm.attr and cm.attr.srq_limit))
eq(srq:query().srq_limit, 2, "srq_limit untouched by a modify whose mask is MAX_WR")

for i = 1, 2 do
  mr:write(0, "msg" .. i)
  a:post_send{ wr_id = i, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 0, length = 4 } } }
end
local got = {}
for _, wc in ipairs(cq:wait(4, 5000)) do got[#got + 1] = wc end
eq(#got, 4, "2 sends + 2 receives")
local recvs = {}
for _, wc in ipairs(got) do
  eq(wc.status, "SUCCESS", "srq wc status")
  if wc.opcode == "RECV" then recvs[#recvs + 1] = wc end
end
eq(#recvs, 2, "two receives from the SRQ")
eq(recvs[1].wr_id, 201, "SRQ WRs consumed in order (1)"); eq(recvs[2].wr_id, 202, "SRQ WRs consumed in order (2)")
eq(recvs[1].qp_num, b.qp_num, "receive WC names the QP, not the SRQ")
eq(mr:read(1024, 4), "msg1", "srq data 1"); eq(mr:read(2048, 4), "msg2", "srq data 2")

-- One receive left, below srq_limit = 2: the SRQ_LIMIT_REACHED event
local ev = ctx:get_async_event(3000)
check(ev ~= nil, "no async event within 3 s")
eq(ev.event_type, "SRQ_LIMIT_REACHED", "async event type")
eq(ev.srq, srq, "async event names the srq")
eq(ctx:get_async_event(100), nil, "no further event")

-- The SRQ is in use by b
local e = T.raises("srq:destroy while b uses it", srq.destroy, srq)
check(tostring(e):find(("qp RC 0x%06x"):format(b.qp_num), 1, true), "srq destroy message: %s", tostring(e))
print("srq:destroy in use: " .. tostring(e))

a:destroy(); b:destroy(); srq:destroy(); mr:dereg(); cq:destroy(); pd:dealloc(); ctx:close()
T.done("verbs_srq")
