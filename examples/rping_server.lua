-- An rdma_cm server for rdma-core's `rping -c` (librdmacm/examples/rping.c),
-- speaking its protocol: the partner of rping_client.lua. Each ping:
--   1. the client SENDs the address, rkey and size of its start_buf (struct
--      rping_rdma_info: be64 buf, be32 rkey, be32 size);
--   2. we RDMA READ start_buf into our buffer, then SEND a 16-byte "go ahead";
--   3. the client SENDs the same triple for its rdma_buf;
--   4. we RDMA WRITE what we read (up to its NUL) into rdma_buf, then SEND
--      "go ahead"; the client compares the two buffers.
-- It serves one client for COUNT pings, then waits for its disconnect.
--
--   verbsh examples/rping_server.lua -a ADDR [-p PORT] -C COUNT [-S SIZE] [-v]
-- Defaults as rping's: port 7174, size 64. On iWARP (siw) as on RoCE (rxe).
local USAGE = "usage: rping_server.lua -a ADDR [-p PORT] -C COUNT [-S SIZE] [-v]"
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
  if not opt.a or opt.C < 1 then error(USAGE, 0) end
end

local INFO = ">I8>I4>I4"   -- struct rping_rdma_info, big-endian
local INFO_SIZE = string.packsize(INFO)

local ch = verbs.create_event_channel()
local function event(want)
  local ev = ch:get_cm_event(30000)
  if not ev then error("rping_server: no rdma_cm event within 30 s (waiting for " .. want .. ")", 0) end
  return ev:expect(want)
end

local listen = ch:create_id("TCP")
listen:bind_addr(("%s:%d"):format(opt.a, opt.p))
listen:listen(1)
if opt.v then print(("rping_server: listening on %s:%d"):format(opt.a, opt.p)) end
io.stdout:flush()

local req = event("CONNECT_REQUEST")
local id = req.id
local ctx = id.verbs
local pd = ctx:alloc_pd()
local cq = ctx:create_cq(32)
local qp = id:create_qp(pd, { qp_type = "RC", send_cq = cq, recv_cq = cq,
  cap = { max_send_wr = 16, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 } })
local recv_mr = pd:reg_mr(INFO_SIZE, "LOCAL_WRITE")
local send_mr = pd:reg_mr(INFO_SIZE, "LOCAL_WRITE")
local buf_mr = pd:reg_mr(opt.S, "LOCAL_WRITE")   -- what we read lands here, and is written back from here

-- The first receive before the accept: the client sends as soon as it is connected.
local recv_wr = { wr_id = 1, sg_list = { { mr = recv_mr, length = INFO_SIZE } } }
qp:post_recv(recv_wr)
id:accept{ responder_resources = 1, initiator_depth = 1 }
req:ack()
event("ESTABLISHED"):ack()

-- Waits for the completion of wr_id. A client's triple may arrive while we
-- wait for our own SEND to complete: it is kept for the next wait_for(1).
local triples = {}
local function wait_for(wr_id, what)
  while not (wr_id == 1 and #triples > 0) do
    local wcs = cq:wait(1, 10000)
    if #wcs == 0 then error("rping_server: no completion within 10 s waiting for " .. what, 0) end
    local wc = wcs[1]
    if wc.status ~= "SUCCESS" then error("rping_server: " .. tostring(wc), 0) end
    if wc.wr_id == 1 then
      if wc.byte_len ~= INFO_SIZE then
        error(("rping_server: the client sent %d bytes, not %d"):format(wc.byte_len, INFO_SIZE), 0)
      end
      triples[#triples + 1] = { string.unpack(INFO, recv_mr:read(0, INFO_SIZE)) }
      qp:post_recv(recv_wr)
    elseif wc.wr_id == wr_id then
      return
    end
  end
  return table.unpack(table.remove(triples, 1), 1, 3)
end
local go_ahead = { wr_id = 2, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = send_mr, length = INFO_SIZE } } }

for ping = 0, opt.C - 1 do
  local addr, rkey, size = wait_for(1, "the client's start_buf")
  if size > opt.S then error(("rping_server: ping %d advertises %d bytes, above -S %d"):format(ping, size, opt.S), 0) end
  qp:post_send{ wr_id = 3, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = { { mr = buf_mr, length = size } },
                rdma = { remote_addr = addr, rkey = rkey } }
  wait_for(3, "the RDMA READ")
  local data = buf_mr:read(0, size)
  local text = data:match("^[^%z]*")
  if opt.v then print("server ping data: " .. text) end
  qp:post_send(go_ahead)
  wait_for(2, "the go-ahead SEND")
  addr, rkey = wait_for(1, "the client's rdma_buf")
  qp:post_send{ wr_id = 4, opcode = "RDMA_WRITE", send_flags = "SIGNALED",
                sg_list = { { mr = buf_mr, length = #text + 1 } }, rdma = { remote_addr = addr, rkey = rkey } }
  wait_for(4, "the RDMA WRITE")
  qp:post_send(go_ahead)
  wait_for(2, "the second go-ahead SEND")
end

event("DISCONNECTED"):ack()
id:disconnect()
print(("rping_server: %d pings from a client on %s:%d, each read and written back"):format(opt.C, opt.a, opt.p))
