/* The C oracle for tests/device/oracle.bats: one deterministic scenario on
 * rxe, written with plain libibverbs and librdmacm, that prints every value
 * it reads as "key<TAB>value". tests/oracle/oracle.lua runs the same
 * scenario through verbsh and prints the same keys; the test compares the
 * two lists field by field.
 *
 * Names of enum values and flags come from the C identifiers themselves
 * (#x of IBV_WC_SEND minus its prefix), not from verbsh's tables. QP
 * numbers differ between two processes, so they print as the name of the
 * scenario's QP that holds the number ("qa", "ub", ...). Integers print in
 * decimal, a uint64_t as the int64_t Lua holds it. */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netdb.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

static void die(const char *what, int err)
{
	fprintf(stderr, "oracle: %s failed: %s\n", what, strerror(err));
	exit(1);
}
#define CHECK(call) do { int r_ = (call); if (r_) die(#call, r_ > 0 ? r_ : errno); } while (0)
#define CHECKP(p, call) do { if (!((p) = (call))) die(#call, errno); } while (0)

static void out(const char *key, const char *fmt, ...)
{
	va_list ap;
	printf("%s\t", key);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static const char *k(const char *prefix, const char *name)
{
	static char buf[320];
	snprintf(buf, sizeof buf, "%s.%s", prefix, name);
	return buf;
}
#define NUM(prefix, s, f) out(k(prefix, #f), "%lld", (long long)(s)->f)

/* ---- names from the C identifiers ---------------------------------------- */

struct name { long long v; const char *n; };
#define N(pfx, x) { pfx##x, #x }
#define END { 0, NULL }

static const struct name wc_status[] = {
	N(IBV_WC_, SUCCESS), N(IBV_WC_, LOC_LEN_ERR), N(IBV_WC_, LOC_QP_OP_ERR), N(IBV_WC_, LOC_PROT_ERR),
	N(IBV_WC_, WR_FLUSH_ERR), N(IBV_WC_, REM_INV_REQ_ERR), N(IBV_WC_, REM_ACCESS_ERR), N(IBV_WC_, REM_OP_ERR),
	N(IBV_WC_, RETRY_EXC_ERR), N(IBV_WC_, RNR_RETRY_EXC_ERR), N(IBV_WC_, GENERAL_ERR), END };
static const struct name wc_opcode[] = {
	N(IBV_WC_, SEND), N(IBV_WC_, RDMA_WRITE), N(IBV_WC_, RDMA_READ), N(IBV_WC_, COMP_SWAP),
	N(IBV_WC_, FETCH_ADD), N(IBV_WC_, BIND_MW), N(IBV_WC_, LOCAL_INV), N(IBV_WC_, TSO), N(IBV_WC_, RECV),
	N(IBV_WC_, RECV_RDMA_WITH_IMM), END };
static const struct name wc_flags[] = {
	N(IBV_WC_, GRH), N(IBV_WC_, WITH_IMM), N(IBV_WC_, IP_CSUM_OK), N(IBV_WC_, WITH_INV), END };
static const struct name qp_state[] = {
	N(IBV_QPS_, RESET), N(IBV_QPS_, INIT), N(IBV_QPS_, RTR), N(IBV_QPS_, RTS), N(IBV_QPS_, SQD),
	N(IBV_QPS_, SQE), N(IBV_QPS_, ERR), END };
static const struct name qp_type[] = { N(IBV_QPT_, RC), N(IBV_QPT_, UC), N(IBV_QPT_, UD), END };
static const struct name mtu[] = {
	{ IBV_MTU_256, "256" }, { IBV_MTU_512, "512" }, { IBV_MTU_1024, "1024" }, { IBV_MTU_2048, "2048" },
	{ IBV_MTU_4096, "4096" }, END };
static const struct name mig_state[] = { N(IBV_MIG_, MIGRATED), N(IBV_MIG_, REARM), N(IBV_MIG_, ARMED), END };
static const struct name access[] = {
	N(IBV_ACCESS_, LOCAL_WRITE), N(IBV_ACCESS_, REMOTE_WRITE), N(IBV_ACCESS_, REMOTE_READ),
	N(IBV_ACCESS_, REMOTE_ATOMIC), N(IBV_ACCESS_, MW_BIND), N(IBV_ACCESS_, ZERO_BASED), N(IBV_ACCESS_, ON_DEMAND),
	END };
static const struct name port_state[] = {
	N(IBV_PORT_, NOP), N(IBV_PORT_, DOWN), N(IBV_PORT_, INIT), N(IBV_PORT_, ARMED), N(IBV_PORT_, ACTIVE), END };
static const struct name link_layer[] = {
	N(IBV_LINK_LAYER_, UNSPECIFIED), N(IBV_LINK_LAYER_, INFINIBAND), N(IBV_LINK_LAYER_, ETHERNET), END };
static const struct name node_type[] = { N(IBV_NODE_, CA), N(IBV_NODE_, RNIC), END };
static const struct name transport[] = { N(IBV_TRANSPORT_, IB), N(IBV_TRANSPORT_, IWARP), END };
static const struct name atomic_cap[] = { N(IBV_ATOMIC_, NONE), N(IBV_ATOMIC_, HCA), N(IBV_ATOMIC_, GLOB), END };
/* The IBTA's PortPhysicalState values (ibv_port_attr.phys_state is a plain uint8_t). */
static const struct name phys_state[] = {
	{ 1, "SLEEP" }, { 2, "POLLING" }, { 3, "DISABLED" }, { 4, "PORT_CONFIGURATION_TRAINING" },
	{ 5, "LINK_UP" }, { 6, "LINK_ERROR_RECOVERY" }, { 7, "PHY_TEST" }, END };
static const struct name port_cap[] = {
	N(IBV_PORT_, SM), N(IBV_PORT_, NOTICE_SUP), N(IBV_PORT_, TRAP_SUP), N(IBV_PORT_, OPT_IPD_SUP),
	N(IBV_PORT_, AUTO_MIGR_SUP), N(IBV_PORT_, SL_MAP_SUP), N(IBV_PORT_, MKEY_NVRAM), N(IBV_PORT_, PKEY_NVRAM),
	N(IBV_PORT_, LED_INFO_SUP), N(IBV_PORT_, SYS_IMAGE_GUID_SUP), N(IBV_PORT_, PKEY_SW_EXT_PORT_TRAP_SUP),
	N(IBV_PORT_, EXTENDED_SPEEDS_SUP), N(IBV_PORT_, CAP_MASK2_SUP), N(IBV_PORT_, CM_SUP),
	N(IBV_PORT_, SNMP_TUNNEL_SUP), N(IBV_PORT_, REINIT_SUP), N(IBV_PORT_, DEVICE_MGMT_SUP),
	N(IBV_PORT_, VENDOR_CLASS_SUP), N(IBV_PORT_, DR_NOTICE_SUP), N(IBV_PORT_, CAP_MASK_NOTICE_SUP),
	N(IBV_PORT_, BOOT_MGMT_SUP), N(IBV_PORT_, LINK_LATENCY_SUP), N(IBV_PORT_, CLIENT_REG_SUP),
	N(IBV_PORT_, IP_BASED_GIDS), END };
static const struct name port_cap2[] = {
	N(IBV_PORT_, SET_NODE_DESC_SUP), N(IBV_PORT_, INFO_EXT_SUP), N(IBV_PORT_, VIRT_SUP),
	N(IBV_PORT_, SWITCH_PORT_STATE_TABLE_SUP), N(IBV_PORT_, LINK_WIDTH_2X_SUP), N(IBV_PORT_, LINK_SPEED_HDR_SUP),
	END };
static const struct name port_flags[] = { { IBV_QPF_GRH_REQUIRED, "GRH_REQUIRED" }, END };
static const struct name dev_cap[] = {
	N(IBV_DEVICE_, RESIZE_MAX_WR), N(IBV_DEVICE_, BAD_PKEY_CNTR), N(IBV_DEVICE_, BAD_QKEY_CNTR),
	N(IBV_DEVICE_, RAW_MULTI), N(IBV_DEVICE_, AUTO_PATH_MIG), N(IBV_DEVICE_, CHANGE_PHY_PORT),
	N(IBV_DEVICE_, UD_AV_PORT_ENFORCE), N(IBV_DEVICE_, CURR_QP_STATE_MOD), N(IBV_DEVICE_, SHUTDOWN_PORT),
	N(IBV_DEVICE_, INIT_TYPE), N(IBV_DEVICE_, PORT_ACTIVE_EVENT), N(IBV_DEVICE_, SYS_IMAGE_GUID),
	N(IBV_DEVICE_, RC_RNR_NAK_GEN), N(IBV_DEVICE_, SRQ_RESIZE), N(IBV_DEVICE_, N_NOTIFY_CQ),
	N(IBV_DEVICE_, MEM_WINDOW), N(IBV_DEVICE_, UD_IP_CSUM), N(IBV_DEVICE_, XRC),
	N(IBV_DEVICE_, MEM_MGT_EXTENSIONS), N(IBV_DEVICE_, MEM_WINDOW_TYPE_2A),
	N(IBV_DEVICE_, MEM_WINDOW_TYPE_2B), N(IBV_DEVICE_, RC_IP_CSUM), N(IBV_DEVICE_, RAW_IP_CSUM),
	N(IBV_DEVICE_, MANAGED_FLOW_STEERING), END };
static const struct name cm_event[] = {
	N(RDMA_CM_EVENT_, ADDR_RESOLVED), N(RDMA_CM_EVENT_, ROUTE_RESOLVED), N(RDMA_CM_EVENT_, CONNECT_REQUEST),
	N(RDMA_CM_EVENT_, CONNECT_RESPONSE), N(RDMA_CM_EVENT_, ESTABLISHED), N(RDMA_CM_EVENT_, DISCONNECTED),
	N(RDMA_CM_EVENT_, REJECTED), N(RDMA_CM_EVENT_, UNREACHABLE), END };

static const char *en(const struct name *t, long long v)
{
	static char buf[8][32];
	static int i;
	for (; t->n; t++)
		if (t->v == v)
			return t->n;
	i = (i + 1) % 8;
	snprintf(buf[i], sizeof buf[i], "%lld", v);
	return buf[i];
}

/* The set bits, lowest first, by name (an unnamed bit as its value). */
static const char *fl(const struct name *t, unsigned long long v)
{
	static char buf[4][1024];
	static int i;
	char *b = buf[i = (i + 1) % 4];
	b[0] = 0;
	for (unsigned long long rest = v; rest; rest &= rest - 1) {
		unsigned long long bit = rest & -rest;
		if (b[0])
			strcat(b, ",");
		strcat(b, en(t, (long long)bit));
	}
	return b;
}

/* ---- QP numbers by the name of the scenario's QP ----------------------------- */

static struct { uint32_t qpn; const char *name; } qps[32];
static int nqps;

static void name_qp(const char *name, uint32_t qpn)
{
	qps[nqps].qpn = qpn;
	qps[nqps++].name = name;
}

static const char *qpn(uint32_t v)
{
	static char buf[4][24];
	static int i;
	for (int j = 0; j < nqps; j++)
		if (qps[j].qpn == v)
			return qps[j].name;
	i = (i + 1) % 4;
	snprintf(buf[i], sizeof buf[i], "%u", v);
	return buf[i];
}

static const char *hex(const void *p, size_t n)
{
	static char buf[1024];
	const unsigned char *c = p;
	for (size_t i = 0; i < n && i < 500; i++)
		sprintf(buf + 2 * i, "%02x", c[i]);
	buf[2 * (n < 500 ? n : 500)] = 0;
	return buf;
}

static const char *gidtext(const union ibv_gid *g)
{
	static char buf[4][INET6_ADDRSTRLEN];
	static int i;
	i = (i + 1) % 4;
	inet_ntop(AF_INET6, g->raw, buf[i], sizeof buf[i]);
	return buf[i];
}

static const char *guid(__be64 g)
{
	static char buf[24];
	uint64_t v = be64toh(g);
	snprintf(buf, sizeof buf, "%04x:%04x:%04x:%04x", (unsigned)(v >> 48) & 0xffff, (unsigned)(v >> 32) & 0xffff,
		 (unsigned)(v >> 16) & 0xffff, (unsigned)v & 0xffff);
	return buf;
}

/* ---- printers ------------------------------------------------------------------ */

static void print_ah(const char *p, const struct ibv_ah_attr *a)
{
	char g[256];
	snprintf(g, sizeof g, "%s.grh", p);
	out(k(g, "dgid"), "%s", gidtext(&a->grh.dgid));
	NUM(g, &a->grh, flow_label); NUM(g, &a->grh, sgid_index); NUM(g, &a->grh, hop_limit);
	NUM(g, &a->grh, traffic_class);
	NUM(p, a, dlid); NUM(p, a, sl); NUM(p, a, src_path_bits); NUM(p, a, static_rate); NUM(p, a, is_global);
	NUM(p, a, port_num);
}

static void print_cap(const char *p, const struct ibv_qp_cap *c)
{
	NUM(p, c, max_send_wr); NUM(p, c, max_recv_wr); NUM(p, c, max_send_sge); NUM(p, c, max_recv_sge);
	NUM(p, c, max_inline_data);
}

/* Which of the scenario's objects a pointer is. */
static const void *objs[16];
static const char *objnames[16];
static int nobjs;
static void name_obj(const char *n, const void *p) { objs[nobjs] = p; objnames[nobjs++] = n; }
static const char *obj(const void *p)
{
	if (!p)
		return "-";
	for (int i = 0; i < nobjs; i++)
		if (objs[i] == p)
			return objnames[i];
	return "?";
}

static void print_qp(const char *name, struct ibv_qp *qp)
{
	/* Zeroed as verbsh zeroes them: ibv_query_qp leaves some fields (rate_limit,
	 * en_sqd_async_notify on rxe) as they were. */
	struct ibv_qp_attr a = { 0 };
	struct ibv_qp_init_attr ia = { 0 };
	char p[64], c[128];
	CHECK(ibv_query_qp(qp, &a, 0x1fffff, &ia));
	snprintf(p, sizeof p, "%s.attr", name);
	out(k(p, "qp_state"), "%s", en(qp_state, a.qp_state));
	out(k(p, "cur_qp_state"), "%s", en(qp_state, a.cur_qp_state));
	out(k(p, "path_mtu"), "%s", en(mtu, a.path_mtu));
	out(k(p, "path_mig_state"), "%s", en(mig_state, a.path_mig_state));
	NUM(p, &a, qkey); NUM(p, &a, rq_psn); NUM(p, &a, sq_psn);
	out(k(p, "dest_qp_num"), "%s", qpn(a.dest_qp_num));
	out(k(p, "qp_access_flags"), "%s", fl(access, a.qp_access_flags));
	snprintf(c, sizeof c, "%s.cap", p);
	print_cap(c, &a.cap);
	snprintf(c, sizeof c, "%s.ah_attr", p);
	print_ah(c, &a.ah_attr);
	snprintf(c, sizeof c, "%s.alt_ah_attr", p);
	print_ah(c, &a.alt_ah_attr);
	NUM(p, &a, pkey_index); NUM(p, &a, alt_pkey_index); NUM(p, &a, en_sqd_async_notify); NUM(p, &a, sq_draining);
	NUM(p, &a, max_rd_atomic); NUM(p, &a, max_dest_rd_atomic); NUM(p, &a, min_rnr_timer); NUM(p, &a, port_num);
	NUM(p, &a, timeout); NUM(p, &a, retry_cnt); NUM(p, &a, rnr_retry); NUM(p, &a, alt_port_num);
	NUM(p, &a, alt_timeout); NUM(p, &a, rate_limit);
	snprintf(p, sizeof p, "%s.init", name);
	out(k(p, "send_cq"), "%s", obj(ia.send_cq));
	out(k(p, "recv_cq"), "%s", obj(ia.recv_cq));
	out(k(p, "srq"), "%s", obj(ia.srq));
	snprintf(c, sizeof c, "%s.cap", p);
	print_cap(c, &ia.cap);
	out(k(p, "qp_type"), "%s", en(qp_type, ia.qp_type));
	NUM(p, &ia, sq_sig_all);
	out(k(name, "qp_num"), "%s", qpn(qp->qp_num));
	out(k(name, "state"), "%s", en(qp_state, qp->state));
	out(k(name, "qp_type"), "%s", en(qp_type, qp->qp_type));
}

static void print_wc(const char *p, const struct ibv_wc *w)
{
	out(k(p, "wr_id"), "%llu", (unsigned long long)w->wr_id);
	out(k(p, "status"), "%s", en(wc_status, w->status));
	NUM(p, w, vendor_err);
	out(k(p, "qp_num"), "%s", qpn(w->qp_num));
	out(k(p, "opcode"), "%s", en(wc_opcode, w->opcode));
	NUM(p, w, byte_len);
	if (w->wc_flags & IBV_WC_WITH_IMM)
		out(k(p, "imm_data"), "%u", be32toh(w->imm_data));
	else
		out(k(p, "imm_data"), "-");
	out(k(p, "src_qp"), "%s", qpn(w->src_qp));
	out(k(p, "wc_flags"), "%s", fl(wc_flags, w->wc_flags));
	NUM(p, w, pkey_index); NUM(p, w, slid); NUM(p, w, sl); NUM(p, w, dlid_path_bits);
}

static void poll1(struct ibv_cq *cq, struct ibv_wc *wc, const char *what)
{
	for (long i = 0; i < 50000000; i++) {
		int n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			die("ibv_poll_cq", EIO);
		if (n == 1)
			return;
	}
	fprintf(stderr, "oracle: no completion for %s\n", what);
	exit(1);
}

/* One completion of an extended CQ, read through its accessors. */
static void print_wcx(const char *p, struct ibv_cq_ex *cq, int started)
{
	struct ibv_poll_cq_attr pa = { 0 };
	if (!started) {
		long i = 0;
		int r;
		while ((r = ibv_start_poll(cq, &pa)) == ENOENT)
			if (++i > 50000000) {
				fprintf(stderr, "oracle: no completion for %s\n", p);
				exit(1);
			}
		if (r)
			die("ibv_start_poll", r);
	}
	unsigned flags = ibv_wc_read_wc_flags(cq);
	out(k(p, "wr_id"), "%llu", (unsigned long long)cq->wr_id);
	out(k(p, "status"), "%s", en(wc_status, cq->status));
	out(k(p, "opcode"), "%s", en(wc_opcode, ibv_wc_read_opcode(cq)));
	out(k(p, "vendor_err"), "%u", ibv_wc_read_vendor_err(cq));
	out(k(p, "byte_len"), "%u", ibv_wc_read_byte_len(cq));
	if (flags & IBV_WC_WITH_IMM)
		out(k(p, "imm_data"), "%u", be32toh(ibv_wc_read_imm_data(cq)));
	else
		out(k(p, "imm_data"), "-");
	out(k(p, "qp_num"), "%s", qpn(ibv_wc_read_qp_num(cq)));
	out(k(p, "src_qp"), "%s", qpn(ibv_wc_read_src_qp(cq)));
	out(k(p, "wc_flags"), "%s", fl(wc_flags, flags));
	out(k(p, "slid"), "%u", ibv_wc_read_slid(cq));
	out(k(p, "sl"), "%u", ibv_wc_read_sl(cq));
	out(k(p, "dlid_path_bits"), "%u", ibv_wc_read_dlid_path_bits(cq));
}

/* Ends the poll after one completion. Never after an ibv_next_poll that
 * returned ENOENT: rxe before rdma-core 55 has then ended the poll itself,
 * and a second end overruns its consumer index (stale completions follow). */
static void endx(struct ibv_cq_ex *cq) { ibv_end_poll(cq); }

/* ---- the scenario ------------------------------------------------------------- */

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static union ibv_gid gid;
static int gi;

static struct ibv_qp *rc_qp(struct ibv_cq *scq, struct ibv_cq *rcq, struct ibv_srq *srq, struct ibv_qp_cap cap,
			    int sig_all)
{
	struct ibv_qp_init_attr ia = { .send_cq = scq, .recv_cq = rcq, .srq = srq, .cap = cap, .qp_type = IBV_QPT_RC,
				       .sq_sig_all = sig_all };
	struct ibv_qp *qp;
	CHECKP(qp, ibv_create_qp(pd, &ia));
	return qp;
}

static void rc_connect(struct ibv_qp *qp, int access, enum ibv_mtu m, uint32_t dest, uint32_t rq_psn,
		       int max_dest, int rnr_timer, int hop, uint32_t sq_psn, int timeout, int retry, int rnr,
		       int max_rd)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1, .qp_access_flags = access };
	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS));
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = m;
	a.dest_qp_num = dest;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = max_dest;
	a.min_rnr_timer = rnr_timer;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = gid;
	a.ah_attr.grh.sgid_index = gi;
	a.ah_attr.grh.hop_limit = hop;
	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
				    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER));
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = sq_psn;
	a.timeout = timeout;
	a.retry_cnt = retry;
	a.rnr_retry = rnr;
	a.max_rd_atomic = max_rd;
	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				    IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC));
}

