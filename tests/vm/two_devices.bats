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

@test "two devices: the pair lab (lesson 13) between two verbsh processes, partner on rxe1 at 192.0.2.2" {
    cd "$ROOT"
    run scripts/rxe-vm --two -- bash -c '
        "$VERBSH" -d rxe1 examples/pair_partner.lua -g $RXE1_GID_INDEX --listen 192.0.2.2 --port 18630 >partner.out 2>&1 &
        partner=$!
        for i in $(seq 150); do ss -ltn | grep -q ":18630 " && break; sleep 0.1; done
        before=$(cat /sys/class/net/veth0/statistics/tx_packets)
        PAIR_PEER=192.0.2.2:18630 VERBSH_DEVICE=rxe0 "$VERBSH" --lesson pair-lab --auto; rc=$?
        timeout 30 tail --pid=$partner -f /dev/null
        wait $partner; prc=$?
        cat partner.out
        echo "veth0 tx $(( $(cat /sys/class/net/veth0/statistics/tx_packets) - before ))"
        echo "rc $rc partner $prc"'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"PASS pair-lab"* ]]
    [[ $output == *"rc 0 partner 0"* ]]
    [[ $output == *"partner: received \"hello partner\""* ]]
    [[ $output == *"partner: your RDMA WRITE left \"written by verbsh\" in my memory"* ]]
    [[ $output == *"partner: qp_num"*"gid ::ffff:192.0.2.1"* ]] || [[ $output == *"partner: you are qp_num"*"gid ::ffff:192.0.2.1"* ]]
    [ "$(sed -n 's/^veth0 tx //p' <<<"$output")" -ge 4 ]
}

@test "two devices: rdma_cm between two verbsh processes, server on rxe1 (192.0.2.2), client routed over the veth to rxe0" {
    cd "$ROOT"
    run scripts/rxe-vm --two -- bash -c '
        "$VERBSH" examples/cm_pingpong.lua -n 200 -p 7491 >srv.out 2>&1 &
        srv=$!
        for i in $(seq 300); do rdma resource show cm_id | grep -q "state LISTEN .*:7491 " && break; sleep 0.1; done
        before=$(cat /sys/class/net/veth0/statistics/tx_packets)
        timeout 60 "$VERBSH" examples/cm_pingpong.lua -n 200 -p 7491 192.0.2.2; rc=$?
        timeout 30 tail --pid=$srv -f /dev/null
        wait $srv; src=$?
        cat srv.out
        echo "veth0 tx $(( $(cat /sys/class/net/veth0/statistics/tx_packets) - before ))"
        echo "rc $rc server $src"'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"rc 0 server 0"* ]]
    # librdmacm bound each side to the device of the netdev its address lives on
    [[ $output == *"connected: cm_id TCP rxe0 192.0.2.1:"*" -> 192.0.2.2:7491"* ]]
    [[ $output == *"connected: cm_id TCP rxe1 192.0.2.2:7491 -> 192.0.2.1:"* ]]
    [ "$(grep -c '200 iters in' <<<"$output")" -eq 2 ]
    [ "$(sed -n 's/^veth0 tx //p' <<<"$output")" -ge 200 ]
}
