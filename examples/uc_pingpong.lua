-- A UC ping-pong that interoperates with rdma-core's ibv_uc_pingpong, as
-- client or as server: same TCP exchange, same QP attributes, same loop.
--
--   verbsh examples/uc_pingpong.lua [-d DEV] [-g GID_INDEX] [-n ITERS]
--                                   [-s SIZE] [-p PORT] [-r RX_DEPTH] [SERVER]
--
-- UC is the unreliable connection: the QP is connected to one peer as RC
-- is, but nothing is acknowledged, so its RTR and RTS steps take only the
-- peer and the PSNs (no max_dest_rd_atomic, min_rnr_timer, timeout,
-- retry_cnt, rnr_retry or max_rd_atomic: there are no ACKs to wait for and
-- no READs or atomics to answer). A SEND that finds no receive posted is
-- dropped, so both sides keep rx_depth receives posted before they send.
local pp = dofile((arg[0]:match("^(.*)/") or ".") .. "/pingpong.lua")
local opt, server = pp.options(arg, { n = 1000, s = 4096, p = 18515, r = 500 },
  "usage: uc_pingpong.lua [-d DEV] [-g GID_INDEX] [-n ITERS] [-s SIZE] [-p PORT] [-r RX_DEPTH] [SERVER]")

local ctx = verbs.open(opt.d)
local gid_index = opt.g or tonumber(os.getenv("RXE_GID_INDEX")) or 0
local pd = ctx:alloc_pd()
local mr = pd:reg_mr(opt.s, "LOCAL_WRITE")
local cq = ctx:create_cq(opt.r + 1)
local qp = pd:create_qp{ qp_type = "UC", send_cq = cq, recv_cq = cq,
  cap = { max_send_wr = 1, max_recv_wr = opt.r, max_send_sge = 1, max_recv_sge = 1 } }
qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }

local recv_wr = { wr_id = 1, sg_list = { { mr = mr, offset = 0, length = opt.s } } }
local send_wr = { wr_id = 2, opcode = "SEND", send_flags = "SIGNALED",
                  sg_list = { { mr = mr, offset = 0, length = opt.s } } }
local post_recvs = pp.receiver(qp, recv_wr)
post_recvs(opt.r)

local mine = { lid = ctx:query_port(1).lid, qpn = qp.qp_num, psn = math.random(0, 0xffffff),
               gid = ctx:query_gid(1, gid_index) }
pp.show("local address: ", mine)

-- The same attributes as ibv_uc_pingpong's pp_connect_ctx.
local function connect(dest)
  qp:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = dest.qpn, rq_psn = dest.psn,
    ah_attr = { is_global = 1, dlid = dest.lid, sl = 0, port_num = 1,
                grh = { dgid = dest.gid, sgid_index = gid_index, hop_limit = 1 } } }
  qp:modify{ qp_state = "RTS", sq_psn = mine.psn }
  return send_wr
end

pp.run(opt, server, mine, qp, cq, post_recvs, connect)
