/* Devices and device contexts: verbs.devices(), verbs.open(), and the
 * methods of a context (queries, PDs, completion channels, CQs, async
 * events). */
#include <errno.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <endian.h>
#include "verbsh.h"
#include "interrupt.h"

/* aux != 0: a context librdmacm opened (cm_id.verbs). It stays open while
 * librdmacm is loaded; closing it is not ours to do. */
static int ctx_destroy(struct vnode *n) { return vctx(n)->librdmacm_owned ? 0 : ibv_close_device(n->h); }

static const char *ctx_refuse_destroy(struct vnode *n)
{
	return vctx(n)->librdmacm_owned ? "this context is librdmacm's (cm_id.verbs): librdmacm opened it and closes it itself;"
			" in C you never call ibv_close_device on id->verbs" : NULL;
}

static void ctx_describe(lua_State *L, struct vnode *n)
{
	struct ibv_context *c = n->h;
	lua_pushstring(L, ibv_get_device_name(c->device));
}

static int ctx_field(lua_State *L, struct vnode *n, const char *key)
{
	struct ibv_context *c = n->h;
	if (strcmp(key, "name") == 0)
		lua_pushstring(L, ibv_get_device_name(c->device));
	else if (strcmp(key, "async_fd") == 0)
		lua_pushinteger(L, c->async_fd);
	else if (strcmp(key, "num_comp_vectors") == 0)
		lua_pushinteger(L, c->num_comp_vectors);
	else
		return 0;
	return 1;
}

static void push_guid(lua_State *L, __be64 g)
{
	uint64_t v = be64toh(g);
	char s[24];
	snprintf(s, sizeof s, "%04x:%04x:%04x:%04x", (unsigned)(v >> 48) & 0xffff, (unsigned)(v >> 32) & 0xffff,
		 (unsigned)(v >> 16) & 0xffff, (unsigned)v & 0xffff);
	lua_pushstring(L, s);
}

/* verbs.devices() -> { {name=, guid=, node_type=, transport_type=}, ... };
 * {} on a host without RDMA in its kernel. */
static int l_devices(lua_State *L)
{
	int n = 0;
	struct ibv_device **list = ibv_get_device_list(&n);
	lua_newtable(L);
	if (!list) {
		if (errno == ENOSYS || errno == ENOENT || errno == ENODEV)
			return 1;
		return vraise(L, "ibv_get_device_list", errno, 0, 0);
	}
	for (int i = 0; i < n; i++) {
		lua_createtable(L, 0, 4);
		lua_pushstring(L, ibv_get_device_name(list[i]));
		lua_setfield(L, -2, "name");
		push_guid(L, ibv_get_device_guid(list[i]));
		lua_setfield(L, -2, "guid");
		venum_push(L, &ve_node_type, list[i]->node_type);
		lua_setfield(L, -2, "node_type");
		venum_push(L, &ve_transport_type, list[i]->transport_type);
		lua_setfield(L, -2, "transport_type");
		lua_pushinteger(L, ibv_get_device_index(list[i]));   /* the kernel's index, -1 when unknown */
		lua_setfield(L, -2, "index");
		lua_rawseti(L, -2, i + 1);
	}
	ibv_free_device_list(list);
	return 1;
}

static bool has_active_port(struct ibv_device *dev)
{
	struct ibv_context *c = ibv_open_device(dev);
	struct ibv_device_attr da;
	bool active = false;
	if (!c)
		return false;
	if (ibv_query_device(c, &da) == 0)
		for (int p = 1; p <= da.phys_port_cnt && !active; p++) {
			struct ibv_port_attr pa;
			active = ibv_query_port(c, (uint8_t)p, &pa) == 0 && pa.state == IBV_PORT_ACTIVE;
		}
	ibv_close_device(c);
	return active;
}

static int open_error(lua_State *L, const char *verb, int err, const char *req, struct ibv_device **list,
		      int n, const char *reason)
{
	lua_createtable(L, 0, 3);
	lua_pushstring(L, req);
	lua_setfield(L, -2, "requested");
	lua_createtable(L, n, 0);
	for (int i = 0; i < n; i++) {
		lua_pushstring(L, ibv_get_device_name(list[i]));
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "devices");
	lua_pushstring(L, reason);
	lua_setfield(L, -2, "reason");
	if (list)
		ibv_free_device_list(list);
	return vraise(L, verb, err, 0, -1);
}

/* verbs.open([name]): name, else $VERBSH_DEVICE, else the first device with
 * an ACTIVE port, else the first device. */
