/* Queue pairs: create, modify (the mask computed from the keys given),
 * query, and posting work requests. A list of WRs is posted as ONE chained
 * C call, and a failure names the WR that the provider rejected.
 *
 * Posting is the benchmark's hot path: WRs and SGEs go into stack arrays
 * (a temporary userdata only for long lists), nothing else is allocated. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include "verbsh.h"

/* ---- descriptors ------------------------------------------------------------ */

#define CAP(m) VF(struct ibv_qp_cap, m, VT_UINT)
static const struct vfield vf_qp_cap[] = {
	CAP(max_send_wr), CAP(max_recv_wr), CAP(max_send_sge), CAP(max_recv_sge), CAP(max_inline_data),
	VF_END
};

#define IA(m, t, ...) VF(struct ibv_qp_init_attr, m, t, __VA_ARGS__)
static const struct vfield vf_qp_init_attr[] = {
	IA(send_cq, VT_OBJ, .cls = &vc_cq), IA(recv_cq, VT_OBJ, .cls = &vc_cq), IA(srq, VT_OBJ, .cls = &vc_srq),
	IA(cap, VT_STRUCT, .sub = vf_qp_cap), IA(qp_type, VT_ENUM, .en = &ve_qp_type),
	IA(sq_sig_all, VT_INT, .max = 1),
	VF_END
};

#define QA(m, t, b, ...) VF(struct ibv_qp_attr, m, t, .bit = (b), __VA_ARGS__)
static const struct vfield vf_qp_attr[] = {
	QA(qp_state, VT_ENUM, IBV_QP_STATE, .en = &ve_qp_state),
	QA(cur_qp_state, VT_ENUM, IBV_QP_CUR_STATE, .en = &ve_qp_state),
	QA(path_mtu, VT_ENUM, IBV_QP_PATH_MTU, .en = &ve_mtu),
	QA(path_mig_state, VT_ENUM, IBV_QP_PATH_MIG_STATE, .en = &ve_mig_state),
	QA(qkey, VT_UINT, IBV_QP_QKEY),
	QA(rq_psn, VT_UINT, IBV_QP_RQ_PSN, .max = 0xffffff),
	QA(sq_psn, VT_UINT, IBV_QP_SQ_PSN, .max = 0xffffff),
	QA(dest_qp_num, VT_UINT, IBV_QP_DEST_QPN, .max = 0xffffff),
	QA(qp_access_flags, VT_FLAGS, IBV_QP_ACCESS_FLAGS, .en = &ve_access),
	QA(cap, VT_STRUCT, IBV_QP_CAP, .sub = vf_qp_cap),
	QA(ah_attr, VT_STRUCT, IBV_QP_AV, .sub = vf_ah_attr),
	QA(alt_ah_attr, VT_STRUCT, IBV_QP_ALT_PATH, .sub = vf_ah_attr),
	QA(pkey_index, VT_UINT, IBV_QP_PKEY_INDEX),
	QA(alt_pkey_index, VT_UINT, IBV_QP_ALT_PATH),
	QA(en_sqd_async_notify, VT_UINT, IBV_QP_EN_SQD_ASYNC_NOTIFY, .max = 1),
	QA(sq_draining, VT_UINT, 0),
	QA(max_rd_atomic, VT_UINT, IBV_QP_MAX_QP_RD_ATOMIC),
	QA(max_dest_rd_atomic, VT_UINT, IBV_QP_MAX_DEST_RD_ATOMIC),
	QA(min_rnr_timer, VT_UINT, IBV_QP_MIN_RNR_TIMER),
	QA(port_num, VT_UINT, IBV_QP_PORT),
	QA(timeout, VT_UINT, IBV_QP_TIMEOUT),
	QA(retry_cnt, VT_UINT, IBV_QP_RETRY_CNT),
	QA(rnr_retry, VT_UINT, IBV_QP_RNR_RETRY),
	QA(alt_port_num, VT_UINT, IBV_QP_ALT_PATH),
	QA(alt_timeout, VT_UINT, IBV_QP_ALT_PATH),
	QA(rate_limit, VT_UINT, IBV_QP_RATE_LIMIT),
	VF_END
};

