#!/usr/bin/env bats
# The paths rxe never takes, on a stand-in device: tests/fakeverbs/fakeverbs.c
# (LD_PRELOAD) is a provider that HAS the hardware-only verbs (raw clock,
# counters, device memory, WQs, TSO), lacks memory windows, raises a QP's async
# event, and can make ibv_get_device_list fail. Every value compared below is
# one that file chose (or received, printed as "fakeverbs: ...").
load ../helpers

setup_file() {
    gcc -Wall -Wextra -Werror -shared -fPIC -o "$BATS_FILE_TMPDIR/fakeverbs.so" "$ROOT/tests/fakeverbs/fakeverbs.c"
}

# fvsh CODE: verbsh -e CODE on the fake device (an ASan build wants its
# runtime first in the preload list)
fvsh() {
    local asan
    asan=$(ldd "$VERBSH" | awk '/libasan/ { print $3 }')
    LD_PRELOAD="${asan:+$asan }$BATS_FILE_TMPDIR/fakeverbs.so" "$VERBSH" -e "$1"
}

@test "fake device: verbs.devices() gives the provider's name, GUID, index, node and transport type" {
    run fvsh 'for _, d in ipairs(verbs.devices()) do print(d.name, d.guid, d.index, d.node_type, d.transport_type) end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "fake0	0123:4567:89ab:cdef	7	CA	IB" ]
}

@test "fake device: ibv_get_device_list's ENOSYS, ENOENT, ENODEV mean no RDMA here (verbs.devices() is {}); any other errno is an error naming the verb" {
    for e in 38 2 19; do
        FAKEVERBS_LIST_ERRNO=$e run fvsh 'print(#verbs.devices())'
        echo "$e: $output"
        [ "$status" -eq 0 ]
        [ "$output" = "0" ]
    done
    for e in 13 12; do
        FAKEVERBS_LIST_ERRNO=$e run fvsh 'local ok, e = pcall(verbs.devices); print(ok, e.verb, e.errno)'
        echo "$e: $output"
        [ "$status" -eq 0 ]
        [ "$output" = "false	ibv_get_device_list	$e" ]
    done
}

@test "fake device: ctx:query_rt_values_ex() returns the raw clock's tv_sec and tv_nsec" {
    run fvsh 'local t = verbs.open("fake0"):query_rt_values_ex(); print(t.tv_sec, t.tv_nsec)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "1234567	891011121" ]
}

@test "fake device: ctx:query_device_ex() gives each extended field the provider set, each cap struct's members apart (min and max, rc, uc and ud)" {
    run fvsh '
      local a = verbs.open("fake0"):query_device_ex()
      local o, p = a.odp_caps, a.odp_caps.per_transport_caps
      print(a.fw_ver, a.vendor_id, a.max_qp, a.max_cq, a.phys_port_cnt)
      print(a.comp_mask, a.completion_timestamp_mask, a.hca_core_clock, a.device_cap_flags_ex, a.max_wq_type_rq,
        a.raw_packet_caps, a.max_dm_size, a.xrc_odp_caps, a.phys_port_cnt_ex)
      print(o.general_caps, p.rc_odp_caps, p.uc_odp_caps, p.ud_odp_caps, o.rc_odp_caps, o.uc_odp_caps, o.ud_odp_caps)
      print(a.tso_caps.max_tso, a.tso_caps.supported_qpts, a.rss_caps.max_rwq_indirection_tables,
        a.rss_caps.max_rwq_indirection_table_size)
      print(a.packet_pacing_caps.qp_rate_limit_min, a.packet_pacing_caps.qp_rate_limit_max, a.tm_caps.max_num_tags,
        a.tm_caps.max_ops, a.cq_mod_caps.max_cq_count, a.cq_mod_caps.max_cq_period)
      print(a.pci_atomic_caps.fetch_add, a.pci_atomic_caps.swap, a.pci_atomic_caps.compare_swap)'
    echo "$output"
    [ "$status" -eq 0 ]
    # the values tests/fakeverbs/fakeverbs.c's f_query_device_ex sets
    [ "${lines[0]}" = "fake-fw 7.8.9	5555	1021	2043	1" ]
    [ "${lines[1]}" = "3	$((0xfffffffff0))	156250	$((0x1234500000))	5	42	262144	33	3" ]
    [ "${lines[2]}" = "6	31	7	17	31	7	17" ]
    [ "${lines[3]}" = "262144	256	64	2048" ]
    [ "${lines[4]}" = "1000	100000000	511	33	65535	4095" ]
    [ "${lines[5]}" = "4	8	16" ]
}

@test "fake device: cq:resize returns the provider's new cqe (rounded up), and its errno when it refuses, EPERM (1) too, with the old size kept" {
    run fvsh '
      local cq = verbs.open("fake0"):create_cq(4)
      print(cq:resize(20), cq.cqe)
      local ok, e = pcall(cq.resize, cq, 13)
      print(ok, e.verb, e.errname, e.errno, e.context.cqe, e.context.old_cqe, cq.cqe)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "24	24" ]
    [ "${lines[1]}" = "false	ibv_resize_cq	EPERM	1	13	24	24" ]
}

