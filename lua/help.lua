-- help(): what each object can do, and the C call behind every method.
--   help()             the overview
--   help(obj)          the methods of a verbs object (qp, cq, ...)
--   help "modify"      one method, with its C prototype; also help "qp:modify"
local M = {}

-- method -> { object, Lua form, C prototype, one line of meaning }
local doc = {
  devices = { "verbs", "verbs.devices()", "struct ibv_device **ibv_get_device_list(int *num_devices)",
    "the RDMA devices: name, guid, node_type, transport_type" },
  open = { "verbs", "verbs.open([name])", "struct ibv_context *ibv_open_device(struct ibv_device *device)",
    "open a device: -d DEV / VERBSH_DEVICE, else the first with an ACTIVE port" },
  trace = { "verbs", "verbs.trace(true | false | function)", "(none)",
    "print every verb call as its C equivalent" },
  explain = { "verbs", "verbs.explain(wc | status | error)", "(none)",
    "why a completion or a verb failed, and how to fix it" },
  sysinfo = { "verbs", "verbs.sysinfo()", "(none: getrlimit, uname, dladdr)",
    "what doctor() needs from C: memlock (soft, hard), kernel, uverbs ABI range, provider ABI, libibverbs file, Lua" },
  doctor = { "verbs", "doctor()", "(none)",
    "check this host for what RDMA needs, ok/warn/fail with the fix; returns ok, findings (verbsh --doctor)" },
  query_device = { "context", "ctx:query_device()",
    "int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *device_attr)",
    "the device's limits and capabilities" },
  query_port = { "context", "ctx:query_port([port])",
    "int ibv_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *port_attr)",
    "state, MTUs, link layer, GID table length" },
  query_gid = { "context", "ctx:query_gid(port, index)",
    "int ibv_query_gid(struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid)",
    "one GID table entry, as text" },
  gids = { "context", "ctx:gids([port])", "int ibv_query_gid_ex(... struct ibv_gid_entry *entry ...)",
    "the non-empty GID entries with index, gid and type (RoCE v2: the IPv4-mapped one rxe needs)" },
  alloc_pd = { "context", "ctx:alloc_pd()", "struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)",
    "a protection domain: MRs, QPs and AHs in one PD may be used together" },
  create_comp_channel = { "context", "ctx:create_comp_channel()",
    "struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)",
    "a file descriptor that wakes up when an armed CQ gets a completion" },
  create_cq = { "context", "ctx:create_cq(cqe [, {channel=, comp_vector=}])",
    "struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,"
    .. " struct ibv_comp_channel *channel, int comp_vector)", "a completion queue of at least cqe entries" },
  get_async_event = { "context", "ctx:get_async_event([timeout_ms])",
    "int ibv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)",
    "the next asynchronous event (port change, SRQ limit, QP fatal...), acked for you" },
  close = { "context", "ctx:close()", "int ibv_close_device(struct ibv_context *context)", "close the device" },
  reg_mr = { "pd", "pd:reg_mr(size_or_string, access)",
    "struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)",
    "register (pin) memory that verbsh allocates; a string initialises it" },
  create_qp = { "pd", "pd:create_qp{qp_type=, send_cq=, recv_cq=, srq=, cap={...}, sq_sig_all=}",
    "struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)",
    "a queue pair (RC, UC or UD), in RESET" },
  create_ah = { "pd", "pd:create_ah{is_global=, port_num=, grh={dgid=, sgid_index=, hop_limit=}, ...}",
    "struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)",
    "an address handle: where a UD send goes" },
  create_srq = { "pd", "pd:create_srq{max_wr=, max_sge=, srq_limit=}",
    "struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *srq_init_attr)",
    "a shared receive queue that several QPs take their receives from" },
  dealloc = { "pd", "pd:dealloc()", "int ibv_dealloc_pd(struct ibv_pd *pd)", "free the PD (its objects first)" },
  read = { "mr", "mr:read([off [, len]])", "(memcpy from mr->addr)", "the MR's bytes, as a string" },
  write = { "mr", "mr:write(off, str)", "(memcpy to mr->addr)", "put bytes into the MR" },
  fill = { "mr", "mr:fill(byte [, off, len])", "(memset)", "fill the MR with one byte value" },
  dereg = { "mr", "mr:dereg()", "int ibv_dereg_mr(struct ibv_mr *mr)", "unpin and free the memory" },
  poll = { "cq", "cq:poll([max]) or cq:poll(wcs)", "int ibv_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)",
    "take up to max completions now (an empty list when there is none)" },
  wait = { "cq", "cq:wait(n [, timeout_ms]) or cq:wait(wcs [, n [, timeout_ms]])", "(ibv_poll_cq in a loop)",
    "poll until n completions or the timeout; Ctrl-C interrupts" },
  req_notify = { "cq", "cq:req_notify([solicited_only])", "int ibv_req_notify_cq(struct ibv_cq *cq, int solicited_only)",
    "arm the CQ: its channel wakes up at the next completion" },
  ack_events = { "cq", "cq:ack_events(n)", "void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)",
    "acknowledge n events got from the channel" },
  get_cq_event = { "comp_channel", "channel:get_cq_event([timeout_ms])",
    "int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)",
    "wait for an armed CQ to get a completion; returns the CQ" },
  modify = { "qp", "qp:modify(attr [, mask])", "int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)",
    "change state and attributes; the mask comes from the keys you set unless you give one" },
  query = { "qp", "qp:query()", "int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,"
    .. " struct ibv_qp_init_attr *init_attr)", "the QP's attributes (qp.state alone: qp.state)" },
  post_send = { "qp", "qp:post_send(wr_or_list or verbs.send_wr)",
    "int ibv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)",
    "post SEND/WRITE/READ/atomic work requests; a list is one chained call" },
  post_recv = { "qp", "qp:post_recv(wr_or_list or verbs.recv_wr)",
    "int ibv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)",
    "post receive buffers" },
  send_wr = { "verbs", "verbs.send_wr(wr_or_list)", "struct ibv_send_wr wr = { ... };  /* built once */",
    "a prepared WR (or chain): qp:post_send(wr) again and again; wr.wr_id etc. settable" },
  recv_wr = { "verbs", "verbs.recv_wr(wr_or_list)", "struct ibv_recv_wr wr = { ... };  /* built once */",
    "a prepared receive WR (or chain) for qp:post_recv / srq:post_recv" },
  wc_array = { "verbs", "verbs.wc_array(n)", "struct ibv_wc wc[n];",
    "n = cq:poll(wcs) / cq:wait(wcs, n, timeout_ms) fill it in place; wcs[i].status reads entry i" },
  destroy = { "qp, cq, ah, srq, comp_channel", "obj:destroy()", "int ibv_destroy_qp(struct ibv_qp *qp) (and so on)",
    "free the object; using it afterwards is an error" },
  create_ah_from_wc = { "pd", "pd:create_ah_from_wc(wc, grh, port_num)",
    "struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh, uint8_t port_num)",
    "an AH back to the sender of a UD receive; grh = mr:read(offset, 40)" },
  init_ah_from_wc = { "context", "ctx:init_ah_from_wc(port_num, wc, grh)",
    "int ibv_init_ah_from_wc(struct ibv_context *context, uint8_t port_num, struct ibv_wc *wc,"
    .. " struct ibv_grh *grh, struct ibv_ah_attr *ah_attr)", "the ah_attr that answers the sender of a UD receive" },
  -- the extended verbs
  create_qp_ex = { "context", "ctx:create_qp_ex{pd=, qp_type=, send_cq=, recv_cq=, cap={...}, send_ops_flags={...}}",
    "struct ibv_qp *ibv_create_qp_ex(struct ibv_context *context, struct ibv_qp_init_attr_ex *qp_init_attr_ex)",
    "a QP with the new post-send API (qp:wr_start ...); comp_mask comes from the keys you set" },
  wr_start = { "qp", "qp:wr_start()", "void ibv_wr_start(struct ibv_qp_ex *qp)",
    "open a batch of WRs; set qp.wr_id and qp.wr_flags before each op" },
  wr_complete = { "qp", "qp:wr_complete()", "int ibv_wr_complete(struct ibv_qp_ex *qp)",
    "post every WR built since wr_start, with one doorbell" },
  wr_abort = { "qp", "qp:wr_abort()", "void ibv_wr_abort(struct ibv_qp_ex *qp)", "drop the WRs built since wr_start" },
  wr_send = { "qp", "qp:wr_send()", "void ibv_wr_send(struct ibv_qp_ex *qp)", "begin a SEND WR (then wr_set_sge or wr_set_inline_data)" },
  wr_send_imm = { "qp", "qp:wr_send_imm(imm_data)", "void ibv_wr_send_imm(struct ibv_qp_ex *qp, __be32 imm_data)",
    "begin a SEND_WITH_IMM WR (imm in host order; verbsh does the htobe32)" },
  wr_rdma_write = { "qp", "qp:wr_rdma_write(rkey, remote_addr)",
    "void ibv_wr_rdma_write(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr)", "begin an RDMA WRITE WR" },
  wr_rdma_write_imm = { "qp", "qp:wr_rdma_write_imm(rkey, remote_addr, imm_data)",
    "void ibv_wr_rdma_write_imm(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, __be32 imm_data)",
    "begin an RDMA WRITE WITH IMM WR (consumes a receive at the peer)" },
  wr_rdma_read = { "qp", "qp:wr_rdma_read(rkey, remote_addr)",
    "void ibv_wr_rdma_read(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr)", "begin an RDMA READ WR" },
  wr_atomic_cmp_swp = { "qp", "qp:wr_atomic_cmp_swp(rkey, remote_addr, compare, swap)",
    "void ibv_wr_atomic_cmp_swp(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, uint64_t compare, uint64_t swap)",
    "begin a compare-and-swap on an aligned 64-bit word (then an 8-byte wr_set_sge)" },
  wr_atomic_fetch_add = { "qp", "qp:wr_atomic_fetch_add(rkey, remote_addr, add)",
    "void ibv_wr_atomic_fetch_add(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t remote_addr, uint64_t add)",
    "begin a fetch-and-add (then an 8-byte wr_set_sge)" },
  wr_set_sge = { "qp", "qp:wr_set_sge(mr, offset, length) or qp:wr_set_sge(lkey, addr, length)",
    "void ibv_wr_set_sge(struct ibv_qp_ex *qp, uint32_t lkey, uint64_t addr, uint32_t length)",
    "the local buffer of the WR the last op began" },
  wr_set_sge_list = { "qp", "qp:wr_set_sge_list{ {mr=, offset=, length=}, ... }",
    "void ibv_wr_set_sge_list(struct ibv_qp_ex *qp, size_t num_sge, const struct ibv_sge *sg_list)",
    "several local buffers (a gather list) for the current WR" },
  wr_set_inline_data = { "qp", "qp:wr_set_inline_data(str)",
    "void ibv_wr_set_inline_data(struct ibv_qp_ex *qp, void *addr, size_t length)",
    "copy the bytes into the WR now (at most cap.max_inline_data)" },
  wr_set_inline_data_list = { "qp", "qp:wr_set_inline_data_list{ str, ... }",
    "void ibv_wr_set_inline_data_list(struct ibv_qp_ex *qp, size_t num_buf, const struct ibv_data_buf *buf_list)",
    "several inline pieces for the current WR" },
  wr_set_ud_addr = { "qp", "qp:wr_set_ud_addr(ah, remote_qpn, remote_qkey)",
    "void ibv_wr_set_ud_addr(struct ibv_qp_ex *qp, struct ibv_ah *ah, uint32_t remote_qpn, uint32_t remote_qkey)",
    "where the current UD WR goes (every UD WR needs it)" },
  create_cq_ex = { "context", "ctx:create_cq_ex{cqe=, wc_flags={...}, channel=, comp_vector=}",
    "struct ibv_cq_ex *ibv_create_cq_ex(struct ibv_context *context, struct ibv_cq_init_attr_ex *cq_attr)",
    "a CQ read one field at a time: start_poll, read_*, next_poll, end_poll; wc_flags names the fields" },
  start_poll = { "cq", "cq:start_poll()", "int ibv_start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr)",
    "true: a completion is current (cq.wr_id, cq.status, cq:read_*); false: empty (ENOENT), and no end_poll" },
  next_poll = { "cq", "cq:next_poll()", "int ibv_next_poll(struct ibv_cq_ex *cq)",
    "move to the next completion: true, or false when there is none (end_poll still due)" },
  end_poll = { "cq", "cq:end_poll()", "void ibv_end_poll(struct ibv_cq_ex *cq)",
    "release the CQ and consume what was read; only after a start_poll that returned true" },
  read_opcode = { "cq", "cq:read_opcode()", "enum ibv_wc_opcode ibv_wc_read_opcode(struct ibv_cq_ex *cq)", "the current completion's opcode" },
  read_vendor_err = { "cq", "cq:read_vendor_err()", "uint32_t ibv_wc_read_vendor_err(struct ibv_cq_ex *cq)", "the vendor error (valid on failures)" },
  read_byte_len = { "cq", "cq:read_byte_len()", "uint32_t ibv_wc_read_byte_len(struct ibv_cq_ex *cq)", "bytes received (wc_flags BYTE_LEN)" },
  read_imm_data = { "cq", "cq:read_imm_data()", "__be32 ibv_wc_read_imm_data(struct ibv_cq_ex *cq)", "the immediate, host order (wc_flags IMM)" },
  read_qp_num = { "cq", "cq:read_qp_num()", "uint32_t ibv_wc_read_qp_num(struct ibv_cq_ex *cq)", "the local QP (wc_flags QP_NUM)" },
  read_src_qp = { "cq", "cq:read_src_qp()", "uint32_t ibv_wc_read_src_qp(struct ibv_cq_ex *cq)", "the sender's QP, UD (wc_flags SRC_QP)" },
  read_wc_flags = { "cq", "cq:read_wc_flags()", "unsigned int ibv_wc_read_wc_flags(struct ibv_cq_ex *cq)", "GRH, WITH_IMM, ..." },
  read_slid = { "cq", "cq:read_slid()", "uint32_t ibv_wc_read_slid(struct ibv_cq_ex *cq)", "source LID (wc_flags SLID)" },
  read_sl = { "cq", "cq:read_sl()", "uint8_t ibv_wc_read_sl(struct ibv_cq_ex *cq)", "service level (wc_flags SL)" },
  read_dlid_path_bits = { "cq", "cq:read_dlid_path_bits()", "uint8_t ibv_wc_read_dlid_path_bits(struct ibv_cq_ex *cq)",
    "path bits (wc_flags DLID_PATH_BITS)" },
  read_completion_ts = { "cq", "cq:read_completion_ts()", "uint64_t ibv_wc_read_completion_ts(struct ibv_cq_ex *cq)",
    "the device's timestamp (wc_flags COMPLETION_TIMESTAMP; rxe has none)" },
  iter = { "cq", "for wc in cq:iter() do ... end", "ibv_start_poll / ibv_next_poll / ibv_end_poll in a loop",
    "the completions now in the CQ, as the tables cq:poll gives; a break still ends the poll" },
  wait_fds = { "verbs", "verbs.wait_fds({channel, cm_channel, ctx, socket, fd...} [, timeout_ms])",
    "int poll(struct pollfd *fds, nfds_t nfds, int timeout)  /* or epoll_wait */",
    "the entries that are readable (empty at the timeout); Ctrl-C interrupts" },
  getrusage = { "verbs", "verbs.getrusage()", "int getrusage(int who, struct rusage *usage)  /* RUSAGE_SELF */",
    "this process's CPU time (ru_utime, ru_stime in seconds), ru_maxrss, context switches" },
  -- librdmacm
  create_event_channel = { "verbs", "verbs.create_event_channel()",
    "struct rdma_event_channel *rdma_create_event_channel(void)", "where rdma_cm events arrive (ch.fd)" },
  create_id = { "cm_channel", "ch:create_id(ps)", "int rdma_create_id(struct rdma_event_channel *channel,"
    .. " struct rdma_cm_id **id, void *context, enum rdma_port_space ps)",
    "a communication id: \"TCP\" for RC connections, \"UDP\" for UD" },
  get_cm_event = { "cm_channel", "ch:get_cm_event([timeout_ms])",
    "int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)",
    "the next event (ev.event, ev.status, ev.id, ev.listen_id, ev.param), or nil at the timeout; Ctrl-C interrupts" },
  ack = { "cm_event", "ev:ack()", "int rdma_ack_cm_event(struct rdma_cm_event *event)",
    "free the event; its id cannot be destroyed before (the finalizer acks a forgotten one)" },
  expect = { "cm_event", "ev:expect(name, ...)", "if (event->event != RDMA_CM_EVENT_...) /* error */",
    "the event if it is one of the names, else an error that says why this one came" },
  bind_addr = { "cm_id", "id:bind_addr(\"host:port\")", "int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)",
    "bind to a local address (\"*:7471\": any address, port 7471), before listen" },
  resolve_addr = { "cm_id", "id:resolve_addr(src_or_nil, \"host:port\" [, timeout_ms=2000])",
    "int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr, struct sockaddr *dst_addr, int timeout_ms)",
    "find the local device for a destination; then ADDR_RESOLVED (id.verbs is set)" },
  resolve_route = { "cm_id", "id:resolve_route([timeout_ms=2000])",
    "int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)", "the path to the destination; then ROUTE_RESOLVED" },
  ["cm_id:create_qp"] = { "cm_id", "id:create_qp(pd, {qp_type=, send_cq=, recv_cq=, cap={...}})",
    "int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)",
    "a QP that librdmacm moves through its states (pd and CQs from id.verbs); id.qp" },
  destroy_qp = { "cm_id", "id:destroy_qp()", "void rdma_destroy_qp(struct rdma_cm_id *id)", "destroy id.qp" },
  connect = { "cm_id", "id:connect([conn_param])", "int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)",
    "send the connection request (private_data=, responder_resources=, initiator_depth=, retry_count=, ...)" },
  listen = { "cm_id", "id:listen([backlog])", "int rdma_listen(struct rdma_cm_id *id, int backlog)",
    "wait for CONNECT_REQUEST events; each brings a new id (ev.id)" },
  accept = { "cm_id", "ev.id:accept([conn_param])", "int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)",
    "accept a request, on the request's new id" },
  reject = { "cm_id", "ev.id:reject([private_data])",
    "int rdma_reject(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)",
    "refuse a request; the client gets REJECTED, status 28" },
  disconnect = { "cm_id", "id:disconnect()", "int rdma_disconnect(struct rdma_cm_id *id)",
    "move the QP to ERR and tell the peer; both sides then get DISCONNECTED" },
  establish = { "cm_id", "id:establish()", "int rdma_establish(struct rdma_cm_id *id)",
    "complete a connection made without a QP on the id" },
  init_qp_attr = { "cm_id", "id:init_qp_attr(qp_state)",
    "int rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *qp_attr, int *qp_attr_mask)",
    "the attributes and mask librdmacm would use for that transition" },
  get_local_addr = { "cm_id", "id:get_local_addr()", "struct sockaddr *rdma_get_local_addr(struct rdma_cm_id *id)",
    "\"192.0.2.1:7471\"" },
  get_peer_addr = { "cm_id", "id:get_peer_addr()", "struct sockaddr *rdma_get_peer_addr(struct rdma_cm_id *id)",
    "\"192.0.2.2:40000\"" },
  get_src_port = { "cm_id", "id:get_src_port()", "__be16 rdma_get_src_port(struct rdma_cm_id *id)", "the local port" },
  get_dst_port = { "cm_id", "id:get_dst_port()", "__be16 rdma_get_dst_port(struct rdma_cm_id *id)", "the peer's port" },
  ["cm_id:destroy"] = { "cm_id", "id:destroy()", "int rdma_destroy_id(struct rdma_cm_id *id)",
    "free the id (its QP and unacked events first)" },
}

