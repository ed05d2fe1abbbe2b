#!/usr/bin/env bats
# The progress log (verbs.progress) and what the room makes of datagrams,
# without a device: a pure-Lua lesson in a temp dir, two seats sharing one
# log as on a teacher's laptop or NFS-shared homes.
load ../helpers

setup() {
    export VERBSH_LESSONS=$BATS_TEST_TMPDIR/lessons VERBSH_ROOM=off
    mkdir -p "$VERBSH_LESSONS"
    cat >"$VERBSH_LESSONS/01-devices.lua" <<'LUA'
return { title = "Three globals", steps = {
  { title = "Set x", text = ".", task = "x = 1", solution = "x = 1", check = function() return x == 1, "x is " .. tostring(x) end },
  { title = "Set y", text = ".", task = "y = 2", solution = "y = 2", check = function() return y == 2, "y is " .. tostring(y) end },
  { title = "Set z", text = ".", task = "z = 3", solution = "z = 3", check = function() return z == 3, "z is " .. tostring(z) end },
} }
LUA
}

# seat 3 by hand: step 1 skipped, step 2 passed, an error on step 3, then passed
by_hand='
  local repl = require "verbs.repl"
  lesson "devices"
  skip()
  y = 2; repl.after_eval(true)
  repl.after_eval(false, "stdin:1: attempt to call a nil value (global '"'"'zz'"'"')\nstack traceback: ...")
  repl.after_eval(false, "stdin:1: attempt to call a nil value (global '"'"'zz'"'"')")
  z = 3; repl.after_eval(true)'

