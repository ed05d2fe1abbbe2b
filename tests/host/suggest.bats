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
