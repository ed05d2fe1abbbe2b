/* rdma_cm (librdmacm): event channels, communication ids and their events.
 *
 * librdmacm's lifetime rules become dependencies in the object layer:
 * - an event uses its id and listen id: rdma_destroy_id blocks until every
 *   event reported on the id is acked, so an unacked event keeps its id;
 * - a QP made by id:create_qp uses the id: rdma_destroy_qp comes before
 *   rdma_destroy_id;
 * - an id uses its channel: rdma_destroy_event_channel wants no ids left.
 * An event's finalizer acks it, so the garbage collector never hangs in
 * rdma_destroy_id. */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include "verbsh.h"

/* ---- addresses: "192.0.2.1:7471", "[fe80::1]:7471", "192.0.2.1", "*:7471" -- */

/* The port after "host:": a decimal number 0..65535 (getaddrinfo takes
 * a larger one modulo 65536, and "http" through /etc/services), else an
 * error naming the argument. */
static void check_port(lua_State *L, int arg, const char *what, const char *s, const char *port)
{
	size_t len = strlen(port);
	bool digits = len > 0;
	for (size_t i = 0; i < len; i++)
		digits &= port[i] >= '0' && port[i] <= '9';
	if (!digits)
		vargerror(L, arg, lua_pushfstring(L, "%s '%s': the port '%s' is not a number (0..65535)", what, s,
						  port));
	if (len > 5 || strtol(port, NULL, 10) > 65535)
		vargerror(L, arg, lua_pushfstring(L, "%s '%s': port %s is out of range (0..65535)", what, s, port));
}

/* The address at stack index idx; errors name argument arg. */
void cm_read_addr_at(lua_State *L, int arg, int idx, struct sockaddr_storage *ss, const char *what)
{
	char host[256] = "", port[16] = "0";
	const char *colon, *close;

	if (lua_type(L, idx) != LUA_TSTRING)
		vargerror(L, arg, lua_pushfstring(L, "%s expected as \"host:port\" (e.g. \"192.0.2.1:7471\"), got %s",
						  what, luaL_typename(L, idx)));
	const char *s = marsh_check_cstring(L, arg, idx, what);
	if (s[0] == '[' && (close = strchr(s, ']'))) {   /* [v6]:port */
		snprintf(host, sizeof host, "%.*s", (int)(close - s - 1), s + 1);
		if (close[1] == ':') {
			check_port(L, arg, what, s, close + 2);
			snprintf(port, sizeof port, "%s", close + 2);
		}
		else if (close[1])
			vargerror(L, arg, lua_pushfstring(L, "%s '%s': text after ']'", what, s));
	} else if ((colon = strchr(s, ':')) && !strchr(colon + 1, ':')) {   /* host:port */
		snprintf(host, sizeof host, "%.*s", (int)(colon - s), s);
		check_port(L, arg, what, s, colon + 1);
		snprintf(port, sizeof port, "%s", colon + 1);
	} else {   /* host alone, or a bare IPv6 address */
		snprintf(host, sizeof host, "%s", s);
	}
	bool any = host[0] == '\0' || strcmp(host, "*") == 0;
	struct addrinfo hints = { .ai_flags = AI_NUMERICSERV | (any ? AI_PASSIVE : 0),
				  .ai_family = any ? AF_INET : AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	int r = getaddrinfo(any ? NULL : host, port, &hints, &res);
	if (r)
		vargerror(L, arg, lua_pushfstring(L, "%s '%s': %s", what, s, gai_strerror(r)));
	memset(ss, 0, sizeof *ss);
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
}

void cm_read_addr(lua_State *L, int arg, struct sockaddr_storage *ss, const char *what)
{
	cm_read_addr_at(L, arg, arg, ss, what);
}

/* "192.0.2.1:7471"; nil for an unset address */
void cm_push_addr(lua_State *L, const struct sockaddr *sa)
{
	char ip[INET6_ADDRSTRLEN];
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;
		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
		lua_pushfstring(L, "%s:%d", ip, ntohs(in->sin_port));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;
		inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof ip);
		lua_pushfstring(L, "[%s]:%d", ip, ntohs(in6->sin6_port));
	} else {
		lua_pushnil(L);
	}
}

