/* A stand-in libibverbs device for host tests (LD_PRELOAD): one device,
 * "fake0", whose provider implements hardware-only verbs that rxe does not
 * (query_rt_values_ex, counters, device memory, WQs, ESP flow actions;
 * query_device_ex with a
 * value in every field), so that the path where
 * such a verb SUCCEEDS runs without the hardware. Every answer is a value
 * chosen here and printed nowhere else, so a test compares what verbsh
 * returns with this file; what verbsh passes down (a WR's wr_id) the
 * provider writes to stderr as "fakeverbs: ...".
 *
 * FAKEVERBS_LIST_ERRNO=n makes ibv_get_device_list fail with errno n.
 * FAKEVERBS_DEVICES=n lists n devices (0, 1 or 2: fake0, fake1; 1 unless
 * set); FAKEVERBS_ACTIVE=name is the device whose ports are ACTIVE (the
 * others' are DOWN); FAKEVERBS_OPEN_ERRNO=n makes ibv_open_device fail.
 * FAKEVERBS_DESTROY_ERRNO=n makes the destroy of a device object (counters,
 * WQ, DM, XRCD ...) fail with n.
 * FAKEVERBS_FAIL="verb:n verb:n,e ..." makes each verb named fail: n is
 * what it returns (an int verb: n > 0 returned as is, n < 0 as -1 with
 * errno -n, as rdma-core does either; poll_cq, start_poll, next_poll,
 * req_notify_cq and query_qp return n itself; a verb returning a pointer
 * gives NULL with errno n; rereg_mr returns n with errno e). Names:
 * query_device, query_port, query_device_ex, get_async_event, alloc_pd,
 * poll_cq (once the CQ's completions are gone), req_notify_cq,
 * create_comp_channel, get_cq_event, query_qp, start_poll, next_poll,
 * rereg_mr, modify_qp, wr_complete (which returns n itself), create_qp.
 * ibv_query_qp gives a QP's cap back as it was created.
 *
 * CQs: each CQ holds FAKEVERBS_WCS completions (0 unless set; at most 3,
 * the table fwcs below), handed out in order by poll_cq and, on a CQ of
 * ibv_create_cq_ex, by start_poll/next_poll and every ibv_wc_read_*; its
 * end_poll is printed. req_notify_cq prints solicited_only and puts an event
 * on the CQ's channel (an eventfd here), which get_cq_event returns.
 * FAKEVERBS_REREG_KEYS=1: a rereg_mr that succeeds gives the MR new keys.
 * FAKEVERBS_TRACE=1 prints what reg_mr_iova2 and rereg_mr are handed, and
 * which PD ibv_dealloc_pd frees.
 * FAKEVERBS_SQ_DRAINING=1: a QP in SQD is draining (query_qp's sq_draining
 * is 1), and modify_qp refuses to take it anywhere but ERR (EINVAL, as rxe).
 *
 * GIDs: ibv_query_gid_table fails (as on kernels that want room for every
 * port), so the slots are read one by one: port 1 has a RoCE v1 GID at
 * index 0 and a RoCE v2 GID at index 2 (1 and 3 are empty); port 2 has an
 * IB GID at index 1. ibv_query_gid reads the same slots.
 *
 * ECE: ibv_query_ece and ibv_set_ece (interposed) on any QP.
 *
 * Async events: a QP with an SRQ moved to ERR gets QP_LAST_WQE_REACHED
 * (the IBTA's rule), queued on the context's async_fd; a CQ resized to 29
 * entries gets CQ_ERR (an overrun's event); FAKEVERBS_ASYNC="PORT_ERR:2
 * DEVICE_FATAL ..." queues those port and device events at open.
 *
 * A QP made by ibv_create_qp_ex has the new post-send API with SEND, TSO and
 * ATOMIC_FETCH_AND_ADD (no other op: cmp_swp and atomic_write stay NULL;
 * FAKEVERBS_CMP_SWP=1 fills in ATOMIC_CMP_AND_SWP too), and wr_set_xrc_srqn
 * on an XRC_SEND QP: the header and MSS a wr_send_tso hands down are
 * printed, so are an SGE, an inline data list, a fetch-and-add, a
 * compare-and-swap and an XRC SRQ number. FAKEVERBS_ALL_OPS=1 fills in
 * the other ops but BIND_MW, whatever send_ops_flags asked (as rxe does):
 * each prints the WR's wr_id and wr_flags and what it is handed.
 *
 * The exported verbs verbsh calls on the way (device list, open/close, PD,
 * CQ) are interposed; the hardware-only ones are static inline in verbs.h
 * and reach the provider through the verbs_context ops below, as they
 * would reach a real driver's. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>

#define RT_SEC 1234567
#define RT_NSEC 891011121
#define DM_SIZE 64

static struct ibv_device fake_dev[2] = {
	{ .node_type = IBV_NODE_CA, .transport_type = IBV_TRANSPORT_IB, .name = "fake0", .dev_name = "uverbs9" },
	{ .node_type = IBV_NODE_CA, .transport_type = IBV_TRANSPORT_IB, .name = "fake1", .dev_name = "uverbs8" },
};

static int env_int(const char *name, int dflt)
{
	const char *e = getenv(name);
	return e && *e ? atoi(e) : dflt;
}

/* the errno FAKEVERBS_DESTROY_ERRNO asks a device object's destroy to fail with */
static int destroy_err(void)
{
	int e = env_int("FAKEVERBS_DESTROY_ERRNO", 0);
	errno = e;
	return e;
}

/* FAKEVERBS_FAIL's value for verb (0: it succeeds); *e gets the errno after
 * a comma (0 when none) */
static int fail_of(const char *verb, int *e)
{
	const char *l = getenv("FAKEVERBS_FAIL");
	size_t len = strlen(verb);
	int n = 0, err = 0;
	for (const char *p = l; p && (p = strstr(p, verb)); p += len)
		if ((p == l || p[-1] == ' ') && p[len] == ':') {
			sscanf(p + len + 1, "%d,%d", &n, &err);
			break;
		}
	if (e)
		*e = err;
	return n;
}
/* an int verb's failure: n as is, or -1 with errno -n */
static int fail_int(const char *verb)
{
	int n = fail_of(verb, NULL);
	if (n >= 0)
		return n;
	errno = -n;
	return -1;
}
static int trace(void) { return env_int("FAKEVERBS_TRACE", 0); }

struct ibv_device **ibv_get_device_list(int *num)
{
	int n = env_int("FAKEVERBS_DEVICES", 1);
	if (env_int("FAKEVERBS_LIST_ERRNO", 0)) {
		errno = env_int("FAKEVERBS_LIST_ERRNO", 0);
		return NULL;
	}
	struct ibv_device **l = calloc(3, sizeof *l);
	if (!l)
		return NULL;
	for (int i = 0; i < n && i < 2; i++)
		l[i] = &fake_dev[i];
	if (num)
		*num = n < 2 ? n : 2;
	return l;
}
void ibv_free_device_list(struct ibv_device **list) { free(list); }
const char *ibv_get_device_name(struct ibv_device *d) { return d->name; }
__be64 ibv_get_device_guid(struct ibv_device *d) { (void)d; return htobe64(0x0123456789abcdefULL); }
int ibv_get_device_index(struct ibv_device *d) { (void)d; return 7; }

/* query_rt_values_ex: a raw clock with distinct seconds and nanoseconds */
static int f_query_rt_values(struct ibv_context *c, struct ibv_values_ex *v)
{
	(void)c;
	v->raw_clock.tv_sec = RT_SEC;
	v->raw_clock.tv_nsec = RT_NSEC;
	return 0;
}

/* query_device_ex: every extended field a value of its own (no two alike,
 * none 0), the caps' halves told apart (min below max) */
static int f_query_device_ex(struct ibv_context *c, const struct ibv_query_device_ex_input *in,
			     struct ibv_device_attr_ex *a, size_t size)
{
	(void)c; (void)in;
	if (fail_int("query_device_ex"))
		return fail_int("query_device_ex");
	memset(a, 0, size);
	snprintf(a->orig_attr.fw_ver, sizeof a->orig_attr.fw_ver, "fake-fw 7.8.9");
	a->orig_attr.vendor_id = 0x15b3;
	a->orig_attr.max_qp = 1021;
	a->orig_attr.max_cq = 2043;
	a->orig_attr.phys_port_cnt = 1;
	a->comp_mask = 0x3;
	a->completion_timestamp_mask = 0xfffffffff0ULL;
	a->hca_core_clock = 156250;
	a->device_cap_flags_ex = 0x1234500000ULL;
	a->max_wq_type_rq = 5;
	a->raw_packet_caps = 0x2a;
	a->max_dm_size = 0x40000;
	a->xrc_odp_caps = 0x21;
	a->phys_port_cnt_ex = 3;
	a->odp_caps.general_caps = 0x6;
	a->odp_caps.per_transport_caps.rc_odp_caps = 0x1f;
	a->odp_caps.per_transport_caps.uc_odp_caps = 0x07;
	a->odp_caps.per_transport_caps.ud_odp_caps = 0x11;
	a->tso_caps.max_tso = 262144;
	a->tso_caps.supported_qpts = 0x100;
	a->rss_caps.max_rwq_indirection_tables = 64;
	a->rss_caps.max_rwq_indirection_table_size = 2048;
	a->packet_pacing_caps.qp_rate_limit_min = 1000;
	a->packet_pacing_caps.qp_rate_limit_max = 100000000;
	a->tm_caps.max_num_tags = 511;
	a->tm_caps.max_ops = 33;
	a->cq_mod_caps.max_cq_count = 65535;
	a->cq_mod_caps.max_cq_period = 4095;
	a->pci_atomic_caps.fetch_add = 0x4;
	a->pci_atomic_caps.swap = 0x8;
	a->pci_atomic_caps.compare_swap = 0x10;
	return 0;
}

