-- Why the memory-window verbs fail: ibv_alloc_mw, ibv_bind_mw (type 1),
-- ibv_dealloc_mw and an MR that windows are still bound to. What rxe does
-- comes from drivers/infiniband/sw/rxe/rxe_mw.c and rdma-core's
-- providers/rxe, checked on rxe by tests/device/mw.bats.
local M = { ANALYZE = {}, HINTS = {} }

local function has(list, name)
  if type(list) == "string" then return list == name end
  for _, v in ipairs(type(list) == "table" and list or {}) do if v == name then return true end end
  return false
end

-- ibv_bind_mw: libibverbs checks the window's type and the PDs, rxe's
-- provider refuses a zero-based type 1 window, and the post can fail.
function M.ANALYZE.ibv_bind_mw(e)
  local c = e.context or {}
  if e.errname == "EINVAL" and c.mw_type == "TYPE_2" then
    return nil, { { why = "this is a TYPE_2 window: ibv_bind_mw binds only type 1 windows (libibverbs returns"
      .. " EINVAL before the provider is called)", fix = 'bind a type 2 window with a work request: qp:post_send{'
      .. ' opcode = "BIND_MW", bind_mw = { mw = mw, rkey = verbs.inc_rkey(mw.rkey), bind_info = { ... } } }, or'
      .. ' qp:wr_bind_mw(mw, rkey, bind_info)' } }
  end
  if e.errname == "EPERM" or c.other_pd then
    return nil, { { why = "bind_info.mr belongs to another PD than the window: a window opens onto memory of its"
      .. " own PD only (libibverbs returns EPERM)", fix = "register the MR in the PD the window was allocated from"
      .. " (mw.pd:reg_mr(...))" } }
  end
  if e.errname == "EINVAL" and has(c.mw_access_flags, "ZERO_BASED") then
    return nil, { { why = "a zero-based type 1 window: the IBTA does not allow type 1 windows to be zero-based"
      .. " (o10-36.2.2), and rxe's provider refuses them with EINVAL", fix = "leave ZERO_BASED out and give"
      .. " bind_info.addr as an address inside the MR (mr.addr + offset)" } }
  end
  if e.errname == "EINVAL" and c.qp_type and c.qp_type ~= "RC" and c.qp_type ~= "UC" then
    return nil, { { why = ("the bind is posted on a %s QP: windows are bound through an RC or UC QP"):format(c.qp_type),
      fix = "call bind_mw on an RC or UC QP of the same PD" } }
  end
  if c.qp_state and c.qp_state ~= "RTS" and c.qp_state ~= "SQD" then
    return nil, { { why = ("the QP is in %s: ibv_bind_mw posts a work request, which the send queue takes only in"
      .. " RTS"):format(c.qp_state), fix = "bring the QP to RTS first" } }
  end
  return nil, {}
end

function M.ANALYZE.ibv_alloc_mw(e)
  if e.errname == "EOPNOTSUPP" or e.errname == "ENOSYS" then
    return nil, { { why = "the device has no memory windows", fix = "use an MR's own rkey; rxe has both types" } }
  end
  return nil, {}
end

-- rxe refuses to deregister an MR that windows are bound to (EINVAL, or
-- EBUSY on other devices): the kernel counts them (rxe_mr num_mw).
M.HINTS["ibv_dereg_mr EINVAL"] = { "memory windows are still bound to this MR (rxe refuses the dereg while"
  .. " any window opens onto it)", "revoke them first: LOCAL_INV (type 2), a bind with length 0 (type 1), or"
  .. " mw:dealloc()" }
M.HINTS["ibv_dealloc_mw EBUSY"] = { "the window is still in use", "wait for the WRs that use it to complete" }

return M