@test "fake device: counters:read_counters(n) returns the first n values in order, n = 1 by default, 1..8 accepted" {
    run fvsh '
      local k = verbs.open("fake0"):create_counters()
      print(k.kind, table.concat(k:read_counters(), " "))
      print(table.concat(k:read_counters(3), " "))
      print(#k:read_counters(8), k:read_counters(8)[8])
      for _, n in ipairs { 0, 9 } do print(n, select(2, pcall(k.read_counters, k, n))) end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "counters	1007" ]
    [ "${lines[1]}" = "1007 2007 3007" ]
    [ "${lines[2]}" = "8	8007" ]
    [[ ${lines[3]} == "0	"*"ncounters: 1..8"* ]]
    [[ ${lines[4]} == "9	"*"ncounters: 1..8"* ]]
}

@test "fake device: dm:memcpy_from_dm returns the device memory's bytes at an offset, with what memcpy_to_dm wrote" {
    run fvsh '
      local dm = verbs.open("fake0"):alloc_dm(32)
      print(dm.kind, dm:memcpy_from_dm(2, 5))
      dm:memcpy_to_dm(3, "XYZ")
      print(dm:memcpy_from_dm(0, 8), #dm:memcpy_from_dm(0, 32), dm:memcpy_from_dm(31, 1))
      print(pcall(dm.memcpy_from_dm, dm, 30, 3))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "dm	23456" ]
    [ "${lines[1]}" = "012XYZ67	32	v" ]
    [[ ${lines[2]} == "false	ibv_memcpy_from_dm failed: EINVAL"* ]]
}

@test "fake device: wq:post_wq_recv posts all of the MR with the wr_id given, 0 when none is" {
    run fvsh '
      local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd()
      local wq = ctx:create_wq(pd, ctx:create_cq(4), 8)
      local mr = pd:reg_mr(100, "LOCAL_WRITE")
      print(wq.kind)
      wq:post_wq_recv(mr); wq:post_wq_recv(mr, 0x1234567); wq:post_wq_recv(mr, 1)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "wq" ]
    [ "${lines[1]}" = "fakeverbs: post_wq_recv wq 81 wr_id 0 num_sge 1 length 100" ]
    [ "${lines[2]}" = "fakeverbs: post_wq_recv wq 81 wr_id 19088743 num_sge 1 length 100" ]
    [ "${lines[3]}" = "fakeverbs: post_wq_recv wq 81 wr_id 1 num_sge 1 length 100" ]
}

@test "fake device: a device object keeps its context open until it is destroyed, then the context closes" {
    run fvsh '
      local ctx = verbs.open("fake0")
      local k, dm = ctx:create_counters(), ctx:alloc_dm(16)
      print(k.kind, dm.kind)
      print(select(2, pcall(ctx.close, ctx)))
      k:destroy()
      print(select(2, pcall(ctx.close, ctx)))
      dm:destroy()
      print(pcall(ctx.close, ctx))
      print(pcall(k.read_counters, k))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "counters	dm" ]
    [[ ${lines[1]} == *"ctx1 is still used by 2 objects: devobj1 (devobj counters), devobj2 (devobj dm)"* ]]
    [[ ${lines[2]} == *"ctx1 is still used by 1 object: devobj2 (devobj dm)"* ]]
    [ "${lines[3]}" = "true" ]
    [[ ${lines[4]} == "false	"*"destroyed"* ]]
}

@test "fake device: pd:alloc_mw on a device without memory windows raises EOPNOTSUPP with the type asked for" {
    run fvsh '
      local pd = verbs.open("fake0"):alloc_pd()
      for _, t in ipairs { "TYPE_2", 1 } do
        local ok, e = pcall(pd.alloc_mw, pd, t); print(ok, e.verb, e.errname, e.context.type)
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "false	ibv_alloc_mw	EOPNOTSUPP	TYPE_2" ]
    [ "${lines[1]}" = "false	ibv_alloc_mw	EOPNOTSUPP	TYPE_1" ]
}

@test "fake device: ctx:get_async_event gives a QP's event with that QP (LAST_WQE_REACHED of an SRQ's QP moved to ERR), and no qp once it is destroyed" {
    run fvsh '
      local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)
      local srq = pd:create_srq{ max_wr = 4, max_sge = 1 }
      local cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 }
      local a = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, srq = srq, cap = cap }
      local b = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, srq = srq, cap = cap }
      print(ctx:get_async_event(0))
      b:modify({ qp_state = "ERR" }, "STATE")
      local ev = ctx:get_async_event(100)
      print(ev.event_type, ev.qp == b, ev.qp == a, ev.qp.qp_num == b.qp_num)
      a:modify({ qp_state = "ERR" }, "STATE"); a:destroy()
      ev = ctx:get_async_event(100)
      print(ev.event_type, ev.qp)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "nil" ]
    [ "${lines[1]}" = "QP_LAST_WQE_REACHED	true	false	true" ]
    [ "${lines[2]}" = "QP_LAST_WQE_REACHED	nil" ]
}

