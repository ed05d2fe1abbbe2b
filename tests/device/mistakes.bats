#!/usr/bin/env bats
# The mistakes corpus (tests/mistakes/corpus.lua) on real rxe: every
# realistic mistake shows its guidance, not just "an error".
load ../helpers
bats_require_minimum_version 1.5.0

setup() { require_device; }

@test "mistakes corpus: each of the 83 mistakes shows its guidance" {
    run "$VERBSH" "$ROOT/tests/mistakes/run.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[-1]}" = "mistakes: 83 of 83 show their guidance" ]
}

@test "a warning: RDMA_WRITE without rdma is posted as C would, said on stderr; strict makes it an error; warnings(false) silences it" {
    script='
      local wr = {opcode = "RDMA_WRITE"}
      print("warn", pcall(verbs.send_wr, wr))
      verbs.warnings(false); print("quiet", pcall(verbs.send_wr, wr)); verbs.warnings(true)
      verbs.strict(true); print("strict", pcall(verbs.send_wr, wr))'
    run --separate-stderr "$VERBSH" -e "$script"
    echo "$output"; echo "$stderr"
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == "warn	true	send_wr RDMA_WRITE"* ]]
    [[ ${lines[1]} == "quiet	true	send_wr RDMA_WRITE"* ]]
    [[ ${lines[2]} == *"strict	false	"*"RDMA_WRITE without rdma: remote_addr 0, rkey 0, as C would post it"*"(an error under verbs.strict(true))"* ]]
    [ "$(grep -c 'verbsh warning: ' <<<"$stderr")" -eq 1 ]
    [[ $stderr == *"verbsh warning: "*"RDMA_WRITE without rdma: remote_addr 0, rkey 0, as C would post it"* ]]
}
