-- The extended verbs on rxe: RC QPs from ctx:create_qp_ex posting through
-- the wr_* builder (SEND, SEND_WITH_IMM, RDMA WRITE, RDMA READ, CAS, FAA),
-- UD with wr_set_ud_addr, and every completion read through an extended CQ
-- (start_poll / next_poll / end_poll and the read_* accessors); then the
-- misuse cases, each a clear error and no crash or hang.
local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/verbs_lib.lua")
local check, eq, raises = T.check, T.eq, T.raises

local ctx = verbs.open(os.getenv("RXE_DEV"))
local gid = ctx:query_gid(1, T.gid_index)
local pd = ctx:alloc_pd()
local ALL = { "LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC" }
local mr_a, mr_b = pd:reg_mr(4096, ALL), pd:reg_mr(4096, ALL)
local FLAGS = { "BYTE_LEN", "IMM", "QP_NUM", "SRC_QP" }
local cq_a = ctx:create_cq_ex{ cqe = 16, wc_flags = FLAGS }
local cq_b = ctx:create_cq_ex{ cqe = 16, wc_flags = FLAGS }
check(tostring(cq_a):match("^cq cqe %d+"), "cq_ex tostring %s", tostring(cq_a))
eq(table.concat(cq_a.wc_flags, ","), "BYTE_LEN,IMM,QP_NUM,SRC_QP", "cq.wc_flags")

local OPS = { "SEND", "SEND_WITH_IMM", "RDMA_WRITE", "RDMA_READ", "ATOMIC_CMP_AND_SWP", "ATOMIC_FETCH_AND_ADD" }
local function rc_qp(cq)
  return ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq, send_ops_flags = OPS,
    cap = { max_send_wr = 8, max_recv_wr = 8, max_send_sge = 2, max_recv_sge = 2, max_inline_data = 64 } }
end
local a, b = rc_qp(cq_a), rc_qp(cq_b)
eq(a.state, "RESET", "create_qp_ex state"); eq(a.qp_type, "RC", "create_qp_ex qp_type")
eq(a.pd, pd, "qp.pd"); eq(a.send_cq, cq_a, "qp.send_cq")
for _, p in ipairs{ { a, b }, { b, a } } do
  local qp, peer = p[1], p[2]
  qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1,
             qp_access_flags = { "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC" } }
  qp:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = peer.qp_num, rq_psn = 0,
             max_dest_rd_atomic = 1, min_rnr_timer = 12,
             ah_attr = { is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = T.gid_index, hop_limit = 1 } } }
  qp:modify{ qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1 }
end
eq(a.state, "RTS", "connected")

-- One completion through the extended CQ's accessors, as a table of what was read.
local function one(cq, what)
  local t0 = verbs.now()
  while not cq:start_poll() do
    if verbs.now() - t0 > 5 then error("FAILED: " .. what .. ": no completion within 5 s", 2) end
  end
  local wc = { wr_id = cq.wr_id, status = cq.status, qp_num = cq:read_qp_num() }
  if wc.status == "SUCCESS" then
    wc.opcode, wc.byte_len, wc.wc_flags = cq:read_opcode(), cq:read_byte_len(), cq:read_wc_flags()
    for _, f in ipairs(wc.wc_flags) do if f == "WITH_IMM" then wc.imm_data = cq:read_imm_data() end end
  end
  eq(cq:next_poll(), false, what .. ": one completion only")
  cq:end_poll()
  return wc
end

-- SEND: wr_id and wr_flags set on the QP, as on C's qpx
mr_a:write(0, "hello")
b:post_recv{ wr_id = 100, sg_list = { { mr = mr_b, offset = 0, length = 64 } } }
a:wr_start()
a.wr_id = 1
a.wr_flags = "SIGNALED"
eq(a.wr_id, 1, "qp.wr_id reads back"); eq(a.wr_flags[1], "SIGNALED", "qp.wr_flags reads back")
a:wr_send()
a:wr_set_sge(mr_a, 0, 5)
a:wr_complete()
local s, r = one(cq_a, "SEND"), one(cq_b, "RECV")
eq(s.status, "SUCCESS", "send status"); eq(s.opcode, "SEND", "send opcode"); eq(s.wr_id, 1, "send wr_id")
eq(s.qp_num, a.qp_num, "send read_qp_num")
eq(r.opcode, "RECV", "recv opcode"); eq(r.wr_id, 100, "recv wr_id"); eq(r.byte_len, 5, "recv read_byte_len")
eq(mr_b:read(0, 5), "hello", "SEND payload")
print(("SEND: wr_id=%d %s %s; RECV: wr_id=%d byte_len=%d"):format(s.wr_id, s.opcode, s.status, r.wr_id, r.byte_len))