@test "fake device: qp:wr_send_tso hands the provider the whole header and the MSS: 65535 bytes and MSS 65535 pass, 65536 of either is refused naming it" {
    run fvsh '
      local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)
      local q = ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq, send_ops_flags = { "SEND", "TSO" },
        cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 } }
      q:wr_start()
      q:wr_send_tso("H" .. string.rep("x", 65533) .. "T", 1400)
      print(select(2, pcall(q.wr_send_tso, q, string.rep("y", 65536), 1400)))
      q:wr_send_tso("ab", 0xffff)
      print(select(2, pcall(q.wr_send_tso, q, "ab", 0x10000)))
      q:wr_abort()'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fakeverbs: wr_send_tso qp 273 hdr_sz 65535 mss 1400 first H last T" ]
    [[ ${lines[1]} == *"bad argument #1 to 'wr_send_tso' (hdr: at most 65535 bytes)" ]]
    [ "${lines[2]}" = "fakeverbs: wr_send_tso qp 273 hdr_sz 2 mss 65535 first a last b" ]
    [[ ${lines[3]} == *"bad argument #2 to 'wr_send_tso' (mss: 65536 is out of range (0..65535))" ]]
}

@test "fake device: an op not in send_ops_flags is refused naming the QP's flags as C writes them, one flag alone or several joined by |, none as 0" {
    run fvsh '
      local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)
      local cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 }
      for _, f in ipairs { { "TSO" }, { "SEND", "RDMA_WRITE", "TSO" }, {} } do
        local q = ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq, send_ops_flags = f, cap = cap }
        q:wr_start()
        print(select(2, pcall(q.wr_rdma_read, q, 0x1234, 0x1000)))
        q:wr_abort()
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == *"wr_rdma_read: RDMA_READ is not in this QP's send_ops_flags (IBV_QP_EX_WITH_TSO): create the QP with"* ]]
    [[ ${lines[1]} == *"wr_rdma_read: RDMA_READ is not in this QP's send_ops_flags (IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_TSO): create"* ]]
    [[ ${lines[2]} == *"wr_rdma_read: RDMA_READ is not in this QP's send_ops_flags (0): create"* ]]
}

@test "fake device: a hardware-only method given too many arguments names the first extra one's position and the count, for one that takes none and one that takes one" {
    run fvsh '
      local ctx = verbs.open("fake0")
      local k = ctx:create_counters()
      print(select(2, pcall(ctx.query_rt_values_ex, ctx, 5)))
      print(select(2, pcall(k.read_counters, k, 2, "x")))
      print(select(2, pcall(k.read_counters, k, 1, nil, 3)))
      print(table.concat(k:read_counters(2), " "))   -- its one argument still reads'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "bad argument #1 to 'query_rt_values_ex' (ctx:query_rt_values_ex() takes no arguments, got 1 (the first: a number))" ]
    [ "${lines[1]}" = "bad argument #2 to 'read_counters' (devobj:read_counters(...) takes at most 1 argument, got 2 (the first extra one: a string))" ]
    [ "${lines[2]}" = "bad argument #2 to 'read_counters' (devobj:read_counters(...) takes at most 1 argument, got 3 (the first extra one: a nil))" ]
    [ "${lines[3]}" = "1007 2007" ]
}

@test "fake device: qp:query_ece returns the provider's vendor_id, options and comp_mask each in its key; qp:set_ece hands down vendor_id and options in that order, comp_mask 0" {
    run fvsh '
      local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)
      local q = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,
        cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 } }
      local e = q:query_ece()
      print(("0x%x 0x%x 0x%x"):format(e.vendor_id, e.options, e.comp_mask))
      local n = 0; for _ in pairs(e) do n = n + 1 end; print(n)
      print(q:set_ece(0x02c9, 0x00f0e1d2))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "0x15b3 0xabcd0102 0x5" ]
    [ "${lines[1]}" = "3" ]
    [[ ${lines[2]} == "fakeverbs: set_ece qp "*" vendor_id 0x2c9 options 0xf0e1d2 comp_mask 0x0" ]]
}

@test "fake device: ctx:create_flow_action_esp and action:modify_flow_action_esp hand the provider an attribute with every byte zero (none of the stack's leftovers)" {
    run fvsh '
      local ctx = verbs.open("fake0")
      local a = ctx:create_flow_action_esp()
      print(a.kind)
      print(a:modify_flow_action_esp())
      a:destroy()' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[0]} =~ ^fakeverbs:\ create_flow_action_esp\ attr\ 0\ nonzero\ bytes\ of\ [0-9]+$ ]]
    [ "${lines[1]}" = "flow_action" ]
    [[ ${lines[2]} =~ ^fakeverbs:\ modify_flow_action_esp\ attr\ 0\ nonzero\ bytes\ of\ [0-9]+$ ]]
}

