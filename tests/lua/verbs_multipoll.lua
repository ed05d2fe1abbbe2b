-- More completions than one poll returns: verbsh polls the CQ in batches of
-- 32, so 40 completions take two polls in cq:wait(n) (as a list and into a
-- wc_array) and in cq:poll(max) with max above the batch; cq:poll(wc_array)
-- and cq:iter() on an extended CQ take all 40 too. Every completion is kept,
-- once, in the order it was posted.
local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/verbs_lib.lua")
local check, eq, raises = T.check, T.eq, T.raises

local N = 40   -- more than one batch of 32
local ctx = verbs.open(os.getenv("RXE_DEV"))
local gid = ctx:query_gid(1, T.gid_index)
local pd = ctx:alloc_pd()
local mr = pd:reg_mr(65536, { "LOCAL_WRITE", "REMOTE_WRITE" })

-- Two RC QPs of this process connected to each other; a sends on cq. Both
-- are returned: the caller keeps the peer alive (collected, it would be
-- destroyed, and the WRITEs sent to it would never complete).
local function rc_pair(cq)
  local peer_cq = ctx:create_cq(4)
  local function qp(c)
    return pd:create_qp{ qp_type = "RC", send_cq = c, recv_cq = c,
      cap = { max_send_wr = 64, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
  end
  local a, b = qp(cq), qp(peer_cq)
  for _, p in ipairs{ { a, b }, { b, a } } do
    p[1]:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = "REMOTE_WRITE" }
    p[1]:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = p[2].qp_num, rq_psn = 0,
                 max_dest_rd_atomic = 1, min_rnr_timer = 12,
                 ah_attr = { is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = T.gid_index, hop_limit = 1 } } }
    p[1]:modify{ qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1 }
  end
  return a, b
end

-- N signaled RDMA WRITEs in one post, wr_id first .. first + N - 1.
local function post_writes(qp, first)
  local wrs = {}
  for i = 1, N do
    wrs[i] = { wr_id = first + i - 1, opcode = "RDMA_WRITE", send_flags = "SIGNALED",
               sg_list = { { mr = mr, offset = 0, length = 8 } },
               rdma = { remote_addr = mr.addr + 4096 + 8 * i, rkey = mr.rkey } }
  end
  qp:post_send(wrs)
end

-- For the polls that take what is there: let all N completions arrive
-- (loopback rxe needs well under a millisecond for them).
local function settle()
  local t0 = verbs.now()
  while verbs.now() - t0 < 0.3 do end
end

-- wcs[1..count] are SUCCESS RDMA_WRITE completions with wr_ids first, first+1, ...
local function in_order(wcs, count, first, what)
  for i = 1, count do
    local wc = wcs[i]
    if wc.wr_id ~= first + i - 1 or wc.status ~= "SUCCESS" or wc.opcode ~= "RDMA_WRITE" then
      error(("FAILED: %s: entry %d is %s, want wr_id=%d RDMA_WRITE SUCCESS"):format(what, i, tostring(wc),
        first + i - 1))
    end
  end
  T.checks = T.checks + 1
end

local cq = ctx:create_cq(128)
local a, a_peer = rc_pair(cq)

post_writes(a, 1)
local wcs = cq:wait(N, 5000)
eq(#wcs, N, "cq:wait(40) returns 40 WCs")
in_order(wcs, N, 1, "cq:wait(40)")

post_writes(a, 101)
settle()
wcs = cq:poll(100)
eq(#wcs, N, "cq:poll(100) with 40 waiting returns 40")
in_order(wcs, N, 101, "cq:poll(100)")
eq(#cq:poll(100), 0, "nothing left after cq:poll(100)")

post_writes(a, 201)
settle()
wcs = cq:poll(33)
eq(#wcs, 33, "cq:poll(33) with 40 waiting returns 33")
in_order(wcs, 33, 201, "cq:poll(33)")
wcs = cq:poll()
eq(#wcs, 7, "cq:poll() returns the other 7")
in_order(wcs, 7, 234, "cq:poll() after cq:poll(33)")

local wca = verbs.wc_array(64)
post_writes(a, 301)
eq(cq:wait(wca, N, 5000), N, "cq:wait(wc_array, 40) returns 40")
in_order(wca, N, 301, "cq:wait(wc_array, 40)")
local e = raises("wca[41] after a wait for 40", function() return wca[N + 1].wr_id end)
check(tostring(e):find("the last poll filled 40 entries", 1, true), "unfilled entry: %s", tostring(e))

post_writes(a, 401)
settle()
eq(cq:poll(wca), N, "cq:poll(wc_array of 64) with 40 waiting returns 40")
in_order(wca, N, 401, "cq:poll(wc_array)")
eq(cq:poll(wca), 0, "nothing left after cq:poll(wc_array)")

-- The same through an extended CQ's iterator.
local cqx = ctx:create_cq_ex{ cqe = 128 }
local x, x_peer = rc_pair(cqx)
post_writes(x, 501)
settle()
local got = {}
for wc in cqx:iter() do got[#got + 1] = wc end
eq(#got, N, "cq:iter() yields all 40")
in_order(got, N, 501, "cq:iter()")
eq(cqx:start_poll(), false, "the extended CQ is empty after the iterator")

check(a_peer.state == "RTS" and x_peer.state == "RTS", "peers still connected")
print(("multi-poll: wait %d, poll(100) %d, wc_array %d, iter %d"):format(N, N, N, #got))
T.done("verbs_multipoll")
