#!/usr/bin/env bats
# The rxe device itself, checked with rdma-core's own tools: if these fail,
# nothing verbsh does on the device can be trusted.
load ../helpers

setup() { require_device; cd "$BATS_TEST_TMPDIR"; }

# Waits until a TCP port listens (the pingpong servers' out-of-band channel).
wait_tcp() {
    for _ in $(seq 100); do ss -ltn | grep -q ":$1 " && return 0; sleep 0.1; done
    echo "nothing listens on TCP port $1" >&2; return 1
}

@test "ibv_devinfo shows the device with an ACTIVE port" {
    run ibv_devinfo -d "$RXE_DEV"
    [ "$status" -eq 0 ]
    [[ $output == *"hca_id:	$RXE_DEV"* ]]
    [[ $output == *"PORT_ACTIVE"* ]]
    [[ $output == *"link_layer:		Ethernet"* ]]
}

@test "ibv_rc_pingpong: server and client complete 100 iterations" {
    ibv_rc_pingpong -d "$RXE_DEV" -g "$RXE_GID_INDEX" -n 100 -p 18601 >srv.out 2>&1 &
    wait_tcp 18601
    run ibv_rc_pingpong -d "$RXE_DEV" -g "$RXE_GID_INDEX" -n 100 -p 18601 127.0.0.1
    wait $!; srv=$?
    cat srv.out
    [ "$status" -eq 0 ]
    [ "$srv" -eq 0 ]
    [[ $output == *"819200 bytes in"* ]]   # 100 x 4096-byte messages, both ways
    grep -q "100 iters in" srv.out
}

@test "ibv_ud_pingpong: server and client complete 100 iterations" {
    ibv_ud_pingpong -d "$RXE_DEV" -g "$RXE_GID_INDEX" -n 100 -s 512 -p 18602 >srv.out 2>&1 &
    wait_tcp 18602
    run ibv_ud_pingpong -d "$RXE_DEV" -g "$RXE_GID_INDEX" -n 100 -s 512 -p 18602 127.0.0.1
    wait $!; srv=$?
    cat srv.out
    [ "$status" -eq 0 ]
    [ "$srv" -eq 0 ]
    [[ $output == *"100 iters in"* ]]
}

@test "rping completes 10 pings over rdma_cm" {
    rping -s -a "$RXE_ADDR" -p 7471 -C 10 >srv.out 2>&1 &
    srv_pid=$!
    for try in $(seq 20); do
        run rping -c -a "$RXE_ADDR" -p 7471 -C 10 -v
        [ "$status" -eq 0 ] && break
        sleep 0.2
    done
    wait $srv_pid
    [ "$status" -eq 0 ]
    [ "$(grep -c 'ping data: rdma-ping-' <<<"$output")" -eq 10 ]
}
