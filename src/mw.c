/* Memory windows: pd:alloc_mw(type), qp:bind_mw(mw, mw_bind), mw:dealloc()
 * and verbs.inc_rkey. A window is a second rkey onto part of an MR that the
 * owner grants and revokes without re-registering the memory:
 *   - type 1 is bound by ibv_bind_mw (qp:bind_mw), which posts the bind on a
 *     QP and writes the window's next rkey into mw->rkey; it is revoked by
 *     binding it again (length 0) or by freeing it;
 *   - type 2 is bound by a BIND_MW work request (qp:post_send or
 *     qp:wr_bind_mw) with an rkey the caller chose (verbs.inc_rkey(mw.rkey)),
 *     and revoked by LOCAL_INV or by the peer's SEND_WITH_INV.
 *
 * What the provider would crash on is refused here: rxe's bind reads
 * bind_info.mr->lkey, so a window is never bound without an MR (an unbind
 * is an MR with length 0). What C accepts but fails later, in a completion
 * (an MR without MW_BIND, a range past the MR), is warned about. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "verbsh.h"

/* A type 2 window's rkey as the last BIND_MW WR posted gave it: rxe checks
 * a bind's bind_mw.mw->rkey against the window's current rkey, and C's
 * struct ibv_mw is not written by a WR, so a second bind needs
 * mw->rkey = that rkey first (mw.rkey = k here, as in C). */
struct vmw {
	struct vnode n;
	bool posted;                     /* a BIND_MW WR named it */
	uint32_t posted_rkey;            /* the rkey that WR gave it */
};
VCLASS_DATA(vmw, vmw)

/* Whether a window that a BIND_MW work request named is still allocated in
 * this state. In rxe a type 2 window bound through a QP holds that QP until
 * it is deallocated or invalidated: ibv_destroy_qp then waits 50 s and the
 * kernel logs a warning. So while there is one, qp:destroy() first collects
 * the garbage, which deallocates the windows a program dropped (C has no
 * such windows: there a dropped window is a leak). A walk of the state's
 * nodes: a QP is destroyed seldom. */
bool mw_bound_any(struct vstate *st)
{
	for (struct vnode *m = st->all.next; m != &st->all; m = m->next)
		if (m->cls == &vc_mw && m->h && vmw(m)->posted)
			return true;
	return false;
}

static int mw_destroy(struct vnode *n) { return ibv_dealloc_mw(n->h); }

/* mw.rkey = k: C's mw->rkey = k, which a program writes after it bound a
 * type 2 window with a work request. */
static int mw_setfield(lua_State *L, struct vnode *n, const char *key, int vidx)
{
	if (strcmp(key, "rkey") != 0)
		return 0;
	int isint;
	lua_Integer v = lua_tointegerx(L, vidx, &isint);
	if (lua_type(L, vidx) != LUA_TNUMBER || !isint || v < 0 || v > 0xffffffff)
		return luaL_error(L, "mw.rkey: a 32-bit rkey expected, got %s", luaL_tolstring(L, vidx, NULL));
	((struct ibv_mw *)n->h)->rkey = (uint32_t)v;
	return 1;
}

void mw_note_bind(lua_State *L, struct ibv_mw *mw, uint32_t rkey)
{
	struct vnode *n = vobj_find(L, mw);
	if (!n)
		return;
	vmw(n)->posted = true;
	vmw(n)->posted_rkey = rkey;
}

static void mw_describe(lua_State *L, struct vnode *n)
{
	struct ibv_mw *mw = n->h;
	const char *t = venum_name(&ve_mw_type, mw->type);
	char s[64];
	snprintf(s, sizeof s, "%s rkey 0x%x", t ? t : "?", mw->rkey);
	lua_pushstring(L, s);
}

static int mw_field(lua_State *L, struct vnode *n, const char *key)
{
	struct ibv_mw *mw = n->h;
	if (strcmp(key, "rkey") == 0)
		lua_pushinteger(L, mw->rkey);
	else if (strcmp(key, "handle") == 0)
		lua_pushinteger(L, mw->handle);
	else if (strcmp(key, "type") == 0)
		venum_push(L, &ve_mw_type, mw->type);
	else if (strcmp(key, "pd") == 0) {
		if (!vobj_push(L, n->deps[0]))
			lua_pushnil(L);
	} else
		return 0;
	return 1;
}

