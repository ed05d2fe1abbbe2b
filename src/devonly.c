/* The verbs that need hardware: XRC, device memory, flow steering, counters,
 * WQs and RSS tables, thread and parent domains, ESP flow actions, dmabuf
 * and null MRs, ODP advice, CQ moderation, rate limits, ECE, the imports
 * and the rest rxe does not implement. Each is one row of `rows` below: the
 * method, the verb, and a small function that calls it with the arguments
 * read from the stack. One binding runs every row: it calls the verb, and
 * when the verb fails it raises the verb's errno, which lua/explain_dev.lua
 * explains from its own table (what the feature is, which devices have it,
 * the help topic). What a row makes (an XRC domain, device memory ...) is a
 * device object (verbs.devobj) whose destroy calls the row's destroy verb.
 *
 * Nothing here is simulated: on hardware that has the feature the verb
 * runs and its answer is returned. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "verbsh.h"

/* What a row made, and how it is destroyed. */
struct dkind {
	const char *name;            /* "xrcd": help and describe say so */
	const char *destroy_verb;    /* "ibv_close_xrcd" */
	int (*destroy)(void *h);
};
struct vdevobj {
	struct vnode n;
	const struct dkind *k;
};
VCLASS_DATA(vdevobj, vdevobj)

static int d_close_xrcd(void *h) { return ibv_close_xrcd(h); }
static int d_free_dm(void *h) { return ibv_free_dm(h); }
static int d_dealloc_td(void *h) { return ibv_dealloc_td(h); }
static int d_dealloc_pd(void *h) { return ibv_dealloc_pd(h); }
static int d_destroy_counters(void *h) { return ibv_destroy_counters(h); }
static int d_destroy_wq(void *h) { return ibv_destroy_wq(h); }
static int d_destroy_rwq(void *h) { return ibv_destroy_rwq_ind_table(h); }
static int d_destroy_flow(void *h) { return ibv_destroy_flow(h); }
static int d_destroy_flow_action(void *h) { return ibv_destroy_flow_action(h); }
static int d_dereg_mr(void *h) { return ibv_dereg_mr(h); }
static int d_destroy_qp(void *h) { return ibv_destroy_qp(h); }
static int d_unimport_pd(void *h) { ibv_unimport_pd(h); return 0; }
static int d_unimport_mr(void *h) { ibv_unimport_mr(h); return 0; }
static int d_unimport_dm(void *h) { ibv_unimport_dm(h); return 0; }
static int d_close_device(void *h) { return ibv_close_device(h); }

static const struct dkind k_xrcd = { "xrcd", "ibv_close_xrcd", d_close_xrcd },
	k_dm = { "dm", "ibv_free_dm", d_free_dm },
	k_td = { "td", "ibv_dealloc_td", d_dealloc_td },
	k_parent = { "parent_domain", "ibv_dealloc_pd", d_dealloc_pd },
	k_counters = { "counters", "ibv_destroy_counters", d_destroy_counters },
	k_wq = { "wq", "ibv_destroy_wq", d_destroy_wq },
	k_rwq = { "rwq_ind_table", "ibv_destroy_rwq_ind_table", d_destroy_rwq },
	k_flow = { "flow", "ibv_destroy_flow", d_destroy_flow },
	k_action = { "flow_action", "ibv_destroy_flow_action", d_destroy_flow_action },
	k_mr = { "mr", "ibv_dereg_mr", d_dereg_mr },
	k_xrc_qp = { "qp", "ibv_destroy_qp", d_destroy_qp },
	k_ipd = { "imported_pd", "ibv_unimport_pd", d_unimport_pd },
	k_imr = { "imported_mr", "ibv_unimport_mr", d_unimport_mr },
	k_idm = { "imported_dm", "ibv_unimport_dm", d_unimport_dm },
	k_ictx = { "imported_context", "ibv_close_device", d_close_device };

/* A row's call: self's handle, the arguments at 2.. (read here); returns 0
 * or an errno. On success it sets *made (and *kind) to keep an object, or
 * pushes its results and sets *nres. */
