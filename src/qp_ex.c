/* The extended QP and the new post-send API.
 *
 *   ctx:create_qp_ex{ pd =, qp_type =, send_cq =, recv_cq =, cap =,
 *                     send_ops_flags = { "SEND", "RDMA_WRITE", ... } }
 *   qp:wr_start()  qp.wr_id = 1  qp.wr_flags = "SIGNALED"  qp:wr_send()
 *   qp:wr_set_sge(mr, 0, 64)  qp:wr_complete()
 *
 * The same sequence as C's ibv_wr_start / ibv_wr_* / ibv_wr_complete on the
 * struct ibv_qp_ex of the QP. The QP object stands for both ibv_qp and its
 * ibv_qp_ex, so modify, post_recv and the old post_send work on it too.
 *
 * What C leaves to the programmer verbsh checks, because a provider crashes
 * or hangs on it instead of failing:
 *   - an op that send_ops_flags did not enable is a NULL function pointer;
 *   - ibv_wr_start takes the send queue's lock until ibv_wr_complete or
 *     ibv_wr_abort, so a second wr_start, or ibv_post_send in between,
 *     deadlocks, and a complete or abort without start unlocks a lock
 *     nobody holds;
 *   - a setter (wr_set_sge, ...) writes into the WR the last op began, so
 *     without an op it scribbles over the queue;
 *   - a UD WR without wr_set_ud_addr goes to a zeroed address, and an atomic
 *     without an 8-byte SGE has nowhere to return the old value. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include "verbsh.h"

enum { NEED_UD_ADDR = 1, NEED_SGE8 = 2 };

#define IX(m, t, ...) VF(struct ibv_qp_init_attr_ex, m, t, __VA_ARGS__)
const struct vfield vf_qp_init_attr_ex[] = {
	IX(pd, VT_OBJ, .cls = &vc_pd, .bit = IBV_QP_INIT_ATTR_PD),
	IX(send_cq, VT_OBJ, .cls = &vc_cq), IX(recv_cq, VT_OBJ, .cls = &vc_cq), IX(srq, VT_OBJ, .cls = &vc_srq),
	IX(cap, VT_STRUCT, .sub = vf_qp_cap), IX(qp_type, VT_ENUM, .en = &ve_qp_type),
	IX(sq_sig_all, VT_INT, .max = 1),
	IX(create_flags, VT_FLAGS, .en = &ve_qp_create_flags, .bit = IBV_QP_INIT_ATTR_CREATE_FLAGS),
	IX(send_ops_flags, VT_FLAGS, .en = &ve_send_ops_flags, .bit = IBV_QP_INIT_ATTR_SEND_OPS_FLAGS),
	IX(comp_mask, VT_FLAGS, .en = &ve_qp_init_attr_mask),
	VF_END
};

/* "qpx3": the C name of the QP's struct ibv_qp_ex in traces. */
static const char *xname(struct vnode *n, char *buf, size_t len)
{
	snprintf(buf, len, "qpx%u", n->id);
	return buf;
}

/* Whether the QP has the new post-send API. A provider may make every QP
 * extended (rxe does) yet fill ibv_qp_ex's function pointers only when
 * comp_mask asked for IBV_QP_INIT_ATTR_SEND_OPS_FLAGS: so both what was asked
 * and the pointers themselves decide, never ibv_qp_to_qp_ex() alone. */
static bool has_post_send_api(struct ibv_qp *qp, const struct ibv_qp_init_attr_ex *asked)
{
	struct ibv_qp_ex *x = ibv_qp_to_qp_ex(qp);
	return (asked->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) && x && x->wr_start && x->wr_complete &&
	       x->wr_abort && x->wr_set_sge && x->wr_set_sge_list && x->wr_set_inline_data &&
	       x->wr_set_inline_data_list && x->wr_set_ud_addr;
}

/* The ops asked for whose function the provider did fill in: op_begin
 * refuses the others by name instead of calling through NULL. */
static uint64_t usable_ops(struct ibv_qp_ex *x, uint64_t asked)
{
	const struct { uint64_t flag; bool set; } ops[] = {
		{ IBV_QP_EX_WITH_SEND, x->wr_send }, { IBV_QP_EX_WITH_SEND_WITH_IMM, x->wr_send_imm },
		{ IBV_QP_EX_WITH_RDMA_WRITE, x->wr_rdma_write },
		{ IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM, x->wr_rdma_write_imm },
		{ IBV_QP_EX_WITH_RDMA_READ, x->wr_rdma_read },
		{ IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP, x->wr_atomic_cmp_swp },
		{ IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD, x->wr_atomic_fetch_add },
		{ IBV_QP_EX_WITH_LOCAL_INV, x->wr_local_inv }, { IBV_QP_EX_WITH_BIND_MW, x->wr_bind_mw },
		{ IBV_QP_EX_WITH_SEND_WITH_INV, x->wr_send_inv }, { IBV_QP_EX_WITH_TSO, x->wr_send_tso },
	};
	uint64_t ok = asked;
	for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
		if (!ops[i].set)
			ok &= ~ops[i].flag;
	return ok;
}