-- kind: the object's class ("cm_id"), for the names two classes share.
local function show(name, kind)
  local d = kind and doc[kind .. ":" .. name] or doc[name]
  if not d then return nil end
  return ("%s\n    C: %s\n    %s\n"):format(d[2], d[3], d[4])
end

local overview = [[
verbsh: the RDMA verbs of libibverbs, in Lua. Every name follows C:
  a method is the verb minus ibv_ and its object   ibv_modify_qp(qp, ...)  ->  qp:modify{...}
  table keys are the C struct fields               attr.dest_qp_num       ->  {dest_qp_num = 0x12}
  enums and flags are the C names, no prefix       IBV_QPS_RTS            ->  "RTS"  (or "IBV_QPS_RTS", or 3)

  ctx = verbs.open()                  -- ibv_open_device
  pd  = ctx:alloc_pd()                -- then pd:reg_mr, pd:create_qp, pd:create_ah, pd:create_srq
  cq  = ctx:create_cq(16)             -- then cq:poll, cq:wait
  qp  = pd:create_qp{qp_type = "RC", send_cq = cq, recv_cq = cq, cap = {...}}
  qp:modify{qp_state = "INIT", ...}   -- RESET -> INIT -> RTR -> RTS

  ch  = verbs.create_event_channel()  -- rdma_cm: ch:create_id("TCP"), id:resolve_addr, ch:get_cm_event

help(obj) lists an object's methods; help "modify" shows one, with its C prototype.
verbs.explain(x) explains a completion status or an error; verbs.trace(true) prints each call as C.
lesson() lists the lessons; lesson "1" starts the first.
doctor() checks this host (kernel RDMA, provider, ABI, ports, GIDs, MTU, memlock, ...): ok/warn/fail
with the fix for each; it returns true when the lessons can run, and the findings.]]

