/* Prepared work requests: verbs.send_wr{...} and verbs.recv_wr{...}.
 *
 * A C program fills `struct ibv_send_wr wr` once and calls
 * ibv_post_send(qp, &wr, &bad_wr) in its loop, changing wr.wr_id at most.
 * A prepared WR is that struct (or a chain of them, with their SGEs), read
 * from the same table that qp:post_send takes, by the same code, once. Each
 * post then costs a few checks and the verb itself, instead of walking a
 * table: this is the fast path of loops that post millions of WRs.
 *
 * The MRs and AHs a prepared WR names are kept alive by it, and checked at
 * every post: one destroyed in between is an error, not a stale lkey. */
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include "prepared.h"

const char SEND_WR[] = "verbs.send_wr";
const char RECV_WR[] = "verbs.recv_wr";

static size_t wr_size(bool send) { return send ? sizeof(struct ibv_send_wr) : sizeof(struct ibv_recv_wr); }
static void *wr_at(struct prepared *pw, int i) { return (char *)pw->wrs + (size_t)i * wr_size(pw->send); }

/* Pushes WR i of the argument at idx (a WR, or a list of them). */
static void push_wr(lua_State *L, int idx, bool is_list, int i)
{
	if (is_list)
		lua_rawgeti(L, idx, i + 1);
	else
		lua_pushvalue(L, idx);
}

/* The SGEs the WRs at idx name, to size the prepared WR; the readers check
 * the rest, read raw as here, and refuse more SGEs than counted (a __gc run
 * meanwhile may have changed the tables). */
static int count_sges(lua_State *L, int idx, int count, bool is_list)
{
	int n = 0, top = lua_gettop(L);
	for (int i = 0; i < count; i++) {
		push_wr(L, idx, is_list, i);
		if (lua_istable(L, -1)) {
			lua_pushliteral(L, "sg_list");
			if (lua_rawget(L, -2) == LUA_TTABLE)
				n += (int)lua_rawlen(L, -1);
		}
		lua_settop(L, top);
	}
	return n;
}

/* verbs.send_wr(wr or list) / verbs.recv_wr(wr or list) */
static int prepare(lua_State *L, bool send)
{
	vchecktable(L, 1);
	lua_settop(L, 1);
	int count = wr_count(L, 1);
	bool is_list = count > 0;
	if (!is_list)
		count = 1;
	int nsge = count_sges(L, 1, count, is_list);
	int maxdeps = nsge + count;
	size_t size = sizeof(struct prepared) + (size_t)count * wr_size(send) + (size_t)nsge * sizeof(struct ibv_sge) +
		      (size_t)maxdeps * (sizeof(struct vnode *) + sizeof(struct wr_dep_at)) + (size_t)count;
	struct prepared *pw = lua_newuserdatauv(L, size, 1);   /* index 2 */
	memset(pw, 0, size);
	pw->tag = send ? SEND_WR : RECV_WR;
	pw->send = send;
	pw->count = count;
	pw->nsge = nsge;
	pw->wrs = pw + 1;
	pw->sge = (struct ibv_sge *)((char *)pw->wrs + (size_t)count * wr_size(send));
	pw->deps = (struct vnode **)(pw->sge + nsge);
	pw->dep_at = (struct wr_dep_at *)(pw->deps + maxdeps);
	pw->unions = (uint8_t *)(pw->dep_at + maxdeps);
	lua_newtable(L);   /* 3: the objects named, kept alive with the WR */
	struct sge_pool p = { .sge = pw->sge, .cap = nsge, .arg = 1, .path = "", .deps = pw->deps,
			      .maxdeps = maxdeps, .keep = 3, .dep_at = pw->dep_at };
	wrs_read(L, 1, 1, count, is_list, send, pw->wrs, &p, send ? pw->unions : NULL);
	pw->ndeps = p.ndeps;
	/* A prepared WR keeps the MRs of its SGEs and its AH alive, not a
	 * window and its MR: those are posted as tables. */
	for (int i = 0; send && i < count; i++)
		if ((pw->unions[i] & WR_GAVE_BIND_MW) || ((struct ibv_send_wr *)wr_at(pw, i))->opcode == IBV_WR_BIND_MW)
			return vargerror(L, 1, lua_pushfstring(L, "WR #%d: verbs.send_wr does not prepare BIND_MW (it keeps"
				" the MRs of the SGEs alive, not a window and its MR): post the bind as a table,"
				" qp:post_send{ opcode = \"BIND_MW\", bind_mw = { ... } }", i + 1));
	lua_setiuservalue(L, 2, 1);
	luaL_setmetatable(L, send ? SEND_WR : RECV_WR);
	return 1;
}

