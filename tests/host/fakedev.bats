#!/usr/bin/env bats
# The paths rxe never takes, on a stand-in device: tests/fakeverbs/fakeverbs.c
# (LD_PRELOAD) is a provider that HAS the hardware-only verbs (raw clock,
# counters, device memory, WQs, TSO), lacks memory windows, raises a QP's async
# event, and can make ibv_get_device_list fail. Every value compared below is
# one that file chose (or received, printed as "fakeverbs: ...").
load ../helpers

setup_file() { fakeverbs_build "$BATS_FILE_TMPDIR"; fakerdmacm_build "$BATS_FILE_TMPDIR"; }

# fvsh CODE: verbsh -e CODE on the fake device
fvsh() { fakeverbs_sh "$BATS_FILE_TMPDIR/fakeverbs.so" "$1"; }
# fcmsh CODE: the same with the stand-in librdmacm (tests/fakeverbs/fakerdmacm.c)
fcmsh() { LD_LIBRARY_PATH=$BATS_FILE_TMPDIR fvsh "$1"; }

@test "fake device: a CQ of create_cq_ex with a channel keeps it: cq.channel is that channel, destroying the channel first is refused naming the CQ, and a channel only the CQ holds outlives a collection" {
    run fvsh 'local ctx = verbs.open("fake0")
      local ch = ctx:create_comp_channel()
      local cq = ctx:create_cq_ex{ cqe = 4, channel = ch }
      print(rawequal(cq.channel, ch))
      print(pcall(ch.destroy, ch))
      local ch2 = ctx:create_comp_channel()
      local fd2 = ch2.fd
      local cq2 = ctx:create_cq_ex{ cqe = 4, channel = ch2, comp_mask = 0 }
      ch2 = nil; collectgarbage(); collectgarbage()
      print(cq2.channel, cq2.channel.fd == fd2, fd2 ~= ch.fd)
      print(pcall(cq2.channel.destroy, cq2.channel))
      cq2:destroy(); cq2 = nil; collectgarbage(); collectgarbage()
      cq:destroy(); print(pcall(ch.destroy, ch))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "true" ]
    [ "${lines[1]}" = "false	destroy: channel1 is still used by 1 object: cq1 (cq cqe 4); destroy it first" ]
    local re=$'^comp_channel fd [0-9]+\ttrue\ttrue$'   # its own fd, not the first channel's
    [[ ${lines[2]} =~ $re ]]
    [ "${lines[3]}" = "false	destroy: channel2 is still used by 1 object: cq2 (cq cqe 4); destroy it first" ]
    [ "${lines[4]}" = "true" ]
    [ "${#lines[@]}" -eq 5 ]
}

@test "fake device: ctx:create_cq_ex refuses an unknown key, a wrong type, an unknown flag and an out-of-range value as argument #1, naming the key" {
    run fvsh 'local ctx = verbs.open("fake0")
      for _, t in ipairs{ { cqe = 4, bogus = 1 }, { cqe = "x" }, { cqe = 4, wc_flags = "NOPE" }, { cqe = 4, comp_vector = -1 } } do
        print(select(2, pcall(function() return ctx:create_cq_ex(t) end)))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "(command line):3: bad argument #1 to 'create_cq_ex' (unknown key 'bogus' (keys: cqe, channel, comp_vector, wc_flags, comp_mask, flags))" ]
    [ "${lines[1]}" = "(command line):3: bad argument #1 to 'create_cq_ex' (key 'cqe': integer expected, got string)" ]
    [[ ${lines[2]} == "(command line):3: bad argument #1 to 'create_cq_ex' (key 'wc_flags': 'NOPE' is not a name of ibv_create_cq_wc_flags (known: BYTE_LEN, IMM, "* ]]
    [[ ${lines[3]} == "(command line):3: bad argument #1 to 'create_cq_ex' (key 'comp_vector': -1 is out of range (0.."* ]]
}

@test "fake device: a failed qp:modify's error object: the verb and errno, and a context of the attr table given, the QP's type, its state before and the one asked, the mask in bit order and the port" {
    FAKEVERBS_FAIL="modify_qp:22" run fvsh 'local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)
      local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
      local attr = { qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = "REMOTE_WRITE" }
      local ok, e = pcall(qp.modify, qp, attr)
      local c = e.context
      print(ok, e.verb, e.errname, rawequal(e.object, qp), rawequal(c.attr, attr), c.qp_type, c.cur_state, c.qp_state, table.concat(c.mask, " "), c.port_num)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "false	ibv_modify_qp	EINVAL	true	true	RC	RESET	INIT	STATE ACCESS_FLAGS PKEY_INDEX PORT	1" ]
}

@test "fake device: two captures at once each keep the posts made while it ran: the first all three, the one started after two of them the third alone" {
    [ "$(id -u)" -eq 0 ] || skip "capturing needs root (CAP_NET_RAW)"
    run fvsh 'local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(64)
      local mr = pd:reg_mr(4096, "LOCAL_WRITE")
      local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 16, max_recv_wr = 16, max_send_sge = 1, max_recv_sge = 1 } }
      local function send(id) qp:post_send{ wr_id = id, opcode = "SEND", sg_list = { { mr = mr, offset = 0, length = 4 } } } end
      local c1 = verbs.capture{ netdev = "lo" }
      send(0x101); send(0x102)
      local c2 = verbs.capture{ netdev = "lo" }
      send(0x103)
      local function ids(c) local l = {} for _, p in ipairs(c:posts()) do l[#l + 1] = ("0x%x"):format(p.wr_id) end return table.concat(l, " ") end
      c1:stop(); c2:stop()
      print(ids(c1)); print(ids(c2))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(grep -v '^fakeverbs: ' <<<"$output")" = "0x101 0x102 0x103
0x103" ]
}

@test "fake device: a failed wr_complete raises its errno with the WRs built, the QP's type, state and caps as C's ibv_query_qp gives them (each cap its own value)" {
    FAKEVERBS_ALL_OPS=1 FAKEVERBS_FAIL="wr_complete:12" run fvsh 'local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)
      local mr = pd:reg_mr(4096, "LOCAL_WRITE")
      local q = ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq, send_ops_flags = { "SEND" },
        cap = { max_send_wr = 5, max_recv_wr = 6, max_send_sge = 2, max_recv_sge = 3, max_inline_data = 64 } }
      q:wr_start()
      q.wr_id = 1; q:wr_send(); q:wr_set_sge(mr, 0, 8)
      q.wr_id = 2; q:wr_send(); q:wr_set_sge(mr, 8, 8)
      local ok, e = pcall(q.wr_complete, q)
      local c = e.context
      print(ok, e.verb, e.errname, rawequal(e.object, q), c.built, c.qp_type, c.qp_state, c.cap.max_send_wr, c.cap.max_recv_wr,
        c.cap.max_send_sge, c.cap.max_recv_sge, c.cap.max_inline_data)' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(grep -v '^fakeverbs: ' <<<"$output")" = "false	ibv_wr_complete	ENOMEM	true	2	RC	RESET	5	6	2	3	64" ]
}

@test "fake device: a failed pd:create_qp raises its errno with the PD as its object and the QP type asked (UC, UD) and the device as its context" {
    FAKEVERBS_FAIL="create_qp:95" run fvsh 'local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)
      for _, t in ipairs{ "UC", "UD" } do
        local ok, e = pcall(pd.create_qp, pd, { qp_type = t, send_cq = cq, recv_cq = cq, cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } })
        print(ok, e.verb, e.errname, rawequal(e.object, pd), e.context.qp_type, e.context.device)
      end' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(grep -v '^fakeverbs: ' <<<"$output")" = "false	ibv_create_qp	EOPNOTSUPP	true	UC	fake0
false	ibv_create_qp	EOPNOTSUPP	true	UD	fake0" ]
}

@test "fake device: a failed ctx:get_pkey_index (libibverbs finds no P_Key table for a fake device) raises its errno with the port and the P_Key asked for as its context" {
    run fvsh 'local ctx = verbs.open("fake0")
      local ok, e = pcall(ctx.get_pkey_index, ctx, 2, 0x8001)
      print(ok, e.verb, e.errname, rawequal(e.object, ctx), e.context.port_num, e.context.pkey)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "false	ibv_get_pkey_index	EINVAL	true	2	$((0x8001))" ]
}

@test "fake device: pd:advise_mr calls ibv_advise_mr once, with PREFETCH, no flags and one SGE that covers the MR; the provider's EOPNOTSUPP is raised (a failing verb is not called again)" {
    run fvsh 'local pd = verbs.open("fake0"):alloc_pd(); local mr = pd:reg_mr(4096, "LOCAL_WRITE")
      io.stderr:write(("mr 0x%x 0x%x\n"):format(mr.addr, mr.lkey))
      local ok, e = pcall(pd.advise_mr, pd, mr); print(ok, e.verb, e.errname, rawequal(e.object, pd))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    local addr lkey
    read -r _ addr lkey <<<"$(grep '^mr ' <<<"$output")"
    [ "$(grep -c '^fakeverbs: advise_mr' <<<"$output")" -eq 1 ]
    grep -qx "fakeverbs: advise_mr advice 0 flags 0x0 1 SGEs: addr $addr length 4096 lkey $lkey;" <<<"$output"
    [ "${lines[-1]}" = "false	ibv_advise_mr	EOPNOTSUPP	true" ]
}

@test "fake device: pd:reg_dmabuf_mr hands the provider each argument in its place (fd, offset, length, iova, access), and verbsh's defaults (offset 0, length 4096, iova 0, LOCAL_WRITE) for those not given; its EOPNOTSUPP is raised" {
    FAKEVERBS_TRACE=1 run fvsh 'local pd = verbs.open("fake0"):alloc_pd()
      print(select(2, pcall(pd.reg_dmabuf_mr, pd, 7, 512, 8192, 0x10000, { "LOCAL_WRITE", "REMOTE_READ" })).errname)
      print(select(2, pcall(pd.reg_dmabuf_mr, pd, 9)).errname)' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(grep -v '^fakeverbs: \(open\|alloc_pd\|close\|dealloc\)' <<<"$output")" = "fakeverbs: reg_dmabuf_mr offset 512 length 8192 iova 0x10000 fd 7 access 0x5
EOPNOTSUPP
fakeverbs: reg_dmabuf_mr offset 0 length 4096 iova 0x0 fd 9 access 0x1
EOPNOTSUPP" ]
}

@test "fake device: ctx:query_gid refuses a port or index out of range, or an extra argument, naming that argument (the checks come before the call)" {
    run fvsh 'local ctx = verbs.open("fake0")
      for _, a in ipairs{ { 256, 0 }, { -1, 0 }, { 1, 65536 }, { 1, -1 }, { "x", 0 }, { 1, 0, 5 } } do
        print(select(2, pcall(function() return ctx:query_gid(table.unpack(a)) end)))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "(command line):3: bad argument #1 to 'query_gid' (port_num: 256 is out of range (0..255))" ]
    [ "${lines[1]}" = "(command line):3: bad argument #1 to 'query_gid' (port_num: -1 is out of range (0..255))" ]
    [ "${lines[2]}" = "(command line):3: bad argument #2 to 'query_gid' (index: 65536 is out of range (0..65535))" ]
    [ "${lines[3]}" = "(command line):3: bad argument #2 to 'query_gid' (index: -1 is out of range (0..65535))" ]
    [ "${lines[4]}" = "(command line):3: bad argument #1 to 'query_gid' (port_num: integer expected, got string)" ]
    [ "${lines[5]}" = "(command line):3: bad argument #3 to 'query_gid' (ctx:query_gid(port, index) takes at most 2 arguments, got 3 (the first extra one: a number))" ]
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
      for _, n in ipairs { 0, 9, (1 << 32) + 1 } do print(n, select(2, pcall(k.read_counters, k, n))) end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "counters	1007" ]
    [ "${lines[1]}" = "1007 2007 3007" ]
    [ "${lines[2]}" = "8	8007" ]
    [ "${lines[3]}" = "0	bad argument #1 to 'read_counters' (ncounters: 0 is out of range (1..8))" ]
    [ "${lines[4]}" = "9	bad argument #1 to 'read_counters' (ncounters: 9 is out of range (1..8))" ]
    # (not cut to an int first: 2^32 + 1 would be 1)
    [ "${lines[5]}" = "4294967297	bad argument #1 to 'read_counters' (ncounters: 4294967297 is out of range (1..8))" ]
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

@test "fake device: wq:post_wq_recv posts all of the MR with the wr_id given, 0 when none is; a third argument is refused" {
    run fvsh '
      local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd()
      local wq = ctx:create_wq(pd, ctx:create_cq(4), 8)
      local mr = pd:reg_mr(100, "LOCAL_WRITE")
      print(wq.kind)
      wq:post_wq_recv(mr); wq:post_wq_recv(mr, 0x1234567); wq:post_wq_recv(mr, 1)
      print(select(2, pcall(wq.post_wq_recv, wq, mr, 5, "x")))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "wq" ]
    [ "${lines[1]}" = "fakeverbs: post_wq_recv wq 81 wr_id 0 num_sge 1 length 100" ]
    [ "${lines[2]}" = "fakeverbs: post_wq_recv wq 81 wr_id 19088743 num_sge 1 length 100" ]
    [ "${lines[3]}" = "fakeverbs: post_wq_recv wq 81 wr_id 1 num_sge 1 length 100" ]
    # (a third argument is refused before anything is posted)
    [ "${lines[4]}" = "bad argument #3 to 'post_wq_recv' (devobj:post_wq_recv(...) takes at most 2 arguments, got 3 (the first extra one: a string))" ]
    [ "${#lines[@]}" -eq 5 ]
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

