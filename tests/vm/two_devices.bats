#!/usr/bin/env bats
# Two "hosts" in one guest: rxe0 and rxe1 on the two ends of a veth pair
# (scripts/rxe-vm --two), so traffic really crosses a netdev.
load ../helpers

@test "two devices: verbsh RC server on rxe0, ibv_rc_pingpong client on rxe1, over the veth pair" {
    cd "$ROOT"
    run scripts/rxe-vm --two -- bash -c '
        "$VERBSH" examples/rc_pingpong.lua -d rxe0 -g $RXE_GID_INDEX -n 200 -p 18620 >srv.out 2>&1 &
        for i in $(seq 150); do ss -ltn | grep -q ":18620 " && break; sleep 0.1; done
        before=$(cat /sys/class/net/veth1/statistics/tx_packets)
        ibv_rc_pingpong -d rxe1 -g $RXE1_GID_INDEX -n 200 -p 18620 $RXE_ADDR || exit 1
        wait $! || { cat srv.out; exit 1; }
        cat srv.out
        echo "veth1 tx $(( $(cat /sys/class/net/veth1/statistics/tx_packets) - before ))"'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(grep -c '200 iters in' <<<"$output")" -eq 2 ]
    [[ $output == *"remote address: LID 0x0000, QPN"*"GID ::ffff:192.0.2.2"* ]] ||
        [[ $output == *"GID 0000:0000:0000:0000:0000:ffff:c000:0202"* ]]
    # every ping crossed the veth: at least 200 RoCE packets left rxe1's end
    [ "$(sed -n 's/^veth1 tx //p' <<<"$output")" -ge 200 ]
}
