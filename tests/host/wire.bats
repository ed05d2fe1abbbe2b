#!/usr/bin/env bats
# verbs.wire on a real capture (tests/wire/send5000.pcap: ibv_rc_pingpong
# -s 5000 from rxe0 to rxe1 in scripts/rxe-vm --two, captured on veth0).
load ../helpers

@test "wire: decode, ICRC, ladder and folding of a captured 5000-byte SEND; bad input named" {
    run "$VERBSH" -e '
      local w = require "verbs.wire"
      local list = w.read_pcap("tests/wire/send5000.pcap")
      local p = w.decode(list[1].bytes)
      print(#list, p.bth.opname, p.bth.psn, p.bth.destqp, p.payload_length, p.icrc_ok)
      local last = w.decode(list[5].bytes)
      print(last.opcode, last.bth.a, last.payload_length)
      local ack = w.decode(list[6].bytes)
      print(ack.opcode, ack.aeth.kind, ack.aeth.nak, ack.aeth.msn, ack.icrc_ok)
      local b = list[2].bytes
      local k = 100
      print("corrupt", w.decode(b:sub(1, k - 1) .. string.char(b:byte(k) ~ 1) .. b:sub(k + 1)).icrc_ok)
      -- eight MIDDLE frames in a row fold to first, "... 6 more", last
      local many = { list[1] }
      for i = 1, 8 do many[#many + 1] = list[2] end
      print(w.ladder(many))
      print(w.ladder(list))
      print("filter", #w.filter(list, {opcode = "SEND_MIDDLE"}), #w.filter(list, {qp = 17, opcode = "RC_ACKNOWLEDGE"}), #w.filter(list, {qp = 18}))
      print(pcall(w.filter, list, {qpn = 1}))
      print(pcall(w.decode, 42))
      print(pcall(w.ladder, "x"))
      print(w.decode("short"))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'6\tRC_SEND_FIRST\t11253358\t17\t1024\ttrue' ]
    [ "${lines[1]}" = $'SEND_LAST\t1\t904' ]
    [ "${lines[2]}" = $'ACKNOWLEDGE\tNAK\tremote operational error\t0\ttrue' ]
    [ "${lines[3]}" = $'corrupt\tfalse' ]
    [[ $output == *"... 6 more SEND_MIDDLE"* ]]
    [[ $output == *"SEND_LAST psn 11253362 len 904 ------>"* ]]
    [[ $output == *"<------ ACKNOWLEDGE psn 11253362 len 0 NAK remote operational error msn 0|"* ]]
    [[ $output == *$'filter\t3\t1\t0'* ]]
    [[ $output == *"bad argument #2 to 'filter' (unknown key 'qpn': qp or opcode)"* ]]
    [[ $output == *"bad argument #1 to 'decode' (string expected, got number)"* ]]
    [[ $output == *"bad argument #1 to 'ladder' (capture or packet list expected, got string)"* ]]
    [[ $output == *$'nil\tshorter than an Ethernet header'* ]]
}

@test "wire: filter refuses an opcode or qp no frame can have, instead of selecting nothing" {
    run "$VERBSH" -e '
      local w = verbs.wire
      local l = w.read_pcap("tests/wire/send5000.pcap")
      print(#w.filter(l, {opcode = "SEND_MIDDLE"}), #w.filter(l, {opcode = "RC_SEND_MIDDLE"}), #w.filter(l, {opcode = 1}))
      print(pcall(w.filter, l, {opcode = "send_midle"}))
      print(pcall(w.filter, l, {opcode = 300}))
      print(pcall(w.filter, l, {qp = "x"}))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "3	3	3" ]
    [[ ${lines[1]} == "false	bad argument #2 to 'filter' (key 'opcode': 'send_midle' is not a BTH opcode (did you mean 'SEND_MIDDLE'?); the names: SEND_FIRST, "* ]]
    [[ ${lines[2]} == "false	bad argument #2 to 'filter' (key 'opcode': 300 is not a BTH opcode; the names: "* ]]
    [ "${lines[3]}" = "false	bad argument #2 to 'filter' (key 'qp': a QP number (0..0xffffff, as qp.qp_num) expected, got string)" ]
}

@test "wire: verbs.capture names bad arguments" {
    run "$VERBSH" -e '
      print(pcall(verbs.capture, {devcie = "rxe0"}))
      print(pcall(verbs.capture, {}))
      print(pcall(verbs.capture, {device = "rxe0", netdev = "veth0"}))
      print(pcall(verbs.capture, {netdev = 7}))
      print(pcall(verbs.capture, {device = "nosuchdev9"}))'
    echo "$output"
    [[ ${lines[0]} == *"unknown key 'devcie'"* ]]
    [[ ${lines[1]} == *"give device = \"rxe1\" or netdev = \"veth1\""* ]]
    [[ ${lines[2]} == *"give device or netdev, not both"* ]]
    [[ ${lines[3]} == *"netdev: string expected, got number"* ]]
    [[ ${lines[4]} == *"no netdev found under device 'nosuchdev9'"* ]]
}

@test "wire: print(cap) names the netdev and its frames; cap:posts() and cap:filter on an empty capture" {
    [ "$(id -u)" -eq 0 ] || skip "capturing needs root (CAP_NET_RAW)"
    run "$VERBSH" -e '
      local c = verbs.capture{netdev = "lo"}
      print(c)
      print(#c:posts(), c:stop())
      print(c)
      print(c:filter{opcode = "SEND_FIRST"})
      print(pcall(c.filter, c, {qpn = 1}))
      print(pcall(c.filter, c, "SEND"))
      print(pcall(c.stop, 5))
      print(pcall(c.save, c))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "capture on lo (0 frames)" ]
    [[ ${lines[1]} == $'0\t0\tno RoCEv2 frame crossed lo. Traffic between two QPs of one rxe device never reaches a netdev'* ]]
    [ "${lines[2]}" = "capture on lo (0 frames, stopped)" ]
    [ "${lines[3]}" = "(no RoCEv2 frames)" ]
    # the method form counts from the first explicit argument, as every verbsh method does
    [ "${lines[4]}" = "false	bad argument #1 to 'filter' (unknown key 'qpn': qp or opcode)" ]
    [ "${lines[5]}" = "false	bad argument #1 to 'filter' (table {qp=, opcode=} expected, got string)" ]
    [ "${lines[6]}" = "false	calling 'stop' on bad self (verbs.capture expected, got number)" ]
    [ "${lines[7]}" = "false	bad argument #1 to 'save' (file name (string) expected, got no value)" ]
}

@test "wire: a capture whose __gc ran is refused by name in every method, and prints as finalized" {
    [ "$(id -u)" -eq 0 ] || skip "capturing needs root (CAP_NET_RAW)"
    run "$VERBSH" -e '
      local c = verbs.capture{netdev = "lo"}
      getmetatable(c).__gc(c)
      print(c)
      for _, m in ipairs{ "packets", "info", "posts", "stop", "ladder" } do print(m, pcall(c[m], c)) end
      print("save", pcall(c.save, c, os.tmpname()))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "capture on lo (finalized)" ]
    [ "${#lines[@]}" -eq 7 ]
    for i in 1 2 3 4 5 6; do
        [[ ${lines[$i]} == *$'\tfalse\tcapture on lo was finalized: its frames are gone; start a new one with verbs.capture{...}' ]]
    done
}

@test "wire: attribute ties the frames of a real capture (tests/wire/scenarios.pcap) to the WRs posted" {
    run "$VERBSH" -e '
      local w = verbs.wire
      local list = w.read_pcap("tests/wire/scenarios.pcap")
      local function post(id, op, len, qpt, dest) return { qp = qpt == "UD" and "qp3" or "qp1", qp_num = 17,
        qp_type = qpt or "RC", dest_qp = dest or 17, wr_id = id, opcode = op, length = len } end
      local notes, summary = w.attribute(list, { post(7, "SEND", 5000), post(8, "RDMA_WRITE", 1500),
        post(9, "RDMA_WRITE_WITH_IMM", 100), post(10, "RDMA_READ", 3000), post(11, "ATOMIC_FETCH_AND_ADD", 8),
        post(12, "SEND", 64), post(13, "SEND", 1000, "UD", 18), post(14, "SEND", 10) })
      for i = 1, #list do print(i, notes[i] or "-") end
      print(table.concat(summary, "\n"))'
    echo "$output"
    [ "$status" -eq 0 ]
    for i in 1 2 3 4 5; do [ "${lines[i-1]}" = "$i	wr_id 7's SEND" ]; done
    [ "${lines[5]}" = "6	completes wr_id 7" ]
    [ "${lines[8]}" = "9	completes wr_id 8" ]
    [ "${lines[12]}" = "13	wr_id 10's RDMA_READ data" ]
    [ "${lines[14]}" = "15	wr_id 10's RDMA_READ data; completes wr_id 10" ]
    [ "${lines[16]}" = "17	wr_id 11's ATOMIC_FETCH_AND_ADD result; completes wr_id 11" ]
    [ "${lines[18]}" = "19	RNR NAK on wr_id 12's SEND" ]
    [ "${lines[19]}" = "20	wr_id 12's SEND again (retransmitted)" ]
    [ "${lines[20]}" = "21	completes wr_id 12" ]
    [ "${lines[21]}" = "22	wr_id 13's SEND" ]
    [[ $output == *"wr_id 10 (qp1 RDMA_READ, 3000 bytes): 1 frame from psn 108, 3 answers, completed by frame 15 (RDMA_READ_RESPONSE_LAST)"* ]]
    [[ $output == *"wr_id 13 (qp3 SEND, 1000 bytes): 1 frame from psn 0, no ACK on UD: it completes when sent"* ]]
    [[ ${lines[-1]} == "wr_id 14 (qp1 SEND, 10 bytes): no frame in the capture" ]]
    # one summary line a WR, in the order of their first frames (wr_id 13, one frame, sorts by it too)
    [ "$(printf '%s\n' "${lines[@]}" | sed -n 's/^wr_id \([0-9]*\) (.*/\1/p' | tr '\n' ' ')" = "7 8 9 10 11 12 13 14 " ]
}

@test "wire: a SEND and its RNR NAK five times over fold to the first round, a count and the last" {
    run "$VERBSH" -e '
      local w = verbs.wire
      local l = w.read_pcap("tests/wire/scenarios.pcap")
      local many = {}
      for _ = 1, 5 do many[#many + 1] = l[18]; many[#many + 1] = l[19] end
      many[#many + 1] = l[20]; many[#many + 1] = l[21]
      print(w.ladder(many))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 8 ]
    [[ ${lines[3]} == *"   ... 3 more times the same two"* ]]
    [[ ${lines[5]} == *"RNR NAK timer 1 msn 5|" ]]
    [[ ${lines[7]} == *"ACKNOWLEDGE psn 112 len 0 ACK msn 6|" ]]
}
