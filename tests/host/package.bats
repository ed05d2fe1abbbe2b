#!/usr/bin/env bats
# scripts/package (make package) with its tools stubbed: dpkg-buildpackage,
# lintian, luarocks and lua5.4 are small scripts on PATH that log how they
# were called, so the script's own steps are checked in seconds, on a copy
# of the tree (a git repository of scripts/package and debian/changelog).
# The real build, lintian and the install in the micro-VM: make package.
load ../helpers

setup() {
    W=$BATS_TEST_TMPDIR/tree S=$BATS_TEST_TMPDIR/stubs LOG=$BATS_TEST_TMPDIR/calls
    mkdir -p "$W/scripts" "$W/debian" "$S"
    cp "$ROOT/scripts/package" "$W/scripts/"
    cp "$ROOT/debian/changelog" "$W/debian/"
    echo "rockspec" >"$W/verbs-scm-1.rockspec"
    git -C "$W" init -q && git -C "$W" add -A
    VER=$(cd "$W" && dpkg-parsechangelog -S Version)
    # dpkg-buildpackage: the .deb and .changes beside the source directory,
    # or a failure with a log when PACKAGE_STUB_FAIL is set
    cat >"$S/dpkg-buildpackage" <<'SH'
#!/bin/sh
echo "dpkg-buildpackage in $(basename "$PWD") with $*" >>"$LOG"
if [ -n "${PACKAGE_STUB_FAIL:-}" ]; then echo "dh_auto_build: error: make -j2 returned exit code 2"; exit 2; fi
v=${PWD##*/verbsh-}
touch "../verbsh_${v}_amd64.deb" "../verbsh_${v}_amd64.changes"
SH
    cat >"$S/lintian" <<'SH'
#!/bin/sh
echo "lintian $*" >>"$LOG"
for last; do :; done
[ -f "$last" ] || { echo "lintian: $last: no such file" >&2; exit 2; }
SH
    cat >"$S/luarocks" <<'SH'
#!/bin/sh
echo "luarocks in $(basename "$PWD") with $*" >>"$LOG"
while [ "$1" != --tree ]; do shift; done
mkdir -p "$2/lib/lua/5.4" && touch "$2/lib/lua/5.4/verbs.so"
SH
    cat >"$S/lua5.4" <<'SH'
#!/bin/sh
echo "lua5.4 with LUA_CPATH=$LUA_CPATH" >>"$LOG"
SH
    chmod +x "$S"/*
    export LOG PACKAGE_NO_VM=1 PATH=$S:$PATH
}

@test "package: dpkg-buildpackage runs in the clean copy, lintian checks its .changes, the .deb lands in build/package; then the rock" {
    run "$W/scripts/package"
    echo "$output"
    [ "$status" -eq 0 ]
    cat "$LOG"
    [ "$(sed -n 1p "$LOG")" = "dpkg-buildpackage in verbsh-$VER with -us -uc -b -j2" ]
    [ "$(sed -n 2p "$LOG")" = "lintian --fail-on error,warning build/package/deb/verbsh_${VER}_amd64.changes" ]
    [ "$(sed -n 3p "$LOG")" = "luarocks in verbsh-$VER with --lua-version 5.4 --tree $W/build/package/rocks make verbs-scm-1.rockspec" ]
    [ "$(sed -n 4p "$LOG")" = "lua5.4 with LUA_CPATH=$W/build/package/rocks/lib/lua/5.4/?.so" ]
    [ -f "$W/build/package/verbsh_${VER}_amd64.deb" ]
    # the copy holds the tracked files
    [ -f "$W/build/package/deb/verbsh-$VER/scripts/package" ]
    has_line "package: build/package/verbsh_${VER}_amd64.deb: lintian reports no errors and no warnings"
    has_line "package: luarocks installed $W/build/package/rocks/lib/lua/5.4/verbs.so; lua5.4 requires it"
}

@test "package: a failed dpkg-buildpackage stops it with status 1, the log's tail and where the log is; nothing after it runs" {
    PACKAGE_STUB_FAIL=1 run "$W/scripts/package"
    echo "$output"
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "dh_auto_build: error: make -j2 returned exit code 2" ]
    [ "${lines[1]}" = "package: dpkg-buildpackage failed (log: build/package/deb/build.log)" ]
    [ "${#lines[@]}" -eq 2 ]
    [ "$(cat "$LOG")" = "dpkg-buildpackage in verbsh-$VER with -us -uc -b -j2" ]
}
