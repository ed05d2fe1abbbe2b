-- The live row of bench/wire: a capture on rxe0's netdev during a stream of
-- RDMA WRITEs from rxe0 to rxe1 (scripts/rxe-vm --two), counting the frames
-- it kept and the ones the kernel dropped (libpcap's ps_drop).
--   verbsh bench/wire_live.lua [MIB [MSG_KIB]]     (default 1024 MiB in 1 MiB WRITEs)
local mib, msg_kib = tonumber(arg[1]) or 1024, tonumber(arg[2]) or 1024
local msg = msg_kib * 1024
local wrs = mib * 1024 // msg_kib
local depth = 16

local function side(dev, gid_index)
  local s = { ctx = verbs.open(dev), gid_index = gid_index }
  s.pd = s.ctx:alloc_pd()
  s.mr = s.pd:reg_mr(msg, { "LOCAL_WRITE", "REMOTE_WRITE" })
  s.cq = s.ctx:create_cq(depth * 2)
  s.qp = s.pd:create_qp{ qp_type = "RC", send_cq = s.cq, recv_cq = s.cq,
    cap = { max_send_wr = depth, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
  s.gid = s.ctx:query_gid(1, gid_index)
  return s
end
local a = side("rxe0", tonumber(os.getenv("RXE_GID_INDEX")))
local b = side("rxe1", tonumber(os.getenv("RXE1_GID_INDEX")))
for _, pair in ipairs{ { a, b }, { b, a } } do
  local s, peer = pair[1], pair[2]
  s.qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = "REMOTE_WRITE" }
  s.qp:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = peer.qp.qp_num, rq_psn = 0,
    max_dest_rd_atomic = 1, min_rnr_timer = 1,
    ah_attr = { is_global = 1, port_num = 1, grh = { dgid = peer.gid, sgid_index = s.gid_index, hop_limit = 1 } } }
  s.qp:modify{ qp_state = "RTS", timeout = 17, retry_cnt = 7, rnr_retry = 7, sq_psn = 0, max_rd_atomic = 1 }
end

-- the headers only: a million frames of 128 bytes fit the guest's memory
local cap = verbs.capture{ device = "rxe0", snaplen = 128 }
-- seconds since boot: the guest's wall clock may be set while this runs
local function clock()
  local f = assert(io.open("/proc/uptime"))
  local t = f:read("n")
  f:close()
  return t
end
local t0, posted, done = clock(), 0, 0
while done < wrs do
  while posted < wrs and posted - done < depth do
    posted = posted + 1
    a.qp:post_send{ wr_id = posted, opcode = "RDMA_WRITE", send_flags = "SIGNALED",
      sg_list = { { mr = a.mr, offset = 0, length = msg } },
      rdma = { remote_addr = b.mr.addr, rkey = b.mr.rkey } }
  end
  for _, wc in ipairs(a.cq:wait(1, 10000)) do
    assert(wc.status == "SUCCESS", "WRITE wr_id " .. tostring(wc.wr_id) .. ": " .. wc.status)
    done = done + 1
  end
end
local secs = clock() - t0
local kept, why = cap:stop()
local info = cap:info()
local data = wrs * ((msg + 1023) // 1024)
print(("live: %d MiB in %d WRITEs of %d KiB, rxe0 -> rxe1, %.1f s (%.1f MiB/s)"):format(mib, wrs, msg_kib, secs, mib / secs))
print(("live: frames kept %d (%d WRITE frames sent, the rest ACKs), dropped by the kernel %d (%.3f%%), %.0f frames/s")
  :format(kept, data, info.drops, 100 * info.drops / math.max(1, kept + info.drops), (kept + info.drops) / secs))
if why then print("live: " .. why) end