/* An SGE as the user writes it: {mr=, offset=, length=} or {addr=, length=, lkey=}. */
struct sge_in {
	struct ibv_mr *mr;
	uint64_t offset, addr;
	uint32_t length, lkey;
};
enum { S_MR = 1, S_OFFSET = 2, S_LENGTH = 4, S_ADDR = 8, S_LKEY = 16 };
#define SG(m, t, b, ...) VF(struct sge_in, m, t, .bit = (b), __VA_ARGS__)
static const struct vfield vf_sge[] = {
	SG(mr, VT_OBJ, S_MR, .cls = &vc_mr), SG(offset, VT_UINT, S_OFFSET), SG(length, VT_UINT, S_LENGTH),
	SG(addr, VT_UINT, S_ADDR), SG(lkey, VT_UINT, S_LKEY),
	VF_END
};

/* Where the SGEs of the post being read go. */
struct sge_pool {
	struct ibv_sge *sge;
	int used, cap;
	int arg;
	const char *path;
};
static struct sge_pool *pool;

static const char *read_sges(lua_State *L, int idx, struct ibv_sge **list, int *num)
{
	struct sge_pool *p = pool;
	char path[96];
	if (!lua_istable(L, idx))
		return lua_pushfstring(L, "list of SGEs expected, got %s", luaL_typename(L, idx));
	int n = (int)lua_rawlen(L, idx);
	if (p->used + n > p->cap)
		return lua_pushfstring(L, "%d SGEs in one post, more than verbsh's %d", p->used + n, p->cap);
	*list = n ? &p->sge[p->used] : NULL;
	*num = n;
	for (int i = 1; i <= n; i++) {
		struct sge_in s = { 0 };
		struct ibv_sge *out = &p->sge[p->used++];
		lua_rawgeti(L, idx, i);
		snprintf(path, sizeof path, "%ssg_list[%d]", p->path, i);
		if (!lua_istable(L, -1))
			return lua_pushfstring(L, "%s: SGE table expected, got %s", path, luaL_typename(L, -1));
		uint64_t m = vm_read_path(L, p->arg, lua_gettop(L), vf_sge, &s, path);
		lua_pop(L, 1);
		if (m & S_MR) {
			if (m & (S_ADDR | S_LKEY))
				return lua_pushfstring(L, "%s: give mr (with offset) or addr and lkey, not both", path);
			if (s.offset > s.mr->length)
				return lua_pushfstring(L, "%s: offset %I is beyond the MR's %I bytes", path,
						       (lua_Integer)s.offset, (lua_Integer)s.mr->length);
			if (!(m & S_LENGTH))
				s.length = (uint32_t)(s.mr->length - s.offset);
			else if (s.length > s.mr->length - s.offset)
				return lua_pushfstring(L, "%s: offset %I + length %I is beyond the MR's %I bytes", path,
						       (lua_Integer)s.offset, (lua_Integer)s.length,
						       (lua_Integer)s.mr->length);
			out->addr = (uintptr_t)s.mr->addr + s.offset;
			out->length = s.length;
			out->lkey = s.mr->lkey;
		} else {
			if ((m & (S_ADDR | S_LENGTH | S_LKEY)) != (S_ADDR | S_LENGTH | S_LKEY))
				return lua_pushfstring(L, "%s: needs mr= (and offset=, length=), or addr=, length= and lkey=",
						       path);
			if (m & S_OFFSET)
				return lua_pushfstring(L, "%s: offset= goes with mr=", path);
			out->addr = s.addr;
			out->length = s.length;
			out->lkey = s.lkey;
		}
	}
	/* The list must be a list: other keys are typos. */
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		lua_pop(L, 1);
		if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 || lua_tointeger(L, -1) > n)
			return lua_pushfstring(L, "sg_list: unexpected key '%s' (a list of SGEs)", luaL_tolstring(L, -1, NULL));
	}
	return NULL;
}

