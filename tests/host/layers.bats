#!/usr/bin/env bats
# src/ in one-way layers, checked where the compiler cannot: at link level,
# with nm on the objects of the binary under test (issue 33). The foundation
# (the object layer, the marshaller, the error layer, enum names, "did you
# mean", warnings, verbs.fields and the calls into Lua) names no symbol that
# a class file or the module entry defines; main.c uses repl.c, never the
# reverse.
load ../helpers

FOUNDATION="error object marshal enums suggest warn fields policy"
# below the foundation too: the libraries opened on first use, Ctrl-C, the embedded Lua
LIBS="lazylib pcap_lazy zlib_lazy rdmacm_lazy interrupt embedded embedded_lua"

# The objects of $VERBSH: build/asan/obj for build/asan/verbsh, else build/obj.
objdir() {
    local d
    d=$(dirname "$VERBSH")/obj
    [ -d "$d" ] || d=$ROOT/build/obj
    [ -f "$d/object.o" ] || { echo "no objects in $d: build first (make all asan)" >&2; return 1; }
    echo "$d"
}

# refs DIR "FROM..." "TO...": "from -> symbol (to)" for each undefined
# symbol of a FROM object that a TO object defines (one nm for each side).
refs() {
    local dir=$1 f from=() to=()
    for f in $2; do from+=("$dir/$f.o"); done
    for f in $3; do [ -f "$dir/$f.o" ] && to+=("$dir/$f.o"); done
    [ ${#to[@]} -gt 0 ] || return 0
    nm -A --defined-only -g "${to[@]}" | awk '{ n = split($1, p, "/"); sub(/\.o:.*/, "", p[n]); print $NF, p[n] }' |
        sort -u >"$BATS_TEST_TMPDIR/defs"
    nm -A -u "${from[@]}" | awk '{ n = split($1, p, "/"); sub(/\.o:.*/, "", p[n]); print $NF, p[n] }' | sort -u |
        join - "$BATS_TEST_TMPDIR/defs" | awk '{ print $2 " -> " $1 " (" $3 ")" }'
}

@test "layers: the foundation's objects reference nothing a class file or the module entry defines" {
    dir=$(objdir)
    upper=
    for o in "$dir"/*.o; do
        o=$(basename "$o" .o)
        [[ " $FOUNDATION $LIBS main repl " == *" $o "* ]] || upper+=" $o"
    done
    # the classes are there to be found: qp, pd and the module entry lverbs
    [[ "$upper " == *" qp "* && "$upper " == *" pd "* && "$upper " == *" lverbs "* ]]
    # the check sees a reference where there is one: qp.o uses the object layer
    [[ $(refs "$dir" qp "$FOUNDATION") == *"qp -> vobj_new (object)"* ]]
    present= missing=
    for f in $FOUNDATION; do
        if [ -f "$dir/$f.o" ]; then present+=" $f"; else missing+=" $f"; fi
    done
    found=$(refs "$dir" "$present" "$upper")
    echo "$found"
    echo "missing:$missing"
    [ -z "$found" ]
    [ -z "$missing" ]
}

@test "layers: main.o uses repl.o, and repl.o nothing of main.o" {
    dir=$(objdir)
    # the check sees the way down: main.c runs the loop and its calls through repl.c
    [[ $(refs "$dir" main repl) == *"main -> shell_repl (repl)"* ]]
    run refs "$dir" repl main
    echo "$output"
    [ "$status" -eq 0 ]
    [ -z "$output" ]
}

@test "layers: the foundation's sources include the core header alone, so a class there fails to compile" {
    cd "$ROOT/src"
    for f in $FOUNDATION; do
        grep -q '^#include "core.h"' "$f.c" || { echo "$f.c does not include core.h"; return 1; }
        if grep -n '^#include "\(verbsh\|prepared\|wire\|shell\)\.h"' "$f.c"; then return 1; fi
    done
    # core.h itself names no class descriptor
    run grep -n 'vc_\(context\|pd\|mr\|cq\|qp\)\b' core.h
    [ "$status" -eq 1 ]
}

@test "layers: post.c uses wr.c (the prepared WRs) and wr_read.c (reading WR tables), never the reverse" {
    dir=$(objdir)
    # the ways down are seen
    [[ $(refs "$dir" post wr) == *"post -> prepared_post_send (wr)"* ]]
    [[ $(refs "$dir" wr wr_read) == *"wr -> wrs_read (wr_read)"* ]]
    [[ $(refs "$dir" qp_ex wr_read) == *"qp_ex -> sge_list_read (wr_read)"* ]]
    up=$(refs "$dir" wr post; refs "$dir" wr_read "post wr qp_ex")
    echo "$up"
    [ -z "$up" ]
}

@test "layers: no Lua module is over 800 lines (export_c.lua was 1,642: writer, verbs, rdma_cm and C runtime are files of their own)" {
    cd "$ROOT/lua"
    long=$(wc -l *.lua | awk '$2 != "total" && $1 > 800')
    echo "$long"
    [ -z "$long" ]
    # the count is real: the longest module is over half the limit
    [ "$(wc -l *.lua | awk '$2 != "total" && $1 > 400' | wc -l)" -gt 0 ]
}

# globals_set FILE: the globals FILE's code assigns (luac's SETTABUP _ENV)
globals_set() { luac5.4 -p -l -l "$1" | sed -n 's/.*SETTABUP.*_ENV "\([^"]*\)".*/\1/p' | sort -u | tr '\n' ' '; }

# (that no module of lua/ sets a global is globals.bats')
@test "layers: a lesson assigns only the globals its setup makes for the learner (a lost 'local' is a leak)" {
    local f got
    declare -A want=(
        [03-cq.lua]="mr_a mr_b pd qp_a qp_b "
        [04-rc-states.lua]="cq pd "
        [10-rc-errors.lua]="mr_w "
        [11-srq.lua]="qp_a1 qp_a2 "
        [15-post-send-ex.lua]="cq mr_a mr_b pd qp_a qp_b "
        [16-events.lua]="ch cq exchange_round idle_round mr_a mr_b pd qp_a qp_b "
    )
    local n=0
    for f in "$ROOT"/lessons/*.lua; do
        got=$(globals_set "$f")
        [ "$got" = "${want[${f##*/}]:-}" ] || { echo "${f##*/} assigns '$got', not '${want[${f##*/}]:-}'"; return 1; }
        n=$((n + 1))
    done
    [ "$n" -ge 22 ]
}
