#!/usr/bin/env bats
# verbs.capture on rxe0's veth while rxe0 and rxe1 talk (scripts/rxe-vm --two);
# the pcap comes back on stdout and is checked against tshark on the host.
load ../helpers

@test "wire: captured RC (4 KiB, segmented) and UD frames decode exactly as tshark does, ICRC ok" {
    cd "$ROOT"
    command -v tshark >/dev/null || skip "tshark not installed (scripts/deps test)"
    pcap=$BATS_TEST_TMPDIR/x.pcap
    # the client tries again until the server listens (slow to start on a busy host)
    scripts/rxe-vm --two -- bash -c '
        cat >/tmp/cap.lua <<LUA
local verbs = require "verbs"
local cap = verbs.capture{device = "rxe0"}
os.execute("ibv_rc_pingpong -d rxe1 -g $RXE1_GID_INDEX -n 3 -s 4096 -p 18620 >/dev/null 2>&1 & for try in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do sleep 0.3; ibv_rc_pingpong -d rxe0 -g $RXE_GID_INDEX -n 3 -s 4096 -p 18620 192.0.2.2 >&2 && break; done; wait")
os.execute("ibv_ud_pingpong -d rxe1 -g $RXE1_GID_INDEX -n 3 -s 512 -p 18621 >/dev/null 2>&1 & for try in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do sleep 0.3; ibv_ud_pingpong -d rxe0 -g $RXE_GID_INDEX -n 3 -s 512 -p 18621 192.0.2.2 >&2 && break; done; wait")
io.stderr:write("captured ", cap:stop(), "\n")
cap:save("/tmp/x.pcap")
LUA
        "$VERBSH" /tmp/cap.lua && cat /tmp/x.pcap' >"$pcap"
    tshark -T json -r "$pcap" 2>/dev/null | python3 tests/wire/tshark_flat.py >"$BATS_TEST_TMPDIR/flat"
    run "$VERBSH" tests/wire/oracle.lua "$pcap" "$BATS_TEST_TMPDIR/flat"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *" 0 mismatches, corrupted byte reported"* ]]
    # segmentation and UD were really on the wire
    grep -q $'\tinfiniband.bth.opcode\t0$' "$BATS_TEST_TMPDIR/flat"      # SEND_FIRST
    grep -q $'\tinfiniband.bth.opcode\t100$' "$BATS_TEST_TMPDIR/flat"    # UD SEND_ONLY
}

@test "wire: SEND, WRITE+IMM, READ, atomic, RNR NAK and UD between rxe0 and rxe1: print(cap) ties each frame to its WR; tshark agrees on every field" {
    cd "$ROOT"
    command -v tshark >/dev/null || skip "tshark not installed (scripts/deps test)"
    pcap=$BATS_TEST_TMPDIR/s.pcap
    scripts/rxe-vm --two -- bash -c '"$VERBSH" tests/wire/scenarios.lua /tmp/s.pcap >&2 && cat /tmp/s.pcap' \
        >"$pcap" 2>"$BATS_TEST_TMPDIR/ladders"
    cat "$BATS_TEST_TMPDIR/ladders"
    l=$(cat "$BATS_TEST_TMPDIR/ladders")
    # the 5000-byte SEND: five frames of wr_id 7 (path MTU 1024), one ACK completes it
    [ "$(grep -c "SEND_[A-Z]* psn 10[0-4] len [0-9]* ------>  *|  wr_id 7's SEND$" <<<"$l")" -eq 5 ]
    [[ $l == *"<------ ACKNOWLEDGE psn 104 len 0 ACK msn 1|  completes wr_id 7"* ]]
    [[ $l == *"wr_id 7 (qp1 SEND, 5000 bytes): 5 frames from psn 100, completed by frame 6 (ACKNOWLEDGE)"* ]]
    # WRITE without and with IMM
    [[ $l == *"RDMA_WRITE_LAST psn 106 len 476 ------>"*"wr_id 8's RDMA_WRITE"* ]]
    [[ $l == *"RDMA_WRITE_ONLY_WITH_IMMEDIATE psn 107 len 100 ------>"*"wr_id 9's RDMA_WRITE_WITH_IMM"* ]]
    # READ: one request out, three responses back, the last completes it
    [[ $l == *"RDMA_READ_REQUEST psn 108 len 0 ------>"*"wr_id 10's RDMA_READ"* ]]
    [[ $l == *"<------ RDMA_READ_RESPONSE_LAST psn 110 len 952 ACK msn 4|  wr_id 10's RDMA_READ data; completes wr_id 10"* ]]
    [[ $l == *"wr_id 10 (qp1 RDMA_READ, 3000 bytes): 1 frame from psn 108, 3 answers, completed by frame 4 (RDMA_READ_RESPONSE_LAST)"* ]]
    # the atomic and its AtomicAckETH
    [[ $l == *"FETCH_ADD psn 111 len 0 ------>"*"wr_id 11's ATOMIC_FETCH_AND_ADD"* ]]
    [[ $l == *"<------ ATOMIC_ACKNOWLEDGE psn 111 len 0 ACK msn 5|  wr_id 11's ATOMIC_FETCH_AND_ADD result; completes wr_id 11"* ]]
    # no receive posted: RNR NAK, the same PSN again, then the ACK
    [[ $l == *"<------ ACKNOWLEDGE psn 112 len 0 RNR NAK timer 1 msn 5|  RNR NAK on wr_id 12's SEND"* ]]
    [[ $l == *"SEND_ONLY psn 112 len 64 ------>"*"wr_id 12's SEND again (retransmitted)"* ]]
    [[ $l == *"<------ ACKNOWLEDGE psn 112 len 0 ACK msn 6|  completes wr_id 12"* ]]
    # UD: no ACK
    [[ $l == *"wr_id 13 (qp3 SEND, 1000 bytes): 1 frame from psn 0, no ACK on UD: it completes when sent"* ]]
    tshark -T json -r "$pcap" 2>/dev/null | python3 tests/wire/tshark_flat.py >"$BATS_TEST_TMPDIR/flat"
    run "$VERBSH" tests/wire/oracle.lua "$pcap" "$BATS_TEST_TMPDIR/flat"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *" 0 mismatches, corrupted byte reported"* ]]
    # RETH, AtomicETH, AtomicAckETH, ImmDt, an RNR NAK's timer and DETH were compared
    for f in reth.va reth.dmalen atomiceth.swapdt atomicacketh.origremdt immdt aeth.syndrome.timer deth.q_key; do
        grep -q $'\tinfiniband.'"$f"$'\t' "$BATS_TEST_TMPDIR/flat" || { echo "no $f"; false; }
    done
    # with the values the scenarios chose: ImmDt 0x12345678, CMP_SWAP's swap
    grep -q $'\tinfiniband.immdt\t12:34:56:78$' "$BATS_TEST_TMPDIR/flat"
    grep -q $'\tinfiniband.atomiceth.swapdt\t1311768467463790320$' "$BATS_TEST_TMPDIR/flat"
}