/* ctx:create_qp_ex{ pd=, qp_type=, send_cq=, recv_cq=, srq=, cap=, sq_sig_all=,
 * create_flags=, send_ops_flags=, comp_mask= }: comp_mask is computed from
 * the keys given (PD, SEND_OPS_FLAGS, CREATE_FLAGS) unless given. */
int qp_create_ex(lua_State *L)
{
	struct vnode *c = vobj_check(L, 1, &vc_context);
	struct ibv_qp_init_attr_ex ia = { 0 };

	vchecktable(L, 2);
	lua_settop(L, 2);
	uint64_t mask = marsh_read(L, 2, 2, vf_qp_init_attr_ex, &ia);
	lua_pushliteral(L, "comp_mask");
	if (lua_rawget(L, 2) == LUA_TNIL)   /* raw, as marsh_read read it */
		ia.comp_mask = (uint32_t)mask;
	else
		marsh_warn_unmasked(L, 2, vf_qp_init_attr_ex, mask, ia.comp_mask, &ve_qp_init_attr_mask);
	lua_pop(L, 1);
	/* The provider reads attr->pd->handle and both CQs: missing, they crash. */
	if (!ia.pd)
		return vargerror(L, 2, "key 'pd' is required (ibv_create_qp_ex takes the PD in the attributes, "
				       "with IBV_QP_INIT_ATTR_PD in comp_mask)");
	if (!(ia.comp_mask & IBV_QP_INIT_ATTR_PD))
		return vargerror(L, 2, "comp_mask lacks PD: without IBV_QP_INIT_ATTR_PD the pd is not read");
	qp_check_required(L, 2, ia.send_cq, ia.recv_cq, ia.qp_type, QP_TYPES);
	struct vnode *used[QP_NDEPS] = { [QP_DEP_PD] = vobj_field(L, 2, 2, "pd", &vc_pd, &ia.pd) };   /* 3 */
	vobj_same_context(L, 2, "pd", used[QP_DEP_PD], c);
	qp_read_deps(L, 2, 2, &ia.send_cq, &ia.recv_cq, &ia.srq, c, used);   /* 4, 5, 6 */
	used[QP_DEP_CM_ID] = c;   /* no id here: the slot rechecks the context */
	int deps[QP_DEP_CM_ID] = { [QP_DEP_PD] = 3, [QP_DEP_SEND_CQ] = 4, [QP_DEP_RECV_CQ] = 5, [QP_DEP_SRQ] = 6 };
	struct vnode *n = vobj_new(L, &vc_qp, QP_DEP_CM_ID, deps);
	vobj_recheck(L, 2, used, QP_NDEPS);
	struct ibv_qp_init_attr_ex asked = ia;
	struct ibv_qp *qp = ibv_create_qp_ex(c->h, &ia);
	int err = errno;
	if (!qp) {
		lua_createtable(L, 0, 3);
		venum_push(L, &ve_qp_type, asked.qp_type);
		lua_setfield(L, -2, "qp_type");
		vflags_push(L, &ve_send_ops_flags, asked.send_ops_flags);
		lua_setfield(L, -2, "send_ops_flags");
		vpush_device(L, c->h);
		return vraise_create(L, "ibv_create_qp_ex", err, 1);
	}
	vobj_set(n, qp);
	vqp(n)->ex = has_post_send_api(qp, &asked);
	vqp(n)->send_ops_flags = asked.send_ops_flags;
	return 1;
}

/* ---- the session ------------------------------------------------------------- */

static struct vnode *self(lua_State *L) { return vobj_check(L, 1, &vc_qp); }

static struct ibv_qp_ex *qpx_of(lua_State *L, struct vnode *n, const char *fn)
{
	struct ibv_qp_ex *x = vqp(n)->ex ? ibv_qp_to_qp_ex(n->h) : NULL;
	if (!x)
		luaL_error(L, "%s: this QP has no new post-send API: create it with ctx:create_qp_ex{ pd = pd, ..., "
			      "send_ops_flags = { \"SEND\", ... } } (ibv_create_qp_ex with "
			      "IBV_QP_INIT_ATTR_SEND_OPS_FLAGS in comp_mask: a comp_mask you give must name "
			      "\"SEND_OPS_FLAGS\", or the provider sets up no ibv_wr_* functions); "
			      "qp:post_send works on every QP", fn);
	return x;
}

