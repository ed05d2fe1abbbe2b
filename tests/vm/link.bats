#!/usr/bin/env bats
# Labs across machines (scripts/rxe-vm --link / --class): guests on a qemu
# UDP tunnel, here all on 127.0.0.1, each with rxe0 on its eth0 at
# 10.78.0.SEAT. Real RoCEv2 crosses the tunnel between separate kernels.
load ../helpers

# Two UDP ports that nothing holds on 127.0.0.1 (tests may run side by side).
free_ports() {
    local p tries
    for ((tries = 0; tries < 50; tries++)); do
        p=$((20000 + RANDOM % 20000))
        ss -Huln | grep -qE "[:.]($p|$((p + 1)))\b" || { echo "$p $((p + 1))"; return; }
    done
    return 1
}

# seat N PEER_PORT MY_PORT CMD: one seat of a point-to-point pair, in the background
seat() {
    local n=$1 peer=$2 mine=$3; shift 3
    scripts/rxe-vm --seat "$n" --peer-seat $((3 - n)) --link 127.0.0.1:"$peer" --listen "$mine" --timeout 240 \
        -- bash -c "$1" >"$BATS_TEST_TMPDIR/seat$n.out" 2>&1 &
}

# pair CMD_OF_SEAT_1 CMD_OF_SEAT_2: both seats, then both outputs and
# statuses. A seat that fails leaves the other 30 s to end, then stops it
# (143): it would wait for its partner until --timeout.
pair() {
    local ports a b rc1 rc2 first other i
    ports=$(free_ports); read -r a b <<<"$ports"
    seat 2 "$a" "$b" "$2"; local s2=$!
    seat 1 "$b" "$a" "$1"; local s1=$!
    if ! wait -n -p first $s1 $s2; then
        other=$s2; [ "$first" = "$s1" ] || other=$s1
        for i in $(seq 60); do kill -0 $other 2>/dev/null || break; sleep 0.5; done
        kill $other 2>/dev/null
    fi
    wait $s1; rc1=$?
    wait $s2; rc2=$?
    echo "--- seat 1 (exit $rc1)"; cat "$BATS_TEST_TMPDIR/seat1.out"
    echo "--- seat 2 (exit $rc2)"; cat "$BATS_TEST_TMPDIR/seat2.out"
    echo "seats $rc1 $rc2"
}

setup() { cd "$ROOT"; }

@test "link: two seats run ibv_rc_pingpong, verbsh's rc_pingpong.lua against it, and rping across the tunnel" {
    # Seat 2 serves; seat 1 retries until seat 2 listens (boot order is not fixed).
    run pair '
        retry() { for i in $(seq 100); do "$@" >retry.out 2>&1 && { cat retry.out; return 0; }; sleep 0.3; done; cat retry.out; return 1; }
        echo "I am $RXE_ADDR, my peer is $RXE_PEER_ADDR"
        echo "eth0 dad_transmits $(cat /proc/sys/net/ipv6/conf/eth0/dad_transmits)"
        retry ibv_rc_pingpong -d rxe0 -g $RXE_GID_INDEX -n 200 -p 18700 $RXE_PEER_ADDR || exit 1
        retry "$VERBSH" examples/rc_pingpong.lua -d rxe0 -g $RXE_GID_INDEX -n 200 -p 18701 $RXE_PEER_ADDR || exit 2
        retry rping -c -a $RXE_PEER_ADDR -C 10 -v -p 18702 || exit 3' '
        ibv_rc_pingpong -d rxe0 -g $RXE_GID_INDEX -n 200 -p 18700 || exit 1
        ibv_rc_pingpong -d rxe0 -g $RXE_GID_INDEX -n 200 -p 18701 || exit 2
        timeout 60 rping -s -a $RXE_ADDR -C 10 -p 18702 || exit 3'
    echo "$output"
    [[ $output == *"seats 0 0"* ]]
    [[ $output == *"I am 10.78.0.1, my peer is 10.78.0.2"* ]]
    # three IPv6 duplicate-address probes on the seat's link (rxe-vm-guest), not the kernel's one
    [[ $output == *"eth0 dad_transmits 3"* ]]
    [ "$(grep -c '200 iters in' <<<"$output")" -eq 4 ]
    [ "$(grep -c 'ping data: rdma-ping-' <<<"$output")" -eq 10 ]
}

