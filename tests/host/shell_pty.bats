#!/usr/bin/env bats
# The REPL on a real terminal (a pty driven by expect).
load ../helpers

repl() {    # repl FRAGMENT: runs tests/pty/repl.exp with the fragment's text
    printf '%s\n' "$1" >"$BATS_TEST_TMPDIR/frag.exp"
    HOME=$BATS_TEST_TMPDIR TERM=dumb expect "$ROOT/tests/pty/repl.exp" "$VERBSH" "$BATS_TEST_TMPDIR/frag.exp"
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

@test "repl: an error shows its message and the shell goes on" {
    run repl '
        prompt; type "error(\"boom\")"; see "stdin:1: boom"
        prompt; type "nosuch.field"; see "attempt to index a nil value"
        prompt; type "print(\"still here\")"; see "still here"
        prompt; type "os.exit(0)"; expect eof'
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
