#!/usr/bin/env bats
# Issue 19, verbsh's own bugs: hostile tables, metamethods called by hand,
# re-entrant trace recorders, objects of another context, explanations of
# hostile WRs. Each scenario is tests/lua/robust_*.lua, which checks every
# message itself and prints "observed: ..."; here the key ones are asserted
# again. Each of them crashed, hung or corrupted memory before the fix.
load ../helpers

setup() { require_device; }

scenario() {
    run timeout 60 "$VERBSH" -e "arg = { [0] = '$ROOT/tests/lua/robust_$1.lua' }; dofile(arg[0])"
    echo "$output"
}

@test "objects read from tables: raw, checked, one read (create_qp, create_qp_ex, create_cq, create_cq_ex, id:create_qp, prepared WRs)" {
    scenario deps
    [ "$status" -eq 0 ]
    [ "$(grep -c '__index gives .*: ok$' <<<"$output")" -eq 13 ]
    [[ $output == *"observed: create_qp srq=pd: "*"bad argument #1 to 'create_qp' (key 'srq': verbs.srq expected, got verbs.pd)"* ]]
    [[ $output == *"(key 'send_cq': verbs.cq expected, got number)"* ]]
    [[ $output == *"bad argument #2 to 'create_cq' (key 'channel': verbs.comp_channel expected, got verbs.mr)"* ]]
    [[ $output == *"(key 'recv_cq': cq is destroyed)"* ]]
    [[ $output == *"bad argument #2 to 'create_qp' (key 'srq': verbs.srq expected, got verbs.cq)"* ]]
    [[ $output == *"observed: id:create_qp send_cq of another context: "*"(key 'send_cq': cq1 belongs to ctx1, but pd"* ]]
    [[ $output == *"observed: send_wr with an sg_list __index: ok"* ]]
    [[ $output == *"this prepared WR names mr2, which is destroyed since"* ]]
    [[ $output == *"robust_deps: ok"* ]]
}

@test "metamethods and methods check their self: a number, a table, another class -> an error naming the class" {
    scenario meta
    [ "$status" -eq 0 ]
    [[ $output == *"observed: pd __tostring(5): "*"__tostring of verbs.pd: self must be a verbs.pd, got number"* ]]
    [[ $output == *"__index of verbs.cq's methods: a table of a cq's own methods expected, got table"* ]]
    [[ $output == *"__gc of verbs.pd: self must be a verbs.pd, got verbs.send_wr"* ]]
    [[ $output == *"__index of verbs.mr's methods: a table of a mr's own methods expected, got verbs.cq"* ]]
    [[ $output == *"calling 'reg_mr' on bad self (verbs.pd expected, got verbs.cq)"* ]]
    [[ $output == *"cq is finalized (reading 'cqe')"* ]]
    [[ $output == *"robust_meta: ok"* ]]
}

@test "a verbs.trace recorder or a __gc that calls back into verbs: no double destroy, no use after free, no hang" {
    scenario trace
    [ "$status" -eq 0 ]
    [[ $output == *"observed: dereg inside dereg's recorder: "*"mr is destroyed"* ]]
    # the trace runs once the verb returned: destroying from it is safe
    [[ $output == *"observed: dealloc pd inside destroy ah's recorder: ok"* ]]
    [[ $output == *"observed: destroy qp inside modify's recorder: ok"* ]]
    [[ $output == *"observed: destroy qp inside post_recv's recorder: ok"* ]]
    [[ $output == *"observed: destroy qp inside wr_complete's recorder: ok"* ]]
    [[ $output == *"observed: destroy id inside connect's recorder: ok"* ]]
    [[ $output == *"observed: destroy cq inside get_cq_event's recorder: ok"* ]]
    [[ $output == *"verbs.trace: recorder failed: "*"boom"* ]]
    [[ $output == *"observed: a failing recorder leaves the verb's result: pd (destroyed)"* ]]
    [[ $output == *"observed: verbs called by a recorder: not recorded (ibv_alloc_pd(ctx"* ]]
    [[ $output == *"observed: destroy from a __gc run by collectgarbage(): ok"* ]]
    [[ $output == *"observed: destroy from a __gc run inside a binding: destroy: not from a __gc metamethod that the garbage collector runs inside '"* ]]
    [[ $output == *"robust_trace: ok"* ]]
}