@test "fake device: verbs.open() takes \$VERBSH_DEVICE, else the first device with an ACTIVE port, else the first device; a name given wins over \$VERBSH_DEVICE" {
    local code='print(verbs.open().name, verbs.open("fake0").name)'
    FAKEVERBS_DEVICES=2 run fvsh "$code"
    [ "$output" = "fake0	fake0" ]
    FAKEVERBS_DEVICES=2 FAKEVERBS_ACTIVE=fake1 run fvsh "$code"
    [ "$output" = "fake1	fake0" ]
    FAKEVERBS_DEVICES=2 VERBSH_DEVICE=fake1 run fvsh "$code"
    [ "$output" = "fake1	fake0" ]
    FAKEVERBS_DEVICES=2 VERBSH_DEVICE=fake0 FAKEVERBS_ACTIVE=fake1 run fvsh "$code"
    [ "$output" = "fake0	fake0" ]
    # an empty $VERBSH_DEVICE names no device
    FAKEVERBS_DEVICES=2 VERBSH_DEVICE= FAKEVERBS_ACTIVE=fake1 run fvsh "$code"
    [ "$output" = "fake1	fake0" ]
}

@test "fake device: verbs.open's errors carry the name asked for, the devices listed and the reason: not_found, no_device (an empty list), open_failed (ibv_open_device's errno)" {
    local show='print(ok, e.verb, e.errname, e.errno, e.context.requested, e.context.reason, table.concat(e.context.devices, ","))'
    FAKEVERBS_DEVICES=2 VERBSH_DEVICE=fake2 run fvsh "local ok, e = pcall(verbs.open); $show"
    echo "$output"
    [ "$output" = "false	ibv_open_device	ENODEV	19	fake2	not_found	fake0,fake1" ]
    FAKEVERBS_DEVICES=0 run fvsh "local ok, e = pcall(verbs.open, 'fake1'); $show"
    echo "$output"
    [ "$output" = "false	ibv_get_device_list	ENODEV	19	fake1	no_device	" ]
    # the device's name stands for the request when none was named (no
    # port could be read: the first device)
    FAKEVERBS_DEVICES=2 FAKEVERBS_OPEN_ERRNO=13 run fvsh "local ok, e = pcall(verbs.open); $show"
    echo "$output"
    [ "$output" = "false	ibv_open_device	EACCES	13	fake0	open_failed	fake0,fake1" ]
    FAKEVERBS_DEVICES=2 FAKEVERBS_OPEN_ERRNO=1 VERBSH_DEVICE=fake1 run fvsh "local ok, e = pcall(verbs.open); $show"
    echo "$output"
    [ "$output" = "false	ibv_open_device	EPERM	1	fake1	open_failed	fake0,fake1" ]
}

@test "fake device: ctx:get_async_event gives CQ_ERR with its CQ (not another one, none once destroyed), each port event with its port_num, DEVICE_FATAL with neither" {
    FAKEVERBS_ASYNC="PORT_ACTIVE:2 PORT_ERR:1 LID_CHANGE:3 PKEY_CHANGE:4 SM_CHANGE:5 CLIENT_REREGISTER:6 GID_CHANGE:7 DEVICE_FATAL" run fvsh '
      local function show(ev)
        local ks = {}
        for k, v in pairs(ev) do ks[#ks + 1] = k .. "=" .. (type(v) == "userdata" and "obj" or tostring(v)) end
        table.sort(ks); print(table.concat(ks, " "))
      end
      local ctx = verbs.open("fake0")
      for _ = 1, 8 do show(ctx:get_async_event(0)) end
      print(ctx:get_async_event(0))
      local a, b = ctx:create_cq(4), ctx:create_cq(8)
      b:resize(29)
      local ev = ctx:get_async_event(0)
      show(ev); print(ev.cq == b, ev.cq == a)
      a:resize(29); a:destroy()
      show(ctx:get_async_event(0))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "event_type=PORT_ACTIVE port_num=2" ]
    [ "${lines[1]}" = "event_type=PORT_ERR port_num=1" ]
    [ "${lines[2]}" = "event_type=LID_CHANGE port_num=3" ]
    [ "${lines[3]}" = "event_type=PKEY_CHANGE port_num=4" ]
    [ "${lines[4]}" = "event_type=SM_CHANGE port_num=5" ]
    [ "${lines[5]}" = "event_type=CLIENT_REREGISTER port_num=6" ]
    [ "${lines[6]}" = "event_type=GID_CHANGE port_num=7" ]
    [ "${lines[7]}" = "event_type=DEVICE_FATAL" ]
    [ "${lines[8]}" = "nil" ]
    [ "${lines[9]}" = "cq=obj event_type=CQ_ERR" ]
    [ "${lines[10]}" = "true	false" ]
    [ "${lines[11]}" = "event_type=CQ_ERR" ]
}

