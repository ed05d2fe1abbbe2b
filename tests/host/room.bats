#!/usr/bin/env bats
# The room (verbsh --room) on 127.0.0.1: ten simulated seats
# (tests/room/seats, the seat's real code) report at once, one of them
# disconnected and reconnected mid-lesson, one with a backlog from ten
# minutes ago. Here: what the room does with a log sent again, a seat that
# claims another address, and a room that restarts. (30 seats with real
# ones, room.json cell by cell and room.html in Chromium: tests/vm/room.bats.)
load ../helpers

FIRST=1 LAST=10 STUCK=9 AWAY=4 EVENTS=65

# seat K [PART]: one simulated seat's run, in its own state dir
seat() {
    VERBSH_ROOM=127.0.0.1:$(cat "$BATS_FILE_TMPDIR/port") VERBSH_PROGRESS=1 RXE_SEAT=$1 \
    XDG_STATE_HOME=$BATS_FILE_TMPDIR/seat$1 "$VERBSH" "$ROOT/tests/room/seat.lua" "$1" "${2:-}"
}

# start_room [ARGS]: a room on a free port of 127.0.0.1, its port in $BATS_FILE_TMPDIR/port
start_room() {
    local d=$BATS_FILE_TMPDIR
    "$VERBSH" --room --listen 127.0.0.1:0 --dir "$d/room" --every 1 "$@" >"$d/room.out" 2>"$d/room.err" &
    echo $! >"$d/room.pid"
    for _ in $(seq 100); do
        sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\);.*/\1/p' "$d/room.err" >"$d/port"
        [ -s "$d/port" ] && return 0
        sleep 0.1
    done
    cat "$d/room.err" >&2
    return 1
}

# wait_events N: until room.json counts N events (at most 15 s)
wait_events() {
    for _ in $(seq 150); do
        grep -q "\"events\":$1,\"generated\"" "$BATS_FILE_TMPDIR/room/room.json" 2>/dev/null && return 0
        sleep 0.1
    done
    cat "$BATS_FILE_TMPDIR/room/room.json" >&2
    return 1
}

setup_file() {
    start_room
    "$ROOT/tests/room/seats" "127.0.0.1:$(cat "$BATS_FILE_TMPDIR/port")" "$BATS_FILE_TMPDIR" $FIRST $LAST $STUCK $AWAY
}

teardown() {
    [ ! -e "$BATS_TEST_TMPDIR/own-room.pid" ] || kill -9 "$(cat "$BATS_TEST_TMPDIR/own-room.pid")" 2>/dev/null || true
}

teardown_file() {
    kill "$(cat "$BATS_FILE_TMPDIR/room.pid")" 2>/dev/null || true
}

@test "a seat that sends its log again is counted once; a seat that claims another address is refused" {
    local json=$BATS_FILE_TMPDIR/room/room.json before
    wait_events $EVENTS
    before=$(grep -o '"duplicates_dropped":[0-9]*' "$json" | cut -d: -f2)
    # as after a lost acknowledgement: seat $AWAY forgets what the room has
    rm "$BATS_FILE_TMPDIR/seat$AWAY/verbsh/room-acked"
    seat $AWAY flush
    # (room.json is a second old at most: count from what it said then)
    local now
    for _ in $(seq 50); do
        now=$(grep -o '"duplicates_dropped":[0-9]*' "$json" | cut -d: -f2)
        [ "$now" -ge $((before + 12)) ] && break
        sleep 0.1
    done
    [ "$now" -ge $((before + 12)) ]
    grep -q "\"events\":$EVENTS," "$json"
    [ "$(cut -f4 "$BATS_FILE_TMPDIR/seat$AWAY/verbsh/room-acked")" = 12 ]
    # seat 31 says it is 10.78.0.31 (a seat on the class segment) but sends from 127.0.0.1
    RXE_ADDR=10.78.0.31 run seat 31
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"verbsh: the room refused this seat's report: seat 31 says it is 10.78.0.31 but reports from 127.0.0.1"* ]]
    [ "$(grep -c 'the room refused' <<<"$output")" -eq 1 ]
    for _ in $(seq 30); do grep -q '"refused":\[{' "$json" && break; sleep 0.1; done
    run python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(len(r["seats"]), r["refused"][0]["seat"], r["refused"][0]["ip"], r["events"])' "$json"
    [ "$output" = "10 seat 31 127.0.0.1 $EVENTS" ]
    # its records stay in its log, unacknowledged
    [ ! -e "$BATS_FILE_TMPDIR/seat31/verbsh/room-acked" ]
    [ "$(wc -l <"$BATS_FILE_TMPDIR/seat31/verbsh/progress")" -eq 4 ]
}