static const char *idname(struct vnode *n, char *buf, size_t len) { return vobj_cname(n, buf, len); }

/* ---- event channels -------------------------------------------------------- */

static int channel_destroy(struct vnode *n)
{
	rdma_destroy_event_channel(n->h);
	return 0;
}

static void channel_describe(lua_State *L, struct vnode *n)
{
	lua_pushfstring(L, "fd %d", ((struct rdma_event_channel *)n->h)->fd);
}

static int channel_field(lua_State *L, struct vnode *n, const char *key)
{
	if (strcmp(key, "fd") != 0)
		return 0;
	lua_pushinteger(L, ((struct rdma_event_channel *)n->h)->fd);
	return 1;
}

/* verbs.create_event_channel() */
static int l_create_event_channel(lua_State *L)
{
	struct vnode *n = vobj_new(L, &vc_cm_channel, 0, NULL);
	struct rdma_event_channel *ch = rdma_create_event_channel();
	int err = errno;
	if (!ch)
		return vraise(L, "rdma_create_event_channel", err, 0, 0);
	vobj_set(n, ch);
	return 1;
}

/* ch:create_id(ps): rdma_create_id(channel, &id, NULL, ps) */
static int l_create_id(lua_State *L)
{
	struct vnode *ch = vobj_check(L, 1, &vc_cm_channel);
	int64_t ps;
	const char *e;

	if (lua_isnoneornil(L, 2))
		return vargerror(L, 2, "port space expected: \"TCP\" (RC, connected) or \"UDP\" (UD, datagrams)");
	if ((e = venum_read(L, 2, &ve_port_space, &ps)))
		return vargerror(L, 2, e);
	lua_settop(L, 1);
	int deps[] = { 1 };
	struct vnode *n = vobj_new(L, &vc_cm_id, 1, deps);
	struct rdma_cm_id *id;
	int ret = rdma_create_id(ch->h, &id, NULL, (enum rdma_port_space)ps);
	int err = errno;
	if (ret)
		return vraise(L, "rdma_create_id", err, 1, 0);
	vobj_set(n, id);
	return 1;
}

/* Pushes the userdata of id, wrapping an id librdmacm made (the new id of a
 * CONNECT_REQUEST) in a new object that uses the channel at chidx. */
static void push_id(lua_State *L, struct rdma_cm_id *id, int chidx)
{
	struct vnode *n = vobj_find(L, id);
	if (!id) {
		lua_pushnil(L);
		return;
	}
	if (n && n->cls == &vc_cm_id) {
		if (!vobj_push(L, n))
			lua_pushnil(L);
		return;
	}
	int deps[] = { chidx };
	n = vobj_new(L, &vc_cm_id, 1, deps);
	vobj_set(n, id);
}

/* ch:get_cm_event([timeout_ms]) -> event, or nil when none came in time */
static int l_get_cm_event(lua_State *L)
{
	struct vnode *ch = vobj_check(L, 1, &vc_cm_channel);
	lua_Integer timeout = lua_isnoneornil(L, 2) ? -1 : (lua_Integer)marsh_check_uint(L, 2, 2, INT32_MAX, "timeout_ms");
	struct rdma_event_channel *c = ch->h;
	struct rdma_cm_event *ev;

	lua_settop(L, 1);
	if (!wait_readable(L, c->fd, timeout)) {
		lua_pushnil(L);
		return 1;
	}
	int ret = rdma_get_cm_event(c, &ev);
	int err = errno;
	if (ret) {
		return vraise(L, "rdma_get_cm_event", err, 1, 0);
	}
	push_id(L, ev->id, 1);          /* 2 */
	push_id(L, ev->listen_id, 1);   /* 3 */
	int deps[] = { 1, 2, 3 };
	struct vnode *n = vobj_new(L, &vc_cm_event, 3, deps);
	vobj_set(n, ev);
	return 1;
}

