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
      print(pcall(w.ladder, list, "first"))
      print(pcall(w.ladder, list, 5))
      print(pcall(w.ladder, list, { [2] = {} }))
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
    # notes: a table or nothing
    [[ $output == *$'false\tbad argument #2 to \'ladder\' (table of notes (notes[i] after frame i) expected, got string)\n'* ]]
    [[ $output == *$'false\tbad argument #2 to \'ladder\' (table of notes (notes[i] after frame i) expected, got number)\n'* ]]
    [[ $output == *$'false\tladder: notes[2] is the text shown after frame 2: a string expected, got table\n'* ]]
    [[ $output == *$'nil\tshorter than an Ethernet header'* ]]
}

@test "wire: filter refuses an opcode or qp no frame can have, instead of selecting nothing" {
    run "$VERBSH" -e '
      local w = verbs.wire
      local l = w.read_pcap("tests/wire/send5000.pcap")
      print(#w.filter(l, {opcode = "SEND_MIDDLE"}), #w.filter(l, {opcode = "RC_SEND_MIDDLE"}), #w.filter(l, {opcode = 1}))
      print(pcall(w.filter, l, {opcode = "send_midle"}))
      print(pcall(w.filter, l, {opcode = 300}))
      print(pcall(w.filter, l, {qp = "x"}))
      print(select(2, pcall(w.filter, l, {opcode = "send_only_with_invalidat"})))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "3	3	3" ]
    # the last opcode (23) is suggested and listed, in the order of the BTH's numbers (22 before 23; 21 has no name)
    [ "${lines[4]}" = "bad argument #2 to 'filter' (key 'opcode': 'send_only_with_invalidat' is not a BTH opcode (did you mean 'SEND_ONLY_WITH_INVALIDATE'?); the names: SEND_FIRST, SEND_MIDDLE, SEND_LAST, SEND_LAST_WITH_IMMEDIATE, SEND_ONLY, SEND_ONLY_WITH_IMMEDIATE, RDMA_WRITE_FIRST, RDMA_WRITE_MIDDLE, RDMA_WRITE_LAST, RDMA_WRITE_LAST_WITH_IMMEDIATE, RDMA_WRITE_ONLY, RDMA_WRITE_ONLY_WITH_IMMEDIATE, RDMA_READ_REQUEST, RDMA_READ_RESPONSE_FIRST, RDMA_READ_RESPONSE_MIDDLE, RDMA_READ_RESPONSE_LAST, RDMA_READ_RESPONSE_ONLY, ACKNOWLEDGE, ATOMIC_ACKNOWLEDGE, COMPARE_SWAP, FETCH_ADD, SEND_LAST_WITH_INVALIDATE, SEND_ONLY_WITH_INVALIDATE)" ]
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
      print(pcall(c.save, c))
      print(pcall(c.stop, debug.setmetatable({}, debug.getmetatable(c))))
      print(pcall(c.ladder, c, c))'
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
    # a table given a capture's metatable is no capture, and is not called one
    [ "${lines[8]}" = "false	calling 'stop' on bad self (verbs.capture expected, got a table with its metatable: only verbsh makes a verbs.capture)" ]
    # (notes, as a method, is argument #1)
    [ "${lines[9]}" = "false	bad argument #1 to 'ladder' (table of notes (notes[i] after frame i) expected, got verbs.capture)" ]
    [ "${#lines[@]}" -eq 10 ]
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

@test "wire: runs of four MIDDLE frames stay drawn and five fold; three rounds of a request and its RNR NAK stay and four fold" {
    run "$VERBSH" -e '
      local w = verbs.wire
      local s = w.read_pcap("tests/wire/send5000.pcap")
      local function middles(n) local l = { s[1] } for _ = 1, n do l[#l + 1] = s[2] end l[#l + 1] = s[5] return l end
      local four, five = w.ladder(middles(4)), w.ladder(middles(5))
      print(select(2, four:gsub("\n", "")), select(2, four:gsub("SEND_MIDDLE psn", "")), four:find("more", 1, true))
      print(select(2, five:gsub("\n", "")), five:match("%.%.%. %d+ more SEND_MIDDLE"))
      local l = w.read_pcap("tests/wire/scenarios.pcap")
      local function rounds(n) local r = {} for _ = 1, n do r[#r + 1] = l[18]; r[#r + 1] = l[19] end r[#r + 1] = l[20]; r[#r + 1] = l[21] return r end
      local three, four_r = w.ladder(rounds(3)), w.ladder(rounds(4))
      print(select(2, three:gsub("\n", "")), three:find("times the same", 1, true))
      print(select(2, four_r:gsub("\n", "")), four_r:match("%.%.%. %d+ more times the same two"))'
    echo "$output"
    [ "$status" -eq 0 ]
    # header + FIRST + 4 MIDDLE + LAST: 7 lines (6 newlines), nothing folded
    [ "${lines[0]}" = $'6\t4\tnil' ]
    # header + FIRST + MIDDLE + "... 3 more" + MIDDLE + LAST
    [ "${lines[1]}" = $'5\t... 3 more SEND_MIDDLE' ]
    # header + 3 rounds of 2 + the last 2: 9 lines
    [ "${lines[2]}" = $'8\tnil' ]
    # header + first round + "... 2 more times" + last round + the last 2
    [ "${lines[3]}" = $'7\t... 2 more times the same two' ]
}

@test "wire: a fold of 20000 MIDDLE frames, or of 10000 rounds, holds no row per frame while the ladder reads on (under 1 MiB more, each frame a 1082-byte copy)" {
    # the list holds one packet table 20000 times; each row the ladder reads
    # makes its own frame of it. Its notes are read once per row: there the
    # memory in use is measured, after a full collection, every 1000 rows.
    run "$VERBSH" -e '
      local w = verbs.wire
      local l = w.read_pcap("tests/wire/scenarios.pcap")
      local function peak_of(list)
        collectgarbage(); collectgarbage()
        local base, peak = collectgarbage("count"), 0
        local notes = setmetatable({}, { __index = function(_, k)
          if k % 1000 == 0 then collectgarbage(); collectgarbage(); peak = math.max(peak, collectgarbage("count") - base) end
        end })
        return w.ladder(list, notes), peak
      end
      local mid = { bytes = l[2].bytes, time = 1 }
      local list = { l[1] }
      for i = 2, 20001 do list[i] = mid end
      local s, peak = peak_of(list)
      print(#l[2].bytes, s:match("%.%.%. %d+ more SEND_MIDDLE"), peak < 1024)
      local send, ack = { bytes = l[18].bytes, time = 1 }, { bytes = l[19].bytes, time = 1 }
      local rounds = {}
      for i = 1, 10000 do rounds[2 * i - 1], rounds[2 * i] = send, ack end
      s, peak = peak_of(rounds)
      print(s:match("%.%.%. %d+ more times the same two"), peak < 1024)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'1082\t... 19998 more SEND_MIDDLE\ttrue' ]
    [ "${lines[1]}" = $'... 9998 more times the same two\ttrue' ]
}

@test "wire: frames(file) yields the frames read_pcap lists, one at a time; a break closes the file; bad files are named" {
    bad=$BATS_TEST_TMPDIR/raw.pcap
    printf '\xd4\xc3\xb2\xa1\x02\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x00\x00\x65\x00\x00\x00' >"$bad"
    printf 'not a pcap at all, not even close' >"$BATS_TEST_TMPDIR/junk"
    run "$VERBSH" -e '
      local w = verbs.wire
      local list = w.read_pcap("tests/wire/scenarios.pcap")
      local n, same = 0, 0
      for p in w.frames("tests/wire/scenarios.pcap") do
        n = n + 1
        if p == list[n] and p.time == list[n].time and p.bth.psn == list[n].bth.psn then same = same + 1 end
      end
      print(n, #list, same)
      for p in w.frames("tests/wire/scenarios.pcap") do if p.opcode == "FETCH_ADD" then print(p.bth.psn, p.atomiceth.swap_or_add) break end end
      print(pcall(w.frames, "/nonexistent/x.pcap"))
      print(pcall(w.frames, "'"$bad"'"))
      print(pcall(w.read_pcap, "'"$BATS_TEST_TMPDIR/junk"'"))
      print(pcall(w.frames, 7))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'22\t22\t22' ]
    [ "${lines[1]}" = $'111\t5' ]
    [[ ${lines[2]} == $'false\tframes: /nonexistent/x.pcap: No such file or directory' ]]
    [[ ${lines[3]} == "false	frames: $BATS_TEST_TMPDIR/raw.pcap has link type RAW (12), not Ethernet (EN10MB)"* ]]
    [[ ${lines[4]} == "false	read_pcap: "* ]]
    [ "${lines[5]}" = "false	bad argument #1 to 'frames' (file name (string) expected, got number)" ]
}

@test "wire: a frame reads as the table it replaced: pairs, absent headers nil, bytes and length, decode of a frame" {
    run "$VERBSH" -e '
      local w = verbs.wire
      local l = w.read_pcap("tests/wire/scenarios.pcap")
      local ack = l[6]
      local keys = {}
      for k in pairs(ack.aeth) do keys[#keys + 1] = k end
      print(table.concat(keys, " "))
      print(ack.reth, ack.deth, ack.immdt, ack.aeth.timer, ack.aeth.nak, ack.aeth.kind, ack.aeth.msn)
      print(#ack.bytes == ack.length, ack.caplen, w.decode(ack) == ack, rawequal(w.decode(ack), ack))
      local d = w.decode(ack.bytes)
      print(d == ack, rawequal(d, ack), d.time, ack.time > 1.7e9)
      print(l[1].ip.version, l[1].ip.src, l[1].eth.type, l[1].bth.opname, l[1].reth, l[1].nosuchfield)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "syndrome msn kind value" ]
    [ "${lines[1]}" = $'nil\tnil\tnil\tnil\tnil\tACK\t1' ]
    [ "${lines[2]}" = $'true\t62\ttrue\ttrue' ]
    [ "${lines[3]}" = $'true\tfalse\tnil\ttrue' ]
    [ "${lines[4]}" = $'4\t192.0.2.1\t2048\tRC_SEND_FIRST\tnil\tnil' ]
}

@test "wire: the BTH's second byte is SE (bit 7), M (bit 6), PadCnt (bits 5-4) and TVer (bits 3-0), each read from its own bits" {
    # a captured SEND_FIRST (all four 0) with that byte set to distinct patterns;
    # the ICRC covers the byte, so it no longer matches
    run "$VERBSH" -e '
      local b = verbs.wire.read_pcap("tests/wire/scenarios.pcap")[1].bytes
      print(b:byte(44))   -- Ethernet 14, IPv4 20, UDP 8 bytes, then the BTH: its byte 1 is the 44th
      for _, v in ipairs{ 0x40, 0x80, 0xb5, 0x63 } do
        local d = verbs.wire.decode(b:sub(1, 43) .. string.char(v) .. b:sub(45))
        print(("0x%02x"):format(v), d.bth.se, d.bth.m, d.bth.padcnt, d.bth.tver, d.opcode, d.icrc_ok)
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = 0 ]
    [ "${lines[1]}" = $'0x40\t0\t1\t0\t0\tSEND_FIRST\tfalse' ]
    [ "${lines[2]}" = $'0x80\t1\t0\t0\t0\tSEND_FIRST\tfalse' ]
    [ "${lines[3]}" = $'0xb5\t1\t0\t3\t5\tSEND_FIRST\tfalse' ]
    [ "${lines[4]}" = $'0x63\t0\t1\t2\t3\tSEND_FIRST\tfalse' ]
}

@test "wire: the BTH's fifth byte is FECN (bit 7), BECN (bit 6) and 6 reserved bits, apart from the DestQP in the next three" {
    # tshark 4.0 names that byte reserved, so the IBTA layout is the oracle:
    # a captured SEND_FIRST (F, B 0, DestQP 17) with bytes 4-7 of its BTH set
    run "$VERBSH" -e '
      local b = verbs.wire.read_pcap("tests/wire/scenarios.pcap")[1].bytes
      print(b:byte(47), b:byte(48, 50))   -- the BTH starts at the 43rd byte
      for _, v in ipairs{ { 0x80, 0x000011 }, { 0x40, 0x000011 }, { 0x3f, 0x000011 }, { 0x00, 0xc0a5b4 }, { 0xc0, 0x123456 } } do
        local d = verbs.wire.decode(b:sub(1, 46) .. string.pack(">B I3", v[1], v[2]) .. b:sub(51))
        print(("0x%02x"):format(v[1]), d.bth.f, d.bth.b, ("0x%06x"):format(d.bth.destqp), d.bth.psn, d.opcode)
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'0\t0\t0\t17' ]
    [ "${lines[1]}" = $'0x80\t1\t0\t0x000011\t100\tSEND_FIRST' ]
    [ "${lines[2]}" = $'0x40\t0\t1\t0x000011\t100\tSEND_FIRST' ]
    [ "${lines[3]}" = $'0x3f\t0\t0\t0x000011\t100\tSEND_FIRST' ]
    [ "${lines[4]}" = $'0x00\t0\t0\t0xc0a5b4\t100\tSEND_FIRST' ]
    [ "${lines[5]}" = $'0xc0\t1\t1\t0x123456\t100\tSEND_FIRST' ]
}

# stop closes the pcap handle: its packet socket is gone from the process's
# fds (and from the kernel's /proc/net/packet) once stop returns.
@test "wire: cap:stop closes the capture's packet socket: the process holds one per running capture, none after stop; info after stop says stopped, 0 drops" {
    [ "$(id -u)" -eq 0 ] || skip "capturing needs root (CAP_NET_RAW)"
    run "$VERBSH" -e '
      local pid = io.open("/proc/self/stat"):read("n")
      local function packet_fds()   -- the fds of this process that are packet sockets
        local kernel = {}
        for l in io.lines("/proc/net/packet") do local ino = l:match("(%d+)%s*$") if ino then kernel[ino] = true end end
        local p, n = io.popen("ls -l /proc/" .. pid .. "/fd"), 0
        for l in p:lines() do local ino = l:match("socket:%[(%d+)%]") if ino and kernel[ino] then n = n + 1 end end
        p:close()
        return n
      end
      print("before", packet_fds())
      local a, b = verbs.capture{netdev = "lo"}, verbs.capture{netdev = "lo", snaplen = 128}
      print("running", packet_fds())
      print("stop", a:stop(), packet_fds())
      print("stop", b:stop(), packet_fds())
      local i = a:info()
      print(i.stopped, i.drops, i.count)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "before	0" ]
    [ "${lines[1]}" = "running	2" ]
    [ "${lines[2]}" = "stop	0	1" ]
    [ "${lines[3]}" = "stop	0	0" ]
    [ "${lines[4]}" = "true	0	0" ]
    [ "${#lines[@]}" -eq 5 ]
}

@test "wire: verbs.capture on lo keeps each datagram to UDP 4791 as a frame; snaplen 128 keeps the headers, 127 is refused" {
    [ "$(id -u)" -eq 0 ] || skip "capturing needs root (CAP_NET_RAW)"
    run "$VERBSH" -e '
      local w = verbs.wire
      local src = w.read_pcap("tests/wire/scenarios.pcap")
      local whole = verbs.capture{netdev = "lo"}
      local cut = verbs.capture{netdev = "lo", snaplen = 128}
      local u = require("socket").udp()
      for _, i in ipairs{ 1, 6, 16 } do u:sendto(src[i].bytes:sub(43), "127.0.0.1", 4791) end
      u:sendto(src[15].bytes:sub(43), "127.0.0.1", 4791)
      print(whole:stop(), cut:stop())
      for i, p in ipairs(whole:packets()) do
        local q = cut:packets()[i]
        print(p.opcode, p.bth.psn, p.length, p.caplen, q.bth.psn, q.length, q.caplen, tostring(q.icrc_ok), p.icrc_ok)
      end
      print(cut:info().snaplen, cut:info().drops, whole:info().snaplen)
      local f = os.tmpname()
      print(cut:save(f), w.read_pcap(f)[2].caplen, w.read_pcap(f)[2].length, w.read_pcap(f)[1].caplen)
      os.remove(f)
      print(pcall(verbs.capture, {netdev = "lo", snaplen = 127}))
      print(pcall(verbs.capture, {netdev = "lo", snaplen = 262145}))
      local ok = verbs.capture{netdev = "lo", snaplen = 262144}; print(ok:info().snaplen); ok:stop()'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'4\t4' ]
    # lo has a 14-byte Ethernet header of zeros, then IP: the sizes are the
    # datagrams + 42; the addresses differ from the capture's, so the ICRC fails
    [ "${lines[1]}" = $'SEND_FIRST\t100\t1082\t1082\t100\t1082\t128\tnil\tfalse' ]
    [ "${lines[2]}" = $'ACKNOWLEDGE\t104\t62\t62\t104\t62\t62\tfalse\tfalse' ]
    [ "${lines[3]}" = $'FETCH_ADD\t111\t86\t86\t111\t86\t86\tfalse\tfalse' ]
    [ "${lines[4]}" = $'RDMA_READ_RESPONSE_LAST\t110\t1014\t1014\t110\t1014\t128\tnil\tfalse' ]
    [ "${lines[5]}" = $'128\t0\t9216' ]
    [ "${lines[6]}" = $'4\t62\t62\t128' ]
    [[ ${lines[7]} == "false	bad argument #1 to 'capture' (snaplen: the bytes kept of each frame, an integer from 128 (its headers) to 262144 expected, got 127)" ]]
    [[ ${lines[8]} == *"got 262145)" ]]
    [ "${lines[9]}" = "262144" ]
}

@test "wire: frames a capture has no memory to keep are counted as lost, in stop's and info's answer; the frames after are kept" {
    [ "$(id -u)" -eq 0 ] || skip "capturing needs root (CAP_NET_RAW)"
    # in a network namespace of its own (no other test's frames on its lo),
    # verbsh lowers its own address-space limit to 2 MiB above what it maps:
    # the capture's first 4 MiB block of frames cannot be had. ASan must then
    # answer NULL, as malloc does, rather than end the process.
    ASAN_OPTIONS=$ASAN_OPTIONS:allocator_may_return_null=1 run unshare -n sh -c 'ip link set lo up && exec "$0" -e "$1"' "$VERBSH" '
      local src = verbs.wire.read_pcap("tests/wire/scenarios.pcap")
      local socket = require "socket"
      local u = socket.udp()
      local pid = io.open("/proc/self/stat"):read("l"):match("^%d+")
      local function vmsize()
        for l in io.lines("/proc/self/status") do
          local k = l:match("^VmSize:%s+(%d+) kB")
          if k then return tonumber(k) * 1024 end
        end
      end
      local c = verbs.capture{netdev = "lo"}
      assert(os.execute(("prlimit --pid %s --as=%d:"):format(pid, vmsize() + (2 << 20))))
      for _, i in ipairs{ 1, 6, 16 } do u:sendto(src[i].bytes:sub(43), "127.0.0.1", 4791) end
      local lost
      for _ = 1, 500 do
        lost = c:info().lost
        if lost and lost:match("^3 ") then break end
        socket.sleep(0.01)
      end
      assert(os.execute(("prlimit --pid %s --as=unlimited:"):format(pid)))
      print(lost)
      u:sendto(src[17].bytes:sub(43), "127.0.0.1", 4791)
      print(c:stop())
      print(#c:packets(), c:packets()[1].opcode, c:packets()[1].bth.psn, c:info().lost)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "3 frames were lost: out of memory to keep them" ]
    [ "${lines[1]}" = $'1\t3 frames were lost: out of memory to keep them' ]
    [ "${lines[2]}" = $'1\tATOMIC_ACKNOWLEDGE\t111\t3 frames were lost: out of memory to keep them' ]
}

@test "wire: the ICRC of IPv6 frames (tests/wire/ipv6.pcap, RoCEv2 over IPv6 between rxe0 and rxe1): right for each, masked fields masked, the others not" {
    run "$VERBSH" -e '
      local w = verbs.wire
      local l = w.read_pcap("tests/wire/ipv6.pcap")
      local ok, v6 = 0, 0
      for _, p in ipairs(l) do
        if p.icrc_ok then ok = ok + 1 end
        if p.ip.version == 6 and p.eth.type == 0x86DD then v6 = v6 + 1 end
      end
      print(#l, ok, v6, l[1].ip.src, l[1].ip.dst, l[2].ip.src, l[1].ip.hlim, l[1].ip.nxt, l[1].ip.plen)
      -- byte k (1-based) of frame 1 flipped: does the ICRC still hold?
      local function flip(k, bit)
        local b = l[1].bytes
        return w.decode(b:sub(1, k - 1) .. string.char(b:byte(k) ~ bit) .. b:sub(k + 1)).icrc_ok
      end
      -- the IPv6 header starts at byte 15: traffic class and flow label (bytes
      -- 15-18, not the version), hop limit (22): masked; the version, payload
      -- length (19-20), source (23-38) and destination (39-54): covered
      print(flip(15, 0x01), flip(16, 0x80), flip(18, 0x01), flip(22, 0x01))
      print(flip(15, 0x10), flip(20, 0x01), flip(23, 0x01), flip(54, 0x01))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'9\t9\t9\t2001:db8::1\t2001:db8::2\t2001:db8::2\t64\t17\t40' ]
    [ "${lines[1]}" = $'true\ttrue\ttrue\ttrue' ]
    [ "${lines[2]}" = $'false\tfalse\tfalse\tfalse' ]
}

@test "wire: tshark decodes tests/wire/ipv6.pcap as verbsh does, field by field" {
    command -v tshark >/dev/null || skip "tshark not installed (scripts/deps test)"
    tshark -T json -r tests/wire/ipv6.pcap 2>/dev/null | python3 tests/wire/tshark_flat.py >"$BATS_TEST_TMPDIR/flat"
    run "$VERBSH" tests/wire/oracle.lua tests/wire/ipv6.pcap "$BATS_TEST_TMPDIR/flat"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == "9 frames, "*" fields compared, 0 mismatches, corrupted byte reported"* ]]
    for f in ipv6.src ipv6.hlim ipv6.flow infiniband.atomiceth.cmpdt infiniband.deth.srcqp infiniband.invariant.crc; do
        grep -q $'\t'"$f"$'\t' "$BATS_TEST_TMPDIR/flat" || { echo "no $f"; false; }
    done
}

