-- help() entries for the rest of verbs.h and rdma_cma.h (src/api_rest.c,
-- src/devonly.c, src/cm_rest.c): the same form as help_doc.lua's, which
-- merges them. What rxe answers to the hardware features is
-- explain_dev.lua's table; the entries name its topics (help "XRC").
local M = {}

local function hw(topic, text)
  return text .. ". rxe refuses it (EOPNOTSUPP), explained; devices that have it: see help \"" .. topic .. "\""
end

M.methods = {
  -- context
  query_device_ex = { "context", "ctx:query_device_ex()",
    "int ibv_query_device_ex(struct ibv_context *context, const struct ibv_query_device_ex_input *input,"
    .. " struct ibv_device_attr_ex *attr)",
    "the ibv_device_attr keys (max_qp, max_mr_size, fw_ver ...) and the extended ones: comp_mask,"
    .. " completion_timestamp_mask, hca_core_clock, device_cap_flags_ex, max_wq_type_rq, raw_packet_caps,"
    .. " max_dm_size, xrc_odp_caps, phys_port_cnt_ex, and tables odp_caps (general_caps and"
    .. " per_transport_caps.rc_odp_caps, uc_odp_caps, ud_odp_caps, those three also in odp_caps), tso_caps, rss_caps,"
    .. " packet_pacing_caps, tm_caps, cq_mod_caps, pci_atomic_caps (on rxe the hardware ones are 0)",
    gives = "ibv_device_attr", ex = "ctx:query_device_ex().tm_caps.max_num_tags" },
  query_pkey = { "context", "ctx:query_pkey(port, index)",
    "int ibv_query_pkey(struct ibv_context *context, uint8_t port_num, int index, __be16 *pkey)",
    "the P_Key at index of the port's P_Key table, in host order (0xffff: the default partition, full"
    .. " member; rxe has that one alone, at index 0: index 1 gives ENOENT)", ex = "ctx:query_pkey(1, 0)  --> 65535" },
  get_pkey_index = { "context", "ctx:get_pkey_index(port, pkey)",
    "int ibv_get_pkey_index(struct ibv_context *context, uint8_t port_num, __be16 pkey)",
    "the index of a P_Key (host order) in the port's table, what qp:modify's pkey_index takes; a P_Key not in"
    .. " the table gives ENOENT", ex = "ctx:get_pkey_index(1, 0xffff)  --> 0" },
  create_srq_ex = { "context", "ctx:create_srq_ex{srq_type=, pd=, attr={max_wr=, max_sge=, srq_limit=}, cq=, tm_cap=}",
    "struct ibv_srq *ibv_create_srq_ex(struct ibv_context *context, struct ibv_srq_init_attr_ex *srq_init_attr_ex)",
    "an SRQ of a type: BASIC (what pd:create_srq makes; rxe has it), XRC (with an XRC domain: help \"XRC\") or"
    .. " TM (tag matching: help \"TM\"); comp_mask comes from the keys you set. The SRQ is an ordinary srq object",
    keys = "ibv_srq_init_attr_ex",
    ex = 'srq = ctx:create_srq_ex{ srq_type = "BASIC", pd = pd, attr = { max_wr = 64, max_sge = 1 } }' },
  import_device = { "verbs", "verbs.import_device(fd or ctx)", "struct ibv_context *ibv_import_device(int cmd_fd)",
    "a context over another process's command fd (got through a unix socket); given a ctx, a dup of its own"
    .. " fd. " .. hw("IMPORT", "On success a device object (devobj, kind imported_context)"),
    ex = "verbs.import_device(ctx)" },
  import_pd = { "context", "ctx:import_pd(pd_handle)",
    "struct ibv_pd *ibv_import_pd(struct ibv_context *context, uint32_t pd_handle)",
    hw("IMPORT", "the PD of the imported context whose handle is pd_handle (pd.handle in the other process), as a"
    .. " device object whose destroy calls ibv_unimport_pd"), ex = "ctx:import_pd(remote_pd_handle)" },
  import_dm = { "context", "ctx:import_dm(dm_handle)",
    "struct ibv_dm *ibv_import_dm(struct ibv_context *context, uint32_t dm_handle)",
    hw("DM", "device memory of the imported context; its destroy calls ibv_unimport_dm"), ex = "ctx:import_dm(h)" },
  open_xrcd = { "context", "ctx:open_xrcd()",
    "struct ibv_xrcd *ibv_open_xrcd(struct ibv_context *context, struct ibv_xrcd_init_attr *xrcd_init_attr)",
    hw("XRC", "an XRC domain (fd = -1, oflags = O_CREAT: one not shared through a file), as a device object (kind"
    .. " xrcd) whose destroy calls ibv_close_xrcd"), ex = "xrcd = ctx:open_xrcd()" },
  open_qp = { "context", "ctx:open_qp(qp_num, xrcd)",
    "struct ibv_qp *ibv_open_qp(struct ibv_context *context, struct ibv_qp_open_attr *qp_open_attr)",
    hw("XRC", "opens the XRC_RECV QP qp_num of the XRC domain xrcd (a device object of kind xrcd)"),
    ex = "qp = ctx:open_qp(0x11, xrcd)" },
  alloc_dm = { "context", "ctx:alloc_dm([length=4096])",
    "struct ibv_dm *ibv_alloc_dm(struct ibv_context *context, struct ibv_alloc_dm_attr *attr)",
    hw("DM", "length bytes of the device's own memory, as a device object (kind dm: dm:memcpy_to_dm,"
    .. " dm:memcpy_from_dm, dm:reg_dm_mr; destroy calls ibv_free_dm)"), ex = "dm = ctx:alloc_dm(4096)" },
  alloc_td = { "context", "ctx:alloc_td()",
    "struct ibv_td *ibv_alloc_td(struct ibv_context *context, struct ibv_td_init_attr *init_attr)",
    hw("TD", "a thread domain (device object, kind td; destroy calls ibv_dealloc_td)"), ex = "td = ctx:alloc_td()" },
  alloc_parent_domain = { "context", "ctx:alloc_parent_domain(pd [, td])",
    "struct ibv_pd *ibv_alloc_parent_domain(struct ibv_context *context, struct ibv_parent_domain_init_attr *attr)",
    hw("TD", "a parent domain over pd (and a thread domain); destroy calls ibv_dealloc_pd"),
    ex = "pad = ctx:alloc_parent_domain(pd)" },
  create_counters = { "context", "ctx:create_counters()",
    "struct ibv_counters *ibv_create_counters(struct ibv_context *context, struct ibv_counters_init_attr *init_attr)",
    hw("COUNTERS", "a set of flow counters (device object, kind counters: read_counters,"
    .. " attach_counters_point_flow; destroy calls ibv_destroy_counters)"), ex = "c = ctx:create_counters()" },
  create_wq = { "context", "ctx:create_wq(pd, cq [, max_wr=16])",
    "struct ibv_wq *ibv_create_wq(struct ibv_context *context, struct ibv_wq_init_attr *wq_init_attr)",
    hw("WQ", "a receive work queue (wq_type RQ, max_sge 1), as a device object (kind wq: modify_wq, post_wq_recv;"
    .. " destroy calls ibv_destroy_wq)"), ex = "wq = ctx:create_wq(pd, cq)" },
  create_rwq_ind_table = { "context", "ctx:create_rwq_ind_table([wq])",
    "struct ibv_rwq_ind_table *ibv_create_rwq_ind_table(struct ibv_context *context,"
    .. " struct ibv_rwq_ind_table_init_attr *init_attr)",
    hw("WQ", "an RSS indirection table of one WQ (log_ind_tbl_size 0); destroy calls ibv_destroy_rwq_ind_table"),
    ex = "t = ctx:create_rwq_ind_table(wq)" },
  create_flow_action_esp = { "context", "ctx:create_flow_action_esp()",
    "struct ibv_flow_action *ibv_create_flow_action_esp(struct ibv_context *ctx, struct ibv_flow_action_esp_attr *esp)",
    hw("ESP", "an ESP (IPsec) flow action with an empty attribute (kind flow_action: modify_flow_action_esp;"
    .. " destroy calls ibv_destroy_flow_action)"), ex = "a = ctx:create_flow_action_esp()" },
  query_rt_values_ex = { "context", "ctx:query_rt_values_ex()",
    "int ibv_query_rt_values_ex(struct ibv_context *context, struct ibv_values_ex *values)",
    hw("CLOCK", "the device's raw clock now: { tv_sec=, tv_nsec= } (comp_mask IBV_VALUES_MASK_RAW_CLOCK)"),
    ex = "ctx:query_rt_values_ex().tv_nsec" },
  -- pd and mr
  reg_mr_iova = { "pd", "pd:reg_mr_iova(size_or_string, iova, access)",
    "struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, int access)",
    "register memory that the peer addresses as iova (its remote_addr is iova + offset, not mr.addr); verbsh"
    .. " allocates the buffer at the start of a page, so iova must be a multiple of the page size (rxe fails"
    .. " another with errno 0, explained)", args = { nil, nil, "ibv_access_flags" },
    ex = 'mr = pd:reg_mr_iova(4096, 0x12345000, { "LOCAL_WRITE", "REMOTE_WRITE" })' },
  reg_mr_iova2 = { "pd", "pd:reg_mr_iova2(size_or_string, iova, access)",
    "struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access)",
    "ibv_reg_mr_iova with unsigned access flags (room for the flags above bit 31)", args = { nil, nil, "ibv_access_flags" },
    ex = 'mr = pd:reg_mr_iova2(4096, 0x20000, "LOCAL_WRITE")' },
  rereg = { "mr", "mr:rereg(flags, pd, access)",
    "int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t length, int access)",
    "change the MR's PD (CHANGE_PD) or access (CHANGE_ACCESS) in place; CHANGE_TRANSLATION (a new buffer) is"
    .. " refused, verbsh owns the memory. On rxe it returns -4 (IBV_REREG_MR_ERR_CMD) with errno EOPNOTSUPP:"
    .. " explained, see help \"REREG\". A provider may give the MR new keys: mr.lkey and mr.rkey read them, and a"
    .. " prepared WR (verbs.send_wr, verbs.recv_wr) still holding the old lkey is warned of at its next post",
    args = { "ibv_rereg_mr_flags" },
    ex = 'mr:rereg("CHANGE_ACCESS", nil, { "LOCAL_WRITE", "REMOTE_READ" })' },
  reg_dmabuf_mr = { "pd", "pd:reg_dmabuf_mr(fd, offset, length, iova, access)",
    "struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova, int fd,"
    .. " int access)", hw("DMABUF", "an MR over a dmabuf (GPU memory) fd; destroy calls ibv_dereg_mr"),
    ex = 'mr = pd:reg_dmabuf_mr(fd, 0, 4096, 0, "LOCAL_WRITE")' },
  alloc_null_mr = { "pd", "pd:alloc_null_mr()", "struct ibv_mr *ibv_alloc_null_mr(struct ibv_pd *pd)",
    hw("NULL_MR", "an MR whose writes are dropped and reads give zeros; destroy calls ibv_dereg_mr"),
    ex = "nmr = pd:alloc_null_mr()" },
  advise_mr = { "pd", "pd:advise_mr(mr)",
    "int ibv_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice, uint32_t flags, struct ibv_sge *sg_list,"
    .. " uint32_t num_sge)", hw("ODP", "prefetch (IBV_ADVISE_MR_ADVICE_PREFETCH) the pages of an ODP MR, all of mr"),
    ex = "pd:advise_mr(mr)" },
  import_mr = { "pd", "pd:import_mr(mr_handle)", "struct ibv_mr *ibv_import_mr(struct ibv_pd *pd, uint32_t mr_handle)",
    hw("IMPORT", "the MR of an imported PD; its destroy calls ibv_unimport_mr"), ex = "pd:import_mr(h)" },
  -- cq
  resize = { "cq", "cq:resize(cqe)", "int ibv_resize_cq(struct ibv_cq *cq, int cqe)",
    "make the CQ hold at least cqe completions; returns the new size (C's cq->cqe: rxe gives 127 for 64, 1 for 1;"
    .. " 0 or above max_cqe is EINVAL)", ex = "cq:resize(64)" },
  ["cq:modify"] = { "cq", "cq:modify(cq_count, cq_period)",
    "int ibv_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr)",
    hw("MODERATION", "moderation: one event per cq_count completions or cq_period microseconds (attr_mask"
    .. " IBV_CQ_ATTR_MODERATE)"), ex = "cq:modify(4, 10)" },
  read_completion_wallclock_ns = { "cq", "cq:read_completion_wallclock_ns()",
    "uint64_t ibv_wc_read_completion_wallclock_ns(struct ibv_cq_ex *cq)",
    "the completion's wall-clock time in ns (wc_flags COMPLETION_TIMESTAMP_WALLCLOCK; rxe refuses such a CQ:"
    .. " see help \"CQ_READS\")", ex = "cq:read_completion_wallclock_ns()" },
  read_cvlan = { "cq", "cq:read_cvlan()", "uint16_t ibv_wc_read_cvlan(struct ibv_cq_ex *cq)",
    "the stripped customer VLAN (wc_flags CVLAN; rxe refuses such a CQ: see help \"CQ_READS\")", ex = "cq:read_cvlan()" },
  read_flow_tag = { "cq", "cq:read_flow_tag()", "uint32_t ibv_wc_read_flow_tag(struct ibv_cq_ex *cq)",
    "the flow tag a steering rule set (wc_flags FLOW_TAG; rxe refuses such a CQ: see help \"CQ_READS\")",
    ex = "cq:read_flow_tag()" },
  read_tm_info = { "cq", "cq:read_tm_info()", "void ibv_wc_read_tm_info(struct ibv_cq_ex *cq, struct ibv_wc_tm_info *tm_info)",
    "{ tag=, priv= } of a tag-matching completion (wc_flags TM_INFO; see help \"TM\")", ex = "cq:read_tm_info().tag" },
  -- qp
  query_data_in_order = { "qp", "qp:query_data_in_order(opcode [, flags])",
    "int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags)",
    "1 when the data of op is written in order (a poller may watch the last byte), 0 when not known; flags 1"
    .. " (IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS) returns the capability bits. rxe answers 0 to all",
    args = { "ibv_wr_opcode" }, ex = 'qp:query_data_in_order("RDMA_WRITE")  --> 0 on rxe' },
  create_flow = { "qp", "qp:create_flow([port=1])",
    "struct ibv_flow *ibv_create_flow(struct ibv_qp *qp, struct ibv_flow_attr *flow)",
    hw("FLOW", "a steering rule (type NORMAL, no specs) that sends the port's traffic to this QP; destroy calls"
    .. " ibv_destroy_flow"), ex = "flow = qp:create_flow(1)" },
  modify_rate_limit = { "qp", "qp:modify_rate_limit(rate_limit_kbps)",
    "int ibv_modify_qp_rate_limit(struct ibv_qp *qp, struct ibv_qp_rate_limit_attr *attr)",
    hw("RATE_LIMIT", "pace the QP's sends at rate_limit kbit/s"), ex = "qp:modify_rate_limit(100000)" },
  query_ece = { "qp", "qp:query_ece()", "int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)",
    hw("ECE", "the QP's ECE options: { vendor_id=, options=, comp_mask= }"), ex = "qp:query_ece()" },
  set_ece = { "qp", "qp:set_ece(vendor_id, options)", "int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)",
    hw("ECE", "offer ECE options for the QP's connection"), ex = "qp:set_ece(0x15b3, 1)" },
  wr_atomic_write = { "qp", "qp:wr_atomic_write(rkey, remote_addr, data8)",
    "void ibv_wr_atomic_write(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, const void *atomic_wr)",
    "begin an 8-byte atomic write (send_ops_flags ATOMIC_WRITE) of data8, a string of 8 bytes. rdma-core 44's rxe"
    .. " provider posts it and the 6.1 kernel completes it LOC_QP_OP_ERR: see help \"ATOMIC_WRITE\"; a provider that"
    .. " leaves the op unset is refused (C would jump through a NULL pointer)", ex = 'qp:wr_atomic_write(mr_b.rkey, mr_b.addr, "12345678")' },
  wr_send_tso = { "qp", "qp:wr_send_tso(hdr, mss)",
    "void ibv_wr_send_tso(struct ibv_qp_ex *qp, void *hdr, uint16_t hdr_sz, uint16_t mss)",
    hw("TSO", "begin a TSO send: the device cuts the payload into mss-byte segments, each after hdr (send_ops_flags"
    .. " TSO, which rxe refuses at create_qp_ex)"), ex = "qp:wr_send_tso(headers, 1448)" },
  wr_set_xrc_srqn = { "qp", "qp:wr_set_xrc_srqn(remote_srqn)",
    "void ibv_wr_set_xrc_srqn(struct ibv_qp_ex *qp, uint32_t remote_srqn)",
    hw("XRC", "the remote XRC SRQ the current WR of an XRC_SEND QP goes to"), ex = "qp:wr_set_xrc_srqn(srqn)" },
  -- srq
  get_srq_num = { "srq", "srq:get_srq_num()", "int ibv_get_srq_num(struct ibv_srq *srq, uint32_t *srq_num)",
    hw("XRC", "the SRQ number a sender names in wr_set_xrc_srqn; only XRC SRQs have one (rxe returns EOPNOTSUPP"
    .. " for its BASIC SRQs)"), ex = "srq:get_srq_num()" },
  post_srq_ops = { "srq", "srq:post_srq_ops([wr_id])",
    "int ibv_post_srq_ops(struct ibv_srq *srq, struct ibv_ops_wr *op, struct ibv_ops_wr **bad_op)",
    hw("TM", "post a tag-matching operation (a signaled TAG_SYNC) to a TM SRQ"), ex = "srq:post_srq_ops(1)" },
  -- device objects
  ["devobj:destroy"] = { "devobj", "obj:destroy()",
    "int ibv_close_xrcd(struct ibv_xrcd *xrcd) (ibv_free_dm, ibv_dealloc_td, ibv_dealloc_pd, ibv_destroy_counters,"
    .. " ibv_destroy_wq, ibv_destroy_rwq_ind_table, ibv_destroy_flow, ibv_destroy_flow_action, ibv_dereg_mr,"
    .. " ibv_unimport_pd, ibv_unimport_mr, ibv_unimport_dm, ibv_close_device: by its kind)",
    "free a device object (what a hardware-only verb made: obj.kind says which) with its kind's verb",
    ex = "xrcd:destroy()" },
  memcpy_to_dm = { "devobj", "dm:memcpy_to_dm(offset, str)",
    "int ibv_memcpy_to_dm(struct ibv_dm *dm, uint64_t dm_offset, const void *host_addr, size_t length)",
    hw("DM", "copy bytes into device memory"), ex = 'dm:memcpy_to_dm(0, "hello")' },
  memcpy_from_dm = { "devobj", "dm:memcpy_from_dm(offset, length)",
    "int ibv_memcpy_from_dm(void *host_addr, struct ibv_dm *dm, uint64_t dm_offset, size_t length)",
    hw("DM", "the bytes of device memory, as a string"), ex = "dm:memcpy_from_dm(0, 5)" },
  reg_dm_mr = { "devobj", "dm:reg_dm_mr(pd, length)",
    "struct ibv_mr *ibv_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *dm, uint64_t dm_offset, size_t length,"
    .. " unsigned int access)", hw("DM", "a zero-based MR over device memory (ZERO_BASED, LOCAL_WRITE)"),
    ex = "mr = dm:reg_dm_mr(pd, 4096)" },
  read_counters = { "devobj", "counters:read_counters([n=1])",
    "int ibv_read_counters(struct ibv_counters *counters, uint64_t *counters_value, uint32_t ncounters, uint32_t flags)",
    hw("COUNTERS", "the first n (1..8) counter values, as a list"), ex = "counters:read_counters(2)" },
  attach_counters_point_flow = { "devobj", "counters:attach_counters_point_flow(flow)",
    "int ibv_attach_counters_point_flow(struct ibv_counters *counters, struct ibv_counter_attach_attr *attr,"
    .. " struct ibv_flow *flow)", hw("COUNTERS", "count the packets of flow in counter 0"),
    ex = "counters:attach_counters_point_flow(flow)" },
  modify_wq = { "devobj", "wq:modify_wq()", "int ibv_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *wq_attr)",
    hw("WQ", "move the WQ to RDY"), ex = "wq:modify_wq()" },
  post_wq_recv = { "devobj", "wq:post_wq_recv(mr [, wr_id])",
    "int ibv_post_wq_recv(struct ibv_wq *wq, struct ibv_recv_wr *recv_wr, struct ibv_recv_wr **bad_recv_wr)",
    hw("WQ", "post a receive of all of mr to the WQ"), ex = "wq:post_wq_recv(mr, 1)" },
  modify_flow_action_esp = { "devobj", "action:modify_flow_action_esp()",
    "int ibv_modify_flow_action_esp(struct ibv_flow_action *action, struct ibv_flow_action_esp_attr *esp)",
    hw("ESP", "change an ESP flow action (an empty attribute)"), ex = "action:modify_flow_action_esp()" },
  -- verbs.*
  fork_init = { "verbs", "verbs.fork_init()", "int ibv_fork_init(void)",
    "make registered memory safe across fork() (libibverbs marks each buffer it pins madvise DONTFORK): true,"
    .. " or an error with the errno. It must come before the first reg_mr: after one it gives EINVAL (explained),"
    .. " even where the kernel copies pinned pages on fork anyway (5.13 and later, rxe's 6.1:"
    .. " verbs.is_fork_initialized() says UNNEEDED)", ex = "verbs.fork_init()" },
  is_fork_initialized = { "verbs", "verbs.is_fork_initialized()",
    "enum ibv_fork_status ibv_is_fork_initialized(void)",
    "\"DISABLED\", \"ENABLED\" (fork_init ran) or \"UNNEEDED\" (the kernel keeps pinned pages across fork)",
    ex = "verbs.is_fork_initialized()  --> \"UNNEEDED\" in the rxe VM" },
  node_type_str = { "verbs", "verbs.node_type_str(node_type)", "const char *ibv_node_type_str(enum ibv_node_type node_type)",
    "libibverbs' text for a node type (\"InfiniBand channel adapter\" for CA)", args = { "ibv_node_type" },
    ex = 'verbs.node_type_str("CA")' },
  port_state_str = { "verbs", "verbs.port_state_str(state)", "const char *ibv_port_state_str(enum ibv_port_state port_state)",
    "libibverbs' text for a port state (\"active\" for ACTIVE)", args = { "ibv_port_state" },
    ex = "verbs.port_state_str(ctx:query_port(1).state)" },
  event_type_str = { "verbs", "verbs.event_type_str(event)", "const char *ibv_event_type_str(enum ibv_event_type event)",
    "libibverbs' text for an async event type (\"SRQ limit reached\")", args = { "ibv_event_type" },
    ex = 'verbs.event_type_str("SRQ_LIMIT_REACHED")' },
  wc_status_str = { "verbs", "verbs.wc_status_str(status)", "const char *ibv_wc_status_str(enum ibv_wc_status status)",
    "libibverbs' text for a completion status (\"RNR retry counter exceeded\"); verbs.explain says why and what to do",
    args = { "ibv_wc_status" }, ex = "verbs.wc_status_str(wc.status)" },
  rate_to_mbps = { "verbs", "verbs.rate_to_mbps(rate)", "int ibv_rate_to_mbps(enum ibv_rate rate)",
    "a static rate (ah_attr.static_rate) in Mbit/s: 10000 for \"10_GBPS\"", args = { "ibv_rate" },
    ex = 'verbs.rate_to_mbps("10_GBPS")  --> 10000' },
  rate_to_mult = { "verbs", "verbs.rate_to_mult(rate)", "int ibv_rate_to_mult(enum ibv_rate rate)",
    "a static rate as a multiple of 2.5 Gbit/s: 4 for \"10_GBPS\"", args = { "ibv_rate" },
    ex = 'verbs.rate_to_mult("10_GBPS")  --> 4' },
  mbps_to_rate = { "verbs", "verbs.mbps_to_rate(mbps)", "enum ibv_rate mbps_to_ibv_rate(int mbps)",
    "the enum ibv_rate name for a speed in Mbit/s, \"MAX\" (0) when libibverbs has none for exactly that value",
    ex = "verbs.mbps_to_rate(10000)  --> \"10_GBPS\"" },
  mult_to_rate = { "verbs", "verbs.mult_to_rate(mult)", "enum ibv_rate mult_to_ibv_rate(int mult)",
    "the enum ibv_rate name for a multiple of 2.5 Gbit/s (\"10_GBPS\" for 4), \"MAX\" for none",
    ex = "verbs.mult_to_rate(4)  --> \"10_GBPS\"" },
  flow_label_to_udp_sport = { "verbs", "verbs.flow_label_to_udp_sport(flow_label)",
    "uint16_t ibv_flow_label_to_udp_sport(uint32_t fl)",
    "the RoCEv2 UDP source port (0xC000..0xFFFF) that a GRH flow label (20 bits) maps to",
    ex = "verbs.flow_label_to_udp_sport(0x12345)  --> 58177" },
  is_qpt_supported = { "verbs", "verbs.is_qpt_supported(caps, qp_type)",
    "bool ibv_is_qpt_supported(uint32_t caps, enum ibv_qp_type qpt)",
    "whether the bit of qp_type is set in caps (a bit mask such as query_device_ex().tso_caps.supported_qpts)",
    args = { nil, "ibv_qp_type" }, ex = 'verbs.is_qpt_supported(1 << 2, "RC")  --> true' },
  -- librdmacm
  set_option = { "cm_id", "id:set_option(level, optname, value)",
    "int rdma_set_option(struct rdma_cm_id *id, int level, int optname, void *optval, size_t optlen)",
    "level \"ID\": optname \"TOS\" (0..255, the IP type of service), \"REUSEADDR\" or \"AFONLY\" (true/false),"
    .. " \"ACK_TIMEOUT\" (0..31, the QP's timeout exponent); level \"IB\" (PATH, from an SA query) is refused on"
    .. " this form", ex = 'id:set_option("ID", "TOS", 32)' },
  migrate = { "cm_id", "id:migrate(channel)",
    "int rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel)",
    "the id's events arrive on channel from now on (the id then keeps channel, not the old one, alive); an"
    .. " unacked event of the id is an error first, as rdma_migrate_id would wait for it forever",
    ex = "id:migrate(ch2)" },
  notify = { "cm_id", "id:notify(event)", "int rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event)",
    "tell librdmacm an async event of the id's QP (COMM_EST: data came before ESTABLISHED); on an id without a"
    .. " connection it gives EINVAL", args = { "ibv_event_type" }, ex = 'id:notify("COMM_EST")' },
  set_local_ece = { "cm_id", "id:set_local_ece(vendor_id, options)",
    "int rdma_set_local_ece(struct rdma_cm_id *id, struct ibv_ece *ece)",
    "the ECE options the id's connect or accept will offer (librdmacm stores them: rxe accepts and ignores them;"
    .. " see help \"ECE\")", ex = "id:set_local_ece(0x15b3, 1)" },
  get_remote_ece = { "cm_id", "id:get_remote_ece()", "int rdma_get_remote_ece(struct rdma_cm_id *id, struct ibv_ece *ece)",
    "the peer's ECE options from its request or reply: { vendor_id=, options=, comp_mask= }",
    ex = "id:get_remote_ece()" },
  reject_ece = { "cm_id", "ev.id:reject_ece([private_data])",
    "int rdma_reject_ece(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)",
    "refuse a request for its ECE options; on an id that has no request it gives EINVAL", ex = "ev.id:reject_ece()" },
  get_devices = { "verbs", "verbs.get_devices()", "struct ibv_context **rdma_get_devices(int *num_devices)",
    "the contexts librdmacm opened, one per device (librdmacm's own: ctx:close() is refused, as for id.verbs)",
    ex = "for _, c in ipairs(verbs.get_devices()) do print(c.name) end" },
  ["cm_id:create_qp_ex"] = { "cm_id", "id:create_qp_ex{pd=, qp_type=, send_cq=, recv_cq=, cap={...}, send_ops_flags={...}}",
    "int rdma_create_qp_ex(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *qp_init_attr)",
    "the id's QP (id.qp) with the new post-send API (qp:wr_start ...), moved through its states by librdmacm;"
    .. " comp_mask comes from the keys you set", keys = "ibv_qp_init_attr_ex",
    ex = 'qp = id:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq,\n'
      .. '                        cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 },\n'
      .. '                        send_ops_flags = { "SEND" } }' },
  event_str = { "verbs", "verbs.event_str(event)", "const char *rdma_event_str(enum rdma_cm_event_type event)",
    "librdmacm's name of a cm event (\"RDMA_CM_EVENT_ESTABLISHED\")", args = { "rdma_cm_event_type" },
    ex = "verbs.event_str(ev.event)" },
}

