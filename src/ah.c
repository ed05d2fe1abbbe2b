/* Address handles, and the ibv_ah_attr / ibv_global_route descriptors that
 * qp:modify (ah_attr, alt_ah_attr) shares with pd:create_ah. */
#include <errno.h>
#include <stdio.h>
#include "verbsh.h"

#define GR(m, t, ...) VF(struct ibv_global_route, m, t, __VA_ARGS__)
static const struct vfield vf_global_route[] = {
	GR(dgid, VT_GID), GR(flow_label, VT_UINT, .max = 0xfffff), GR(sgid_index, VT_UINT),
	GR(hop_limit, VT_UINT), GR(traffic_class, VT_UINT),
	VF_END
};

#define AA(m, t, ...) VF(struct ibv_ah_attr, m, t, __VA_ARGS__)
const struct vfield vf_ah_attr[] = {
	AA(grh, VT_STRUCT, .sub = vf_global_route), AA(dlid, VT_UINT), AA(sl, VT_UINT, .max = 15),
	AA(src_path_bits, VT_UINT), AA(static_rate, VT_UINT), AA(is_global, VT_UINT, .max = 1),
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
	vm_read(L, 2, 2, vf_ah_attr, &a);
	struct vnode *n = vobj_new(L, &vc_ah, 1, deps);
	struct ibv_ah *ah = ibv_create_ah(p->h, &a);
	int err = errno;
	if (vrecording) {
		char call[64], x[32], y[32];
		luaL_Buffer b;
		luaL_buffinit(L, &b);
		luaL_addstring(&b, "struct ibv_ah_attr ah_attr = ");
		vm_c_init(&b, vf_ah_attr, &a);
		luaL_addchar(&b, ';');
		luaL_pushresult(&b);
		snprintf(call, sizeof call, "ibv_create_ah(%s, &ah_attr)", vobj_cname(p, x, sizeof x));
		vrecord(L, lua_tostring(L, -1), call, ah ? vobj_cname(n, y, sizeof y) : "NULL");
		lua_pop(L, 1);
	}
	if (!ah)
		return vraise(L, "ibv_create_ah", err, 1, 0);
	vobj_set(n, ah);
	return 1;
}

struct vclass vc_ah = {
	.kind = "ah", .var = "ah", .tname = "verbs.ah", .destroy_verb = "ibv_destroy_ah",
	.destroy_method = "destroy", .destroy = ah_destroy, .describe = ah_describe,
	.methods = (const luaL_Reg[]){ { NULL, NULL } },
};
