#!/usr/bin/env bats
# The recorder (verbs.trace, verbs.record, --export-c) is an observer: with
# it on, every verb gives the same values and raises the same error, with
# the same message and location, as with it off. On real rxe, both binaries.
load ../helpers

setup() { require_device; }

check_observer() {
    run "$VERBSH" "$ROOT/tests/lua/recorder_observer.lua" "$1" 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[-1]}" = "observer: 17 of 17 the same" ]
    # no recorder problem: arguments too deep are recorded as such, not copied
    [[ $output != *"recorder problem"* ]]
    # the values themselves, known beforehand
    has_line "same mr:read of an MR made before: true | abcdefgh"
    has_line "same mr:write of an MR made before: true | abXYefgh"
    has_line "same mr:fill of an MR made before: true | abXYefAA"
    has_line "same a query's values: true | RESET | 3 | true | true"
    # the caller's line, also for a tail call and an assignment
    # (the script's path as Lua shows it: a long one is cut to "...its end")
    [[ $output == *"same a method called as the last statement (a tail call): false | "*"recorder_observer.lua:41: bad argument #1 to 'reg_mr' (length (integer) or initial contents (string) expected, got table)"* ]]
    [[ $output == *"same an assignment of a bad value: false | "*"recorder_observer.lua:37: bad argument #3 to 'newindex' (wr_id: integer expected, got string)"* ]]
    [[ $output == *"same verbs.open with a wrong type: false | "*"recorder_observer.lua:25: bad argument #1 to 'verbs.open'"* ]]
    # a binding names itself, never '?'
    [[ $output == *"same wr_set_inline_data with a number: false | bad argument #1 to 'wr_set_inline_data' (string (the bytes to send) expected, got number)"* ]]
    [[ $output == *"same wr_set_inline_data with a file: false | bad argument #1 to 'wr_set_inline_data' (string (the bytes to send) expected, got FILE*)"* ]]
    # addresses print once as 0x..., sizes above 2^31 as positive numbers
    [[ $output == *"remote_addr 0x1003 is not 8-byte aligned"* ]]
    [[ $output == *"and 0x1000..+2415919104 is not inside an MR"* ]]
    # a plain CQ's status explains the extended CQ, never suggests itself
    [[ $output == *"cq.status: this CQ was made by ibv_create_cq, whose completions are read from cq:poll() (wc.status of each)"* ]]
    [[ $output != *"did you mean 'status'"* ]]
}

@test "recorder: with verbs.trace on, every case gives what it gives with the trace off" {
    check_observer trace
}

@test "recorder: with verbs.record on, every case gives what it gives with recording off" {
    check_observer record
}

@test "recorder: the C export writes a comment for a call it cannot write, and a failed verbs.open, and never fails" {
    out=$BATS_TEST_TMPDIR/repro.c
    run "$VERBSH" -e '
      verbs.record(true)
      print(pcall(verbs.open, "no-such-device"))
      local ctx = verbs.open(); local pd = ctx:alloc_pd()
      verbs.record(false)
      local before = pd:reg_mr(16, "LOCAL_WRITE")   -- not recorded: the program has no such MR
      verbs.record(true)
      before:write(0, "abc"); print(before:read(0, 3))
      local mr = pd:reg_mr(16, "LOCAL_WRITE"); mr:write(0, "xyz"); print(mr:read(0, 3))
      local n, left = verbs.export_c("'"$out"'"); print(n, table.concat(left, "; "))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "abc"
    has_line "xyz"
    [[ $output == *"ibv_open_device failed: ENODEV"* ]]
    [[ $output != *"recorder problem"* ]]
    # two calls on the MR made before are left out, as comments naming why
    [ "${lines[-1]}" = "6	mr1:write; mr1:read" ]
    grep -q "verbs.open(\"no-such-device\") failed here with ENODEV: not reproduced" "$out"
    grep -q "could not be written as C: mr1 was registered before recording began" "$out"
    grep -q 'memcpy((char \*)mr2->addr + 0, "xyz", 3);' "$out"
    cc -Wall -Wextra -Werror -o "$BATS_TEST_TMPDIR/repro" "$out" -libverbs
    run "$BATS_TEST_TMPDIR/repro"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[-1]}" = reproduced ]
}

@test "recorder: the differential, 4 fuzz seeds run with the trace off, on, toggled and under --export-c, give the same outcomes" {
    run tests/fuzz/diff --here --binary "$VERBSH" --seeds 4 --first 9101 --ops 100
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[-1]} == "trace differential: 4 seeds x 100 ops ($VERBSH): 0 differences with the trace on or toggled, 0 with --export-c, 0 recorder problems, "*" seeds unsteady without the trace, in "* ]]
    # a seed that cannot be compared is not a pass: at most one of four
    [[ ${lines[-1]} =~ ", "[01]" seeds unsteady" ]]
}

@test "recorder: the mistakes corpus shows the same messages with verbs.trace on and with verbs.record on" {
    # tests/fuzz/diff --corpus runs the corpus with the trace off, on and
    # recording; it fails unless the corpus passes off and all three agree
    run tests/fuzz/diff --here --binary "$VERBSH" --seeds 0 --corpus
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[-1]} =~ ", mistakes corpus ("([0-9]+)" cases): 0 differences with verbs.trace or verbs.record on"$ ]]
    [ "${BASH_REMATCH[1]}" -ge 80 ]
}
