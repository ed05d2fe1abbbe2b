-- The fast path on rxe: prepared WRs (verbs.send_wr / verbs.recv_wr) posted
-- again and again, and completions polled into a verbs.wc_array. Checked by
-- data, by WC fields, and by the errors that guard them.
local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/verbs_lib.lua")
local check, eq, raises = T.check, T.eq, T.raises

local ctx = verbs.open(os.getenv("RXE_DEV"))
local gid = ctx:query_gid(1, T.gid_index)
local pd = ctx:alloc_pd()
local cq_a, cq_b = ctx:create_cq(64), ctx:create_cq(64)
local ALL = { "LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ" }
local mr_a, mr_b = pd:reg_mr(4096, ALL), pd:reg_mr(4096, ALL)

local function rc_qp(cq)
  return pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,
    cap = { max_send_wr = 16, max_recv_wr = 16, max_send_sge = 2, max_recv_sge = 2 } }
end
local a, b = rc_qp(cq_a), rc_qp(cq_b)
for _, p in ipairs{ { a, b }, { b, a } } do
  local qp, peer = p[1], p[2]
  qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = { "REMOTE_WRITE", "REMOTE_READ" } }
  qp:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = peer.qp_num, rq_psn = 0,
             max_dest_rd_atomic = 1, min_rnr_timer = 12,
             ah_attr = { is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = T.gid_index, hop_limit = 1 } } }
  qp:modify{ qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1 }
end

-- One prepared pair, posted 100 times; wr_id changes each time, as in C.
local send = verbs.send_wr{ wr_id = 1, opcode = "SEND", send_flags = "SIGNALED",
                            sg_list = { { mr = mr_a, offset = 0, length = 8 } } }
