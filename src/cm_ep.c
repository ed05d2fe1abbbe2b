/* The short path of librdmacm's own examples (rdma_server.c, rdma_client.c):
 * rdma_getaddrinfo, rdma_create_ep (an id that resolves, and gets its QP,
 * in one synchronous call), rdma_get_request, and the rdma_verbs.h helpers
 * (rdma_reg_msgs, rdma_post_send, rdma_get_send_comp ...) on the id.
 *
 * An id made here is synchronous: it has no event channel of the user's,
 * and librdmacm waits for its events inside connect, accept and
 * get_request. rdma_destroy_ep frees what create_ep kept (the passive
 * side's QP attributes), so such an id is destroyed by it. */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <time.h>
#include "verbsh.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- rdma_getaddrinfo --------------------------------------------------------- */

static const char *read_ai_addr(lua_State *L, int idx, void *dst VUNUSED, const struct vfield *f VUNUSED)
{
	if (lua_type(L, idx) != LUA_TSTRING)
		return lua_pushfstring(L, "address expected as \"host:port\", got %s", luaL_typename(L, idx));
	return NULL;   /* read after the table, by getaddrinfo_hints */
}

#define AI(m, t, ...) VF(struct rdma_addrinfo, m, t, __VA_ARGS__)
const struct vfield vf_rdma_addrinfo[] = {
	AI(ai_flags, VT_FLAGS, .en = &ve_rai_flags), AI(ai_family, VT_ENUM, .en = &ve_ai_family),
	AI(ai_qp_type, VT_ENUM, .en = &ve_qp_type), AI(ai_port_space, VT_ENUM, .en = &ve_port_space),
	{ .name = "ai_src_addr", .type = VT_CUSTOM, .custom = read_ai_addr, .no_output = true },
	{ .name = "ai_dst_addr", .type = VT_CUSTOM, .custom = read_ai_addr, .no_output = true },
	VF_END
};

static int ai_free(struct vnode *n)
{
	rdma_freeaddrinfo(n->h);
	return 0;
}

static void ai_describe(lua_State *L, struct vnode *n)
{
	struct rdma_addrinfo *ai = n->h;
	const char *ps = venum_name(&ve_port_space, ai->ai_port_space);
	const char *qt = venum_name(&ve_qp_type, ai->ai_qp_type);
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	lua_pushfstring(L, "%s %s%s", ps ? ps : "?", qt ? qt : "?", ai->ai_flags & RAI_PASSIVE ? " passive" : "");
	luaL_addvalue(&b);
	if (ai->ai_src_addr) {
		cm_push_addr(L, ai->ai_src_addr);
		if (lua_isstring(L, -1)) {
			luaL_addstring(&b, " ");
			luaL_addvalue(&b);
		} else
			lua_pop(L, 1);
	}
	if (ai->ai_dst_addr) {
		cm_push_addr(L, ai->ai_dst_addr);
		if (lua_isstring(L, -1)) {
			luaL_addstring(&b, " -> ");
			luaL_addvalue(&b);
		} else
			lua_pop(L, 1);
	}
	luaL_pushresult(&b);
}

/* Pushes one entry's fields as a table (ai_next: the next entry's table). */
static void push_ai_table(lua_State *L, const struct rdma_addrinfo *ai, int depth);

/* One field of an entry; false when key is not one. */
static bool push_ai_field(lua_State *L, const struct rdma_addrinfo *ai, const char *key, int depth)
{
	if (strcmp(key, "ai_flags") == 0)
		vflags_push(L, &ve_rai_flags, (uint64_t)(unsigned)ai->ai_flags);
	else if (strcmp(key, "ai_family") == 0)
		venum_push(L, &ve_ai_family, ai->ai_family);
	else if (strcmp(key, "ai_qp_type") == 0)
		venum_push(L, &ve_qp_type, ai->ai_qp_type);
	else if (strcmp(key, "ai_port_space") == 0)
		venum_push(L, &ve_port_space, ai->ai_port_space);
	else if (strcmp(key, "ai_src_len") == 0)
		lua_pushinteger(L, ai->ai_src_len);
	else if (strcmp(key, "ai_dst_len") == 0)
		lua_pushinteger(L, ai->ai_dst_len);
	else if (strcmp(key, "ai_src_addr") == 0 || strcmp(key, "ai_dst_addr") == 0) {
		const struct sockaddr *sa = key[3] == 's' ? ai->ai_src_addr : ai->ai_dst_addr;
		if (sa)
			cm_push_addr(L, sa);
		else
			lua_pushnil(L);
	} else if (strcmp(key, "ai_src_canonname") == 0)
		lua_pushstring(L, ai->ai_src_canonname);
	else if (strcmp(key, "ai_dst_canonname") == 0)
		lua_pushstring(L, ai->ai_dst_canonname);
	else if (strcmp(key, "ai_route_len") == 0)
		lua_pushinteger(L, (lua_Integer)ai->ai_route_len);
	else if (strcmp(key, "ai_connect_len") == 0)
		lua_pushinteger(L, (lua_Integer)ai->ai_connect_len);
	else if (strcmp(key, "ai_next") == 0) {
		if (ai->ai_next && depth < 16)
			push_ai_table(L, ai->ai_next, depth + 1);
		else
			lua_pushnil(L);
	} else
		return false;
	return true;
}