struct dcall {
	lua_State *L;
	void *self;
	void *made;
	const struct dkind *kind;
	int nres;
};
typedef int (*dcall_fn)(struct dcall *c);

static lua_Integer int_arg(lua_State *L, int i, const char *what, lua_Integer dflt)
{
	if (lua_isnoneornil(L, i))
		return dflt;
	if (!lua_isinteger(L, i))
		vtypeerror(L, i, what);
	return lua_tointeger(L, i);
}
/* An argument C takes as an integer type of range lo..hi: a value outside is
 * an error naming it (what up to " (") and the range, never cut to fit
 * (65536 as a uint16_t cq_count would reach the provider as 0). */
static lua_Integer ranged_arg(lua_State *L, int i, const char *what, lua_Integer dflt, lua_Integer lo, lua_Integer hi)
{
	lua_Integer v = int_arg(L, i, what, dflt);
	if (v < lo || v > hi) {
		const char *cut = strstr(what, " (");
		lua_pushlstring(L, what, cut ? (size_t)(cut - what) : strlen(what));
		vargerror(L, i, lua_pushfstring(L, "%s: %I is out of range (%I..%I)", lua_tostring(L, -1), v, lo, hi));
	}
	return v;
}
#define U8_ARG(L, i, what, d) ((uint8_t)ranged_arg(L, i, what, d, 0, UINT8_MAX))
#define U16_ARG(L, i, what, d) ((uint16_t)ranged_arg(L, i, what, d, 0, UINT16_MAX))
#define U32_ARG(L, i, what, d) ((uint32_t)ranged_arg(L, i, what, d, 0, UINT32_MAX))
#define U64_ARG(L, i, what, d) ((uint64_t)ranged_arg(L, i, what, d, 0, LUA_MAXINTEGER))   /* (a size, an offset) */
#define INT_ARG(L, i, what, d) ((int)ranged_arg(L, i, what, d, INT_MIN, INT_MAX))
static void *devobj_arg(lua_State *L, int i, const struct dkind *k);
#define MADE(p, k) (c->made = (p), c->kind = (k), c->made ? 0 : (errno ? errno : EOPNOTSUPP))
/* A verb's int result as an errno: 0, the errno it returned, or (a -1) the
 * errno it set. A function, not a macro: the verb is called once. */
static int verb_errno(int r) { return r == 0 ? 0 : r > 0 ? r : (errno ? errno : EOPNOTSUPP); }
#define RET(r) verb_errno(r)