/* counters: counter i reads 1000 * (i + 1) + 7 */
static struct ibv_counters *f_create_counters(struct ibv_context *c, struct ibv_counters_init_attr *a)
{
	(void)a;
	struct ibv_counters *k = calloc(1, sizeof *k);
	if (k)
		k->context = c;
	return k;
}
static int f_read_counters(struct ibv_counters *k, uint64_t *v, uint32_t n, uint32_t flags)
{
	(void)k; (void)flags;
	for (uint32_t i = 0; i < n; i++)
		v[i] = 1000 * (i + 1) + 7;
	return 0;
}
static int f_destroy_counters(struct ibv_counters *k)
{
	if (destroy_err())
		return destroy_err();
	free(k);
	return 0;
}

/* device memory: DM_SIZE bytes that start as "0123456789abcdef..." */
struct fdm {
	struct ibv_dm dm;
	size_t len;
	char mem[];
};
static int f_memcpy_to_dm(struct ibv_dm *dm, uint64_t off, const void *p, size_t len)
{
	struct fdm *f = (struct fdm *)dm;
	if (off > f->len || len > f->len - off)
		return EINVAL;
	memcpy(f->mem + off, p, len);
	return 0;
}
static int f_memcpy_from_dm(void *p, struct ibv_dm *dm, uint64_t off, size_t len)
{
	struct fdm *f = (struct fdm *)dm;
	if (off > f->len || len > f->len - off)
		return EINVAL;
	memcpy(p, f->mem + off, len);
	return 0;
}
static struct ibv_dm *f_alloc_dm(struct ibv_context *c, struct ibv_alloc_dm_attr *a)
{
	if (a->length > DM_SIZE) {
		errno = ENOMEM;
		return NULL;
	}
	struct fdm *f = calloc(1, sizeof *f + a->length);
	if (!f)
		return NULL;
	f->dm = (struct ibv_dm){ .context = c, .memcpy_to_dm = f_memcpy_to_dm, .memcpy_from_dm = f_memcpy_from_dm };
	f->len = a->length;
	for (size_t i = 0; i < f->len; i++)
		f->mem[i] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ+/"[i % 64];
	return &f->dm;
}
static int f_free_dm(struct ibv_dm *dm)
{
	if (destroy_err())
		return destroy_err();
	free(dm);
	return 0;
}
/* an MR of device memory: handle 0xd0 (ibv_dereg_mr prints it), lkey 0xd1 */
static struct ibv_mr *f_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *dm, uint64_t off, size_t len, unsigned int access)
{
	fprintf(stderr, "fakeverbs: reg_dm_mr dm_offset %llu length %zu access 0x%x\n", (unsigned long long)off, len,
		access);
	if (len > ((struct fdm *)dm)->len) {
		errno = EINVAL;
		return NULL;
	}
	struct ibv_mr *mr = calloc(1, sizeof *mr);
	if (mr)
		*mr = (struct ibv_mr){ .context = pd->context, .pd = pd, .length = len, .lkey = 0xd1, .rkey = 0xd2,
				       .handle = 0xd0 };
	return mr;
}

/* WQs: a receive posted to one is reported on stderr */
static int f_wq_post_recv(struct ibv_wq *wq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)bad;
	for (; wr; wr = wr->next)
		fprintf(stderr, "fakeverbs: post_wq_recv wq %u wr_id %llu num_sge %d length %u\n", wq->wq_num,
			(unsigned long long)wr->wr_id, wr->num_sge, wr->num_sge ? wr->sg_list[0].length : 0);
	return 0;
}
static struct ibv_wq *f_create_wq(struct ibv_context *c, struct ibv_wq_init_attr *a)
{
	struct ibv_wq *wq = calloc(1, sizeof *wq);
	if (!wq)
		return NULL;
	*wq = (struct ibv_wq){ .context = c, .pd = a->pd, .cq = a->cq, .wq_num = 0x51, .wq_type = a->wq_type,
			       .state = IBV_WQS_RESET, .post_recv = f_wq_post_recv };
	return wq;
}
static int f_destroy_wq(struct ibv_wq *wq)
{
	if (destroy_err())
		return destroy_err();
	free(wq);
	return 0;
}
static int f_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *a)
{
	fprintf(stderr, "fakeverbs: modify_wq wq %u attr_mask 0x%x wq_state %d\n", wq->wq_num, a->attr_mask, a->wq_state);
	wq->state = a->wq_state;
	return 0;
}

/* flow actions (ESP): the attribute verbsh hands down is printed as the
 * count of its nonzero bytes (verbsh asks for an empty one: 0) */
static int nonzero(const void *p, size_t n)
{
	int k = 0;
	for (size_t i = 0; i < n; i++)
		k += ((const unsigned char *)p)[i] != 0;
	return k;
}
static struct ibv_flow_action *f_create_flow_action_esp(struct ibv_context *c, struct ibv_flow_action_esp_attr *a)
{
	fprintf(stderr, "fakeverbs: create_flow_action_esp attr %d nonzero bytes of %zu\n", nonzero(a, sizeof *a), sizeof *a);
	struct ibv_flow_action *f = calloc(1, sizeof *f);
	if (f)
		f->context = c;
	return f;
}
static int f_modify_flow_action_esp(struct ibv_flow_action *f, struct ibv_flow_action_esp_attr *a)
{
	(void)f;
	fprintf(stderr, "fakeverbs: modify_flow_action_esp attr %d nonzero bytes of %zu\n", nonzero(a, sizeof *a), sizeof *a);
	return 0;
}
static int f_destroy_flow_action(struct ibv_flow_action *f) { free(f); return 0; }

/* ports: two; a device's ports are ACTIVE when FAKEVERBS_ACTIVE names it */
int ibv_query_device(struct ibv_context *c, struct ibv_device_attr *a)
{
	(void)c;
	if (fail_int("query_device"))
		return fail_int("query_device");
	memset(a, 0, sizeof *a);
	a->phys_port_cnt = 2;
	return 0;
}
static int f_query_port(struct ibv_context *c, uint8_t port, struct ibv_port_attr *a, size_t len)
{
	const char *active = getenv("FAKEVERBS_ACTIVE");
	if (fail_int("query_port"))
		return fail_int("query_port");
	memset(a, 0, len);
	if (port < 1 || port > 2)
		return EINVAL;
	a->state = active && strcmp(active, c->device->name) == 0 ? IBV_PORT_ACTIVE : IBV_PORT_DOWN;
	a->gid_tbl_len = 4;
	return 0;
}
ssize_t _ibv_query_gid_table(struct ibv_context *c, struct ibv_gid_entry *e, size_t max, uint32_t flags, size_t size)
{
	(void)c; (void)e; (void)max; (void)flags; (void)size;
	errno = EINVAL;
	return -EINVAL;
}
int _ibv_query_gid_ex(struct ibv_context *c, uint32_t port, uint32_t index, struct ibv_gid_entry *e, uint32_t flags,
		      size_t size)
{
	static const struct { uint32_t port, index, type; uint8_t last; } slots[] = {
		{ 1, 0, IBV_GID_TYPE_ROCE_V1, 0x11 }, { 1, 2, IBV_GID_TYPE_ROCE_V2, 0x22 }, { 2, 1, IBV_GID_TYPE_IB, 0x33 },
	};
	(void)c;
	if (flags)   /* ibv_query_gid_ex(3): "for now must be 0"; the kernel refuses others */
		return EINVAL;
	for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
		if (slots[i].port == port && slots[i].index == index) {
			memset(e, 0, size);
			e->gid.raw[0] = 0xfe;
			e->gid.raw[1] = 0x80;
			e->gid.raw[15] = slots[i].last;
			e->gid_index = index;
			e->port_num = port;
			e->gid_type = slots[i].type;
			return 0;
		}
	return ENODATA;
}

/* ibv_query_gid reads sysfs, which a fake device has none of (libibverbs'
 * own crashed on it): the same slots, an empty one of the 4 as zeros (as
 * sysfs gives), past the table EINVAL. */
int ibv_query_gid(struct ibv_context *c, uint8_t port, int index, union ibv_gid *gid)
{
	struct ibv_gid_entry e;
	if (port < 1 || port > 2 || index < 0 || index >= 4) {
		errno = EINVAL;
		return -1;
	}
	if (_ibv_query_gid_ex(c, port, (uint32_t)index, &e, 0, sizeof e) != 0)
		memset(&e, 0, sizeof e);
	*gid = e.gid;
	return 0;
}