-- SEND_WITH_IMM, with inline data
b:post_recv{ wr_id = 101, sg_list = { { mr = mr_b, offset = 64, length = 64 } } }
a:wr_start(); a.wr_id = 2; a.wr_flags = { "SIGNALED", "INLINE" }
a:wr_send_imm(0x1234)
a:wr_set_inline_data("inline!")
a:wr_complete()
s, r = one(cq_a, "SEND_WITH_IMM"), one(cq_b, "RECV imm")
eq(s.status, "SUCCESS", "send imm status"); eq(r.imm_data, 0x1234, "read_imm_data in host order")
eq(r.byte_len, 7, "imm byte_len"); eq(mr_b:read(64, 7), "inline!", "inline payload")
check(r.wc_flags[#r.wc_flags] == "WITH_IMM", "read_wc_flags %s", table.concat(r.wc_flags, ","))

-- RDMA WRITE and RDMA READ in one session (two WRs, one doorbell)
mr_a:write(256, "written by RDMA")
mr_b:write(2048, "read me back")
a:wr_start()
a.wr_id = 3; a.wr_flags = "SIGNALED"
a:wr_rdma_write(mr_b.rkey, mr_b.addr + 512)
a:wr_set_sge(mr_a, 256, 15)
a.wr_id = 4
a:wr_rdma_read(mr_b.rkey, mr_b.addr + 2048)
a:wr_set_sge_list{ { mr = mr_a, offset = 2048, length = 6 }, { addr = mr_a.addr + 2054, length = 6, lkey = mr_a.lkey } }
a:wr_complete()
-- both completions in one poll: start_poll, next_poll (true), next_poll (false), end_poll
t0 = verbs.now()
while not cq_a:start_poll() do assert(verbs.now() - t0 < 5, "RDMA WRITE never completed") end
s = { wr_id = cq_a.wr_id, opcode = cq_a:read_opcode(), status = cq_a.status }
while not cq_a:next_poll() do   -- the READ may come a little later: end, and poll again
  cq_a:end_poll()
  t0 = verbs.now()
  while not cq_a:start_poll() do assert(verbs.now() - t0 < 5, "RDMA READ never completed") end
  break
end
r = { wr_id = cq_a.wr_id, opcode = cq_a:read_opcode(), byte_len = cq_a:read_byte_len() }
eq(cq_a:next_poll(), false, "two completions only")
cq_a:end_poll()
eq(s.opcode, "RDMA_WRITE", "write opcode"); eq(s.wr_id, 3, "write wr_id")
eq(r.opcode, "RDMA_READ", "read opcode"); eq(r.wr_id, 4, "read wr_id"); eq(r.byte_len, 12, "read byte_len")
eq(mr_b:read(512, 15), "written by RDMA", "RDMA WRITE data")
eq(mr_a:read(2048, 12), "read me back", "RDMA READ data (two SGEs)")
eq(#cq_b:poll(), 0, "RDMA ops consume no receive")

-- Atomics: FAA then CAS won and lost, read through the iterator
mr_b:write(3072, string.pack("=I8", 41))
a:wr_start(); a.wr_flags = "SIGNALED"
a.wr_id = 5; a:wr_atomic_fetch_add(mr_b.rkey, mr_b.addr + 3072, 1); a:wr_set_sge(mr_a, 3072, 8)
a.wr_id = 6; a:wr_atomic_cmp_swp(mr_b.rkey, mr_b.addr + 3072, 42, 7); a:wr_set_sge(mr_a, 3080, 8)
a.wr_id = 7; a:wr_atomic_cmp_swp(mr_b.rkey, mr_b.addr + 3072, 1000, 99); a:wr_set_sge(mr_a, 3088, 8)
a:wr_complete()
local got, t0 = {}, verbs.now()
while #got < 3 and verbs.now() - t0 < 5 do
  for wc in cq_a:iter() do got[#got + 1] = wc end
end
eq(#got, 3, "three atomic completions through cq:iter()")
eq(got[1].opcode, "FETCH_ADD", "iter opcode 1"); eq(got[2].opcode, "COMP_SWAP", "iter opcode 2")
eq(got[3].wr_id, 7, "iter wr_id 3"); eq(got[1].byte_len, 8, "iter byte_len")
eq(got[1].qp_num, a.qp_num, "iter qp_num"); eq(got[1].pkey_index, nil, "iter: no field that was not asked for")
check(getmetatable(got[1]) == getmetatable(cq_b:poll(1)[1] or got[1]), "iter tables are WC tables")
eq(string.unpack("=I8", mr_a:read(3072, 8)), 41, "FAA old value")
eq(string.unpack("=I8", mr_a:read(3080, 8)), 42, "CAS won: old value")
eq(string.unpack("=I8", mr_a:read(3088, 8)), 7, "CAS lost: current value")
eq(string.unpack("=I8", mr_b:read(3072, 8)), 7, "remote word after FAA and CAS")
print("atomics: " .. tostring(got[1]))

-- An iterator left by break ends the poll: the next start_poll works.
mr_a:write(0, "x")
a:wr_start(); a.wr_flags = "SIGNALED"
for i = 1, 2 do a.wr_id = 10 + i; a:wr_rdma_write(mr_b.rkey, mr_b.addr); a:wr_set_sge(mr_a, 0, 1) end
a:wr_complete()
T.wc(cq_a, "settle", 5000)   -- cq:poll works on an extended CQ too (takes the first)
t0 = verbs.now()
while not cq_a:start_poll() do assert(verbs.now() - t0 < 5, "second write never completed") end
cq_a:end_poll()
for wc in cq_a:iter() do eq(wc.wr_id, 12, "iter after end_poll without next") break end
eq(cq_a:start_poll(), false, "the CQ is empty and not locked after a break out of iter")

-- UD: wr_set_ud_addr
local QKEY = 0x11111111
local function ud_qp(cq)
  local qp = ctx:create_qp_ex{ pd = pd, qp_type = "UD", send_cq = cq, recv_cq = cq,
    send_ops_flags = { "SEND", "SEND_WITH_IMM" },
    cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }
  qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = QKEY }
  qp:modify{ qp_state = "RTR" }
  qp:modify{ qp_state = "RTS", sq_psn = 0 }
  return qp
end
local ua, ub = ud_qp(cq_a), ud_qp(cq_b)
local ah = pd:create_ah{ is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = T.gid_index, hop_limit = 1 } }
mr_a:write(0, "ud hello!")
ub:post_recv{ wr_id = 50, sg_list = { { mr = mr_b, offset = 1024, length = 40 + 64 } } }
ua:wr_start(); ua.wr_id = 51; ua.wr_flags = "SIGNALED"
ua:wr_send()
local no_addr = raises("UD complete without address", ua.wr_complete, ua)
check(tostring(no_addr):find("wr_complete: WR #1 (SEND) has no destination: on a UD QP every WR needs "
  .. "qp:wr_set_ud_addr(ah, remote_qpn, remote_qkey) after its op", 1, true), "UD without address: %s", tostring(no_addr))
ua:wr_set_ud_addr(ah, ub.qp_num, QKEY)
ua:wr_set_sge(mr_a, 0, 9)
ua:wr_complete()
s, r = one(cq_a, "UD SEND"), one(cq_b, "UD RECV")
eq(s.status, "SUCCESS", "UD send status"); eq(s.wr_id, 51, "UD send wr_id")
eq(r.byte_len, 49, "UD byte_len = 9 + 40 (GRH)"); eq(r.wr_id, 50, "UD recv wr_id")
eq(mr_b:read(1024 + 40, 9), "ud hello!", "UD payload at offset 40")
cq_b:start_poll() -- empty: false, and no end_poll allowed
print(("UD: SEND wr_id=%d, RECV byte_len=%d"):format(s.wr_id, r.byte_len))

-- ---- misuse: clear errors, no crash, no hang ---------------------------------
local function err(what, want, fn, ...)
  local e = tostring(raises(what, fn, ...))
  check(e:find(want, 1, true), "%s: error %q lacks %q", what, e, want)
  return e
end
err("op outside a session", "no WR session is open: call qp:wr_start() first", a.wr_send, a)
err("setter outside a session", "no WR session is open", a.wr_set_sge, a, mr_a, 0, 8)
err("complete without start", "wr_complete: no WR session is open", a.wr_complete, a)
err("abort without start", "wr_abort: no WR session is open", a.wr_abort, a)
a:wr_start()
err("start twice", "wr_start: a session is already open", a.wr_start, a)
err("setter before any op", "no WR to set: call an op first", a.wr_set_sge, a, mr_a, 0, 8)
err("post_send inside a session", "post_send: a wr_start() session is open", a.post_send, a,
  { opcode = "SEND", sg_list = {} })
a:wr_send()
err("atomic without an SGE", "has no local buffer", function() a:wr_atomic_fetch_add(mr_b.rkey, mr_b.addr, 1); a:wr_complete() end)
err("atomic SGE not 8 bytes", "an atomic's SGE is 8 bytes", a.wr_set_sge, a, mr_a, 0, 4)
a:wr_set_sge(mr_a, 0, 8)
err("misaligned atomic", "not 8-byte aligned", a.wr_atomic_cmp_swp, a, mr_b.rkey, mr_b.addr + 4, 0, 1)
err("UD address on RC", "wr_set_ud_addr: this is a RC QP", a.wr_set_ud_addr, a, ah, 1, 1)
err("SGE beyond the MR", "is beyond the MR's 4096 bytes", a.wr_set_sge, a, mr_a, 4000, 200)
err("bad rkey type", "rkey: integer expected, got string", a.wr_rdma_write, a, "x", 0)
local was = verbs.strict(true)   -- the warning, as an error
err("inline list on rxe", "rxe's provider sends none of an inline data list", a.wr_set_inline_data_list, a, { "ab", "cd" })
verbs.strict(was)
a:wr_abort()
eq(#cq_a:poll(), 0, "an aborted session posts nothing")
local ro = ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq_a, recv_cq = cq_a, send_ops_flags = "SEND",
  cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
ro:wr_start()
err("op not enabled", "RDMA_WRITE is not in this QP's send_ops_flags (IBV_QP_EX_WITH_SEND)", ro.wr_rdma_write, ro, 1, 0)
ro:destroy()   -- with a session open: aborted first, no hang
local plain = pd:create_qp{ qp_type = "RC", send_cq = cq_a, recv_cq = cq_a,
  cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
err("builder on a plain QP", "this QP has no new post-send API", plain.wr_start, plain)
err("wr_id on a plain QP", "this QP has no new post-send API", function() plain.wr_id = 1 end)
err("unknown settable field", "qp has no settable field 'wr_idd'", function() a.wr_idd = 1 end)
err("qp_ex without pd", "key 'pd' is required", ctx.create_qp_ex, ctx, { qp_type = "RC", send_cq = cq_a, recv_cq = cq_a })
err("unknown send op", "'WRITE' is not a name of ibv_qp_create_send_ops_flags", ctx.create_qp_ex, ctx,
  { pd = pd, qp_type = "RC", send_cq = cq_a, recv_cq = cq_a, send_ops_flags = "WRITE" })
local e = raises("UD with RDMA_WRITE", ctx.create_qp_ex, ctx, { pd = pd, qp_type = "UD", send_cq = cq_a,
  recv_cq = cq_a, send_ops_flags = { "SEND", "RDMA_WRITE" }, cap = { max_send_wr = 1, max_recv_wr = 1 } })
eq(e.verb, "ibv_create_qp_ex", "UD RDMA_WRITE verb"); eq(e.errname, "EOPNOTSUPP", "UD RDMA_WRITE errno")
check(tostring(e):find("UD", 1, true), "explained: %s", tostring(e))

-- the extended CQ's rules
-- (each poll verb takes no argument: an extra one is named, not ignored)
for _, v in ipairs { "start_poll", "next_poll", "end_poll", "iter" } do
  err(v .. " with an argument", ("(cq:%s() takes no arguments, got 1 (the first: a number))"):format(v), cq_a[v], cq_a, 5)
end
err("end_poll after ENOENT", "end_poll: no poll is open", cq_a.end_poll, cq_a)
err("next_poll without start", "next_poll: no poll is open", cq_a.next_poll, cq_a)
err("accessor without a completion", "read_byte_len: no current completion", cq_a.read_byte_len, cq_a)
err("cq.status without a completion", "cq.status: no current completion", function() return cq_a.status end)
-- cq:iter(): the loop owns its poll: ending it inside the loop (cq:end_poll) is an
-- error at the loop's next step, not an ibv_next_poll on a poll nobody
-- holds (which gave stale completions); so is a second poll in the loop.
local function writes(n, id)   -- n signaled writes, all in cq_a
  a:wr_start(); a.wr_flags = "SIGNALED"
  for i = 1, n do a.wr_id = id + i; a:wr_rdma_write(mr_b.rkey, mr_b.addr); a:wr_set_sge(mr_a, 0, 1) end
  a:wr_complete()
  local t1 = verbs.now()
  while verbs.now() - t1 < 0.3 do end   -- rxe completes them in microseconds (a peek would consume one)
end
local function empty(what)
  cq_a:poll(16)
  eq(cq_a:start_poll(), false, what .. ": the CQ is empty and not locked")
end
local steps = 0
writes(1, 20)
e = raises("end_poll inside cq:iter()", function()
  for _ in cq_a:iter() do steps = steps + 1; cq_a:end_poll() end
end)
eq(steps, 1, "no step after cq:end_poll() inside the loop")
check(tostring(e):find("cq:end_poll() was called inside the for wc in cq:iter() loop", 1, true)
  and tostring(e):find("break out of the loop instead (the loop ends its poll itself)", 1, true),
  "end_poll inside the loop: %s", tostring(e))
empty("after end_poll inside the loop")
steps = 0
writes(2, 30)
e = raises("end_poll and start_poll inside cq:iter()", function()
  for _ in cq_a:iter() do steps = steps + 1; cq_a:end_poll(); eq(cq_a:start_poll(), true, "a poll of its own") end
end)
eq(steps, 1, "no step after end_poll and start_poll inside the loop")
check(tostring(e):find("cq:end_poll() was called inside the for wc in cq:iter() loop", 1, true)
  and tostring(e):find("the poll open now is another one, from cq:start_poll()", 1, true),
  "end_poll and start_poll inside the loop: %s", tostring(e))
eq(cq_a.wr_id, 32, "the poll the body opened is left to it")
cq_a:end_poll()
empty("after end_poll and start_poll inside the loop")
writes(1, 40)
err("start_poll inside cq:iter()", "start_poll: a for wc in cq:iter() loop has a poll open on this CQ",
  function() for _ in cq_a:iter() do cq_a:start_poll() end end)
empty("after start_poll inside the loop")
writes(1, 45)
err("cq:poll inside cq:iter()", "poll: a for wc in cq:iter() loop is polling this CQ",
  function() for _ in cq_a:iter() do cq_a:poll() end end)
empty("after poll inside the loop")
writes(1, 50)
steps = 0
for _ in cq_a:iter() do steps = steps + 1; eq(cq_a:next_poll(), false, "next_poll in the loop: nothing more") end
eq(steps, 1, "a next_poll that returned false in the loop's body ends the loop")
empty("after next_poll inside the loop")
-- A CQ that asked for no optional field: a UD QP's send completions land there.
local cq_n = ctx:create_cq_ex{ cqe = 4, wc_flags = {} }
local un = ctx:create_qp_ex{ pd = pd, qp_type = "UD", send_cq = cq_n, recv_cq = cq_n, send_ops_flags = "SEND",
  cap = { max_send_wr = 2, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
e = raises("wr_complete on a RESET QP", function() un:wr_start(); un:wr_send(); un:wr_set_ud_addr(ah, ub.qp_num, QKEY); un:wr_complete() end)
eq(e.verb, "ibv_wr_complete", "RESET complete verb"); eq(e.errname, "EINVAL", "RESET complete errno")
check(tostring(e):find("RESET", 1, true), "RESET complete explained: %s", tostring(e))
un:destroy()
un = ctx:create_qp_ex{ pd = pd, qp_type = "UD", send_cq = cq_n, recv_cq = cq_n, send_ops_flags = "SEND",
  cap = { max_send_wr = 2, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
un:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = QKEY }
un:modify{ qp_state = "RTR" }
un:modify{ qp_state = "RTS", sq_psn = 0 }
un:wr_start(); un.wr_id = 77; un.wr_flags = "SIGNALED"
un:wr_send(); un:wr_set_ud_addr(ah, ub.qp_num, QKEY); un:wr_set_sge(mr_a, 0, 1)
un:wr_complete()
t0 = verbs.now()
while not cq_n:start_poll() do assert(verbs.now() - t0 < 5, "UD send on cq_n never completed") end
eq(cq_n.wr_id, 77, "cq_n wr_id"); eq(cq_n.status, "SUCCESS", "cq_n status"); eq(cq_n:read_opcode(), "SEND", "cq_n opcode")
err("accessor not requested", "this CQ was created without BYTE_LEN in wc_flags", cq_n.read_byte_len, cq_n)
err("qp_num not requested", "without QP_NUM in wc_flags", cq_n.read_qp_num, cq_n)
err("cq:poll inside a poll", "poll: a start_poll() is open on this CQ", cq_n.poll, cq_n)
err("cq:wait inside a poll", "wait: a start_poll() is open on this CQ", cq_n.wait, cq_n, 1, 10)
err("start_poll twice", "start_poll: a poll is already open", cq_n.start_poll, cq_n)
err("iter inside a poll", "iter: a start_poll() is open on this CQ", cq_n.iter, cq_n)
cq_n:end_poll()
-- A failed completion: after ERR, the send is flushed.
un:modify{ qp_state = "ERR" }
un:wr_start(); un.wr_id = 78; un:wr_send(); un:wr_set_ud_addr(ah, ub.qp_num, QKEY); un:wr_complete()
t0 = verbs.now()
while not cq_n:start_poll() do assert(verbs.now() - t0 < 5, "flushed send never completed") end
eq(cq_n.wr_id, 78, "flushed wr_id"); eq(cq_n.status, "WR_FLUSH_ERR", "flushed status")
err("opcode of a failed completion", "only wr_id, status, vendor_err and qp_num are valid", cq_n.read_opcode, cq_n)
check(type(cq_n:read_vendor_err()) == "number", "vendor_err is valid on a failure")
-- destroying a QP and a CQ with a poll open: the poll is ended first (no hang)
un:destroy(); cq_n:destroy()
-- destroying the CQ inside a for wc in cq:iter() loop: an error at the next step
local cq_d = ctx:create_cq_ex{ cqe = 4, wc_flags = {} }
local ud_d = ud_qp(cq_d)
ud_d:post_send{ wr_id = 90, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr_a, length = 1 } },
  ud = { ah = ah, remote_qpn = ub.qp_num, remote_qkey = QKEY } }
t0 = verbs.now()
while verbs.now() - t0 < 0.3 do end
local steps_d = 0
err("cq:destroy inside cq:iter()", "cq:iter(): the CQ was destroyed inside the for wc in cq:iter() loop; break out of the loop first",
  function() for _ in cq_d:iter() do steps_d = steps_d + 1; ud_d:destroy(); cq_d:destroy() end end)
eq(steps_d, 1, "no step after cq:destroy() inside the loop")
local plain_cq = ctx:create_cq(2)
err("poll API on a plain CQ", "this CQ was made by ibv_create_cq", plain_cq.start_poll, plain_cq)
e = raises("timestamp on rxe", ctx.create_cq_ex, ctx, { cqe = 4, wc_flags = { "BYTE_LEN", "COMPLETION_TIMESTAMP" } })
eq(e.verb, "ibv_create_cq_ex", "timestamp verb"); eq(e.errname, "EOPNOTSUPP", "timestamp errno")
check(tostring(e):find("COMPLETION_TIMESTAMP", 1, true), "timestamp explained: %s", tostring(e))

-- teardown, children first; then a session and a poll left open for the GC
for _, o in ipairs{ a, b, ua, ub, plain } do o:destroy() end
a = ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq_a, recv_cq = cq_a, send_ops_flags = "SEND",
  cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
a:wr_start()
T.done("verbs_ex")
