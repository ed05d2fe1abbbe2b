/* Reading and checking work requests: the WR tables of qp:post_send,
 * qp:post_recv and srq:post_srq_recv, of the prepared verbs.send_wr and
 * verbs.recv_wr (wr.c), and the SGE lists of qp_ex.c, read into C structs;
 * the checks before a send; and the error that names the WR a provider
 * refused. post.c and wr.c use this file; it uses neither. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include "verbsh.h"

/* An SGE as the user writes it: {mr=, offset=, length=} or {addr=, length=, lkey=}. */
struct sge_in {
	struct ibv_mr *mr;
	uint64_t offset, addr;
	uint32_t length, lkey;
};
enum { S_MR = 1, S_OFFSET = 2, S_LENGTH = 4, S_ADDR = 8, S_LKEY = 16 };
/* A prepared WR keeps the very objects that were read into it: one read.
 * The marshaller hands over the pool of the read (marsh_read_ctx), NULL
 * for a plain post, which keeps nothing. It is the read's own, not the
 * state's: a finalizer run by an allocation of the read may post or
 * prepare another WR meanwhile. */
static void keep_dep(lua_State *L, int idx, struct vnode *n, void *ctx)
{
	struct sge_pool *p = ctx;
	if (!p)
		return;
	if (p->ndeps >= p->maxdeps)   /* one MR per SGE and one AH per WR were counted */
		luaL_error(L, "verbs.send_wr: the WR table changed while it was being read");
	p->dep_at[p->ndeps] = (struct wr_dep_at){ p->cur_wr, p->cur_sge };
	p->deps[p->ndeps++] = n;
	lua_pushvalue(L, idx);
	lua_rawseti(L, p->keep, p->ndeps);
}

#define SG(m, t, b, ...) VF(struct sge_in, m, t, .bit = (b), __VA_ARGS__)
#define SGE_FIELDS(...) { \
	SG(mr, VT_OBJ, S_MR, .cls = &vc_mr, __VA_ARGS__), SG(offset, VT_UINT, S_OFFSET), SG(length, VT_UINT, S_LENGTH), \
	SG(addr, VT_UINT, S_ADDR), SG(lkey, VT_UINT, S_LKEY), \
	VF_END }
const struct vfield vf_sge[] = SGE_FIELDS(.seen = NULL);
/* The same for a prepared WR, which keeps its MRs: a post that is not
 * prepared has no use for keep_dep, and its pool lookup was a tenth of the
 * cost of reading an SGE (callgrind). */
static const struct vfield vf_sge_kept[] = SGE_FIELDS(.seen = keep_dep);

/* Raises: SGE i names mr, an MR of another context than the QP or SRQ
 * posted to ("key 'sg_list[1].mr': mr2 belongs to ctx2, but qp1 ..."). */
__attribute__((noinline, cold))
static void sge_other_context(lua_State *L, const struct sge_pool *p, int i, struct ibv_mr *mr)
{
	char path[96];
	struct vnode *n = vobj_find(L, mr);
	marsh_path(path, sizeof path - 3, p->path, "sg_list", i);
	strcat(path, ".mr");
	if (!n)
		vargerror(L, p->arg, lua_pushfstring(L, "key '%s': an MR of another context", path));
	vobj_wr_context(L, p->arg, path, n, p->owner);
}

/* "sg_list[2]" of the WR being read, for an error message. */
static const char *sge_path(char *buf, size_t len, const struct sge_pool *p, int i)
{
	return marsh_path(buf, len, p->path, "sg_list", i);
}