@test "fake device: verbs.wait_fds wakes on the context whose async_fd holds an event, named as given (the context or its async_fd), not on the other's" {
    run fvsh '
      local a, b = verbs.open("fake0"), verbs.open("fake0")
      local cq = b:create_cq(4)
      print(#verbs.wait_fds({ a, b }, 0), a.async_fd ~= b.async_fd)
      cq:resize(29)
      local r = verbs.wait_fds({ a, b }, 100)
      print(#r, r[1] == b)
      r = verbs.wait_fds({ a.async_fd, b.async_fd }, 100)
      print(#r, r[1] == b.async_fd)
      print(b:get_async_event(0).cq == cq, #verbs.wait_fds({ a, b }, 0))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "0	true" ]
    [ "${lines[1]}" = "1	true" ]
    [ "${lines[2]}" = "1	true" ]
    [ "${lines[3]}" = "true	0" ]
}

@test "fake device: ctx:gids(port) reads the slots one by one when the table call fails: the filled ones of that port only, with index, GID and type (RoCE v1, RoCE v2, IB)" {
    run fvsh '
      local ctx = verbs.open("fake0")
      for _, p in ipairs { 1, 2 } do
        local g = ctx:gids(p)
        print(p, #g)
        for _, e in ipairs(g) do print(e.index, e.gid, e.type, e.netdev) end
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "1	2" ]
    [ "${lines[1]}" = "0	fe80::11	RoCE v1	nil" ]
    [ "${lines[2]}" = "2	fe80::22	RoCE v2	nil" ]
    [ "${lines[3]}" = "2	1" ]
    [ "${lines[4]}" = "1	fe80::33	IB	nil" ]
}

@test "fake device: a device object whose destroy fails raises its kind's verb (ibv_destroy_counters, ibv_free_dm) with the errno, and the garbage collector's warning names it too" {
    FAKEVERBS_DESTROY_ERRNO=16 run fvsh '
      local ctx = verbs.open("fake0")
      local k, dm = ctx:create_counters(), ctx:alloc_dm(8)
      for _, o in ipairs { k, dm } do
        local ok, e = pcall(o.destroy, o); print(ok, e.verb, e.errname, e.errno)
      end
      local wq = ctx:create_wq(ctx:alloc_pd(), ctx:create_cq(2), 4)
      wq = nil; collectgarbage()' 2>&1
    echo "$output"
    [ "${lines[0]}" = "false	ibv_destroy_counters	EBUSY	16" ]
    [ "${lines[1]}" = "false	ibv_free_dm	EBUSY	16" ]
    [ "${lines[2]}" = "verbsh: garbage-collected devobj3: ibv_destroy_wq failed: EBUSY (Device or resource busy); its resources leak until the process exits" ]
}

@test "fake device: dm:reg_dm_mr registers the DM zero-based and writable for the length asked, the provider's refusal raised; its MR's destroy is ibv_dereg_mr" {
    run fvsh '
      local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd()
      local dm = ctx:alloc_dm(32)
      local mr = dm:reg_dm_mr(pd, 24)
      print(mr.kind)
      local ok, e = pcall(dm.reg_dm_mr, dm, pd, 33); print(ok, e.verb, e.errname, e.context.method)
      mr:destroy()
      print(pcall(dm.reg_dm_mr, dm, ctx, 8))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    # IBV_ACCESS_ZERO_BASED (0x20) | IBV_ACCESS_LOCAL_WRITE (0x1)
    [ "${lines[0]}" = "fakeverbs: reg_dm_mr dm_offset 0 length 24 access 0x21" ]
    [ "${lines[1]}" = "mr" ]
    [ "${lines[2]}" = "fakeverbs: reg_dm_mr dm_offset 0 length 33 access 0x21" ]
    [ "${lines[3]}" = "false	ibv_reg_dm_mr	EINVAL	reg_dm_mr" ]
    [ "${lines[4]}" = "fakeverbs: dereg_mr of the DM's MR" ]
    [[ ${lines[5]} == "false	bad argument #1 to 'reg_dm_mr' (verbs.pd expected, got verbs.context)"* ]]
}

@test "fake device: XRC: ctx:open_xrcd asks for no fd with O_CREAT, ctx:open_qp opens an XRC_RECV QP by number in that domain; each destroy calls its own verb" {
    run fvsh '
      local ctx = verbs.open("fake0")
      local x = ctx:open_xrcd()
      local q = ctx:open_qp(0x123456, x)
      print(x.kind, q.kind)
      print(pcall(ctx.open_qp, ctx, 0x654321, ctx:create_counters()))
      q:destroy(); x:destroy()' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    # IBV_XRCD_INIT_ATTR_FD | _OFLAGS = 0x3, O_CREAT 0x40; IBV_QP_OPEN_ATTR_NUM | _XRCD | _TYPE = 0xb, IBV_QPT_XRC_RECV 10
    [ "${lines[0]}" = "fakeverbs: open_xrcd comp_mask 0x3 fd -1 oflags 0x40" ]
    [ "${lines[1]}" = "fakeverbs: open_qp comp_mask 0xb qp_num 0x123456 xrcd set qp_type 10" ]
    [ "${lines[2]}" = "xrcd	qp" ]
    [ "${lines[3]}" = "false	bad argument #2 to 'open_qp' (a device object of kind xrcd expected, got one of kind counters)" ]
    [ "${lines[4]}" = "fakeverbs: destroy_qp of the opened QP 0x123456" ]
    [ "${lines[5]}" = "fakeverbs: close_xrcd" ]
}

@test "fake device: a thread domain and a parent domain over a PD and it: the parent is destroyed by ibv_dealloc_pd, the thread domain by ibv_dealloc_td" {
    run fvsh '
      local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd()
      local td = ctx:alloc_td()
      local par = ctx:alloc_parent_domain(pd, td)
      print(td.kind, par.kind)
      par:destroy(); td:destroy()' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fakeverbs: alloc_parent_domain pd set td set" ]
    [ "${lines[1]}" = "td	parent_domain" ]
    [ "${lines[2]}" = "fakeverbs: dealloc_pd of the parent domain" ]
    [ "${lines[3]}" = "fakeverbs: dealloc_td" ]
}

@test "fake device: wq:modify_wq moves the WQ to RDY (mask STATE); an RSS table of one WQ (log size 0); a flow on a QP's port, a counters object attached to it; each destroy its verb" {
    run fvsh '
      local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)
      local wq = ctx:create_wq(pd, cq, 8)
      print(select("#", wq:modify_wq()))
      local t = ctx:create_rwq_ind_table(wq)
      local qp = pd:create_qp{ qp_type = "RAW_PACKET", send_cq = cq, recv_cq = cq,
        cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 } }
      local f = qp:create_flow(2)
      local k = ctx:create_counters()
      print(t.kind, f.kind, select("#", k:attach_counters_point_flow(f)))
      print(pcall(k.attach_counters_point_flow, k, wq))
      print(pcall(k.memcpy_from_dm, k, 0, 1))
      print(pcall(function() return k.wq_num end))
      f:destroy(); t:destroy()' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    # IBV_WQ_ATTR_STATE 0x1, IBV_WQS_RDY 1; the WQ's number 0x51 = 81, the table's 0x77 = 119
    [ "${lines[0]}" = "fakeverbs: modify_wq wq 81 attr_mask 0x1 wq_state 1" ]
    [ "${lines[1]}" = "0" ]
    [ "${lines[2]}" = "fakeverbs: create_rwq_ind_table log_size 0 wq 81" ]
    [[ ${lines[3]} =~ ^fakeverbs:\ create_flow\ qp\ [0-9]+\ port\ 2\ type\ 0\ num_of_specs\ 0$ ]]
    # IBV_COUNTER_PACKETS 0 at index 0, the flow's handle 0xf10
    [ "${lines[4]}" = "fakeverbs: attach_counters_point_flow desc 0 index 0 flow 0xf10" ]
    [ "${lines[5]}" = "rwq_ind_table	flow	0" ]
    [ "${lines[6]}" = "false	bad argument #1 to 'attach_counters_point_flow' (a device object of kind flow expected, got one of kind wq)" ]
    [ "${lines[7]}" = "false	memcpy_from_dm: this is a device object of kind counters; ibv_memcpy_from_dm needs one of kind dm" ]
    [[ ${lines[8]} == "false	"*"devobj has no field or method 'wq_num'"* ]]
    [ "${lines[9]}" = "fakeverbs: destroy_flow 0xf10" ]
    [ "${lines[10]}" = "fakeverbs: destroy_rwq_ind_table 119" ]
}

@test "fake device: qp:modify_rate_limit hands the rate down, the provider's errno raised; srq:get_srq_num returns the provider's number" {
    run fvsh '
      local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)
      local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,
        cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 } }
      print(select("#", qp:modify_rate_limit(5000)))
      local ok, e = pcall(qp.modify_rate_limit, qp, 7); print(ok, e.verb, e.errname, e.context.device)
      print(pd:create_srq{ max_wr = 4, max_sge = 1 }:get_srq_num())' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[0]} =~ ^fakeverbs:\ modify_qp_rate_limit\ qp\ [0-9]+\ rate_limit\ 5000$ ]]
    [ "${lines[1]}" = "0" ]
    [ "${lines[2]}" = "false	ibv_modify_qp_rate_limit	ERANGE	fake0" ]
    [ "${lines[3]}" = "$((0x5a5))" ]
}

