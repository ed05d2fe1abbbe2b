#!/usr/bin/env bats
# rdma_cm (librdmacm): the bindings in one process, two verbsh processes over
# RC and UD, and verbsh's client against rdma-core's `rping -s`.
load ../helpers

setup() { require_device; cd "$BATS_TEST_TMPDIR"; }

# Waits until an rdma_cm id listens on PORT (rdma-core's `rdma resource`
# lists cm_ids with their state and address).
wait_cm_listen() {
    for _ in $(seq 300); do
        rdma resource show cm_id 2>/dev/null | grep -q "state LISTEN .*src-addr [0-9.]*:$1 " && return 0
        sleep 0.1
    done
    echo "no rdma_cm id listens on port $1" >&2; rdma resource show cm_id >&2; return 1
}

# cm_pair PORT SERVER_CMD... -- CLIENT_CMD...: both sides, both outputs.
cm_pair() {
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

@test "rdma_cm in one process: events, private data, QP states, SEND, disconnect, lifetimes, errors explained" {
    run "$VERBSH" "$ROOT/tests/lua/cm_rc.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"cm_rc: ok (130 checks)"* ]]
}

@test "rdma_cm: two verbsh processes, RC over RDMA_PS_TCP, 100 iterations" {
    run cm_pair 7481 "$VERBSH" "$ROOT/examples/cm_pingpong.lua" -n 100 -p 7481 -- \
        "$VERBSH" "$ROOT/examples/cm_pingpong.lua" -n 100 -p 7481 "$RXE_ADDR"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"listening on 0.0.0.0:7481 (RC, RDMA_PS_TCP)"* ]]
    [[ $output == *"connected: cm_id TCP $RXE_DEV $RXE_ADDR:7481 -> $RXE_ADDR:"* ]]
    [ "$(grep -c '100 iters in' <<<"$output")" -eq 2 ]
}

@test "rdma_cm: two verbsh processes, UD over RDMA_PS_UDP (SIDR), 100 iterations" {
    run cm_pair 7482 "$VERBSH" "$ROOT/examples/cm_pingpong.lua" -u -n 100 -p 7482 -- \
        "$VERBSH" "$ROOT/examples/cm_pingpong.lua" -u -n 100 -p 7482 "$RXE_ADDR"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"listening on 0.0.0.0:7482 (UD, RDMA_PS_UDP)"* ]]
    [[ $output == *", Q_Key 0x1234567"* ]]          # RDMA_UDP_QKEY, from the ESTABLISHED event
    [[ $output == *"first datagram from QPN 0x"* ]]  # the server's AH from the WC and GRH
    [ "$(grep -c '100 iters in' <<<"$output")" -eq 2 ]
}

@test "interop: verbsh rdma_cm client against rping -s, 20 pings, confirmed by rping's output" {
    run cm_pair 7174 rping -s -v -a "$RXE_ADDR" -p 7174 -- \
        "$VERBSH" "$ROOT/examples/rping_client.lua" -a "$RXE_ADDR" -p 7174 -C 20 -v
    echo "$output"
    [ "$status" -eq 0 ]
    # rping itself printed every ping it RDMA-read from us, in order.
    [ "$(grep -c '^server ping data: rdma-ping-[0-9]*: ' srv.out)" -eq 20 ]
    grep -q '^server ping data: rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ\[\\\]^_`abcdefghijklmnopqr$' srv.out
    grep -q '^server ping data: rdma-ping-19: TUVWXYZ' srv.out
    [ "$(grep -c '^ping data: rdma-ping-' cli.out)" -eq 20 ]
    [[ $output == *"rping_client: 20 pings to $RXE_ADDR:7174, each read and written back by the server"* ]]
}

@test "rdma_cm: an unacked event, a listener and a connection left to the garbage collector at exit" {
    run timeout 60 "$VERBSH" -e '
      local sch, cch = verbs.create_event_channel(), verbs.create_event_channel()
      local l = sch:create_id("TCP"); l:bind_addr("*:7483"); l:listen()
      local c = cch:create_id("TCP"); c:resolve_addr(nil, os.getenv("RXE_ADDR") .. ":7483")
      local ev = cch:get_cm_event(5000)
      c = nil; sch = nil; collectgarbage(); collectgarbage()   -- the event keeps its id
      print(ev.event, ev.id:get_peer_addr())
      print("exit with", ev)'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"ADDR_RESOLVED	$RXE_ADDR:7483"* ]]
    [[ $output == *"exit with	cm_event ADDR_RESOLVED on cm_id2, status 0"* ]]
}