-- C functions verbsh calls inside those methods.
M.c_inside = {
  ibv_get_device_index = "devices", rdma_free_devices = "get_devices",
  mbps_to_ibv_rate = "mbps_to_rate", mult_to_ibv_rate = "mult_to_rate",
  ibv_close_xrcd = "devobj:destroy", ibv_free_dm = "devobj:destroy", ibv_dealloc_td = "devobj:destroy",
  ibv_destroy_counters = "devobj:destroy", ibv_destroy_wq = "devobj:destroy",
  ibv_destroy_rwq_ind_table = "devobj:destroy", ibv_destroy_flow = "devobj:destroy",
  ibv_destroy_flow_action = "devobj:destroy", ibv_unimport_pd = "devobj:destroy",
  ibv_unimport_mr = "devobj:destroy", ibv_unimport_dm = "devobj:destroy",
}

-- libibverbs' internals that its headers declare: no one calls them.
M.internal = {
  ibv_static_providers = "links the providers into a static libibverbs (RDMA_STATIC_PROVIDERS): the"
    .. " __ibv_get_device_list wrapper calls it",
  __ibv_get_device_list = "the static-provider wrapper that ibv_get_device_list becomes under RDMA_STATIC_PROVIDERS",
  verbs_get_ctx = "gives the struct verbs_context behind an ibv_context, for the header's inline verbs",
  ___ibv_query_port = "what the ibv_query_port macro calls: verbsh's ctx:query_port",
  _ibv_query_gid_ex = "what the ibv_query_gid_ex macro calls: verbsh's ctx:gids",
  _ibv_query_gid_table = "what the ibv_query_gid_table macro calls: verbsh's ctx:gids",
  __ibv_reg_mr = "what the ibv_reg_mr macro calls: verbsh's pd:reg_mr",
  __ibv_reg_mr_iova = "what the ibv_reg_mr_iova macro calls: verbsh's pd:reg_mr_iova",
  ibv_resolve_eth_l2_from_gid = "for providers: the Ethernet MAC and VLAN behind a GID, when a RoCE provider"
    .. " builds an AH (libibverbs exports it for them; an application never calls it)",
  rdma_seterrno = "rdma_verbs.h's helper that sets errno from a return value inside its inline functions",
}

function M.internal_text(name)
  local t = M.internal[name]
  if t then return ("%s: internal to libibverbs/librdmacm, not for applications (verbsh binds no method): %s\n"):format(name, t) end
  return require("verbs.explain_dev").topic_text(name)
end

return M
