#!/usr/bin/env bats
# verbs.pretty, the shell's printer of values (lua/pretty.lua): key order,
# which keys need brackets, the one-line and the indented layout, and the
# strings shown as text. tests/host/shell.bats has its first test (nesting,
# cycles, depth, __tostring).
load ../helpers

@test "pretty: a string formats to its quoted text alone (no second value), a newline as \\n" {
    run "$VERBSH" -e '
      local p = require "verbs.pretty"
      print(select("#", p.format("a\nb")), p.format("a\nb"))
      print(p.format({ "x\ny", k = "v" }))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'1\t"a\\nb"' ]
    [ "${lines[1]}" = '{ "x\ny", k = "v" }' ]
    [ "${#lines[@]}" -eq 2 ]
}
