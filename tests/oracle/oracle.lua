-- The verbsh half of tests/device/oracle.bats: the scenario of
-- tests/oracle/oracle.c, step for step, through the bindings. It prints
-- what verbsh reads as "key<TAB>value" lines under the C program's keys;
-- the test compares the two. QP numbers print as the name of the
-- scenario's QP that holds them, objects by their name in the scenario.
-- usage: verbsh oracle.lua DEV GID_INDEX IPV4 IPV6 PORT
local DEV, GI, V4, V6, PORT = arg[1], tonumber(arg[2]), arg[3], arg[4], tonumber(arg[5])

local qpnames, objnames = {}, {}
local function name_qp(name, qp) qpnames[qp.qp_num] = name end
local function Q(v) return v == nil and "-" or qpnames[v] or tostring(v) end

local function text(v)
  if v == nil then return "-" end
  local t = type(v)
  if t == "table" then
    local s = {}
    for i, x in ipairs(v) do s[i] = tostring(x) end
    return table.concat(s, ",")
  elseif t == "userdata" then
    return objnames[v] or "?"
  elseif math.type(v) == "integer" then
    return ("%d"):format(v)
  end
  return tostring(v)
end
local function out(key, v) io.write(key, "\t", text(v), "\n") end
local function hex(s) return (s:gsub(".", function(c) return ("%02x"):format(c:byte()) end)) end

-- Every field of a struct, in the C program's key names.
local function fields(prefix, t, names)
  for _, n in ipairs(names) do out(prefix .. "." .. n, t[n]) end
end

local function ah(p, a)
  fields(p .. ".grh", a.grh, { "dgid", "flow_label", "sgid_index", "hop_limit", "traffic_class" })
  fields(p, a, { "dlid", "sl", "src_path_bits", "static_rate", "is_global", "port_num" })
end
local CAP = { "max_send_wr", "max_recv_wr", "max_send_sge", "max_recv_sge", "max_inline_data" }

local function print_qp(name, qp)
  local a, i = qp:query()
  local p = name .. ".attr"
  fields(p, a, { "qp_state", "cur_qp_state", "path_mtu", "path_mig_state", "qkey", "rq_psn", "sq_psn" })
  out(p .. ".dest_qp_num", Q(a.dest_qp_num))
  out(p .. ".qp_access_flags", a.qp_access_flags)
  fields(p .. ".cap", a.cap, CAP)
  ah(p .. ".ah_attr", a.ah_attr)
  ah(p .. ".alt_ah_attr", a.alt_ah_attr)
  fields(p, a, { "pkey_index", "alt_pkey_index", "en_sqd_async_notify", "sq_draining", "max_rd_atomic",
    "max_dest_rd_atomic", "min_rnr_timer", "port_num", "timeout", "retry_cnt", "rnr_retry", "alt_port_num",
    "alt_timeout", "rate_limit" })
  p = name .. ".init"
  fields(p, i, { "send_cq", "recv_cq", "srq" })
  fields(p .. ".cap", i.cap, CAP)
  fields(p, i, { "qp_type", "sq_sig_all" })
  out(name .. ".qp_num", Q(qp.qp_num))
  out(name .. ".state", qp.state)
  out(name .. ".qp_type", qp.qp_type)
end

local function print_wc(p, w)
  fields(p, w, { "wr_id", "status", "vendor_err" })
  out(p .. ".qp_num", Q(w.qp_num))
  fields(p, w, { "opcode", "byte_len", "imm_data" })
  out(p .. ".src_qp", Q(w.src_qp))
  fields(p, w, { "wc_flags", "pkey_index", "slid", "sl", "dlid_path_bits" })
end

local function wc1(cq, what)
  local wcs = cq:wait(1, 5000)
  if #wcs ~= 1 then error("oracle: no completion for " .. what) end
  return wcs[1]
end

-- ---- the device, the port, the GIDs -------------------------------------------
local ctx
for _, d in ipairs(verbs.devices()) do
  if d.name == DEV then
    fields("dev", d, { "name", "guid", "node_type", "transport_type" })
    ctx = verbs.open(DEV)
  end
