#!/usr/bin/env bats
# "Did you mean" through the real calls (tests/oracle/suggest.lua): every
# key of every struct a verb reads, every name of every enum a verb reads,
# every field of each object, mistyped, is suggested back (so the last of
# each list too), and each C habit leads to the key it means.
load ../helpers

setup() { require_device; }

@test "did you mean: each key of 17 structs, each name of 19 enums, each object field, and 23 C habits are suggested right" {
    run "$VERBSH" "$ROOT/tests/oracle/suggest.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "keys: 17 structs"
    has_line "enums: 19"
    [[ $output == *"suggest: ok (349 checks)"* ]]
}