@test "link: lessons 13 (pair lab) and 14 (rdma_cm) --auto find the seat's partner, the learner (seat 1) started first; partner() serves them" {
    # Seat 2 starts each partner with partner() at its prompt, and only once
    # it has seen the learner try: for lesson 13 a connection it refused (a
    # TCP RST sent: nothing listened yet), for lesson 14 a connect request
    # its ib_cm rejected (a REJ sent: reason 8, no listener), which the
    # learner must retry, saying whom it waits for.
    run pair '
        "$VERBSH" --lesson pair-lab --auto || exit 1
        "$VERBSH" --lesson rdma-cm --auto || exit 2' '
        rsts() { awk '\''/^Tcp:/ { if (!h) { for (i = 1; i <= NF; i++) if ($i == "OutRsts") c = i; h = 1 } else print $c }'\'' /proc/net/snmp; }
        rej=/sys/class/infiniband/rxe0/ports/1/cm_tx_msgs/rej
        serve() { "$VERBSH" -e "local p = partner \"$1\"; while p:alive() do require(\"socket\").sleep(0.2) end; io.write(p:output())"; }
        for i in $(seq 1500); do [ "$(rsts)" -gt 0 ] && break; sleep 0.2; done
        echo "learner first: $(rsts) connections refused"
        serve pair-lab || exit 1
        for i in $(seq 1500); do [ "$(cat $rej)" -gt 0 ] && break; sleep 0.2; done
        echo "learner first: $(cat $rej) connect requests rejected"
        serve rdma-cm || exit 2'
    echo "$output"
    [[ $output == *"seats 0 0"* ]]
    [[ $output =~ learner\ first:\ [1-9][0-9]*\ connections\ refused ]]
    [[ $output =~ learner\ first:\ [1-9][0-9]*\ connect\ requests\ rejected ]]
    [[ $output == *"Your partner: seat 2 at 10.78.0.2:18600 (RXE_PEER_ADDR). They run:"* ]]
    [[ $output == *"Your partner: seat 2 at 10.78.0.2:7471 (RXE_PEER_ADDR). They run:"* ]]
    [[ $output == *"waiting for your partner (seat 2) to start cm_partner (rejected: no one listens at 10.78.0.2:7471 yet)"* ]]
    [ "$(grep -c '^partner: started in the background (pid [0-9]*) for your partner, seat 1 (10.78.0.1):$' <<<"$output")" -eq 2 ]
    has_line "  lesson 13 (pair-lab): examples/pair_partner.lua listens on 10.78.0.2:18600 (verbs.oob)"
    has_line "  lesson 14 (rdma-cm): examples/cm_partner.lua listens on rdma_cm port 7471 (your partner connects to 10.78.0.2:7471)"
    [[ $output == *"partner: your RDMA WRITE left \"written by verbsh\" in my memory"* ]]
    [[ $output == *"gid ::ffff:10.78.0.1"* ]]
    has_line "PASS pair-lab"
    has_line "PASS rdma-cm"
    [[ $output == *"partner: connection request from 10.78.0.1:"*"private data \"hello from a learner\""* ]]
}