@test "fake device: verbs.import_device(fd) gives an imported context closed by ibv_close_device; imported PD, MR and DM are unimported with their handles; a ctx without a command fd is EBADF" {
    run fvsh '
      local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd()
      local ic = verbs.import_device(0)
      local ipd, imr, idm = ctx:import_pd(0x4321), pd:import_mr(0x8765), ctx:import_dm(0x1357)
      print(ic.kind, ipd.kind, imr.kind, idm.kind)
      ipd:destroy(); imr:destroy(); idm:destroy(); ic:destroy()
      local ok, e = pcall(verbs.import_device, ctx); print(ok, e.verb, e.errname, e.context.fd, e.context.device)' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fakeverbs: import_device fd 0" ]
    [ "${lines[1]}" = "imported_context	imported_pd	imported_mr	imported_dm" ]
    [ "${lines[2]}" = "fakeverbs: unimport_pd 0x4321" ]
    [ "${lines[3]}" = "fakeverbs: unimport_mr 0x8765" ]
    [ "${lines[4]}" = "fakeverbs: unimport_dm 0x1357" ]
    [ "${lines[5]}" = "fakeverbs: close_device of the imported context" ]
    [ "${lines[6]}" = "false	ibv_import_device	EBADF	-1	fake0" ]
}

@test "fake device: qp:wr_set_inline_data_list hands every buffer down in order (16 at most, each a string); an atomic's SGE must be one of 8 bytes, never inline data" {
    run fvsh '
      local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)
      local q = ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq,
        send_ops_flags = { "SEND", "ATOMIC_FETCH_AND_ADD" },
        cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 2, max_recv_sge = 1 } }
      q:wr_start()
      q:wr_send(); q:wr_set_inline_data_list{ "ab", "cde", "" }
      print(select(2, pcall(q.wr_set_inline_data_list, q, { "a", 5 })))
      local t = {}
      for i = 1, 17 do t[i] = string.char(0x60 + i) end
      print(select(2, pcall(q.wr_set_inline_data_list, q, t)))
      t[17] = nil; q:wr_set_inline_data_list(t)
      q:wr_atomic_fetch_add(0x1234, 0x10008, 5)
      local sge8 = { addr = 0x1000, length = 8, lkey = 1 }
      print(select(2, pcall(q.wr_set_sge_list, q, { sge8, sge8 })))
      print(select(2, pcall(q.wr_set_sge_list, q, { { addr = 0x1000, length = 9, lkey = 1 } })))
      print(select(2, pcall(q.wr_set_inline_data, q, "12345678")))
      q:wr_set_sge_list{ sge8 }
      q:wr_abort()' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = 'fakeverbs: wr_set_inline_data_list qp 273 3 buffers: "ab" "cde" ""' ]
    [ "${lines[1]}" = "bad argument #1 to 'wr_set_inline_data_list' ([2]: string expected, got number)" ]
    [ "${lines[2]}" = "bad argument #1 to 'wr_set_inline_data_list' (17 buffers, more than verbsh's 16)" ]
    [ "${lines[3]}" = 'fakeverbs: wr_set_inline_data_list qp 273 16 buffers: "a" "b" "c" "d" "e" "f" "g" "h" "i" "j" "k" "l" "m" "n" "o" "p"' ]
    [ "${lines[4]}" = "fakeverbs: wr_atomic_fetch_add qp 273 rkey 0x1234 addr 0x10008 add 5" ]
    [ "${lines[5]}" = "bad argument #1 to 'wr_set_sge_list' (an atomic takes one SGE of 8 bytes)" ]
    [ "${lines[6]}" = "bad argument #1 to 'wr_set_sge_list' (an atomic takes one SGE of 8 bytes)" ]
    [ "${lines[7]}" = "wr_set_inline_data: an atomic returns the old value into an SGE: use wr_set_sge" ]
    [ "${#lines[@]}" -eq 8 ]
}