@test "fake device: a plain CQ's status, wr_id and wc_flags (an extended CQ's members) each say where a plain CQ's completions are read; another name is no field" {
    run fvsh 'local cq = verbs.open("fake0"):create_cq(4)
      for _, k in ipairs{ "status", "wr_id", "wc_flags", "bogus" } do print(select(2, pcall(function() return cq[k] end))) end'
    echo "$output"
    [ "$status" -eq 0 ]
    local k i=0
    for k in status wr_id wc_flags; do
        [ "${lines[i]}" = "(command line):2: cq.$k: this CQ was made by ibv_create_cq, whose completions are read from cq:poll() (wc.$k of each); cq.$k is a member of an extended CQ (ctx:create_cq_ex{ cqe =, wc_flags = { ... } }), valid between cq:start_poll() and cq:end_poll()" ]
        i=$((i + 1))
    done
    [ "${lines[3]}" = "(command line):2: cq has no field or method 'bogus' (help(cq) lists them)" ]
}

@test "fake device: an extended QP reads back the wr_id and wr_flags set on it, beside its other fields; a QP of create_qp has neither, and says how to get the new post-send API" {
    run fvsh '
      local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)
      local cap = { max_send_wr = 4, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 }
      local q = ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq, cap = cap, send_ops_flags = { "SEND" } }
      q:wr_start(); q.wr_id, q.wr_flags = 0x1002, { "SIGNALED", "FENCE" }
      print(q.wr_id, table.concat(q.wr_flags, " "), q.qp_num, q.qp_type, q.state)
      q.wr_id, q.wr_flags = 0x2003, "SOLICITED"
      print(q.wr_id, table.concat(q.wr_flags, " "))
      q:wr_abort()
      local q2 = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = cap }
      for _, k in ipairs{ "wr_flags", "wr_id" } do print(q2.qp_type, select(2, pcall(function() return q2[k] end))) end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "$((0x1002))	FENCE SIGNALED	273	RC	RESET" ]
    [ "${lines[1]}" = "$((0x2003))	SOLICITED" ]
    [[ ${lines[2]} == "RC	(command line):11: wr_flags: this QP has no new post-send API: create it with ctx:create_qp_ex{ pd = pd, ..., send_ops_flags = { \"SEND\", ... } }"* ]]
    [[ ${lines[3]} == "RC	(command line):11: wr_id: this QP has no new post-send API: "* ]]
}

@test "fake device: every op and setter of the new post-send API hands the provider its own arguments with the WR's wr_id and wr_flags (immediates in network order) and returns nothing, as C's void functions" {
    export FAKEVERBS_ALL_OPS=1
    run fvsh '
      local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)
      local mr = pd:reg_mr(4096, { "LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC" })
      local cap = { max_send_wr = 64, max_recv_wr = 2, max_send_sge = 2, max_recv_sge = 1, max_inline_data = 64 }
      local q = ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq, cap = cap,
        send_ops_flags = { "SEND", "SEND_WITH_IMM", "RDMA_WRITE", "RDMA_WRITE_WITH_IMM", "RDMA_READ", "ATOMIC_CMP_AND_SWP",
          "ATOMIC_FETCH_AND_ADD", "LOCAL_INV", "SEND_WITH_INV", "TSO", "ATOMIC_WRITE" } }
      io.stderr:write(("mr 0x%x\n"):format(mr.addr))
      local function n(m, ...) io.stderr:write(m, " returns ", select("#", q[m](q, ...)), "\n") end
      n("wr_start")
      q.wr_id, q.wr_flags = 0x1001, "SIGNALED"
      n("wr_send_imm", 0x01020304); n("wr_set_sge", mr, 8, 16)
      q.wr_id, q.wr_flags = 0x1002, { "SIGNALED", "FENCE" }
      n("wr_rdma_write", 0x2a2b2c2d, 0x1122334455667788); n("wr_set_inline_data", "abc")
      q.wr_id, q.wr_flags = 0x1003, "SOLICITED"
      n("wr_rdma_write_imm", 0x3a3b3c3d, 0x8877665544332211, 0xa1b2c3d4); n("wr_set_inline_data_list", { "de", "f" })
      q.wr_id, q.wr_flags = 0x1004, 0
      n("wr_rdma_read", 0x4a4b4c4d, 0x1000000000000040); n("wr_set_sge_list", { { mr = mr, offset = 64, length = 32 } })
      q.wr_id = 0x1005
      n("wr_atomic_write", 0x5a5b5c5d, 0x2000000000000008, "\1\2\3\4\5\6\7\8"); n("wr_set_sge", mr.lkey, mr.addr + 96, 8)
      q.wr_id = 0x1006
      n("wr_local_inv", 0x6a6b6c6d)
      q.wr_id = 0x1007
      n("wr_send_inv", 0x7a7b7c7d); n("wr_set_sge", mr, 104, 8)
      q.wr_id = 0x1008
      n("wr_atomic_fetch_add", 0x8a8b8c8d, 0x3000000000000010, 0x99); n("wr_set_sge", mr, 112, 8)
      q.wr_id = 0x1009
      n("wr_send"); n("wr_send_tso", "hdr", 1400); n("wr_set_sge", mr, 120, 8)
      n("wr_abort")
      n("wr_start"); n("wr_send"); n("wr_set_sge", mr, 0, 8); n("wr_complete")' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    local base a
    base=$(sed -n 's/^mr 0x//p' <<<"$output")
    a() { printf '0x%x' $((0x$base + $1)); }
    local want=(
      "wr_start returns 0"
      "fakeverbs: wr_send_imm qp 273 wr_id 0x1001 wr_flags 0x2 imm_data 01 02 03 04"
      "wr_send_imm returns 0"
      "fakeverbs: wr_set_sge qp 273 lkey 0x1234 addr $(a 8) length 16"
      "wr_set_sge returns 0"
      "fakeverbs: wr_rdma_write qp 273 wr_id 0x1002 wr_flags 0x3 rkey 0x2a2b2c2d addr 0x1122334455667788"
      "wr_rdma_write returns 0"
      "fakeverbs: wr_set_inline_data qp 273 \"abc\""
      "wr_set_inline_data returns 0"
      "fakeverbs: wr_rdma_write_imm qp 273 wr_id 0x1003 wr_flags 0x4 rkey 0x3a3b3c3d addr 0x8877665544332211 imm_data a1 b2 c3 d4"
      "wr_rdma_write_imm returns 0"
      "fakeverbs: wr_set_inline_data_list qp 273 2 buffers: \"de\" \"f\""
      "wr_set_inline_data_list returns 0"
      "fakeverbs: wr_rdma_read qp 273 wr_id 0x1004 wr_flags 0x0 rkey 0x4a4b4c4d addr 0x1000000000000040"
      "wr_rdma_read returns 0"
      "fakeverbs: wr_set_sge_list qp 273 1 SGEs: lkey 0x1234 addr $(a 64) length 32;"
      "wr_set_sge_list returns 0"
      "fakeverbs: wr_atomic_write qp 273 wr_id 0x1005 wr_flags 0x0 rkey 0x5a5b5c5d addr 0x2000000000000008 data 01 02 03 04 05 06 07 08"
      "wr_atomic_write returns 0"
      "fakeverbs: wr_set_sge qp 273 lkey 0x1234 addr $(a 96) length 8"
      "wr_set_sge returns 0"
      "fakeverbs: wr_local_inv qp 273 wr_id 0x1006 wr_flags 0x0 invalidate_rkey 0x6a6b6c6d"
      "wr_local_inv returns 0"
      "fakeverbs: wr_send_inv qp 273 wr_id 0x1007 wr_flags 0x0 invalidate_rkey 0x7a7b7c7d"
      "wr_send_inv returns 0"
      "fakeverbs: wr_set_sge qp 273 lkey 0x1234 addr $(a 104) length 8"
      "wr_set_sge returns 0"
      "fakeverbs: wr_atomic_fetch_add qp 273 rkey 0x8a8b8c8d addr 0x3000000000000010 add 153"
      "wr_atomic_fetch_add returns 0"
      "fakeverbs: wr_set_sge qp 273 lkey 0x1234 addr $(a 112) length 8"
      "wr_set_sge returns 0"
      "wr_send returns 0"
      "fakeverbs: wr_send_tso qp 273 hdr_sz 3 mss 1400 first h last r"
      "wr_send_tso returns 0"
      "fakeverbs: wr_set_sge qp 273 lkey 0x1234 addr $(a 120) length 8"
      "wr_set_sge returns 0"
      "wr_abort returns 0"
      "wr_start returns 0"
      "wr_send returns 0"
      "fakeverbs: wr_set_sge qp 273 lkey 0x1234 addr $(a 0) length 8"
      "wr_set_sge returns 0"
      "wr_complete returns 0"
    )
    local got
    got=$(grep -v '^mr 0x' <<<"$output")
    [ "$got" = "$(printf '%s\n' "${want[@]}")" ]
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

@test "fake device: ctx:query_device_ex() with one argument or two is refused at argument #1; with none (or a trailing nil) it reads the device's max_qp" {
    run fvsh '
      local ctx = verbs.open("fake0")
      print(select(2, pcall(ctx.query_device_ex, ctx, 5)))
      print(select(2, pcall(ctx.query_device_ex, ctx, {}, 2)))
      print(ctx:query_device_ex().max_qp, ctx:query_device_ex(nil).max_qp)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "bad argument #1 to 'query_device_ex' (ctx:query_device_ex() takes no arguments, got 1 (the first: a number))" ]
    [ "${lines[1]}" = "bad argument #1 to 'query_device_ex' (ctx:query_device_ex() takes no arguments, got 2 (the first: a table))" ]
    [ "${lines[2]}" = "1021	1021" ]
    [ "${#lines[@]}" -eq 3 ]
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
      print(pcall(q.wr_complete, q))   -- (the SGE given by a list counts: the WR is whole)' 2>&1
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
    [ "${lines[8]}" = "fakeverbs: wr_set_sge_list qp 273 1 SGEs: lkey 0x1 addr 0x1000 length 8;" ]
    [ "${lines[9]}" = "true" ]
    [ "${#lines[@]}" -eq 10 ]
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

@test "fake device: qp:wr_atomic_cmp_swp hands rkey, remote address, compare and swap down and counts as a WR of its own: wr_complete names it (WR #2) while it lacks its 8-byte SGE, wr_set_sge then fills it" {
    FAKEVERBS_CMP_SWP=1 run fvsh '
      local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)
      local q = ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq,
        send_ops_flags = { "SEND", "ATOMIC_CMP_AND_SWP" },
        cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 } }
      q:wr_start(); q:wr_send()
      q:wr_atomic_cmp_swp(0x1234, 0x10010, 7, 9)
      print(select(2, pcall(q.wr_complete, q)))
      print(select(2, pcall(q.wr_set_sge, q, 0x77, 0x2000, 4)))
      q:wr_set_sge(0x77, 0x2000, 8)
      q:wr_complete()' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fakeverbs: wr_atomic_cmp_swp qp 273 rkey 0x1234 addr 0x10010 compare 7 swap 9" ]
    # the op ended a WR: the session counts it and wants its SGE
    [ "${lines[1]}" = "wr_complete: WR #2 (ATOMIC_CMP_AND_SWP) has no local buffer: an atomic needs qp:wr_set_sge(mr, offset, 8) for the 8 bytes the remote's old value comes back into" ]
    [ "${lines[2]}" = "bad argument #3 to 'wr_set_sge' (an atomic's SGE is 8 bytes (the old 64-bit value), not 4)" ]
    [ "${lines[3]}" = "fakeverbs: wr_set_sge qp 273 lkey 0x77 addr 0x2000 length 8" ]
    [ "${#lines[@]}" -eq 4 ]
}

@test "fake device: a second qp:wr_start names how many WRs the open session built, the plural as English has it: 0 WRs, 1 WR, 2 WRs" {
    run fvsh '
      local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)
      local q = ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq, send_ops_flags = { "SEND" },
        cap = { max_send_wr = 4, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 } }
      q:wr_start()
      for i = 0, 2 do
        print(select(2, pcall(q.wr_start, q)))
        q:wr_send()
      end
      q:wr_abort()'
    echo "$output"
    [ "$status" -eq 0 ]
    local tail=": finish it with qp:wr_complete() or qp:wr_abort() first (ibv_wr_start would wait for its own lock)"
    [ "${lines[0]}" = "wr_start: a session is already open (0 WRs built)$tail" ]
    [ "${lines[1]}" = "wr_start: a session is already open (1 WR built)$tail" ]
    [ "${lines[2]}" = "wr_start: a session is already open (2 WRs built)$tail" ]
}

@test "fake device: qp:wr_set_sge(lkey, addr, length) hands the three numbers down in that order, addr in all 64 bits; an addr that is no integer is refused as argument #2" {
    run fvsh '
      local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)
      local q = ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq, send_ops_flags = { "SEND" },
        cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 } }
      q:wr_start(); q:wr_send()
      q:wr_set_sge(0x77, 0x2000, 64)
      q:wr_set_sge(0x78, -1, 0xffffffff)
      print(select(2, pcall(q.wr_set_sge, q, 0x79, 0.5, 8)))
      q:wr_abort()' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fakeverbs: wr_set_sge qp 273 lkey 0x77 addr 0x2000 length 64" ]
    [ "${lines[1]}" = "fakeverbs: wr_set_sge qp 273 lkey 0x78 addr 0xffffffffffffffff length 4294967295" ]
    [ "${lines[2]}" = "bad argument #2 to 'wr_set_sge' (addr: integer expected, got number)" ]
    [ "${#lines[@]}" -eq 3 ]
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

