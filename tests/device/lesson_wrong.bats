#!/usr/bin/env bats
# Every step of lessons 1-16 and 18-22 refuses its most likely wrong answer with the
# message that says what is wrong, and passes on the model solution typed
# after it (the table: tests/lua/lesson_wrong.lua; lesson 17's steps need
# two devices: tests/vm/wire.bats runs them).
load ../helpers

setup() { require_device; }

# rxe's warnings in the kernel log (dmesg; "" where it cannot be read)
rxe_warnings() { dmesg 2>/dev/null | grep -c "WARNING: .*drivers/infiniband/sw/rxe/" || true; }

wrong() {
    local before
    before=$(rxe_warnings)
    run "$VERBSH" "$ROOT/tests/lua/lesson_wrong.lua" "$@"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *" wrong answers refused with their hint, then the step passed"* ]]
    # A lesson starts afresh by destroying what the last one made: a window
    # a wrong answer dropped (lesson 18's step 4 makes mw2 twice) must go
    # before the QP it was bound through, or rxe's ibv_destroy_qp waits 50 s
    # for it and warns (rxe_pool.c, __rxe_cleanup).
    dmesg 2>/dev/null | grep "WARNING: .*drivers/infiniband/sw/rxe/" || true
    [ "$(rxe_warnings)" = "$before" ]
}

@test "lessons 1-4 (devices, pd-mr, cq, rc-states): each step refuses its wrong answer" { wrong devices pd-mr cq rc-states; }
@test "lessons 5-8 (rc-send, rdma-write, rdma-read, atomics): each step refuses its wrong answer" {
    wrong rc-send rdma-write rdma-read atomics
    # SEND's step: the completion not waited for, then the wrong 5 bytes
    [ "$(grep -c '^ok rc-send step 1: REFUSED$' <<<"$output")" -eq 2 ]
    # WRITE_WITH_IMM's step: no immediate at all, then the wrong one (43): each refused
    [ "$(grep -c '^ok rdma-write step 2: REFUSED$' <<<"$output")" -eq 2 ]
}
@test "lessons 9-12 (ud, rc-errors, srq, ud-drops): each step refuses its wrong answer" { wrong ud rc-errors srq ud-drops; }
@test "lessons 13-14 (pair-lab, rdma-cm; partner processes): each step refuses its wrong answer" { wrong pair-lab rdma-cm; }
@test "lessons 15-16 (post-send-ex, events): each step refuses its wrong answer" { wrong post-send-ex events; }
@test "lessons 18-19 (memory-windows, uc): each step refuses its wrong answer" {
    wrong memory-windows uc
    # the READ through the window: the MR's own rkey, then the wrong offset
    [ "$(grep -c '^ok memory-windows step 2: REFUSED$' <<<"$output")" -eq 2 ]
}
@test "lessons 20-21 (multicast, rdma-verbs; a server process): each step refuses its wrong answer" { wrong multicast rdma-verbs; }
@test "lesson 22 (iwarp, rxe and siw side by side): each step refuses its wrong answer, the wire steps too (a capture on the RoCE device; an empty capture; a READ counted as acknowledged)" {
    [ -n "${SIW_DEV:-}" ] || skip "no siw device here (scripts/rxe-vm --siw gives one beside rxe0)"
    wrong iwarp
    [[ $output == *"ok iwarp step 8: REFUSED"* ]]
    # steps 3, 5 and 9 have more than one wrong answer: at 3 no prediction, then an RC QP
    # on siw; at 5 neither value right, then the fetched value alone; at 9 an empty
    # capture, the WRITE's own frame, three ACKNOWLEDGEs counted, then one
    [ "$(grep -c '^ok iwarp step 3: REFUSED$' <<<"$output")" -eq 2 ]
    [ "$(grep -c '^ok iwarp step 5: REFUSED$' <<<"$output")" -eq 2 ]
    [ "$(grep -c '^ok iwarp step 6: REFUSED$' <<<"$output")" -eq 2 ]   # qw's RTS not caught; qr left in RTR
    [ "$(grep -c '^ok iwarp step 9: REFUSED$' <<<"$output")" -eq 4 ]
    # step 2's wrong connection, printed: on rxe, with the objects cm_connect made
    has_line "connection on ${RXE_DEV:-rxe0}: qp (client), peer_qp (server), one pd, cq, mr and peer_mr"
    [[ $output == *"15 of 15 wrong answers refused with their hint, then the step passed"* ]]
}