/* XRC domains, thread and parent domains, RSS tables, flows: each made one
 * is printed, so is each destroyed */
static struct ibv_xrcd *f_open_xrcd(struct ibv_context *c, struct ibv_xrcd_init_attr *a)
{
	fprintf(stderr, "fakeverbs: open_xrcd comp_mask 0x%x fd %d oflags 0x%x\n", a->comp_mask, a->fd, a->oflags);
	struct ibv_xrcd *x = calloc(1, sizeof *x);
	if (x)
		x->context = c;
	return x;
}
static int f_close_xrcd(struct ibv_xrcd *x)
{
	if (destroy_err())
		return destroy_err();
	fprintf(stderr, "fakeverbs: close_xrcd\n");
	free(x);
	return 0;
}
static struct ibv_td *f_alloc_td(struct ibv_context *c, struct ibv_td_init_attr *a)
{
	(void)a;
	struct ibv_td *t = calloc(1, sizeof *t);
	if (t)
		t->context = c;
	return t;
}
static int f_dealloc_td(struct ibv_td *t)
{
	if (destroy_err())
		return destroy_err();
	fprintf(stderr, "fakeverbs: dealloc_td\n");
	free(t);
	return 0;
}
/* a parent domain is a PD with handle 0x9d (ibv_dealloc_pd says so) */
static struct ibv_pd *f_alloc_parent_domain(struct ibv_context *c, struct ibv_parent_domain_init_attr *a)
{
	fprintf(stderr, "fakeverbs: alloc_parent_domain pd %s td %s\n", a->pd ? "set" : "NULL", a->td ? "set" : "NULL");
	struct ibv_pd *pd = calloc(1, sizeof *pd);
	if (pd)
		*pd = (struct ibv_pd){ .context = c, .handle = 0x9d };
	return pd;
}
static struct ibv_rwq_ind_table *f_create_rwq_ind_table(struct ibv_context *c, struct ibv_rwq_ind_table_init_attr *a)
{
	fprintf(stderr, "fakeverbs: create_rwq_ind_table log_size %u wq %u\n", a->log_ind_tbl_size,
		a->ind_tbl ? a->ind_tbl[0]->wq_num : 0);
	struct ibv_rwq_ind_table *t = calloc(1, sizeof *t);
	if (t)
		*t = (struct ibv_rwq_ind_table){ .context = c, .ind_tbl_num = 0x77 };
	return t;
}
static int f_destroy_rwq_ind_table(struct ibv_rwq_ind_table *t)
{
	if (destroy_err())
		return destroy_err();
	fprintf(stderr, "fakeverbs: destroy_rwq_ind_table %u\n", t->ind_tbl_num);
	free(t);
	return 0;
}
static struct ibv_flow *f_create_flow(struct ibv_qp *qp, struct ibv_flow_attr *a)
{
	fprintf(stderr, "fakeverbs: create_flow qp %u port %u type %d num_of_specs %u\n", qp->qp_num, a->port, a->type,
		a->num_of_specs);
	struct ibv_flow *f = calloc(1, sizeof *f);
	if (f)
		*f = (struct ibv_flow){ .context = qp->context, .handle = 0xf10 };
	return f;
}
static int f_destroy_flow(struct ibv_flow *f)
{
	if (destroy_err())
		return destroy_err();
	fprintf(stderr, "fakeverbs: destroy_flow 0x%x\n", f->handle);
	free(f);
	return 0;
}
static int f_attach_counters_point_flow(struct ibv_counters *k, struct ibv_counter_attach_attr *a, struct ibv_flow *f)
{
	(void)k;
	fprintf(stderr, "fakeverbs: attach_counters_point_flow desc %d index %u flow 0x%x\n", a->counter_desc, a->index,
		f ? f->handle : 0);
	return 0;
}
/* every QP is an ibv_qp_ex; ex says whether ibv_create_qp_ex made it (an
 * opened QP: 0, and no cap) */
struct fqp {
	struct ibv_qp_ex x;
	int ex;
	struct ibv_qp_cap cap;   /* as created: ibv_query_qp gives it back */
};
/* an XRC target QP opened by number: printed, number and type */
static struct ibv_qp *f_open_qp(struct ibv_context *c, struct ibv_qp_open_attr *a)
{
	fprintf(stderr, "fakeverbs: open_qp comp_mask 0x%x qp_num 0x%x xrcd %s qp_type %d\n", a->comp_mask, a->qp_num,
		a->xrcd ? "set" : "NULL", a->qp_type);
	struct ibv_qp *qp = calloc(1, sizeof(struct fqp));
	if (qp)
		*qp = (struct ibv_qp){ .context = c, .qp_num = a->qp_num, .qp_type = a->qp_type, .handle = 0x0e };
	return qp;
}
/* an SRQ's number: 0x5a5 */
static int f_get_srq_num(struct ibv_srq *srq, uint32_t *num)
{
	(void)srq;
	*num = 0x5a5;
	return 0;
}
/* a QP's rate limit: printed; 7 kbps is refused with ERANGE */
static int f_modify_qp_rate_limit(struct ibv_qp *qp, struct ibv_qp_rate_limit_attr *a)
{
	if (a->rate_limit == 7)
		return ERANGE;
	fprintf(stderr, "fakeverbs: modify_qp_rate_limit qp %u rate_limit %u\n", qp->qp_num, a->rate_limit);
	return 0;
}

/* a CQ's moderation: printed, as handed */
static int f_modify_cq(struct ibv_cq *cq, struct ibv_modify_cq_attr *a)
{
	(void)cq;
	fprintf(stderr, "fakeverbs: modify_cq attr_mask 0x%x cq_count %u cq_period %u\n", a->attr_mask,
		a->moderate.cq_count, a->moderate.cq_period);
	return 0;
}

/* ibv_advise_mr: what it is handed, then EOPNOTSUPP (no ODP here, as on rxe) */
static int f_advise_mr(struct ibv_pd *pd, enum ibv_advise_mr_advice advice, uint32_t flags, struct ibv_sge *sg,
		       uint32_t n)
{
	(void)pd;
	fprintf(stderr, "fakeverbs: advise_mr advice %d flags 0x%x %u SGEs:", (int)advice, flags, n);
	for (uint32_t i = 0; i < n; i++)
		fprintf(stderr, " addr 0x%llx length %u lkey 0x%x;", (unsigned long long)sg[i].addr, sg[i].length,
			sg[i].lkey);
	fputc('\n', stderr);
	return EOPNOTSUPP;
}

static struct ibv_mr *f_reg_dm_mr(struct ibv_pd *pd, struct ibv_dm *dm, uint64_t off, size_t len, unsigned int access);
static int f_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *a);
static void queue_env_events(struct ibv_context *c);
static void data_path_ops(struct ibv_context *c);
static struct ibv_qp *f_create_qp_ex(struct ibv_context *c, struct ibv_qp_init_attr_ex *a);
static struct ibv_cq_ex *f_create_cq_ex(struct ibv_context *c, struct ibv_cq_init_attr_ex *a);
static int f_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
static int f_req_notify_cq(struct ibv_cq *cq, int solicited_only);
struct ibv_context *ibv_open_device(struct ibv_device *d)
{
	if (env_int("FAKEVERBS_OPEN_ERRNO", 0)) {
		errno = env_int("FAKEVERBS_OPEN_ERRNO", 0);
		return NULL;
	}
	struct verbs_context *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->query_port = f_query_port;
	v->open_xrcd = f_open_xrcd;
	v->close_xrcd = f_close_xrcd;
	v->alloc_td = f_alloc_td;
	v->dealloc_td = f_dealloc_td;
	v->alloc_parent_domain = f_alloc_parent_domain;
	v->create_rwq_ind_table = f_create_rwq_ind_table;
	v->destroy_rwq_ind_table = f_destroy_rwq_ind_table;
	v->ibv_create_flow = f_create_flow;
	v->ibv_destroy_flow = f_destroy_flow;
	v->attach_counters_point_flow = f_attach_counters_point_flow;
	v->open_qp = f_open_qp;
	v->get_srq_num = f_get_srq_num;
	v->modify_qp_rate_limit = f_modify_qp_rate_limit;
	v->modify_cq = f_modify_cq;
	v->advise_mr = f_advise_mr;
	v->reg_dm_mr = f_reg_dm_mr;
	v->modify_wq = f_modify_wq;
	v->sz = sizeof *v;
	v->query_rt_values = f_query_rt_values;
	v->query_device_ex = f_query_device_ex;
	v->create_counters = f_create_counters;
	v->read_counters = f_read_counters;
	v->destroy_counters = f_destroy_counters;
	v->alloc_dm = f_alloc_dm;
	v->free_dm = f_free_dm;
	v->create_wq = f_create_wq;
	v->destroy_wq = f_destroy_wq;
	v->create_qp_ex = f_create_qp_ex;
	v->create_cq_ex = f_create_cq_ex;
	v->context.ops.poll_cq = f_poll_cq;
	v->context.ops.req_notify_cq = f_req_notify_cq;
	v->create_flow_action_esp = f_create_flow_action_esp;
	v->modify_flow_action_esp = f_modify_flow_action_esp;
	v->destroy_flow_action = f_destroy_flow_action;
	v->context.device = d;
	v->context.cmd_fd = -1;
	v->context.async_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK | EFD_SEMAPHORE);
	v->context.num_comp_vectors = 1;
	v->context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	data_path_ops(&v->context);
	queue_env_events(&v->context);
	return &v->context;
}
static struct ibv_context *imported;   /* ibv_import_device's, whose close is printed */
int ibv_close_device(struct ibv_context *c)
{
	if (c == imported)
		fprintf(stderr, "fakeverbs: close_device of the imported context\n");
	close(c->async_fd);
	free(verbs_get_ctx(c));
	return 0;
}