end
out("ctx.name", ctx.name); out("ctx.num_comp_vectors", ctx.num_comp_vectors)
local d = ctx:query_device()
fields("query_device", d, { "fw_ver", "node_guid", "sys_image_guid", "max_mr_size", "page_size_cap", "vendor_id",
  "vendor_part_id", "hw_ver", "max_qp", "max_qp_wr", "device_cap_flags", "max_sge", "max_sge_rd", "max_cq",
  "max_cqe", "max_mr", "max_pd", "max_qp_rd_atom", "max_ee_rd_atom", "max_res_rd_atom", "max_qp_init_rd_atom",
  "max_ee_init_rd_atom", "atomic_cap", "max_ee", "max_rdd", "max_mw", "max_raw_ipv6_qp", "max_raw_ethy_qp",
  "max_mcast_grp", "max_mcast_qp_attach", "max_total_mcast_qp_attach", "max_ah", "max_fmr", "max_map_per_fmr",
  "max_srq", "max_srq_wr", "max_srq_sge", "max_pkeys", "local_ca_ack_delay", "phys_port_cnt" })
fields("query_port", ctx:query_port(1), { "state", "max_mtu", "active_mtu", "gid_tbl_len", "port_cap_flags",
  "max_msg_sz", "bad_pkey_cntr", "qkey_viol_cntr", "pkey_tbl_len", "lid", "sm_lid", "lmc", "max_vl_num", "sm_sl",
  "subnet_timeout", "init_type_reply", "active_width", "active_speed", "phys_state", "link_layer", "flags",
  "port_cap_flags2" })
local gids = ctx:gids(1)
out("gids.count", #gids)
for _, g in ipairs(gids) do
  out(("gids.%d.gid"):format(g.index), g.gid); out(("gids.%d.type"):format(g.index), g.type)
end
for i = 0, 3 do out("query_gid." .. i, ctx:query_gid(1, i)) end
local gid = ctx:query_gid(1, GI)

-- ---- PD, CQs, MRs, SRQ ----------------------------------------------------------
local pd = ctx:alloc_pd()
local cq1, cq2 = ctx:create_cq(16), ctx:create_cq(33)
objnames[cq1], objnames[cq2] = "cq1", "cq2"
out("cq1.cqe", cq1.cqe); out("cq2.cqe", cq2.cqe)
local ma = pd:reg_mr(4096, { "LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_ATOMIC" })
local mb = pd:reg_mr(8192, { "LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC" })
out("mr_a.length", ma.length); out("mr_b.length", mb.length)
out("mr_a.lkey_is_rkey", ma.lkey == ma.rkey and "yes" or "no")

local srq = pd:create_srq{ max_wr = 10, max_sge = 2, srq_limit = 0 }
objnames[srq] = "srq"
fields("srq", srq:query(), { "max_wr", "max_sge", "srq_limit" })
srq:modify{ srq_limit = 3 }
fields("srq2", srq:query(), { "max_wr", "max_sge", "srq_limit" })

-- ---- RC ---------------------------------------------------------------------------
local function rc_qp(scq, rcq, s, cap, sig_all)
  return pd:create_qp{ qp_type = "RC", send_cq = scq, recv_cq = rcq, srq = s, sq_sig_all = sig_all,
    cap = { max_send_wr = cap[1], max_recv_wr = cap[2], max_send_sge = cap[3], max_recv_sge = cap[4],
            max_inline_data = cap[5] } }
end
local function rc_connect(qp, access, mtu, dest, rq_psn, max_dest, rnr_timer, hop, sq_psn, timeout, retry, rnr, max_rd)
  qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = access }
  qp:modify{ qp_state = "RTR", path_mtu = mtu, dest_qp_num = dest, rq_psn = rq_psn, max_dest_rd_atomic = max_dest,
    min_rnr_timer = rnr_timer,
    ah_attr = { is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = GI, hop_limit = hop } } }
  qp:modify{ qp_state = "RTS", sq_psn = sq_psn, timeout = timeout, retry_cnt = retry, rnr_retry = rnr,
    max_rd_atomic = max_rd }
end
local function ud_connect(qp, qkey, sq_psn)
  qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = qkey }
  qp:modify{ qp_state = "RTR" }
  qp:modify{ qp_state = "RTS", sq_psn = sq_psn }
end

local qa = rc_qp(cq1, cq2, nil, { 5, 6, 2, 3, 40 }, 0)
local qb = rc_qp(cq1, cq2, nil, { 7, 4, 3, 1, 24 }, 1)
local qs = rc_qp(cq2, cq1, srq, { 3, 0, 1, 0, 0 }, 0)
name_qp("qa", qa); name_qp("qb", qb); name_qp("qs", qs)
print_qp("qs", qs)
rc_connect(qa, "REMOTE_WRITE", "512", qb.qp_num, 0x1a2b3c, 2, 12, 9, 0x4d5e6f, 14, 6, 5, 4)
rc_connect(qb, { "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC" }, "1024", qa.qp_num, 0x4d5e6f, 4, 14, 17, 0x1a2b3c,
  18, 5, 6, 2)
