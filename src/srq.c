/* Shared receive queues: receives posted once, consumed by any QP created
 * with srq = this SRQ. */
#include <errno.h>
#include <stdio.h>
#include "verbsh.h"

#define SA(m, b) VF(struct ibv_srq_attr, m, VT_UINT, .bit = (b))
const struct vfield vf_srq_attr[] = {
	SA(max_wr, IBV_SRQ_MAX_WR), SA(max_sge, 0), SA(srq_limit, IBV_SRQ_LIMIT), VF_END
};

/* An SRQ that rdma_create_srq made uses its cm_id (its second dependency)
 * and goes through it: rdma_destroy_srq also destroys the CQ librdmacm made. */
static int srq_destroy(struct vnode *n)
{
	if (n->deps[1] && n->deps[1]->cls == &vc_cm_id)
		return cm_destroy_srq(n->deps[1]);
	return ibv_destroy_srq(n->h);
}

static void srq_describe(lua_State *L, struct vnode *n)
{
	struct ibv_srq_attr a;
	if (ibv_query_srq(n->h, &a) == 0)
		lua_pushfstring(L, "max_wr %d max_sge %d srq_limit %d", (int)a.max_wr, (int)a.max_sge, (int)a.srq_limit);
	else
		lua_pushfstring(L, "handle %d", (int)((struct ibv_srq *)n->h)->handle);
}

/* pd:create_srq{ max_wr=, max_sge=, srq_limit= } */
int srq_create(lua_State *L)
{
	struct vnode *p = vobj_check(L, 1, &vc_pd);
	struct ibv_srq_init_attr ia = { 0 };
	int deps[] = { 1 };

	vchecktable(L, 2);
	marsh_read(L, 2, 2, vf_srq_attr, &ia.attr);
	struct vnode *n = vobj_new(L, &vc_srq, 1, deps);
	struct ibv_srq *srq = ibv_create_srq(p->h, &ia);
	int err = errno;
	if (!srq) {
		lua_createtable(L, 0, 1);
		return vraise_create(L, "ibv_create_srq", err, 1);
	}
	vobj_set(n, srq);
	return 1;
}

/* srq:modify(attr [, mask]) */
static int l_modify(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_srq);
	struct ibv_srq_attr a = { 0 };
	int64_t given;
	const char *e;

	vchecktable(L, 2);
	lua_settop(L, 3);
	uint64_t mask = marsh_read(L, 2, 2, vf_srq_attr, &a);
	lua_pushliteral(L, "max_sge");
	if (lua_rawget(L, 2) != LUA_TNIL)   /* raw, as the marshaller read the table */
		return vargerror(L, 2, "key 'max_sge' is fixed when the SRQ is created (pd:create_srq);"
				       " ibv_modify_srq changes only max_wr and srq_limit");
	lua_pop(L, 1);
	if (!lua_isnil(L, 3)) {
		if ((e = venum_read(L, 3, &ve_srq_attr_mask, &given)))
			return vargerror(L, 3, e);
		mask = (uint64_t)given;
	} else if (mask == 0) {
		return vargerror(L, 2, "no attributes: ibv_modify_srq with attr_mask 0 changes nothing; give max_wr or"
				       " srq_limit");
	}
	int ret = ibv_modify_srq(n->h, &a, (int)mask);
	if (ret) {
		lua_createtable(L, 0, 2);
		vflags_push(L, &ve_srq_attr_mask, mask);
		lua_setfield(L, -2, "mask");
		lua_pushvalue(L, 2);
		lua_setfield(L, -2, "attr");
		return vraise(L, "ibv_modify_srq", ret, 1, -1);
	}
	return 0;
}

/* srq:query() -> { max_wr=, max_sge=, srq_limit= } */
static int l_query(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_srq);
	vnoextra(L, 1, "srq:query()", NULL);
	struct ibv_srq_attr a;
	int ret = ibv_query_srq(n->h, &a);
	if (ret)
		return vraise(L, "ibv_query_srq", ret, 1, 0);
	marsh_push(L, vf_srq_attr, &a);
	return 1;
}

/* srq:post_recv(wr or list of WRs) */
static int l_post_recv(lua_State *L)
{
	return post_recv_list(L, vobj_check(L, 1, &vc_srq), "ibv_post_srq_recv");
}

static const luaL_Reg srq_methods[] = {
	{ "modify", l_modify }, { "query", l_query }, { "post_recv", l_post_recv }, { NULL, NULL }
};

const struct vclass vc_srq = {
	.index = VC_SRQ,
	.kind = "srq", .var = "srq", .tname = "verbs.srq", .destroy_verb = "ibv_destroy_srq",
	.destroy_method = "destroy", .destroy = srq_destroy, .describe = srq_describe, .methods = srq_methods,
};

void srq_open(lua_State *L)
{
	vobj_register(L, &vc_srq);
}
