-- The wire view's scenarios, between rxe0 and rxe1 of scripts/rxe-vm --two:
-- an RC QP on each device, connected over the veth pair (path MTU 1024),
-- and a UD QP on each. Each scenario runs under its own capture on rxe0's
-- netdev and prints the capture (print(cap): the ladder with each frame's
-- WR). All frames go to the pcap file given as arg[1], for the tshark oracle.
--   verbsh tests/wire/scenarios.lua OUT.pcap [SCENARIO...]
local out, only = arg[1], {}
for i = 2, #arg do only[arg[i]] = true end
assert(out, "usage: scenarios.lua OUT.pcap [send|write_imm|read|atomic|cmp_swap|rnr|ud|coalesce|lost_ack]...")

local function side(dev, gid_index)
  local s = { ctx = verbs.open(dev), gid_index = gid_index }
  s.pd = s.ctx:alloc_pd()
  s.mr = s.pd:reg_mr(16384, { "LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC" })
  s.cq = s.ctx:create_cq(64)
  s.qp = s.pd:create_qp{ qp_type = "RC", send_cq = s.cq, recv_cq = s.cq,
    cap = { max_send_wr = 16, max_recv_wr = 16, max_send_sge = 1, max_recv_sge = 1 } }
  s.gid = s.ctx:query_gid(1, gid_index)
  return s
end
local a = side("rxe0", tonumber(os.getenv("RXE_GID_INDEX")))
local b = side("rxe1", tonumber(os.getenv("RXE1_GID_INDEX")))

local function connect(s, peer, psn, peer_psn)
  s.qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1,
    qp_access_flags = { "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC" } }
  s.qp:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = peer.qp.qp_num, rq_psn = peer_psn,
    max_dest_rd_atomic = 1, min_rnr_timer = 1,
    ah_attr = { is_global = 1, port_num = 1,
                grh = { dgid = peer.gid, sgid_index = s.gid_index, hop_limit = 1 } } }
  s.qp:modify{ qp_state = "RTS", timeout = 17, retry_cnt = 7, rnr_retry = 7, sq_psn = psn,
    max_rd_atomic = 1 }
end
connect(a, b, 100, 900)
connect(b, a, 900, 100)

local function recv(s, wr_id, len)
  s.qp:post_recv{ wr_id = wr_id, sg_list = { { mr = s.mr, offset = 8192, length = len } } }