@test "objects of another context are refused, in calls and in posted WRs, naming both contexts; GC never closes a context under a live QP" {
    scenario context
    [ "$status" -eq 0 ]
    [[ $output == *"(key 'pd': pd1 belongs to ctx1, not to ctx2: the kernel looks handles up in the context of the call"* ]]
    [[ $output == *"(key 'recv_cq': cq1 belongs to ctx1, but pd2 belongs to ctx2:"* ]]
    [[ $output == *"(key 'srq': srq1 belongs to ctx1, but pd2 belongs to ctx2:"* ]]
    [[ $output == *"bad argument #2 to 'create_cq' (key 'channel': channel1 belongs to ctx1, not to ctx2:"* ]]
    # in posted WRs: SGE MRs and ud.ah, plain, in lists, prepared, and the wr_set_* setters
    [[ $output == *"bad argument #1 to 'post_recv' (key 'sg_list[1].mr': mr2 belongs to ctx2, but qp1 belongs to ctx1: the device looks a posted WR's lkeys and AH up in the context of the qp"* ]]
    [[ $output == *"(key '[2].sg_list[2].mr': mr2 belongs to ctx2, but qp1 belongs to ctx1:"* ]]
    [[ $output == *"(key 'sg_list[1].mr': mr2 belongs to ctx2, but srq1 belongs to ctx1:"* ]]
    [[ $output == *"observed: receives rc1 held: wr_id 6"* ]]
    [[ $output == *"bad argument #1 to 'post_send' (key 'ud.ah': ah2 belongs to ctx2, but qp2 belongs to ctx1:"* ]]
    [[ $output == *"observed: ud1:post_send(verbs.send_wr{..., {ud = {ah = ah2}}}): "*"(key '[2].ud.ah': ah2 belongs to ctx2"* ]]
    [[ $output == *"observed: ud1:post_send(verbs.send_wr{..., {sg_list = {.., {mr = mr2}}}}): "*"(key '[2].sg_list[2].mr': mr2 belongs to ctx2"* ]]
    [[ $output == *"observed: ud1 after the refusals: wc wr_id=15 SEND SUCCESS"* ]]
    [[ $output == *"bad argument #1 to 'wr_set_sge_list' (key 'sg_list[1].mr': mr2 belongs to ctx2, but qp3 belongs to ctx1:"* ]]
    [[ $output == *"bad argument #1 to 'wr_set_ud_addr' (ah2 belongs to ctx2, but qp3 belongs to ctx1:"* ]]
    [[ $output == *"bad argument #1 to 'wr_set_sge' (mr2 belongs to ctx2, but qp3 belongs to ctx1:"* ]]
    [[ $output == *"observed: qp2 after its context, PD and CQ were collected: qp RC 0x"*" INIT"* ]]
    [[ $output == *"observed: kernel CQs of this process after GC: "*", as before c2"* ]]
    [[ $output == *"robust_context: ok"* ]]
}

@test "the explanation of a hostile WR or attr reads them raw: it ends, and runs no user metamethod" {
    scenario explain
    [ "$status" -eq 0 ]
    [[ $output == *"observed: INLINE send, sg_list with an endless __index: ibv_post_send failed: EINVAL"* ]]
    [[ $output == *"observed: modify with an endless __pairs attr: ibv_modify_qp failed: EINVAL"* ]]
    [[ $output == *"robust_explain: ok"* ]]
}

@test "issue 19 items 7-10: librdmacm and provider preconditions are checked before the call (no SEGV), ignored keys refused" {
    run "$VERBSH" "$ROOT/tests/lua/robust_preconditions.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"resolve_route first:"*"rdma_resolve_route: this cm_id has no device yet"* ]]
    [[ $output == *"UD with rdma:"*"its remote_addr would be taken for the AH pointer"* ]]
    [[ $output == *"robust_preconditions: ok (25 checks)"* ]]
}
