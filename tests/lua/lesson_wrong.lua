-- Every lesson step's most likely wrong answer, and what its check must say
-- when it refuses it (tests/device/lesson_wrong.bats runs them).
--   verbsh tests/lua/lesson_wrong.lua LESSON...   (a name, or "all")
-- For each lesson: start it; for each step, type the wrong answer, call
-- check() (it must refuse, with `hint` in its message), then `redo` what a
-- learner would type to undo the wrong try, and skip(): the model solution
-- must then pass the step (or, when the 6th field is true, the redo is what
-- the wrong answer forgot, and check() must pass on it). One line a step: REFUSED, ACCEPTED, WRONG HINT or
-- NO PASS; the last line counts them, and the exit status is 0 when every
-- step was refused with its hint and then passed.
local wrong = {
  -- lesson 1: devices
  { "devices", 1, [[ctx = verbs.devices()]], "ctx is not an open device context" },
  { "devices", 2, [[port = ctx:query_device()]], "`port` does not match ctx:query_port(1)" },
  { "devices", 3, [[gid_index = 0]], "gid_index is 0; the RoCE v2 IPv4-mapped GID is elsewhere" },
  { "devices", 4, [[dev = ctx:query_port(1)]], "`dev` does not match ctx:query_device()" },
  -- lesson 2: pd-mr
  { "pd-mr", 1, [[pd = ctx]], "pd is not a protection domain yet" },
  { "pd-mr", 2, [[mr_a = pd:reg_mr(64, "LOCAL_WRITE")]], "mr_a is shorter than 4096 bytes" },
  { "pd-mr", 3, [[ok, err = pcall(pd.reg_mr, pd, 4096, {"LOCAL_WRITE", "REMOTE_WRITE"})]],
    "err does not hold the EINVAL of ibv_reg_mr with REMOTE_WRITE alone" },
  { "pd-mr", 4, [[mr_a:write(1, "hello")]], "mr_a does not start with \"hello\"" },
  { "pd-mr", 5, [[
      before = lesson.kit.vm_pin_kb()
      big = pd:reg_mr(16 * 1024 * 1024, "LOCAL_WRITE")
      pinned = lesson.kit.vm_pin_kb()]], "big is still registered: big:dereg()", [[big:dereg()]] },
  -- lesson 3: cq
  { "cq", 1, [[ch = ctx:create_cq(16)]], "ch is not a completion channel yet" },
  { "cq", 2, [[cq = ctx:create_cq(16)]], "cq is not attached to ch" },
  { "cq", 3, [[
      qp_b:post_recv{wr_id = 2, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
      qp_a:post_send{wr_id = 1, opcode = "SEND", sg_list = {{mr = mr_a, offset = 0, length = 5}}}
      wcs = cq:poll(16)]], "no SEND and RECV completions (wr_id 1 and 2) seen yet" },
  { "cq", 4, [[
      qp_b:post_recv{wr_id = 4, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
      qp_a:post_send{wr_id = 3, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}
      ev_cq = ch:get_cq_event(300)]], "ev_cq is not cq: arm with cq:req_notify()" },
  -- lesson 4: rc-states
  { "rc-states", 1, [[
      qp_a = pd:create_qp{qp_type = "RC", send_cq = cq, recv_cq = cq, cap = {max_send_wr = 16, max_recv_wr = 16, max_send_sge = 1, max_recv_sge = 1}}
      qp_b = qp_a]], "qp_a and qp_b are the same QP" },
  { "rc-states", 2, [[qp_a:modify{qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = {"REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC"}}]],
    "qp_a is INIT and qp_b is RESET; both should be INIT" },
  { "rc-states", 3, [[
      qp_a:modify{qp_state = "RTR", path_mtu = "1024", dest_qp_num = qp_b.qp_num, rq_psn = 0, max_dest_rd_atomic = 1, min_rnr_timer = 12, ah_attr = {is_global = 1, port_num = 1, grh = {dgid = ctx:query_gid(1, gid_index), sgid_index = gid_index, hop_limit = 1}}}]],
    "qp_a is in RTR, past INIT", [[
      qp_a:modify{qp_state = "RESET"}
      qp_a:modify{qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = {"REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC"}}]] },
  { "rc-states", 4, [[
      gid = ctx:query_gid(1, gid_index)
      for _, q in ipairs{qp_a, qp_b} do q:modify{qp_state = "RTR", path_mtu = "1024", dest_qp_num = q.qp_num, rq_psn = 0, max_dest_rd_atomic = 1, min_rnr_timer = 12, ah_attr = {is_global = 1, port_num = 1, grh = {dgid = gid, sgid_index = gid_index, hop_limit = 1}}} end]],
    "the QPs are in RTR but do not point at each other (dest_qp_num)", [[
      for _, q in ipairs{qp_a, qp_b} do q:modify{qp_state = "RESET"}; q:modify{qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = {"REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC"}} end]] },
  { "rc-states", 5, [[qp_a:modify{qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1}]],
    "qp_a is RTS and qp_b is RTR; both should be RTS",
    [[qp_b:modify{qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1}]], true },
  -- the completions on the wrong QPs: qp_b sends, qp_a receives
  { "rc-states", 6, [[
      mr = pd:reg_mr(64, "LOCAL_WRITE")
      mr:write(0, "ping")
      qp_a:post_recv{wr_id = 2, sg_list = {{mr = mr, offset = 32, length = 32}}}
      qp_b:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr, offset = 0, length = 4}}}
      wcs = cq:wait(2)]], "no successful SEND on qp_a and RECV on qp_b seen yet", [[mr:write(32, "\0\0\0\0")]] },
  -- lesson 5: rc-send
  { "rc-send", 1, [[
      mr_a:write(0, "hello")
      qp_b:post_recv{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
      qp_a:post_send{wr_id = 1, opcode = "SEND", sg_list = {{mr = mr_a, offset = 0, length = 5}}}
      wcs = cq:wait(1)]], "no completions for wr_id 100 (qp_b) and 1 (qp_a) yet" },
  -- "hello" written one byte in, the 5 bytes sent from offset 0: a RECV of 5 bytes, the wrong ones
  { "rc-send", 1, [[
      mr_a:write(0, "\0\0\0\0\0\0"); mr_a:write(1, "hello")
      qp_b:post_recv{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
      qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}
      wcs = cq:wait(2)]], "mr_b does not hold \"hello\"" },
  { "rc-send", 2, [[
      mr_a:write(0, "imm!")
      qp_b:post_recv{wr_id = 101, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
      qp_a:post_send{wr_id = 2, opcode = "SEND", imm_data = 0x1234, send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 4}}}
      wcs = cq:wait(2)]], "the RECV should be SUCCESS with imm_data 0x1234" },
  { "rc-send", 3, [[
      qp_b:post_recv{wr_id = 102, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
      qp_a:post_send{wr_id = 3, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}
      wcs = cq:wait(2)]], "wr_id 3 completed: was it SIGNALED?" },
  -- one SGE of 6 bytes instead of two of 3
  { "rc-send", 4, [[
      mr_a:write(0, "abc"); mr_a:write(100, "def")
      qp_b:post_recv{wr_id = 103, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
      qp_a:post_send{wr_id = 4, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 6}}}
      wcs = cq:wait(2)]], "mr_b does not start with \"abcdef\"" },
  -- lesson 6: rdma-write
  -- remote_addr as an offset, not the address
  { "rdma-write", 1, [[
      mr_a:write(0, "one-sided")
      qp_a:post_send{wr_id = 1, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 9}}, rdma = {remote_addr = 0, rkey = mr_b.rkey}}
      wcs = cq:wait(1)]], "wr_id 1 completed with REM_ACCESS_ERR",
    [[rc_connect(qp_a, qp_b); rc_connect(qp_b, qp_a)]] },
  { "rdma-write", 2, [[
      mr_a:write(0, "landed")
      qp_b:post_recv{wr_id = 200, sg_list = {}}
      qp_a:post_send{wr_id = 2, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 6}}, rdma = {remote_addr = mr_b.addr + 64, rkey = mr_b.rkey}}
      wcs = cq:wait(1)]], "no completion for qp_b's receive wr_id 200 yet" },
  -- the immediate data wrong: the receive completes, with 43
  { "rdma-write", 2, [[
      mr_a:write(0, "landed")
      qp_b:post_recv{wr_id = 200, sg_list = {}}
      qp_a:post_send{wr_id = 2, opcode = "RDMA_WRITE_WITH_IMM", imm_data = 43, send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 6}}, rdma = {remote_addr = mr_b.addr + 64, rkey = mr_b.rkey}}
      wcs = cq:wait(2)]], "qp_b's WC should be RECV_RDMA_WITH_IMM with imm_data 42, got RECV_RDMA_WITH_IMM" },
  -- lesson 7: rdma-read
  { "rdma-read", 1, [[
      qp_a:post_send{wr_id = 1, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 11}}, rdma = {remote_addr = mr_b.addr, rkey = mr_b.rkey}}
      wcs = cq:wait(1)]], "wr_id 1 ended ", [[mr_b:write(0, "secret data")]] },
  { "rdma-read", 2, [[rc_connect(qp_a, qp_b, {max_rd_atomic = 3})]], "qp_a is RTS, qp_b is ERR; both should be RTS" },
  -- local and remote swapped: mr_a read into mr_b
  { "rdma-read", 3, [[
      mr_a:fill(0)
      qp_a:post_send{wr_id = 2, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = {{mr = mr_b, offset = 0, length = 11}}, rdma = {remote_addr = mr_a.addr, rkey = mr_a.rkey}}
      wcs = cq:wait(1)]], "mr_a does not hold \"secret data\"", [[mr_b:write(0, "secret data")]] },
  -- every READ of the same byte
  { "rdma-read", 4, [[
      reads = {}
      for i = 0, 7 do reads[#reads + 1] = {wr_id = 10 + i, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 100 + i, length = 1}}, rdma = {remote_addr = mr_b.addr, rkey = mr_b.rkey}} end
      qp_a:post_send(reads)
      wcs = cq:wait(8)]], "mr_a+100 does not hold \"secret d\"" },
  -- lesson 8: atomics
  { "atomics", 1, [[
      qp_a:post_send{wr_id = 1, opcode = "ATOMIC_FETCH_AND_ADD", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 8}}, atomic = {remote_addr = mr_b.addr, rkey = mr_b.rkey, compare_add = 2}}
      wcs = cq:wait(1)]], "the counter is 2, not 1", [[mr_b:write(0, string.pack("=I8", 0))]] },
  -- every result into one slot: the other slots read the same value
  { "atomics", 2, [[
      adds = {}
      for i = 1, 10 do adds[i] = {wr_id = 10 + i, opcode = "ATOMIC_FETCH_AND_ADD", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 8, length = 8}}, atomic = {remote_addr = mr_b.addr, rkey = mr_b.rkey, compare_add = 1}} end
      qp_a:post_send(adds)
      wcs = cq:wait(10)]], "two fetch-and-adds returned the same value", [[mr_b:write(0, string.pack("=I8", 1))]] },
  { "atomics", 3, [[
      qp_a:post_send{wr_id = 21, opcode = "ATOMIC_CMP_AND_SWP", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 200, length = 8}}, atomic = {remote_addr = mr_b.addr, rkey = mr_b.rkey, compare_add = 1, swap = 100}}
      wcs = cq:wait(1)
      qp_a:post_send{wr_id = 22, opcode = "ATOMIC_CMP_AND_SWP", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 208, length = 8}}, atomic = {remote_addr = mr_b.addr, rkey = mr_b.rkey, compare_add = 1, swap = 100}}
      wcs = cq:wait(1)]], "the second CAS should have returned 100" },
  { "atomics", 4, [[
      ok, err = pcall(qp_a.post_send, qp_a, {wr_id = 30, opcode = "ATOMIC_FETCH_AND_ADD", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 8}}, atomic = {remote_addr = mr_b.addr + 8, rkey = mr_b.rkey, compare_add = 1}})]],
    "err does not hold the EINVAL of ibv_post_send", [[wcs = cq:wait(1, 1000)]] },
  -- lesson 9: ud
  { "ud", 1, [[
      qp_a = pd:create_qp{qp_type = "UD", send_cq = cq, recv_cq = cq, cap = {max_send_wr = 32, max_recv_wr = 32, max_send_sge = 1, max_recv_sge = 1}}
      qp_b = pd:create_qp{qp_type = "UD", send_cq = cq, recv_cq = cq, cap = {max_send_wr = 32, max_recv_wr = 32, max_send_sge = 1, max_recv_sge = 1}}
      for _, q in ipairs{qp_a, qp_b} do q:modify{qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = 0x22222222}; q:modify{qp_state = "RTR"}; q:modify{qp_state = "RTS", sq_psn = 0} end]],
    "qp_b's qkey is 572662306" },
  -- an InfiniBand address (a LID) where RoCE needs a GRH
  { "ud", 2, [[ah = pd:create_ah{port_num = 1, dlid = 1}]], "ah is not an address handle yet" },
  -- the datagram sent to the sender's own QP
  { "ud", 3, [[
      mr_a:write(0, "datagram!")
      qp_a:post_recv{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 40 + 64}}}
      qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 9}}, ud = {ah = ah, remote_qpn = qp_a.qp_num, remote_qkey = 0x11111111}}
      wcs = cq:wait(2)]], "no completions for wr_id 100 (qp_b) and 1 (qp_a) yet", [[mr_b:fill(0)]] },
  -- the IPv4 header's offsets without the 20 bytes before it
  { "ud", 4, [[src_ip = table.concat({mr_b:read(12, 4):byte(1, 4)}, ".")]], "; the sender's address is elsewhere" },
  { "ud", 5, [[
      mtu = tonumber(ctx:query_port(1).active_mtu)
      qp_b:post_recv{{wr_id = 101, sg_list = {{mr = mr_b, offset = 0, length = 40 + 2048}}}, {wr_id = 102, sg_list = {{mr = mr_b, offset = 0, length = 40 + 2048}}}}
      qp_a:post_send{wr_id = 2, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = mtu}}, ud = {ah = ah, remote_qpn = qp_b.qp_num, remote_qkey = 0x11111111}}
      qp_a:post_send{wr_id = 3, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = mtu}}, ud = {ah = ah, remote_qpn = qp_b.qp_num, remote_qkey = 0x11111111}}
      wcs = cq:wait(4, 500)]], "qp_b should get exactly one receive of" },
  -- lesson 10: rc-errors
  { "rc-errors", 1, [[
      qp_b:post_recv{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
      qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}
      wcs = cq:wait(2, 2000)]], "wr_id 1 ended SUCCESS" },
  -- reconnected first: the send is no flush (qp_b may take it for a
  -- duplicate of step 1's PSN 0 and ACK it, or answer RNR)
  { "rc-errors", 2, [[
      rc_connect(qp_a, qp_b, {rnr_retry = 0})
      qp_a:post_send{wr_id = 2, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}
      wcs = cq:wait(1, 2000)]], "wr_id 2 ended ", [[qp_a:modify{qp_state = "ERR"}]] },
  { "rc-errors", 3, [[
      rc_connect(qp_a, qp_b, {rnr_retry = 0})
      rc_connect(qp_b, qp_a)
      qp_a:post_send{wr_id = 3, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}
      wcs = cq:wait(1, 2000)]], "wr_id 3 ended RNR_RETRY_EXC_ERR: no receive was posted on qp_b" },
  -- into mr_w, which allows it
  { "rc-errors", 4, [[
      qp_a:post_send{wr_id = 4, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}, rdma = {remote_addr = mr_w.addr, rkey = mr_w.rkey}}
      wcs = cq:wait(1)]], "wr_id 4 ended SUCCESS" },
  -- not reconnected after step 4's error
  { "rc-errors", 5, [[
      qp_a:post_send{wr_id = 5, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}, rdma = {remote_addr = mr_w.addr, rkey = mr_w.rkey ~ 0x80}}
      wcs = cq:wait(1)]], "wr_id 5 ended WR_FLUSH_ERR" },
  -- connected to the real peer, which answers
  { "rc-errors", 6, [[
      rc_connect(qp_a, qp_b, {timeout = 8, retry_cnt = 1})
      rc_connect(qp_b, qp_a)
      qp_b:post_recv{wr_id = 106, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
      qp_a:post_send{wr_id = 6, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}
      wcs = cq:wait(2, 3000)]], "wr_id 6 ended SUCCESS" },
  -- lesson 11: srq
  { "srq", 1, [[srq = pd:create_srq{max_wr = 64, max_sge = 1}.handle]], "srq is not a shared receive queue yet" },
  { "srq", 2, [[
      qp_b1 = pd:create_qp{qp_type = "RC", send_cq = cq, recv_cq = cq, cap = {max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1}}
      qp_b2 = pd:create_qp{qp_type = "RC", send_cq = cq, recv_cq = cq, cap = {max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1}}]],
    "qp_b1 is not on srq" },
  -- all four from qp_a1
  { "srq", 3, [[
      srq:post_recv{{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 64}}}, {wr_id = 101, sg_list = {{mr = mr_b, offset = 64, length = 64}}}, {wr_id = 102, sg_list = {{mr = mr_b, offset = 128, length = 64}}}, {wr_id = 103, sg_list = {{mr = mr_b, offset = 192, length = 64}}}}
      mr_a:write(0, "hello")
      for i = 1, 4 do qp_a1:post_send{wr_id = i, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}} end
      wcs = cq:wait(8)]], "expected two successful RECVs on each of qp_b1 and qp_b2" },
  -- srq_limit never armed
  { "srq", 4, [[
      srq:post_recv{{wr_id = 110, sg_list = {{mr = mr_b, offset = 0, length = 64}}}, {wr_id = 111, sg_list = {{mr = mr_b, offset = 64, length = 64}}}, {wr_id = 112, sg_list = {{mr = mr_b, offset = 128, length = 64}}}, {wr_id = 113, sg_list = {{mr = mr_b, offset = 192, length = 64}}}}
      for i = 1, 3 do qp_a1:post_send{wr_id = 10 + i, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}} end
      wcs = cq:wait(6)
      ev = ctx:get_async_event(300)]], "ev holds no async event", [[
      qp_a1:post_send{wr_id = 19, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}
      wcs = cq:wait(2)]] },
  -- lesson 12: ud-drops
  { "ud-drops", 1, [[
      qp_b:post_recv{wr_id = 99, sg_list = {{mr = mr_b, offset = 0, length = 40 + 64}}}
      qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 9}}, ud = {ah = ah, remote_qpn = qp_b.qp_num, remote_qkey = 0x11111111}}
      wcs = cq:wait(2, 500)]], "qp_b received something" },
  { "ud-drops", 2, [[
      qp_b:post_recv{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 40 + 64}}}
      qp_a:post_send{wr_id = 2, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 9}}, ud = {ah = ah, remote_qpn = qp_b.qp_num, remote_qkey = 0x11111111}}
      wcs = cq:wait(2, 500)]], "qp_b received something: was the Q_Key wrong?" },
  -- the wrong Q_Key again
  { "ud-drops", 3, [[
      qp_a:post_send{wr_id = 3, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 9}}, ud = {ah = ah, remote_qpn = qp_b.qp_num, remote_qkey = 0x22222222}}
      wcs = cq:wait(2, 500)]], "the receive wr_id 100 has not completed" },
  { "ud-drops", 4, [[
      qp_b:post_recv{wr_id = 101, sg_list = {{mr = mr_b, offset = 0, length = 40 + 64}}}
      qp_a:post_send{wr_id = 4, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 9}}, ud = {ah = ah, remote_qpn = qp_b.qp_num, remote_qkey = 0x11111111}}
      wcs = cq:wait(2, 500)]], "receive 101 succeeded: was it 44 bytes?" },
  -- lesson 13: pair-lab (a partner process; it answers each exchange once,
  -- so the wrong answers here leave the partner alone)
  { "pair-lab", 1, [[conn = verbs.oob.connect]], "conn should be an open verbs.oob connection" },
  -- the learner's own numbers, not the partner's
  { "pair-lab", 2, [[peer = { qp_num = qp.qp_num }]], "peer lacks psn" },
  { "pair-lab", 3, [[
      qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = "REMOTE_WRITE" }
      qp:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = qp.qp_num, rq_psn = peer.psn, max_dest_rd_atomic = 1, min_rnr_timer = 12, ah_attr = { is_global = 1, port_num = 1, grh = { dgid = peer.gid, sgid_index = gid_index, hop_limit = 1 } } }
      qp:modify{ qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1 }]],
    "dest_qp_num is not peer.qp_num", [[qp:modify{ qp_state = "RESET" }]] },
  -- the receive posted, the message never sent
  { "pair-lab", 4, [[
      qp:post_recv{ wr_id = 100, sg_list = {{ mr = mr_b, offset = 0, length = 1024 }} }
      wcs = cq:wait(2, 300)]], "no answer received yet (a RECV completion on cq)" },
  { "pair-lab", 5, [[
      mr_a:write(0, "written by verbsh")
      reply = conn]], "no completion on cq for your RDMA WRITE: wait for it (wcs = cq:wait(1)) before you tell the partner" },
  -- lesson 14: rdma-cm (a partner process)
  { "rdma-cm", 1, [[
      ch = verbs.create_event_channel()
      id = ch:create_id("UDP")]], "this lesson uses a TCP id (RC)" },
  -- the address resolved on one id, then `id` made anew: ADDR_RESOLVED is
  -- there, but the id the lesson goes on with is bound to no device (redo:
  -- both ids gone, a fresh one for the next try)
  { "rdma-cm", 2, [[
      id:resolve_addr(nil, partner_addr .. ":" .. partner_port)
      ev = ch:get_cm_event(5000)
      id_resolved = id
      id = ch:create_id("TCP")]], "id.verbs is not set: the address did not resolve",
    [[ev:ack(); ev = nil; id_resolved:destroy(); id:destroy(); id = ch:create_id("TCP")]] },
  -- the event never read: redo reads it, and that completes the step
  { "rdma-cm", 2, [[id:resolve_addr(nil, partner_addr .. ":" .. partner_port)]],
    "ev should hold what ch:get_cm_event(5000) returned", [[ev = ch:get_cm_event(5000)]], true },
  { "rdma-cm", 3, [[
      ev:ack()
      id:resolve_route()]], "ev is acked already: read ev.event before ev:ack()", [[ev = ch:get_cm_event(5000)]], true },
  { "rdma-cm", 4, [[
      ev:ack()
      pd = id.verbs:alloc_pd()
      cq = id.verbs:create_cq(16)
      mr = pd:reg_mr(4096, "LOCAL_WRITE")
      qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }]],
    "qp is not id.qp: make it with id:create_qp, not pd:create_qp" },
  { "rdma-cm", 5, [[
      qp:post_recv{ wr_id = 100, sg_list = {{ mr = mr, offset = 1024, length = 1024 }} }
      id:connect{ private_data = "hello from a learner", responder_resources = 1, initiator_depth = 1, retry_count = 7, rnr_retry_count = 7 }]],
    "ev is acked already", [[ev = ch:get_cm_event(5000)]], true },
  -- the answer awaited, the message never sent
  { "rdma-cm", 6, [[
      ev:ack()
      mr:write(0, "hello partner")
      wcs = cq:wait(2, 300)]], "no answer received yet (a RECV completion on cq)" },
  { "rdma-cm", 7, [[id:disconnect()]], "ev is acked already", [[ev = ch:get_cm_event(5000)]], true },
  -- lesson 15: post-send-ex
  { "post-send-ex", 1, [[
      mr_a:write(0, "hello")
      qp_b:post_recv{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
      qp_a:wr_start(); qp_a.wr_id = 1; qp_a:wr_send(); qp_a:wr_set_sge(mr_a, 0, 5); qp_a:wr_complete()]],
    "the SEND was not SIGNALED", [[mr_b:fill(0)]] },
  -- one completion read, the other left in cq
  { "post-send-ex", 2, [[
      seen = {}
      if cq:start_poll() then
        seen[1] = { wr_id = cq.wr_id, opcode = cq:read_opcode(), byte_len = cq:read_byte_len() }
        cq:end_poll()
      end]], "seen lacks wr_id 1 (the SEND) or 100 (the RECV)" },
  { "post-send-ex", 3, [[
      mr_a:write(256, "written"); mr_b:write(1024, "read back")
      qp_a:wr_start()
      qp_a.wr_flags = "SIGNALED"
      qp_a.wr_id = 2
      qp_a:wr_rdma_write(mr_b.rkey, mr_b.addr)
      qp_a:wr_set_sge(mr_a, 256, 7)
      qp_a.wr_id = 3
      qp_a:wr_rdma_read(mr_b.rkey, mr_b.addr + 1024)
      qp_a:wr_set_sge(mr_a, 1024, 9)
      qp_a:wr_complete()
      wcs = {}
      while #wcs < 2 do for wc in cq:iter() do wcs[#wcs + 1] = wc end end]], "mr_b offset 512 does not hold \"written\"" },
  -- the payload from an SGE, not inline
  { "post-send-ex", 4, [[
      qp_b:post_recv{wr_id = 101, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
      qp_a:wr_start()
      qp_a.wr_id = 4
      qp_a.wr_flags = "SIGNALED"
      qp_a:wr_atomic_fetch_add(mr_b.rkey, mr_b.addr + 2048, 1)
      qp_a:wr_set_sge(mr_a, 2048, 8)
      qp_a.wr_id = 5
      qp_a.wr_flags = "SIGNALED"
      qp_a:wr_send_imm(42)
      qp_a:wr_set_sge(mr_a, 0, 6)
      qp_a:wr_complete()
      wcs = {}
      while #wcs < 3 do for wc in cq:iter() do wcs[#wcs + 1] = wc end end]], "the receive should hold \"inline\" with imm_data 42" },
  -- lesson 16: events
  -- never armed: wait_fds times out, no event
  { "events", 1, [[
      qp_b:post_recv{wr_id = 7, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
      qp_a:post_send{wr_id = 7, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 64}}}
      ready = verbs.wait_fds({ch}, 300)
      wcs = cq:wait(2)]], "ev_cq is not cq" },
  { "events", 2, [[
      busy = exchange_round("busy", 20)
      events = exchange_round("events", 20)]], "no busy_idle round yet" },
  -- lesson 17: on-the-wire (two devices: tests/vm/wire.bats runs these)
  -- the capture started after the completions
  { "on-the-wire", 1, [[
      qp_b:post_recv{wr_id = 100, sg_list = {{mr = mr_b, offset = 8192, length = 8192}}}
      qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5000}}}
      wcs = cq_a:wait(1); cq_b:wait(1)
      cap = verbs.capture{device = dev_a}
      cap:stop()]], "cap holds no RoCEv2 frame: start it before posting" },
  -- one SEND of 400 bytes, not four of 100
  { "on-the-wire", 2, [[
      cap = verbs.capture{device = dev_a}
      qp_b:post_recv{wr_id = 201, sg_list = {{mr = mr_b, offset = 8192, length = 400}}}
      qp_a:post_send{wr_id = 11, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 400}}}
      wcs = cq_a:wait(1); cq_b:wait(1)
      cap:stop()]], "1 SEND_ONLY frames to qp_b; expected 4" },
  -- the immediate byte-swapped, as if it needed htonl in verbsh
  { "on-the-wire", 3, [[
      cap = verbs.capture{device = dev_a}
      qp_b:post_recv{wr_id = 300, sg_list = {}}
      qp_a:post_send{wr_id = 21, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 1500}}, rdma = {remote_addr = mr_b.addr, rkey = mr_b.rkey}}
      qp_a:post_send{wr_id = 22, opcode = "RDMA_WRITE_WITH_IMM", send_flags = "SIGNALED", imm_data = 0x34120000, sg_list = {{mr = mr_a, offset = 0, length = 100}}, rdma = {remote_addr = mr_b.addr, rkey = mr_b.rkey}}
      wcs = cq_a:wait(2); wcs_b = cq_b:wait(1)
      cap:stop()]], "no WRITE frame with ImmDt 0x1234 to qp_b" },
  { "on-the-wire", 4, [[
      cap = verbs.capture{device = dev_a}
      qp_a:post_send{wr_id = 31, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 1000}}, rdma = {remote_addr = mr_b.addr, rkey = mr_b.rkey}}
      wcs = cq_a:wait(1)
      cap:stop()]], "no RDMA_READ_REQUEST of 3000 bytes to qp_b" },
  -- the counter never set to 37
  { "on-the-wire", 5, [[
      mr_b:write(0, string.pack("=I8", 12))
      cap = verbs.capture{device = dev_a}
      qp_a:post_send{wr_id = 41, opcode = "ATOMIC_FETCH_AND_ADD", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 8}}, atomic = {remote_addr = mr_b.addr, rkey = mr_b.rkey, compare_add = 5}}
      wcs = cq_a:wait(1)
      cap:stop()]], "the AtomicAckETH holds 12; the counter was 37" },
  { "on-the-wire", 6, [[
      make_ud_pair()
      cap = verbs.capture{device = dev_a}
      ud_a:post_send{wr_id = 51, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 1000}}, ud = {ah = ah, remote_qpn = ud_b.qp_num, remote_qkey = 0x22222222}}
      wcs = cq_a:wait(1)
      cap:stop()]], "the DETH's Q_Key is 0x22222222" },
  -- the receive posted first: no RNR NAK
  { "on-the-wire", 7, [[
      cap = verbs.capture{device = dev_a}
      qp_b:post_recv{wr_id = 600, sg_list = {{mr = mr_b, offset = 8192, length = 64}}}
      qp_a:post_send{wr_id = 61, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 64}}}
      wcs = cq_a:wait(1); cq_b:wait(1)
      cap:stop()]], "no RNR NAK: was a receive already posted on qp_b?" },
  -- no loss: the SEND goes out once
  { "on-the-wire", 8, [[
      cap = verbs.capture{device = dev_a}
      qp_b:post_recv{wr_id = 700, sg_list = {{mr = mr_b, offset = 8192, length = 100}}}
      qp_a:post_send{wr_id = 71, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 100}}}
      wcs = cq_a:wait(1)
      wcs_b = cq_b:wait(2, 300)
      cap:stop()]], "the SEND was sent once" },
  -- lesson 18: memory-windows
  -- the window's rkey kept before the bind, which moves it on
  { "memory-windows", 1, [[
      mw1 = pd:alloc_mw("TYPE_1")
      rkey1 = mw1.rkey
      qp_b:bind_mw(mw1, {wr_id = 1, send_flags = "SIGNALED", bind_info = {mr = mr_b, addr = mr_b.addr + 64, length = 64, mw_access_flags = {"REMOTE_READ", "REMOTE_WRITE"}}})
      wcs = cq:wait(1)]], "rkey1 should be what bind_mw returned (mw1.rkey)" },
  -- the MR's own rkey, which grants no remote access
  { "memory-windows", 2, [[
      mr_a:write(100, "through mw1")
      qp_a:post_send{wr_id = 2, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 24}}, rdma = {remote_addr = mr_b.addr + 64, rkey = mr_b.rkey}}
      qp_a:post_send{wr_id = 3, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 100, length = 11}}, rdma = {remote_addr = mr_b.addr + 100, rkey = mr_b.rkey}}
      wcs = cq:wait(2)]], "the READ (wr_id 2) completed REM_ACCESS_ERR, not SUCCESS",
    [[rc_connect(qp_a, qp_b); rc_connect(qp_b, qp_a)]] },
  -- the READ from further into the window: both complete SUCCESS, but mr_a
  -- holds other bytes than the 24 at mr_b.addr + 64
  { "memory-windows", 2, [[
      mr_a:write(100, "through mw1")
      qp_a:post_send{wr_id = 2, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 24}}, rdma = {remote_addr = mr_b.addr + 80, rkey = rkey1}}
      qp_a:post_send{wr_id = 3, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 100, length = 11}}, rdma = {remote_addr = mr_b.addr + 100, rkey = rkey1}}
      wcs = cq:wait(2)]], "mr_a does not hold the 24 bytes read" },
  -- the READ with the old rkey, the window never unbound
  { "memory-windows", 3, [[
      qp_a:post_send{wr_id = 5, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 8}}, rdma = {remote_addr = mr_b.addr + 64, rkey = rkey1}}
      wcs = cq:wait(1)]], "the READ with the old rkey1 (wr_id 5) completed SUCCESS, not REM_ACCESS_ERR: unbind mw1 first (length = 0)" },
  -- mw2.rkey never set: a bind WR does not write C's struct ibv_mw
  { "memory-windows", 4, [[
      rc_connect(qp_a, qp_b); rc_connect(qp_b, qp_a)
      mw2 = pd:alloc_mw("TYPE_2")
      rkey2 = verbs.inc_rkey(mw2.rkey)
      qp_b:post_send{wr_id = 6, opcode = "BIND_MW", send_flags = "SIGNALED", bind_mw = {mw = mw2, rkey = rkey2, bind_info = {mr = mr_b, addr = mr_b.addr, length = 4096, mw_access_flags = "REMOTE_READ"}}}
      wcs = cq:wait(1)
      qp_a:post_send{wr_id = 7, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 24}}, rdma = {remote_addr = mr_b.addr + 64, rkey = rkey2}}
      wcs = cq:wait(1)]], "set mw2.rkey = rkey2 (C: mw2->rkey = rkey2)" },
  -- a plain SEND: nothing invalidated
  { "memory-windows", 5, [[
      qp_b:post_recv{wr_id = 8, sg_list = {{mr = mr_b, offset = 2048, length = 64}}}
      qp_a:post_send{wr_id = 9, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 4}}}
      wcs = cq:wait(2)]], "send with opcode SEND_WITH_INV and invalidate_rkey = rkey2" },
  -- bound again and read, the LOCAL_INV left out
  { "memory-windows", 6, [[
      rkey3 = verbs.inc_rkey(mw2.rkey)
      qp_b:post_send{wr_id = 10, opcode = "BIND_MW", send_flags = "SIGNALED", bind_mw = {mw = mw2, rkey = rkey3, bind_info = {mr = mr_b, addr = mr_b.addr, length = 4096, mw_access_flags = "REMOTE_READ"}}}
      wcs = cq:wait(1)
      mw2.rkey = rkey3
      qp_a:post_send{wr_id = 12, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 8}}, rdma = {remote_addr = mr_b.addr, rkey = rkey3}}
      wcs = cq:wait(1)]], "the READ after LOCAL_INV (wr_id 12) completed SUCCESS, not REM_ACCESS_ERR", [[
      qp_b:post_send{wr_id = 13, opcode = "LOCAL_INV", send_flags = "SIGNALED", invalidate_rkey = rkey3}
      inv = cq:wait(1)]] },
  -- lesson 19: uc
  -- UC's RTR, which works: the step's point is RC's failing
  { "uc", 1, [[qp_a:modify{qp_state = "RTR", path_mtu = "1024", dest_qp_num = qp_b.qp_num, rq_psn = 0, ah_attr = {is_global = 1, port_num = 1, grh = {dgid = gid, sgid_index = gid_index, hop_limit = 1}}}]],
    "no EINVAL from ibv_modify_qp yet: try RC's RTR (with max_dest_rd_atomic and min_rnr_timer) on qp_a", [[
      qp_a:modify{qp_state = "RESET"}
      qp_a:modify{qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = "REMOTE_WRITE"}]] },
  -- RC's RTS attributes at RTS: EINVAL, qp_a left in RTR
  { "uc", 2, [[
      qp_a:modify{qp_state = "RTR", path_mtu = "1024", dest_qp_num = qp_b.qp_num, rq_psn = 0, ah_attr = {is_global = 1, port_num = 1, grh = {dgid = gid, sgid_index = gid_index, hop_limit = 1}}}
      qp_b:modify{qp_state = "RTR", path_mtu = "1024", dest_qp_num = qp_a.qp_num, rq_psn = 0, ah_attr = {is_global = 1, port_num = 1, grh = {dgid = gid, sgid_index = gid_index, hop_limit = 1}}}
      qp_a:modify{qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1}]],
    "qp_a is in RTR, not RTS yet", [[
      for _, q in ipairs{qp_a, qp_b} do q:modify{qp_state = "RESET"}; q:modify{qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = "REMOTE_WRITE"} end]] },
  -- remote_addr as an offset: UC's sender completes SUCCESS all the same
  { "uc", 3, [[
      mr_a:write(0, "one-way"); mr_a:write(64, "landed")
      qp_b:post_recv{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
      qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 7}}}
      qp_a:post_send{wr_id = 2, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 64, length = 6}}, rdma = {remote_addr = 512, rkey = mr_b.rkey}}
      wcs = cq:wait(3, 500)]], "mr_b does not hold both messages" },
  -- the opcode misnamed: an error, but not UC's refusal
  { "uc", 4, [[ok, err = pcall(qp_a.post_send, qp_a, {wr_id = 3, opcode = "READ", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 8}}, rdma = {remote_addr = mr_b.addr, rkey = mr_b.rkey}})]],
    "no refusal yet: post an RDMA_READ on qp_a" },
  -- the receive posted before the first SEND: nothing is lost
  { "uc", 5, [[
      mr_a:write(0, "first"); mr_a:write(64, "second")
      qp_b:post_recv{wr_id = 101, sg_list = {{mr = mr_b, offset = 1024, length = 64}}}
      qp_a:post_send{wr_id = 4, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}
      first = cq:wait(2, 300)]], "qp_b got a completion: was a receive posted?" },
  -- lesson 20: multicast
  -- a QP of the PD, not the id's: rdma_cm attaches only the id's QP
  { "multicast", 1, [[qp_a = pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }]],
    "qp_a should be id:create_qp(...): the id's own QP" },
  -- lesson 9's Q_Key, not the group's
  { "multicast", 2, [[
      ud = ev.param.ud
      ev:ack()
      qp_b = pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }
      qp_b:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = 0x11111111 }
      qp_b:modify{ qp_state = "RTR" }
      qp_b:attach_mcast(ud.ah_attr.grh.dgid, 0)]], "qp_b's qkey is 0x11111111, the group's", [[
      qp_b:detach_mcast(ud.ah_attr.grh.dgid, 0)
      qp_b:modify{ qp_state = "RESET" }
      qp_b:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = ud.qkey }
      qp_b:modify{ qp_state = "RTR" }
      qp_b:attach_mcast(ud.ah_attr.grh.dgid, 0)]], true },
  -- sent to qp_a's number, not to the group's QPN 0xffffff
  { "multicast", 3, [[
      if not qp_s then qp_s = lesson.kit.ud_ready(pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }, ud.qkey) end
      ah = ah or pd:create_ah(ud.ah_attr)
      qp_a:post_recv{ wr_id = 1, sg_list = {{ mr = mr_a, offset = 0, length = 1024 }} }
      qp_b:post_recv{ wr_id = 2, sg_list = {{ mr = mr_b, offset = 0, length = 1024 }} }
      mr_s:write(0, "hello, group")
      qp_s:post_send{ wr_id = 3, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{ mr = mr_s, offset = 0, length = 12 }}, ud = { ah = ah, remote_qpn = qp_a.qp_num, remote_qkey = ud.qkey } }
      wcs = cq:wait(3, 500)]], "qp_b got nothing yet: post a receive on both, and send to the group (remote_qpn = 0xffffff)" },
  -- qp_b detached, the id still in the group
  { "multicast", 4, [[
      qp_b:detach_mcast(ud.ah_attr.grh.dgid, 0)
      qp_a:post_recv{ wr_id = 11, sg_list = {{ mr = mr_a, offset = 0, length = 1024 }} }
      qp_b:post_recv{ wr_id = 12, sg_list = {{ mr = mr_b, offset = 0, length = 1024 }} }
      qp_s:post_send{ wr_id = 4, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{ mr = mr_s, offset = 0, length = 12 }}, ud = { ah = ah, remote_qpn = 0xffffff, remote_qkey = ud.qkey } }
      wcs = cq:wait(2, 500)]], "still received it: detach qp_b and leave with id:leave_multicast(group)", [[
      id:leave_multicast(group)
      qp_a:post_recv{ wr_id = 13, sg_list = {{ mr = mr_a, offset = 0, length = 1024 }} }
      qp_s:post_send{ wr_id = 4, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{ mr = mr_s, offset = 0, length = 12 }}, ud = { ah = ah, remote_qpn = 0xffffff, remote_qkey = ud.qkey } }
      wcs = cq:wait(1)]], true },
  -- lesson 21: rdma-verbs (examples/rdma_server.lua as the partner)
  -- a datagram port space for a connection
  { "rdma-verbs", 1, [[res = verbs.getaddrinfo(server_addr, server_port, { ai_port_space = "UDP" })]],
    "give hints { ai_port_space = \"TCP\" }: this is a connection" },
  -- no QP attributes: an endpoint with no QP
  { "rdma-verbs", 2, [[id = verbs.create_ep(res)]], "id has no QP: give create_ep the QP attributes (its third argument)" },
  -- a message of 13 bytes, where the server takes 16 (deregistered after:
  -- MRs left on the id keep destroy_ep from freeing it)
  { "rdma-verbs", 3, [[recv_mr = id:reg_msgs(16); send_mr = id:reg_msgs("hello, server")]], "send_mr should hold the 16 bytes \"hello, server!!!\"",
    [[recv_mr:dereg(); send_mr:dereg()]] },
  -- create_ep resolved the route: taken for connected
  { "rdma-verbs", 4, [[state = id.qp.state]], "id.qp is INIT: id:connect()" },
  -- the send's completion awaited, the answer's never
  { "rdma-verbs", 5, [[
      id:post_recv(1, recv_mr)
      id:post_send(2, send_mr)
      wcs = { id:get_send_comp(5000) }]], "no answer yet: id:post_recv(1, recv_mr) before the send, then id:get_recv_comp(5000)" },
  -- res never freed
  { "rdma-verbs", 6, [[
      id:disconnect()
      recv_mr:dereg()
      send_mr:dereg()
      id:destroy_ep()]], "res is not freed yet: res:free()", [[res:free()]], true },
  -- lesson 22: iwarp (rxe and siw side by side)
  { "iwarp", 1, [[R = cm_connect(iwarp_addr)]], "give cm_connect roce_addr" },
  -- (printed: what a connection says it is, on the wrong device)
  { "iwarp", 2, [[W = cm_connect(roce_addr); print(W)]], "give cm_connect iwarp_addr" },
  -- the device's name, not one of the four answers
  { "iwarp", 3, [[
      guess_ud = "siw"
      ok_r, err_r = pcall(R.pd.create_qp, R.pd, {qp_type = "UD", send_cq = R.cq, recv_cq = R.cq, cap = {max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1}})
      ok_w, err_w = pcall(W.pd.create_qp, W.pd, {qp_type = "UD", send_cq = W.cq, recv_cq = W.cq, cap = {max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1}})
      if ok_r then err_r:destroy() end]],
    'predict first: guess_ud = "RoCE", "iWARP", "both" or "neither" (which device refuses?)' },
  -- an RC QP on siw, which it makes: err_w holds a QP, not the refusal
  { "iwarp", 3, [[
      guess_ud = "iWARP"
      ok_r, err_r = pcall(R.pd.create_qp, R.pd, {qp_type = "UD", send_cq = R.cq, recv_cq = R.cq, cap = {max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1}})
      ok_w, err_w = pcall(W.pd.create_qp, W.pd, {qp_type = "RC", send_cq = W.cq, recv_cq = W.cq, cap = {max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1}})
      if ok_r then err_r:destroy() end]],
    "err_w should hold ibv_create_qp's EOPNOTSUPP on siw", [[if ok_w then err_w:destroy() end]] },
  -- iWARP's post without pcall: its error raised, err_w still the last step's
  { "iwarp", 4, [[
      guess_imm = "iWARP"
      R.mr:write(0, "imm")
      R.qp:post_send{wr_id = 3, opcode = "SEND_WITH_IMM", imm_data = 0x12345678, send_flags = "SIGNALED", sg_list = {{mr = R.mr, offset = 0, length = 3}}}
      wcs = R.cq:wait(2)
      W.qp:post_send{wr_id = 3, opcode = "SEND_WITH_IMM", imm_data = 0x12345678, send_flags = "SIGNALED", sg_list = {{mr = W.mr, offset = 0, length = 3}}}]],
    "err_w should hold the error of W.qp:post_send (SEND_WITH_IMM)" },
  -- the counter never set to 41
  { "iwarp", 5, [[
      guess_atomic = "iWARP"
      R.qp:post_send{wr_id = 4, opcode = "ATOMIC_FETCH_AND_ADD", send_flags = "SIGNALED", sg_list = {{mr = R.mr, offset = 8, length = 8}}, atomic = {remote_addr = R.peer_mr.addr, rkey = R.peer_mr.rkey, compare_add = 1}}
      wcs = R.cq:wait(1)]], "fetched 0, counter 1: want 41 and 42" },
  -- the counter set, but 2 added: the fetched value alone is right
  { "iwarp", 5, [[
      R.peer_mr:write(0, string.pack("=I8", 41))
      R.qp:post_send{wr_id = 4, opcode = "ATOMIC_FETCH_AND_ADD", send_flags = "SIGNALED", sg_list = {{mr = R.mr, offset = 8, length = 8}}, atomic = {remote_addr = R.peer_mr.addr, rkey = R.peer_mr.rkey, compare_add = 2}}
      wcs = R.cq:wait(1)]], "fetched 41, counter 43: want 41 and 42" },
  { "iwarp", 6, [[
      guess_oob = "iWARP"
      qr, qw = rtr_qp(roce), rtr_qp(iwarp)
      qr:modify{qp_state = "RTS", timeout = 14, retry_cnt = 7, rnr_retry = 7, sq_psn = 0, max_rd_atomic = 1}
      qw:modify{qp_state = "RTS", timeout = 14, retry_cnt = 7, rnr_retry = 7, sq_psn = 0, max_rd_atomic = 1}]],
    "err_w should hold ibv_modify_qp's EINVAL for qw's RTS" },
  -- qw's refusal caught, but qr left in RTR
  { "iwarp", 6, [[
      guess_oob = "iWARP"
      qr, qw = rtr_qp(roce), rtr_qp(iwarp)
      ok_w, err_w = pcall(qw.modify, qw, {qp_state = "RTS", timeout = 14, retry_cnt = 7, rnr_retry = 7, sq_psn = 0, max_rd_atomic = 1})]],
    "qr should be rtr_qp(roce), then in RTS" },
  -- the two devices swapped
  { "iwarp", 7, [[dr = W.ctx:query_device(); dw = R.ctx:query_device()]], "dw is not the iWARP device's: dw = W.ctx:query_device()" },
  -- lesson 22's wire steps
  -- the capture on the RoCE device: one rxe loops its own traffic, nothing to see
  { "iwarp", 8, [[
      cap = verbs.capture{device = roce}
      W.qp:post_send{wr_id = 5, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = W.mr, offset = 0, length = 10}}}
      W.cq:wait(2)
      cap:stop()]], "not the iWARP device" },
  -- a capture with nothing in it (stopped before the traffic): the answer
  -- cannot be judged on it; the redo puts step 8's capture back
  { "iwarp", 9, [[
      cap_kept = cap
      cap = verbs.capture{device = iwarp}
      cap:stop()
      write_ack, roce_acks = 1, 2]], "cap holds no TCP ACK of the WRITE: capture again (the step before)", [[cap = cap_kept]] },
  -- the WRITE's own frame taken for what acknowledges it
  { "iwarp", 9, [[
      for _, r in ipairs(require("verbs.wire_iwarp_ladder").rows(cap:packets(), cap:posts())) do
        if r.kind == "DATA" and (r.note or ""):find("wr_id 6's RDMA_WRITE", 1, true) then write_ack = r.frame end
      end
      roce_acks = 2]], " is the WRITE itself; what acknowledges it comes back from the other side" },
  -- the READ's response counted as an ACKNOWLEDGE of RoCE's
  { "iwarp", 9, [[
      for _, r in ipairs(require("verbs.wire_iwarp_ladder").rows(cap:packets(), cap:posts())) do
        if (r.note or ""):find("TCP acknowledges wr_id 6's", 1, true) then write_ack = r.frame end
      end
      roce_acks = 3]], "a READ's response is its acknowledgement" },
  -- the RoCE ladder's ACKNOWLEDGE lines miscounted the other way
  { "iwarp", 9, [[roce_acks = 1]], "roce_acks: count the ACKNOWLEDGE lines of the RoCE ladder" },
}