@test "rdma_cm: a partner that dies after connecting gives DISCONNECTED, and the explained error, within the timeout" {
    PAIR_WAIT_S=60 "$VERBSH" "$ROOT/examples/cm_partner.lua" --port 7484 >partner.out 2>&1 &
    local pid=$!   # verbsh itself, so that kill -9 hits it
    wait_cm_listen 7484 || { kill $pid; cat partner.out; false; }
    run timeout 60 "$VERBSH" -e '
      local ch = verbs.create_event_channel()
      local id = ch:create_id("TCP")
      id:resolve_addr(nil, os.getenv("RXE_ADDR") .. ":7484"); ch:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()
      id:resolve_route(); ch:get_cm_event(5000):expect("ROUTE_RESOLVED"):ack()
      local pd, cq = id.verbs:alloc_pd(), id.verbs:create_cq(4)
      local qp = id:create_qp(pd, { qp_type = "RC", send_cq = cq, recv_cq = cq,
        cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } })
      id:connect{ responder_resources = 1, initiator_depth = 1, retry_count = 7, rnr_retry_count = 7 }
      ch:get_cm_event(5000):expect("ESTABLISHED"):ack()
      print("established")
      io.stdout:flush()
      os.execute("kill -9 '$pid'")
      local t0 = verbs.now()
      local ev = ch:get_cm_event(20000)
      print(ev and ev.event, ("%.0f s"):format(verbs.now() - t0))
      print(select(2, pcall(ev.expect, ev, "ESTABLISHED")))'
    wait $pid || true
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"established"* ]]
    [[ $output == *"DISCONNECTED	"* ]]
    [[ $output == *"rdma_get_cm_event: expected ESTABLISHED, got DISCONNECTED (status 0)"* ]]
    [[ $output == *"why: the peer disconnected (rdma_disconnect) or its process exited"* ]]
}

@test "rdma_cm: a refused resolve_addr names the addresses it was given: the source (when given) and the destination" {
    run vsh '
      local ch = verbs.create_event_channel(); local a = os.getenv("RXE_ADDR")
      local l = ch:create_id("TCP"); l:bind_addr(a .. ":7611"); l:listen()
      local id = ch:create_id("TCP")
      local ok, e = pcall(id.resolve_addr, id, a .. ":7611", a .. ":7612")   -- the source port is taken
      print(ok, e.verb, e.errname, e.context.src_addr, e.context.dst_addr)
      id:resolve_addr(nil, a .. ":7613"); ch:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()
      ok, e = pcall(id.resolve_addr, id, nil, a .. ":7614")                   -- resolved already
      print(ok, e.verb, e.errname, e.context.src_addr, e.context.dst_addr)' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "false	rdma_resolve_addr	EADDRINUSE	$RXE_ADDR:7611	$RXE_ADDR:7612" ]
    [ "${lines[1]}" = "false	rdma_resolve_addr	EINVAL	nil	$RXE_ADDR:7614" ]
}

@test "rdma_cm: a QP made through an id (create_qp, create_ep) keeps each of its two CQs where it was given: the recv CQ cannot be destroyed under it, then can" {
    run vsh '
      local ch, a = verbs.create_event_channel(), os.getenv("RXE_ADDR")
      local cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 }
      local function check(how, id, qp, scq, rcq)
        print(how, qp.send_cq == scq, qp.recv_cq == rcq, qp.send_cq == rcq, qp.recv_cq == scq, scq.cqe, rcq.cqe)
        print(select(2, pcall(rcq.destroy, rcq)))
        print(select(2, pcall(scq.destroy, scq)))
        id:destroy_qp()
        print(pcall(rcq.destroy, rcq)); print(pcall(scq.destroy, scq))
      end
      local id = ch:create_id("TCP"); id:bind_addr(a .. ":7621")
      local pd = id.verbs:alloc_pd()
      local scq, rcq = id.verbs:create_cq(3), id.verbs:create_cq(15)
      check("create_qp", id, id:create_qp(pd, { qp_type = "RC", send_cq = scq, recv_cq = rcq, cap = cap }), scq, rcq)
      local scq2, rcq2 = id.verbs:create_cq(7), id.verbs:create_cq(1)
      local ep = verbs.create_ep(verbs.getaddrinfo(a, "7622", { ai_port_space = "TCP" }), pd,
        { qp_type = "RC", send_cq = scq2, recv_cq = rcq2, cap = cap })
      check("create_ep", ep, ep.qp, scq2, rcq2)' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "create_qp	true	true	false	false	3	15" ]
    [[ ${lines[1]} == "destroy: cq2 is still used by 1 object: qp1 (qp RC 0x"+([0-9a-f])" INIT); destroy it first" ]]
    [[ ${lines[2]} == "destroy: cq1 is still used by 1 object: qp1 (qp RC 0x"+([0-9a-f])" INIT); destroy it first" ]]
    [ "${lines[3]}" = "true" ]
    [ "${lines[4]}" = "true" ]
    [ "${lines[5]}" = "create_ep	true	true	false	false	7	1" ]
    [[ ${lines[6]} == "destroy: cq4 is still used by 1 object: qp2 (qp RC 0x"+([0-9a-f])" INIT); destroy it first" ]]
    [[ ${lines[7]} == "destroy: cq3 is still used by 1 object: qp2 (qp RC 0x"+([0-9a-f])" INIT); destroy it first" ]]
    [ "${lines[8]}" = "true" ]
    [ "${lines[9]}" = "true" ]
}
