-- The mistakes corpus: what a C programmer new to RDMA gets wrong, each
-- with the guidance verbsh must show. Every case is Lua code run against
-- fresh objects on the device; `want` are the strings its error (or, for
-- `warn`, its strict-mode error) must contain. tests/mistakes/run.lua runs
-- them; tests/device/mistakes.bats runs that on both binaries.
--
-- Objects every case sees: ctx, pd, cq, mr (4 KiB, LOCAL_WRITE|REMOTE_*),
-- rc (an RC QP in RESET), rc2 (its peer), ud (a UD QP in RESET), port
-- (1), gid_index, and the helpers init(qp), rtr(qp, peer), rts(qp).
return {
  -- Typos and C habits in table keys ------------------------------------
  { "typo in a modify key", [[rc:modify{qp_state = "INIT", pkey_index = 0, port_num = 1, qp_acess_flags = 0}]],
    { "unknown key 'qp_acess_flags' (did you mean 'qp_access_flags'?)" } },
  { "C's dest_qp", [[init(rc); rc:modify{qp_state = "RTR", dest_qp = rc2.qp_num}]],
    { "unknown key 'dest_qp' (did you mean 'dest_qp_num'?)" } },
  { "access_flags for qp_access_flags", [[rc:modify{qp_state = "INIT", pkey_index = 0, port_num = 1, access_flags = 0}]],
    { "unknown key 'access_flags' (did you mean 'qp_access_flags'?)" } },
  { "rkey at the top of a WR", [[rc:post_send{opcode = "RDMA_WRITE", rkey = mr.rkey}]],
    { "did you mean rdma = { rkey = ... }? in C: wr.rdma.rkey" } },
  { "C's wr.rdma", [[rc:post_send{opcode = "RDMA_WRITE", wr = { rdma = { rkey = 1 } }}]],
    { "C's wr.rdma, wr.atomic and wr.ud are the keys rdma, atomic and ud here" } },
  { "num_sge given", [[rc:post_recv{wr_id = 1, num_sge = 1, sg_list = {{mr = mr, offset = 0, length = 8}}}]],
    { "unknown key 'num_sge' (did you mean 'sg_list'?)" } },
  { "sge for sg_list", [[rc:post_recv{wr_id = 1, sge = {{mr = mr, length = 8}}}]],
    { "unknown key 'sge' (did you mean 'sg_list'?)" } },
  { "imm for imm_data", [[rc:post_send{opcode = "SEND_WITH_IMM", imm = 5}]],
    { "unknown key 'imm' (did you mean 'imm_data'?)" } },
  { "flags for send_flags", [[rc:post_send{opcode = "SEND", flags = "SIGNALED"}]],
    { "unknown key 'flags' (did you mean 'send_flags'?)" } },
  { "typo in cap", [[pd:create_qp{qp_type = "RC", send_cq = cq, recv_cq = cq, cap = {max_send_wr = 1, max_recv_wr = 1, max_send_sg = 1}}]],
    { "unknown key 'cap.max_send_sg' (did you mean 'max_send_sge'?)" } },
  { "cap key misspelt", [[pd:create_qp{qp_type = "RC", send_cq = cq, recv_cq = cq, cap = {max_send_wrs = 1}}]],
    { "unknown key 'cap.max_send_wrs' (did you mean 'max_send_wr'?)" } },
  { "sq_sig typo", [[pd:create_qp{qp_type = "RC", send_cq = cq, recv_cq = cq, sq_sig = 1, cap = {max_send_wr = 1}}]],
    { "unknown key 'sq_sig' (did you mean 'sq_sig_all'?)" } },
  { "qp_state misspelt", [[rc:modify{qpstate = "INIT"}]], { "unknown key 'qpstate' (did you mean 'qp_state'?)" } },
  { "grh key at ah_attr's level", [[pd:create_ah{is_global = 1, port_num = 1, dgid = "::1"}]],
    { "did you mean grh = { dgid = ... }?" } },
  { "sgid_index at ah_attr's level", [[pd:create_ah{is_global = 1, port_num = 1, sgid_index = 1}]],
    { "did you mean grh = { sgid_index = ... }?" } },
  { "a key nobody could guess", [[rc:post_recv{wr_id = 1, zzz = 1}]],
    { "unknown key 'zzz' (keys: wr_id, sg_list" } },
  { "an integer key in an attr table", [[rc:modify{"INIT"}]], { "unexpected key 1 (keys are field names)" } },

  -- Enum and flag values -------------------------------------------------
  { "path_mtu in bytes", [[init(rc); rc:modify{qp_state = "RTR", path_mtu = 1024}]],
    { "1024 is not a value of ibv_mtu: use the name \"1024\" (IBV_MTU_1024 = 3)" } },
  { "path_mtu 4000", [[init(rc); rc:modify{qp_state = "RTR", path_mtu = 4000}]],
    { "4000 is not a value of ibv_mtu", "\"4096\" = 5" } },
  { "a state name misspelt", [[rc:modify{qp_state = "RSET"}]], { "'RSET' is not a name of ibv_qp_state: did you mean \"RESET\"?" } },
  { "a state in lowercase", [[rc:modify{qp_state = "init"}]], { "'init' is not a name of ibv_qp_state: did you mean \"INIT\"?" } },
  { "an access flag misspelt", [[pd:reg_mr(64, "REMOTE_WRTIE")]], { "did you mean \"REMOTE_WRITE\"?" } },
  { "an opcode misspelt", [[rc:post_send{opcode = "RDMA_WIRTE"}]], { "did you mean \"RDMA_WRITE\"?" } },
  { "an opcode from the wrong enum", [[rc:post_send{opcode = "RECV"}]], { "'RECV' is not a name of ibv_wr_opcode" } },
  { "qp_type misspelt", [[pd:create_qp{qp_type = "RCC", send_cq = cq, recv_cq = cq, cap = {max_send_wr = 1}}]],
    { "did you mean \"RC\"?" } },
  { "a send flag misspelt", [[rc:post_send{opcode = "SEND", send_flags = "SIGNALLED"}]], { "did you mean \"SIGNALED\"?" } },
  { "full C name with a typo", [[rc:modify{qp_state = "IBV_QPS_RTSS"}]], { "did you mean \"RTS\"?" } },
  { "an unknown state number", [[rc:modify{qp_state = 42}]], { "42 is not a value of ibv_qp_state", "\"RESET\" = 0" } },
  { "flags as a number list item of wrong type", [[pd:reg_mr(64, {"LOCAL_WRITE", true})]], { "item 2 is a boolean" } },

  -- Values out of range (field widths of the IBA) -----------------------
  { "retry_cnt 8", [[rc:modify{qp_state = "INIT", retry_cnt = 8}]], { "key 'retry_cnt': 8 is out of range (0..7)" } },
  { "rnr_retry 8", [[rc:modify{qp_state = "INIT", rnr_retry = 8}]], { "key 'rnr_retry': 8 is out of range (0..7)" } },
  { "min_rnr_timer 32", [[rc:modify{qp_state = "INIT", min_rnr_timer = 32}]], { "key 'min_rnr_timer': 32 is out of range (0..31)" } },
  { "timeout 32", [[rc:modify{qp_state = "INIT", timeout = 32}]], { "key 'timeout': 32 is out of range (0..31)" } },
  { "sl 16", [[pd:create_ah{port_num = 1, sl = 16}]], { "key 'sl': 16 is out of range (0..15)" } },
  { "a 25-bit PSN", [[rc:modify{qp_state = "INIT", sq_psn = 0x1000000}]], { "key 'sq_psn'", "out of range (0..16777215)" } },
  { "flow_label 21 bits", [[pd:create_ah{is_global = 1, port_num = 1, grh = {flow_label = 0x100000}}]],
    { "key 'grh.flow_label'", "out of range (0..1048575)" } },
  { "a negative length", [[rc:post_recv{wr_id = 1, sg_list = {{mr = mr, offset = 0, length = -1}}}]], { "length" } },

  -- Wrong types ----------------------------------------------------------
  { "a string for a number", [[rc:modify{qp_state = "INIT", pkey_index = "0"}]], { "key 'pkey_index'" } },
  { "a QP where a CQ goes", [[pd:create_qp{qp_type = "RC", send_cq = rc, recv_cq = cq, cap = {max_send_wr = 1}}]],
    { "key 'send_cq': verbs.cq expected, got verbs.qp" } },
  { "an MR from a number", [[rc:post_recv{wr_id = 1, sg_list = {{mr = 5, length = 8}}}]], { "mr" } },
  { "modify with a string", [[rc:modify("INIT")]], { "table expected" } },
  { "sg_list not a list", [[rc:post_recv{wr_id = 1, sg_list = {mr = mr, length = 8}}]], { "sg_list" } },

  -- Missing attributes, nil values and wrong order -----------------------
  { "modify with nothing", [[rc:modify{}]], { "no attributes: ibv_modify_qp with attr_mask 0 changes nothing" } },
  { "an undefined global as the state", [[rc:modify{qp_state = RTS_UNQUOTED}]],
    { "an undefined global RTS instead of \"RTS\", leaves its key out" } },
  { "RESET to RTR", [[rc:modify{qp_state = "RTR"}]], { "ibv_modify_qp failed: EINVAL", "RESET->RTR" } },
  { "INIT without port_num", [[rc:modify{qp_state = "INIT", pkey_index = 0, qp_access_flags = 0}]],
    { "EINVAL", "port_num" } },
  { "RTR without ah_attr", [[init(rc); rc:modify{qp_state = "RTR", path_mtu = "1024", dest_qp_num = rc2.qp_num, rq_psn = 0, max_dest_rd_atomic = 1, min_rnr_timer = 12}]],
    { "EINVAL", "ah_attr" } },
  { "RTS without timeout", [[init(rc); rtr(rc, rc2); rc:modify{qp_state = "RTS", sq_psn = 0, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1}]],
    { "EINVAL", "timeout" } },
  { "RTR twice", [[init(rc); rtr(rc, rc2); rtr(rc, rc2)]],
    { "EINVAL", "the QP is already in RTR", "go back through RESET", "RESET->INIT->RTR one qp:modify per step" } },
  { "UD INIT with qp_access_flags", [[ud:modify{qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = 1, qp_access_flags = 0}]],
    { "EINVAL", "qp_access_flags" } },
  { "post_recv in RESET", [[rc:post_recv{wr_id = 1, sg_list = {{mr = mr, offset = 0, length = 8}}}]], { "EINVAL" } },
  { "post_send before RTS", [[init(rc); rc:post_send{opcode = "SEND", sg_list = {{mr = mr, length = 8}}}]], { "EINVAL" } },
  { "no opcode", [[rc:post_send{wr_id = 1}]], { "key 'opcode' is required (in C, 0 is IBV_WR_RDMA_WRITE)" } },
  { "create_qp without send_cq", [[pd:create_qp{qp_type = "RC", recv_cq = cq, cap = {max_send_wr = 1}}]], { "send_cq" } },
  { "create_qp without qp_type", [[pd:create_qp{send_cq = cq, recv_cq = cq, cap = {max_send_wr = 1}}]], { "qp_type" } },
  { "a UD send without ud", [[init(ud); ud:post_send{opcode = "SEND"}]], { "ud.ah" } },
  { "REMOTE_WRITE without LOCAL_WRITE", [[pd:reg_mr(64, "REMOTE_WRITE")]],
    { "EINVAL", "REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE too", 'add LOCAL_WRITE: access = { "LOCAL_WRITE", "REMOTE_WRITE" }' } },
  { "an MR of 0 bytes", [[pd:reg_mr(0, "LOCAL_WRITE")]],
    { "EINVAL", "the length is 0: ibv_reg_mr registers at least one byte", "give a length of 1 or more" } },

  { "a receive shorter than the SEND (issue 13: explained as a length, checked on rxe)", [[
      init(rc); init(rc2); rtr(rc, rc2); rtr(rc2, rc); rts(rc); rts(rc2)
      rc2:post_recv{wr_id = 100, sg_list = {{mr = mr, offset = 0, length = 2}}}
      rc:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr, offset = 64, length = 5}}}
      local w = cq:wait(2, 2000)
      local by = {}
      for _, wc in ipairs(w) do by[wc.wr_id] = wc.status end
      error(("send %s, recv %s\n%s\n%s"):format(by[1], by[100], verbs.explain(by[1]), verbs.explain(by[100])))]],
    { "send REM_OP_ERR, recv LOC_QP_OP_ERR", "its receive is shorter than this SEND",
      "a receive too small: an RC or UC receive shorter than the SEND" } },

  -- Things C accepts but that are almost always a mistake (strict mode) --
  { "RDMA_WRITE without rdma", [[rc:post_send{opcode = "RDMA_WRITE", sg_list = {{mr = mr, length = 8}}}]],
    { "RDMA_WRITE without rdma: remote_addr 0, rkey 0, as C would post it", "verbs.strict(true)" }, warn = true },
  { "RDMA_READ without rdma", [[rc:post_send{opcode = "RDMA_READ"}]],
    { "RDMA_READ without rdma: remote_addr 0, rkey 0" }, warn = true },
  { "an atomic without atomic", [[rc:post_send{opcode = "ATOMIC_FETCH_AND_ADD"}]],
    { "ATOMIC_FETCH_AND_ADD without atomic: remote_addr 0, rkey 0" }, warn = true },

  -- The verbs table, extra arguments, C's argument order -----------------
  { "a verbs function misspelt", [[return verbs.opne()]], { "verbs has no field 'opne'; did you mean 'open'?" } },
  { "C's function name on verbs", [[return verbs.ibv_open_device()]],
    { "verbs has no field 'ibv_open_device'; did you mean 'open'? (C's ibv_open_device is verbs.open([name]) in verbsh)" } },
  { "a C struct misspelt in verbs.fields", [[return verbs.fields("ibv_qp_atr")]],
    { "bad argument #1 to 'verbs.fields' (unknown C struct 'ibv_qp_atr'; did you mean 'ibv_qp_attr'?" } },
  { "an attr_mask given to qp:query", [[return rc:query("qp_state")]],
    { "bad argument #1 to 'query' (qp:query() takes no arguments", "it queries every attribute" } },
  { "C's positional channel to create_cq", [[return ctx:create_cq(4, ctx:create_comp_channel())]],
    { "bad argument #2 to 'create_cq'", "e.g. ctx:create_cq(16, { channel = ch })" } },
  { "flag bits no flag defines", [[rc:modify{qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0xFFFFFFFF}]],
    { "key 'qp_access_flags': 0xffefff00 has bits no IBV_ACCESS_* flag defines" } },
  { "an rdma_cm port above 65535", [[verbs.create_event_channel():create_id("TCP"):bind_addr("*:70000")]],
    { "bad argument #1 to 'bind_addr' (addr '*:70000': port 70000 is out of range (0..65535))" } },

  -- Objects: typos in fields and methods, use after destroy -------------
  { "a field misspelt", [[return rc.qpnum]], { "qp has no field 'qpnum'; did you mean 'qp_num'?" } },
  { "a method misspelt", [[rc:modfy{}]], { "qp has no field 'modfy'; did you mean 'modify'?" } },
  { "the C verb name as a method", [[rc:modify_qp{}]], { "qp has no field 'modify_qp'; did you mean 'modify'?" } },
  { "an MR field misspelt", [[return mr.lkye]], { "mr has no field 'lkye'; did you mean 'lkey'?" } },
  { "a CQ method misspelt", [[cq:pol()]], { "cq has no field 'pol'; did you mean 'poll'?" } },
  { "a field nobody could guess", [[return pd.zzz]], { "pd has no field or method 'zzz' (help(pd) lists them)" } },
  { "use after destroy", [[local m = pd:reg_mr(64, "LOCAL_WRITE"); m:dereg(); return m.lkey]], { "mr is destroyed" } },
  { "destroy twice", [[local m = pd:reg_mr(64, "LOCAL_WRITE"); m:dereg(); m:dereg()]], { "destroyed" } },
  { "dealloc a PD in use", [[local p = ctx:alloc_pd(); local m = p:reg_mr(64, "LOCAL_WRITE"); p:dealloc()]], { "is still used by 1 object: mr", "dereg it first" } },
  { "wait with a timeout that ends it short", [[local l, why = cq:wait(1, 20); error(why)]],
    { "timed out after 20 ms: 0 of 1 completions" } },
  { "a negative timeout", [[cq:wait(1, -5)]], { "bad argument #2 to 'wait' (timeout_ms: -5 is negative)" } },
  { "a prepared WR's field misspelt", [[local w = verbs.send_wr{opcode = "SEND"}; return w.opcdoe]],
    { "struct ibv_send_wr has no field 'opcdoe' (did you mean 'opcode'?)" } },
  { "a verbs object with no fd given to wait_fds", [[verbs.wait_fds({mr}, 10)]],
    { "[1]: a comp_channel, cm_channel, context, cm_id, socket (getfd) or integer fd expected, got verbs.mr" } },
  { "a negative access flags value", [[pd:reg_mr(16, math.mininteger)]],
    { "ibv_access_flags: -9223372036854775808 is negative" } },
}
