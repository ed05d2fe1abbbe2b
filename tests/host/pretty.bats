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

@test "pretty: keys sort numbers (negative, fractional, beyond the sequence) before strings before booleans; reserved words and non-names are bracketed, names are not; an empty table is {}" {
    run "$VERBSH" -e '
      local p = require "verbs.pretty"
      print(p.format({ [true] = "t", [2.5] = "f", [-3] = "n", [10] = "ten", z = 1, [false] = 0 }))
      print(p.format({ 1, 2, [4] = 4, [0] = 0 }))
      print(p.format({}), p.format({ {}, { {} } }))
      print(p.format({ ["end"] = 1, ["in"] = 2, ["do"] = 3, ["not"] = 4, ["local"] = 5, _x1 = 6, ["1a"] = 7 }))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = '{ [-3] = "n", [2.5] = "f", [10] = "ten", z = 1, [false] = 0, [true] = "t" }' ]
    [ "${lines[1]}" = '{ 1, 2, [0] = 0, [4] = 4 }' ]
    [ "${lines[2]}" = $'{}\t{ {}, { {} } }' ]
    # 80 characters on one line: too wide (78), so one key a line
    [ "${lines[3]}" = '{' ]
    [ "${lines[4]}" = '  ["1a"] = 7,' ]
    [ "${lines[5]}" = '  _x1 = 6,' ]
    [ "${lines[6]}" = '  ["do"] = 3,' ]
    [ "${lines[7]}" = '  ["end"] = 1,' ]
    [ "${lines[8]}" = '  ["in"] = 2,' ]
    [ "${lines[9]}" = '  ["local"] = 5,' ]
    [ "${lines[10]}" = '  ["not"] = 4' ]
    [ "${lines[11]}" = '}' ]
    [ "${#lines[@]}" -eq 12 ]
}

@test "pretty: keys of other types (tables) sort by their text; a table nested in a wide one is indented under its key, and a table fits on one line up to 78 characters with its indent" {
    run "$VERBSH" -e '
      local p = require "verbs.pretty"
      local a, b = setmetatable({}, { __tostring = function() return "key B" end }), setmetatable({}, { __tostring = function() return "key A" end })
      print(p.format({ [a] = 1, [b] = 2, [true] = 3 }))
      local wide = { alpha = string.rep("a", 30), beta = string.rep("b", 30), gamma = { 1, 2, 3 } }
      print(p.format({ inner = wide }))
      -- { s = "x...x" } with n x is n + 10 characters: one line up to 78
      print(#p.format({ s = string.rep("x", 68) }), #p.format({ s = string.rep("x", 69) }))
      -- { { s = "x...x" } } is n + 14 on one line; broken, the inner table is indented 2: one line up to 66
      local rows = {}
      for n = 64, 67 do rows[#rows + 1] = select(2, p.format({ { s = string.rep("x", n) } }):gsub("\n", "")) + 1 end
      print(table.concat(rows, " "))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = '{ [true] = 3, [key A] = 2, [key B] = 1 }' ]
    [ "${lines[1]}" = '{' ]
    [ "${lines[2]}" = '  inner = {' ]
    [ "${lines[3]}" = '    alpha = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",' ]
    [ "${lines[4]}" = '    beta = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",' ]
    [ "${lines[5]}" = '    gamma = { 1, 2, 3 }' ]
    [ "${lines[6]}" = '  }' ]
    [ "${lines[7]}" = '}' ]
    [ "${lines[8]}" = $'78\t81' ]
    [ "${lines[9]}" = "1 3 3 5" ]
}

@test "pretty: a string given to as_text (an explanation) prints as its text, others quoted; text_results marks a function's first result; the last 32 are remembered; print of nothing prints nothing" {
    run "$VERBSH" -e '
      local p = require "verbs.pretty"
      print(p.format(p.as_text("why: x\nfix: y")))
      print(p.format("why: x\nfix: z"))
      print(p.text_results(function() return "from a function", 2 end)())
      print(p.format("from a function"))
      print(p.format(p.as_text(7)))
      for i = 1, 33 do p.as_text("t" .. i) end
      print(p.format("t1"), p.format("t2"), p.format("t33"))
      p.as_text("t2")   -- again: remembered already, it is not pushed again (nor t3 out)
      print(p.format("t3"), p.format("t2"))
      p.print()
      p.print(1, "a", nil, p.as_text("b c"))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "why: x" ]
    [ "${lines[1]}" = "fix: y" ]
    [ "${lines[2]}" = '"why: x\nfix: z"' ]
    [ "${lines[3]}" = "from a function" ]
    [ "${lines[4]}" = "from a function" ]
    [ "${lines[5]}" = "7" ]
    # 33 remembered after the first ones: "why..." and "from a function" and t1 are out
    [ "${lines[6]}" = $'"t1"\tt2\tt33' ]
    [ "${lines[7]}" = $'t3\tt2' ]
    [ "${lines[8]}" = $'1\t"a"\tnil\tb c' ]
    [ "${#lines[@]}" -eq 9 ]
}
