#!/usr/bin/env bats
# Memory windows on rxe (tests/lua/verbs_mw.lua checks every value itself:
# the bytes read and written through a window, the rkeys by inc_rkey's
# rule, the statuses); here the key observations once more, by value.
load ../helpers

setup() { require_device; }

@test "memory windows: type 1 and type 2 grant READ and WRITE, LOCAL_INV / SEND_WITH_INV / unbind revoke them; mistakes explained" {
    run "$VERBSH" "$ROOT/tests/lua/verbs_mw.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "observed: type 1 bind: BIND_MW SUCCESS rkey +1 in the low byte: true"
    has_line "observed: type 1 READ: ghijklmnopqrstuvwxyzABCDEFGHIJKL"
    has_line "observed: READ one byte past the window, inside the MR: SUCCESS"
    has_line "observed: READ one byte past the MR: REM_ACCESS_ERR"
    has_line "observed: type 1 READ after unbind: REM_ACCESS_ERR"
    has_line "observed: type 1 WRITE after unbind: REM_ACCESS_ERR"
    has_line "observed: type 2 READ: EFGHIJKL"
    [[ $output == *"observed: SEND_WITH_INV receive: wc wr_id=31 RECV SUCCESS byte_len=3 invalidated_rkey=0x"*" wc_flags=GRH|IP_CSUM_OK"* ]]
    has_line "observed: type 2 READ after SEND_WITH_INV: REM_ACCESS_ERR"
    has_line "observed: type 2 WRITE after LOCAL_INV: REM_ACCESS_ERR"
    has_line "observed: extended API: bind, read, send_inv, bind, local_inv, read refused"
    [[ $output == *"verbs_mw: ok (73 checks)"* ]]
    # the mistakes, each explained: an MR without MW_BIND, a window past its MR, a zero-based window
    has_line "observed: bind to an MR without MW_BIND: MW_BIND_ERR"
    [[ $output == *"verbsh warning: "*"bind_info.mr was registered without MW_BIND: the bind will complete with MW_BIND_ERR"* ]]
    [[ $output == *"cause: memory window bind failed: the MR was registered without MW_BIND"* ]]
    has_line "observed: bind past the MR: MW_BIND_ERR"
    [[ $output == *"verbsh warning: "*"is not inside its MR ("*"..+64): the bind will complete with MW_BIND_ERR"* ]]
    has_line "observed: zero-based type 1 window: ibv_bind_mw EINVAL"
    [[ $output == *"why: a zero-based type 1 window: the IBTA does not allow type 1 windows to be zero-based"* ]]
    has_line "observed: type 2 through qp:bind_mw: EINVAL"
    has_line "observed: dereg of an MR with a bound window: ibv_dereg_mr EINVAL"
}

@test "memory windows: bad input is refused naming the key, and a window outlives nothing it needs" {
    run "$VERBSH" -e '
      local ctx = verbs.open(); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)
      local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,
        cap = { max_send_wr = 2, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
      local ud = pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq,
        cap = { max_send_wr = 2, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
      local mr = pd:reg_mr(64, { "LOCAL_WRITE", "MW_BIND" })
      local function try(f, ...) local ok, e = pcall(f, ...); print((tostring(e):gsub("^[^\n]-:%d+: ", ""):match("[^\n]*"))) end
      try(pd.alloc_mw, pd)
      try(pd.alloc_mw, pd, "TYPE_3")
      local mw = pd:alloc_mw("IBV_MW_TYPE_2")
      local mw_1 = pd:alloc_mw(1)   -- kept: the dealloc below must find it, whenever the collector runs
      print(mw.type, tostring(mw):match("^mw TYPE_2 rkey 0x%x+$") ~= nil, mw_1.type)
      try(qp.bind_mw, qp, mw, { bind_info = { mr = mr, adr = 1 } })
      try(qp.post_send, qp, { opcode = "SEND", bind_mw = { mw = mw } })
      try(qp.post_send, qp, { opcode = "SEND_WITH_INV", imm_data = 1, invalidate_rkey = 2 })
      try(ud.post_send, ud, { opcode = "BIND_MW", bind_mw = { mw = mw, rkey = 1, bind_info = { mr = mr } } })
      try(verbs.send_wr, { opcode = "BIND_MW", bind_mw = { mw = mw, rkey = 1, bind_info = { mr = mr } } })
      try(function() mw.rkey = -1 end)
      try(function() mw.rkey = 0x100000000 end)
      local k = mw.rkey; mw.rkey = 0xffffffff; print(("0x%x"):format(mw.rkey)); mw.rkey = k
      try(function() mw.handle = 1 end)
      try(pd.dealloc, pd)
      mw:dealloc()
      try(mw.dealloc, mw)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "bad argument #1 to 'alloc_mw' (type expected: \"TYPE_1\" (bound with qp:bind_mw) or \"TYPE_2\" (bound with a BIND_MW work request))" ]
    [[ ${lines[1]} == "bad argument #1 to 'alloc_mw' ("*"TYPE_3"* ]]
    [ "${lines[2]}" = "TYPE_2	true	TYPE_1" ]
    [[ ${lines[3]} == *"unknown key 'bind_info.adr'"*"addr"* ]]
    [[ ${lines[4]} == *"key 'bind_mw' with opcode SEND, which does not use it"* ]]
    [[ ${lines[5]} == *"imm_data and invalidate_rkey share a union in ibv_send_wr"* ]]
    [[ ${lines[6]} == *"opcode BIND_MW on a UD QP: windows are bound through an RC or UC QP"* ]]
    [[ ${lines[7]} == *"verbs.send_wr does not prepare BIND_MW"* ]]
    [[ ${lines[8]} == "mw.rkey: a 32-bit rkey expected, got -1" ]]
    [[ ${lines[9]} == "mw.rkey: a 32-bit rkey expected, got 4294967296" ]]
    [ "${lines[10]}" = "0xffffffff" ]   # (the largest: set as C would, and put back)
    [ "${lines[11]}" = "mw has no settable field 'handle'" ]
    [[ ${lines[12]} == "dealloc: pd1 is still used by 5 objects: "*"mw1 (mw TYPE_2 rkey 0x"*"mw2 (mw TYPE_1"* ]]
    [ "${lines[13]}" = "mw is destroyed" ]
}

