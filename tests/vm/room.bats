#!/usr/bin/env bats
# The room with real seats: three guests on one --class segment (seat 1 runs
# `verbsh --room`, seats 2 and 3 are partners and run lessons), a fourth
# that takes a seat already taken, and the current directory shared into
# the guest. All on 127.0.0.1.
load ../helpers

setup() { mkdir -p "$BATS_TEST_TMPDIR/work"; cd "$BATS_TEST_TMPDIR/work"; }

# class_seat N OUT [rxe-vm options] -- CMD: one seat on $group, in the background
class_seat() {
    local n=$1 out=$2; shift 2
    RXE_VM_SHARE=1 VERBSH_PROGRESS=1 "$ROOT/scripts/rxe-vm" --seat "$n" --class "$group" --listen 127.0.0.1 \
        --timeout 240 "$@" >"$out" 2>&1 &
}

@test "room: three seats on one segment report to verbsh --room in seat 1; a second seat 2 is refused with the first's MAC" {
    group=239.78.0.1:$((20000 + RANDOM % 20000))
    local t=$BATS_TEST_TMPDIR n
    class_seat 1 "$t/seat1.out" --timeout 400 -- bash -c 'timeout 200 "$VERBSH" --room --for 70 --every 1 --dir room; echo "room exit $?"' 
    local s1=$!
    # the seats' last step: every record acknowledged by the room
    cat >acked.lua <<'LUA'
local R = require "verbs.room"
for _ = 1, 60 do
  local got, last = R.flush(1)
  if got and got >= last then print("acknowledged " .. got) return end
end
os.exit(1)
LUA
    class_seat 2 "$t/seat2.out" --peer-seat 3 -- bash -c '
        echo "seat 2 up"
        for i in $(seq 50); do busybox ping -c 1 -W 1 $RXE_PEER_ADDR >/dev/null && break; done
        "$VERBSH" --lesson devices --auto >lesson2.out || exit 1
        "$VERBSH" acked.lua || exit 2
        sleep 30'
    local s2=$!
    class_seat 3 "$t/seat3.out" --peer-seat 2 --mtu 1500 -- bash -c '
        for i in $(seq 50); do busybox ping -c 1 -W 1 $RXE_PEER_ADDR >/dev/null && break; done
        "$VERBSH" --lesson devices --auto >lesson3.out && "$VERBSH" --lesson pd-mr --auto >>lesson3.out || exit 1
        "$VERBSH" acked.lua || exit 2'
    local s3=$!
    for _ in $(seq 1200); do grep -q "seat 2 up" "$t/seat2.out" && break; sleep 0.1; done
    # a classmate who also picked seat 2
    local start=$SECONDS
    run env RXE_VM_SHARE=0 "$ROOT/scripts/rxe-vm" --seat 2 --class "$group" --listen 127.0.0.1 --timeout 120 -- true
    echo "$output (exit $status after $((SECONDS - start)) s)"
    [ "$status" -eq 125 ]
    [[ $output == *"rxe-vm: guest setup failed: seat 2 is taken: another seat already answers for 10.78.0.2 on this segment (MAC 52:54:00:4e:0e:02, the same as this seat's: another PC or guest started with --seat 2)"* ]]
    local rcs="" p rc
    for p in $s1 $s2 $s3; do rc=0; wait $p || rc=$?; rcs="$rcs $rc"; done
    for n in 1 2 3; do echo "--- seat $n"; cat "$t/seat$n.out"; done
    echo "exits$rcs"
    cat room/room.json || true
    [ "$rcs" = " 0 0 0" ]
    grep -q "^acknowledged [0-9]" "$t/seat2.out"
    # room.json, written by seat 1's guest into this (shared) directory
    run /usr/bin/python3 - room/room.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = {x["seat"]: x for x in r["seats"]}
print(sorted(s))
d2, d3 = s["seat 2"]["lessons"]["01-devices"], s["seat 3"]["lessons"]["01-devices"]
print("seat 2 devices", d2["auto"], d2["steps"], d2["auto_finished"], d2["passed"])
print("seat 3 devices", d3["auto"], d3["steps"], d3["auto_finished"])
p3 = s["seat 3"]["lessons"]["02-pd-mr"]
print("seat 3 pd-mr", p3["auto"] == p3["steps"] and p3["steps"] > 1, p3["auto_finished"])
h2, h3 = s["seat 2"]["health"], s["seat 3"]["health"]
print("seat 2 health", h2["state"], h2["mtu"], h2["peer"], h2["heard"])
print("seat 3 health", h3["state"], h3["mtu"], h3["peer"], h3["heard"])
print("seat 1 health", s["seat 1"]["health"]["state"], s["seat 1"]["ip"])
print("mtu", [(m["seat"], m["mtu"], m["room_mtu"]) for m in r["mtu_mismatch"]])
print("refused", r["refused"], "duplicates", r["duplicates"])
PY
    echo "$output"
    [ "${lines[0]}" = "['seat 1', 'seat 2', 'seat 3']" ]
    [ "${lines[1]}" = "seat 2 devices 4 4 True 0" ]
    [ "${lines[2]}" = "seat 3 devices 4 4 True" ]
    [ "${lines[3]}" = "seat 3 pd-mr True True" ]
    [ "${lines[4]}" = "seat 2 health ACTIVE 1400 10.78.0.3 True" ]
    [ "${lines[5]}" = "seat 3 health ACTIVE 1500 10.78.0.2 True" ]
    [ "${lines[6]}" = "seat 1 health ACTIVE 10.78.0.1" ]
    [ "${lines[7]}" = "mtu [('seat 3', 1500, 1400)]" ]
    [ "${lines[8]}" = "refused [] duplicates []" ]
    # the room's table, printed when it stopped
    grep -qE '^#2 +A4/4 ' "$t/seat1.out"
    grep -q 'room.html' <(ls room)
}