print_qp("qa", qa)
print_qp("qb", qb)

qb:post_recv{ wr_id = 0x1001, sg_list = { { mr = mb, offset = 0, length = 64 } } }
ma:write(0, "oracle-send-1")
qa:post_send{ wr_id = 0x2002, opcode = "SEND_WITH_IMM", send_flags = "SIGNALED", imm_data = 0x12345678,
  sg_list = { { mr = ma, offset = 0, length = 13 } } }
print_wc("wc.rc_send_imm", wc1(cq1, "rc send_imm"))
print_wc("wc.rc_recv_imm", wc1(cq2, "rc recv_imm"))
out("data.rc_send", hex(mb:read(0, 13)))

qa:post_recv{ wr_id = 0x3003, sg_list = { { mr = ma, offset = 1024, length = 16 } } }
mb:write(300, "w-imm-7")
qb:post_send{ wr_id = 0x4004, opcode = "RDMA_WRITE_WITH_IMM", imm_data = 0x9abcdef0,
  sg_list = { { mr = mb, offset = 300, length = 7 } }, rdma = { remote_addr = ma.addr + 2048, rkey = ma.rkey } }
print_wc("wc.rc_write_imm", wc1(cq1, "rc write_imm"))
print_wc("wc.rc_recv_write_imm", wc1(cq2, "rc recv write_imm"))
out("data.rc_write", hex(ma:read(2048, 7)))

mb:write(100, "read-me-9")
qa:post_send{ wr_id = 0x5005, opcode = "RDMA_READ", send_flags = "SIGNALED",
  sg_list = { { mr = ma, offset = 3000, length = 9 } }, rdma = { remote_addr = mb.addr + 100, rkey = mb.rkey } }
print_wc("wc.rc_read", wc1(cq1, "rc read"))
out("data.rc_read", hex(ma:read(3000, 9)))

mb:write(256, string.pack("=I8", 0x0102030405060708))
qa:post_send{ wr_id = 0x6006, opcode = "ATOMIC_FETCH_AND_ADD", send_flags = "SIGNALED",
  sg_list = { { mr = ma, offset = 3072, length = 8 } },
  atomic = { remote_addr = mb.addr + 256, rkey = mb.rkey, compare_add = 0x1111111122222222 } }
print_wc("wc.rc_fetch_add", wc1(cq1, "rc fetch_add"))
out("data.faa_result", hex(ma:read(3072, 8))); out("data.faa_target", hex(mb:read(256, 8)))
qa:post_send{ wr_id = 0x7007, opcode = "ATOMIC_CMP_AND_SWP", send_flags = "SIGNALED",
  sg_list = { { mr = ma, offset = 3080, length = 8 } },
  atomic = { remote_addr = mb.addr + 256, rkey = mb.rkey, compare_add = 0x121314152728292a, swap = 0x0fedcba987654321 } }
print_wc("wc.rc_cmp_swp", wc1(cq1, "rc cmp_swp"))
out("data.cas_result", hex(ma:read(3080, 8))); out("data.cas_target", hex(mb:read(256, 8)))

-- ---- UD ---------------------------------------------------------------------------
local function ud_qp()
  return pd:create_qp{ qp_type = "UD", send_cq = cq1, recv_cq = cq2,
    cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }
end
local ua, ub = ud_qp(), ud_qp()
name_qp("ua", ua); name_qp("ub", ub)
ud_connect(ua, 0x11223344, 0x111)
ud_connect(ub, 0x55667788, 0x222)
print_qp("ua", ua)
local ah1 = pd:create_ah{ is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = GI, hop_limit = 3 } }
ub:post_recv{ wr_id = 0x8008, sg_list = { { mr = mb, offset = 1024, length = 40 + 64 } } }
ma:write(0, "ud-imm-data")
ua:post_send{ wr_id = 0x9009, opcode = "SEND_WITH_IMM", send_flags = "SIGNALED", imm_data = 0x0badcafe,
  sg_list = { { mr = ma, offset = 0, length = 11 } }, ud = { ah = ah1, remote_qpn = ub.qp_num, remote_qkey = 0x55667788 } }
