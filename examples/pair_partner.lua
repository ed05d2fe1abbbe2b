-- The other half of lesson 13 (pair-lab): a lab partner that waits for you.
--
--   verbsh examples/pair_partner.lua [--listen ADDR] [--port PORT] [-d DEV] [-g GID_INDEX]
--
-- It listens for the out-of-band exchange (verbs.oob, 127.0.0.1 unless
-- --listen says otherwise; port 0 picks a free one), and then, step by step:
--   1. swaps { qp_num, psn, gid, addr, rkey } with you;
--   2. brings its RC QP to RTS towards yours;
--   3. waits for your SEND, and answers with the same text in capitals;
--   4. waits for your "written" message, and tells you what your RDMA WRITE
--      left in its memory: { seen = "..." }.
-- Its MR: bytes 0..1023 are yours to write (zero until you do, and nothing
-- of its own ever goes there), your SEND lands at 2048, its answer goes
-- out from 3072.
-- It prints what it does, and exits 0 when the lab is done. Its waits are
-- long (a learner types between steps), but each one has a limit.
local port, listen_addr, gid_index = 18600, "127.0.0.1", nil
local i = 1
while i <= #arg do
  local a, v = arg[i], arg[i + 1]
  if a == "--port" then port = assert(math.tointeger(tonumber(v)), "--port wants a number"); i = i + 1
  elseif a == "--listen" then listen_addr = v; i = i + 1
  elseif a == "-g" then gid_index = assert(math.tointeger(tonumber(v)), "-g wants a number"); i = i + 1
  elseif a == "-d" then i = i + 1   -- verbsh itself reads -d through VERBSH_DEVICE
  else error("pair_partner: unknown option " .. a, 0) end
  i = i + 1
end

local WAIT_S = tonumber(os.getenv("PAIR_WAIT_S")) or 600
local oob = verbs.oob
oob.timeout = WAIT_S
local function say(fmt, ...) io.write("partner: ", fmt:format(...), "\n") io.flush() end

local ctx = verbs.open()
if not gid_index then
  gid_index = tonumber(os.getenv("RXE_GID_INDEX"))
  if not gid_index then   -- the first RoCE v2 IPv4 GID
    for _, g in ipairs(ctx:gids(1)) do
      if g.type == "RoCE v2" and g.gid:match("^::ffff:") then gid_index = g.index break end
    end
    if not gid_index then error("pair_partner: no RoCE v2 IPv4 GID on port 1; give -g INDEX", 0) end
  end
end
local gid = ctx:query_gid(1, gid_index)
local pd = ctx:alloc_pd()
local cq = ctx:create_cq(16)
local mr = pd:reg_mr(4096, { "LOCAL_WRITE", "REMOTE_WRITE" })
local YOURS, RECV_AT, ANSWER_AT = 0, 2048, 3072
-- Cleared once, before you learn its addr and rkey: from then on your RDMA
-- WRITE may land at any moment (your answer arrives before this side sees
-- its SEND complete), so this side never writes there again.
mr:fill(YOURS, 0, 1024)
local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,
  cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }

local l <close> = oob.listen(port, listen_addr)
say("listening on %s:%d (gid %s, qp_num %d)", listen_addr, l.port, gid, qp.qp_num)
local c <close> = l:accept()
say("connected to %s", c.peer)

-- 1. The exchange: the partner speaks second, so that the learner's
--    c:send comes first in the lesson, as written there.
local you = c:recv()
for _, k in ipairs{ "qp_num", "psn", "gid" } do
  if you[k] == nil then error(("pair_partner: your message lacks %q (got keys: %s)"):format(k,
    table.concat((function() local t = {} for key in pairs(you) do t[#t + 1] = key end return t end)(), ", ")), 0) end
end
local psn = 0x2a2a2a
c:send{ qp_num = qp.qp_num, psn = psn, gid = gid, addr = mr.addr, rkey = mr.rkey }
say("you are qp_num %d, psn %d, gid %s", you.qp_num, you.psn, you.gid)

-- 2. RTS towards you.
qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = "REMOTE_WRITE" }
qp:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = you.qp_num, rq_psn = you.psn,
           max_dest_rd_atomic = 1, min_rnr_timer = 12,
           ah_attr = { is_global = 1, port_num = 1, grh = { dgid = you.gid, sgid_index = gid_index, hop_limit = 1 } } }
qp:modify{ qp_state = "RTS", sq_psn = psn, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1 }
say("my QP is %s", tostring(qp))

-- 3. Your SEND, answered in capitals (rnr_retry 7: it waits for your receive).
qp:post_recv{ wr_id = 1, sg_list = { { mr = mr, offset = RECV_AT, length = 1024 } } }
local wc = cq:wait(1, WAIT_S * 1000)[1]
if not wc then error("pair_partner: no SEND from you within " .. WAIT_S .. " s", 0) end
if wc.status ~= "SUCCESS" then error("pair_partner: your SEND arrived as " .. tostring(wc), 0) end
local text = mr:read(RECV_AT, wc.byte_len)
say("received %q", text)
mr:write(ANSWER_AT, text:upper())
qp:post_send{ wr_id = 2, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = ANSWER_AT, length = #text } } }
wc = cq:wait(1, WAIT_S * 1000)[1]
if not (wc and wc.status == "SUCCESS") then error("pair_partner: my reply failed: " .. tostring(wc), 0) end
say("answered %q", text:upper())

-- 4. Your RDMA WRITE: no completion here at all, so you tell me when.
local note = c:recv()
if not note.written then error("pair_partner: expected { written = N }, got another message", 0) end
local n = math.tointeger(note.written)
if not n or n < 0 or n > 1024 then error("pair_partner: written must be 0..1024", 0) end
local seen = mr:read(YOURS, n)
c:send{ seen = seen }
say("your RDMA WRITE left %q in my memory", seen)
say("done")
