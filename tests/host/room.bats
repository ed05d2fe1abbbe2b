#!/usr/bin/env bats
# The room (verbsh --room) and the progress log it sums up, on 127.0.0.1:
# 30 simulated seats (tests/room/seat.lua, the seat's real code) report at
# once, one of them disconnected and reconnected mid-lesson, one with a
# backlog from ten minutes ago; room.json is checked cell by cell
# (tests/room/expect.py) and room.html in headless Chromium.
load ../helpers

SEATS=30 STUCK=9 AWAY=19

# seat K [PART] [ROOM]: one simulated seat's run, in its own state dir
seat() {
    VERBSH_ROOM=${3:-127.0.0.1:$(cat "$BATS_FILE_TMPDIR/port")} VERBSH_PROGRESS=1 RXE_SEAT=$1 \
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
    local d=$BATS_FILE_TMPDIR
    start_room
    # Seat 9 could not reach the room ten minutes ago: its log kept what it
    # did then (step 1 passed, then stuck on step 2 with an error).
    local machine t0
    machine=$("$VERBSH" -e 'io.write(require("verbs.progress").machine())')
    t0=$(date +%s)
    at() { date -u -d "@$((t0 - $1))" +%Y-%m-%dT%H:%M:%SZ; }
    mkdir -p "$d/seat$STUCK/verbsh"
    echo 9a9a9a9a >"$d/seat$STUCK/verbsh/progress.id"
    printf '%s\tseat %d\t05-rc-send\t%s\t%s\t%s\t9a9a9a9a:%d\n' \
        "$(at 700)" $STUCK "step 1/4 passed" "Send" "$machine" 1 \
        "$(at 650)" $STUCK "at step 2/4" "Receive" "$machine" 2 \
        "$(at 600)" $STUCK "error step 2/4" "Not done yet: qp_b has no receive posted (seat $STUCK)" "$machine" 3 \
        >"$d/seat$STUCK/verbsh/progress"
    # Seat 19 reports its first steps, loses the room (a wrong port: nothing
    # answers) while the others report all at once, then comes back.
    seat $AWAY before
    local k pids=()
    for k in $(seq $SEATS); do
        case $k in
        $STUCK) seat $k flush & ;;
        $AWAY) seat $k offline 127.0.0.1:1 & ;;
        *) seat $k & ;;
        esac
        pids+=($!)
    done
    for k in "${pids[@]}"; do wait "$k"; done
    seat $AWAY after
    # 30 seats at once may overflow the room's socket buffer on a loaded
    # host: a dropped report stays in its seat's log until the seat's next
    # record, which sends it again. Here that next time is a last flush.
    for k in $(seq $SEATS); do seat $k flush; done
}

teardown_file() {
    kill "$(cat "$BATS_FILE_TMPDIR/room.pid")" 2>/dev/null || true
}

@test "30 seats at once, one away and back, one with an old backlog: room.json cell by cell" {
    events=$(python3 "$ROOT/tests/room/expect.py" --events $SEATS $STUCK)
    [ "$events" -eq 218 ]
    wait_events $events
    run python3 "$ROOT/tests/room/expect.py" "$BATS_FILE_TMPDIR/room/room.json" $SEATS $STUCK
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == "ok: 30 seats, 463 cells, 218 events" ]]
    # the seat that was away kept its records and sent them on its return
    # (a last flush: on a loaded host an acknowledgement may come late)
    grep -c "	seat $AWAY	" "$BATS_FILE_TMPDIR/seat$AWAY/verbsh/progress" | grep -qx 11
    seat $AWAY flush
    [ "$(cut -f4 "$BATS_FILE_TMPDIR/seat$AWAY/verbsh/room-acked")" = 11 ]
}