@test "fake device: an op asked for in send_ops_flags whose function the provider left NULL is refused by name (cmp_swp, atomic_write); wr_set_xrc_srqn hands the number down on an XRC_SEND QP and is refused on an RC one" {
    run fvsh '
      local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)
      local cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 }
      local q = ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq,
        send_ops_flags = { "SEND", "ATOMIC_CMP_AND_SWP", "ATOMIC_WRITE" }, cap = cap }
      q:wr_start()
      print(select(2, pcall(q.wr_atomic_cmp_swp, q, 0x1234, 0x10008, 1, 2)))
      print(select(2, pcall(q.wr_atomic_write, q, 0x1234, 0x10008, "12345678")))
      q:wr_send()
      print(select(2, pcall(q.wr_set_xrc_srqn, q, 0x77)))
      q:wr_abort()
      local x = ctx:create_qp_ex{ pd = pd, qp_type = "XRC_SEND", send_cq = cq, recv_cq = cq, send_ops_flags = { "SEND" },
        cap = cap }
      x:wr_start(); x:wr_send(); x:wr_set_xrc_srqn(0x12345); x:wr_set_xrc_srqn(0xffffffff)
      print(select(2, pcall(x.wr_set_xrc_srqn, x, 0x100000000)))
      x:wr_abort()' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "wr_atomic_cmp_swp: the provider set up no function for ATOMIC_CMP_AND_SWP although send_ops_flags asked for it (calling it would jump through a NULL pointer): this device does not support ATOMIC_CMP_AND_SWP through the new post-send API" ]
    [ "${lines[1]}" = "wr_atomic_write: this device's provider created the QP with ATOMIC_WRITE but left ibv_wr_atomic_write unimplemented (a NULL pointer that C would jump through): see help \"wr_atomic_write\" for the devices that have it" ]
    [ "${lines[2]}" = "wr_set_xrc_srqn: this QP is not an XRC_SEND QP (its provider has no ibv_wr_set_xrc_srqn): see help \"XRC\"" ]
    [ "${lines[3]}" = "fakeverbs: wr_set_xrc_srqn qp 274 srqn 0x12345" ]
    [ "${lines[4]}" = "fakeverbs: wr_set_xrc_srqn qp 274 srqn 0xffffffff" ]
    [ "${lines[5]}" = "bad argument #1 to 'wr_set_xrc_srqn' (remote_srqn: 4294967296 is out of range (0..4294967295))" ]
}