@test "fake device: a failed ibv_query_device, ibv_query_port (query_port and gids), ibv_query_device_ex, ibv_get_async_event or ibv_alloc_pd raises the verb's name, errno (returned or in errno) and explanation" {
    # f's failure under FAKEVERBS_FAIL: the error's verb and errno, then its message
    show='local ok, e = pcall(f); print(ok, e.verb, e.errno); print(e)'
    FAKEVERBS_FAIL="query_device:13" run fvsh "local c = verbs.open('fake0'); f = function() return c:query_device() end; $show"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "false	ibv_query_device	13" ]
    [ "${lines[1]}" = "ibv_query_device failed: EACCES (errno 13, Permission denied)" ]
    [ "${lines[2]}" = "  why: permission denied: the access rights asked for are not allowed here" ]
    # -1 with errno: the errno, not the -1
    FAKEVERBS_FAIL="query_device:-12" run fvsh "local c = verbs.open('fake0'); f = function() return c:query_device() end; $show"
    echo "$output"
    [ "${lines[0]}" = "false	ibv_query_device	12" ]
    [ "${lines[1]}" = "ibv_query_device failed: ENOMEM (errno 12, Cannot allocate memory)" ]
    FAKEVERBS_FAIL="query_port:19" run fvsh "local c = verbs.open('fake0'); f = function() return c:query_port(2) end; $show"
    echo "$output"
    [ "${lines[0]}" = "false	ibv_query_port	19" ]
    [ "${lines[1]}" = "ibv_query_port failed: ENODEV (errno 19, No such device)" ]
    [ "${lines[2]}" = "  why: no such device, or the device went away" ]
    FAKEVERBS_FAIL="query_port:-5" run fvsh "local c = verbs.open('fake0'); f = function() return c:gids(1) end; $show"
    echo "$output"
    [ "${lines[0]}" = "false	ibv_query_port	5" ]
    [ "${lines[1]}" = "ibv_query_port failed: EIO (errno 5, Input/output error)" ]
    FAKEVERBS_FAIL="query_port:7" run fvsh "local c = verbs.open('fake0'); f = function() return c:gids() end; $show"
    [ "${lines[0]}" = "false	ibv_query_port	7" ]
    FAKEVERBS_FAIL="query_device_ex:-13" run fvsh "local c = verbs.open('fake0'); f = function() return c:query_device_ex() end; $show"
    echo "$output"
    [ "${lines[0]}" = "false	ibv_query_device_ex	13" ]
    [ "${lines[1]}" = "ibv_query_device_ex failed: EACCES (errno 13, Permission denied)" ]
    FAKEVERBS_FAIL="query_device_ex:22" run fvsh "local c = verbs.open('fake0'); f = function() return c:query_device_ex() end; $show"
    [ "${lines[0]}" = "false	ibv_query_device_ex	22" ]
    # a queued event, but the read of it fails
    FAKEVERBS_ASYNC="PORT_ERR:2" FAKEVERBS_FAIL="get_async_event:5" run fvsh "local c = verbs.open('fake0'); f = function() return c:get_async_event(1000) end; $show"
    echo "$output"
    [ "${lines[0]}" = "false	ibv_get_async_event	5" ]
    [ "${lines[1]}" = "ibv_get_async_event failed: EIO (errno 5, Input/output error)" ]
    FAKEVERBS_FAIL="alloc_pd:24" run fvsh "local c = verbs.open('fake0'); f = function() return c:alloc_pd() end; $show"
    echo "$output"
    [ "$output" = "false	ibv_alloc_pd	24
ibv_alloc_pd failed: EMFILE (errno 24, Too many open files)" ]
}

