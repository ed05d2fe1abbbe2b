#!/usr/bin/env bats
# Boundaries on both sides on rxe (tests/oracle/boundaries.lua): each ranged
# key of every struct a verb reads at its largest and smallest value and
# one past, the single-argument ranges, INLINE SGEs at the MR's first and
# last byte, exactly max_send_sge / max_recv_sge SGEs and one more, the
# builder's and rdma_cm's ranges, doctor's ABI range at both ends.
load ../helpers

setup() { require_device; }

@test "boundaries on rxe: the value that passes each check and the first that fails it (133 edges)" {
    run "$VERBSH" "$ROOT/tests/oracle/boundaries.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "boundaries: 133 edges"
    [[ $output == *"why: num_sge 5 is above the QP's cap.max_send_sge 4"* ]]
    [[ $output == *"boundaries: ok (400 checks)"* ]]
}