print_wc("wc.ud_send", wc1(cq1, "ud send"))
-- this one through cq:poll itself (the others come through cq:wait)
local r
local t1 = verbs.now()
repeat r = cq2:poll(1)[1] until r or verbs.now() - t1 > 5
assert(r, "oracle: no completion for ud recv")
print_wc("wc.ud_recv_poll", r)
out("data.ud_payload", hex(mb:read(1024 + 40, 11)))
local grh = mb:read(1024, 40)
ah("ah_from_wc", ctx:init_ah_from_wc(1, r, grh))
local reply = pd:create_ah_from_wc(r, grh, 1)
ua:post_recv{ wr_id = 0xa00a, sg_list = { { mr = ma, offset = 1536, length = 40 + 64 } } }
ub:post_send{ wr_id = 0xb00b, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mb, offset = 0, length = 5 } },
  ud = { ah = reply, remote_qpn = r.src_qp, remote_qkey = 0x11223344 } }
print_wc("wc.ud_reply_send", wc1(cq1, "ud reply send"))
local wcs, n = verbs.wc_array(4), 0
local t0 = verbs.now()
repeat n = cq2:poll(wcs) until n > 0 or verbs.now() - t0 > 5
out("wc.ud_recv_array.count", n)
if n > 0 then print_wc("wc.ud_recv_array", wcs[1]) end
reply:destroy(); ah1:destroy()

-- ---- the extended API ---------------------------------------------------------------
local WCF = { "BYTE_LEN", "IMM", "QP_NUM", "SRC_QP", "SLID", "SL", "DLID_PATH_BITS" }
local ce1 = ctx:create_cq_ex{ cqe = 16, wc_flags = WCF }
local ce2 = ctx:create_cq_ex{ cqe = 20, wc_flags = WCF }
out("ce1.cqe", ce1.cqe); out("ce2.cqe", ce2.cqe)
objnames[ce1], objnames[ce2] = "ce1", "ce2"
local x = {}
for i = 1, 4 do
  x[i] = ctx:create_qp_ex{ pd = pd, qp_type = i <= 2 and "RC" or "UD", send_cq = ce1, recv_cq = ce2,
    send_ops_flags = i <= 2 and { "SEND_WITH_IMM", "RDMA_WRITE_WITH_IMM" } or { "SEND", "SEND_WITH_IMM" },
    cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }
end
name_qp("xa", x[1]); name_qp("xb", x[2]); name_qp("xua", x[3]); name_qp("xub", x[4])
rc_connect(x[1], "REMOTE_WRITE", "1024", x[2].qp_num, 0, 1, 12, 1, 0, 14, 7, 7, 1)
rc_connect(x[2], "REMOTE_WRITE", "1024", x[1].qp_num, 0, 1, 12, 1, 0, 14, 7, 7, 1)
ud_connect(x[3], 0x0a0b0c0d, 0)
ud_connect(x[4], 0x0a0b0c0d, 0)
print_qp("xa", x[1])
print_qp("xub", x[4])

-- One completion read through the accessors.
local function print_wcx(p, cq)
  do
    local t = verbs.now()
    while not cq:start_poll() do
      if verbs.now() - t > 5 then error("oracle: no completion for " .. p) end
    end
  end
  local flags = cq:read_wc_flags()
  local imm
  for _, f in ipairs(flags) do if f == "WITH_IMM" then imm = cq:read_imm_data() end end
  out(p .. ".wr_id", cq.wr_id); out(p .. ".status", cq.status); out(p .. ".opcode", cq:read_opcode())
  out(p .. ".vendor_err", cq:read_vendor_err()); out(p .. ".byte_len", cq:read_byte_len())
  out(p .. ".imm_data", imm)
  out(p .. ".qp_num", Q(cq:read_qp_num())); out(p .. ".src_qp", Q(cq:read_src_qp()))
  out(p .. ".wc_flags", flags); out(p .. ".slid", cq:read_slid()); out(p .. ".sl", cq:read_sl())
  out(p .. ".dlid_path_bits", cq:read_dlid_path_bits())
end
local function endx(cq) cq:end_poll() end
-- One completion through for wc in cq:iter(), under the C program's key names.
local function print_iter(p, cq)
  local t, got = verbs.now(), nil
  repeat
    for wc in cq:iter() do got = wc break end
  until got or verbs.now() - t > 5
  assert(got, "oracle: no completion for " .. p)
  fields(p, got, { "wr_id", "status", "opcode", "vendor_err", "byte_len", "imm_data" })
  out(p .. ".qp_num", Q(got.qp_num)); out(p .. ".src_qp", Q(got.src_qp))
  fields(p, got, { "wc_flags", "slid", "sl", "dlid_path_bits" })