local recv = verbs.recv_wr{ wr_id = 1000, sg_list = { { mr = mr_b, offset = 0, length = 64 } } }
eq(tostring(send), "send_wr SEND wr_id=1 (1 WR, 1 SGE)", "tostring(send_wr)")
eq(tostring(recv), "recv_wr wr_id=1000 (1 WR, 1 SGE)", "tostring(recv_wr)")
eq(send.opcode, "SEND", "send.opcode reads back")
eq(send.sg_list[1].length, 8, "send.sg_list[1].length reads back")
eq(send.sg_list[1].lkey, mr_a.lkey, "send.sg_list[1].lkey is the MR's")
eq(#send, 1, "#send")
local wc = verbs.wc_array(4)
eq(#wc, 4, "#wc_array")
for i = 1, 100 do
  mr_a:write(0, ("%08d"):format(i))
  send.wr_id, recv.wr_id = i, 1000 + i
  b:post_recv(recv)
  a:post_send(send)
  eq(cq_a:wait(wc, 1, 5000), 1, "send completions polled")
  if wc[1].status ~= "SUCCESS" or wc[1].wr_id ~= i or wc[1].opcode ~= "SEND" then
    error("FAILED: send " .. i .. ": " .. tostring(wc[1]))
  end
  eq(cq_b:wait(wc, 1, 5000), 1, "recv completions polled")
  if wc[1].status ~= "SUCCESS" or wc[1].wr_id ~= 1000 + i or wc[1].byte_len ~= 8 or wc[1].opcode ~= "RECV" then
    error("FAILED: recv " .. i .. ": " .. tostring(wc[1]))
  end
  eq(mr_b:read(0, 8), ("%08d"):format(i), "data of send " .. i)
end
eq(wc[1].qp_num, b.qp_num, "wc[1].qp_num")
eq(verbs.explain(wc[1]), tostring(wc[1]), "verbs.explain of a wc_array entry")
eq(verbs.explain(verbs.wc_array(1)[1]), "wc[1]: the last poll filled 0 entries (in C, wc[0] would hold stale data)",
  "verbs.explain of an entry no poll filled")

-- The loop's own form, cq:wait(wcs) with no count: one completion. And one
-- prepared pair posted in turn from a and from b: each post goes to the QP
-- it is given, not to the one its checks were last kept for.
local back = verbs.recv_wr{ wr_id = 3000, sg_list = { { mr = mr_a, offset = 512, length = 64 } } }
local send_b = verbs.send_wr{ wr_id = 4000, opcode = "SEND", send_flags = "SIGNALED",
                              sg_list = { { mr = mr_b, offset = 512, length = 8 } } }
for i = 1, 3 do
  b:post_recv(recv); a:post_recv(back)
  send.wr_id, send_b.wr_id = 2000 + i, 4000 + i
  a:post_send(send)
  eq(cq_a:wait(wc), 1, "cq:wait(wcs) of a's send " .. i)
  eq(wc[1].wr_id, 2000 + i, "a's send " .. i .. " completed on a's CQ")
  eq(cq_b:wait(wc, 1), 1, "cq:wait(wcs, 1) of b's receive " .. i)
  eq(wc[1].qp_num, b.qp_num, "b received send " .. i)
  b:post_send(send_b)
  eq(cq_b:wait(wc), 1, "cq:wait(wcs) of b's send " .. i)
  eq(wc[1].wr_id, 4000 + i, "b's send " .. i .. " completed on b's CQ")
  eq(cq_a:wait(wc), 1, "cq:wait(wcs) of a's receive " .. i)
  eq(wc[1].qp_num, a.qp_num, "a received b's send " .. i)
  eq(wc[1].wr_id, 3000, "a's prepared receive")
end
-- cq:wait(wcs, n) with n > 1 waits for n, even when its first poll finds one.
b:post_recv(recv); b:post_recv(recv)
a:post_send(send); a:post_send(send)
eq(cq_a:wait(wc, 2), 2, "cq:wait(wcs, 2): both sends")
eq(cq_b:wait(wc, 2), 2, "cq:wait(wcs, 2): both receives")
eq(wc[2].byte_len, 8, "the second receive")
-- A wait into a wc_array that its timeout cuts short says so, as the list form does.
b:post_recv(recv)
a:post_send(send)
local got, late = cq_a:wait(wc, 2, 300)
eq(got, 1, "cq:wait(wcs, 2, 300) with one completion")
eq(late, "timed out after 300 ms: 1 of 2 completions", "cq:wait(wcs, 2, 300)'s second value")
got, late = cq_b:wait(wc, 1, 2000)
eq(got, 1, "cq:wait(wcs, 1, 2000) of the receive"); eq(late, nil, "no second value when nothing was cut short")
-- The recv_wr checked for a posts to b when given b; an SRQ is not a QP,
-- even with a recv_wr whose checks were last kept for it.
local srq = pd:create_srq{ max_wr = 4, max_sge = 1 }
srq:post_recv(back)
e = raises("qp.post_recv given an SRQ", b.post_recv, srq, back)
check(tostring(e):find("qp expected", 1, true), "an SRQ as qp:post_recv's self: %s", tostring(e))
e = raises("qp.post_send given an SRQ", a.post_send, srq, send)
check(tostring(e):find("qp expected", 1, true), "an SRQ as qp:post_send's self: %s", tostring(e))
b:post_recv(back)
a:post_send(send)
eq(cq_a:wait(wc), 1, "a's send to the receive posted on b")
eq(cq_b:wait(wc), 1, "b's receive, from the recv_wr last checked for the SRQ")
eq(wc[1].wr_id, 3000, "the receive was b's")
srq:destroy()
check(tostring(wc[1]):find("RECV SUCCESS byte_len=8", 1, true), "tostring(wc[1]): %s", tostring(wc[1]))
local e = raises("wc[2] after a poll of 1", function() return wc[2].status end)
check(tostring(e):find("wc[2]: the last poll filled 1 entry", 1, true), "stale entry error: %s", tostring(e))
e = raises("wc[5]", function() return wc[5] end)
check(tostring(e):find("index 5 is outside 1..4", 1, true), "index error: %s", tostring(e))
e = raises("wc[1] =", function() wc[1] = 7 end)
check(tostring(e):find("not assigned", 1, true) or tostring(e):find("filled by cq:poll", 1, true),
  "assignment error: %s", tostring(e))
e = raises("wc[1].bogus", function() return wc[1].bogus end)
check(tostring(e):find("wc has no field 'bogus'", 1, true), "unknown field: %s", tostring(e))
e = raises("wc[1].byte_len =", function() wc[1].byte_len = 7 end)
check(tostring(e):find("wc[1].byte_len: the entries of a wc_array are filled by cq:poll", 1, true),
  "field assignment error: %s", tostring(e))
-- wcs[i].status is a plain field, for speed: Lua takes the assignment, and
-- the next poll or wait into the array refuses to go on (before it polls:
-- no completion is lost) and shows the poll's status again.
wc[1].status = "WR_FLUSH_ERR"
e = raises("cq:poll(wcs) after wcs[1].status was assigned", cq_a.poll, cq_a, wc)
check(tostring(e):find("wcs[1].status was assigned (WR_FLUSH_ERR) after the poll that filled it gave SUCCESS: "
  .. "a completion's fields are read-only", 1, true), "status assignment found by cq:poll: %s", tostring(e))
eq(wc[1].status, "SUCCESS", "the view shows the poll's status again")
eq(wc[1].wr_id, 3000, "and the entry is the one the last poll filled")
wc[1].status = nil
e = raises("cq:wait(wcs, 1, 10) after wcs[1].status = nil", cq_a.wait, cq_a, wc, 1, 10)
check(tostring(e):find("wcs[1].status was assigned (nil)", 1, true), "status assignment found by cq:wait: %s", tostring(e))
eq(wc[1].status, "SUCCESS", "the view shows the poll's status again after nil")
eq(cq_a:poll(wc), 0, "poll of an empty CQ returns 0")
-- The status the view showed (SUCCESS) is gone with the poll that filled nothing.
e = raises("wc[1].status after a poll of 0", function() return wc[1].status end)
check(tostring(e):find("wc[1]: the last poll filled 0 entries", 1, true), "stale after an empty poll: %s", tostring(e))
eq(tostring(wc[1]), "wc[1] (not filled by the last poll)", "tostring of an unfilled entry")

-- A chain of 3 prepared RDMA WRITEs, posted twice: 6 completions in one array.
local chain = {}
for i = 1, 3 do
  chain[i] = { wr_id = i, opcode = "RDMA_WRITE", send_flags = "SIGNALED",
               sg_list = { { mr = mr_a, offset = 0, length = 16 } },
               rdma = { remote_addr = mr_b.addr + 1024 + 16 * i, rkey = mr_b.rkey } }
end
local pchain = verbs.send_wr(chain)
eq(#pchain, 3, "#chain")
eq(pchain[2].wr_id, 2, "chain[2].wr_id")
eq(pchain[3].rdma.remote_addr, mr_b.addr + 1024 + 48, "chain[3].rdma.remote_addr")
mr_a:write(0, "0123456789abcdef")
a:post_send(pchain)
a:post_send(pchain)
local wc8 = verbs.wc_array(8)
eq(cq_a:wait(wc8, 6, 5000), 6, "6 completions of two posted chains")
for i = 1, 6 do
  eq(wc8[i].status, "SUCCESS", "chain wc status " .. i)
  eq(wc8[i].opcode, "RDMA_WRITE", "chain wc opcode " .. i)
  eq(wc8[i].wr_id, (i - 1) % 3 + 1, "chain wc wr_id " .. i)
end
for i = 1, 3 do eq(mr_b:read(1024 + 16 * i, 16), "0123456789abcdef", "written block " .. i) end
-- ipairs(wcs) walks the entries the last poll filled, and stops there (#wcs
-- is the array's size, as in C, and wcs[i] of the others their views).
local walked = {}
for i, entry in ipairs(wc8) do walked[i] = entry.wr_id; check(entry == wc8[i], "ipairs gives the views") end
eq(table.concat(walked, ","), "1,2,3,1,2,3", "ipairs(wcs) walks the 6 entries the poll filled")
eq(#wc8, 8, "#wcs is the array's size")
check(wc8[7] ~= nil and tostring(wc8[7]) == "wc[7] (not filled by the last poll)", "wcs[7], not filled, is its view")
eq(cq_a:poll(wc8), 0, "an empty poll into wc8")
walked = {}
for i in ipairs(wc8) do walked[i] = i end
eq(#walked, 0, "ipairs(wcs) after a poll that filled nothing")
a:post_send(pchain)
local wc2 = verbs.wc_array(2)
eq(cq_a:wait(wc2, 2, 5000), 2, "2 completions into a wc_array of 2")
walked = {}
local ok_all, err_all = pcall(function() for i, entry in ipairs(wc2) do walked[i] = entry.wr_id end end)
check(ok_all, "ipairs over a full wc_array stops at its end: %s", tostring(err_all))
eq(table.concat(walked, ","), "1,2", "ipairs over a full wc_array")
eq(cq_a:wait(wc2, 1, 5000), 1, "the chain's third")
walked = {}
for i, entry in ipairs(wc2) do walked[i] = entry.wr_id end
eq(table.concat(walked, ","), "3", "ipairs after a poll that filled fewer than the one before")

-- Settable fields, and fixed ones.
pchain.rdma = { remote_addr = mr_b.addr + 2048, rkey = mr_b.rkey }
eq(pchain.rdma.remote_addr, mr_b.addr + 2048, "rdma of the head reassigned")
e = raises("sg_list is fixed", function() send.sg_list = {} end)
check(tostring(e):find("'sg_list' of a prepared WR is fixed", 1, true), "fixed key: %s", tostring(e))
e = raises("opcode typo", function() send.opcode = "SNED" end)
check(tostring(e):find("SNED", 1, true), "bad opcode named: %s", tostring(e))

-- The same checks as post_send, at preparation.
e = raises("unknown key", verbs.send_wr, { opcod = "SEND" })
check(tostring(e):find("unknown key 'opcod'", 1, true), "unknown key: %s", tostring(e))
e = raises("opcode missing", verbs.send_wr, { wr_id = 1 })
check(tostring(e):find("key 'opcode' is required", 1, true), "opcode required: %s", tostring(e))
e = raises("sge beyond MR", verbs.recv_wr, { sg_list = { { mr = mr_b, offset = 4000, length = 200 } } })
check(tostring(e):find("beyond the MR", 1, true), "sge bounds: %s", tostring(e))
e = raises("recv_wr to post_send", a.post_send, a, recv)
check(tostring(e):find("verbs.send_wr expected", 1, true), "wrong kind: %s", tostring(e))

-- A post failure names the verb, the errno and the WR: a receive on a QP in RESET.
local r = rc_qp(cq_b)
e = raises("post_recv in RESET", r.post_recv, r, recv)
eq(e.verb, "ibv_post_recv", "failed verb")
eq(e.errname, "EINVAL", "errno of a receive in RESET")
eq(e.context.wr.wr_id, 1100, "the bad WR as a table in the error's context")
eq(e.context.qp_state, "RESET", "qp_state in the error's context")

-- Trace: a prepared post is recorded as the C call it is.
local lines = {}
verbs.trace(function(call, ret, decl) lines[#lines + 1] = (decl or "") .. "\n" .. call .. " = " .. ret end)
b:post_recv(recv)
verbs.trace(false)
local traced = table.concat(lines, "\n")
check(traced:find("ibv_post_recv(qp", 1, true) and traced:find("wr_id = 1100", 1, true),
  "trace of a prepared post: %s", traced)

-- An MR destroyed after preparing: an error at the next post, not a stale lkey.
local mr_c = pd:reg_mr(64, "LOCAL_WRITE")
local precv = verbs.recv_wr{ wr_id = 7, sg_list = { { mr = mr_c, length = 64 } } }
mr_c:dereg()
e = raises("post with a deregistered MR", b.post_recv, b, precv)
check(tostring(e):find("names mr%d+, which is destroyed"), "destroyed MR: %s", tostring(e))

-- A post checks a prepared WR once per QP, then trusts it until an object is
-- destroyed or finalized or the WR is assigned to: each of these changes,
-- made after the WR was posted (and its checks kept), is still seen.
local mr_d = pd:reg_mr(64, "LOCAL_WRITE")
local pr = verbs.recv_wr{ wr_id = 9, sg_list = { { mr = mr_d, length = 64 } } }
b:post_recv(pr); b:post_recv(pr)
mr_d:dereg()
e = raises("post after the MR was deregistered", b.post_recv, b, pr)
check(tostring(e):find("names mr%d+, which is destroyed since"), "MR destroyed after a post: %s", tostring(e))
local mr_f = pd:reg_mr(64, "LOCAL_WRITE")
local pf = verbs.recv_wr{ wr_id = 10, sg_list = { { mr = mr_f, length = 64 } } }
b:post_recv(pf)
getmetatable(mr_f).__gc(mr_f)
e = raises("post after the MR's __gc was called", b.post_recv, b, pf)
check(tostring(e):find("finalized", 1, true), "MR finalized after a post: %s", tostring(e))
local ud = pd:create_qp{ qp_type = "UD", send_cq = cq_a, recv_cq = cq_a,
  cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }
ud:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = 0x11 }
ud:modify{ qp_state = "RTR" }
ud:modify{ qp_state = "RTS", sq_psn = 0 }
local ah = pd:create_ah{ is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = T.gid_index, hop_limit = 1 } }
local pu = verbs.send_wr{ wr_id = 11, opcode = "SEND", sg_list = { { mr = mr_a, length = 8 } },
                          ud = { ah = ah, remote_qpn = ud.qp_num, remote_qkey = 0x11 } }
ud:post_send(pu)
e = raises("the same UD WR on an RC QP", a.post_send, a, pu)
check(tostring(e):find("key 'ud'", 1, true), "UD WR on RC: %s", tostring(e))
ah:destroy()
e = raises("post after the AH was destroyed", ud.post_send, ud, pu)
check(tostring(e):find("names ah%d+, which is destroyed since"), "AH destroyed after a post: %s", tostring(e))
local ah2 = pd:create_ah{ is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = T.gid_index, hop_limit = 1 } }
local pi = verbs.send_wr{ wr_id = 12, opcode = "SEND", sg_list = { { mr = mr_a, length = 8 } },
                          ud = { ah = ah2, remote_qpn = ud.qp_num, remote_qkey = 0x11 } }
ud:post_send(pi)
pi.rdma = { remote_addr = 0x1000, rkey = 1 }
e = raises("rdma assigned to a UD WR after a post", ud.post_send, ud, pi)
check(tostring(e):find("key 'rdma' on a UD QP", 1, true), "rdma on a UD WR after a post: %s", tostring(e))
ud:destroy(); ah2:destroy()

-- A status that changes under a view: after six SUCCESS entries, a QP in
-- ERR flushes the chain, and the views show WR_FLUSH_ERR for 1..3 and
-- nothing for 4..6.
-- The same through cq:wait(wcs), the loop's form: a view that showed
-- SUCCESS shows the flush of the next WR.
local write1 = verbs.send_wr{ wr_id = 77, opcode = "RDMA_WRITE", send_flags = "SIGNALED",
  sg_list = { { mr = mr_a, offset = 0, length = 8 } }, rdma = { remote_addr = mr_b.addr + 3072, rkey = mr_b.rkey } }
a:post_send(write1)
eq(cq_a:wait(wc), 1, "an RDMA WRITE completed")
eq(wc[1].status, "SUCCESS", "its status")
a:modify{ qp_state = "ERR" }
a:post_send(write1)
eq(cq_a:wait(wc), 1, "the same WR flushed")
eq(wc[1].status, "WR_FLUSH_ERR", "the view shows the flush")
eq(wc[1].wr_id, 77, "the flushed WR's wr_id")
a:post_send(pchain)
eq(cq_a:wait(wc8, 3, 5000), 3, "3 flushed completions")
for i = 1, 3 do
  eq(wc8[i].status, "WR_FLUSH_ERR", "flushed wc status " .. i)
  eq(wc8[i].wr_id, i, "flushed wc wr_id " .. i)
  eq(wc8[i].opcode, nil, "opcode of a failed completion is undefined (nil) " .. i)
end
e = raises("wc8[4] after a poll of 3", function() return wc8[4].status end)
check(tostring(e):find("wc[4]: the last poll filled 3 entries", 1, true), "stale wc8[4]: %s", tostring(e))

-- cq:wait and cq:poll remember the wc_array they met last: arrays taken in
-- turn, and one made after the remembered one was collected, are each the
-- one filled. b's four receives still posted (wr_id 1100, 9, 9, 10) flush.
b:modify{ qp_state = "ERR" }
local wc1, wc2 = verbs.wc_array(1), verbs.wc_array(1)
eq(cq_b:wait(wc1, 1, 5000), 1, "a flushed receive into wc1")
eq(cq_b:wait(wc2, 1, 5000), 1, "the next one into wc2")
eq(wc1[1].wr_id, 1100, "wc1 keeps its entry while wc2 is filled")
eq(wc2[1].wr_id, 9, "wc2's entry")
eq(cq_b:wait(wc1, 1, 5000), 1, "the next one into wc1 again")
eq(wc1[1].wr_id, 9, "wc1 refilled")
eq(wc1[1].status, "WR_FLUSH_ERR", "wc1's status view follows")
wc1, wc2 = nil, nil
collectgarbage(); collectgarbage()
local wc3 = verbs.wc_array(1)
eq(cq_b:poll(wc3), 1, "the last one into a new array")
eq(wc3[1].wr_id, 10, "wc3's entry")
eq(cq_b:poll(wc3), 0, "nothing left")
e = raises("wc3[1] after a poll of 0", function() return wc3[1].status end)
check(tostring(e):find("wc[1]: the last poll filled 0 entries", 1, true), "stale wc3[1]: %s", tostring(e))

-- A prepared WR has no QP when it is made: its first post to a QP checks
-- that its MRs belong to that QP's context, and a post to another QP
-- checks again (they used to be posted, whatever their context).
local ctx2 = verbs.open(os.getenv("RXE_DEV"))
local pd2, cq2 = ctx2:alloc_pd(), ctx2:create_cq(8)
local mr2 = pd2:reg_mr(4096, ALL)
local q2 = pd2:create_qp{ qp_type = "RC", send_cq = cq2, recv_cq = cq2,
  cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 2, max_recv_sge = 2 } }
q2:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }
local r2 = verbs.recv_wr{ wr_id = 77, sg_list = { { mr = mr2, length = 64 } } }
q2:post_recv(r2)   -- its own context: posted
e = raises("a recv_wr of ctx2's MR posted to a QP of ctx1", b.post_recv, b, r2)
check(tostring(e):find("bad argument #1 to 'post_recv' (key 'sg_list[1].mr': mr", 1, true)
  and tostring(e):find(" belongs to ctx2, but qp%d+ belongs to ctx1: "), "recv_wr of ctx2 to b: %s", tostring(e))
q2:post_recv(r2)   -- and again to q2: the checks follow the QP
local s2 = verbs.send_wr{ { wr_id = 78, opcode = "SEND", sg_list = { { mr = mr_a, length = 8 } } },
                          { wr_id = 79, opcode = "SEND", sg_list = { { mr = mr_a, length = 8 }, { mr = mr2, length = 8 } } } }
e = raises("a send_wr chain naming ctx2's MR in [2].sg_list[2] posted to a QP of ctx1", a.post_send, a, s2)
check(tostring(e):find("(key '[2].sg_list[2].mr': mr", 1, true) and tostring(e):find("belongs to ctx2", 1, true),
  "send_wr chain of ctx2's MR: %s", tostring(e))
e = raises("the same chain, posted again", a.post_send, a, s2)
check(tostring(e):find("(key '[2].sg_list[2].mr': mr", 1, true), "send_wr chain again: %s", tostring(e))
q2:modify{ qp_state = "ERR" }
local got = {}
for _, w in ipairs(cq2:wait(1, 5000)) do got[#got + 1] = w.wr_id end
os.execute("sleep 0.2")
for _, w in ipairs(cq2:poll(8)) do got[#got + 1] = w.wr_id end
eq(#got, 2, "q2 held the two receives posted to it")
q2:destroy()
r2, s2, q2, mr2, pd2, cq2, ctx2 = nil, nil, nil, nil, nil, nil, nil

-- GC: the prepared WRs keep their MRs; dropping everything is safe.
send, recv, pchain, precv, wc, wc8, wc3, chain = nil, nil, nil, nil, nil, nil, nil, nil
collectgarbage(); collectgarbage()
T.done("verbs_prepared")
