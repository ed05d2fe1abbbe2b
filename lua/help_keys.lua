-- What table keys and object fields mean, for help(). Their names, types
-- and ranges come from verbs.fields (the marshaller's descriptors); only the
-- meaning is written here.
local M = {}

-- What each table key means; "ctype.key" where one name means different
-- things in different structs. Types and ranges come from verbs.fields.
M.keys = {
  ["ibv_srq_init_attr_ex.srq_type"] = "BASIC (an ordinary SRQ), XRC (needs an XRC domain) or TM (tag matching)",
  ["ibv_srq_init_attr_ex.cq"] = "the CQ of an XRC or TM SRQ's completions",
  ["ibv_srq_init_attr_ex.tm_cap"] = "tag matching: how many tags and outstanding operations (TM SRQs only)",
  ["ibv_tm_cap.max_num_tags"] = "the tags the TM SRQ can match at once",
  ["ibv_tm_cap.max_ops"] = "the tag operations (srq:post_srq_ops) outstanding at once",
  -- ibv_qp_attr
  qp_state = "the state to move to: RESET -> INIT -> RTR -> RTS (ERR from anywhere)",
  cur_qp_state = "the state you believe the QP is in (IBV_QP_CUR_STATE); rarely needed",
  path_mtu = "the path MTU in bytes (\"1024\"), at RTR; RoCE: at most the port's active_mtu",
  path_mig_state = "automatic path migration state (MIGRATED, REARM, ARMED)",
  qkey = "UD: the Q_Key a datagram must carry to be accepted by this QP (at INIT)",
  rq_psn = "the PSN the receive side expects first, at RTR: the peer's sq_psn",
  sq_psn = "the first PSN this QP sends, at RTS: the peer's rq_psn",
  dest_qp_num = "the peer QP's qp_num, at RTR (RC, UC)",
  qp_access_flags = "what the peer may do to this side's memory: REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC (at INIT)",
  ["ibv_qp_attr.cap"] = "the QP's queue sizes (only as given back by qp:query; ibv_modify_qp cannot resize on rxe)",
  ah_attr = "the address of the peer, at RTR (RC, UC): port_num, and for RoCE is_global = 1 with grh",
  alt_ah_attr = "the alternate path's address (automatic path migration)",
  pkey_index = "the P_Key table index, at INIT (0 on RoCE)",
  alt_pkey_index = "the alternate path's P_Key index",
  en_sqd_async_notify = "ask for an async event when the send queue has drained (SQD)",
  sq_draining = "given by qp:query: the send queue is draining (SQD)",
  max_rd_atomic = "READs and atomics this QP may have outstanding as initiator, at RTS",
  max_dest_rd_atomic = "READs and atomics the peer may have outstanding on this QP as responder, at RTR",
  min_rnr_timer = "how long the peer waits after an RNR NAK from this QP (code 1..31, 0 = 655 ms), at RTR",
  port_num = "the device port (1 on rxe)",
  timeout = "local ack timeout, 4.096 us * 2^timeout (14: ~67 ms; 0: infinite), at RTS",
  retry_cnt = "retries after an ack timeout before RETRY_EXC_ERR (0..7), at RTS",
  rnr_retry = "retries after an RNR NAK before RNR_RETRY_EXC_ERR (7: forever), at RTS",
  alt_port_num = "the alternate path's port",
  alt_timeout = "the alternate path's ack timeout",
  rate_limit = "packet pacing, kbps (0: none)",
  -- ibv_qp_init_attr(_ex)
  pd = "the protection domain the QP belongs to (create_qp_ex takes it as a key)",
  send_cq = "the CQ that gets this QP's send completions",
  recv_cq = "the CQ that gets this QP's receive completions",
  srq = "a shared receive queue to take receives from (then cap.max_recv_wr = 0)",
  ["rdma_conn_param.srq"] = "1 if the QP uses an SRQ (iWARP/IB CM field)",
  cap = "the queue sizes: { max_send_wr, max_recv_wr, max_send_sge, max_recv_sge, max_inline_data }",
  qp_type = "RC (reliable connected), UC (unreliable connected) or UD (datagrams)",
  sq_sig_all = "1: every send WR completes with a WC; 0: only those with send_flags SIGNALED",
  create_flags = "ibv_qp_create_flags (rarely needed)",
  send_ops_flags = "the ops this QP may build with wr_*: SEND, RDMA_WRITE, RDMA_READ, ATOMIC_FETCH_AND_ADD, ...",
  comp_mask = "which optional fields are valid; verbsh computes it from the keys you set",
  -- ibv_qp_cap
  max_send_wr = "send queue depth: WRs outstanding at once", max_recv_wr = "receive queue depth",
  max_send_sge = "SGEs per send WR (gather list length)", max_recv_sge = "SGEs per receive WR (scatter list length)",
  max_inline_data = "bytes a send may carry inline (send_flags INLINE)",
  -- ibv_ah_attr, ibv_global_route
  grh = "the global route: { dgid, sgid_index, hop_limit, flow_label, traffic_class }; RoCE needs it (is_global = 1)",
  dlid = "destination LID (InfiniBand; 0 on RoCE)",
  sl = "service level 0..15",
  src_path_bits = "source path bits (InfiniBand LMC)",
  static_rate = "static rate limit (ibv_rate; 0: port rate)",
  is_global = "1: the address has a GRH (always on RoCE)",
  dgid = "the destination GID, as text (\"::ffff:192.0.2.1\") or 16 bytes: ctx:query_gid(port, index) of the peer",
  flow_label = "IPv6 flow label (20 bits)",
  sgid_index = "the index of this side's GID to send from: on rxe the RoCE v2 IPv4-mapped one (gid_index)",
  hop_limit = "IP TTL / hop limit (1 is enough on one link)",
  traffic_class = "IP traffic class (DSCP/ECN)",
  -- ibv_send_wr, ibv_recv_wr
  wr_id = "your number for this WR; its completion carries it back as wc.wr_id",
  sg_list = "the buffers: a list of SGEs, each { mr = mr, offset = 0, length = n } (offset and length"
    .. " default to 0 and the rest of the MR) or { addr = a, length = n, lkey = k } as in C; num_sge is its length",
  opcode = "what the WR does: SEND, SEND_WITH_IMM, RDMA_WRITE (needs rdma), RDMA_WRITE_WITH_IMM, RDMA_READ,"
    .. " ATOMIC_FETCH_AND_ADD / ATOMIC_CMP_AND_SWP (need atomic), BIND_MW (needs bind_mw),"
    .. " LOCAL_INV and SEND_WITH_INV (need invalidate_rkey); C's default 0 is RDMA_WRITE",
  ["ibv_wc.opcode"] = "what completed: SEND, RDMA_WRITE, RDMA_READ, COMP_SWAP, FETCH_ADD, RECV, RECV_RDMA_WITH_IMM, BIND_MW, LOCAL_INV",
  send_flags = "SIGNALED (a completion even when sq_sig_all = 0), INLINE (copy the data now), FENCE, SOLICITED",
  imm_data = "32 bits sent with SEND_WITH_IMM / RDMA_WRITE_WITH_IMM, in host order (verbsh does htonl);"
    .. " the receiver's wc.imm_data",
  rdma = "C's wr.rdma, for RDMA_WRITE(_WITH_IMM) and RDMA_READ: { remote_addr = peer mr.addr (+ offset),"
    .. " rkey = peer mr.rkey }",
  atomic = "C's wr.atomic, for the atomics: { remote_addr (8-byte aligned), rkey, compare_add, swap }",
  ud = "C's wr.ud, for UD sends: { ah = address handle, remote_qpn = peer qp_num, remote_qkey = peer's qkey }",
  remote_addr = "the peer's virtual address: its mr.addr plus an offset",
  rkey = "the peer MR's rkey (mr.rkey on the side that registered it)",
  compare_add = "FETCH_AND_ADD: the value to add; CMP_AND_SWP: the value to compare with",
  swap = "CMP_AND_SWP: the value written when the compare matches",
  ah = "the address handle of the destination (pd:create_ah)",
  remote_qpn = "the destination UD QP's qp_num",
  remote_qkey = "the destination QP's Q_Key (its qkey)",
  -- SGE
  mr = "the MR the buffer lies in (verbsh fills addr and lkey from it)",
  offset = "where the buffer starts in the MR (with mr =)",
  length = "bytes (with mr =: default the rest of the MR after offset)",
  addr = "the buffer's virtual address, as C's sge.addr (with lkey =)",
  lkey = "the MR's lkey, as C's sge.lkey (with addr =)",
  -- ibv_srq_attr
  max_wr = "receive WRs the SRQ holds", max_sge = "SGEs per receive WR",
  srq_limit = "arm: SRQ_LIMIT_REACHED fires once when fewer WRs than this remain (0: disarmed)",
  -- create_cq options, ibv_cq_init_attr_ex
  cqe = "the least number of entries the CQ must hold",
  channel = "the completion channel an armed CQ signals (ctx:create_comp_channel())",
  comp_vector = "the interrupt vector (0 .. ctx.num_comp_vectors - 1)",
  wc_flags = "the fields the CQ reports: BYTE_LEN, IMM, QP_NUM, SRC_QP, ... (cq_ex: read with cq:read_*)",
  ["ibv_wc.wc_flags"] = "GRH (a UD receive begins with 40 bytes of GRH), WITH_IMM (imm_data is valid), ...",
  flags = "ibv_create_cq_attr_flags (SINGLE_THREADED ...)",
  ["ibv_port_attr.flags"] = "GRH_REQUIRED when every address on this port needs a GRH (is_global = 1), as on RoCE",
  -- rdma_conn_param
  private_data = "bytes for the peer's event (ev.param.conn.private_data), at most 255 (private_data_len is a"
    .. " uint8_t); the CM message's field holds 56 in a connect request, 196 in a reply",
  private_data_len = "set from private_data; the event gives the length of the whole CM field",
  responder_resources = "READs/atomics the peer may have outstanding here (max_dest_rd_atomic)",
  initiator_depth = "READs/atomics this side may have outstanding (max_rd_atomic)",
  flow_control = "1: the peer honours end-to-end flow control",
  retry_count = "as retry_cnt (0..7)", rnr_retry_count = "as rnr_retry (0..7, 7: forever)",
  ["rdma_conn_param.qp_num"] = "the QP number to advertise when the id has no QP",
  -- ibv_wc
  status = "SUCCESS or why the WR failed: verbs.explain(wc) says why and how to fix it",
  vendor_err = "the provider's own error code (on failures)",
  byte_len = "bytes received (receive completions)",
  qp_num = "the local QP the completion belongs to",
  src_qp = "UD: the sender's qp_num",
  slid = "source LID (InfiniBand)", dlid_path_bits = "destination path bits (InfiniBand)",
  ["ibv_wc.pkey_index"] = "UD: the P_Key index of the datagram",
  ["ibv_wc.sl"] = "the service level of the message",
  -- ibv_port_attr
  state = "the port's state: ACTIVE when it can carry traffic",
  max_mtu = "the largest MTU the port supports", active_mtu = "the MTU in use: the most path_mtu may be",
  gid_tbl_len = "entries in the GID table (ctx:gids() lists the used ones)",
  port_cap_flags = "the port's capabilities (ibv_port_cap_flags): CM_SUP, IP_BASED_GIDS, ...",
  port_cap_flags2 = "more capabilities (ibv_port_cap_flags2)",
  max_msg_sz = "the largest message one WR may carry",
  bad_pkey_cntr = "packets dropped for a bad P_Key", qkey_viol_cntr = "UD datagrams dropped for a wrong Q_Key",
  pkey_tbl_len = "entries in the P_Key table", lid = "the port's LID (InfiniBand; 0 on RoCE)",
  sm_lid = "the subnet manager's LID", lmc = "LID mask control", max_vl_num = "virtual lanes",
  sm_sl = "the subnet manager's service level", subnet_timeout = "subnet timeout (InfiniBand)",
  init_type_reply = "init type reply (InfiniBand)", active_width = "link width code", active_speed = "link speed code",
  phys_state = "the physical link state: LINK_UP when cabled and trained", link_layer = "ETHERNET (RoCE) or INFINIBAND",
  -- memory windows: ibv_mw_bind, ibv_mw_bind_info, ibv_send_wr.bind_mw
  ["ibv_mw_bind.wr_id"] = "the wr_id of the bind's completion (opcode BIND_MW)",
  ["ibv_mw_bind.send_flags"] = "SIGNALED for a completion of a good bind (a failed one always completes)",
  bind_info = "what the window opens onto: { mr =, addr =, length =, mw_access_flags = }",
  ["ibv_mw_bind_info.mr"] = "the MR the window opens onto: registered with MW_BIND, in the window's PD",
  ["ibv_mw_bind_info.addr"] = "where the window starts: an address inside the MR (mr.addr + offset)",
  ["ibv_mw_bind_info.length"] = "the window's size in bytes (0 unbinds a type 1 window)",
  mw_access_flags = "what the peer may do through the window: REMOTE_READ, REMOTE_WRITE, REMOTE_ATOMIC"
    .. " (ZERO_BASED is refused for type 1)",
  ["ibv_send_wr.bind_mw.mw"] = "the TYPE_2 window to bind (opcode BIND_MW)",
  ["ibv_send_wr.bind_mw.rkey"] = "the rkey the window gets: verbs.inc_rkey(mw.rkey); afterwards set mw.rkey to it",
  bind_mw = "opcode BIND_MW: { mw =, rkey =, bind_info = { mr =, addr =, length =, mw_access_flags = } }",
  invalidate_rkey = "the window rkey that LOCAL_INV revokes here, or that SEND_WITH_INV revokes at the peer",
  invalidated_rkey = "a receive of a SEND_WITH_INV: the rkey it revoked here (wc_flags WITH_INV; rxe reports"
    .. " that bit as IP_CSUM_OK, 1 << 2, and verbsh reads it so on an RC or UC receive)",
}
-- ibv_device_attr's keys are limits and capabilities named after what they count.
M.struct_note = {
  ibv_device_attr = "a limit or capability of the device, as ibv_query_device reports it",
  ["ibv_send_wr.wr.rdma"] = "the remote side of an RDMA WRITE or READ",
  ["ibv_send_wr.wr.atomic"] = "the remote side of an atomic",
  ["ibv_send_wr.wr.ud"] = "where a UD send goes",
  ["ibv_send_wr.bind_mw"] = "the window a BIND_MW WR binds, and onto what",
  ibv_mw_bind = "qp:bind_mw's second argument: a type 1 bind",
  ibv_mw_bind_info = "what a window opens onto",
}

-- rdma_addrinfo (verbs.getaddrinfo's hints) and rdma_cm_join_mc_attr_ex
M.keys["rdma_cm_join_mc_attr_ex.comp_mask"] = "which keys are given (ADDRESS, JOIN_FLAGS); verbsh sets it from the keys"
M.keys["rdma_cm_join_mc_attr_ex.join_flags"] = "FULLMEMBER (send and receive) or SENDONLY_FULLMEMBER (send only)"
M.keys["rdma_cm_join_mc_attr_ex.addr"] = "the group to join, e.g. \"239.1.2.3\""
M.keys.ai_flags = "PASSIVE (a server's address: node nil means any), NUMERICHOST (no name lookup), NOROUTE, FAMILY"
M.keys.ai_family = "INET, INET6 or IB: the address family wanted"
M.keys.ai_qp_type = "the QP type the endpoint gets (RC for TCP, UD for UDP by default)"
M.keys.ai_port_space = "TCP (RC connections) or UDP (UD datagrams), as ch:create_id takes"
M.keys.ai_src_addr = "the local address to use, \"host:port\""
M.keys.ai_dst_addr = "the destination, \"host:port\""

-- Types for the keys the marshaller reads with its own code (VT_CUSTOM).
M.custom_types = {
  sg_list = "list of SGE tables (ibv_sge)", imm_data = "integer 0..0xffffffff (host order)",
  private_data = "string of at most 255 bytes",
  invalidate_rkey = "integer 0..0xffffffff (shares imm_data's bytes)",
  invalidated_rkey = "integer 0..0xffffffff (shares imm_data's bytes)",
  ai_src_addr = "string \"host:port\"", ai_dst_addr = "string \"host:port\"",
  ["rdma_cm_join_mc_attr_ex.addr"] = "string: a group address (\"239.1.2.3\")",
}

-- Enums that no table key uses: where they appear instead.
M.enum_uses = {
  ibv_rate = "verbs.rate_to_mbps(rate), verbs.rate_to_mult(rate); verbs.mbps_to_rate and verbs.mult_to_rate give one",
  ibv_fork_status = "what verbs.is_fork_initialized() returns",
  ibv_rereg_mr_flags = "the flags of mr:rereg(flags, pd, access)",
  ibv_qp_attr_mask = "the optional mask of qp:modify(attr, mask) (verbsh computes it from the keys otherwise)",
  ibv_srq_attr_mask = "the optional mask of srq:modify(attr, mask)",
  ibv_event_type = "event_type of ctx:get_async_event()",
  rdma_cm_event_type = "ev.event of ch:get_cm_event(), and ev:expect(name)",
  rdma_port_space = "ch:create_id(ps)",
  ibv_gid_type = "type of each entry of ctx:gids()",
  ibv_node_type = "node_type of verbs.devices()", ibv_transport_type = "transport_type of verbs.devices()",
  ibv_access_flags = "pd:reg_mr(size, access) and mr.access",
  ibv_send_flags = "qp.wr_flags (ibv_qp_ex)",
  ibv_wc_status = "cq.status (ibv_cq_ex), and verbs.explain(status)",
  ibv_qp_state = "qp.state, and id:init_qp_attr(qp_state)", ibv_qp_type = "qp.qp_type, id.qp_type",
  ibv_create_cq_wc_flags = "cq.wc_flags (ibv_cq_ex)", ibv_wc_opcode = "cq:read_opcode()",
  ibv_mw_type = "pd:alloc_mw(type) and mw.type",
}

-- The fields of verbs objects (qp.qp_num), as C reads them from the struct.
M.obj_fields = {
  ["devobj.kind"] = "what a hardware-only verb made: xrcd, dm, td, parent_domain, counters, wq, rwq_ind_table, flow,"
    .. " flow_action, mr, qp, imported_pd, imported_mr, imported_dm, imported_context",
  ["qp.qp_num"] = "the QP's number (qp->qp_num): what the peer puts in dest_qp_num or remote_qpn",
  ["qp.state"] = "the QP's state, from the provider (ibv_query_qp): RESET, INIT, RTR, RTS, SQD, SQE, ERR."
    .. " On iWARP (siw, which reports RESET whatever the state) it is the state verbsh's last qp:modify set,"
    .. " or UNKNOWN for a QP rdma_cm moved, and verbsh warns once that it is not the device's report (help \"iwarp\")",
  ["qp.qp_type"] = "RC, UC or UD", ["qp.handle"] = "the kernel's handle", ["qp.pd"] = "the PD it was created in",
  ["qp.send_cq"] = "its send CQ", ["qp.recv_cq"] = "its receive CQ", ["qp.srq"] = "its SRQ, or nil",
  ["qp.wr_id"] = "ibv_qp_ex: qpx->wr_id, read by the next wr_* op (settable)",
  ["qp.wr_flags"] = "ibv_qp_ex: qpx->wr_flags (ibv_send_flags), read by the next wr_* op (settable)",
  ["mr.addr"] = "the MR's virtual address: a peer's rdma.remote_addr", ["mr.length"] = "its size in bytes",
  ["mr.lkey"] = "the local key: sge.lkey", ["mr.rkey"] = "the remote key: what a peer puts in rdma.rkey",
  ["mr.handle"] = "the kernel's handle", ["mr.access"] = "the access flags it was registered with",
  ["mw.rkey"] = "the window's rkey as C's mw->rkey holds it: qp:bind_mw moves it on; after a type 2 bind set"
    .. " it yourself (mw.rkey = the bind's rkey), as C does", ["mw.type"] = "TYPE_1 or TYPE_2",
  ["mw.handle"] = "the kernel's handle", ["mw.pd"] = "the PD it was allocated from",
  ["cq.cqe"] = "the CQ's size (at least what was asked)", ["cq.handle"] = "the kernel's handle",
  ["cq.channel"] = "the completion channel it was created with (cq->channel), or nil",
  ["cq.wc_flags"] = "ibv_cq_ex: the fields asked for at create_cq_ex",
  ["cq.wr_id"] = "ibv_cq_ex: the current completion's wr_id (between start_poll and end_poll)",
  ["cq.status"] = "ibv_cq_ex: the current completion's status",
  ["context.name"] = "the device's name (rxe0)", ["context.async_fd"] = "the descriptor async events arrive on",
  ["context.num_comp_vectors"] = "how many completion vectors the device has",
  ["comp_channel.fd"] = "the descriptor that becomes readable on a CQ event (for verbs.wait_fds)",
  ["cm_channel.fd"] = "the descriptor that becomes readable on a CM event",
  ["cm_id.verbs"] = "the device context, once the address is resolved (id->verbs)", ["cm_id.qp"] = "the id's QP, or nil",
  ["cm_id.channel"] = "its event channel", ["cm_id.ps"] = "TCP or UDP", ["cm_id.qp_type"] = "RC or UD",
  ["cm_id.port_num"] = "the device port",
  ["cm_event.event"] = "what happened: ADDR_RESOLVED, ESTABLISHED, REJECTED, ...", ["cm_event.status"] = "0, or why",
  ["cm_event.id"] = "the id it concerns (a new id for CONNECT_REQUEST)", ["cm_event.listen_id"] = "the listening id",
  ["cm_event.param"] = "{ conn = { private_data, ... } } or, on UDP ids, { ud = { ah_attr, qp_num, qkey } }"
    .. " (MULTICAST_JOIN: the group's, with the join's context)",
  ["cm_addrinfo.ai_flags"] = "RAI_* flags: PASSIVE for a server's address", ["cm_addrinfo.ai_family"] = "INET, INET6 or IB",
  ["cm_addrinfo.ai_qp_type"] = "the QP type create_ep gives the id", ["cm_addrinfo.ai_port_space"] = "TCP or UDP",
  ["cm_addrinfo.ai_src_len"] = "the size of ai_src_addr (16: sockaddr_in)", ["cm_addrinfo.ai_dst_len"] = "the size of ai_dst_addr",
  ["cm_addrinfo.ai_src_addr"] = "the local address, \"0.0.0.0:7471\" for a passive one, or nil",
  ["cm_addrinfo.ai_dst_addr"] = "the destination, \"192.0.2.1:7471\", or nil",
  ["cm_addrinfo.ai_src_canonname"] = "the source's canonical name, or nil",
  ["cm_addrinfo.ai_dst_canonname"] = "the destination's canonical name, or nil",
  ["cm_addrinfo.ai_route_len"] = "bytes of a path record (InfiniBand), 0 on RoCE",
  ["cm_addrinfo.ai_connect_len"] = "bytes of connection data, 0 on RoCE",
  ["cm_addrinfo.ai_next"] = "the next result (a table of the same fields), or nil",
}

return M
