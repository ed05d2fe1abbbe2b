-- An RC session between two QPs on one device, in one process: every
-- transition by hand, then SEND, SEND_WITH_IMM, RDMA WRITE (with and without
-- immediate), RDMA READ, compare-and-swap and fetch-and-add, each completion
-- and the data checked by value.
local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/verbs_lib.lua")
local check, eq = T.check, T.eq

local ctx = verbs.open(os.getenv("RXE_DEV"))
local port = ctx:query_port(1)
eq(port.state, "ACTIVE", "port state")
eq(port.link_layer, "ETHERNET", "link_layer")
check(port.active_mtu == "1024" or port.active_mtu == "4096" or port.active_mtu == "2048",
  "active_mtu %s", tostring(port.active_mtu))
local gid = ctx:query_gid(1, T.gid_index)
check(gid:match("^::ffff:%d+%.%d+%.%d+%.%d+$"), "RoCE v2 IPv4 GID at index %d: %s", T.gid_index, gid)

local pd = ctx:alloc_pd()
local cq_a, cq_b = ctx:create_cq(16), ctx:create_cq(16)
local ALL = { "LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC" }
local mr_a = pd:reg_mr(4096, ALL)
local mr_b = pd:reg_mr(4096, ALL)
eq(mr_a.length, 4096, "mr length")
check(mr_a.addr % 4096 == 0, "mr addr page-aligned: 0x%x", mr_a.addr)

local function rc_qp(cq)
  return pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,
    cap = { max_send_wr = 8, max_recv_wr = 8, max_send_sge = 2, max_recv_sge = 2 } }
end
local a, b = rc_qp(cq_a), rc_qp(cq_b)
eq(a.state, "RESET", "new QP state")
eq(a.qp_type, "RC", "qp_type")
check(tostring(a) == ("qp RC 0x%06x RESET"):format(a.qp_num), "tostring: %s", tostring(a))

for _, p in ipairs{ { a, b }, { b, a } } do
  local qp, peer = p[1], p[2]
  qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1,
             qp_access_flags = { "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC" } }
  eq(qp.state, "INIT", "after INIT")
  qp:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = peer.qp_num, rq_psn = 0,
             max_dest_rd_atomic = 1, min_rnr_timer = 12,
             ah_attr = { is_global = 1, port_num = 1, sl = 0,
                         grh = { dgid = gid, sgid_index = T.gid_index, hop_limit = 1 } } }
  eq(qp.state, "RTR", "after RTR")
  qp:modify{ qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1 }
  eq(qp.state, "RTS", "after RTS")
end
local attr, init = a:query()
eq(attr.qp_state, "RTS", "query qp_state")
eq(attr.dest_qp_num, b.qp_num, "query dest_qp_num")
eq(attr.path_mtu, "1024", "query path_mtu")
eq(attr.ah_attr.grh.dgid, gid, "query ah_attr.grh.dgid")
eq(attr.ah_attr.is_global, 1, "query ah_attr.is_global")
eq(attr.timeout, 14, "query timeout")
check(type(attr.qp_access_flags) == "table" and #attr.qp_access_flags == 3, "qp_access_flags list")
eq(init.qp_type, "RC", "init_attr.qp_type")
eq(init.send_cq, cq_a, "init_attr.send_cq")
check(init.cap.max_send_wr >= 8, "cap.max_send_wr %d", init.cap.max_send_wr)
print("connected: " .. tostring(a) .. " <-> " .. tostring(b))

-- SEND / RECV
mr_a:write(0, "hello")
b:post_recv{ wr_id = 100, sg_list = { { mr = mr_b, offset = 0, length = 64 } } }
a:post_send{ wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr_a, offset = 0, length = 5 } } }
local s, r = T.wc(cq_a, "SEND"), T.wc(cq_b, "RECV")
eq(s.status, "SUCCESS", "send status"); eq(s.opcode, "SEND", "send opcode"); eq(s.wr_id, 1, "send wr_id")
eq(s.qp_num, a.qp_num, "send qp_num")
eq(r.status, "SUCCESS", "recv status"); eq(r.opcode, "RECV", "recv opcode"); eq(r.wr_id, 100, "recv wr_id")
eq(r.byte_len, 5, "recv byte_len"); eq(r.imm_data, nil, "no imm_data")  -- src_qp is for UD only
eq(mr_b:read(0, 5), "hello", "received payload")
check(getmetatable(r) and tostring(r):find("SUCCESS"), "WC tostring: %s", tostring(r))
print("SEND: " .. tostring(s)); print("RECV: " .. tostring(r))