struct ibv_pd *ibv_alloc_pd(struct ibv_context *c)
{
	if (fail_of("alloc_pd", NULL)) {
		errno = fail_of("alloc_pd", NULL);
		return NULL;
	}
	static uint32_t handle = 0x50;   /* 0x51, 0x52 ... in the order made */
	struct ibv_pd *pd = calloc(1, sizeof *pd);
	if (pd)
		*pd = (struct ibv_pd){ .context = c, .handle = ++handle };
	return pd;
}
int ibv_dealloc_pd(struct ibv_pd *pd)
{
	if (pd->handle == 0x9d)
		fprintf(stderr, "fakeverbs: dealloc_pd of the parent domain\n");
	else if (trace())
		fprintf(stderr, "fakeverbs: dealloc_pd pd %u\n", pd->handle);
	free(pd);
	return 0;
}

/* The completions a CQ hands out (FAKEVERBS_WCS of them, in order): every
 * field a value of its own, none alike; imm is host order (the WC's
 * imm_data is its network order, and the third's invalidated rkey) */
static const struct fwc {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t vendor_err, byte_len, imm, qp_num, src_qp;
	unsigned wc_flags;
	uint16_t pkey_index, slid, cvlan;
	uint8_t sl, dlid_path_bits;
	uint64_t ts, wallclock, tag;
	uint32_t flow_tag, priv;
} fwcs[] = {
	{ 0x1001, IBV_WC_SUCCESS, IBV_WC_RECV_RDMA_WITH_IMM, 0, 1234, 0x12345678, 0x111, 0xabcde,
	  IBV_WC_WITH_IMM | IBV_WC_GRH, 3, 0x1357, 0x0abc, 5, 6, 0x123456789aULL, 0x1122334455667788ULL,
	  0x0123456789abcdefULL, 0xfedcba, 0x2468ace0 },
	{ 0x2002, IBV_WC_REM_ACCESS_ERR, IBV_WC_SEND, 0x55, 0, 0, 0x112, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ 0x3003, IBV_WC_SUCCESS, IBV_WC_RECV, 0, 77, 0x9abcdef0, 0x113, 0x54321, IBV_WC_WITH_INV, 1, 0x2468,
	  0x0def, 2, 1, 0x0badcafe0ULL, 0x0a0b0c0d0e0f1011ULL, 0x1020304050607080ULL, 0x00a1b2c3, 0x13579bdf },
};
struct fcq {
	struct ibv_cq_ex x;
	int count, next, cur;   /* completions it holds; the next to hand out; the current one (start_poll's) */
};
/* a channel, and the CQs whose events are pending on it, in order */
struct fch {
	struct ibv_comp_channel ch;
	struct ibv_cq *pending[8];
	int n;
};
/* a CQ's handle: 0xc1, 0xc2 ... in the order made */
static void cq_init(struct fcq *f, struct ibv_context *c, int cqe, void *cq_context, struct ibv_comp_channel *ch)
{
	static uint32_t handle = 0xc0;
	f->x.handle = ++handle;
	f->x.context = c;
	f->x.channel = ch;
	f->x.cq_context = cq_context;
	f->x.cqe = cqe;
	f->count = env_int("FAKEVERBS_WCS", 0);
	if (f->count > (int)(sizeof fwcs / sizeof fwcs[0]))
		f->count = sizeof fwcs / sizeof fwcs[0];
}
/* the next completion's index, or -1 */
static int take(struct fcq *f)
{
	return f->next < f->count ? f->next++ : -1;
}
static int f_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	struct fcq *f = (struct fcq *)cq;
	int got = 0, i;
	while (got < n && (i = take(f)) >= 0) {
		const struct fwc *w = &fwcs[i];
		wc[got] = (struct ibv_wc){ .wr_id = w->wr_id, .status = w->status, .opcode = w->opcode,
					   .vendor_err = w->vendor_err, .byte_len = w->byte_len, .qp_num = w->qp_num,
					   .src_qp = w->src_qp, .wc_flags = w->wc_flags, .pkey_index = w->pkey_index,
					   .slid = w->slid, .sl = w->sl, .dlid_path_bits = w->dlid_path_bits };
		if (w->wc_flags & IBV_WC_WITH_INV)
			wc[got].invalidated_rkey = w->imm;
		else
			wc[got].imm_data = htobe32(w->imm);
		got++;
	}
	if (!got && fail_of("poll_cq", NULL))
		return fail_of("poll_cq", NULL);
	return got;
}
/* notification: an event on the CQ's channel at once, as if a completion came */
static int f_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	uint64_t one = 1;
	fprintf(stderr, "fakeverbs: req_notify_cq cqe %d solicited_only %d\n", cq->cqe, solicited_only);
	if (fail_of("req_notify_cq", NULL))
		return fail_of("req_notify_cq", NULL);
	struct fch *f = (struct fch *)cq->channel;
	if (f && f->n < 8) {
		f->pending[f->n++] = cq;
		if (write(f->ch.fd, &one, sizeof one) != sizeof one)
			abort();
	}
	return 0;
}
struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *c)
{
	if (fail_of("create_comp_channel", NULL)) {
		errno = fail_of("create_comp_channel", NULL);
		return NULL;
	}
	struct fch *f = calloc(1, sizeof *f);
	if (f)
		f->ch = (struct ibv_comp_channel){ .context = c, .fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK | EFD_SEMAPHORE) };
	return f ? &f->ch : NULL;
}
int ibv_destroy_comp_channel(struct ibv_comp_channel *ch)
{
	close(ch->fd);
	free(ch);
	return 0;
}
/* FAKEVERBS_CQ_EVENT_ERRNO=n fails it with errno n too, and
 * FAKEVERBS_CQ_EVENT_STRANGER makes it return a CQ verbsh never made */
int ibv_get_cq_event(struct ibv_comp_channel *ch, struct ibv_cq **cq, void **cq_context)
{
	static struct ibv_cq stranger = { .cqe = 999 };
	uint64_t one;
	if (fail_of("get_cq_event", NULL)) {
		errno = fail_of("get_cq_event", NULL);
		return -1;
	}
	if (getenv("FAKEVERBS_CQ_EVENT_ERRNO")) {
		errno = env_int("FAKEVERBS_CQ_EVENT_ERRNO", 0);
		return -1;
	}
	struct fch *f = (struct fch *)ch;
	if (read(ch->fd, &one, sizeof one) != sizeof one || !f->n)
		return -1;
	*cq = getenv("FAKEVERBS_CQ_EVENT_STRANGER") ? &stranger : f->pending[0];
	memmove(f->pending, f->pending + 1, (size_t)--f->n * sizeof f->pending[0]);
	*cq_context = (*cq)->cq_context;
	return 0;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *c, int cqe, void *cq_context, struct ibv_comp_channel *ch, int vec)
{
	(void)vec;
	struct fcq *f = calloc(1, sizeof *f);
	if (f)
		cq_init(f, c, cqe, cq_context, ch);
	return f ? ibv_cq_ex_to_cq(&f->x) : NULL;
}
int ibv_destroy_cq(struct ibv_cq *cq) { free(cq); return 0; }

/* the extended CQ: start_poll/next_poll walk the same completions; each
 * reader gives the current one's field */
#define CUR(x) (&fwcs[((struct fcq *)(x))->cur])
static int x_next(struct ibv_cq_ex *x)
{
	struct fcq *f = (struct fcq *)x;
	int i = take(f);
	if (i < 0)
		return fail_of("next_poll", NULL) ? fail_of("next_poll", NULL) : ENOENT;
	f->cur = i;
	x->wr_id = fwcs[i].wr_id;
	x->status = fwcs[i].status;
	return 0;
}
static int x_start_poll(struct ibv_cq_ex *x, struct ibv_poll_cq_attr *a)
{
	if (a->comp_mask)   /* no attribute is defined: a provider may refuse any (verbs.h) */
		return EINVAL;
	if (fail_of("start_poll", NULL))
		return fail_of("start_poll", NULL);
	return x_next(x) == 0 ? 0 : ENOENT;
}
static void x_end_poll(struct ibv_cq_ex *x) { fprintf(stderr, "fakeverbs: end_poll cqe %d\n", x->cqe); }
static enum ibv_wc_opcode x_opcode(struct ibv_cq_ex *x) { return CUR(x)->opcode; }
static uint32_t x_vendor_err(struct ibv_cq_ex *x) { return CUR(x)->vendor_err; }
static uint32_t x_byte_len(struct ibv_cq_ex *x) { return CUR(x)->byte_len; }
/* imm_data in network order; an invalidated rkey shares it, in host order
 * (ibv_wc_read_invalidated_rkey swaps nothing) */
