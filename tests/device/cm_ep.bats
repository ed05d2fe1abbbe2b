#!/usr/bin/env bats
# librdmacm's short path (rdma_getaddrinfo, rdma_create_ep, rdma_get_request
# and the rdma_verbs.h helpers): in one process, between two verbsh
# processes, and against rdma-core's own rdma_server and rdma_client.
load ../helpers

setup() { require_device; cd "$BATS_TEST_TMPDIR"; }

# Waits until an rdma_cm id listens on PORT.
wait_cm_listen() {
    for _ in $(seq 300); do
        rdma resource show cm_id 2>/dev/null | grep -q "state LISTEN .*src-addr [0-9.]*:$1 " && return 0
        sleep 0.1
    done
    echo "no rdma_cm id listens on port $1" >&2; return 1
}

# pair PORT SERVER_CMD... -- CLIENT_CMD...: both sides, both outputs.
pair() {
    local srv=() port=$1; shift
    while [ "$1" != -- ]; do srv+=("$1"); shift; done; shift
    timeout 120 "${srv[@]}" >srv.out 2>&1 &
    local pid=$!
    wait_cm_listen "$port" || { kill $pid; cat srv.out; return 1; }
    timeout 120 "$@" >cli.out 2>&1; local crc=$?
    wait $pid; local src=$?
    echo "--- server (exit $src)"; cat srv.out
    echo "--- client (exit $crc)"; cat cli.out
    [ $src -eq 0 ]
    [ $crc -eq 0 ]
}

@test "short path in one process: getaddrinfo hints and fields, create_ep, get_request, the helpers' errors, traced; post_write/read/sendv/ud_send byte for byte" {
    run "$VERBSH" "$ROOT/tests/lua/cm_ep.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"cm_ep: ok (178 checks)"* ]]
}

@test "short path: verbsh's rdma_server.lua and rdma_client.lua -x: SEND both ways, RDMA READ, post_writev of two SGEs" {
    run pair 7501 "$VERBSH" "$ROOT/examples/rdma_server.lua" -p 7501 -x -- \
        "$VERBSH" "$ROOT/examples/rdma_client.lua" -s "$RXE_ADDR" -p 7501 -x
    echo "$output"
    [ "$status" -eq 0 ]
    has_line 'rdma_server.lua: received 16 bytes: "hello from verbs"'
    has_line 'rdma_client.lua: read "read me, client"'
    # two SGEs (6 + 7 bytes of "wrote  by verbs", the second from offset 7) landed side by side
    has_line 'rdma_server.lua: the client says "done"; it wrote "wrote by verb"'
    has_line "rdma_client.lua: connected to $RXE_ADDR:7501"
    has_line "rdma_server.lua: end 0"
    has_line "rdma_client.lua: end 0"
}

@test "interop: verbsh's rdma_client.lua against rdma-core's rdma_server" {
    run pair 7502 rdma_server -p 7502 -- "$VERBSH" "$ROOT/examples/rdma_client.lua" -s "$RXE_ADDR" -p 7502
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "rdma_server: end 0"
    # rdma_server answers with its 16-byte send_msg, which it never fills
    has_line 'rdma_client.lua: received 16 bytes: \x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00'
    has_line "rdma_client.lua: end 0"
}

@test "interop: rdma-core's rdma_client against verbsh's rdma_server.lua" {
    run pair 7503 "$VERBSH" "$ROOT/examples/rdma_server.lua" -p 7503 -- rdma_client -s "$RXE_ADDR" -p 7503
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "rdma_client: end 0"
    has_line 'rdma_server.lua: received 16 bytes: "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0"'
    has_line "rdma_server.lua: end 0"
}

# -n: the server waits for more messages, and for the client's DREQ on
# id->channel->fd (verbs.wait_fds({ id })): rdma-core's rdma_client sends
# one message and disconnects, and its rdma_disconnect returns only once
# the server disconnected too.
@test "rdma_server.lua -n 3 against rdma-core's rdma_client: one message, then the client's disconnect ends the wait" {
    run pair 7504 "$VERBSH" "$ROOT/examples/rdma_server.lua" -p 7504 -n 3 -- rdma_client -s "$RXE_ADDR" -p 7504
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(grep -c 'rdma_server.lua: received' <<<"$output")" -eq 1 ]
    has_line "rdma_server.lua: the client disconnected"
    has_line "rdma_client: end 0"
    has_line "rdma_server.lua: end 0"
}

@test "short path: a refused post names the verb, the errno and the id's QP type (RC, UD)" {
    run vsh '
      local ch = verbs.create_event_channel(); local a = os.getenv("RXE_ADDR")
      for i, ps in ipairs { "TCP", "UDP" } do
        local id = ch:create_id(ps)
        id:resolve_addr(nil, a .. ":" .. 7614 + i); ch:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()
        id:resolve_route(); ch:get_cm_event(5000):expect("ROUTE_RESOLVED"):ack()
        local pd, cq = id.verbs:alloc_pd(), id.verbs:create_cq(8)
        id:create_qp(pd, { qp_type = ps == "TCP" and "RC" or "UD", send_cq = cq, recv_cq = cq,
          cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } })
        local mr = pd:reg_mr(64, "LOCAL_WRITE")
        local ok, e, n = true, nil, 0
        while ok and n < 64 do n = n + 1; ok, e = pcall(id.post_recv, id, n, mr) end   -- until the receive queue is full
        print(ok, e.verb, e.errname, e.context.qp_type)
      end' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "false	rdma_post_recv	ENOMEM	RC" ]
    [ "${lines[1]}" = "false	rdma_post_recv	ENOMEM	UD" ]
}

@test "short path: two completions waiting at once come one per get_send_comp and get_recv_comp, in order, then nil" {
    run pair 7505 "$VERBSH" "$ROOT/tests/lua/cm_ep_comps.lua" server 7505 -- "$VERBSH" "$ROOT/tests/lua/cm_ep_comps.lua" client "$RXE_ADDR" 7505
    echo "$output"
    [ "$status" -eq 0 ]
    grep -qx "server comps: ok" srv.out
    grep -qx "client comps: ok" cli.out
}
