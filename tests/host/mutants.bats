#!/usr/bin/env bats
# The mutation campaign's own inputs stay true to the code: every mutant of
# tests/mutants/ still applies to the code it names and changes it, every C
# file and Lua policy file has mutants, and the boundary list of
# tests/lua/bounds_list.lua names every field of the marshaller with a maximum.
load ../helpers

@test "mutants: each applies once to the code it names and changes it; there are at least 40" {
    cd "$ROOT"
    run lua5.4 tests/mutants/mutant.lua check . tests/mutants/*.mut
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[-1]} =~ ^([0-9]+)\ of\ ([0-9]+)\ mutants\ apply$ ]]
    [ "${BASH_REMATCH[1]}" -ge 40 ]
}

@test "mutants: every src/*.c file and every Lua file with policy code has one" {
    cd "$ROOT"
    missing=()
    for f in src/*.c lua/*.lua; do
        case $f in lua/version.lua) continue ;; esac   # a version string: nothing to mutate
        grep -qxF "file: $f" tests/mutants/*.mut || missing+=("$f")
    done
    echo "no mutant for: ${missing[*]}"
    [ ${#missing[@]} -eq 0 ]
}

@test "mutants: the checker refuses a mutant whose code text is gone, repeated, or unchanged" {
    cd "$ROOT"
    m=$BATS_TEST_TMPDIR
    printf '# x\nfile: src/cq.c\nfrom: no such code\nto: x\nhost: shell.bats\n' >"$m/gone.mut"
    printf '# x\nfile: src/cq.c\nfrom: return 1;\nto: return 0;\nhost: shell.bats\n' >"$m/twice.mut"
    printf '# x\nfile: src/cq.c\nfrom: WC_BATCH 32\nto: WC_BATCH 32\nhost: shell.bats\n' >"$m/same.mut"
    printf '# x\nfile: src/cq.c\nfrom: WC_BATCH 32\nto: WC_BATCH 31\n' >"$m/notests.mut"
    run lua5.4 tests/mutants/mutant.lua check . "$m/gone.mut" "$m/twice.mut" "$m/same.mut" "$m/notests.mut"
    echo "$output"
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "FAIL $m/gone.mut: src/cq.c no longer holds the 'from' text" ]
    [ "${lines[1]}" = "FAIL $m/twice.mut: src/cq.c holds the 'from' text more than once" ]
    [ "${lines[2]}" = "FAIL $m/same.mut: 'to' is the same as 'from'" ]
    [ "${lines[3]}" = "FAIL $m/notests.mut: no host: or device: tests to kill it" ]
    [ "${lines[4]}" = "0 of 4 mutants apply" ]
}

@test "bounds: tests/lua/bounds_list.lua names every vfield with a .max, with that maximum" {
    cd "$ROOT"
    run lua5.4 tests/lua/bounds_check.lua src/*.c
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[0]} =~ ^[0-9]+\ fields\ with\ a\ maximum$ ]]
    [ "${#lines[@]}" -eq 1 ]
    [ "${lines[0]%% *}" -ge 18 ]
}

# A made-up coverage map: which file ran which line, and which lines hold code.
@test "random mutants: coverage selects the files that ran the mutant's lines, none for code no file runs, the source file's files for a line without code, the files naming a script" {
    local m=$BATS_TEST_TMPDIR/cov
    mkdir -p "$m/lines"
    printf '%s\n' src/wc.c:10 lua/help.lua:5 >"$m/lines/host.a.bats"
    printf '%s\n' src/wc.c:30 >"$m/lines/host.c.bats"
    printf '%s\n' src/wc.c:10 src/wc.c:12 >"$m/lines/device.b.bats"
    printf '%s\n' src/wc.c:10 src/wc.c:11 src/wc.c:12 src/wc.c:30 lua/help.lua:5 >"$m/code"
    (cd "$ROOT" && tests/mutate-coverage stamp) >"$m/stamp"
    sel() {   # sel FILE LINE FROM: the selection for a mutant there
        printf 'file: %s\nline: %s\nfrom: %s\n' "$1" "$2" "$3" >"$m/x.rmut"
        MUTATE_COV=$m "$ROOT/tests/mutate-coverage" select "$m/x.rmut" | paste -sd'|'
    }
    [ "$(sel src/wc.c 10 '<')" = "host a.bats|device b.bats" ]       # ran by two files
    [ "$(sel src/wc.c 11 '<')" = "none" ]                            # code no file runs
    [ "$(sel src/wc.c 12 '<')" = "host |device b.bats" ]             # ran on the device only
    [ "$(sel src/wc.c 11 'a\nb')" = "host |device b.bats" ]          # two lines: 11 and 12
    [ "$(sel src/wc.c 13 '<')" = "host a.bats c.bats|device b.bats" ]   # no code: wc.c's files
    [ "$(sel lua/help.lua 5 'x')" = "host a.bats|device " ]
    [ "$(sel lua/help.lua 6 'x')" = "host a.bats|device " ]
    [ "$(sel lua/pretty.lua 6 'x')" = "none" ]                       # no file runs any of it
    [ "$(sel scripts/rxe-host 3 x)" = "host doctor.bats mutants.bats|device " ]   # the files naming it (this one too)
}