static int c_open_xrcd(struct dcall *c)
{
	struct ibv_xrcd_init_attr a = { .comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS, .fd = -1,
					.oflags = O_CREAT };
	return MADE(ibv_open_xrcd(c->self, &a), &k_xrcd);
}
static int c_open_qp(struct dcall *c)
{
	struct ibv_qp_open_attr a = { .comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_TYPE,
				      .qp_num = U32_ARG(c->L, 2, "qp_num (integer)", 0),
				      .xrcd = devobj_arg(c->L, 3, &k_xrcd), .qp_type = IBV_QPT_XRC_RECV };
	return MADE(ibv_open_qp(c->self, &a), &k_xrc_qp);
}
static int c_alloc_dm(struct dcall *c)
{
	struct ibv_alloc_dm_attr a = { .length = (size_t)U64_ARG(c->L, 2, "length (integer)", 4096) };
	return MADE(ibv_alloc_dm(c->self, &a), &k_dm);
}
static int c_alloc_td(struct dcall *c)
{
	struct ibv_td_init_attr a = { 0 };
	return MADE(ibv_alloc_td(c->self, &a), &k_td);
}
static int c_alloc_parent_domain(struct dcall *c)
{
	struct ibv_parent_domain_init_attr a = { .pd = vobj_check(c->L, 2, &vc_pd)->h,
						 .td = devobj_arg(c->L, 3, &k_td) };
	return MADE(ibv_alloc_parent_domain(c->self, &a), &k_parent);
}
static int c_create_counters(struct dcall *c)
{
	struct ibv_counters_init_attr a = { 0 };
	return MADE(ibv_create_counters(c->self, &a), &k_counters);
}
static int c_create_wq(struct dcall *c)
{
	struct ibv_wq_init_attr a = { .wq_type = IBV_WQT_RQ, .max_wr = U32_ARG(c->L, 4, "max_wr (integer)", 16),
				      .max_sge = 1, .pd = vobj_check(c->L, 2, &vc_pd)->h,
				      .cq = vobj_check(c->L, 3, &vc_cq)->h };
	return MADE(ibv_create_wq(c->self, &a), &k_wq);
}
static int c_create_rwq_ind_table(struct dcall *c)
{
	struct ibv_wq *wq = devobj_arg(c->L, 2, &k_wq);
	struct ibv_rwq_ind_table_init_attr a = { .log_ind_tbl_size = 0, .ind_tbl = wq ? &wq : NULL };
	return MADE(ibv_create_rwq_ind_table(c->self, &a), &k_rwq);
}
static int c_create_flow_action_esp(struct dcall *c)
{
	struct ibv_flow_action_esp_attr a;
	memset(&a, 0, sizeof a);
	return MADE(ibv_create_flow_action_esp(c->self, &a), &k_action);
}
static int c_import_pd(struct dcall *c)
{
	return MADE(ibv_import_pd(c->self, U32_ARG(c->L, 2, "pd_handle (integer)", 0)), &k_ipd);
}
static int c_import_dm(struct dcall *c)
{
	return MADE(ibv_import_dm(c->self, U32_ARG(c->L, 2, "dm_handle (integer)", 0)), &k_idm);
}
static int c_query_rt_values_ex(struct dcall *c)
{
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	int r = ibv_query_rt_values_ex(c->self, &v);
	if (r)
		return RET(r);
	lua_createtable(c->L, 0, 2);
	lua_pushinteger(c->L, (lua_Integer)v.raw_clock.tv_sec);
	lua_setfield(c->L, -2, "tv_sec");
	lua_pushinteger(c->L, (lua_Integer)v.raw_clock.tv_nsec);
	lua_setfield(c->L, -2, "tv_nsec");
	c->nres = 1;
	return 0;
}
/* pd rows */
static int c_reg_dmabuf_mr(struct dcall *c)
{
	lua_State *L = c->L;
	int fd = INT_ARG(L, 2, "fd (integer)", -1);
	uint64_t offset = U64_ARG(L, 3, "offset (integer)", 0);
	size_t length = (size_t)U64_ARG(L, 4, "length (integer)", 4096);
	uint64_t iova = U64_ARG(L, 5, "iova (integer)", 0);
	int64_t access = IBV_ACCESS_LOCAL_WRITE;
	const char *e;
	if (!lua_isnoneornil(L, 6) && (e = venum_read(L, 6, &ve_access, &access)))
		vargerror(L, 6, e);
	return MADE(ibv_reg_dmabuf_mr(c->self, offset, length, iova, fd, (int)access), &k_mr);
}
static int c_alloc_null_mr(struct dcall *c) { return MADE(ibv_alloc_null_mr(c->self), &k_mr); }
static int c_advise_mr(struct dcall *c)
{
	struct vnode *m = vobj_check(c->L, 2, &vc_mr);
	struct ibv_mr *mr = m->h;
	struct ibv_sge sge = { .addr = (uintptr_t)mr->addr, .length = (uint32_t)mr->length, .lkey = mr->lkey };
	return RET(ibv_advise_mr(c->self, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge, 1));
}
static int c_import_mr(struct dcall *c)
{
	return MADE(ibv_import_mr(c->self, U32_ARG(c->L, 2, "mr_handle (integer)", 0)), &k_imr);
}
/* qp rows */
static int c_create_flow(struct dcall *c)
{
	struct ibv_flow_attr a = { .type = IBV_FLOW_ATTR_NORMAL, .size = sizeof a, .num_of_specs = 0,
				   .port = U8_ARG(c->L, 2, "port (integer)", 1) };
	return MADE(ibv_create_flow(c->self, &a), &k_flow);
}
static int c_modify_rate_limit(struct dcall *c)
{
	struct ibv_qp_rate_limit_attr a = { .rate_limit = U32_ARG(c->L, 2, "rate_limit (integer, kbps)", 0) };
	return RET(ibv_modify_qp_rate_limit(c->self, &a));
}
static int c_query_ece(struct dcall *c)
{
	struct ibv_ece e = { 0 };
	int r = ibv_query_ece(c->self, &e);
	if (r)
		return RET(r);
	lua_createtable(c->L, 0, 3);
	lua_pushinteger(c->L, e.vendor_id);
	lua_setfield(c->L, -2, "vendor_id");
	lua_pushinteger(c->L, e.options);
	lua_setfield(c->L, -2, "options");
	lua_pushinteger(c->L, e.comp_mask);
	lua_setfield(c->L, -2, "comp_mask");
	c->nres = 1;
	return 0;
}
static int c_set_ece(struct dcall *c)
{
	struct ibv_ece e = { .vendor_id = U32_ARG(c->L, 2, "vendor_id (integer)", 0),
			     .options = U32_ARG(c->L, 3, "options (integer)", 0) };
	return RET(ibv_set_ece(c->self, &e));
}
/* cq rows */
static int c_modify_cq(struct dcall *c)
{
	struct ibv_modify_cq_attr a = { .attr_mask = IBV_CQ_ATTR_MODERATE,
		.moderate = { .cq_count = U16_ARG(c->L, 2, "cq_count (integer)", 1),
			      .cq_period = U16_ARG(c->L, 3, "cq_period (integer, microseconds)", 0) } };
	return RET(ibv_modify_cq(c->self, &a));
}
/* srq rows */
static int c_get_srq_num(struct dcall *c)
{
	uint32_t num = 0;
	int r = ibv_get_srq_num(c->self, &num);
	if (r)
		return RET(r);
	lua_pushinteger(c->L, num);
	c->nres = 1;
	return 0;
}
static int c_post_srq_ops(struct dcall *c)
{
	struct ibv_ops_wr wr = { .wr_id = (uint64_t)int_arg(c->L, 2, "wr_id (integer)", 0), .opcode = IBV_WR_TAG_SYNC,
				 .flags = IBV_OPS_SIGNALED };
	struct ibv_ops_wr *bad = NULL;
	return RET(ibv_post_srq_ops(c->self, &wr, &bad));
}
/* device-object rows */
static int c_memcpy_to_dm(struct dcall *c)
{
	size_t len;
	uint64_t off = U64_ARG(c->L, 2, "offset (integer)", 0);
	const char *s = luaL_checklstring(c->L, 3, &len);
	return RET(ibv_memcpy_to_dm(c->self, off, s, len));
}
static int c_memcpy_from_dm(struct dcall *c)
{
	uint64_t off = U64_ARG(c->L, 2, "offset (integer)", 0);
	size_t len = (size_t)U64_ARG(c->L, 3, "length (integer)", 0);
	luaL_Buffer b;
	char *p = luaL_buffinitsize(c->L, &b, len);
	int r = ibv_memcpy_from_dm(p, c->self, off, len);
	if (r)
		return RET(r);
	luaL_pushresultsize(&b, len);
	c->nres = 1;
	return 0;
}
static int c_reg_dm_mr(struct dcall *c)
{
	struct ibv_pd *pd = vobj_check(c->L, 2, &vc_pd)->h;
	size_t len = (size_t)U64_ARG(c->L, 3, "length (integer)", 0);
	return MADE(ibv_reg_dm_mr(pd, c->self, 0, len, IBV_ACCESS_ZERO_BASED | IBV_ACCESS_LOCAL_WRITE), &k_mr);
}
static int c_read_counters(struct dcall *c)
{
	uint64_t v[8] = { 0 };
	int n = (int)ranged_arg(c->L, 2, "ncounters (integer, 1..8)", 1, 1, 8);
	int r = ibv_read_counters(c->self, v, (uint32_t)n, IBV_READ_COUNTERS_ATTR_PREFER_CACHED);
	if (r)
		return RET(r);
	lua_createtable(c->L, n, 0);
	for (int i = 0; i < n; i++) {
		lua_pushinteger(c->L, (lua_Integer)v[i]);
		lua_rawseti(c->L, -2, i + 1);
	}
	c->nres = 1;
	return 0;
}
static int c_attach_counters_point_flow(struct dcall *c)
{
	struct ibv_counter_attach_attr a = { .counter_desc = IBV_COUNTER_PACKETS, .index = 0 };
	return RET(ibv_attach_counters_point_flow(c->self, &a, devobj_arg(c->L, 2, &k_flow)));
}
static int c_modify_wq(struct dcall *c)
{
	struct ibv_wq_attr a = { .attr_mask = IBV_WQ_ATTR_STATE, .wq_state = IBV_WQS_RDY };
	return RET(ibv_modify_wq(c->self, &a));
}
static int c_post_wq_recv(struct dcall *c)
{
	struct vnode *m = vobj_check(c->L, 2, &vc_mr);
	struct ibv_mr *mr = m->h;
	struct ibv_sge sge = { .addr = (uintptr_t)mr->addr, .length = (uint32_t)mr->length, .lkey = mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = (uint64_t)int_arg(c->L, 3, "wr_id (integer)", 0), .sg_list = &sge,
				  .num_sge = 1 }, *bad = NULL;
	return RET(ibv_post_wq_recv(c->self, &wr, &bad));
}
static int c_modify_flow_action_esp(struct dcall *c)
{
	struct ibv_flow_action_esp_attr a;
	memset(&a, 0, sizeof a);
	return RET(ibv_modify_flow_action_esp(c->self, &a));
}