function M.help(what)
  if what == nil then
    print(overview)
  elseif type(what) == "string" then
    local name = what:match("[:.]([%w_]+)$") or what
    local text = show(what:match("^[%w_]+:[%w_]+$") and what:gsub("^id:", "cm_id:") or name)
      or show(name)
    if not text then
      local close = {}
      for k in pairs(doc) do if k:find(name, 1, true) then close[#close + 1] = k end end
      table.sort(close)
      text = ("no help for %q%s\n"):format(what, #close > 0 and ("; try " .. table.concat(close, ", ")) or "")
    end
    io.write(text)
  else
    local mt = getmetatable(what)
    local methods = type(mt) == "table" and (rawget(mt, "__methods") or rawget(mt, "__index"))
    if type(methods) ~= "table" then
      print(("%s is not a verbs object; help() gives the overview"):format(tostring(what)))
      return
    end
    local names = {}
    for k in pairs(methods) do if type(k) == "string" and not k:find("^_") then names[#names + 1] = k end end
    table.sort(names)
    print(("%s -- methods:"):format(tostring(what)))
    local kind = type(mt.__name) == "string" and mt.__name:match("^verbs%.(.+)$")
    for _, n in ipairs(names) do io.write("  ", show(n, kind) or (n .. "\n")) end
  end
end

return M