static const char *send_sges(lua_State *L, int idx, void *dst, const struct vfield *f)
{
	struct ibv_send_wr *wr = dst;
	return read_sges(L, idx, &wr->sg_list, &wr->num_sge);
}

static const char *recv_sges(lua_State *L, int idx, void *dst, const struct vfield *f)
{
	struct ibv_recv_wr *wr = dst;
	return read_sges(L, idx, &wr->sg_list, &wr->num_sge);
}

/* imm_data is big-endian on the wire; Lua gives and gets host order. */
static const char *read_imm(lua_State *L, int idx, void *dst, const struct vfield *f)
{
	int isint;
	lua_Integer v = lua_tointegerx(L, idx, &isint);
	if (lua_type(L, idx) != LUA_TNUMBER || !isint || v < 0 || v > 0xffffffff)
		return lua_pushfstring(L, "32-bit unsigned integer expected, got %s", luaL_tolstring(L, idx, NULL));
	((struct ibv_send_wr *)dst)->imm_data = htonl((uint32_t)v);
	return NULL;
}

typedef __typeof__(((struct ibv_send_wr *)0)->wr.rdma) wr_rdma_t;
typedef __typeof__(((struct ibv_send_wr *)0)->wr.atomic) wr_atomic_t;
typedef __typeof__(((struct ibv_send_wr *)0)->wr.ud) wr_ud_t;
static const struct vfield vf_wr_rdma[] = {
	VF(wr_rdma_t, remote_addr, VT_UINT), VF(wr_rdma_t, rkey, VT_UINT), VF_END
};
static const struct vfield vf_wr_atomic[] = {
	VF(wr_atomic_t, remote_addr, VT_UINT), VF(wr_atomic_t, compare_add, VT_UINT),
	VF(wr_atomic_t, swap, VT_UINT), VF(wr_atomic_t, rkey, VT_UINT), VF_END
};
static const struct vfield vf_wr_ud[] = {
	VF(wr_ud_t, ah, VT_OBJ, .cls = &vc_ah), VF(wr_ud_t, remote_qpn, VT_UINT, .max = 0xffffff),
	VF(wr_ud_t, remote_qkey, VT_UINT), VF_END
};

enum { W_RDMA = 1, W_ATOMIC = 2, W_UD = 4, W_OPCODE = 8 };
#define SW(m, t, ...) VF(struct ibv_send_wr, m, t, __VA_ARGS__)
static const struct vfield vf_send_wr[] = {
	SW(wr_id, VT_UINT), SW(sg_list, VT_CUSTOM, .custom = send_sges),
	SW(opcode, VT_ENUM, .en = &ve_wr_opcode, .bit = W_OPCODE), SW(send_flags, VT_FLAGS, .en = &ve_send_flags),
	SW(imm_data, VT_CUSTOM, .custom = read_imm),
	VFN("rdma", struct ibv_send_wr, wr.rdma, VT_STRUCT, .sub = vf_wr_rdma, .bit = W_RDMA),
	VFN("atomic", struct ibv_send_wr, wr.atomic, VT_STRUCT, .sub = vf_wr_atomic, .bit = W_ATOMIC),
	VFN("ud", struct ibv_send_wr, wr.ud, VT_STRUCT, .sub = vf_wr_ud, .bit = W_UD),
	VF_END
};
static const struct vfield vf_recv_wr[] = {
	VF(struct ibv_recv_wr, wr_id, VT_UINT), VF(struct ibv_recv_wr, sg_list, VT_CUSTOM, .custom = recv_sges),
	VF_END
};

/* ---- the class ---------------------------------------------------------------- */

static int qp_destroy(struct vnode *n) { return ibv_destroy_qp(n->h); }

