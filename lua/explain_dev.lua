-- Why a device refuses a verb that needs hardware: one table, read by the
-- explanation of a failed verb (explain.lua's ANALYZE), by help (a topic
-- per feature: help "XRC") and by the device test that checks rxe's answer
-- to each. The bindings (src/devonly.c, src/api_rest.c, src/cm_rest.c,
-- src/qp_ex.c) call the verb itself: nothing here is simulated.
--
-- FEATURES[topic] = { what = the feature, hw = devices that have it,
--   verbs = the C functions of the feature, rxe = rxe's answer (measured:
--   kernel 6.1, rdma-core 44), why = why rxe answers so }
local M = {}

M.FEATURES = {
  XRC = { what = "XRC domains", hw = "NVIDIA ConnectX-3 and later (mlx4, mlx5)",
    verbs = { "ibv_open_xrcd", "ibv_close_xrcd", "ibv_open_qp", "ibv_get_srq_num", "ibv_wr_set_xrc_srqn" },
    rxe = "EOPNOTSUPP", why = "rxe has no XRC transport: its QPs are RC, UC and UD (create_qp_ex with XRC_SEND"
      .. " gives EOPNOTSUPP too)" },
  DM = { what = "device memory", hw = "NVIDIA ConnectX-5 and later (mlx5: MEMIC, on-chip memory)",
    verbs = { "ibv_alloc_dm", "ibv_free_dm", "ibv_memcpy_to_dm", "ibv_memcpy_from_dm", "ibv_reg_dm_mr",
      "ibv_import_dm", "ibv_unimport_dm" },
    rxe = "EOPNOTSUPP", why = "a software device has no memory of its own (query_device_ex().max_dm_size is 0)" },
  FLOW = { what = "flow steering", hw = "NVIDIA ConnectX-4 and later (mlx5), ConnectX-3 (mlx4)",
    verbs = { "ibv_create_flow", "ibv_destroy_flow" },
    rxe = "EOPNOTSUPP", why = "rxe receives only RoCEv2 (UDP port 4791) through the kernel's UDP tunnel, and"
      .. " steers nothing else to a QP" },
  ESP = { what = "IPsec ESP flow actions", hw = "NVIDIA ConnectX-6 Dx and later with crypto (mlx5)",
    verbs = { "ibv_create_flow_action_esp", "ibv_modify_flow_action_esp", "ibv_destroy_flow_action" },
    rxe = "EOPNOTSUPP", why = "rxe has no flow steering to attach an action to, and no crypto offload" },
  COUNTERS = { what = "flow counters", hw = "NVIDIA ConnectX-4 and later (mlx5)",
    verbs = { "ibv_create_counters", "ibv_destroy_counters", "ibv_attach_counters_point_flow", "ibv_read_counters" },
    rxe = "EOPNOTSUPP", why = "counters count packets of a flow, and rxe has no flows (its port counters are in"
      .. " /sys/class/infiniband/rxe0/ports/1/hw_counters)" },
  WQ = { what = "work queues and RSS indirection tables", hw = "NVIDIA ConnectX-4 and later (mlx5), ConnectX-3 (mlx4)",
    verbs = { "ibv_create_wq", "ibv_modify_wq", "ibv_destroy_wq", "ibv_post_wq_recv", "ibv_create_rwq_ind_table",
      "ibv_destroy_rwq_ind_table" },
    rxe = "EOPNOTSUPP", why = "WQs spread RAW_PACKET receives over queues (RSS), and rxe has no RAW_PACKET QPs" },
  TD = { what = "thread domains and parent domains", hw = "NVIDIA ConnectX-4 and later (mlx5), AWS EFA (parent domains)",
    verbs = { "ibv_alloc_td", "ibv_dealloc_td", "ibv_alloc_parent_domain" },
    rxe = "EOPNOTSUPP", why = "a thread domain drops the provider's locks for one thread; rxe's provider has no"
      .. " such variant" },
  DMABUF = { what = "dmabuf MRs (GPU or other device memory)", hw = "NVIDIA ConnectX-4 and later (mlx5), AWS EFA,"
      .. " Intel E810 (irdma)",
    verbs = { "ibv_reg_dmabuf_mr" },
    rxe = "EOPNOTSUPP", why = "rxe copies with the CPU and registers only process memory that it can pin" },
  ODP = { what = "on-demand paging (ibv_advise_mr)", hw = "NVIDIA ConnectX-4 and later (mlx5)",
    verbs = { "ibv_advise_mr" },
    rxe = "EOPNOTSUPP", why = "rxe in kernel 6.1 pins every MR (ODP came to rxe in 6.4)" },
  NULL_MR = { what = "null MRs", hw = "NVIDIA ConnectX-4 and later (mlx5)", verbs = { "ibv_alloc_null_mr" },
    rxe = "EOPNOTSUPP", why = "a null MR drops what is written to it, which needs the device's own memory keys" },
  MODERATION = { what = "CQ moderation (ibv_modify_cq)", hw = "NVIDIA ConnectX-4 and later (mlx5)",
    verbs = { "ibv_modify_cq" },
    rxe = "EOPNOTSUPP", why = "rxe signals each completion as it comes: query_device_ex().cq_mod_caps.max_cq_count is 0" },
  RATE_LIMIT = { what = "per-QP rate limits (packet pacing)", hw = "NVIDIA ConnectX-4 and later (mlx5)",
    verbs = { "ibv_modify_qp_rate_limit" },
    rxe = "EOPNOTSUPP", why = "query_device_ex().packet_pacing_caps.qp_rate_limit_max is 0 on rxe" },
  ECE = { what = "Enhanced Connection Establishment", hw = "NVIDIA ConnectX-6 Dx and later (mlx5)",
    verbs = { "ibv_query_ece", "ibv_set_ece", "rdma_set_local_ece", "rdma_get_remote_ece", "rdma_reject_ece" },
    rxe = "EOPNOTSUPP", why = "rxe negotiates no vendor options; librdmacm's rdma_set_local_ece only stores them" },
  CLOCK = { what = "the device's raw clock (ibv_query_rt_values_ex)", hw = "NVIDIA ConnectX-4 and later (mlx5), ConnectX-3 (mlx4)",
    verbs = { "ibv_query_rt_values_ex" },
    rxe = "EOPNOTSUPP", why = "rxe has no clock of its own: query_device_ex().hca_core_clock is 0" },
  IMPORT = { what = "importing a context, PD, MR or DM from another process", hw = "NVIDIA ConnectX-4 and later (mlx5)",
    verbs = { "ibv_import_device", "ibv_import_pd", "ibv_unimport_pd", "ibv_import_mr", "ibv_unimport_mr" },
    rxe = "EOPNOTSUPP", why = "importing needs the provider's ioctl object methods, which rxe's provider lacks (a bad fd"
      .. " gives EINVAL first)" },
  TM = { what = "tag matching", hw = "NVIDIA ConnectX-5 and later (mlx5)",
    verbs = { "ibv_post_srq_ops", "ibv_wc_read_tm_info" },
    rxe = "EOPNOTSUPP", why = "query_device_ex().tm_caps.max_num_tags is 0 on rxe; a TM SRQ is refused (EOPNOTSUPP)" },
  TSO = { what = "TCP segmentation offload", hw = "NVIDIA ConnectX-4 and later (mlx5), on RAW_PACKET and UD (IPoIB) QPs",
    verbs = { "ibv_wr_send_tso" },
    rxe = "EOPNOTSUPP", why = "create_qp_ex with send_ops_flags TSO gives EOPNOTSUPP on rxe" },
  ATOMIC_WRITE = { what = "8-byte atomic writes", hw = "rxe from kernel 6.2, NVIDIA ConnectX-7 (mlx5)",
    verbs = { "ibv_wr_atomic_write" },
    rxe = "rdma-core 44's provider creates the QP (send_ops_flags ATOMIC_WRITE) and posts the WR, and the 6.1"
      .. " kernel completes it LOC_QP_OP_ERR, the target untouched", why = "atomic write came to rxe in kernel 6.2" },
  CQ_READS = { what = "wall-clock timestamps, CVLAN and flow tags in completions", hw = "NVIDIA ConnectX-4 and later (mlx5)",
    verbs = { "ibv_wc_read_completion_wallclock_ns", "ibv_wc_read_cvlan", "ibv_wc_read_flow_tag" },
    rxe = "EOPNOTSUPP", why = "ctx:create_cq_ex with wc_flags COMPLETION_TIMESTAMP_WALLCLOCK, CVLAN, FLOW_TAG or TM_INFO"
      .. " gives EOPNOTSUPP on rxe: its completions carry none of them" },
  REREG = { what = "re-registering an MR in place (ibv_rereg_mr)", hw = "NVIDIA ConnectX (mlx4, mlx5), HiSilicon (hns)",
    verbs = { "ibv_rereg_mr" },
    rxe = "returns -4 (IBV_REREG_MR_ERR_CMD) with errno EOPNOTSUPP",
    why = "the rxe kernel driver has no rereg_user_mr: deregister and register again (mr:dereg(), pd:reg_mr)" },
}

