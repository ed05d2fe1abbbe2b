-- Issue 19 item 5: every object argument belongs to the context of the
-- object it is used with. The kernel resolves handle numbers per context:
-- c2:create_qp_ex{pd = pd1, ...} used to make a QP on c2's own PD and CQ
-- while verbsh recorded c1's, which then leaked or failed with EBUSY.
local R = dofile((arg[0]:gsub("[^/]*$", "")) .. "robust_lib.lua")
local PID = io.open("/proc/self/stat"):read("n")
-- What the kernel holds for this process: `rdma res show cq` / `qp` lines of our pid.
local function held(what)
  local n, p = 0, io.popen("rdma res show " .. what .. " 2>/dev/null")
  for line in p:lines() do if line:find(" pid " .. PID .. " ", 1, true) then n = n + 1 end end
  p:close()
  return n
end
local c1, pd1, cq1, caps = R.setup()
local cqs0, qps0 = held("cq"), held("qp")
local c2 = verbs.open(os.getenv("RXE_DEV"))
local pd2, cq2 = c2:alloc_pd(), c2:create_cq(8)
local ch1 = c1:create_comp_channel()

R.refused("c2:create_qp_ex{pd = pd1}", function()
  return c2:create_qp_ex{ pd = pd1, qp_type = "RC", send_cq = cq1, recv_cq = cq1, cap = caps } end,
  "bad argument #1 to 'create_qp_ex' (key 'pd': pd1 belongs to ctx1, not to ctx2:")
R.refused("c2:create_qp_ex{send_cq = cq1}", function()
  return c2:create_qp_ex{ pd = pd2, qp_type = "RC", send_cq = cq1, recv_cq = cq2, cap = caps } end,
  "key 'send_cq': cq1 belongs to ctx1, not to ctx2:")
R.refused("pd2:create_qp{recv_cq = cq1}", function()
  return pd2:create_qp{ qp_type = "RC", send_cq = cq2, recv_cq = cq1, cap = caps } end,
  "bad argument #1 to 'create_qp' (key 'recv_cq': cq1 belongs to ctx1, but pd2 belongs to ctx2:")
local srq1 = pd1:create_srq{ max_wr = 4, max_sge = 1 }
R.refused("pd2:create_qp{srq = srq1}", function()
  return pd2:create_qp{ qp_type = "RC", send_cq = cq2, recv_cq = cq2, srq = srq1, cap = caps } end,
  "key 'srq': srq1 belongs to ctx1, but pd2 belongs to ctx2:")
R.refused("c2:create_cq(4, {channel = ch1})", function() return c2:create_cq(4, { channel = ch1 }) end,
  "bad argument #2 to 'create_cq' (key 'channel': channel1 belongs to ctx1, not to ctx2:")
R.refused("c2:create_cq_ex{channel = ch1}", function() return c2:create_cq_ex{ cqe = 4, channel = ch1 } end,
  "key 'channel': channel1 belongs to ctx1, not to ctx2:")

-- The objects named inside a posted WR belong to the context of the QP or
-- SRQ too: an MR of c2 in an SGE used to be posted, and an AH of c2 in
-- ud.ah went out and completed LOC_QP_OP_ERR with the QP in ERR. The whole
-- post is refused before anything is posted, naming the key.
local gidx = tonumber(os.getenv("RXE_GID_INDEX"))
local mr1, mr2 = pd1:reg_mr(64, "LOCAL_WRITE"), pd2:reg_mr(64, "LOCAL_WRITE")
local rc1 = pd1:create_qp{ qp_type = "RC", send_cq = cq1, recv_cq = cq1, cap = caps }
rc1:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }
R.refused("rc1:post_recv{sg_list = {{mr = mr2}}}", function()
  return rc1:post_recv{ wr_id = 1, sg_list = { { mr = mr2, length = 8 } } } end,
  "bad argument #1 to 'post_recv' (key 'sg_list[1].mr': mr", " belongs to ctx2, but qp", " belongs to ctx1: ",
  "use a mr of ctx1)")
R.refused("rc1:post_recv of a list, mr2 in [2].sg_list[2]", function()
  return rc1:post_recv{ { wr_id = 2, sg_list = { { mr = mr1, length = 8 } } },
                        { wr_id = 3, sg_list = { { mr = mr1, length = 8 }, { mr = mr2, length = 8 } } } } end,
  "(key '[2].sg_list[2].mr': mr", " belongs to ctx2, but qp")
R.refused("rc1:post_send{sg_list = {{mr = mr2}}}", function()
  return rc1:post_send{ wr_id = 4, opcode = "SEND", sg_list = { { mr = mr2, length = 8 } } } end,
  "bad argument #1 to 'post_send' (key 'sg_list[1].mr': mr", " belongs to ctx2, but qp")
