#!/usr/bin/env bats
# Memory windows on rxe (tests/lua/verbs_mw.lua checks every value itself:
# the bytes read and written through a window, the rkeys by inc_rkey's
# rule, the statuses); here the key observations once more, by value.
load ../helpers

setup() { require_device; }

@test "memory windows: type 1 and type 2 grant READ and WRITE, LOCAL_INV / SEND_WITH_INV / unbind revoke them" {
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
    [[ $output == *"verbs_mw: ok (72 checks)"* ]]
}

@test "memory windows: an MR without MW_BIND, a window past its MR and a zero-based window are explained" {
    run "$VERBSH" "$ROOT/tests/lua/verbs_mw.lua"
    [ "$status" -eq 0 ]
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
      print(mw.type, tostring(mw):match("^mw TYPE_2 rkey 0x%x+$") ~= nil, pd:alloc_mw(1).type)
      try(qp.bind_mw, qp, mw, { bind_info = { mr = mr, adr = 1 } })
      try(qp.post_send, qp, { opcode = "SEND", bind_mw = { mw = mw } })
      try(qp.post_send, qp, { opcode = "SEND_WITH_INV", imm_data = 1, invalidate_rkey = 2 })
      try(ud.post_send, ud, { opcode = "BIND_MW", bind_mw = { mw = mw, rkey = 1, bind_info = { mr = mr } } })
      try(verbs.send_wr, { opcode = "BIND_MW", bind_mw = { mw = mw, rkey = 1, bind_info = { mr = mr } } })
      try(function() mw.rkey = -1 end)
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
    [ "${lines[9]}" = "mw has no settable field 'handle'" ]
    [[ ${lines[10]} == "dealloc: pd1 is still used by 5 objects: "*"mw1 (mw TYPE_2 rkey 0x"*"mw2 (mw TYPE_1"* ]]
    [ "${lines[11]}" = "mw is destroyed" ]
}