static const char *const ai_fields[] = {
	"ai_flags", "ai_family", "ai_qp_type", "ai_port_space", "ai_src_len", "ai_dst_len", "ai_src_addr",
	"ai_dst_addr", "ai_src_canonname", "ai_dst_canonname", "ai_route_len", "ai_connect_len", "ai_next", NULL
};

static void push_ai_table(lua_State *L, const struct rdma_addrinfo *ai, int depth)
{
	lua_createtable(L, 0, 13);
	for (int i = 0; ai_fields[i]; i++)
		if (push_ai_field(L, ai, ai_fields[i], depth))
			lua_setfield(L, -2, ai_fields[i]);
}

static int ai_field(lua_State *L, struct vnode *n, const char *key)
{
	return push_ai_field(L, n->h, key, 0) ? 1 : 0;
}

const struct vclass vc_cm_addrinfo = {
	.index = VC_CM_ADDRINFO,
	.kind = "cm_addrinfo", .var = "addrinfo", .tname = "verbs.cm_addrinfo",
	.destroy_verb = "rdma_freeaddrinfo", .destroy_method = "free", .destroy = ai_free,
	.describe = ai_describe, .field = ai_field, .fields = ai_fields,
	.methods = (const luaL_Reg[]){ { NULL, NULL } }, .gone = "freed (rdma_freeaddrinfo)",
};

/* The hints at 3 (nil: none), addresses read into src and dst. */
static struct rdma_addrinfo *read_hints(lua_State *L, struct rdma_addrinfo *h, struct sockaddr_storage *src,
					struct sockaddr_storage *dst)
{
	if (lua_isnoneornil(L, 3))
		return NULL;
	vchecktable(L, 3);
	memset(h, 0, sizeof *h);
	marsh_read(L, 3, 3, vf_rdma_addrinfo, h);
	static const char *const keys[] = { "ai_src_addr", "ai_dst_addr" };
	struct sockaddr_storage *ss[] = { src, dst };
	for (int i = 0; i < 2; i++) {
		lua_pushstring(L, keys[i]);
		if (lua_rawget(L, 3) != LUA_TNIL) {
			/* the value's index before the label is pushed: C leaves the
			 * order of a call's arguments open, and gcc pushed first */
			int at = lua_gettop(L);
			cm_read_addr_at(L, 3, at, ss[i], lua_pushfstring(L, "key '%s'", keys[i]));
			lua_pop(L, 1);
			socklen_t len = ss[i]->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
								      : sizeof(struct sockaddr_in);
			if (i == 0) {
				h->ai_src_addr = (struct sockaddr *)ss[i];
				h->ai_src_len = len;
			} else {
				h->ai_dst_addr = (struct sockaddr *)ss[i];
				h->ai_dst_len = len;
			}
		}
		lua_pop(L, 1);
	}
	return h;
}

/* node and service: a string, nil (NULL), or for service a port number. */
static const char *opt_name(lua_State *L, int arg, const char *what)
{
	if (lua_isnoneornil(L, arg))
		return NULL;
	if (lua_type(L, arg) == LUA_TNUMBER && arg == 2) {
		marsh_check_uint(L, arg, arg, 65535, what);
		lua_pushfstring(L, "%d", (int)lua_tointeger(L, arg));
		lua_replace(L, arg);
	}
	if (lua_type(L, arg) != LUA_TSTRING)
		vtypeerror(L, arg, arg == 1 ? "string (node: host name or address) or nil"
					    : "string or port number (service) or nil");
	return lua_tostring(L, arg);
}