static int l_send_wr(lua_State *L) { return prepare(L, true); }
static int l_recv_wr(lua_State *L) { return prepare(L, false); }

/* ---- reading a prepared WR back as a table --------------------------------- */

static void push_sges(lua_State *L, const struct ibv_sge *sg, int n)
{
	lua_createtable(L, n, 0);
	for (int s = 0; s < n; s++) {
		lua_createtable(L, 0, 3);
		lua_pushinteger(L, (lua_Integer)sg[s].addr);
		lua_setfield(L, -2, "addr");
		lua_pushinteger(L, sg[s].length);
		lua_setfield(L, -2, "length");
		lua_pushinteger(L, sg[s].lkey);
		lua_setfield(L, -2, "lkey");
		lua_rawseti(L, -2, s + 1);
	}
}

/* The table a user would have posted for WR i (0-based): the union member
 * the opcode uses, imm_data in host order, SGEs as addr/length/lkey. */
static void push_table(lua_State *L, struct prepared *pw, int i)
{
	if (!pw->send) {
		struct ibv_recv_wr *w = wr_at(pw, i);
		marsh_push(L, vf_recv_wr, w);
		push_sges(L, w->sg_list, w->num_sge);
		lua_setfield(L, -2, "sg_list");
		return;
	}
	struct ibv_send_wr *w = wr_at(pw, i);
	marsh_push(L, vf_send_wr, w);
	push_sges(L, w->sg_list, w->num_sge);
	lua_setfield(L, -2, "sg_list");
	bool rdma = w->opcode == IBV_WR_RDMA_WRITE || w->opcode == IBV_WR_RDMA_WRITE_WITH_IMM ||
		    w->opcode == IBV_WR_RDMA_READ;
	bool atomic = w->opcode == IBV_WR_ATOMIC_CMP_AND_SWP || w->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;
	if (!rdma) {
		lua_pushnil(L);
		lua_setfield(L, -2, "rdma");
	}
	if (!atomic) {
		lua_pushnil(L);
		lua_setfield(L, -2, "atomic");
	}
	lua_pushnil(L);
	lua_setfield(L, -2, "ud");
	lua_pushnil(L);   /* never prepared (prepare refuses it) */
	lua_setfield(L, -2, "bind_mw");
	if (w->opcode == IBV_WR_SEND_WITH_INV || w->opcode == IBV_WR_LOCAL_INV) {
		lua_pushinteger(L, w->invalidate_rkey);
		lua_setfield(L, -2, "invalidate_rkey");
	}
	if (pw->unions[i] == WR_UNION_UD) {
		lua_createtable(L, 0, 3);
		struct vnode *ah = vobj_find(L, w->wr.ud.ah);
		if (!ah || !vobj_push(L, ah))
			lua_pushboolean(L, 0);
		lua_setfield(L, -2, "ah");
		lua_pushinteger(L, w->wr.ud.remote_qpn);
		lua_setfield(L, -2, "remote_qpn");
		lua_pushinteger(L, w->wr.ud.remote_qkey);
		lua_setfield(L, -2, "remote_qkey");
		lua_setfield(L, -2, "ud");
	}
	if (w->opcode == IBV_WR_SEND_WITH_IMM || w->opcode == IBV_WR_RDMA_WRITE_WITH_IMM) {
		lua_pushinteger(L, ntohl(w->imm_data));
		lua_setfield(L, -2, "imm_data");
	}
}

static struct prepared *check(lua_State *L, int idx)
{
	struct prepared *pw = luaL_testudata(L, idx, SEND_WR);
	if (!pw)
		pw = luaL_testudata(L, idx, RECV_WR);
	if (!pw)
		vtypeerror(L, idx, "verbs.send_wr or verbs.recv_wr");
	return pw;
}