static void ud_connect(struct ibv_qp *qp, uint32_t qkey, uint32_t sq_psn)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1, .qkey = qkey };
	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY));
	a.qp_state = IBV_QPS_RTR;
	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = sq_psn;
	CHECK(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN));
}

static void post_send(struct ibv_qp *qp, struct ibv_send_wr *wr)
{
	struct ibv_send_wr *bad;
	CHECK(ibv_post_send(qp, wr, &bad));
}

static void post_recv(struct ibv_qp *qp, uint64_t wr_id, struct ibv_mr *mr, size_t off, uint32_t len)
{
	struct ibv_sge s = { (uintptr_t)mr->addr + off, len, mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &s, .num_sge = 1 }, *bad;
	CHECK(ibv_post_recv(qp, &wr, &bad));
}

static void device_and_port(const char *devname)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	for (int i = 0; list && list[i]; i++) {
		if (strcmp(ibv_get_device_name(list[i]), devname))
			continue;
		out("dev.name", "%s", ibv_get_device_name(list[i]));
		out("dev.guid", "%s", guid(ibv_get_device_guid(list[i])));
		out("dev.node_type", "%s", en(node_type, list[i]->node_type));
		out("dev.transport_type", "%s", en(transport, list[i]->transport_type));
		CHECKP(ctx, ibv_open_device(list[i]));
	}
	if (!ctx)
		die("finding the device", ENODEV);
	ibv_free_device_list(list);
	out("ctx.name", "%s", ibv_get_device_name(ctx->device));
	out("ctx.num_comp_vectors", "%d", ctx->num_comp_vectors);

	struct ibv_device_attr d;
	CHECK(ibv_query_device(ctx, &d));
	const char *p = "query_device";
	out(k(p, "fw_ver"), "%s", d.fw_ver);
	out(k(p, "node_guid"), "%s", guid(d.node_guid));
	out(k(p, "sys_image_guid"), "%s", guid(d.sys_image_guid));
	NUM(p, &d, max_mr_size); NUM(p, &d, page_size_cap); NUM(p, &d, vendor_id); NUM(p, &d, vendor_part_id);
	NUM(p, &d, hw_ver); NUM(p, &d, max_qp); NUM(p, &d, max_qp_wr);
	out(k(p, "device_cap_flags"), "%s", fl(dev_cap, d.device_cap_flags));
	NUM(p, &d, max_sge); NUM(p, &d, max_sge_rd); NUM(p, &d, max_cq); NUM(p, &d, max_cqe); NUM(p, &d, max_mr);
	NUM(p, &d, max_pd); NUM(p, &d, max_qp_rd_atom); NUM(p, &d, max_ee_rd_atom); NUM(p, &d, max_res_rd_atom);
	NUM(p, &d, max_qp_init_rd_atom); NUM(p, &d, max_ee_init_rd_atom);
	out(k(p, "atomic_cap"), "%s", en(atomic_cap, d.atomic_cap));
	NUM(p, &d, max_ee); NUM(p, &d, max_rdd); NUM(p, &d, max_mw); NUM(p, &d, max_raw_ipv6_qp);
	NUM(p, &d, max_raw_ethy_qp); NUM(p, &d, max_mcast_grp); NUM(p, &d, max_mcast_qp_attach);
	NUM(p, &d, max_total_mcast_qp_attach); NUM(p, &d, max_ah); NUM(p, &d, max_fmr); NUM(p, &d, max_map_per_fmr);
	NUM(p, &d, max_srq); NUM(p, &d, max_srq_wr); NUM(p, &d, max_srq_sge); NUM(p, &d, max_pkeys);
	NUM(p, &d, local_ca_ack_delay); NUM(p, &d, phys_port_cnt);

	struct ibv_port_attr a;
	CHECK(ibv_query_port(ctx, 1, &a));
	p = "query_port";
	out(k(p, "state"), "%s", en(port_state, a.state));
	out(k(p, "max_mtu"), "%s", en(mtu, a.max_mtu));
	out(k(p, "active_mtu"), "%s", en(mtu, a.active_mtu));
	NUM(p, &a, gid_tbl_len);
	out(k(p, "port_cap_flags"), "%s", fl(port_cap, a.port_cap_flags));
	NUM(p, &a, max_msg_sz); NUM(p, &a, bad_pkey_cntr); NUM(p, &a, qkey_viol_cntr); NUM(p, &a, pkey_tbl_len);
	NUM(p, &a, lid); NUM(p, &a, sm_lid); NUM(p, &a, lmc); NUM(p, &a, max_vl_num); NUM(p, &a, sm_sl);
	NUM(p, &a, subnet_timeout); NUM(p, &a, init_type_reply); NUM(p, &a, active_width); NUM(p, &a, active_speed);
	out(k(p, "phys_state"), "%s", en(phys_state, a.phys_state));
	out(k(p, "link_layer"), "%s", en(link_layer, a.link_layer));
	out(k(p, "flags"), "%s", fl(port_flags, a.flags));
	out(k(p, "port_cap_flags2"), "%s", fl(port_cap2, a.port_cap_flags2));

	/* The filled GID slots, and the first four slots one by one. */
	struct ibv_gid_entry e[64];
	ssize_t n = ibv_query_gid_table(ctx, e, 64, 0);
	if (n < 0)
		die("ibv_query_gid_table", (int)-n);
	out("gids.count", "%zd", n);
	for (ssize_t i = 0; i < n; i++) {
		char g[32];
		snprintf(g, sizeof g, "gids.%u", e[i].gid_index);
		out(k(g, "gid"), "%s", gidtext(&e[i].gid));
		out(k(g, "type"), "%s", e[i].gid_type == IBV_GID_TYPE_ROCE_V2 ? "RoCE v2"
					: e[i].gid_type == IBV_GID_TYPE_ROCE_V1 ? "RoCE v1" : "IB");
	}
	for (int i = 0; i < 4; i++) {
		union ibv_gid g;
		char key[32];
		CHECK(ibv_query_gid(ctx, 1, i, &g));
		snprintf(key, sizeof key, "query_gid.%d", i);
		out(key, "%s", gidtext(&g));
	}
}