/* The state from the provider: libibverbs' cached qp->state changes only in
 * modify and query, so a QP that an error moved to ERR would still say RTS. */
static enum ibv_qp_state qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return IBV_QPS_UNKNOWN;
	return a.qp_state;
}

static void qp_describe(lua_State *L, struct vnode *n)
{
	struct ibv_qp *qp = n->h;
	const char *t = venum_name(&ve_qp_type, qp->qp_type);
	const char *s = venum_name(&ve_qp_state, qp_state(qp));
	char buf[64];
	snprintf(buf, sizeof buf, "%s 0x%06x %s", t ? t : "?", qp->qp_num, s ? s : "?");
	lua_pushstring(L, buf);
}

static int qp_field(lua_State *L, struct vnode *n, const char *key)
{
	struct ibv_qp *qp = n->h;
	static const char *const uv[] = { "pd", "send_cq", "recv_cq", "srq", NULL };
	if (strcmp(key, "qp_num") == 0)
		lua_pushinteger(L, qp->qp_num);
	else if (strcmp(key, "state") == 0)
		venum_push(L, &ve_qp_state, qp_state(qp));
	else if (strcmp(key, "qp_type") == 0)
		venum_push(L, &ve_qp_type, qp->qp_type);
	else if (strcmp(key, "handle") == 0)
		lua_pushinteger(L, qp->handle);
	else {
		for (int i = 0; uv[i]; i++)
			if (strcmp(key, uv[i]) == 0) {
				lua_getiuservalue(L, 1, i + 1);
				return 1;
			}
		return 0;
	}
	return 1;
}

static void record_simple(lua_State *L, const char *decl, const char *call, int ret)
{
	char r[80];
	if (ret)
		snprintf(r, sizeof r, "%d /* %s */", ret, verrname(ret) ? verrname(ret) : strerror(ret));
	else
		snprintf(r, sizeof r, "0");
	vrecord(L, decl, call, r);
}

/* pd:create_qp{ qp_type=, send_cq=, recv_cq=, srq=, cap={...}, sq_sig_all= } */
int qp_create(lua_State *L)
{
	struct vnode *p = vobj_check(L, 1, &vc_pd);
	struct ibv_qp_init_attr ia = { 0 };

	vchecktable(L, 2);
	lua_settop(L, 2);
	vm_read(L, 2, 2, vf_qp_init_attr, &ia);
	/* libibverbs dereferences both CQs: leaving one out would crash, not fail. */
	if (!ia.send_cq)
		return vargerror(L, 2, "key 'send_cq' is required");
	if (!ia.recv_cq)
		return vargerror(L, 2, "key 'recv_cq' is required");
	if (!ia.qp_type)
		return vargerror(L, 2, "key 'qp_type' is required (\"RC\", \"UC\" or \"UD\")");
	lua_getfield(L, 2, "send_cq");
	lua_getfield(L, 2, "recv_cq");
	lua_getfield(L, 2, "srq");
	int deps[] = { 1, 3, 4, 5 };
	struct vnode *n = vobj_new(L, &vc_qp, 4, deps);
	struct ibv_qp_init_attr asked = ia;   /* the provider writes the real cap back into ia */
	struct ibv_qp *qp = ibv_create_qp(p->h, &ia);
	int err = errno;
	if (vrecording) {
		char call[64], x[32], y[32];
		luaL_Buffer b;
		luaL_buffinit(L, &b);
		luaL_addstring(&b, "struct ibv_qp_init_attr init_attr = ");
		vm_c_init(&b, vf_qp_init_attr, &asked);
		luaL_addchar(&b, ';');
		luaL_pushresult(&b);
		snprintf(call, sizeof call, "ibv_create_qp(%s, &init_attr)", vobj_cname(p, x, sizeof x));
		vrecord(L, lua_tostring(L, -1), call, qp ? vobj_cname(n, y, sizeof y) : "NULL");
		lua_pop(L, 1);
	}
	if (!qp) {
		lua_createtable(L, 0, 1);
		vraise_push_memlock(L);
		lua_setfield(L, -2, "memlock");
		return vraise(L, "ibv_create_qp", err, 1, -1);
	}
	vobj_set(n, qp);
	return 1;
}