/* verbs.import_device(fd or ctx): a ctx stands for its command fd, as another
 * process gets it over a unix socket (SCM_RIGHTS) */
static int import_device(lua_State *L)
{
	int fd;
	struct vnode *cn = vobj_test(L, 1, &vc_context);
	if (cn && cn->h)
		fd = dup(((struct ibv_context *)cn->h)->cmd_fd);
	else
		fd = INT_ARG(L, 1, "fd (integer) or a verbs context", -1);
	errno = 0;
	struct ibv_context *ctx = ibv_import_device(fd);
	int err = errno;
	if (cn && fd >= 0 && !ctx)
		close(fd);
	if (!ctx) {
		lua_createtable(L, 0, 2);
		lua_pushinteger(L, fd);
		lua_setfield(L, -2, "fd");
		if (cn) {
			lua_pushstring(L, ibv_get_device_name(((struct ibv_context *)cn->h)->device));
			lua_setfield(L, -2, "device");
		}
		return vraise(L, "ibv_import_device", err ? err : EOPNOTSUPP, 0, -1);
	}
	extern const struct vclass vc_devobj;
	struct vnode *n = vobj_new(L, &vc_devobj, 0, NULL);
	vdevobj(n)->k = &k_ictx;
	vobj_set(n, ctx);
	return 1;
}