/* RC between qa and qb: every kind of completion, and the bytes they moved. */
static void rc_traffic(struct ibv_qp *qa, struct ibv_qp *qb, struct ibv_cq *cq1, struct ibv_cq *cq2,
		       struct ibv_mr *ma, struct ibv_mr *mb)
{
	struct ibv_wc w;
	char *a = ma->addr, *b = mb->addr;

	post_recv(qb, 0x1001, mb, 0, 64);
	memcpy(a, "oracle-send-1", 13);
	struct ibv_sge s1 = { (uintptr_t)a, 13, ma->lkey };
	struct ibv_send_wr wr = { .wr_id = 0x2002, .sg_list = &s1, .num_sge = 1, .opcode = IBV_WR_SEND_WITH_IMM,
				  .send_flags = IBV_SEND_SIGNALED, .imm_data = htobe32(0x12345678) };
	post_send(qa, &wr);
	poll1(cq1, &w, "rc send_imm"); print_wc("wc.rc_send_imm", &w);
	poll1(cq2, &w, "rc recv_imm"); print_wc("wc.rc_recv_imm", &w);
	out("data.rc_send", "%s", hex(b, 13));

	post_recv(qa, 0x3003, ma, 1024, 16);
	memcpy(b + 300, "w-imm-7", 7);
	struct ibv_sge s2 = { (uintptr_t)b + 300, 7, mb->lkey };
	struct ibv_send_wr wr2 = { .wr_id = 0x4004, .sg_list = &s2, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE_WITH_IMM,
				   .imm_data = htobe32(0x9abcdef0) };
	wr2.wr.rdma.remote_addr = (uintptr_t)a + 2048;
	wr2.wr.rdma.rkey = ma->rkey;
	post_send(qb, &wr2);
	poll1(cq1, &w, "rc write_imm"); print_wc("wc.rc_write_imm", &w);
	poll1(cq2, &w, "rc recv write_imm"); print_wc("wc.rc_recv_write_imm", &w);
	out("data.rc_write", "%s", hex(a + 2048, 7));

