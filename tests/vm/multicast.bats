#!/usr/bin/env bats
# Multicast frames between devices: rxe0 and rxe1 on a veth pair
# (scripts/rxe-vm --two), and three seats on one --class segment. Also
# what rxe loses: a group's frames reach an attached QP only when the
# receiving netdev joined the group at the IP level (rdma_join_multicast
# does it; plain ibv_attach_mcast does not).
load ../helpers

setup() { cd "$ROOT"; }

@test "two devices: verbs-level frames need the netdev's IP join; rdma_cm pair; mckey as receiver and as sender" {
    run scripts/rxe-vm --two --timeout 600 -- bash -c '
        V=$VERBSH
        # ibv_attach_mcast alone: the frame reaches veth1 and the kernel drops it
        $V tests/vm/mcast_verbs.lua rxe0 rxe1; echo "verbs rc $?"
        ip addr add 239.1.2.9/32 dev veth1 autojoin
        $V tests/vm/mcast_verbs.lua rxe0 rxe1; echo "verbs+autojoin rc $?"
        ip addr del 239.1.2.9/32 dev veth1
        echo "=== verbsh: sender rxe0, receivers rxe1 and rxe0"
        timeout 60 $V examples/mcast.lua -m 239.1.2.3 -b $RXE1_ADDR -C 5 -S 64 -w 20000 >r1.out 2>&1 & r1=$!
        timeout 60 $V examples/mcast.lua -m 239.1.2.3 -b $RXE_ADDR -C 5 -S 64 -w 20000 >r0.out 2>&1 & r0=$!
        for i in $(seq 200); do grep -q joined r1.out && grep -q joined r0.out && break; sleep 0.1; done
        timeout 60 $V examples/mcast.lua -m 239.1.2.3 -b $RXE_ADDR -s -C 5 -S 64; echo "sender rc $?"
        wait $r1; echo "r1 rc $?"; sed "s/^/rxe1: /" r1.out; wait $r0; echo "r0 rc $?"; sed "s/^/rxe0: /" r0.out
        echo "=== mckey receives from verbsh"
        timeout 120 stdbuf -oL mckey -m 239.1.2.4 -b $RXE1_ADDR -C 5 -S 64 >m.out 2>&1 & m=$!
        for i in $(seq 200); do grep -q "joined dgid" m.out && break; sleep 0.1; done
        timeout 60 $V examples/mcast.lua -m 239.1.2.4 -b $RXE_ADDR -s -C 5 -S 64; echo "sender rc $?"
        wait $m; echo "mckey receiver rc $?"; sed "s/^/mckey: /" m.out
        echo "=== verbsh receives from mckey"
        timeout 60 $V examples/mcast.lua -m 239.1.2.5 -b $RXE1_ADDR -C 5 -S 64 -w 20000 >r.out 2>&1 & r=$!
        for i in $(seq 200); do grep -q joined r.out && break; sleep 0.1; done
        timeout 120 mckey -m 239.1.2.5 -b $RXE_ADDR -s -C 5 -S 64 >ms.out 2>&1; echo "mckey sender rc $?"
        wait $r; echo "verbsh receiver rc $?"; cat r.out'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"verbs: received 0 of 1 on rxe1"* ]]
    [[ $output == *"verbs rc 0"* ]]
    [[ $output == *"verbs: received 1 of 1 on rxe1: \"to the group\" on both QPs"* ]]
    [[ $output == *"sender rc 0"* ]]
    [[ $output == *"rxe1: mcast.lua: received 5 of 5 messages"* ]]
    # the sender's own netdev joined too: the kernel loops the group's frames back to rxe0
    [[ $output == *"rxe0: mcast.lua: received 5 of 5 messages"* ]]
    [[ $output == *"mckey receiver rc 0"* ]]
    [[ $output == *"mckey: data transfers complete"* ]]
    [[ $output == *"mckey sender rc 0"* ]]
    [[ $output == *"verbsh receiver rc 0"* ]]
    # mckey sends SEND_WITH_IMM with its own QPN as the immediate
    [ "$(grep -cE '^mcast.lua: message [1-5]: 64 bytes, imm 0x([0-9a-f]{6}) from QPN 0x\1$' <<<"$output")" -eq 5 ]
    [[ $output == *"mcast.lua: joined 239.1.2.5 (dgid ::ffff:239.1.2.5), QPN 0xffffff, Q_Key 0x1234567"* ]]
}

# Three seats on one class segment. The sender waits for both receivers:
# when it waited for the first one only, the other joined after the 20
# datagrams had passed and got none (its netdev had not joined the group
# yet, so its guest saw no multicast packet at all).
@test "class: seat 1 sends 20 datagrams to a group once seats 2 and 3 joined it; each receives every one" {
    local group=239.78.0.1:$((20000 + RANDOM % 20000)) n pids=()
    for n in 1 2 3; do
        scripts/rxe-vm --seat $n --class "$group" --listen 127.0.0.1 --timeout 300 -- bash -c '
            if [ $RXE_SEAT = 1 ]; then
                # each receiver says it joined over TCP; then the messages go
                # (UD keeps nothing: a receiver that joins later gets none)
                "$VERBSH" -e "local l = verbs.oob.listen(18900, \"10.78.0.1\")
                  for _ = 1, 2 do print(\"seat \" .. l:accept(120):recv(30).seat .. \" joined\") end" || exit 1
                exec "$VERBSH" examples/mcast.lua -m 239.1.3.1 -b $RXE_ADDR -s -C 20 -S 256
            fi
            "$VERBSH" examples/mcast.lua -m 239.1.3.1 -b $RXE_ADDR -C 20 -S 256 -w 60000 >r.out 2>&1 & r=$!
            for i in $(seq 600); do grep -q joined r.out && break; sleep 0.1; done
            "$VERBSH" -e "verbs.oob.connect(\"10.78.0.1\", 18900, 120):send{ seat = $RXE_SEAT }"
            wait $r; rc=$?; cat r.out; exit $rc' >"$BATS_TEST_TMPDIR/seat$n.out" 2>&1 &
        pids+=($!)
    done
    local rcs=""
    for n in 0 1 2; do wait "${pids[$n]}" && rc=0 || rc=$?; rcs="$rcs $rc"; done
    for n in 1 2 3; do echo "--- seat $n"; cat "$BATS_TEST_TMPDIR/seat$n.out"; done
    echo "exits$rcs"
    [ "$rcs" = " 0 0 0" ]
    grep -q "^seat 2 joined$" "$BATS_TEST_TMPDIR/seat1.out"
    grep -q "^seat 3 joined$" "$BATS_TEST_TMPDIR/seat1.out"
    grep -q "sent 20 messages of 256 bytes" "$BATS_TEST_TMPDIR/seat1.out"
    # SEND_WITH_IMM carries the sender's QPN: each message names seat 1's QP
    local qpn
    qpn=$(sed -nE 's/^mcast.lua: sent 20 messages of 256 bytes from QPN (0x[0-9a-f]{6})$/\1/p' "$BATS_TEST_TMPDIR/seat1.out")
    [ -n "$qpn" ]
    for n in 2 3; do
        grep -q "received 20 of 20 messages" "$BATS_TEST_TMPDIR/seat$n.out"
        [ "$(grep -cE "^mcast.lua: message [0-9]+: 256 bytes, imm $qpn from QPN $qpn\$" "$BATS_TEST_TMPDIR/seat$n.out")" -eq 20 ]
    done
}
