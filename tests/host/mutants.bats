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
@test "random mutants: coverage selects the files that ran the mutant's lines, none for code no file runs, the source file's files for a line without code, the files naming a script, and the tests that read its folder as text" {
    local m=$BATS_TEST_TMPDIR/cov
    mkdir -p "$m/lines" "$m/names"
    printf '%s\n' src/wc.c:10 lua/help.lua:5 >"$m/lines/host.a.bats"
    printf '%s\n' src/wc.c:30 >"$m/lines/host.c.bats"
    printf '%s\n' src/wc.c:10 src/wc.c:12 >"$m/lines/device.b.bats"
    printf '%s\n' src/wc.c:10 src/wc.c:11 src/wc.c:12 src/wc.c:30 lua/help.lua:5 >"$m/code"
    # the test files a mutant's folder glob selects: none here (below, some)
    local t=$BATS_TEST_TMPDIR/tests
    mkdir -p "$t/host" "$t/device"
    (cd "$ROOT" && MUTATE_COV_TESTS=$t tests/mutate-coverage stamp) >"$m/stamp"
    sel() {   # sel FILE LINE FROM: the selection for a mutant there
        printf 'file: %s\nline: %s\nfrom: %s\n' "$1" "$2" "$3" >"$m/x.rmut"
        MUTATE_COV=$m MUTATE_COV_TESTS=$t "$ROOT/tests/mutate-coverage" select "$m/x.rmut" | paste -sd'|'
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
    # a file that reads the sources as text (luac -l over lua/*.lua, a grep
    # of src/*.c) runs none of their lines: the tests of it that name the
    # mutant's folder glob run too, by name where the map has its names
    # (whole where not); the mutation tool's own tests never
    printf '@test "one" {\n  true\n}\n@test "reads" {\n  luac -l "$ROOT"/lua/*.lua\n}\n@test "three" {\n  grep x "$ROOT"/src/*.c\n}\n' >"$t/host/r.bats"
    printf '@test "g" {\n  grep -l y "$ROOT"/lua/*.lua\n}\n' >"$t/device/d.bats"
    printf 'lua/*.lua src/*.c\n' >"$t/host/mutants.bats"
    printf '1\tone\n2\treads\n3\tthree\n' >"$m/names/host.r.bats"
    (cd "$ROOT" && MUTATE_COV_TESTS=$t tests/mutate-coverage stamp) >"$m/stamp"
    [ "$(MUTATE_COV_TESTS=$t "$ROOT/tests/mutate-coverage" readers lua/pretty.lua | paste -sd"|")" = "host.r.bats|device.d.bats" ]
    [ -z "$(MUTATE_COV_TESTS=$t "$ROOT/tests/mutate-coverage" readers scripts/rxe-vm)" ]   # (no folder glob for a script)
    [ "$(sel lua/pretty.lua 6 'x')" = $'host r.bats|device d.bats|test host r.bats\treads' ]   # no line ran: the readers alone
    [ "$(sel lua/help.lua 5 'x')" = $'host a.bats r.bats|device d.bats|test host r.bats\treads' ]
    [ "$(sel src/wc.c 11 '<')" = $'host r.bats|device |test host r.bats\tthree' ]
    [ "$(sel lessons/01-devices.lua 3 'x')" = "none" ]          # no reader of lessons/*.lua
    printf '1\tone\n' >"$m/names/host.r.bats"                # (the map's names of another r.bats: the whole file)
    [ "$(sel src/wc.c 11 '<')" = "host r.bats|device " ]
}

@test "random mutants: the VM stage runs the tests/vm files that name the mutant's source: a script by name, rxe-vm-guest by every file that boots a guest, a lesson by its file or number, a module of 4 letters or more as a word (a command's module by the command too); none for a short C name" {
    local v=$BATS_TEST_TMPDIR/vm
    mkdir -p "$v"
    printf '%s\n' 'run scripts/rxe-vm --two -- true' >"$v/boot.bats"
    printf '%s\n' 'scripts/rxe-vm -- verbsh --lesson 17 --auto' 'verbs.capture' >"$v/wire.bats"
    printf '%s\n' 'make run LINK=127.0.0.1:5000' 'lessons 13' >"$v/seat.bats"
    printf '%s\n' 'lessons/22-iwarp.lua' 'doctor_vm is not doctor' 'qp' >"$v/siw.bats"
    vmf() { "$ROOT/tests/mutate-random" --vm-files "$v" "$1"; }
    [ "$(vmf scripts/rxe-vm)" = "boot.bats seat.bats wire.bats " ]   # make run runs it too
    [ "$(vmf scripts/rxe-vm-guest)" = "boot.bats wire.bats " ]
    [ "$(vmf scripts/run-shell)" = "seat.bats " ]               # by "make run"
    [ "$(vmf lessons/17-on-the-wire.lua)" = "wire.bats " ]      # "--lesson 17", not "lessons 13"
    [ "$(vmf lessons/13-pair-lab.lua)" = "seat.bats " ]
    [ "$(vmf lessons/01-devices.lua)" = "" ]                    # "lesson 1" is not in "lessons 13"
    [ "$(vmf lessons/22-iwarp.lua)" = "siw.bats " ]
    [ "$(vmf lua/doctor_vm.lua)" = "siw.bats " ]
    [ "$(vmf lua/doctor.lua)" = "siw.bats " ]                   # the word, not doctor_vm's prefix
    [ "$(vmf lua/doctor_iwarp.lua)" = "siw.bats " ]             # a module of the doctor: by "doctor"
    [ "$(vmf lua/wire_iwarp.lua)" = "" ]                        # "wire" is named nowhere
    [ "$(vmf src/capture.c)" = "wire.bats " ]
    [ "$(vmf src/qp.c)" = "" ]                                  # too short a name to mean the file
}

@test "random mutants: two binaries that differ only by the GNU build id (lines moved, the same code) are the same binary; another code is not" {
    local d=$BATS_TEST_TMPDIR
    printf 'int f(int x) { return x + 1; }\nint main(void) { return f(2); }\n' >"$d/a.c"
    printf 'int f(int x) { return x + 1; }\n\n\nint main(void) { return f(2); }\n' >"$d/b.c"
    printf 'int f(int x) { return x + 2; }\nint main(void) { return f(2); }\n' >"$d/c.c"
    local x
    for x in a b c; do cc -g -O2 -Wl,--build-id -o "$d/$x" "$d/$x.c"; done
    ! cmp -s "$d/a" "$d/b"                                      # the files differ...
    "$ROOT/tests/mutate-random" --same-binary "$d/a" "$d/b" "$d/t"   # ...by the build id alone
    run "$ROOT/tests/mutate-random" --same-binary "$d/a" "$d/c" "$d/t"
    [ "$status" -eq 1 ]
}

@test "random mutants: an equivalent mutant is matched by file, old line and new line; by FILE:LINE only at that line (for a line whose text repeats)" {
    local d=$BATS_TEST_TMPDIR
    printf 'lua/p.lua\tmkdir(dir)\t(deleted)\tlog_id makes it\n' >"$d/by_file"
    printf 'lua/p.lua:118\tmkdir(dir)\t(deleted)\tlog_id makes it\n' >"$d/by_line"
    printf '# delete at lua/p.lua:118\n' >"$d/at118"
    printf '# delete at lua/p.lua:78\n' >"$d/at78"
    eqv() { MUTATE_EQUIV=$d/$1 "$ROOT/tests/mutate-random" --equivalent lua/p.lua "mkdir(dir)" "$2" "$d/$3"; }
    [ "$(eqv by_file "(deleted)" at78)" = "log_id makes it" ]   # by file: any line with that text
    [ "$(eqv by_line "(deleted)" at118)" = "log_id makes it" ]
    run eqv by_line "(deleted)" at78                            # by FILE:LINE: that line alone
    [ "$status" -eq 1 ]
    [ "$output" = "" ]
    run eqv by_line "mkdir(dir) " at118                         # another change of that line
    [ "$status" -eq 1 ]
    # a swap of two lines is written with a backslash-n and -t, which match as written
    printf 'src/c.c\t%s\t%s\ttwo stores swapped\n' 'a = 0;\n\tb = 0;' 'b = 0;\n\ta = 0;' >"$d/fields"
    printf '# fields at src/c.c:9\n' >"$d/at9"
    [ "$(MUTATE_EQUIV=$d/fields "$ROOT/tests/mutate-random" --equivalent src/c.c 'a = 0;\n\tb = 0;' 'b = 0;\n\ta = 0;' "$d/at9")" = "two stores swapped" ]
}

# A made-up run: each "verbsh" prints "bad" on its calls listed in its file
# bad (1 2: its first two), "good" on the others; a test "ok N" passes on
# good. Calls are counted per binary, so a binary that is bad on its first
# call only fails a test by chance once, as a loaded machine's timing does.
@test "random mutants: a kill on the host, by the VM files or in the guest is a failure that comes again; a test the unmutated tree failed once by chance is not its failure, one it fails every time is" {
    local o=$BATS_TEST_TMPDIR/out b
    mkdir -p "$o/tests/host" "$o/log"
    # (written with printf: bats would read an @test line here as a test of this file)
    printf '@test "one" { [ "$("$VERBSH")" = good ]; }\n' >"$o/tests/host/t.bats"
    mkbin() {   # mkbin NAME BAD_CALLS...
        mkdir -p "$o/bin/$1"; ln -sfn "$o/tests" "$o/bin/$1/tests"; local v=$o/bin/$1/verbsh; shift
        echo "$*" >"${v%/*}/bad"
        printf '#!/bin/bash\nd=${0%%/*}; n=$(( $(cat "$d/n" 2>/dev/null || echo 0) + 1 )); echo $n >"$d/n"\n[[ " $(cat "$d/bad") " == *" $n "* ]] && echo bad || echo good\n' >"$v"
        chmod +x "$v"
    }
    judge() { rm -f "$o"/bin/*/n; run "$ROOT/tests/mutate-random" --judge "$o" "$1" host t.bats; echo "$output"; }
    mkbin pristine
    mkbin steady 1 2 3 4; judge steady            # fails every time: killed
    [ "$status" -eq 0 ]
    [ "${lines[-1]}" = "t.bats: one" ]
    mkbin once 1; judge once                      # fails its first run only: not counted
    [ "$status" -eq 0 ]
    [ "${lines[-1]}" = "# once: the failures in host/t.bats did not come again: not counted" ]
    [ "$(cat "$o/bin/once/n")" = 2 ]              # (it was run twice)
    mkbin twice 1 2; judge twice                  # fails both runs
    [ "${lines[-1]}" = "t.bats: one" ]
    # the unmutated tree fails its first run by chance: a steady mutant is still killed (a new
    # process: the tree's failures are judged once per process)
    mkbin pristine 1; judge steady
    [ "${lines[-1]}" = "t.bats: one" ]
    [[ $output != *"the unmutated tree fails"* ]]
    # ...and fails every time: a mutant failing the same test is not killed by it
    mkbin pristine 1 2 3; judge steady
    [ "${lines[-1]}" = "# the unmutated tree fails in host/t.bats: one;" ]
    # the ASan stage judges against the unmutated tree's ASan build (MUTATE_PRISTINE), not its plain one
    mkbin pristine.asan 1 2 3; mkbin pristine
    rm -f "$o"/bin/*/n; MUTATE_PRISTINE=pristine.asan run "$ROOT/tests/mutate-random" --judge "$o" steady host t.bats
    [ "${lines[-1]}" = "# the unmutated tree fails in host/t.bats: one;" ]
    [ "$(cat "$o/bin/pristine.asan/n")" = 2 ]
    [ ! -e "$o/bin/pristine/n" ]
    mkbin pristine.asan; mkbin pristine 1 2 3
    rm -f "$o"/bin/*/n; MUTATE_PRISTINE=pristine.asan run "$ROOT/tests/mutate-random" --judge "$o" steady host t.bats
    [ "${lines[-1]}" = "t.bats: one" ]
    # the VM files' kills are confirmed the same way (their guests share the loaded host)
    mkdir -p "$o/tests/vm"; cp "$o/tests/host/t.bats" "$o/tests/vm/t.bats"
    mkbin pristine
    mkbin once 1; rm -f "$o"/bin/*/n; run "$ROOT/tests/mutate-random" --judge "$o" once vm t.bats
    [ "${lines[-1]}" = "# once: the failures in vm/t.bats did not come again: not counted" ]
    mkbin twice 1 2; rm -f "$o"/bin/*/n; run "$ROOT/tests/mutate-random" --judge "$o" twice vm t.bats
    [ "${lines[-1]}" = "t.bats: one" ]
    # ...and the device files' (two guests, or a guest beside a host stage, share the cores)
    mkdir -p "$o/tests/device"; cp "$o/tests/host/t.bats" "$o/tests/device/t.bats"
    mkbin once 1; rm -f "$o"/bin/*/n; run "$ROOT/tests/mutate-random" --judge "$o" once device t.bats
    [ "${lines[-1]}" = "# once: the failures in device/t.bats did not come again: not counted" ]
    mkbin twice 1 2; rm -f "$o"/bin/*/n; run "$ROOT/tests/mutate-random" --judge "$o" twice device t.bats
    [ "${lines[-1]}" = "t.bats: one" ]
}

@test "random mutants: the ASan stage runs the host files make test's ASan pass runs: all but tests/run's host_asan_skip; every file where tests/run has no such list" {
    run "$ROOT/tests/mutate-random" --asan-files "$ROOT/tests" host room.bats cm_host.bats oob.bats shell_pty.bats mutants.bats wire.bats
    [ "$status" -eq 0 ]
    [ "$output" = "cm_host.bats shell_pty.bats wire.bats " ]
    # the list it reads is tests/run's own
    local skip
    skip=$(sed -n 's/^host_asan_skip=(\(.*\))$/\1/p' "$ROOT/tests/run")
    [ -n "$skip" ]
    run "$ROOT/tests/mutate-random" --asan-files "$ROOT/tests" host $skip
    [ "$status" -eq 0 ]
    [ "$output" = "" ]
    mkdir -p "$BATS_TEST_TMPDIR/old"
    printf 'binaries=(./verbsh)\n' >"$BATS_TEST_TMPDIR/old/run"
    run "$ROOT/tests/mutate-random" --asan-files "$BATS_TEST_TMPDIR/old" host room.bats wire.bats
    [ "$status" -eq 0 ]
    [ "$output" = "room.bats wire.bats " ]
    run "$ROOT/tests/mutate-random" --asan-files "$BATS_TEST_TMPDIR/none" host room.bats
    [ "$status" -eq 2 ]
    [ "$output" = "tests/mutate-random: no $BATS_TEST_TMPDIR/none/run" ]
    # the device pass: all but asan_skip (a lesson file left out, the C files kept)
    run "$ROOT/tests/mutate-random" --asan-files "$ROOT/tests" device lessons.bats verbs_rc.bats export.bats room.bats cm.bats
    [ "$status" -eq 0 ]
    [ "$output" = "verbs_rc.bats room.bats cm.bats " ]
    skip=$(sed -n 's/^asan_skip=(\(.*\))$/\1/p' "$ROOT/tests/run")
    [ "$(wc -w <<<"$skip")" -ge 5 ]
    run "$ROOT/tests/mutate-random" --asan-files "$ROOT/tests" device $skip
    [ "$status" -eq 0 ]
    [ "$output" = "" ]
    run "$ROOT/tests/mutate-random" --asan-files "$ROOT/tests" vm room.bats
    [ "$status" -eq 2 ]
    [ "$output" = "tests/mutate-random: asan_files wants host or device, got 'vm'" ]
}

# A made-up per-test map: of a.bats, test 1 ran wc.c:10 and test 2 did not;
# both ran wc.c:12; wc.c:20 only setup_file ran (no test's row).
@test "random mutants: per-test selection names exactly the tests of a file that ran the mutant's lines; whole files where the map cannot say or MUTATE_PER_TEST=0" {
    local m=$BATS_TEST_TMPDIR/cov
    mkdir -p "$m/lines" "$m/tests" "$m/names"
    printf '%s\n' src/wc.c:10 src/wc.c:12 src/wc.c:20 >"$m/lines/host.a.bats"
    printf 'src/wc.c:10\t1\nsrc/wc.c:12\t1 2\n' >"$m/tests/host.a.bats"
    printf '1\tfirst (one) [x]\n2\tsecond\n' >"$m/names/host.a.bats"
    printf '%s\n' src/wc.c:12 >"$m/lines/device.b.bats"   # a file without per-test rows (an older map)
    printf '%s\n' src/wc.c:10 src/wc.c:11 src/wc.c:12 src/wc.c:20 >"$m/code"
    local t=$BATS_TEST_TMPDIR/tests   # (no test file reads src/*.c as text here)
    mkdir -p "$t/host" "$t/device"
    export MUTATE_COV_TESTS=$t
    (cd "$ROOT" && tests/mutate-coverage stamp) >"$m/stamp"
    cp "$m/stamp" "$m/stamp.host"
    sel() {   # sel FILE LINE FROM: the selection for a mutant there
        printf 'file: %s\nline: %s\nfrom: %s\n' "$1" "$2" "$3" >"$m/x.rmut"
        MUTATE_COV=$m "$ROOT/tests/mutate-coverage" select "$m/x.rmut" | paste -sd'|'
    }
    [ "$(sel src/wc.c 10 '<')" = "host a.bats|device |test host a.bats	first (one) [x]" ]   # test 1 only
    [ "$(sel src/wc.c 12 '<')" = "host a.bats|device b.bats|test host a.bats	first (one) [x]|test host a.bats	second" ]
    [ "$(sel src/wc.c 11 'a\nb')" = "host a.bats|device b.bats|test host a.bats	first (one) [x]|test host a.bats	second" ]
    [ "$(sel src/wc.c 20 '<')" = "host a.bats|device " ]              # setup_file ran it: the whole file
    [ "$(sel src/wc.c 19 'a\nb')" = "host a.bats|device " ]           # one of its lines: the whole file
    [ "$(sel src/wc.c 13 '<')" = "host a.bats|device b.bats" ]        # no code: widened to whole files
    [ "$(MUTATE_PER_TEST=0 sel src/wc.c 10 '<')" = "host a.bats|device " ]
    printf 'file: src/wc.c\nline: 10\nfrom: <\n' >"$m/x.rmut"
    [ "$(MUTATE_COV=$m "$ROOT/tests/mutate-coverage" select --host "$m/x.rmut" | paste -sd'|')" = "host a.bats|test host a.bats	first (one) [x]" ]
    printf '3\tthird\n' >"$m/names/host.a.bats"                    # a test number without a name: the whole file
    [ "$(sel src/wc.c 10 '<')" = "host a.bats|device " ]
}

# tests/helpers.bash, sourced again for each test, sends each test's counters
# to a directory of its own when the map asks, and changes nothing otherwise.
@test "random mutants: helpers.bash points GCOV_PREFIX and VERBSH_LUA_COVERAGE at DIR/<test number> (setup_file's at DIR/file) only under MUTATE_COV_PER_TEST" {
    local f=$BATS_TEST_TMPDIR/per.bats d=$BATS_TEST_TMPDIR/per
    printf '%s\n' "load $ROOT/tests/helpers" \
        'setup_file() { echo "${GCOV_PREFIX-unset} ${VERBSH_LUA_COVERAGE-unset}" >"$OUT.0"; }' \
        '@test "first" { echo "${GCOV_PREFIX-unset} ${VERBSH_LUA_COVERAGE-unset}" >"$OUT.1"; }' \
        '@test "second" { echo "${GCOV_PREFIX-unset} ${VERBSH_LUA_COVERAGE-unset}" >"$OUT.2"; }' >"$f"
    # (the nested bats without make test's BATS_TEST_TIMEOUT: bats 1.8's
    # per-test watchdog can race on a loaded machine and hold its output
    # open for the whole timeout after a test that passed)
    OUT=$BATS_TEST_TMPDIR/env MUTATE_COV_PER_TEST=$d env -u BATS_TEST_TIMEOUT bats --tap "$f" >/dev/null
    [ "$(cat "$BATS_TEST_TMPDIR/env.0")" = "$d/file $d/file" ]
    [ "$(cat "$BATS_TEST_TMPDIR/env.1")" = "$d/1 $d/1" ]
    [ "$(cat "$BATS_TEST_TMPDIR/env.2")" = "$d/2 $d/2" ]
    [ -d "$d/1" ]
    [ -d "$d/2" ]
    [ -d "$d/file" ]
    rm -rf "$d" "$BATS_TEST_TMPDIR"/env.*
    OUT=$BATS_TEST_TMPDIR/env env -u MUTATE_COV_PER_TEST -u BATS_TEST_TIMEOUT bats --tap "$f" >/dev/null   # (as a map runs this file too)
    [ "$(cat "$BATS_TEST_TMPDIR/env.1")" = "${GCOV_PREFIX-unset} ${VERBSH_LUA_COVERAGE-unset}" ]
    [ "$(cat "$BATS_TEST_TMPDIR/env.0")" = "${GCOV_PREFIX-unset} ${VERBSH_LUA_COVERAGE-unset}" ]
    [ ! -e "$d" ]
}

# The names bats -f must pick out, each beside a near-duplicate: the regex
# select's names become runs exactly the tests named.
@test "random mutants: a test name's regex (bats -f) matches that test and only it, whatever regex characters it holds" {
    local f=$BATS_TEST_TMPDIR/names.bats re
    # (written with printf: bats would read an @test line here as a test of this file)
    printf '@%s\n' \
        'test "a (b) [c] d.e*f+g? '\''h'\'' \"i\" | j {2} ^k$ \\l" { echo 1 >>"$RAN"; }' \
        'test "a (b) [c] d.e*f+g? '\''h'\'' \"i\" | j {2} ^k$ \\l2" { echo 2 >>"$RAN"; }' \
        'test "a (b) [c] dxe*f+g? '\''h'\'' \"i\" | j {2} ^k$ \\l" { echo 3 >>"$RAN"; }' \
        'test "a" { echo 4 >>"$RAN"; }' \
        'test "plain name" { echo 5 >>"$RAN"; }' >"$f"
    export RAN=$BATS_TEST_TMPDIR/ran
    ran() {   # ran NAME...: the numbers of the tests bats -f runs
        rm -f "$RAN"
        re=$("$ROOT/tests/mutate-coverage" regex "$@")
        env -u BATS_TEST_TIMEOUT bats --tap -f "$re" "$f" >/dev/null || return 1
        sort "$RAN" 2>/dev/null | paste -sd' '
    }
    # the names as the map reads them (the raw text between the quotes)
    mapfile -t names < <("$ROOT/tests/mutate-coverage" names "$f")
    [ "${#names[@]}" = 5 ]
    [ "${names[0]}" = "a (b) [c] d.e*f+g? 'h' \\\"i\\\" | j {2} ^k\$ \\\\l" ]
    [ "$(ran "${names[0]}")" = 1 ]
    [ "$(ran "${names[1]}")" = 2 ]
    [ "$(ran "${names[2]}")" = 3 ]
    [ "$(ran "${names[1]}" "${names[2]}")" = "2 3" ]
    [ "$(ran a)" = 4 ]
    [ "$(ran a "plain name")" = "4 5" ]
    [ "$("$ROOT/tests/mutate-coverage" regex 'x.y' '(z)|')" = '^(x\.y|\(z\)\|)$' ]
}

# The map is of one set of sources. Its stamp was the files' text end to end,
# which a file split at its end, or renamed in place, leaves the same: then
# mutants in the new files were selected from the old files' lines.
@test "random mutants: select refuses a map of other sources, naming the files split off, renamed or removed since and a test file edited or added; ensure will not build a tree that is not the checkout" {
    local m=$BATS_TEST_TMPDIR/cov t=$BATS_TEST_TMPDIR/tree
    mkdir -p "$m/lines" "$t"
    # (-L: under the coverage map, ROOT holds symlinks to the checkout, which
    # the test must never change)
    cp -RL "$ROOT"/src "$ROOT"/lua "$ROOT"/lessons "$ROOT"/scripts "$t/"
    printf '%s\n' src/wc.c:10 >"$m/lines/host.a.bats"
    printf '%s\n' src/wc.c:10 >"$m/code"
    "$ROOT/tests/mutate-coverage" manifest "$t" >"$m/manifest"
    sha256sum <"$m/manifest" | cut -d' ' -f1 >"$m/stamp"
    [ "$(cat "$m/stamp")" = "$("$ROOT/tests/mutate-coverage" stamp "$t")" ]
    printf 'file: src/wc.c\nline: 10\nfrom: <\n' >"$m/x.rmut"
    sel() { MUTATE_COV=$m MUTATE_COV_TREE=$t "$ROOT/tests/mutate-coverage" select "$m/x.rmut"; }
    old_stamp() { cat "$t"/src/*.c "$t"/src/*.h "$t"/lua/*.lua "$t"/lessons/*.lua "$t"/scripts/* | sha256sum; }
    # (the checkout's files that read src/*.c as text are selected too)
    local readers want
    readers=$(cd "$ROOT/tests/host" && grep -lF 'src/*.c' *.bats | grep -vx mutants.bats)
    want="host $(printf '%s\n' a.bats $readers | sort -u | paste -sd' ')"
    run sel
    [ "$status" -eq 0 ]
    [ "$output" = "$want"$'\ndevice ' ]
    local before; before=$(old_stamp)

    # the last Lua file's second half split off into a new last file
    local luas=("$t"/lua/*.lua); local last=${luas[-1]} n
    n=$(wc -l <"$last")
    tail -n +$((n / 2 + 1)) "$last" >"$t/lua/zzzz_split.lua"
    head -n $((n / 2)) "$last" >"$t/head" && mv "$t/head" "$last"
    [ "$(old_stamp)" = "$before" ]   # what the old stamp saw: nothing
    run sel
    echo "$output"
    [ "$status" -eq 3 ]
    [ "${lines[0]}" = "tests/mutate-coverage: the coverage map in $m is not of these mutants' sources ($t) and test files ($ROOT/tests):" ]
    [ "${lines[1]}" = "  changed since the map: lua/${last##*/}" ]   # (in the files' order)
    [ "${lines[2]}" = "  added since the map: lua/zzzz_split.lua" ]
    [[ ${lines[3]} == "  rebuild it from those sources"* ]]
    [ "${#lines[@]}" -eq 4 ]
    cat "$last" "$t/lua/zzzz_split.lua" >"$t/whole" && mv "$t/whole" "$last" && rm "$t/lua/zzzz_split.lua"
    run sel
    [ "$status" -eq 0 ]

    # renamed in place (wc.c to wc_old.c: the same order end to end), then a lesson removed
    mv "$t/src/wc.c" "$t/src/wc_old.c"
    [ "$(old_stamp)" = "$before" ]
    run sel
    [ "$status" -eq 3 ]
    [ "${lines[1]}" = "  gone since the map: src/wc.c" ]
    [ "${lines[2]}" = "  added since the map: src/wc_old.c" ]
    mv "$t/src/wc_old.c" "$t/src/wc.c"
    local lessons=("$t"/lessons/*.lua)
    rm "${lessons[0]}"
    run sel
    [ "$status" -eq 3 ]
    [ "${lines[1]}" = "  gone since the map: lessons/${lessons[0]##*/}" ]
    [ "${#lines[@]}" -eq 3 ]

    cp "${lessons[0]/$t/$ROOT}" "${lessons[0]}"
    run sel
    [ "$status" -eq 0 ]

    # the tests as a run copied them: one edited, one added since the map;
    # the judged equivalents may change
    cp -RL "$ROOT/tests" "$t/tests"
    [ "$(MUTATE_COV=$m MUTATE_COV_TREE=$t MUTATE_COV_TESTS=$t/tests "$ROOT/tests/mutate-coverage" select "$m/x.rmut" | paste -sd'|')" = "$want|device " ]
    echo "# judged" >>"$t/tests/mutants/equivalent.txt"
    echo "# edited" >>"$t/tests/device/siw.bats"
    touch "$t/tests/device/zz_new.bats"
    run env MUTATE_COV="$m" MUTATE_COV_TREE="$t" MUTATE_COV_TESTS="$t/tests" "$ROOT/tests/mutate-coverage" select "$m/x.rmut"
    echo "$output"
    [ "$status" -eq 3 ]
    [ "${lines[1]}" = "  changed since the map: tests/device/siw.bats" ]
    [ "${lines[2]}" = "  added since the map: tests/device/zz_new.bats" ]
    [ "${#lines[@]}" -eq 4 ]

    # ensure: the checkout lacks that test file, so it refuses at once (a build takes 45 minutes)
    run timeout 20 env MUTATE_COV="$m" MUTATE_COV_TREE="$t" MUTATE_COV_TESTS="$t/tests" "$ROOT/tests/mutate-coverage" ensure
    echo "$output"
    [ "$status" -eq 3 ]
    [ "${lines[-1]}" = "  (the checkout's sources or test files differ from them too: build the map where they are)" ]
    [ -f "$m/stamp" ]
    [ ! -e "$m/root" ]
    # a map without a stamp (of some files only) is refused too; one whose
    # host part is done (stamp.host) serves the host stage alone
    rm -rf "$t/tests"
    mv "$m/stamp" "$m/stamp.host"
    run sel
    [ "$status" -eq 3 ]
    [ "${lines[1]}" = "  (no stamp: a map never finished, or of some files only)" ]
    run env MUTATE_COV="$m" MUTATE_COV_TREE="$t" "$ROOT/tests/mutate-coverage" select --host "$m/x.rmut"
    [ "$status" -eq 0 ]
    [ "$output" = "$want" ]
    echo "# edited" >>"$t/src/wc.c"
    run env MUTATE_COV="$m" MUTATE_COV_TREE="$t" "$ROOT/tests/mutate-coverage" select --host "$m/x.rmut"
    [ "$status" -eq 3 ]
    [ "${lines[1]}" = "  changed since the map: src/wc.c" ]
}

@test "random mutants: MUTATE_COV_FILES names device files of the suite, or the map's device part refuses before building anything" {
    local m=$BATS_TEST_TMPDIR/cov
    run env MUTATE_COV="$m" MUTATE_COV_FILES="siw.bats nosuch.bats" "$ROOT/tests/mutate-coverage" device
    echo "$output"
    [ "$status" -eq 2 ]
    [ "$output" = "tests/mutate-coverage: MUTATE_COV_FILES: no tests/device/nosuch.bats" ]
    [ ! -e "$m" ]
}

# Processes the tests end with a signal (the room server, a partner) wrote no
# coverage, so their lines looked unrun. The coverage build (only it) writes
# the Lua hook's lines and gcc's counters on SIGTERM/SIGHUP, then dies by the
# signal as before; a signal inherited as ignored stays ignored. (-O0 build of
# build/cov-signal/verbsh: a few seconds, then make finds it current.)
@test "coverage build: SIGTERM and SIGHUP end the room server by that signal (143, 129) after it wrote its Lua lines and gcc's counters; an ignored SIGINT stays ignored; ./verbsh has none of it; the line hook counts lines run after the first call too" {
    cd "$ROOT"
    ! nm ./verbsh | grep -E '__gcov|cov_die|cov_catch'
    make --no-print-directory -j2 ASAN_DIR=build/cov-signal OBJ_DIR=build/cov-signal/obj PIC_DIR=build/cov-signal/pic \
        CFLAGS="-O0 -g --coverage -DVERBSH_COVERAGE" LDFLAGS=--coverage build/cov-signal/verbsh >"$BATS_TEST_TMPDIR/make.log" 2>&1 ||
        { cat "$BATS_TEST_TMPDIR/make.log"; false; }
    local sig want d pid rc
    for sig in TERM HUP; do
        d=$BATS_TEST_TMPDIR/$sig
        mkdir -p "$d/lua" "$d/gcda" "$d/room"
        # (TERM and HUP as the kernel's default, whatever this run inherited:
        # under nohup HUP arrives ignored, and an ignored signal stays so)
        VERBSH_LUA_COVERAGE=$d/lua GCOV_PREFIX=$d/gcda env --default-signal=TERM,HUP \
            build/cov-signal/verbsh --room --listen 127.0.0.1:0 --dir "$d/room" --for 100 >"$d/out" 2>&1 &
        pid=$!
        for _ in $(seq 100); do grep -q listening "$d/out" && break; sleep 0.1; done
        grep -q listening "$d/out"
        kill -INT "$pid"   # a background job of a script: SIGINT ignored, and still so
        sleep 0.3
        kill -0 "$pid"
        kill -"$sig" "$pid"
        rc=0; wait "$pid" || rc=$?
        want=$((128 + $(kill -l "$sig")))
        echo "SIG$sig: status $rc (want $want)"
        [ "$rc" -eq "$want" ]
        [ "$(ls "$d/lua")" = "lua.$pid" ]
        grep -q "lua/room.lua	" "$d/lua/lua.$pid"
        [ -s "$(find "$d/gcda" -name main.gcda)" ]
    done
    # the line hook outlives each call the shell makes: --export-c's finish
    # runs after the -e chunk's call ended, and its lines are counted too
    d=$BATS_TEST_TMPDIR/later && mkdir -p "$d"
    VERBSH_LUA_COVERAGE=$d build/cov-signal/verbsh --export-c "$d/x.c" -e 'local x = 1'
    local finish; finish=$(grep -n '^function M.finish' lua/export_c.lua | cut -d: -f1)
    grep -qx "=\[verbsh\]/lua/export_c.lua	$((finish + 1))" "$d"/lua.* || { grep export_c "$d"/lua.*; false; }
}

# A run goes on from its ledger (tests/mutants/runs/): the ledger is made
# here from the generator's own pick and the map's own stamp of these
# sources, not from the tool's output.
@test "random mutants: a run goes on from its ledger: a judged mutant keeps its verdict and runs nothing, a host survivor is built and not run, the stages' results come back; --ledger writes it back the same; another draw or another mutant is refused" {
    # (run from a checkout of symbolic links, as the coverage map's root is:
    # the mutant built must not reach the files the links point at)
    local farm=$BATS_TEST_TMPDIR/farm e before
    mkdir -p "$farm"
    for e in "$ROOT"/* "$ROOT"/.[!.]*; do ln -s "$(readlink -f "$e")" "$farm/${e##*/}"; done
    before=$(cd "$ROOT" && cat lua/*.lua src/*.c lessons/*.lua | sha256sum)
    cd "$farm"
    local o=$BATS_TEST_TMPDIR/run p=$BATS_TEST_TMPDIR/pick l=$BATS_TEST_TMPDIR/ledger
    sum() { sha256sum <"$p/$1.rmut" | cut -c1-16; }
    # the host survivor: a lesson's or a script's mutant (it needs no
    # compile, so it is never dropped), in the first draw of 3 from seed 4
    # on that has one (the draw follows the tree's sources)
    local sd surv= n
    local -a names
    for sd in $(seq 4 60); do
        rm -rf "$p" && mkdir -p "$p" && lua5.4 tests/mutants/random.lua pick . 3 $sd "$p" >/dev/null
        names=(s$sd-001 s$sd-002 s$sd-003)
        for n in "${names[@]}"; do grep -q '^file: \(lessons\|scripts\)/' "$p/$n.rmut" && { surv=$n; break; }; done
        [ -z "$surv" ] || break
    done
    [ -n "$surv" ]
    local -a judged=()
    for n in "${names[@]}"; do [ "$n" = "$surv" ] || judged+=("$n"); done
    stamp=$(MUTATE_COV_TESTS=$ROOT/tests tests/mutate-coverage stamp "$ROOT")
    {
        printf 'seed\t%s\nn\t3\ncommit\t0123abc\nstamp\t%s\n' "$sd" "$stamp"
        for n in "${names[@]}"; do
            case $n in
            "$surv") printf 'state\t%s\t%s\t\n' "$n" "$(sum "$n")" ;;
            "${judged[0]}") printf 'state\t%s\t%s\tkilled by host: repl.bats: the first test\n' "$n" "$(sum "$n")" ;;
            *) printf 'state\t%s\t%s\tequivalent: a reason given\n' "$n" "$(sum "$n")" ;;
            esac
        done
        printf 'device\tSURVIVED\t%s\tdevice\t61\n' "$surv"
        printf 'vm\tKILLED\t%s\tvm: doctor.bats: a vm test\t307\n' "$surv"
    } >"$l"
    MUTATE_OUT=$o MUTATE_DEVICE=0 MUTATE_COVERAGE=0 run tests/mutate-random --random 3 --seed $sd --from-ledger "$l"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"# ${judged[0]}: killed by host: repl.bats: the first test (the ledger)"* ]]
    [[ $output == *"# ${judged[1]}: equivalent: a reason given (the ledger)"* ]]
    [[ $output == *"# $surv ("*"): host tests passed; device tests next"* ]]
    [ "$(cat "$o/host-survivors")" = "$surv" ]
    [ -x "$o/bin/$surv/verbsh" ]
    [ ! -e "$o/bin/${judged[0]}" ]
    [ ! -e "$o/bin/${judged[1]}" ]
    ! ls "$o/log" | grep -q '^s4-.*\.bats'   # (no test file ran)
    [ "$(cat "$o/device-results")" = "$(printf 'SURVIVED\t%s\tdevice\t61' "$surv")" ]
    [ "$(cat "$o/vm-results")" = "$(printf 'KILLED\t%s\tvm: doctor.bats: a vm test\t307' "$surv")" ]
    [ ! -s "$o/asan-results" ]
    # --ledger: the same verdicts and results, this checkout's commit
    MUTATE_OUT=$o run tests/mutate-random --ledger
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == "# tests/mutate-random's ledger of a run"* ]]
    [ "${lines[3]}" = "commit	$(git rev-parse HEAD)$([ -z "$(git status --porcelain -- src lua lessons scripts tests ':(exclude)tests/mutate*' ':(exclude)tests/mutants')" ] || echo +changes)" ]
    [ "$(printf '%s\n' "${lines[@]:1}" | grep -v '^commit')" = "$(grep -v '^commit' "$l")" ]
    # another seed, or a mutant that is not the ledger's: refused, nothing judged
    sed "s/^seed\t$sd\$/seed\t$((sd + 1))/" "$l" >"$l.8"
    MUTATE_OUT=$o MUTATE_DEVICE=0 MUTATE_COVERAGE=0 run tests/mutate-random --random 3 --seed $sd --from-ledger "$l.8"
    [ "$status" -eq 2 ]
    [[ ${lines[-1]} == "tests/mutate-random --from-ledger: the ledger's seed is '$((sd + 1))', this run's '$sd' (its mutants were drawn from commit 0123abc: run in a checkout of it)" ]]
    sed "s/^\(state	${judged[1]}	\)[0-9a-f]*/\10000000000000000/" "$l" >"$l.other"
    MUTATE_OUT=$o MUTATE_DEVICE=0 MUTATE_COVERAGE=0 run tests/mutate-random --random 3 --seed $sd --from-ledger "$l.other"
    [ "$status" -eq 2 ]
    [ "${lines[-1]}" = "tests/mutate-random --from-ledger: ${judged[1]} is not the ledger's mutant (its .rmut differs)" ]
    [ ! -f "$o/state" ]
    [ "$(cd "$ROOT" && cat lua/*.lua src/*.c lessons/*.lua | sha256sum)" = "$before" ]
}

@test "random mutants: a host stage that was stopped goes on: --ledger keeps what its journal judged, --from-ledger judges only the mutants the ledger lacks (their host files run), and the journal of a whole stage is its state" {
    # (a farm whose only host file is one that passes: a mutant judged in
    # full runs it, one the ledger judged does not)
    local farm=$BATS_TEST_TMPDIR/farm e
    mkdir -p "$farm/tests/host"
    for e in "$ROOT"/* "$ROOT"/.[!.]*; do [ "${e##*/}" = tests ] || ln -s "$(readlink -f "$e")" "$farm/${e##*/}"; done
    for e in "$ROOT"/tests/*; do [ "${e##*/}" = host ] || ln -s "$e" "$farm/tests/${e##*/}"; done
    printf '@test "one" {\n    true\n}\n' >"$farm/tests/host/one.bats"
    cd "$farm"
    local o=$BATS_TEST_TMPDIR/run p=$BATS_TEST_TMPDIR/pick l=$BATS_TEST_TMPDIR/ledger sd n
    local -a names scr
    # the first draw of 3 from seed 4 on with two mutants of lessons or
    # scripts (no compile: never dropped, each a host survivor here)
    for sd in $(seq 4 80); do
        rm -rf "$p" && mkdir -p "$p" && lua5.4 tests/mutants/random.lua pick . 3 $sd "$p" >/dev/null
        names=(s$sd-001 s$sd-002 s$sd-003) scr=()
        for n in "${names[@]}"; do grep -q '^file: \(lessons\|scripts\)/' "$p/$n.rmut" && scr+=("$n"); done
        [ ${#scr[@]} -lt 2 ] || break
    done
    [ ${#scr[@]} -ge 2 ]
    MUTATE_OUT=$o MUTATE_DEVICE=0 MUTATE_COVERAGE=0 MUTATE_EQUIV=/dev/null run tests/mutate-random --random 3 --seed $sd
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(cat "$o/host-journal")" = "$(cat "$o/state")" ]
    [ "$(grep -c . "$o/host-journal")" -eq 3 ]
    [ "$(grep -P "^${scr[0]}\t\$" "$o/host-journal")" = "${scr[0]}	" ]   # (a host survivor: no verdict yet)
    # stopped before its last lesson or script mutant: no state, that
    # mutant not in the journal
    rm "$o/state"
    grep -v "^${scr[1]}	" "$o/host-journal" >"$o/j" && mv "$o/j" "$o/host-journal"
    MUTATE_OUT=$o run tests/mutate-random --ledger
    [ "$status" -eq 0 ]
    [ "${lines[1]}" = "# (its host stage stopped after 2 of 3 mutants: --from-ledger judges the others)" ]
    [ "${lines[2]}" = "seed	$sd" ]
    [ "$(printf '%s\n' "${lines[@]}" | grep -c '^state	')" -eq 2 ]
    ! printf '%s\n' "${lines[@]}" | grep -q "^state	${scr[1]}	"
    printf '%s\n' "${lines[@]}" >"$l"
    # the draw's third mutant as the ledger's kill: it takes that verdict
    local other
    for n in "${names[@]}"; do [ "$n" = "${scr[0]}" ] || [ "$n" = "${scr[1]}" ] || other=$n; done
    sed -i "s/^\(state	$other	[0-9a-f]*	\).*/\1killed by host: one.bats: one/" "$l"
    MUTATE_OUT=$o MUTATE_DEVICE=0 MUTATE_COVERAGE=0 MUTATE_EQUIV=/dev/null run tests/mutate-random --random 3 --seed $sd --from-ledger "$l"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"# $other: killed by host: one.bats: one (the ledger)"* ]]
    [[ $output == *"# ${scr[1]} ("*"): host tests passed; device tests next"* ]]
    [ -f "$o/log/${scr[1]}.one.bats.log" ]       # judged here: its host file ran
    [ ! -e "$o/log/${scr[0]}.one.bats.log" ]     # the ledger's survivor: built, not run
    [ -x "$o/bin/${scr[0]}/verbsh" ]
    [ -x "$o/bin/${scr[1]}/verbsh" ]
    [ "$(cat "$o/host-survivors")" = "$(awk -F'\t' '$2 == "" { print $1 }' "$o/state")" ]
    grep -qx "${scr[0]}" "$o/host-survivors"
    grep -qx "${scr[1]}" "$o/host-survivors"
    [ "$(grep -c . "$o/state")" -eq 3 ]
    # (the ledger's verdicts go to the new run's journal too: stopped again, nothing is lost)
    [ "$(cat "$o/host-journal")" = "$(cat "$o/state")" ]
    # no journal or state: refused, saying why
    rm "$o/state" "$o/host-journal"
    MUTATE_OUT=$o run tests/mutate-random --ledger
    [ "$status" -eq 2 ]
    [ "$output" = "tests/mutate-random --ledger: $o has judged no mutant (no state, no host-journal) or has no record of its draw (drawn)" ]
}

@test "coverage build: a second build of a map refuses while one holds its lock, and leaves the first's files alone" {
    cd "$ROOT"
    local c=$BATS_TEST_TMPDIR/map
    mkdir -p "$c/lines" && echo kept >"$c/lines/host.x.bats"
    exec 7>"$c.lock" && flock -n 7
    MUTATE_COV=$c run timeout 30 tests/mutate-coverage build   # (a lock that failed: a whole build, cut short)
    exec 7>&-
    [ "$status" -eq 3 ]
    [ "$output" = "tests/mutate-coverage: a build of the map in $c is under way (it holds $c.lock): wait for it" ]
    [ "$(cat "$c/lines/host.x.bats")" = kept ]
}

@test "mutants: the README lists every mutant of tests/mutants/equivalent.txt with its reason, in the file's order, and no other" {
    want=$(awk -F'\t' '!/^#/ && NF >= 4 { r = $4; for (i = 5; i <= NF; i++) r = r "\t" $i; printf "- `%s`: `%s` made `%s`: %s\n", $1, $2, $3, r }' "$ROOT/tests/mutants/equivalent.txt")
    have=$(awk '/^Equivalent mutants \(`tests\/mutants\/equivalent.txt`/ { on = 1; next } on && /^- `/ { print; next } on && /^#/ { exit }' "$ROOT/README.md")
    [ -n "$want" ]
    diff <(echo "$want") <(echo "$have")
}

@test "random mutants: the guest skips a mutant judged equivalent since its plan was made (no verdict, nothing run) and runs the others" {
    local o=$BATS_TEST_TMPDIR/out
    mkdir -p "$o/tests/device" "$o/log" "$o/mutants" "$o/orig/lua"
    printf '@test "one" { [ "$("$VERBSH")" = good ]; }\n' >"$o/tests/device/t.bats"
    printf 'local a = 1\nlocal b = 2\n' >"$o/orig/lua/p.lua"
    for m in m1 m2; do
        mkdir -p "$o/bin/$m"; ln -s "$o/tests" "$o/bin/$m/tests"
        printf '#!/bin/sh\necho bad\n' >"$o/bin/$m/verbsh"; chmod +x "$o/bin/$m/verbsh"
    done
    mkdir -p "$o/bin/pristine"; ln -s "$o/tests" "$o/bin/pristine/tests"
    printf '#!/bin/sh\necho good\n' >"$o/bin/pristine/verbsh"; chmod +x "$o/bin/pristine/verbsh"
    printf '# const at lua/p.lua:1\nrule: const\nfile: lua/p.lua\nline: 1\nat: 11\ncol: 10\ncontext: local a = 1\nfrom: 1\nto: 2\n' >"$o/mutants/m1.rmut"
    printf '# const at lua/p.lua:2\nrule: const\nfile: lua/p.lua\nline: 2\nat: 23\ncol: 10\ncontext: local b = 2\nfrom: 2\nto: 3\n' >"$o/mutants/m2.rmut"
    printf 'lua/p.lua\tlocal a = 1\tlocal a = 2\ta reason\n' >"$BATS_TEST_TMPDIR/equiv"
    printf 'm1\tt.bats\nm2\tt.bats\n' >"$o/plan"
    cd "$ROOT"
    MUTATE_EQUIV=$BATS_TEST_TMPDIR/equiv run tests/mutate-random --in-guest "$o/plan" "$o"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == "KILLED	m2	device: t.bats: one	"* ]]
    [ "${#lines[@]}" -eq 1 ]
    [ ! -e "$o/log/m1.t.bats.log" ]
}

@test "random mutants: --reselect runs only what a host selection gained: a new file (with its new tests, by name, or whole), a file's new tests; nothing when it gained nothing" {
    local d=$BATS_TEST_TMPDIR
    printf 'host a.bats b.bats\ndevice d.bats\ntest host b.bats\tone\n' >"$d/old"
    printf 'host a.bats b.bats g.bats w.bats\ndevice d.bats e.bats\ntest host b.bats\tone\ntest host b.bats\ttwo\ntest host g.bats\tmods\n' >"$d/new"
    run "$ROOT/tests/mutate-random" --gained "$d/old" "$d/new"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "b.bats g.bats w.bats" ]      # (not a.bats: nothing new there; not the device's e.bats)
    [ "${lines[1]}" = $'test host b.bats\ttwo' ]
    [ "${lines[2]}" = $'test host g.bats\tmods' ]
    [ "${#lines[@]}" -eq 3 ]
    run "$ROOT/tests/mutate-random" --gained "$d/new" "$d/new"
    [ "$status" -eq 0 ]
    [ -z "$output" ]
}