	memcpy(b + 100, "read-me-9", 9);
	struct ibv_sge s3 = { (uintptr_t)a + 3000, 9, ma->lkey };
	struct ibv_send_wr wr3 = { .wr_id = 0x5005, .sg_list = &s3, .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
				   .send_flags = IBV_SEND_SIGNALED };
	wr3.wr.rdma.remote_addr = (uintptr_t)b + 100;
	wr3.wr.rdma.rkey = mb->rkey;
	post_send(qa, &wr3);
	poll1(cq1, &w, "rc read"); print_wc("wc.rc_read", &w);
	out("data.rc_read", "%s", hex(a + 3000, 9));

	uint64_t v = 0x0102030405060708ULL;
	memcpy(b + 256, &v, 8);
	struct ibv_sge s4 = { (uintptr_t)a + 3072, 8, ma->lkey };
	struct ibv_send_wr wr4 = { .wr_id = 0x6006, .sg_list = &s4, .num_sge = 1, .opcode = IBV_WR_ATOMIC_FETCH_AND_ADD,
				   .send_flags = IBV_SEND_SIGNALED };
	wr4.wr.atomic.remote_addr = (uintptr_t)b + 256;
	wr4.wr.atomic.rkey = mb->rkey;
	wr4.wr.atomic.compare_add = 0x1111111122222222ULL;
	post_send(qa, &wr4);
	poll1(cq1, &w, "rc fetch_add"); print_wc("wc.rc_fetch_add", &w);
	out("data.faa_result", "%s", hex(a + 3072, 8));
	out("data.faa_target", "%s", hex(b + 256, 8));

