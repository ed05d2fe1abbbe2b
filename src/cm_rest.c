/* The rest of rdma_cma.h, beside cm.c: id options, moving an id to another
 * event channel, rdma_notify, librdmacm's device list and event names, and
 * ECE (which rxe does not negotiate). */
#include <errno.h>
#include <string.h>
#include <rdma/rdma_cma.h>
#include "verbsh.h"

/* id:set_option(level, optname, value): level "ID" (or 0), optname "TOS",
 * "REUSEADDR", "AFONLY" or "ACK_TIMEOUT" (or the C value). The IB level's
 * PATH (a struct ibv_path_data array from an SA query) has no table form. */
static int l_set_option(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	vnoextra(L, 4, "id:set_option(level, optname, value)", NULL);
	static const char *const levels[] = { "ID", "IB", NULL };
	static const char *const names[] = { "TOS", "REUSEADDR", "AFONLY", "ACK_TIMEOUT", NULL };
	/* (compared as Lua integers: cut to an int first, 2^32 would be level 0) */
	lua_Integer level = lua_isinteger(L, 2) ? lua_tointeger(L, 2) : luaL_checkoption(L, 2, NULL, levels);
	if (level == RDMA_OPTION_IB)
		return vargerror(L, 2, "level IB has one option, PATH: an array of struct ibv_path_data that an"
				       " InfiniBand SA query gives; RoCE (rxe) resolves its route by IP (id:resolve_route)");
	if (level != RDMA_OPTION_ID)
		return vargerror(L, 2, lua_pushfstring(L, "level %I: \"ID\" (0) or \"IB\" (1) expected", level));
	lua_Integer opt = lua_isinteger(L, 3) ? lua_tointeger(L, 3) : luaL_checkoption(L, 3, NULL, names);
	uint8_t u8;
	int i;
	void *val;
	size_t len;
	switch (opt) {
	case RDMA_OPTION_ID_TOS:
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		u8 = (uint8_t)marsh_check_uint(L, 4, 4, opt == RDMA_OPTION_ID_TOS ? 255 : 31,
					       opt == RDMA_OPTION_ID_TOS ? "TOS" : "ACK_TIMEOUT");
		val = &u8, len = sizeof u8;
		break;
	case RDMA_OPTION_ID_REUSEADDR:
	case RDMA_OPTION_ID_AFONLY:
		i = lua_isboolean(L, 4) ? lua_toboolean(L, 4) : (int)marsh_check_uint(L, 4, 4, 1, names[opt]);
		val = &i, len = sizeof i;
		break;
	default:
		return vargerror(L, 3, lua_pushfstring(L, "optname %I: TOS, REUSEADDR, AFONLY or ACK_TIMEOUT expected", opt));
	}
	if (rdma_set_option(n->h, (int)level, (int)opt, val, len)) {
		int err = errno;
		lua_createtable(L, 0, 2);
		lua_pushstring(L, names[opt]);
		lua_setfield(L, -2, "optname");
		return vraise(L, "rdma_set_option", err, 1, -1);
	}
	return 0;
}

/* id:migrate(channel): the id's events arrive on channel from now on. */
static int l_migrate(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	vnoextra(L, 2, "id:migrate(channel)", NULL);
	if (lua_isnoneornil(L, 2))
		return vargerror(L, 2, "a cm_channel expected: rdma_migrate_id(id, NULL) makes a channel of its own"
				       " that librdmacm reads synchronously, which no verbsh object could wait on");
	struct vnode *ch = vobj_check(L, 2, &vc_cm_channel);
	/* rdma_migrate_id blocks until every event reported on the id is acked */
	for (struct vnode *o = n->st->all.next; o != &n->st->all; o = o->next)
		if (o->cls == &vc_cm_event && o->h && (o->deps[0] == n || o->deps[1] == n))
			return luaL_error(L, "migrate: an event of this id is not acked yet (ev:ack() it first):"
					     " rdma_migrate_id would wait for it forever");
	if (rdma_migrate_id(n->h, ch->h))
		return vraise(L, "rdma_migrate_id", errno, 1, 0);
	/* the id uses its new channel (deps[0], user value 1) instead of the old
	 * one, which is destroyed now if it was collected already */
	if (n->deps[0] != ch)
		vobj_replace_dep(L, 1, 0, 2);
	return 0;
}