@test "a room that restarts reads its log back: the same table, nothing counted twice" {
    local d=$BATS_FILE_TMPDIR
    kill "$(cat "$d/room.pid")"
    wait "$(cat "$d/room.pid")" 2>/dev/null || true
    rm "$d/room/room.json" "$d/port"
    start_room
    wait_events $EVENTS
    run python3 "$ROOT/tests/room/expect.py" "$d/room/room.json" $FIRST $LAST $STUCK
    echo "$output"
    [ "$output" = "ok: 10 seats, 149 cells, $EVENTS events" ]
    # the page marks the stuck seat's cell and lists its step and error
    grep -q '<td class="stuck">1/4</td>' "$d/room/room.html"
    grep -q '<li>seat 9: 05-rc-send step 2/4 (Receive) for 1[0-9] min: <span class="err stuck-error">Not done yet: qp_b has no receive posted (seat 9)</span></li>' "$d/room/room.html"
    # seat $AWAY comes back to the new room with its whole log: all repeats
    rm "$d/seat$AWAY/verbsh/room-acked"
    seat $AWAY flush
    [ "$(cut -f4 "$d/seat$AWAY/verbsh/room-acked")" = 12 ]
    sleep 1.2
    grep -q "\"duplicates_dropped\":12,\"events\":$EVENTS," "$d/room/room.json"
}

@test "a room run in a seat shows that seat from its first write, with its health; a room on a host shows no seat of its own" {
    local d=$BATS_TEST_TMPDIR
    # seat 6 on 127.0.0.1 (its netdev lo, MTU 65536; a device that is not there)
    RXE_SEAT=6 RXE_ADDR=127.0.0.1 RXE_NETDEV=lo RXE_DEV=rxe9 RXE_PEER_ADDR=127.0.0.7 \
        run "$VERBSH" --room --listen 127.0.0.1:0 --dir "$d/seat" --every 1 --for 0.3
    [ "$status" -eq 0 ]
    run python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); s=r["seats"]; h=s[0]["health"]
print(len(s), s[0]["seat"], s[0]["ip"], s[0]["events"], s[0]["silent"], h["dev"], h["state"], h["mtu"], h["peer"], h["heard"], r["duplicates"])' "$d/seat/room.json"
    echo "$output"
    [ "$output" = "1 seat 6 127.0.0.1 0 False rxe9 missing 65536 127.0.0.7 False []" ]
    # RXE_SEAT without RXE_ADDR is not a class seat: nothing of its own
    RXE_SEAT=6 run env -u RXE_ADDR "$VERBSH" --room --listen 127.0.0.1:0 --dir "$d/host" --every 1 --for 0.3
    [ "$status" -eq 0 ]
    run python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["seats"]))' "$d/host/room.json"
    [ "$output" = 0 ]
}

@test "room.json's writer: keys sorted, objects and arrays nested, every member separated by one comma; Python's json reads the same values back" {
    run "$VERBSH" -e 'print(require("verbs.room").json{ seats = { { seat = 3, ip = "10.78.0.3", health = { mtu = 1500, dev = "rxe0" } },
      { seat = 12 } }, events = 65, title = "a \"quoted\" name" })'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = '{"events":65,"seats":[{"health":{"dev":"rxe0","mtu":1500},"ip":"10.78.0.3","seat":3},{"seat":12}],"title":"a \u0022quoted\u0022 name"}' ]
    run python3 -c 'import json,sys; r=json.loads(sys.argv[1]); s=r["seats"]