static const luaL_Reg channel_methods[] = {
	{ "create_id", l_create_id }, { "get_cm_event", l_get_cm_event }, { NULL, NULL }
};

const struct vclass vc_cm_channel = {
	.index = VC_CM_CHANNEL,
	.kind = "cm_channel", .var = "cm_channel", .tname = "verbs.cm_channel",
	.destroy_verb = "rdma_destroy_event_channel", .destroy_method = "destroy", .destroy = channel_destroy,
	.describe = channel_describe, .field = channel_field,
	.fields = (const char *const[]){ "fd", NULL }, .methods = channel_methods,
};

/* ---- events ---------------------------------------------------------------- */

static int event_ack(struct vnode *n) { return rdma_ack_cm_event(n->h) ? errno : 0; }

static bool is_ud(const struct rdma_cm_event *ev)
{
	return ev->id && (ev->id->ps == RDMA_PS_UDP || ev->id->ps == RDMA_PS_IPOIB);
}

static void event_describe(lua_State *L, struct vnode *n)
{
	struct rdma_cm_event *ev = n->h;
	const char *name = venum_name(&ve_cm_event_type, ev->event);
	struct vnode *idn = vobj_find(L, ev->id);
	char x[32];
	lua_pushfstring(L, "%s on %s, status %d", name ? name : "?", idn ? vobj_cname(idn, x, sizeof x) : "?",
			ev->status);
	switch (ev->event) {   /* the error events say why, as a failed WC does */
	case RDMA_CM_EVENT_ADDR_ERROR: case RDMA_CM_EVENT_ROUTE_ERROR: case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE: case RDMA_CM_EVENT_REJECTED: case RDMA_CM_EVENT_DEVICE_REMOVAL:
	case RDMA_CM_EVENT_MULTICAST_ERROR:
		break;
	default:
		return;
	}
	lua_pushstring(L, name);
	lua_pushinteger(L, ev->status);
	if (vpcall(L, "verbs.explain_cm", "event_cause", 2, 2) != LUA_OK) {
		lua_pop(L, 1);   /* the error */
		return;
	}
	if (!lua_isstring(L, -2)) {
		lua_pop(L, 2);
		return;
	}
	lua_pushfstring(L, "%s\n  why: %s\n  fix: %s", lua_tostring(L, -3), lua_tostring(L, -2), lua_tostring(L, -1));
	lua_replace(L, -4);
	lua_pop(L, 2);
}

static void push_private_data(lua_State *L, const void *p, uint8_t len)
{
	if (p)
		lua_pushlstring(L, p, len);
	else
		lua_pushliteral(L, "");
	lua_setfield(L, -2, "private_data");
	lua_pushinteger(L, p ? len : 0);
	lua_setfield(L, -2, "private_data_len");
}

#define CP(m, ...) VF(struct rdma_conn_param, m, VT_UINT, __VA_ARGS__)
static const char *read_private_data(lua_State *L, int idx, void *dst, const struct vfield *f);
const struct vfield vf_conn_param[] = {
	{ .name = "private_data", .type = VT_CUSTOM, .custom = read_private_data, .no_output = true },
	CP(private_data_len), CP(responder_resources), CP(initiator_depth), CP(flow_control, .max = 1),
	CP(retry_count, .max = 7), CP(rnr_retry_count, .max = 7), CP(srq, .max = 1), CP(qp_num, .max = 0xffffff),
	VF_END
};

/* event.param: { conn = {...} } or, on a UDP id, { ud = { ah_attr=, qp_num=, qkey=, ... } }.
 * private_data is the whole field of the CM message: its length is the
 * message's (56 bytes in a REQ, 196 in a REP), not what the peer passed. */