@test "--progress sums per seat and lesson: passed, skipped and checked by --auto are three counts" {
    VERBSH_PROGRESS=1 RXE_SEAT=3 run "$VERBSH" -e "$by_hand"
    [ "$status" -eq 0 ]
    # seat 4 on the same log: the answer key, twice (each step counts once)
    VERBSH_PROGRESS=1 RXE_SEAT=4 run "$VERBSH" --lesson devices --auto
    [ "$status" -eq 0 ]
    VERBSH_PROGRESS=1 RXE_SEAT=4 run "$VERBSH" --lesson devices --auto
    local log=$XDG_STATE_HOME/verbsh/progress machine
    machine=$(cat /etc/machine-id 2>/dev/null || true)
    cat "$log"
    # seat 3: at 1, skipped 1, at 2, passed 2, at 3, the error once, passed 3, finished
    [ "$(grep -c '	seat 3	' "$log")" -eq 8 ]
    [ "$(grep -c '	seat 4	' "$log")" -eq 8 ]
    run grep '	seat 3	' "$log"
    [[ ${lines[1]} =~ ^20[0-9-]+T[0-9:]+Z$'\t'seat\ 3$'\t'01-devices$'\t'step\ 1/3\ skipped$'\t'Set\ x$'\t'[0-9a-z-]+$'\t'[0-9a-f]{8}:2$ ]]
    [[ ${lines[5]} == *"	error step 3/3	stdin:1: attempt to call a nil value (global 'zz')	"*":6" ]]
    [[ ${lines[7]} == *"	finished		"*":8" ]]
    [ -z "$machine" ] || [ "$(cut -f6 "$log" | sort -u)" = "$machine" ]
    run "$VERBSH" --progress --json
    echo "$output"
    [[ $output == '{"log":"'"$log"'","seats":[{"seat":"seat 3","machine":"'*'","lessons":[{"lesson":"01-devices","passed":2,"skipped":1,"auto":0,"steps":3,"finished":true,"first":"20'*'"}]},{"seat":"seat 4","machine":"'*'","lessons":[{"lesson":"01-devices","passed":0,"skipped":0,"auto":3,"steps":3,"finished":false,"first":"20'* ]]
    run "$VERBSH" --progress
    echo "$output"
    [ "${lines[0]}" = "Progress per seat (the log: $log):" ]
    [[ ${lines[1]} == "seat 3, machine "* ]]
    [[ ${lines[2]} =~ ^\ \ 01-devices\ +finished:\ 2\ passed,\ 1\ skipped,\ 0\ checked\ by\ --auto,\ of\ 3\ steps\ \ \(20 ]]
    [[ ${lines[3]} == "seat 4, machine "* ]]
    [[ ${lines[4]} =~ ^\ \ 01-devices\ +0\ passed,\ 0\ skipped,\ 3\ checked\ by\ --auto,\ of\ 3\ steps ]]
}

@test "an older log's lines (step N/M, no machine) still count as passed; a run without a terminal writes nothing" {
    mkdir -p "$XDG_STATE_HOME/verbsh"
    printf '2026-11-24T05:50:01Z\tseat 3\t05-rc-send\tstep 2/4\tPost a receive\n2026-11-24T05:51:01Z\tseat 3\t05-rc-send\tstep 3/4 skipped\tSend\n' \
        >"$XDG_STATE_HOME/verbsh/progress"
    run "$VERBSH" --progress --json
    [[ $output == *'{"seat":"seat 3","machine":"","lessons":[{"lesson":"05-rc-send","passed":1,"skipped":1,"auto":0,"steps":4,"finished":false,"first":"2026-11-24T05:50:01Z","last":"2026-11-24T05:51:01Z"}]}'* ]]
    # stdin is not a terminal here: nothing written, unless VERBSH_PROGRESS=1
    run "$VERBSH" --lesson devices --auto </dev/null
    [ "$status" -eq 0 ]
    VERBSH_PROGRESS=0 run "$VERBSH" -e "$by_hand"
    [ "$(wc -l <"$XDG_STATE_HOME/verbsh/progress")" -eq 2 ]
    VERBSH_PROGRESS=1 run "$VERBSH" --lesson devices --auto </dev/null
    [ "$(wc -l <"$XDG_STATE_HOME/verbsh/progress")" -eq 6 ]
    run "$VERBSH" --progress extra
    [ "$status" -eq 2 ]
}

# --json is for a program to read: the one JSON line and nothing after it
# (not the text summary too), status 0, with the log empty or not.
@test "--progress --json prints exactly one JSON line and exits 0: seats [] with no log; the seats with one" {
    local log=$XDG_STATE_HOME/verbsh/progress
    run "$VERBSH" --progress --json
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = '{"log":"'"$log"'","seats":[]}' ]
    mkdir -p "$XDG_STATE_HOME/verbsh"
    printf '2026-11-24T05:50:01Z\tseat 3\t05-rc-send\tstep 2/4\tPost a receive\n' >"$log"
    run "$VERBSH" --progress --json
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = '{"log":"'"$log"'","seats":[{"seat":"seat 3","machine":"","lessons":[{"lesson":"05-rc-send","passed":1,"skipped":0,"auto":0,"steps":4,"finished":false,"first":"2026-11-24T05:50:01Z","last":"2026-11-24T05:50:01Z"}]}]}' ]
}

# Feeds datagrams to a room (no socket) and prints what room.json would say.
room_lua='
  local R = require "verbs.room"
  local room = R.new { every = 3, stuck = 300, silent = 120, where = "test" }
  local now = os.date("!%Y-%m-%dT%H:%M:%SZ")
  local function rec(seat, ip, seq, what, extra)
    local m = { kind = "rec", seat = seat, machine = extra and extra.machine or "m1", log = "abc123", seq = seq,
                t = now, lesson = "05-rc-send", what = what, title = "T", addr = extra and extra.addr }
    local r = room:handle(R.encode(m), ip)
    return r and (r.kind .. " " .. (r.upto or r.why)) or "nothing"
  end
  local function health(seat, ip, mtu)
    room:handle(R.encode { kind = "health", seat = seat, machine = "m1", log = "abc123", mtu = mtu, dev = "rxe0", state = "ACTIVE" }, ip)
  end
'

