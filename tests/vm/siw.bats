#!/usr/bin/env bats
# siw in the micro-VM: rxe-vm --siw with --two, the doctor's iWARP findings
# (a loaded siw, a siw netdev without IPv4, a siw.ko for another kernel, none
# at all) and rxe-host removing and adding a siw link. Two guest boots.
load ../helpers

# report NAME: the doctor's report split out of the guest's output.
report() { awk -v want="=== $1" '$0 == want { f = 1; next } /^=== / { f = 0 } f' "$BATS_TEST_TMPDIR/vm.log"; }

@test "rxe-vm --siw --two: siw0 and siw1 on their veth pair beside rxe0/rxe1; rping crosses veth2; doctor, rxe-host remove/siw/env on siw" {
    cd "$ROOT"   # the guest runs in this directory (ROOT itself is not passed in)
    scripts/rxe-vm --siw --two -- bash -c '
        echo "=== env"; env | grep -E "^SIW" | sort
        echo "=== links"; rdma link show | cut -d" " -f2,8
        echo "=== rping"; rping -s -a $SIW1_ADDR -p 7496 -C 3 >/dev/null 2>&1 & sleep 1
        rping -c -a $SIW1_ADDR -I $SIW_ADDR -p 7496 -C 3 -v; wait
        echo "veth2 $(($(cat /sys/class/net/veth2/statistics/tx_packets) > 10)) lo $(cat /sys/class/net/lo/statistics/tx_packets)"
        echo "=== doctor"; "$VERBSH" --doctor; echo "exit $?"
        ip addr flush dev veth3
        echo "=== no_ipv4"; "$VERBSH" --doctor; echo "exit $?"
        echo "=== host"; scripts/rxe-host remove siw1; rdma link show siw1/1 2>&1 | head -1
        scripts/rxe-host siw veth3 2>&1 | cut -d" " -f1-9
        ip addr add 198.51.100.2/32 dev veth3
        scripts/rxe-host env
    ' >"$BATS_TEST_TMPDIR/vm.log" 2>&1 || { cat "$BATS_TEST_TMPDIR/vm.log"; return 1; }
    cat "$BATS_TEST_TMPDIR/vm.log"
    [ "$(report env)" = "SIW1_ADDR=198.51.100.2
SIW1_DEV=siw1
SIW1_NETDEV=veth3
SIW_ADDR=198.51.100.1
SIW_DEV=siw0
SIW_NETDEV=veth2" ]
    [ "$(report links)" = "rxe0/1 veth0
rxe1/1 veth1
siw0/1 veth2
siw1/1 veth3" ]
    [ "$(report rping | grep -c '^ping data: rdma-ping-')" -eq 3 ]
    report rping | grep -qx 'veth2 1 lo 0'       # over the veth, not delivered locally
    report doctor | grep -qx 'exit 0'
    report doctor | grep -q '^ok    siw       siw (soft-iWARP) is loaded'
    report doctor | grep -q '^ok    port      siw1 port 1 is ACTIVE, iWARP (RDMA over TCP) on veth3$'
    report doctor | grep -q '^warn  iwarp     siw1 port 1: iWARP on veth3 at 198.51.100.2: connect with rdma_cm to that address; measured now: an RC QP driven RESET->INIT->RTR->RTS by hand, without rdma_cm, fails at RTS with EINVAL'
    report doctor | grep -q '^ok    gid       rxe0 port 1: sgid_index 1 is the RoCE v2 IPv4 GID'   # rxe's checks as before
    report no_ipv4 | grep -qx 'exit 1'
    report no_ipv4 | grep -q '^fail  iwarp     siw1 port 1 is iWARP on veth3, which has no IPv4 address: rdma_cm finds an iWARP device by its netdev'"'"'s address'
    report no_ipv4 | grep -q '^      fix: sudo ip addr add 198.51.100.1/24 dev veth3 '
    report host | grep -q "^link siw1/1 state ACTIVE physical_state LINK_UP netdev veth3"   # removed, then made again as the first free name
    report host | grep -q "^rxe-host: warning: veth3 has no IPv4 address"
    report host | grep -q '^RXE_DEV=rxe0 RXE_NETDEV=veth0 RXE_ADDR=192.0.2.1 RXE_GID_INDEX=1 SIW_DEV=siw0 SIW_NETDEV=veth2 SIW_ADDR=198.51.100.1$'
}

@test "doctor without --siw: no siw module is said, not held against the host; a siw.ko for another kernel is named with 'Invalid module format'; lesson 22 cannot run on RoCE alone" {
    cd "$ROOT"
    ko=$ROOT/.cache/rxe-vm/current/siw/siw.ko
    [ -s "$ko" ] || scripts/rxe-vm --build --siw
    scripts/rxe-vm -- bash -c '
        m=/lib/modules/$(uname -r)
        echo "=== none"; "$VERBSH" --doctor; echo "exit $?"
        echo "=== lesson22"; "$VERBSH" --lesson 22 </dev/null 2>&1 | grep "cannot run here"
        mkdir -p $m/updates; cp "$1" $m/updates/siw.ko
        echo "=== match"; "$VERBSH" --doctor | grep "^... *siw "
        # the same module, its vermagic made that of another release of the same length
        sed -i "s/vermagic=$(uname -r) /vermagic=6.1.0-99-amd64 /" $m/updates/siw.ko
        echo "=== other"; "$VERBSH" --doctor; echo "exit $?"
    ' _ "$ko" >"$BATS_TEST_TMPDIR/vm.log" 2>&1 || { cat "$BATS_TEST_TMPDIR/vm.log"; return 1; }
    cat "$BATS_TEST_TMPDIR/vm.log"
    kver=$(cut -d' ' -f3 "$ROOT/.cache/rxe-vm/current/version")
    report none | grep -q "^ok    siw       no siw module in this kernel (no siw.ko under /lib/modules/$kver, and not built in), so no iWARP device: only lesson 22 needs one"
    report none | grep -qx 'exit 0'
    # lesson 22 wants both devices: RoCE alone is not enough, and it says which one is missing
    [ "$(report lesson22)" = "This lesson cannot run here: it needs a RoCE device and an iWARP device side by side (found: RoCE rxe0, iWARP none): start it inside scripts/rxe-vm --siw (make run SIW=1)" ]
    report match | grep -qx "ok    siw       /lib/modules/$kver/updates/siw.ko is for this kernel, not loaded: \`sudo modprobe siw\` makes iWARP devices possible"
    report other | grep -q "^warn  siw       /lib/modules/$kver/updates/siw.ko was built for kernel 6.1.0-99-amd64, but this kernel is $kver: \`modprobe siw\` fails with 'Invalid module format'"
    report other | grep -q "^      fix: rebuild it for this kernel: make -C /lib/modules/$kver/build M="
    report other | grep -qx 'exit 0'
}

@test "iwarp wire: verbs.capture on siw0 (veth2) while siw0 and siw1 Send, Write 3000 bytes, Read 2000 and Send 2000 decodes as tshark does; the ladder ties them, a Send's two FPDUs both to it; rxe0's RoCE capture in the same guest still draws its own" {
    cd "$ROOT"
    command -v tshark >/dev/null || skip "tshark not installed (scripts/deps test)"
    scripts/rxe-vm --siw --two -- bash -c '
        "$VERBSH" tests/wire/iwarp_scenario.lua /tmp/x.pcap >&2 || exit 1
        "$VERBSH" tests/wire/scenarios.lua /tmp/r.pcap send >&2 || exit 1
        cat /tmp/x.pcap' >"$BATS_TEST_TMPDIR/x.pcap" 2>"$BATS_TEST_TMPDIR/log" ||
        { cat "$BATS_TEST_TMPDIR/log"; return 1; }
    cd "$BATS_TEST_TMPDIR"
    cat log
    tshark -T json -r x.pcap 2>/dev/null | python3 "$ROOT/tests/wire/tshark_flat_iwarp.py" >flat
    run "$VERBSH" "$ROOT/tests/wire/oracle_iwarp.lua" x.pcap flat
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[-1]} == *" 0 mismatches; FPDUs: Read Request 1, Read Response 2, Send 3, Write 3" ]]
    # what the scenario printed (the server's rkey and address; the client's lkey for the Read's sink) is on the wire
    read -r _ wstag wto <<<"$(grep '^write ' log)"
    read -r _ rstag rto sstag sto <<<"$(grep '^read ' log)"
    grep -q "Write (tagged STag $wstag TO $wto) 1428 bytes" <<<"$output"
    grep -q "Read Response (tagged STag $sstag TO $sto) 1428 bytes" <<<"$output"
    grep -q $'^[0-9]*\tiwarp_rdma.srcstag\t'"$rstag"'$' flat
    grep -q $'^[0-9]*\tiwarp_rdma.srcto\t0x0000'"${rto#0x}"'$' flat
    grep -q "Send (untagged QN 0 MSN 1 MO 0, last) 100 bytes" <<<"$output"
    # the 2000-byte Send: message 2 of queue 0, its two FPDUs at offsets 0 and 1424
    grep -q "Send (untagged QN 0 MSN 2 MO 0) 1424 bytes" <<<"$output"
    grep -q "Send (untagged QN 0 MSN 2 MO 1424, last) 576 bytes" <<<"$output"
    # print(cap) on veth2: the connection from SYN, each FPDU with its WR, TCP's ACKs
    grep -Eq "^capture on veth2 \((2[0-9]|3[0-9]) frames, stopped\)$" log
    grep -q "|MPA Request rev 2, markers off, CRC off ack 1 ------> *| #4$" log
    grep -Eq "\|Write STag $wstag TO $wto len 1428 \(seq 149\) ack 25 ------>\| #[0-9]+  wr_id 2's RDMA_WRITE$" log
    # the summaries name the frames the rows are tied to (where TCP's own ACKs
    # fall between the FPDUs varies from run to run: the frame numbers do too)
    rows() { ladder_frames "$1" <log; }
    read -r w1 w2 w3 <<<"$(rows "\| #[0-9]+  wr_id 2's RDMA_WRITE$")"
    wack=$(rows "TCP acknowledges wr_id 2's RDMA_WRITE$")
    grep -q "^wr_id 2 (qp1 RDMA_WRITE, 3000 bytes): frames $w1, $w2, $w3 (TCP ACK in frame $wack)$" log
    rreq=$(rows "Read Request .*\| #[0-9]+  wr_id 3's RDMA_READ$")
    rack=$(rows "TCP acknowledges wr_id 3's RDMA_READ($|;)")
    read -r d1 d2 <<<"$(rows "Read Response .*wr_id 3's RDMA_READ data")"
    # (the last, delayed ACK may come after the capture stopped: the summary says so then)
    dack=$(rows "TCP acknowledges wr_id 3's RDMA_READ data$")
    [ -n "$dack" ] && dtext="(TCP ACK in frame $dack)" || dtext="(no TCP ACK of it in the capture)"
    grep -q "^wr_id 3 (qp1 RDMA_READ, 2000 bytes): request in frame $rreq (TCP ACK in frame $rack), Read Responses in frames $d1, $d2 $dtext$" log
    [ "$w1" -lt "$w2" ]
    [ "$w2" -lt "$w3" ]
    [ "$w3" -lt "$wack" ]
    [ "$rreq" -lt "$d1" ]
    [ "$d1" -lt "$d2" ]
    # the second FPDU of a Send belongs to the message the first began
    read -r s1 s2 s3 <<<"$(rows "\| #[0-9]+  wr_id 4's SEND$")"
    [ -n "$s2" ]
    [ -z "$s3" ]
    [ "$s1" -lt "$s2" ]
    [ "$d2" -lt "$s1" ]
    sack=$(rows "TCP acknowledges wr_id 4's SEND$")
    [ -n "$sack" ] && stext="(TCP ACK in frame $sack)" || stext="(no TCP ACK of it in the capture)"
    grep -q "^wr_id 4 (qp1 SEND, 2000 bytes): frames $s1, $s2 $stext$" log
    # RoCE beside it, rxe0 to rxe1 on veth0: the 5000-byte SEND in five frames, one ACKNOWLEDGE completes it
    grep -q "^capture on veth0 (" log
    grep -q "wr_id 7 (qp1 SEND, 5000 bytes): 5 frames from psn 100, completed by frame 6 (ACKNOWLEDGE)" log
}

