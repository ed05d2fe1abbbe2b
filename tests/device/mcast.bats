#!/usr/bin/env bats
# Multicast on one rxe device: attach/detach, the rdma_cm join and its event,
# the limits and lifetimes (frames between devices: tests/vm/multicast.bats).
load ../helpers

setup() { require_device; cd "$BATS_TEST_TMPDIR"; }

@test "multicast on one device: attach/detach and their errors, 56 QPs per group, join/leave, MULTICAST_JOIN's ud params" {
    run "$VERBSH" "$ROOT/tests/lua/mcast.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"mcast: ok (77 checks)"* ]]
    # the QP and the id left attached and joined to the collector were
    # detached and left first: no EBUSY, nothing leaked
    [[ $output != *"EBUSY"* ]]
    [[ $output != *"leak"* ]]
}
