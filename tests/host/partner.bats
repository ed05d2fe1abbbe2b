#!/usr/bin/env bats
# partner() at the prompt: the partner's side of lessons 13 and 14 in the
# background of a seat's verbsh (tests/vm/link.bats runs it in real seats).
load ../helpers

# runs LUA in verbsh as seat 2 of a pair with seat 1 (no device here: the
# partner scripts start, and stop at verbs.open)
seat2() { RXE_ADDR=10.78.0.2 RXE_PEER_ADDR=10.78.0.1 "$VERBSH" -e "$1"; }
wait_lua='local function done(p) while p:alive() do require("socket").sleep(0.05) end return p:output() end'

@test "partner(): outside a seat it refuses and says why; a wrong lesson is named" {
    run env -u RXE_PEER_ADDR "$VERBSH" -e 'print(pcall(partner))'
    [ "${lines[0]}" = "false	partner(): this is not a lab seat with a partner (RXE_PEER_ADDR is not set), so there is no one to serve. Start a seat with its partner's number (make run LINK=HOST:PORT LISTEN=PORT SEAT=N PEER_SEAT=M, or CLASS=GROUP:PORT SEAT=N PEER_SEAT=M); on one machine lessons 13 and 14 start their partner themselves" ]
    # the argument is judged first: outside a seat too, a wrong one is named
    run env -u RXE_PEER_ADDR "$VERBSH" -e 'print(pcall(partner, {})); print(pcall(partner, "rdma-cm")); print(pcall(partner, 14.5))'
    [ "${lines[0]}" = 'false	partner(): which lesson'"'"'s partner? "pair-lab" (13), "rdma-cm" (14), or nothing for both, got a table' ]
    [[ ${lines[1]} == "false	partner(): this is not a lab seat with a partner"* ]]
    [[ ${lines[2]} == *"or nothing for both, got 14.5" ]]
    run seat2 'print(pcall(partner, "rc-send")); print(pcall(partner, 15)); partner(false)'
    [ "${lines[0]}" = 'false	partner(): which lesson'"'"'s partner? "pair-lab" (13), "rdma-cm" (14), or nothing for both, got rc-send' ]
    [[ ${lines[1]} == *"got 15" ]]
    [ "${lines[2]}" = "partner: none running (partner() starts one)" ]
}

@test "partner(): both partners, or one by name or number; each names its lesson, script, address and port" {
    run seat2 "$wait_lua"'; local out = done(partner())
        print(out:match("pair_partner.lua:%d+") ~= nil, out:match("cm_partner.lua") == nil)'
    echo "$output"
    [[ ${lines[0]} =~ ^partner:\ started\ in\ the\ background\ \(pid\ [0-9]+\)\ for\ your\ partner,\ seat\ 1\ \(10\.78\.0\.1\):$ ]]
    [ "${lines[1]}" = "  lesson 13 (pair-lab): examples/pair_partner.lua listens on 10.78.0.2:18600 (verbs.oob)" ]
    [ "${lines[2]}" = "  then lesson 14 (rdma-cm): examples/cm_partner.lua listens on rdma_cm port 7471 (your partner connects to 10.78.0.2:7471)" ]
    [[ ${lines[3]} =~ ^\ \ its\ output:\ /.+\;\ partner\(false\)\ stops\ it$ ]]
    # pair_partner failed (no device), so cm_partner never started
    [ "${lines[4]}" = "true	true" ]
    run seat2 "$wait_lua"'; local p = partner(14); local out = done(p)
        print(out:match("cm_partner.lua:%d+") ~= nil, out:match("pair_partner") == nil, p.log == out and "" or p.log:sub(1, 1))'
    echo "$output"
    [ "${#lines[@]}" -eq 4 ]
    [ "${lines[1]}" = "  lesson 14 (rdma-cm): examples/cm_partner.lua listens on rdma_cm port 7471 (your partner connects to 10.78.0.2:7471)" ]
    [ "${lines[3]}" = "true	true	/" ]
    # outside the class segment the partner is named by its address
    run env RXE_ADDR=192.0.2.7 RXE_PEER_ADDR=192.0.2.8 "$VERBSH" -e 'partner "pair-lab"; partner(false)'
    [[ ${lines[0]} == *"for your partner, the partner at 192.0.2.8:" ]]
    [ "${lines[1]}" = "  lesson 13 (pair-lab): examples/pair_partner.lua listens on 192.0.2.7:18600 (verbs.oob)" ]
    [[ ${lines[3]} =~ ^partner:\ stopped\ \(pid\ [0-9]+\)\;\ its\ output\ is\ in\ /.+$ ]]
}

@test "partner(): a second one while the first runs is refused; partner(false) stops it" {
    run seat2 'local p = partner "pair-lab"
        local ok, err = pcall(partner, "rdma-cm")
        print(ok, (err:gsub("pid %d+", "pid N"):gsub("in %S+:", "in LOG:")))
        print(partner(false), p:alive())'
    echo "$output"
    # (the first may already have stopped at verbs.open: then a second starts)
    [[ ${lines[3]} == "false	partner(): one is running already (pid N, output in LOG: partner(false) stops it" ]] ||
        [[ $output == *"lesson 14 (rdma-cm)"* ]]
    [[ ${lines[-1]} == "true	false" ]]
}