/* verbs.getaddrinfo(node, service [, hints]) -> addrinfo */
static int l_getaddrinfo(lua_State *L)
{
	struct rdma_addrinfo h, *hints, *res = NULL;
	struct sockaddr_storage src, dst;
	vnoextra(L, 3, "verbs.getaddrinfo(node, service [, hints])", NULL);
	const char *node = opt_name(L, 1, "node");
	const char *service = opt_name(L, 2, "service");
	hints = read_hints(L, &h, &src, &dst);
	if (!node && !service)
		return luaL_error(L, "rdma_getaddrinfo: node and service are both nil: give the server's address"
				     " (\"192.0.2.1\"), a port (\"7471\"), or both");
	lua_settop(L, 3);
	struct vnode *n = vobj_new(L, &vc_cm_addrinfo, 0, NULL);   /* 4 */
	int ret = rdma_getaddrinfo(node, service, hints, &res);
	int err = errno;
	if (ret == -1 || (ret && ret != -1 && ret > 0)) {
		lua_createtable(L, 0, 2);
		lua_pushvalue(L, 1);
		lua_setfield(L, -2, "node");
		lua_pushvalue(L, 2);
		lua_setfield(L, -2, "service");
		return vraise(L, "rdma_getaddrinfo", ret == -1 ? err : ret, 0, -1);
	}
	if (ret)   /* a getaddrinfo error code (EAI_*): not an errno */
		return luaL_error(L, "rdma_getaddrinfo(%s, %s) failed: %s (%s %d): the node is looked up as a host name"
				     " or numeric address; give an address on the RDMA netdev, e.g. \"192.0.2.1\"",
				  node ? node : "NULL", service ? service : "NULL", gai_strerror(ret),
				  ret == EAI_NONAME ? "EAI_NONAME" : "EAI", ret);
	vobj_set(n, res);
	return 1;
}

/* ---- endpoints ------------------------------------------------------------------ */

/* An endpoint's id has these user values: its channel (none), the PD given
 * to create_ep, the QP librdmacm made (EP_QP_UV), which nothing else holds:
 * without it the collector would destroy the QP under the id; and for a
 * listener, the send_cq, recv_cq and srq of its qp_init_attr (EP_CQ_UV..),
 * which librdmacm keeps to make each request's QP with them: the listener
 * uses them, so none is destroyed (or collected) under it. */
#define EP_QP_UV 3
#define EP_CQ_UV 4
#define EP_UVS 6

/* Wraps the QP that librdmacm made on the id at idx (create_ep, get_request;
 * none on a listener): it uses the PD at pdidx (0: none), the CQs and SRQ
 * at cqidx, cqidx + 1 and cqidx + 2 (nil: librdmacm's own, or none), and the
 * id, which keeps it. */
static void wrap_ep_qp(lua_State *L, struct rdma_cm_id *id, int pdidx, int cqidx, int idx)
{
	if (!id->qp)
		return;
	int deps[QP_NDEPS] = { [QP_DEP_PD] = pdidx, [QP_DEP_SEND_CQ] = cqidx, [QP_DEP_RECV_CQ] = cqidx + 1,
			       [QP_DEP_SRQ] = cqidx + 2, [QP_DEP_CM_ID] = idx };
	struct vnode *q = vobj_new(L, &vc_qp, QP_NDEPS, deps);
	vobj_set(q, id->qp);
	lua_setiuservalue(L, idx, EP_QP_UV);
}

static int ep_error(lua_State *L, const char *verb, int err, int resarg)
{
	lua_createtable(L, 0, 2);
	if (resarg) {
		struct rdma_addrinfo *ai = vobj_check(L, resarg, &vc_cm_addrinfo)->h;
		lua_pushboolean(L, (ai->ai_flags & RAI_PASSIVE) != 0);
		lua_setfield(L, -2, "passive");
		if (ai->ai_dst_addr) {
			cm_push_addr(L, ai->ai_dst_addr);
			lua_setfield(L, -2, "dst_addr");
		}
	}
	return vraise_create(L, verb, err, 0);
}

