#!/usr/bin/env bats
# `make bench` must keep working: a short run of the binary under test prints
# every row with a figure, and the bulk rows complete every WR they posted.
# No figure is asserted -- speed lives in the benchmark, not in tests.
load ../helpers

setup() { require_device; }

@test "bench/run prints every row of the table with a figure" {
    cd "$ROOT"
    BENCH_COUNT=0 BULK_WRS=2000 BENCH_ROUNDS=2 run bench/run --here 300
    echo "$output"
    [ "$status" -eq 0 ]
    for row in "C loop" "verbsh Lua loop" "verbsh prepared WRs + wc_array" "pyverbs loop" \
               "ibv_rc_pingpong -s 64" "verbsh bulk: 2000 WRs" "verbsh bulk, prepared chain"; do
        line=$(grep -F "| $row" <<<"$output")
        [[ $line =~ \|\ +[0-9]+\ \|\ +[0-9.]+x\ \| ]] || { echo "row without a figure: $row"; return 1; }
    done
    [[ $output == *"the shell measured: $VERBSH"* ]]
    [[ $output == *"each loop row is the median of 2 rounds"* ]]
    [[ $(grep -F "| C loop" <<<"$output") =~ \|\ +[0-9]+-[0-9]+\ \|$ ]]
    [[ $output == *"verbsh plain vs C: "*", vs pyverbs: "* ]]
    [[ $output == *"verbsh prepared vs C: "*", vs pyverbs: "* ]]
    [[ $output =~ bulk\ rss\ peak\ \(KiB\)\ after\ batch\ 1\ and\ each\ quarter:\ [0-9]+ ]]
    [[ $output =~ bulk\ prepared\ rss\ peak\ \(KiB\)\ after\ batch\ 1\ and\ each\ quarter:\ [0-9]+ ]]
    [[ $output =~ bulk\ rss\ verdict:\ (flat|GROWS)\ \(peak\ after\ batch\ 1\ [0-9]+\ KiB ]]
    [[ $output =~ bulk\ prepared\ rss\ verdict:\ (flat|GROWS)\ \(peak ]]
    # 2000 WRs in batches of 64: 31 batches; a plain batch takes two polls (32 WCs each)
    [[ $output == *"bulk wrs posted=1984 completed=1984"* ]]
    [[ $output == *"bulk prepared wrs posted=1984 completed=1984"* ]]
    [[ $output == *"start-up: verbsh -e '' "*" ms, lua5.4 -e '' "* ]]
}

@test "bench/count prints instructions per iteration (callgrind) of the loops asked for" {
    [[ $VERBSH != */build/asan/verbsh ]] || skip "valgrind cannot run an ASan binary; the count is of ./verbsh"
    cd "$ROOT"
    # C and prepared only: pyverbs and the plain loop under valgrind take minutes (make bench counts all)
    BENCH_COUNT_LOOPS="c fast" run bench/count 20 60
    echo "$output"
    [ "$status" -eq 0 ]
    for row in "C loop" "verbsh prepared WRs + wc_array"; do
        line=$(grep -F "| $row" <<<"$output")
        [[ $line =~ \|\ +[0-9]+\ \|\ +[0-9.]+x\ \|$ ]] || { echo "row without a count: $row"; return 1; }
    done
    [[ $(grep -F "| C loop" <<<"$output") == *"1.00x |" ]]
    [[ $output != *"pyverbs loop"* ]]
    [[ $output =~ verbsh\ prepared:\ [0-9]+\ instructions\ per\ iteration ]]
}
