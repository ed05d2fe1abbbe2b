-- A ping-pong between two processes that rdma_cm (librdmacm) connects: no
-- TCP side channel, the CM exchanges the QP numbers itself.
--
--   verbsh examples/cm_pingpong.lua [-u] [-n ITERS] [-s SIZE] [-p PORT] [-r RX_DEPTH] [SERVER_ADDR]
--
-- Without SERVER_ADDR it listens on PORT (default 7471); with it, it connects.
-- RC over RDMA_PS_TCP by default; -u: UD over RDMA_PS_UDP, where the client
-- gets the server's QPN, Q_Key and address from the ESTABLISHED event, and
-- the server answers the sender of the first datagram, as rdma-core's udaddy
-- does: an AH from its WC and GRH, the QPN from wc.src_qp.
local pp = dofile((arg[0]:match("^(.*)/") or ".") .. "/pingpong.lua")
local USAGE = "usage: cm_pingpong.lua [-u] [-n ITERS] [-s SIZE] [-p PORT] [-r RX_DEPTH] [SERVER_ADDR]"

local args, ud = {}, false
for _, a in ipairs(arg) do
  if a == "-u" then ud = true else args[#args + 1] = a end
end
local opt, server = pp.options(args, { n = 1000, s = 64, p = 7471, r = 100 }, USAGE)
local GRH = ud and 40 or 0   -- a UD receive starts with the 40-byte GRH

local ch = verbs.create_event_channel()
local function event(want)
  local ev = ch:get_cm_event(20000)
  if not ev then error(("cm_pingpong: no rdma_cm event within 20 s (waiting for %s)"):format(want), 0) end
  return ev:expect(want)
end

-- The id that carries the connection: the client's own, or the one a
-- CONNECT_REQUEST brings to the server.
local id, request, listener
if server then
  id = ch:create_id(ud and "UDP" or "TCP")
  id:resolve_addr(nil, ("%s:%d"):format(server, opt.p), 2000)
  event("ADDR_RESOLVED"):ack()
  id:resolve_route(2000)
  event("ROUTE_RESOLVED"):ack()
else
  listener = ch:create_id(ud and "UDP" or "TCP")
  listener:bind_addr("*:" .. opt.p)
  listener:listen(1)
  print(("listening on %s (%s)"):format(listener:get_local_addr(), ud and "UD, RDMA_PS_UDP" or "RC, RDMA_PS_TCP"))
  io.stdout:flush()
  request = event("CONNECT_REQUEST")
  id = request.id
end

-- Everything lives on the context librdmacm bound the id to.
local ctx = id.verbs
local pd = ctx:alloc_pd()
local mr = pd:reg_mr(opt.s + GRH, "LOCAL_WRITE")
local cq = ctx:create_cq(opt.r + 1)
local qp = id:create_qp(pd, { qp_type = ud and "UD" or "RC", send_cq = cq, recv_cq = cq,
  cap = { max_send_wr = 1, max_recv_wr = opt.r, max_send_sge = 1, max_recv_sge = 1 } })
local post_recvs = pp.receiver(qp, { wr_id = 1, sg_list = { { mr = mr, offset = 0, length = opt.s + GRH } } })
post_recvs(opt.r)   -- before the peer can send: before connect / accept

local send_wr = { wr_id = 2, opcode = "SEND", send_flags = "SIGNALED",
                  sg_list = { { mr = mr, offset = GRH, length = opt.s } } }
local RC_PARAM = { responder_resources = 1, initiator_depth = 1, retry_count = 7, rnr_retry_count = 7 }

if server then
  id:connect(not ud and RC_PARAM or nil)
  local est = event("ESTABLISHED")
  if ud then
    local u = est.param.ud
    send_wr.ud = { ah = pd:create_ah(u.ah_attr), remote_qpn = u.qp_num, remote_qkey = u.qkey }
  end
  est:ack()
else
  if ud then
    opt.on_recv = function(wc)
      if send_wr.ud then return end
      -- librdmacm gave both QPs the same Q_Key (RDMA_UDP_QKEY)
      send_wr.ud = { ah = pd:create_ah_from_wc(wc, mr:read(0, GRH), 1), remote_qpn = wc.src_qp,
                     remote_qkey = qp:query().qkey }
      print(("first datagram from QPN 0x%06x"):format(wc.src_qp))
    end
  end
  id:accept(ud and nil or RC_PARAM)
  request:ack()
  if not ud then event("ESTABLISHED"):ack() end   -- a UD server gets no ESTABLISHED
end
print(("connected: %s, local QPN 0x%06x%s"):format(tostring(id), qp.qp_num,
  send_wr.ud and (", remote QPN 0x%06x, Q_Key 0x%x"):format(send_wr.ud.remote_qpn, send_wr.ud.remote_qkey) or ""))

pp.report(opt, pp.loop(qp, cq, send_wr, post_recvs, opt, server ~= nil))

-- RC: the client disconnects; each side sees DISCONNECTED once the other
-- has called rdma_disconnect too (the server's answers the client's DREQ).
if not ud then
  if server then
    id:disconnect()
    event("DISCONNECTED"):ack()
  else
    event("DISCONNECTED"):ack()
    id:disconnect()
  end
end
id:destroy_qp()
id:destroy()
if listener then listener:destroy() end
ch:destroy()