static int l_open(lua_State *L)
{
	if (!lua_isnoneornil(L, 1) && lua_type(L, 1) != LUA_TSTRING)
		return vtypeerror(L, 1, "device name (string)");
	const char *req = marsh_check_cstring(L, 1, 1, "device name");   /* "rxe0\0x" is not rxe0 */
	struct ibv_device **list, *dev = NULL;
	struct ibv_context *c;
	struct vnode *node;
	int n = 0;

	if (!req && getenv("VERBSH_DEVICE") && *getenv("VERBSH_DEVICE"))
		req = getenv("VERBSH_DEVICE");
	list = ibv_get_device_list(&n);
	if (!list)
		return open_error(L, "ibv_get_device_list", errno, req, NULL, 0, "no_device");
	if (n == 0)
		return open_error(L, "ibv_get_device_list", ENODEV, req, list, n, "no_device");
	for (int i = 0; req && i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), req) == 0)
			dev = list[i];
	if (req && !dev)
		return open_error(L, "ibv_open_device", ENODEV, req, list, n, "not_found");
	for (int i = 0; !dev && i < n; i++)
		if (has_active_port(list[i]))
			dev = list[i];
	if (!dev)
		dev = list[0];
	node = vobj_new(L, &vc_context, 0, NULL);
	c = ibv_open_device(dev);
	if (!c)
		return open_error(L, "ibv_open_device", errno ? errno : ENODEV, req ? req : ibv_get_device_name(dev),
				  list, n, "open_failed");
	ibv_free_device_list(list);
	vobj_set(node, c);
	return 1;
}

/* ---- queries ------------------------------------------------------------- */

#define DA(m, t, ...) VF(struct ibv_device_attr, m, t, __VA_ARGS__)
const struct vfield vf_device_attr[] = {
	DA(max_mr_size, VT_UINT), DA(page_size_cap, VT_UINT), DA(vendor_id, VT_UINT),
	DA(vendor_part_id, VT_UINT), DA(hw_ver, VT_UINT), DA(max_qp, VT_INT), DA(max_qp_wr, VT_INT),
	DA(device_cap_flags, VT_FLAGS, .en = &ve_device_cap), DA(max_sge, VT_INT), DA(max_sge_rd, VT_INT),
	DA(max_cq, VT_INT), DA(max_cqe, VT_INT), DA(max_mr, VT_INT), DA(max_pd, VT_INT),
	DA(max_qp_rd_atom, VT_INT), DA(max_ee_rd_atom, VT_INT), DA(max_res_rd_atom, VT_INT),
	DA(max_qp_init_rd_atom, VT_INT), DA(max_ee_init_rd_atom, VT_INT),
	DA(atomic_cap, VT_ENUM, .en = &ve_atomic_cap), DA(max_ee, VT_INT), DA(max_rdd, VT_INT),
	DA(max_mw, VT_INT), DA(max_raw_ipv6_qp, VT_INT), DA(max_raw_ethy_qp, VT_INT),
	DA(max_mcast_grp, VT_INT), DA(max_mcast_qp_attach, VT_INT), DA(max_total_mcast_qp_attach, VT_INT),
	DA(max_ah, VT_INT), DA(max_fmr, VT_INT), DA(max_map_per_fmr, VT_INT), DA(max_srq, VT_INT),
	DA(max_srq_wr, VT_INT), DA(max_srq_sge, VT_INT), DA(max_pkeys, VT_UINT),
	DA(local_ca_ack_delay, VT_UINT), DA(phys_port_cnt, VT_UINT),
	VF_END
};

#define PA(m, t, ...) VF(struct ibv_port_attr, m, t, __VA_ARGS__)
const struct vfield vf_port_attr[] = {
	PA(state, VT_ENUM, .en = &ve_port_state), PA(max_mtu, VT_ENUM, .en = &ve_mtu),
	PA(active_mtu, VT_ENUM, .en = &ve_mtu), PA(gid_tbl_len, VT_INT),
	PA(port_cap_flags, VT_FLAGS, .en = &ve_port_cap_flags),
	PA(max_msg_sz, VT_UINT), PA(bad_pkey_cntr, VT_UINT), PA(qkey_viol_cntr, VT_UINT),
	PA(pkey_tbl_len, VT_UINT), PA(lid, VT_UINT), PA(sm_lid, VT_UINT), PA(lmc, VT_UINT),
	PA(max_vl_num, VT_UINT), PA(sm_sl, VT_UINT), PA(subnet_timeout, VT_UINT), PA(init_type_reply, VT_UINT),
	PA(active_width, VT_UINT), PA(active_speed, VT_UINT),
	PA(phys_state, VT_ENUM, .en = &ve_port_phys_state), PA(link_layer, VT_ENUM, .en = &ve_link_layer),
	PA(flags, VT_FLAGS, .en = &ve_port_attr_flags), PA(port_cap_flags2, VT_FLAGS, .en = &ve_port_cap_flags2),
	VF_END
};

