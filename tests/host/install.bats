#!/usr/bin/env bats
# make install / uninstall into a staging tree, and the installed files used
# from a copy elsewhere with the checkout out of reach: lessons found with no
# environment variable, stock lua5.4 loading verbs.so, the man page and the
# bash completion. It installs ./verbsh's build, so it runs once, with it.
load ../helpers

setup_file() {
    [ "$(realpath "$VERBSH")" = "$ROOT/verbsh" ] || return 0
    export STAGE=$BATS_FILE_TMPDIR/stage ELSEWHERE=$BATS_FILE_TMPDIR/elsewhere
    make -s -C "$ROOT" install DESTDIR="$STAGE" PREFIX=/usr >"$BATS_FILE_TMPDIR/install.log" 2>&1 ||
        { cat "$BATS_FILE_TMPDIR/install.log" >&3; return 1; }
    # The copy is what a user runs: nothing in it points back at the checkout.
    mkdir -p "$ELSEWHERE" && cp -a "$STAGE/usr" "$ELSEWHERE/"
}

setup() {
    [ "$(realpath "$VERBSH")" = "$ROOT/verbsh" ] || skip "installs the ./verbsh build; run once, with ./verbsh"
    CMOD=$(pkg-config --variable=INSTALL_CMOD lua5.4)
    cd /
}

# Runs with the installed tree only: no checkout on PATH, no VERBSH_LESSONS.
installed() { env -u VERBSH_LESSONS PATH="$ELSEWHERE/usr/bin:/usr/bin:/bin" "$@"; }

@test "make install puts every file in place, with the right modes" {
    for f in bin/verbsh bin/verbsh-vm libexec/verbsh/rxe-vm-guest libexec/verbsh/deps; do
        [ -x "$STAGE/usr/$f" ] || { echo "missing or not executable: $f"; return 1; }
    done
    for f in share/man/man1/verbsh.1 share/bash-completion/completions/verbsh \
             share/verbsh/lessons/01-devices.lua share/verbsh/lessons/16-events.lua \
             share/verbsh/examples/pair_partner.lua share/verbsh/examples/cm_partner.lua; do
        [ -f "$STAGE/usr/$f" ] || { echo "missing: $f"; return 1; }
    done
    [ -f "$STAGE$CMOD/verbs.so" ]
    [ "$(stat -c %a "$STAGE$CMOD/verbs.so")" = 644 ]
    [ "$(ls "$STAGE/usr/share/verbsh/lessons" | wc -l)" = "$(ls "$ROOT"/lessons/*.lua | wc -l)" ]
}

@test "PREFIX=/usr/local puts verbs.so in /usr/local/lib/lua/5.4, first in lua5.4's cpath" {
    make -s -C "$ROOT" install DESTDIR="$BATS_TEST_TMPDIR/s" PREFIX=/usr/local >/dev/null
    [ -f "$BATS_TEST_TMPDIR/s/usr/local/lib/lua/5.4/verbs.so" ]
    [[ $(lua5.4 -e 'print(package.cpath)') == /usr/local/lib/lua/5.4/?.so\;* ]]
}

@test "make uninstall removes everything make install put there" {
    local s=$BATS_TEST_TMPDIR/s
    make -s -C "$ROOT" install DESTDIR="$s" PREFIX=/usr >/dev/null
    make -s -C "$ROOT" uninstall DESTDIR="$s" PREFIX=/usr >/dev/null
    run find "$s" -type f
    [ "$output" = "" ]
}

@test "the installed verbsh finds its lessons under ../share/verbsh with no environment variable" {
    run installed verbsh -e 'print(require("verbs.lesson").dir())'
    [ "$status" -eq 0 ]
    [ "$output" = "$ELSEWHERE/usr/bin/../share/verbsh/lessons" ]
    run installed verbsh --lesson
    [ "$status" -eq 0 ]
    [[ $output == *" 1  devices "* && $output == *"16  events "* ]]
}

@test "the installed verbsh runs lesson 1 --auto: on this host without RDMA it cannot run (77), with the fix" {
    [ ! -d /sys/class/infiniband ] || skip "this host has RDMA; the micro-VM test runs the lesson on rxe"
    run installed verbsh --lesson 1 --auto
    [ "$status" -eq 77 ]
    [[ $output == *"This lesson cannot run here: no RDMA device"* ]]
    [[ $output == *"SKIP devices: no RDMA device"* ]]
    [[ $output == *"this kernel has no RDMA support"* ]]
    # The fix names the micro-VM as installed, not the checkout's script.
    [[ $output == *'creates rxe0: `verbsh-vm --tty -- verbsh`; or boot a kernel'* ]]
    run installed verbsh --doctor
    [[ $output == *'creates rxe0: `verbsh-vm --tty -- verbsh`; or boot a kernel'* ]]
    [[ $output == *"ok    vm        qemu is installed: verbsh-vm can run the micro-VM"* ]]
}

