#!/usr/bin/env bats
# verbs.capture on rxe0's veth while rxe0 and rxe1 talk (scripts/rxe-vm --two);
# the pcap comes back on stdout and is checked against tshark on the host.
load ../helpers

@test "wire: captured RC (4 KiB, segmented) and UD frames decode exactly as tshark does, ICRC ok" {
    cd "$ROOT"
    command -v tshark >/dev/null || skip "tshark not installed (scripts/deps test)"
    pcap=$BATS_TEST_TMPDIR/x.pcap
    scripts/rxe-vm --two -- bash -c '
        cat >/tmp/cap.lua <<LUA
local verbs = require "verbs"
local cap = verbs.capture{device = "rxe0"}
os.execute("ibv_rc_pingpong -d rxe1 -g $RXE1_GID_INDEX -n 3 -s 4096 -p 18620 >/dev/null 2>&1 & sleep 0.5; ibv_rc_pingpong -d rxe0 -g $RXE_GID_INDEX -n 3 -s 4096 -p 18620 192.0.2.2 >&2; wait")
os.execute("ibv_ud_pingpong -d rxe1 -g $RXE1_GID_INDEX -n 3 -s 512 -p 18621 >/dev/null 2>&1 & sleep 0.5; ibv_ud_pingpong -d rxe0 -g $RXE_GID_INDEX -n 3 -s 512 -p 18621 192.0.2.2 >&2; wait")
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
