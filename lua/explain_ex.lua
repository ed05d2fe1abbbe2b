-- Why the extended verbs fail: ibv_create_qp_ex (send_ops_flags the
-- provider lacks), ibv_create_cq_ex (wc_flags it cannot fill) and
-- ibv_wr_complete (the doorbell of the new post-send API).
local M = { ANALYZE = {} }

-- What rxe (rdma-core's providers/rxe) sets up, per QP type.
local RXE_OPS = {
  RC = { "SEND", "SEND_WITH_IMM", "RDMA_WRITE", "RDMA_WRITE_WITH_IMM", "RDMA_READ", "ATOMIC_CMP_AND_SWP",
    "ATOMIC_FETCH_AND_ADD", "LOCAL_INV", "BIND_MW", "SEND_WITH_INV", "ATOMIC_WRITE" },
  UC = { "SEND", "SEND_WITH_IMM", "RDMA_WRITE", "RDMA_WRITE_WITH_IMM", "BIND_MW", "SEND_WITH_INV" },
  UD = { "SEND", "SEND_WITH_IMM" },
}
local RXE_WC_FLAGS = { "BYTE_LEN", "IMM", "QP_NUM", "SRC_QP", "SLID", "SL", "DLID_PATH_BITS" }

local function missing(asked, have)
  local set, out = {}, {}
  for _, v in ipairs(have) do set[v] = true end
  for _, v in ipairs(asked or {}) do if not set[v] then out[#out + 1] = tostring(v) end end
  return out
end

local function is_rxe(c) return type(c.device) == "string" and c.device:find("rxe") ~= nil end

function M.ANALYZE.ibv_create_qp_ex(e)
  local c = e.context or {}
  if e.errname ~= "EOPNOTSUPP" then return nil, {} end
  local ops = RXE_OPS[c.qp_type]
  local extra = ops and missing(c.send_ops_flags, ops) or {}
  if #extra > 0 then
    return nil, { { why = ("a %s QP cannot do %s: %s sets up only %s for %s QPs (a UD QP has no remote memory"
      .. " to write, read or update: it only sends)"):format(c.qp_type, table.concat(extra, ", "),
      is_rxe(c) and "rxe" or "the provider", table.concat(ops, ", "), c.qp_type),
      fix = ("send_ops_flags = { %s }"):format(table.concat(missing(c.send_ops_flags, extra), ", ")) } }
  end
  return nil, { { why = "the provider does not support this combination of qp_type, send_ops_flags, create_flags"
    .. " or comp_mask", fix = "ask for fewer send_ops_flags; leave create_flags out" } }
end

function M.ANALYZE.ibv_create_cq_ex(e)
  local c = e.context or {}
  if e.errname ~= "EOPNOTSUPP" then return nil, {} end
  local extra = missing(c.wc_flags, RXE_WC_FLAGS)
  return nil, { { why = ("the provider cannot fill %s (rxe offers %s; a completion timestamp needs a NIC"
    .. " clock, which soft-RoCE has not)"):format(#extra > 0 and table.concat(extra, ", ") or "some of wc_flags",
    table.concat(RXE_WC_FLAGS, ", ")),
    fix = "leave those out of wc_flags; ctx:query_device() tells a real NIC's completion_timestamp_mask" } }
end

function M.ANALYZE.ibv_wr_complete(e)
  local c = e.context or {}
  local head = ("%s QP%s, %s WR%s built since wr_start"):format(tostring(c.qp_type or "?"),
    c.qp_state and " in " .. c.qp_state or "", tostring(c.built or "?"), c.built == 1 and "" or "s")
  local f = {}
  if e.errname == "EINVAL" and (c.qp_state == "RESET" or c.qp_state == "INIT" or c.qp_state == "RTR") then
    f[1] = { why = ("the QP is in %s: a send queue accepts work only in RTS (the doorbell was refused, and"
      .. " the WRs stay in the queue until the QP is reset)"):format(c.qp_state),
      fix = "qp:modify the QP through INIT and RTR to RTS first, then wr_start again" }
  elseif e.errname == "ENOSPC" or e.errname == "ENOMEM" then
    local cap = c.cap or {}
    f[1] = { why = ("a WR did not fit: the send queue holds %s WRs (cap.max_send_wr), or inline data above"
      .. " max_inline_data (%s), or more SGEs than max_send_sge (%s); nothing of this session was posted")
      :format(tostring(cap.max_send_wr or "?"), tostring(cap.max_inline_data or "?"), tostring(cap.max_send_sge or "?")),
      fix = "poll completions before building more, build fewer WRs per session, or create the QP with a bigger cap" }
  end
  return head, f
end

return M