static void push_param(lua_State *L, const struct rdma_cm_event *ev)
{
	lua_createtable(L, 0, 1);
	if (is_ud(ev)) {
		const struct rdma_ud_param *u = &ev->param.ud;
		marsh_push(L, vf_ah_attr, &u->ah_attr);
		lua_createtable(L, 0, 5);
		lua_insert(L, -2);
		lua_setfield(L, -2, "ah_attr");
		lua_pushinteger(L, u->qp_num);
		lua_setfield(L, -2, "qp_num");
		lua_pushinteger(L, u->qkey);
		lua_setfield(L, -2, "qkey");
		if (ev->event == RDMA_CM_EVENT_MULTICAST_JOIN || ev->event == RDMA_CM_EVENT_MULTICAST_ERROR) {
			/* librdmacm puts the join's context here, not bytes */
			lua_pushinteger(L, (lua_Integer)(uintptr_t)u->private_data);
			lua_setfield(L, -2, "context");
			push_private_data(L, NULL, 0);
		} else
			push_private_data(L, u->private_data, u->private_data_len);
		lua_setfield(L, -2, "ud");
	} else {
		marsh_push(L, vf_conn_param, &ev->param.conn);
		push_private_data(L, ev->param.conn.private_data, ev->param.conn.private_data_len);
		lua_setfield(L, -2, "conn");
	}
}

static int event_field(lua_State *L, struct vnode *n, const char *key)
{
	struct rdma_cm_event *ev = n->h;
	if (strcmp(key, "event") == 0)
		venum_push(L, &ve_cm_event_type, ev->event);
	else if (strcmp(key, "status") == 0)
		lua_pushinteger(L, ev->status);
	else if (strcmp(key, "id") == 0)
		lua_getiuservalue(L, 1, 2);
	else if (strcmp(key, "listen_id") == 0)
		lua_getiuservalue(L, 1, 3);
	else if (strcmp(key, "param") == 0)
		push_param(L, ev);
	else
		return 0;
	return 1;
}

/* ev:expect(name, ...): the event itself when it is one of the names, else
 * an error that explains the event (verbs.explain_cm). Not a verb: the check
 * every rdma_cm program writes after rdma_get_cm_event. */
static int l_expect(lua_State *L)
{
	vobj_check(L, 1, &vc_cm_event);
	vcall(L, "verbs.explain_cm", "expect", lua_gettop(L), 1);
	return 1;
}

static const luaL_Reg event_methods[] = { { "expect", l_expect }, { NULL, NULL } };

const struct vclass vc_cm_event = {
	.index = VC_CM_EVENT,
	.kind = "cm_event", .var = "cm_event", .tname = "verbs.cm_event", .destroy_verb = "rdma_ack_cm_event",
	.destroy_method = "ack", .destroy = event_ack, .describe = event_describe, .field = event_field,
	.fields = (const char *const[]){ "event", "status", "id", "listen_id", "param", NULL },
	.methods = event_methods,
	.gone = "acked (rdma_ack_cm_event freed it: read what you need before ack)",
};

/* ---- ids ------------------------------------------------------------------- */

static int id_destroy(struct vnode *n)
{
	mcast_leave_all(n);
	if (vcmid(n)->ep) {   /* also frees what rdma_create_ep kept for a listener */
		rdma_destroy_ep(n->h);
		return 0;
	}
	return rdma_destroy_id(n->h) ? errno : 0;
}

int cm_destroy_qp(struct vnode *n)
{
	mcast_leave_all(n);   /* librdmacm detaches the QP as it leaves */
	rdma_destroy_qp(n->h);
	return 0;
}

int cm_destroy_srq(struct vnode *n)
{
	rdma_destroy_srq(n->h);
	return 0;
}

static void id_describe(lua_State *L, struct vnode *n)
{
	struct rdma_cm_id *id = n->h;
	const char *ps = venum_name(&ve_port_space, id->ps);
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	luaL_addstring(&b, ps ? ps : "?");
	if (id->verbs) {
		luaL_addchar(&b, ' ');
		luaL_addstring(&b, ibv_get_device_name(id->verbs->device));
	}
	cm_push_addr(L, rdma_get_local_addr(id));
	if (lua_isstring(L, -1) && strcmp(lua_tostring(L, -1), "0.0.0.0:0") != 0) {
		lua_pushfstring(L, " %s", lua_tostring(L, -1));
		lua_remove(L, -2);
		luaL_addvalue(&b);
	} else {
		lua_pop(L, 1);
	}
	cm_push_addr(L, rdma_get_peer_addr(id));
	if (lua_isstring(L, -1) && strcmp(lua_tostring(L, -1), "0.0.0.0:0") != 0) {
		lua_pushfstring(L, " -> %s", lua_tostring(L, -1));
		lua_remove(L, -2);
		luaL_addvalue(&b);
	} else {
		lua_pop(L, 1);
	}
	luaL_pushresult(&b);
}

