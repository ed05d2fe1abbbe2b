#!/usr/bin/env bats
# tests/run's own parts that need no guest (tests/vm/rxe_vm.bats boots them).
load ../helpers

@test "tests/run: an orphaned bats watchdog (a sleep \$BATS_TEST_TIMEOUT of this session whose parent is no bats-exec-test, or a bats-exec-test whose own parent is none) is ended, with that parent; a watchdog of a live test, another sleep, and one of another session are left" {
    local d=$BATS_TEST_TMPDIR
    # (their output away from bats', which an orphan would hold open: what this test is about)
    bash -c 'sleep 7301 & echo $! >"$0/orphan"' "$d" </dev/null >/dev/null 2>&1 3>&-
    setsid bash -c 'sleep 7301 & echo $! >"$0/elsewhere"' "$d" </dev/null >/dev/null 2>&1 3>&-
    bash -c 'exec -a bats-exec-test bash -c "sleep 7301 & echo \$! >$0/kept; wait"' "$d" </dev/null >/dev/null 2>&1 3>&- &
    local parent=$!
    # (a watchdog subshell that outlived its test: a bats-exec-test that init adopted, waiting on its sleep)
    bash -c 'bash -c "exec -a bats-exec-test bash -c \"sleep 7301 & echo \\\$! >$0/orphan2; echo \\\$\\\$ >$0/sub2; wait\"" "$0" &' "$d" </dev/null >/dev/null 2>&1 3>&-
    sleep 7302 </dev/null >/dev/null 2>&1 3>&- &
    local other=$!
    for _ in $(seq 50); do [ -s "$d/orphan" ] && [ -s "$d/kept" ] && [ -s "$d/elsewhere" ] && [ -s "$d/orphan2" ] && [ -s "$d/sub2" ] && break; sleep 0.1; done
    local orphan kept elsewhere orphan2 sub2
    orphan=$(cat "$d/orphan") kept=$(cat "$d/kept") elsewhere=$(cat "$d/elsewhere") orphan2=$(cat "$d/orphan2") sub2=$(cat "$d/sub2")
    # (the adopted subshell's parent is no bats-exec-test; the kept one's is this test's)
    local up; up=$(ps -o ppid= -p "$sub2" | tr -d ' ')
    ! tr '\0' ' ' <"/proc/$up/cmdline" | grep -q bats-exec-test
    BATS_TEST_TIMEOUT=7301 "$ROOT/tests/run" --reap-watchdogs
    # (a zombie is gone too: its parent, init, reaps it when it can)
    running() { local st; st=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) && [ "$st" != Z ]; }
    for _ in $(seq 50); do running "$orphan" || running "$orphan2" || running "$sub2" || break; sleep 0.1; done
    local gone=1 left=0
    running "$orphan" && gone=0
    running "$orphan2" && gone=0
    running "$sub2" && gone=0
    running "$kept" && running "$parent" && running "$other" && running "$elsewhere" && left=1
    kill "$orphan" "$kept" "$other" "$parent" "$elsewhere" "$orphan2" "$sub2" 2>/dev/null || true
    echo "gone $gone left $left"
    [ $gone = 1 ] && [ $left = 1 ]
}
