#!/usr/bin/env bats
# The bindings on a host without RDMA: what needs no device.
load ../helpers

@test "a flags list's keys are 1..n: a name, a key past its end or before its start, or a fraction is refused naming the key; 1..n alone gives those flags" {
    run "$VERBSH" -e '
      for _, f in ipairs{ { "SIGNALED", x = 1 }, { "SIGNALED", [3] = "FENCE" }, { "SIGNALED", [0] = "FENCE" }, { "SIGNALED", [1.5] = "FENCE" } } do
        print(select(2, pcall(verbs.send_wr, { opcode = "SEND", send_flags = f })))
      end
      print(table.concat(verbs.send_wr{ opcode = "SEND", send_flags = { "SIGNALED", "FENCE" } }.send_flags, " "))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "bad argument #1 to 'verbs.send_wr' (key 'send_flags': ibv_send_flags list: unexpected key 'x')" ]
    [ "${lines[1]}" = "bad argument #1 to 'verbs.send_wr' (key 'send_flags': ibv_send_flags list: unexpected key '3')" ]
    [ "${lines[2]}" = "bad argument #1 to 'verbs.send_wr' (key 'send_flags': ibv_send_flags list: unexpected key '0')" ]
    [ "${lines[3]}" = "bad argument #1 to 'verbs.send_wr' (key 'send_flags': ibv_send_flags list: unexpected key '1.5')" ]
    [ "${lines[4]}" = "FENCE SIGNALED" ]
}

