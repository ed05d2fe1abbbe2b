-- The benchmark's bulk row: post many WRs in batches, then poll them all,
-- watching peak RSS stay flat from batch to batch.
--   verbsh bench/bulk.lua [--prepared] [TOTAL_WRS [BATCH]]
-- --prepared posts one prepared chain (verbs.send_wr) and polls into a
-- verbs.wc_array; plain posts the list of tables and gets a table per WC.
-- RDMA WRITEs need no receive on the far side, so the loop is all posting
-- and polling.
local prepared = arg[1] == "--prepared"
if prepared then table.remove(arg, 1) end
local total = tonumber(arg[1]) or 1000000
local batch = tonumber(arg[2]) or 64
local gid_index = tonumber(os.getenv("RXE_GID_INDEX")) or 1

local ctx = verbs.open()
local pd = ctx:alloc_pd()
local mr = pd:reg_mr(65536, { "LOCAL_WRITE", "REMOTE_WRITE" })
local gid = ctx:query_gid(1, gid_index)
local cq = ctx:create_cq(batch * 2)
local function rc_qp()
  return pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,
    cap = { max_send_wr = batch, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
end
local qa, qb = rc_qp(), rc_qp()
for _, p in ipairs{ { qa, qb }, { qb, qa } } do
  local qp, remote = p[1], p[2]
  qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = "REMOTE_WRITE" }
  qp:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = remote.qp_num, rq_psn = 0,
             max_dest_rd_atomic = 1, min_rnr_timer = 1,
             ah_attr = { is_global = 1, port_num = 1,
                         grh = { dgid = gid, sgid_index = gid_index, hop_limit = 1 } } }
  qp:modify{ qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7,
             max_rd_atomic = 1 }
end

local wrs = {}
for i = 1, batch do
  wrs[i] = { wr_id = i, opcode = "RDMA_WRITE", send_flags = "SIGNALED",
             sg_list = { { mr = mr, offset = 0, length = 64 } },
             rdma = { remote_addr = mr.addr + 4096 + (i - 1) * 64, rkey = mr.rkey } }
end

local function now()
  local f = assert(io.open("/proc/uptime"))
  local t = f:read("n"); f:close(); return t
end
local function peak_rss_kb()
  for line in io.lines("/proc/self/status") do
    local kb = line:match("^VmHWM:%s*(%d+)")
    if kb then return tonumber(kb) end
  end
end

local clock = verbs.now or now
local done, batches = 0, total // batch
local rss = {}
local t0 = clock()
local chain, wca = verbs.send_wr(wrs), verbs.wc_array(batch)
for b = 1, batches do
  local n
  if prepared then
    qa:post_send(chain)
    n = cq:wait(wca, batch)
    for i = 1, n do
      if wca[i].status ~= "SUCCESS" then error("bulk: " .. tostring(wca[i])) end
    end
  else
    qa:post_send(wrs)
    local wcs = cq:wait(batch)
    for i = 1, #wcs do
      if wcs[i].status ~= "SUCCESS" then error("bulk: " .. tostring(wcs[i])) end
    end
    n = #wcs
  end
  done = done + n
  if b == 1 or b % math.max(1, batches // 4) == 0 then rss[#rss + 1] = peak_rss_kb() end
end
local secs = clock() - t0
print(("iters=%d seconds=%.3f iters_per_sec=%.0f"):format(done, secs, done / secs))
print(("wrs posted=%d completed=%d"):format(batches * batch, done))
print(("rss peak (KiB) after batch 1 and each quarter: %s"):format(table.concat(rss, " ")))
-- The verdict. From batch 1 to the first quarter the peak may rise once,
-- as the Lua heap and malloc's arenas reach their working size; after that
-- it must not move: a leak of even one byte per WR would add 1/4 of TOTAL
-- bytes per quarter. 64 KiB of slack is noise (a page table, a stack page).
local first, settled, last = rss[1], rss[math.min(2, #rss)], rss[#rss]
print(("rss verdict: %s (peak after batch 1 %d KiB, after the first quarter %d KiB, at the end %d KiB: " ..
       "%+d KiB over the rest of the run, %+d KiB from first to last)"):format(
  last - settled <= 64 and "flat" or "GROWS", first, settled, last, last - settled, last - first))