@test "memory windows: an extended CQ reads the invalidated rkey (read_invalidated_rkey, and cq:iter's WC)" {
    run "$VERBSH" -e '
      local ctx = verbs.open(); local pd = ctx:alloc_pd()
      local gi = tonumber(os.getenv("RXE_GID_INDEX")); local gid = ctx:query_gid(1, gi)
      local scq = ctx:create_cq(8)
      local rcq = ctx:create_cq_ex{ cqe = 8, wc_flags = { "BYTE_LEN", "IMM", "QP_NUM" } }
      local cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 }
      local a = pd:create_qp{ qp_type = "RC", send_cq = scq, recv_cq = scq, cap = cap }
      local b = pd:create_qp{ qp_type = "RC", send_cq = scq, recv_cq = rcq, cap = cap }
      for _, p in ipairs{ { a, b }, { b, a } } do
        p[1]:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = "REMOTE_READ" }
        p[1]:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = p[2].qp_num, rq_psn = 0, max_dest_rd_atomic = 1,
          min_rnr_timer = 1, ah_attr = { is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = gi } } }
        p[1]:modify{ qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1 }
      end
      local mr = pd:reg_mr(64, { "LOCAL_WRITE", "MW_BIND" })
      local mw = pd:alloc_mw("TYPE_2")
      for round = 1, 2 do
        local k = verbs.inc_rkey(mw.rkey)
        b:post_send{ wr_id = 1, opcode = "BIND_MW", send_flags = "SIGNALED",
          bind_mw = { mw = mw, rkey = k, bind_info = { mr = mr, addr = mr.addr, length = 64, mw_access_flags = "REMOTE_READ" } } }
        assert(scq:wait(1, 5000)[1].status == "SUCCESS")
        mw.rkey = k
        b:post_recv{ wr_id = 2, sg_list = { { mr = mr, offset = 0, length = 16 } } }
        a:post_send{ wr_id = 3, opcode = "SEND_WITH_INV", send_flags = "SIGNALED", invalidate_rkey = k,
          sg_list = { { mr = mr, offset = 32, length = 4 } } }
        assert(scq:wait(1, 5000)[1].status == "SUCCESS")
        for _ = 1, 500 do if rcq:start_poll() then break end os.execute("sleep 0.01") end
        if round == 1 then
          print(rcq.wr_id, rcq.status, rcq:read_byte_len(), rcq:read_invalidated_rkey() == k, rcq:read_wc_flags()[2])
          rcq:end_poll()
        else
          rcq:end_poll()
        end
      end
      b:post_recv{ wr_id = 4, sg_list = { { mr = mr, offset = 0, length = 16 } } }
      local k = verbs.inc_rkey(mw.rkey)
      b:post_send{ wr_id = 5, opcode = "BIND_MW", send_flags = "SIGNALED",
        bind_mw = { mw = mw, rkey = k, bind_info = { mr = mr, addr = mr.addr, length = 64, mw_access_flags = "REMOTE_READ" } } }
      scq:wait(1, 5000)
      a:post_send{ wr_id = 6, opcode = "SEND_WITH_INV", send_flags = "SIGNALED", invalidate_rkey = k,
        sg_list = { { mr = mr, offset = 32, length = 4 } } }
      scq:wait(1, 5000)
      os.execute("sleep 0.2")
      for wc in rcq:iter() do print(wc.wr_id, wc.invalidated_rkey == k, wc.imm_data) end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "2	SUCCESS	4	true	IP_CSUM_OK" ]
    [ "${lines[1]}" = "4	true	nil" ]
}

@test "memory windows: a dropped type 2 window bound through a QP is collected before the QP is destroyed (rxe would wait 50 s for it and warn in the kernel log)" {
    local before
    before=$(dmesg 2>/dev/null | grep -c "WARNING: .*drivers/infiniband/sw/rxe/" || true)
    run "$VERBSH" "$ROOT/tests/lua/mw_dropped.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "ibv_destroy_qp(qp3) = 0"
    has_line "ibv_destroy_qp(qp2) = 0"
    has_line $'kept\tTYPE_2\ttrue'
    [ "${lines[-1]}" = done ]
    dmesg 2>/dev/null | grep "WARNING: .*drivers/infiniband/sw/rxe/" || true
    [ "$(dmesg 2>/dev/null | grep -c "WARNING: .*drivers/infiniband/sw/rxe/" || true)" = "$before" ]
}