	struct ibv_sge s5 = { (uintptr_t)a + 3080, 8, ma->lkey };
	struct ibv_send_wr wr5 = { .wr_id = 0x7007, .sg_list = &s5, .num_sge = 1, .opcode = IBV_WR_ATOMIC_CMP_AND_SWP,
				   .send_flags = IBV_SEND_SIGNALED };
	wr5.wr.atomic.remote_addr = (uintptr_t)b + 256;
	wr5.wr.atomic.rkey = mb->rkey;
	wr5.wr.atomic.compare_add = 0x121314152728292aULL;
	wr5.wr.atomic.swap = 0x0fedcba987654321ULL;
	post_send(qa, &wr5);
	poll1(cq1, &w, "rc cmp_swp"); print_wc("wc.rc_cmp_swp", &w);
	out("data.cas_result", "%s", hex(a + 3080, 8));
	out("data.cas_target", "%s", hex(b + 256, 8));
}

/* UD between ua and ub: src_qp through ibv_poll_cq, an AH made from the WC. */
static void ud_traffic(struct ibv_qp *ua, struct ibv_qp *ub, struct ibv_cq *cq1, struct ibv_cq *cq2,
		       struct ibv_mr *ma, struct ibv_mr *mb)
{
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	aa.grh.dgid = gid;
	aa.grh.sgid_index = gi;
	aa.grh.hop_limit = 3;
	struct ibv_ah *ah;
	CHECKP(ah, ibv_create_ah(pd, &aa));
	struct ibv_wc w, r;
	char *a = ma->addr, *b = mb->addr;

	post_recv(ub, 0x8008, mb, 1024, 40 + 64);
	memcpy(a, "ud-imm-data", 11);
	struct ibv_sge s = { (uintptr_t)a, 11, ma->lkey };
	struct ibv_send_wr wr = { .wr_id = 0x9009, .sg_list = &s, .num_sge = 1, .opcode = IBV_WR_SEND_WITH_IMM,
				  .send_flags = IBV_SEND_SIGNALED, .imm_data = htobe32(0x0badcafe) };
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = ub->qp_num;
	wr.wr.ud.remote_qkey = 0x55667788;
	post_send(ua, &wr);
	poll1(cq1, &w, "ud send"); print_wc("wc.ud_send", &w);
	poll1(cq2, &r, "ud recv"); print_wc("wc.ud_recv_poll", &r);
	out("data.ud_payload", "%s", hex(b + 1024 + 40, 11));

	struct ibv_ah_attr back;
	CHECK(ibv_init_ah_from_wc(ctx, 1, &r, (struct ibv_grh *)(b + 1024), &back));
	print_ah("ah_from_wc", &back);
	struct ibv_ah *reply;
	CHECKP(reply, ibv_create_ah_from_wc(pd, &r, (struct ibv_grh *)(b + 1024), 1));

	post_recv(ua, 0xa00a, ma, 1536, 40 + 64);
	struct ibv_sge s2 = { (uintptr_t)b, 5, mb->lkey };
	struct ibv_send_wr wr2 = { .wr_id = 0xb00b, .sg_list = &s2, .num_sge = 1, .opcode = IBV_WR_SEND,
				   .send_flags = IBV_SEND_SIGNALED };
	wr2.wr.ud.ah = reply;
	wr2.wr.ud.remote_qpn = r.src_qp;
	wr2.wr.ud.remote_qkey = 0x11223344;
	post_send(ub, &wr2);
	poll1(cq1, &w, "ud reply send"); print_wc("wc.ud_reply_send", &w);
	struct ibv_wc arr[4];
	int n = 0;
	for (long i = 0; n == 0 && i < 50000000; i++)
		n = ibv_poll_cq(cq2, 4, arr);
	out("wc.ud_recv_array.count", "%d", n);
	if (n > 0)
		print_wc("wc.ud_recv_array", &arr[0]);
	ibv_destroy_ah(reply);
	ibv_destroy_ah(ah);
}

/* The extended API: wr_send_imm and wr_rdma_write_imm on RC, SEND_WITH_IMM on
 * UD, every completion read through an extended CQ's accessors. */