@test "rxe-vm --siw in two seats on a link: siw0 on eth1 (ports + 2), verbsh's rping client on seat 1 against rping -s on seat 2" {
    cd "$ROOT"
    local p
    for _ in $(seq 50); do
        p=$((20000 + RANDOM % 20000))
        ss -Huln | grep -qE "[:.]($p|$((p + 1))|$((p + 2))|$((p + 3)))\b" || break
    done
    scripts/rxe-vm --siw --seat 2 --peer-seat 1 --link 127.0.0.1:$p --listen $((p + 1)) --timeout 240 -- bash -c '
        echo "seat 2: $SIW_DEV on $SIW_NETDEV at $SIW_ADDR, peer $SIW_PEER_ADDR"
        timeout 180 stdbuf -oL rping -s -a $SIW_ADDR -C 3 -p 18711 -v' >"$BATS_TEST_TMPDIR/seat2.out" 2>&1 &
    s2=$!
    run scripts/rxe-vm --siw --seat 1 --peer-seat 2 --link 127.0.0.1:$((p + 1)) --listen $p --timeout 240 -- bash -c '
        echo "seat 1: $SIW_DEV on $SIW_NETDEV at $SIW_ADDR, peer $SIW_PEER_ADDR"
        # seat 2 may still be booting: retry until it listens
        for _ in $(seq 60); do
            timeout 60 "$VERBSH" examples/rping_client.lua -a $SIW_PEER_ADDR -C 3 -p 18711 -v >/tmp/r.txt 2>&1 && break
            sleep 1
        done
        cat /tmp/r.txt'
    wait $s2 || true
    echo "$output"; cat "$BATS_TEST_TMPDIR/seat2.out"
    [ "$status" -eq 0 ]
    [[ $output == *"seat 1: siw0 on eth1 at 10.79.0.1, peer 10.79.0.2"* ]]
    [[ $output == *"rping_client: 3 pings to 10.79.0.2:18711, each read and written back by the server"* ]]
    grep -q "seat 2: siw0 on eth1 at 10.79.0.2, peer 10.79.0.1" "$BATS_TEST_TMPDIR/seat2.out"
    [ "$(grep -c '^server ping data: rdma-ping-' "$BATS_TEST_TMPDIR/seat2.out")" -eq 3 ]
}