static int l_query_device(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_context);
	vnoextra(L, 1, "ctx:query_device()", NULL);
	struct ibv_device_attr a;
	int ret = ibv_query_device(n->h, &a);
	if (ret)
		return vraise(L, "ibv_query_device", ret > 0 ? ret : errno, 1, 0);
	marsh_push(L, vf_device_attr, &a);
	lua_pushstring(L, a.fw_ver);
	lua_setfield(L, -2, "fw_ver");
	push_guid(L, a.node_guid);
	lua_setfield(L, -2, "node_guid");
	push_guid(L, a.sys_image_guid);
	lua_setfield(L, -2, "sys_image_guid");
	return 1;
}

static uint8_t check_port(lua_State *L, int idx)
{
	if (lua_isnoneornil(L, idx))
		return 1;
	return (uint8_t)marsh_check_uint(L, idx, idx, 255, "port_num");
}

static int l_query_port(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_context);
	vnoextra(L, 2, "ctx:query_port([port])", NULL);
	uint8_t port = check_port(L, 2);
	struct ibv_port_attr a;
	int ret = ibv_query_port(n->h, port, &a);
	if (ret)
		return vraise(L, "ibv_query_port", ret > 0 ? ret : errno, 1, 0);
	marsh_push(L, vf_port_attr, &a);
	lua_pushinteger(L, port);
	lua_setfield(L, -2, "port_num");
	return 1;
}

/* ctx:query_gid(port, index) -> "fe80::..." (an empty slot reads as "::", as in C) */
static int l_query_gid(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_context);
	vnoextra(L, 3, "ctx:query_gid(port, index)", NULL);
	uint8_t port = (uint8_t)marsh_check_uint(L, 2, 2, 255, "port_num");
	int index = (int)marsh_check_uint(L, 3, 3, 0xffff, "index");
	union ibv_gid gid;
	int ret = ibv_query_gid(n->h, port, index, &gid);
	int err = ret ? (ret > 0 ? ret : errno) : 0;
	if (ret)
		return vraise(L, "ibv_query_gid", err, 1, 0);
	marsh_gid_push(L, &gid);
	return 1;
}

static const char *gid_type_text(int t)
{
	switch (t) {
	case IBV_GID_TYPE_ROCE_V2: return "RoCE v2";
	case IBV_GID_TYPE_ROCE_V1: return "RoCE v1";
	default: return "IB";
	}
}

/* ctx:gids([port]) -> { {index=, gid=, type="RoCE v2", netdev=}, ... }: the filled slots. */
static int l_gids(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_context);
	vnoextra(L, 2, "ctx:gids([port])", NULL);
	uint8_t port = check_port(L, 2);
	struct ibv_port_attr pa;
	struct ibv_gid_entry *e;
	ssize_t cnt;
	int ret = ibv_query_port(n->h, port, &pa), k = 0;
	char ifname[IF_NAMESIZE];

	if (ret)
		return vraise(L, "ibv_query_port", ret > 0 ? ret : errno, 1, 0);
	size_t max = pa.gid_tbl_len > 0 ? (size_t)pa.gid_tbl_len : 1;
	e = calloc(max, sizeof *e);
	if (!e)
		return luaL_error(L, "out of memory");
	cnt = ibv_query_gid_table(n->h, e, max, 0);
	if (cnt < 0) {
		/* The table call wants room for every port's entries on some
		 * kernels: read this port's slots one by one instead. */
		cnt = 0;
		for (size_t i = 0; i < max; i++)
			if (ibv_query_gid_ex(n->h, port, (uint32_t)i, &e[cnt], 0) == 0)
				cnt++;
	}
	lua_newtable(L);
	for (ssize_t i = 0; i < cnt; i++) {
		if (e[i].port_num != port)
			continue;
		lua_createtable(L, 0, 4);
		lua_pushinteger(L, e[i].gid_index);
		lua_setfield(L, -2, "index");
		marsh_gid_push(L, &e[i].gid);
		lua_setfield(L, -2, "gid");
		lua_pushstring(L, gid_type_text(e[i].gid_type));
		lua_setfield(L, -2, "type");
		if (e[i].ndev_ifindex && if_indextoname(e[i].ndev_ifindex, ifname)) {
			lua_pushstring(L, ifname);
			lua_setfield(L, -2, "netdev");
		}
		lua_rawseti(L, -2, ++k);
	}
	free(e);
	/* ibv_query_gid_table returns entries in table order per port, but be sure. */
	lua_getglobal(L, "table");
	lua_getfield(L, -1, "sort");
	lua_remove(L, -2);
	lua_pushvalue(L, -2);
	luaL_loadstring(L, "local a, b = ... return a.index < b.index");
	lua_call(L, 2, 0);
	return 1;
}