@test "class: three seats on one multicast segment run two pairs at once (seat 1 serves seats 2 and 3)" {
    local group=239.78.0.1:$((20000 + RANDOM % 20000)) n pids=()
    for n in 1 2 3; do
        scripts/rxe-vm --seat $n --class "$group" --listen 127.0.0.1 --timeout 240 -- bash -c '
            if [ $RXE_SEAT = 1 ]; then
                ibv_rc_pingpong -d rxe0 -g $RXE_GID_INDEX -n 100 -p 18801 >a.out 2>&1 & a=$!
                ibv_rc_pingpong -d rxe0 -g $RXE_GID_INDEX -n 100 -p 18802 >b.out 2>&1; b=$?
                wait $a; a=$?; cat a.out b.out; exit $((a + b))
            fi
            for i in $(seq 100); do
                ibv_rc_pingpong -d rxe0 -g $RXE_GID_INDEX -n 100 -p 1880$((RXE_SEAT - 1)) 10.78.0.1 >c.out 2>&1 && break
                sleep 0.3
            done
            cat c.out; [ $i -lt 100 ]' >"$BATS_TEST_TMPDIR/class$n.out" 2>&1 &
        pids+=($!)
    done
    local rcs=""
    for n in 0 1 2; do wait "${pids[$n]}"; rcs="$rcs $?"; done
    cat "$BATS_TEST_TMPDIR"/class*.out
    echo "exits$rcs"
    [ "$rcs" = " 0 0 0" ]
    [ "$(cat "$BATS_TEST_TMPDIR"/class*.out | grep -c '100 iters in')" -eq 4 ]
    grep -q 'GID ::ffff:10.78.0.2' "$BATS_TEST_TMPDIR/class1.out"
    grep -q 'GID ::ffff:10.78.0.3' "$BATS_TEST_TMPDIR/class1.out"
}

@test "link: bad options and a port already in use are refused with the fix" {
    run scripts/rxe-vm --link 127.0.0.1:5000 -- true
    [ "$status" -eq 2 ]
    [[ $output == "rxe-vm: a seat on a link needs --seat N (1-254), distinct from every other seat on the"* ]]
    [[ $output == *"make run LINK=127.0.0.1:5000 SEAT=12"* ]]
    run scripts/rxe-vm --class 239.78.0.1:7100 -- true
    [ "$status" -eq 2 ]
    [[ $output == *"needs --seat N"*"make run CLASS=239.78.0.1:7100 SEAT=12"* ]]
    run scripts/rxe-vm --seat 1 --link 127.0.0.1:5000 -- true
    [ "$status" -eq 2 ]
    [[ $output == *"--link needs --listen [ADDR:]PORT"* ]]
    run scripts/rxe-vm --seat 300 --link 127.0.0.1:5000 --listen 5001 -- true
    [ "$status" -eq 2 ]
    [[ $output == *"--seat wants 1-254, got '300'"* ]]
    run scripts/rxe-vm --seat 1 --class 10.0.0.1:5000 -- true
    [ "$status" -eq 2 ]
    [[ $output == *"--class wants a multicast GROUP"* ]]
    run scripts/rxe-vm --two --link 127.0.0.1:5000 --listen 5001 -- true
    [ "$status" -eq 2 ]
    # a link's options without a link are a forgotten --link, not ignored
    for opt in "--seat 2" "--peer-seat 3" "--listen 7000" "--mtu 9000"; do
        run scripts/rxe-vm $opt -- true
        [ "$status" -eq 2 ] && [[ $output == "rxe-vm: ${opt% *} goes with --link"* ]] || { echo "$opt: $output"; false; }
    done
    run scripts/rxe-vm --mem 10 -- true
    [ "$status" -eq 2 ]
    [ "$output" = "rxe-vm: --mem wants megabytes, 256 or more, got '10'" ]
    RXE_VM_ACCEL=bogus run scripts/rxe-vm -- true
    [ "$status" -eq 2 ]
    [ "$output" = "rxe-vm: RXE_VM_ACCEL wants auto, tcg or kvm, got 'bogus'" ]
    # a port someone holds: a UDP socket on 127.0.0.1
    local port=$((20000 + RANDOM % 20000))
    python3 -c "import socket,time; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('127.0.0.1', $port)); time.sleep(30)" &
    local holder=$!
    for _ in $(seq 50); do ss -Huln | grep -q "127.0.0.1:$port " && break; sleep 0.1; done
    run scripts/rxe-vm --seat 1 --link 127.0.0.1:5000 --listen "$port" -- true
    kill $holder
    [ "$status" -eq 125 ]
    [[ $output == *"UDP port $port on 127.0.0.1 is already in use"*"give another --listen port"* ]]
}