@test "the room: out-of-order and repeated records, seats on the segment checked against 10.78.0.N, duplicates and MTU mismatches listed" {
    run "$VERBSH" -e "$room_lua"'
      print(rec("seat 3", "10.78.0.3", 1, "step 1/4 passed"))
      print(rec("seat 3", "10.78.0.3", 3, "step 3/4 passed"))     -- 2 lost: acknowledged up to 1
      print(rec("seat 3", "10.78.0.3", 2, "step 2/4 skipped"))    -- resent: now up to 3
      print(rec("seat 3", "10.78.0.3", 3, "step 3/4 passed"))     -- a repeat: not counted again
      print(rec("seat 4", "10.78.0.5", 1, "step 1/4 passed"))     -- seat 4 is 10.78.0.4
      print(rec("seat 4", "10.78.0.4", 1, "step 1/4 passed", { addr = "10.78.0.44" }))
      print(rec("seat 5", "10.78.0.5", 1, "step 1/4 passed"))
      print(rec("seat 5", "10.78.0.5", 1, "step 1/4 passed", { machine = "m2" }))  -- another PC as seat 5
      print(rec("seat 6", "10.78.0.6", 0, "step 1/4 passed"))     -- no such number
      print(rec("seat 6", "10.78.0.6", 1, "step 9 of 4"))
      health("seat 3", "10.78.0.3", 1400) health("seat 5", "10.78.0.5", 1400) health("seat 6", "10.78.0.6", 9000)
      print(room:handle("verbsh-room/1 kind=rec seat=seat%2", "10.78.0.6"), room:handle("hello", "10.78.0.6"))
      local s = room:snapshot()
      local c = s.seats[1].lessons["05-rc-send"]
      print(#s.seats, s.events, s.duplicates_dropped, s.malformed, c.passed, c.skipped)
      print(s.duplicates[1].seat, table.concat(s.duplicates[1].machines, ","))
      print(s.mtu_mismatch[1].seat, s.mtu_mismatch[1].mtu, s.mtu_mismatch[1].room_mtu, #s.mtu_mismatch)
      print(#s.refused, s.refused[1].why)
      print(s.refused[2].why)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "ack 1" ]
    [ "${lines[1]}" = "ack 1" ]
    [ "${lines[2]}" = "ack 3" ]
    [ "${lines[3]}" = "ack 3" ]
    [ "${lines[4]}" = "refused seat 4 must report from 10.78.0.4, not 10.78.0.5" ]
    [ "${lines[5]}" = "refused seat 4 says it is 10.78.0.44 but reports from 10.78.0.4" ]
    [ "${lines[6]}" = "ack 1" ]
    [ "${lines[7]}" = "ack 1" ]
    [ "${lines[8]}" = "nothing" ]
    [ "${lines[9]}" = "nothing" ]
    [ "${lines[10]}" = "nil	nil" ]
    # seats 3, 5 and 6 (seat 4 was refused); 3 + 2 records (seat 5 from two machines); one repeat; 4 malformed
    [ "${lines[11]}" = "3	5	1	4	2	1" ]
    [ "${lines[12]}" = "seat 5	m1,m2" ]
    [ "${lines[13]}" = "seat 6	9000	1400	1" ]
    [ "${lines[14]}" = "2	seat 4 must report from 10.78.0.4, not 10.78.0.5" ]
}

@test "the room: a lesson a seat reports that this verbsh does not have is a column after its own (here 01-devices alone), the others sorted, each once" {
    run "$VERBSH" -e "$room_lua"'
      local function lesson(seat, ip, seq, name)
        room:handle(R.encode { kind = "rec", seat = seat, machine = "m1", log = "abc123", seq = seq, t = now,
          lesson = name, what = "step 1/2 passed", title = "T" }, ip)
      end
      lesson("seat 3", "10.78.0.3", 1, "zz-own-lab")
      lesson("seat 3", "10.78.0.3", 2, "05-rc-send")
      lesson("seat 7", "10.78.0.7", 1, "aa-warmup")
      lesson("seat 7", "10.78.0.7", 2, "zz-own-lab")
      local cols = room:snapshot().lessons
      print(#cols, cols[1], cols[2], cols[3], cols[4], cols[5])'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "4	01-devices	05-rc-send	aa-warmup	zz-own-lab	nil" ]
}

@test "--lesson all --auto on a host without RDMA: every lesson a SKIP (lesson 1 too), exit 77; no traceback from the runner" {
    [ ! -d /sys/class/infiniband ] || skip "this host has RDMA"
    unset VERBSH_LESSONS
    run "$VERBSH" --lesson all --auto
    [ "$status" -eq 77 ]
    [[ $output == *"SKIP devices: no RDMA device"* ]]
    [ "$(grep -c '^SKIP ' <<<"$output")" -eq "$(ls "$ROOT"/lessons/[0-9]*.lua | wc -l)" ]
    [[ $output != *"FAIL"* ]]
    run "$VERBSH" -e 'require("verbs.lesson").run_code("local t = nil; print(t.x)")'
    [ "$output" = "stdin:1: attempt to index a nil value (local 't')"$'\n'"stack traceback:"$'\n'"	stdin:1: in main chunk" ]
}

@test "--room-plan 30: thirty handouts, distinct seats, partners in pairs, distinct ports over --link; printable HTML" {
    cd "$BATS_TEST_TMPDIR"
    run "$VERBSH" --room-plan 30 --class 239.78.0.1:7100
    [ "$status" -eq 0 ]
    [ "$(grep -c '^── Student ' <<<"$output")" -eq 30 ]
    # each handout's head: its seat and a rule to column 78
    grep -qx "── Student 17: seat 17 $(printf '─%.0s' $(seq 55))" <<<"$output"
    # each seat once, each with its partner, and the partner's handout names it back
    [ "$(grep -oE '^     make run CLASS=239\.78\.0\.1:7100 SEAT=[0-9]+ PEER_SEAT=[0-9]+$' <<<"$output" | sort -u | wc -l)" -eq 30 ]
    for k in 1 2 17 30; do
        local p=$(( k % 2 ? k + 1 : k - 1 ))
        grep -qx "     make run CLASS=239.78.0.1:7100 SEAT=$k PEER_SEAT=$p" <<<"$output"
        grep -qx "     make run CLASS=239.78.0.1:7100 SEAT=$k PEER_SEAT=$p ROLE=partner" <<<"$output"
    done
    [ "$(grep -cx "   (or, at your seat's verbsh> prompt: partner())" <<<"$output")" -eq 30 ]
    [[ $output == *"── The teacher: the room in seat 254"*"make run CLASS=239.78.0.1:7100 SEAT=254 ARGS=--room"* ]]
    # 31 headings (30 students, the teacher), each ruled to 78 columns as a lesson step's is
    [ "$(grep -c '^── ' <<<"$output")" -eq 31 ]
    [ "$(grep '^── ' <<<"$output" | LC_ALL=C.UTF-8 bash -c 'while IFS= read -r l; do echo ${#l}; done' | sort -u)" = 78 ]
    [ "$(grep -c '<div class="handout" id="seat-' room-plan.html)" -eq 30 ]
    grep -q '<div class="handout" id="teacher">' room-plan.html
    # over --link: each student listens on its own port, and sends to the partner's
    run "$VERBSH" --room-plan 30 --link 7000 --html link.html
    [ "$status" -eq 0 ]
    [ "$(grep -oE 'LISTEN=[0-9]+ SEAT=' <<<"$output" | sort -u | wc -l)" -eq 30 ]
    grep -qx "     make run LINK=PC_OF_SEAT_2:7002 LISTEN=7001 SEAT=1 PEER_SEAT=2" <<<"$output"
    grep -qx "     make run LINK=PC_OF_SEAT_29:7029 LISTEN=7030 SEAT=30 PEER_SEAT=29" <<<"$output"
    # an odd room: the last student pairs with the teacher's second seat
    run "$VERBSH" --room-plan 31 --class 239.78.0.1:7100 --html odd.html
    grep -qx "     make run CLASS=239.78.0.1:7100 SEAT=31 PEER_SEAT=253" <<<"$output"
    grep -q "SEAT=253 PEER_SEAT=31 ROLE=partner" <<<"$output"
    # each student's partner by name: a classmate's seat, or the teacher's
    grep -qx "Your seat: 30 (10.78.0.30 in the lab).  Your partner: seat 29 (10.78.0.29)." <<<"$output"
    grep -qx "Your seat: 31 (10.78.0.31 in the lab).  Your partner: the teacher's seat 253 (10.78.0.253)." <<<"$output"
    grep -qx "3. As the partner, when the teacher's seat 253 learns: instead of step 1," <<<"$output"
    run "$VERBSH" --room-plan 252 --class 239.78.0.1:7100 --html big.html
    [ "$status" -eq 0 ]
    run "$VERBSH" --room-plan 253 --class 239.78.0.1:7100
    [ "$status" -eq 2 ]
    [[ $output == *"N wants 1-252 students"* ]]
    run "$VERBSH" --room-plan 4 --class 10.0.0.1:7100
    [ "$status" -eq 2 ]
}

@test "--room-plan's arguments: an unexpected one, no --class or --link, N, a --class group or port and a --link base port outside their bounds are refused by name (exit 2); each bound passes on its side" {
    cd "$BATS_TEST_TMPDIR"
    plan() {   # plan ARGS: exit status, then the first line of stderr
        local st=0
        "$VERBSH" --room-plan "$@" --html p.html >/dev/null 2>err || st=$?
        echo "$st $(head -1 err)"
    }
    usage="usage: verbsh --room-plan N (--class GROUP:PORT | --link BASEPORT) [--html FILE]"
    [ "$(plan 4 --class 239.78.0.1:7100 --seat 3)" = "2 verbsh --room-plan: unexpected --seat" ]
    [ "$(plan 4 5 --class 239.78.0.1:7100)" = "2 verbsh --room-plan: unexpected 5" ]
    [ "$(plan 4)" = "2 $usage" ]
    [ "$(plan 0 --class 239.78.0.1:7100)" = "2 verbsh --room-plan: N wants 1-252 students" ]
    [ "$(plan 1 --class 239.78.0.1:7100)" = "0 verbsh --room-plan: 1 handouts written to p.html, one per printed page" ]
    for c in 223.255.0.1:7100 240.0.0.1:7100 239.78.0.1:0 239.78.0.1:65536; do
        [ "$(plan 4 --class $c)" = "2 verbsh --room-plan: --class wants a multicast GROUP:PORT, got $c" ]
    done
    for c in 224.0.0.9:1 239.78.0.1:65535; do
        [ "$(plan 4 --class $c)" = "0 verbsh --room-plan: 4 handouts written to p.html, one per printed page" ]
    done
    link="2 verbsh --room-plan: --link wants a BASEPORT (1024 or more; each seat listens on BASEPORT + seat)"
    for b in 1023 65506 7000.5 x; do [ "$(plan 30 --link $b)" = "$link" ]; done
    # the last seat listens on BASEPORT + 30: 65535 at most
    for b in 1024 65505; do
        [ "$(plan 30 --link $b)" = "0 verbsh --room-plan: 30 handouts written to p.html, one per printed page" ]
    done
    run "$VERBSH" --room-plan 30 --link 65505 --html p.html
    grep -qx "     make run LINK=PC_OF_SEAT_29:65534 LISTEN=65535 SEAT=30 PEER_SEAT=29" <<<"$output"
}

@test "progress.add: the step a learner is at, and its error, are cleared when that step passes or is skipped, not when --auto checks it or another step passes; finished clears them" {
    run "$VERBSH" -e '
      local P = require "verbs.progress"
      local acc, e = {}
      local function add(what, t, title)
        e = P.add(acc, { lesson = "05-rc-send", what = what, t = t, title = title })
        print(what, tostring(e.at), tostring(e.err))
      end
      add("at step 2/4", 1, "Receive")
      add("error step 2/4", 2, "Not done yet: qp_b has no receive posted")
      add("step 2/4 passed", 3)
      add("at step 3/4", 4, "Send")
      add("error step 3/4", 5, "wr_id 3 ended LOC_LEN_ERR")
      add("step 3/4 auto", 6)
      add("step 1/4 passed", 7)
      add("step 3/4 skipped", 8)
      add("at step 4/4", 9, "Done")
      add("finished", 10)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "at step 2/4	2	nil
error step 2/4	2	Not done yet: qp_b has no receive posted
step 2/4 passed	nil	nil
at step 3/4	3	nil
error step 3/4	3	wr_id 3 ended LOC_LEN_ERR
step 3/4 auto	3	wr_id 3 ended LOC_LEN_ERR
step 1/4 passed	3	wr_id 3 ended LOC_LEN_ERR
step 3/4 skipped	nil	nil
at step 4/4	4	nil
finished	nil	nil" ]
}

@test "the log's id leaves no file open: ten new ids (each read from /dev/urandom), with the collector stopped, hold no more descriptors than before; each is 8 hex digits of its own" {
    run "$VERBSH" -e "$FDS_LUA"'
      local P = require "verbs.progress"
      P.log_id(os.getenv("BATS_TEST_TMPDIR") .. "/d0")
      collectgarbage("stop")
      local before, ids, seen = fds(), 0, {}
      for i = 1, 10 do
        local id = P.log_id(os.getenv("BATS_TEST_TMPDIR") .. "/d" .. i)
        if id:match("^%x%x%x%x%x%x%x%x$") and not seen[id] then ids = ids + 1 end
        seen[id] = true
      end
      print(fds() - before, ids)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "0	10" ]
}

@test "the machine id: /etc/machine-id when it is hex, else D-Bus's, else host-HOSTNAME" {
    local d=$BATS_TEST_TMPDIR
    run "$VERBSH" -e '
      local P = require "verbs.progress"
      local real, files = io.open, {}
      io.open = function(p, ...) if files[p] ~= nil then return files[p] and real(files[p], ...) end return real(p, ...) end
      local function put(name, text)
        local f = real(os.getenv("BATS_TEST_TMPDIR") .. "/" .. name, "w") f:write(text) f:close()
        return os.getenv("BATS_TEST_TMPDIR") .. "/" .. name
      end
      files["/etc/machine-id"], files["/var/lib/dbus/machine-id"] = put("etc", "0123abcd\n"), put("dbus", "4567ef01\n")
      print(P.machine())
      files["/etc/machine-id"] = put("etc", "not-hex!\n")
      print(P.machine())
      files["/var/lib/dbus/machine-id"] = false
      print(P.machine())
      files["/etc/machine-id"] = false
      print(P.machine())'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "0123abcd" ]
    [ "${lines[1]}" = "4567ef01" ]
    [ "${lines[2]}" = "host-$(cat /proc/sys/kernel/hostname)" ]
    [ "${lines[3]}" = "host-$(cat /proc/sys/kernel/hostname)" ]
}

@test "the log gets a step's error once per distinct text: a repeat on the same step is not written, another text is, and the same text on the next step is again" {
    VERBSH_PROGRESS=1 RXE_SEAT=5 run "$VERBSH" -e '
      local repl = require "verbs.repl"
      lesson "devices"
      for _, e in ipairs { "stdin:1: e1\nstack traceback: ...", "stdin:1: e1", "stdin:2: e2", "stdin:2: e2" } do repl.after_eval(false, e) end
      x = 1; repl.after_eval(true)
      for _, e in ipairs { "stdin:2: e2", "stdin:1: e1", "stdin:1: e1" } do repl.after_eval(false, e) end'
    [ "$status" -eq 0 ]
    run cut -f4,5 "$XDG_STATE_HOME/verbsh/progress"
    echo "$output"
    [ "$(grep '^error' <<<"$output")" = "error step 1/3	stdin:1: e1
error step 1/3	stdin:2: e2
error step 2/3	stdin:2: e2
error step 2/3	stdin:1: e1" ]
}

@test "the log's id is made once, in a directory made for it: read back the same by a second call and a second process" {
    export D=$BATS_TEST_TMPDIR/state/not/yet/verbsh
    run "$VERBSH" -e '
      local P, d = require "verbs.progress", os.getenv("D")
      local a, b = P.log_id(d), P.log_id(d)
      print(a, a == b, io.open(d .. "/progress.id"):read("l") == a)'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output =~ ^[0-9a-f]{8}$'\t'true$'\t'true$ ]]
    local first=${output%%$'\t'*}
    run "$VERBSH" -e 'print(require("verbs.progress").log_id(os.getenv("D")))'
    [ "$output" = "$first" ]
}