/* qp:modify(attr [, mask]): the mask is the IBV_QP_* bits of the keys in
 * attr, unless given (names, a list of names or an integer), which lets a
 * learner reproduce a wrong-mask bug. */
static int l_modify(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_qp);
	struct ibv_qp *qp = n->h;
	struct ibv_qp_attr a = { 0 };
	uint64_t mask;
	int64_t given;
	const char *e;

	vchecktable(L, 2);
	lua_settop(L, 3);
	mask = vm_read(L, 2, 2, vf_qp_attr, &a);
	if (!lua_isnil(L, 3)) {
		if ((e = venum_read(L, 3, &ve_qp_attr_mask, &given)))
			return vargerror(L, 3, e);
		mask = (uint64_t)given;
	}
	enum ibv_qp_state cur = qp_state(qp);
	int ret = ibv_modify_qp(qp, &a, (int)mask);
	if (vrecording) {
		char call[64], name[32];
		luaL_Buffer b;
		luaL_buffinit(L, &b);
		luaL_addstring(&b, "struct ibv_qp_attr attr = ");
		vm_c_init(&b, vf_qp_attr, &a);
		luaL_addchar(&b, ';');
		luaL_pushresult(&b);
		luaL_buffinit(L, &b);
		snprintf(call, sizeof call, "ibv_modify_qp(%s, &attr, ", vobj_cname(n, name, sizeof name));
		luaL_addstring(&b, call);
		venum_c(&b, &ve_qp_attr_mask, (int64_t)mask);
		luaL_addchar(&b, ')');
		luaL_pushresult(&b);
		record_simple(L, lua_tostring(L, -2), lua_tostring(L, -1), ret);
		lua_pop(L, 2);
	}
	if (ret == 0) {
		if (mask & IBV_QP_PORT)
			n->aux = a.port_num;
		return 0;
	}
	lua_createtable(L, 0, 7);
	venum_push(L, &ve_qp_type, qp->qp_type);
	lua_setfield(L, -2, "qp_type");
	venum_push(L, &ve_qp_state, cur);
	lua_setfield(L, -2, "cur_state");
	if (mask & IBV_QP_STATE) {
		venum_push(L, &ve_qp_state, a.qp_state);
		lua_setfield(L, -2, "qp_state");
	}
	vflags_push(L, &ve_qp_attr_mask, mask);
	lua_setfield(L, -2, "mask");
	lua_pushvalue(L, 2);
	lua_setfield(L, -2, "attr");
	if (n->aux || (mask & IBV_QP_PORT)) {
		lua_pushinteger(L, mask & IBV_QP_PORT ? a.port_num : n->aux);
		lua_setfield(L, -2, "port_num");
	}
	lua_pushstring(L, ibv_get_device_name(qp->context->device));
	lua_setfield(L, -2, "device");
	return vraise(L, "ibv_modify_qp", ret, 1, -1);
}

