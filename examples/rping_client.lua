-- An rdma_cm client for rdma-core's `rping -s` (librdmacm/examples/rping.c),
-- speaking its protocol. Each ping:
--   1. we fill start_buf with "rdma-ping-N: " and a rolling alphabet, and SEND
--      its address, rkey and size (struct rping_rdma_info: be64 buf, be32
--      rkey, be32 size);
--   2. the server RDMA READs start_buf, then SENDs a 16-byte "go ahead";
--   3. we SEND the same triple for rdma_buf;
--   4. the server RDMA WRITEs what it read into rdma_buf, then SENDs "go ahead";
--   5. rdma_buf must equal start_buf.
--
--   verbsh examples/rping_client.lua -a SERVER_ADDR [-p PORT] [-C COUNT] [-S SIZE] [-v]
-- Defaults as rping's: port 7174, size 64, count 0 (forever).
local USAGE = "usage: rping_client.lua -a SERVER_ADDR [-p PORT] [-C COUNT] [-S SIZE] [-v]"
local opt = { p = 7174, C = 0, S = 64, v = false }
do
  local i = 1
  while i <= #arg do
    local f = arg[i]:match("^%-(%a)$")
    if f == "v" then
      opt.v, i = true, i + 1
    elseif f and ("apCS"):find(f, 1, true) and arg[i + 1] then
      opt[f] = f == "a" and arg[i + 1] or math.tointeger(tonumber(arg[i + 1])) or error(USAGE, 0)
      i = i + 2
    else
      error(USAGE, 0)
    end
  end
  if not opt.a then error(USAGE, 0) end
  if opt.S < 32 then error("rping_client: -S must be at least 32, as rping's RPING_MIN_BUFSIZE", 0) end
end

local INFO = ">I8>I4>I4"   -- struct rping_rdma_info, big-endian
local INFO_SIZE = string.packsize(INFO)

local ch = verbs.create_event_channel()
local function event(want)
  local ev = ch:get_cm_event(10000)
  if not ev then error("rping_client: no rdma_cm event within 10 s (waiting for " .. want .. ")", 0) end
  return ev:expect(want)
end

local id = ch:create_id("TCP")
id:resolve_addr(nil, ("%s:%d"):format(opt.a, opt.p), 2000)
event("ADDR_RESOLVED"):ack()
id:resolve_route(2000)
event("ROUTE_RESOLVED"):ack()

local ctx = id.verbs
local pd = ctx:alloc_pd()
local cq = ctx:create_cq(32)
local qp = id:create_qp(pd, { qp_type = "RC", send_cq = cq, recv_cq = cq,
  cap = { max_send_wr = 16, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 } })
local recv_mr = pd:reg_mr(INFO_SIZE, "LOCAL_WRITE")
local send_mr = pd:reg_mr(INFO_SIZE, "LOCAL_WRITE")
local start_mr = pd:reg_mr(opt.S, { "LOCAL_WRITE", "REMOTE_READ" })    -- the server reads it
local rdma_mr = pd:reg_mr(opt.S, { "LOCAL_WRITE", "REMOTE_WRITE" })    -- the server writes it

local recv_wr = { wr_id = 1, sg_list = { { mr = recv_mr, length = INFO_SIZE } } }
qp:post_recv(recv_wr)

id:connect{ responder_resources = 1, initiator_depth = 1, retry_count = 7, rnr_retry_count = 7 }
event("ESTABLISHED"):ack()

-- Sends the triple for mr, then waits for the server's "go ahead".
local send_wr = { wr_id = 2, opcode = "SEND", send_flags = "SIGNALED",
                  sg_list = { { mr = send_mr, length = INFO_SIZE } } }
local function advertise(mr, what)
  send_mr:write(0, string.pack(INFO, mr.addr, mr.rkey, opt.S))
  qp:post_send(send_wr)
  local got_recv, got_send = false, false
  while not (got_recv and got_send) do
    local wcs = cq:wait(1, 10000)
    if #wcs == 0 then error("rping_client: no completion within 10 s after advertising " .. what, 0) end
    for _, wc in ipairs(wcs) do
      if wc.status ~= "SUCCESS" then error("rping_client: " .. tostring(wc), 0) end
      if wc.opcode == "RECV" then
        if wc.byte_len ~= INFO_SIZE then
          error(("rping_client: the server sent %d bytes, not %d"):format(wc.byte_len, INFO_SIZE), 0)
        end
        got_recv = true
        qp:post_recv(recv_wr)
      else
        got_send = true
      end
    end
  end
end

local start = 65
local ping = 0
while opt.C == 0 or ping < opt.C do
  -- "rdma-ping-N: " then letters from `start` on, cycling 'A'..'z', NUL last.
  local head = ("rdma-ping-%d: "):format(ping)
  local body, c = {}, start
  for k = 1, opt.S - #head - 1 do
    body[k] = string.char(c)
    c = c + 1
    if c > 122 then c = 65 end
  end
  local data = (head .. table.concat(body)):sub(1, opt.S - 1) .. "\0"
  start = start + 1
  if start > 122 then start = 65 end
  start_mr:write(0, data)
  rdma_mr:fill(0)

  advertise(start_mr, "start_buf")   -- the server reads start_buf
  advertise(rdma_mr, "rdma_buf")     -- the server writes rdma_buf
  local echoed = rdma_mr:read(0, opt.S)
  if echoed ~= data then
    error(("rping_client: data mismatch in ping %d:\n  sent %q\n  got  %q"):format(ping, data, echoed), 0)
  end
  if opt.v then print("ping data: " .. data:sub(1, -2)) end
  ping = ping + 1
end

-- rping's server answers our DREQ with its own rdma_disconnect.
id:disconnect()
event("DISCONNECTED"):ack()
print(("rping_client: %d pings to %s:%d, each read and written back by the server"):format(ping, opt.a, opt.p))