void qp_ex_idle(lua_State *L, struct vnode *n, const char *fn)
{
	if (vqp(n)->wr_open)
		luaL_error(L, "%s: a wr_start() session is open on this QP (%d WR%s built): ibv_wr_start holds the "
			      "send queue until ibv_wr_complete or ibv_wr_abort, and %s would wait for it forever; "
			      "call qp:wr_complete() or qp:wr_abort() first",
			   fn, vqp(n)->wr_count, vqp(n)->wr_count == 1 ? "" : "s", fn);
}

void qp_ex_abort(struct vnode *n)
{
	if (vqp(n)->wr_open)
		ibv_wr_abort(ibv_qp_to_qp_ex(n->h));
	vqp(n)->wr_open = false;
}

static const char *op_name(uint64_t flag)
{
	const char *s = venum_name(&ve_send_ops_flags, (int64_t)flag);
	return s ? s : "?";
}

/* The WR being built must be whole before the next op or the complete. */
static void check_wr_whole(lua_State *L, struct vnode *n, const char *fn)
{
	if (vqp(n)->wr_lacks & NEED_UD_ADDR)
		luaL_error(L, "%s: WR #%d (%s) has no destination: on a UD QP every WR needs "
			      "qp:wr_set_ud_addr(ah, remote_qpn, remote_qkey) after its op",
			   fn, vqp(n)->wr_count, op_name(vqp(n)->wr_op));
	if (vqp(n)->wr_lacks & NEED_SGE8)
		luaL_error(L, "%s: WR #%d (%s) has no local buffer: an atomic needs qp:wr_set_sge(mr, offset, 8) "
			      "for the 8 bytes the remote's old value comes back into",
			   fn, vqp(n)->wr_count, op_name(vqp(n)->wr_op));
}

static struct ibv_qp_ex *in_session(lua_State *L, struct vnode *n, const char *fn)
{
	struct ibv_qp_ex *x = qpx_of(L, n, fn);
	if (!vqp(n)->wr_open)
		luaL_error(L, "%s: no WR session is open: call qp:wr_start() first (in C, the ibv_wr_* calls go "
			      "between ibv_wr_start and ibv_wr_complete)", fn);
	return x;
}

/* Before an op: the session is open, the op was enabled, the last WR is whole. */
static struct ibv_qp_ex *op_begin(lua_State *L, struct vnode *n, const char *fn, uint64_t flag)
{
	struct ibv_qp_ex *x = in_session(L, n, fn);
	if ((vqp(n)->send_ops_flags & flag) && !usable_ops(x, flag))
		luaL_error(L, "%s: the provider set up no function for %s although send_ops_flags asked for it "
			      "(calling it would jump through a NULL pointer): this device does not support %s "
			      "through the new post-send API", fn, op_name(flag), op_name(flag));
	if (!(vqp(n)->send_ops_flags & flag)) {
		luaL_Buffer b;
		luaL_buffinit(L, &b);
		venum_c(&b, &ve_send_ops_flags, (int64_t)vqp(n)->send_ops_flags);
		luaL_pushresult(&b);
		luaL_error(L, "%s: %s is not in this QP's send_ops_flags (%s): create the QP with send_ops_flags = "
			      "{ ..., \"%s\" }; the provider sets up only the ops asked for, and calling another "
			      "would jump through a NULL pointer", fn, op_name(flag), lua_tostring(L, -1), op_name(flag));
	}
	check_wr_whole(L, n, fn);
	return x;
}

