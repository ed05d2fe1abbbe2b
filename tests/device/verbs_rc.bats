#!/usr/bin/env bats
# The bindings on real rxe: an RC session between two QPs of one process,
# every opcode's completion and data checked by value (tests/lua/verbs_rc.lua).
load ../helpers

setup() { require_device; }

@test "RC: hand transitions, SEND, SEND_WITH_IMM, RDMA WRITE (+imm), READ, CAS, FAA, chained post" {
    run "$VERBSH" "$ROOT/tests/lua/verbs_rc.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"connected: qp RC 0x"*" RTS <-> qp RC 0x"*" RTS"* ]]
    [[ $output == *"RECV: wc wr_id=100 RECV SUCCESS byte_len=5"* ]]
    [[ $output == *"verbs_rc: ok (80 checks)"* ]]
}

@test "RC: a RoCE path without a GRH fails at RTR with EINVAL, explained, and the QP stays in INIT" {
    run "$VERBSH" -e '
      local ctx = verbs.open(); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)
      local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,
        cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
      qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }
      local ok, e = pcall(qp.modify, qp, { qp_state = "RTR", path_mtu = "1024", dest_qp_num = qp.qp_num,
        rq_psn = 0, max_dest_rd_atomic = 1, min_rnr_timer = 1, ah_attr = { is_global = 0, port_num = 1 } })
      print(ok, e.verb, e.errname, e.errno, e.context.cur_state, e.context.qp_state, table.concat(e.context.mask, ","))
      print(qp.state)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "false	ibv_modify_qp	EINVAL	22	INIT	RTR	STATE,AV,PATH_MTU,RQ_PSN,MIN_RNR_TIMER,MAX_DEST_RD_ATOMIC,DEST_QPN" ]
    [ "${lines[1]}" = "INIT" ]
}

@test "device queries: devices(), query_device, query_port names, gids() types" {
    run "$VERBSH" -e '
      local d = verbs.devices()[1]
      print(d.name, d.node_type, d.transport_type, #d.guid)
      local ctx = verbs.open()
      local a = ctx:query_device()
      print(a.phys_port_cnt, a.max_qp_wr > 0, type(a.fw_ver), a.atomic_cap)
      local p = ctx:query_port(1)
      print(p.state, p.link_layer, p.active_mtu, p.max_mtu, p.phys_state)
      local idx = tonumber(os.getenv("RXE_GID_INDEX"))
      for _, g in ipairs(ctx:gids()) do
        if g.index == idx then print(g.type, g.gid == ctx:query_gid(1, idx), g.netdev == os.getenv("RXE_NETDEV")) end
      end
      print(tostring(ctx))
      print(d.guid)
      print(verbs.open(os.getenv("RXE_DEV")).name, select(2, pcall(verbs.open, "rxe_nosuch")).errname)
      local pd = ctx:alloc_pd()
      local l, r = pd:reg_mr(64, "LOCAL_WRITE"), pd:reg_mr(64, { "LOCAL_WRITE", "REMOTE_WRITE" })
      print(l.rkey, l.lkey ~= 0, r.rkey == r.lkey)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "$RXE_DEV	CA	IB	19" ]
    [[ ${lines[1]} == "1	true	string	"* ]]
    [[ ${lines[2]} == "ACTIVE	ETHERNET	1024	4096	LINK_UP" ]]
    [ "${lines[3]}" = "RoCE v2	true	true" ]
    [ "${lines[4]}" = "context $RXE_DEV" ]
    # the GUID as ibv_devinfo prints it (xxxx:xxxx:xxxx:xxxx)
    [ "${lines[5]}" = "$(ibv_devinfo -d "$RXE_DEV" | awk '/node_guid/ { print $2 }')" ]
    [ "${lines[6]}" = "$RXE_DEV	ENODEV" ]   # by name; an unknown name is an error
    # rxe gives an MR without remote access no rkey (0), and one with remote access its lkey
    [ "${lines[7]}" = "0	true	true" ]
}

@test "RC fast path: prepared WRs posted 100 times, a chain, wc_array views, and their errors" {
    run "$VERBSH" "$ROOT/tests/lua/verbs_prepared.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"verbs_prepared: ok ("*" checks)"* ]]
}

@test "a finalizer that posts or prepares a WR inside verbs.send_wr's read leaves the chain's MRs kept and checked" {
    for mode in post prepare; do
        MODE=$mode ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_stack_use_after_return=1 \
            run "$VERBSH" "$ROOT/tests/lua/verbs_prepared_gc.lua"
        echo "$output"
        [ "$status" -eq 0 ]
        [[ $output == "verbs_prepared_gc $mode: ok ("*" finalizers ran inside the read)" ]]
    done
}

@test "more completions than one poll: cq:wait, cq:poll(max), wc_array and cq:iter keep all 40, in order" {
    run "$VERBSH" "$ROOT/tests/lua/verbs_multipoll.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"multi-poll: wait 40, poll(100) 40, wc_array 40, iter 40"* ]]
    [[ $output == *"verbs_multipoll: ok ("*" checks)"* ]]
}

@test "every field with a maximum: the maximum is accepted, max + 1 and -1 refused naming the key" {
    run "$VERBSH" "$ROOT/tests/lua/verbs_bounds.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"qp.c: rq_psn"*"max 16777215"*"accepted (ok); max + 1 and -1 refused"* ]]
    [[ $output == *"verbs_bounds: ok ("*" checks)"* ]]
}

@test "capture: cap:posts() of each capture holds the WRs posted while it ran (opcode, length, QP, dest_qp), after another capture ran too, and for two at once" {
    [ "$(id -u)" -eq 0 ] || skip "capturing needs root (CAP_NET_RAW)"
    run "$VERBSH" "$ROOT/tests/lua/capture_posts.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"capture_posts: ok (16 checks)"* ]]
}