/* id.verbs: the context librdmacm bound the id to (one object per context). */
static void push_verbs(lua_State *L, struct ibv_context *c)
{
	struct vnode *n = vobj_find(L, c);
	if (!c) {
		lua_pushnil(L);
		return;
	}
	if (n && n->cls == &vc_context && vobj_push(L, n))
		return;
	n = vobj_new(L, &vc_context, 0, NULL);
	vctx(n)->librdmacm_owned = true;   /* librdmacm's: never closed by us */
	vobj_set(n, c);
}

static int id_field(lua_State *L, struct vnode *n, const char *key)
{
	struct rdma_cm_id *id = n->h;
	if (strcmp(key, "verbs") == 0)
		push_verbs(L, id->verbs);
	else if (strcmp(key, "qp") == 0) {
		if (!vobj_push(L, vobj_find(L, id->qp)))
			lua_pushnil(L);
	} else if (strcmp(key, "channel") == 0)
		lua_getiuservalue(L, 1, 1);
	else if (strcmp(key, "ps") == 0)
		venum_push(L, &ve_port_space, id->ps);
	else if (strcmp(key, "qp_type") == 0)
		venum_push(L, &ve_qp_type, id->qp_type);
	else if (strcmp(key, "port_num") == 0)
		lua_pushinteger(L, id->port_num);
	else
		return 0;
	return 1;
}

static int l_bind_addr(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	struct sockaddr_storage ss;
	cm_read_addr(L, 2, &ss, "addr");
	int ret = rdma_bind_addr(n->h, (struct sockaddr *)&ss);
	int err = errno;
	if (ret) {
		lua_createtable(L, 0, 1);
		lua_pushvalue(L, 2);
		lua_setfield(L, -2, "addr");
		return vraise(L, "rdma_bind_addr", err, 1, -1);
	}
	return 0;
}

static lua_Integer opt_timeout(lua_State *L, int arg)
{
	return lua_isnoneornil(L, arg) ? 2000 : (lua_Integer)marsh_check_uint(L, arg, arg, INT32_MAX, "timeout_ms");
}

/* id:resolve_addr(src_addr or nil, dst_addr [, timeout_ms=2000]) */
static int l_resolve_addr(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	struct sockaddr_storage src, dst;
	bool has_src = !lua_isnoneornil(L, 2);
	if (has_src)
		cm_read_addr(L, 2, &src, "src_addr");
	cm_read_addr(L, 3, &dst, "dst_addr");
	lua_Integer timeout = opt_timeout(L, 4);
	int ret = rdma_resolve_addr(n->h, has_src ? (struct sockaddr *)&src : NULL, (struct sockaddr *)&dst,
				    (int)timeout);
	int err = errno;
	if (ret) {
		lua_createtable(L, 0, 2);
		lua_pushvalue(L, 3);
		lua_setfield(L, -2, "dst_addr");
		if (has_src) {
			lua_pushvalue(L, 2);
			lua_setfield(L, -2, "src_addr");
		}
		return vraise(L, "rdma_resolve_addr", err, 1, -1);
	}
	return 0;
}

/* librdmacm dereferences id->verbs (the device the address resolved to)
 * without checking it: refused here while the id has none. */
static void need_device(lua_State *L, struct vnode *n, const char *verb, const char *how)
{
	struct rdma_cm_id *id = n->h;
	if (!id->verbs)
		luaL_error(L, "%s: this cm_id has no device yet (librdmacm would crash on it): %s", verb, how);
}