R.refused("srq1:post_recv{sg_list = {{mr = mr2}}}", function()
  return srq1:post_recv{ wr_id = 5, sg_list = { { mr = mr2 } } } end,
  "bad argument #1 to 'post_recv' (key 'sg_list[1].mr': mr", " belongs to ctx2, but srq1 belongs to ctx1:")
R.ok("rc1:post_recv{sg_list = {{mr = mr1}}}", function()
  return rc1:post_recv{ wr_id = 6, sg_list = { { mr = mr1, length = 8 } } } end)
rc1:modify{ qp_state = "ERR" }
local flushed = {}
for _, wc in ipairs(cq1:wait(1, 5000)) do flushed[#flushed + 1] = wc.wr_id end
os.execute("sleep 0.2")   -- any other receive is flushed by now
for _, wc in ipairs(cq1:poll(8)) do flushed[#flushed + 1] = wc.wr_id end
R.check(#flushed == 1 and flushed[1] == 6, "rc1 held receives %s, not only wr_id 6", table.concat(flushed, ","))
print("observed: receives rc1 held: wr_id " .. table.concat(flushed, ","))
rc1:destroy()

local ud1 = pd1:create_qp{ qp_type = "UD", send_cq = cq1, recv_cq = cq1, cap = caps }
ud1:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = 0x11 }
ud1:modify{ qp_state = "RTR" }
ud1:modify{ qp_state = "RTS", sq_psn = 0 }
local attr = { is_global = 1, port_num = 1, grh = { dgid = c1:query_gid(1, gidx), sgid_index = gidx, hop_limit = 1 } }
local ah1, ah2 = pd1:create_ah(attr), pd2:create_ah(attr)
local function ud(ah) return { ah = ah, remote_qpn = ud1.qp_num, remote_qkey = 0x11 } end
local function send(id, ah) return { wr_id = id, opcode = "SEND", sg_list = { { mr = mr1, length = 8 } }, ud = ud(ah) } end
R.refused("ud1:post_send{ud = {ah = ah2}}", function() return ud1:post_send(send(7, ah2)) end,
  "bad argument #1 to 'post_send' (key 'ud.ah': ah", " belongs to ctx2, but qp", "use a ah of ctx1)")
R.refused("ud1:post_send of a list, ah2 in [2].ud.ah", function() return ud1:post_send{ send(8, ah1), send(9, ah2) } end,
  "(key '[2].ud.ah': ah", " belongs to ctx2, but qp")
R.refused("ud1:post_send(verbs.send_wr{ud = {ah = ah2}})", function()
  return ud1:post_send(verbs.send_wr(send(10, ah2))) end,
  "bad argument #1 to 'post_send' (key 'ud.ah': ah", " belongs to ctx2, but qp")
R.refused("ud1:post_send(verbs.send_wr{..., {ud = {ah = ah2}}})", function()
  return ud1:post_send(verbs.send_wr{ send(11, ah1), send(12, ah2) }) end,
  "(key '[2].ud.ah': ah", " belongs to ctx2, but qp")
R.refused("ud1:post_send(verbs.send_wr{..., {sg_list = {.., {mr = mr2}}}})", function()
  local w = send(14, ah1)
  w.sg_list[2] = { mr = mr2, length = 8 }
  return ud1:post_send(verbs.send_wr{ send(13, ah1), w }) end,
  "(key '[2].sg_list[2].mr': mr", " belongs to ctx2, but qp")
local uwr = R.ok("ud1:post_send(send_wr with ah1, SIGNALED)", function()
  local w = verbs.send_wr(send(15, ah1))
  w.send_flags = "SIGNALED"
  ud1:post_send(w)
  return w
end)
local wcs = cq1:wait(1, 5000)
R.check(#wcs == 1 and wcs[1].status == "SUCCESS" and wcs[1].wr_id == 15, "ud1's send with ah1: %s", tostring(wcs[1]))
print("observed: ud1 after the refusals: " .. tostring(wcs[1]))

-- The extended QP API: wr_set_ud_addr's AH and wr_set_sge's MR.
local ux = c1:create_qp_ex{ pd = pd1, qp_type = "UD", send_cq = cq1, recv_cq = cq1, send_ops_flags = { "SEND" },
  cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }
ux:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = 0x11 }
ux:modify{ qp_state = "RTR" }
ux:modify{ qp_state = "RTS", sq_psn = 0 }
ux:wr_start()
ux:wr_send()
R.refused("ux:wr_set_ud_addr(ah2, ...)", function() return ux:wr_set_ud_addr(ah2, ud1.qp_num, 0x11) end,
  "bad argument #1 to 'wr_set_ud_addr' (ah", " belongs to ctx2, but qp", " belongs to ctx1: ")
R.refused("ux:wr_set_sge(mr2, 0, 8)", function() return ux:wr_set_sge(mr2, 0, 8) end,
  "bad argument #1 to 'wr_set_sge' (mr", " belongs to ctx2, but qp")
R.refused("ux:wr_set_sge_list{{mr = mr2}}", function() return ux:wr_set_sge_list{ { mr = mr2, length = 8 } } end,
  "bad argument #1 to 'wr_set_sge_list' (key 'sg_list[1].mr': mr", " belongs to ctx2, but qp")
ux:wr_set_ud_addr(ah1, ud1.qp_num, 0x11)
ux:wr_set_sge(mr1, 0, 8)
ux:wr_abort()
-- A window's bind: the window and the MR it opens onto belong to the QP's
-- context too, in a posted BIND_MW (keys of its bind_mw) and in qp:bind_mw
-- and wr_bind_mw (the window an argument, bind_info a table).
local rx = c1:create_qp_ex{ pd = pd1, qp_type = "RC", send_cq = cq1, recv_cq = cq1, send_ops_flags = { "SEND", "BIND_MW" },
  cap = caps }
local mrb1, mrb2 = pd1:reg_mr(64, { "LOCAL_WRITE", "MW_BIND" }), pd2:reg_mr(64, { "LOCAL_WRITE", "MW_BIND" })
local mw1, mw2, mw2t1 = pd1:alloc_mw("TYPE_2"), pd2:alloc_mw("TYPE_2"), pd2:alloc_mw("TYPE_1")
local function info(mr) return { mr = mr, addr = mr.addr, length = 64, mw_access_flags = "REMOTE_READ" } end
local function bind(mw, mr) return { opcode = "BIND_MW", bind_mw = { mw = mw, rkey = verbs.inc_rkey(mw.rkey), bind_info = info(mr) } } end
rx:wr_start()
R.refused("rx:wr_bind_mw(mw2, ...)", function() return rx:wr_bind_mw(mw2, verbs.inc_rkey(mw2.rkey), info(mrb1)) end,
  "bad argument #1 to 'wr_bind_mw' (mw", " belongs to ctx2, but qp", " belongs to ctx1: ")
R.refused("rx:wr_bind_mw(mw1, {mr = mrb2})", function() return rx:wr_bind_mw(mw1, verbs.inc_rkey(mw1.rkey), info(mrb2)) end,
  "bad argument #3 to 'wr_bind_mw' (key 'bind_info.mr': mr", " belongs to ctx2, but qp")
rx:wr_abort()
R.refused("rx:bind_mw(mw2t1, ...)", function() return rx:bind_mw(mw2t1, { bind_info = info(mrb1) }) end,
  "bad argument #1 to 'bind_mw' (mw", " belongs to ctx2, but qp")
R.refused("rx:post_send{BIND_MW, mw = mw2}", function() return rx:post_send(bind(mw2, mrb1)) end,
  "bad argument #1 to 'post_send' (key 'bind_mw.mw': mw", " belongs to ctx2, but qp")
R.refused("rx:post_send{BIND_MW, mr = mrb2}", function() return rx:post_send(bind(mw1, mrb2)) end,
  "bad argument #1 to 'post_send' (key 'bind_mw.bind_info.mr': mr", " belongs to ctx2, but qp")
R.refused("rx:post_send{SEND, {BIND_MW, mw = mw2}}", function() return rx:post_send{ { opcode = "SEND" }, bind(mw2, mrb1) } end,
  "bad argument #1 to 'post_send' (key '[2].bind_mw.mw': mw", " belongs to ctx2, but qp")
rx:destroy(); mw1:dealloc(); mw2:dealloc(); mw2t1:dealloc(); mrb1:dereg(); mrb2:dereg()
ux:destroy(); ud1:destroy(); ah1:destroy(); ah2:destroy()
uwr = nil
collectgarbage()
mr1:dereg(); mr2:dereg()

-- The same objects, each with its own context, work.
local qp2 = R.ok("c2:create_qp_ex, all from c2", function()
  return c2:create_qp_ex{ pd = pd2, qp_type = "RC", send_cq = cq2, recv_cq = cq2, cap = caps } end)

-- GC in any order never closes c2 under its live QP, nor leaks its CQ.
c2, pd2, cq2 = nil, nil, nil
collectgarbage(); collectgarbage()
qp2:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }
R.check(qp2.state == "INIT" and tostring(qp2.send_cq):find("^cq "), "qp2 after GC: %s", tostring(qp2))
print("observed: qp2 after its context, PD and CQ were collected: " .. tostring(qp2))
R.check(held("cq") == cqs0 + 1 and held("qp") == qps0 + 1, "kernel holds %d CQs, %d QPs", held("cq"), held("qp"))
qp2:destroy()
qp2 = nil
collectgarbage(); collectgarbage()
-- c2's CQ went with it: nothing leaked in the kernel.
R.check(held("cq") == cqs0 and held("qp") == qps0, "after GC the kernel holds %d CQs (%d before), %d QPs (%d)",
  held("cq"), cqs0, held("qp"), qps0)
print(("observed: kernel CQs of this process after GC: %d, as before c2"):format(held("cq")))
srq1:destroy()
print("robust_context: ok")