static __be32 x_imm_data(struct ibv_cq_ex *x)
{
	return CUR(x)->wc_flags & IBV_WC_WITH_INV ? CUR(x)->imm : htobe32(CUR(x)->imm);
}
static uint32_t x_qp_num(struct ibv_cq_ex *x) { return CUR(x)->qp_num; }
static uint32_t x_src_qp(struct ibv_cq_ex *x) { return CUR(x)->src_qp; }
static unsigned x_wc_flags(struct ibv_cq_ex *x) { return CUR(x)->wc_flags; }
static uint32_t x_slid(struct ibv_cq_ex *x) { return CUR(x)->slid; }
static uint8_t x_sl(struct ibv_cq_ex *x) { return CUR(x)->sl; }
static uint8_t x_dlid_path_bits(struct ibv_cq_ex *x) { return CUR(x)->dlid_path_bits; }
static uint64_t x_ts(struct ibv_cq_ex *x) { return CUR(x)->ts; }
static uint16_t x_cvlan(struct ibv_cq_ex *x) { return CUR(x)->cvlan; }
static uint32_t x_flow_tag(struct ibv_cq_ex *x) { return CUR(x)->flow_tag; }
static void x_tm_info(struct ibv_cq_ex *x, struct ibv_wc_tm_info *tm)
{
	tm->tag = CUR(x)->tag;
	tm->priv = CUR(x)->priv;
}
static uint64_t x_wallclock(struct ibv_cq_ex *x) { return CUR(x)->wallclock; }
/* every reader the CQ asks for in wc_flags (a provider leaves the others
 * NULL) */
static struct ibv_cq_ex *f_create_cq_ex(struct ibv_context *c, struct ibv_cq_init_attr_ex *a)
{
	struct fcq *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	cq_init(f, c, (int)a->cqe, a->cq_context, a->channel);
	struct ibv_cq_ex *x = &f->x;
	uint64_t w = a->wc_flags;
	x->start_poll = x_start_poll;
	x->next_poll = x_next;
	x->end_poll = x_end_poll;
	x->read_opcode = x_opcode;
	x->read_vendor_err = x_vendor_err;
	x->read_wc_flags = x_wc_flags;
#define WITH(flag, m, fn) if (w & IBV_WC_EX_WITH_##flag) x->m = fn
	WITH(BYTE_LEN, read_byte_len, x_byte_len);
	WITH(IMM, read_imm_data, x_imm_data);
	WITH(QP_NUM, read_qp_num, x_qp_num);
	WITH(SRC_QP, read_src_qp, x_src_qp);
	WITH(SLID, read_slid, x_slid);
	WITH(SL, read_sl, x_sl);
	WITH(DLID_PATH_BITS, read_dlid_path_bits, x_dlid_path_bits);
	WITH(COMPLETION_TIMESTAMP, read_completion_ts, x_ts);
	WITH(CVLAN, read_cvlan, x_cvlan);
	WITH(FLOW_TAG, read_flow_tag, x_flow_tag);
	WITH(TM_INFO, read_tm_info, x_tm_info);
	WITH(COMPLETION_TIMESTAMP_WALLCLOCK, read_completion_wallclock_ns, x_wallclock);
#undef WITH
	return x;
}
static void queue_event(struct ibv_context *c, struct ibv_async_event ev);
/* resize: rounded up to a multiple of 8; 13 entries are refused with EPERM
 * (1: an errno that is also a plain truth value); 29 queues a CQ_ERR */
int ibv_resize_cq(struct ibv_cq *cq, int cqe)
{
	if (cqe == 13)
		return EPERM;
	if (cqe == 29)
		queue_event(cq->context, (struct ibv_async_event){ .element.cq = cq, .event_type = IBV_EVENT_CQ_ERR });
	cq->cqe = (cqe + 7) & ~7;
	return 0;
}

/* MRs: the caller's buffer, lkey 0x1234 + n; ops.alloc_mw stays NULL (no
 * memory windows on this device, as on siw) */
struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t len, uint64_t iova, unsigned int access)
{
	static uint32_t n;
	if (trace())
		fprintf(stderr, "fakeverbs: reg_mr_iova2 length %zu iova 0x%llx access 0x%x\n", len,
			(unsigned long long)iova, access);
	if (iova % 4096 == 0x123) {   /* as rxe on Linux 6.1: NULL, errno left 0 */
		errno = 0;
		return NULL;
	}
	if (iova == 0xbad000) {
		errno = EFAULT;
		return NULL;
	}
	struct ibv_mr *mr = calloc(1, sizeof *mr);
	if (mr)
		*mr = (struct ibv_mr){ .context = pd->context, .pd = pd, .addr = addr, .length = len,
				       .lkey = 0x1234 + n, .rkey = 0x5678 + n, .handle = n };
	n++;
	return mr;
}
/* ibv_reg_dmabuf_mr: what it is handed, printed with FAKEVERBS_TRACE; then
 * EOPNOTSUPP, as on rxe and siw (no dma-buf here) */
struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova, int fd, int access)
{
	(void)pd;
	if (trace())
		fprintf(stderr, "fakeverbs: reg_dmabuf_mr offset %llu length %zu iova 0x%llx fd %d access 0x%x\n",
			(unsigned long long)offset, length, (unsigned long long)iova, fd, (unsigned)access);
	errno = EOPNOTSUPP;
	return NULL;
}
/* ibv_rereg_mr: what it is handed, printed with FAKEVERBS_TRACE (the PD as
 * its handle, -1 for NULL) */
int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t len, int access)
{
	int e, n = fail_of("rereg_mr", &e);
	if (trace())
		fprintf(stderr, "fakeverbs: rereg_mr lkey 0x%x flags 0x%x pd %d addr %p length %zu access 0x%x\n",
			mr->lkey, flags, pd ? (int)pd->handle : -1, addr, len, access);
	errno = e;
	/* FAKEVERBS_REREG_KEYS=1: a successful rereg gives the MR new keys
	 * (lkey and rkey + 0x1000), as a provider may (rxe keeps them) */
	if (n == 0 && getenv("FAKEVERBS_REREG_KEYS")) {
		mr->lkey += 0x1000;
		mr->rkey += 0x1000;
	}
	return n;
}
int ibv_dereg_mr(struct ibv_mr *mr)
{
	if (mr->handle == 0xd0)
		fprintf(stderr, "fakeverbs: dereg_mr of the DM's MR\n");
	free(mr);
	return 0;
}

/* QPs and SRQs: only what the async event needs (a state, an SRQ) */
struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *a)
{
	struct ibv_srq *srq = calloc(1, sizeof *srq);
	if (srq)
		*srq = (struct ibv_srq){ .context = pd->context, .pd = pd, .srq_context = a->srq_context };
	return srq;
}
int ibv_destroy_srq(struct ibv_srq *srq) { free(srq); return 0; }

/* QP numbers are 0x111, 0x112 ..., each handle its number + 0x300 (struct
 * fqp, above) */
static struct ibv_qp *new_qp(struct ibv_context *c, struct ibv_pd *pd, struct ibv_qp_init_attr *a, int ex)
{
	static uint32_t qpn = 0x111;
	struct fqp *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->x.qp_base = (struct ibv_qp){ .context = c, .pd = pd, .send_cq = a->send_cq, .recv_cq = a->recv_cq,
					.srq = a->srq, .qp_num = qpn, .handle = qpn + 0x300, .qp_type = a->qp_type,
					.state = IBV_QPS_RESET };
	qpn++;
	f->ex = ex;
	f->cap = a->cap;
	return &f->x.qp_base;
}
struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *a)
{
	if (fail_of("create_qp", NULL)) {
		errno = fail_of("create_qp", NULL);
		return NULL;
	}
	return new_qp(pd->context, pd, a, 0);
}
int ibv_destroy_qp(struct ibv_qp *qp)
{
	if (qp->handle == 0x0e)
		fprintf(stderr, "fakeverbs: destroy_qp of the opened QP 0x%x\n", qp->qp_num);
	free(qp);
	return 0;
}
struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp) { return ((struct fqp *)qp)->ex ? (struct ibv_qp_ex *)qp : NULL; }