print(r["events"], r["title"], len(s), s[0]["seat"], s[0]["ip"], s[0]["health"]["dev"], s[0]["health"]["mtu"], s[1]["seat"])' "$output"
    [ "$output" = '65 a "quoted" name 2 3 10.78.0.3 rxe0 1500 12' ]
}

@test "a seat's health: a device the kernel does not have is 'missing'; the netdev's MTU is what sysfs says (lo here)" {
    run env RXE_DEV=rxe_gone7 RXE_NETDEV=lo RXE_PEER_ADDR= "$VERBSH" -e '
      local h = require("verbs.room").health()
      print(h.dev, h.state, h.mtu, h.peer)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "rxe_gone7	missing	$(cat /sys/class/net/lo/mtu)	nil" ]
}

# A record must say which machine and which log it comes from (the stream
# its numbers count in): one without them is refused, never counted.
@test "a record without a machine id or a hex log id is refused as malformed, not counted; the same record with both is acknowledged" {
    run "$VERBSH" -e '
      local R = require "verbs.room"
      local room = R.new {}
      local function rec(machine, log)
        return R.encode { kind = "rec", seat = "seat 3", machine = machine, log = log, seq = 1,
                          lesson = "05-rc-send", what = "step 1/4", t = "2026-11-26T09:00:00Z" }
      end
      for _, c in ipairs { { "pc-17", "zz12" }, { "pc 17", "ab12" }, { nil, "ab12" }, { "pc-17", nil } } do
        local r = room:handle(rec(c[1], c[2]), "10.78.0.3")
        print(tostring(c[1]), tostring(c[2]), r and r.kind, r and r.why)
      end
      print("malformed", room.malformed, "events", room.events, "rows", #room.order)
      local r = room:handle(rec("pc-17", "ab12"), "10.78.0.3")
      print(r.kind, r.upto, "malformed", room.malformed, "events", room.events, "rows", #room.order)'
    echo "$output"
    [ "$status" -eq 0 ]
    has_line $'pc-17\tzz12\trefused\tno machine or log id'
    has_line $'pc 17\tab12\trefused\tno machine or log id'
    has_line $'nil\tab12\trefused\tno machine or log id'
    has_line $'pc-17\tnil\trefused\tno machine or log id'
    has_line $'malformed\t4\tevents\t0\trows\t0'
    has_line $'ack\t1\tmalformed\t4\tevents\t1\trows\t1'
}

@test "a seat's flush sends its health and at most 64 records (room.burst), the oldest not acknowledged first; with no acknowledgement the next flush sends the same 64" {
    local d=$BATS_TEST_TMPDIR
    VERBSH_ROOM=off VERBSH_PROGRESS=1 RXE_SEAT=5 XDG_STATE_HOME=$d/state run "$VERBSH" -e '
      local P, room, socket = require "verbs.progress", require "verbs.room", require "socket"
      local u = assert(socket.udp()); assert(u:setsockname("127.0.0.1", 0))
      local _, port = u:getsockname()
      for i = 1, 70 do P.write("01-devices", "step", "t" .. i) end   -- (VERBSH_ROOM=off: nothing sent yet)
      room.target = function() return "127.0.0.1", tonumber(port) end
      for round = 1, 2 do
        room.flush(0)
        u:settimeout(1)
        local kinds, seqs = {}, {}
        while true do
          local data = u:receive(); if not data then break end
          local m = room.decode(data)
          kinds[#kinds + 1] = m.kind
          if m.kind == "rec" then seqs[#seqs + 1] = m.seq end
          u:settimeout(0.2)
        end
        print(room.burst, kinds[1], #kinds - 1, seqs[1], seqs[#seqs])
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    # nothing acknowledged (no room answers): each flush sends the same first 64 of 70
    [ "${lines[0]}" = "64	health	64	1	64" ]
    [ "${lines[1]}" = "64	health	64	1	64" ]
}

@test "verbsh --room's arguments: each wrong one is refused by name with its value (exit 2, or 1 for an address it cannot bind), each boundary on both sides" {
    local d=$BATS_TEST_TMPDIR
    refused() {   # refused STATUS MESSAGE ARGS...: the first stderr line, and the exit status
        local want=$1 msg=$2; shift 2
        local st=0
        "$VERBSH" --room --dir "$d/room" "$@" >/dev/null 2>"$d/err" || st=$?
        [ "$st" -eq "$want" ] || { echo "$* -> $st: $(cat "$d/err")"; return 1; }
        [ "$(head -1 "$d/err")" = "verbsh --room: $msg" ] || { echo "$* -> $(cat "$d/err")"; return 1; }
    }
    RXE_CLASS= refused 2 "where do the seats report? give --class GROUP:PORT (the seats' --class) or --listen ADDR:PORT"
    refused 2 "--class needs a value" --class
    refused 2 "--class wants a multicast GROUP:PORT, got 10.1.2.3:5000" --class 10.1.2.3:5000
    refused 2 "--class wants a multicast GROUP:PORT, got 239.1.2.3:0" --class 239.1.2.3:0
    refused 2 "--class wants a multicast GROUP:PORT, got 239.1.2.3:65536" --class 239.1.2.3:65536
    refused 1 "cannot listen on 127.0.0.1:65536: want ADDR:PORT" --listen 127.0.0.1:65536
    refused 1 "cannot listen on 127.0.0.1: want ADDR:PORT" --listen 127.0.0.1
    refused 2 "--every wants seconds above 0, got 0" --every 0 --listen 127.0.0.1:0
    refused 2 "--stuck wants seconds, got -1" --stuck -1 --listen 127.0.0.1:0
    refused 2 "--for needs a value" --listen 127.0.0.1:0 --for
    refused 2 "unknown option --seat" --seat 3
    # what passes: port 0 (any) to listen on, --every 0.5, --stuck 0, --for 0 (one write, then the table)
    "$VERBSH" --room --dir "$d/room" --listen 127.0.0.1:0 --every 0.5 --stuck 0 --for 0 >/dev/null 2>"$d/err"
    [[ $(cat "$d/err") == "verbsh --room: listening on 127.0.0.1:"[1-9]*"; $d/room/room.json and room.html every 0.5 s" ]]
    [ -s "$d/room/room.json" ]
}

@test "the room acknowledges each stream up to its first gap: records 3, 1, 2, 1 again, 5, 4 are acknowledged 3, 1, 3, 3, 3, 5 (an older record starts the stream over; a duplicate is dropped)" {
    run "$VERBSH" -e '
      local M = require "verbs.room"
      local room = M.new{ dir = os.getenv("BATS_TEST_TMPDIR"), stuck = 300, silent = 120 }
      local acks = {}
      for _, seq in ipairs { 3, 1, 2, 1, 5, 4 } do
        local r = room:handle(M.encode{ kind = "rec", seat = "seat 4", n = 4, machine = "abcdef", log = "1234abcd", seq = seq,
          t = "2026-11-26T10:00:0" .. seq .. "Z", lesson = "01-devices", what = "step " .. seq .. "/5", title = "t" .. seq }, "127.0.0.1")
        acks[#acks + 1] = r.kind .. " " .. r.upto
      end
      print(table.concat(acks, ", "), room.duplicates_dropped, room.events)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "ack 3, ack 1, ack 3, ack 3, ack 3, ack 5	1	5" ]
}

@test "the room refuses a datagram without a seat label (none, another word, over 64 bytes) as malformed with no reply when it has no seat; a second address for one seat is refused and listed as a duplicate; an unknown kind is malformed" {
    run "$VERBSH" -e '
      local R = require "verbs.room"
      local room = R.new { stuck = 300, silent = 120 }
      local function send(seat, ip, kind)
        local r = room:handle(R.encode { kind = kind or "health", seat = seat, machine = "pc-17", log = "ab12", mtu = 1500 }, ip)
        print(tostring(seat):sub(1, 20), ip, r and r.kind, r and r.why)
      end
      send(nil, "10.1.0.3")
      send("desk 3", "10.1.0.3")
      send("host " .. ("n"):rep(59), "10.1.0.3")   -- 64 bytes: a seat
      send("host " .. ("n"):rep(60), "10.1.0.3")   -- 65: not
      print("malformed", room.malformed, "rows", #room.order)
      send("seat 3", "10.1.0.3")
      send("seat 3", "10.1.0.4")
      send("seat 3", "10.1.0.3", "bye")
      print("malformed", room.malformed, "rows", #room.order)
      local snap = room:snapshot()
      local d = snap.duplicates[1]
      print(#snap.duplicates, d.seat, d.ip, table.concat(d.other_ips, ","), table.concat(d.machines, ","), snap.seats[1].seat, snap.seats[1].duplicate, snap.seats[2].duplicate)
      print(#snap.refused, snap.refused[1].seat, snap.refused[1].ip, snap.refused[1].count)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "nil	10.1.0.3	nil	nil" ]
    [ "${lines[1]}" = "desk 3	10.1.0.3	refused	no seat" ]
    [ "${lines[2]}" = "host nnnnnnnnnnnnnnn	10.1.0.3	nil	nil" ]
    [ "${lines[3]}" = "host nnnnnnnnnnnnnnn	10.1.0.3	refused	no seat" ]
    [ "${lines[4]}" = "malformed	3	rows	1" ]
    [ "${lines[5]}" = "seat 3	10.1.0.3	nil	nil" ]
    [ "${lines[6]}" = "seat 3	10.1.0.4	refused	seat 3 already reports from 10.1.0.3; this report came from 10.1.0.4 (two seats with one number?)" ]
    [ "${lines[7]}" = "seat 3	10.1.0.3	nil	nil" ]
    [ "${lines[8]}" = "malformed	4	rows	2" ]
    [ "${lines[9]}" = "1	seat 3	10.1.0.3	10.1.0.4	pc-17	seat 3	true	nil" ]
    [ "${lines[10]}" = "1	seat 3	10.1.0.4	1" ]
}

@test "the room's seats in order: numbered seats by number (9 before 10), then the hosts by name; the JSON of a value it has no form for is null" {
    run "$VERBSH" -e '
      local R = require "verbs.room"
      local room = R.new { stuck = 300, silent = 120 }
      for i, seat in ipairs { "host zed", "seat 10", "host abe", "seat 9", "host kim" } do
        room:handle(R.encode { kind = "health", seat = seat, machine = "pc-" .. i, log = "ab12" }, "10.1.0." .. i)
      end
      local order = {}
      for _, s in ipairs(room:snapshot().seats) do order[#order + 1] = s.seat end
      print(table.concat(order, ", "))
      print(R.json { f = print, n = 1.5 })'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "seat 9, seat 10, host abe, host kim, host zed" ]
    [ "${lines[1]}" = '{"f":null,"n":1.5}' ]
}

@test "the room's table: each seat's step, its steps ('?' unknown) and how long, in s below a minute, min below an hour, then h and min; STUCK with the learner's error" {
    run "$VERBSH" -e '
      local V = require "verbs.room_view"
      local function seat(n, sec, steps, stuck, err)
        return { seat = "seat " .. n, lessons = {}, current = { lesson = "05-rc-send", step = 2, steps = steps, seconds = sec, stuck = stuck, error = err } }
      end
      print(V.table_text { lessons = { "05-rc-send" }, events = 7, duplicates_dropped = 1, refused = {}, generated = "2026-11-26T10:00:00Z",
        seats = { seat(1, 59, 4), seat(2, 60, 4), seat(3, 3599, 4), seat(4, 3600, 4),
                  seat(5, 7500, nil, true, "qp_b has no receive posted"), seat(6, 59.9, 4, true), seat(7, -3, 4) } })'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "seat        05  now" ]
    [ "${lines[1]}" = "#1           .  05-rc-send 2/4 59 s" ]
    [ "${lines[2]}" = "#2           .  05-rc-send 2/4 1 min" ]
    [ "${lines[3]}" = "#3           .  05-rc-send 2/4 59 min" ]
    [ "${lines[4]}" = "#4           .  05-rc-send 2/4 1 h 00 min" ]
    [ "${lines[5]}" = "#5           .  STUCK 05-rc-send 2/? 2 h 05 min: qp_b has no receive posted" ]
    [ "${lines[6]}" = "#6           .  STUCK 05-rc-send 2/4 59 s" ]
    [ "${lines[7]}" = "#7           .  05-rc-send 2/4 0 s" ]
    [ "${lines[8]}" = "7 seats, 7 events, 1 repeats dropped, 0 refused, 2026-11-26T10:00:00Z" ]
}

@test "room.html lists the duplicate seats (machines, address, the addresses refused) and the MTU mismatches against the room's most common MTU" {
    run "$VERBSH" -e '
      local R, V = require "verbs.room", require "verbs.room_view"
      local room = R.new { stuck = 300, silent = 120 }
      local function health(seat, machine, ip, mtu)
        room:handle(R.encode { kind = "health", seat = seat, machine = machine, log = "ab12", mtu = mtu }, ip)
      end
      health("seat 1", "pc-1", "10.1.0.1", 1500)
      health("seat 2", "pc-2", "10.1.0.2", 9000)
      health("seat 3", "pc-3", "10.1.0.3", 1500)
      health("seat 3", "pc-3b", "10.1.0.3", 1500)
      health("seat 3", "pc-9", "10.1.0.9", 1500)
      health("seat 3", "pc-8", "10.1.0.8", 1500)
      health("host x", "pc-5", "10.1.0.5", 1400)
      local html = V.html(room:snapshot(), 3)
      for li in html:gmatch("<h2>[^<]*</h2><ul>.-</ul>") do print(li) end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "<h2>Duplicate seats</h2><ul><li>seat 3: machines pc-3, pc-3b; from 10.1.0.3, refused from 10.1.0.8, 10.1.0.9</li></ul>" ]
    [ "${lines[1]}" = "<h2>MTU mismatches</h2><ul><li>seat 2: MTU 9000, the room's is 1500</li><li>host x: MTU 1400, the room's is 1500</li></ul>" ]
    [ "${lines[2]}" = "<h2>Refused reports</h2><ul><li>10.1.0.9 (1): seat 3 already reports from 10.1.0.3; this report came from 10.1.0.9 (two seats with one number?)</li><li>10.1.0.8 (1): seat 3 already reports from 10.1.0.3; this report came from 10.1.0.8 (two seats with one number?)</li></ul>" ]
    [ "${#lines[@]}" -eq 3 ]
}

@test "verbsh --room --class joins the segment's multicast group (RXE_CLASS by default) and acknowledges a seat that reports to the group; an RXE_ADDR that is not this host's cannot join" {
    ip -4 route get 239.78.0.1 >/dev/null 2>&1 || skip "no route for multicast on this host"
    local d=$BATS_TEST_TMPDIR p=$((40000 + RANDOM % 20000))
    RXE_ADDR=192.0.2.250 run "$VERBSH" --room --class "239.78.0.1:$p" --dir "$d/no" --for 0
    [ "$status" -eq 1 ]
    [ "$output" = "verbsh --room: cannot join 239.78.0.1:$p: setsockopt failed" ]
    RXE_CLASS=239.78.0.1:$p "$VERBSH" --room --dir "$d/room" --every 0.2 --for 2 >/dev/null 2>"$d/err" &
    room=$!
    for _ in $(seq 50); do grep -q 'listening' "$d/err" && break; sleep 0.1; done
    [ "$(cat "$d/err")" = "verbsh --room: listening on 239.78.0.1:$p; $d/room/room.json and room.html every 0.2 s" ]
    RXE_CLASS=239.78.0.1:$p VERBSH_PROGRESS=1 RXE_SEAT=7 XDG_STATE_HOME=$d/seat run "$VERBSH" -e '
      require("verbs.progress").write("05-rc-send", "step 1/4 passed", "Connect")
      print(require("verbs.room").flush(2))'
    wait $room
    echo "$output"
    [ "$output" = "1	1" ]
    [ "$(cut -f4 "$d/seat/verbsh/room-acked")" = 1 ]
    run python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); s=r["seats"][0]
print(r["listen"], len(r["seats"]), s["seat"], s["events"], s["lessons"]["05-rc-send"]["passed"])' "$d/room/room.json"
    [ "$output" = "239.78.0.1:$p 1 seat 7 1 1" ]
}

@test "a seat's flush takes only the acknowledgements of its own seat, machine and log: garbage, another seat's, another log's and another seat's refusal are passed over" {
    local d=$BATS_TEST_TMPDIR
    # a room that answers the seat's 4 datagrams (health, 3 records) with 4 others first
    "$VERBSH" -e '
      local R, socket = require "verbs.room", require "socket"
      local u = assert(socket.udp()); assert(u:setsockname("127.0.0.1", 0))
      local _, port = u:getsockname()
      local f = io.open(os.getenv("BATS_TEST_TMPDIR") .. "/port.new", "w") f:write(port, "\n") f:close()
      os.rename(os.getenv("BATS_TEST_TMPDIR") .. "/port.new", os.getenv("BATS_TEST_TMPDIR") .. "/port")
      u:settimeout(10)
      local m, ip, from
      for _ = 1, 4 do local data; data, ip, from = u:receivefrom(); m = R.decode(data) end
      local me = { seat = m.seat, machine = m.machine, log = m.log }
      local function reply(t) for k, v in pairs(me) do if t[k] == nil then t[k] = v end end u:sendto(R.encode(t), ip, from) end
      u:sendto("not a room datagram", ip, from)
      reply { kind = "ack", upto = 3, seat = "seat 8" }
      reply { kind = "ack", upto = 3, log = "ffff0000" }
      reply { kind = "ack", upto = 3, machine = "pc-other" }
      reply { kind = "refused", why = "not you", seat = "seat 8" }
      reply { kind = "ack", upto = 2 }' &
    room=$!
    for _ in $(seq 50); do [ -s "$d/port" ] && break; sleep 0.1; done
    VERBSH_ROOM=off VERBSH_PROGRESS=1 RXE_SEAT=5 XDG_STATE_HOME=$d/state run "$VERBSH" -e '
      local P, R = require "verbs.progress", require "verbs.room"
      for i = 1, 3 do P.write("01-devices", "step " .. i .. "/3 passed", "t" .. i) end
      R.target = function() return "127.0.0.1", tonumber(io.open(os.getenv("BATS_TEST_TMPDIR") .. "/port"):read("l")) end
      print(R.flush(1))'
    wait $room
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "2	3" ]
    [ "$(cut -f4 "$d/state/verbsh/room-acked")" = 2 ]
}

@test "room datagrams: decode gives back what encode wrote (a space, a % and a newline escaped); another magic, a malformed field and one byte past max_datagram are refused with why" {
    run "$VERBSH" -e '
      local R = require "verbs.room"
      local line = R.encode{ seat = 3, step = "a b%\n" }
      print(line)
      local t = R.decode(line); print(t.seat, ("%q"):format(t.step))
      print(R.decode("other-room/1 seat=3"))
      print(R.decode(R.MAGIC .. " seat=%4"))
      local long = R.MAGIC .. " x=" .. ("y"):rep(R.max_datagram - #R.MAGIC - 3)
      print(#long, R.decode(long) ~= nil, R.decode(long .. "y"))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "verbsh-room/1 seat=3 step=a%20b%25%0A" ]
    [ "${lines[1]}" = '3	"a b%\' ]
    [ "${lines[2]}" = '"' ]
    [ "${lines[3]}" = "nil	not a verbsh-room/1 datagram" ]
    [ "${lines[4]}" = 'nil	malformed field "seat=%4"' ]
    [ "${lines[5]}" = "1400	true	nil	longer than 1400 bytes" ]
}

@test "the room's table: a seat's now column puts DUPLICATE, SILENT, its step and its MTU (when it differs from the room's) one space apart; a seat with none of them leaves it empty" {
    run "$VERBSH" -e '
      local V = require "verbs.room_view"
      print(V.table_text { lessons = { "05-rc-send" }, events = 3, duplicates_dropped = 0, refused = {}, generated = "now",
        seats = { { seat = "seat 8", lessons = {}, current = { lesson = "05-rc-send", step = 1, steps = 4, seconds = 5 }, mtu_mismatch = true, health = { mtu = 9000 } },
                  { seat = "seat 9", lessons = {}, silent = true, duplicate = true, mtu_mismatch = true, health = { mtu = 1400 } },
                  { seat = "seat 10", lessons = {}, health = { mtu = 1500 } } } })'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[1]}" = "#8           .  05-rc-send 1/4 5 s MTU 9000" ]
    [ "${lines[2]}" = "#9           .  DUPLICATE SILENT MTU 1400" ]
    [ "${lines[3]}" = "#10          .  " ]
}

@test "the room's table: a lesson's cell counts the steps passed and skipped together (2 and 1 of 5: 3/5; 0 and 3: 3/5), --auto's steps apart (A2/4), a finished lesson a check" {
    run "$VERBSH" -e '
      local V = require "verbs.room_view"
      print(V.table_text { lessons = { "01-devices", "02-pd" }, events = 9, duplicates_dropped = 0, refused = {}, generated = "now",
        seats = { { seat = "seat 3", lessons = { ["01-devices"] = { passed = 2, skipped = 1, auto = 0, steps = 5 },
                                                 ["02-pd"] = { passed = 0, skipped = 0, auto = 2, steps = 4 } } },
                  { seat = "seat 4", lessons = { ["01-devices"] = { passed = 0, skipped = 3, auto = 0, steps = 5 },
                                                 ["02-pd"] = { finished = true } } } } })'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[1]}" = "#3         3/5 A2/4  " ]
    [ "${lines[2]}" = "#4         3/5    ✓  " ]
}

@test "a seat's flush leaves no file open: twenty flushes that read the acknowledgements file, with the collector stopped, hold no more descriptors than before" {
    mkdir -p "$BATS_TEST_TMPDIR/s/verbsh"
    printf 'x\t1\n' >"$BATS_TEST_TMPDIR/s/verbsh/room-acked"
    VERBSH_ROOM=127.0.0.1:9 VERBSH_PROGRESS=1 RXE_SEAT=5 XDG_STATE_HOME=$BATS_TEST_TMPDIR/s run "$VERBSH" -e "$FDS_LUA"'
      local P, R = require "verbs.progress", require "verbs.room"
      P.write("01-devices", "at step 1/4", "Step 1")
      R.flush(0)   -- (what a first flush opens for good, it opens here)
      collectgarbage("stop")
      local before = fds()
      for _ = 1, 20 do R.flush(0) end
      print(fds() - before)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = 0 ]
}

@test "the room writes each record to its log as it acknowledges it: the log holds them long before the room's next write, and a room killed then has lost none" {
    # (--every 60: the room's writes, whose io.popen flushes every stream, are a minute apart)
    local d=$BATS_TEST_TMPDIR port= n
    "$VERBSH" --room --listen 127.0.0.1:0 --dir "$d/r" --every 60 >/dev/null 2>"$d/err" 3>&- &
    local pid=$!
    echo $pid >"$d/own-room.pid"   # (teardown stops it when a check fails)
    for _ in $(seq 100); do
        port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\);.*/\1/p' "$d/err")
        [ -n "$port" ] && break
        sleep 0.1
    done
    VERBSH_ROOM=127.0.0.1:$port VERBSH_PROGRESS=1 RXE_SEAT=31 XDG_STATE_HOME=$d/seat "$VERBSH" "$ROOT/tests/room/seat.lua" 31
    n=$(wc -l <"$d/seat/verbsh/progress")
    [ "$n" -eq 4 ]
    for _ in $(seq 50); do [ "$(cut -f4 "$d/seat/verbsh/room-acked" 2>/dev/null)" = "$n" ] && break; sleep 0.1; done
    [ "$(cut -f4 "$d/seat/verbsh/room-acked")" = "$n" ]
    [ "$(wc -l <"$d/r/room.log")" -eq "$n" ]
    kill -9 $pid
    wait $pid 2>/dev/null || true
    [ "$(wc -l <"$d/r/room.log")" -eq "$n" ]
    # each line: the address it came from, then the record
    [ "$(cut -f1 "$d/r/room.log" | sort -u)" = 127.0.0.1 ]
}
