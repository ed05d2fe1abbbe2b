#!/usr/bin/env bats
# Object lifetimes on real rxe, checked against the kernel's own count
# (rdma resource show), and bad input that must never crash.
load ../helpers

setup() { require_device; }

counts() { rdma resource show | grep "$RXE_DEV:" | grep -o 'pd [0-9]* cq [0-9]* qp [0-9]* cm_id [0-9]* mr [0-9]*'; }

@test "lifecycle: use after destroy, parents listing children, GC in any order, <close>, lua_close at exit" {
    before=$(counts)
    run "$VERBSH" "$ROOT/tests/lua/verbs_lifecycle.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"pd:dealloc with children: dealloc: pd1 is still used by 2 objects: qp1 (qp RC 0x"*" RESET), mr1 (mr 4096 bytes lkey 0x"*"); destroy them first"* ]]
    [[ $output == *"verbs_lifecycle: ok (39 checks)"* ]]
    # nothing left behind once the process is gone
    [ "$(counts)" = "$before" ]
}

# A destroy refused because of users lists only users still reachable: the
# dropped ones are collected first, so the answer does not depend on when the
# collector last ran (with the trace on, it runs at other times).
@test "lifecycle: a refused destroy collects dropped users first: it names the one kept, not the five dropped" {
    run vsh '
      local ctx = verbs.open(os.getenv("RXE_DEV"))
      local kept = ctx:create_cq(3)
      collectgarbage("stop")
      for _ = 1, 5 do ctx:create_cq(4) end
      local ok, e = pcall(ctx.close, ctx)
      print(ok, e)
      kept:destroy()
      print(pcall(ctx.close, ctx))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "false	close: ctx1 is still used by 1 object: cq1 (cq cqe 3); destroy it first" ]
    [ "${lines[1]}" = "true" ]
}

@test "bad input: wrong types, unknown keys, out-of-range values name the function and key; explicit mask; trace" {
    run "$VERBSH" "$ROOT/tests/lua/verbs_badinput.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"bad argument #1 to 'modify' (unknown key 'qp_acess_flags' (did you mean 'qp_access_flags'?))"* ]]
    [[ $output == *"bad argument #1 to 'create_qp' (key 'send_cq': verbs.cq expected, got verbs.pd)"* ]]
    [[ $output == *"ibv_modify_qp(qp2, &attr1, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY) = 0"* ]]
    [[ $output == *"verbs_badinput: ok (92 checks)"* ]]
}

@test "verbs.trace(true) prints each verb as C on stderr" {
    run "$VERBSH" -e '
      verbs.trace(true)
      local ctx = verbs.open(); local pd = ctx:alloc_pd(); local mr = pd:reg_mr(64, { "LOCAL_WRITE", "REMOTE_READ" })
      mr:dereg(); pd:dealloc(); ctx:close()'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"open_device(\"$RXE_DEV\") = ctx1"$'\n'* ]]
    [[ $output == *$'ibv_alloc_pd(ctx1) = pd1\n'* ]]
    [[ $output == *$'void *buf_mr1 = calloc(1, 64);\nibv_reg_mr(pd1, buf_mr1, 64, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ) = mr1\n'* ]]
    [[ $output == *$'ibv_dereg_mr(mr1) = 0\nibv_dealloc_pd(pd1) = 0\nibv_close_device(ctx1) = 0'* ]]
}

@test "verbs.trace: a failed call's result has one form (the errno a verb returns, or -1 and errno)" {
    run "$VERBSH" -e '
      local rets = {}
      verbs.trace(function(call, ret) rets[call:match("^[%w_]+")] = ret end)
      local ctx = verbs.open(); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)
      local qp = pd:create_qp{qp_type = "RC", send_cq = cq, recv_cq = cq,
        cap = {max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1}}
      print(pcall(qp.modify, qp, {qp_state = "INIT", pkey_index = 0, port_num = 1}))
      verbs.trace(false)
      print("modify=" .. rets.ibv_modify_qp)'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"modify=22 /* EINVAL */"* ]]
}