@test "random mutants: a mutant's root holds its own copy of its source's folder, the mutant applied, where an older root linked the checkout's (a test that reads the sources as text must see the mutant)" {
    local d=$BATS_TEST_TMPDIR o=$BATS_TEST_TMPDIR/out n name f
    mkdir -p "$d/p" "$o/mutants" "$o/orig"
    (cd "$ROOT" && lua5.4 tests/mutants/random.lua pick . 30 5 "$d/p") >/dev/null
    for n in "$d"/p/*.rmut; do
        f=$(sed -n 's/^file: //p' "$n")
        case $f in lua/*.lua) name=$(basename "$n" .rmut); break ;; esac
    done
    [ -n "$name" ]
    cp "$n" "$o/mutants/"
    cp -RL "$ROOT/lua" "$o/orig/lua"
    mkdir -p "$o/bin/$name" && ln -s "$ROOT/lua" "$o/bin/$name/lua"
    cd "$ROOT"
    run tests/mutate-random --root-sources "$o" "$name"
    [ "$status" -eq 0 ]
    [ -d "$o/bin/$name/lua" ]
    [ ! -L "$o/bin/$name/lua" ]
    # the one file differs from the checkout's, as the mutant says; the others are the same
    [ "$(diff -rq "$ROOT/lua" "$o/bin/$name/lua" | wc -l)" -eq 1 ]
    ! cmp -s "$ROOT/$f" "$o/bin/$name/$f"
    # a root that has its own copy already is left as it is
    echo "# kept" >>"$o/bin/$name/$f"
    run tests/mutate-random --root-sources "$o" "$name"
    [ "$status" -eq 0 ]
    [ "$(tail -1 "$o/bin/$name/$f")" = "# kept" ]
}

@test "random mutants: a mutant's root holds the verbs.so built beside its binary (the stock lua5.4 loads the mutant's module), never the checkout's; a binary with none beside it gets none" {
    local o=$BATS_TEST_TMPDIR/out b=$BATS_TEST_TMPDIR/b
    mkdir -p "$o/tree/build/obj" "$o/tests" "$b/with" "$b/without"
    echo "mutant's verbsh" >"$b/with/verbsh"; echo "mutant's module" >"$b/with/verbs.so"
    echo "another verbsh" >"$b/without/verbsh"
    cd "$ROOT"
    run tests/mutate-random --make-root "$o" m1 "$b/with/verbsh"
    [ "$status" -eq 0 ]
    [ ! -L "$o/bin/m1/verbs.so" ]
    [ "$(cat "$o/bin/m1/verbs.so")" = "mutant's module" ]
    [ "$(cat "$o/bin/m1/verbsh")" = "mutant's verbsh" ]
    [ "$(readlink "$o/bin/m1/lua")" = "$ROOT/lua" ]
    run tests/mutate-random --make-root "$o" m2 "$b/without/verbsh"
    [ "$status" -eq 0 ]
    [ ! -e "$o/bin/m2/verbs.so" ]
    [ ! -L "$o/bin/m2/verbs.so" ]
}

# bats stops a test at a failed command, but not at one that fails before
# the last && of a list: in `[ "$status" -eq 0 ] && [ "$output" = x ]` in the
# middle of a test, a status of 1 passes. Each check on a line of its own.
@test "the suite: no test checks two things in one && list (only its last check could fail the test), outside if, while and a || that catches the list" {
    cd "$ROOT"
    run bash -c "grep -nP '(?<=\]) && (?=\[|! |grep )' tests/*/*.bats tests/*.bash | grep -vP '^[^:]+:\d+:\s*#' | grep -v '||' | grep -vP ':\s*(if|elif|while) ' | grep -vP '&& (return|skip|break|continue|echo|[a-z_]+\+?=)'"
    echo "$output"
    [ "$status" -eq 1 ]
    [ "$output" = "" ]
    # the checker itself: a chain in the middle of a test is found
    printf '@test "t" {\n    [ "$status" -eq 0 ] %s [ "$output" = x ]\n    true\n}\n' '&&' >"$BATS_TEST_TMPDIR/chain.bats"
    run bash -c "grep -nP '(?<=\]) && (?=\[|! |grep )' '$BATS_TEST_TMPDIR/chain.bats' | grep -v '||'"
    [ "$output" = '2:    [ "$status" -eq 0 ] '"&&"' [ "$output" = x ]' ]
    run bats "$BATS_TEST_TMPDIR/chain.bats"
    [ "$status" -eq 0 ]   # (why: status and output never set, the chain's first check fails unseen)
}
