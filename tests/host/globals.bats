#!/usr/bin/env bats
# Globals, read from the bytecode (luac -l: GETTABUP/SETTABUP on _ENV): a
# local declaration that goes missing turns its name into a global, which
# works until something else has that global (or verbs.strict is on).
load ../helpers

# Lua 5.4's own globals (lua.c's and linit.c's), verbs, and the script's arg.
STD="_G _VERSION arg assert collectgarbage coroutine debug dofile error getmetatable io ipairs load loadfile math next
os package pairs pcall print rawequal rawget rawlen rawset require select setmetatable string table tonumber tostring
type utf8 verbs warn xpcall"

# globals FILE: "GET name" or "SET name", one a line, each once
globals() { luac5.4 -p -l "$1" | sed -n 's/.*\(GET\|SET\)TABUP.*_ENV "\([A-Za-z_0-9]*\)".*/\1 \2/p' | sort -u; }

@test "globals: the list of a chunk's globals is read from its bytecode (a read and a write of one, a local and a field are not)" {
    printf 'local k = require "x"\nlocal t = {}\nt.f = k\nnew_global = print(t, undeclared)\n' >"$BATS_TEST_TMPDIR/c.lua"
    run globals "$BATS_TEST_TMPDIR/c.lua"
    [ "$output" = $'GET print\nGET require\nGET undeclared\nSET new_global' ]
}

@test "globals: each module of lua/ reads only Lua's own globals, verbs and arg, and sets none" {
    bad=()
    for f in "$ROOT"/lua/*.lua; do
        while read -r how name; do
            [ "$how" = GET ] && [[ " ${STD//$'\n'/ } " == *" $name "* ]] && continue
            bad+=("${f#"$ROOT"/}: $how $name")
        done < <(globals "$f")
    done
    printf '%s\n' "${bad[@]}"
    [ ${#bad[@]} -eq 0 ]
}

@test "globals: no lesson reads or sets a global whose name starts with a capital (the kit K and a lesson's constants are locals; the student's names are lower case)" {
    bad=()
    for f in "$ROOT"/lessons/*.lua; do
        while read -r how name; do
            [[ $name == [A-Z]* ]] && bad+=("${f#"$ROOT"/}: $how $name")
        done < <(globals "$f")
    done
    printf '%s\n' "${bad[@]}"
    [ ${#bad[@]} -eq 0 ]
}