/* pd:alloc_mw(type) */
int pd_alloc_mw(lua_State *L)
{
	struct vnode *p = vobj_check(L, 1, &vc_pd);
	int64_t type;
	const char *e;
	vnoextra(L, 2, "pd:alloc_mw(type)", NULL);
	if (lua_isnoneornil(L, 2))
		return vargerror(L, 2, "type expected: \"TYPE_1\" (bound with qp:bind_mw) or \"TYPE_2\" (bound with a "
				       "BIND_MW work request)");
	if ((e = venum_read(L, 2, &ve_mw_type, &type)))
		return vargerror(L, 2, e);
	int deps[] = { 1 };
	struct vnode *n = vobj_new(L, &vc_mw, 1, deps);
	struct ibv_mw *mw = ibv_alloc_mw(p->h, (enum ibv_mw_type)type);
	int err = errno;
	if (!mw) {
		lua_createtable(L, 0, 1);
		venum_push(L, &ve_mw_type, type);
		lua_setfield(L, -2, "type");
		return vraise(L, "ibv_alloc_mw", err ? err : EOPNOTSUPP, 1, -1);
	}
	vobj_set(n, mw);
	return 1;
}

/* ---- binding ------------------------------------------------------------- */

typedef __typeof__(((struct ibv_send_wr *)0)->bind_mw) wr_bind_mw_t;
const struct vfield vf_mw_bind_info[] = {
	VF(struct ibv_mw_bind_info, mr, VT_OBJ, .cls = &vc_mr), VF(struct ibv_mw_bind_info, addr, VT_UINT),
	VF(struct ibv_mw_bind_info, length, VT_UINT),
	VF(struct ibv_mw_bind_info, mw_access_flags, VT_FLAGS, .en = &ve_access),
	VF_END
};
const struct vfield vf_mw_bind[] = {
	VF(struct ibv_mw_bind, wr_id, VT_UINT), VF(struct ibv_mw_bind, send_flags, VT_FLAGS, .en = &ve_send_flags),
	VF(struct ibv_mw_bind, bind_info, VT_STRUCT, .sub = vf_mw_bind_info),
	VF_END
};
const struct vfield vf_wr_bind_mw[] = {
	VF(wr_bind_mw_t, mw, VT_OBJ, .cls = &vc_mw), VF(wr_bind_mw_t, rkey, VT_UINT),
	VF(wr_bind_mw_t, bind_info, VT_STRUCT, .sub = vf_mw_bind_info),
	VF_END
};

/* The MR node of a bind_info whose mr the marshaller stored. */
static struct vnode *info_mr(lua_State *L, const struct ibv_mw_bind_info *b)
{
	return b->mr ? vobj_find(L, b->mr) : NULL;
}

void mw_bind_check(lua_State *L, int arg, const char *at, struct vnode *qp, struct ibv_mw *mw, int mw_arg,
		   const struct ibv_mw_bind_info *b)
{
	/* where the window and bind_info are: arguments of qp:bind_mw and
	 * wr_bind_mw, keys of a WR's bind_mw (at: the WR's own path) */
	char win[48], info[48], key[64];
	snprintf(win, sizeof win, mw_arg ? "mw" : "%sbind_mw.mw", at);
	snprintf(info, sizeof info, "%s%sbind_info", at, mw_arg ? "" : "bind_mw.");
	if (!mw)
		vargerror(L, arg, lua_pushfstring(L, "key '%s' is required: the window to bind (pd:alloc_mw"
			"(\"TYPE_2\")); the provider reads mw->rkey", win));
	if (!b->mr)
		vargerror(L, arg, lua_pushfstring(L, "key '%s.mr' is required: the MR the window opens onto. "
			"rxe's provider reads bind_info.mr->lkey even to unbind, so a NULL MR would crash it; to revoke"
			" a type 1 window bind it again with the MR and length = 0, a type 2 window with LOCAL_INV", info));
	struct vnode *w = vobj_find(L, mw), *m = info_mr(L, b);
	if (w && vmw(w)->posted && mw->rkey != vmw(w)->posted_rkey) {
		char now[16], last[16];
		snprintf(now, sizeof now, "0x%x", mw->rkey);
		snprintf(last, sizeof last, "0x%x", vmw(w)->posted_rkey);
		vwarn(L, arg, "%s->rkey is %s, but the last BIND_MW gave the window rkey %s: rxe checks the"
			      " bind against the window's current rkey and completes it with MW_BIND_ERR; set mw.rkey ="
			      " %s first (C: mw->rkey = rkey; a work request does not write struct ibv_mw)", win, now, last,
		      last);
	}
	snprintf(key, sizeof key, "%s.mr", info);
	if (m && vobj_other_context(m, qp))
		vobj_wr_context(L, arg, key, m, qp);
	if (w && vobj_other_context(w, qp))   /* (an argument is named by its number alone) */
		vobj_wr_context(L, mw_arg ? mw_arg : arg, mw_arg ? NULL : win, w, qp);
	if (!m)
		return;
	/* What the device checks only when the bind runs: the completion would
	 * say MW_BIND_ERR and the QP go to ERR. */
	int access = vmr(m)->access;
	if (!(access & IBV_ACCESS_MW_BIND))
		vwarn(L, arg, "%s.mr was registered without MW_BIND: the bind will complete with MW_BIND_ERR"
			      " and the QP go to ERR (register it with { ..., \"MW_BIND\" })", info);
	uint64_t start = (uintptr_t)b->mr->addr, len = b->mr->length;
	if (!(b->mw_access_flags & IBV_ACCESS_ZERO_BASED) && b->length &&
	    (b->addr < start || b->addr - start > len || b->length > len - (b->addr - start)))
		vwarn(L, arg, "%s: the window %p..+%I is not inside its MR (%p..+%I): the bind will complete with"
			      " MW_BIND_ERR and the QP go to ERR", info, (void *)(uintptr_t)b->addr, (lua_Integer)b->length,
		      (void *)(uintptr_t)start, (lua_Integer)len);
	if ((b->mw_access_flags & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IBV_ACCESS_LOCAL_WRITE))
		vwarn(L, arg, "%s: a writable window needs an MR with LOCAL_WRITE: the bind will complete with"
			      " MW_BIND_ERR", info);
}