@test "fake device: ctx:init_ah_from_wc hands down a table WC (imm_data in network order, invalidated_rkey in host order) and the GRH, returns the provider's address, raises its errno of either sign; a WC without GRH, a number or a short GRH are refused naming them" {
    run fvsh '
      local ctx = verbs.open("fake0")
      local grh = "\x60" .. string.rep("g", 38) .. "\x7e"
      local wc = { wr_id = 0x1234, status = "SUCCESS", opcode = "RECV", wc_flags = { "GRH", "WITH_IMM" },
        imm_data = 0x12345678, src_qp = 0x2a17, slid = 0x4321, sl = 5 }
      local a = ctx:init_ah_from_wc(2, wc, grh)
      print(a.is_global, a.port_num, a.sl, a.dlid, a.grh.sgid_index)
      ctx:init_ah_from_wc(1, { wc_flags = { "GRH", "WITH_INV" }, invalidated_rkey = 0xabcdef01 }, grh)
      for _, p in ipairs { 8, 9 } do local ok, e = pcall(ctx.init_ah_from_wc, ctx, p, wc, grh); print(ok, e.verb, e.errname) end
      print(select(2, pcall(ctx.init_ah_from_wc, ctx, 1, 5, grh)))
      print(select(2, pcall(ctx.init_ah_from_wc, ctx, 1, { wc_flags = "WITH_IMM" }, grh)))
      print(select(2, pcall(ctx.init_ah_from_wc, ctx, 1, wc, grh:sub(2))))
      print(select(2, pcall(ctx.init_ah_from_wc, ctx, 1, wc, 40)))
      print(select(2, pcall(ctx.init_ah_from_wc, ctx, 1, { wc_flags = "GRH", imm_data = 1 << 32 }, grh)))
      ctx:init_ah_from_wc(3, { wc_flags = { "GRH", "WITH_IMM" }, imm_data = 0xffffffff }, grh)' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fakeverbs: init_ah_from_wc port 2 wr_id 4660 wc_flags 0x3 imm_data bytes 12 34 56 78 src_qp 0x2a17 slid 17185 sl 5 grh 0x60..0x7e" ]
    [ "${lines[1]}" = "1	2	5	17185	3" ]
    # invalidated_rkey shares imm_data's bytes: host order (this host is little-endian)
    [ "${lines[2]}" = "fakeverbs: init_ah_from_wc port 1 wr_id 0 wc_flags 0x9 imm_data bytes 01 ef cd ab src_qp 0x0 slid 0 sl 0 grh 0x60..0x7e" ]
    [ "${lines[4]}" = "false	ibv_init_ah_from_wc	EPROTO" ]
    [ "${lines[6]}" = "false	ibv_init_ah_from_wc	EINVAL" ]
    [ "${lines[7]}" = "bad argument #2 to 'init_ah_from_wc' (ibv_wc (a completion from cq:poll) or table expected, got number)" ]
    [ "${lines[8]}" = "bad argument #2 to 'init_ah_from_wc' (this WC has no GRH (wc_flags lacks \"GRH\"): on RoCE every UD receive carries one)" ]
    [ "${lines[9]}" = "bad argument #3 to 'init_ah_from_wc' (the 40-byte GRH in front of the payload expected (mr:read(offset, 40)), got a string of another length)" ]
    [ "${lines[10]}" = "bad argument #3 to 'init_ah_from_wc' (the 40-byte GRH in front of the payload expected (mr:read(offset, 40)), got number)" ]
    [ "${lines[11]}" = "bad argument #2 to 'init_ah_from_wc' (key 'imm_data': 32-bit unsigned integer expected)" ]
    [ "${lines[12]}" = "fakeverbs: init_ah_from_wc port 3 wr_id 0 wc_flags 0x3 imm_data bytes ff ff ff ff src_qp 0x0 slid 0 sl 0 grh 0x60..0x7e" ]
}

# help(object) ends with the fields the class lists in __fields (what Tab
# completes after "cq."), before its pointer to help "NAME"; none, no line.
@test "fake device: help(object) lists its fields, in the class's order (a CQ's six, a context's three); a PD, which has none, has no fields line" {
    for o in 'c:create_cq(4)' c 'c:alloc_pd()'; do
        run fvsh "local c = verbs.open('fake0'); help($o)"
        echo "$o: ${lines[0]} ... ${lines[-2]}"
        [ "$status" -eq 0 ]
        [ "${lines[-1]}" = '  help "NAME" shows a method with its C prototype, its keys and an example' ]
        case $o in
            c:create_cq*) [ "${lines[0]}" = "cq cqe 4 -- methods:" ]
                [ "${lines[-2]}" = "  fields: cqe, handle, channel, wc_flags, wr_id, status" ] ;;
            c) [ "${lines[0]}" = "context fake0 -- methods:" ]
                [ "${lines[-2]}" = "  fields: name, async_fd, num_comp_vectors" ] ;;
            *) [ "${lines[0]}" = "pd handle 0 -- methods:" ]
                [[ ${lines[-2]} != *fields* ]] ;;
        esac
    done
}
