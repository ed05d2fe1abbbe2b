-- A type 2 window bound through qp b, then dropped (its last reference
-- gone, the collector stopped): b:destroy() must collect it first, so that
-- ibv_dealloc_mw runs before ibv_destroy_qp. (rxe holds b for a bound
-- window: destroyed first, b's ibv_destroy_qp waits 50 s and the kernel
-- warns.) The trace, on stderr, shows the order; a window that is still
-- reachable is left alone (the trace shows no dealloc of it).
local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/verbs_lib.lua")
collectgarbage("stop")
local ctx = verbs.open(os.getenv("RXE_DEV"))
local gid = ctx:query_gid(1, T.gid_index)
local pd = ctx:alloc_pd()
local cq = ctx:create_cq(16)
local mr = pd:reg_mr(4096, { "LOCAL_WRITE", "MW_BIND" })
local function rc_qp() return pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,
  cap = { max_send_wr = 8, max_recv_wr = 8, max_send_sge = 1, max_recv_sge = 1 } } end
local a, b, c = rc_qp(), rc_qp(), rc_qp()
for _, p in ipairs{ { a, b }, { b, a } } do
  local qp, peer = p[1], p[2]
  qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = "REMOTE_READ" }
  qp:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = peer.qp_num, rq_psn = 0, max_dest_rd_atomic = 1,
    min_rnr_timer = 12, ah_attr = { is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = T.gid_index } } }
  qp:modify{ qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1 }
end
local function bind(mw, wr_id)
  local k = verbs.inc_rkey(mw.rkey)
  b:post_send{ wr_id = wr_id, opcode = "BIND_MW", send_flags = "SIGNALED", bind_mw = { mw = mw, rkey = k,
    bind_info = { mr = mr, addr = mr.addr + 256, length = 128, mw_access_flags = "REMOTE_READ" } } }
  local wc = cq:wait(1)[1]
  assert(wc.wr_id == wr_id and wc.status == "SUCCESS" and wc.opcode == "BIND_MW", tostring(wc))
  mw.rkey = k
end
local kept = pd:alloc_mw("TYPE_2")        -- mw1: stays reachable
local dropped = pd:alloc_mw("TYPE_2")     -- mw2: dropped below
bind(kept, 41)
bind(dropped, 42)
-- kept is invalidated (LOCAL_INV), so it no longer holds b in the kernel
b:post_send{ wr_id = 43, opcode = "LOCAL_INV", send_flags = "SIGNALED", invalidate_rkey = kept.rkey }
assert(cq:wait(1)[1].status == "SUCCESS")
dropped = nil
verbs.trace(true)
c:destroy()   -- the collector runs: mw2 goes before any QP
b:destroy()
verbs.trace(false)
print("kept", kept.type, kept.rkey ~= 0)
kept:dealloc()
a:destroy()
print("done")
