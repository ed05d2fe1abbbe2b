-- The other half of lesson 14 (rdma-cm): a partner that rdma_cm connects you to.
--
--   verbsh examples/cm_partner.lua [--port PORT]
--
-- It listens on every address at PORT (default 7471; 0 picks a free one), and:
--   1. takes your CONNECT_REQUEST, prints your private data, makes its QP on
--      the request's new id and accepts with private data of its own;
--   2. answers your SEND with the same text in capitals;
--   3. waits for your disconnect, and disconnects too.
-- It prints what it does and exits 0 when the lab is done. Its waits are long
-- (a learner types between steps), but each one has a limit.
local port = 7471
local i = 1
while i <= #arg do
  if arg[i] == "--port" then port = assert(math.tointeger(tonumber(arg[i + 1])), "--port wants a number"); i = i + 2
  else error("cm_partner: unknown option " .. arg[i], 0) end
end
local WAIT_MS = (tonumber(os.getenv("PAIR_WAIT_S")) or 600) * 1000
local function say(fmt, ...) io.write("partner: ", fmt:format(...), "\n") io.flush() end

local ch = verbs.create_event_channel()
local function event(want)
  local ev = ch:get_cm_event(WAIT_MS)
  if not ev then error("cm_partner: no " .. want .. " within the time limit", 0) end
  return ev:expect(want)
end

local listener = ch:create_id("TCP")
listener:bind_addr("*:" .. port)
listener:listen(1)
say("listening on rdma_cm port %d", listener:get_src_port())

local req = event("CONNECT_REQUEST")
local id = req.id
local conn = req.param.conn
say("connection request from %s, QPN 0x%06x, private data %q", id:get_peer_addr(), conn.qp_num,
  (conn.private_data:gsub("%z+$", "")))
local ctx = id.verbs
local pd, cq = ctx:alloc_pd(), ctx:create_cq(8)
local mr = pd:reg_mr(4096, "LOCAL_WRITE")
local qp = id:create_qp(pd, { qp_type = "RC", send_cq = cq, recv_cq = cq,
  cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } })
qp:post_recv{ wr_id = 1, sg_list = { { mr = mr, offset = 2048, length = 1024 } } }
id:accept{ private_data = "welcome from the partner", responder_resources = 1, initiator_depth = 1 }
req:ack()
event("ESTABLISHED"):ack()
say("established; my QP is %s", tostring(qp))

local wc = cq:wait(1, WAIT_MS)[1]
if not wc then error("cm_partner: no SEND from you within the time limit", 0) end
if wc.status ~= "SUCCESS" then error("cm_partner: your SEND arrived as " .. tostring(wc), 0) end
local text = mr:read(2048, wc.byte_len)
say("received %q", text)
mr:write(0, text:upper())
qp:post_send{ wr_id = 2, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 0, length = #text } } }
wc = cq:wait(1, WAIT_MS)[1]
if not (wc and wc.status == "SUCCESS") then error("cm_partner: my reply failed: " .. tostring(wc), 0) end
say("answered %q", text:upper())

event("DISCONNECTED"):ack()
id:disconnect()
say("disconnected; done")