static int l_resolve_route(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	need_device(L, n, "rdma_resolve_route", "call id:resolve_addr(...) first and wait for its ADDR_RESOLVED event");
	lua_Integer timeout = opt_timeout(L, 2);
	int ret = rdma_resolve_route(n->h, (int)timeout);
	int err = errno;
	if (ret)
		return vraise(L, "rdma_resolve_route", err, 1, 0);
	return 0;
}

/* id:create_qp(pd, init_attr): rdma_create_qp; the QP is a verbs.qp that
 * librdmacm moves through its states as the connection forms. */
static int l_create_qp(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	struct rdma_cm_id *id = n->h;
	struct vnode *p = vobj_check(L, 2, &vc_pd);
	struct ibv_qp_init_attr ia = { 0 };
	char x[32];

	vchecktable(L, 3);
	lua_settop(L, 3);
	marsh_read(L, 3, 3, vf_qp_init_attr, &ia);
	/* Without CQs librdmacm would make its own, which nothing here could poll. */
	qp_check_required(L, 3, ia.send_cq, ia.recv_cq, ia.qp_type, "\"RC\" on a TCP id, \"UD\" on a UDP id");
	if (id->qp)
		return luaL_error(L, "create_qp: %s already has a QP (id.qp); an rdma_cm_id holds one",
				  idname(n, x, sizeof x));
	struct vnode *used[QP_NDEPS] = { [QP_DEP_PD] = p, [QP_DEP_CM_ID] = n };
	/* A PD of another context than the id's: rdma_create_qp refuses it itself (EINVAL, explained);
	 * with the id's PD, the CQs and SRQ must be of the same context. */
	struct vnode *owner = ((struct ibv_pd *)p->h)->context == id->verbs ? p : NULL;
	qp_read_deps(L, 3, 3, &ia.send_cq, &ia.recv_cq, &ia.srq, owner, used);   /* 4, 5, 6 */
	int deps[QP_NDEPS] = { [QP_DEP_PD] = 2, [QP_DEP_SEND_CQ] = 4, [QP_DEP_RECV_CQ] = 5, [QP_DEP_SRQ] = 6,
			       [QP_DEP_CM_ID] = 1 };
	struct vnode *q = vobj_new(L, &vc_qp, QP_NDEPS, deps);
	vobj_recheck(L, 3, used, QP_NDEPS);
	int ret = rdma_create_qp(id, p->h, &ia);
	int err = errno;
	if (ret) {
		struct ibv_pd *pd = p->h;
		lua_createtable(L, 0, 3);
		lua_pushboolean(L, id->verbs != NULL);
		lua_setfield(L, -2, "bound");
		lua_pushboolean(L, id->verbs == pd->context);
		lua_setfield(L, -2, "same_device");
		venum_push(L, &ve_qp_type, ia.qp_type);
		lua_setfield(L, -2, "qp_type");
		if (id->verbs)
			vpush_device(L, id->verbs);
		return vraise_create(L, "rdma_create_qp", err, 1);
	}
	vobj_set(q, id->qp);
	return 1;
}

/* id:destroy_qp(): rdma_destroy_qp, the same as id.qp:destroy() */
static int l_destroy_qp(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	vnoextra(L, 1, "id:destroy_qp()", NULL);
	struct rdma_cm_id *id = n->h;
	char x[32];
	if (!id->qp || !vobj_push(L, vobj_find(L, id->qp)))
		return luaL_error(L, "destroy_qp: %s has no QP (id:create_qp(pd, init_attr) makes one)",
				  idname(n, x, sizeof x));
	lua_getfield(L, -1, "destroy");
	lua_insert(L, -2);
	lua_call(L, 1, 0);
	return 0;
}

/* Reads the conn_param table at arg (nil: NULL). private_data_len defaults
 * to #private_data. Returns NULL for nil. */
