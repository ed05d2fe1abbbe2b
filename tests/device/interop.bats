#!/usr/bin/env bats
# verbsh against rdma-core's own example programs: real peers that nobody
# here wrote. Each side runs as its own process on the rxe device.
load ../helpers

setup() { require_device; cd "$BATS_TEST_TMPDIR"; }

wait_tcp() {
    for _ in $(seq 150); do ss -ltn | grep -q ":$1 " && return 0; sleep 0.1; done
    echo "nothing listens on TCP port $1" >&2; return 1
}

# pingpong_pair SERVER_CMD... -- CLIENT_CMD...: runs both, prints both outputs.
pair() {
    local srv=() port=$1; shift
    while [ "$1" != -- ]; do srv+=("$1"); shift; done; shift
    "${srv[@]}" >srv.out 2>&1 &
    local pid=$!
    wait_tcp "$port" || { kill $pid; cat srv.out; return 1; }
    "$@" >cli.out 2>&1; local crc=$?
    wait $pid; local src=$?
    echo "--- server (exit $src)"; cat srv.out
    echo "--- client (exit $crc)"; cat cli.out
    [ $src -eq 0 ]
    [ $crc -eq 0 ]
}

@test "interop: verbsh RC client against ibv_rc_pingpong server, 100 iterations" {
    run pair 18611 ibv_rc_pingpong -d "$RXE_DEV" -g "$RXE_GID_INDEX" -n 100 -p 18611 -- \
        "$VERBSH" "$ROOT/examples/rc_pingpong.lua" -d "$RXE_DEV" -g "$RXE_GID_INDEX" -n 100 -p 18611 127.0.0.1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(grep -c '100 iters in' <<<"$output")" -eq 2 ]
}

@test "interop: ibv_rc_pingpong client against verbsh RC server, 100 iterations" {
    run pair 18612 "$VERBSH" "$ROOT/examples/rc_pingpong.lua" -d "$RXE_DEV" -g "$RXE_GID_INDEX" -n 100 -p 18612 -- \
        ibv_rc_pingpong -d "$RXE_DEV" -g "$RXE_GID_INDEX" -n 100 -p 18612 127.0.0.1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(grep -c '100 iters in' <<<"$output")" -eq 2 ]
}

@test "interop: verbsh UD client against ibv_ud_pingpong server, 100 iterations" {
    run pair 18613 ibv_ud_pingpong -d "$RXE_DEV" -g "$RXE_GID_INDEX" -n 100 -s 1024 -p 18613 -- \
        "$VERBSH" "$ROOT/examples/ud_pingpong.lua" -d "$RXE_DEV" -g "$RXE_GID_INDEX" -n 100 -s 1024 -p 18613 127.0.0.1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(grep -c '100 iters in' <<<"$output")" -eq 2 ]
}

@test "interop: ibv_ud_pingpong client against verbsh UD server, 100 iterations" {
    run pair 18614 "$VERBSH" "$ROOT/examples/ud_pingpong.lua" -d "$RXE_DEV" -g "$RXE_GID_INDEX" -n 100 -s 1024 -p 18614 -- \
        ibv_ud_pingpong -d "$RXE_DEV" -g "$RXE_GID_INDEX" -n 100 -s 1024 -p 18614 127.0.0.1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(grep -c '100 iters in' <<<"$output")" -eq 2 ]
}

@test "interop: verbsh UC client against ibv_uc_pingpong server, 100 iterations" {
    run pair 18616 ibv_uc_pingpong -d "$RXE_DEV" -g "$RXE_GID_INDEX" -n 100 -p 18616 -- \
        "$VERBSH" "$ROOT/examples/uc_pingpong.lua" -d "$RXE_DEV" -g "$RXE_GID_INDEX" -n 100 -p 18616 127.0.0.1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(grep -c '100 iters in' <<<"$output")" -eq 2 ]
}

@test "interop: ibv_uc_pingpong client against verbsh UC server, 100 iterations" {
    run pair 18617 "$VERBSH" "$ROOT/examples/uc_pingpong.lua" -d "$RXE_DEV" -g "$RXE_GID_INDEX" -n 100 -p 18617 -- \
        ibv_uc_pingpong -d "$RXE_DEV" -g "$RXE_GID_INDEX" -n 100 -p 18617 127.0.0.1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(grep -c '100 iters in' <<<"$output")" -eq 2 ]
}

@test "interop: a pingpong peer that sends garbage is a clear error" {
    "$VERBSH" -e "
        local s = require('socket').bind('127.0.0.1', 18615)
        local c = s:accept(); c:send(('X'):rep(52)); require('socket').sleep(3)" &
    # By pid: job %1 is bats' own timeout watchdog, and killing it once left
    # its `sleep 300` holding bats' output open for minutes after the last test.
    local peer=$!
    wait_tcp 18615
    run "$VERBSH" "$ROOT/examples/rc_pingpong.lua" -d "$RXE_DEV" -g "$RXE_GID_INDEX" -n 10 -p 18615 127.0.0.1
    kill $peer 2>/dev/null || true
    [ "$status" -eq 1 ]
    [[ $output == *"pingpong: bad address message from 127.0.0.1:18615"* ]]
}