@test "verbs.devices() is {} without RDMA in the kernel; verbs.open() raises an explained error object" {
    run "$VERBSH" -e '
      print(#verbs.devices())
      local ok, e = pcall(verbs.open)
      print(ok, getmetatable(e).__name, e.verb, e.context.reason, #e.context.devices)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "0" ]
    [ "${lines[1]}" = "false	verbs.error	ibv_get_device_list	no_device	0" ]
}

@test "verbs: a misspelt name or a C function's name is an error with what was meant, never a silent nil" {
    run "$VERBSH" -e '
      local function err(f) local ok, e = pcall(f); print(ok, e) end
      err(function() return verbs.opne end)
      verbs.strict(true)
      err(function() return verbs.ibv_open_device end)
      err(function() return verbs.ibv_post_send end)
      err(function() return verbs.rdma_create_event_channel end)
      err(function() return verbs.zzzzqq end)
      err(function() return verbs.enums.ibv_qp_stat end)
      print(verbs[1], rawget(verbs, "opne"), type(verbs.open), type(verbs.oob), #verbs.enums.ibv_qp_state)
      local n = 0 for k in pairs(verbs) do n = n + 1 end print(n > 10)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "false	(command line):3: verbs has no field 'opne'; did you mean 'open'?" ]
    [ "${lines[1]}" = "false	(command line):5: verbs has no field 'ibv_open_device'; did you mean 'open'? (C's ibv_open_device is verbs.open([name]) in verbsh)" ]
    [ "${lines[2]}" = "false	(command line):6: verbs has no field 'ibv_post_send'; C's ibv_post_send is a method in verbsh: qp:post_send(wr_or_list or verbs.send_wr) (help \"ibv_post_send\")" ]
    [ "${lines[3]}" = "false	(command line):7: verbs has no field 'rdma_create_event_channel'; did you mean 'create_event_channel'? (C's rdma_create_event_channel is verbs.create_event_channel() in verbsh)" ]
    [ "${lines[4]}" = "false	(command line):8: verbs has no field 'zzzzqq' (help() gives the overview; help \"zzzzqq\" looks the name up)" ]
    [ "${lines[5]}" = "false	(command line):9: verbs.enums has no enum 'ibv_qp_stat'; did you mean 'ibv_qp_state'?" ]
    [ "${lines[6]}" = "nil	nil	function	table	8" ]
    [ "${lines[7]}" = "true" ]
    # the repro of the report: an error, not five nils
    run "$VERBSH" -e 'verbs.strict(true); print(verbs.opne, verbs.ibv_open_device, verbs.fields("ibv_qp_atr"), verbs.enum("ibv_qp_stat"), verbs.enums.ibv_qp_stat)'
    [ "$status" -ne 0 ]
    [[ $output == *"verbs has no field 'opne'; did you mean 'open'?"* ]]
}

@test "verbs.enums: every C enum and flag set by C type name, short names in value order" {
    run "$VERBSH" -e '
      local e = verbs.enums
      print(table.concat(e.ibv_qp_state, ","))
      print(table.concat(e.ibv_mtu, ","))
      print(table.concat(e.ibv_wr_opcode, ",", 1, 7))
      print(table.concat(e.ibv_send_flags, ","))
      print(e.ibv_wc_status[1], e.ibv_wc_status[13], e.ibv_wc_status[14], #e.ibv_wc_status)
      print(table.concat(e.ibv_access_flags, ",", 1, 4), e.ibv_qp_attr_mask[8], e.ibv_port_state[5], e.ibv_link_layer[3])
      local n = 0 for _ in pairs(e) do n = n + 1 end print(n)
      print(table.concat(e.rdma_cm_event_type, ",", 1, 10), table.concat(e.rdma_port_space, ","))
      print(table.concat(e.ibv_qp_create_send_ops_flags, ",", 1, 7), table.concat(e.ibv_create_cq_wc_flags, ",", 1, 8))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "RESET,INIT,RTR,RTS,SQD,SQE,ERR,UNKNOWN" ]
    [ "${lines[1]}" = "256,512,1024,2048,4096" ]
    [ "${lines[2]}" = "RDMA_WRITE,RDMA_WRITE_WITH_IMM,SEND,SEND_WITH_IMM,RDMA_READ,ATOMIC_CMP_AND_SWP,ATOMIC_FETCH_AND_ADD" ]
    [ "${lines[3]}" = "FENCE,SIGNALED,SOLICITED,INLINE,IP_CSUM" ]
    [ "${lines[4]}" = "SUCCESS	RETRY_EXC_ERR	RNR_RETRY_EXC_ERR	24" ]
    [ "${lines[5]}" = "LOCAL_WRITE,REMOTE_WRITE,REMOTE_READ,REMOTE_ATOMIC	AV	ACTIVE	ETHERNET" ]
    [ "${lines[6]}" = "42" ]   # 32, and ibv_mw_type; the 4 of multicast and rdma_addrinfo; ibv_srq_type, ibv_srq_init_attr_mask, ibv_fork_status, ibv_rate, ibv_rereg_mr_flags
    [ "${lines[7]}" = "ADDR_RESOLVED,ADDR_ERROR,ROUTE_RESOLVED,ROUTE_ERROR,CONNECT_REQUEST,CONNECT_RESPONSE,CONNECT_ERROR,UNREACHABLE,REJECTED,ESTABLISHED	TCP,UDP,IB,IPOIB" ]
    [ "${lines[8]}" = "RDMA_WRITE,RDMA_WRITE_WITH_IMM,SEND,SEND_WITH_IMM,RDMA_READ,ATOMIC_CMP_AND_SWP,ATOMIC_FETCH_AND_ADD	BYTE_LEN,IMM,QP_NUM,SRC_QP,SLID,SL,DLID_PATH_BITS,COMPLETION_TIMESTAMP" ]
}

@test "classes: metatables verbs.<kind> with __index methods, __gc, __close, __tostring" {
    run "$VERBSH" -e '
      local reg = debug.getregistry()
      for _, k in ipairs{ "context", "pd", "mr", "cq", "comp_channel", "qp", "ah", "srq", "cm_channel", "cm_id",
                          "cm_event", "cm_addrinfo" } do
        local mt = reg["verbs." .. k]
        local m = {}
        for name in pairs(mt.__methods) do m[#m + 1] = name end
        table.sort(m)
        print(k, mt.__name, type(mt.__gc), type(mt.__close), type(mt.__tostring), table.concat(m, " "))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "context	verbs.context	function	function	function	alloc_dm alloc_parent_domain alloc_pd alloc_td close create_comp_channel create_counters create_cq create_cq_ex create_flow_action_esp create_qp_ex create_rwq_ind_table create_srq_ex create_wq get_async_event get_pkey_index gids import_dm import_pd init_ah_from_wc open_qp open_xrcd query_device query_device_ex query_gid query_pkey query_port query_rt_values_ex" ]
    [ "${lines[1]}" = "pd	verbs.pd	function	function	function	advise_mr alloc_mw alloc_null_mr create_ah create_ah_from_wc create_qp create_srq dealloc import_mr reg_dmabuf_mr reg_mr reg_mr_iova reg_mr_iova2" ]
    [ "${lines[2]}" = "mr	verbs.mr	function	function	function	dereg fill read rereg write" ]
    [ "${lines[3]}" = "cq	verbs.cq	function	function	function	ack_events destroy end_poll iter modify next_poll poll read_byte_len read_completion_ts read_completion_wallclock_ns read_cvlan read_dlid_path_bits read_flow_tag read_imm_data read_invalidated_rkey read_opcode read_qp_num read_sl read_slid read_src_qp read_tm_info read_vendor_err read_wc_flags req_notify resize start_poll wait" ]
    [ "${lines[5]}" = "qp	verbs.qp	function	function	function	attach_mcast bind_mw create_flow destroy detach_mcast modify modify_rate_limit post_recv post_send query query_data_in_order query_ece set_ece wr_abort wr_atomic_cmp_swp wr_atomic_fetch_add wr_atomic_write wr_bind_mw wr_complete wr_local_inv wr_rdma_read wr_rdma_write wr_rdma_write_imm wr_send wr_send_imm wr_send_inv wr_send_tso wr_set_inline_data wr_set_inline_data_list wr_set_sge wr_set_sge_list wr_set_ud_addr wr_set_xrc_srqn wr_start" ]
    [ "${lines[7]}" = "srq	verbs.srq	function	function	function	destroy get_srq_num modify post_recv post_srq_ops query" ]
    [ "${lines[8]}" = "cm_channel	verbs.cm_channel	function	function	function	create_id destroy get_cm_event" ]
    [ "${lines[9]}" = "cm_id	verbs.cm_id	function	function	function	accept bind_addr connect create_qp create_qp_ex create_srq create_srq_ex destroy destroy_ep destroy_qp disconnect establish get_dst_port get_local_addr get_peer_addr get_recv_comp get_remote_ece get_request get_send_comp get_src_port init_qp_attr join_multicast join_multicast_ex leave_multicast listen migrate notify post_read post_readv post_recv post_recvv post_send post_sendv post_ud_send post_write post_writev reg_msgs reg_read reg_write reject reject_ece resolve_addr resolve_route set_local_ece set_option" ]
    [ "${lines[10]}" = "cm_event	verbs.cm_event	function	function	function	ack expect" ]
    [ "${lines[11]}" = "cm_addrinfo	verbs.cm_addrinfo	function	function	function	free" ]
}

@test "argument checks that need no device name the function and argument" {
    run "$VERBSH" -e '
      print(select(2, pcall(verbs.open, {})))
      print(select(2, pcall(verbs.gid_bytes, 5)))
      print(select(2, pcall(verbs.gid_bytes, "fe80::zz")))
      print(#verbs.gid_bytes("fe80::1"), verbs.gid_bytes("::ffff:10.1.2.3"):byte(11, 16))
      print(select(2, pcall(verbs.trace, 5)))
      print(verbs.trace(true), verbs.trace(false), verbs.trace())
      local qp_mt = debug.getregistry()["verbs.qp"]
      print(select(2, pcall(qp_mt.__methods.modify, {}, {})))
      print(select(2, pcall(qp_mt.__methods.post_send, "x")))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "bad argument #1 to 'verbs.open' (device name (string) expected, got table)" ]
    [ "${lines[1]}" = "bad argument #1 to 'verbs.gid_bytes' (GID expected (text such as \"fe80::1\" or 16 bytes), got number)" ]
    [ "${lines[2]}" = "bad argument #1 to 'verbs.gid_bytes' ('fe80::zz' is not a GID (IPv6 text such as \"fe80::1\" or 16 raw bytes))" ]
    [ "${lines[3]}" = "16	255	255	10	1	2	3" ]
    [ "${lines[4]}" = "bad argument #1 to 'verbs.trace' (boolean or function expected, got number)" ]
    [ "${lines[5]}" = "nil	true	false" ]
    [ "${lines[6]}" = "calling 'modify' on bad self (verbs.qp expected, got table)" ]
    [ "${lines[7]}" = "calling 'post_send' on bad self (verbs.qp expected, got string)" ]
}

@test "verbs.gid_bytes: raw GIDs are exactly 16 bytes; 15 and 17 are refused" {
    run "$VERBSH" -e '
      local raw = "0123456789abcdef"
      print(verbs.gid_bytes(raw) == raw)
      print(pcall(verbs.gid_bytes, raw:sub(1, 15)))
      print(pcall(verbs.gid_bytes, raw .. "g"))
      print(pcall(verbs.gid_bytes, ""))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "true" ]
    [ "${lines[1]}" = "false	bad argument #1 to 'verbs.gid_bytes' ('0123456789abcde' is not a GID (IPv6 text such as \"fe80::1\" or 16 raw bytes))" ]
    [ "${lines[2]}" = "false	bad argument #1 to 'verbs.gid_bytes' ('0123456789abcdefg' is not a GID (IPv6 text such as \"fe80::1\" or 16 raw bytes))" ]
    [[ ${lines[3]} == "false	"*"'' is not a GID"* ]]
}

@test "prepared WRs and wc_arrays need no device to build, and check their input like post_send" {
    run "$VERBSH" -e '
      local s = verbs.send_wr{ wr_id = 7, opcode = "SEND_WITH_IMM", imm_data = 0x1234, send_flags = { "SIGNALED", "SOLICITED" },
                               sg_list = { { addr = 0x1000, length = 64, lkey = 5 }, { addr = 0x2000, length = 8, lkey = 6 } } }
      print(tostring(s), s.wr_id, s.imm_data, table.concat(s.send_flags, ","), s.sg_list[2].addr, #s)
      s.wr_id = 8; s.imm_data = 1
      print(s.wr_id, s.imm_data)
      print(select(2, pcall(verbs.send_wr, { opcode = "SEND", sg_list = { { addr = 1, length = 1 } } })))
      print(select(2, pcall(verbs.send_wr, { { opcode = "SEND" }, { opcode = "SEND", bogus = 1 } })))
      print(select(2, pcall(verbs.recv_wr, { opcode = "SEND" })))
      print(select(2, pcall(function() s.ud = {} end)))
      print(select(2, pcall(function() s.send_flags = "SIGNALLED" end)))
      local r = verbs.recv_wr{ { wr_id = 1 }, { wr_id = 2 } }
      print(tostring(r), r[2].wr_id, select(2, pcall(function() return r[3] end)))
      local w = verbs.wc_array(3)
      print(#w, tostring(w))
      print(select(2, pcall(function() return w[1].status end)))
      print(select(2, pcall(function() return w[4] end)))
      print(select(2, pcall(function() w[1] = false end)))
      print(select(2, pcall(verbs.wc_array, 0)))
      print(select(2, pcall(verbs.wc_array, "x")))
      print(select(2, pcall(verbs.wc_array, -1)))
      print(select(2, pcall(verbs.wc_array, 4097)))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "send_wr SEND_WITH_IMM wr_id=7 (1 WR, 2 SGEs)	7	4660	SIGNALED,SOLICITED	8192	1" ]
    [ "${lines[1]}" = "8	1" ]
    [ "${lines[2]}" = "bad argument #1 to 'verbs.send_wr' (key 'sg_list': sg_list[1]: needs mr= (and offset=, length=), or addr=, length= and lkey=)" ]
    [ "${lines[3]}" = "bad argument #1 to 'verbs.send_wr' (unknown key '[2].bogus' (keys: wr_id, sg_list, opcode, send_flags, imm_data, invalidate_rkey, rdma, atomic, ud, bind_mw))" ]
    [ "${lines[4]}" = "bad argument #1 to 'verbs.recv_wr' (unknown key 'opcode' (keys: wr_id, sg_list))" ]
    [[ ${lines[5]} == *"'ud' of a prepared WR is fixed (settable: wr_id, opcode, send_flags, imm_data, rdma, atomic)"* ]]
    [[ ${lines[6]} == *"send_flags"*"SIGNALLED"* ]]
    [[ ${lines[7]} == "recv_wr wr_id=1 (2 WRs, 0 SGEs)	2	"*"recv_wr: WR 3 of a chain of 2" ]]
    [ "${lines[8]}" = "3	wc_array 3 (0 filled by the last poll)" ]
    [[ ${lines[9]} == *"wc[1]: the last poll filled 0 entries (in C, wc[0] would hold stale data)" ]]
    [[ ${lines[10]} == *"wc_array: index 4 is outside 1..3" ]]
    [[ ${lines[11]} == *"wc_array is filled by cq:poll and cq:wait, not assigned" ]]
    [ "${lines[12]}" = "bad argument #1 to 'verbs.wc_array' (n: 0 is out of range (1..4096))" ]
    [ "${lines[13]}" = "bad argument #1 to 'verbs.wc_array' (n: integer expected, got string)" ]
    [ "${lines[14]}" = "bad argument #1 to 'verbs.wc_array' (n: -1 is out of range (1..4096))" ]
    [ "${lines[15]}" = "bad argument #1 to 'verbs.wc_array' (n: 4097 is out of range (1..4096))" ]
}

@test "help has a C prototype for every method of every class, rdma_cm's included" {
    run "$VERBSH" -e '
      local missing, n = {}, 0
      for _, kind in ipairs { "context", "pd", "mr", "cq", "comp_channel", "qp", "ah", "srq",
                              "cm_channel", "cm_id", "cm_event" } do
        local mt = debug.getregistry()["verbs." .. kind]
        assert(mt and mt.__methods, "no class " .. kind)
        for name in pairs(mt.__methods) do
          n = n + 1
          local out = {}
          local write = io.write
          io.write = function(...) for _, s in ipairs { ... } do out[#out + 1] = s end end
          help(kind == "cm_id" and "cm_id:" .. name or name)
          io.write = write
          local text = table.concat(out)
          if not text:find("\n    C: ", 1, true) then missing[#missing + 1] = kind .. ":" .. name end
        end
      end
      print(n, #missing == 0 and "none missing" or table.concat(missing, " "))'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"none missing"* ]]
}

@test "rdma_cm on a host without RDMA: rdma_create_event_channel fails, explained" {
    [ ! -e /dev/infiniband/rdma_cm ] || skip "this host has /dev/infiniband/rdma_cm (the device tests cover it)"
    run "$VERBSH" -e 'local ok, e = pcall(verbs.create_event_channel); print(e.verb, e.errname); print(e)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "rdma_create_event_channel	ENODEV" ]
    [[ $output == *"why: no RDMA device, or the rdma_ucm module is not loaded"* ]]
    [[ $output == *"fix: modprobe rdma_ucm; or run in the micro-VM: scripts/rxe-vm"* ]]
}

@test "getaddrinfo hints: ai_src_addr and ai_dst_addr are each read from its own value: good ones get to rdma_getaddrinfo (ENODEV here), a bad port is refused naming the key and the value" {
    [ ! -e /dev/infiniband/rdma_cm ] || skip "this host has /dev/infiniband/rdma_cm (tests/lua/cm_ep.lua covers it)"
    run "$VERBSH" -e '
      local ok, e = pcall(verbs.getaddrinfo, "127.0.0.1", 7471, { ai_src_addr = "127.0.0.1:7000", ai_dst_addr = "[::1]:7001" })
      print(ok, e.verb, e.errname)
      print(select(2, pcall(verbs.getaddrinfo, "127.0.0.1", 7471, { ai_src_addr = "127.0.0.1:65536" })))
      print(select(2, pcall(verbs.getaddrinfo, "127.0.0.1", 7471, { ai_src_addr = "127.0.0.1:65535", ai_dst_addr = "127.0.0.1:7000x" })))
      print(select(2, pcall(verbs.getaddrinfo, "127.0.0.1", 7471, { ai_src_addr = "127.0.0.1:7" })).errname)
      print(select(2, pcall(verbs.getaddrinfo, "127.0.0.1", 7471, { ai_dst_addr = "127.0.0.1:" })))'
    echo "$output"
    [ "$status" -eq 0 ]
    # a port of one digit gets through, an empty one is refused
    [ "${lines[3]}" = "ENODEV" ]
    [ "${lines[4]}" = "bad argument #3 to 'verbs.getaddrinfo' (key 'ai_dst_addr' '127.0.0.1:': the port '' is not a number (0..65535))" ]
    [ "${#lines[@]}" -eq 5 ]
    [ "${lines[0]}" = "false	rdma_getaddrinfo	ENODEV" ]
    [ "${lines[1]}" = "bad argument #3 to 'verbs.getaddrinfo' (key 'ai_src_addr' '127.0.0.1:65536': port 65536 is out of range (0..65535))" ]
    [ "${lines[2]}" = "bad argument #3 to 'verbs.getaddrinfo' (key 'ai_dst_addr' '127.0.0.1:7000x': the port '7000x' is not a number (0..65535))" ]
}

@test "getaddrinfo's arguments: a node that is no string, a service that is neither string nor number, an address that is no string, and \"[v6]\" followed by anything but \":port\" are refused naming the argument; \"[v6]\" alone gets to rdma_getaddrinfo" {
    [ ! -e /dev/infiniband/rdma_cm ] || skip "this host has /dev/infiniband/rdma_cm (tests/lua/cm_ep.lua covers it)"
    run "$VERBSH" -e '
      print(select(2, pcall(verbs.getaddrinfo, 7, "1")))
      print(select(2, pcall(verbs.getaddrinfo, "::1", {})))
      print(select(2, pcall(verbs.getaddrinfo, "::1", 7, { ai_src_addr = 7 })))
      print(select(2, pcall(verbs.getaddrinfo, "::1", 7, { ai_src_addr = "[::1]x7" })))
      print(select(2, pcall(verbs.getaddrinfo, "::1", 7, { ai_dst_addr = "[::1]]" })))
      print(select(2, pcall(verbs.getaddrinfo, "::1", 7, { ai_src_addr = "[::1]", ai_dst_addr = "[::2]:7001" })).errname)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "bad argument #1 to 'verbs.getaddrinfo' (string (node: host name or address) or nil expected, got number)" ]
    [ "${lines[1]}" = "bad argument #2 to 'verbs.getaddrinfo' (string or port number (service) or nil expected, got table)" ]
    [ "${lines[2]}" = "bad argument #3 to 'verbs.getaddrinfo' (key 'ai_src_addr': address expected as \"host:port\", got number)" ]
    [ "${lines[3]}" = "bad argument #3 to 'verbs.getaddrinfo' (key 'ai_src_addr' '[::1]x7': text after ']')" ]
    [ "${lines[4]}" = "bad argument #3 to 'verbs.getaddrinfo' (key 'ai_dst_addr' '[::1]]': text after ']')" ]
    [ "${lines[5]}" = "ENODEV" ]
    [ "${#lines[@]}" -eq 6 ]
}

@test "verbs.wait_fds: a readable pipe end is returned, silence times out, bad entries are named; getrusage" {
    run "$VERBSH" -e '
      local r, w = io.popen("printf x", "r"), nil
      local t0 = verbs.now()
      local ready = verbs.wait_fds({ 0 }, 200)
      print("stdin", #ready)
      print(pcall(verbs.wait_fds, {}, 10))
      print(pcall(verbs.wait_fds, { "x" }, 10))
      print(pcall(verbs.wait_fds, { 1 }, "soon"))
      local socket = require "socket"
      local srv = assert(socket.bind("127.0.0.1", 0))
      local _, port = srv:getsockname()
      t0 = verbs.now()
      print("silent", #verbs.wait_fds({ srv }, 300), verbs.now() - t0 >= 0.25)
      local c = socket.connect("127.0.0.1", port)
      print(pcall(verbs.wait_fds, { 999 }, 100))
      local got = verbs.wait_fds({ srv }, 2000)
      print("connect", #got, got[1] == srv)
      local u = verbs.getrusage()
      print(type(u.ru_utime), u.ru_utime >= 0, u.ru_stime >= 0, u.ru_maxrss > 0, math.type(u.ru_nvcsw))' </dev/null
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "stdin	1" ]
    [ "${lines[1]}" = "false	bad argument #1 to 'verbs.wait_fds' (an empty list: nothing could ever wake the wait)" ]
    [ "${lines[2]}" = "false	bad argument #1 to 'verbs.wait_fds' ([1]: a comp_channel, cm_channel, context, cm_id, socket (getfd) or integer fd expected, got string)" ]
    [ "${lines[3]}" = "false	bad argument #2 to 'verbs.wait_fds' (timeout_ms: integer expected, got string)" ]
    [ "${lines[4]}" = "silent	0	true" ]
    [ "${lines[5]}" = "false	bad argument #1 to 'verbs.wait_fds' ([1]: fd 999 is not open)" ]
    [ "${lines[6]}" = "connect	1	true" ]
    [ "${lines[7]}" = "number	true	true	true	integer" ]
}

# The wait is poll(2) in slices of at most 100 ms, the last one cut to what
# is left of the timeout: timeout 0 or 1 returns at once (not after a whole
# slice); no timeout sleeps in the kernel until the fd is readable (no spin).
@test "verbs.wait_fds: timeouts 0, 1 and 40 on a silent fd give nothing, never before their time; no timeout sleeps in poll (little CPU) until a peer connects 1 s later" {
    run "$VERBSH" -e '
      local socket = require "socket"
      local srv = assert(socket.bind("127.0.0.1", 0))
      local _, port = srv:getsockname()
      for _, ms in ipairs{ 0, 1, 40 } do
        local t0 = verbs.now()
        local n = #verbs.wait_fds({ srv }, ms)
        local dt = verbs.now() - t0
        -- (no upper bound: a loaded machine may run the process late; the
        -- CPU time below is what tells a poll that sleeps from one that spins)
        print(ms, n, dt >= ms / 1000)
      end
      local peer = io.popen("exec bash -c \"sleep 1; exec 3<>/dev/tcp/127.0.0.1/" .. port .. "\"", "r")
      local function cpu() local u = verbs.getrusage() return u.ru_utime + u.ru_stime end
      local c0, t0 = cpu(), verbs.now()
      local got = verbs.wait_fds({ srv })
      local dt, used = verbs.now() - t0, cpu() - c0
      print("forever", #got, got[1] == srv, dt >= 0.5, used < 0.1, used)
      peer:close()' </dev/null
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "0	0	true" ]
    [ "${lines[1]}" = "1	0	true" ]
    [ "${lines[2]}" = "40	0	true" ]
    [[ ${lines[3]} == "forever	1	true	true	true	"* ]]
}

@test "verbs.wait_fds: an fd is 0..2^31-1 (-1 and 2^31 refused, 2^31-1 not open), 64 entries at most, and an object's getfd() must give an open descriptor (a float one is read as its integer)" {
    run "$VERBSH" -e '
      print(select(2, pcall(verbs.wait_fds, { -1 }, 0)))
      print(select(2, pcall(verbs.wait_fds, { 0x80000000 }, 0)))
      print(select(2, pcall(verbs.wait_fds, { 0x7fffffff }, 0)))
      local t = {}
      for i = 1, 65 do t[i] = 0 end
      print(select(2, pcall(verbs.wait_fds, t, 0)))
      t[65] = nil
      local r = verbs.wait_fds(t, 0)
      print(#r, r[64])
      local function sock(fd) return setmetatable({}, { __index = { getfd = function() return fd end } }) end
      print(select(2, pcall(verbs.wait_fds, { 0, sock(nil) }, 0)))
      print(select(2, pcall(verbs.wait_fds, { sock(-1) }, 0)))
      print(select(2, pcall(verbs.wait_fds, { sock(7.5) }, 0)))
      local s = sock(0.0)
      r = verbs.wait_fds({ s }, 0)
      print(#r, r[1] == s)' </dev/null
    echo "$output"
    [ "${lines[0]}" = "bad argument #1 to 'verbs.wait_fds' ([1]: -1 is not a file descriptor)" ]
    [ "${lines[1]}" = "bad argument #1 to 'verbs.wait_fds' ([1]: 2147483648 is not a file descriptor)" ]
    [ "${lines[2]}" = "bad argument #1 to 'verbs.wait_fds' ([1]: fd 2147483647 is not open)" ]
    [ "${lines[3]}" = "bad argument #1 to 'verbs.wait_fds' (65 entries, more than verbsh's 64)" ]
    # stdin is /dev/null: readable at once, each of the 64 entries
    [ "${lines[4]}" = "64	0" ]
    [ "${lines[5]}" = "bad argument #1 to 'verbs.wait_fds' ([2]: its getfd() gave no open descriptor (closed?))" ]
    [ "${lines[6]}" = "bad argument #1 to 'verbs.wait_fds' ([1]: its getfd() gave no open descriptor (closed?))" ]
    [ "${lines[7]}" = "bad argument #1 to 'verbs.wait_fds' ([1]: its getfd() gave no open descriptor (closed?))" ]
    [ "${lines[8]}" = "1	true" ]
    [ "$status" -eq 0 ]
}

@test "verbs.getrusage: ru_utime and ru_stime in seconds agree with the kernel's /proc/self/stat ticks, ru_maxrss in KiB with VmHWM" {
    run "$VERBSH" -e '
      local x = 0; local t0 = os.clock(); while os.clock() - t0 < 0.3 do x = x + 1 end   -- some user time
      local u = verbs.getrusage()
      local f = io.open("/proc/self/stat"); local st = f:read("a"); f:close()
      local ut, stt = st:match("^%d+ %b() %S+" .. (" %S+"):rep(10) .. " (%d+) (%d+)")
      f = io.open("/proc/self/status"); local hwm = f:read("a"):match("VmHWM:%s*(%d+)"); f:close()
      local tck = tonumber(io.popen("getconf CLK_TCK"):read("l"))
      -- (the ticks are whole 1/CLK_TCK s and read a moment later: within 3 ticks)
      print(math.abs(u.ru_utime - ut / tck) <= 3 / tck, math.abs(u.ru_stime - stt / tck) <= 3 / tck, u.ru_utime + u.ru_stime >= 0.25,
        math.abs(u.ru_maxrss - tonumber(hwm)) <= 1024)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "true	true	true	true" ]
}

@test "an enum or flags value wider than its C field, or with bits no flag defines, is refused, not truncated" {
    run "$VERBSH" -e '
      print(select(2, pcall(verbs.send_wr, { opcode = "SEND", send_flags = 1 << 40 })))
      print(select(2, pcall(verbs.send_wr, { opcode = "SEND", send_flags = 0xFFFFFFFF })))
      print(select(2, pcall(verbs.send_wr, { opcode = "SEND", send_flags = { "SIGNALED", 0x100 } })))
      print(select(2, pcall(verbs.send_wr, { opcode = "SEND", send_flags = 0x1f })))
      print(select(2, pcall(verbs.send_wr, { opcode = "SEND", send_flags = { "SIGNALED", 8 } })))
      print(select(2, pcall(verbs.send_wr, { opcode = "SEND", send_flags = 0 })))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "bad argument #1 to 'verbs.send_wr' (key 'send_flags': 0x10000000000 has bits no IBV_SEND_* flag defines (0x10000000000 given; the flags: FENCE = 0x1, SIGNALED = 0x2, SOLICITED = 0x4, INLINE = 0x8, IP_CSUM = 0x10))" ]
    [ "${lines[1]}" = "bad argument #1 to 'verbs.send_wr' (key 'send_flags': 0xffffffe0 has bits no IBV_SEND_* flag defines (0xffffffff given; the flags: FENCE = 0x1, SIGNALED = 0x2, SOLICITED = 0x4, INLINE = 0x8, IP_CSUM = 0x10))" ]
    [[ ${lines[2]} == "bad argument #1 to 'verbs.send_wr' (key 'send_flags': 0x100 has bits no IBV_SEND_* flag defines (0x100 given; "* ]]
    [ "${lines[3]}" = "send_wr SEND wr_id=0 (1 WR, 0 SGEs)" ]
    [ "${lines[4]}" = "send_wr SEND wr_id=0 (1 WR, 0 SGEs)" ]
    [ "${lines[5]}" = "send_wr SEND wr_id=0 (1 WR, 0 SGEs)" ]
}

@test "memory windows without a device: verbs.inc_rkey's wrap, the mw class, ibv_mw_type, and bind_mw's errors explained" {
    run "$VERBSH" -e '
      print(("%x %x %x"):format(verbs.inc_rkey(0x12345678), verbs.inc_rkey(0x123456fe), verbs.inc_rkey(0x123456ff)))
      print(verbs.inc_rkey(0), verbs.inc_rkey(0xffffffff))
      print(select(2, pcall(verbs.inc_rkey, -1)))
      print(select(2, pcall(verbs.inc_rkey, 0x100000000)))
      print(select(2, pcall(verbs.inc_rkey, 1, 2)))
      local mt = debug.getregistry()["verbs.mw"]
      local m = {}
      for name in pairs(mt.__methods) do m[#m + 1] = name end
      print(mt.__name, type(mt.__gc), type(mt.__newindex), table.concat(m, " "), table.concat(mt.__fields, " "))
      print(table.concat(verbs.enums.ibv_mw_type, ","), verbs.enum("ibv_mw_type").values.TYPE_2)
      local function ex(e) return tostring(verbs.explain(e)) end
      print(ex{ verb = "ibv_bind_mw", errno = 22, errname = "EINVAL", context = { mw_type = "TYPE_2", qp_type = "RC" } })
      print(ex{ verb = "ibv_bind_mw", errno = 22, errname = "EINVAL",
        context = { mw_type = "TYPE_1", qp_type = "RC", qp_state = "RTS", mw_access_flags = { "REMOTE_READ", "ZERO_BASED" } } })
      print(ex{ verb = "ibv_bind_mw", errno = 1, errname = "EPERM", context = { mw_type = "TYPE_1", other_pd = true } })
      print(ex{ verb = "ibv_dereg_mr", errno = 22, errname = "EINVAL" })'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "12345679 123456ff 12345600" ]
    [ "${lines[1]}" = "1	4294967040" ]
    [ "${lines[2]}" = "bad argument #1 to 'verbs.inc_rkey' (rkey: -1 is out of range (0..4294967295))" ]
    [ "${lines[3]}" = "bad argument #1 to 'verbs.inc_rkey' (rkey: 4294967296 is out of range (0..4294967295))" ]
    [[ ${lines[4]} == *"inc_rkey"*"2"* ]]
    [ "${lines[5]}" = "verbs.mw	function	function	dealloc	rkey handle type pd" ]
    [ "${lines[6]}" = "TYPE_1,TYPE_2	2" ]
    [[ $output == *"why: this is a TYPE_2 window: ibv_bind_mw binds only type 1 windows"* ]]
    [[ $output == *"why: a zero-based type 1 window: the IBTA does not allow type 1 windows to be zero-based"* ]]
    [[ $output == *"why: bind_info.mr belongs to another PD than the window"* ]]
    [[ $output == *"why: memory windows are still bound to this MR (rxe refuses the dereg while any window opens onto it)"* ]]
}

@test "fork_init and is_fork_initialized: DISABLED, then true and ENABLED; an argument to either is refused naming the count and the first, and changes nothing" {
    run "$VERBSH" -e '
      print(verbs.is_fork_initialized())
      print(pcall(verbs.fork_init, 1))
      print(pcall(verbs.is_fork_initialized, "x"))
      print(verbs.is_fork_initialized())
      print(verbs.fork_init())
      print(verbs.is_fork_initialized())
      print(pcall(verbs.fork_init, nil, 2))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = DISABLED ]
    [ "${lines[1]}" = $'false\tbad argument #1 to \'verbs.fork_init\' (verbs.fork_init() takes no arguments, got 1 (the first: a number))' ]
    [ "${lines[2]}" = $'false\tbad argument #1 to \'verbs.is_fork_initialized\' (verbs.is_fork_initialized() takes no arguments, got 1 (the first: a string))' ]
    [ "${lines[3]}" = DISABLED ]   # the refused call did not run ibv_fork_init
    [ "${lines[4]}" = true ]
    [ "${lines[5]}" = ENABLED ]
    [ "${lines[6]}" = $'false\tbad argument #1 to \'verbs.fork_init\' (verbs.fork_init() takes no arguments, got 2 (the first: a nil))' ]
}

@test "a prepared chain read back: every field of each WR is the value given (rdma, atomic, ud, imm_data, invalidate_rkey, SGEs), each in its place" {
    run "$VERBSH" -e '
      local function dump(t, p, out)
        local ks = {}
        for k in pairs(t) do ks[#ks + 1] = k end
        table.sort(ks, function(a, b) return tostring(a) < tostring(b) end)
        for _, k in ipairs(ks) do
          local v = t[k]
          if type(v) == "table" then dump(v, p .. k .. ".", out)
          else out[#out + 1] = p .. k .. "=" .. (math.type(v) == "integer" and ("0x%x"):format(v) or tostring(v)) end
        end
        return out
      end
      local s = verbs.send_wr{
        { wr_id = 11, opcode = "RDMA_WRITE_WITH_IMM", imm_data = 0x01020304, rdma = { remote_addr = 0x1122334455667788, rkey = 0x0badf00d },
          sg_list = { { addr = 0x1000, length = 64, lkey = 0x51 }, { addr = 0x2000, length = 8, lkey = 0x62 } } },
        { wr_id = 12, opcode = "ATOMIC_CMP_AND_SWP", atomic = { remote_addr = 0x8877665544332210, compare_add = 0x0102030405060708,
          swap = 0x1112131415161718, rkey = 0x0decade1 }, sg_list = { { addr = 0x3000, length = 8, lkey = 0x73 } } },
        { wr_id = 13, opcode = "SEND", send_flags = "SIGNALED", ud = { remote_qpn = 0x12345, remote_qkey = 0x1234abcd } },
        { wr_id = 14, opcode = "SEND_WITH_INV", invalidate_rkey = 0x0f0e0d0c },
      }
      for i = 1, #s do print(table.concat(dump(s[i], "", {}), " ")) end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "imm_data=0x1020304 opcode=RDMA_WRITE_WITH_IMM rdma.remote_addr=0x1122334455667788 rdma.rkey=0xbadf00d sg_list.1.addr=0x1000 sg_list.1.length=0x40 sg_list.1.lkey=0x51 sg_list.2.addr=0x2000 sg_list.2.length=0x8 sg_list.2.lkey=0x62 wr_id=0xb" ]
    [ "${lines[1]}" = "atomic.compare_add=0x102030405060708 atomic.remote_addr=0x8877665544332210 atomic.rkey=0xdecade1 atomic.swap=0x1112131415161718 opcode=ATOMIC_CMP_AND_SWP sg_list.1.addr=0x3000 sg_list.1.length=0x8 sg_list.1.lkey=0x73 wr_id=0xc" ]
    [ "${lines[2]}" = "opcode=SEND send_flags.1=SIGNALED ud.ah=false ud.remote_qkey=0x1234abcd ud.remote_qpn=0x12345 wr_id=0xd" ]
    [ "${lines[3]}" = "invalidate_rkey=0xf0e0d0c opcode=SEND_WITH_INV wr_id=0xe" ]
    [ "${#lines[@]}" -eq 4 ]
}

# The recorder is an observer: when its own code fails (here a trace
# listener that raises, and arguments it cannot copy because comparing
# their metatable raises), the verb's value or error is what it is without
# the recorder, and stderr names the recorder's problem.
@test "recorder problems: a listener that raises, or an error whose __tostring raises, is told on stderr and the verb's value stands; arguments it cannot copy leave the verb unrecorded with its own error, at the caller's line" {
    cat >"$BATS_TEST_TMPDIR/problem.lua" <<'LUA'
local R = require "verbs.record"
local evil = setmetatable({}, { __metatable = setmetatable({}, { __eq = function() error("no compare", 0) end }) })
print("off", select(2, pcall(function() return verbs.wc_status_str(evil) end)))
R.record(true)
local before = #R.events()
print("on", select(2, pcall(function() return verbs.wc_status_str(evil) end)))
print("unrecorded", #R.events() - before)
print("recorded", verbs.wc_status_str(12), #R.events() - before)
R.listen(function(ev) error("boom in " .. ev.method, 0) end)
print("listener", verbs.wc_status_str(4), #R.events() - before)
R.listen(function() error(setmetatable({}, { __tostring = function() error("no text") end })) end)
print("untellable", verbs.wc_status_str(3), #R.events() - before)
R.listen(nil)
R.record(false)
LUA
    # (run would mix stderr into $output: it goes to a file of its own)
    run sh -c '"$0" "$1" 2>"$2"' "$VERBSH" "$BATS_TEST_TMPDIR/problem.lua" "$BATS_TEST_TMPDIR/err"
    echo "$output"; cat "$BATS_TEST_TMPDIR/err"
    [ "$status" -eq 0 ]
    local said="bad argument #1 to 'verbs.wc_status_str' (ibv_wc_status expected (a name or an integer), got table)"
    [ "${lines[0]}" = "off	$BATS_TEST_TMPDIR/problem.lua:3: $said" ]
    # the same error, at its own line 6, and no event for the call
    [ "${lines[1]}" = "on	$BATS_TEST_TMPDIR/problem.lua:6: $said" ]
    [ "${lines[2]}" = "unrecorded	0" ]
    [ "${lines[3]}" = "recorded	transport retry counter exceeded	1" ]
    [ "${lines[4]}" = "listener	local protection error	2" ]
    [ "${lines[5]}" = "untellable	local EE context operation error	3" ]
    [ "${#lines[@]}" -eq 6 ]
    [ "$(cat "$BATS_TEST_TMPDIR/err")" = "verbsh: recorder problem (recording wc_status_str): no compare; the verb's outcome is unchanged
verbsh: recorder problem (tracing wc_status_str): boom in wc_status_str; the verb's outcome is unchanged
verbsh: recorder problem (tracing wc_status_str): an error whose __tostring failed; the verb's outcome is unchanged" ]
}

# The recorder copies a call's arguments before the call; a table nested
# deeper than any verb takes (here 200000 levels) is cut at 100 levels, so
# the copy itself never runs out of stack.
@test "recorder: an argument nested 200000 tables deep is copied without a recorder problem; the verb's own error stands" {
    run sh -c '"$0" -e "
      local R = require \"verbs.record\"
      local deep = {}; local t = deep
      for i = 1, 200000 do t.next = {}; t = t.next end
      R.record(true)
      print(select(2, pcall(verbs.wc_status_str, deep)))
      print(verbs.wc_status_str(5), #R.events())" 2>"$1"' "$VERBSH" "$BATS_TEST_TMPDIR/err"
    echo "$output"; cat "$BATS_TEST_TMPDIR/err"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "bad argument #1 to 'verbs.wc_status_str' (ibv_wc_status expected (a name or an integer), got table)" ]
    [ "${lines[1]}" = "Work Request Flushed Error	1" ]
    [ ! -s "$BATS_TEST_TMPDIR/err" ]
}

@test "a WR's unknown keys: C's union name wr (only in a send WR, whose union it is), a member of a nested struct at the top, a key that is no string, a key with a NUL byte" {
    run "$VERBSH" -e '
      print(select(2, pcall(verbs.send_wr, { opcode = "RDMA_WRITE", wr = { rdma = { rkey = 1 } } })))
      print(select(2, pcall(verbs.recv_wr, { wr = {} })))
      print(select(2, pcall(verbs.send_wr, { opcode = "RDMA_WRITE", rkey = 1 })))
      print(select(2, pcall(verbs.send_wr, { opcode = "SEND", [1.5] = 1 })))
      print(select(2, pcall(verbs.send_wr, { opcode = "SEND", ["op\0code"] = 1 })))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "bad argument #1 to 'verbs.send_wr' (unknown key 'wr' (C's wr.rdma, wr.atomic and wr.ud are the keys rdma, atomic and ud here: rdma = { remote_addr = ..., rkey = ... }))" ]
    [ "${lines[1]}" = "bad argument #1 to 'verbs.recv_wr' (unknown key 'wr' (keys: wr_id, sg_list))" ]
    [ "${lines[2]}" = "bad argument #1 to 'verbs.send_wr' (unknown key 'rkey' (did you mean rdma = { rkey = ... }? in C: wr.rdma.rkey))" ]
    [ "${lines[3]}" = "bad argument #1 to 'verbs.send_wr' (unexpected key 1.5 (keys are field names))" ]
    [ "${lines[4]}" = "bad argument #1 to 'verbs.send_wr' (unexpected key 'op' followed by a NUL byte (keys are field names))" ]
}

@test "a prepared chain's WRs by index: 1..#wr each its table, 0, #wr + 1 and a fraction refused naming the chain's length; a recv_wr alone is a chain of 1" {
    run "$VERBSH" -e '
      local function e(f) return (select(2, pcall(f)):gsub("^%(command line%):%d+: ", "")) end
      local s = verbs.send_wr{ { wr_id = 0x21, opcode = "SEND" }, { wr_id = 0x22, opcode = "SEND_WITH_IMM", imm_data = 0x3344 } }
      print(s[1].wr_id, s[2].wr_id, s[2].imm_data, #s)
      print(e(function() return s[1.5] end))
      print(e(function() return s[0] end))
      print(e(function() return s[3] end))
      local r = verbs.recv_wr{ wr_id = 5 }
      print(r[1].wr_id, #r, e(function() return r[2] end), e(function() return r.bogus end))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "33	34	13124	2" ]
    [ "${lines[1]}" = "send_wr: WR 1.5 of a chain: an index is an integer (1..2)" ]
    [ "${lines[2]}" = "send_wr: WR 0 of a chain of 2" ]
    [ "${lines[3]}" = "send_wr: WR 3 of a chain of 2" ]
    [ "${lines[4]}" = "5	1	recv_wr: WR 2 of a chain of 1	struct ibv_recv_wr has no field 'bogus'" ]
}

@test "verbs.enums is built on first use and kept: absent before, then the same table at each read, verbs' own field" {
    run "$VERBSH" -e '
      print(rawget(verbs, "enums"))
      local e = verbs.enums
      print(type(e), rawequal(e, verbs.enums), rawequal(rawget(verbs, "enums"), e), verbs.enum("ibv_qp_state").values.RTS)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "nil" ]
    [ "${lines[1]}" = "table	true	true	3" ]
}

@test "verbs.send_wr refuses BIND_MW by its WR's place in the list: #1 alone, #2 and #3 of a list" {
    run "$VERBSH" -e '
      for _, w in ipairs { { opcode = "BIND_MW" }, { { opcode = "SEND" }, { opcode = "BIND_MW" } },
                           { { opcode = "SEND" }, { opcode = "SEND_WITH_IMM", imm_data = 7 }, { opcode = "BIND_MW" } } } do
        print((select(2, pcall(verbs.send_wr, w)):match("%((WR #%d+): verbs.send_wr does not prepare BIND_MW")))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = $'WR #1\nWR #2\nWR #3' ]
}

@test "a wc_array and each of its entries hide their metatables: getmetatable gives false, setmetatable is refused" {
    run "$VERBSH" -e '
      local wcs = verbs.wc_array(3)
      print(getmetatable(wcs), getmetatable(wcs[1]), getmetatable(wcs[3]), rawequal(wcs[1], wcs[3]))
      print(pcall(setmetatable, wcs, {}))
      print(pcall(setmetatable, wcs[2], {}))
      print(wcs[2])'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'false\tfalse\tfalse\tfalse' ]
    [ "${lines[1]}" = $'false\tcannot change a protected metatable' ]
    [ "${lines[2]}" = $'false\tcannot change a protected metatable' ]
    [ "${lines[3]}" = "wc[2] (not filled by the last poll)" ]
    [ "${#lines[@]}" -eq 4 ]
}