static void x_start(struct ibv_qp_ex *x) { (void)x; }
static int x_complete(struct ibv_qp_ex *x) { (void)x; return fail_of("wr_complete", NULL); }
static void x_abort(struct ibv_qp_ex *x) { (void)x; }
static void x_sge(struct ibv_qp_ex *x, uint32_t lkey, uint64_t addr, uint32_t len)
{
	fprintf(stderr, "fakeverbs: wr_set_sge qp %u lkey 0x%x addr 0x%llx length %u\n", x->qp_base.qp_num, lkey,
		(unsigned long long)addr, len);
}
static void x_sge_list(struct ibv_qp_ex *x, size_t n, const struct ibv_sge *l)
{
	fprintf(stderr, "fakeverbs: wr_set_sge_list qp %u %zu SGEs:", x->qp_base.qp_num, n);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, " lkey 0x%x addr 0x%llx length %u;", l[i].lkey, (unsigned long long)l[i].addr, l[i].length);
	fprintf(stderr, "\n");
}
static void x_inline(struct ibv_qp_ex *x, void *p, size_t len)
{
	fprintf(stderr, "fakeverbs: wr_set_inline_data qp %u \"%.*s\"\n", x->qp_base.qp_num, (int)len, (const char *)p);
}
static void x_inline_list(struct ibv_qp_ex *x, size_t n, const struct ibv_data_buf *l)
{
	fprintf(stderr, "fakeverbs: wr_set_inline_data_list qp %u %zu buffers:", x->qp_base.qp_num, n);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, " \"%.*s\"", (int)l[i].length, (const char *)l[i].addr);
	fprintf(stderr, "\n");
}
static void x_fetch_add(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr, uint64_t add)
{
	fprintf(stderr, "fakeverbs: wr_atomic_fetch_add qp %u rkey 0x%x addr 0x%llx add %llu\n", x->qp_base.qp_num, rkey,
		(unsigned long long)addr, (unsigned long long)add);
}
static void x_cmp_swp(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr, uint64_t cmp, uint64_t swap)
{
	fprintf(stderr, "fakeverbs: wr_atomic_cmp_swp qp %u rkey 0x%x addr 0x%llx compare %llu swap %llu\n",
		x->qp_base.qp_num, rkey, (unsigned long long)addr, (unsigned long long)cmp, (unsigned long long)swap);
}
static void x_xrc_srqn(struct ibv_qp_ex *x, uint32_t srqn)
{
	fprintf(stderr, "fakeverbs: wr_set_xrc_srqn qp %u srqn 0x%x\n", x->qp_base.qp_num, srqn);
}
static void x_ud_addr(struct ibv_qp_ex *x, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey) { (void)x; (void)ah; (void)qpn; (void)qkey; }
static void x_send(struct ibv_qp_ex *x) { (void)x; }
/* The other ops print what the provider is handed: the WR's wr_id and
 * wr_flags as the QP holds them, an immediate as its four bytes in memory
 * (the __be32 C passes: 0x01020304 in host order is 01 02 03 04 here). */
static void x_op(struct ibv_qp_ex *x, const char *op, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void x_op(struct ibv_qp_ex *x, const char *op, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "fakeverbs: %s qp %u wr_id 0x%llx wr_flags 0x%x ", op, x->qp_base.qp_num,
		(unsigned long long)x->wr_id, x->wr_flags);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
}
static void x_imm_bytes(char out[12], __be32 imm)
{
	const unsigned char *b = (const unsigned char *)&imm;
	snprintf(out, 12, "%02x %02x %02x %02x", b[0], b[1], b[2], b[3]);
}
static void x_send_imm(struct ibv_qp_ex *x, __be32 imm)
{
	char b[12];
	x_imm_bytes(b, imm);
	x_op(x, "wr_send_imm", "imm_data %s", b);
}
static void x_rdma_write(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr)
{
	x_op(x, "wr_rdma_write", "rkey 0x%x addr 0x%llx", rkey, (unsigned long long)addr);
}
static void x_rdma_write_imm(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr, __be32 imm)
{
	char b[12];
	x_imm_bytes(b, imm);
	x_op(x, "wr_rdma_write_imm", "rkey 0x%x addr 0x%llx imm_data %s", rkey, (unsigned long long)addr, b);
}
static void x_rdma_read(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr)
{
	x_op(x, "wr_rdma_read", "rkey 0x%x addr 0x%llx", rkey, (unsigned long long)addr);
}
static void x_local_inv(struct ibv_qp_ex *x, uint32_t rkey) { x_op(x, "wr_local_inv", "invalidate_rkey 0x%x", rkey); }
static void x_send_inv(struct ibv_qp_ex *x, uint32_t rkey) { x_op(x, "wr_send_inv", "invalidate_rkey 0x%x", rkey); }
static void x_atomic_write(struct ibv_qp_ex *x, uint32_t rkey, uint64_t addr, const void *data)
{
	const unsigned char *d = data;
	x_op(x, "wr_atomic_write", "rkey 0x%x addr 0x%llx data %02x %02x %02x %02x %02x %02x %02x %02x", rkey,
	     (unsigned long long)addr, d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]);
}
static void x_send_tso(struct ibv_qp_ex *x, void *hdr, uint16_t hdr_sz, uint16_t mss)
{
	const char *h = hdr;
	fprintf(stderr, "fakeverbs: wr_send_tso qp %u hdr_sz %u mss %u first %c last %c\n", x->qp_base.qp_num, hdr_sz,
		mss, hdr_sz ? h[0] : '-', hdr_sz ? h[hdr_sz - 1] : '-');
}
static struct ibv_qp *f_create_qp_ex(struct ibv_context *c, struct ibv_qp_init_attr_ex *a)
{
	struct ibv_qp_init_attr ia = { .send_cq = a->send_cq, .recv_cq = a->recv_cq, .srq = a->srq, .qp_type = a->qp_type,
				       .cap = a->cap };
	struct ibv_qp *qp = new_qp(c, a->pd, &ia, (a->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) != 0);
	struct ibv_qp_ex *x = (struct ibv_qp_ex *)qp;
	if (x && ((struct fqp *)qp)->ex) {
		x->wr_start = x_start;
		x->wr_complete = x_complete;
		x->wr_abort = x_abort;
		x->wr_set_sge = x_sge;
		x->wr_set_sge_list = x_sge_list;
		x->wr_set_inline_data = x_inline;
		x->wr_set_inline_data_list = x_inline_list;
		x->wr_set_ud_addr = x_ud_addr;
		if (a->send_ops_flags & IBV_QP_EX_WITH_SEND)
			x->wr_send = x_send;
		if (a->send_ops_flags & IBV_QP_EX_WITH_TSO)
			x->wr_send_tso = x_send_tso;
		if (env_int("FAKEVERBS_ALL_OPS", 0)) {   /* (without it, these ops are ones the provider lacks) */
			x->wr_send_imm = x_send_imm;
			x->wr_rdma_write = x_rdma_write;
			x->wr_rdma_write_imm = x_rdma_write_imm;
			x->wr_rdma_read = x_rdma_read;
			x->wr_local_inv = x_local_inv;
			x->wr_send_inv = x_send_inv;
			x->wr_atomic_write = x_atomic_write;
		}
		if (a->send_ops_flags & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
			x->wr_atomic_fetch_add = x_fetch_add;
		if ((a->send_ops_flags & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP) && env_int("FAKEVERBS_CMP_SWP", 0))
			x->wr_atomic_cmp_swp = x_cmp_swp;
		if (a->qp_type == IBV_QPT_XRC_SEND)
			x->wr_set_xrc_srqn = x_xrc_srqn;
	}
	return qp;
}
int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask, struct ibv_qp_init_attr *ia)
{
	(void)mask;
	if (fail_of("query_qp", NULL))
		return fail_of("query_qp", NULL);
	memset(a, 0, sizeof *a);
	memset(ia, 0, sizeof *ia);
	a->qp_state = a->cur_qp_state = qp->state;
	a->sq_draining = qp->state == IBV_QPS_SQD && env_int("FAKEVERBS_SQ_DRAINING", 0);
	ia->send_cq = qp->send_cq;
	ia->recv_cq = qp->recv_cq;
	ia->srq = qp->srq;
	ia->qp_type = qp->qp_type;
	ia->cap = ((struct fqp *)qp)->cap;
	return 0;
}