static struct rdma_conn_param *read_conn_param(lua_State *L, int arg, struct rdma_conn_param *cp)
{
	if (lua_isnoneornil(L, arg))
		return NULL;
	vchecktable(L, arg);
	memset(cp, 0, sizeof *cp);
	marsh_read(L, arg, arg, vf_conn_param, cp);
	lua_pushliteral(L, "private_data");   /* raw, as marsh_read read the pointer */
	lua_rawget(L, arg);
	size_t len = 0;
	lua_tolstring(L, -1, &len);
	lua_pop(L, 1);
	lua_pushliteral(L, "private_data_len");
	lua_rawget(L, arg);
	bool given = !lua_isnil(L, -1);
	lua_pop(L, 1);
	if (given && cp->private_data_len > len)
		vargerror(L, arg, lua_pushfstring(L, "key 'private_data_len': %I is more than the %I bytes of"
						  " private_data", (lua_Integer)cp->private_data_len, (lua_Integer)len));
	if (!given)
		cp->private_data_len = (uint8_t)len;
	return cp;
}

static const char *read_private_data(lua_State *L, int idx, void *dst, const struct vfield *f VUNUSED)
{
	size_t len;
	if (lua_type(L, idx) != LUA_TSTRING)
		return lua_pushfstring(L, "string expected, got %s", luaL_typename(L, idx));
	const char *s = lua_tolstring(L, idx, &len);
	if (len > 255)
		return lua_pushfstring(L, "%I bytes: private_data_len is a uint8_t (and a REQ carries at most 56)",
				       (lua_Integer)len);
	((struct rdma_conn_param *)dst)->private_data = s;   /* the caller's table keeps it alive */
	return NULL;
}

static int conn_verb(lua_State *L, const char *verb, int (*fn)(struct rdma_cm_id *, struct rdma_conn_param *))
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	struct rdma_conn_param c, *cp = read_conn_param(L, 2, &c);
	bool accept = fn == rdma_accept;
	need_device(L, n, verb, accept ? "accept answers a CONNECT_REQUEST: call it on that event's id (ev.id)"
				       : "connect after resolve_addr and resolve_route (ROUTE_RESOLVED)");
	if (accept && !cp && !((struct rdma_cm_id *)n->h)->qp)
		return luaL_error(L, "rdma_accept: with no QP on the id, a conn_param is needed (librdmacm would read"
				     " its qp_num through a NULL pointer): id:create_qp(pd, {...}) first, or give"
				     " {qp_num = ..., responder_resources = ..., initiator_depth = ...}");
	int ret = fn(n->h, cp);
	int err = errno;
	if (ret) {
		struct rdma_cm_id *id = n->h;
		lua_createtable(L, 0, 4);
		lua_pushboolean(L, id->qp != NULL);
		lua_setfield(L, -2, "has_qp");
		lua_pushboolean(L, cp != NULL);
		lua_setfield(L, -2, "has_param");
		lua_pushinteger(L, cp ? cp->private_data_len : 0);
		lua_setfield(L, -2, "private_data_len");
		venum_push(L, &ve_port_space, id->ps);
		lua_setfield(L, -2, "ps");
		return vraise(L, verb, err, 1, -1);
	}
	return 0;
}

static int l_connect(lua_State *L) { return conn_verb(L, "rdma_connect", rdma_connect); }
static int l_accept(lua_State *L) { return conn_verb(L, "rdma_accept", rdma_accept); }

/* id:listen([backlog=0]) */
static int l_listen(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	int backlog = lua_isnoneornil(L, 2) ? 0 : (int)marsh_check_uint(L, 2, 2, INT32_MAX, "backlog");
	int ret = rdma_listen(n->h, backlog);
	int err = errno;
	if (ret)
		return vraise(L, "rdma_listen", err, 1, 0);
	return 0;
}

/* id:reject([private_data]) */
static int l_reject(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	size_t len = 0;
	const char *pd = NULL;
	if (!lua_isnoneornil(L, 2)) {
		if (lua_type(L, 2) != LUA_TSTRING)
			return vtypeerror(L, 2, "string (private_data)");
		pd = lua_tolstring(L, 2, &len);
		if (len > 255)
			return vargerror(L, 2, "private_data_len is a uint8_t: at most 255 bytes");
	}
	int ret = rdma_reject(n->h, pd, (uint8_t)len);
	int err = errno;
	if (ret)
		return vraise(L, "rdma_reject", err, 1, 0);
	return 0;
}