/* qp:bind_mw(mw, { wr_id =, send_flags =, bind_info = { mr =, addr =, length =, mw_access_flags = } })
 * -> the window's new rkey (C's mw->rkey after ibv_bind_mw) */
int qp_bind_mw(lua_State *L)
{
	struct vnode *q = vobj_check(L, 1, &vc_qp);
	struct vnode *w = vobj_check(L, 2, &vc_mw);
	struct ibv_mw_bind b;
	vnoextra(L, 3, "qp:bind_mw(mw, mw_bind)", NULL);
	vchecktable(L, 3);
	memset(&b, 0, sizeof b);
	marsh_read(L, 3, 3, vf_mw_bind, &b);
	qp_ex_idle(L, q, "bind_mw");
	struct ibv_mw *mw = w->h;
	mw_bind_check(L, 3, "", q, mw, 2, &b.bind_info);
	uint32_t before = mw->rkey;
	int ret = ibv_bind_mw(q->h, mw, &b);
	if (!ret)
		return lua_pushinteger(L, mw->rkey), 1;
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	lua_createtable(L, 0, 8);
	venum_push(L, &ve_mw_type, mw->type);
	lua_setfield(L, -2, "mw_type");
	lua_pushinteger(L, before);
	lua_setfield(L, -2, "rkey");
	venum_push(L, &ve_qp_type, ((struct ibv_qp *)q->h)->qp_type);
	lua_setfield(L, -2, "qp_type");
	if (ibv_query_qp(q->h, &a, IBV_QP_STATE, &ia) == 0) {
		venum_push(L, &ve_qp_state, a.qp_state);
		lua_setfield(L, -2, "qp_state");
	}
	vflags_push(L, &ve_access, b.bind_info.mw_access_flags);
	lua_setfield(L, -2, "mw_access_flags");
	lua_pushboolean(L, b.bind_info.mr->pd != mw->pd);
	lua_setfield(L, -2, "other_pd");
	return vraise(L, "ibv_bind_mw", ret, 1, -1);
}

/* verbs.inc_rkey(rkey): the same window index with the next 8-bit key, as
 * ibv_inc_rkey computes it: (rkey & ~0xff) | ((rkey + 1) & 0xff). */
static int l_inc_rkey(lua_State *L)
{
	vnoextra(L, 1, "verbs.inc_rkey(rkey)", NULL);
	uint32_t rkey = (uint32_t)marsh_check_uint(L, 1, 1, 0xffffffffu, "rkey");
	lua_pushinteger(L, ibv_inc_rkey(rkey));
	return 1;
}

static const luaL_Reg mw_methods[] = { { NULL, NULL } };

const struct vclass vc_mw = {
	.size = sizeof(struct vmw),
	.index = VC_MW, .setfield = mw_setfield,
	.kind = "mw", .var = "mw", .tname = "verbs.mw", .destroy_verb = "ibv_dealloc_mw",
	.destroy_method = "dealloc", .destroy = mw_destroy, .describe = mw_describe, .field = mw_field,
	.fields = (const char *const[]){ "rkey", "handle", "type", "pd", NULL },
	.methods = mw_methods,
};

void mw_open(lua_State *L)
{
	vobj_register(L, &vc_mw);
	lua_pushcfunction(L, l_inc_rkey);
	lua_setfield(L, -2, "inc_rkey");
}