struct drow {
	const char *owner;   /* the class whose method it is: "verbs.context", "verbs.devobj" */
	const char *method;
	const char *verb;
	dcall_fn call;
	const struct dkind *on;   /* for a device object's method: the kind it needs */
	int max;                  /* the arguments it takes after self */
};
static const struct drow rows[] = {
	{ "verbs.context", "open_xrcd", "ibv_open_xrcd", c_open_xrcd, NULL, 0 },
	{ "verbs.context", "open_qp", "ibv_open_qp", c_open_qp, NULL, 2 },
	{ "verbs.context", "alloc_dm", "ibv_alloc_dm", c_alloc_dm, NULL, 1 },
	{ "verbs.context", "alloc_td", "ibv_alloc_td", c_alloc_td, NULL, 0 },
	{ "verbs.context", "alloc_parent_domain", "ibv_alloc_parent_domain", c_alloc_parent_domain, NULL, 2 },
	{ "verbs.context", "create_counters", "ibv_create_counters", c_create_counters, NULL, 0 },
	{ "verbs.context", "create_wq", "ibv_create_wq", c_create_wq, NULL, 3 },
	{ "verbs.context", "create_rwq_ind_table", "ibv_create_rwq_ind_table", c_create_rwq_ind_table, NULL, 1 },
	{ "verbs.context", "create_flow_action_esp", "ibv_create_flow_action_esp", c_create_flow_action_esp, NULL, 0 },
	{ "verbs.context", "import_pd", "ibv_import_pd", c_import_pd, NULL, 1 },
	{ "verbs.context", "import_dm", "ibv_import_dm", c_import_dm, NULL, 1 },
	{ "verbs.context", "query_rt_values_ex", "ibv_query_rt_values_ex", c_query_rt_values_ex, NULL, 0 },
	{ "verbs.pd", "reg_dmabuf_mr", "ibv_reg_dmabuf_mr", c_reg_dmabuf_mr, NULL, 5 },
	{ "verbs.pd", "alloc_null_mr", "ibv_alloc_null_mr", c_alloc_null_mr, NULL, 0 },
	{ "verbs.pd", "advise_mr", "ibv_advise_mr", c_advise_mr, NULL, 1 },
	{ "verbs.pd", "import_mr", "ibv_import_mr", c_import_mr, NULL, 1 },
	{ "verbs.qp", "create_flow", "ibv_create_flow", c_create_flow, NULL, 1 },
	{ "verbs.qp", "modify_rate_limit", "ibv_modify_qp_rate_limit", c_modify_rate_limit, NULL, 1 },
	{ "verbs.qp", "query_ece", "ibv_query_ece", c_query_ece, NULL, 0 },
	{ "verbs.qp", "set_ece", "ibv_set_ece", c_set_ece, NULL, 2 },
	{ "verbs.cq", "modify", "ibv_modify_cq", c_modify_cq, NULL, 2 },
	{ "verbs.srq", "get_srq_num", "ibv_get_srq_num", c_get_srq_num, NULL, 0 },
	{ "verbs.srq", "post_srq_ops", "ibv_post_srq_ops", c_post_srq_ops, NULL, 1 },
	{ "verbs.devobj", "memcpy_to_dm", "ibv_memcpy_to_dm", c_memcpy_to_dm, &k_dm, 2 },
	{ "verbs.devobj", "memcpy_from_dm", "ibv_memcpy_from_dm", c_memcpy_from_dm, &k_dm, 2 },
	{ "verbs.devobj", "reg_dm_mr", "ibv_reg_dm_mr", c_reg_dm_mr, &k_dm, 2 },
	{ "verbs.devobj", "read_counters", "ibv_read_counters", c_read_counters, &k_counters, 1 },
	{ "verbs.devobj", "attach_counters_point_flow", "ibv_attach_counters_point_flow",
	  c_attach_counters_point_flow, &k_counters, 1 },
	{ "verbs.devobj", "modify_wq", "ibv_modify_wq", c_modify_wq, &k_wq, 0 },
	{ "verbs.devobj", "post_wq_recv", "ibv_post_wq_recv", c_post_wq_recv, &k_wq, 2 },
	{ "verbs.devobj", "modify_flow_action_esp", "ibv_modify_flow_action_esp", c_modify_flow_action_esp, &k_action, 0 },
};
#define NROWS (sizeof rows / sizeof rows[0])