end

local xa, xua = x[1], x[3]
x[2]:post_recv{ wr_id = 0xc00c, sg_list = { { mr = mb, offset = 4096, length = 64 } } }
ma:write(0, "ex-imm")
xa:wr_start(); xa.wr_id = 0xd00d; xa.wr_flags = "SIGNALED"
xa:wr_send_imm(0x13579bdf)
xa:wr_set_sge(ma, 0, 6)
xa:wr_complete()
print_wcx("wcx.send_imm", ce1); endx(ce1)
print_wcx("wcx.recv_imm", ce2); endx(ce2)
out("data.ex_send", hex(mb:read(4096, 6)))

x[2]:post_recv{ wr_id = 0xe00e, sg_list = { { mr = mb, offset = 4096, length = 64 } } }
xa:wr_start(); xa.wr_id = 0xf00f; xa.wr_flags = "SIGNALED"
xa:wr_rdma_write_imm(mb.rkey, mb.addr + 4200, 0x2468ace0)
xa:wr_set_sge(ma, 0, 4)
xa:wr_complete()
print_wcx("wcx.write_imm", ce1); endx(ce1)
print_iter("wcx.recv_write_imm_iter", ce2)
out("data.ex_write", hex(mb:read(4200, 4)))

local ah2 = pd:create_ah{ is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = GI, hop_limit = 2 } }
x[4]:post_recv{ wr_id = 0x1101, sg_list = { { mr = mb, offset = 5000, length = 40 + 64 } } }
x[4]:post_recv{ wr_id = 0x1102, sg_list = { { mr = mb, offset = 5200, length = 40 + 64 } } }
xua:wr_start(); xua.wr_id = 0x1111; xua.wr_flags = "SIGNALED"
xua:wr_send_imm(0x0ddba11)
xua:wr_set_ud_addr(ah2, x[4].qp_num, 0x0a0b0c0d)
xua:wr_set_sge(ma, 0, 3)
xua.wr_id = 0x1112; xua.wr_flags = "SIGNALED"
xua:wr_send()
xua:wr_set_ud_addr(ah2, x[4].qp_num, 0x0a0b0c0d)
xua:wr_set_sge(ma, 0, 2)
xua:wr_complete()
print_wcx("wcx.ud_send1", ce1); endx(ce1)
print_wcx("wcx.ud_send2", ce1); endx(ce1)
print_wcx("wcx.ud_recv_read", ce2); endx(ce2)
print_iter("wcx.ud_recv_iter", ce2)
ah2:destroy()
for i = 1, 4 do x[i]:destroy() end
ce1:destroy(); ce2:destroy()

-- ---- rdma_cm ----------------------------------------------------------------------------
local function addr(host, port) return (host:find(":") and "[" .. host .. "]" or host) .. ":" .. port end
local function event(ch, want, p)
  local ev = ch:get_cm_event(5000)
  if not ev or ev.event ~= want then
    error(("oracle: %s: got %s"):format(tostring(p), ev and tostring(ev) or "no event"))
  end
  if p then out(p .. ".event", ev.event); out(p .. ".status", ev.status) end
  return ev
end
local CONN = { "private_data", "private_data_len", "responder_resources", "initiator_depth", "flow_control",
  "retry_count", "rnr_retry_count", "srq" }
local function print_conn(p, c)
  for _, n in ipairs(CONN) do out(p .. "." .. n, n == "private_data" and hex(c[n]) or c[n]) end
  out(p .. ".qp_num", Q(c.qp_num))
end
local CAPS = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 }

