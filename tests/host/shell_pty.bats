#!/usr/bin/env bats
# The REPL on a real terminal (a pty driven by expect).
load ../helpers

repl() {    # repl FRAGMENT: runs tests/pty/repl.exp with the fragment's text
    printf '%s\n' "$1" >"$BATS_TEST_TMPDIR/frag.exp"
    HOME=$BATS_TEST_TMPDIR TERM=${PTY_TERM:-dumb} expect "$ROOT/tests/pty/repl.exp" "$VERBSH" "$BATS_TEST_TMPDIR/frag.exp"
}

@test "repl: an expression prints its value; a table prints nested and sorted" {
    run repl '
        prompt; type "1 + 1"; see "2"
        prompt; type "{b = 2, a = {1, 2}}"; see "{ a = { 1, 2 }, b = 2 }"
        prompt; type "os.exit(0)"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "repl: incomplete input continues on the next line" {
    run repl '
        prompt; type "function f()"; see ">> "
        type "return 40 + 2"; see ">> "
        type "end"; prompt
        type "f()"; see "42"
        prompt; type "os.exit(0)"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "repl: an undefined global at the prompt is an error with a guess (a key that is no name, _G[7], is plain nil); a script keeps plain Lua" {
    run repl '
        prompt; type "x = RTS"; see "RTS is not defined: did you mean \"RTS\"? (enum values are strings: a name of ibv_qp_state)"
        prompt; type "x = IBV_QPS_ERR"; see "IBV_QPS_ERR is not defined: did you mean \"ERR\"?"
        prompt; type "my_qp = 1"; prompt; type "print(my_qpp)"; see "my_qpp is not defined: did you mean my_qp?"
        prompt; type "print(rawget(_G, \"nope\"))"; see "nil"
        prompt; type "print(_G\[7\] == nil, _G\[true\] == nil, \"keys\")"; see "true\ttrue\tkeys"
        prompt; type "os.exit(0)"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
    run "$VERBSH" -e 'print(undefined_global)'
    [ "$status" -eq 0 ]
    [ "$output" = "nil" ]
}

@test "the undefined-global guard: chunks typed at the prompt (=stdin) always; other code only under verbs.strict(true)" {
    run "$VERBSH" -e '
      require("verbs.repl").guard_globals()
      print(load("return undefined_x", "=other")())
      verbs.strict(true); print(pcall(load("return undefined_y", "=other")))
      verbs.strict(false); print(pcall(load("return undefined_z", "=stdin")))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "nil" ]
    [ "${lines[1]}" = "false	other:1: undefined_y is not defined (no global of that name has been set)" ]
    [ "${lines[2]}" = "false	stdin:1: undefined_z is not defined (no global of that name has been set)" ]
}

@test "repl: an error shows its message (an error object's __tostring, called once) and the shell goes on" {
    run repl '
        prompt; type "error(\"boom\")"; see "stdin:1: boom"
        prompt; type "nosuch.field"; see "nosuch is not defined (no global of that name has been set)"
        prompt; type "n = 0; error(setmetatable({}, {__tostring = function() n = n + 1; return \"shown \" .. n end}))"; see "shown 1"
        prompt; type "print(\"tostring calls\", n)"; see "tostring calls\t1"
        prompt; type "print(\"still here\")"; see "still here"
        prompt; type "os.exit(0)"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "repl: a hook set with debug.sethook stays set after its chunk, and after a Ctrl-C that interrupted a loop under it" {
    run repl '
        prompt; type "n = 0; debug.sethook(function() n = n + 1 end, \"\", 1000)"
        prompt; type "for i = 1, 100000 do end; print(\"counted\", n > 50)"; see "counted\ttrue"
        prompt; type "while true do end"
        sleep 0.5; send "\003"; see "interrupted"
        prompt; type "m = n; for i = 1, 100000 do end; print(\"kept\", debug.gethook() ~= nil, n > m)"; see "kept\ttrue\ttrue"
        prompt; send "\004"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "repl: Ctrl-C interrupts a running loop and returns to the prompt" {
    run repl '
        prompt; type "while true do end"
        sleep 0.5; send "\003"; see "interrupted"
        prompt; type "print(\"alive\")"; see "alive"
        prompt; send "\004"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "repl: Ctrl-C while the shell ends (a finalizer that loops at exit) stops it, as it stops any program: the prompt's own Ctrl-C handler is gone" {
    run repl '
        prompt; type "x = setmetatable({}, { __gc = function() print(\"gc-start\"); local t = os.clock(); while os.clock() - t < 20 do end; print(\"gc-\" .. \"done\") end })"
        prompt; send "\004"; see "gc-start"
        sleep 0.3; send "\003"; expect eof
        set r [wait]; puts "\nwait: [lrange $r 4 5]"'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"wait: CHILDKILLED SIGINT"* ]]
    [[ $output != *"gc-done"* ]]
}

@test "repl: Ctrl-C at the prompt drops the line and an unfinished chunk" {
    run repl '
        prompt; send "print(\"never\")"; send "\003"; prompt
        type "for i = 1, 2 do"; see ">> "; send "\003"; prompt
        type "print(\"fresh\")"; see "fresh"
        prompt; send "\004"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output != *"never"*"never"* ]]
}

# Each completed line is then run, so the test sees what was really typed.
@test "repl: Tab completes globals, fields and names inside a string" {
    run repl '
        prompt; send "print(stri\t.for\t(\"<%d>\", 7))\r"; see "<7>"
        prompt; send "x = \"REMOTE_WR\t\"\r"
        prompt; type "print(\"x=\" .. x)"; see "x=REMOTE_WRITE"
        prompt; send "print(type(verbs.oo\t))\r"; see "table"
        prompt; send "\004"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "repl: completion walks raw tables and never runs user code" {
    run repl '
        prompt; type "t = setmetatable({}, {__index = function() os.exit(9) end})"
        prompt; type "u = {alpha = 1}"
        prompt; send "t.x\t"; send "\025"
        send "print(\"v\" .. u.al\t)\r"; see "v1"
        prompt; send "\004"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "repl: history persists across sessions in ~/.verbsh_history" {
    run repl '
        prompt; type "history_marker = 12345"
        prompt; send "\004"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
    grep -qx 'history_marker = 12345' "$BATS_TEST_TMPDIR/.verbsh_history"
    run repl '
        prompt; send "\033\[A"; see "history_marker = 12345"
        send "\r"; prompt; send "\004"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
}

# xterm: readline then switches bracketed paste on and off around each line,
# and turning it off ends in a carriage return that a later "^C" overwrote
# the prompt after ("^Crbsh> partial").
@test "repl: Ctrl-C on a typed line shows ^C after the text and a fresh prompt, as bash does" {
    PTY_TERM=xterm run repl '
        prompt; send "print(\"partial"; sleep 0.3; send "\003"; prompt
        type "print(\"fresh\")"; see "fresh"
        prompt; send "\004"; expect eof'
    echo "$output" | od -c | head -20
    [ "$status" -eq 0 ]
    [[ $output == *'verbsh> print("partial^C'* ]]
    [[ $output != *'^Crbsh'* ]]
    [[ $output != *'never'* ]]
}

@test "repl: verbs.explain(...) at the prompt prints its lines as text, and is still a string" {
    run repl '
        prompt; type "verbs.explain(\"RNR_RETRY_EXC_ERR\")"; see "fix: post receives"
        prompt; type "s = verbs.explain(\"RNR_RETRY_EXC_ERR\")"
        prompt; type "s"; see "fix: post"
        prompt; type "type(s), #s > 50, \"a\\nb\""; see "string"
        prompt; send "\004"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *$'the requester\'s QP is now in ERR\r\n  fix: post receives'* ]]
    [[ $output != *'ERR\n  fix'* ]]
    [[ $output != *'"RNR_RETRY_EXC_ERR (13)'* ]]
    # other strings keep their quotes and escapes
    [[ $output == *'"string"	true	"a\nb"'* ]]
}

# Each completed line is then run, so the test sees what was really typed:
# q:modify stands for qp:modify (a method named modify takes ibv_qp_attr).
@test "repl: Tab completes the keys of the table being typed, nested ones too" {
    run repl '
        prompt; type "q = {}; function q:modify(t) got = t end"
        prompt; send "q:modify{qp_st\t = \"INIT\", ah_attr = {gr\t = {sgid_in\t = 3}}, max_dest\t = 1}\r"
        prompt; type "print(\"got\", got.qp_state, got.ah_attr.grh.sgid_index, got.max_dest_rd_atomic)"
        see "got\tINIT\t3\t1"
        prompt; send "q:modify{qp_state = \"RTS\", cap = {max_send_w\t = 2}}\r"
        prompt; type "print(\"cap\", got.cap.max_send_wr)"; see "cap\t2"
        prompt; send "\004"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "repl: Tab in a string offers the enum that fits the key or argument being typed" {
    # "RE" alone is REM_..., REJECTED, RESET...: after qp_state = it is RESET;
    # after path_mtu = "10 it is 1024; pd:reg_mr's access takes REMOTE_WR...
    run repl '
        prompt; type "q = {}; function q:modify(t) got = t end; p = {}; function p:reg_mr(n, a) acc = a end"
        prompt; send "q:modify{qp_state = \"RE\t\", path_mtu = \"10\t\", qp_access_flags = {\"REMOTE_R\t\"}}\r"
        prompt; type "print(\"got\", got.qp_state, got.path_mtu, got.qp_access_flags\[1\])"
        see "got\tRESET\t1024\tREMOTE_READ"
        prompt; send "p:reg_mr(64, \"REMOTE_W\t\")\r"
        prompt; type "print(\"acc\", acc)"; see "acc\tREMOTE_WRITE"
        prompt; send "\004"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "repl: Tab hides __ names (metamethods, private keys) unless the word starts with _" {
    run repl '
        prompt; type "u = {__hidden = 1, shown = 2}"
        prompt; send "print(\"v\" .. u.s\t)\r"; see "v2"
        prompt; send "print(\"w\" .. u.\t)\r"; see "w2"
        prompt; send "print(\"h\" .. u.__\t)\r"; see "h1"
        prompt; send "\004"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "repl --record: compiled chunks are saved with a header; verbsh FILE replays them, errors included" {
    rec=$BATS_TEST_TMPDIR/session.lua
    printf '%s\n' '
        prompt; type "x = 20"
        prompt; type "x * 2 + 2"; see "42"
        prompt; type "for i = 1,"; see ">> "; type "2 do print(\"line\" .. i) end"; see "line2"
        prompt; type "error(\"boom\" .. x)"; see "boom20"
        prompt; type "print(("; see ">> "; type ")"; see "unexpected symbol"
        prompt; type "print(\"after\", x)"; see "after"
        prompt; type "os.exit(0)"; expect eof' >"$BATS_TEST_TMPDIR/frag.exp"
    HOME=$BATS_TEST_TMPDIR TERM=dumb run expect "$ROOT/tests/pty/repl.exp" "$VERBSH --record $rec" "$BATS_TEST_TMPDIR/frag.exp"
    echo "$output"
    [ "$status" -eq 0 ]
    cat "$rec"
    head -1 "$rec" | grep -E '^-- verbsh [0-9.]+ session on device [^ ]+, recorded 20[0-9-]+ '
    ! grep -q 'print(()' "$rec"            # the syntax error is not saved
    ! grep -q 'os.exit' "$rec"             # nor the chunk that left the shell
    run "$VERBSH" "$rec"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(printf '%s\n' "$output" | grep -v '^$')" = "$(printf '42\nline1\nline2\nstdin:1: boom20\nafter\t20')" ]
}

@test "repl --record: the replay does what the session did: a final ], return, a local gone, appended sessions" {
    rec=$BATS_TEST_TMPDIR/session.lua
    printf '%s\n' '
        prompt; type "print(\"first\")"; see "first"
        prompt; type "t = {5}"
        prompt; type "y = t\[1\] + nil_table_zz\[1\]"; see "stdin:1: nil_table_zz is not defined (no global of that name has been set)"
        prompt; type "return 7, 8"; see "8"
        prompt; type "local x = 5"
        prompt; type "print(x)"; see "stdin:1: x is not defined: did you mean t?"
        prompt; type "if t\[1\] == 5 then return \"five\" end"; see "five"
        prompt; type "print(\"after\") -- a comment"; see "after"
        prompt; type "os.exit(0)"; expect eof' >"$BATS_TEST_TMPDIR/frag.exp"
    HOME=$BATS_TEST_TMPDIR TERM=dumb run expect "$ROOT/tests/pty/repl.exp" "$VERBSH --record $rec" "$BATS_TEST_TMPDIR/frag.exp"
    echo "$output"
    [ "$status" -eq 0 ]
    printf '%s\n' '
        prompt; type "print(\"second session\")"; see "second session"
        prompt; send "\004"; expect eof' >"$BATS_TEST_TMPDIR/frag.exp"
    HOME=$BATS_TEST_TMPDIR TERM=dumb run expect "$ROOT/tests/pty/repl.exp" "$VERBSH --record $rec" "$BATS_TEST_TMPDIR/frag.exp"
    [ "$status" -eq 0 ]
    cat "$rec"
    [ "$(grep -c '^-- verbsh .* session on device' "$rec")" = 2 ]   # appended, not overwritten
    run "$VERBSH" "$rec"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "$(printf '%s\n' first \
        'stdin:1: nil_table_zz is not defined (no global of that name has been set)' \
        "7	8" \
        'stdin:1: x is not defined: did you mean t?' \
        '"five"' after 'second session')" ]
}

@test "--record without a file name, or to a directory that does not exist, is an error" {
    run "$VERBSH" --record
    [ "$status" -ne 0 ]
    [[ "$output" == *"'--record' needs a file name"* ]]
    run "$VERBSH" --record /nonexistent/dir/x.lua -e 'print(1)'
    [ "$status" -ne 0 ]
    [[ "$output" == *"--record: cannot write /nonexistent/dir/x.lua"* ]]
}

@test "--export-c to a directory that does not exist is refused before the run, without an internal location" {
    run "$VERBSH" --export-c
    [ "$status" -ne 0 ]
    [[ "$output" == *"'--export-c' needs a file name"* ]]
    run "$VERBSH" --export-c /nonexistent/dir/x.c -e 'print("ran")'
    echo "$output"
    [ "$status" -ne 0 ]
    [ "$output" = "--export-c: cannot write /nonexistent/dir/x.c: No such file or directory" ]
    run "$VERBSH" --export-c "$BATS_TEST_TMPDIR/x.c" -e 'print("ran")'
    [ "$status" -eq 0 ]
    [ ! -e "$BATS_TEST_TMPDIR/x.c" ]   # the probe leaves no file behind
}

# by_hand.lua records a call without a device; the script then takes the
# directory away, so only finish, at the end, finds the file unwritable.
@test "--export-c: a file that cannot be written when the run ends (its directory gone, a full disk) fails the run, naming the option and the file" {
    local rec='local S = dofile(os.getenv("ROOT") .. "/tests/export/by_hand.lua")
      S.call(S.object("pd", true), "reg_mr", { 64, "LOCAL_WRITE" }, { S.object("mr", false, { addr = 0x1000, length = 64, lkey = 1, rkey = 2 }) })'
    mkdir "$BATS_TEST_TMPDIR/gone"
    run "$VERBSH" --export-c "$BATS_TEST_TMPDIR/gone/x.c" -e "$rec" -e 'print("ran", os.remove(os.getenv("BATS_TEST_TMPDIR") .. "/gone"))'
    echo "$output"
    [ "$status" -eq 1 ]
    [ "$output" = "ran	true
--export-c: cannot write $BATS_TEST_TMPDIR/gone/x.c: No such file or directory" ]
    # the text is buffered: the full disk shows when the file is closed
    run "$VERBSH" --export-c /dev/full -e "$rec"
    [ "$status" -eq 1 ]
    [ "$output" = "--export-c: cannot write /dev/full: No space left on device" ]
    # with -i the program is written after the shell, which read stdin first
    mkdir "$BATS_TEST_TMPDIR/gone"
    run bash -c 'echo "print(\"shell\", os.remove(os.getenv(\"BATS_TEST_TMPDIR\") .. \"/gone\"))" |
        "$VERBSH" --export-c "$BATS_TEST_TMPDIR/gone/x.c" -e "$1" -i 2>&1' _ "$rec"
    echo "$output"
    [ "$status" -eq 1 ]
    [ "$output" = "verbsh> shell	true
verbsh> --export-c: cannot write $BATS_TEST_TMPDIR/gone/x.c: No such file or directory" ]
    # and verbs.export_c itself
    run "$VERBSH" -e "$rec" -e 'print(pcall(verbs.export_c, "/dev/full"))'
    [ "$output" = "false	export_c: /dev/full: No space left on device" ]
}

# Each completed line is then run, so the test sees what was really typed.
@test "repl: Tab completes a keyword, skips keys that are no names, offers the methods of an __index table, and an escaped quote keeps a string open" {
    run repl '
        prompt; send "retu\t 40 + 2\r"; see "42"
        prompt; type "t = {\[\"a b\"\] = 1, abc = 3}; u = {\[\"1\"\] = 1, _x = 2}"
        prompt; send "print(\"v\" .. t.a\t, u.\t)\r"; see "v3\t2"
        prompt; type "o = setmetatable({}, {__index = {greet = function() return \"hi\" end, n = 5}})"
        prompt; send "print(o:gr\t())\r"; see "hi"
        prompt; send "s = \"a\\\"b REMOTE_WR\t\"\r"
        prompt; type "print(\"s=\" .. s)"; see "s=a\"b REMOTE_WRITE"
        prompt; send "\004"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
}

# Each would read a field of something that is no table: the shell would
# crash (a raw get on a number or nil) instead of completing nothing.
@test "repl: Tab through a value that is no table, or in a string with verbs or its enums gone, completes nothing and the shell goes on" {
    run repl '
        prompt; type "n = 5"
        prompt; send "x = n.y.z\t"; send "\025"; send "print(\"alive 1\")\r"; see "alive 1"
        prompt; type "v = verbs; verbs = nil"
        prompt; send "x = \"REMOTE_WR\t\"\r"
        prompt; type "verbs = {}; package.loaded.verbs = {}"
        prompt; send "y = \"REMOTE_WR\t\"\r"
        prompt; type "verbs = v; package.loaded.verbs = v; print(\"x=\" .. x, \"y=\" .. y)"; see "x=REMOTE_WR\ty=REMOTE_WR\r"
        prompt; send "z = \"REMOTE_WR\t\"\r"
        prompt; type "print(\"z=\" .. z)"; see "z=REMOTE_WRITE"
        prompt; send "\004"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "repl: Tab through a value that is no table on a continuation line completes nothing and keeps the chunk typed so far" {
    # (the chunk typed so far is on the Lua stack under the completer's
    # values: a walk that left the stack short would lose it)
    run repl '
        prompt; type "n = 5"
        prompt; type "function f()"; see ">> "
        send "local a = n.y.z\t"; send "\025"; send "local a = 11\r"; see ">> "
        send "local b = math.pi.x.y\t"; send "\025"; send "return a, 22 end\r"; prompt
        type "print(\"f\", f())"; see "f\t11\t22"
        prompt; send "\004"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "repl: VERBSH_HISTORY names the history file, instead of ~/.verbsh_history" {
    VERBSH_HISTORY=$BATS_TEST_TMPDIR/hist run repl '
        prompt; type "history_marker = 54321"
        prompt; send "\004"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(cat "$BATS_TEST_TMPDIR/hist")" = "history_marker = 54321" ]
    [ ! -e "$BATS_TEST_TMPDIR/.verbsh_history" ]
}

# With SIGHUP ignored, the shell is left reading a terminal that hung up:
# the read's end of file ends it (a finalizer shows the state was closed)
# rather than a loop of waits that each find the terminal "readable".
# expect waits up to 5 s for it to end (a zombie has), then stops it.
@test "repl: a terminal that hangs up ends the shell when SIGHUP is ignored" {
    printf '%s\n' '
        prompt; type "x = setmetatable({}, {__gc = function() io.open(os.getenv(\"HOME\") .. \"/closed\", \"w\"):write(\"bye\"):close() end})"
        prompt; set pid [exp_pid]; close
        proc state {pid} { lindex [split [exec cat /proc/$pid/stat]] 2 }
        for {set i 0} {$i < 50 && [state $pid] ne "Z"} {incr i} { after 100 }
        if {[state $pid] ne "Z"} { exec kill -9 $pid; wait; fail "still running after the hangup" }
        puts "\nexit status: [lindex [wait] 3]"' >"$BATS_TEST_TMPDIR/frag.exp"
    HOME=$BATS_TEST_TMPDIR TERM=dumb run expect "$ROOT/tests/pty/repl.exp" "sh -c {trap '' HUP; exec \"\$0\"} $VERBSH" "$BATS_TEST_TMPDIR/frag.exp"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[-1]}" = "exit status: 0" ]
    [ "$(cat "$BATS_TEST_TMPDIR/closed")" = bye ]
}

@test "repl: Tab in a string on a continuation line completes and keeps the chunk typed so far, with verbs or its enums gone too" {
    run repl '
        prompt; type "t = {"; see ">> "
        send "s = \"REMOTE_WR\t\",\r"; see ">> "
        type "n = 7 }"; prompt
        type "print(\"t\", t.s, t.n)"; see "t\tREMOTE_WRITE\t7"
        prompt; type "v = verbs; verbs = nil"
        prompt; type "u = {"; see ">> "
        send "s = \"REMOTE_WR\t\" }\r"; prompt
        type "verbs = {}; package.loaded.verbs = {}"
        prompt; type "w = {"; see ">> "
        send "s = \"REMOTE_RE\t\" }\r"; prompt
        type "verbs = v; package.loaded.verbs = v; print(\"u\", u.s, \"w\", w.s)"; see "u\tREMOTE_WR\tw\tREMOTE_RE\r"
        prompt; send "\004"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
}

@test "repl: VERBSH_HISTORY of one character (a file h in the working directory) is a history file as any other; an empty one means ~/.verbsh_history" {
    mkdir -p "$BATS_TEST_TMPDIR/wd"
    cd "$BATS_TEST_TMPDIR/wd"
    VERBSH_HISTORY=h run repl '
        prompt; type "history_marker = 7"
        prompt; send "\004"; expect eof'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(cat "$BATS_TEST_TMPDIR/wd/h")" = "history_marker = 7" ]
    VERBSH_HISTORY= run repl '
        prompt; type "history_marker = 8"
        prompt; send "\004"; expect eof'
    [ "$status" -eq 0 ]
    [ "$(cat "$BATS_TEST_TMPDIR/.verbsh_history")" = "history_marker = 8" ]
}