/* verbs.create_ep(res [, pd [, qp_init_attr]]) -> cm_id (id.qp: its QP) */
static int l_create_ep(lua_State *L)
{
	struct vnode *r = vobj_check(L, 1, &vc_cm_addrinfo);
	struct vnode *p = lua_isnoneornil(L, 2) ? NULL : vobj_check(L, 2, &vc_pd);
	struct ibv_qp_init_attr ia = { 0 }, *iap = NULL;
	vnoextra(L, 3, "verbs.create_ep(res [, pd [, qp_init_attr]])", NULL);
	lua_settop(L, 3);
	struct vnode *used[4] = { p };
	if (!lua_isnil(L, 3)) {
		vchecktable(L, 3);
		marsh_read(L, 3, 3, vf_qp_init_attr, &ia);
		/* librdmacm makes the CQs when none are given (rdma_get_send_comp reads those), and
		 * sets qp_type from res.ai_qp_type */
		qp_read_deps(L, 3, 3, &ia.send_cq, &ia.recv_cq, &ia.srq, p, used);   /* 4, 5, 6 */
		if (!ia.send_cq != !ia.recv_cq)
			return vargerror(L, 3, "give both send_cq and recv_cq, or neither (librdmacm then makes"
					       " both, which id:get_send_comp and id:get_recv_comp read)");
		iap = &ia;
	}
	lua_settop(L, 6);
	bool passive = (((struct rdma_addrinfo *)r->h)->ai_flags & RAI_PASSIVE) != 0;
	int deps[EP_UVS] = { 0, p ? 2 : 0, 0, passive ? 4 : 0, passive ? 5 : 0, passive ? 6 : 0 };
	struct vnode *n = vobj_new(L, &vc_cm_id, EP_UVS, deps);   /* 7 */
	vobj_recheck(L, 3, used, 4);
	struct rdma_cm_id *id;
	int ret = rdma_create_ep(&id, r->h, p ? p->h : NULL, iap);
	int err = errno;
	if (ret)
		return ep_error(L, "rdma_create_ep", err, 1);
	vcmid(n)->ep = true;
	vobj_set(n, id);
	/* the CQs and SRQ given are the user's objects: the QP uses them */
	wrap_ep_qp(L, id, p ? 2 : 0, 4, 7);
	return 1;
}

/* listen_id:get_request([timeout_ms]) -> the new id (with its QP when the
 * listener was made with qp_init_attr), or nil at the timeout */
static int l_get_request(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	struct rdma_cm_id *listen = n->h;
	lua_Integer timeout = lua_isnoneornil(L, 2) ? -1 : (lua_Integer)marsh_check_uint(L, 2, 2, INT32_MAX, "timeout_ms");
	vnoextra(L, 2, "id:get_request([timeout_ms])", NULL);
	if (!vcmid(n)->ep)
		return luaL_error(L, "rdma_get_request: this id has an event channel of yours (ch:create_id):"
				     " its requests arrive there as CONNECT_REQUEST events (ch:get_cm_event);"
				     " get_request is for a listener made by verbs.create_ep");
	lua_settop(L, 1);
	lua_getiuservalue(L, 1, 2);   /* 2: the listener's PD, or nil */
	lua_getiuservalue(L, 1, EP_CQ_UV);       /* 3, 4, 5: its send_cq, recv_cq and srq, or nil */
	lua_getiuservalue(L, 1, EP_CQ_UV + 1);
	lua_getiuservalue(L, 1, EP_CQ_UV + 2);
	if (listen->channel && !wait_readable(L, listen->channel->fd, timeout)) {
		lua_pushnil(L);
		return 1;
	}
	int deps[EP_UVS] = { 0, lua_isnil(L, 2) ? 0 : 2 };
	struct vnode *id_n = vobj_new(L, &vc_cm_id, EP_UVS, deps);   /* 6 */
	struct rdma_cm_id *id;
	int ret = rdma_get_request(listen, &id);
	int err = errno;
	if (ret)
		return vraise(L, "rdma_get_request", err, 1, 0);
	vcmid(id_n)->ep = true;
	vobj_set(id_n, id);
	wrap_ep_qp(L, id, lua_isnil(L, 2) ? 0 : 2, 3, 6);
	return 1;
}

/* id:destroy_ep(): rdma_destroy_ep, the id with its QP */
static int l_destroy_ep(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	vnoextra(L, 1, "id:destroy_ep()", NULL);
	struct rdma_cm_id *id = n->h;
	if (id->qp && vobj_push(L, vobj_find(L, id->qp))) {
		lua_getfield(L, -1, "destroy");
		lua_insert(L, -2);
		lua_call(L, 1, 0);
	}
	lua_getfield(L, 1, "destroy");
	lua_pushvalue(L, 1);
	lua_call(L, 1, 0);
	return 0;
}

/* ---- the rdma_verbs.h helpers ---------------------------------------------------- */

static struct rdma_cm_id *need_pd(lua_State *L, struct vnode *n, const char *verb)
{
	struct rdma_cm_id *id = n->h;
	if (!id->pd)
		luaL_error(L, "%s: this id has no PD yet (librdmacm sets id->pd when it makes the QP): use"
			      " verbs.create_ep(res, pd, qp_init_attr) or id:create_qp(pd, ...) first; C would pass"
			      " a NULL PD to ibv_reg_mr", verb);
	return id;
}