static const struct vclass *owner_class(const char *tname)
{
	extern const struct vclass vc_devobj;
	static const struct { const char *t; const struct vclass *c; } m[] = {
		{ "verbs.context", &vc_context }, { "verbs.pd", &vc_pd }, { "verbs.qp", &vc_qp },
		{ "verbs.cq", &vc_cq }, { "verbs.srq", &vc_srq }, { "verbs.devobj", &vc_devobj },
	};
	for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
		if (strcmp(m[i].t, tname) == 0)
			return m[i].c;
	return NULL;
}

/* The device's name for the explanation: "rxe0" */
static const char *device_name(struct vnode *n)
{
	struct vnode *c = vobj_context(n);
	struct ibv_context *ctx = c && c->h ? c->h : NULL;
	return ctx ? ibv_get_device_name(ctx->device) : NULL;
}

/* The one binding of every row (upvalue 1: the row). */
static int run_row(lua_State *L)
{
	const struct drow *r = lua_touserdata(L, lua_upvalueindex(1));
	const struct vclass *cls = owner_class(r->owner);
	struct vnode *self = vobj_check(L, 1, cls);
	if (lua_gettop(L) > 1 + r->max) {
		char form[64];
		snprintf(form, sizeof form, "%s:%s(%s)", cls->var, r->method, r->max ? "..." : "");
		vnoextra_fail(L, 1 + r->max, form, NULL);
	}
	if (r->on && vdevobj(self)->k != r->on)
		return luaL_error(L, "%s: this is a device object of kind %s; %s needs one of kind %s", r->method,
				  vdevobj(self)->k->name, r->verb, r->on->name);
	struct dcall c = { .L = L, .self = self->h };
	int top = lua_gettop(L);
	errno = 0;
	int err = r->call(&c);
	if (err) {
		lua_settop(L, top);
		lua_createtable(L, 0, 2);
		const char *dev = device_name(self);
		if (dev) {
			lua_pushstring(L, dev);
			lua_setfield(L, -2, "device");
		}
		lua_pushstring(L, r->method);
		lua_setfield(L, -2, "method");
		return vraise(L, r->verb, err, 1, -1);
	}
	if (!c.made)
		return c.nres;
	extern const struct vclass vc_devobj;
	int deps[] = { 1 };
	struct vnode *n = vobj_new(L, &vc_devobj, 1, deps);
	vdevobj(n)->k = c.kind;
	vobj_set(n, c.made);
	return 1;
}