@test "wire: RoCEv2 over IPv6 (the RoCE v2 GIDs of 2001:db8::1 and ::2): every header decodes as tshark does, the ICRC of each IPv6 frame is right" {
    cd "$ROOT"
    command -v tshark >/dev/null || skip "tshark not installed (scripts/deps test)"
    pcap=$BATS_TEST_TMPDIR/v6.pcap
    scripts/rxe-vm --two -- bash -c 'RXE_GID_INDEX=$RXE_GID6_INDEX RXE1_GID_INDEX=$RXE1_GID6_INDEX \
        "$VERBSH" tests/wire/scenarios.lua /tmp/v6.pcap send write_imm read atomic ud cmp_swap >&2 && cat /tmp/v6.pcap' \
        >"$pcap" 2>"$BATS_TEST_TMPDIR/ladders"
    cat "$BATS_TEST_TMPDIR/ladders"
    # the ladder's left side is rxe0's IPv6 address
    grep -q '^   time ms  2001:db8::1 ' "$BATS_TEST_TMPDIR/ladders"
    tshark -T json -r "$pcap" 2>/dev/null | python3 tests/wire/tshark_flat.py >"$BATS_TEST_TMPDIR/flat"
    run "$VERBSH" tests/wire/oracle.lua "$pcap" "$BATS_TEST_TMPDIR/flat"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *" 0 mismatches, corrupted byte reported"* ]]
    flat=$BATS_TEST_TMPDIR/flat
    # every frame is IPv6 (none IPv4), both ways, and each was compared with its ICRC
    frames=$(grep -c $'\tinfiniband.invariant.crc\t' "$flat")
    [ "$frames" -ge 16 ]
    [ "$(grep -c $'\tipv6.src\t' "$flat")" -eq "$frames" ]
    ! grep -q $'\tip.src\t' "$flat"
    grep -q $'\tipv6.src\t2001:db8::1$' "$flat"
    grep -q $'\tipv6.src\t2001:db8::2$' "$flat"
    # the distinct values the scenarios chose: ImmDt 0x12345678, UD's Q_Key,
    # the swap value, and the compare equal to the original the ACK returns
    grep -q $'\tinfiniband.immdt\t12:34:56:78$' "$flat"
    grep -q $'\tinfiniband.deth.q_key\t0x0000000011111111$' "$flat"
    grep -q $'\tinfiniband.atomiceth.swapdt\t1311768467463790320$' "$flat"
    cmp=$(grep $'\tinfiniband.atomiceth.cmpdt\t' "$flat" | tail -1 | cut -f3)
    orig=$(grep $'\tinfiniband.atomicacketh.origremdt\t' "$flat" | tail -1 | cut -f3)
    [ "$cmp" = 5 ]
    [ "$orig" = 5 ]
}

# One boot for both: the model solutions, then each step's most likely wrong
# answer (tests/lua/lesson_wrong.lua, as tests/device/lesson_wrong.bats runs
# the other lessons').
@test "lesson 17 on-the-wire: --auto passes between rxe0 and rxe1, its ladders in the transcript; each step refuses its wrong answer" {
    cd "$ROOT"
    run scripts/rxe-vm --two -- bash -c '"$VERBSH" --lesson on-the-wire --auto || exit 1
        "$VERBSH" tests/lua/lesson_wrong.lua on-the-wire || exit 2'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"8 of 8 wrong answers refused with their hint, then the step passed"* ]]
    [[ $output == *"PASS on-the-wire"* ]]
    [[ $output == *"Lesson on-the-wire complete (8 steps)"* ]]
    # the ladders the student reads, with the WRs that caused the frames
    [[ $output == *"SEND_LAST psn 104 len 904 ------>"*"|  wr_id 1's SEND"* ]]
    [[ $output == *"<------ RDMA_READ_RESPONSE_LAST psn"*"|  wr_id 31's RDMA_READ data; completes wr_id 31"* ]]
    [[ $output == *"RNR NAK timer 1 msn"*"|  RNR NAK on wr_id 61's SEND"* ]]
    [[ $output == *"wr_id 71's SEND again (retransmitted)"* ]]
    [[ $output == *"step 8 done: the SEND's PSN"*"qp_b completed it once"* ]]
}
