#!/usr/bin/env bats
# The micro-VM harness itself. Each test boots its own guest (about 5 s).
load ../helpers

vm() { "$ROOT/scripts/rxe-vm" "$@"; }

@test "rxe-vm passes the exit status through (0, 1, 3, 42)" {
    for n in 0 1 3 42; do
        run vm -- sh -c "exit $n"
        [ "$status" -eq "$n" ] || { echo "exit $n came back as $status: $output"; return 1; }
    done
}

@test "rxe-vm passes stdout and stderr through, separately and binary-safe" {
    cd "$BATS_TEST_TMPDIR"
    # Every byte value, then 1 MB of random bytes; the guest reports the hash
    # of what it sent on stderr.
    vm -- sh -c 'f=$(mktemp); { for i in $(seq 0 255); do printf "\\$(printf %o $i)"; done;
                 head -c 1000000 /dev/urandom; } >$f; sha256sum <$f >&2; cat $f' \
        >out.bin 2>err.txt
    [ "$(stat -c %s out.bin)" -eq 1000256 ]
    [ "$(head -c 256 out.bin | od -An -tx1 | tr -d ' \n' | cut -c1-8,505-512)" = 00010203fcfdfeff ]
    [ "$(sha256sum <out.bin)" = "$(cat err.txt)" ]
}

@test "rxe-vm runs the command in the caller's working directory" {
    mkdir -p "$BATS_TEST_TMPDIR/some dir"
    cd "$BATS_TEST_TMPDIR/some dir"
    run vm -- pwd
    [ "$status" -eq 0 ]
    [ "$output" = "$BATS_TEST_TMPDIR/some dir" ]
}

@test "rxe-vm ends a guest that runs too long with exit 124 and says so" {
    run vm --timeout 8 -- sleep 600
    [ "$status" -eq 124 ]
    [[ $output == *"timeout: the guest did not finish within 8s"* ]]
}

@test "rxe-vm stops its guest within seconds when its caller is killed" {
    log=$BATS_TEST_TMPDIR/vm.log
    # The caller: a shell that runs rxe-vm and is then killed with SIGKILL,
    # which leaves rxe-vm itself running (as after a killed test run).
    bash -c '"$0" --timeout 300 -- sleep 297 >"$1" 2>&1' "$ROOT/scripts/rxe-vm" "$log" &
    caller=$!
    for _ in $(seq 100); do pgrep -f -- "-- sleep 297" >/dev/null && break; sleep 0.1; done
    sleep 3
    kill -9 "$caller"
    wait "$caller" || true
    gone=0
    for i in $(seq 30); do
        pgrep -f -- "--timeout 300 -- sleep 297" >/dev/null || { gone=1; break; }
        sleep 1
    done
    cat "$log"
    [ "$gone" = 1 ]
    [ "$i" -le 15 ]
    grep -q "the caller (pid $caller) is gone: stopping the guest" "$log"
}

@test "rxe-vm stopped by a signal to its process group (timeout(1), Ctrl-C) stops its guest too" {
    # rxe-vm leads a group of its own, as under timeout(1) or at a terminal
    # (and is stopped once its guest is quiet, so that no write to a closed
    # pipe ends qemu by chance)
    out=$BATS_TEST_TMPDIR/out
    setsid "$ROOT/scripts/rxe-vm" --timeout 293 -- sh -c 'echo ready; sleep 290' >"$out" 2>&1 &
    leader=$!
    for _ in $(seq 600); do grep -q ready "$out" && break; sleep 0.1; done
    grep -q ready "$out"
    sleep 1
    pgrep -f -- "-k 5 293 qemu-system" >/dev/null   # the guest is up
    kill -TERM -- "-$leader"
    wait "$leader" || true
    gone=0
    for i in $(seq 30); do
        pgrep -f -- "-k 5 293 qemu-system" >/dev/null || { gone=1; break; }
        sleep 0.5
    done
    [ "$gone" = 1 ]
}

@test "rxe-vm reports a guest kernel panic with the console tail and exit 125" {
    run vm -- sh -c 'echo c >/proc/sysrq-trigger; sleep 60'
    [ "$status" -eq 125 ]
    [[ $output == *"never reported an exit status"* ]]
    [[ $output == *"Kernel panic"* ]]
}