/* qp:query() -> attr, init_attr (C field names) */
static int l_query(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_qp);
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	int all = IBV_QP_STATE | IBV_QP_CUR_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY | IBV_QP_ACCESS_FLAGS |
		  IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_TIMEOUT |
		  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_RQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_ALT_PATH |
		  IBV_QP_MIN_RNR_TIMER | IBV_QP_SQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_PATH_MIG_STATE |
		  IBV_QP_CAP | IBV_QP_DEST_QPN;
	memset(&a, 0, sizeof a);
	memset(&ia, 0, sizeof ia);
	int ret = ibv_query_qp(n->h, &a, all, &ia);
	if (vrecording) {
		char call[96], name[32];
		snprintf(call, sizeof call, "ibv_query_qp(%s, &attr, 0x%x, &init_attr)", vobj_cname(n, name, sizeof name),
			 all);
		record_simple(L, NULL, call, ret);
	}
	if (ret)
		return vraise(L, "ibv_query_qp", ret, 1, 0);
	vm_push(L, vf_qp_attr, &a);
	lua_pushinteger(L, ((struct ibv_qp *)n->h)->qp_num);
	lua_setfield(L, -2, "qp_num");
	vm_push(L, vf_qp_init_attr, &ia);
	const char *keys[] = { "send_cq", "recv_cq", "srq" };
	for (int i = 0; i < 3; i++) {
		lua_getiuservalue(L, 1, i + 2);
		lua_setfield(L, -2, keys[i]);
	}
	return 2;
}

/* ---- posting ------------------------------------------------------------------ */

#define WR_STACK 16
#define SGE_STACK 64

/* The WR at stack index idx is a list of WRs when it has [1]. */
static int wr_count(lua_State *L, int idx)
{
	if (lua_rawgeti(L, idx, 1) == LUA_TNIL) {
		lua_pop(L, 1);
		return 0;
	}
	lua_pop(L, 1);
	return (int)lua_rawlen(L, idx);
}

/* Post-failure context: { bad_wr=, qp_type=, qp_state=, cap=, wr= }. */
static int post_error(lua_State *L, const char *verb, int err, int self, int list, int is_list, int bad, void *qph)
{
	lua_createtable(L, 0, 5);
	lua_pushinteger(L, bad);
	lua_setfield(L, -2, "bad_wr");
	if (is_list)
		lua_rawgeti(L, list, bad);
	else
		lua_pushvalue(L, list);
	lua_setfield(L, -2, "wr");
	if (qph) {
		struct ibv_qp *qp = qph;
		struct ibv_qp_attr a;
		struct ibv_qp_init_attr ia;
		venum_push(L, &ve_qp_type, qp->qp_type);
		lua_setfield(L, -2, "qp_type");
		if (ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_CAP, &ia) == 0) {
			venum_push(L, &ve_qp_state, a.qp_state);
			lua_setfield(L, -2, "qp_state");
			vm_push(L, vf_qp_cap, &ia.cap);
			lua_setfield(L, -2, "cap");
		}
	}
	return vraise(L, verb, err, self, -1);
}

static void record_post(lua_State *L, struct vnode *n, const char *verb, const struct vfield *f, void *wrs,
			size_t wsize, int count, int ret, int bad)
{
	char call[96], name[32];
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	for (int i = 0; i < count; i++) {
		char *wr = (char *)wrs + (size_t)i * wsize;
		struct ibv_sge *sg = f == vf_send_wr ? ((struct ibv_send_wr *)wr)->sg_list : ((struct ibv_recv_wr *)wr)->sg_list;
		int ns = f == vf_send_wr ? ((struct ibv_send_wr *)wr)->num_sge : ((struct ibv_recv_wr *)wr)->num_sge;
		char line[160];
		for (int s = 0; s < ns; s++) {
			snprintf(line, sizeof line, "struct ibv_sge sge%d_%d = { .addr = 0x%llx, .length = %u, .lkey = 0x%x };\n",
				 i + 1, s + 1, (unsigned long long)sg[s].addr, sg[s].length, sg[s].lkey);
			luaL_addstring(&b, line);
		}
		snprintf(line, sizeof line, "struct %s wr%d = ", f == vf_send_wr ? "ibv_send_wr" : "ibv_recv_wr", i + 1);
		luaL_addstring(&b, line);
		vm_c_init(&b, f, wr);
		snprintf(line, sizeof line, ";  /* .sg_list = &sge%d_1, .num_sge = %d%s */%s", i + 1, ns,
			 i + 1 < count ? ", .next = &wr(next)" : "", i + 1 < count ? "\n" : "");
		luaL_addstring(&b, line);
	}
	luaL_pushresult(&b);
	snprintf(call, sizeof call, "%s(%s, &wr1, &bad_wr)", verb, vobj_cname(n, name, sizeof name));
	char r[64];
	if (ret)
		snprintf(r, sizeof r, "%d /* %s, bad_wr = &wr%d */", ret, verrname(ret) ? verrname(ret) : "?", bad);
	else
		snprintf(r, sizeof r, "0");
	vrecord(L, lua_tostring(L, -1), call, r);
	lua_pop(L, 1);
}

