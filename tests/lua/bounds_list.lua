-- Every field of the marshaller with a maximum (a `.max =` in a vfield of
-- src/*.c), and how to hand it a value on a real device: verbs_bounds.lua
-- checks that the maximum is accepted and max + 1 refused, naming the key.
-- tests/host/mutants.bats checks that this list names every such field, so
-- a new one cannot be left out. try(E, v) calls the verb with the field set
-- to v; E holds the objects verbs_bounds.lua made (ctx, pd, cq, gid, ...).
-- Entries with size = true are bounds that come from the C type's size.
local function ah(E, over)
  local a = { is_global = 1, port_num = 1, grh = { dgid = E.gid, sgid_index = E.gid_index, hop_limit = 1 } }
  for k, v in pairs(over) do a[k] = v end
  return a
end
local function rc_init(E, extra)
  local t = { qp_type = "RC", send_cq = E.cq, recv_cq = E.cq,
              cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
  for k, v in pairs(extra) do t[k] = v end
  return t
end
-- An RC QP in INIT, moved to RTR with the given attributes added.
local function rtr(E, over)
  local qp = E.pd:create_qp(rc_init(E, {}))
  qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }
  local a = { qp_state = "RTR", path_mtu = "1024", dest_qp_num = qp.qp_num, rq_psn = 0,
              max_dest_rd_atomic = 1, min_rnr_timer = 12, ah_attr = ah(E, {}) }
  for k, v in pairs(over) do a[k] = v end
  qp:modify(a)
  return qp
end
local function rts(E, over)
  local qp = rtr(E, {})
  local a = { qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1 }
  for k, v in pairs(over) do a[k] = v end
  qp:modify(a)
  return qp
end
-- rdma_connect on E.cm_id, whose address is resolved but not its route:
-- the kernel refuses it (EINVAL) after verbsh read the parameters.
local function connect(E, over)
  local p = { retry_count = 7, rnr_retry_count = 7 }
  for k, v in pairs(over) do p[k] = v end
  E.cm_id:connect(p)
end

return {
  { src = "wr_read.c", field = "remote_qpn", key = "ud.remote_qpn", max = 0xffffff, try = function(E, v)
      E.ud:post_send{ opcode = "SEND", ud = { ah = E.ah, remote_qpn = v, remote_qkey = 0x11111111 },
                      sg_list = { { mr = E.mr, offset = 0, length = 8 } } }
    end },
  { src = "ah.c", field = "flow_label", key = "grh.flow_label", max = 0xfffff, try = function(E, v)
      E.pd:create_ah(ah(E, { grh = { dgid = E.gid, sgid_index = E.gid_index, hop_limit = 1, flow_label = v } }))
    end },
  { src = "ah.c", field = "sl", key = "sl", max = 15, try = function(E, v) E.pd:create_ah(ah(E, { sl = v })) end },
  { src = "ah.c", field = "is_global", key = "is_global", max = 1,
    try = function(E, v) E.pd:create_ah(ah(E, { is_global = v })) end },
  { src = "qp.c", field = "sq_sig_all", key = "sq_sig_all", max = 1,
    try = function(E, v) E.pd:create_qp(rc_init(E, { sq_sig_all = v })) end },
  { src = "qp.c", field = "rq_psn", key = "rq_psn", max = 0xffffff, try = function(E, v) rtr(E, { rq_psn = v }) end },
  { src = "qp.c", field = "dest_qp_num", key = "dest_qp_num", max = 0xffffff,
    try = function(E, v) rtr(E, { dest_qp_num = v }) end },
  { src = "qp.c", field = "sq_psn", key = "sq_psn", max = 0xffffff, try = function(E, v) rts(E, { sq_psn = v }) end },
  { src = "qp.c", field = "min_rnr_timer", key = "min_rnr_timer", max = 31,
    try = function(E, v) rtr(E, { min_rnr_timer = v }) end },
  { src = "qp.c", field = "timeout", key = "timeout", max = 31, try = function(E, v) rts(E, { timeout = v }) end },
  { src = "qp.c", field = "retry_cnt", key = "retry_cnt", max = 7, try = function(E, v) rts(E, { retry_cnt = v }) end },
  { src = "qp.c", field = "rnr_retry", key = "rnr_retry", max = 7, try = function(E, v) rts(E, { rnr_retry = v }) end },
  { src = "qp.c", field = "alt_timeout", key = "alt_timeout", max = 31,
    try = function(E, v) rts(E, {}):modify{ alt_timeout = v } end },
  { src = "ah.c", field = "src_path_bits", key = "ah_attr.src_path_bits", max = 127,
    try = function(E, v) rtr(E, { ah_attr = ah(E, { src_path_bits = v }) }) end },
  { src = "qp.c", field = "en_sqd_async_notify", key = "en_sqd_async_notify", max = 1,
    try = function(E, v) rts(E, {}):modify{ qp_state = "SQD", en_sqd_async_notify = v } end },
  { src = "cq.c", field = "comp_vector", key = "comp_vector", max = 1024,
    try = function(E, v) E.ctx:create_cq(4, { comp_vector = v }) end },
  { src = "cq_ex.c", field = "cqe", key = "cqe", max = 0x7fffffff,
    try = function(E, v) E.ctx:create_cq_ex{ cqe = v } end },
  { src = "cq_ex.c", field = "comp_vector", key = "comp_vector", max = 1024,
    try = function(E, v) E.ctx:create_cq_ex{ cqe = 4, comp_vector = v } end },
  { src = "qp_ex.c", field = "sq_sig_all", key = "sq_sig_all", max = 1, try = function(E, v)
      local t = rc_init(E, { pd = E.pd, sq_sig_all = v, send_ops_flags = "SEND" })
      E.ctx:create_qp_ex(t)
    end },
  { src = "cm.c", field = "flow_control", key = "flow_control", max = 1,
    try = function(E, v) connect(E, { flow_control = v }) end },
  { src = "cm.c", field = "retry_count", key = "retry_count", max = 7,
    try = function(E, v) connect(E, { retry_count = v }) end },
  { src = "cm.c", field = "rnr_retry_count", key = "rnr_retry_count", max = 7,
    try = function(E, v) connect(E, { rnr_retry_count = v }) end },
  { src = "cm.c", field = "srq", key = "srq", max = 1, try = function(E, v) connect(E, { srq = v }) end },
  { src = "cm.c", field = "qp_num", key = "qp_num", max = 0xffffff, try = function(E, v) connect(E, { qp_num = v }) end },
  -- bounds of the C type: an 8-, 16- and 32-bit field
  { size = true, key = "port_num", max = 0xff, try = function(E, v) E.pd:create_ah(ah(E, { port_num = v })) end },
  { size = true, key = "pkey_index", max = 0xffff, try = function(E, v)
      E.pd:create_qp(rc_init(E, {})):modify{ qp_state = "INIT", pkey_index = v, port_num = 1, qp_access_flags = 0 }
    end },
  { size = true, key = "cap.max_send_wr", max = 0xffffffff, try = function(E, v)
      E.pd:create_qp(rc_init(E, { cap = { max_send_wr = v, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }))
    end },
}
