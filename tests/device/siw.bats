#!/usr/bin/env bats
# verbsh on soft-iWARP (siw), beside rxe in the same guest (scripts/rxe-vm
# --siw, as tests/run boots it): the refusals of iWARP explained, RC over
# rdma_cm, a C export that expects siw's -22, and rping in both roles
# between verbsh and rdma-core's rping.
load ../helpers

setup() {
    require_device
    [ -n "${SIW_DEV:-}" ] || skip "no siw device here (scripts/rxe-vm --siw gives one beside rxe0)"
    cd "$BATS_TEST_TMPDIR"
}

wait_cm_listen() {
    for _ in $(seq 300); do
        rdma resource show cm_id 2>/dev/null | grep -q "state LISTEN .*src-addr [0-9.]*:$1 " && return 0
        sleep 0.1
    done
    echo "no rdma_cm id listens on port $1" >&2; return 1
}

@test "siw: UD, UC, AH and an out-of-band RTS refused and explained (rxe does them), the state verbsh set; RC over rdma_cm: SEND, WRITE, READ, and IMM and atomics refused at the post with -22" {
    run "$VERBSH" "$ROOT/tests/lua/siw_verbs.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"siw_verbs: ok (96 checks)"* ]]
}

@test "siw: the C export of a session with refused posts compiles and reproduces (it expects -22)" {
    c=$BATS_TEST_TMPDIR/siw.c
    cd "$ROOT"
    run "$VERBSH" --export-c "$c" tests/export/siw_refused.lua
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"false	ibv_post_send failed: EINVAL"* ]]
    [[ $output == *"iwarp send	read back"* ]]
    grep -q 'expect_int("ibv_post_send", -22, ibv_post_send(' "$c"
    gcc -Wall -Wextra -Werror "$c" -libverbs -lrdmacm -o "$c.bin"
    run "$c.bin"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = reproduced ]
}

@test "siw: rping between verbsh and rdma-core's rping, verbsh as server and as client, 5 pings each" {
    timeout 120 "$VERBSH" "$ROOT/examples/rping_server.lua" -a "$SIW_ADDR" -p 7494 -C 5 -v >srv.out 2>&1 &
    pid=$!
    wait_cm_listen 7494
    run timeout 120 rping -c -a "$SIW_ADDR" -p 7494 -C 5 -v -V
    echo "$output"; cat srv.out
    [ "$status" -eq 0 ]
    wait $pid
    [ "$(grep -c '^ping data: rdma-ping-' <<<"$output")" -eq 5 ]
    grep -qx 'server ping data: rdma-ping-4: EFGHIJKLMNOPQRSTUVWXYZ\[\\\]^_`abcdefghijklmnopqrstuv' srv.out
    grep -q "rping_server: 5 pings from a client on $SIW_ADDR:7494" srv.out

    timeout 120 rping -s -a "$SIW_ADDR" -p 7495 -C 5 -v >srv2.out 2>&1 &
    pid=$!
    wait_cm_listen 7495
    run timeout 120 "$VERBSH" "$ROOT/examples/rping_client.lua" -a "$SIW_ADDR" -p 7495 -C 5 -v
    echo "$output"; cat srv2.out
    [ "$status" -eq 0 ]
    wait $pid || true   # rping -s exits 0 or 1 on the client's disconnect, as with its own client
    [[ $output == *"rping_client: 5 pings to $SIW_ADDR:7495, each read and written back by the server"* ]]
    [ "$(grep -c '^server ping data: rdma-ping-' srv2.out)" -eq 5 ]
}

@test "lesson 22 iwarp: --auto passes on rxe and siw side by side, and each completion step after a failed try" {
    run env VERBSH_LESSON_RETRY=1 "$VERBSH" --lesson 22 --auto
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"PASS iwarp"* ]]
    [ "$(grep -c '(retry drill: the check refused them: ' <<<"$output")" -eq 4 ]
    [[ $output == *"you predicted iWARP: right; RoCE fetched 41 and left 42, iWARP's post returned -22"* ]]
    [[ $output == *"iWARP: atomic_cap NONE, max_ah 0, max_mcast_grp 0"* ]]
    # the wire steps: the frames of the three WRs, then the TCP ACK of the WRITE
    grep -Eq 'Send in frame 1, Write in frame [0-9]+, Read Request in frame [0-9]+, its Read Response in frame [0-9]+' <<<"$output"
    grep -Eq "frame [0-9]+: TCP's ACK, a field of an ordinary segment, acknowledges the WRITE; RoCE's 2 ACKNOWLEDGEs" <<<"$output"
}

@test "lessons on siw alone (-d siw0): a RoCE lesson is skipped (77) naming the lessons that run on iWARP; the list marks the others" {
    run "$VERBSH" -d "$SIW_DEV" --lesson 5 --auto
    echo "$output"
    [ "$status" -eq 77 ]
    [[ $output == *"This lesson cannot run here: $SIW_DEV is an iWARP device, and this lesson runs on RoCE; the lessons that run on iWARP: 22 iwarp"* ]]
    run "$VERBSH" -d "$SIW_DEV" --lesson
    echo "$output"
    grep -q " 5  rc-send .*  \[needs RoCE: not on $SIW_DEV, iWARP\]$" <<<"$output"
    grep -q '22  iwarp' <<<"$output"
    ! grep '22  iwarp.*needs' <<<"$output"
    # on rxe the list is as it always was
    run "$VERBSH" -d "$RXE_DEV" --lesson
    ! grep -q 'needs RoCE' <<<"$output"
}