static struct ibv_async_event queued[8];
static int nqueued;
static void queue_event(struct ibv_context *c, struct ibv_async_event ev)
{
	uint64_t one = 1;
	if (nqueued == 8)
		return;
	queued[nqueued++] = ev;
	if (write(c->async_fd, &one, sizeof one) != sizeof one)
		abort();
}
/* FAKEVERBS_ASYNC="PORT_ERR:2 DEVICE_FATAL": each name, with its port */
static void queue_env_events(struct ibv_context *c)
{
	static const struct { const char *name; enum ibv_event_type t; } names[] = {
		{ "PORT_ACTIVE", IBV_EVENT_PORT_ACTIVE }, { "PORT_ERR", IBV_EVENT_PORT_ERR },
		{ "LID_CHANGE", IBV_EVENT_LID_CHANGE }, { "PKEY_CHANGE", IBV_EVENT_PKEY_CHANGE },
		{ "SM_CHANGE", IBV_EVENT_SM_CHANGE }, { "CLIENT_REREGISTER", IBV_EVENT_CLIENT_REREGISTER },
		{ "GID_CHANGE", IBV_EVENT_GID_CHANGE }, { "DEVICE_FATAL", IBV_EVENT_DEVICE_FATAL },
	};
	const char *e = getenv("FAKEVERBS_ASYNC");
	char word[32];
	int used;
	while (e && sscanf(e, " %31s%n", word, &used) == 1) {
		char *colon = strchr(word, ':');
		int port = colon ? atoi(colon + 1) : 0;
		if (colon)
			*colon = 0;
		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
			if (strcmp(names[i].name, word) == 0)
				queue_event(c, (struct ibv_async_event){ .element.port_num = port, .event_type = names[i].t });
		e += used;
	}
}
int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask)
{
	int f = fail_int("modify_qp");
	if (f)
		return f;
	if (!(mask & IBV_QP_STATE))
		return 0;
	/* FAKEVERBS_SQ_DRAINING=1: a QP in SQD drains for ever, and, as on
	 * rxe, may only go to ERR meanwhile */
	if (qp->state == IBV_QPS_SQD && a->qp_state != IBV_QPS_ERR && env_int("FAKEVERBS_SQ_DRAINING", 0)) {
		errno = EINVAL;
		return EINVAL;
	}
	qp->state = a->qp_state;
	if (a->qp_state == IBV_QPS_ERR && qp->srq)
		queue_event(qp->context, (struct ibv_async_event){ .element.qp = qp,
								   .event_type = IBV_EVENT_QP_LAST_WQE_REACHED });
	return 0;
}
int ibv_get_async_event(struct ibv_context *c, struct ibv_async_event *ev)
{
	uint64_t one;
	if (fail_of("get_async_event", NULL)) {
		errno = fail_of("get_async_event", NULL);
		return -1;
	}
	if (read(c->async_fd, &one, sizeof one) != sizeof one)
		return -1;
	*ev = queued[0];
	memmove(queued, queued + 1, --nqueued * sizeof queued[0]);
	return 0;
}
void ibv_ack_async_event(struct ibv_async_event *ev) { (void)ev; }

/* ECE: every QP reads vendor_id 0x15b3, options 0xabcd0102, comp_mask 0x5;
 * what set_ece hands down is printed */
int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	(void)qp;
	ece->vendor_id = 0x15b3;
	ece->options = 0xabcd0102;
	ece->comp_mask = 0x5;
	return 0;
}
int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece)
{
	fprintf(stderr, "fakeverbs: set_ece qp %u vendor_id 0x%x options 0x%x comp_mask 0x%x\n", qp->qp_num,
		ece->vendor_id, ece->options, ece->comp_mask);
	return 0;
}

/* imports: a context from any open descriptor (EBADF for a negative one);
 * a PD, an MR or DM by handle; each unimport is printed with the handle */
struct ibv_context *ibv_import_device(int fd)
{
	if (fd < 0) {
		errno = EBADF;
		return NULL;
	}
	fprintf(stderr, "fakeverbs: import_device fd %d\n", fd);
	return imported = ibv_open_device(&fake_dev[0]);
}
struct ibv_pd *ibv_import_pd(struct ibv_context *c, uint32_t handle)
{
	struct ibv_pd *pd = calloc(1, sizeof *pd);
	if (pd)
		*pd = (struct ibv_pd){ .context = c, .handle = handle };
	return pd;
}
void ibv_unimport_pd(struct ibv_pd *pd)
{
	fprintf(stderr, "fakeverbs: unimport_pd 0x%x\n", pd->handle);
	free(pd);
}
struct ibv_mr *ibv_import_mr(struct ibv_pd *pd, uint32_t handle)
{
	struct ibv_mr *mr = calloc(1, sizeof *mr);
	if (mr)
		*mr = (struct ibv_mr){ .context = pd->context, .pd = pd, .handle = handle };
	return mr;
}
void ibv_unimport_mr(struct ibv_mr *mr)
{
	fprintf(stderr, "fakeverbs: unimport_mr 0x%x\n", mr->handle);
	free(mr);
}
struct ibv_dm *ibv_import_dm(struct ibv_context *c, uint32_t handle)
{
	struct fdm *f = calloc(1, sizeof *f);
	if (f)
		*f = (struct fdm){ .dm = { .context = c, .handle = handle } };
	return &f->dm;
}
void ibv_unimport_dm(struct ibv_dm *dm)
{
	fprintf(stderr, "fakeverbs: unimport_dm 0x%x\n", dm->handle);
	free(dm);
}

/* init_ah_from_wc: what it is handed is printed (imm_data as its bytes in
 * memory: network order); the address has the port, the WC's sl and slid,
 * and sgid_index 3. Port 8 fails with EPROTO, port 9 with -EINVAL (rdma-core
 * returns either sign). */
int ibv_init_ah_from_wc(struct ibv_context *c, uint8_t port, struct ibv_wc *wc, struct ibv_grh *grh,
			struct ibv_ah_attr *a)
{
	const unsigned char *imm = (const unsigned char *)&wc->imm_data;
	(void)c;
	fprintf(stderr, "fakeverbs: init_ah_from_wc port %u wr_id %llu wc_flags 0x%x imm_data bytes %02x %02x %02x %02x"
		" src_qp 0x%x slid %u sl %u grh 0x%02x..0x%02x\n", port, (unsigned long long)wc->wr_id, wc->wc_flags,
		imm[0], imm[1], imm[2], imm[3], wc->src_qp, wc->slid, wc->sl, ((unsigned char *)grh)[0],
		((unsigned char *)grh)[39]);
	if (port == 8)
		return EPROTO;
	if (port == 9)
		return -EINVAL;
	memset(a, 0, sizeof *a);
	a->is_global = 1;
	a->port_num = port;
	a->sl = wc->sl;
	a->dlid = wc->slid;
	a->grh.sgid_index = 3;
	return 0;
}

/* ---- the data path: posts and polls (tests/host/fakedev_marshal.bats) ------
 *
 * post_send, post_recv and post_srq_recv write every field of every WR they
 * are handed, one line a WR ("fakeverbs: post_send qp 0x111 wr_id 0x...":
 * the union as the opcode and QP type use it, imm_data as its bytes in
 * memory, each SGE as addr+length/lkey), and complete it at once: a send on
 * the QP's send CQ (status SUCCESS, its opcode, byte_len the SGEs' sum), a
 * receive on its recv CQ. A receive's WC is made from its wr_id: status is
 * bits 56..63, wc_flags bits 48..55, src_qp bits 24..47; vendor_err is
 * 0x1d2 when the status is not SUCCESS; imm_data is 0x5e6f7081, or, when
 * wc_flags has WITH_INV or IP_CSUM_OK, invalidated_rkey is 0x1a2b3c4d; pkey_index
 * 0x123, slid 0x4567, sl 9, dlid_path_bits 0x3e. An SRQ's receives are
 * printed, not completed. A WR whose wr_id is 0xbad is refused: the WRs
 * before it are posted, bad_wr points at it (0xbad0: a send the same, bad_wr
 * not set, as a provider may leave it), the post returns
 * FAKEVERBS_POST_RET (22, EINVAL, unless set) with errno FAKEVERBS_POST_ERRNO
 * (unchanged unless set).
 *
 * With FAKEVERBS_DATA_PATH set (tests/host/fakedev_marshal.bats), poll_cq
 * and req_notify_cq are this section's (else the known completions above,
 * FAKEVERBS_WCS, and an event at each req_notify_cq):
 * poll_cq hands a CQ's WCs back in order; with none left it returns 0, or
 * -FAKEVERBS_POLL_ERR when that is set. req_notify_cq writes what it is
 * handed. ibv_create_ah gives an AH with handle 0xa0, 0xa1, ... (the
 * channels and SRQ attributes are further below) */
#define DP_MAX 256
static struct dp_wc {
	struct ibv_cq *cq;
	struct ibv_wc wc;
} dp_queue[DP_MAX];
static int dp_n;

static void dp_fire(struct ibv_cq *cq);
static void dp_arm(struct ibv_cq *cq);
static void dp_complete(struct ibv_cq *cq, const struct ibv_wc *wc)
{
	if (cq && dp_n < DP_MAX) {
		dp_queue[dp_n++] = (struct dp_wc){ cq, *wc };
		dp_fire(cq);
	}
}

static uint32_t dp_print_sges(const struct ibv_sge *sg, int n)
{
	uint32_t sum = 0;
	for (int i = 0; i < n; i++) {
		fprintf(stderr, " sge 0x%llx+%u/0x%x", (unsigned long long)sg[i].addr, sg[i].length, sg[i].lkey);
		sum += sg[i].length;
	}
	return sum;
}

static enum ibv_wc_opcode dp_wc_opcode(enum ibv_wr_opcode op)
{
	switch (op) {
	case IBV_WR_RDMA_WRITE: case IBV_WR_RDMA_WRITE_WITH_IMM: return IBV_WC_RDMA_WRITE;
	case IBV_WR_RDMA_READ: return IBV_WC_RDMA_READ;
	case IBV_WR_ATOMIC_CMP_AND_SWP: return IBV_WC_COMP_SWAP;
	case IBV_WR_ATOMIC_FETCH_AND_ADD: return IBV_WC_FETCH_ADD;
	case IBV_WR_BIND_MW: return IBV_WC_BIND_MW;
	case IBV_WR_LOCAL_INV: return IBV_WC_LOCAL_INV;
	default: return IBV_WC_SEND;
	}
}