/* id:notify(event): tells librdmacm of an async event (COMM_EST) */
static int l_notify(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	vnoextra(L, 2, "id:notify(event)", NULL);
	int64_t ev;
	const char *e = venum_read(L, 2, &ve_event_type, &ev);
	if (e)
		return vargerror(L, 2, e);
	if (rdma_notify(n->h, (enum ibv_event_type)ev))
		return vraise(L, "rdma_notify", errno, 1, 0);
	return 0;
}

static void ece_push(lua_State *L, const struct ibv_ece *e)
{
	lua_createtable(L, 0, 3);
	lua_pushinteger(L, e->vendor_id);
	lua_setfield(L, -2, "vendor_id");
	lua_pushinteger(L, e->options);
	lua_setfield(L, -2, "options");
	lua_pushinteger(L, e->comp_mask);
	lua_setfield(L, -2, "comp_mask");
}

/* id:set_local_ece(vendor_id, options) */
static int l_set_local_ece(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	vnoextra(L, 3, "id:set_local_ece(vendor_id, options)", NULL);
	struct ibv_ece e = { .vendor_id = (uint32_t)marsh_check_uint(L, 2, 2, 0xffffffff, "vendor_id"),
			     .options = (uint32_t)marsh_check_uint(L, 3, 3, 0xffffffff, "options") };
	if (rdma_set_local_ece(n->h, &e))
		return vraise(L, "rdma_set_local_ece", errno, 1, 0);
	return 0;
}

/* id:get_remote_ece() -> { vendor_id=, options=, comp_mask= } */
static int l_get_remote_ece(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	vnoextra(L, 1, "id:get_remote_ece()", NULL);
	struct ibv_ece e = { 0 };
	if (rdma_get_remote_ece(n->h, &e))
		return vraise(L, "rdma_get_remote_ece", errno, 1, 0);
	ece_push(L, &e);
	return 1;
}

/* id:reject_ece([private_data]): a reject that carries the ECE options */
static int l_reject_ece(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	vnoextra(L, 2, "id:reject_ece([private_data])", NULL);
	size_t len = 0;
	const char *data = lua_isnoneornil(L, 2) ? NULL : luaL_checklstring(L, 2, &len);
	if (len > 255)
		return vargerror(L, 2, "private_data is longer than 255 bytes (its length is a uint8_t)");
	if (rdma_reject_ece(n->h, data, (uint8_t)len))
		return vraise(L, "rdma_reject_ece", errno, 1, 0);
	return 0;
}

/* verbs.get_devices() -> the contexts librdmacm opened, one per device (its own: never closed here) */
static int l_get_devices(lua_State *L)
{
	vnoextra(L, 0, "verbs.get_devices()", NULL);
	int num = 0;
	struct ibv_context **list = rdma_get_devices(&num);
	if (!list)
		return vraise(L, "rdma_get_devices", errno, 0, 0);
	lua_createtable(L, num, 0);
	for (int i = 0; i < num; i++) {
		struct vnode *c = vobj_find(L, list[i]);
		if (!(c && c->cls == &vc_context && vobj_push(L, c))) {
			c = vobj_new(L, &vc_context, 0, NULL);
			vctx(c)->librdmacm_owned = true;
			vobj_set(c, list[i]);
		}
		lua_rawseti(L, -2, i + 1);
	}
	rdma_free_devices(list);
	return 1;
}