@test "fake device: cq:poll gives each completion's fields as the provider wrote them (imm_data from network order, invalidated_rkey as is, a failed one's vendor_err); cq.handle; a failed ibv_poll_cq raises its -errno in both forms" {
    FAKEVERBS_WCS=3 run fvsh '
      local c = verbs.open("fake0"); local cq, cq2 = c:create_cq(8), c:create_cq(3)
      for _, w in ipairs(cq:poll()) do
        print(w.wr_id, w.status, w.opcode, w.vendor_err, w.byte_len, w.imm_data, w.invalidated_rkey, w.qp_num,
          w.src_qp, table.concat(w.wc_flags or {}, ","), w.pkey_index, w.slid, w.sl, w.dlid_path_bits)
      end
      print(#cq:poll(), cq.handle, cq2.handle)'
    echo "$output"
    [ "$status" -eq 0 ]
    # tests/fakeverbs/fakeverbs.c's fwcs
    [ "${lines[0]}" = "$((0x1001))	SUCCESS	RECV_RDMA_WITH_IMM	0	1234	$((0x12345678))	nil	$((0x111))	$((0xabcde))	GRH,WITH_IMM	3	$((0x1357))	5	6" ]
    [ "${lines[1]}" = "$((0x2002))	REM_ACCESS_ERR	nil	$((0x55))	nil	nil	nil	$((0x112))	nil		nil	nil	nil	nil" ]
    [ "${lines[2]}" = "$((0x3003))	SUCCESS	RECV	0	77	nil	$((0x9abcdef0))	$((0x113))	$((0x54321))	WITH_INV	1	$((0x2468))	2	1" ]
    [ "${lines[3]}" = "0	$((0xc1))	$((0xc2))" ]
    FAKEVERBS_WCS=1 FAKEVERBS_FAIL="poll_cq:-22" run fvsh '
      local cq = verbs.open("fake0"):create_cq(8)
      print(#cq:poll(1))
      local ok, e = pcall(cq.poll, cq); print(ok, e.verb, e.errno); print(e)'
    echo "$output"
    [ "${lines[0]}" = "1" ]
    [ "${lines[1]}" = "false	ibv_poll_cq	22" ]
    [ "${lines[2]}" = "ibv_poll_cq failed: EINVAL (errno 22, Invalid argument)" ]
    [ "${lines[3]}" = "  why: an argument is not valid for this object in its current state, or a value is above a device limit" ]
    FAKEVERBS_WCS=2 FAKEVERBS_FAIL="poll_cq:-12" run fvsh '
      local cq, w = verbs.open("fake0"):create_cq(8), verbs.wc_array(4)
      print(cq:poll(w), w[1].wr_id, w[2].wr_id)
      local ok, e = pcall(cq.poll, cq, w); print(ok, e.verb, e.errno, e.errname)'
    echo "$output"
    [ "${lines[0]}" = "2	$((0x1001))	$((0x2002))" ]
    [ "${lines[1]}" = "false	ibv_poll_cq	12	ENOMEM" ]
}

@test "fake device: cq:req_notify hands solicited_only down (true and 1 as 1, nothing and 0 as 0); get_cq_event returns each CQ whose event came, in order; failed ibv_req_notify_cq, ibv_create_comp_channel, ibv_get_cq_event and ibv_query_qp raise their errno, a QP whose query fails is in state UNKNOWN" {
    run fvsh '
      local c = verbs.open("fake0"); local ch = c:create_comp_channel()
      local cq, cq2 = c:create_cq(5, { channel = ch }), c:create_cq(6, { channel = ch })
      print(ch:get_cq_event(0))
      cq2:req_notify(true); cq:req_notify(); cq2:req_notify(1); cq:req_notify(0)
      for _ = 1, 4 do local got = ch:get_cq_event(1000); print(got == cq, got == cq2) end
      print(ch:get_cq_event(0))
      cq:ack_events(2); print(pcall(cq.ack_events, cq, 1))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "nil" ]
    [ "${lines[1]}" = "fakeverbs: req_notify_cq cqe 6 solicited_only 1" ]
    [ "${lines[2]}" = "fakeverbs: req_notify_cq cqe 5 solicited_only 0" ]
    [ "${lines[3]}" = "fakeverbs: req_notify_cq cqe 6 solicited_only 1" ]
    [ "${lines[4]}" = "fakeverbs: req_notify_cq cqe 5 solicited_only 0" ]
    [ "${lines[5]}" = "false	true" ]
    [ "${lines[6]}" = "true	false" ]
    [ "${lines[7]}" = "false	true" ]
    [ "${lines[8]}" = "true	false" ]
    [ "${lines[9]}" = "nil" ]
    # both of cq's events were received: acking 2 is right, a third is refused
    [ "${lines[10]}" = "false	bad argument #1 to 'ack_events' (1 events to ack, but only 0 were received and not acked)" ]
    show='local ok, e = pcall(f); print(ok, e.verb, e.errno); print(e)'
    FAKEVERBS_FAIL="req_notify_cq:95" run fvsh "local cq = verbs.open('fake0'):create_cq(8); f = function() return cq:req_notify(true) end; $show"
    echo "$output"
    [ "${lines[0]}" = "fakeverbs: req_notify_cq cqe 8 solicited_only 1" ]
    [ "${lines[1]}" = "false	ibv_req_notify_cq	95" ]
    [ "${lines[2]}" = "ibv_req_notify_cq failed: EOPNOTSUPP (errno 95, Operation not supported)" ]
    [ "${lines[3]}" = "  why: the device does not support this operation or flag" ]
    FAKEVERBS_FAIL="create_comp_channel:24" run fvsh "local c = verbs.open('fake0'); f = function() return c:create_comp_channel() end; $show"
    echo "$output"
    [ "$output" = "false	ibv_create_comp_channel	24
ibv_create_comp_channel failed: EMFILE (errno 24, Too many open files)" ]
    FAKEVERBS_FAIL="get_cq_event:4" run fvsh "local c = verbs.open('fake0'); local ch = c:create_comp_channel()
      local cq = c:create_cq(5, { channel = ch }); cq:req_notify(); f = function() return ch:get_cq_event(1000) end; $show
      print(pcall(cq.ack_events, cq, 1))
      local _, e = pcall(f); print(e.object == ch, type(e.context), next(e.context))"
    echo "$output"
    [ "${lines[1]}" = "false	ibv_get_cq_event	4" ]
    [ "${lines[2]}" = "ibv_get_cq_event failed: EINTR (errno 4, Interrupted system call)" ]
    # no event was received, so none is to be acked
    [ "${lines[3]}" = "false	bad argument #1 to 'ack_events' (1 events to ack, but only 0 were received and not acked)" ]
    # the error's object is the channel, its context an empty table
    [ "${lines[4]}" = $'true\ttable\tnil' ]
    FAKEVERBS_FAIL="query_qp:12" run fvsh "local c = verbs.open('fake0'); local pd, cq = c:alloc_pd(), c:create_cq(4)
      local qp = pd:create_qp{ send_cq = cq, recv_cq = cq, qp_type = 'RC', cap = { max_send_wr = 1, max_recv_wr = 1 } }
      print(qp.state, qp.qp_num, qp.handle); f = function() return qp:query() end; $show"
    echo "$output"
    [ "${lines[0]}" = "UNKNOWN	$((0x111))	$((0x411))" ]
    [ "${lines[1]}" = "false	ibv_query_qp	12" ]
    [ "${lines[2]}" = "ibv_query_qp failed: ENOMEM (errno 12, Cannot allocate memory)" ]
}

@test "fake device: errno 1 (EPERM, the first errno) is named like any other: in cq:wait's second value and in the error object raised" {
    FAKEVERBS_WCS=1 FAKEVERBS_FAIL="poll_cq:-1" run fvsh '
      local cq = verbs.open("fake0"):create_cq(8)
      local l, why = cq:wait(2, 5000); print(#l, why)
      local ok, e = pcall(cq.wait, cq, 1); print(ok, e.verb, e.errno, rawget(e, "errname")); print(e)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "1	ibv_poll_cq failed after 1 of 2 completions: EPERM (errno 1); those are returned, and the next poll meets the error again" ]
    [ "${lines[1]}" = "false	ibv_poll_cq	1	EPERM" ]
    [ "${lines[2]}" = "ibv_poll_cq failed: EPERM (errno 1, Operation not permitted)" ]
}

@test "fake device: one wc_array filled by cq:poll, then by the loop's cq:wait(wcs) and cq:wait(wcs, 1): each entry's status is the newest completion's (SUCCESS, REM_ACCESS_ERR, SUCCESS)" {
    FAKEVERBS_WCS=3 run fvsh 'local cq = verbs.open("fake0"):create_cq(8); local w = verbs.wc_array(1)
      print(cq:poll(w), ("0x%x"):format(w[1].wr_id), w[1].status)
      print(cq:wait(w), ("0x%x"):format(w[1].wr_id), w[1].status)
      print(cq:wait(w, 1), ("0x%x"):format(w[1].wr_id), w[1].status)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "1	0x1001	SUCCESS
1	0x2002	REM_ACCESS_ERR
1	0x3003	SUCCESS" ]
}

@test "fake device: a field of a wc_array entry that the poll does not store is refused on assignment, naming the entry by its 1-based index; an entry past those filled too" {
    FAKEVERBS_WCS=2 run fvsh 'local cq = verbs.open("fake0"):create_cq(8); local w = verbs.wc_array(3)
      print(cq:poll(w))
      print(select(2, pcall(function() w[1].byte_len = 5 end)))
      print(select(2, pcall(function() w[2].src_qp = 7 end)))
      print(select(2, pcall(function() w[3].status = "SUCCESS" end)))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "2" ]
    [ "${lines[1]}" = "(command line):3: wc[1].byte_len: the entries of a wc_array are filled by cq:poll and cq:wait, not assigned" ]
    [ "${lines[2]}" = "(command line):4: wc[2].src_qp: the entries of a wc_array are filled by cq:poll and cq:wait, not assigned" ]
    [ "${lines[3]}" = "(command line):5: wc[3].status: the entries of a wc_array are filled by cq:poll and cq:wait, not assigned" ]
}

@test "fake device: a cq:wait whose poll fails after some completions returns them with a second value naming the failure (not a timeout), in both forms; the next wait raises the errno" {
    FAKEVERBS_WCS=2 FAKEVERBS_FAIL="poll_cq:-11" run fvsh '
      local cq = verbs.open("fake0"):create_cq(8)
      local l, why = cq:wait(3, 5000); print(#l, l[1].wr_id, l[2].wr_id); print(why)
      local ok, e = pcall(cq.wait, cq, 1); print(ok, e.verb, e.errno)
      local cq2, w = verbs.open("fake0"):create_cq(8), verbs.wc_array(4)
      print(cq2:wait(w, 3)); print(w[1].wr_id, w[2].wr_id)
      ok, e = pcall(cq2.wait, cq2, w, 2, 1000); print(ok, e.verb, e.errno)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "2	$((0x1001))	$((0x2002))" ]
    [ "${lines[1]}" = "ibv_poll_cq failed after 2 of 3 completions: EAGAIN (errno 11); those are returned, and the next poll meets the error again" ]
    [ "${lines[2]}" = "false	ibv_poll_cq	11" ]
    # without a timeout too
    [ "${lines[3]}" = "2	ibv_poll_cq failed after 2 of 3 completions: EAGAIN (errno 11); those are returned, and the next poll meets the error again" ]
    [ "${lines[4]}" = "$((0x1001))	$((0x2002))" ]
    [ "${lines[5]}" = "false	ibv_poll_cq	11" ]
    # all that was asked for came: no second value, and the timeout is only a limit
    FAKEVERBS_WCS=2 FAKEVERBS_FAIL="poll_cq:-11" run fvsh '
      local cq = verbs.open("fake0"):create_cq(8)
      local cq2 = verbs.open("fake0"):create_cq(8)
      print(select("#", cq:wait(2, 100)), select("#", cq2:wait(verbs.wc_array(2), 2, 100)))'
    echo "$output"
    [ "$output" = "1	1" ]
}

@test "fake device: an extended CQ's readers give each completion's own values (imm_data from network order, the invalidated rkey as is, 64-bit timestamps, tm_info's tag and priv); a failed one only wr_id, status, vendor_err, qp_num; the provider's end_poll runs after next_poll's ENOENT (not rxe's quirk)" {
    FAKEVERBS_WCS=3 run fvsh '
      local cq = verbs.open("fake0"):create_cq_ex{ cqe = 8, wc_flags = { "BYTE_LEN", "IMM", "QP_NUM", "SRC_QP", "SLID",
        "SL", "DLID_PATH_BITS", "COMPLETION_TIMESTAMP", "COMPLETION_TIMESTAMP_WALLCLOCK", "CVLAN", "FLOW_TAG", "TM_INFO" } }
      local function all()
        local tm = cq:read_tm_info()
        print(cq.wr_id, cq.status, cq:read_opcode(), cq:read_vendor_err(), cq:read_byte_len(), cq:read_qp_num(),
          cq:read_src_qp(), table.concat(cq:read_wc_flags(), ","), cq:read_slid(), cq:read_sl(), cq:read_dlid_path_bits())
        print(cq:read_completion_ts(), cq:read_completion_wallclock_ns(), cq:read_cvlan(), cq:read_flow_tag(), tm.tag, tm.priv)
      end
      print(cq:start_poll()); all(); print(cq:read_imm_data())
      print(cq:next_poll(), cq.wr_id, cq.status, cq:read_vendor_err(), cq:read_qp_num())
      print(pcall(cq.read_flow_tag, cq))
      local valid = {}   -- of every reader, those a failed completion answers
      for _, r in ipairs { "opcode", "vendor_err", "byte_len", "imm_data", "invalidated_rkey", "qp_num", "src_qp",
        "wc_flags", "slid", "sl", "dlid_path_bits", "completion_ts", "completion_wallclock_ns", "cvlan", "flow_tag",
        "tm_info" } do
        if pcall(cq["read_" .. r], cq) then valid[#valid + 1] = r end
      end
      print(table.concat(valid, " "))
      print(cq:next_poll()); all(); print(cq:read_invalidated_rkey())
      print(cq:next_poll(), cq:end_poll())'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "true" ]
    # tests/fakeverbs/fakeverbs.c's fwcs[0]
    [ "${lines[1]}" = "$((0x1001))	SUCCESS	RECV_RDMA_WITH_IMM	0	1234	$((0x111))	$((0xabcde))	GRH,WITH_IMM	$((0x1357))	5	6" ]
    [ "${lines[2]}" = "$((0x123456789a))	$((0x1122334455667788))	$((0x0abc))	$((0xfedcba))	$((0x0123456789abcdef))	$((0x2468ace0))" ]
    [ "${lines[3]}" = "$((0x12345678))" ]
    [ "${lines[4]}" = "true	$((0x2002))	REM_ACCESS_ERR	$((0x55))	$((0x112))" ]
    [ "${lines[5]}" = "false	read_flow_tag: this completion failed with REM_ACCESS_ERR, and then only wr_id, status, vendor_err and qp_num are valid (verbs.explain(\"REM_ACCESS_ERR\") says why it failed)" ]
    [ "${lines[6]}" = "vendor_err qp_num" ]
    [ "${lines[7]}" = "true" ]
    [ "${lines[8]}" = "$((0x3003))	SUCCESS	RECV	0	77	$((0x113))	$((0x54321))	WITH_INV	$((0x2468))	2	1" ]
    [ "${lines[9]}" = "$((0x0badcafe0))	$((0x0a0b0c0d0e0f1011))	$((0x0def))	$((0x00a1b2c3))	$((0x1020304050607080))	$((0x13579bdf))" ]
    [ "${lines[10]}" = "$((0x9abcdef0))" ]
    # fakeverbs is no rxe before rdma-core 55: its end_poll is called, and says so
    [ "${lines[11]}" = "fakeverbs: end_poll cqe 8" ]
    [ "${lines[12]}" = "false	true" ]
}

@test "fake device: the C export of an extended QP's wr_id and wr_flags assignments writes each as C's assignment to the ibv_qp_ex, with no recorder problem told" {
    printf '%s\n' 'local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)' \
        'local cap = { max_send_wr = 4, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 }' \
        'local q = ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq, cap = cap, send_ops_flags = { "SEND" } }' \
        'q:wr_start()' 'q.wr_id = 0x1002' 'q.wr_flags = { "SIGNALED", "FENCE" }' 'q:wr_abort()' \
        'print(q.qp_num, q.qp_type, cq.cqe)' >"$BATS_TEST_TMPDIR/set.lua"
    local asan
    asan=$(ldd "$VERBSH" | awk '/libasan/ { print $3 }')
    LD_PRELOAD="${asan:+$asan }$BATS_FILE_TMPDIR/fakeverbs.so" run "$VERBSH" --export-c "$BATS_TEST_TMPDIR/set.c" "$BATS_TEST_TMPDIR/set.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    # (fields read with the recorder on are read as without it, and told nothing about)
    [ "$output" = "273	RC	4
verbsh: 8 verb calls exported to $BATS_TEST_TMPDIR/set.c; cc -Wall -Wextra -Werror $BATS_TEST_TMPDIR/set.c -libverbs -lrdmacm && ./a.out" ]
    [ "$(grep -c 'qp1_ex->wr_id = 4098;' "$BATS_TEST_TMPDIR/set.c")" -eq 1 ]
    [ "$(grep -c 'qp1_ex->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;' "$BATS_TEST_TMPDIR/set.c")" -eq 1 ]
}

@test "fake device: the C export of cq:iter loops ends each poll once: a loop run to its end by its last step's ENOENT, a loop left by break with a completion current by its closing value" {
    printf '%s\n' 'local cq = verbs.open("fake0"):create_cq_ex{ cqe = 4 }' 'for wc in cq:iter() do print(wc.wr_id) end' >"$BATS_TEST_TMPDIR/whole.lua"
    printf '%s\n' 'local cq = verbs.open("fake0"):create_cq_ex{ cqe = 4 }' 'for wc in cq:iter() do print(wc.wr_id) break end' >"$BATS_TEST_TMPDIR/left.lua"
    local f asan
    asan=$(ldd "$VERBSH" | awk '/libasan/ { print $3 }')
    for f in whole left; do
        LD_PRELOAD="${asan:+$asan }$BATS_FILE_TMPDIR/fakeverbs.so" FAKEVERBS_WCS=2 \
            "$VERBSH" --export-c "$BATS_TEST_TMPDIR/$f.c" "$BATS_TEST_TMPDIR/$f.lua" >/dev/null 2>&1
        [ "$(grep -c 'ibv_end_poll(cq1_ex);' "$BATS_TEST_TMPDIR/$f.c")" -eq 1 ]
    done
    grep -q 'cq1:iter step 3' "$BATS_TEST_TMPDIR/whole.c"
    ! grep -q 'left with a completion current' "$BATS_TEST_TMPDIR/whole.c"
    ! grep -q 'cq1:iter step 2' "$BATS_TEST_TMPDIR/left.c"
    grep -q 'the loop was left with a completion current: its closing value ends the poll' "$BATS_TEST_TMPDIR/left.c"
}

@test "fake device: the closing value of cq:iter(), its __close and __gc called by hand, ends the poll it opened and returns nothing, as Lua's own calls of them expect" {
    FAKEVERBS_WCS=2 run fvsh 'local cq = verbs.open("fake0"):create_cq_ex{ cqe = 4 }
      local step, state, _, closing = cq:iter()
      print(rawequal(state, closing), step(state).wr_id)
      print(select("#", getmetatable(closing).__close(closing)), select("#", getmetatable(closing).__gc(closing)))
      print(select("#", step(state)))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    # (the step after the close gives nothing)
    [ "$output" = "true	$((0x1001))
fakeverbs: end_poll cqe 4
0	0
0" ]
}

@test "fake device: cq:iter() gives the WCs with only the fields wc_flags asked for, stops where a next_poll in its body found none; a failed ibv_start_poll or ibv_next_poll raises its errno in both forms, and the loop's poll is ended" {
    FAKEVERBS_WCS=3 run fvsh '
      local c = verbs.open("fake0")
      local cq = c:create_cq_ex{ cqe = 9, wc_flags = { "BYTE_LEN", "SLID" } }
      for wc in cq:iter() do print(wc.wr_id, wc.byte_len, wc.slid, wc.qp_num, wc.imm_data, wc.src_qp) end
      local cq2 = c:create_cq_ex{ cqe = 10, wc_flags = { "QP_NUM" } }
      for wc in cq2:iter() do print(wc.wr_id, wc.qp_num, cq2:next_poll()) end
      print(pcall(cq2.end_poll, cq2))
      -- an iterator called again after its end gives nothing, and polls nothing
      local step, state = c:create_cq_ex{ cqe = 11, wc_flags = {} }:iter()
      while step(state) do end
      print(select("#", step(state)))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "$((0x1001))	1234	$((0x1357))	nil	nil	nil" ]
    [ "${lines[1]}" = "$((0x2002))	nil	nil	nil	nil	nil" ]
    [ "${lines[2]}" = "$((0x3003))	77	$((0x2468))	nil	nil	nil" ]
    [ "${lines[3]}" = "fakeverbs: end_poll cqe 9" ]
    # the body's next_poll took the second; the third's next_poll found none: the loop ends there
    [ "${lines[4]}" = "$((0x1001))	$((0x111))	true" ]
    [ "${lines[5]}" = "$((0x3003))	$((0x113))	false" ]
    [ "${lines[6]}" = "fakeverbs: end_poll cqe 10" ]
    [[ ${lines[7]} == "false	end_poll: no poll is open."* ]]
    [ "${lines[8]}" = "fakeverbs: end_poll cqe 11" ]
    [ "${lines[9]}" = "0" ]
    [ "${#lines[@]}" -eq 10 ]
    show='local ok, e = pcall(f); print(ok, e.verb, e.errno); print(e)'
    FAKEVERBS_WCS=1 FAKEVERBS_FAIL="next_poll:22" run fvsh "
      local c = verbs.open('fake0'); local cq = c:create_cq_ex{ cqe = 8, wc_flags = { 'BYTE_LEN' } }
      print(cq:start_poll(), cq.wr_id); f = function() return cq:next_poll() end; $show
      print(cq:end_poll())
      local cq2 = c:create_cq_ex{ cqe = 9, wc_flags = { 'BYTE_LEN' } }
      f = function() for wc in cq2:iter() do print(wc.wr_id) end end; $show"
    echo "$output"
    [ "${lines[0]}" = "true	$((0x1001))" ]
    [ "${lines[1]}" = "false	ibv_next_poll	22" ]
    [ "${lines[2]}" = "ibv_next_poll failed: EINVAL (errno 22, Invalid argument)" ]
    [ "${lines[5]}" = "fakeverbs: end_poll cqe 8" ]
    [ "${lines[6]}" = "true" ]
    [ "${lines[7]}" = "$((0x1001))" ]
    [ "${lines[8]}" = "fakeverbs: end_poll cqe 9" ]
    [ "${lines[9]}" = "false	ibv_next_poll	22" ]
    FAKEVERBS_WCS=1 FAKEVERBS_FAIL="start_poll:5" run fvsh "
      local cq = verbs.open('fake0'):create_cq_ex{ cqe = 8, wc_flags = { 'BYTE_LEN' } }
      f = function() return cq:start_poll() end; $show
      f = function() for wc in cq:iter() do print(wc.wr_id) end end; $show
      print(pcall(cq.end_poll, cq))"
    echo "$output"
    [ "${lines[0]}" = "false	ibv_start_poll	5" ]
    [ "${lines[1]}" = "ibv_start_poll failed: EIO (errno 5, Input/output error)" ]
    [ "${lines[2]}" = "false	ibv_start_poll	5" ]
    [[ ${lines[4]} == "false	end_poll: no poll is open."* ]]
}

@test "fake device: a cq:iter() step called by hand after a body's next_poll found none ends the poll once and is over: each further step gives nothing (not an error that the body ended the poll)" {
    FAKEVERBS_WCS=2 run fvsh '
      local cq = verbs.open("fake0"):create_cq_ex{ cqe = 9, wc_flags = {} }
      local step, state = cq:iter()
      print(step(state).wr_id, cq:next_poll(), cq:next_poll())
      print(select("#", step(state)))
      print(select("#", step(state)))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "$((0x1001))	true	false" ]
    [ "${lines[1]}" = "fakeverbs: end_poll cqe 9" ]
    [ "${lines[2]}" = "0" ]
    [ "${lines[3]}" = "0" ]
    [ "${#lines[@]}" -eq 4 ]
}

@test "fake device: a cq:iter() loop whose poll was ended by hand is refused when stepped again, though another cq:iter() has opened a poll of its own since; that other loop reads on" {
    FAKEVERBS_WCS=3 run fvsh '
      local cq = verbs.open("fake0"):create_cq_ex{ cqe = 9, wc_flags = {} }
      local step, state = cq:iter()
      print(step(state).wr_id)
      cq:end_poll()
      local step2, state2 = cq:iter()
      print(step2(state2).wr_id)
      local ok, e = pcall(step, state)
      print(ok, e)
      print(step2(state2).wr_id)' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "$((0x1001))" ]
    [ "${lines[1]}" = "fakeverbs: end_poll cqe 9" ]
    [ "${lines[2]}" = "$((0x2002))" ]
    [[ ${lines[3]} == "false	"*"cq:iter(): cq:end_poll() was called inside the for wc in cq:iter() loop, which ended the poll the loop was reading (the poll open now is another cq:iter() loop's); to stop early, break out"* ]]
    [ "${lines[4]}" = "$((0x3003))" ]
    # (the open loop's poll, ended as verbsh closes)
    [ "${lines[5]}" = "fakeverbs: end_poll cqe 9" ]
    [ "${#lines[@]}" -eq 6 ]
}

@test "fake device: a table or userdata given a PD's metatable is refused as no PD verbsh made; another class's object and a number by their names" {
    run fvsh '
      local c = verbs.open("fake0"); local pd = c:alloc_pd()
      print(pcall(pd.reg_mr, debug.setmetatable({}, debug.getmetatable(pd)), 10))
      print(pcall(pd.reg_mr, debug.setmetatable(io.tmpfile(), debug.getmetatable(pd)), 10))
      print(pcall(pd.reg_mr, c, 10))
      print(pcall(pd.reg_mr, 5, 10))
      local cq = c:create_cq(4)
      print(pcall(pd.create_qp, pd, { qp_type = "RC", send_cq = debug.setmetatable({}, debug.getmetatable(cq)), recv_cq = cq,
        cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "false	calling 'reg_mr' on bad self (verbs.pd expected, got a table with its metatable: only verbsh makes a verbs.pd)" ]
    [ "${lines[1]}" = "false	calling 'reg_mr' on bad self (verbs.pd expected, got a userdata with its metatable: only verbsh makes a verbs.pd)" ]
    [ "${lines[2]}" = "false	calling 'reg_mr' on bad self (verbs.pd expected, got verbs.context)" ]
    [ "${lines[3]}" = "false	calling 'reg_mr' on bad self (verbs.pd expected, got number)" ]
    [ "${lines[4]}" = "false	bad argument #1 to 'create_qp' (key 'send_cq': verbs.cq expected, got a table with its metatable: only verbsh makes a verbs.cq)" ]
    [ "${#lines[@]}" -eq 5 ]
}

@test "fake device: pd:reg_mr_iova and reg_mr_iova2 hand length, iova and access down; an iova the provider fails with errno 0 is named in hex with its offset in the page; a bad iova, access or buffer is refused by argument" {
    FAKEVERBS_TRACE=1 run fvsh '
      local pd = verbs.open("fake0"):alloc_pd()
      local mr = pd:reg_mr_iova(100, 0x10000, { "LOCAL_WRITE", "REMOTE_READ" }); print(mr.length, table.concat(mr.access, ","))
      local mr2 = pd:reg_mr_iova2("hello", 0x20000, "REMOTE_WRITE"); print(mr2.length, mr2:read(), mr2.lkey - mr.lkey)
      print(pcall(pd.reg_mr_iova, pd, 100, 0x10123, "LOCAL_WRITE"))
      local ok, e = pcall(pd.reg_mr_iova2, pd, 64, 0xbad000, 1)
      print(ok, e.verb, e.errno, e.context.length, e.context.iova, e.context.page, e.context.access)
      print(pcall(pd.reg_mr_iova, pd, 100, "x"))
      print(pcall(pd.reg_mr_iova, pd, 100, 1.5))
      print(pcall(pd.reg_mr_iova, pd, 100, 0x1000, "NOPE"))
      print(pcall(pd.reg_mr_iova2, pd, {}, 0x1000))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fakeverbs: reg_mr_iova2 length 100 iova 0x10000 access 0x5" ]
    [ "${lines[1]}" = "100	LOCAL_WRITE,REMOTE_READ" ]
    [ "${lines[2]}" = "fakeverbs: reg_mr_iova2 length 5 iova 0x20000 access 0x2" ]
    [ "${lines[3]}" = "5	hello	1" ]
    [ "${lines[4]}" = "fakeverbs: reg_mr_iova2 length 100 iova 0x10123 access 0x1" ]
    [ "${lines[5]}" = "false	ibv_reg_mr_iova failed and left errno 0: iova 0x10123 is at offset 0x123 in its page, and the buffer verbsh allocated starts a page (offset 0); the kernel maps whole pages, so the IOVA and the buffer must be at the same offset in a page: give an iova that is a multiple of $(getconf PAGESIZE)" ]
    [ "${lines[6]}" = "fakeverbs: reg_mr_iova2 length 64 iova 0xbad000 access 0x1" ]
    [ "${lines[7]}" = "false	ibv_reg_mr_iova2	14	64	$((0xbad000))	$(getconf PAGESIZE)	1" ]
    [ "${lines[8]}" = "false	bad argument #2 to 'reg_mr_iova' (iova (integer) expected, got string)" ]
    [ "${lines[9]}" = "false	bad argument #2 to 'reg_mr_iova' (iova (integer) expected, got number)" ]
    [ "${lines[10]}" = "false	bad argument #3 to 'reg_mr_iova' ('NOPE' is not a name of ibv_access_flags (known: LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC, MW_BIND, ZERO_BASED, ON_DEMAND, HUGETLB, RELAXED_ORDERING))" ]
    [ "${lines[11]}" = "false	bad argument #1 to 'reg_mr_iova2' (length (integer) or initial contents (string) expected, got table)" ]
}

@test "fake device: mr:rereg hands flags, the new PD and access down, keeps the new access only with CHANGE_ACCESS; a failed one raises ibv_rereg_mr's errno with ret and its name (-1..-5); bad flags, access, a missing or foreign PD are refused by argument" {
    FAKEVERBS_TRACE=1 run fvsh '
      local c = verbs.open("fake0"); local pd, pd2 = c:alloc_pd(), c:alloc_pd()
      local mr = pd:reg_mr(100, { "LOCAL_WRITE", "REMOTE_READ" })
      print(select("#", mr:rereg({ "CHANGE_PD", "CHANGE_ACCESS" }, pd2, "REMOTE_WRITE")), table.concat(mr.access, ","))
      print(select("#", mr:rereg("CHANGE_PD", pd, "LOCAL_WRITE")), table.concat(mr.access, ","))
      print(pcall(mr.rereg, mr, "CHANGE_PD"))
      print(pcall(mr.rereg, mr, "NOPE"))
      print(pcall(mr.rereg, mr, "CHANGE_ACCESS", nil, "NOPE"))
      print(pcall(mr.rereg, mr, "CHANGE_ACCESS", verbs.open("fake0"):alloc_pd()))'
    echo "$output"
    [ "$status" -eq 0 ]
    # the PDs' handles 0x51, 0x52 (fakeverbs); the MR's lkey 0x1234
    [ "${lines[1]}" = "fakeverbs: rereg_mr lkey 0x1234 flags 0x6 pd $((0x52)) addr (nil) length 0 access 0x2" ]
    [ "${lines[2]}" = "0	REMOTE_WRITE" ]
    [ "${lines[3]}" = "fakeverbs: rereg_mr lkey 0x1234 flags 0x2 pd $((0x51)) addr (nil) length 0 access 0x1" ]
    [ "${lines[4]}" = "0	REMOTE_WRITE" ]
    [ "${lines[5]}" = "false	bad argument #2 to 'rereg' (CHANGE_PD needs the new PD (a verbs pd object))" ]
    [ "${lines[6]}" = "false	bad argument #1 to 'rereg' ('NOPE' is not a name of ibv_rereg_mr_flags (known: CHANGE_TRANSLATION, CHANGE_PD, CHANGE_ACCESS))" ]
    [[ ${lines[7]} == "false	bad argument #3 to 'rereg' ('NOPE' is not a name of ibv_access_flags (known: "* ]]
    [ "${lines[8]}" = "false	bad argument #2 to 'rereg' (key 'pd': pd3 belongs to ctx2, but mr1 belongs to ctx1: the kernel looks handles up in the context of the call, so it would use another object of ctx1; use a pd of ctx1)" ]
    show='local mr = verbs.open("fake0"):alloc_pd():reg_mr(10, "LOCAL_WRITE")
      local ok, e = pcall(mr.rereg, mr, "CHANGE_ACCESS", nil, "REMOTE_READ")
      print(ok, e.verb, e.errno, e.context.ret, e.context.ret_name, table.concat(mr.access, ","))'
    for r in "-1,13:13	-1	IBV_REREG_MR_ERR_INPUT" "-5,13:13	-5	IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW" "-6,13:13	-6	nil" "-4:22	-4	IBV_REREG_MR_ERR_CMD" "1,5:5	1	nil"; do
        FAKEVERBS_FAIL="rereg_mr:${r%%:*}" run fvsh "$show"
        echo "$r: $output"
        [ "$output" = "false	ibv_rereg_mr	${r#*:}	LOCAL_WRITE" ]
    done
}

@test "fake device: a WC's pairs step goes from a field to the next it holds and names an unknown key; userdata that is no WC is refused as a WC by its type name; bad names for query_data_in_order and is_qpt_supported, a table for reg_mr and a number for mr:write are refused by argument" {
    FAKEVERBS_WCS=1 run fvsh '
      local c = verbs.open("fake0"); local pd, cq = c:alloc_pd(), c:create_cq(4)
      local wc = cq:poll()[1]
      local step, s = pairs(wc)
      print((step(s, "src_qp"))); print(step(s, "qp_num")); print(step(s, "dlid_path_bits"))
      print(pcall(step, s, "nope")); print(pcall(step, s, 12))
      print(pcall(c.init_ah_from_wc, c, 1, io.stdout)); print(pcall(c.init_ah_from_wc, c, 1, cq))
      local qp = pd:create_qp{ send_cq = cq, recv_cq = cq, qp_type = "RC", cap = { max_send_wr = 1, max_recv_wr = 1 } }
      print(pcall(qp.query_data_in_order, qp, "NOPE"))
      print(pcall(verbs.is_qpt_supported, 0xff, "NOPE"))
      print(verbs.is_qpt_supported(4, "RC"), verbs.is_qpt_supported(4, "UC"), verbs.is_qpt_supported(8, "UC"))
      print(pcall(pd.reg_mr, pd, {}))
      print(pcall(pd:reg_mr(8).write, pd:reg_mr(8), 0, 42))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "wc_flags" ]
    # after qp_num: opcode (SUCCESS), and the last field gives nil
    [ "${lines[1]}" = "opcode	RECV_RDMA_WITH_IMM" ]
    [ "${lines[2]}" = "nil" ]
    [ "${lines[3]}" = "false	struct ibv_wc has no field 'nope' (its fields: wr_id, status, vendor_err, qp_num, opcode, byte_len, imm_data, invalidated_rkey, src_qp, wc_flags, pkey_index, slid, sl, dlid_path_bits)" ]
    [[ ${lines[4]} == "false	struct ibv_wc has no field '12' (its fields: "* ]]
    [ "${lines[5]}" = "false	bad argument #2 to 'init_ah_from_wc' (ibv_wc (a completion from cq:poll) or table expected, got FILE*)" ]
    [ "${lines[6]}" = "false	bad argument #2 to 'init_ah_from_wc' (ibv_wc (a completion from cq:poll) or table expected, got verbs.cq)" ]
    [[ ${lines[7]} == "false	bad argument #1 to 'query_data_in_order' ('NOPE' is not a name of ibv_wr_opcode (known: RDMA_WRITE, "* ]]
    [ "${lines[8]}" = "false	bad argument #2 to 'verbs.is_qpt_supported' ('NOPE' is not a name of ibv_qp_type (known: RC, UC, UD, RAW_PACKET, XRC_SEND, XRC_RECV, DRIVER))" ]
    # RC is bit 2, UC bit 3
    [ "${lines[9]}" = "true	false	true" ]
    [ "${lines[10]}" = "false	bad argument #1 to 'reg_mr' (length (integer) or initial contents (string) expected, got table)" ]
    [ "${lines[11]}" = "false	bad argument #2 to 'write' (string expected, got number)" ]
}

@test "fake device: after mr:rereg CHANGE_PD the MR is the new PD's: the new PD's dealloc is refused naming the MR, the old one's succeeds; a collected new PD lives until the MR is deregistered" {
    FAKEVERBS_TRACE=1 run fvsh '
      local c = verbs.open("fake0"); local pd, pd2 = c:alloc_pd(), c:alloc_pd()
      local mr = pd:reg_mr(100, "LOCAL_WRITE")
      mr:rereg("CHANGE_PD", pd2)
      print(pcall(pd2.dealloc, pd2))
      print("old", pd:dealloc())
      local pd3 = c:alloc_pd()
      mr:rereg("CHANGE_PD", pd3)
      pd2 = nil; collectgarbage(); collectgarbage()
      pd3 = nil; collectgarbage(); collectgarbage()
      print("collected")
      mr:dereg()
      collectgarbage(); collectgarbage()
      print("deregistered")'
    echo "$output"
    [ "$status" -eq 0 ]
    # PDs 0x51 (pd1), 0x52 (pd2), 0x53 (pd3); line 0 is the reg_mr
    [ "${lines[1]}" = "fakeverbs: rereg_mr lkey 0x1234 flags 0x2 pd $((0x52)) addr (nil) length 0 access 0x0" ]
    [ "${lines[2]}" = "false	dealloc: pd2 is still used by 1 object: mr1 (mr 100 bytes lkey 0x1234 rkey 0x5678); dereg it first" ]
    [ "${lines[3]}" = "fakeverbs: dealloc_pd pd $((0x51))" ]
    [ "${lines[4]}" = "old" ]
    [ "${lines[5]}" = "fakeverbs: rereg_mr lkey 0x1234 flags 0x2 pd $((0x53)) addr (nil) length 0 access 0x0" ]
    # pd2, dropped, went when its last user moved to pd3
    [ "${lines[6]}" = "fakeverbs: dealloc_pd pd $((0x52))" ]
    [ "${lines[7]}" = "collected" ]
    [ "${lines[8]}" = "deregistered" ]
    # pd3, dropped, is kept by the MR's userdata, which goes at exit
    [ "${lines[9]}" = "fakeverbs: dealloc_pd pd $((0x53))" ]
    [ "${#lines[@]}" -eq 10 ]
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
            *) [ "${lines[0]}" = "pd handle $((0x51)) -- methods:" ]
                [[ ${lines[-2]} != *fields* ]] ;;
        esac
    done
}

@test "fake librdmacm: resolve_addr hands down a source address given before the destination, each its own address and port; nil is NULL" {
    run fcmsh '
      local id = verbs.create_event_channel():create_id("TCP")
      id:resolve_addr("192.0.2.5:7000", "192.0.2.1:7471", 500)
      id:resolve_addr(nil, "192.0.2.9:7472", 501)' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fakerdmacm: resolve_addr src 192.0.2.5:7000 dst 192.0.2.1:7471" ]
    [ "${lines[1]}" = "fakerdmacm: resolve_addr timeout 500" ]
    [ "${lines[2]}" = "fakerdmacm: resolve_addr timeout 501" ]
    [ "${#lines[@]}" -eq 3 ]
}

@test "fake librdmacm: resolve_addr and resolve_route hand down 2000 ms when no timeout is given, and the one given from 0 to INT32_MAX; one past either end is refused naming timeout_ms" {
    run fcmsh '
      local id = verbs.create_event_channel():create_id("TCP")
      id:resolve_addr(nil, "192.0.2.1:7471")
      id:resolve_route()
      id:resolve_addr(nil, "192.0.2.1:7471", 2147483647)
      id:resolve_route(0)
      print(select(2, pcall(function() id:resolve_addr(nil, "192.0.2.1:7471", 2147483648) end)))
      print(select(2, pcall(function() id:resolve_route(-1) end)))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fakerdmacm: resolve_addr timeout 2000" ]
    [ "${lines[1]}" = "fakerdmacm: resolve_route timeout 2000" ]
    [ "${lines[2]}" = "fakerdmacm: resolve_addr timeout 2147483647" ]
    [ "${lines[3]}" = "fakerdmacm: resolve_route timeout 0" ]
    [ "${lines[4]}" = "(command line):7: bad argument #3 to 'resolve_addr' (timeout_ms: 2147483648 is out of range (0..2147483647))" ]
    [ "${lines[5]}" = "(command line):8: bad argument #1 to 'resolve_route' (timeout_ms: -1 is out of range (0..2147483647))" ]
    [ "${#lines[@]}" -eq 6 ]
}

@test "fake librdmacm: id:connect and id:accept hand down each conn_param field in its place and the private data byte for byte (a NUL inside; private_data_len cutting it; more than it holds refused), and NULL with no table" {
    run fcmsh '
      local ch = verbs.create_event_channel(); local id = ch:create_id("TCP")
      id:resolve_addr(nil, "192.0.2.1:7471")
      id:connect{ private_data = "hi\0there", responder_resources = 1, initiator_depth = 2, retry_count = 3, rnr_retry_count = 4, flow_control = 1, qp_num = 0x123456 }
      id:connect{ private_data = "abcdef", private_data_len = 3 }
      id:accept{ responder_resources = 5, initiator_depth = 6, srq = 1, qp_num = 0x42 }
      id:connect()
      print(select(2, pcall(id.connect, id, { private_data = "ab", private_data_len = 3 })))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(grep -v '^fakerdmacm: resolve_addr' <<<"$output")" = "fakerdmacm: connect responder_resources 1 initiator_depth 2 flow_control 1 retry_count 3 rnr_retry_count 4 srq 0 qp_num 0x123456 private_data_len 8: 68 69 00 74 68 65 72 65
fakerdmacm: connect responder_resources 0 initiator_depth 0 flow_control 0 retry_count 0 rnr_retry_count 0 srq 0 qp_num 0x0 private_data_len 3: 61 62 63
fakerdmacm: accept responder_resources 5 initiator_depth 6 flow_control 0 retry_count 0 rnr_retry_count 0 srq 1 qp_num 0x42 private_data_len 0:
fakerdmacm: connect none
bad argument #1 to 'connect' (key 'private_data_len': 3 is more than the 2 bytes of private_data)" ]
}

@test "fake librdmacm: a failed rdma_resolve_route raises its errno with the id as the object and an empty table as the context (the id is not a context)" {
    FAKERDMACM_ROUTE_ERRNO=110 run fcmsh '
      local id = verbs.create_event_channel():create_id("TCP")
      id:resolve_addr(nil, "192.0.2.1:7471", 500)
      local ok, e = pcall(id.resolve_route, id, 300)
      print(ok, e.verb, e.errno, e.errname, rawequal(e.object, id), type(e.context), rawequal(e.context, id))
      print(next(e.context))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fakerdmacm: resolve_addr timeout 500" ]
    [ "${lines[1]}" = "fakerdmacm: resolve_route timeout 300" ]
    [ "${lines[2]}" = "false	rdma_resolve_route	110	ETIMEDOUT	true	table	false" ]
    [ "${lines[3]}" = "nil" ]
    [ "${#lines[@]}" -eq 4 ]
}

@test "fake librdmacm: a failed rdma_set_local_ece raises its errno with the id as the object and an empty table as the context (the id is not a context); one that succeeds returns nothing" {
    run fcmsh '
      local id = verbs.create_event_channel():create_id("TCP")
      print(select("#", id:set_local_ece(0x15b3, 0xabcd0102)))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fakerdmacm: set_local_ece vendor_id 0x15b3 options 0xabcd0102" ]
    [ "${lines[1]}" = "0" ]
    [ "${#lines[@]}" -eq 2 ]
    FAKERDMACM_ECE_ERRNO=95 run fcmsh '
      local id = verbs.create_event_channel():create_id("TCP")
      local ok, e = pcall(id.set_local_ece, id, 0x15b3, 7)
      print(ok, e.verb, e.errno, e.errname, rawequal(e.object, id), type(e.context), rawequal(e.context, id))
      print(next(e.context))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fakerdmacm: set_local_ece vendor_id 0x15b3 options 0x7" ]
    [ "${lines[1]}" = "false	rdma_set_local_ece	95	EOPNOTSUPP	true	table	false" ]
    [ "${lines[2]}" = "nil" ]
    [ "${#lines[@]}" -eq 3 ]
}

# An active endpoint keeps its PD only: the addrinfo it was made from (and
# CQs, which only a listener hands on to get_request) is the caller's to drop.
@test "fake librdmacm: an active create_ep's id does not keep the addrinfo: dropped, it is freed by the next collection while the id lives" {
    run fcmsh '
      local res = verbs.getaddrinfo("192.0.2.1", "7471")
      local id = verbs.create_ep(res)
      local weak = setmetatable({ res }, { __mode = "v" })
      res = nil
      collectgarbage(); collectgarbage()
      io.stderr:write("collected ", tostring(weak[1] == nil), "\n")
      id:destroy()
      io.stderr:write("end\n")' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fakerdmacm: getaddrinfo 192.0.2.1 7471" ]
    [ "${lines[1]}" = "fakerdmacm: freeaddrinfo" ]
    [ "${lines[2]}" = "collected true" ]
    [ "${lines[3]}" = "fakerdmacm: destroy_ep" ]
    [ "${lines[4]}" = "end" ]
    [ "${#lines[@]}" -eq 5 ]
}

@test "fake librdmacm: a getaddrinfo of several results gives each entry's own fields (an IPv6 destination, both canonical names) through ai_next, in order; the chain is read 16 links deep at most" {
    export FAKERDMACM_AI_CHAIN=3
    run fcmsh '
      local t, k = verbs.getaddrinfo("192.0.2.1", "7471", { ai_flags = "PASSIVE" }), 1
      while t do
        print(k, t.ai_port_space, t.ai_qp_type, t.ai_family, t.ai_src_len, t.ai_dst_len, t.ai_route_len,
          t.ai_connect_len, t.ai_src_addr, t.ai_dst_addr, #t.ai_flags, t.ai_flags[1], t.ai_src_canonname, t.ai_dst_canonname)
        t, k = t.ai_next, k + 1
      end' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[1]}" = $'1\tTCP\tRC\tINET\t16\t21\t41\t61\t192.0.2.1:7001\t[2001:db8::1]:8001\t1\tPASSIVE\tsrc1.example\tdst1.example' ]
    [ "${lines[2]}" = $'2\tUDP\tUD\tINET\t16\t22\t42\t62\t192.0.2.2:7002\t[2001:db8::2]:8002\t1\tPASSIVE\tsrc2.example\tdst2.example' ]
    [ "${lines[3]}" = $'3\tTCP\tRC\tINET\t16\t23\t43\t63\t192.0.2.3:7003\t[2001:db8::3]:8003\t1\tPASSIVE\tsrc3.example\tdst3.example' ]
    [ "${lines[4]}" = "fakerdmacm: freeaddrinfo" ]
    [ "${#lines[@]}" -eq 5 ]
    # 17 entries are read whole; of 18, the 18th is left out (a guard against a chain that loops)
    local n
    for n in 17 18; do
        FAKERDMACM_AI_CHAIN=$n run fcmsh '
          local t, k, last = verbs.getaddrinfo("192.0.2.1", "7471"), 0
          while t do k = k + 1; last = t.ai_src_addr; t = t.ai_next end
          print(k, last)' 2>&1
        echo "$output"
        [ "${lines[1]}" = $'17\t192.0.2.17:7017' ]
    done
}

@test "fake librdmacm: id:reject_ece hands 255 bytes of private data down whole; 256 are refused before the call" {
    run fcmsh '
      local ch = verbs.create_event_channel(); local id = ch:create_id("TCP")
      id:reject_ece(("ab"):rep(127) .. "c")
      print(select(2, pcall(id.reject_ece, id, ("x"):rep(256))))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fakerdmacm: reject_ece 255 bytes: \"$(printf 'ab%.0s' $(seq 127))c\"" ]
    [ "${lines[1]}" = "bad argument #1 to 'reject_ece' (private_data is longer than 255 bytes (its length is a uint8_t))" ]
    [ "${#lines[@]}" -eq 2 ]
}

@test "fake librdmacm: id:reject_ece takes the private data alone: a second argument is refused by position before rdma_reject_ece is called; none, nil or a string is handed down" {
    run fcmsh '
      local id = verbs.create_event_channel():create_id("TCP")
      print(select(2, pcall(id.reject_ece, id, "no", 5)))
      print(select(2, pcall(id.reject_ece, id, nil, "x")))
      id:reject_ece("no", nil); id:reject_ece(nil); id:reject_ece()' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "bad argument #2 to 'reject_ece' (id:reject_ece([private_data]) takes at most 1 argument, got 2 (the first extra one: a number))" ]
    [ "${lines[1]}" = "bad argument #2 to 'reject_ece' (id:reject_ece([private_data]) takes at most 1 argument, got 2 (the first extra one: a string))" ]
    [ "${lines[2]}" = 'fakerdmacm: reject_ece 2 bytes: "no"' ]
    [ "${lines[3]}" = 'fakerdmacm: reject_ece 0 bytes: ""' ]
    [ "${lines[4]}" = 'fakerdmacm: reject_ece 0 bytes: ""' ]
    [ "${#lines[@]}" -eq 5 ]
}

@test "fake device: a UD send needs ud.ah: given with remote_qpn and remote_qkey it is posted as given; ud without ah, or no ud, is refused naming the WR, nothing posted" {
    run fvsh '
      local c = verbs.open("fake0"); local pd, cq = c:alloc_pd(), c:create_cq(4)
      local qp = pd:create_qp{ send_cq = cq, recv_cq = cq, qp_type = "UD", cap = { max_send_wr = 2, max_recv_wr = 1 } }
      local mr, ah = pd:reg_mr(64), pd:create_ah{ port_num = 1, dlid = 3 }
      local sge = { { mr = mr, length = 3 } }
      print(qp:post_send{ wr_id = 1, opcode = "SEND", sg_list = sge, ud = { ah = ah, remote_qpn = 0x2b, remote_qkey = 0x11 } })
      print(select(2, pcall(qp.post_send, qp, { wr_id = 2, opcode = "SEND", sg_list = sge, ud = { remote_qpn = 0x2b, remote_qkey = 0x11 } })))
      print(select(2, pcall(qp.post_send, qp, { { wr_id = 3, opcode = "SEND", ud = { ah = ah, remote_qpn = 1, remote_qkey = 2 } },
                                                { wr_id = 4, opcode = "SEND", ud = { remote_qkey = 0x11 } } })))
      print(select(2, pcall(qp.post_send, qp, { wr_id = 5, opcode = "SEND" })))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == "fakeverbs: post_send qp 0x"*" wr_id 0x1 opcode 2 "*" ud ah 0x"*" remote_qpn 0x2b remote_qkey 0x11" ]]
    [ "${lines[1]}" = "bad argument #1 to 'post_send' (key 'ud.ah' is required on a UD QP (ud = { ah =, remote_qpn =, remote_qkey = }); the provider would dereference a NULL AH)" ]
    [ "${lines[2]}" = "bad argument #1 to 'post_send' ([2].key 'ud.ah' is required on a UD QP (ud = { ah =, remote_qpn =, remote_qkey = }); the provider would dereference a NULL AH)" ]
    [ "${lines[3]}" = "bad argument #1 to 'post_send' (key 'ud.ah' is required on a UD QP (ud = { ah =, remote_qpn =, remote_qkey = }); the provider would dereference a NULL AH)" ]
    [ "${#lines[@]}" -eq 4 ]   # (one post reached the provider)
}

