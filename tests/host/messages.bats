#!/usr/bin/env bats
# How messages print pointers and sizes, checked in the source: lua_pushfstring's
# %p already writes the 0x, and a size cast to int prints 2^31 and above as a
# negative number (%I with lua_Integer prints it as it is).
load ../helpers

@test "messages: no '0x%p' in src/ (it printed 0x0x...)" {
    run grep -n '0x%p' "$ROOT"/src/*.c
    echo "$output"
    [ "$status" -eq 1 ]
}

@test "messages: no size or length cast to int in a message of src/" {
    # a message line: a format call on it or on the line before
    run awk '/pushfstring|luaL_error|vargerror|vwarn|snprintf/ { msg = NR }
             msg && NR - msg <= 2 && /\(int\) *[A-Za-z_>.-]*(len|length|size)([^A-Za-z_(]|$)/ { print FILENAME ":" FNR ": " $0 }' "$ROOT"/src/*.c
    echo "$output"
    [ -z "$output" ]
    # the check itself finds the kind of line it is for
    printf 'x = lua_pushfstring(L, "%%d", (int)len);\n' > "$BATS_TEST_TMPDIR/bad.c"
    run awk '/pushfstring|luaL_error|vargerror|vwarn|snprintf/ { msg = NR }
             msg && NR - msg <= 2 && /\(int\) *[A-Za-z_>.-]*(len|length|size)([^A-Za-z_(]|$)/ { print FILENAME ":" FNR ": " $0 }' "$BATS_TEST_TMPDIR/bad.c"
    [ -n "$output" ]
}