static void ex_traffic(struct ibv_mr *ma, struct ibv_mr *mb)
{
	uint64_t wcf = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_SRC_QP |
		       IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL | IBV_WC_EX_WITH_DLID_PATH_BITS;
	struct ibv_cq_init_attr_ex c1 = { .cqe = 16, .wc_flags = wcf }, c2 = { .cqe = 20, .wc_flags = wcf };
	struct ibv_cq_ex *ce1, *ce2;
	CHECKP(ce1, ibv_create_cq_ex(ctx, &c1));
	CHECKP(ce2, ibv_create_cq_ex(ctx, &c2));
	out("ce1.cqe", "%d", ibv_cq_ex_to_cq(ce1)->cqe);
	out("ce2.cqe", "%d", ibv_cq_ex_to_cq(ce2)->cqe);
	name_obj("ce1", ibv_cq_ex_to_cq(ce1));
	name_obj("ce2", ibv_cq_ex_to_cq(ce2));

	struct ibv_qp *x[4];
	for (int i = 0; i < 4; i++) {
		struct ibv_qp_init_attr_ex ia = {
			.send_cq = ibv_cq_ex_to_cq(ce1), .recv_cq = ibv_cq_ex_to_cq(ce2),
			.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
			.qp_type = i < 2 ? IBV_QPT_RC : IBV_QPT_UD, .comp_mask = IBV_QP_INIT_ATTR_PD |
			IBV_QP_INIT_ATTR_SEND_OPS_FLAGS, .pd = pd,
			.send_ops_flags = i < 2 ? IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM
						: IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM };
		CHECKP(x[i], ibv_create_qp_ex(ctx, &ia));
	}
	name_qp("xa", x[0]->qp_num); name_qp("xb", x[1]->qp_num);
	name_qp("xua", x[2]->qp_num); name_qp("xub", x[3]->qp_num);
	rc_connect(x[0], IBV_ACCESS_REMOTE_WRITE, IBV_MTU_1024, x[1]->qp_num, 0, 1, 12, 1, 0, 14, 7, 7, 1);
	rc_connect(x[1], IBV_ACCESS_REMOTE_WRITE, IBV_MTU_1024, x[0]->qp_num, 0, 1, 12, 1, 0, 14, 7, 7, 1);
	ud_connect(x[2], 0x0a0b0c0d, 0);
	ud_connect(x[3], 0x0a0b0c0d, 0);
	print_qp("xa", x[0]);
	print_qp("xub", x[3]);

	struct ibv_qp_ex *xa = ibv_qp_to_qp_ex(x[0]), *xua = ibv_qp_to_qp_ex(x[2]);
	char *a = ma->addr, *b = mb->addr;
	post_recv(x[1], 0xc00c, mb, 4096, 64);
	memcpy(a, "ex-imm", 6);
	ibv_wr_start(xa);
	xa->wr_id = 0xd00d;
	xa->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(xa, htobe32(0x13579bdf));
	ibv_wr_set_sge(xa, ma->lkey, (uintptr_t)a, 6);
	CHECK(ibv_wr_complete(xa));
	print_wcx("wcx.send_imm", ce1, 0); endx(ce1);
	print_wcx("wcx.recv_imm", ce2, 0); endx(ce2);
	out("data.ex_send", "%s", hex(b + 4096, 6));

	post_recv(x[1], 0xe00e, mb, 4096, 64);
	ibv_wr_start(xa);
	xa->wr_id = 0xf00f;
	xa->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write_imm(xa, mb->rkey, (uintptr_t)b + 4200, htobe32(0x2468ace0));
	ibv_wr_set_sge(xa, ma->lkey, (uintptr_t)a, 4);
	CHECK(ibv_wr_complete(xa));
	print_wcx("wcx.write_imm", ce1, 0); endx(ce1);
	print_wcx("wcx.recv_write_imm_iter", ce2, 0); endx(ce2);
	out("data.ex_write", "%s", hex(b + 4200, 4));

	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	aa.grh.dgid = gid;
	aa.grh.sgid_index = gi;
	aa.grh.hop_limit = 2;
	struct ibv_ah *ah;
	CHECKP(ah, ibv_create_ah(pd, &aa));
	post_recv(x[3], 0x1101, mb, 5000, 40 + 64);
	post_recv(x[3], 0x1102, mb, 5200, 40 + 64);
	ibv_wr_start(xua);
	xua->wr_id = 0x1111;
	xua->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(xua, htobe32(0x0ddba11));
	ibv_wr_set_ud_addr(xua, ah, x[3]->qp_num, 0x0a0b0c0d);
	ibv_wr_set_sge(xua, ma->lkey, (uintptr_t)a, 3);
	xua->wr_id = 0x1112;
	xua->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(xua);
	ibv_wr_set_ud_addr(xua, ah, x[3]->qp_num, 0x0a0b0c0d);
	ibv_wr_set_sge(xua, ma->lkey, (uintptr_t)a, 2);
	CHECK(ibv_wr_complete(xua));
	print_wcx("wcx.ud_send1", ce1, 0); endx(ce1);
	print_wcx("wcx.ud_send2", ce1, 0); endx(ce1);
	print_wcx("wcx.ud_recv_read", ce2, 0); endx(ce2);
	print_wcx("wcx.ud_recv_iter", ce2, 0); endx(ce2);
	ibv_destroy_ah(ah);
	for (int i = 0; i < 4; i++)
		ibv_destroy_qp(x[i]);
	ibv_destroy_cq(ibv_cq_ex_to_cq(ce1));
	ibv_destroy_cq(ibv_cq_ex_to_cq(ce2));
}

/* ---- rdma_cm ------------------------------------------------------------------ */

static const char *addrtext(const struct sockaddr *sa)
{
	static char buf[4][80];
	static int i;
	char host[INET6_ADDRSTRLEN];
	i = (i + 1) % 4;
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const void *)sa;
		inet_ntop(AF_INET6, &s->sin6_addr, host, sizeof host);
		snprintf(buf[i], sizeof buf[i], "[%s]:%u", host, ntohs(s->sin6_port));
	} else {
		const struct sockaddr_in *s = (const void *)sa;
		inet_ntop(AF_INET, &s->sin_addr, host, sizeof host);
		snprintf(buf[i], sizeof buf[i], "%s:%u", host, ntohs(s->sin_port));
	}
	return buf[i];
}

static struct rdma_cm_event *event(struct rdma_event_channel *ch, enum rdma_cm_event_type want, const char *p)
{
	struct rdma_cm_event *ev;
	CHECK(rdma_get_cm_event(ch, &ev));
	if (ev->event != want) {
		fprintf(stderr, "oracle: %s: got %s (status %d)\n", p, rdma_event_str(ev->event), ev->status);
		exit(1);
	}
	if (p) {
		out(k(p, "event"), "%s", en(cm_event, ev->event));
		out(k(p, "status"), "%d", ev->status);
	}
	return ev;
}

static void print_conn(const char *p, const struct rdma_conn_param *c)
{
	out(k(p, "private_data"), "%s", hex(c->private_data, c->private_data_len));
	NUM(p, c, private_data_len); NUM(p, c, responder_resources); NUM(p, c, initiator_depth);
	NUM(p, c, flow_control); NUM(p, c, retry_count); NUM(p, c, rnr_retry_count); NUM(p, c, srq);
	out(k(p, "qp_num"), "%s", qpn(c->qp_num));
}

static struct addrinfo *resolve(const char *host, const char *port, int passive)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST | (passive ? AI_PASSIVE : 0) }, *ai;
	if (getaddrinfo(host, port, &hints, &ai))
		die("getaddrinfo", EINVAL);
	return ai;
}

