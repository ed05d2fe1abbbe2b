-- Every optional second return and every "nothing" that help documents, on
-- rxe: the exact number of values each call gives (table.pack(...).n), so a
-- stray second value, or a missing one, fails. Run by tests/device/oracle.bats.
local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/../lua/verbs_lib.lua")
local eq, check = T.eq, T.check
local pack = table.pack
local QKEY = 0x13572468

local ctx = verbs.open(os.getenv("RXE_DEV"))
local gid = ctx:query_gid(1, T.gid_index)
local pd = ctx:alloc_pd()
local cq_s, cq_r = ctx:create_cq(16), ctx:create_cq(16)
local mr = pd:reg_mr(4096, "LOCAL_WRITE")
local qp = pd:create_qp{ qp_type = "UD", send_cq = cq_s, recv_cq = cq_r,
  cap = { max_send_wr = 8, max_recv_wr = 8, max_send_sge = 1, max_recv_sge = 1 } }
qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = QKEY }
qp:modify{ qp_state = "RTR" }
qp:modify{ qp_state = "RTS", sq_psn = 0 }
local ah = pd:create_ah{ is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = T.gid_index, hop_limit = 1 } }

-- n datagrams to itself, wr_ids from first; each send and receive completes.
local function loop(n, first)
  for i = 0, n - 1 do
    qp:post_recv{ wr_id = first + i, sg_list = { { mr = mr, offset = 128 * i, length = 100 } } }
    qp:post_send{ wr_id = 1000 + first + i, opcode = "SEND", send_flags = "SIGNALED",
      sg_list = { { mr = mr, offset = 2048, length = 4 } }, ud = { ah = ah, remote_qpn = qp.qp_num, remote_qkey = QKEY } }
  end
  local s = pack(cq_s:wait(n, 5000))
  eq(s.n, 1, "cq:wait(n, ms) that got all n sends: one value")
  eq(#s[1], n, "sends")
end

-- cq:poll on an empty CQ: one value, an empty list; the wc_array form: 0
local r = pack(cq_r:poll())
eq(r.n, 1, "cq:poll() empty: one value"); eq(#r[1], 0, "cq:poll() empty: {}")
local wcs = verbs.wc_array(4)
r = pack(cq_r:poll(wcs))
eq(r.n, 1, "cq:poll(wcs) empty: one value"); eq(r[1], 0, "cq:poll(wcs) empty: 0")

-- cq:wait(n, ms): all n arrived -> the list alone; cut short -> and "timed out"
loop(2, 1)
r = pack(cq_r:wait(2, 2000))
eq(r.n, 1, "cq:wait(2, 2000) with 2 arrived: no second value"); eq(#r[1], 2, "two WCs")
eq(r[1][1].wr_id, 1, "first WC"); eq(r[1][2].wr_id, 2, "second WC")
loop(1, 3)
r = pack(cq_r:wait(2, 300))
eq(r.n, 2, "cq:wait(2, 300) with 1 arrived: a second value"); eq(#r[1], 1, "the one WC")
eq(r[2], "timed out after 300 ms: 1 of 2 completions", "the second value")
r = pack(cq_r:wait(1, 100))
eq(r.n, 2, "cq:wait(1, 100) with none: a second value"); eq(#r[1], 0, "no WC")
eq(r[2], "timed out after 100 ms: 0 of 1 completions", "the second value with none")
-- exactly n: the n-th arrival ends the wait with no second value
loop(3, 4)
r = pack(cq_r:wait(3, 2000))
eq(r.n, 1, "cq:wait(3, 2000) with exactly 3: no second value"); eq(#r[1], 3, "three WCs")

-- the wc_array form: the count alone, or the count and "timed out"
loop(2, 7)
r = pack(cq_r:wait(wcs, 2, 2000))
eq(r.n, 1, "cq:wait(wcs, 2, 2000) with 2 arrived: the count alone"); eq(r[1], 2, "count 2")
eq(wcs[1].wr_id, 7, "wcs[1]"); eq(wcs[2].wr_id, 8, "wcs[2]")
loop(1, 9)
r = pack(cq_r:wait(wcs, 2, 300))
eq(r.n, 2, "cq:wait(wcs, 2, 300) with 1 arrived: a second value"); eq(r[1], 1, "count 1")
eq(r[2], "timed out after 300 ms: 1 of 2 completions", "the wc_array form's second value")
eq(wcs[1].wr_id, 9, "wcs[1] after the short wait")

-- Completions a lesson's check holds (the registry table lua/lesson_kit.lua
-- fills) are handed back first, in order, once: never a second time.
loop(3, 10)
local got = cq_r:wait(3, 2000)
eq(#got, 3, "three WCs to hold")
debug.getregistry()["verbsh.cq_held"] = setmetatable({ [cq_r] = { got[1], got[2], got[3] } }, { __mode = "k" })
r = pack(cq_r:poll(2))
eq(r.n, 1, "poll of held WCs: one value"); eq(#r[1], 2, "poll(2) takes two held")
check(rawequal(r[1][1], got[1]) and rawequal(r[1][2], got[2]), "the first two held, in order")
r = cq_r:wait(1, 2000)
eq(#r, 1, "wait(1) takes the third held"); check(rawequal(r[1], got[3]), "the third held")
r = pack(cq_r:poll())
eq(#r[1], 0, "held WCs are not handed back twice: poll() after all three is empty")
r = pack(cq_r:wait(1, 100))
eq(#r[1], 0, "nor by wait"); eq(r.n, 2, "wait(1, 100) after the held: timed out")
loop(1, 13)
debug.getregistry()["verbsh.cq_held"][cq_r] = { got[1] }
r = cq_r:wait(2, 2000)
eq(#r, 2, "one held and one new"); check(rawequal(r[1], got[1]), "held first"); eq(r[2].wr_id, 13, "then the new")
eq(#cq_r:poll(), 0, "neither comes back")
debug.getregistry()["verbsh.cq_held"] = nil

-- qp:query(): attr and init_attr, two values
r = pack(qp:query())
eq(r.n, 2, "qp:query(): two values"); eq(r[1].qkey, QKEY, "attr"); eq(r[2].qp_type, "UD", "init_attr")

-- Nothing at the timeout: nil (one value)
local ch = ctx:create_comp_channel()
local ncq = ctx:create_cq(4, { channel = ch })
r = pack(ch:get_cq_event(50))
eq(r.n, 1, "get_cq_event timeout: one value"); eq(r[1], nil, "get_cq_event timeout: nil")
r = pack(ctx:get_async_event(50))
eq(r.n, 1, "get_async_event timeout: one value"); eq(r[1], nil, "get_async_event timeout: nil")
r = pack(verbs.wait_fds({ ch }, 50))
eq(r.n, 1, "wait_fds timeout: one value"); eq(type(r[1]), "table", "wait_fds: a table"); eq(#r[1], 0, "empty")
local cm = verbs.create_event_channel()
r = pack(cm:get_cm_event(0))
eq(r.n, 1, "get_cm_event(0): one value"); eq(r[1], nil, "get_cm_event(0): nil")
r = pack(cm:get_cm_event(50))
eq(r.n, 1, "get_cm_event(50): one value"); eq(r[1], nil, "get_cm_event(50): nil")
-- id:init_qp_attr: the attr and the mask, two values
local id = cm:create_id("TCP")
id:resolve_addr(nil, os.getenv("RXE_ADDR") .. ":7499", 2000)
cm:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()
r = pack(id:init_qp_attr("INIT"))
eq(r.n, 2, "init_qp_attr: two values"); eq(r[1].qp_state, "INIT", "attr")
eq(table.concat(r[2], ","), "STATE,ACCESS_FLAGS,PKEY_INDEX,PORT", "mask")
id:destroy(); cm:destroy(); ncq:destroy(); ch:destroy()

-- The extended CQ: start_poll false on empty, next_poll false at the end
local ce = ctx:create_cq_ex{ cqe = 8, wc_flags = { "BYTE_LEN" } }
r = pack(ce:start_poll())
eq(r.n, 1, "start_poll empty: one value"); eq(r[1], false, "start_poll empty: false")
local xq = pd:create_qp{ qp_type = "UD", send_cq = ce, recv_cq = ce,
  cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 } }
xq:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = QKEY }
xq:modify{ qp_state = "RTR" }; xq:modify{ qp_state = "RTS", sq_psn = 0 }
xq:post_send{ wr_id = 77, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 0, length = 3 } },
  ud = { ah = ah, remote_qpn = qp.qp_num, remote_qkey = QKEY } }
local t0 = verbs.now()
repeat r = pack(ce:start_poll()) until r[1] or verbs.now() - t0 > 5
eq(r.n, 1, "start_poll with a completion: one value"); eq(r[1], true, "start_poll: true"); eq(ce.wr_id, 77, "current")
r = pack(ce:next_poll())
eq(r.n, 1, "next_poll at the end: one value"); eq(r[1], false, "next_poll at the end: false")
ce:end_poll()
r = pack(ce:start_poll())
eq(r[1], false, "the one completion is consumed, not handed out again")
xq:destroy(); ce:destroy()

ah:destroy(); qp:destroy(); mr:dereg(); cq_s:destroy(); cq_r:destroy(); pd:dealloc(); ctx:close()
T.done("returns")