static int reg_verb(lua_State *L, const char *verb, int access)
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	char form[64];
	snprintf(form, sizeof form, "id:%s(size_or_string)", verb + 5);
	vnoextra(L, 2, form, NULL);
	struct rdma_cm_id *id = need_pd(L, n, verb);
	if (lua_type(L, 2) != LUA_TSTRING && lua_type(L, 2) != LUA_TNUMBER)
		return vtypeerror(L, 2, "length (integer) or initial contents (string)");
	lua_settop(L, 2);
	return mr_register(L, 1, id->pd, 2, access, verb);
}

static int l_reg_msgs(lua_State *L) { return reg_verb(L, "rdma_reg_msgs", IBV_ACCESS_LOCAL_WRITE); }
static int l_reg_read(lua_State *L)
{
	return reg_verb(L, "rdma_reg_read", IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
}
static int l_reg_write(lua_State *L)
{
	return reg_verb(L, "rdma_reg_write", IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
}

/* The id at 1 and its QP, which every post needs (C would pass NULL to
 * ibv_post_send); a receive may go to the id's SRQ instead. */
static struct rdma_cm_id *need_qp(lua_State *L, const char *verb, bool recv)
{
	struct rdma_cm_id *id = vobj_check(L, 1, &vc_cm_id)->h;
	if (!id->qp && !(recv && id->srq))
		luaL_error(L, "%s: this id has no QP (C would post to a NULL one): verbs.create_ep(res, pd,"
			      " qp_init_attr) makes one, or id:create_qp(pd, init_attr)", verb);
	return id;
}

/* The buffer: mr at arg, offset at arg+1 (0), length at arg+2 (the rest);
 * checked against the MR's memory. */
static struct ibv_mr *read_buf(lua_State *L, int arg, void **addr, size_t *len)
{
	struct vnode *m = vobj_check(L, arg, &vc_mr);
	size_t size = vmr(m)->len;
	size_t off = lua_isnoneornil(L, arg + 1) ? 0 : (size_t)marsh_check_uint(L, arg + 1, arg + 1, size, "offset");
	*len = lua_isnoneornil(L, arg + 2) ? size - off
					   : (size_t)marsh_check_uint(L, arg + 2, arg + 2, UINT32_MAX, "length");
	if (*len > size - off)
		vargerror(L, arg + 2, lua_pushfstring(L, "offset %I + length %I is beyond the MR's %I bytes",
						      (lua_Integer)off, (lua_Integer)*len, (lua_Integer)size));
	*addr = (char *)vmr(m)->buf + off;
	return m->h;
}

static void *read_wr_id(lua_State *L, int arg)
{
	if (lua_isnoneornil(L, arg))
		return NULL;
	return (void *)(uintptr_t)marsh_check_uint(L, arg, arg, UINTPTR_MAX > UINT32_MAX ? INT64_MAX : UINT32_MAX,
						    "wr_id");
}

static int read_flags(lua_State *L, int arg)
{
	int64_t v = 0;
	const char *e;
	if (!lua_isnoneornil(L, arg) && (e = venum_read(L, arg, &ve_send_flags, &v)))
		vargerror(L, arg, e);
	return (int)v;
}

static int post_result(lua_State *L, const char *verb, int ret, int err)
{
	if (ret) {
		struct rdma_cm_id *id = vobj_check(L, 1, &vc_cm_id)->h;
		lua_createtable(L, 0, 1);
		if (id->qp) {
			venum_push(L, &ve_qp_type, id->qp->qp_type);
			lua_setfield(L, -2, "qp_type");
		}
		return vraise(L, verb, err, 1, -1);
	}
	return 0;
}

/* id:post_recv(wr_id, mr [, offset [, length]]) */
static int l_post_recv(lua_State *L)
{
	struct rdma_cm_id *id = need_qp(L, "rdma_post_recv", true);
	vnoextra(L, 5, "id:post_recv(wr_id, mr [, offset [, length]])", NULL);
	void *addr;
	size_t len;
	struct ibv_mr *mr = read_buf(L, 3, &addr, &len);
	int ret = rdma_post_recv(id, read_wr_id(L, 2), addr, len, mr);
	return post_result(L, "rdma_post_recv", ret, errno);
}

/* id:post_send(wr_id, mr [, offset [, length [, flags]]]) */
static int l_post_send(lua_State *L)
{
	struct rdma_cm_id *id = need_qp(L, "rdma_post_send", false);
	vnoextra(L, 6, "id:post_send(wr_id, mr [, offset [, length [, flags]]])", NULL);
	void *addr;
	size_t len;
	struct ibv_mr *mr = read_buf(L, 3, &addr, &len);
	int flags = read_flags(L, 6);
	int ret = rdma_post_send(id, read_wr_id(L, 2), addr, len, mr, flags);
	return post_result(L, "rdma_post_send", ret, errno);
}

/* id:post_read / id:post_write(wr_id, mr, offset, length, flags, remote_addr, rkey) */
static int rdma_op(lua_State *L, bool write)
{
	const char *verb = write ? "rdma_post_write" : "rdma_post_read";
	struct rdma_cm_id *id = need_qp(L, verb, false);
	vnoextra(L, 8, write ? "id:post_write(wr_id, mr, offset, length, flags, remote_addr, rkey)"
			     : "id:post_read(wr_id, mr, offset, length, flags, remote_addr, rkey)", NULL);
	void *addr;
	size_t len;
	struct ibv_mr *mr = read_buf(L, 3, &addr, &len);
	int flags = read_flags(L, 6);
	uint64_t raddr = marsh_check_uint(L, 7, 7, UINT64_MAX >> 1, "remote_addr");
	uint32_t rkey = (uint32_t)marsh_check_uint(L, 8, 8, UINT32_MAX, "rkey");
	void *ctx = read_wr_id(L, 2);
	int ret = write ? rdma_post_write(id, ctx, addr, len, mr, flags, raddr, rkey)
			: rdma_post_read(id, ctx, addr, len, mr, flags, raddr, rkey);
	return post_result(L, verb, ret, errno);
}
static int l_post_read(lua_State *L) { return rdma_op(L, false); }
static int l_post_write(lua_State *L) { return rdma_op(L, true); }

/* id:post_ud_send(wr_id, mr, offset, length, flags, ah, remote_qpn): Q_Key
 * RDMA_UDP_QKEY, as librdmacm's UD ids use */
static int l_post_ud_send(lua_State *L)
{
	struct rdma_cm_id *id = need_qp(L, "rdma_post_ud_send", false);
	vnoextra(L, 8, "id:post_ud_send(wr_id, mr, offset, length, flags, ah, remote_qpn)", NULL);
	void *addr;
	size_t len;
	struct ibv_mr *mr = read_buf(L, 3, &addr, &len);
	int flags = read_flags(L, 6);
	struct ibv_ah *ah = vobj_check(L, 7, &vc_ah)->h;
	uint32_t qpn = (uint32_t)marsh_check_uint(L, 8, 8, 0xffffff, "remote_qpn");
	if (id->qp->qp_type != IBV_QPT_UD)
		return luaL_error(L, "rdma_post_ud_send: this id's QP is %s, not UD: use id:post_send",
				  venum_name(&ve_qp_type, id->qp->qp_type));
	int ret = rdma_post_ud_send(id, read_wr_id(L, 2), addr, len, mr, flags, ah, qpn);
	return post_result(L, "rdma_post_ud_send", ret, errno);
}

/* The SGE list at arg, as qp:post_send's sg_list. */
#define MAX_SGES 32
static int read_sgl(lua_State *L, int arg, struct ibv_sge *sgl)
{
	if (!lua_istable(L, arg))
		vtypeerror(L, arg, "table (a list of { mr=, offset=, length= })");
	return sge_list_read(L, arg, arg, sgl, MAX_SGES, NULL);
}

static int l_post_recvv(lua_State *L)
{
	struct rdma_cm_id *id = need_qp(L, "rdma_post_recvv", true);
	vnoextra(L, 3, "id:post_recvv(wr_id, sgl)", NULL);
	struct ibv_sge sgl[MAX_SGES];
	int n = read_sgl(L, 3, sgl);
	int ret = rdma_post_recvv(id, read_wr_id(L, 2), sgl, n);
	return post_result(L, "rdma_post_recvv", ret, errno);
}

static int l_post_sendv(lua_State *L)
{
	struct rdma_cm_id *id = need_qp(L, "rdma_post_sendv", false);
	vnoextra(L, 4, "id:post_sendv(wr_id, sgl [, flags])", NULL);
	struct ibv_sge sgl[MAX_SGES];
	int n = read_sgl(L, 3, sgl);
	int ret = rdma_post_sendv(id, read_wr_id(L, 2), sgl, n, read_flags(L, 4));
	return post_result(L, "rdma_post_sendv", ret, errno);
}

static int rdma_opv(lua_State *L, bool write)
{
	const char *verb = write ? "rdma_post_writev" : "rdma_post_readv";
	struct rdma_cm_id *id = need_qp(L, verb, false);
	vnoextra(L, 6, write ? "id:post_writev(wr_id, sgl, flags, remote_addr, rkey)"
			     : "id:post_readv(wr_id, sgl, flags, remote_addr, rkey)", NULL);
	struct ibv_sge sgl[MAX_SGES];
	int n = read_sgl(L, 3, sgl);
	int flags = read_flags(L, 4);
	uint64_t raddr = marsh_check_uint(L, 5, 5, UINT64_MAX >> 1, "remote_addr");
	uint32_t rkey = (uint32_t)marsh_check_uint(L, 6, 6, UINT32_MAX, "rkey");
	void *ctx = read_wr_id(L, 2);
	int ret = write ? rdma_post_writev(id, ctx, sgl, n, flags, raddr, rkey)
			: rdma_post_readv(id, ctx, sgl, n, flags, raddr, rkey);
	return post_result(L, verb, ret, errno);
}
static int l_post_readv(lua_State *L) { return rdma_opv(L, false); }
static int l_post_writev(lua_State *L) { return rdma_opv(L, true); }

/* id:get_send_comp([timeout_ms]) / id:get_recv_comp([timeout_ms]) -> wc, or
 * nil at the timeout. What rdma_get_send_comp does (poll, arm, poll again,
 * wait for the CQ's event, ack it), with the wait interruptible. */
static int get_comp(lua_State *L, bool send)
{
	const char *verb = send ? "rdma_get_send_comp" : "rdma_get_recv_comp";
	struct rdma_cm_id *id = vobj_check(L, 1, &vc_cm_id)->h;
	lua_Integer timeout = lua_isnoneornil(L, 2) ? -1 : (lua_Integer)marsh_check_uint(L, 2, 2, INT32_MAX, "timeout_ms");
	vnoextra(L, 2, send ? "id:get_send_comp([timeout_ms])" : "id:get_recv_comp([timeout_ms])", NULL);
	struct ibv_cq *cq = send ? id->send_cq : id->recv_cq;
	struct ibv_comp_channel *ch = send ? id->send_cq_channel : id->recv_cq_channel;
	if (!cq || !ch)
		return luaL_error(L, "%s: this id has no CQ of librdmacm's (id->%s is NULL): librdmacm makes them"
				     " only when the QP is created without send_cq/recv_cq; poll your own CQ with"
				     " cq:wait instead", verb, send ? "send_cq" : "recv_cq");
	struct ibv_wc wc;
	double until = timeout < 0 ? 0 : now_s() + (double)timeout / 1000;
	int ret;
	for (;;) {
		if ((ret = ibv_poll_cq(cq, 1, &wc)))
			break;
		if ((ret = ibv_req_notify_cq(cq, 0)))
			return vraise(L, "ibv_req_notify_cq", ret, 1, 0);
		if ((ret = ibv_poll_cq(cq, 1, &wc)))
			break;
		lua_Integer left = timeout < 0 ? -1 : (lua_Integer)((until - now_s()) * 1000);
		if (timeout >= 0 && left < 0)
			left = 0;
		if (!wait_readable(L, ch->fd, left)) {
			lua_pushnil(L);
			return 1;
		}
		struct ibv_cq *ev_cq;
		void *ev_ctx;
		if (ibv_get_cq_event(ch, &ev_cq, &ev_ctx))
			return vraise(L, "ibv_get_cq_event", errno, 1, 0);
		ibv_ack_cq_events(ev_cq, 1);
	}
	if (ret < 0)
		return vraise(L, verb, -ret, 1, 0);
	wc_push(L, &wc);
	return 1;
}
static int l_get_send_comp(lua_State *L) { return get_comp(L, true); }
static int l_get_recv_comp(lua_State *L) { return get_comp(L, false); }

/* id:create_srq(pd_or_nil, { max_wr=, max_sge=, srq_limit= }): rdma_create_srq.
 * Receives posted with id:post_recv go to it (librdmacm makes no CQ for a
 * BASIC SRQ). The SRQ uses the id: rdma_destroy_srq destroys it through it. */
static int l_create_srq(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	struct rdma_cm_id *id = n->h;
	struct vnode *p = lua_isnoneornil(L, 2) ? NULL : vobj_check(L, 2, &vc_pd);
	struct ibv_srq_init_attr ia = { 0 };
	vnoextra(L, 3, "id:create_srq(pd_or_nil, attr)", NULL);
	vchecktable(L, 3);
	marsh_read(L, 3, 3, vf_srq_attr, &ia.attr);
	if (!p && !id->pd)
		return luaL_error(L, "rdma_create_srq: this id has no PD yet, and none was given: pass one"
				     " (id.verbs:alloc_pd()), or make the endpoint's QP first");
	if (id->srq)
		return luaL_error(L, "rdma_create_srq: this id has an SRQ already (an rdma_cm_id holds one)");
	lua_settop(L, 3);
	int deps[] = { p ? 2 : 0, 1 };
	struct vnode *s = vobj_new(L, &vc_srq, 2, deps);
	int ret = rdma_create_srq(id, p ? p->h : NULL, &ia);
	int err = errno;
	if (ret) {
		lua_createtable(L, 0, 1);
		return vraise_create(L, "rdma_create_srq", err, 1);
	}
	vobj_set(s, id->srq);
	return 1;
}

/* id:create_srq_ex{ srq_type=, pd=, attr={...} }: rdma_create_srq_ex. As
 * id:create_srq, with struct ibv_srq_init_attr_ex; comp_mask from the keys
 * given unless given. No cq key: that is an XRC SRQ's, which rdma_cm does
 * not make for an id (ctx:create_srq_ex makes one where a device has XRC). */
static int l_create_srq_ex(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	struct rdma_cm_id *id = n->h;
	struct ibv_srq_init_attr_ex a;
	memset(&a, 0, sizeof a);
	vchecktable(L, 2);
	vnoextra(L, 2, "id:create_srq_ex{...}", NULL);
	uint64_t mask = marsh_read(L, 2, 2, vf_srq_init_attr_ex, &a);
	lua_pushliteral(L, "comp_mask");
	if (lua_rawget(L, 2) == LUA_TNIL)
		a.comp_mask = (uint32_t)mask;
	lua_pop(L, 1);
	if (a.cq || (a.comp_mask & IBV_SRQ_INIT_ATTR_CQ))
		return vargerror(L, 2, "key 'cq' is an XRC SRQ's, which an rdma_cm id does not make: "
				       "ctx:create_srq_ex makes one on a device with XRC");
	if (!a.pd && !id->pd)
		return luaL_error(L, "rdma_create_srq_ex: this id has no PD yet, and the table gives none: add pd = "
				     "id.verbs:alloc_pd(), or make the endpoint's QP first");
	if (id->srq)
		return luaL_error(L, "rdma_create_srq_ex: this id has an SRQ already (an rdma_cm_id holds one)");
	lua_settop(L, 2);
	struct vnode *p = vobj_field(L, 2, 2, "pd", &vc_pd, NULL);   /* 3: the pd, when given */
	int deps[] = { p ? 3 : 0, 1 };
	struct vnode *s = vobj_new(L, &vc_srq, 2, deps);
	int ret = rdma_create_srq_ex(id, &a);
	int err = errno;
	if (ret) {
		lua_createtable(L, 0, 1);
		return vraise_create(L, "rdma_create_srq_ex", err, 1);
	}
	vobj_set(s, id->srq);
	return 1;
}

const luaL_Reg cm_id_more_methods[] = {
	{ "create_srq_ex", l_create_srq_ex },
	{ "join_multicast", mcast_join }, { "join_multicast_ex", mcast_join_ex }, { "leave_multicast", mcast_leave },
	{ "get_request", l_get_request }, { "destroy_ep", l_destroy_ep },
	{ "reg_msgs", l_reg_msgs }, { "reg_read", l_reg_read }, { "reg_write", l_reg_write },
	{ "post_recv", l_post_recv }, { "post_send", l_post_send }, { "post_read", l_post_read },
	{ "post_write", l_post_write }, { "post_ud_send", l_post_ud_send }, { "post_recvv", l_post_recvv },
	{ "post_sendv", l_post_sendv }, { "post_readv", l_post_readv }, { "post_writev", l_post_writev },
	{ "get_send_comp", l_get_send_comp }, { "get_recv_comp", l_get_recv_comp }, { "create_srq", l_create_srq },
	{ NULL, NULL }
};

void cm_ep_open(lua_State *L)
{
	vobj_register(L, &vc_cm_addrinfo);
	lua_pushcfunction(L, l_getaddrinfo);
	lua_setfield(L, -2, "getaddrinfo");
	lua_pushcfunction(L, l_create_ep);
	lua_setfield(L, -2, "create_ep");
}