/* wr.key: the head WR's field (a chain: wr[i] is the table of WR i). */
static int l_index(lua_State *L)
{
	struct prepared *pw = check(L, 1);
	if (lua_type(L, 2) == LUA_TNUMBER) {
		int isint;
		lua_Integer i = lua_tointegerx(L, 2, &isint);
		if (!isint)
			return luaL_error(L, "%s: WR %s of a chain: an index is an integer (1..%d)",
					  pw->send ? "send_wr" : "recv_wr", lua_tostring(L, 2), pw->count);
		if (i < 1 || i > pw->count)
			return luaL_error(L, "%s: WR %I of a chain of %d", pw->send ? "send_wr" : "recv_wr", i, pw->count);
		push_table(L, pw, (int)i - 1);
		return 1;
	}
	const char *k = luaL_checkstring(L, 2);
	if (strcmp(k, "wr_id") == 0) {   /* the one a loop reads */
		lua_pushinteger(L, (lua_Integer)(pw->send ? ((struct ibv_send_wr *)pw->wrs)->wr_id
							  : ((struct ibv_recv_wr *)pw->wrs)->wr_id));
		return 1;
	}
	const struct vfield *f = pw->send ? vf_send_wr : vf_recv_wr;
	if (!marsh_field(f, k)) {   /* a typo, not a field left unset (nil) */
		const char *near = marsh_closest(f, k);
		return luaL_error(L, "struct %s has no field '%s'%s%s%s", pw->send ? "ibv_send_wr" : "ibv_recv_wr", k,
				  near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
	}
	push_table(L, pw, 0);
	lua_getfield(L, -1, k);
	return 1;
}

/* wr.key = v: sets a field of the head WR, read as post_send reads it. The
 * SGE list and the UD address are fixed: they name objects the WR keeps. */
static int l_newindex(lua_State *L)
{
	struct prepared *pw = check(L, 1);
	const char *k = luaL_checkstring(L, 2);
	static const char *const send_keys[] = { "wr_id", "opcode", "send_flags", "imm_data", "rdma", "atomic", NULL };
	static const char *const recv_keys[] = { "wr_id", NULL };
	const char *const *ok = pw->send ? send_keys : recv_keys;
	int i;
	for (i = 0; ok[i] && strcmp(ok[i], k) != 0; i++)
		;
	if (!ok[i])
		return luaL_error(L, "'%s' of a prepared WR is fixed (settable: %s); prepare another with verbs.%s{...}",
				  k, pw->send ? "wr_id, opcode, send_flags, imm_data, rdma, atomic" : "wr_id",
				  pw->send ? "send_wr" : "recv_wr");
	const struct vfield *f = pw->send ? vf_send_wr : vf_recv_wr;
	while (strcmp(f->name, k) != 0)
		f++;
	char *w = pw->wrs;
	if (f->type == VT_STRUCT)   /* assigning a struct: the keys not given are 0 */
		memset(w + f->offset, 0, f->size);
	if (strcmp(k, "wr_id") != 0 && strcmp(k, "imm_data") != 0)
		pw->ok_at = 0;   /* opcode, flags, union: the next post checks the WR again */
	marsh_read_value(L, 3, 3, f, w, k);
	if (f->type == VT_STRUCT)   /* now the union holds this member (a UD QP will refuse it) */
		pw->unions[0] = strcmp(k, "rdma") == 0 ? WR_UNION_RDMA : WR_UNION_ATOMIC;
	return 0;
}

static int l_len(lua_State *L)
{
	lua_pushinteger(L, check(L, 1)->count);
	return 1;
}

static int l_tostring(lua_State *L)
{
	struct prepared *pw = check(L, 1);
	if (pw->send) {
		struct ibv_send_wr *w = pw->wrs;
		const char *op = venum_name(&ve_wr_opcode, w->opcode);
		lua_pushfstring(L, "send_wr %s wr_id=%I (%d WR%s, %d SGE%s)", op ? op : "?", (lua_Integer)w->wr_id,
				pw->count, pw->count == 1 ? "" : "s", pw->nsge, pw->nsge == 1 ? "" : "s");
	} else
		lua_pushfstring(L, "recv_wr wr_id=%I (%d WR%s, %d SGE%s)",
				(lua_Integer)((struct ibv_recv_wr *)pw->wrs)->wr_id, pw->count, pw->count == 1 ? "" : "s",
				pw->nsge, pw->nsge == 1 ? "" : "s");
	return 1;
}

/* ---- posting --------------------------------------------------------------- */

/* An SGE's lkey, copied when the WR was prepared, that its MR no longer has
 * (mr:rereg gave it new keys): C would post the old key, which the device
 * refuses; said, as C would post it. */
static void stale_lkey(lua_State *L, int idx, struct prepared *pw, const struct wr_dep_at *at, struct ibv_mr *mr)
{
	void *w = wr_at(pw, at->wr);
	struct ibv_sge *sg = (pw->send ? ((struct ibv_send_wr *)w)->sg_list : ((struct ibv_recv_wr *)w)->sg_list) + at->sge - 1;
	if (sg->lkey == mr->lkey)
		return;
	char key[96], was[16], now[16];
	snprintf(was, sizeof was, "0x%x", (unsigned)sg->lkey);   /* (lua_pushfstring has no %x) */
	snprintf(now, sizeof now, "0x%x", (unsigned)mr->lkey);
	vwarn(L, idx, "%s: this prepared WR holds lkey %s, the MR's key when it was prepared; mr:rereg has given the"
		      " MR lkey %s since, and the device refuses the old one (a LOC_PROT_ERR completion), as C would"
		      " post it: prepare the WR again", wr_dep_path(key, sizeof key, pw->count > 1, at), was, now);
}

/* The prepared WR at idx, its objects checked live. A loop posting the same
 * WR to the same QP pays for the checks once: they hold until an object of
 * the state is destroyed or finalized (vobj_changes) or the WR changes. */
__attribute__((noinline))
static struct prepared *recheck(lua_State *L, int self, int idx, bool send, struct vnode *qp, struct prepared *pw)
{
	if (!pw)
		vtypeerror(L, idx, send ? "table or verbs.send_wr" : "table or verbs.recv_wr");
	/* Through the objects the WR keeps, not pw->deps: a __gc called by hand
	 * (getmetatable(mr).__gc(mr)) frees the node while its userdata lives on. */
	lua_getiuservalue(L, idx, 1);
	for (int d = 1; d <= pw->ndeps; d++) {
		lua_rawgeti(L, -1, d);
		struct vnode **ud = lua_touserdata(L, -1), *n = ud ? *ud : NULL;
		char name[32];
		if (!n)
			vargerror(L, idx, "this prepared WR names an object that was finalized (its __gc was called);"
				  " prepare the WR again");
		if (!n->h)
			vargerror(L, idx, lua_pushfstring(L, "this prepared WR names %s, which is destroyed since; "
				"prepare the WR again", vobj_cname(n, name, sizeof name)));
		if (vobj_other_context(n, qp)) {   /* the WR was prepared with no QP to compare with */
			char key[96];
			vobj_wr_context(L, idx, wr_dep_path(key, sizeof key, pw->count > 1, &pw->dep_at[d - 1]), n, qp);
		}
		if (n->cls == &vc_mr)
			stale_lkey(L, idx, pw, &pw->dep_at[d - 1], n->h);
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	if (send)
		send_wrs_check(L, idx, qp->h, pw->wrs, pw->unions, pw->count > 1);
	pw->ok_at = vobj_changes(qp);
	pw->ok_ud = lua_touserdata(L, self);
	pw->ok_node = qp;
	pw->ok_st = qp->st;
	return pw;
}

/* The prepared WR at idx, checked for the live object qp at self. */
static struct prepared *checked(lua_State *L, int self, int idx, bool send, struct vnode *qp)
{
	const char *tag = send ? SEND_WR : RECV_WR;
	struct prepared *pw = prepared_ready(L, self, idx, tag);
	return pw && pw->ok_node == qp ? pw : recheck(L, self, idx, send, qp, vtagged_test(L, idx, tag, sizeof *pw));
}

int prepared_fail(lua_State *L, const char *verb, int err, int self, struct prepared *pw, void *bad, struct ibv_qp *qp)
{
	int badi = wr_bad_index(pw->wrs, bad, pw->send);
	push_table(L, pw, badi - 1);
	return post_error(L, verb, err, self, badi, qp);
}

int prepared_post_send(lua_State *L, struct vnode *n)
{
	struct prepared *pw = checked(L, 1, 2, true, n);
	struct ibv_send_wr *bad = NULL;
	int ret = ibv_post_send(n->h, pw->wrs, &bad);
	if (!ret && n->st->capturing)
		capture_note_posts(L, n, pw->wrs);
	return ret ? prepared_fail(L, "ibv_post_send", ret, 1, pw, bad, n->h) : 0;
}

int prepared_post_recv(lua_State *L, struct vnode *n, int self, int idx, const char *verb, void *h)
{
	struct prepared *pw = checked(L, self, idx, false, n);
	struct ibv_recv_wr *bad = NULL;
	bool srq = n->cls == &vc_srq;
	int ret = srq ? ibv_post_srq_recv(h, pw->wrs, &bad) : ibv_post_recv(h, pw->wrs, &bad);
	return ret ? prepared_fail(L, verb, ret, self, pw, bad, srq ? NULL : h) : 0;
}

void wr_open(lua_State *L)
{
	static const luaL_Reg meta[] = {
		{ "__index", l_index }, { "__newindex", l_newindex }, { "__len", l_len }, { "__tostring", l_tostring },
		{ NULL, NULL }
	};
	luaL_newmetatable(L, SEND_WR);
	luaL_setfuncs(L, meta, 0);
	luaL_newmetatable(L, RECV_WR);
	luaL_setfuncs(L, meta, 0);
	lua_pop(L, 2);
	lua_pushcfunction(L, l_send_wr);
	lua_setfield(L, -2, "send_wr");
	lua_pushcfunction(L, l_recv_wr);
	lua_setfield(L, -2, "recv_wr");
}