@test "a seat that sends its log again is counted once; a seat that claims another address is refused" {
    local json=$BATS_FILE_TMPDIR/room/room.json before
    wait_events 218
    before=$(grep -o '"duplicates_dropped":[0-9]*' "$json" | cut -d: -f2)
    # as after a lost acknowledgement: seat 19 forgets what the room has
    rm "$BATS_FILE_TMPDIR/seat$AWAY/verbsh/room-acked"
    seat $AWAY flush
    # (room.json is a second old at most: count from what it said then)
    local now
    for _ in $(seq 50); do
        now=$(grep -o '"duplicates_dropped":[0-9]*' "$json" | cut -d: -f2)
        [ "$now" -ge $((before + 11)) ] && break
        sleep 0.1
    done
    [ "$now" -ge $((before + 11)) ]
    grep -q '"events":218,' "$json"
    [ "$(cut -f4 "$BATS_FILE_TMPDIR/seat$AWAY/verbsh/room-acked")" = 11 ]
    # seat 31 says it is 10.78.0.31 (a seat on the class segment) but sends from 127.0.0.1
    RXE_ADDR=10.78.0.31 run seat 31
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"verbsh: the room refused this seat's report: seat 31 says it is 10.78.0.31 but reports from 127.0.0.1"* ]]
    [ "$(grep -c 'the room refused' <<<"$output")" -eq 1 ]
    for _ in $(seq 30); do grep -q '"refused":\[{' "$json" && break; sleep 0.1; done
    run python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(len(r["seats"]), r["refused"][0]["seat"], r["refused"][0]["ip"], r["events"])' "$json"
    [ "$output" = "30 seat 31 127.0.0.1 218" ]
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
    wait_events 218
    run python3 "$ROOT/tests/room/expect.py" "$d/room/room.json" $SEATS $STUCK
    echo "$output"
    [ "$output" = "ok: 30 seats, 463 cells, 218 events" ]
    # seat 19 comes back to the new room with its whole log: all repeats
    rm "$d/seat$AWAY/verbsh/room-acked"
    seat $AWAY flush
    [ "$(cut -f4 "$d/seat$AWAY/verbsh/room-acked")" = 11 ]
    sleep 1.2
    grep -q '"duplicates_dropped":11,"events":218,' "$d/room/room.json"
}

@test "room.html in headless Chromium: 30 rows on the screenshot, the stuck seat's step and error in the DOM" {
    local d=$BATS_FILE_TMPDIR page=$BATS_FILE_TMPDIR/room/room.html
    command -v chromium >/dev/null || { echo "chromium is missing: scripts/deps test installs it" >&2; return 1; }
    chrome() { HOME=$d timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
                   --user-data-dir="$d/chromium" "$@" 2>/dev/null; }
    chrome --dump-dom "file://$page" >"$d/dom.html"
    [ "$(grep -c '<tr class="row' "$d/dom.html")" -eq 30 ]
    grep -q '<li>seat 9: 05-rc-send step 2/4 (Receive) for 1[0-9] min: <span class="err stuck-error">Not done yet: qp_b has no receive posted (seat 9)</span></li>' "$d/dom.html"
    grep -q '<td class="stuck">1/4</td>' "$d/dom.html"
    chrome --window-size=1300,1400 --screenshot="$d/room.png" "file://$page"
    # Count the seat cells (#345678, grey when silent) down the first column, and find the stuck
    # seat's red cell (#e53935) in the 05-rc-send column.
    run /usr/bin/python3 - "$d/room.png" <<'PY'
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
w, h = im.size
x = next(x for x in range(w) for y in range(h) if im.getpixel((x, y)) == (0x34, 0x56, 0x78))
runs, inside = 0, False
for y in range(h):
    seat = im.getpixel((x + 3, y)) in ((0x34, 0x56, 0x78), (0x99, 0x99, 0x99))   # a silent seat's is grey
    runs += seat and not inside
    inside = seat
red = sum(1 for y in range(h) for x in range(0, w, 4) if im.getpixel((x, y)) == (0xe5, 0x39, 0x35))
print(runs, "rows", "red" if red > 50 else "no red")
PY
    echo "$output"
    [ "$output" = "30 rows red" ]
}
