-- What the export scenarios share: a device, a PD, a CQ, two MRs and two RC
-- QPs of that device, connected (run under verbsh --export-c, which records
-- all of it). opts: rnr_retry for qp_a, srq for qp_b, access for mr_b.
local gidx = tonumber(os.getenv("RXE_GID_INDEX"))
return function(opts)
  opts = opts or {}
  local s = {}
  s.ctx = verbs.open(os.getenv("RXE_DEV"))
  s.pd = s.ctx:alloc_pd()
  s.cq = s.ctx:create_cq(32)
  s.mr_a = s.pd:reg_mr(4096, { "LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC" })
  s.mr_b = s.pd:reg_mr(4096, opts.access or { "LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC" })
  if opts.srq then s.srq = s.pd:create_srq{ max_wr = 8, max_sge = 1 } end
  local caps = { max_send_wr = 8, max_recv_wr = 8, max_send_sge = 1, max_recv_sge = 1 }
  s.qp_a = s.pd:create_qp{ qp_type = "RC", send_cq = s.cq, recv_cq = s.cq, cap = caps }
  s.qp_b = s.pd:create_qp{ qp_type = "RC", send_cq = s.cq, recv_cq = s.cq, srq = s.srq,
    cap = s.srq and { max_send_wr = 8, max_recv_wr = 0, max_send_sge = 1, max_recv_sge = 0 } or caps }
  s.gid = s.ctx:query_gid(1, gidx)
  s.gidx = gidx
  function s.connect(q, peer, extra)
    q:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1,
              qp_access_flags = { "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC" } }
    q:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = peer.qp_num, rq_psn = 0,
              max_dest_rd_atomic = 1, min_rnr_timer = 1,
              ah_attr = { is_global = 1, port_num = 1, grh = { dgid = s.gid, sgid_index = gidx, hop_limit = 1 } } }
    q:modify{ qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7,
              rnr_retry = extra and extra.rnr_retry or 7, max_rd_atomic = 1 }
  end
  s.connect(s.qp_a, s.qp_b, { rnr_retry = opts.rnr_retry })
  s.connect(s.qp_b, s.qp_a)
  return s
end