static void op_end(struct vnode *n, uint64_t flag)
{
	struct ibv_qp *qp = n->h;
	vqp(n)->wr_count++;
	vqp(n)->wr_op = flag;
	vqp(n)->wr_lacks = qp->qp_type == IBV_QPT_UD ? NEED_UD_ADDR : 0;
	if (flag == IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP || flag == IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		vqp(n)->wr_lacks |= NEED_SGE8;
}

/* qp:wr_start() */
static int l_wr_start(lua_State *L)
{
	struct vnode *n = self(L);
	vnoextra(L, 1, "qp:wr_start()", NULL);
	struct ibv_qp_ex *x = qpx_of(L, n, "wr_start");
	if (vqp(n)->wr_open)
		return luaL_error(L, "wr_start: a session is already open (%d WR%s built): finish it with "
				     "qp:wr_complete() or qp:wr_abort() first (ibv_wr_start would wait for its own lock)",
				  vqp(n)->wr_count, vqp(n)->wr_count == 1 ? "" : "s");
	ibv_wr_start(x);
	vqp(n)->wr_open = true;
	vqp(n)->wr_count = 0;
	vqp(n)->wr_op = 0;
	vqp(n)->wr_lacks = 0;
	return 0;
}

/* qp:wr_complete(): posts every WR built since wr_start, as one doorbell. */
static int l_wr_complete(lua_State *L)
{
	struct vnode *n = self(L);
	vnoextra(L, 1, "qp:wr_complete()", NULL);
	struct ibv_qp_ex *x = qpx_of(L, n, "wr_complete");
	if (!vqp(n)->wr_open)
		return luaL_error(L, "wr_complete: no WR session is open: call qp:wr_start() first (ibv_wr_complete "
				     "without ibv_wr_start would release a lock nobody took)");
	check_wr_whole(L, n, "wr_complete");
	int built = vqp(n)->wr_count;
	int ret = ibv_wr_complete(x);
	vqp(n)->wr_open = false;
	vqp(n)->wr_op = 0;
	vqp(n)->wr_lacks = 0;
	if (!ret)
		return 0;
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	lua_createtable(L, 0, 5);
	lua_pushinteger(L, built);
	lua_setfield(L, -2, "built");
	venum_push(L, &ve_qp_type, ((struct ibv_qp *)n->h)->qp_type);
	lua_setfield(L, -2, "qp_type");
	if (ibv_query_qp(n->h, &a, IBV_QP_STATE | IBV_QP_CAP, &ia) == 0) {
		venum_push(L, &ve_qp_state, a.qp_state);
		lua_setfield(L, -2, "qp_state");
		marsh_push(L, vf_qp_cap, &ia.cap);
		lua_setfield(L, -2, "cap");
	}
	return vraise(L, "ibv_wr_complete", ret, 1, -1);
}

/* qp:wr_abort(): drops every WR built since wr_start. */
static int l_wr_abort(lua_State *L)
{
	struct vnode *n = self(L);
	vnoextra(L, 1, "qp:wr_abort()", NULL);
	struct ibv_qp_ex *x = qpx_of(L, n, "wr_abort");
	if (!vqp(n)->wr_open)
		return luaL_error(L, "wr_abort: no WR session is open: nothing to abort (ibv_wr_abort without "
				     "ibv_wr_start would release a lock nobody took)");
	ibv_wr_abort(x);
	vqp(n)->wr_open = false;
	vqp(n)->wr_lacks = 0;
	return 0;
}

/* ---- ops: each starts one WR with qpx->wr_id and qpx->wr_flags ------------- */

static uint32_t arg_u32(lua_State *L, int i, const char *what)
{
	return (uint32_t)marsh_check_uint(L, i, i, 0xffffffffu, what);
}

static uint64_t arg_u64(lua_State *L, int i, const char *what)
{
	int isint;
	lua_Integer v = lua_tointegerx(L, i, &isint);
	if (lua_type(L, i) != LUA_TNUMBER || !isint)
		vargerror(L, i, lua_pushfstring(L, "%s: integer expected, got %s", what, luaL_typename(L, i)));
	return (uint64_t)v;   /* all 64 bits: a negative integer is a value above 2^63 */
}

static int l_wr_send(lua_State *L)
{
	struct vnode *n = self(L);
	vnoextra(L, 1, "qp:wr_send()", NULL);
	struct ibv_qp_ex *x = op_begin(L, n, "wr_send", IBV_QP_EX_WITH_SEND);
	ibv_wr_send(x);
	op_end(n, IBV_QP_EX_WITH_SEND);
	return 0;
}

/* qp:wr_send_imm(imm): imm in host order; the wire (and C) wants htobe32. */
static int l_wr_send_imm(lua_State *L)
{
	struct vnode *n = self(L);
	uint32_t imm = arg_u32(L, 2, "imm_data");
	struct ibv_qp_ex *x = op_begin(L, n, "wr_send_imm", IBV_QP_EX_WITH_SEND_WITH_IMM);
	ibv_wr_send_imm(x, htonl(imm));
	op_end(n, IBV_QP_EX_WITH_SEND_WITH_IMM);
	return 0;
}

/* rkey, remote_addr: the order of the C calls. */
static void remote_args(lua_State *L, uint32_t *rkey, uint64_t *addr)
{
	*rkey = arg_u32(L, 2, "rkey");
	*addr = arg_u64(L, 3, "remote_addr");
}

static int l_wr_rdma_write(lua_State *L)
{
	struct vnode *n = self(L);
	uint32_t rkey;
	uint64_t addr;
	remote_args(L, &rkey, &addr);
	struct ibv_qp_ex *x = op_begin(L, n, "wr_rdma_write", IBV_QP_EX_WITH_RDMA_WRITE);
	ibv_wr_rdma_write(x, rkey, addr);
	op_end(n, IBV_QP_EX_WITH_RDMA_WRITE);
	return 0;
}

static int l_wr_rdma_write_imm(lua_State *L)
{
	struct vnode *n = self(L);
	uint32_t rkey;
	uint64_t addr;
	remote_args(L, &rkey, &addr);
	uint32_t imm = arg_u32(L, 4, "imm_data");
	struct ibv_qp_ex *x = op_begin(L, n, "wr_rdma_write_imm", IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM);
	ibv_wr_rdma_write_imm(x, rkey, addr, htonl(imm));
	op_end(n, IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM);
	return 0;
}

static int l_wr_rdma_read(lua_State *L)
{
	struct vnode *n = self(L);
	uint32_t rkey;
	uint64_t addr;
	remote_args(L, &rkey, &addr);
	struct ibv_qp_ex *x = op_begin(L, n, "wr_rdma_read", IBV_QP_EX_WITH_RDMA_READ);
	ibv_wr_rdma_read(x, rkey, addr);
	op_end(n, IBV_QP_EX_WITH_RDMA_READ);
	return 0;
}

/* Atomics act on an 8-byte aligned remote word; rxe's new API does not
 * check the alignment as its ibv_post_send does, so verbsh does. */
static void check_aligned(lua_State *L, uint64_t addr)
{
	if (addr & 7)
		vargerror(L, 3, lua_pushfstring(L, "remote_addr %p is not 8-byte aligned (an atomic acts on one "
						   "aligned 64-bit word)", (void *)(uintptr_t)addr));
}

/* qp:wr_atomic_cmp_swp(rkey, remote_addr, compare, swap) */
static int l_wr_atomic_cmp_swp(lua_State *L)
{
	struct vnode *n = self(L);
	uint32_t rkey;
	uint64_t addr;
	remote_args(L, &rkey, &addr);
	uint64_t cmp = arg_u64(L, 4, "compare"), swap = arg_u64(L, 5, "swap");
	check_aligned(L, addr);
	struct ibv_qp_ex *x = op_begin(L, n, "wr_atomic_cmp_swp", IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP);
	ibv_wr_atomic_cmp_swp(x, rkey, addr, cmp, swap);
	op_end(n, IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP);
	return 0;
}

/* qp:wr_atomic_fetch_add(rkey, remote_addr, add) */
static int l_wr_atomic_fetch_add(lua_State *L)
{
	struct vnode *n = self(L);
	uint32_t rkey;
	uint64_t addr;
	remote_args(L, &rkey, &addr);
	uint64_t add = arg_u64(L, 4, "add");
	check_aligned(L, addr);
	struct ibv_qp_ex *x = op_begin(L, n, "wr_atomic_fetch_add", IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD);
	ibv_wr_atomic_fetch_add(x, rkey, addr, add);
	op_end(n, IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD);
	return 0;
}

/* qp:wr_bind_mw(mw, rkey, bind_info): binds a type 2 window with the rkey
 * given (verbs.inc_rkey(mw.rkey)); bind_info = { mr =, addr =, length =,
 * mw_access_flags = }, as in ibv_mw_bind_info. */
static int l_wr_bind_mw(lua_State *L)
{
	struct vnode *n = self(L);
	struct vnode *w = vobj_check(L, 2, &vc_mw);
	uint32_t rkey = arg_u32(L, 3, "rkey");
	struct ibv_mw_bind_info info;
	vnoextra(L, 4, "qp:wr_bind_mw(mw, rkey, bind_info)", NULL);
	vchecktable(L, 4);
	memset(&info, 0, sizeof info);
	marsh_read(L, 4, 4, vf_mw_bind_info, &info);
	mw_bind_check(L, 4, "", n, w->h, 2, &info);
	struct ibv_qp_ex *x = op_begin(L, n, "wr_bind_mw", IBV_QP_EX_WITH_BIND_MW);
	ibv_wr_bind_mw(x, w->h, rkey, &info);
	mw_note_bind(L, w->h, rkey);
	op_end(n, IBV_QP_EX_WITH_BIND_MW);
	return 0;
}

/* qp:wr_local_inv(rkey): revokes a type 2 window (or an MR's rkey) here. */
static int l_wr_local_inv(lua_State *L)
{
	struct vnode *n = self(L);
	uint32_t rkey = arg_u32(L, 2, "invalidate_rkey");
	vnoextra(L, 2, "qp:wr_local_inv(invalidate_rkey)", NULL);
	struct ibv_qp_ex *x = op_begin(L, n, "wr_local_inv", IBV_QP_EX_WITH_LOCAL_INV);
	ibv_wr_local_inv(x, rkey);
	op_end(n, IBV_QP_EX_WITH_LOCAL_INV);
	return 0;
}

/* qp:wr_send_inv(rkey): a SEND that also revokes rkey at the peer. */
static int l_wr_send_inv(lua_State *L)
{
	struct vnode *n = self(L);
	uint32_t rkey = arg_u32(L, 2, "invalidate_rkey");
	vnoextra(L, 2, "qp:wr_send_inv(invalidate_rkey)", NULL);
	struct ibv_qp_ex *x = op_begin(L, n, "wr_send_inv", IBV_QP_EX_WITH_SEND_WITH_INV);
	ibv_wr_send_inv(x, rkey);
	op_end(n, IBV_QP_EX_WITH_SEND_WITH_INV);
	return 0;
}

/* ---- setters: they fill the WR the last op began ------------------------------ */

static struct ibv_qp_ex *setter_begin(lua_State *L, struct vnode *n, const char *fn)
{
	struct ibv_qp_ex *x = in_session(L, n, fn);
	if (!vqp(n)->wr_op)
		luaL_error(L, "%s: no WR to set: call an op first (qp:wr_send(), qp:wr_rdma_write(rkey, remote_addr), "
			      "...); in C, ibv_wr_set_* fill the WR that the last ibv_wr_<op> began", fn);
	return x;
}

/* qp:wr_set_sge(mr, offset, length) or qp:wr_set_sge(lkey, addr, length) */
static int l_wr_set_sge(lua_State *L)
{
	struct vnode *n = self(L);
	struct vnode *m = vobj_test(L, 2, &vc_mr);
	struct ibv_sge s;
	if (m) {
		struct ibv_mr *mr = vobj_check(L, 2, &vc_mr)->h;
		if (vobj_other_context(m, n))
			return vobj_wr_context(L, 2, NULL, m, n), 0;
		uint64_t off = marsh_check_uint(L, 3, 3, mr->length, "offset");
		uint64_t len = lua_isnoneornil(L, 4) ? mr->length - off : marsh_check_uint(L, 4, 4, 0xffffffffu, "length");
		if (len > mr->length - off)
			return vargerror(L, 4, lua_pushfstring(L, "offset %I + length %I is beyond the MR's %I bytes",
							       (lua_Integer)off, (lua_Integer)len, (lua_Integer)mr->length));
		s = (struct ibv_sge){ .addr = (uintptr_t)mr->addr + off, .length = (uint32_t)len, .lkey = mr->lkey };
	} else if (lua_type(L, 2) == LUA_TNUMBER) {
		s.lkey = arg_u32(L, 2, "lkey");
		s.addr = arg_u64(L, 3, "addr");
		s.length = arg_u32(L, 4, "length");
	} else {
		return vtypeerror(L, 2, "verbs.mr (mr, offset, length) or lkey (lkey, addr, length)");
	}
	struct ibv_qp_ex *x = setter_begin(L, n, "wr_set_sge");
	if ((vqp(n)->wr_lacks & NEED_SGE8) && s.length != 8)
		return vargerror(L, 4, lua_pushfstring(L, "an atomic's SGE is 8 bytes (the old 64-bit value), not %I",
						       (lua_Integer)s.length));
	ibv_wr_set_sge(x, s.lkey, s.addr, s.length);
	vqp(n)->wr_lacks &= ~(unsigned)NEED_SGE8;
	return 0;
}

#define SGE_MAX 32

/* qp:wr_set_sge_list{ {mr=, offset=, length=} or {addr=, length=, lkey=}, ... } */
static int l_wr_set_sge_list(lua_State *L)
{
	struct vnode *n = self(L);
	struct ibv_sge sge[SGE_MAX];
	vchecktable(L, 2);
	int k = sge_list_read(L, 2, 2, sge, SGE_MAX, n);
	struct ibv_qp_ex *x = setter_begin(L, n, "wr_set_sge_list");
	if ((vqp(n)->wr_lacks & NEED_SGE8) && (k != 1 || sge[0].length != 8))
		return vargerror(L, 2, "an atomic takes one SGE of 8 bytes");
	ibv_wr_set_sge_list(x, (size_t)k, sge);
	vqp(n)->wr_lacks &= ~(unsigned)NEED_SGE8;
	return 0;
}

/* qp:wr_set_inline_data(str): the provider copies the bytes now. */
static int l_wr_set_inline_data(lua_State *L)
{
	struct vnode *n = self(L);
	size_t len;
	if (lua_type(L, 2) != LUA_TSTRING)   /* not a number's decimal text: a number is no buffer */
		return vtypeerror(L, 2, "string (the bytes to send)");
	const char *s = lua_tolstring(L, 2, &len);
	struct ibv_qp_ex *x = setter_begin(L, n, "wr_set_inline_data");
	if (vqp(n)->wr_lacks & NEED_SGE8)
		return luaL_error(L, "wr_set_inline_data: an atomic returns the old value into an SGE: use wr_set_sge");
	ibv_wr_set_inline_data(x, (void *)s, len);
	return 0;
}

#define INLINE_BUFS 16

/* qp:wr_set_inline_data_list{ str, str, ... } */
static int l_wr_set_inline_data_list(lua_State *L)
{
	struct vnode *n = self(L);
	struct ibv_data_buf b[INLINE_BUFS];
	vchecktable(L, 2);
	int k = (int)lua_rawlen(L, 2);
	if (k > INLINE_BUFS)
		return vargerror(L, 2, lua_pushfstring(L, "%d buffers, more than verbsh's %d", k, INLINE_BUFS));
	for (int i = 0; i < k; i++) {
		lua_rawgeti(L, 2, i + 1);
		if (lua_type(L, -1) != LUA_TSTRING)
			return vargerror(L, 2, lua_pushfstring(L, "[%d]: string expected, got %s", i + 1,
							       luaL_typename(L, -1)));
		b[i].addr = (void *)lua_tolstring(L, -1, &b[i].length);
		lua_pop(L, 1);   /* the list still holds the string */
	}
	struct ibv_qp_ex *x = setter_begin(L, n, "wr_set_inline_data_list");
	/* Seen on rxe (rdma-core 44, Debian 12), in C as here: the WR completes
	 * SUCCESS having sent none of the list. rxe reports vendor_id 0xffffff. */
	struct ibv_device_attr a;
	if (k > 0 && ibv_query_device(((struct ibv_qp *)n->h)->context, &a) == 0 && a.vendor_id == 0xffffff)
		vwarn(L, 2, "rxe's provider sends none of an inline data list: the WR completes SUCCESS with 0 bytes"
			    " (the same in C); qp:wr_set_inline_data(str) with one buffer, or wr_set_sge_list, sends them");
	ibv_wr_set_inline_data_list(x, (size_t)k, b);
	return 0;
}

/* qp:wr_set_ud_addr(ah, remote_qpn, remote_qkey) */
static int l_wr_set_ud_addr(lua_State *L)
{
	struct vnode *n = self(L);
	struct vnode *ah = vobj_check(L, 2, &vc_ah);
	if (vobj_other_context(ah, n))
		return vobj_wr_context(L, 2, NULL, ah, n), 0;
	uint32_t qpn = (uint32_t)marsh_check_uint(L, 3, 3, 0xffffff, "remote_qpn");
	uint32_t qkey = arg_u32(L, 4, "remote_qkey");
	struct ibv_qp_ex *x = setter_begin(L, n, "wr_set_ud_addr");
	if (((struct ibv_qp *)n->h)->qp_type != IBV_QPT_UD)
		return luaL_error(L, "wr_set_ud_addr: this is a %s QP: it is connected to one peer at RTR and its WRs "
				     "carry no address (wr_set_ud_addr is for UD QPs)",
				  venum_name(&ve_qp_type, ((struct ibv_qp *)n->h)->qp_type));
	ibv_wr_set_ud_addr(x, ah->h, qpn, qkey);
	vqp(n)->wr_lacks &= ~(unsigned)NEED_UD_ADDR;
	return 0;
}

/* ---- qpx->wr_id, qpx->wr_flags ------------------------------------------------- */

int qp_ex_field(lua_State *L, struct vnode *n, const char *key)
{
	bool id = strcmp(key, "wr_id") == 0;
	if (!id && strcmp(key, "wr_flags") != 0)
		return 0;
	struct ibv_qp_ex *x = qpx_of(L, n, key);
	if (id)
		lua_pushinteger(L, (lua_Integer)x->wr_id);
	else
		vflags_push(L, &ve_send_flags, x->wr_flags);
	return 1;
}

/* qp.wr_id = n, qp.wr_flags = { "SIGNALED", ... }: read by the next op. */
int qp_ex_setfield(lua_State *L, struct vnode *n, const char *key, int vidx)
{
	bool id = strcmp(key, "wr_id") == 0;
	if (!id && strcmp(key, "wr_flags") != 0)
		return 0;
	struct ibv_qp_ex *x = qpx_of(L, n, lua_pushfstring(L, "qp.%s", key));
	char ret[64], lhs[48], xn[32];
	snprintf(lhs, sizeof lhs, "%s->%s", xname(n, xn, sizeof xn), key);
	if (id) {
		x->wr_id = arg_u64(L, vidx, "wr_id");
		snprintf(ret, sizeof ret, "%llu", (unsigned long long)x->wr_id);
		return 1;
	}
	int64_t v;
	const char *e = venum_read(L, vidx, &ve_send_flags, &v);
	if (e)
		return luaL_error(L, "qp.wr_flags: %s", e);
	x->wr_flags = (unsigned)v;
	return 1;
}

/* ---- ops of hardware features: the provider may leave their pointer NULL ---- */

/* op_begin, then a check that the provider filled the op's function pointer:
 * a provider may accept a send_ops flag yet not implement the op. */
static struct ibv_qp_ex *hw_op_begin(lua_State *L, struct vnode *n, const char *fn, uint64_t flag, const void *fp)
{
	struct ibv_qp_ex *x = op_begin(L, n, fn, flag);
	if (!fp)
		luaL_error(L, "%s: this device's provider created the QP with %s but left ibv_%s unimplemented (a NULL"
			      " pointer that C would jump through): see help \"%s\" for the devices that have it",
			   fn, op_name(flag), fn, fn);
	return x;
}

/* qp:wr_atomic_write(rkey, remote_addr, data8): an 8-byte atomic write */
static int l_wr_atomic_write(lua_State *L)
{
	struct vnode *n = self(L);
	uint32_t rkey;
	uint64_t addr;
	remote_args(L, &rkey, &addr);
	size_t len;
	const char *data = luaL_checklstring(L, 4, &len);
	if (len != 8)
		return vargerror(L, 4, "the atomic write's data is 8 bytes (a string of 8)");
	struct ibv_qp_ex *x = qpx_of(L, n, "wr_atomic_write");
	x = hw_op_begin(L, n, "wr_atomic_write", IBV_QP_EX_WITH_ATOMIC_WRITE, (const void *)x->wr_atomic_write);
	ibv_wr_atomic_write(x, rkey, addr, data);
	op_end(n, IBV_QP_EX_WITH_ATOMIC_WRITE);
	return 0;
}

/* qp:wr_send_tso(hdr, mss): a TSO send of the packet headers hdr, cut at mss */
static int l_wr_send_tso(lua_State *L)
{
	struct vnode *n = self(L);
	size_t len;
	const char *hdr = luaL_checklstring(L, 2, &len);
	uint16_t mss = (uint16_t)marsh_check_uint(L, 3, 3, 0xffff, "mss");
	if (len > 0xffff)
		return vargerror(L, 2, "hdr: at most 65535 bytes");
	struct ibv_qp_ex *x = qpx_of(L, n, "wr_send_tso");
	x = hw_op_begin(L, n, "wr_send_tso", IBV_QP_EX_WITH_TSO, (const void *)x->wr_send_tso);
	ibv_wr_send_tso(x, (void *)hdr, (uint16_t)len, mss);
	op_end(n, IBV_QP_EX_WITH_TSO);
	return 0;
}

/* qp:wr_set_xrc_srqn(remote_srqn): the XRC SRQ a WR of an XRC_SEND QP goes to */
static int l_wr_set_xrc_srqn(lua_State *L)
{
	struct vnode *n = self(L);
	uint32_t srqn = arg_u32(L, 2, "remote_srqn");
	struct ibv_qp_ex *x = setter_begin(L, n, "wr_set_xrc_srqn");
	if (!x->wr_set_xrc_srqn)
		return luaL_error(L, "wr_set_xrc_srqn: this QP is not an XRC_SEND QP (its provider has no"
				     " ibv_wr_set_xrc_srqn): see help \"XRC\"");
	ibv_wr_set_xrc_srqn(x, srqn);
	return 0;
}

const luaL_Reg qp_ex_methods[] = {
	{ "wr_start", l_wr_start }, { "wr_complete", l_wr_complete }, { "wr_abort", l_wr_abort },
	{ "wr_send", l_wr_send }, { "wr_send_imm", l_wr_send_imm }, { "wr_rdma_write", l_wr_rdma_write },
	{ "wr_rdma_write_imm", l_wr_rdma_write_imm }, { "wr_rdma_read", l_wr_rdma_read },
	{ "wr_atomic_cmp_swp", l_wr_atomic_cmp_swp }, { "wr_atomic_fetch_add", l_wr_atomic_fetch_add },
	{ "wr_set_sge", l_wr_set_sge }, { "wr_set_sge_list", l_wr_set_sge_list },
	{ "wr_set_inline_data", l_wr_set_inline_data }, { "wr_set_inline_data_list", l_wr_set_inline_data_list },
	{ "wr_set_ud_addr", l_wr_set_ud_addr },
	{ "wr_bind_mw", l_wr_bind_mw }, { "wr_local_inv", l_wr_local_inv }, { "wr_send_inv", l_wr_send_inv },
	{ "wr_atomic_write", l_wr_atomic_write }, { "wr_send_tso", l_wr_send_tso }, { "wr_set_xrc_srqn", l_wr_set_xrc_srqn },
	{ NULL, NULL }
};