-- A completion is a copy of struct ibv_wc: its fields in struct order, no others
eq(type(r), "userdata", "a WC is a userdata"); eq(getmetatable(r).__name, "ibv_wc", "its __name")
local keys = {}
for k, v in pairs(r) do
  keys[#keys + 1] = k .. "=" .. (type(v) == "table" and "{" .. table.concat(v, ",") .. "}" or tostring(v))
end
eq(table.concat(keys, " "), ("wr_id=100 status=SUCCESS vendor_err=0 qp_num=%d opcode=RECV byte_len=5 src_qp=%d"
  .. " wc_flags={%s} pkey_index=0 slid=0 sl=0 dlid_path_bits=0"):format(b.qp_num, r.src_qp, table.concat(r.wc_flags, ",")),
  "pairs(wc): the fields C defines, in struct order (imm_data absent without WITH_IMM)")
local ok, e = pcall(function() return r.stauts end)
check(not ok and tostring(e):find("struct ibv_wc has no field 'stauts' (did you mean 'status'?)", 1, true),
  "a misspelled field is an error: %s", tostring(e))
ok, e = pcall(function() return r[1] end)
check(not ok and tostring(e):find("struct ibv_wc has no field '1'", 1, true), "wc[1] is an error: %s", tostring(e))
ok, e = pcall(function() r.status = "RETRY_EXC_ERR" end)
check(not ok and tostring(e):find("wc.status: a WC holds what the CQ reported and is not assigned", 1, true),
  "assigning a field is an error: %s", tostring(e))
eq(r.status, "SUCCESS", "the failed assignment left the WC as it was")
ok, e = pcall(function() r.note = 1 end)
check(not ok and tostring(e):find("no field 'note'", 1, true), "a new key is an error: %s", tostring(e))
ok, e = pcall(getmetatable(r).__index, {}, "status")
check(not ok and tostring(e):find("ibv_wc expected, got table", 1, true), "__index on a table: %s", tostring(e))
eq(verbs.explain(r), tostring(r), "explain(wc) is its line")

-- SEND_WITH_IMM, and a list of two receives posted in one call
b:post_recv{ { wr_id = 101, sg_list = { { mr = mr_b, offset = 64, length = 64 } } },
             { wr_id = 102, sg_list = { { mr = mr_b, offset = 128, length = 64 } } } }
mr_a:write(8, "imm!")
a:post_send{ wr_id = 2, opcode = "SEND_WITH_IMM", send_flags = { "SIGNALED" }, imm_data = 0x1234,
             sg_list = { { mr = mr_a, offset = 8, length = 4 } } }
s, r = T.wc(cq_a, "SEND_WITH_IMM"), T.wc(cq_b, "RECV imm")
eq(s.status, "SUCCESS", "send imm status"); eq(r.wr_id, 101, "first posted receive consumed first")
eq(r.imm_data, 0x1234, "imm_data in host order"); eq(r.byte_len, 4, "byte_len imm")
check(#r.wc_flags >= 1 and r.wc_flags[#r.wc_flags] == "WITH_IMM", "wc_flags %s", table.concat(r.wc_flags, ","))
eq(mr_b:read(64, 4), "imm!", "imm payload")

-- RDMA WRITE without immediate: no receive consumed, data lands
mr_a:write(256, "written by RDMA")
a:post_send{ wr_id = 3, opcode = "RDMA_WRITE", send_flags = "SIGNALED",
             sg_list = { { mr = mr_a, offset = 256, length = 15 } },
             rdma = { remote_addr = mr_b.addr + 512, rkey = mr_b.rkey } }
s = T.wc(cq_a, "RDMA_WRITE")
eq(s.status, "SUCCESS", "write status"); eq(s.opcode, "RDMA_WRITE", "write opcode")
eq(mr_b:read(512, 15), "written by RDMA", "RDMA WRITE data")
eq(#cq_b:poll(), 0, "RDMA WRITE consumes no receive")

-- RDMA WRITE with immediate: consumes receive 102, RECV_RDMA_WITH_IMM
a:post_send{ wr_id = 4, opcode = "RDMA_WRITE_WITH_IMM", send_flags = "SIGNALED", imm_data = 0xdeadbeef,
             sg_list = { { mr = mr_a, offset = 256, length = 7 } },
             rdma = { remote_addr = mr_b.addr + 1024, rkey = mr_b.rkey } }
s, r = T.wc(cq_a, "RDMA_WRITE_WITH_IMM"), T.wc(cq_b, "RECV_RDMA_WITH_IMM")
eq(s.status, "SUCCESS", "write imm status"); eq(r.opcode, "RECV_RDMA_WITH_IMM", "write imm recv opcode")
eq(r.wr_id, 102, "write imm consumed wr 102"); eq(r.imm_data, 0xdeadbeef, "write imm_data")
eq(r.byte_len, 7, "write imm byte_len")
eq(mr_b:read(1024, 7), "written", "write imm data")

-- RDMA READ
mr_b:write(2048, "read me back")
a:post_send{ wr_id = 5, opcode = "RDMA_READ", send_flags = "SIGNALED",
             sg_list = { { mr = mr_a, offset = 2048, length = 12 } },
             rdma = { remote_addr = mr_b.addr + 2048, rkey = mr_b.rkey } }
s = T.wc(cq_a, "RDMA_READ")
eq(s.status, "SUCCESS", "read status"); eq(s.opcode, "RDMA_READ", "read opcode"); eq(s.byte_len, 12, "read byte_len")
eq(mr_a:read(2048, 12), "read me back", "RDMA READ data")

-- Atomics on an 8-byte word of mr_b (host byte order)
mr_b:write(3072, string.pack("=I8", 41))
a:post_send{ wr_id = 6, opcode = "ATOMIC_FETCH_AND_ADD", send_flags = "SIGNALED",
             sg_list = { { mr = mr_a, offset = 3072, length = 8 } },
             atomic = { remote_addr = mr_b.addr + 3072, rkey = mr_b.rkey, compare_add = 1 } }
s = T.wc(cq_a, "FETCH_ADD")
eq(s.status, "SUCCESS", "faa status"); eq(s.opcode, "FETCH_ADD", "faa opcode")
eq(string.unpack("=I8", mr_a:read(3072, 8)), 41, "FAA returned the old value")
eq(string.unpack("=I8", mr_b:read(3072, 8)), 42, "FAA added")
a:post_send{ wr_id = 7, opcode = "ATOMIC_CMP_AND_SWP", send_flags = "SIGNALED",
             sg_list = { { mr = mr_a, offset = 3080, length = 8 } },
             atomic = { remote_addr = mr_b.addr + 3072, rkey = mr_b.rkey, compare_add = 42, swap = 7 } }
s = T.wc(cq_a, "CMP_AND_SWP")
eq(s.status, "SUCCESS", "cas status"); eq(s.opcode, "COMP_SWAP", "cas opcode")
eq(string.unpack("=I8", mr_a:read(3080, 8)), 42, "CAS returned the old value")
eq(string.unpack("=I8", mr_b:read(3072, 8)), 7, "CAS swapped")
a:post_send{ wr_id = 8, opcode = "ATOMIC_CMP_AND_SWP", send_flags = "SIGNALED",
             sg_list = { { mr = mr_a, offset = 3088, length = 8 } },
             atomic = { remote_addr = mr_b.addr + 3072, rkey = mr_b.rkey, compare_add = 1000, swap = 99 } }
s = T.wc(cq_a, "CMP_AND_SWP miss")
eq(string.unpack("=I8", mr_a:read(3088, 8)), 7, "failed CAS returns the current value")
eq(string.unpack("=I8", mr_b:read(3072, 8)), 7, "failed CAS leaves the word")

-- Two WRs in one post_send call (a chained list), the first unsignaled
b:post_recv{ wr_id = 103, sg_list = { { mr = mr_b, offset = 0, length = 64 } } }
a:post_send{ { wr_id = 9, opcode = "RDMA_WRITE", sg_list = { { mr = mr_a, offset = 0, length = 5 } },
               rdma = { remote_addr = mr_b.addr + 3500, rkey = mr_b.rkey } },
             { wr_id = 10, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr_a, offset = 0, length = 5 } } } }
s, r = T.wc(cq_a, "chained"), T.wc(cq_b, "chained recv")
eq(s.wr_id, 10, "only the signaled WR completes")
eq(#cq_a:poll(), 0, "no WC for the unsignaled WR")
eq(mr_b:read(3500, 5), "hello", "unsignaled WRITE data")

-- Teardown, children first
for _, o in ipairs{ a, b } do o:destroy() end
mr_a:dereg(); mr_b:dereg(); cq_a:destroy(); cq_b:destroy(); pd:dealloc(); ctx:close()
eq(tostring(a), "qp (destroyed)", "tostring after destroy")
T.done("verbs_rc")