local L, repl = require "verbs.lesson", require "verbs.repl"
local function dedent(s) return (s:gsub("^\n", ""):gsub("\n%s+", "\n"):gsub("^%s+", "")) end

-- What a command printed, still shown.
local function captured(fn)
  local buf, write = {}, io.write
  io.write = function(...)
    for _, s in ipairs { ... } do buf[#buf + 1] = tostring(s) end
    return write(...)
  end
  local ok, err = pcall(fn)
  io.write = write
  if not ok then error(err, 0) end
  return table.concat(buf)
end

local want = {}
for _, a in ipairs(arg) do want[a] = true end
local counts, bad = { REFUSED = 0 }, 0
local by_lesson, order = {}, {}
for _, w in ipairs(wrong) do
  if want.all or want[w[1]] then
    if not by_lesson[w[1]] then by_lesson[w[1]] = {}; order[#order + 1] = w[1] end
    table.insert(by_lesson[w[1]], w)
  end
end
local results = {}
local skipped = 0
for _, name in ipairs(order) do
  L.start(name)
  if not L.current() then   -- "This lesson cannot run here" (lesson 17 on one device): said above
    skipped = skipped + 1
    results[#results + 1] = ("skip %s: the lesson cannot run here"):format(name)
    goto next_lesson
  end
  for k, w in ipairs(by_lesson[name]) do
    local step, code, hint, redo, redo_passes = w[2], w[3], w[4], w[5], w[6]
    -- another wrong answer to the same step follows: it is tried on the step started over
    local again = by_lesson[name][k + 1] and by_lesson[name][k + 1][2] == step
    while L.current() and L.current().i < step and not L.current().finished do
      local at = L.current().i
      skip()
      if L.current().i == at then break end   -- the model solution did not pass: said below
    end
    local verdict
    if not (L.current() and L.current().i == step) then
      verdict = "NOT REACHED (the lesson stopped before this step)"
    else
      print(("\n## %s step %d: the wrong answer"):format(name, step))
      L.run_code(dedent(code), true, "wrong> ")
      local said = captured(check)
      if L.current().i ~= step or L.current().finished then
        verdict = "ACCEPTED the wrong answer"
      else
        if not said:find(hint, 1, true) then verdict = "WRONG HINT: " .. said:gsub("\n.*", "") end
        -- on to the next step either way, as a learner would
        if redo then L.run_code(dedent(redo), true, "redo> ") end
        if redo_passes then   -- what the learner forgot, done after: the step passes on it
          check()
        elseif again then
          restart()
        else
          restart()
          skip()
        end
        if not again and L.current().i == step and not L.current().finished then
          verdict = verdict or "NO PASS: the step did not pass after the wrong answer"
        end
        verdict = verdict or "REFUSED"
      end
    end
    local key = verdict:match("^%u+[%u ]*%u") or verdict
    counts[key] = (counts[key] or 0) + 1
    if key ~= "REFUSED" then bad = bad + 1 end
    results[#results + 1] = ("%s %s step %d: %s"):format(key == "REFUSED" and "ok" or "FAIL", name, step, verdict)
  end
  L.stop(true)
  ::next_lesson::
end
repl.after_eval(true)
print("\n" .. table.concat(results, "\n"))
print(("%d of %d wrong answers refused with their hint, then the step passed"):format(counts.REFUSED, #results - skipped))
if bad == 0 and #results == skipped then os.exit(77) end   -- nothing could run here
os.exit(bad == 0 and 0 or 1)