@test "make run joins a lab: LINK, LISTEN and SEAT reach the guest; SEAT alone is refused" {
    local ports a b
    ports=$(free_ports); read -r a b <<<"$ports"
    run timeout 120 make --no-print-directory run LINK=127.0.0.1:$a LISTEN=$b SEAT=4 \
        ARGS="-e 'print(os.getenv\"RXE_ADDR\", os.getenv\"RXE_SEAT\", os.getenv\"RXE_NETDEV\")'" </dev/null
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"Lab seat 4: starting verbsh in the rxe micro-VM on the link"* ]]
    [[ $output == *"10.78.0.4	4	eth0"* ]]
    run make --no-print-directory run SEAT=3 </dev/null
    [ "$status" -ne 0 ]
    [[ $output == *"make run: SEAT, LISTEN, PEER_SEAT and MTU go with LINK=HOST:PORT or CLASS=GROUP:PORT"* ]]
}

@test "bench/boot prints the boot time of a seat with a link against one without, and their ratio; a program's start in the guest with and without address-space randomization" {
    run bench/boot 1
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output =~ without\ a\ link\ [0-9.]+\ s,\ with\ a\ link\ [0-9.]+\ s:\ [0-9.]+x\ \(goal\ \<=\ 1\.2x\) ]]
    [[ $output =~ a\ program\'s\ start\ in\ the\ guest\ \(ms,\ mean\ of\ 20\):\ bash\ -c\ true\ [1-9][0-9]*\ without\ address-space\ randomization,\ [1-9][0-9]*\ with\ it:\ [0-9.]+x\;\ date\ [1-9][0-9]*\ and\ [1-9][0-9]*:\ [0-9.]+x$ ]]
}

@test "link: a seat with another MTU is named as soon as it is heard, with the fix" {
    local ports a b
    ports=$(free_ports); read -r a b <<<"$ports"
    scripts/rxe-vm --seat 2 --mtu 9000 --link 127.0.0.1:$a --listen $b --timeout 120 -- bash -c '
        for i in $(seq 300); do ip neigh show dev eth0 | grep -q lladdr && break; sleep 0.3; done; sleep 2' \
        >"$BATS_TEST_TMPDIR/seat2.out" 2>&1 &
    local s2=$!
    # Seat 2 waits for as long as seat 1 may take to boot under load (the
    # two guests boot side by side on two cores), then gives its watcher
    # time to print before powering off.
    run scripts/rxe-vm --seat 1 --link 127.0.0.1:$b --listen $a --timeout 120 -- bash -c '
        for i in $(seq 60); do
            timeout 1 bash -c "echo >/dev/tcp/10.78.0.2/9" 2>/dev/null
            ip neigh show dev eth0 | grep -q lladdr && break
            sleep 0.3
        done
        sleep 1; ip neigh show dev eth0'
    local s2rc=0; wait $s2 || s2rc=$?
    echo "$output"; cat "$BATS_TEST_TMPDIR/seat2.out"
    [ "$status" -eq 0 ]
    [ "$s2rc" -eq 0 ]
    [[ $output == *"10.78.0.2 lladdr 52:54:00:4e:5a:02"* ]]
    [[ $output == *"rxe-vm: seat 2 (10.78.0.2) runs an MTU of about 9000, this seat 1400: frames larger than the smaller one are dropped; start both seats with the same --mtu"* ]]
    grep -q "rxe-vm: seat 1 (10.78.0.1) runs an MTU of about 1400, this seat 9000" "$BATS_TEST_TMPDIR/seat2.out"
}
