#!/usr/bin/env bats
# verbs.so in two Lua states on rxe: objects in both, ids per state (each
# state's first QP is qp1), the first state closed (its objects destroyed
# by its finalizers) while the second goes on using and destroying its own.
load ../helpers

setup() { require_device; }

@test "verbs.so in two Lua states on rxe: per-state ids, close one, the other goes on" {
    run "$ROOT/tests/states/run"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"a: use ok, qp RC 0x"*" INIT"* ]]
    [[ $output == *"b: use ok, qp RC 0x"*" INIT"* ]]
    has_line "a: traced nothing of b's"
    # b's verbs ran while a's trace was on: nothing of theirs was printed
    [[ $output != *"ibv_open_device"* && $output != *"ibv_alloc_pd("* ]]
    has_line "closed state a"
    has_line "b: after ok"
    has_line "two states: ok"
}
