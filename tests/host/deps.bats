#!/usr/bin/env bats
# scripts/deps, which `make run` and `make test` call first: what it installs
# as root, what it prints otherwise, with dpkg-query, apt-get and id stood in
# for (PATH), so that nothing is installed and every answer is known.
load ../helpers

setup() {
    stub=$BATS_TEST_TMPDIR/bin
    mkdir -p "$stub"
    # dpkg-query -W -f=... PKG: "installed" unless PKG is in $STUB_MISSING
    cat >"$stub/dpkg-query" <<'EOF'
#!/bin/sh
for p; do :; done
case " $STUB_MISSING " in *" $p "*) echo not-installed ;; *) echo installed ;; esac
EOF
    # apt-get: each call's arguments on a line of $STUB_APT_LOG; an install
    # fails the first time when STUB_APT_FAIL_ONCE is set
    cat >"$stub/apt-get" <<'EOF'
#!/bin/sh
echo "$*" >>"$STUB_APT_LOG"
if [ -n "${STUB_APT_FAIL_ONCE:-}" ] && [ "$1" = install ] && [ ! -e "$STUB_APT_LOG.failed" ]; then
    : >"$STUB_APT_LOG.failed"; exit 100
fi
exit 0
EOF
    printf '#!/bin/sh\necho "${STUB_UID:-0}"\n' >"$stub/id"
    chmod +x "$stub"/*
    export STUB_APT_LOG=$BATS_TEST_TMPDIR/apt.log
}
deps() { PATH=$stub:$PATH "$ROOT/scripts/deps" "$@"; }

@test "deps: with every package installed it says nothing, calls no apt-get and exits 0, whatever \$missing the environment holds" {
    STUB_MISSING= missing=bogus-package run deps build test
    [ "$status" -eq 0 ]
    [ "$output" = "" ]
    [ ! -e "$STUB_APT_LOG" ]
}

@test "deps: as root the missing packages are installed with one apt-get, named once each in the order of the lists; a failed install refreshes the lists and tries again" {
    # make is in build's list and siw's: named once
    STUB_MISSING="lua-socket make libpcap-dev" run deps build siw
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "deps: installing make lua-socket libpcap-dev" ]
    [ "$(cat "$STUB_APT_LOG")" = "install -y -qq --no-install-recommends make lua-socket libpcap-dev" ]
    rm -f "$STUB_APT_LOG"
    STUB_MISSING="bats" STUB_APT_FAIL_ONCE=1 run deps test
    [ "$status" -eq 0 ]
    [ "$(cat "$STUB_APT_LOG")" = $'install -y -qq --no-install-recommends bats\nupdate -qq\ninstall -y -qq --no-install-recommends bats' ]
}

@test "deps: not root, the missing packages are named with the exact apt-get command, exit 1, nothing installed" {
    STUB_UID=1000 STUB_MISSING="qemu-system-x86 xz-utils" run deps vm
    echo "$output"
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "deps: missing Debian packages: qemu-system-x86 xz-utils" ]
    [ "${lines[1]}" = "deps: install them with:  sudo apt-get install -y --no-install-recommends qemu-system-x86 xz-utils" ]
    [ "${#lines[@]}" -eq 2 ]
    [ ! -e "$STUB_APT_LOG" ]
}

@test "deps: an unknown step is a usage error (2) naming the steps; none at all checks nothing" {
    run deps build nosuch
    [ "$status" -eq 2 ]
    [ "$output" = "usage: scripts/deps build|vm|siw|test|bench|package|all" ]
    STUB_MISSING="gcc" run deps
    [ "$status" -eq 0 ]
    [ "$output" = "" ]
}