@test "the installed verbsh runs an installed example, which loads its installed helper module" {
    [ ! -d /sys/class/infiniband ] || skip "this host has RDMA; the micro-VM test runs an example on rxe"
    run installed verbsh "$ELSEWHERE/usr/share/verbsh/examples/rc_pingpong.lua" -g 1 127.0.0.1
    [ "$status" -eq 1 ]
    [[ $output == "ibv_get_device_list failed: ENOSYS"*"case: no_rdma_kernel"* ]]
    run installed verbsh "$ELSEWHERE/usr/share/verbsh/examples/rc_pingpong.lua" -x
    [ "$status" -eq 1 ]
    [[ $output == "usage: rc_pingpong.lua "*"/share/verbsh/examples/pingpong.lua:"* ]]
}

@test "stock lua5.4 requires the installed verbs.so (LUA_CPATH), the installed one, and its doctor runs" {
    run installed env LUA_CPATH="$ELSEWHERE$CMOD/?.so" lua5.4 -e '
        local v = require "verbs"
        print(package.searchpath("verbs", package.cpath), type(v.open), #v.devices() >= 0)
        local r = require("verbs.doctor").run()
        print(r.checks[1].name, r.checks[1].status)'
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "$ELSEWHERE$CMOD/verbs.so	function	true" ]
    [ "${lines[1]}" = "versions	ok" ]
}

@test "the man page renders without a warning, and names every option and environment variable" {
    local page=$STAGE/usr/share/man/man1/verbsh.1
    run groff -man -ww -z "$page"
    [ "$status" -eq 0 ]
    [ "$output" = "" ]
    run env MANWIDTH=80 man --warnings -l "$page"
    [ "$status" -eq 0 ]
    [[ $output != *"warning"* ]]
    local text=$output opt var
    for opt in $("$VERBSH" --help | grep -oE '^  (-[a-z-]+)(, (--[a-z]+))?' | grep -oE -- '-[a-z-]+'); do
        [[ $text == *"$opt"* ]] || { echo "the man page lacks $opt"; return 1; }
    done
    for var in $(grep -rhoE 'getenv\(?"[A-Z_]+"' "$ROOT/src" "$ROOT/lua" "$ROOT/lessons" "$ROOT/examples" |
                 grep -oE '[A-Z_]{4,}' | grep -v '^HOME$' | sort -u); do
        [[ $text == *"$var"* ]] || { echo "the man page lacks $var"; return 1; }
    done
    [[ $text == *"--doctor"*"EXAMPLES"* && $text == *"FILES"* && $text == *"ENVIRONMENT"* ]]
}

@test "bash completion: options, lesson names after --lesson, --auto after a name, --json after --doctor and --progress; verbsh-vm's options" {
    local comp=$STAGE/usr/share/bash-completion/completions/verbsh
    # (bash -i says on stderr that it has no job control here.)
    local out
    out=$(installed bash --norc --noprofile -i -c "
        source '$comp'
        complete -p verbsh
        c() { COMP_WORDS=(\"\$@\"); COMP_CWORD=\$((\$# - 1)); COMPREPLY=(); _verbsh; echo \"\${COMPREPLY[*]}\"; }
        v() { COMP_WORDS=(\"\$@\"); COMP_CWORD=\$((\$# - 1)); COMPREPLY=(); _verbsh_vm; echo \"\${COMPREPLY[*]}\"; }
        c verbsh --do
        c verbsh --lesson rc
        c verbsh --lesson ''
        c verbsh --lesson rc-send --a
        c verbsh --doctor --j
        c verbsh --rec
        c verbsh --progress --
        c verbsh --pro
        v verbsh-vm --no
        v verbsh-vm --seat 3 -- verbs
        complete -p verbsh-vm" 2>/dev/null)
    mapfile -t lines <<<"$out"
    [ "${lines[0]}" = "complete -o filenames -F _verbsh verbsh" ]
    [ "${lines[1]}" = "--doctor" ]
    [ "${lines[2]}" = "rc-states rc-send rc-errors" ]
    [[ ${lines[3]} == "all devices pd-mr cq "*" events on-the-wire memory-windows uc multicast rdma-verbs "*"iwarp" ]]
    [ "${lines[4]}" = "--auto" ]
    [ "${lines[5]}" = "--json" ]
    [ "${lines[6]}" = "--record" ]
    [ "${lines[7]}" = "--json" ]
    [ "${lines[8]}" = "--progress" ]
    [ "${lines[9]}" = "--no-share" ]
    [[ " ${lines[10]} " == *" verbsh "* ]]
    [ "${lines[11]}" = "complete -F _verbsh_vm verbsh-vm" ]
    [ "$(readlink "$STAGE/usr/share/bash-completion/completions/verbsh-vm")" = verbsh ]
}