-- The client binds port + 10: rdma_cm derives the GRH flow label from the
-- two ports, so an ephemeral port would differ between the two runs.
local function cm_rc(tag, host, port)
  local sch, cch = verbs.create_event_channel(), verbs.create_event_channel()
  local lid = sch:create_id("TCP")
  lid:bind_addr(addr(host, port))
  lid:listen(4)
  out(tag .. ".listen_addr", lid:get_local_addr()); out(tag .. ".listen_port", lid:get_src_port())
  local cid = cch:create_id("TCP")
  cid:resolve_addr(addr(host, port + 10), addr(host, port), 2000)
  event(cch, "ADDR_RESOLVED", tag .. ".addr_resolved"):ack()
  cid:resolve_route(2000)
  event(cch, "ROUTE_RESOLVED", tag .. ".route_resolved"):ack()
  out(tag .. ".client_peer_addr", cid:get_peer_addr()); out(tag .. ".client_dst_port", cid:get_dst_port())
  local cpd = cid.verbs:alloc_pd()
  local cq = cid.verbs:create_cq(8)
  local cqp = cid:create_qp(cpd, { qp_type = "RC", send_cq = cq, recv_cq = cq, cap = CAPS })
  name_qp(tag .. "_c", cqp)
  cid:connect{ private_data = tag .. " hello", responder_resources = 1, initiator_depth = 1, retry_count = 5,
    rnr_retry_count = 6 }
  local req = event(sch, "CONNECT_REQUEST", tag .. ".connect_request")
  print_conn(tag .. ".connect_request.param.conn", req.param.conn)
  local sid = req.id
  out(tag .. ".server_local_addr", sid:get_local_addr()); out(tag .. ".server_src_port", sid:get_src_port())
  local sqp = sid:create_qp(cpd, { qp_type = "RC", send_cq = cq, recv_cq = cq, cap = CAPS })
  name_qp(tag .. "_s", sqp)
  sid:accept{ private_data = tag .. " welcome", responder_resources = 1, initiator_depth = 1, rnr_retry_count = 3 }
  req:ack()
  local ev = event(cch, "ESTABLISHED", tag .. ".client_established")
  print_conn(tag .. ".client_established.param.conn", ev.param.conn)
  ev:ack()
  event(sch, "ESTABLISHED", tag .. ".server_established"):ack()
  out(tag .. ".client_local_addr", cid:get_local_addr()); out(tag .. ".client_src_port", cid:get_src_port())
  out(tag .. ".server_peer_addr_is_client", sid:get_peer_addr() == cid:get_local_addr() and "yes" or "no")
  out(tag .. ".client_qp_state", cqp.state)
  cid:disconnect()
  event(sch, "DISCONNECTED", tag .. ".server_disconnected"):ack()
  sid:disconnect()
  event(cch, "DISCONNECTED", tag .. ".client_disconnected"):ack()
  cid:destroy_qp(); sid:destroy_qp()
  cid:destroy(); sid:destroy(); lid:destroy()
  cq:destroy(); cpd:dealloc()
end

local function cm_ud(host, port)
  local sch, cch = verbs.create_event_channel(), verbs.create_event_channel()
  local lid = sch:create_id("UDP")
  lid:bind_addr(addr(host, port))
  lid:listen(4)
  local cid = cch:create_id("UDP")
  cid:resolve_addr(addr(host, port + 10), addr(host, port), 2000)
  event(cch, "ADDR_RESOLVED"):ack()
  cid:resolve_route(2000)
  event(cch, "ROUTE_RESOLVED"):ack()
  local cpd = cid.verbs:alloc_pd()
  local cq = cid.verbs:create_cq(8)
  local cqp = cid:create_qp(cpd, { qp_type = "UD", send_cq = cq, recv_cq = cq, cap = CAPS })
  name_qp("cmud_c", cqp)
  out("cmud.client_qp_state", cqp.state)
  cid:connect{ private_data = "ud hello" }
  local req = event(sch, "CONNECT_REQUEST", "cmud.connect_request")
  local u = req.param.ud
  out("cmud.connect_request.param.ud.private_data", hex(u.private_data))
  out("cmud.connect_request.param.ud.private_data_len", u.private_data_len)
  local sid = req.id
  local sqp = sid:create_qp(cpd, { qp_type = "UD", send_cq = cq, recv_cq = cq, cap = CAPS })
  name_qp("cmud_s", sqp)
  sid:accept{ private_data = "ud welcome", qp_num = sqp.qp_num }
  req:ack()
  local ev = event(cch, "ESTABLISHED", "cmud.established")
  u = ev.param.ud
  out("cmud.established.param.ud.qp_num", Q(u.qp_num))
  out("cmud.established.param.ud.qkey", u.qkey)
  out("cmud.established.param.ud.private_data", hex(u.private_data))
  out("cmud.established.param.ud.private_data_len", u.private_data_len)
  ah("cmud.established.param.ud.ah_attr", u.ah_attr)
  ev:ack()
  cid:destroy_qp(); sid:destroy_qp()
  cid:destroy(); sid:destroy(); lid:destroy()
  cq:destroy(); cpd:dealloc()
end

cm_rc("cm4", V4, PORT)
cm_rc("cm6", V6, PORT + 1)
cm_ud(V4, PORT + 2)