@test "siw wire: verbs.capture{device = siw0} live over lo: Send, Write, Read decoded, STags, offsets, seq and ack as they must be; the ladder ties frames to WRs, TCP's ACKs to what they acknowledge; rxe0's capture beside it stays RoCE" {
    run "$VERBSH" "$ROOT/tests/wire/iwarp_capture.lua" i.pcap
    echo "$output"
    [ "$status" -eq 0 ]
    # siw0's netdev is a dummy, which sends nothing: its TCP to itself crosses lo
    # (12 to 15 frames: whether TCP acknowledges two FPDUs at once varies, and
    # the last, delayed ACK may come after the capture stopped)
    [[ $output =~ "info iWARP lo $SIW_NETDEV tcp and (host $SIW_ADDR) "(1[2-5]) ]]
    [[ $output == *"roce RoCE $RXE_NETDEV udp port 4791 0 no RoCEv2 frame crossed $RXE_NETDEV"* ]]
    ladder=$output
    read -r _ _ wstag wto _ rstag rto _ sstag sto <<<"$(grep '^keys ' <<<"$ladder")"
    # (tshark, the oracle of every field, takes ~12 s in this guest: tests/vm/siw.bats
    # compares it with a live verbs.capture on siw0's veth, on the host; here the
    # ladder's lines are checked against known values: the MRs' STags and
    # addresses, the WRs, and TCP's relative seq and ack, which follow from the
    # lengths: the MPA Request and Reply (24 bytes each), the Send FPDU (2 + 18 + 100
    # + 4 CRC = 124), the Write (2 + 14 + 300 + 4 = 320), the Read Request (2 + 18
    # + 28 + 4 = 52), the Read Response (2 + 14 + 200 + 4 = 220))
    # frame -> WR ties, opcodes and lengths; the frame numbers are read from
    # the rows, since where TCP's own ACKs fall between the FPDUs varies
    frame() { local f; f=$(ladder_frames "$1" <<<"$ladder"); echo "${f%% *}"; }
    send=$(frame "\|Send QN 0 MSN 1 MO 0 last len 100 \(seq 25\) ack 25 ------> *\| #[0-9]+  wr_id 11's SEND$")
    write=$(frame "\|Write STag $wstag TO $wto last len 300 \(seq 149\) ack 25 ------>\| #[0-9]+  wr_id 12's RDMA_WRITE$")
    rreq=$(frame "\|Read Request QN 1 MSN 1 MO 0 last len 0 reads 200 bytes at STag $rstag TO $rto \(seq 469\) ack 25 ------>\| #[0-9]+  wr_id 13's RDMA_READ$")
    rresp=$(frame "\|<------ Read Response STag $sstag TO $sto last len 200 \(seq 25\) ack 521\| #[0-9]+  wr_id 13's RDMA_READ data \(last: it completes\)")
    [ -n "$send" ]
    [ "$send" -lt "$write" ]
    [ "$write" -lt "$rreq" ]
    [ "$rreq" -lt "$rresp" ]
    # each WR's TCP ACK: a row that names it, acknowledging at least its last byte
    acked() {   # acked WHAT END: the frame of the first row acknowledging WHAT, with ack >= END
        local row; row=$(grep -E "ack [0-9]+[^|]*\| #[0-9]+ .*TCP acknowledges [^;]*$1" <<<"$ladder" | head -1)
        [[ $row =~ ack\ ([0-9]+)[^|]*\|\ \#([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge "$2" ] && echo "${BASH_REMATCH[2]}"
    }
    send_ack=$(acked "wr_id 11's SEND" 149); write_ack=$(acked "wr_id 12's RDMA_WRITE" 469)
    rreq_ack=$(acked "wr_id 13's RDMA_READ($|[^ ])" 521)
    [ -n "$send_ack" ]
    [ -n "$write_ack" ]
    [ -n "$rreq_ack" ]
    # the last ACK is a delayed one: on a loaded host it may come after the
    # capture stopped (2 s), and the summary must then say so
    data_ack=$(acked "wr_id 13's RDMA_READ data" 245) && data_ack="(TCP ACK in frame $data_ack)" ||
        data_ack="(no TCP ACK of it in the capture)"
    grep -qx "wr_id 11 (qp1 SEND, 100 bytes): frame $send (TCP ACK in frame $send_ack)" <<<"$ladder"
    grep -qx "wr_id 12 (qp1 RDMA_WRITE, 300 bytes): frame $write (TCP ACK in frame $write_ack)" <<<"$ladder"
    grep -qx "wr_id 13 (qp1 RDMA_READ, 200 bytes): request in frame $rreq (TCP ACK in frame $rreq_ack), Read Response in frame $rresp $data_ack" <<<"$ladder"
}
