-- The text behind help(): one entry per function or method, and the lesson
-- helpers (what table keys mean is in help_keys.lua). The keys' names, types
-- and ranges are not written here: help.lua reads them from the
-- marshaller's descriptors (verbs.fields), so that help lists exactly what
-- verbsh accepts.
local M = {}

-- M.methods[name] or M.methods["class:name"] (for a name that several
-- classes share; the plain name is the most common one) =
--   { object, Lua form, C prototype, meaning,
--     keys = C type of the table argument (verbs.fields), gives = C type of
--     the table returned (each: "a list of tables" when it gives several), args = { [position] = enum } for string arguments
--     (Tab offers their names), ex = one example }
M.methods = {
  devices = { "verbs", "verbs.devices()", "struct ibv_device **ibv_get_device_list(int *num_devices)",
    "the RDMA devices: name, guid, node_type, transport_type", ex = "for _, d in ipairs(verbs.devices()) do print(d.name, d.node_type) end" },
  open = { "verbs", "verbs.open([name])", "struct ibv_context *ibv_open_device(struct ibv_device *device)",
    "open a device: -d DEV / VERBSH_DEVICE, else the first with an ACTIVE port", ex = 'ctx = verbs.open("rxe0")' },
  trace = { "verbs", "verbs.trace(true | false | function)", "(none)",
    "print every verb call as it happens, as the C that verbs.export_c writes for it with this run's outcome"
    .. " (ibv_modify_qp(qp1, &attr1, IBV_QP_STATE) = 22 /* EINVAL */); a function gets (call, ret, decl)"
    .. " instead, once the verb returned. Returns the previous setting", ex = "verbs.trace(true)" },
  explain = { "verbs", "verbs.explain(wc | status | error)", "(none)",
    "why a completion or a verb failed, and how to fix it (at the prompt it prints as text); verbs.explain(\"iwarp\")"
    .. " sums up what an iWARP device (siw) refuses that RoCE does",
    args = { "ibv_wc_status" }, ex = 'verbs.explain("RNR_RETRY_EXC_ERR")' },
  gid_bytes = { "verbs", 'verbs.gid_bytes("fe80::1")', "inet_pton(AF_INET6, text, gid.raw)",
    "the 16 raw bytes of a GID given as text", ex = 'verbs.gid_bytes("::ffff:192.0.2.1")' },
  now = { "verbs", "verbs.now()", "clock_gettime(CLOCK_MONOTONIC, &ts)",
    "seconds on the monotonic clock, for timing", ex = "t = verbs.now(); cq:wait(1); print(verbs.now() - t)" },
  fields = { "verbs", "verbs.fields([ctype])", "(none: verbsh's own field descriptors)",
    "the keys a table of C type ctype takes, as the marshaller checks them: a list of { name=, type=,"
    .. " c=, enum=, struct=, class=, min=, max=, boolean=, input_only=, mask=, bit= } (mask: the C bit the key sets"
    .. " in the verb's mask, \"IBV_QP_PATH_MTU\", and bit its value); with no argument, the C types described", ex = 'for _, f in ipairs(verbs.fields("ibv_qp_attr")) do print(f.name, f.type, f.enum) end' },
  enum = { "verbs", "verbs.enum(ctype)", "(none: verbsh's own enum tables)",
    "a C enum or flag set: { ctype=, prefix=, flags=, names = {...}, values = { NAME = number } }"
    .. " (verbs.enums[ctype] is the list of names alone)", ex = 'verbs.enum("ibv_wr_opcode").values.SEND' },
  enums = { "verbs", "verbs.enums[ctype]", "(none: verbsh's own enum tables)",
    "the names of every C enum and flag set verbsh speaks, in value order, by C type name;"
    .. " verbs.enum(ctype) adds the values", ex = 'table.concat(verbs.enums.ibv_qp_state, " ")' },
  oob = { "verbs", "verbs.oob", "(none: TCP sockets, as rdma-core's examples exchange QP numbers)",
    "the out-of-band exchange before the first RDMA packet: verbs.oob.listen, verbs.oob.connect, then"
    .. " c:send{...} and c:recv(); every wait times out after verbs.oob.timeout (10 s)",
    ex = 'c = verbs.oob.connect("127.0.0.1", 18515); c:send{ qp_num = qp.qp_num }; peer = c:recv()' },
  query_device = { "context", "ctx:query_device()",
    "int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *device_attr)",
    "the device's limits and capabilities", gives = "ibv_device_attr", ex = "ctx:query_device().max_qp_wr" },
  query_port = { "context", "ctx:query_port([port])",
    "int ibv_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *port_attr)",
    "state, MTUs, link layer, GID table length", gives = "ibv_port_attr", ex = "ctx:query_port(1).active_mtu" },
  query_gid = { "context", "ctx:query_gid(port, index)",
    "int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)",
    "one GID table entry, as text", ex = "ctx:query_gid(1, gid_index)" },
  gids = { "context", "ctx:gids([port])", "int ibv_query_gid_ex(... struct ibv_gid_entry *entry ...)",
    "the non-empty GID entries with index, gid and type (RoCE v2: the IPv4-mapped one rxe needs)",
    ex = "for _, g in ipairs(ctx:gids()) do print(g.index, g.gid, g.type) end" },
  alloc_pd = { "context", "ctx:alloc_pd()", "struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)",
    "a protection domain: MRs, QPs and AHs in one PD may be used together", ex = "pd = ctx:alloc_pd()" },
  create_comp_channel = { "context", "ctx:create_comp_channel()",
    "struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)",
    "a file descriptor that wakes up when an armed CQ gets a completion", ex = "ch = ctx:create_comp_channel()" },
  create_cq = { "context", "ctx:create_cq(cqe [, {channel=, comp_vector=}])",
    "struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,"
    .. " struct ibv_comp_channel *channel, int comp_vector)", "a completion queue of at least cqe entries",
    keys = "ibv_create_cq options", ex = "cq = ctx:create_cq(16, { channel = ch })" },
  get_async_event = { "context", "ctx:get_async_event([timeout_ms])",
    "int ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)",
    "the next asynchronous event (port change, SRQ limit, QP fatal...), acked for you: { event_type=, cq=,"
    .. " qp=, srq=, port_num= }, or nil at the timeout", ex = "ev = ctx:get_async_event(1000)" },
  close = { "context", "ctx:close()", "int ibv_close_device(struct ibv_context *context)", "close the device",
    ex = "ctx:close()" },
  reg_mr = { "pd", "pd:reg_mr(size_or_string, access)",
    "struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)",
    "register (pin) memory that verbsh allocates; a string initialises it", args = { nil, "ibv_access_flags" },
    ex = 'mr = pd:reg_mr(4096, { "LOCAL_WRITE", "REMOTE_WRITE" })' },
  create_qp = { "pd", "pd:create_qp{qp_type=, send_cq=, recv_cq=, srq=, cap={...}, sq_sig_all=}",
    "struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)",
    "a queue pair (RC, UC or UD), in RESET", keys = "ibv_qp_init_attr",
    ex = 'qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,\n'
      .. '                   cap = { max_send_wr = 16, max_recv_wr = 16, max_send_sge = 1, max_recv_sge = 1 } }' },
  create_ah = { "pd", "pd:create_ah{is_global=, port_num=, grh={dgid=, sgid_index=, hop_limit=}, ...}",
    "struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)",
    "an address handle: where a UD send goes", keys = "ibv_ah_attr",
    ex = "ah = pd:create_ah{ is_global = 1, port_num = 1,\n"
      .. "                   grh = { dgid = ctx:query_gid(1, gid_index), sgid_index = gid_index, hop_limit = 1 } }" },
  create_srq = { "pd", "pd:create_srq{max_wr=, max_sge=, srq_limit=}",
    "struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *srq_init_attr)",
    "a shared receive queue that several QPs take their receives from", keys = "ibv_srq_attr",
    ex = "srq = pd:create_srq{ max_wr = 64, max_sge = 1 }" },
  dealloc = { "pd", "pd:dealloc()", "int ibv_dealloc_pd(struct ibv_pd *pd)", "free the PD (its objects first)",
    ex = "pd:dealloc()" },
  -- memory windows
  alloc_mw = { "pd", 'pd:alloc_mw(type)', "struct ibv_mw *ibv_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)",
    "a memory window: a second rkey onto part of an MR (registered with MW_BIND) that you grant and revoke without"
    .. " registering again. TYPE_1 is bound with qp:bind_mw and revoked by binding it again with length 0;"
    .. " TYPE_2 is bound by a BIND_MW work request and revoked by LOCAL_INV or the peer's SEND_WITH_INV. rxe"
    .. " has both (max_mw 524287); it checks an access through a window against the MR's range, not the"
    .. " window's (kernel 6.1)", args = { "ibv_mw_type" }, ex = 'mw = pd:alloc_mw("TYPE_2")' },
  bind_mw = { "qp", "qp:bind_mw(mw, {wr_id=, send_flags=, bind_info={mr=, addr=, length=, mw_access_flags=}})",
    "int ibv_bind_mw(struct ibv_qp *qp, struct ibv_mw *mw, struct ibv_mw_bind *mw_bind)",
    "bind a TYPE_1 window onto [addr, addr+length) of bind_info.mr: posts a BIND_MW WR on qp (a completion"
    .. " BIND_MW when SIGNALED, MW_BIND_ERR when the MR lacks MW_BIND or the range is outside it) and returns"
    .. " the window's new rkey, as C writes it into mw->rkey (ibv_inc_rkey of the old one; after an"
    .. " MW_BIND_ERR the kernel still has the old one). length = 0 unbinds. The peer uses it as rdma.rkey",
    keys = "ibv_mw_bind",
    ex = 'rkey = qp:bind_mw(mw, { wr_id = 1, send_flags = "SIGNALED",\n'
      .. '  bind_info = { mr = mr, addr = mr.addr, length = 64, mw_access_flags = { "REMOTE_READ", "REMOTE_WRITE" } } })' },
  ["mw:dealloc"] = { "mw", "mw:dealloc()", "int ibv_dealloc_mw(struct ibv_mw *mw)",
    "free the window (a bound window is revoked with it)", ex = "mw:dealloc()" },
  inc_rkey = { "verbs", "verbs.inc_rkey(rkey)", "uint32_t ibv_inc_rkey(uint32_t rkey)",
    "the next rkey of the same window: the low 8 bits (the key) plus 1, wrapping at 0xff; the index bits stay."
    .. " A type 2 bind gives the window this rkey (bind_mw.rkey); afterwards set mw.rkey to it, as C sets"
    .. " mw->rkey, before the window is bound again", ex = "rkey = verbs.inc_rkey(mw.rkey)" },
  wr_bind_mw = { "qp", "qp:wr_bind_mw(mw, rkey, {mr=, addr=, length=, mw_access_flags=})",
    "void ibv_wr_bind_mw(struct ibv_qp_ex *qp, struct ibv_mw *mw, uint32_t rkey, const struct ibv_mw_bind_info *bind_info)",
    "begin a BIND_MW WR that gives a TYPE_2 window the rkey given (send_ops_flags BIND_MW)", keys = "ibv_mw_bind_info",
    ex = 'qp:wr_bind_mw(mw, verbs.inc_rkey(mw.rkey), { mr = mr, addr = mr.addr, length = 64, mw_access_flags = "REMOTE_READ" })' },
  wr_local_inv = { "qp", "qp:wr_local_inv(invalidate_rkey)",
    "void ibv_wr_local_inv(struct ibv_qp_ex *qp, uint32_t invalidate_rkey)",
    "begin a LOCAL_INV WR: revokes a TYPE_2 window of this side (send_ops_flags LOCAL_INV)", ex = "qp:wr_local_inv(rkey)" },
  wr_send_inv = { "qp", "qp:wr_send_inv(invalidate_rkey)",
    "void ibv_wr_send_inv(struct ibv_qp_ex *qp, uint32_t invalidate_rkey)",
    "begin a SEND_WITH_INV WR: a SEND that also revokes the peer's window invalidate_rkey; the peer's receive"
    .. " completion gives it as wc.invalidated_rkey (send_ops_flags SEND_WITH_INV)",
    ex = "qp:wr_send_inv(peer_rkey); qp:wr_set_sge(mr, 0, 4)" },
  read = { "mr", "mr:read([off [, len]])", "(memcpy from mr->addr)", "the MR's bytes, as a string",
    ex = "mr:read(0, 5)" },
  write = { "mr", "mr:write(off, str)", "(memcpy to mr->addr)", "put bytes into the MR", ex = 'mr:write(0, "hello")' },
  fill = { "mr", "mr:fill(byte [, off, len])", "(memset)", "fill the MR with one byte value", ex = "mr:fill(0)" },
  dereg = { "mr", "mr:dereg()", "int ibv_dereg_mr(struct ibv_mr *mr)", "unpin and free the memory", ex = "mr:dereg()" },
  poll = { "cq", "cq:poll([max]) or cq:poll(wcs)", "int ibv_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)",
    "take up to max completions now (an empty list when there is none)", gives = "ibv_wc", each = "a list of completions, each a copy",
    ex = "for _, wc in ipairs(cq:poll(16)) do print(wc.wr_id, wc.status) end" },
  wait = { "cq", "cq:wait(n [, timeout_ms]) or cq:wait(wcs [, n [, timeout_ms]])", "(ibv_poll_cq in a loop)",
    "poll until n completions or the timeout; Ctrl-C interrupts. When the timeout ends it short, the list (or"
    .. " the wc_array form's count) comes with a second value that says so: \"timed out after 100 ms: 0 of 2 completions\";"
    .. " so does a poll that failed after some came (\"ibv_poll_cq failed after 2 of 3 completions: ...\")", gives = "ibv_wc", each = "a list of completions, each a copy", ex = "wcs = cq:wait(2, 1000)" },
  req_notify = { "cq", "cq:req_notify([solicited_only])", "int ibv_req_notify_cq(struct ibv_cq *cq, int solicited_only)",
    "arm the CQ: its channel wakes up at the next completion", ex = "cq:req_notify()" },
  ack_events = { "cq", "cq:ack_events(n)", "void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)",
    "acknowledge n events got from the channel", ex = "cq:ack_events(1)" },
  get_cq_event = { "comp_channel", "channel:get_cq_event([timeout_ms])",
    "int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)",
    "wait for an armed CQ to get a completion; returns the CQ, or nil at the timeout", ex = "ev_cq = ch:get_cq_event(1000)" },
  modify = { "qp", "qp:modify(attr [, mask])", "int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)",
    "change state and attributes; the mask comes from the keys you set unless you give one",
    keys = "ibv_qp_attr", args = { nil, "ibv_qp_attr_mask" },
    ex = 'qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = { "REMOTE_WRITE" } }' },
  ["srq:modify"] = { "srq", "srq:modify(attr [, mask])",
    "int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr, int srq_attr_mask)",
    "resize the SRQ (max_wr) or arm its limit event (srq_limit); the mask comes from the keys",
    keys = "ibv_srq_attr", args = { nil, "ibv_srq_attr_mask" }, ex = "srq:modify{ srq_limit = 4 }" },
  query = { "qp", "qp:query()", "int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,"
    .. " struct ibv_qp_init_attr *init_attr)", "the QP's attributes, all of them: it takes no arguments (C's"
    .. " attr_mask is every IBV_QP_* bit), and the init_attr as a second table (qp.state alone: qp.state)",
    gives = "ibv_qp_attr", ex = "attr, init = qp:query(); print(attr.qp_state, attr.dest_qp_num)" },
  ["srq:query"] = { "srq", "srq:query()", "int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr)",
    "the SRQ's max_wr, max_sge and srq_limit", gives = "ibv_srq_attr", ex = "srq:query().srq_limit" },
  post_send = { "qp", "qp:post_send(wr_or_list or verbs.send_wr)",
    "int ibv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)",
    "post SEND/WRITE/READ/atomic work requests, and the memory-window ones (BIND_MW with bind_mw ="
    .. " { mw =, rkey =, bind_info = {...} }, LOCAL_INV and SEND_WITH_INV with invalidate_rkey); a list is one"
    .. " chained call", keys = "ibv_send_wr",
    ex = 'qp:post_send{ wr_id = 1, opcode = "RDMA_WRITE", send_flags = "SIGNALED",\n'
      .. '              sg_list = { { mr = mr_a, offset = 0, length = 64 } },\n'
      .. '              rdma = { remote_addr = mr_b.addr, rkey = mr_b.rkey } }' },
  post_recv = { "qp", "qp:post_recv(wr_or_list or verbs.recv_wr)",
    "int ibv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)",
    "post receive buffers", keys = "ibv_recv_wr",
    ex = "qp:post_recv{ wr_id = 7, sg_list = { { mr = mr_b, offset = 0, length = 4096 } } }" },
  ["srq:post_recv"] = { "srq", "srq:post_recv(wr_or_list or verbs.recv_wr)",
    "int ibv_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *recv_wr, struct ibv_recv_wr **bad_recv_wr)",
    "post receive buffers that any QP using this SRQ consumes", keys = "ibv_recv_wr",
    ex = "srq:post_recv{ wr_id = 1, sg_list = { { mr = mr_b, length = 256 } } }" },
  send_wr = { "verbs", "verbs.send_wr(wr_or_list)", "struct ibv_send_wr wr = { ... };  /* built once */",
    "a prepared WR (or chain): qp:post_send(wr) again and again; wr.wr_id etc. settable", keys = "ibv_send_wr",
    ex = 'wr = verbs.send_wr{ opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr, length = 64 } } }' },
  recv_wr = { "verbs", "verbs.recv_wr(wr_or_list)", "struct ibv_recv_wr wr = { ... };  /* built once */",
    "a prepared receive WR (or chain) for qp:post_recv / srq:post_recv", keys = "ibv_recv_wr",
    ex = "rwr = verbs.recv_wr{ wr_id = 1, sg_list = { { mr = mr, length = 64 } } }" },
  wc_array = { "verbs", "verbs.wc_array(n)", "struct ibv_wc wc[n];",
    "n = cq:poll(wcs) / cq:wait(wcs, n, timeout_ms) fill it in place; wcs[i].status reads entry i;"
      .. " #wcs is n, and ipairs(wcs) walks the entries the last poll filled",
    gives = "ibv_wc", each = "entries that read as tables", ex = "wcs = verbs.wc_array(16); n = cq:poll(wcs); print(n, n > 0 and wcs[1].status)" },
  destroy = { "qp, cq, ah, srq, comp_channel, cm_channel", "obj:destroy()",
    "int ibv_destroy_qp(struct ibv_qp *qp) (ibv_destroy_cq, ibv_destroy_ah, ibv_destroy_srq,"
    .. " ibv_destroy_comp_channel, rdma_destroy_event_channel)",
    "free the object; using it afterwards is an error", ex = "qp:destroy()" },
  create_ah_from_wc = { "pd", "pd:create_ah_from_wc(wc, grh, port_num)",
    "struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh, uint8_t port_num)",
    "an AH back to the sender of a UD receive; grh = mr:read(offset, 40)", keys = "ibv_wc",
    ex = "ah = pd:create_ah_from_wc(wc, mr:read(0, 40), 1)" },
  init_ah_from_wc = { "context", "ctx:init_ah_from_wc(port_num, wc, grh)",
    "int ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num, struct ibv_wc *wc,"
    .. " struct ibv_grh *grh, struct ibv_ah_attr *ah_attr)", "the ah_attr that answers the sender of a UD receive",
    keys = "ibv_wc", gives = "ibv_ah_attr", ex = "ah_attr = ctx:init_ah_from_wc(1, wc, mr:read(0, 40))" },
  -- the extended verbs
  create_qp_ex = { "context", "ctx:create_qp_ex{pd=, qp_type=, send_cq=, recv_cq=, cap={...}, send_ops_flags={...}}",
    "struct ibv_qp *ibv_create_qp_ex(struct ibv_context *context, struct ibv_qp_init_attr_ex *qp_init_attr_ex)",
    "a QP with the new post-send API (qp:wr_start ...); comp_mask comes from the keys you set",
    keys = "ibv_qp_init_attr_ex",
    ex = 'qp = ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq,\n'
      .. '                       cap = { max_send_wr = 16, max_recv_wr = 16, max_send_sge = 1, max_recv_sge = 1 },\n'
      .. '                       send_ops_flags = { "SEND", "RDMA_WRITE" } }' },
  wr_start = { "qp", "qp:wr_start()", "void ibv_wr_start(struct ibv_qp_ex *qp)",
    "open a batch of WRs; set qp.wr_id and qp.wr_flags before each op", ex = "qp:wr_start()" },
  wr_complete = { "qp", "qp:wr_complete()", "int ibv_wr_complete(struct ibv_qp_ex *qp)",
    "post every WR built since wr_start, with one doorbell", ex = "qp:wr_complete()" },
  wr_abort = { "qp", "qp:wr_abort()", "void ibv_wr_abort(struct ibv_qp_ex *qp)", "drop the WRs built since wr_start",
    ex = "qp:wr_abort()" },
  wr_send = { "qp", "qp:wr_send()", "void ibv_wr_send(struct ibv_qp_ex *qp)",
    "begin a SEND WR (then wr_set_sge or wr_set_inline_data)", ex = "qp:wr_send(); qp:wr_set_sge(mr, 0, 64)" },
  wr_send_imm = { "qp", "qp:wr_send_imm(imm_data)", "void ibv_wr_send_imm(struct ibv_qp_ex *qp, __be32 imm_data)",
    "begin a SEND_WITH_IMM WR (imm in host order; verbsh does the htobe32)", ex = "qp:wr_send_imm(0x1234)" },
  wr_rdma_write = { "qp", "qp:wr_rdma_write(rkey, remote_addr)",
    "void ibv_wr_rdma_write(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr)", "begin an RDMA WRITE WR",
    ex = "qp:wr_rdma_write(mr_b.rkey, mr_b.addr)" },
  wr_rdma_write_imm = { "qp", "qp:wr_rdma_write_imm(rkey, remote_addr, imm_data)",
    "void ibv_wr_rdma_write_imm(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, __be32 imm_data)",
    "begin an RDMA WRITE WITH IMM WR (consumes a receive at the peer)",
    ex = "qp:wr_rdma_write_imm(mr_b.rkey, mr_b.addr, 7)" },
  wr_rdma_read = { "qp", "qp:wr_rdma_read(rkey, remote_addr)",
    "void ibv_wr_rdma_read(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr)", "begin an RDMA READ WR",
    ex = "qp:wr_rdma_read(mr_b.rkey, mr_b.addr)" },
  wr_atomic_cmp_swp = { "qp", "qp:wr_atomic_cmp_swp(rkey, remote_addr, compare, swap)",
    "void ibv_wr_atomic_cmp_swp(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, uint64_t compare, uint64_t swap)",
    "begin a compare-and-swap on an aligned 64-bit word (then an 8-byte wr_set_sge)",
    ex = "qp:wr_atomic_cmp_swp(mr_b.rkey, mr_b.addr, 0, 1); qp:wr_set_sge(mr_a, 0, 8)" },
  wr_atomic_fetch_add = { "qp", "qp:wr_atomic_fetch_add(rkey, remote_addr, add)",
    "void ibv_wr_atomic_fetch_add(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, uint64_t add)",
    "begin a fetch-and-add (then an 8-byte wr_set_sge)",
    ex = "qp:wr_atomic_fetch_add(mr_b.rkey, mr_b.addr, 1); qp:wr_set_sge(mr_a, 0, 8)" },
  wr_set_sge = { "qp", "qp:wr_set_sge(mr, offset, length) or qp:wr_set_sge(lkey, addr, length)",
    "void ibv_wr_set_sge(struct ibv_qp_ex *qp, uint32_t lkey, uint64_t addr, uint32_t length)",
    "the local buffer of the WR the last op began", ex = "qp:wr_set_sge(mr_a, 0, 64)" },
  wr_set_sge_list = { "qp", "qp:wr_set_sge_list{ {mr=, offset=, length=}, ... }",
    "void ibv_wr_set_sge_list(struct ibv_qp_ex *qp, size_t num_sge, const struct ibv_sge *sg_list)",
    "several local buffers (a gather list) for the current WR", keys = "ibv_sge",
    ex = "qp:wr_set_sge_list{ { mr = mr_a, offset = 0, length = 8 }, { mr = mr_a, offset = 64, length = 8 } }" },
  wr_set_inline_data = { "qp", "qp:wr_set_inline_data(str)",
    "void ibv_wr_set_inline_data(struct ibv_qp_ex *qp, void *addr, size_t length)",
    "copy the bytes into the WR now (at most cap.max_inline_data)", ex = 'qp:wr_set_inline_data("hi")' },
  wr_set_inline_data_list = { "qp", "qp:wr_set_inline_data_list{ str, ... }",
    "void ibv_wr_set_inline_data_list(struct ibv_qp_ex *qp, size_t num_buf, const struct ibv_data_buf *buf_list)",
    "several inline pieces for the current WR. On rxe (rdma-core 44) the WR completes SUCCESS having sent none of"
    .. " them, in C as here: verbsh warns; use wr_set_inline_data with one buffer there",
    ex = 'qp:wr_set_inline_data_list{ "hel", "lo" }' },
  wr_set_ud_addr = { "qp", "qp:wr_set_ud_addr(ah, remote_qpn, remote_qkey)",
    "void ibv_wr_set_ud_addr(struct ibv_qp_ex *qp, struct ibv_ah *ah, uint32_t remote_qpn, uint32_t remote_qkey)",
    "where the current UD WR goes (every UD WR needs it)", ex = "qp:wr_set_ud_addr(ah, qp_b.qp_num, 0x11111111)" },
  create_cq_ex = { "context", "ctx:create_cq_ex{cqe=, wc_flags={...}, channel=, comp_vector=}",
    "struct ibv_cq_ex *ibv_create_cq_ex(struct ibv_context *context, struct ibv_cq_init_attr_ex *cq_attr)",
    "a CQ read one field at a time: start_poll, read_*, next_poll, end_poll; wc_flags names the fields",
    keys = "ibv_cq_init_attr_ex", ex = 'cq = ctx:create_cq_ex{ cqe = 16, wc_flags = { "BYTE_LEN", "IMM", "QP_NUM" } }' },
  start_poll = { "cq", "cq:start_poll()", "int ibv_start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr)",
    "true: a completion is current (cq.wr_id, cq.status, cq:read_*); false: empty (ENOENT), and no end_poll",
    ex = "if cq:start_poll() then print(cq.wr_id, cq.status); cq:end_poll() end" },
  next_poll = { "cq", "cq:next_poll()", "int ibv_next_poll(struct ibv_cq_ex *cq)",
    "move to the next completion: true, or false when there is none (end_poll still due)",
    ex = "repeat print(cq.wr_id) until not cq:next_poll()" },
  end_poll = { "cq", "cq:end_poll()", "void ibv_end_poll(struct ibv_cq_ex *cq)",
    "release the CQ and consume what was read; only after a start_poll that returned true", ex = "cq:end_poll()" },
  read_opcode = { "cq", "cq:read_opcode()", "enum ibv_wc_opcode ibv_wc_read_opcode(struct ibv_cq_ex *cq)",
    "the current completion's opcode", ex = "cq:read_opcode()" },
  read_vendor_err = { "cq", "cq:read_vendor_err()", "uint32_t ibv_wc_read_vendor_err(struct ibv_cq_ex *cq)",
    "the vendor error (valid on failures)", ex = "cq:read_vendor_err()" },
  read_byte_len = { "cq", "cq:read_byte_len()", "uint32_t ibv_wc_read_byte_len(struct ibv_cq_ex *cq)",
    "bytes received (wc_flags BYTE_LEN)", ex = "cq:read_byte_len()" },
  read_imm_data = { "cq", "cq:read_imm_data()", "__be32 ibv_wc_read_imm_data(struct ibv_cq_ex *cq)",
    "the immediate, host order (wc_flags IMM)", ex = "cq:read_imm_data()" },
  read_invalidated_rkey = { "cq", "cq:read_invalidated_rkey()",
    "uint32_t ibv_wc_read_invalidated_rkey(struct ibv_cq_ex *cq)",
    "the rkey a received SEND_WITH_INV revoked here (wc_flags IMM: it shares imm_data's bytes)",
    ex = "cq:read_invalidated_rkey()" },
  read_qp_num = { "cq", "cq:read_qp_num()", "uint32_t ibv_wc_read_qp_num(struct ibv_cq_ex *cq)",
    "the local QP (wc_flags QP_NUM)", ex = "cq:read_qp_num()" },
  read_src_qp = { "cq", "cq:read_src_qp()", "uint32_t ibv_wc_read_src_qp(struct ibv_cq_ex *cq)",
    "the sender's QP, UD (wc_flags SRC_QP)", ex = "cq:read_src_qp()" },
  read_wc_flags = { "cq", "cq:read_wc_flags()", "unsigned int ibv_wc_read_wc_flags(struct ibv_cq_ex *cq)",
    "GRH, WITH_IMM, ...", ex = "cq:read_wc_flags()" },
  read_slid = { "cq", "cq:read_slid()", "uint32_t ibv_wc_read_slid(struct ibv_cq_ex *cq)", "source LID (wc_flags SLID)",
    ex = "cq:read_slid()" },
  read_sl = { "cq", "cq:read_sl()", "uint8_t ibv_wc_read_sl(struct ibv_cq_ex *cq)", "service level (wc_flags SL)",
    ex = "cq:read_sl()" },
  read_dlid_path_bits = { "cq", "cq:read_dlid_path_bits()", "uint8_t ibv_wc_read_dlid_path_bits(struct ibv_cq_ex *cq)",
    "path bits (wc_flags DLID_PATH_BITS)", ex = "cq:read_dlid_path_bits()" },
  read_completion_ts = { "cq", "cq:read_completion_ts()", "uint64_t ibv_wc_read_completion_ts(struct ibv_cq_ex *cq)",
    "the device's timestamp (wc_flags COMPLETION_TIMESTAMP; rxe has none)", ex = "cq:read_completion_ts()" },
  iter = { "cq", "for wc in cq:iter() do ... end", "ibv_start_poll / ibv_next_poll / ibv_end_poll in a loop",
    "the completions now in the CQ, as the WCs cq:poll gives; a break still ends the poll (the loop owns"
    .. " its poll: cq:end_poll or cq:destroy inside it is an error at the next step)", gives = "ibv_wc",
    each = "one completion at a time, a copy",
    ex = "for wc in cq:iter() do print(wc.wr_id, wc.status) end" },
  wait_fds = { "verbs", "verbs.wait_fds({channel, cm_channel, ctx, cm_id, socket, fd...} [, timeout_ms])",
    "int poll(struct pollfd *fds, nfds_t nfds, int timeout)  /* or epoll_wait */",
    "the entries that are readable (empty at the timeout); Ctrl-C interrupts", ex = "ready = verbs.wait_fds({ ch }, 1000)" },
  strict = { "verbs", "verbs.strict([on])", "(verbsh's own: no C counterpart)",
    "the setting before; with true, every verbsh warning (what C accepts but is almost always a mistake, such as"
    .. " RDMA_WRITE without rdma) becomes an error, and a script's undefined global is an error as at the prompt",
    ex = "verbs.strict(true)" },
  warnings = { "verbs", "verbs.warnings([on])", "(verbsh's own: no C counterpart)",
    "the setting before; false silences verbsh's warnings on stderr (a bug-reproducing script that means the"
    .. " mistake); verbs.strict(true) still makes them errors", ex = "verbs.warnings(false)" },
  suggest = { "verbs", "verbs.suggest(typed, names)", "(verbsh's own: no C counterpart)",
    "the name in the list closest to typed (a typo, a C habit such as dest_qp for dest_qp_num), or nil: the rule"
    .. " behind every \"did you mean\" of verbsh", ex = 'verbs.suggest("dest_qp", {"dest_qp_num", "qp_state"})' },
  record = { "verbs", "verbs.record(on)", "(verbsh's own: no C counterpart)",
    "start (true) or stop (false) noting every verb call of this session -- its arguments, the objects it made"
    .. " (named ctx1, pd1, qp1 ... as the C program names them) and its outcome or errno -- for verbs.export_c;"
    .. " with no argument, whether it is on. verbsh --export-c OUT.c SCRIPT records a whole run",
    ex = "verbs.record(true)" },
  export_c = { "verbs", "verbs.export_c(path)", "(writes a C program: ibv_* calls, in the order recorded)",
    "writes the calls recorded so far (verbs.record) as a standalone C program that replays them and checks every"
    .. " outcome: return values and errnos, each completion's status, opcode, byte_len, imm_data and wc_flags"
    .. " (matched by wr_id), bytes read back with mr:read. It prints 'reproduced' and exits 0, or the first difference"
    .. " and exits 1. Build: cc -Wall -Wextra -Werror path -libverbs -lrdmacm. Values that came from objects stay"
    .. " symbolic (qp2->qp_num, mr1->rkey, (uintptr_t)mr1->addr + 64, a queried GID). Returns the number of calls"
    .. " exported and the list of those left out as comments (ctx:gids, cq:read_completion_ts); rdma_cm events are waited for and checked"
    .. " in the recorded order",
    ex = 'verbs.export_c("repro.c")' },
  getrusage = { "verbs", "verbs.getrusage()", "int getrusage(int who, struct rusage *usage)  /* RUSAGE_SELF */",
    "this process's CPU time (ru_utime, ru_stime in seconds), ru_maxrss, context switches",
    ex = "verbs.getrusage().ru_utime" },
  sysinfo = { "verbs", "verbs.sysinfo()", "uname(2), getrlimit(RLIMIT_MEMLOCK), dladdr(ibv_get_device_list), geteuid()  /* facts for doctor */",
    "a table of what doctor() reads and Lua cannot: kernel, machine, memlock and memlock_max (bytes), euid,"
    .. " exe, lua, libibverbs (the loaded file), uverbs_abi_min/max and provider_abi", ex = "verbs.sysinfo().memlock" },
  capture = { "verbs", 'verbs.capture{device = "rxe1"} or verbs.capture{netdev = "veth1"}',
    "pcap_create(netdev, err); pcap_set_snaplen(p, snaplen); pcap_activate(p); pcap_setfilter(p, \"udp port 4791\");"
    .. " pthread_create(&t, NULL, read_frames, cap)  /* libpcap, then a thread of its own reads the frames */",
    "a capture object (cap) collecting the RoCEv2 frames (UDP port 4791) that cross a netdev: device = an rxe"
    .. " device (its netdev is read from /sys/class/infiniband/DEV/ports/1/gid_attrs/ndevs) or netdev = the netdev"
    .. " itself, not both. device = an iWARP (siw) device captures the TCP segments of its netdev's addresses"
    .. " instead (filter \"tcp and (host A ...)\"), on that netdev, or on lo when the netdev is a dummy (it sends"
    .. " nothing: siw's TCP between addresses of this host crosses lo); cap:info() gives transport \"iWARP\","
    .. " filter and device_netdev, and print(cap) draws the segments (verbs.wire_iwarp_ladder); snaplen = the bytes kept of each frame (default 9216, every RoCEv2 frame whole; 128 to"
    .. " 262144: 128 keeps every header, the frame count of a bulk transfer in little memory, but no ICRC). A"
    .. " thread reads the frames as they come, so the kernel's buffer does not fill while Lua waits (cq:wait);"
    .. " frames it dropped anyway are counted (libpcap's ps_drop) in cap:stop(), cap:info().drops and print(cap)."
    .. " Methods: cap:stop(), cap:packets(), cap:save(file),"
    .. " cap:info(), cap:posts(), cap:filter{...}, cap:ladder(), print(cap) (help(cap) lists them). Traffic between"
    .. " two QPs of one rxe device is looped back inside rxe and crosses no netdev: use two devices"
    .. " (scripts/rxe-vm --two). Needs root (CAP_NET_RAW)", ex = 'cap = verbs.capture{device = "rxe0"}' },
  ["capture:stop"] = { "capture", "cap:stop()",
    "pcap_dispatch(p, -1, cb, user) until 20 ms quiet; pcap_stats(p, &ps); pcap_close(p)  /* libpcap */",
    "reads the frames still on their way and ends the capture; returns the frame count, and a second value"
    .. " when something is off: why no frame crossed the netdev (count 0: both QPs on one rxe device), or how many"
    .. " frames the kernel dropped (libpcap's ps_drop: its 32 MiB buffer was full). The frames stay readable"
    .. " (packets, save, print);"
    .. " stopping again is an error", ex = "n, why = cap:stop()" },
  ["capture:packets"] = { "capture", "cap:packets()",
    "pcap_dispatch(p, -1, cb, user)  /* in the capture's thread: cb keeps each frame's struct pcap_pkthdr and bytes */",
    "the frames so far, oldest first, each a frame as verbs.wire.decode returns it (help \"wire.decode\") with"
    .. " time in seconds since the epoch (pcap_pkthdr.ts), bytes the frame from its Ethernet header (at most"
    .. " snaplen captured: caplen), length its length on the wire; a new list each call, yours to change. Also"
    .. " after cap:stop()",
    ex = "p = verbs.wire.decode(cap:packets()[1].bytes)" },
  ["capture:info"] = { "capture", "cap:info()", "(none: the capture's own state)",
    "{ netdev=, device= (only when opened with device =), count= (frames so far), stopped= (true after cap:stop()),"
    .. " drops= (frames the kernel dropped: libpcap's ps_drop), snaplen=, lost= (why frames were lost, when some were),"
    .. " transport= (\"RoCE\", or \"iWARP\" for a siw device's TCP), filter= (the BPF filter), device_netdev= (an"
    .. " iWARP device's own netdev, when its traffic crosses lo) }",
    ex = "cap:info().count" },
  ["capture:posts"] = { "capture", "cap:posts()", "(none: the struct ibv_send_wr lists qp:post_send gave ibv_post_send)",
    "the send WRs this process posted with qp:post_send (a table, a list or a verbs.send_wr) while the capture ran,"
    .. " in post order: { {qp=, qp_num=, qp_type=, dest_qp=, wr_id=, opcode=, length=}, ... }; qp is its name"
    .. " (qp1), dest_qp the QP's dest_qp_num (a UD WR's remote_qpn), length the sum of its SGEs. What print(cap)"
    .. " ties frames to (verbs.wire.attribute); WRs of wr_start/wr_complete are not in it",
    ex = "for _, w in ipairs(cap:posts()) do print(w.wr_id, w.opcode, w.dest_qp) end" },
  ["capture:save"] = { "capture", "cap:save(file)",
    "dead = pcap_open_dead(DLT_EN10MB, 65535); d = pcap_dump_open(dead, file); pcap_dump(d, &hdr, bytes) per frame;"
    .. " pcap_dump_close(d)  /* libpcap */",
    "writes the frames so far to a pcap file (classic format, Ethernet) for Wireshark, tshark or"
    .. " verbs.wire.read_pcap; returns the number of frames written. Also after cap:stop()",
    ex = 'cap:save("x.pcap")' },
  ["capture:filter"] = { "capture", "cap:filter{qp=, opcode=}", "(none: verbs.wire.filter(cap, {qp=, opcode=}))",
    "the frames whose BTH matches: qp = the DestQP number, opcode = a name (\"SEND_MIDDLE\" or \"RC_SEND_MIDDLE\") or"
    .. " the BTH opcode number; either key or both. A list as cap:packets() gives, that prints as its ladder",
    ex = 'print(cap:filter{qp = 17, opcode = "SEND_MIDDLE"})' },
  ["capture:ladder"] = { "capture", "cap:ladder([notes])", "(none: verbs.wire.ladder(cap, notes))",
    "the frames as a ladder diagram (a string), without the WRs print(cap) adds: the sender of the first frame"
    .. " on the left, its peer on the right, one arrow per frame with its opcode, PSN, payload length and AETH"
    .. " (BAD ICRC when the ICRC fails); more than four MIDDLE frames in a row fold, and so do more than three rounds"
    .. " of the same request and answer. notes[i] is text shown after frame i; \"(no RoCEv2 frames)\" when none",
    ex = "print(cap:ladder())" },
  ["print(cap)"] = { "capture", "print(cap) or tostring(cap)", "(none: verbs.wire.show(cap))",
    "\"capture on NETDEV (N frames, stopped)\", then the ladder (cap:ladder) with, after each arrow, the WR of this"
    .. " process that caused the frame (\"wr_id 7's SEND\", \"RNR NAK on ...\", \"completes wr_id 7\"), then a line per"
    .. " WR: its frames, answers and the frame that completed it (verbs.wire.attribute of cap:packets() and"
    .. " cap:posts()). For an iWARP capture, the TCP segments as verbs.wire_iwarp_ladder draws them: each FPDU's"
    .. " RDMAP opcode and DDP fields with its WR, and the TCP ACKs that carry iWARP's reliability", ex = "print(cap)" },
  -- verbs.wire: decoding RoCEv2 frames (lua/wire.lua)
  wire = { "verbs", "verbs.wire", "(none: Lua, lua/wire.lua; the IBA spec's header layouts)",
    "RoCEv2 frames (one userdata each, its headers read when asked) and diagrams, for a capture, a pcap file or"
    .. " any list of frames: verbs.wire.decode(bytes), frames(file), read_pcap(file), ladder(list [, notes]),"
    .. " filter(list, {qp=, opcode=}), attribute(list, posts),"
    .. " show(cap), crc32(s), opcodes (help \"decode\" and so on)",
    ex = 'p = verbs.wire.decode(verbs.wire.read_pcap("x.pcap")[1].bytes)' },
  ["wire.decode"] = { "verbs.wire", "verbs.wire.decode(bytes)",
    "(none: src/wire.c; the ICRC as IBA annex A17 computes it, with zlib's crc32(crc, buf, len))",
    "one frame (a string from its Ethernet header, or a frame of cap:packets(), frames or read_pcap, given back"
    .. " as it is) as a frame: a userdata whose fields read as a table's, each header found once and its fields"
    .. " read from the bytes when asked (pairs(p) and pairs(p.bth) list them): eth {dst, src, type}; ip (IPv4"
    .. " {version, hdr_len, dsfield, len, id, ttl, proto, checksum, src, dst} or IPv6 {version, tclass, flow,"
    .. " plen, nxt, hlim, src, dst}); udp {srcport, dstport, length, checksum}; bth {opcode, se, m, padcnt,"
    .. " tver, p_key, f, b, destqp, a, psn, transport, opname}; opcode (the name without its transport: SEND_FIRST); the extended"
    .. " headers its opcode has: reth {va, r_key, dma_length}, aeth {syndrome, msn, kind = \"ACK\", \"RNR NAK\""
    .. " or \"NAK\", value, timer, nak}, deth {q_key, src_qp}, atomiceth {va, r_key, swap_or_add, compare},"
    .. " atomicacketh {orig_rem_dt}, immdt, ieth; payload_length, icrc, icrc_ok (recomputed over the masked"
    .. " pseudo-packet; nil when a snaplen cut the frame) and icrc_expected; time, length and caplen, and bytes"
    .. " (a copy of the frame as a string). nil and why for a frame that is not RoCEv2 or whose headers were"
    .. " not all captured",
    ex = "p = verbs.wire.decode(cap:packets()[1].bytes); print(p.bth.opname, p.bth.psn, p.aeth and p.aeth.kind, p.icrc_ok)" },
  ["wire_iwarp.decode"] = { "verbs.wire_iwarp", 'require("verbs.wire_iwarp").decode(bytes)', "(none: Lua)",
    "one iWARP frame (siw's TCP, from its Ethernet header) as a table: ip {src, dst, len}; tcp {srcport, dstport, seq,"
    .. " ack, flags, len}; then mpa {kind = \"Request\" or \"Reply\", key, marker_flag, crc_flag, rej_flag, res, rev,"
    .. " pdlength, privatedata} for the frames that open the connection, or fpdus, a list of {ulpdulength, pad, crc,"
    .. " payload_len, ddp {tagged, last, rsvd, dv, and stag, to (tagged) or rsvdulp, qn, msn, mo (untagged)}, rdmap"
    .. " {version, rsv, opcode, opname (Send, Write, Read Request, Read Response, ...), reserved, rr {sinkstag, sinkto,"
    .. " rdmardsz, srcstag, srcto} for a Read Request}}; a bare TCP ACK has neither (TCP carries iWARP's reliability)."
    .. " An FPDU split across segments is {ulpdulength, truncated = true, rest, head {ddp, rdmap}}; decode(bytes, skip)"
    .. " first skips the bytes that end an FPDU of an earlier segment; markers are not removed (siw negotiates none)."
    .. " nil and why for a frame that is not IPv4 TCP",
    ex = 'W = require "verbs.wire_iwarp"; for _, b in ipairs(frames) do print(W.describe(W.decode(b))) end' },
  ["wire_iwarp.describe"] = { "verbs.wire_iwarp", 'require("verbs.wire_iwarp").describe(packet)', "(none: Lua)",
    "one line for a decoded iWARP frame: its MPA frame, its FPDUs (opcode, tagged STag and TO or untagged QN, MSN,"
    .. " MO, last, payload bytes), or the TCP flags of a bare segment",
    ex = 'print(require("verbs.wire_iwarp").describe(p))' },
  ["wire_iwarp_ladder.rows"] = { "verbs.wire_iwarp_ladder", 'require("verbs.wire_iwarp_ladder").rows(list [, posts])', "(none: Lua)",
    "the rows of an iWARP ladder, one per TCP segment of list (cap:packets(), read_pcap, or strings), each direction's"
    .. " byte stream followed so that an FPDU split across segments is read in step: {frame, t, conn, src, dst, seq, ack"
    .. " (relative, as tshark shows them), len, kind (SYN, FIN, RST, MPA, DATA, ACK, RETRANSMISSION), text, fpdus {op, last,"
    .. " tagged, len, stag, to, qn, msn, mo}, note (the WR of posts, cap:posts(), that caused it; for an ACK, whose"
    .. " bytes it acknowledges)}; then a summary line per WR and the connections",
    ex = 'for _, r in ipairs(require("verbs.wire_iwarp_ladder").rows(cap:packets(), cap:posts())) do print(r.frame, r.text, r.note) end' },
  ["wire_iwarp_ladder.ladder"] = { "verbs.wire_iwarp_ladder", 'require("verbs.wire_iwarp_ladder").ladder(list [, posts])', "(none: Lua)",
    "the rows as a ladder diagram (a string): per connection, its first sender on the left, one arrow per TCP"
    .. " segment with its #frame and note; the bare TCP ACKs are rows of their own (where RoCE has ACKNOWLEDGE"
    .. " packets); then a line per WR: its frames and the frame of the TCP ACK of its last byte. print(cap) of an"
    .. " iWARP capture shows it",
    ex = 'print(require("verbs.wire_iwarp_ladder").ladder(cap:packets(), cap:posts()))' },
  ["wire.read_pcap"] = { "verbs.wire", "verbs.wire.read_pcap(file)",
    "p = pcap_open_offline(file, err); pcap_next_ex(p, &hdr, &bytes) per frame  /* libpcap */",
    "every frame of a pcap file in a list, as cap:packets() gives them (a frame each: help \"wire.decode\"). Any"
    .. " file libpcap reads (pcap of cap:save or tcpdump -w, pcapng), of Ethernet frames. The whole file is in"
    .. " memory: for a large one, verbs.wire.frames(file) reads one frame at a time",
    ex = 'list = verbs.wire.read_pcap("x.pcap")' },
  ["wire.frames"] = { "verbs.wire", "verbs.wire.frames(file)",
    "p = pcap_open_offline(file, err); while (pcap_next_ex(p, &hdr, &bytes) == 1) ...; pcap_close(p)  /* libpcap */",
    "an iterator over the frames of a pcap file, one at a time, in constant memory whatever the file's size:"
    .. " for p in verbs.wire.frames(file) do ... end gives each frame (help \"wire.decode\": p.bth is nil for a frame"
    .. " that is not RoCEv2). The file is closed at its end, or when the loop is left by break or an error (the"
    .. " iterator's closing value). Any file libpcap reads, of Ethernet frames; an error names the file and why",
    ex = 'for p in verbs.wire.frames("x.pcap") do if p.bth and not p.icrc_ok then print(p) end end' },
  ["wire.ladder"] = { "verbs.wire", "verbs.wire.ladder(list_or_cap [, notes])", "(none: Lua)",
    "a list of frames (cap:packets(), read_pcap) or a capture as a ladder diagram (a string): the sender of the"
    .. " first frame on the left, its peer on the right, one arrow per frame with its opcode, PSN, payload length"
    .. " and AETH (BAD ICRC when the ICRC fails); more than four MIDDLE frames in a row fold, and so do more than"
    .. " three rounds of the same request and answer. notes[i] is text shown after frame i (verbs.wire.attribute"
    .. " makes them); \"(no RoCEv2 frames)\" when none", ex = 'print(verbs.wire.ladder(verbs.wire.read_pcap("x.pcap")))' },
  ["wire.filter"] = { "verbs.wire", "verbs.wire.filter(list_or_cap, {qp=, opcode=})", "(none: Lua)",
    "the frames whose BTH matches: qp = the DestQP number, opcode = a name (\"SEND_MIDDLE\" or \"RC_SEND_MIDDLE\")"
    .. " or the BTH opcode number; either key or both. A list of the same frames, that prints as its ladder",
    ex = 'acks = verbs.wire.filter(list, { opcode = "ACKNOWLEDGE" })' },
  ["wire.attribute"] = { "verbs.wire", "verbs.wire.attribute(list, posts)", "(none: Lua)",
    "ties each frame of list (cap:packets(), read_pcap) to the WR of posts (cap:posts() form: {qp=, qp_num=,"
    .. " qp_type=, dest_qp=, wr_id=, opcode=, length=}) that caused it: a request's DestQP names the responder,"
    .. " and the WRs posted toward it take its messages in post order; an answer names the requester and the PSN it"
    .. " answers. Returns notes (notes[i]: \"wr_id 7's SEND\", \"completes wr_id 7\", ... for frame i) and summary"
    .. " (a list of lines, one per WR): what print(cap) shows",
    ex = "notes, summary = verbs.wire.attribute(cap:packets(), cap:posts()); print(verbs.wire.ladder(cap:packets(), notes))" },
  ["wire.show"] = { "verbs.wire", "verbs.wire.show(cap)", "(none: Lua)",
    "the text of print(cap): a head line, the ladder with each frame's WR, and a line per WR", ex = "s = verbs.wire.show(cap)" },
  ["wire.crc32"] = { "verbs.wire", "verbs.wire.crc32(s)", "crc32(0, buf, len)  /* zlib */",
    "the CRC-32 of a string, the ICRC's polynomial (reflected, 0xEDB88320), from zlib; crc32(s, crc) goes on"
    .. " from the CRC of the bytes before s", ex = 'verbs.wire.crc32("123456789") == 0xCBF43926' },
  ["wire.opcodes"] = { "verbs.wire", "verbs.wire.opcodes[n]", "(none: the IBA spec's BTH opcode table)",
    "the name of a BTH operation, by the opcode's low 5 bits (0 SEND_FIRST ... 17 ACKNOWLEDGE ... 23"
    .. " SEND_ONLY_WITH_INVALIDATE); the high 3 bits are the transport (RC, UC, RD, UD)",
    ex = "verbs.wire.opcodes[p.bth.opcode & 0x1F]" },
  -- librdmacm
  create_event_channel = { "verbs", "verbs.create_event_channel()",
    "struct rdma_event_channel *rdma_create_event_channel(void)", "where rdma_cm events arrive (ch.fd)",
    ex = "cm_ch = verbs.create_event_channel()" },
  create_id = { "cm_channel", "ch:create_id(ps)", "int rdma_create_id(struct rdma_event_channel *channel,"
    .. " struct rdma_cm_id **id, void *context, enum rdma_port_space ps)",
    "a communication id: \"TCP\" for RC connections, \"UDP\" for UD", args = { "rdma_port_space" },
    ex = 'id = cm_ch:create_id("TCP")' },
  get_cm_event = { "cm_channel", "ch:get_cm_event([timeout_ms])",
    "int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)",
    "the next event (ev.event, ev.status, ev.id, ev.listen_id, ev.param), or nil at the timeout; Ctrl-C interrupts",
    ex = "ev = cm_ch:get_cm_event(5000)" },
  ack = { "cm_event", "ev:ack()", "int rdma_ack_cm_event(struct rdma_cm_event *event)",
    "free the event; its id cannot be destroyed before (the finalizer acks a forgotten one)", ex = "ev:ack()" },
  expect = { "cm_event", "ev:expect(name, ...)", "if (event->event != RDMA_CM_EVENT_...) /* error */",
    "the event if it is one of the names, else an error that says why this one came",
    args = { "rdma_cm_event_type", "rdma_cm_event_type" }, ex = 'cm_ch:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()' },
  bind_addr = { "cm_id", "id:bind_addr(\"host:port\")", "int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)",
    "bind to a local address (\"*:7471\": any address, port 7471), before listen", ex = 'id:bind_addr("*:7471")' },
  resolve_addr = { "cm_id", "id:resolve_addr(src_or_nil, \"host:port\" [, timeout_ms=2000])",
    "int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr, struct sockaddr *dst_addr, int timeout_ms)",
    "find the local device for a destination; then ADDR_RESOLVED (id.verbs is set)",
    ex = 'id:resolve_addr(nil, "192.0.2.1:7471")' },
  resolve_route = { "cm_id", "id:resolve_route([timeout_ms=2000])",
    "int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)", "the path to the destination; then ROUTE_RESOLVED",
    ex = "id:resolve_route()" },
  ["cm_id:create_qp"] = { "cm_id", "id:create_qp(pd, {qp_type=, send_cq=, recv_cq=, cap={...}})",
    "int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)",
    "a QP that librdmacm moves through its states (pd and CQs from id.verbs); id.qp", keys = "ibv_qp_init_attr",
    ex = 'qp = id:create_qp(pd, { qp_type = "RC", send_cq = cq, recv_cq = cq,\n'
      .. '                        cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } })' },
  destroy_qp = { "cm_id", "id:destroy_qp()", "void rdma_destroy_qp(struct rdma_cm_id *id)", "destroy id.qp",
    ex = "id:destroy_qp()" },
  connect = { "cm_id", "id:connect([conn_param])", "int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)",
    "send the connection request (private_data=, responder_resources=, initiator_depth=, retry_count=, ...)",
    keys = "rdma_conn_param", ex = 'id:connect{ private_data = "hi", responder_resources = 1, initiator_depth = 1 }' },
  listen = { "cm_id", "id:listen([backlog])", "int rdma_listen(struct rdma_cm_id *id, int backlog)",
    "wait for CONNECT_REQUEST events; each brings a new id (ev.id)", ex = "id:listen()" },
  accept = { "cm_id", "ev.id:accept([conn_param])", "int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)",
    "accept a request, on the request's new id", keys = "rdma_conn_param",
    ex = 'ev.id:accept{ private_data = "welcome", responder_resources = 1, initiator_depth = 1 }' },
  reject = { "cm_id", "ev.id:reject([private_data])",
    "int rdma_reject(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)",
    "refuse a request; the client gets REJECTED, status 28", ex = 'ev.id:reject("busy")' },
  disconnect = { "cm_id", "id:disconnect()", "int rdma_disconnect(struct rdma_cm_id *id)",
    "move the QP to ERR and tell the peer; both sides then get DISCONNECTED", ex = "id:disconnect()" },
  establish = { "cm_id", "id:establish()", "int rdma_establish(struct rdma_cm_id *id)",
    "complete a connection made without a QP on the id", ex = "id:establish()" },
  init_qp_attr = { "cm_id", "id:init_qp_attr(qp_state)",
    "int rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *qp_attr, int *qp_attr_mask)",
    "the attributes and mask librdmacm would use for that transition", args = { "ibv_qp_state" },
    gives = "ibv_qp_attr", ex = 'attr, mask = id:init_qp_attr("RTR")' },
  get_local_addr = { "cm_id", "id:get_local_addr()", "struct sockaddr *rdma_get_local_addr(struct rdma_cm_id *id)",
    "\"192.0.2.1:7471\"", ex = "id:get_local_addr()" },
  get_peer_addr = { "cm_id", "id:get_peer_addr()", "struct sockaddr *rdma_get_peer_addr(struct rdma_cm_id *id)",
    "\"192.0.2.2:40000\"", ex = "id:get_peer_addr()" },
  get_src_port = { "cm_id", "id:get_src_port()", "__be16 rdma_get_src_port(struct rdma_cm_id *id)", "the local port",
    ex = "id:get_src_port()" },
  get_dst_port = { "cm_id", "id:get_dst_port()", "__be16 rdma_get_dst_port(struct rdma_cm_id *id)", "the peer's port",
    ex = "id:get_dst_port()" },
  ["cm_id:destroy"] = { "cm_id", "id:destroy()", "int rdma_destroy_id(struct rdma_cm_id *id)",
    "free the id (its QP and unacked events first)", ex = "id:destroy()" },
  -- multicast (src/mcast.c)
  attach_mcast = { "qp", "qp:attach_mcast(gid, lid)", "int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)",
    "attach a UD QP to a multicast group: datagrams sent to the group's GID (an AH with is_global = 1 and"
    .. " grh.dgid = the group, remote_qpn 0xffffff) reach every attached QP; lid is 0 on RoCE. On rxe the"
    .. " netdev must also be in the group at the IP level, or its frames are dropped: rdma_join_multicast does"
    .. " that (id:join_multicast), plain C and verbsh do not (ip addr add 239.1.2.3/32 dev IFACE autojoin does)."
    .. " rxe allows 56 QPs per group (max_mcast_qp_attach); destroy detaches first (C's ibv_destroy_qp fails EBUSY)",
    ex = 'qp:attach_mcast("::ffff:239.1.2.3", 0)' },
  detach_mcast = { "qp", "qp:detach_mcast(gid, lid)", "int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid)",
    "detach the QP from the group (the gid and lid given to attach_mcast)", ex = 'qp:detach_mcast("::ffff:239.1.2.3", 0)' },
  join_multicast = { "cm_id", "id:join_multicast(addr [, context])",
    "int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr, void *context)",
    "join the group addr (\"239.1.2.3\") on a UD id after ADDR_RESOLVED (resolve_addr(bind_addr, group)); then"
    .. " MULTICAST_JOIN: ev.param.ud has the group's ah_attr, qp_num 0xffffff, qkey, and context (an integer);"
    .. " librdmacm attaches id.qp to the group", ex = 'id:join_multicast("239.1.2.3", 7)' },
  join_multicast_ex = { "cm_id", "id:join_multicast_ex({addr=, join_flags=, comp_mask=} [, context])",
    "int rdma_join_multicast_ex(struct rdma_cm_id *id, struct rdma_cm_join_mc_attr_ex *mc_join_attr, void *context)",
    "join with flags: join_flags = \"SENDONLY_FULLMEMBER\" sends without receiving; comp_mask defaults to the keys"
    .. " given (ADDRESS, JOIN_FLAGS)", keys = "rdma_cm_join_mc_attr_ex",
    ex = 'id:join_multicast_ex({ addr = "239.1.2.3", join_flags = "SENDONLY_FULLMEMBER" })' },
  leave_multicast = { "cm_id", "id:leave_multicast(addr)", "int rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)",
    "leave the group (librdmacm detaches id.qp); destroy leaves what is still joined", ex = 'id:leave_multicast("239.1.2.3")' },
  -- librdmacm's short path (src/cm_ep.c): synchronous ids, as rdma_server.c / rdma_client.c
  getaddrinfo = { "verbs", "verbs.getaddrinfo(node, service [, hints])",
    "int rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints,"
    .. " struct rdma_addrinfo **res)", "resolve an address for rdma_cm; hints and the result use struct"
    .. " rdma_addrinfo's names (ai_flags \"PASSIVE\" for a server, ai_port_space \"TCP\" or \"UDP\", ai_qp_type,"
    .. " ai_family, ai_src_addr, ai_dst_addr); res.ai_dst_addr is \"192.0.2.1:7471\"; res:free() or the collector"
    .. " frees it", keys = "rdma_addrinfo",
    ex = 'res = verbs.getaddrinfo(nil, "7471", { ai_flags = "PASSIVE", ai_port_space = "TCP" })' },
  free = { "cm_addrinfo", "res:free()", "void rdma_freeaddrinfo(struct rdma_addrinfo *res)", "free the result of"
    .. " verbs.getaddrinfo", ex = "res:free()" },
  create_ep = { "verbs", "verbs.create_ep(res [, pd [, qp_init_attr]])",
    "int rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res, struct ibv_pd *pd,"
    .. " struct ibv_qp_init_attr *qp_init_attr)", "a synchronous id (no event channel): active, it is resolved,"
    .. " routed and gets its QP (id.qp; qp_type from res.ai_qp_type; without send_cq/recv_cq librdmacm makes"
    .. " the CQs that get_send_comp reads); passive, it is bound, and its qp_init_attr serves every get_request",
    keys = "ibv_qp_init_attr", ex = 'id = verbs.create_ep(res, nil, { cap = { max_send_wr = 1, max_recv_wr = 1,'
      .. ' max_send_sge = 1, max_recv_sge = 1 }, sq_sig_all = 1 })' },
  get_request = { "cm_id", "listen_id:get_request([timeout_ms])",
    "int rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **id)",
    "the next connection request on a listener of verbs.create_ep, as a new id with its QP; nil at the"
    .. " timeout (C waits forever); then id:accept()", ex = "id = listen:get_request(30000)" },
  destroy_ep = { "cm_id", "id:destroy_ep()", "void rdma_destroy_ep(struct rdma_cm_id *id)",
    "destroy the id with its QP (and the CQs librdmacm made); the MRs of reg_msgs go first", ex = "id:destroy_ep()" },
  reg_msgs = { "cm_id", "id:reg_msgs(size_or_string)", "struct ibv_mr *rdma_reg_msgs(struct rdma_cm_id *id, void *addr, size_t length)",
    "an MR on the id's PD for sends and receives (LOCAL_WRITE); verbsh allocates the memory; mr:dereg() frees",
    ex = "recv_mr = id:reg_msgs(16)" },
  reg_read = { "cm_id", "id:reg_read(size_or_string)", "struct ibv_mr *rdma_reg_read(struct rdma_cm_id *id, void *addr, size_t length)",
    "an MR the peer may RDMA-read (LOCAL_WRITE, REMOTE_READ)", ex = 'mr = id:reg_read("read me")' },
  reg_write = { "cm_id", "id:reg_write(size_or_string)", "struct ibv_mr *rdma_reg_write(struct rdma_cm_id *id, void *addr, size_t length)",
    "an MR the peer may RDMA-write (LOCAL_WRITE, REMOTE_WRITE)", ex = "mr = id:reg_write(64)" },
  ["cm_id:post_recv"] = { "cm_id", "id:post_recv(wr_id, mr [, offset [, length]])",
    "int rdma_post_recv(struct rdma_cm_id *id, void *context, void *addr, size_t length, struct ibv_mr *mr)",
    "one receive into mr (to the id's SRQ if it has one); wr_id is C's context", ex = "id:post_recv(1, recv_mr)" },
  ["cm_id:post_send"] = { "cm_id", "id:post_send(wr_id, mr [, offset [, length [, flags]]])",
    "int rdma_post_send(struct rdma_cm_id *id, void *context, void *addr, size_t length, struct ibv_mr *mr, int flags)",
    "one SEND from mr; flags are ibv_send_flags (\"SIGNALED\", \"INLINE\")", args = { nil, nil, nil, nil, "ibv_send_flags" },
    ex = 'id:post_send(2, send_mr, 0, 16, "SIGNALED")' },
  post_read = { "cm_id", "id:post_read(wr_id, mr, offset, length, flags, remote_addr, rkey)",
    "int rdma_post_read(struct rdma_cm_id *id, void *context, void *addr, size_t length, struct ibv_mr *mr,"
    .. " int flags, uint64_t remote_addr, uint32_t rkey)", "RDMA READ of the peer's memory into mr",
    ex = 'id:post_read(3, mr, 0, 16, "SIGNALED", peer_addr, peer_rkey)' },
  post_write = { "cm_id", "id:post_write(wr_id, mr, offset, length, flags, remote_addr, rkey)",
    "int rdma_post_write(struct rdma_cm_id *id, void *context, void *addr, size_t length, struct ibv_mr *mr,"
    .. " int flags, uint64_t remote_addr, uint32_t rkey)", "RDMA WRITE from mr into the peer's memory",
    ex = 'id:post_write(4, mr, 0, 16, "SIGNALED", peer_addr, peer_rkey)' },
  post_ud_send = { "cm_id", "id:post_ud_send(wr_id, mr, offset, length, flags, ah, remote_qpn)",
    "int rdma_post_ud_send(struct rdma_cm_id *id, void *context, void *addr, size_t length, struct ibv_mr *mr,"
    .. " int flags, struct ibv_ah *ah, uint32_t remote_qpn)", "a datagram on a UD id, with Q_Key RDMA_UDP_QKEY"
    .. " (0x01234567)", ex = "id:post_ud_send(5, mr, 0, 64, nil, ah, 0xffffff)" },
  post_recvv = { "cm_id", "id:post_recvv(wr_id, sgl)",
    "int rdma_post_recvv(struct rdma_cm_id *id, void *context, struct ibv_sge *sgl, int nsge)",
    "a receive scattered over an SGE list ({ {mr=, offset=, length=}, ... })",
    ex = "id:post_recvv(1, { { mr = mr, offset = 0, length = 8 }, { mr = mr, offset = 64, length = 8 } })" },
  post_sendv = { "cm_id", "id:post_sendv(wr_id, sgl [, flags])",
    "int rdma_post_sendv(struct rdma_cm_id *id, void *context, struct ibv_sge *sgl, int nsge, int flags)",
    "a SEND gathered from an SGE list", ex = 'id:post_sendv(2, { { mr = mr, offset = 0, length = 8 } }, "SIGNALED")' },
  post_readv = { "cm_id", "id:post_readv(wr_id, sgl, flags, remote_addr, rkey)",
    "int rdma_post_readv(struct rdma_cm_id *id, void *context, struct ibv_sge *sgl, int nsge, int flags,"
    .. " uint64_t remote_addr, uint32_t rkey)", "an RDMA READ scattered over an SGE list",
    ex = "id:post_readv(3, { { mr = mr, offset = 0, length = 8 } }, nil, peer_addr, peer_rkey)" },
  post_writev = { "cm_id", "id:post_writev(wr_id, sgl, flags, remote_addr, rkey)",
    "int rdma_post_writev(struct rdma_cm_id *id, void *context, struct ibv_sge *sgl, int nsge, int flags,"
    .. " uint64_t remote_addr, uint32_t rkey)", "an RDMA WRITE gathered from an SGE list",
    ex = "id:post_writev(4, { { mr = mr, offset = 0, length = 6 }, { mr = mr, offset = 7, length = 7 } }, nil, peer_addr, peer_rkey)" },
  ["cm_id:create_srq"] = { "cm_id", "id:create_srq(pd_or_nil, {max_wr=, max_sge=, srq_limit=})",
    "int rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_srq_init_attr *attr)",
    "an SRQ on the id (id->srq): id:post_recv posts to it; its completions arrive on the CQ of the QP that"
    .. " takes each receive (librdmacm makes no CQ for a BASIC SRQ); srq:destroy() calls rdma_destroy_srq(id)",
    keys = "ibv_srq_attr",
    ex = "srq = id:create_srq(pd, { max_wr = 16, max_sge = 1 })" },
  ["cm_id:create_srq_ex"] = { "cm_id", "id:create_srq_ex{ srq_type=, pd=, attr={max_wr=, max_sge=, srq_limit=} }",
    "int rdma_create_srq_ex(struct rdma_cm_id *id, struct ibv_srq_init_attr_ex *attr)",
    "an SRQ on the id (id->srq), as id:create_srq, from struct ibv_srq_init_attr_ex: comp_mask is computed from"
    .. " the keys given (PD, TYPE, TM) unless given; pd may be left out when the id has one; no cq key (an XRC"
    .. " SRQ's: ctx:create_srq_ex makes those); srq:destroy() calls rdma_destroy_srq(id)",
    keys = "ibv_srq_init_attr_ex",
    ex = "srq = id:create_srq_ex{ srq_type = \"BASIC\", pd = pd, attr = { max_wr = 16, max_sge = 1 } }" },
  get_send_comp = { "cm_id", "id:get_send_comp([timeout_ms])", "int rdma_get_send_comp(struct rdma_cm_id *id, struct ibv_wc *wc)",
    "the next send-side completion on the CQ librdmacm made for the id (as cq:poll gives it): polls, arms the CQ"
    .. " and waits for its event; nil at the timeout (C waits forever); Ctrl-C interrupts", ex = "wc = id:get_send_comp(5000)" },
  get_recv_comp = { "cm_id", "id:get_recv_comp([timeout_ms])", "int rdma_get_recv_comp(struct rdma_cm_id *id, struct ibv_wc *wc)",
    "the next receive completion on the id's receive CQ; nil at the timeout", ex = "wc = id:get_recv_comp(5000)" },
  -- verbs.oob: the out-of-band exchange over TCP (lua/oob.lua)
  ["oob.listen"] = { "verbs.oob", "verbs.oob.listen(port [, addr])", "socket(); bind(); listen()  /* TCP */",
    "a listener on addr (127.0.0.1 unless given; port 0 picks one: l.port); l:accept([timeout]) gives a connection",
    ex = 'l = verbs.oob.listen(18515); c = l:accept()' },
  ["oob.connect"] = { "verbs.oob", "verbs.oob.connect(host, port [, timeout])", "socket(); connect()  /* TCP */",
    "a connection to a peer's listener, retried until it listens or oob.timeout (10 s) passes",
    ex = 'c = verbs.oob.connect("127.0.0.1", 18515)' },
  ["oob:accept"] = { "verbs.oob listener", "l:accept([timeout])", "accept()",
    "the next peer's connection; an error after timeout seconds (oob.timeout)", ex = "c = l:accept(30)" },
  ["oob:send"] = { "verbs.oob connection", "c:send(table)", "write()  /* one line of key=value */",
    "send a flat table of numbers, strings and booleans (qp_num, psn, gid, addr, rkey ...)",
    ex = "c:send{ qp_num = qp.qp_num, psn = 0, gid = ctx:query_gid(1, gid_index) }" },
  ["oob:recv"] = { "verbs.oob connection", "c:recv([timeout])", "read()",
    "the peer's next table (never evaluated as code); an error at the timeout", ex = "peer = c:recv()" },
  ["oob:close"] = { "verbs.oob listener or connection", "c:close()", "close()", "close the socket", ex = "c:close()" },
}