static void dp_print_union(struct ibv_qp *qp, const struct ibv_send_wr *w)
{
	if (qp->qp_type == IBV_QPT_UD)
		fprintf(stderr, " ud ah 0x%x remote_qpn 0x%x remote_qkey 0x%x", w->wr.ud.ah ? w->wr.ud.ah->handle : 0,
			w->wr.ud.remote_qpn, w->wr.ud.remote_qkey);
	else if (w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP || w->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD)
		fprintf(stderr, " atomic remote_addr 0x%llx compare_add 0x%llx swap 0x%llx rkey 0x%x",
			(unsigned long long)w->wr.atomic.remote_addr, (unsigned long long)w->wr.atomic.compare_add,
			(unsigned long long)w->wr.atomic.swap, w->wr.atomic.rkey);
	else if (w->opcode == IBV_WR_RDMA_WRITE || w->opcode == IBV_WR_RDMA_WRITE_WITH_IMM ||
		 w->opcode == IBV_WR_RDMA_READ)
		fprintf(stderr, " rdma remote_addr 0x%llx rkey 0x%x", (unsigned long long)w->wr.rdma.remote_addr,
			w->wr.rdma.rkey);
}

static int dp_refuse(void)
{
	if (getenv("FAKEVERBS_POST_ERRNO"))
		errno = env_int("FAKEVERBS_POST_ERRNO", 0);
	return env_int("FAKEVERBS_POST_RET", EINVAL);
}

static int dp_post_send(struct ibv_qp *qp, struct ibv_send_wr *w, struct ibv_send_wr **bad)
{
	for (; w; w = w->next) {
		if (w->wr_id == 0xbad || w->wr_id == 0xbad0) {
			if (w->wr_id == 0xbad)   /* 0xbad0: refused, bad_wr left as it was */
				*bad = w;
			return dp_refuse();
		}
		const unsigned char *imm = (const unsigned char *)&w->imm_data;
		fprintf(stderr, "fakeverbs: post_send qp 0x%x wr_id 0x%llx opcode %d send_flags 0x%x imm_data bytes"
			" %02x %02x %02x %02x num_sge %d", qp->qp_num, (unsigned long long)w->wr_id, w->opcode,
			w->send_flags, imm[0], imm[1], imm[2], imm[3], w->num_sge);
		uint32_t sum = dp_print_sges(w->sg_list, w->num_sge);
		if (w->opcode == IBV_WR_SEND_WITH_INV || w->opcode == IBV_WR_LOCAL_INV)
			fprintf(stderr, " invalidate_rkey 0x%x", w->invalidate_rkey);
		dp_print_union(qp, w);
		fprintf(stderr, "\n");
		dp_complete(qp->send_cq, &(struct ibv_wc){ .wr_id = w->wr_id, .status = IBV_WC_SUCCESS,
			.opcode = dp_wc_opcode(w->opcode), .byte_len = sum, .qp_num = qp->qp_num });
	}
	return 0;
}

static struct ibv_wc dp_recv_wc(struct ibv_qp *qp, const struct ibv_recv_wr *w, uint32_t len)
{
	struct ibv_wc wc = { .wr_id = w->wr_id, .status = (enum ibv_wc_status)(w->wr_id >> 56),
			     .opcode = IBV_WC_RECV, .byte_len = len, .qp_num = qp->qp_num,
			     .src_qp = (uint32_t)(w->wr_id >> 24) & 0xffffff, .wc_flags = (w->wr_id >> 48) & 0xff,
			     .pkey_index = 0x123, .slid = 0x4567, .sl = 9, .dlid_path_bits = 0x3e };
	wc.vendor_err = wc.status ? 0x1d2 : 0;
	if (wc.wc_flags & (IBV_WC_WITH_INV | IBV_WC_IP_CSUM_OK))
		wc.invalidated_rkey = 0x1a2b3c4d;
	else
		wc.imm_data = htonl(0x5e6f7081);
	return wc;
}

static int dp_post_recv_list(const char *verb, uint32_t num, struct ibv_qp *qp, struct ibv_recv_wr *w,
			     struct ibv_recv_wr **bad)
{
	for (; w; w = w->next) {
		if (w->wr_id == 0xbad) {
			*bad = w;
			return dp_refuse();
		}
		fprintf(stderr, "fakeverbs: %s 0x%x wr_id 0x%llx num_sge %d", verb, num, (unsigned long long)w->wr_id,
			w->num_sge);
		uint32_t sum = dp_print_sges(w->sg_list, w->num_sge);
		fprintf(stderr, "\n");
		if (qp) {
			struct ibv_wc wc = dp_recv_wc(qp, w, sum);
			dp_complete(qp->recv_cq, &wc);
		}
	}
	return 0;
}

static int dp_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *w, struct ibv_recv_wr **bad)
{
	return dp_post_recv_list("post_recv qp", qp->qp_num, qp, w, bad);
}

static int dp_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *w, struct ibv_recv_wr **bad)
{
	return dp_post_recv_list("post_srq_recv srq", srq->handle, NULL, w, bad);
}

static int dp_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int got = 0;
	for (int i = 0; i < dp_n && got < n; ) {
		if (dp_queue[i].cq != cq) {
			i++;
			continue;
		}
		wc[got++] = dp_queue[i].wc;
		memmove(dp_queue + i, dp_queue + i + 1, (size_t)(--dp_n - i) * sizeof dp_queue[0]);
	}
	if (!got && getenv("FAKEVERBS_POLL_ERR"))
		return -env_int("FAKEVERBS_POLL_ERR", 0);
	return got;
}

static int dp_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	fprintf(stderr, "fakeverbs: req_notify_cq cqe %d solicited_only %d\n", cq->cqe, solicited_only);
	dp_arm(cq);
	return 0;
}

static void data_path_ops(struct ibv_context *c)
{
	c->ops.post_send = dp_post_send;
	c->ops.post_recv = dp_post_recv;
	c->ops.post_srq_recv = dp_post_srq_recv;
	if (getenv("FAKEVERBS_DATA_PATH")) {   /* else: the known completions (FAKEVERBS_WCS) */
		c->ops.poll_cq = dp_poll_cq;
		c->ops.req_notify_cq = dp_req_notify_cq;
	}
}

struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *a)
{
	static uint32_t n = 0xa0;
	struct ibv_ah *ah = calloc(1, sizeof *ah);
	(void)a;
	if (ah)
		*ah = (struct ibv_ah){ .context = pd->context, .pd = pd, .handle = n++ };
	return ah;
}
int ibv_destroy_ah(struct ibv_ah *ah) { free(ah); return 0; }

/* Completion channels: an eventfd. A CQ of a channel armed by req_notify_cq
 * gets one event at its next completion; ibv_get_cq_event returns it, or,
 * with FAKEVERBS_CQ_EVENT_ERRNO=n, fails with errno n, or, with
 * FAKEVERBS_CQ_EVENT_STRANGER set, returns a CQ verbsh never made. Each
 * ibv_ack_cq_events is written with its CQ's cqe and count. */
static struct ibv_cq *dp_armed[8];
static int dp_narmed;

static void dp_arm(struct ibv_cq *cq)
{
	if (cq->channel && dp_narmed < 8)
		dp_armed[dp_narmed++] = cq;
}

static void dp_fire(struct ibv_cq *cq)
{
	uint64_t one = 1;
	struct fch *f = (struct fch *)cq->channel;
	for (int i = 0; i < dp_narmed; i++)
		if (dp_armed[i] == cq && f->n < 8) {
			dp_armed[i] = dp_armed[--dp_narmed];
			f->pending[f->n++] = cq;
			if (write(f->ch.fd, &one, sizeof one) != sizeof one)
				abort();
			return;
		}
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int n)
{
	if (getenv("FAKEVERBS_DATA_PATH"))
		fprintf(stderr, "fakeverbs: ack_cq_events cqe %d n %u\n", cq->cqe, n);
}

/* SRQ attributes: ibv_modify_srq writes what it is handed; ibv_query_srq
 * returns max_wr 0x1f3, max_sge 7 and the last srq_limit set (0 at first).
 * A modify with srq_limit 0xdead fails with EINVAL. */
static uint32_t dp_srq_limit;
int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *a, int mask)
{
	(void)srq;
	fprintf(stderr, "fakeverbs: modify_srq max_wr %u max_sge %u srq_limit %u mask 0x%x\n", a->max_wr, a->max_sge,
		a->srq_limit, mask);
	if (a->srq_limit == 0xdead)
		return EINVAL;
	if (mask & IBV_SRQ_LIMIT)
		dp_srq_limit = a->srq_limit;
	return 0;
}
int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *a)
{
	(void)srq;
	*a = (struct ibv_srq_attr){ .max_wr = 0x1f3, .max_sge = 7, .srq_limit = dp_srq_limit };
	return 0;
}