@test "wire: tshark decodes the IPv4 captures (tests/wire/scenarios.pcap, send5000.pcap) as verbsh does, every IPv4, UDP and IB field" {
    command -v tshark >/dev/null || skip "tshark not installed (scripts/deps test)"
    for f in scenarios send5000; do
        tshark -T json -r tests/wire/$f.pcap 2>/dev/null | python3 tests/wire/tshark_flat.py >"$BATS_TEST_TMPDIR/$f"
        run "$VERBSH" tests/wire/oracle.lua tests/wire/$f.pcap "$BATS_TEST_TMPDIR/$f"
        echo "$output"
        [ "$status" -eq 0 ]
        [[ $output == *" fields compared, 0 mismatches, corrupted byte reported"* ]]
    done
    [[ ${lines[0]} == "6 frames, "* ]]
    # each field verbsh decodes for IPv4 is in tshark's answer, so compared;
    # and the extended headers of the scenarios (UD, WRITE_WITH_IMM, atomics, RNR NAK)
    for k in version hdr_len dsfield len id ttl proto checksum src dst; do
        [ "$(grep -c $'\t'"ip.$k"$'\t' "$BATS_TEST_TMPDIR/scenarios")" -eq 22 ] || { echo "not 22 ip.$k"; false; }
        grep -q $'\t'"ip.$k"$'\t' "$BATS_TEST_TMPDIR/send5000" || { echo "no ip.$k in send5000"; false; }
    done
    for k in udp.checksum infiniband.immdt infiniband.deth.srcqp infiniband.deth.q_key infiniband.atomiceth.cmpdt \
             infiniband.atomicacketh.origremdt infiniband.aeth.syndrome.timer infiniband.reth.dmalen; do
        grep -q $'\t'"$k"$'\t' "$BATS_TEST_TMPDIR/scenarios" || { echo "no $k"; false; }
    done
}