@test "fake librdmacm: set_local_ece's vendor_id and options are uint32_t: 0xffffffff each is passed as given, 0x100000000 is refused naming the argument, nothing set" {
    run fcmsh '
      local id = verbs.create_event_channel():create_id("TCP")
      id:set_local_ece(0xffffffff, 0xffffffff)
      print(select(2, pcall(id.set_local_ece, id, 0x100000000, 1)))
      print(select(2, pcall(id.set_local_ece, id, 1, 0x100000000)))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fakerdmacm: set_local_ece vendor_id 0xffffffff options 0xffffffff" ]
    [ "${lines[1]}" = "bad argument #1 to 'set_local_ece' (vendor_id: 4294967296 is out of range (0..4294967295))" ]
    [ "${lines[2]}" = "bad argument #2 to 'set_local_ece' (options: 4294967296 is out of range (0..4294967295))" ]
    [ "${#lines[@]}" -eq 3 ]
}

@test "fake device: ctx:query_pkey(port, index) reaches ibv_query_pkey with both (its failure here names them in the context); index 0xffff passes the binding, 0x10000 is refused as argument #2" {
    run fvsh '
      local c = verbs.open("fake0")
      for _, i in ipairs{ 3, 0xffff } do
        local ok, e = pcall(c.query_pkey, c, 1, i)
        print(ok, e.verb, e.context.port_num, e.context.index)
      end
      print(select(2, pcall(c.query_pkey, c, 1, 0x10000)))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "false	ibv_query_pkey	1	3" ]
    [ "${lines[1]}" = "false	ibv_query_pkey	1	65535" ]
    [ "${lines[2]}" = "bad argument #2 to 'query_pkey' (index: 65536 is out of range (0..65535))" ]
}