@test "share: a file the guest writes in the current directory is on the host; --no-share keeps it in the guest" {
    echo 'local ctx = verbs.open(); local pd = ctx:alloc_pd(); print("pd", pd ~= nil)' >bug.lua
    RXE_VM_SHARE=1 run "$ROOT/scripts/rxe-vm" --timeout 200 -- bash -c '
        "$VERBSH" --export-c repro.c bug.lua && mkdir -p sub && echo 0x5eed >sub/made-in-guest
        VERBSH_PROGRESS=1 "$VERBSH" --lesson devices --auto >/dev/null'
    echo "$output"
    [ "$status" -eq 0 ]
    grep -q '^int main' repro.c
    [ "$(cat sub/made-in-guest)" = 0x5eed ]
    # a run without a terminal never writes the host's progress log
    [ ! -e "$XDG_STATE_HOME/verbsh/progress" ]
    RXE_VM_SHARE=1 run "$ROOT/scripts/rxe-vm" --no-share --timeout 200 -- bash -c '"$VERBSH" --export-c gone.c bug.lua && ls gone.c'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"gone.c"* ]]
    [ ! -e gone.c ]
}

@test "doctor --vm: a PC without RDMA is ready for the VM lab (exit 0); the class's port held by another program is a fail" {
    local port=$((20000 + RANDOM % 20000))
    run "$VERBSH" --doctor --vm --class 239.78.0.1:$port
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[1]} == "ok    qemu      QEMU emulator version "* ]]
    [[ $output == *"ok    boot      a seat booted with rxe0 ACTIVE and verbsh opened it, in "*" s ("[KT][VC][MG]")"* ]]
    [[ $output == *"ok    port      UDP port $port is free here"* ]]
    [[ $output == *"ok    class     multicast group 239.78.0.1 can be joined (the class segment 239.78.0.1:$port)"* ]]
    [ "${lines[-1]}" = "6 ok, 0 warn, 0 fail: ready for the VM lab" ]
    /usr/bin/python3 -c "import socket,time; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(('127.0.0.1', $port)); time.sleep(300)" &
    local holder=$!
    for _ in $(seq 300); do ss -Huln | grep -q "127.0.0.1:$port " && break; sleep 0.1; done
    run "$VERBSH" --doctor --vm --json --class 239.78.0.1:$port
    kill $holder
    echo "$output"
    [ "$status" -eq 1 ]
    [[ $output == *'{"fix":"stop what holds it (ss -ulnp | grep :'$port'), or give the class another port","message":"UDP port '$port' is in use here: address already in use","name":"port","status":"fail"}'* ]]
    [[ $output == *'"ok":false}' ]]
}
