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
    grep -c "	seat $AWAY	" "$BATS_FILE_TMPDIR/seat$AWAY/verbsh/progress" | grep -qx 11
    [ "$(cut -f4 "$BATS_FILE_TMPDIR/seat$AWAY/verbsh/room-acked")" = 11 ]
}