@test "fake device: an extended CQ made with no wc_flags still reads opcode, vendor_err and wc_flags (C's always-there readers); byte_len is refused, naming BYTE_LEN" {
    FAKEVERBS_WCS=3 run fvsh '
      local cq = verbs.open("fake0"):create_cq_ex{ cqe = 8, wc_flags = {} }
      print(cq:start_poll(), cq:read_opcode(), cq:read_vendor_err(), table.concat(cq:read_wc_flags(), ","))
      print(pcall(cq.read_byte_len, cq))
      cq:end_poll()' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "true	RECV_RDMA_WITH_IMM	0	GRH,WITH_IMM" ]
    [ "${lines[1]}" = "false	read_byte_len: this CQ was created without BYTE_LEN in wc_flags, so the provider has no reader for it: create it with ctx:create_cq_ex{ ..., wc_flags = { ..., \"BYTE_LEN\" } }" ]
}

@test "fake librdmacm: ch:get_cm_event(0) with nothing pending is nil; with no timeout it waits for the event and returns it (ADDR_RESOLVED of this id, status 0), acked once" {
    run fcmsh '
      local ch = verbs.create_event_channel()
      local id = ch:create_id("TCP")
      print(ch:get_cm_event(0))
      id:resolve_addr(nil, "192.0.2.7:7471", 500)
      local ev = ch:get_cm_event()
      print(ev.event, rawequal(ev.id, id), ev.status)
      ev:ack()
      print(ch:get_cm_event(0))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "nil" ]
    [ "${lines[1]}" = "fakerdmacm: resolve_addr timeout 500" ]
    [ "${lines[2]}" = "fakerdmacm: get_cm_event ADDR_RESOLVED" ]
    [ "${lines[3]}" = "ADDR_RESOLVED	true	0" ]
    [ "${lines[4]}" = "fakerdmacm: ack_cm_event 0" ]
    [ "${lines[5]}" = "nil" ]
    [ "${#lines[@]}" -eq 6 ]
}