-- C functions verbsh calls inside a method, with no method of their own:
-- help "ibv_free_device_list" shows the method that calls them.
M.c_inside = {
  ibv_free_device_list = "devices", ibv_get_device_name = "devices", ibv_get_device_guid = "devices",
  ibv_ack_async_event = "get_async_event", ibv_query_gid_ex = "gids", ibv_query_gid_table = "gids",
  ibv_qp_to_qp_ex = "create_qp_ex", ibv_cq_ex_to_cq = "create_cq_ex", ibv_destroy_cq = "destroy",
  ibv_destroy_ah = "destroy", ibv_destroy_srq = "destroy", ibv_destroy_comp_channel = "destroy",
  rdma_destroy_event_channel = "destroy", rdma_destroy_id = "cm_id:destroy", ibv_post_srq_recv = "srq:post_recv",
  ibv_modify_srq = "srq:modify", ibv_query_srq = "srq:query", rdma_create_qp = "cm_id:create_qp",
  rdma_dereg_mr = "dereg", rdma_destroy_srq = "cm_id:create_srq",
}

-- The shell's lesson commands and helpers (lua/lesson.lua, lua/lesson_kit.lua).
M.lesson = {
  help = { "help([name | object | function])", "help() the overview; help(qp) an object's methods and fields;"
    .. " help \"post_send\" or help(qp.post_send) a method with its C prototype, keys and an example; also C names,"
    .. " enum values, table keys, C types and these commands", ex = 'help "post_send"' },
  lesson = { "lesson([name | number | false])",
    "lesson() lists the lessons (and where you are); lesson \"rc-send\" or lesson(5) starts one;"
    .. " lesson(false) leaves it, keeping its objects", ex = 'lesson "rc-states"' },
  hint = { "hint()", "a hint for the current step", ex = "hint()" },
  show = { "show()", "the current step again: what it explains, its C, and the task", ex = "show()" },
  skip = { "skip()", "types the step's model solution for you (printed as you would type it), then checks it",
    ex = "skip()" },
  check = { "check()", "checks the step now; if it is not done, says why (the lesson also checks after"
    .. " everything you type)", ex = "check()" },
  restart = { "restart([\"lesson\"])", "restart() starts the current step over (its check forgets what it saw;"
    .. " the objects keep their state); restart(\"lesson\") starts the lesson again from fresh objects",
    ex = 'restart(); restart("lesson")' },
  doctor = { "doctor()", "checks what RDMA needs on this host, one line each (ok, warn or fail) with the exact"
    .. " fix for each problem, as verbsh --doctor does", ex = "doctor()" },
  partner = { "partner([\"pair-lab\" | \"rdma-cm\" | false])",
    "in a lab seat with a partner (RXE_PEER_ADDR): starts the partner's side of lesson 13 (examples/pair_partner.lua,"
    .. " listening on this seat's RXE_ADDR:18600) and then of lesson 14 (examples/cm_partner.lua, rdma_cm port"
    .. " 7471) in the background, as make run ... ROLE=partner does, and says where its output goes; \"pair-lab\""
    .. " or \"rdma-cm\" starts that one only; partner(false) stops it. Outside a seat it refuses, saying why",
    ex = 'partner(); partner "rdma-cm"; partner(false)' },
  progress = { "progress()", "where you are: the lesson, the step number and its title; and the lessons you have finished (kept across sessions in $XDG_STATE_HOME/verbsh/finished, default ~/.local/state)", ex = "progress()" },
  rc_connect = { "rc_connect(qp, peer [, opts])",
    "moves an RC qp through RESET, INIT, RTR, RTS, connected to peer (a QP, or a qp_num) on this device,"
    .. " as lesson 4 does by hand; opts overrides any attribute (path_mtu, timeout, retry_cnt, rnr_retry,"
    .. " min_rnr_timer, max_dest_rd_atomic, qp_access_flags, sq_psn, rq_psn, dest_qp_num, sgid_index ...);"
    .. " opts.ctx is the context whose GID it uses (default: the global ctx, else one verbs.open() opens)."
    .. " A global that lessons 5 and later set; outside a lesson it is nil: rc_connect ="
    .. " require(\"verbs.lesson_kit\").rc_connect gives it to a script",
    ex = "rc_connect(qp_a, qp_b); rc_connect(qp_b, qp_a, { rnr_retry = 0 })" },
  ["lesson.stop"] = { "lesson.stop()", "leaves the lesson, as lesson(false)", ex = "lesson.stop()" },
  ["lesson.list"] = { "lesson.list()", "lists the lessons", ex = "lesson.list()" },
  ["lesson.kit"] = { "lesson.kit.NAME", "the helpers the lessons are written with (lua/lesson_kit.lua):"
    .. " u64, vm_pin_kb, memlock, roce_gid, gid_ipv4, gid_bytes, ...", ex = "lesson.kit.u64(mr_b, 0)" },
  ["lesson.kit.ud_ready"] = { "lesson.kit.ud_ready(qp [, qkey])",
    "moves a UD qp to RTS from any state (through RESET, INIT with the lessons' Q_Key, RTR), as lessons 9 and 12 do",
    ex = "lesson.kit.ud_ready(qp_b)" },
  ["lesson.kit.u64"] = { "lesson.kit.u64(mr, offset)", "the 64-bit word at offset in mr, in host order (atomics)",
    ex = "lesson.kit.u64(mr_b, 0)" },
  ["lesson.kit.vm_pin_kb"] = { "lesson.kit.vm_pin_kb()", "this process's pinned memory (VmPin in /proc/self/status), KiB",
    ex = "lesson.kit.vm_pin_kb()" },
  ["lesson.kit.memlock"] = { "lesson.kit.memlock()", "the memlock limit (ulimit -l) in bytes, or \"unlimited\"",
    ex = "lesson.kit.memlock()" },
  ["lesson.kit.roce_gid"] = { "lesson.kit.roce_gid(ctx [, port])",
    "the index and text of the port's RoCE v2 IPv4-mapped GID (the one rxe traffic needs)",
    ex = "idx, gid = lesson.kit.roce_gid(ctx)" },
  ["lesson.kit.gid_ipv4"] = { "lesson.kit.gid_ipv4(gid_text)", "the IPv4 address inside an IPv4-mapped GID, or nil",
    ex = 'lesson.kit.gid_ipv4("::ffff:192.0.2.1")' },
  ["lesson.kit.gid_bytes"] = { "lesson.kit.gid_bytes(gid_text)", "the 16 bytes of a GID given as text",
    ex = 'lesson.kit.gid_bytes("fe80::1")' },
  wcs = { "wcs", "the global that holds the completions a lesson's check polled (so you can look at them)",
    ex = "wcs[1].status" },
}

-- The rest of verbs.h and rdma_cma.h (lua/help_rest.lua): its methods, the C
-- functions called inside them, and the text of libibverbs' internals and of
-- the hardware topics (help "XRC").
local rest = require "verbs.help_rest"
for k, v in pairs(rest.methods) do M.methods[k] = v end
for k, v in pairs(rest.c_inside) do M.c_inside[k] = v end
M.other_text = rest.internal_text

return M