@test "rxe-vm fails clearly when qemu cannot start" {
    mkdir -p "$BATS_TEST_TMPDIR/bin"
    printf '#!/bin/sh\necho "qemu: simulated failure" >&2\nexit 1\n' >"$BATS_TEST_TMPDIR/bin/qemu-system-x86_64"
    chmod +x "$BATS_TEST_TMPDIR/bin/qemu-system-x86_64"
    PATH=$BATS_TEST_TMPDIR/bin:$PATH run vm -- true
    [ "$status" -eq 125 ]
    [[ $output == *"never reported an exit status"* ]]
    [[ $output == *"simulated failure"* ]]
}

@test "make test's device part: a guest that cannot start is a failure that says the device tests did not run, counted in the last line; two at once, each of the three guest jobs says so on its own" {
    ! "$ROOT/scripts/rxe-host" env >/dev/null 2>&1 || skip "this host has an ACTIVE RDMA port: tests/run runs the device files on it, in no guest"
    mkdir -p "$BATS_TEST_TMPDIR/bin"
    printf '#!/bin/sh\necho "qemu: simulated failure" >&2\nexit 1\n' >"$BATS_TEST_TMPDIR/bin/qemu-system-x86_64"
    chmod +x "$BATS_TEST_TMPDIR/bin/qemu-system-x86_64"
    cd "$ROOT"
    # one guest (a single core, or VERBSH_TEST_GUESTS=1)
    VERBSH_TEST_GUESTS=1 PATH=$BATS_TEST_TMPDIR/bin:$PATH run tests/run --device
    echo "$output"
    [ "$status" -eq 1 ]
    [[ $output == *"device tests in the rxe micro-VM (this host has no ACTIVE RDMA port)"* ]]
    [[ $output == *"simulated failure"* ]]
    [ "$(grep -c '^not ok - the rxe micro-VM failed (exit 125): the device tests did not run; see the messages above$' <<<"$output")" -eq 1 ]
    [ "$(grep -c '^not ok' <<<"$output")" -eq 1 ]
    [[ ${lines[-1]} == "0 passed, 1 failed, 0 skipped in "* ]]
    VERBSH_TEST_GUESTS=3 run tests/run --device
    [ "$status" -eq 1 ]
    [[ $output == *"tests/run: VERBSH_TEST_GUESTS wants 1 or 2 (guests at once), got '3'"* ]]
    [[ $output != *"simulated failure"* ]]
    # two guests at once (this host's 2 cores): three guest jobs (the c
    # half under ASan, the lua half's two parts), each failure its own,
    # named by its part and binary, printed whole (its messages, its not ok,
    # its end, in that order)
    [ "$(nproc)" -ge 2 ] || return 0
    PATH=$BATS_TEST_TMPDIR/bin:$PATH run tests/run --device
    echo "$output"
    [ "$status" -eq 1 ]
    [[ $output == *"device tests in two rxe micro-VMs at once (this host has no ACTIVE RDMA port), with siw0 beside rxe0: 3 guest jobs"* ]]
    [ "$(grep -c 'simulated failure' <<<"$output")" -eq 3 ]
    local part
    for part in "c part with build/asan/verbsh" "lua1 part with ./verbsh" "lua2 part with ./verbsh"; do
        [ "$(grep -cxF "not ok - the rxe micro-VM of the device files' $part failed (exit 125): these device tests did not run; see the messages above" <<<"$output")" -eq 1 ]
        [ "$(grep -cxF "# started: a guest: the device files' $part" <<<"$output")" -eq 1 ]
        grep -A1 -xF "not ok - the rxe micro-VM of the device files' $part failed (exit 125): these device tests did not run; see the messages above" <<<"$output" |
            tail -1 | grep -q "^# ended: a guest: the device files' $part after [0-9]* s\$"
        grep -B3 -xF "not ok - the rxe micro-VM of the device files' $part failed (exit 125): these device tests did not run; see the messages above" <<<"$output" |
            head -1 | grep -qx "rxe-vm: the guest never reported an exit status (qemu exit 1): it panicked, hung or failed to boot"
    done
    [ "$(grep -c '^not ok' <<<"$output")" -eq 3 ]
    [[ ${lines[-1]} == "0 passed, 3 failed, 0 skipped in "* ]]
}

@test "rxe-vm exports the device environment and unlimited memlock; under TCG, no address-space randomization until the guest turns it on" {
    run vm -- sh -c 'echo "$RXE_DEV $RXE_NETDEV $RXE_ADDR $RXE_GID_INDEX $(ulimit -l)";
        cat /sys/class/infiniband/$RXE_DEV/ports/1/gid_attrs/types/$RXE_GID_INDEX
        cat /sys/class/infiniband/$RXE_DEV/ports/1/gids/$RXE_GID_INDEX
        libc() { grep -m1 "libc.so.6" /proc/self/maps | cut -d- -f1; }
        echo "aslr $(cat /proc/sys/kernel/randomize_va_space) $(grep -c norandmaps /proc/cmdline) $(grep -m1 "model name" /proc/cpuinfo)"
        a=$(libc); b=$(libc); [ "$a" = "$b" ] && echo "libc same $a" || echo "libc moved $a $b"
        sysctl -q kernel.randomize_va_space=2
        a=$(libc); b=$(libc); [ "$a" = "$b" ] && echo "libc same $a" || echo "libc moved"'
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "rxe0 dummy0 192.0.2.1 ${lines[0]##* 192.0.2.1 }" ]
    [[ ${lines[0]} == *" unlimited" ]]
    [ "${lines[1]}" = "RoCE v2" ]
    [ "${lines[2]}" = "0000:0000:0000:0000:0000:ffff:c000:0201" ]
    # TCG's CPU (qemu64) boots with norandmaps, KVM's (the host's) without
    if [[ ${lines[3]} == *"QEMU Virtual CPU"* ]]; then
        [[ ${lines[3]} == "aslr 0 1 model name"* ]]
        [[ ${lines[4]} =~ ^libc\ same\ [0-9a-f]{12}$ ]]
    else
        [[ ${lines[3]} == "aslr 2 0 model name"* ]]
        [[ ${lines[4]} == "libc moved"* ]]
    fi
    [ "${lines[5]}" = "libc moved" ]
    [ "${#lines[@]}" -eq 6 ]
}

@test "rxe-vm with no command gives an interactive shell on a real tty" {
    cd "$ROOT"
    # a HOME of its own: the guest's login shell reads $HOME's dotfiles, and
    # this host's (pyenv init) take 40 s under TCG
    HOME=$BATS_TEST_TMPDIR run expect -c '
        set timeout 60
        spawn scripts/rxe-vm
        expect -re {[#$] $}
        send "tty; echo rows=\$((6*7)); exit 7\r"
        expect "rows=42"
        expect eof
        lassign [wait] pid spawnid os_error value
        exit $value'
    [ "$status" -eq 7 ]
    [[ $output == *"/dev/hvc0"* ]]
}

# make run's shell with its input piped in: the guest's console never sees
# the pipe's end, so rxe-vm types Ctrl-D after the input.
@test "rxe-vm --tty with input piped in: each line runs at the prompt, and the shell ends where the input ends" {
    cd "$ROOT"
    run timeout 120 scripts/rxe-vm --tty -- ./verbsh < <(printf 'print(6 * 7 * 1000 + 1)\nprint(verbs.open(os.getenv("RXE_DEV")))\n')
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *42001* ]]
    [[ $output == *"context rxe0"* ]]
    run timeout 120 scripts/rxe-vm --tty -- ./verbsh < <(printf 'print(6 * 7)\nos.exit(3)\n')
    [ "$status" -eq 3 ]
}

@test "rxe-vm --two: rxe0 and rxe1 on a veth pair carry ibv_rc_pingpong" {
    run vm --two -- sh -c '
        echo "$RXE_DEV $RXE_NETDEV $RXE1_DEV $RXE1_NETDEV"
        ibv_rc_pingpong -d rxe0 -g $RXE_GID_INDEX -n 100 >srv.out 2>&1 &
        for i in $(seq 50); do ss -ltn | grep -q :18515 && break; sleep 0.1; done
        ibv_rc_pingpong -d rxe1 -g $RXE1_GID_INDEX -n 100 $RXE_ADDR || exit 1
        wait $! || { cat srv.out; exit 1; }
        cat /sys/class/net/veth0/statistics/tx_packets'
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "rxe0 veth0 rxe1 veth1" ]
    [[ $output == *"100 iters in"* ]]
    # the RDMA traffic really crossed the veth pair
    [ "${lines[-1]}" -ge 200 ]
}
