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
    [ $gone = 1 ]
    [ $left = 1 ]
}

@test "tests/run: each guest job runs its device files with its binary (a stand-in bats names them): c under ASan, lua1 and lua2 with ./verbsh, the oracle once with each; VERBSH_TEST_FULL=1 adds the other binary, never a file twice" {
    [ -x "$ROOT/build/asan/verbsh" ] || skip "no ASan build (make asan): the selection differs without one"
    mkdir -p "$BATS_TEST_TMPDIR/bin"
    printf '#!/bin/bash\nfor a; do case $a in --*) ;; *) echo "$VERBSH ${a##*/}" ;; esac; done\n' >"$BATS_TEST_TMPDIR/bin/bats"
    chmod +x "$BATS_TEST_TMPDIR/bin/bats"
    picks() { PATH="$BATS_TEST_TMPDIR/bin:$PATH" "$ROOT/tests/run" --in-guest "$@" | grep -v '^#' | sort; }
    local all lua1 lua2 c
    all=$(cd "$ROOT/tests/device" && ls *.bats)
    lua2=$'bench.bats\nexport.bats\nrepl.bats'
    lua1=$'interop.bats\nlesson_wrong.bats\nlessons.bats\nrecorder.bats'
    c=$(grep -vxF -e bench.bats -e export.bats -e repl.bats -e interop.bats -e lesson_wrong.bats -e lessons.bats -e recorder.bats <<<"$all")
    grep -qx oracle.bats <<<"$c"
    [ "$(wc -l <<<"$c")" -ge 20 ]
    with() { sed "s|^|$1 |" | sort; }
    [ "$(picks c build/asan/verbsh)" = "$(with build/asan/verbsh <<<"$c")" ]
    [ "$(picks lua2 ./verbsh)" = "$(with ./verbsh <<<"$lua2")" ]
    [ "$(picks lua1 ./verbsh)" = "$(printf '%s\noracle.bats\n' "$lua1" | with ./verbsh)" ]
    [ -z "$(picks c ./verbsh)" ]              # (the c half's job is ASan's alone)
    [ -z "$(picks lua1 build/asan/verbsh)" ]
    # one guest for all (VERBSH_TEST_GUESTS=1): each file once per binary it is for, the oracle with both
    [ "$(picks)" = "$( { with ./verbsh <<<"$lua1"$'\n'"$lua2"$'\noracle.bats'; with build/asan/verbsh <<<"$c"; } | sort)" ]
    # the host part: every file with ./verbsh, and under ASan all but host_asan_skip's six
    local host host_skip
    host=$(cd "$ROOT/tests/host" && ls *.bats)
    host_skip=$'lesson.bats\nmutants.bats\noob.bats\npretty.bats\nprogress.bats\nroom.bats'
    hostpicks() { PATH="$BATS_TEST_TMPDIR/bin:$PATH" "$ROOT/tests/run" --host | grep '\.bats$' | sort; }
    [ "$(hostpicks)" = "$( { with ./verbsh <<<"$host"; grep -vxF -f <(echo "$host_skip") <<<"$host" | with build/asan/verbsh; } | sort)" ]
    # every file with every binary, the oracle in c under ASan and in lua1 with ./verbsh only
    export VERBSH_TEST_FULL=1
    [ "$(hostpicks)" = "$( { with ./verbsh <<<"$host"; with build/asan/verbsh <<<"$host"; } | sort)" ]
    [ "$(picks c ./verbsh)" = "$(grep -vx oracle.bats <<<"$c" | with ./verbsh)" ]
    [ "$(picks lua1 build/asan/verbsh)" = "$(with build/asan/verbsh <<<"$lua1")" ]
    [ "$(picks lua2 build/asan/verbsh)" = "$(with build/asan/verbsh <<<"$lua2")" ]
    [ "$(picks)" = "$( { with ./verbsh <<<"$all"; with build/asan/verbsh <<<"$all"; } | sort)" ]
}
