#!/usr/bin/env bats
# The REPL with real verbs objects, on a pty.
load ../helpers

setup() { require_device; }

repl() {
    printf '%s\n' "$1" >"$BATS_TEST_TMPDIR/frag.exp"
    HOME=$BATS_TEST_TMPDIR TERM=dumb expect "$ROOT/tests/pty/repl.exp" "$VERBSH" "$BATS_TEST_TMPDIR/frag.exp"
}

@test "repl: Ctrl-C interrupts cq:wait on an empty CQ and the shell goes on" {
    run repl '
        set timeout 60
        prompt; type "ctx = verbs.open(); cq = ctx:create_cq(4)"
        prompt; type "t0 = verbs.now(); cq:wait(1, 600000)"
        sleep 2; send "\003"; see "interrupted"
        prompt; type "print((\"waited %.1f s\"):format(verbs.now() - t0))"; see "waited"
        prompt; type "print(#cq:poll())"; see "0"
        prompt; send "\004"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
    # it was Ctrl-C, not the 600 s timeout, that ended the wait
    secs=$(sed -n 's/.*waited \([0-9.]*\) s.*/\1/p' <<<"$output" | tail -1)
    awk -v s="$secs" 'BEGIN { exit !(s >= 1 && s < 60) }'
}

@test "repl: Tab completes the methods of a verbs object (qp:mo -> qp:modify)" {
    run repl '
        set timeout 60
        prompt; type "ctx = verbs.open(); pd = ctx:alloc_pd(); cq = ctx:create_cq(4)"
        prompt; type "qp = pd:create_qp{qp_type = \"RC\", send_cq = cq, recv_cq = cq, cap = {max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1}}"
        prompt; send "qp:mo\t{qp_state = \"INIT\", pkey_index = 0, port_num = 1, qp_access_flags = 0}\r"
        prompt; type "print(\"state=\" .. qp.state)"; see "state=INIT"
        prompt; send "\004"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "repl: a verbs object prints by its __tostring, a failed verb prints its explanation" {
    run repl '
        set timeout 60
        prompt; type "ctx = verbs.open(); pd = ctx:alloc_pd(); cq = ctx:create_cq(4)"
        prompt; type "qp = pd:create_qp{qp_type = \"RC\", send_cq = cq, recv_cq = cq, cap = {max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1}}"
        prompt; type "qp"; see "qp RC 0x"; see "RESET"
        prompt; type "qp:modify{qp_state = \"INIT\", pkey_index = 0, port_num = 1}"
        see "ibv_modify_qp failed: EINVAL"; see "IBV_QP_ACCESS_FLAGS"
        prompt; send "\004"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "repl: Ctrl-C interrupts verbs.wait_fds on a quiet completion channel" {
    run repl '
        set timeout 60
        prompt; type "ctx = verbs.open(); ch = ctx:create_comp_channel(); cq = ctx:create_cq(4, {channel = ch}); cq:req_notify()"
        prompt; type "t0 = verbs.now(); verbs.wait_fds({ch})"
        sleep 2; send "\003"; see "interrupted"
        prompt; type "print((\"waited %.1f s\"):format(verbs.now() - t0))"; see "waited"
        prompt; type "t0 = verbs.now(); ch:get_cq_event()"
        sleep 2; send "\003"; see "interrupted"
        prompt; type "print((\"again %.1f s\"):format(verbs.now() - t0))"; see "again"
        prompt; send "\004"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
    secs=$(sed -n 's/.*waited \([0-9.]*\) s.*/\1/p' <<<"$output" | tail -1)
    awk -v s="$secs" 'BEGIN { exit !(s >= 1 && s < 60) }'
    secs=$(sed -n 's/.*again \([0-9.]*\) s.*/\1/p' <<<"$output" | tail -1)
    awk -v s="$secs" 'BEGIN { exit !(s >= 1 && s < 60) }'
}

@test "repl: Tab completes a verbs object's fields (qp.qp_n -> qp.qp_num) and the keys of its method's table" {
    run repl '
        set timeout 60
        prompt; type "ctx = verbs.open(); pd = ctx:alloc_pd(); cq = ctx:create_cq(4)"
        prompt; type "qp = pd:create_qp{qp_type = \"RC\", send_cq = cq, recv_cq = cq, cap = {max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1}}"
        prompt; send "print(\"num\", qp.qp_n\t > 0)\r"; see "num\ttrue"
        prompt; send "qp:modify{qp_st\t = \"IN\t\", pkey_ind\t = 0, port_num = 1, qp_access_fl\t = 0}\r"
        prompt; type "print(\"state=\" .. qp.state)"; see "state=INIT"
        prompt; send "\004"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "ctx:query_port(): port_cap_flags, port_cap_flags2 and flags are flag names, as other flag fields" {
    run "$VERBSH" -e '
      local p = verbs.open():query_port(1)
      print(type(p.port_cap_flags), table.concat(p.port_cap_flags, ","), type(p.port_cap_flags2))
      print(table.concat(p.flags, ","))'
    echo "$output"
    [ "$status" -eq 0 ]
    # RoCE needs a GRH on every address, which the port says in flags
    [ "${lines[1]}" = "GRH_REQUIRED" ]
    # rxe reports IB_PORT_CM_SUP (65536, once printed as a bare number)
    [[ ${lines[0]} == "table	"*"CM_SUP"*"	table" ]]
}

@test "a lesson with an empty non-terminal stdin (rxe-vm without --tty) says to use --tty, exits 1" {
    run "$VERBSH" --lesson 1 </dev/null
    echo "$output"
    [ "$status" -eq 1 ]
    [[ $output == *"Lesson 1"* ]]
    [[ $output == *"the lesson needs you at a terminal, but standard input is not one and had nothing to read."* ]]
    if [ -n "${RXE_VM:-}" ]; then
        [[ $output == *"scripts/rxe-vm --tty -- $VERBSH --lesson 1"* ]]
    fi
}

@test "repl --record: a session with a failing verb replays with the same outcomes" {
    rec=$BATS_TEST_TMPDIR/session.lua
    printf '%s\n' '
        set timeout 60
        prompt; type "ctx = verbs.open(); pd = ctx:alloc_pd(); cq = ctx:create_cq(4)"
        prompt; type "qp = pd:create_qp{qp_type = \"RC\", send_cq = cq, recv_cq = cq, cap = {max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1}}"
        prompt; type "qp:modify{qp_state = \"INIT\", pkey_index = 0, port_num = 1}"; see "ibv_modify_qp failed: EINVAL"
        prompt; type "qp:modify{qp_state = \"INIT\", pkey_index = 0, port_num = 1, qp_access_flags = 0}"
        prompt; type "\"state=\" .. qp.state"; see "state=INIT"
        prompt; send "\004"; expect eof' >"$BATS_TEST_TMPDIR/frag.exp"
    HOME=$BATS_TEST_TMPDIR TERM=dumb run expect "$ROOT/tests/pty/repl.exp" "$VERBSH --record $rec" "$BATS_TEST_TMPDIR/frag.exp"
    echo "$output"
    [ "$status" -eq 0 ]
    live_error=$(grep -m1 -o 'ibv_modify_qp failed: EINVAL.*' <<<"$output" | tr -d '\r')
    cat "$rec"
    head -2 "$rec" | grep -q "^-- replay: verbsh -d rxe0 $rec\$"
    run "$VERBSH" "$rec"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ "$output" == *"$live_error"* ]]
    [[ "$output" == *"state=INIT"* ]]
    [ "$(grep -c 'failed' <<<"$output")" -eq 1 ]   # only the first modify failed
}
