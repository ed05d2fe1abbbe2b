/* Address handles, and the ibv_ah_attr / ibv_global_route descriptors that
 * qp:modify (ah_attr, alt_ah_attr) shares with pd:create_ah. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include "verbsh.h"

#define GR(m, t, ...) VF(struct ibv_global_route, m, t, __VA_ARGS__)
const struct vfield vf_global_route[] = {
	GR(dgid, VT_GID), GR(flow_label, VT_UINT, .max = 0xfffff), GR(sgid_index, VT_UINT),
	GR(hop_limit, VT_UINT), GR(traffic_class, VT_UINT),
	VF_END
};

#define AA(m, t, ...) VF(struct ibv_ah_attr, m, t, __VA_ARGS__)
const struct vfield vf_ah_attr[] = {
	AA(grh, VT_STRUCT, .sub = vf_global_route), AA(dlid, VT_UINT), AA(sl, VT_UINT, .max = 15),
	AA(src_path_bits, VT_UINT, .max = 127), AA(static_rate, VT_UINT), AA(is_global, VT_UINT, .max = 1),
	AA(port_num, VT_UINT),
	VF_END
};

static int ah_destroy(struct vnode *n) { return ibv_destroy_ah(n->h); }

static void ah_describe(lua_State *L, struct vnode *n)
{
	lua_pushfstring(L, "handle %d", (int)((struct ibv_ah *)n->h)->handle);
}

/* pd:create_ah{ is_global=, port_num=, grh={dgid=, sgid_index=, hop_limit=}, ... } */
int ah_create(lua_State *L)
{
	struct vnode *p = vobj_check(L, 1, &vc_pd);
	struct ibv_ah_attr a = { 0 };
	int deps[] = { 1 };

	vchecktable(L, 2);
	marsh_read(L, 2, 2, vf_ah_attr, &a);
	struct vnode *n = vobj_new(L, &vc_ah, 1, deps);
	struct ibv_ah *ah = ibv_create_ah(p->h, &a);
	int err = errno;
	if (!ah) {
		lua_createtable(L, 0, 2);
		vpush_device(L, ((struct ibv_pd *)p->h)->context);
		return vraise(L, "ibv_create_ah", err, 1, -1);
	}
	vobj_set(n, ah);
	return 1;
}

/* The WC at arg (as cq:poll gave it, or a table of its fields) and the
 * 40-byte GRH (a string: mr:read(offset, 40)) at arg+1. */
static const void *read_wc_grh(lua_State *L, int arg, struct ibv_wc *wc)
{
	size_t len = 0;
	const struct ibv_wc *got = wc_test(L, arg);
	if (got)
		*wc = *got;   /* as cq:poll gave it */
	else {
		if (!lua_istable(L, arg))
			vtypeerror(L, arg, "ibv_wc (a completion from cq:poll) or table");
		memset(wc, 0, sizeof *wc);
		marsh_read(L, arg, arg, vf_wc, wc);
	}
	/* lua_tolstring would turn a number into a string in place: the type first */
	const char *grh = lua_type(L, arg + 1) == LUA_TSTRING ? lua_tolstring(L, arg + 1, &len) : NULL;
	if (!grh || len != sizeof(struct ibv_grh))
		vargerror(L, arg + 1, lua_pushfstring(L, "the %d-byte GRH in front of the payload expected"
						      " (mr:read(offset, 40)), got %s", (int)sizeof(struct ibv_grh),
						      lua_type(L, arg + 1) == LUA_TSTRING ? "a string of another length" :
						      luaL_typename(L, arg + 1)));
	if (!(wc->wc_flags & IBV_WC_GRH))
		vargerror(L, arg, "this WC has no GRH (wc_flags lacks \"GRH\"): on RoCE every UD receive carries one");
	return grh;
}

/* ctx:init_ah_from_wc(port_num, wc, grh) -> ah_attr: the address that
 * answers the sender of a received datagram. */
int ah_init_from_wc(lua_State *L)
{
	struct vnode *c = vobj_check(L, 1, &vc_context);
	uint8_t port = (uint8_t)marsh_check_uint(L, 2, 2, 255, "port_num");
	struct ibv_wc wc;
	struct ibv_ah_attr a;
	const void *grh = read_wc_grh(L, 3, &wc);
	memset(&a, 0, sizeof a);
	int ret = ibv_init_ah_from_wc(c->h, port, &wc, (struct ibv_grh *)grh, &a);
	if (ret)
		return vraise(L, "ibv_init_ah_from_wc", ret < 0 ? -ret : ret, 1, 0);
	marsh_push(L, vf_ah_attr, &a);
	return 1;
}

/* pd:create_ah_from_wc(wc, grh, port_num) */
int ah_create_from_wc(lua_State *L)
{
	struct vnode *p = vobj_check(L, 1, &vc_pd);
	struct ibv_wc wc;
	const void *grh = read_wc_grh(L, 2, &wc);
	uint8_t port = (uint8_t)marsh_check_uint(L, 4, 4, 255, "port_num");
	int deps[] = { 1 };
	lua_settop(L, 4);
	struct vnode *n = vobj_new(L, &vc_ah, 1, deps);
	struct ibv_ah *ah = ibv_create_ah_from_wc(p->h, &wc, (struct ibv_grh *)grh, port);
	int err = errno;
	if (!ah)
		return vraise(L, "ibv_create_ah_from_wc", err, 1, 0);
	vobj_set(n, ah);
	return 1;
}

const struct vclass vc_ah = {
	.index = VC_AH,
	.kind = "ah", .var = "ah", .tname = "verbs.ah", .destroy_verb = "ibv_destroy_ah",
	.destroy_method = "destroy", .destroy = ah_destroy, .describe = ah_describe,
	.methods = (const luaL_Reg[]){ { NULL, NULL } },
};
