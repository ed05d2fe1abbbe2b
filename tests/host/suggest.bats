#!/usr/bin/env bats
# "Did you mean" and the words help takes for a struct, without a device
# (tests/device/oracle.bats covers every key, enum name and field).
load ../helpers

@test "help's words for structs: wc, wr (both of ibv_send_wr and ibv_recv_wr, the last too), sge and attr name the right struct" {
    local w want
    for w in wc:ibv_wc wr:ibv_send_wr wr:ibv_recv_wr sge:ibv_sge attr:ibv_qp_attr; do
        want=${w#*:}
        run vsh "help('${w%%:*}')"
        [ "$status" -eq 0 ]
        [[ $output == *"struct $want, as a table: $want ("* ]] || { echo "help '${w%%:*}' lacks $want: $output"; return 1; }
    done
    run vsh "help('wr')"
    [ "$(grep -c '^struct ibv_' <<<"$output")" -eq 2 ]
}

@test "verbs.suggest reaches the last name of the list, and a C habit beats a closer spelling; verbs' last lazy field is suggested" {
    run vsh 'print(verbs.suggest("qp_stat", { "wr_id", "opcode", "qp_state" }))
      print(verbs.suggest("dest_qp", { "qp_state", "dest_qp_num" }))
      print(verbs.suggest("mtu", { "mtx", "path_mtu" }))
      print(select(2, pcall(function() return verbs.trac end)))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = qp_state ]
    [ "${lines[1]}" = dest_qp_num ]
    [ "${lines[2]}" = path_mtu ]
    [[ ${lines[3]} == *"verbs has no field 'trac'; did you mean 'trace'?" ]]
}

@test "verbs.suggest: a transposition is one edit (abdc is nearer abcd than abxy; TRS is RTS), an alias beats even the typed name in another case, and names of 41 letters are never measured (a prefix of 3 or more still counts as 2)" {
    local t40 t39
    t40=$(printf 'a%.0s' {1..39})b
    t39=$(printf 'a%.0s' {1..39})
    run vsh "print(verbs.suggest('abdc', { 'abxy', 'abcd' }))
      print(verbs.suggest('abdc', { 'abcd', 'abxy' }))
      print(verbs.suggest('dabc', { 'dbxy', 'adbc' }))
      print(verbs.suggest('mtu', { 'path_mtu', 'MTU' }))
      print(verbs.suggest('$t40', { '${t40}z', '${t39}c' }))
      print(verbs.suggest('$t40', { '${t40}z' }))
      print(verbs.suggest('${t40}y', { '${t40}z' }))
      print(verbs.suggest('TRS', { 'RTR', 'RTS' }), verbs.suggest('TRS', { 'RTS', 'RTR' }))"
    echo "$output"
    [ "$status" -eq 0 ]
    # the first two letters swapped are one edit too: a 3-letter state name is found
    [ "${lines[7]}" = "RTS	RTS" ]
    [ "${lines[0]}" = abcd ]
    [ "${lines[1]}" = abcd ]
    [ "${lines[2]}" = adbc ]
    [ "${lines[3]}" = path_mtu ]
    [ "${lines[4]}" = "${t39}c" ]
    [ "${lines[5]}" = "${t40}z" ]
    [ "${lines[6]}" = nil ]
}

@test "an object's misspelled method or field names the one meant (methods from the class's table, fields from its list); nothing close names help" {
    fakeverbs_build "$BATS_TEST_TMPDIR"
    run fakeverbs_sh "$BATS_TEST_TMPDIR/fakeverbs.so" '
      local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)
      local function try(f) print(select(2, pcall(f))) end
      try(function() return pd.reg_rm end)
      try(function() return cq.req_notfy end)
      try(function() return cq.cqee end)
      try(function() return cq.xyzzy end)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "(command line):4: pd has no field 'reg_rm'; did you mean 'reg_mr'?" ]
    [ "${lines[1]}" = "(command line):5: cq has no field 'req_notfy'; did you mean 'req_notify'?" ]
    [ "${lines[2]}" = "(command line):6: cq has no field 'cqee'; did you mean 'cqe'?" ]
    [ "${lines[3]}" = "(command line):7: cq has no field or method 'xyzzy' (help(cq) lists them)" ]
    [ "${#lines[@]}" -eq 4 ]
}