/* qp:post_send(wr or list of WRs) */
static int l_post_send(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_qp);
	struct ibv_send_wr wr_stack[WR_STACK], *wrs = wr_stack, *bad = NULL;
	struct ibv_sge sge_stack[SGE_STACK];
	struct sge_pool p = { .sge = sge_stack, .cap = SGE_STACK, .arg = 2, .path = "" };
	char path[32];

	vchecktable(L, 2);
	lua_settop(L, 2);
	int count = wr_count(L, 2), is_list = count > 0;
	if (!is_list)
		count = 1;
	if (count > WR_STACK || count * 4 > SGE_STACK) {   /* long lists: a temporary userdata */
		size_t nsge = (size_t)count * 16;
		char *mem = lua_newuserdatauv(L, (size_t)count * sizeof *wrs + nsge * sizeof(struct ibv_sge), 0);
		wrs = (struct ibv_send_wr *)mem;
		p.sge = (struct ibv_sge *)(mem + (size_t)count * sizeof *wrs);
		p.cap = (int)nsge;
	}
	pool = &p;
	for (int i = 0; i < count; i++) {
		struct ibv_send_wr *w = &wrs[i];
		int t = 2;
		memset(w, 0, sizeof *w);
		if (is_list) {
			if (lua_rawgeti(L, 2, i + 1) != LUA_TTABLE)
				return vargerror(L, 2, lua_pushfstring(L, "WR #%d: table expected, got %s", i + 1,
									   luaL_typename(L, -1)));
			t = lua_gettop(L);
			snprintf(path, sizeof path, "[%d]", i + 1);
		}
		p.path = is_list ? path : "";
		uint64_t m = vm_read_path(L, 2, t, vf_send_wr, w, is_list ? path : "");
		if (is_list) {
			strcat(path, ".");
			lua_pop(L, 1);
		}
		if (!(m & W_OPCODE))
			return vargerror(L, 2, lua_pushfstring(L, "%skey 'opcode' is required (in C, 0 is IBV_WR_RDMA_WRITE)",
								   is_list ? path : ""));
		if (__builtin_popcountll(m & (W_RDMA | W_ATOMIC | W_UD)) > 1)
			return vargerror(L, 2, lua_pushfstring(L, "%srdma, atomic and ud share a union in ibv_send_wr: give one",
								   is_list ? path : ""));
		/* Checks for what the provider itself would crash on rather than fail. */
		if (((struct ibv_qp *)n->h)->qp_type == IBV_QPT_UD && !w->wr.ud.ah)
			return vargerror(L, 2, lua_pushfstring(L, "%skey 'ud.ah' is required on a UD QP (ud = { ah =, "
				"remote_qpn =, remote_qkey = }); the provider would dereference a NULL AH", is_list ? path : ""));
		if (w->send_flags & IBV_SEND_INLINE)
			for (int s = 0; s < w->num_sge; s++)
				if (!vobj_mr_covers(w->sg_list[s].addr, w->sg_list[s].length))
					return vargerror(L, 2, lua_pushfstring(L, "%ssg_list[%d]: an INLINE send copies "
						"from addr in this process, and 0x%p..+%d is not inside an MR of verbsh",
						is_list ? path : "", s + 1, (void *)(uintptr_t)w->sg_list[s].addr,
						(int)w->sg_list[s].length));
		w->next = i + 1 < count ? &wrs[i + 1] : NULL;
	}
	int ret = ibv_post_send(n->h, wrs, &bad);
	int badi = 1;
	if (ret)
		for (int i = 0; i < count; i++)
			if (bad == &wrs[i])
				badi = i + 1;
	if (vrecording)
		record_post(L, n, "ibv_post_send", vf_send_wr, wrs, sizeof *wrs, count, ret, badi);
	if (ret)
		return post_error(L, "ibv_post_send", ret, 1, 2, is_list, badi, n->h);
	return 0;
}