static int simple_verb(lua_State *L, const char *verb, int (*fn)(struct rdma_cm_id *))
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	int ret = fn(n->h);
	int err = errno;
	if (ret)
		return vraise(L, verb, err, 1, 0);
	return 0;
}

static int l_disconnect(lua_State *L) { return simple_verb(L, "rdma_disconnect", rdma_disconnect); }
static int l_establish(lua_State *L) { return simple_verb(L, "rdma_establish", rdma_establish); }

/* id:init_qp_attr(qp_state) -> attr, mask: what librdmacm would pass to
 * ibv_modify_qp for that state (for a QP you create and move yourself). */
static int l_init_qp_attr(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	struct ibv_qp_attr a;
	int64_t state;
	int mask = 0;
	const char *e;
	if ((e = venum_read(L, 2, &ve_qp_state, &state)))
		return vargerror(L, 2, e);
	memset(&a, 0, sizeof a);
	a.qp_state = (enum ibv_qp_state)state;
	int ret = rdma_init_qp_attr(n->h, &a, &mask);
	int err = errno;
	if (ret)
		return vraise(L, "rdma_init_qp_attr", err, 1, 0);
	marsh_push(L, vf_qp_attr, &a);
	vflags_push(L, &ve_qp_attr_mask, (uint64_t)mask);
	return 2;
}

static int l_get_local_addr(lua_State *L)
{
	vnoextra(L, 1, "id:get_local_addr()", NULL);
	cm_push_addr(L, rdma_get_local_addr(vobj_check(L, 1, &vc_cm_id)->h));
	return 1;
}

static int l_get_peer_addr(lua_State *L)
{
	vnoextra(L, 1, "id:get_peer_addr()", NULL);
	cm_push_addr(L, rdma_get_peer_addr(vobj_check(L, 1, &vc_cm_id)->h));
	return 1;
}

static int l_get_src_port(lua_State *L)
{
	vnoextra(L, 1, "id:get_src_port()", NULL);
	lua_pushinteger(L, ntohs(rdma_get_src_port(vobj_check(L, 1, &vc_cm_id)->h)));
	return 1;
}

static int l_get_dst_port(lua_State *L)
{
	vnoextra(L, 1, "id:get_dst_port()", NULL);
	lua_pushinteger(L, ntohs(rdma_get_dst_port(vobj_check(L, 1, &vc_cm_id)->h)));
	return 1;
}

static const luaL_Reg id_methods[] = {
	{ "bind_addr", l_bind_addr }, { "resolve_addr", l_resolve_addr }, { "resolve_route", l_resolve_route },
	{ "create_qp", l_create_qp }, { "destroy_qp", l_destroy_qp }, { "connect", l_connect },
	{ "listen", l_listen }, { "accept", l_accept }, { "reject", l_reject }, { "disconnect", l_disconnect },
	{ "establish", l_establish }, { "init_qp_attr", l_init_qp_attr }, { "get_local_addr", l_get_local_addr },
	{ "get_peer_addr", l_get_peer_addr }, { "get_src_port", l_get_src_port },
	{ "get_dst_port", l_get_dst_port },
	{ NULL, NULL }
};

const struct vclass vc_cm_id = {
	.size = sizeof(struct vcmid),
	.index = VC_CM_ID,
	.kind = "cm_id", .var = "cm_id", .tname = "verbs.cm_id", .destroy_verb = "rdma_destroy_id",
	.destroy_method = "destroy", .destroy = id_destroy, .describe = id_describe, .field = id_field,
	.fields = (const char *const[]){ "verbs", "qp", "channel", "ps", "qp_type", "port_num", NULL },
	.methods = id_methods, .more_methods = cm_id_more_methods,
};

void cm_open(lua_State *L)
{
	vobj_register(L, &vc_cm_channel);
	vobj_register(L, &vc_cm_id);
	vobj_register(L, &vc_cm_event);
	lua_pushcfunction(L, l_create_event_channel);
	lua_setfield(L, -2, "create_event_channel");
}