@test "fake device: verbs.trace under verbs.strict(true) traces each verb and sets no global of its own (a chunk reading one is refused)" {
    run fvsh '
      verbs.strict(true)
      verbs.trace(true)
      local c = verbs.open("fake0"); local pd = c:alloc_pd()
      print(pcall(function() return started end))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = 'open_device("fake0") = ctx1' ]
    [ "${lines[1]}" = "ibv_alloc_pd(ctx1) = pd1" ]
    [[ ${lines[2]} == "false	"*"started is not defined (no global of that name has been set)" ]]
    [ "${#lines[@]}" -eq 3 ]
}

@test "fake device: verbs.trace(false) puts back every method the recorder wrapped, an object's own ones too (cq.resize, cq.poll, ctx.create_cq, verbs.open are the C functions of before; a CQ made while tracing has the same poll)" {
    run fvsh '
      local c = verbs.open("fake0"); local cq = c:create_cq(4)
      local before = { cq.resize, cq.poll, c.create_cq, verbs.open }
      verbs.trace(true)
      local cq2 = c:create_cq(4)
      local wrapped = not rawequal(cq.resize, before[1])
      verbs.trace(false)
      local after = { cq.resize, cq.poll, c.create_cq, verbs.open }
      for i = 1, 4 do io.write(tostring(rawequal(before[i], after[i])), " ") end
      print(wrapped, rawequal(cq2.poll, cq.poll), debug.getinfo(cq2.poll).what)' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "ibv_create_cq(ctx1, 4, NULL, NULL, 0) = cq2" ]
    [ "${lines[1]}" = "true true true true true	true	C" ]
}

@test "fake device: ctx:query_gid gives each slot's GID as text, bytes in network order (fe80::11 is fe 80 then 0x11 last), an empty slot as ::, and past the table ibv_query_gid's EINVAL" {
    run fvsh '
      local ctx = verbs.open("fake0")
      for _, a in ipairs { { 1, 0 }, { 1, 1 }, { 1, 2 }, { 2, 1 }, { 1, 4 } } do
        local ok, g = pcall(ctx.query_gid, ctx, a[1], a[2])
        print(ok and g or g.verb .. " " .. g.errname)
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fe80::11" ]
    [ "${lines[1]}" = "::" ]
    [ "${lines[2]}" = "fe80::22" ]
    [ "${lines[3]}" = "fe80::33" ]
    [ "${lines[4]}" = "ibv_query_gid EINVAL" ]
    [ "${#lines[@]}" -eq 5 ]
}

@test "fake device: a call the export fails on after writing part of its C reaches the trace's function as the comment alone, none of its declaration or call; the calls around it are traced whole" {
    # No export writer fails midway on values a user can pass, so the test
    # makes query_port's fail once it has written its declaration and its
    # call; export_c copies the writers when it loads, at the first
    # verbs.trace, so the wrapping comes before that.
    run fvsh '
      local V = require("verbs.export_verbs").V
      local query_port = V["context.query_port"]
      V["context.query_port"] = function(w, ev)
        query_port(w, ev)
        error("export stopped after writing", 0)
      end
      local ctx = verbs.open("fake0")
      verbs.trace(function(call, ret, decl) print(call .. " | " .. ret .. " | " .. (decl or "-")) end)
      ctx:query_device()
      print("port " .. ctx:query_port(1).port_num)
      ctx:alloc_pd()
      ctx:query_device()
      verbs.trace(false)' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "ibv_query_device(ctx1, &device_attr1) | 0 | struct ibv_device_attr device_attr1;" ]
    [ "${lines[1]}" = "/* verbsh: ctx1:query_port could not be written as C: export stopped after writing */ | (void) | -" ]
    [ "${lines[2]}" = "port 1" ]
    [ "${lines[3]}" = "ibv_alloc_pd(ctx1) | pd1 | -" ]
    [ "${lines[4]}" = "ibv_query_device(ctx1, &device_attr2) | 0 | struct ibv_device_attr device_attr2;" ]
    [ "${#lines[@]}" -eq 5 ]
}

@test "fake librdmacm: id:create_srq_ex takes one table: a number is refused as argument #1, a second argument as an extra one, an id without a PD before anything is made" {
    run fcmsh '
      local id = verbs.create_event_channel():create_id("TCP")
      print(select(2, pcall(id.create_srq_ex, id, 5)))
      print(select(2, pcall(id.create_srq_ex, id, { max_wr = 4 }, 7)))
      print(select(2, pcall(id.create_srq_ex, id, { srq_type = "BASIC" })))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "bad argument #1 to 'create_srq_ex' (table expected, got number)" ]
    [ "${lines[1]}" = "bad argument #2 to 'create_srq_ex' (id:create_srq_ex{...} takes at most 1 argument, got 2 (the first extra one: a number))" ]
    [ "${lines[2]}" = "rdma_create_srq_ex: this id has no PD yet, and the table gives none: add pd = id.verbs:alloc_pd(), or make the endpoint's QP first" ]
    [ "${#lines[@]}" -eq 3 ]
}

@test "fake device: a refused qp:modify names the QP's type, its state and the one asked, and the explanation reads them (UC RESET->INIT with its required keys given)" {
    FAKEVERBS_FAIL="modify_qp:22" run fvsh '
      local c = verbs.open("fake0"); local pd, cq = c:alloc_pd(), c:create_cq(4)
      local qp = pd:create_qp{ send_cq = cq, recv_cq = cq, qp_type = "UC", cap = { max_send_wr = 1, max_recv_wr = 1 } }
      local ok, e = pcall(qp.modify, qp, { qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = "REMOTE_WRITE" })
      print(ok, e.verb, e.errname, e.context.qp_type, e.context.cur_state, e.context.qp_state, e.context.port_num)
      print(e)' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "false	ibv_modify_qp	EINVAL	UC	RESET	INIT	1" ]
    [ "${lines[1]}" = "ibv_modify_qp failed: EINVAL (errno 22, Invalid argument)" ]
    [ "${lines[2]}" = "  UC QP, RESET->INIT" ]
    [[ ${lines[3]} == "  why: the transition and the mask are legal for UC RESET->INIT (required: IBV_QP_ACCESS_FLAGS (qp_access_flags), IBV_QP_PKEY_INDEX (pkey_index), IBV_QP_PORT (port_num)), so a value was refused" ]]
}

@test "fake device: a failed cq:start_poll raises ibv_start_poll with its errno and the CQ as the error's object" {
    FAKEVERBS_WCS=1 FAKEVERBS_FAIL="start_poll:5" run fvsh '
      local cq = verbs.open("fake0"):create_cq_ex{ cqe = 8, wc_flags = { "BYTE_LEN" } }
      local ok, e = pcall(cq.start_poll, cq)
      print(ok, e.verb, e.errno, e.errname, rawequal(e.object, cq))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "false	ibv_start_poll	5	EIO	true" ]
}

@test "fake librdmacm: id:set_option hands rdma_set_option C's option number, size and value: TOS and ACK_TIMEOUT a uint8_t up to 255 and 31, REUSEADDR and AFONLY an int of 0 or 1 (true, false); one past each maximum and -1 refused, naming the option" {
    run fcmsh '
      local id = verbs.create_event_channel():create_id("TCP")
      for _, a in ipairs { { "TOS", 0x68 }, { "TOS", 255 }, { "TOS", 256 }, { "TOS", -1 }, { "ACK_TIMEOUT", 31 },
                           { "ACK_TIMEOUT", 32 }, { "REUSEADDR", true }, { "REUSEADDR", false }, { "AFONLY", 1 }, { "AFONLY", 2 } } do
        local ok, e = pcall(id.set_option, id, "ID", a[1], a[2])
        print(ok and "ok" or e)
      end' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fakerdmacm: set_option level 0 optname 0 optlen 1 value 104" ]
    [ "${lines[1]}" = "ok" ]
    [ "${lines[2]}" = "fakerdmacm: set_option level 0 optname 0 optlen 1 value 255" ]
    [ "${lines[3]}" = "ok" ]
    [ "${lines[4]}" = "bad argument #3 to 'set_option' (TOS: 256 is out of range (0..255))" ]
    [ "${lines[5]}" = "bad argument #3 to 'set_option' (TOS: -1 is out of range (0..255))" ]
    [ "${lines[6]}" = "fakerdmacm: set_option level 0 optname 3 optlen 1 value 31" ]
    [ "${lines[7]}" = "ok" ]
    [ "${lines[8]}" = "bad argument #3 to 'set_option' (ACK_TIMEOUT: 32 is out of range (0..31))" ]
    [ "${lines[9]}" = "fakerdmacm: set_option level 0 optname 1 optlen 4 value 1" ]
    [ "${lines[10]}" = "ok" ]
    [ "${lines[11]}" = "fakerdmacm: set_option level 0 optname 1 optlen 4 value 0" ]
    [ "${lines[12]}" = "ok" ]
    [ "${lines[13]}" = "fakerdmacm: set_option level 0 optname 2 optlen 4 value 1" ]
    [ "${lines[14]}" = "ok" ]
    [ "${lines[15]}" = "bad argument #3 to 'set_option' (AFONLY: 2 is out of range (0..1))" ]
    [ "${#lines[@]}" -eq 16 ]
}

@test "fake librdmacm: id:get_src_port() and id:get_dst_port() take no arguments: one is refused, naming it, before librdmacm is called" {
    run fcmsh '
      local id = verbs.create_event_channel():create_id("TCP")
      print(select(2, pcall(id.get_src_port, id, 5)))
      print(select(2, pcall(id.get_dst_port, id, "x")))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "bad argument #1 to 'get_src_port' (id:get_src_port() takes no arguments, got 1 (the first: a number))" ]
    [ "${lines[1]}" = "bad argument #1 to 'get_dst_port' (id:get_dst_port() takes no arguments, got 1 (the first: a string))" ]
    [ "${#lines[@]}" -eq 2 ]
}

@test "fake librdmacm: id:set_option refuses a fourth argument, naming it, before rdma_set_option; level IB and an unknown level are named" {
    run fcmsh '
      local id = verbs.create_event_channel():create_id("TCP")
      print(select(2, pcall(id.set_option, id, "ID", "TOS", 5, 9)))
      print(select(2, pcall(id.set_option, id, "IB", "TOS", 5)))
      print(select(2, pcall(id.set_option, id, 7, "TOS", 5)))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "bad argument #4 to 'set_option' (id:set_option(level, optname, value) takes at most 3 arguments, got 4 (the first extra one: a number))" ]
    [[ ${lines[1]} == "bad argument #1 to 'set_option' (level IB has one option, PATH: "* ]]
    [ "${lines[2]}" = "bad argument #1 to 'set_option' (level 7: \"ID\" (0) or \"IB\" (1) expected)" ]
    [ "${#lines[@]}" -eq 3 ]
}