int post_recv_list(lua_State *L, int self, int idx, const char *verb, void *h)
{
	struct vnode *n = *(struct vnode **)lua_touserdata(L, self);
	struct ibv_recv_wr wr_stack[WR_STACK], *wrs = wr_stack, *bad = NULL;
	struct ibv_sge sge_stack[SGE_STACK];
	struct sge_pool p = { .sge = sge_stack, .cap = SGE_STACK, .arg = idx, .path = "" };
	bool srq = strcmp(verb, "ibv_post_srq_recv") == 0;
	char path[32];

	vchecktable(L, idx);
	int count = wr_count(L, idx), is_list = count > 0;
	if (!is_list)
		count = 1;
	if (count > WR_STACK || count * 4 > SGE_STACK) {
		size_t nsge = (size_t)count * 16;
		char *mem = lua_newuserdatauv(L, (size_t)count * sizeof *wrs + nsge * sizeof(struct ibv_sge), 0);
		wrs = (struct ibv_recv_wr *)mem;
		p.sge = (struct ibv_sge *)(mem + (size_t)count * sizeof *wrs);
		p.cap = (int)nsge;
	}
	pool = &p;
	for (int i = 0; i < count; i++) {
		struct ibv_recv_wr *w = &wrs[i];
		int t = idx;
		memset(w, 0, sizeof *w);
		if (is_list) {
			if (lua_rawgeti(L, idx, i + 1) != LUA_TTABLE)
				return vargerror(L, idx, lua_pushfstring(L, "WR #%d: table expected, got %s", i + 1,
									     luaL_typename(L, -1)));
			t = lua_gettop(L);
			snprintf(path, sizeof path, "[%d]", i + 1);
			p.path = path;
		}
		vm_read_path(L, idx, t, vf_recv_wr, w, is_list ? path : "");
		if (is_list)
			lua_pop(L, 1);
		w->next = i + 1 < count ? &wrs[i + 1] : NULL;
	}
	int ret = srq ? ibv_post_srq_recv(h, wrs, &bad) : ibv_post_recv(h, wrs, &bad);
	int badi = 1;
	if (ret)
		for (int i = 0; i < count; i++)
			if (bad == &wrs[i])
				badi = i + 1;
	if (vrecording)
		record_post(L, n, verb, vf_recv_wr, wrs, sizeof *wrs, count, ret, badi);
	if (ret)
		return post_error(L, verb, ret, self, idx, is_list, badi, srq ? NULL : h);
	return 0;
}

/* qp:post_recv(wr or list of WRs) */
static int l_post_recv(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_qp);
	lua_settop(L, 2);
	return post_recv_list(L, 1, 2, "ibv_post_recv", n->h);
}

static const luaL_Reg qp_methods[] = {
	{ "modify", l_modify }, { "query", l_query }, { "post_send", l_post_send }, { "post_recv", l_post_recv },
	{ NULL, NULL }
};

struct vclass vc_qp = {
	.kind = "qp", .var = "qp", .tname = "verbs.qp", .destroy_verb = "ibv_destroy_qp",
	.destroy_method = "destroy", .destroy = qp_destroy, .describe = qp_describe, .field = qp_field,
	.methods = qp_methods,
};

void qp_open(lua_State *L)
{
	vobj_register(L, &vc_qp);
	vobj_register(L, &vc_ah);
}