/* An RC connection through rdma_cm to host:port, both sides in this process. */
/* The client binds port + 10: rdma_cm derives the GRH flow label from the
 * two ports, so an ephemeral port would differ between the two runs. */
static void cm_rc(const char *tag, const char *host, const char *port, const char *cport)
{
	struct rdma_event_channel *sch, *cch;
	struct rdma_cm_id *lid, *cid;
	struct rdma_cm_event *ev;
	char p[64], pc[64], ps[64];
	snprintf(pc, sizeof pc, "%s_c", tag);
	snprintf(ps, sizeof ps, "%s_s", tag);
	CHECKP(sch, rdma_create_event_channel());
	CHECKP(cch, rdma_create_event_channel());
	CHECK(rdma_create_id(sch, &lid, NULL, RDMA_PS_TCP));
	struct addrinfo *ai = resolve(host, port, 0), *src = resolve(host, cport, 0);
	CHECK(rdma_bind_addr(lid, ai->ai_addr));
	CHECK(rdma_listen(lid, 4));
	out(k(tag, "listen_addr"), "%s", addrtext(rdma_get_local_addr(lid)));
	out(k(tag, "listen_port"), "%u", ntohs(rdma_get_src_port(lid)));
	CHECK(rdma_create_id(cch, &cid, NULL, RDMA_PS_TCP));
	CHECK(rdma_resolve_addr(cid, src->ai_addr, ai->ai_addr, 2000));
	freeaddrinfo(src);
	freeaddrinfo(ai);
	snprintf(p, sizeof p, "%s.addr_resolved", tag);
	rdma_ack_cm_event(event(cch, RDMA_CM_EVENT_ADDR_RESOLVED, p));
	CHECK(rdma_resolve_route(cid, 2000));
	snprintf(p, sizeof p, "%s.route_resolved", tag);
	rdma_ack_cm_event(event(cch, RDMA_CM_EVENT_ROUTE_RESOLVED, p));
	out(k(tag, "client_peer_addr"), "%s", addrtext(rdma_get_peer_addr(cid)));
	out(k(tag, "client_dst_port"), "%u", ntohs(rdma_get_dst_port(cid)));

	struct ibv_pd *cpd;
	struct ibv_cq *cq;
	CHECKP(cpd, ibv_alloc_pd(cid->verbs));
	CHECKP(cq, ibv_create_cq(cid->verbs, 8, NULL, NULL, 0));
	struct ibv_qp_init_attr ia = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
				       .cap = { .max_send_wr = 2, .max_recv_wr = 2, .max_send_sge = 1, .max_recv_sge = 1 } };
	CHECK(rdma_create_qp(cid, cpd, &ia));
	name_qp(strdup(pc), cid->qp->qp_num);
	char hello[32];
	snprintf(hello, sizeof hello, "%s hello", tag);
	struct rdma_conn_param cp = { .private_data = hello, .private_data_len = (uint8_t)strlen(hello),
				      .responder_resources = 1, .initiator_depth = 1, .retry_count = 5,
				      .rnr_retry_count = 6 };
	CHECK(rdma_connect(cid, &cp));

	snprintf(p, sizeof p, "%s.connect_request", tag);
	struct rdma_cm_event *req = event(sch, RDMA_CM_EVENT_CONNECT_REQUEST, p);
	snprintf(p, sizeof p, "%s.connect_request.param.conn", tag);
	print_conn(p, &req->param.conn);
	struct rdma_cm_id *sid = req->id;
	out(k(tag, "server_local_addr"), "%s", addrtext(rdma_get_local_addr(sid)));
	out(k(tag, "server_src_port"), "%u", ntohs(rdma_get_src_port(sid)));
	CHECK(rdma_create_qp(sid, cpd, &ia));
	name_qp(strdup(ps), sid->qp->qp_num);
	char welcome[32];
	snprintf(welcome, sizeof welcome, "%s welcome", tag);
	struct rdma_conn_param ap = { .private_data = welcome, .private_data_len = (uint8_t)strlen(welcome),
				      .responder_resources = 1, .initiator_depth = 1, .rnr_retry_count = 3 };
	CHECK(rdma_accept(sid, &ap));
	rdma_ack_cm_event(req);
	snprintf(p, sizeof p, "%s.client_established", tag);
	ev = event(cch, RDMA_CM_EVENT_ESTABLISHED, p);
	snprintf(p, sizeof p, "%s.client_established.param.conn", tag);
	print_conn(p, &ev->param.conn);
	rdma_ack_cm_event(ev);
	snprintf(p, sizeof p, "%s.server_established", tag);
	rdma_ack_cm_event(event(sch, RDMA_CM_EVENT_ESTABLISHED, p));
	out(k(tag, "client_local_addr"), "%s", addrtext(rdma_get_local_addr(cid)));
	out(k(tag, "client_src_port"), "%u", ntohs(rdma_get_src_port(cid)));
	out(k(tag, "server_peer_addr_is_client"), "%s",
	    strcmp(addrtext(rdma_get_peer_addr(sid)), addrtext(rdma_get_local_addr(cid))) ? "no" : "yes");
	out(k(tag, "client_qp_state"), "%s", en(qp_state, cid->qp->state));

	CHECK(rdma_disconnect(cid));
	snprintf(p, sizeof p, "%s.server_disconnected", tag);
	rdma_ack_cm_event(event(sch, RDMA_CM_EVENT_DISCONNECTED, p));
	CHECK(rdma_disconnect(sid));
	snprintf(p, sizeof p, "%s.client_disconnected", tag);
	rdma_ack_cm_event(event(cch, RDMA_CM_EVENT_DISCONNECTED, p));
	rdma_destroy_qp(cid);
	rdma_destroy_qp(sid);
	rdma_destroy_id(cid);
	rdma_destroy_id(sid);
	rdma_destroy_id(lid);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(cpd);
	rdma_destroy_event_channel(sch);
	rdma_destroy_event_channel(cch);
}