@test "fake librdmacm: id:join_multicast hands rdma_join_multicast the group and the context and returns nothing; a TCP id is refused before it; the groups are left when the id goes" {
    run fcmsh '
      local id = verbs.create_event_channel():create_id("UDP")
      print(select("#", id:join_multicast("239.1.2.3")), select("#", id:join_multicast("239.1.2.4", 7)))
      local tcp = verbs.create_event_channel():create_id("TCP")
      print(select(2, pcall(tcp.join_multicast, tcp, "239.1.2.3")))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fakerdmacm: join_multicast 239.1.2.3 context (nil)" ]
    [ "${lines[1]}" = "fakerdmacm: join_multicast 239.1.2.4 context 0x7" ]
    [ "${lines[2]}" = "0	0" ]
    [ "${lines[3]}" = 'rdma_join_multicast: multicast is for UD ids: this id'"'"'s port space is TCP; create it with cm_ch:create_id("UDP")' ]
    [ "${lines[4]}" = "fakerdmacm: leave_multicast" ]
    [ "${lines[5]}" = "fakerdmacm: leave_multicast" ]
    [ "${#lines[@]}" -eq 6 ]
}

@test "fake librdmacm: a refused id:create_qp names the id's state in its context (bound, same_device, qp_type) and the explanation reads it: an unbound id, then one bound to another device" {
    run fcmsh '
      local c = verbs.open("fake0"); local pd, cq = c:alloc_pd(), c:create_cq(4)
      local id = verbs.create_event_channel():create_id("TCP")
      local attr = { send_cq = cq, recv_cq = cq, qp_type = "RC", cap = { max_send_wr = 1, max_recv_wr = 1 } }
      local ok, e = pcall(id.create_qp, id, pd, attr)
      print(ok, e.verb, e.errname, e.context.bound, e.context.same_device, e.context.qp_type)
      print((tostring(e):match("why: [^\n]*")))
      id:resolve_addr(nil, "192.0.2.7:7471", 500)
      ok, e = pcall(id.create_qp, id, pd, attr)
      print(ok, e.verb, e.errname, e.context.bound, e.context.same_device, e.context.qp_type)' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fakerdmacm: create_qp qp_type 2 bound 0" ]
    [ "${lines[1]}" = "false	rdma_create_qp	EINVAL	false	false	RC" ]
    [ "${lines[2]}" = "why: the id is not bound to a device yet: librdmacm does not know which device the QP belongs to" ]
    [ "${lines[4]}" = "fakerdmacm: create_qp qp_type 2 bound 1" ]
    [ "${lines[5]}" = "false	rdma_create_qp	EINVAL	true	false	RC" ]
}

@test "fake device: leaving SQD while the SQ drains (FAKEVERBS_SQ_DRAINING, rxe's rule) fails with EINVAL; the error's context holds sq_draining as C reads it, and explain names the drain; ERR is allowed" {
    local walk='local c = verbs.open("fake0"); local pd = c:alloc_pd(); local cq = c:create_cq(4)
      local qp = pd:create_qp{ qp_type = "UC", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 } }
      qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }
      qp:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = 0x2c4, rq_psn = 0, ah_attr = { port_num = 1 } }
      qp:modify{ qp_state = "RTS", sq_psn = 0 }
      qp:modify{ qp_state = "SQD" }
      print(qp:query().sq_draining)
      local ok, e = pcall(qp.modify, qp, { qp_state = "RTS" })
      if ok then print("RTS", qp:query().qp_state) else
        print(e.verb, e.errno, e.context.cur_state, e.context.qp_state, e.context.sq_draining); print(tostring(e)) end
      qp:modify{ qp_state = "ERR" }
      print(qp:query().qp_state, qp:query().sq_draining)'
    FAKEVERBS_SQ_DRAINING=1 run fvsh "$walk"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "1" ]
    [ "${lines[1]}" = "ibv_modify_qp	22	SQD	RTS	1" ]
    [ "${lines[3]}" = "  UC QP, SQD->RTS" ]
    [ "${lines[4]}" = "  why: the QP was still draining its send queue (sq_draining = 1 when the modify failed): until the WRs posted before SQD have completed, rxe refuses every change of the QP but a move to ERR" ]
    [[ ${lines[5]} == "  fix: wait for the drain to end: the IBV_EVENT_SQ_DRAINED async event (ctx:get_async_event(), when SQD was entered with en_sqd_async_notify = 1), or qp:query() until sq_draining reads 0; then modify again" ]]
    [ "${lines[6]}" = "ERR	0" ]
    [ "${#lines[@]}" -eq 7 ]
    # no drain: SQD->RTS goes through, and sq_draining reads 0
    run fvsh "$walk"
    [ "$status" -eq 0 ]
    [ "$output" = "0
RTS	RTS
ERR	0" ]
}

@test "tests/lua/leftovers.lua (the lessons' teardown oracle): names each object no destroy verb ended with 0 (an rdma_cm event: no ack), in the order made; a clean run passes" {
    local calls=$BATS_TEST_TMPDIR/calls
    run fvsh "dofile('$ROOT/tests/lua/leftovers.lua').record('$calls')
      local c = verbs.open('fake0'); local pd = c:alloc_pd(); local mr = pd:reg_mr(4096, 'LOCAL_WRITE')
      local mr2 = pd:reg_mr(64, 'LOCAL_WRITE'); local cq = c:create_cq(4); local ch = c:create_comp_channel()
      mr:dereg(); cq:destroy(); print(pcall(pd.dealloc, pd))"
    [ "$status" -eq 0 ]
    [[ $output == "false	dealloc: pd1 is still used by 1 object: mr2 "* ]]
    run lua5.4 "$ROOT/tests/lua/leftovers.lua" "$calls"
    echo "$output"
    [ "$status" -eq 1 ]
    [ "$output" = 'ctx1 made by open_device("fake0"), never destroyed
pd1 made by ibv_alloc_pd(ctx1), never destroyed
mr2 made by ibv_reg_mr(pd1, buf_mr2, 64, IBV_ACCESS_LOCAL_WRITE), never destroyed
channel1 made by ibv_create_comp_channel(ctx1), never destroyed' ]
    # a destroy that failed does not count; an id made through an out-parameter counts once its call returned 0
    printf '%s\t%s\n' 'ibv_alloc_pd(ctx1)' pd1 'ibv_dealloc_pd(pd1)' '16 /* EBUSY */' \
        'rdma_create_id(cm_channel1, &cm_id1, NULL, RDMA_PS_TCP)' 0 'rdma_create_id(cm_channel1, &cm_id2, NULL, RDMA_PS_TCP)' '-1 /* ENOMEM */' >"$calls"
    run lua5.4 "$ROOT/tests/lua/leftovers.lua" "$calls"
    [ "$status" -eq 1 ]
    [ "$output" = 'pd1 made by ibv_alloc_pd(ctx1), never destroyed
cm_id1 made by rdma_create_id(cm_channel1, &cm_id1, NULL, RDMA_PS_TCP), never destroyed' ]
    # an rdma_cm event is ended by its ack; the recorder's comment after a 0 is still a 0
    printf '%s\t%s\n' 'rdma_get_cm_event(cm_channel1, &cm_event1)' '0  /* cm_event1->event = RDMA_CM_EVENT_ADDR_RESOLVED, status 0 */' \
        'rdma_get_cm_event(cm_channel1, &cm_event2)' '0  /* cm_event2->event = RDMA_CM_EVENT_ROUTE_RESOLVED, status 0 */' \
        'rdma_ack_cm_event(cm_event1)' 0 'rdma_get_cm_event(cm_channel1, &cm_event3)' '-1 /* ETIMEDOUT */' >"$calls"
    run lua5.4 "$ROOT/tests/lua/leftovers.lua" "$calls"
    [ "$status" -eq 1 ]
    [ "$output" = 'cm_event2 made by rdma_get_cm_event(cm_channel1, &cm_event2), never destroyed' ]
    run fvsh "dofile('$ROOT/tests/lua/leftovers.lua').record('$calls')
      local c = verbs.open('fake0'); local pd = c:alloc_pd(); local mr = pd:reg_mr(4096, 'LOCAL_WRITE')
      local cq = c:create_cq(4); local ch = c:create_comp_channel()
      mr:dereg(); pd:dealloc(); cq:destroy(); ch:destroy(); c:close()"
    [ "$status" -eq 0 ]
    run lua5.4 "$ROOT/tests/lua/leftovers.lua" "$calls"
    [ "$status" -eq 0 ]
    [ "$output" = "nothing left: every object made in 10 calls was destroyed" ]
}

@test "fake device: the arguments C takes as a narrow integer (cq:modify's uint16_t cq_count and cq_period, create_flow's uint8_t port, a uint32_t rate limit or handle, a size) pass at their maximum and fail one past it, or below 0, naming the argument and its range: never cut to fit" {
    run fvsh '
      local c = verbs.open("fake0"); local pd = c:alloc_pd(); local cq = c:create_cq(4)
      local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
      local function try(f, ...) local ok, e = pcall(f, ...) print(ok and "passed" or e) io.stdout:flush() end
      try(cq.modify, cq, 65535, 65535)
      try(cq.modify, cq, 65536, 0)
      try(cq.modify, cq, 1, 65536)
      try(cq.modify, cq, -1)
      try(qp.create_flow, qp, 255)
      try(qp.create_flow, qp, 256)
      try(qp.modify_rate_limit, qp, 0xffffffff)
      try(qp.modify_rate_limit, qp, 0x100000000)
      try(c.import_pd, c, 0x100000000)
      local dm = c:alloc_dm(64)
      try(dm.memcpy_from_dm, dm, 0, -1)
      try(dm.memcpy_from_dm, dm, -1, 8)' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    # (the flow's destroy, at exit, left out)
    [ "$(grep -v '^fakeverbs: destroy_flow ' <<<"$output")" = "fakeverbs: modify_cq attr_mask 0x1 cq_count 65535 cq_period 65535
passed
bad argument #1 to 'modify' (cq_count: 65536 is out of range (0..65535))
bad argument #2 to 'modify' (cq_period: 65536 is out of range (0..65535))
bad argument #1 to 'modify' (cq_count: -1 is out of range (0..65535))
fakeverbs: create_flow qp 273 port 255 type 0 num_of_specs 0
passed
bad argument #1 to 'create_flow' (port: 256 is out of range (0..255))
fakeverbs: modify_qp_rate_limit qp 273 rate_limit 4294967295
passed
bad argument #1 to 'modify_rate_limit' (rate_limit: 4294967296 is out of range (0..4294967295))
bad argument #1 to 'import_pd' (pd_handle: 4294967296 is out of range (0..4294967295))
bad argument #2 to 'memcpy_from_dm' (length: -1 is out of range (0..9223372036854775807))
bad argument #1 to 'memcpy_from_dm' (offset: -1 is out of range (0..9223372036854775807))" ]
}

@test "fake librdmacm: id:set_option's level and optname given as integers are checked whole: 2^32 is not level 0 (ID), 2^32 + 1 not optname 1; 2 and 4, the first past each list, refused too" {
    run fcmsh 'local ch = verbs.create_event_channel(); local id = ch:create_id("TCP")
      for _, a in ipairs{ { 1 << 32, "TOS", 0 }, { 0, (1 << 32) + 1, 0 }, { 2, "TOS", 0 }, { "ID", 4, 0 } } do
        print(select(2, pcall(id.set_option, id, a[1], a[2], a[3]))) end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "bad argument #1 to 'set_option' (level 4294967296: \"ID\" (0) or \"IB\" (1) expected)
bad argument #2 to 'set_option' (optname 4294967297: TOS, REUSEADDR, AFONLY or ACK_TIMEOUT expected)
bad argument #1 to 'set_option' (level 2: \"ID\" (0) or \"IB\" (1) expected)
bad argument #2 to 'set_option' (optname 4: TOS, REUSEADDR, AFONLY or ACK_TIMEOUT expected)" ]
}

@test "fake device: a failed verb's error names the verb and its errno, has the object it was called on as its object, and a context table (each of twelve verbs)" {
    local v want=(
      "query_device:5 ibv_query_device 5" "query_port:5 ibv_query_port 5" "query_device_ex:5 ibv_query_device_ex 5"
      "alloc_pd:5 ibv_alloc_pd 5" "create_comp_channel:24 ibv_create_comp_channel 24" "req_notify_cq:5 ibv_req_notify_cq 5"
      "poll_cq:-5 ibv_poll_cq 5" "get_cq_event:4 ibv_get_cq_event 4" "query_qp:12 ibv_query_qp 12" "modify_qp:22 ibv_modify_qp 22"
      "start_poll:5 ibv_start_poll 5" "rereg_mr:-1,13 ibv_rereg_mr 13")
    for v in "${want[@]}"; do
        local fail=${v%% *} rest=${v#* } name=${v%%:*}
        FAKEVERBS_FAIL=$fail V=$name run fvsh "dofile('$ROOT/tests/lua/error_objects.lua')"
        echo "$output"
        [ "$status" -eq 0 ]
        [ "$(grep -v '^fakeverbs' <<<"$output")" = "$name	false	${rest% *}	${rest#* }	true	table" ]
    done
}

@test "fake device: an extended CQ destroyed or collected in the middle of a poll (start_poll, no end_poll) has its poll ended first: the provider's end_poll runs before the CQ goes" {
    FAKEVERBS_WCS=2 run fvsh '
      local ctx = verbs.open("fake0")
      local cq = ctx:create_cq_ex{ cqe = 8 }
      print(cq:start_poll()); cq:destroy(); print("destroyed")
      local cq2 = ctx:create_cq_ex{ cqe = 5 }
      print(cq2:start_poll()); cq2 = nil; collectgarbage(); collectgarbage(); print("collected")' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "true
fakeverbs: end_poll cqe 8
destroyed
true
fakeverbs: end_poll cqe 5
collected" ]
}