@test "wire: a frame's length on the wire is from its bytes' count to 0xffffffff (pcap's 32 bits), one past either end refused, never wrapped" {
    run "$VERBSH" -e '
      local core = require "verbs.wire_core"
      local b = verbs.wire.read_pcap("tests/wire/scenarios.pcap")[6].bytes
      for _, n in ipairs{ #b, #b - 1, 0xffffffff, 0x100000000, 0x100000000 + #b } do
        local ok, f = pcall(core.frame, b, 1.5, n)
        if ok then print(n, f.length, f.caplen, f.time, f.opcode) else print(n, f) end
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'62\t62\t62\t1.5\tACKNOWLEDGE' ]
    [ "${lines[1]}" = $'61\tbad argument #3 to \'verbs.wire_core.frame\' (a length on the wire from the bytes given (62) to 4294967295, got 61)' ]
    [ "${lines[2]}" = $'4294967295\t4294967295\t62\t1.5\tACKNOWLEDGE' ]
    [ "${lines[3]}" = $'4294967296\tbad argument #3 to \'verbs.wire_core.frame\' (a length on the wire from the bytes given (62) to 4294967295, got 4294967296)' ]
    [ "${lines[4]}" = $'4294967358\tbad argument #3 to \'verbs.wire_core.frame\' (a length on the wire from the bytes given (62) to 4294967295, got 4294967358)' ]
}