/* A UD id (RDMA_PS_UDP): the SIDR request and reply, their rdma_ud_param. */
static void cm_ud(const char *host, const char *port, const char *cport)
{
	struct rdma_event_channel *sch, *cch;
	struct rdma_cm_id *lid, *cid;
	struct rdma_cm_event *ev;
	CHECKP(sch, rdma_create_event_channel());
	CHECKP(cch, rdma_create_event_channel());
	CHECK(rdma_create_id(sch, &lid, NULL, RDMA_PS_UDP));
	struct addrinfo *ai = resolve(host, port, 0), *src = resolve(host, cport, 0);
	CHECK(rdma_bind_addr(lid, ai->ai_addr));
	CHECK(rdma_listen(lid, 4));
	CHECK(rdma_create_id(cch, &cid, NULL, RDMA_PS_UDP));
	CHECK(rdma_resolve_addr(cid, src->ai_addr, ai->ai_addr, 2000));
	freeaddrinfo(src);
	freeaddrinfo(ai);
	rdma_ack_cm_event(event(cch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL));
	CHECK(rdma_resolve_route(cid, 2000));
	rdma_ack_cm_event(event(cch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL));
	struct ibv_pd *cpd;
	struct ibv_cq *cq;
	CHECKP(cpd, ibv_alloc_pd(cid->verbs));
	CHECKP(cq, ibv_create_cq(cid->verbs, 8, NULL, NULL, 0));
	struct ibv_qp_init_attr ia = { .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
				       .cap = { .max_send_wr = 2, .max_recv_wr = 2, .max_send_sge = 1, .max_recv_sge = 1 } };
	CHECK(rdma_create_qp(cid, cpd, &ia));
	name_qp("cmud_c", cid->qp->qp_num);
	out("cmud.client_qp_state", "%s", en(qp_state, cid->qp->state));
	struct rdma_conn_param cp = { .private_data = "ud hello", .private_data_len = 8 };
	CHECK(rdma_connect(cid, &cp));

	struct rdma_cm_event *req = event(sch, RDMA_CM_EVENT_CONNECT_REQUEST, "cmud.connect_request");
	const struct rdma_ud_param *u = &req->param.ud;
	out("cmud.connect_request.param.ud.private_data", "%s", hex(u->private_data, u->private_data_len));
	out("cmud.connect_request.param.ud.private_data_len", "%u", u->private_data_len);
	struct rdma_cm_id *sid = req->id;
	CHECK(rdma_create_qp(sid, cpd, &ia));
	name_qp("cmud_s", sid->qp->qp_num);
	struct rdma_conn_param ap = { .private_data = "ud welcome", .private_data_len = 10, .qp_num = sid->qp->qp_num };
	CHECK(rdma_accept(sid, &ap));
	rdma_ack_cm_event(req);
	ev = event(cch, RDMA_CM_EVENT_ESTABLISHED, "cmud.established");
	u = &ev->param.ud;
	out("cmud.established.param.ud.qp_num", "%s", qpn(u->qp_num));
	out("cmud.established.param.ud.qkey", "%u", u->qkey);
	out("cmud.established.param.ud.private_data", "%s", hex(u->private_data, u->private_data_len));
	out("cmud.established.param.ud.private_data_len", "%u", u->private_data_len);
	print_ah("cmud.established.param.ud.ah_attr", &u->ah_attr);
	rdma_ack_cm_event(ev);
	rdma_destroy_qp(cid);
	rdma_destroy_qp(sid);
	rdma_destroy_id(cid);
	rdma_destroy_id(sid);
	rdma_destroy_id(lid);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(cpd);
	rdma_destroy_event_channel(sch);
	rdma_destroy_event_channel(cch);
}

int main(int argc, char **argv)
{
	if (argc != 6) {
		fprintf(stderr, "usage: oracle DEV GID_INDEX IPV4 IPV6 PORT\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	gi = atoi(argv[2]);
	device_and_port(argv[1]);
	CHECK(ibv_query_gid(ctx, 1, gi, &gid));

	CHECKP(pd, ibv_alloc_pd(ctx));
	struct ibv_cq *cq1, *cq2;
	CHECKP(cq1, ibv_create_cq(ctx, 16, NULL, NULL, 0));
	CHECKP(cq2, ibv_create_cq(ctx, 33, NULL, NULL, 0));
	name_obj("cq1", cq1);
	name_obj("cq2", cq2);
	out("cq1.cqe", "%d", cq1->cqe);
	out("cq2.cqe", "%d", cq2->cqe);
	struct ibv_mr *ma, *mb;
	void *abuf, *bbuf;
	if (posix_memalign(&abuf, 4096, 4096) || posix_memalign(&bbuf, 4096, 8192))
		die("posix_memalign", ENOMEM);
	memset(abuf, 0, 4096);
	memset(bbuf, 0, 8192);
	CHECKP(ma, ibv_reg_mr(pd, abuf, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC));
	CHECKP(mb, ibv_reg_mr(pd, bbuf, 8192, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			      IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC));
	out("mr_a.length", "%zu", ma->length);
	out("mr_b.length", "%zu", mb->length);
	out("mr_a.lkey_is_rkey", "%s", ma->lkey == ma->rkey ? "yes" : "no");

	struct ibv_srq *srq;
	struct ibv_srq_init_attr si = { .attr = { .max_wr = 10, .max_sge = 2, .srq_limit = 0 } };
	CHECKP(srq, ibv_create_srq(pd, &si));
	name_obj("srq", srq);
	struct ibv_srq_attr sa;
	CHECK(ibv_query_srq(srq, &sa));
	out("srq.max_wr", "%u", sa.max_wr); out("srq.max_sge", "%u", sa.max_sge); out("srq.srq_limit", "%u", sa.srq_limit);
	sa.srq_limit = 3;
	CHECK(ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT));
	CHECK(ibv_query_srq(srq, &sa));
	out("srq2.max_wr", "%u", sa.max_wr); out("srq2.max_sge", "%u", sa.max_sge);
	out("srq2.srq_limit", "%u", sa.srq_limit);

	struct ibv_qp *qa = rc_qp(cq1, cq2, NULL, (struct ibv_qp_cap){ 5, 6, 2, 3, 40 }, 0);
	struct ibv_qp *qb = rc_qp(cq1, cq2, NULL, (struct ibv_qp_cap){ 7, 4, 3, 1, 24 }, 1);
	struct ibv_qp *qs = rc_qp(cq2, cq1, srq, (struct ibv_qp_cap){ 3, 0, 1, 0, 0 }, 0);
	name_qp("qa", qa->qp_num); name_qp("qb", qb->qp_num); name_qp("qs", qs->qp_num);
	print_qp("qs", qs);
	rc_connect(qa, IBV_ACCESS_REMOTE_WRITE, IBV_MTU_512, qb->qp_num, 0x1a2b3c, 2, 12, 9, 0x4d5e6f, 14, 6, 5, 4);
	rc_connect(qb, IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC, IBV_MTU_1024,
		   qa->qp_num, 0x4d5e6f, 4, 14, 17, 0x1a2b3c, 18, 5, 6, 2);
	print_qp("qa", qa);
	print_qp("qb", qb);
	rc_traffic(qa, qb, cq1, cq2, ma, mb);

	struct ibv_qp_init_attr ui = { .send_cq = cq1, .recv_cq = cq2, .qp_type = IBV_QPT_UD,
				       .cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 } };
	struct ibv_qp *ua, *ub;
	CHECKP(ua, ibv_create_qp(pd, &ui));
	CHECKP(ub, ibv_create_qp(pd, &ui));
	name_qp("ua", ua->qp_num); name_qp("ub", ub->qp_num);
	ud_connect(ua, 0x11223344, 0x111);
	ud_connect(ub, 0x55667788, 0x222);
	print_qp("ua", ua);
	ud_traffic(ua, ub, cq1, cq2, ma, mb);

	ex_traffic(ma, mb);

	char port[6][16];
	for (int i = 0; i < 3; i++) {
		snprintf(port[i], sizeof port[i], "%d", atoi(argv[5]) + i);
		snprintf(port[i + 3], sizeof port[i + 3], "%d", atoi(argv[5]) + i + 10);
	}
	cm_rc("cm4", argv[3], port[0], port[3]);
	cm_rc("cm6", argv[4], port[1], port[4]);
	cm_ud(argv[3], port[2], port[5]);
	return 0;
}