static const char *read_sges(lua_State *L, struct sge_pool *p, int idx, struct ibv_sge **list, int *num)
{
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
		p->cur_sge = i;
		lua_rawgeti(L, idx, i);
		if (!lua_istable(L, -1))
			return lua_pushfstring(L, "%s: SGE table expected, got %s", sge_path(path, sizeof path, p, i),
					       luaL_typename(L, -1));
		uint64_t m = marsh_read_ctx(L, p->arg, lua_gettop(L), p->deps ? vf_sge_kept : vf_sge, &s, p->path,
					    "sg_list", i, p->deps ? p : NULL);
		lua_pop(L, 1);
		if (m & S_MR) {
			if (m & (S_ADDR | S_LKEY))
				return lua_pushfstring(L, "%s: give mr (with offset) or addr and lkey, not both",
						       sge_path(path, sizeof path, p, i));
			if (p->ctx && s.mr->context != p->ctx)
				sge_other_context(L, p, i, s.mr);
			if (s.offset > s.mr->length)
				return lua_pushfstring(L, "%s: offset %I is beyond the MR's %I bytes",
						       sge_path(path, sizeof path, p, i), (lua_Integer)s.offset,
						       (lua_Integer)s.mr->length);
			if (!(m & S_LENGTH))
				s.length = (uint32_t)(s.mr->length - s.offset);
			else if (s.length > s.mr->length - s.offset)
				return lua_pushfstring(L, "%s: offset %I + length %I is beyond the MR's %I bytes",
						       sge_path(path, sizeof path, p, i), (lua_Integer)s.offset,
						       (lua_Integer)s.length, (lua_Integer)s.mr->length);
			out->addr = (uintptr_t)s.mr->addr + s.offset;
			out->length = s.length;
			out->lkey = s.mr->lkey;
		} else {
			if ((m & (S_ADDR | S_LENGTH | S_LKEY)) != (S_ADDR | S_LENGTH | S_LKEY))
				return lua_pushfstring(L, "%s: needs mr= (and offset=, length=), or addr=, length= and lkey=",
						       sge_path(path, sizeof path, p, i));
			if (m & S_OFFSET)
				return lua_pushfstring(L, "%s: offset= goes with mr=", sge_path(path, sizeof path, p, i));
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

/* sg_list is read once the WR's other keys are, by wrs_read (read_wr_sges),
 * which has the pool at hand: here the key only counts as present (W_SGES).
 * Passing the pool through the registry cost more than reading an SGE. */
static const char *sges_later(lua_State *L VUNUSED, int idx VUNUSED, void *dst VUNUSED,
			      const struct vfield *f VUNUSED)
{
	return NULL;
}

/* imm_data is big-endian on the wire; Lua gives and gets host order. */
static const char *read_imm(lua_State *L, int idx, void *dst, const struct vfield *f VUNUSED)
{
	int isint;
	lua_Integer v = lua_tointegerx(L, idx, &isint);
	if (lua_type(L, idx) != LUA_TNUMBER || !isint || v < 0 || v > 0xffffffff)
		return lua_pushfstring(L, "32-bit unsigned integer expected, got %s", luaL_tolstring(L, idx, NULL));
	((struct ibv_send_wr *)dst)->imm_data = htonl((uint32_t)v);
	return NULL;
}

/* invalidate_rkey shares its bytes with imm_data (wrs_read refuses both),
 * and is in host order: it is an rkey, not data on the wire. */
static const char *read_inv(lua_State *L, int idx, void *dst, const struct vfield *f VUNUSED)
{
	int isint;
	lua_Integer v = lua_tointegerx(L, idx, &isint);
	if (lua_type(L, idx) != LUA_TNUMBER || !isint || v < 0 || v > 0xffffffff)
		return lua_pushfstring(L, "32-bit unsigned integer expected, got %s", luaL_tolstring(L, idx, NULL));
	((struct ibv_send_wr *)dst)->invalidate_rkey = (uint32_t)v;
	return NULL;
}

typedef __typeof__(((struct ibv_send_wr *)0)->wr.rdma) wr_rdma_t;
typedef __typeof__(((struct ibv_send_wr *)0)->wr.atomic) wr_atomic_t;
typedef __typeof__(((struct ibv_send_wr *)0)->wr.ud) wr_ud_t;
const struct vfield vf_wr_rdma[] = {
	VF(wr_rdma_t, remote_addr, VT_UINT), VF(wr_rdma_t, rkey, VT_UINT), VF_END
};
const struct vfield vf_wr_atomic[] = {
	VF(wr_atomic_t, remote_addr, VT_UINT), VF(wr_atomic_t, compare_add, VT_UINT),
	VF(wr_atomic_t, swap, VT_UINT), VF(wr_atomic_t, rkey, VT_UINT), VF_END
};
const struct vfield vf_wr_ud[] = {
	VF(wr_ud_t, ah, VT_OBJ, .cls = &vc_ah, .seen = keep_dep), VF(wr_ud_t, remote_qpn, VT_UINT, .max = 0xffffff),
	VF(wr_ud_t, remote_qkey, VT_UINT), VF_END
};

enum { W_RDMA = WR_UNION_RDMA, W_ATOMIC = WR_UNION_ATOMIC, W_UD = WR_UNION_UD, W_OPCODE = 8, W_SGES = 16,
       W_IMM = 32, W_INV = 64, W_BIND = WR_GAVE_BIND_MW };
#define SW(m, t, ...) VF(struct ibv_send_wr, m, t, __VA_ARGS__)
const struct vfield vf_send_wr[] = {
	SW(wr_id, VT_UINT), SW(sg_list, VT_CUSTOM, .custom = sges_later, .bit = W_SGES),
	SW(opcode, VT_ENUM, .en = &ve_wr_opcode, .bit = W_OPCODE), SW(send_flags, VT_FLAGS, .en = &ve_send_flags),
	SW(imm_data, VT_CUSTOM, .custom = read_imm, .bit = W_IMM),
	SW(invalidate_rkey, VT_CUSTOM, .custom = read_inv, .bit = W_INV),
	VFN("rdma", struct ibv_send_wr, wr.rdma, VT_STRUCT, .sub = vf_wr_rdma, .bit = W_RDMA),
	VFN("atomic", struct ibv_send_wr, wr.atomic, VT_STRUCT, .sub = vf_wr_atomic, .bit = W_ATOMIC),
	VFN("ud", struct ibv_send_wr, wr.ud, VT_STRUCT, .sub = vf_wr_ud, .bit = W_UD),
	SW(bind_mw, VT_STRUCT, .sub = vf_wr_bind_mw, .bit = W_BIND),
	VF_END
};
const struct vfield vf_recv_wr[] = {
	VF(struct ibv_recv_wr, wr_id, VT_UINT),
	VF(struct ibv_recv_wr, sg_list, VT_CUSTOM, .custom = sges_later, .bit = W_SGES),
	VF_END
};

int sge_list_read(lua_State *L, int arg, int idx, struct ibv_sge *out, int cap, struct vnode *owner)
{
	struct vnode *c = vobj_context(owner);
	struct sge_pool p = { .sge = out, .cap = cap, .arg = arg, .path = "", .owner = owner, .ctx = c ? c->h : NULL };
	struct ibv_sge *list;
	int num;
	const char *e = read_sges(L, &p, idx, &list, &num);
	if (e)
		vargerror(L, arg, e);
	return num;
}

/* ---- reading WRs ---------------------------------------------------------------- */


int wr_count(lua_State *L, int idx)
{
	if (lua_rawgeti(L, idx, 1) == LUA_TNIL) {
		lua_pop(L, 1);
		return 0;
	}
	lua_pop(L, 1);
	return (int)lua_rawlen(L, idx);
}

/* "" for a single WR, "[3]." for the third of a list. */
static const char *wr_path(char *buf, size_t len, bool is_list, int i)
{
	if (!is_list)
		return "";
	marsh_path(buf, len - 1, "", NULL, i + 1);
	strcat(buf, ".");
	return buf;
}

/* Pushes the WR table number i (0-based) of the argument at idx. */
static int push_wr_table(lua_State *L, int arg, int idx, bool is_list, int i)
{
	if (!is_list) {
		lua_pushvalue(L, idx);
		return lua_gettop(L);
	}
	if (lua_rawgeti(L, idx, i + 1) != LUA_TTABLE)
		vargerror(L, arg, lua_pushfstring(L, "WR #%d: table expected, got %s", i + 1, luaL_typename(L, -1)));
	return lua_gettop(L);
}

/* The sg_list of the WR table at t into the WR w, named as the marshaller
 * names a key's errors: "key '[2].sg_list': ...". */
static void read_wr_sges(lua_State *L, int arg, int t, bool send, void *w, struct sge_pool *p, const char *key)
{
	char path[48];
	struct ibv_send_wr *sw = w;
	struct ibv_recv_wr *rw = w;
	lua_pushliteral(L, "sg_list");
	lua_rawget(L, t);
	const char *e = read_sges(L, p, lua_gettop(L), send ? &sw->sg_list : &rw->sg_list,
				  send ? &sw->num_sge : &rw->num_sge);
	if (e)
		vargerror(L, arg, lua_pushfstring(L, "key '%s': %s", marsh_path(path, sizeof path, key, "sg_list", 0), e));
	lua_pop(L, 1);
}

void wrs_read(lua_State *L, int arg, int idx, int count, bool is_list, bool send, void *wrs, struct sge_pool *p,
	      uint8_t *unions)
{
	char path[32], key[32] = "";
	size_t wsize = send ? sizeof(struct ibv_send_wr) : sizeof(struct ibv_recv_wr);
	for (int i = 0; i < count; i++) {
		char *w = (char *)wrs + (size_t)i * wsize;
		char *next = i + 1 < count ? w + wsize : NULL;
		int t = push_wr_table(L, arg, idx, is_list, i);
		const char *at = wr_path(path, sizeof path, is_list, i);
		memset(w, 0, wsize);
		if (is_list)
			marsh_path(key, sizeof key, "", NULL, i + 1);   /* "[3]"; "" for a single WR */
		p->path = at;
		p->cur_wr = i;
		p->cur_sge = 0;
		uint64_t m = marsh_read_ctx(L, arg, t, send ? vf_send_wr : vf_recv_wr, w, key, "", 0,
					    p->deps ? p : NULL);
		if (m & W_SGES)
			read_wr_sges(L, arg, t, send, w, p, key);
		lua_pop(L, 1);
		if (!send) {
			((struct ibv_recv_wr *)w)->next = (struct ibv_recv_wr *)next;
			continue;
		}
		if (!(m & W_OPCODE))
			vargerror(L, arg, lua_pushfstring(L, "%skey 'opcode' is required (in C, 0 is IBV_WR_RDMA_WRITE)", at));
		if (__builtin_popcountll(m & (W_RDMA | W_ATOMIC | W_UD)) > 1)
			vargerror(L, arg, lua_pushfstring(L, "%srdma, atomic and ud share a union in ibv_send_wr: give one", at));
		if ((m & W_IMM) && (m & W_INV))
			vargerror(L, arg, lua_pushfstring(L, "%simm_data and invalidate_rkey share a union in ibv_send_wr:"
				" give one (invalidate_rkey goes with SEND_WITH_INV and LOCAL_INV)", at));
		unions[i] = (uint8_t)(m & (W_RDMA | W_ATOMIC | W_UD | W_BIND));
		enum ibv_wr_opcode op = ((struct ibv_send_wr *)w)->opcode;
		if ((op == IBV_WR_LOCAL_INV || op == IBV_WR_SEND_WITH_INV) && !(m & W_INV))
			vwarn(L, arg, "%s%s without invalidate_rkey: rkey 0, as C would post it (invalidate_rkey = the"
				      " window's rkey names what to revoke)", at, venum_name(&ve_wr_opcode, op));
		bool rdma_op = op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_WRITE_WITH_IMM || op == IBV_WR_RDMA_READ;
		bool atomic_op = op == IBV_WR_ATOMIC_CMP_AND_SWP || op == IBV_WR_ATOMIC_FETCH_AND_ADD;
		if (rdma_op && !(m & W_RDMA))
			vwarn(L, arg, "%s%s without rdma: remote_addr 0, rkey 0, as C would post it (rdma = { remote_addr ="
				      " mr_b.addr, rkey = mr_b.rkey } names the remote buffer)", at, venum_name(&ve_wr_opcode, op));
		if (atomic_op && !(m & W_ATOMIC))
			vwarn(L, arg, "%s%s without atomic: remote_addr 0, rkey 0, as C would post it (atomic = {"
				      " remote_addr =, rkey =, compare_add =, swap = })", at, venum_name(&ve_wr_opcode, op));
		((struct ibv_send_wr *)w)->next = (struct ibv_send_wr *)next;
	}
}

const char *wr_dep_path(char *buf, size_t len, bool is_list, const struct wr_dep_at *at)
{
	char prefix[32];
	const char *pre = wr_path(prefix, sizeof prefix, is_list, at->wr);
	if (!at->sge)
		snprintf(buf, len, "%sud.ah", pre);
	else {
		marsh_path(buf, len - 3, pre, "sg_list", at->sge);
		strcat(buf, ".mr");
	}
	return buf;
}

/* Raises: the WR at `at` names ah, an AH of another context than qp's. */
__attribute__((noinline, cold))
static void ah_other_context(lua_State *L, int arg, struct ibv_qp *qp, struct ibv_ah *ah, const char *at)
{
	char key[48];
	struct vnode *a = vobj_find(L, ah), *q = vobj_find(L, qp);
	snprintf(key, sizeof key, "%sud.ah", at);
	if (!a || !q)
		vargerror(L, arg, lua_pushfstring(L, "key '%s': an AH of another context than the QP's", key));
	vobj_wr_context(L, arg, key, a, q);
}

static bool is_rdma_op(enum ibv_wr_opcode op)
{
	return op == IBV_WR_RDMA_WRITE || op == IBV_WR_RDMA_WRITE_WITH_IMM || op == IBV_WR_RDMA_READ;
}

static bool is_atomic_op(enum ibv_wr_opcode op)
{
	return op == IBV_WR_ATOMIC_CMP_AND_SWP || op == IBV_WR_ATOMIC_FETCH_AND_ADD;
}

static const char *union_name(uint8_t u)
{
	return u == W_RDMA ? "rdma" : u == W_ATOMIC ? "atomic" : "ud";
}

/* A BIND_MW WR: its window and MR named (NULL pointers would crash rxe's
 * provider: the fuzzer found it), on a QP type that binds windows. */
static void check_bind(lua_State *L, int arg, struct ibv_qp *qp, struct ibv_send_wr *w, bool given, const char *at)
{
	if (qp->qp_type != IBV_QPT_RC && qp->qp_type != IBV_QPT_UC)
		vargerror(L, arg, lua_pushfstring(L, "%sopcode BIND_MW on a %s QP: windows are bound through an RC or UC"
			" QP, the one that will serve the peer's READs and WRITEs", at, venum_name(&ve_qp_type, qp->qp_type)));
	if (!given)
		vargerror(L, arg, lua_pushfstring(L, "%sopcode BIND_MW needs bind_mw = { mw =, rkey =, bind_info = { mr =,"
			" addr =, length =, mw_access_flags = } }: without it the WR carries a NULL bind_mw.mw and"
			" bind_info.mr, which rxe's provider dereferences", at));
	struct vnode *q = vobj_find(L, qp);
	mw_bind_check(L, arg, at, q, w->bind_mw.mw, 0, &w->bind_mw.bind_info);
	if (w->bind_mw.mw->type == IBV_MW_TYPE_1)
		vwarn(L, arg, "%sbind_mw.mw is a TYPE_1 window: bind those with qp:bind_mw(mw, ...), which also keeps"
			      " mw.rkey in step; a BIND_MW WR leaves mw.rkey as it was, and the next bind of it fails", at);
	if (w->num_sge)
		vwarn(L, arg, "%sBIND_MW with an sg_list: rxe refuses it (EINVAL); a bind moves no data", at);
}

/* The fields of the union `wr` that this QP type and opcode use, checked by
 * which key the WR was given, never by the union's bytes. */
static void check_union(lua_State *L, int arg, struct ibv_qp *qp, struct ibv_send_wr *w, uint8_t u, const char *at)
{
	const char *op = venum_name(&ve_wr_opcode, w->opcode);
	const char *qpt = venum_name(&ve_qp_type, qp->qp_type);
	op = op ? op : "this opcode";
	qpt = qpt ? qpt : "this";
	bool bind = u & W_BIND;
	u &= (uint8_t)~W_BIND;
	if (w->opcode == IBV_WR_BIND_MW)
		check_bind(L, arg, qp, w, bind, at);
	else if (bind)
		vargerror(L, arg, lua_pushfstring(L, "%skey 'bind_mw' with opcode %s, which does not use it: bind_mw ="
			" { mw =, rkey =, bind_info = { ... } } goes with BIND_MW", at, op));
	if (w->opcode == IBV_WR_TSO)
		vargerror(L, arg, lua_pushfstring(L, "%sopcode TSO needs tso.hdr, a header buffer verbsh cannot"
			" give (TSO is for RAW_PACKET QPs with max_tso_header)", at));
	if (qp->qp_type == IBV_QPT_UD) {
		if (u && u != W_UD)
			vargerror(L, arg, lua_pushfstring(L, "%skey '%s' on a UD QP: a UD send reads ud.ah, ud.remote_qpn"
				" and ud.remote_qkey, and %s shares their bytes in ibv_send_wr's union (its remote_addr"
				" would be taken for the AH pointer); give ud = { ah =, remote_qpn =, remote_qkey = }"
				" instead (UD has no RDMA or atomics)", at, union_name(u), union_name(u)));
		if (!u || !w->wr.ud.ah)
			vargerror(L, arg, lua_pushfstring(L, "%skey 'ud.ah' is required on a UD QP (ud = { ah =, "
				"remote_qpn =, remote_qkey = }); the provider would dereference a NULL AH", at));
		return;
	}
	if (u == W_UD)
		vargerror(L, arg, lua_pushfstring(L, "%skey 'ud' on this %s QP: only a UD QP's sends are addressed per WR"
			" (ud.ah, ud.remote_qpn); a connected QP sends to the peer of its RTR (dest_qp_num, ah_attr)."
			" Remove ud", at, qpt));
	if (qp->qp_type == IBV_QPT_UC && (w->opcode == IBV_WR_RDMA_READ || is_atomic_op(w->opcode)))
		vargerror(L, arg, lua_pushfstring(L, "%sopcode %s on a UC QP: UC has no READ or atomics. Both need an"
			" answer from the responder (the data read, the old value), and an unreliable connection has no"
			" responder resources and sends no ACKs or responses; rxe would complete the WR with"
			" LOC_QP_OP_ERR. Use an RC QP, or RDMA_WRITE and SEND on UC", at, op));
	if (u == W_RDMA && !is_rdma_op(w->opcode))
		vargerror(L, arg, lua_pushfstring(L, "%skey 'rdma' with opcode %s, which does not use it: rdma ="
			" { remote_addr =, rkey = } goes with RDMA_WRITE, RDMA_WRITE_WITH_IMM and RDMA_READ", at, op));
	if (u == W_ATOMIC && !is_atomic_op(w->opcode))
		vargerror(L, arg, lua_pushfstring(L, "%skey 'atomic' with opcode %s, which does not use it: atomic ="
			" { remote_addr =, compare_add =, swap =, rkey = } goes with ATOMIC_CMP_AND_SWP and"
			" ATOMIC_FETCH_AND_ADD", at, op));
}

void send_wrs_check(lua_State *L, int arg, struct ibv_qp *qp, struct ibv_send_wr *wrs, const uint8_t *unions,
		    bool is_list)
{
	char path[32];
	int i = 0;
	for (struct ibv_send_wr *w = wrs; w; w = w->next, i++) {
		const char *at = wr_path(path, sizeof path, is_list, i);
		check_union(L, arg, qp, w, unions[i], at);
		if (qp->qp_type == IBV_QPT_UD && !vobj_live_handle(L, &vc_ah, w->wr.ud.ah))
			vargerror(L, arg, lua_pushfstring(L, "%skey 'ud.ah' is required on a UD QP (ud = { ah =, "
				"remote_qpn =, remote_qkey = }; rdma and atomic share its union in C and are not for UD):"
				" the provider would dereference %s", at, w->wr.ud.ah ? "a wild AH pointer" : "a NULL AH"));
		if (qp->qp_type == IBV_QPT_UD && w->wr.ud.ah->context != qp->context)
			ah_other_context(L, arg, qp, w->wr.ud.ah, at);
		if (w->send_flags & IBV_SEND_INLINE)
			for (int s = 0; s < w->num_sge; s++)
				if (!vobj_mr_covers(L, w->sg_list[s].addr, w->sg_list[s].length))
					vargerror(L, arg, lua_pushfstring(L, "%ssg_list[%d]: an INLINE send copies "
						"from addr in this process, and %p..+%I is not inside an MR of verbsh",
						at, s + 1, (void *)(uintptr_t)w->sg_list[s].addr, (lua_Integer)w->sg_list[s].length));
	}
}

/* ---- errors naming a WR ----------------------------------------------------------- */

/* Raises the verb error of a failed post. The bad WR's table is on the top
 * of the stack. Context: { bad_wr=, qp_type=, qp_state=, cap=, wr= }. */
int post_error(lua_State *L, const char *verb, int err, int self, int bad, struct ibv_qp *qp)
{
	/* The verbs return an errno; some providers return -1 with errno set
	 * (siw on a QP not in RTS: ENOTCONN) or a negative errno (siw's refusal
	 * of an opcode iWARP lacks: -EINVAL, errno untouched). The error keeps
	 * the errno, and context.returned what C saw. */
	int returned = err;
	if (err == -1 && errno > 0)
		err = errno;
	else if (err < 0)
		err = -err;
	int wr = lua_gettop(L);
	lua_createtable(L, 0, 7);
	if (returned < 0) {
		lua_pushinteger(L, returned);
		lua_setfield(L, -2, "returned");
	}
	lua_pushinteger(L, bad);
	lua_setfield(L, -2, "bad_wr");
	lua_pushvalue(L, wr);
	lua_setfield(L, -2, "wr");
	if (qp) {
		struct ibv_qp_attr a;
		struct ibv_qp_init_attr ia;
		venum_push(L, &ve_qp_type, qp->qp_type);
		lua_setfield(L, -2, "qp_type");
		vpush_device(L, qp->context);
		struct vnode *qn = vobj_find(L, qp);
		if (ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_CAP, &ia) == 0) {
			bool unreported = false;
			if (qn)
				a.qp_state = vqp_state(qn, &unreported);
			venum_push(L, &ve_qp_state, a.qp_state);
			lua_setfield(L, -2, "qp_state");
			if (unreported) {
				lua_pushboolean(L, 1);
				lua_setfield(L, -2, "state_unreported");
			}
			marsh_push(L, vf_qp_cap, &ia.cap);
			lua_setfield(L, -2, "cap");
		}
	}
	return vraise(L, verb, err, self, -1);
}

/* The 1-based position of bad in the chain that starts at wrs; 1 when the
 * provider left bad unset. */
int wr_bad_index(void *wrs, void *bad, bool send)
{
	int i = 1;
	for (char *w = wrs; w; i++) {
		if (w == bad)
			return i;
		w = send ? (char *)((struct ibv_send_wr *)w)->next : (char *)((struct ibv_recv_wr *)w)->next;
	}
	return 1;
}