@test "wire: a RoCEv2 frame cut 6 bytes into its BTH is truncated; when the capture cut it (the length on the wire is longer) the reason gives both lengths, when the frame itself is that short it does not" {
    run "$VERBSH" -e '
      local w, core = verbs.wire, require "verbs.wire_core"
      local b = w.read_pcap("tests/wire/scenarios.pcap")[1].bytes
      local cut = b:sub(1, 14 + 20 + 8 + 6)
      print(#b, select(2, w.decode(cut)))
      print(core.frame(cut, 1.5, #cut)); print(core.frame(cut, 1.5, #b)); print(core.frame(cut, 1.5, #cut + 1))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "1082	truncated RoCEv2 packet" ]
    [ "${lines[1]}" = "frame of 48 bytes (truncated RoCEv2 packet)" ]
    [ "${lines[2]}" = "frame of 1082 bytes (truncated RoCEv2 packet (48 of its 1082 bytes captured))" ]
    [ "${lines[3]}" = "frame of 49 bytes (truncated RoCEv2 packet (48 of its 49 bytes captured))" ]
}

# A READ request is BTH 12 + RETH 16 + ICRC 4 = 32 bytes of UDP payload;
# the frame's bytes stay whole, only the UDP length says less.
@test "wire: a RoCEv2 frame whose UDP length leaves no room for the ICRC after its RETH is truncated: a READ request with UDP length 40 decodes, 39 and 36 do not" {
    run "$VERBSH" -e '
      local w = verbs.wire
      local b = w.read_pcap("tests/wire/scenarios.pcap")[12].bytes
      local function udplen(n) return b:sub(1, 38) .. string.pack(">I2", n) .. b:sub(41) end
      print(#b, b:byte(39) * 256 + b:byte(40))
      for _, n in ipairs { 40, 39, 36 } do
        local d, why = w.decode(udplen(n))
        print(n, d and d.bth.opname, d and d.reth.dma_length, why)
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'74\t40' ]
    [[ ${lines[1]} =~ ^40$'\t'RC_RDMA_READ_REQUEST$'\t'[1-9][0-9]*$'\t'nil$ ]]
    [ "${lines[2]}" = $'39\tnil\tnil\ttruncated RoCEv2 packet' ]
    [ "${lines[3]}" = $'36\tnil\tnil\ttruncated RoCEv2 packet' ]
}

@test "wire: a frame's __index called by hand, with an argument more than Lua's indexing passes, reads the key it was given" {
    run "$VERBSH" -e '
      local w, core = verbs.wire, require "verbs.wire_core"
      local b = w.read_pcap("tests/wire/scenarios.pcap")[1].bytes
      local f = core.frame(b, 1.5, #b)
      local index = getmetatable(f).__index
      print(index(f, "opcode", "length"), index(f, "length", "opcode"), f.opcode, f.length)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "SEND_FIRST	1082	SEND_FIRST	1082" ]
}

@test "wire: a header keeps its frame alive: read after the frame was collected and its memory reused, every field is the same" {
    run "$VERBSH" -e '
      local w, core = verbs.wire, require "verbs.wire_core"
      local function headers()
        local b = w.read_pcap("tests/wire/scenarios.pcap")[1].bytes
        local f = core.frame(b, 1.5, #b)
        return f.bth, f.ip
      end
      local bth, ip = headers()
      local function fields(h) local l = {} for k, v in pairs(h) do l[#l + 1] = k .. "=" .. tostring(v) end return table.concat(l, " ") end
      local before = fields(bth) .. " | " .. fields(ip)
      collectgarbage(); collectgarbage()
      local junk = {}
      for i = 1, 2000 do junk[i] = string.rep(string.char(i % 256), 1082) end
      print(fields(bth) .. " | " .. fields(ip) == before)
      print(fields(bth))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "true" ]
    [ "${lines[1]}" = "opcode=0 se=0 m=0 padcnt=0 tver=0 p_key=65535 f=0 b=0 destqp=17 a=0 psn=100 transport=RC opname=RC_SEND_FIRST" ]
}

@test "wire: 3000 mangled frames (cut, bytes changed, lengths on the wire longer) decode or say why, and every field reads" {
    run "$VERBSH" -e '
      local w, core = verbs.wire, require "verbs.wire_core"
      local src = {}
      for _, f in ipairs{ "tests/wire/scenarios.pcap", "tests/wire/ipv6.pcap" } do
        for _, p in ipairs(w.read_pcap(f)) do src[#src + 1] = p.bytes end
      end
      math.randomseed(31)
      local decoded, why, fields = 0, {}, 0
      local function touch(p)
        for _, v in pairs(p) do
          fields = fields + 1
          if type(v) == "userdata" then for _ in pairs(v) do fields = fields + 1 end end
        end
        assert(type(tostring(p)) == "string")
      end
      for _ = 1, 3000 do
        local b = src[math.random(#src)]
        if math.random(2) == 1 then b = b:sub(1, math.random(0, #b)) end
        for _ = 1, math.random(0, 4) do
          local k = math.random(#b + 1)
          b = b:sub(1, k - 1) .. string.char(math.random(0, 255)) .. b:sub(k + 1)
        end
        local p, reason = w.decode(b)
        if p then decoded = decoded + 1; touch(p) else why[reason:gsub(" %(.*", "")] = true end
        touch(core.frame(b, 1.5, #b + math.random(0, 2)))
      end
      local r = {}
      for k in pairs(why) do r[#r + 1] = k end
      table.sort(r)
      print(decoded > 100, fields > 10000, table.concat(r, "; "))'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == $'true\ttrue\t'*"not UDP port 4791"*"shorter than an Ethernet header"*"truncated RoCEv2 packet"* ]]
}

@test "wire: cap:save writes each frame's own time, to the microsecond, as tshark reads it back (frames on lo to UDP 4791)" {
    [ "$(id -u)" -eq 0 ] || skip "capturing needs root (CAP_NET_RAW)"
    command -v tshark >/dev/null || skip "tshark not installed (scripts/deps test)"
    cd "$BATS_TEST_TMPDIR"
    run "$VERBSH" -e '
      local c = verbs.capture{ netdev = "lo" }
      os.execute([[bash -c "for i in 1 2 3 4 5; do printf %036d $i > /dev/udp/127.0.0.1/4791; sleep 0.013; done"]])
      c:stop()
      for _, p in ipairs(c:packets()) do print(("%.6f000"):format(p.time)) end
      print(c:save("t.pcap"))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 6 ]
    [ "${lines[5]}" = 5 ]
    local mine=("${lines[@]:0:5}")
    run bash -c 'tshark -r t.pcap -T fields -e frame.time_epoch 2>/dev/null'
    echo "$output"
    [ "${#lines[@]}" -eq 5 ]
    for i in 0 1 2 3 4; do
        [ "${lines[$i]}" = "${mine[$i]}" ] || { echo "frame $((i + 1)): tshark ${lines[$i]}, verbsh ${mine[$i]}"; return 1; }
    done
}

@test "wire: tostring of a header lists its fields in their order, strings quoted, absent ones left out; the values are tshark's" {
    command -v tshark >/dev/null || skip "tshark not installed (scripts/deps test)"
    # tshark's fields of a frame: tf PCAP N FIELD...
    tf() { local f=$1 n=$2; shift 2; tshark -r "tests/wire/$f.pcap" -Y "frame.number==$n" -T fields -E separator=' ' \
        $(printf -- '-e %s ' "$@") 2>/dev/null; }
    read -r syn msn timer <<<"$(tf scenarios 19 infiniband.aeth.syndrome infiniband.aeth.msn infiniband.aeth.syndrome.timer)"
    read -r nsyn nmsn nerr <<<"$(tf send5000 6 infiniband.aeth.syndrome infiniband.aeth.msn infiniband.aeth.syndrome.error_code)"
    read -r va rkey swap cmp <<<"$(tf scenarios 16 infiniband.reth.va infiniband.reth.r_key infiniband.atomiceth.swapdt infiniband.atomiceth.cmpdt)"
    read -r qkey srcqp edst esrc sport ulen <<<"$(tf scenarios 22 infiniband.deth.q_key infiniband.deth.srcqp eth.dst eth.src udp.srcport udp.length)"
    read -r hlim src dst <<<"$(tf ipv6 1 ipv6.hlim ipv6.src ipv6.dst)"
    run "$VERBSH" -e '
      local w = verbs.wire
      local l, s = w.read_pcap("tests/wire/scenarios.pcap"), w.read_pcap("tests/wire/send5000.pcap")
      print(l[19].aeth); print(s[6].aeth); print(l[16].atomiceth); print(l[22].deth); print(l[22].eth); print(l[22].udp)
      print(w.read_pcap("tests/wire/ipv6.pcap")[1].ip)'
    echo "$output"
    [ "$status" -eq 0 ]
    # an RNR NAK has a timer and no NAK code: the one absent field in the middle leaves no gap
    [ "${lines[0]}" = "aeth { syndrome = $syn, msn = $msn, kind = \"RNR NAK\", value = $timer, timer = $timer }" ]
    [ "${lines[1]}" = "aeth { syndrome = $nsyn, msn = $nmsn, kind = \"NAK\", value = $nerr, nak = \"remote operational error\" }" ]
    [ "${lines[2]}" = "atomiceth { va = $((va)), r_key = $((rkey)), swap_or_add = $swap, compare = $cmp }" ]
    [ "${lines[3]}" = "deth { q_key = $((qkey)), src_qp = $((srcqp)) }" ]
    [ "${lines[4]}" = "eth { dst = \"$edst\", src = \"$esrc\", type = 2048 }" ]
    [ "${lines[5]}" = "udp { srcport = $sport, dstport = 4791, length = $ulen, checksum = 0 }" ]
    [ "${lines[6]}" = "ip { version = 6, tclass = 0, flow = 0, plen = 40, nxt = 17, hlim = $hlim, src = \"$src\", dst = \"$dst\" }" ]
    # the values are the frames' own, not the same number everywhere
    [ "$syn/$msn/$timer/$nsyn/$nerr/$swap/$((srcqp))" = "33/5/1/99/3/5/18" ]
}

@test "wire: crc32 is zlib's, python's zlib.crc32 the oracle, and goes on from the CRC given" {
    local want
    want=$(python3 -c 'import zlib
s = bytes(range(256)) * 3 + b"\x00verbsh\x00"
print(zlib.crc32(b"123456789"), zlib.crc32(s), zlib.crc32(s[100:], zlib.crc32(s[:100])), zlib.crc32(b"", 0x12345678), zlib.crc32(b"a", 0x9abcdef0))')
    run "$VERBSH" -e '
      local c = verbs.wire.crc32
      local s = ""
      for i = 0, 255 do s = s .. string.char(i) end
      s = s:rep(3) .. "\0verbsh\0"
      print(c("123456789"), c(s), c(s:sub(101), c(s:sub(1, 100))), c("", 0x12345678), c("a", 0x9abcdef0))
      print(pcall(c, {}))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "${want// /$'\t'}" ]
    [ "$(echo "$want" | cut -d' ' -f1)" = $((0xCBF43926)) ]
    # Lua names the function by the first loaded module it finds it in: wire or wire_core
    [[ ${lines[1]} =~ ^false$'\t'"bad argument #1 to 'verbs.wire"(_core)?".crc32' (string expected, got table)"$ ]]
}

@test "wire: a pcap cut inside a frame is an error naming the file after the frames before it; an iterator at its end stays ended; key and decode of what is no RoCEv2 frame" {
    # scenarios.pcap: a 24-byte file header, then frame 1 (16 + 1082 bytes);
    # 1500 bytes cut frame 2's 1082 to 362, 1130 cut its 16-byte record header to 8
    head -c 1500 tests/wire/scenarios.pcap >"$BATS_TEST_TMPDIR/cut.pcap"
    head -c 1130 tests/wire/scenarios.pcap >"$BATS_TEST_TMPDIR/cuthdr.pcap"
    run "$VERBSH" -e '
      local w, core = verbs.wire, require "verbs.wire_core"
      local dir = os.getenv("BATS_TEST_TMPDIR")
      print(pcall(w.read_pcap, dir .. "/cut.pcap"))
      print(pcall(w.read_pcap, dir .. "/cuthdr.pcap"))
      local seen = {}
      print(pcall(function() for p in w.frames(dir .. "/cut.pcap") do seen[#seen + 1] = p.bth.psn end end))
      print(#seen, seen[1])
      -- the loop ended (the file closed): called again, the iterator gives nothing
      local it, s = w.frames("tests/wire/send5000.pcap")
      local n = 0
      while it(s) do n = n + 1 end
      print(n, select("#", it(s)), select("#", it(s)))
      -- key: opcode, PSN, DestQP, AETH kind, IP source bytes; nothing for what is not RoCEv2
      local l = w.read_pcap("tests/wire/scenarios.pcap")
      local op, psn, qp, kind, src = core.key(l[19])
      print(op, psn, qp, kind, ("%d.%d.%d.%d"):format(src:byte(1, -1)), #src)
      local l6 = w.read_pcap("tests/wire/ipv6.pcap")
      -- a READ response carries an AETH too; the source is 2001:db8::2
      local _, _, _, kind6, src6 = core.key(l6[2])
      print(kind6, l6[2].opcode, #src6, src6 == string.pack(">I4I4I4I4", 0x20010db8, 0, 0, 2))
      print(select("#", core.key("x")), select("#", core.key(core.frame(l[19].bytes:sub(1, 40)))), select("#", core.key(7)))
      print(pcall(core.decode, 42))
      print(l[1].bth.nosuch, l[1].bth[1], l[1].bth.psn)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "false	read_pcap: $BATS_TEST_TMPDIR/cut.pcap: truncated dump file; tried to read 1082 captured bytes, only got 362" ]
    [ "${lines[1]}" = "false	read_pcap: $BATS_TEST_TMPDIR/cuthdr.pcap: truncated dump file; tried to read 16 header bytes, only got 8" ]
    [ "${lines[2]}" = "false	frames: $BATS_TEST_TMPDIR/cut.pcap: truncated dump file; tried to read 1082 captured bytes, only got 362" ]
    [ "${lines[3]}" = "1	100" ]
    [ "${lines[4]}" = "6	0	0" ]
    # frame 19: the RNR NAK (opcode 17) of PSN 112 to QP 17, from 192.0.2.2
    [ "${lines[5]}" = "17	112	17	RNR NAK	192.0.2.2	4" ]
    [ "${lines[6]}" = "ACK	RDMA_READ_RESPONSE_FIRST	16	true" ]
    [ "${lines[7]}" = "0	0	0" ]
    [ "${lines[8]}" = "false	bad argument #1 to 'decode' (string expected, got number)" ]
    [ "${lines[9]}" = "nil	nil	100" ]
}

@test "wire: cap:stop() keeps every frame that came before it, even those the capture's thread had not read yet (its first read comes back empty only as the stop comes: tests/wire/slowpcap.c)" {
    [ "$(id -u)" -eq 0 ] || skip "capturing needs root (CAP_NET_RAW)"
    local real
    real=$(ldconfig -p | awk '$1 == "libpcap.so.0.8" && /x86-64/ { print $NF; exit }')
    [ -n "$real" ]
    gcc -Wall -Wextra -Werror -shared -fPIC -Wl,-soname,libpcap.so.0.8 -DREAL_PCAP="\"$real\"" \
        -o "$BATS_TEST_TMPDIR/libpcap.so.0.8" "$ROOT/tests/wire/slowpcap.c" -ldl
    run unshare -n sh -c 'ip link set lo up && LD_LIBRARY_PATH="$2" exec "$0" -e "$1"' "$VERBSH" '
      local src = verbs.wire.read_pcap("tests/wire/scenarios.pcap")
      local c = verbs.capture{netdev = "lo"}
      local u = require("socket").udp()
      for i = 1, 8 do u:sendto(src[i].bytes:sub(43), "127.0.0.1", 4791) end
      print(c:stop())
      for i, p in ipairs(c:packets()) do print(i, p.bth.psn, p.bth.opname, p.bytes:sub(43) == src[i].bytes:sub(43)) end
      for i = 1, 8 do print(i, src[i].bth.psn, src[i].bth.opname) end' "$BATS_TEST_TMPDIR"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = 8 ]
    local i
    for i in 1 2 3 4 5 6 7 8; do
        [ "${lines[$i]}" = "${lines[$((i + 8))]}	true" ]
    done
    # (scenarios.pcap's own: a SEND of 5 frames from PSN 100, its ACK, a WRITE of 2)
    [ "${lines[9]}" = "1	100	RC_SEND_FIRST" ]
    [ "${lines[16]}" = "8	106	RC_RDMA_WRITE_LAST" ]
    [ "${#lines[@]}" -eq 17 ]
}

@test "wire: print(cap) of frames on lo is the ladder with each frame's WR, then a line per WR; cap:ladder() is the bare ladder" {
    [ "$(id -u)" -eq 0 ] || skip "capturing needs root (CAP_NET_RAW)"
    # No device here to post on: the WRs are written where qp:post_send
    # notes them (capture_note_posts: the registry's posts list) while the
    # capture runs, and the frames they would make are sent to UDP 4791 on lo:
    # scenarios.pcap's 5000-byte SEND and its ACK (frames 1-6), then a
    # 1500-byte RDMA WRITE (7-8) whose ACK (9) is not sent.
    run unshare -n sh -c 'ip link set lo up && exec "$0" -e "$1"' "$VERBSH" '
      local w = verbs.wire
      local src = w.read_pcap("tests/wire/scenarios.pcap")
      local c = verbs.capture{netdev = "lo"}
      local posts = debug.getregistry()["verbs.capture.posts"]
      for _, p in ipairs{ { 7, "SEND", 5000 }, { 8, "RDMA_WRITE", 1500 }, { 9, "SEND", 64 } } do
        posts[#posts + 1] = { qp = "qp1", qp_num = 17, qp_type = "RC", dest_qp = 17, wr_id = p[1], opcode = p[2], length = p[3] }
      end
      local u = require("socket").udp()
      for i = 1, 8 do u:sendto(src[i].bytes:sub(43), "127.0.0.1", 4791) end
      print(c:stop(), #c:posts())
      print(c)
      print("== ladder")
      print(c:ladder() == w.ladder(c:packets()), c:ladder() == w.ladder(c:packets(), {}))
      print(c:ladder())'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'8\t3' ]
    [ "${lines[1]}" = "capture on lo (8 frames, stopped)" ]
    [ "${lines[2]}" = "   time ms  127.0.0.1                                                      peer" ]
    # rung N ROW NOTE: line N is a frame's row (its time varies) with that note
    rung() {
        local re="^ +[0-9]+\\.[0-9]{3}  \\|$2 ------> +\\|$3\$"
        [[ ${lines[$1]} =~ $re ]] || { echo "line $1 is not: $2 ... $3"; return 1; }
    }
    rung 3 "SEND_FIRST psn 100 len 1024 BAD ICRC" "  wr_id 7's SEND"
    rung 7 "SEND_LAST psn 104 len 904 BAD ICRC" "  wr_id 7's SEND"
    rung 8 "ACKNOWLEDGE psn 104 len 0 ACK msn 1 BAD ICRC" "  completes wr_id 7"
    rung 10 "RDMA_WRITE_LAST psn 106 len 476 BAD ICRC" "  wr_id 8's RDMA_WRITE"
    [ "${lines[11]}" = "wr_id 7 (qp1 SEND, 5000 bytes): 5 frames from psn 100, completed by frame 6 (ACKNOWLEDGE)" ]
    [ "${lines[12]}" = "wr_id 8 (qp1 RDMA_WRITE, 1500 bytes): 2 frames from psn 105, no ACK in the capture" ]
    [ "${lines[13]}" = "wr_id 9 (qp1 SEND, 64 bytes): no frame in the capture" ]
    [ "${lines[14]}" = "== ladder" ]
    [ "${lines[15]}" = $'true\ttrue' ]
    # the bare ladder: the same rows, no WR named, no summary
    [ "${lines[16]}" = "${lines[2]}" ]
    rung 17 "SEND_FIRST psn 100 len 1024 BAD ICRC" ""
    rung 24 "RDMA_WRITE_LAST psn 106 len 476 BAD ICRC" ""
    [ "${#lines[@]}" -eq 25 ]
}

@test "wire: a stopped capture refuses stop; save names a file it cannot open or write; a name with a NUL byte; filter's other arguments" {
    [ "$(id -u)" -eq 0 ] || skip "capturing needs root (CAP_NET_RAW)"
    run "$VERBSH" -e '
      local c = verbs.capture{netdev = "lo"}
      print(c:info().stopped, c:stop(), c:info().stopped)
      print(pcall(c.stop, c))
      print(pcall(c.save, c, "/nonexistent/dir/x.pcap"))
      print(pcall(c.save, c, "/dev/full"))
      print(pcall(verbs.capture, {netdev = "lo\0x"}))
      print(pcall(verbs.capture, {device = "rxe\0"}))
      print(pcall(verbs.wire.filter, 42, {}))
      print(pcall(verbs.wire.filter, {}, "SEND"))
      print(#verbs.wire.filter(c, {}), #verbs.wire.filter({}, {}))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'false\t0\ttrue' ]
    [ "${lines[1]}" = "false	capture on lo is stopped: start a new one with verbs.capture{...}" ]
    [ "${lines[2]}" = "false	capture:save: /nonexistent/dir/x.pcap: No such file or directory" ]
    # the file header is buffered: the flush at the end is what fails
    [ "${lines[3]}" = "false	capture:save: writing /dev/full failed" ]
    [ "${lines[4]}" = "false	bad argument #1 to 'capture' (netdev: the name has a NUL byte after 'lo')" ]
    [ "${lines[5]}" = "false	bad argument #1 to 'capture' (device: the name has a NUL byte after 'rxe')" ]
    [ "${lines[6]}" = "false	bad argument #1 to 'filter' (capture or packet list expected, got number)" ]
    [ "${lines[7]}" = "false	bad argument #2 to 'filter' (table {qp=, opcode=} expected, got string)" ]
    [ "${lines[8]}" = $'0\t0' ]
}

@test "wire: a capture whose netdev disappears stopped early, and says so in info, stop and print(cap)" {
    [ "$(id -u)" -eq 0 ] || skip "capturing needs root (CAP_NET_RAW)"
    run unshare -n sh -c 'ip link add v0 type veth peer name v1 && ip link set v0 up && exec "$0" -e "$1"' "$VERBSH" '
      local c = verbs.capture{netdev = "v0"}
      print(c:info().lost)
      os.execute("ip link del v0")
      local socket = require "socket"
      for _ = 1, 500 do if c:info().lost then break end socket.sleep(0.01) end
      print(c:info().lost)
      print(c:stop())
      print(c)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = nil ]
    [ "${lines[1]}" = "the capture stopped early: The interface disappeared" ]
    [ "${lines[2]}" = $'0\tthe capture stopped early: The interface disappeared' ]
    [ "${lines[3]}" = "capture on v0 (0 frames, stopped)" ]
    [ "${lines[4]}" = "the capture stopped early: The interface disappeared" ]
    [ "${#lines[@]}" -eq 5 ]
}

@test "wire: frames the kernel dropped (its ring full while verbsh was stopped) are counted in info, stop's answer and print(cap)'s first line" {
    [ "$(id -u)" -eq 0 ] || skip "capturing needs root (CAP_NET_RAW)"
    # python stops verbsh (SIGSTOP), sends 20000 datagrams of 1000 bytes to
    # UDP 4791 on lo, and lets it go on: the capture's 32 MiB ring, a 9216-byte
    # slot per frame at the default snaplen, holds about 3600 of them.
    cat >"$BATS_TEST_TMPDIR/flood.py" <<'PY'
import os, signal, socket, sys
pid, n = int(sys.argv[1]), int(sys.argv[2])
os.kill(pid, signal.SIGSTOP)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(n):
    s.sendto(i.to_bytes(4, "big") * 250, ("127.0.0.1", 4791))
os.kill(pid, signal.SIGCONT)
PY
    run unshare -n sh -c 'ip link set lo up && exec "$0" -e "$1"' "$VERBSH" '
      local socket = require "socket"
      local pid = io.open("/proc/self/stat"):read("l"):match("^%d+")
      local c = verbs.capture{netdev = "lo"}
      assert(os.execute("python3 " .. os.getenv("BATS_TEST_TMPDIR") .. "/flood.py " .. pid .. " 20000"))
      local running
      for _ = 1, 500 do running = c:info(); if running.drops > 0 then break end socket.sleep(0.01) end
      print(running.drops > 0, running.lost == ("the kernel dropped %d frames (libpcap'"'"'s ps_drop): its capture buffer"
        .. " (32 MiB) was full before the capture'"'"'s thread read them; a smaller snaplen (verbs.capture{snaplen = 128}:"
        .. " the headers only) keeps more frames in it"):format(running.drops))
      local n, why = c:stop()
      local i = c:info()
      print(n, why)
      print(i.count, i.drops, n == #c:packets(), i.lost == why)
      print(tostring(c):match("^[^\n]*"))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'true\ttrue' ]
    read -r count drops same lost <<<"${lines[2]}"
    [ "$same/$lost" = "true/true" ]
    [ "$count" -gt 0 ]
    # every datagram not kept was dropped (lo shows the kernel each frame
    # twice, sent and received: libpcap skips the sent copy, so it may count more)
    [ "$((count + drops))" -ge 20000 ]
    [ "${lines[1]}" = "$count	the kernel dropped $drops frames (libpcap's ps_drop): its capture buffer (32 MiB) was full before the capture's thread read them; a smaller snaplen (verbs.capture{snaplen = 128}: the headers only) keeps more frames in it" ]
    [ "${lines[3]}" = "capture on lo ($count frames, $drops dropped by the kernel, stopped)" ]
}

@test "wire: attribute finds a QP's first WR by PSN too: a capture that starts at a READ ties its responses to it, one that starts at a SEND its RNR NAK and its retransmission" {
    run "$VERBSH" -e '
      local w = verbs.wire
      local list = w.read_pcap("tests/wire/scenarios.pcap")
      local function post(id, op, len) return { qp = "qp1", qp_num = 17, qp_type = "RC", dest_qp = 17, wr_id = id, opcode = op, length = len } end
      -- frame 12: the READ request (PSN 108); 18: the SEND (PSN 112) an RNR NAK answers
      for _, run in ipairs{ { 12, { post(10, "RDMA_READ", 3000), post(11, "ATOMIC_FETCH_AND_ADD", 8), post(12, "SEND", 64) } },
                            { 18, { post(12, "SEND", 64) } } } do
        local part = table.move(list, run[1], 21, 1, {})
        local notes, summary = w.attribute(part, run[2])
        for i = 1, #part do print(i, notes[i] or "-") end
        print(table.concat(summary, "\n"))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'1\twr_id 10\'s RDMA_READ' ]
    [ "${lines[1]}" = $'2\twr_id 10\'s RDMA_READ data' ]
    [ "${lines[2]}" = $'3\twr_id 10\'s RDMA_READ data' ]
    [ "${lines[3]}" = $'4\twr_id 10\'s RDMA_READ data; completes wr_id 10' ]
    [ "${lines[4]}" = $'5\twr_id 11\'s ATOMIC_FETCH_AND_ADD' ]
    [ "${lines[5]}" = $'6\twr_id 11\'s ATOMIC_FETCH_AND_ADD result; completes wr_id 11' ]
    [ "${lines[7]}" = $'8\tRNR NAK on wr_id 12\'s SEND' ]
    [ "${lines[8]}" = $'9\twr_id 12\'s SEND again (retransmitted)' ]
    [ "${lines[10]}" = "wr_id 10 (qp1 RDMA_READ, 3000 bytes): 1 frame from psn 108, 3 answers, completed by frame 4 (RDMA_READ_RESPONSE_LAST)" ]
    [ "${lines[11]}" = "wr_id 11 (qp1 ATOMIC_FETCH_AND_ADD, 8 bytes): 1 frame from psn 111, 1 answer, completed by frame 6 (ATOMIC_ACKNOWLEDGE)" ]
    [ "${lines[12]}" = "wr_id 12 (qp1 SEND, 64 bytes): 1 frame from psn 112, completed by frame 10 (ACKNOWLEDGE)" ]
    # from frame 18 the SEND is the QP's only WR
    [ "${lines[13]}" = $'1\twr_id 12\'s SEND' ]
    [ "${lines[14]}" = $'2\tRNR NAK on wr_id 12\'s SEND' ]
    [ "${lines[15]}" = $'3\twr_id 12\'s SEND again (retransmitted)' ]
    [ "${lines[16]}" = $'4\tcompletes wr_id 12' ]
    [ "${lines[17]}" = "wr_id 12 (qp1 SEND, 64 bytes): 1 frame from psn 112, completed by frame 4 (ACKNOWLEDGE)" ]
    [ "${#lines[@]}" -eq 18 ]
}

@test "wire: filter takes a qp from 0 to 0xffffff and an opcode from 0 to 255, both ends; one past either end, or a fraction, is refused naming the value" {
    run "$VERBSH" -e '
      local w = verbs.wire
      local l = w.read_pcap("tests/wire/send5000.pcap")
      print(#w.filter(l, {qp = 0}), #w.filter(l, {qp = 0xffffff}), #w.filter(l, {opcode = 0}), #w.filter(l, {opcode = 255}))
      for _, q in ipairs{ 0x1000000, -1, 17.5 } do print(select(2, pcall(w.filter, l, {qp = q}))) end
      for _, o in ipairs{ -1, 256 } do print((select(2, pcall(w.filter, l, {opcode = o})):match("^[^;]*"))) end'
    echo "$output"
    [ "$status" -eq 0 ]
    # send5000.pcap: SEND_FIRST (opcode 0), three SEND_MIDDLE, SEND_LAST, the ACK; no frame of QP 0 or 0xffffff
    [ "${lines[0]}" = $'0\t0\t1\t0' ]
    [ "${lines[1]}" = "bad argument #2 to 'filter' (key 'qp': a QP number (0..0xffffff, as qp.qp_num) expected, got 16777216)" ]
    [ "${lines[2]}" = "bad argument #2 to 'filter' (key 'qp': a QP number (0..0xffffff, as qp.qp_num) expected, got -1)" ]
    [ "${lines[3]}" = "bad argument #2 to 'filter' (key 'qp': a QP number (0..0xffffff, as qp.qp_num) expected, got number)" ]
    [ "${lines[4]}" = "bad argument #2 to 'filter' (key 'opcode': -1 is not a BTH opcode" ]
    [ "${lines[5]}" = "bad argument #2 to 'filter' (key 'opcode': 256 is not a BTH opcode" ]
    [ "${#lines[@]}" -eq 6 ]
}

@test "wire: the IETH of SEND_ONLY_WITH_INVALIDATE and SEND_LAST_WITH_INVALIDATE reads as tshark reads it (0x1a2b3c4d, 0x00c0ffee); a SEND_ONLY has none" {
    command -v tshark >/dev/null || skip "tshark not installed (scripts/deps test)"
    python3 tests/wire/with_ieth.py tests/wire/scenarios.pcap "$BATS_TEST_TMPDIR/ieth.pcap"
    tshark -T json -r "$BATS_TEST_TMPDIR/ieth.pcap" 2>/dev/null | python3 tests/wire/tshark_flat.py >"$BATS_TEST_TMPDIR/flat"
    [ "$(grep $'\tinfiniband.ieth\t' "$BATS_TEST_TMPDIR/flat" | sort -u)" = $'2\tinfiniband.ieth\t1a:2b:3c:4d\n3\tinfiniband.ieth\t00:c0:ff:ee' ]
    run "$VERBSH" tests/wire/oracle.lua "$BATS_TEST_TMPDIR/ieth.pcap" "$BATS_TEST_TMPDIR/flat"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == "3 frames, "*" fields compared, 0 mismatches, corrupted byte reported" ]]
    [[ ${lines[1]} != *infiniband.ieth* ]]   # (compared, not left out)
    PCAP=$BATS_TEST_TMPDIR/ieth.pcap run "$VERBSH" -e 'for _, p in ipairs(verbs.wire.read_pcap(os.getenv("PCAP"))) do
        local d = verbs.wire.decode(p.bytes); print(d.bth.opcode, d.ieth, d.icrc_ok, d.payload_length) end'
    echo "$output"
    [ "$output" = $'4\tnil\ttrue\t64\n23\t439041101\ttrue\t64\n22\t12648430\ttrue\t64' ]
}

@test "wire: tostring of each frame of tests/wire/scenarios.pcap and ipv6.pcap names the PSN and destination QP that tshark reads (24 bits each); one line whole" {
    command -v tshark >/dev/null || skip "tshark not installed (scripts/deps test)"
    for f in scenarios ipv6; do
        want=$(tshark -r tests/wire/$f.pcap -T fields -e infiniband.bth.psn -e infiniband.bth.destqp 2>/dev/null)
        PCAP=tests/wire/$f.pcap run "$VERBSH" -e 'for _, p in ipairs(verbs.wire.read_pcap(os.getenv("PCAP"))) do
            print(tostring(verbs.wire.decode(p.bytes))) end'
        [ "$status" -eq 0 ]
        [ -n "$want" ]
        [ "$(sed -n 's/.* psn \([0-9]*\) destqp \(0x[0-9a-f]*\)$/\1\t\2/p' <<<"$output")" = "$want" ]
    done
    [ "${lines[0]}" = "frame of 94 bytes: RC_RDMA_READ_REQUEST psn 100 destqp 0x000011" ]   # (ipv6.pcap's first)
}

@test "wire: a frame's header is of type 'frame header' (its metatable's __name), which a frame's methods name when given one instead of a frame" {
    run "$VERBSH" -e '
      local f = verbs.wire.decode(verbs.wire.read_pcap("tests/wire/scenarios.pcap")[1].bytes)
      local h = f.bth
      print(getmetatable(h).__name)
      print(select(2, pcall(getmetatable(f).__tostring, h)))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "frame header" ]
    [ "${lines[1]}" = "bad argument #1 to '?' (verbs.frame expected, got frame header)" ]
}

@test "wire: a capture's methods refuse an argument more than help gives them, naming it (cap:ladder([notes]) takes one, cap:save(file) one, cap:filter{...} one, the others none); a trailing nil is no argument" {
    run "$VERBSH" -e '
      local cap = verbs.capture{netdev = "lo"}
      print(select(2, pcall(cap.stop, cap, 1)))
      cap:stop()
      for _, m in ipairs{ "packets", "posts", "info" } do print(select(2, pcall(cap[m], cap, 1))) end
      print(select(2, pcall(cap.ladder, cap, {}, 2)))
      print(select(2, pcall(cap.filter, cap, { qp = 5 }, "junk")))
      print(select(2, pcall(cap.save, cap, os.tmpname(), 3)))
      print(cap:ladder(nil), cap:filter({ qp = 5 }, nil), #cap:packets(nil))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "bad argument #1 to 'stop' (cap:stop() takes no arguments, got 1 (the first: a number))" ]
    [ "${lines[1]}" = "bad argument #1 to 'packets' (cap:packets() takes no arguments, got 1 (the first: a number))" ]
    [ "${lines[2]}" = "bad argument #1 to 'posts' (cap:posts() takes no arguments, got 1 (the first: a number))" ]
    [ "${lines[3]}" = "bad argument #1 to 'info' (cap:info() takes no arguments, got 1 (the first: a number))" ]
    [ "${lines[4]}" = "bad argument #2 to 'ladder' (cap:ladder([notes]) takes at most 1 argument, got 2 (the first extra one: a number))" ]
    [ "${lines[5]}" = "bad argument #2 to 'filter' (cap:filter{qp=, opcode=} takes at most 1 argument, got 2 (the first extra one: a string))" ]
    [ "${lines[6]}" = "bad argument #2 to 'save' (cap:save(file) takes at most 1 argument, got 2 (the first extra one: a number))" ]
    [ "${lines[7]}" = "(no RoCEv2 frames)	(no RoCEv2 frames)	0" ]
}

@test "wire: a capture whose start failed, reached through the debug library, answers as a stopped capture of nothing (posts and packets empty tables, stop refused)" {
    run "$VERBSH" -e '
      local got
      xpcall(verbs.capture, function(m)
        for lvl = 1, 5 do
          for i = 1, 20 do
            local name, v = debug.getlocal(lvl, i)
            if not name then break end
            if type(v) == "userdata" and tostring(v):find("^capture ") then got = v end
          end
        end
        return m
      end, { netdev = "nosuchnetdev0" })
      print(got)
      local p, k = got:posts(), got:packets()
      print(type(p), #p, next(p), type(k), #k, next(k))
      print(pcall(got.stop, got))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "capture on nosuchnetdev0 (0 frames, stopped)" ]
    [ "${lines[1]}" = $'table\t0\tnil\ttable\t0\tnil' ]
    [ "${lines[2]}" = $'false\tcapture on nosuchnetdev0 is stopped: start a new one with verbs.capture{...}' ]
}

@test "wire: pairs over a frame gives each field it has, in the order of the fields' list (bytes left out, absent headers skipped), and ends after the last header" {
    run "$VERBSH" -e '
      local l = verbs.wire.read_pcap("tests/wire/scenarios.pcap")
      local all = { "time", "length", "caplen", "opcode", "immdt", "ieth", "payload_length", "icrc", "icrc_ok",
                    "icrc_expected", "eth", "ip", "udp", "bth", "deth", "reth", "atomiceth", "aeth", "atomicacketh" }
      for _, i in ipairs { 6, 1 } do
        local f, keys, n = l[i], {}, 0
        for k, v in pairs(f) do keys[#keys + 1] = k; assert(v ~= nil and type(f[k]) == type(v), k) end
        -- (every field the frame has, none it lacks)
        for _, k in ipairs(all) do if f[k] ~= nil then n = n + 1 end end
        local step, st = pairs(f)   -- (its step function, asked for what follows the last headers)
        print(table.concat(keys, " "), n == #keys, step(st, "aeth"), select("#", step(st, "atomicacketh")))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'time length caplen opcode payload_length icrc icrc_ok icrc_expected eth ip udp bth aeth\ttrue\tnil\t0' ]
    [ "${lines[1]}" = $'time length caplen opcode payload_length icrc icrc_ok icrc_expected eth ip udp bth\ttrue\tnil\t0' ]
}