-- verb -> topic
M.TOPIC = {}
for topic, f in pairs(M.FEATURES) do
  for _, v in ipairs(f.verbs) do M.TOPIC[v] = topic end
end

-- The analysis of a failed verb of the table: "rxe0 does not implement XRC
-- domains (EOPNOTSUPP); hardware such as ... does: see help "XRC"".
local function analyze(e)
  local topic = M.TOPIC[e.verb]
  local f = topic and M.FEATURES[topic]
  if not f or (e.errname ~= "EOPNOTSUPP" and e.errname ~= "ENOSYS") then return nil, {} end
  local dev = type(e.context) == "table" and e.context.device or "this device"
  local head = ("%s does not implement %s (%s); hardware such as %s does: see help %q"):format(
    dev, f.what, e.errname, f.hw, topic)
  return head, { { why = f.why, fix = "run it on a device that has it, or do without: help " .. ("%q"):format(topic)
    .. " says what the feature is for" } }
end
M.ANALYZE = {}
for verb in pairs(M.TOPIC) do M.ANALYZE[verb] = analyze end
-- an SRQ type the device lacks: its topic
M.ANALYZE.ibv_create_srq_ex = function(e)
  local t = type(e.context) == "table" and e.context.srq_type
  if t == "TM" or t == "XRC" then
    return analyze(setmetatable({ verb = M.FEATURES[t].verbs[1] }, { __index = e }))
  end
  return nil, {}