/* verbs.event_str(event) -> "RDMA_CM_EVENT_ESTABLISHED" */
static int l_event_str(lua_State *L)
{
	vnoextra(L, 1, "verbs.event_str(event)", NULL);
	int64_t ev;
	const char *e = venum_read(L, 1, &ve_cm_event_type, &ev);
	if (e)
		return vargerror(L, 1, e);
	lua_pushstring(L, rdma_event_str((enum rdma_cm_event_type)ev));
	return 1;
}

/* id:create_qp_ex{ pd=, qp_type=, send_cq=, recv_cq=, srq=, cap=, send_ops_flags=, ... }:
 * rdma_create_qp_ex, the id's QP with the new post-send API (qp:wr_start ...) */
static int l_create_qp_ex(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	struct rdma_cm_id *id = n->h;
	struct ibv_qp_init_attr_ex ia;
	memset(&ia, 0, sizeof ia);
	vnoextra(L, 2, "id:create_qp_ex(attr)", NULL);
	vchecktable(L, 2);
	lua_settop(L, 2);
	uint64_t mask = marsh_read(L, 2, 2, vf_qp_init_attr_ex, &ia);
	lua_pushliteral(L, "comp_mask");
	if (lua_rawget(L, 2) == LUA_TNIL)
		ia.comp_mask = (uint32_t)mask;
	lua_pop(L, 1);
	if (!ia.pd)
		return vargerror(L, 2, "key 'pd' is required (rdma_create_qp_ex takes the PD in the attributes, with"
				       " IBV_QP_INIT_ATTR_PD in comp_mask)");
	qp_check_required(L, 2, ia.send_cq, ia.recv_cq, ia.qp_type, "\"RC\" on a TCP id, \"UD\" on a UDP id");
	if (id->qp)
		return luaL_error(L, "create_qp_ex: this id already has a QP (id.qp); an rdma_cm_id holds one");
	struct vnode *used[QP_NDEPS] = { [QP_DEP_PD] = vobj_field(L, 2, 2, "pd", &vc_pd, &ia.pd) };   /* 3 */
	struct vnode *owner = ((struct ibv_pd *)ia.pd)->context == id->verbs ? used[QP_DEP_PD] : NULL;
	qp_read_deps(L, 2, 2, &ia.send_cq, &ia.recv_cq, &ia.srq, owner, used);   /* 4, 5, 6 */
	used[QP_DEP_CM_ID] = n;
	int deps[QP_NDEPS] = { [QP_DEP_PD] = 3, [QP_DEP_SEND_CQ] = 4, [QP_DEP_RECV_CQ] = 5, [QP_DEP_SRQ] = 6,
			       [QP_DEP_CM_ID] = 1 };
	struct vnode *q = vobj_new(L, &vc_qp, QP_NDEPS, deps);
	vobj_recheck(L, 2, used, QP_NDEPS);
	if (rdma_create_qp_ex(id, &ia)) {
		int err = errno;
		lua_createtable(L, 0, 2);
		lua_pushboolean(L, id->verbs != NULL);
		lua_setfield(L, -2, "bound");
		return vraise_create(L, "rdma_create_qp_ex", err, 1);
	}
	vobj_set(q, id->qp);
	vqp(q)->ex = (ia.comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) && ibv_qp_to_qp_ex(id->qp) != NULL;
	vqp(q)->send_ops_flags = ia.send_ops_flags;
	return 1;
}

void cm_rest_open(lua_State *L)
{
	static const luaL_Reg id_fns[] = {
		{ "set_option", l_set_option }, { "migrate", l_migrate }, { "notify", l_notify },
		{ "set_local_ece", l_set_local_ece }, { "get_remote_ece", l_get_remote_ece },
		{ "reject_ece", l_reject_ece }, { "create_qp_ex", l_create_qp_ex }, { NULL, NULL }
	};
	static const luaL_Reg fns[] = { { "get_devices", l_get_devices }, { "event_str", l_event_str }, { NULL, NULL } };
	api_add_methods(L, "verbs.cm_id", id_fns);
	luaL_setfuncs(L, fns, 0);
}
