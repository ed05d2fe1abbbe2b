-- The benchmark's verbsh rows: the RC SEND/RECV loop of rc_loop.c.
--   verbsh bench/rc_loop.lua [--prepared] [ITERS [SIZE]]
-- Plain: written the way the lessons teach it, a table per WR, and the list
-- of completions (WCs) that each cq:wait returns.
-- --prepared: the C program's own pattern, WRs built once (verbs.send_wr,
-- verbs.recv_wr) and completions polled into an array (verbs.wc_array).
local prepared = arg[1] == "--prepared"
if prepared then table.remove(arg, 1) end
local iters = tonumber(arg[1]) or 20000
local size = tonumber(arg[2]) or 64
local gid_index = tonumber(os.getenv("RXE_GID_INDEX")) or 1

local ctx = verbs.open()
local pd = ctx:alloc_pd()
local mr = pd:reg_mr(4096, "LOCAL_WRITE")
local gid = ctx:query_gid(1, gid_index)

local function rc_qp()
  local cq = ctx:create_cq(16)
  local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,
    cap = { max_send_wr = 16, max_recv_wr = 16, max_send_sge = 1, max_recv_sge = 1 } }
  return qp, cq
end
local qa, cqa = rc_qp()
local qb, cqb = rc_qp()

local function connect(qp, remote)
  qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1,
             qp_access_flags = { "REMOTE_WRITE", "REMOTE_READ" } }
  qp:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = remote.qp_num,
             rq_psn = 0, max_dest_rd_atomic = 1, min_rnr_timer = 1,
             ah_attr = { is_global = 1, port_num = 1,
                         grh = { dgid = gid, sgid_index = gid_index, hop_limit = 1 } } }
  qp:modify{ qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7,
             rnr_retry = 7, max_rd_atomic = 1 }
end
connect(qa, qb)
connect(qb, qa)

local send = { wr_id = 1, opcode = "SEND", send_flags = "SIGNALED",
               sg_list = { { mr = mr, offset = 0, length = size } } }
local recv = { wr_id = 2, sg_list = { { mr = mr, offset = 2048, length = size } } }

-- Wall time: os.clock() is this process's CPU time and would miss the work
-- that rxe does elsewhere.
local function now()
  local f = assert(io.open("/proc/uptime"))
  local t = f:read("n"); f:close(); return t
end
local clock = verbs.now or now

local function plain_loop()
  for _ = 1, iters do
    qb:post_recv(recv)
    qa:post_send(send)
    local s = cqa:wait(1)[1]
    local r = cqb:wait(1)[1]
    if s.status ~= "SUCCESS" or r.status ~= "SUCCESS" then
      error("completion failed: " .. tostring(s) .. " / " .. tostring(r))
    end
  end
end

-- The methods are looked up once, as a Lua hot loop does with table.insert,
-- and so is the view of entry 1 (wc[1] is made once, with the array).
local function prepared_loop()
  local psend, precv = verbs.send_wr(send), verbs.recv_wr(recv)
  local wc = verbs.wc_array(1)
  local first = wc[1]
  local post_send, post_recv, wait = qa.post_send, qb.post_recv, cqa.wait
  for _ = 1, iters do
    post_recv(qb, precv)
    post_send(qa, psend)
    wait(cqa, wc)
    if first.status ~= "SUCCESS" then error("send completion failed: " .. tostring(first)) end
    wait(cqb, wc)
    if first.status ~= "SUCCESS" then error("recv completion failed: " .. tostring(first)) end
  end
end

local t0 = clock();
(prepared and prepared_loop or plain_loop)()
local secs = clock() - t0
print(("iters=%d seconds=%.3f iters_per_sec=%.0f"):format(iters, secs, iters / secs))
