#!/usr/bin/env bats
# Every optional second return and every "nothing" help documents, by the
# exact number of values (tests/oracle/returns.lua).
load ../helpers

setup() { require_device; }

@test "second returns and nothings: cq:wait timed out only when cut short (list and wc_array forms), held WCs handed back once, nil/empty at every timeout, query and init_qp_attr give two values" {
    run "$VERBSH" "$ROOT/tests/oracle/returns.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"returns: ok (76 checks)"* ]]
}
