#!/usr/bin/env bats
# A short fuzz campaign (tests/fuzz/): a few seeds, with the binary under
# test; `make fuzz` runs the long one on the ASan build, every family on.
load ../helpers

setup() { require_device; }

FAMILIES=all

@test "fuzz: 8 seeds x 150 ops, every family: no crash, hang, leak or bad result" {
    run tests/fuzz/run --here --binary "$VERBSH" --seeds 8 --first 9001 --ops 150 --timeout 60 --families $FAMILIES
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[-1]} == "fuzz: 8 seeds x 150 ops ($FAMILIES, $VERBSH): 0 crashes, 0 hangs, 0 leaks, 0 bad results, 0 fuzzer errors in "* ]]
}