end
-- ibv_fork_init once memory is registered
M.ANALYZE.ibv_fork_init = function(e)
  if e.errname ~= "EINVAL" then return nil, {} end
  return "memory is registered already: ibv_fork_init must come before the first reg_mr", { {
    why = "from ibv_fork_init on, libibverbs marks every buffer it pins madvise(MADV_DONTFORK); the pages pinned"
      .. " before cannot be marked, so it refuses. A kernel that copies pinned pages on fork (5.13 and later:"
      .. " verbs.is_fork_initialized() says UNNEEDED) keeps them safe without it",
    fix = "call verbs.fork_init() first thing, before pd:reg_mr (or leave it out when is_fork_initialized() is UNNEEDED)" } }
end
-- an IOVA at another offset in its page than the buffer verbsh allocated
local function iova_offset(e)
  local c = type(e.context) == "table" and e.context or {}
  local iova, page = math.tointeger(c.iova), math.tointeger(c.page)
  if not iova or not page or iova % page == 0 then return nil, {} end
  return ("iova 0x%x is at offset 0x%x in its page, and the buffer verbsh allocated starts a page"):format(iova,
    iova % page), { { why = "the kernel maps whole pages, so an IOVA and its buffer must be at the same offset in a"
    .. " page (rxe refuses another with EINVAL)", fix = ("give an iova that is a multiple of %d, e.g. 0x%x"):format(page,
    iova - iova % page) } }
end
M.ANALYZE.ibv_reg_mr_iova, M.ANALYZE.ibv_reg_mr_iova2 = iova_offset, iova_offset

-- help "XRC": the topic's text.
function M.topic_text(name)
  local f = M.FEATURES[name] or M.FEATURES[tostring(name):upper()]
  if not f then return nil end
  local out = { ("%s: %s"):format(name:upper(), f.what),
    "    devices that have it: " .. f.hw,
    "    rxe (kernel 6.1, rdma-core 44): " .. f.rxe,
    "    why: " .. f.why,
    "    C functions: " .. table.concat(f.verbs, ", ") }
  return table.concat(out, "\n") .. "\n"
end

return M