static void *devobj_arg(lua_State *L, int i, const struct dkind *k)
{
	extern const struct vclass vc_devobj;
	if (lua_isnoneornil(L, i))
		return NULL;
	struct vnode *n = vobj_check(L, i, &vc_devobj);
	if (vdevobj(n)->k != k)
		vargerror(L, i, lua_pushfstring(L, "a device object of kind %s expected, got one of kind %s", k->name,
						vdevobj(n)->k->name));
	return n->h;
}

static int devobj_destroy(struct vnode *n) { return vdevobj(n)->k->destroy(n->h); }
static void devobj_describe(lua_State *L, struct vnode *n) { lua_pushstring(L, vdevobj(n)->k->name); }
static const char *devobj_destroy_verb(struct vnode *n) { return vdevobj(n)->k->destroy_verb; }
static int devobj_field(lua_State *L, struct vnode *n, const char *key)
{
	if (strcmp(key, "kind") != 0)
		return 0;
	lua_pushstring(L, vdevobj(n)->k->name);
	return 1;
}

static const luaL_Reg no_methods[] = { { NULL, NULL } };
const struct vclass vc_devobj = {
	.size = sizeof(struct vdevobj),
	.index = VC_DEVOBJ,
	.kind = "devobj", .var = "devobj", .tname = "verbs.devobj", .destroy_verb = "(the kind's destroy verb)",
	.destroy_method = "destroy", .destroy = devobj_destroy, .describe = devobj_describe,
	.destroy_verb_of = devobj_destroy_verb, .field = devobj_field,
	.fields = (const char *const[]){ "kind", NULL }, .methods = no_methods,
};

void devonly_open(lua_State *L)
{
	vobj_register(L, &vc_devobj);
	for (size_t i = 0; i < NROWS; i++) {
		luaL_getmetatable(L, rows[i].owner);
		lua_getfield(L, -1, "__methods");
		lua_pushlightuserdata(L, (void *)&rows[i]);
		lua_pushcclosure(L, run_row, 1);
		lua_setfield(L, -2, rows[i].method);
		lua_pop(L, 2);
	}
	lua_pushcfunction(L, import_device);
	lua_setfield(L, -2, "import_device");
}
