#!/usr/bin/env bats
# tests/run's own parts that need no guest (tests/vm/rxe_vm.bats boots them).
load ../helpers

@test "tests/run: an orphaned bats watchdog (sleep \$BATS_TEST_TIMEOUT of this session whose parent is no bats-exec-test) is ended; a watchdog whose bats-exec-test lives, another sleep, and one of another session are left" {
    local d=$BATS_TEST_TMPDIR
    # (their output away from bats', which an orphan would hold open: what this test is about)
    bash -c 'sleep 7301 & echo $! >"$0/orphan"' "$d" </dev/null >/dev/null 2>&1 3>&-
    setsid bash -c 'sleep 7301 & echo $! >"$0/elsewhere"' "$d" </dev/null >/dev/null 2>&1 3>&-
    bash -c 'exec -a bats-exec-test bash -c "sleep 7301 & echo \$! >$0/kept; wait"' "$d" </dev/null >/dev/null 2>&1 3>&- &
    local parent=$!
    sleep 7302 </dev/null >/dev/null 2>&1 3>&- &
    local other=$!
    for _ in $(seq 50); do [ -s "$d/orphan" ] && [ -s "$d/kept" ] && [ -s "$d/elsewhere" ] && break; sleep 0.1; done
    local orphan kept elsewhere
    orphan=$(cat "$d/orphan") kept=$(cat "$d/kept") elsewhere=$(cat "$d/elsewhere")
    BATS_TEST_TIMEOUT=7301 "$ROOT/tests/run" --reap-watchdogs
    for _ in $(seq 50); do kill -0 "$orphan" 2>/dev/null || break; sleep 0.1; done
    local gone=1 left=0
    kill -0 "$orphan" 2>/dev/null && gone=0
    kill -0 "$kept" 2>/dev/null && kill -0 "$other" 2>/dev/null && kill -0 "$elsewhere" 2>/dev/null && left=1
    kill "$orphan" "$kept" "$other" "$parent" "$elsewhere" 2>/dev/null || true
    [ $gone = 1 ] && [ $left = 1 ]
}