end
local function wait(s, n, what)
  local wcs = s.cq:wait(n, 3000)
  assert(#wcs == n, what .. ": " .. #wcs .. " of " .. n .. " completions")
  for _, wc in ipairs(wcs) do assert(wc.status == "SUCCESS", what .. ": " .. wc.status) end
  return wcs
end

local saved = {}
local wire = require "verbs.wire"
local function scenario(name, fn)
  if next(only) and not only[name] then return end
  local cap = verbs.capture{ device = "rxe0" }
  fn(cap)
  os.execute("sleep 0.05")   -- the last ACK may trail the completion
  cap:stop()
  print("== " .. name)
  print(cap)
  for _, p in ipairs(cap:packets()) do saved[#saved + 1] = p end
end

scenario("send", function()
  recv(b, 1, 8192)
  a.qp:post_send{ wr_id = 7, opcode = "SEND", send_flags = "SIGNALED",
    sg_list = { { mr = a.mr, offset = 0, length = 5000 } } }
  wait(a, 1, "send"); wait(b, 1, "send recv")
end)

scenario("write_imm", function()
  recv(b, 2, 0)
  a.qp:post_send{ wr_id = 8, opcode = "RDMA_WRITE", send_flags = "SIGNALED",
    sg_list = { { mr = a.mr, offset = 0, length = 1500 } },
    rdma = { remote_addr = b.mr.addr, rkey = b.mr.rkey } }
  a.qp:post_send{ wr_id = 9, opcode = "RDMA_WRITE_WITH_IMM", send_flags = "SIGNALED", imm_data = 0x12345678,
    sg_list = { { mr = a.mr, offset = 0, length = 100 } },
    rdma = { remote_addr = b.mr.addr, rkey = b.mr.rkey } }
  wait(a, 2, "write"); wait(b, 1, "write imm recv")
end)

scenario("read", function()
  a.qp:post_send{ wr_id = 10, opcode = "RDMA_READ", send_flags = "SIGNALED",
    sg_list = { { mr = a.mr, offset = 0, length = 3000 } },
    rdma = { remote_addr = b.mr.addr, rkey = b.mr.rkey } }
  wait(a, 1, "read")
end)

scenario("atomic", function()
  a.qp:post_send{ wr_id = 11, opcode = "ATOMIC_FETCH_AND_ADD", send_flags = "SIGNALED",
    sg_list = { { mr = a.mr, offset = 0, length = 8 } },
    atomic = { remote_addr = b.mr.addr + 4096, rkey = b.mr.rkey, compare_add = 5 } }
  wait(a, 1, "atomic")
end)

-- No receive posted: the responder answers RNR NAK, the requester waits
-- the timer and sends again; a receive posted meanwhile lets it through.
scenario("rnr", function(cap)
  a.qp:post_send{ wr_id = 12, opcode = "SEND", send_flags = "SIGNALED",
    sg_list = { { mr = a.mr, offset = 0, length = 64 } } }
  -- post the receive once the first RNR NAK has crossed
  for _ = 1, 300 do
    local naks = 0
    for _, p in ipairs(cap:packets()) do
      local d = wire.decode(p.bytes)
      if d and d.aeth and d.aeth.kind == "RNR NAK" then naks = naks + 1 end
    end
    if naks > 0 then break end
    os.execute("sleep 0.01")
  end
  recv(b, 3, 64)
  wait(a, 1, "rnr"); wait(b, 1, "rnr recv")
end)

scenario("ud", function()
  local function ud(s)
    local qp = s.pd:create_qp{ qp_type = "UD", send_cq = s.cq, recv_cq = s.cq,
      cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }
    qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = 0x11111111 }
    qp:modify{ qp_state = "RTR" }
    qp:modify{ qp_state = "RTS", sq_psn = 0 }
    return qp
  end
  local qa, qb = ud(a), ud(b)
  qb:post_recv{ wr_id = 4, sg_list = { { mr = b.mr, offset = 8192, length = 1064 } } }
  local ah = a.pd:create_ah{ is_global = 1, port_num = 1,
    grh = { dgid = b.gid, sgid_index = a.gid_index, hop_limit = 1 } }
  qa:post_send{ wr_id = 13, opcode = "SEND", send_flags = "SIGNALED",
    sg_list = { { mr = a.mr, offset = 0, length = 1000 } },
    ud = { ah = ah, remote_qpn = qb.qp_num, remote_qkey = 0x11111111 } }
  wait(a, 1, "ud"); wait(b, 1, "ud recv")
end)

scenario("coalesce", function()
  for i = 1, 8 do recv(b, 20 + i, 100) end
  local l = {}
  for i = 1, 8 do l[i] = { wr_id = 20 + i, opcode = "SEND", send_flags = i == 8 and "SIGNALED" or 0,
    sg_list = { { mr = a.mr, offset = 0, length = 100 } } } end
  a.qp:post_send(l)
  wait(a, 1, "coalesce"); wait(b, 8, "coalesce recv")
end)

scenario("lost_ack", function()
  os.execute("tc qdisc add dev veth1 root netem loss 100%")
  recv(b, 30, 100)
  a.qp:post_send{ wr_id = 31, opcode = "SEND", send_flags = "SIGNALED",
    sg_list = { { mr = a.mr, offset = 0, length = 100 } } }
  os.execute("sleep 0.1")
  os.execute("tc qdisc del dev veth1 root")
  wait(a, 1, "lost ack"); wait(b, 1, "lost ack recv")
end)

-- The 8 bytes FETCH_ADD left at b.mr + 4096 swapped for a value whose
-- bytes all differ: AtomicETH's compare and swap and AtomicAckETH's
-- original value, each distinct. Last, so that the other scenarios keep
-- the PSNs that tests/vm/wire.bats reads in their ladders.
scenario("cmp_swap", function()
  local was = string.unpack("=I8", b.mr:read(4096, 8))
  a.qp:post_send{ wr_id = 15, opcode = "ATOMIC_CMP_AND_SWP", send_flags = "SIGNALED",
    sg_list = { { mr = a.mr, offset = 8, length = 8 } },
    atomic = { remote_addr = b.mr.addr + 4096, rkey = b.mr.rkey, compare_add = was, swap = 0x123456789abcdef0 } }
  wait(a, 1, "cmp_swap")
  assert(string.unpack("=I8", b.mr:read(4096, 8)) == 0x123456789abcdef0, "cmp_swap did not swap")
end)

-- one pcap of every scenario's frames, for tshark
local f = assert(io.open(out, "wb"))
f:write(string.pack("<I4I2I2i4I4I4I4", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
for _, p in ipairs(saved) do
  local sec = math.floor(p.time)
  f:write(string.pack("<I4I4I4I4", sec, math.floor((p.time - sec) * 1e6), #p.bytes, p.length), p.bytes)
end
f:close()