/* ---- async events ---------------------------------------------------------- */

/* Waits until fd is readable: true, or false after timeout_ms (< 0: forever).
 * Sleeps in slices of at most 100 ms so that Ctrl-C interrupts. */
bool wait_readable(lua_State *L, int fd, lua_Integer timeout_ms)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		lua_Integer slice = 100;
		if (timeout_ms >= 0) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			lua_Integer spent = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
			if (spent >= timeout_ms)
				slice = 0;
			else if (timeout_ms - spent < slice)
				slice = timeout_ms - spent;
		}
		int r = poll(&p, 1, (int)slice);
		if (r > 0)
			return true;
		verbsh_check_interrupt(L);
		if (slice == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
			return false;
	}
}

/* ctx:get_async_event([timeout_ms]) -> { event_type=, qp=/cq=/srq=/port_num= } or nil on timeout */
static int l_get_async_event(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_context);
	vnoextra(L, 2, "ctx:get_async_event([timeout_ms])", NULL);
	lua_Integer timeout = lua_isnoneornil(L, 2) ? -1 : (lua_Integer)marsh_check_uint(L, 2, 2, 0, "timeout_ms");
	struct ibv_context *c = n->h;
	struct ibv_async_event ev;

	if (!wait_readable(L, c->async_fd, timeout)) {
		lua_pushnil(L);
		return 1;
	}
	int ret = ibv_get_async_event(c, &ev);
	if (ret)
		return vraise(L, "ibv_get_async_event", errno, 1, 0);
	lua_createtable(L, 0, 2);
	venum_push(L, &ve_event_type, ev.event_type);
	lua_setfield(L, -2, "event_type");
	switch (ev.event_type) {
	case IBV_EVENT_CQ_ERR:
		if (vobj_push(L, vobj_find(L, ev.element.cq)))
			lua_setfield(L, -2, "cq");
		break;
	case IBV_EVENT_SRQ_ERR: case IBV_EVENT_SRQ_LIMIT_REACHED:
		if (vobj_push(L, vobj_find(L, ev.element.srq)))
			lua_setfield(L, -2, "srq");
		break;
	case IBV_EVENT_PORT_ACTIVE: case IBV_EVENT_PORT_ERR: case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE: case IBV_EVENT_SM_CHANGE: case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		lua_pushinteger(L, ev.element.port_num);
		lua_setfield(L, -2, "port_num");
		break;
	case IBV_EVENT_DEVICE_FATAL:
		break;
	default:
		if (vobj_push(L, vobj_find(L, ev.element.qp)))
			lua_setfield(L, -2, "qp");
		break;
	}
	ibv_ack_async_event(&ev);
	return 1;
}

/* ---- module functions ------------------------------------------------------ */

/* verbs.gid_bytes("fe80::1") -> 16 bytes */
static int l_gid_bytes(lua_State *L)
{
	union ibv_gid g;
	const char *err = marsh_gid_read(L, 1, &g);
	if (err)
		return vargerror(L, 1, err);
	lua_pushlstring(L, (const char *)g.raw, 16);
	return 1;
}

/* verbs.now() -> seconds (CLOCK_MONOTONIC) */
static int l_now(lua_State *L)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	lua_pushnumber(L, (lua_Number)t.tv_sec + (lua_Number)t.tv_nsec / 1e9);
	return 1;
}

static const luaL_Reg ctx_methods[] = {
	{ "query_device", l_query_device }, { "query_port", l_query_port }, { "query_gid", l_query_gid },
	{ "gids", l_gids }, { "alloc_pd", pd_alloc }, { "create_comp_channel", channel_create },
	{ "create_cq", cq_create }, { "get_async_event", l_get_async_event },
	{ "init_ah_from_wc", ah_init_from_wc }, { "create_qp_ex", qp_create_ex }, { "create_cq_ex", cq_create_ex },
	{ NULL, NULL }
};

const struct vclass vc_context = {
	.size = sizeof(struct vctx),
	.index = VC_CONTEXT,
	.kind = "context", .var = "ctx", .tname = "verbs.context", .destroy_verb = "ibv_close_device",
	.destroy_method = "close", .destroy = ctx_destroy, .describe = ctx_describe, .field = ctx_field,
	.fields = (const char *const[]){ "name", "async_fd", "num_comp_vectors", NULL },
	.methods = ctx_methods, .refuse_destroy = ctx_refuse_destroy,
};

void context_open(lua_State *L)
{
	static const luaL_Reg fns[] = {
		{ "devices", l_devices }, { "open", l_open }, { "gid_bytes", l_gid_bytes }, { "now", l_now },
		{ NULL, NULL }
	};
	vobj_register(L, &vc_context);
	luaL_setfuncs(L, fns, 0);
}
