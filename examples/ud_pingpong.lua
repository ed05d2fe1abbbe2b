-- A UD ping-pong that interoperates with rdma-core's ibv_ud_pingpong, as
-- client or as server.
--
--   verbsh examples/ud_pingpong.lua [-d DEV] [-g GID_INDEX] [-n ITERS]
--                                   [-s SIZE] [-p PORT] [-r RX_DEPTH] [SERVER]
--
-- UD has no connection: each send names the peer through an address handle,
-- its QPN and the Q_Key, and every receive buffer starts with 40 bytes for
-- the GRH. SIZE must fit the port's MTU.
local pp = dofile((arg[0]:match("^(.*)/") or ".") .. "/pingpong.lua")
local opt, server = pp.options(arg, { n = 1000, s = 1024, p = 18515, r = 500 },
  "usage: ud_pingpong.lua [-d DEV] [-g GID_INDEX] [-n ITERS] [-s SIZE] [-p PORT] [-r RX_DEPTH] [SERVER]")
local QKEY, GRH = 0x11111111, 40

local ctx = verbs.open(opt.d)
local gid_index = opt.g or tonumber(os.getenv("RXE_GID_INDEX")) or 0
local port = ctx:query_port(1)
local mtu = tonumber(port.active_mtu)
if opt.s > mtu then error(("ud_pingpong: size %d is larger than the port MTU %d"):format(opt.s, mtu), 0) end
local pd = ctx:alloc_pd()
local mr = pd:reg_mr(opt.s + GRH, "LOCAL_WRITE")
local cq = ctx:create_cq(opt.r + 1)
local qp = pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq,
  cap = { max_send_wr = 1, max_recv_wr = opt.r, max_send_sge = 1, max_recv_sge = 1 } }
qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = QKEY }
qp:modify{ qp_state = "RTR" }

local recv_wr = { wr_id = 1, sg_list = { { mr = mr, offset = 0, length = opt.s + GRH } } }
local post_recvs = pp.receiver(qp, recv_wr)
post_recvs(opt.r)

local mine = { lid = port.lid, qpn = qp.qp_num, psn = math.random(0, 0xffffff),
               gid = ctx:query_gid(1, gid_index) }
qp:modify{ qp_state = "RTS", sq_psn = mine.psn }
pp.show("local address: ", mine)

local function connect(dest)
  local ah = pd:create_ah{ is_global = 1, dlid = dest.lid, sl = 0, port_num = 1,
                           grh = { dgid = dest.gid, sgid_index = gid_index, hop_limit = 1 } }
  return { wr_id = 2, opcode = "SEND", send_flags = "SIGNALED",
           sg_list = { { mr = mr, offset = GRH, length = opt.s } },
           ud = { ah = ah, remote_qpn = dest.qpn, remote_qkey = QKEY } }
end

pp.run(opt, server, mine, qp, cq, post_recvs, connect)
