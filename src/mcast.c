/* Multicast: a UD QP attached to a group GID (ibv_attach_mcast), and the
 * rdma_cm way, which joins the group, attaches the id's QP and hands back
 * the group's address (rdma_join_multicast, the MULTICAST_JOIN event).
 *
 * On RoCE a group GID is an IPv4-mapped multicast address
 * (::ffff:239.1.2.3) or an IPv6 one (ff0e::1); lid is unused there (0). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>
#include "verbsh.h"

/* Whether the GID is a multicast address: ff00::/8, or ::ffff:224.0.0.0/4. */
static bool gid_is_multicast(const union ibv_gid *g)
{
	static const uint8_t v4mapped[12] = { [10] = 0xff, [11] = 0xff };
	if (g->raw[0] == 0xff)
		return true;
	return memcmp(g->raw, v4mapped, 12) == 0 && (g->raw[12] & 0xf0) == 0xe0;
}

/* A group a QP is attached to (gid, lid) or an id joined (addr). */
struct vmc {
	union ibv_gid gid;
	uint16_t lid;
	struct sockaddr_storage addr;
	struct vmc *next;
};

static bool same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr == ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	if (a->ss_family == AF_INET6)
		return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr, &((const struct sockaddr_in6 *)b)->sin6_addr,
			      16) == 0;
	return memcmp(a, b, sizeof *a) == 0;
}

/* The entry of list for (gid, lid) or addr, as a pointer to its link. */
static struct vmc **find_mc(struct vmc **list, const union ibv_gid *gid, uint16_t lid,
			    const struct sockaddr_storage *addr)
{
	for (; *list; list = &(*list)->next)
		if (addr ? same_addr(&(*list)->addr, addr)
			 : memcmp((*list)->gid.raw, gid->raw, 16) == 0 && (*list)->lid == lid)
			return list;
	return list;
}

static void add_mc(struct vmc **list, const union ibv_gid *gid, uint16_t lid, const struct sockaddr_storage *addr)
{
	struct vmc **at = find_mc(list, gid, lid, addr);
	if (*at)
		return;
	struct vmc *m = calloc(1, sizeof *m);
	if (!m)
		return;   /* only the garbage collector's cleanup is lost */
	if (gid)
		m->gid = *gid;
	m->lid = lid;
	if (addr)
		m->addr = *addr;
	*at = m;
}

static void remove_mc(struct vmc **at)
{
	struct vmc *m = *at;
	if (m) {
		*at = m->next;
		free(m);
	}
}

void mcast_detach_all(struct vnode *n)
{
	while (vqp(n)->mc) {
		ibv_detach_mcast(n->h, &vqp(n)->mc->gid, vqp(n)->mc->lid);
		remove_mc(&vqp(n)->mc);
	}
}

void mcast_leave_all(struct vnode *n)
{
	while (vcmid(n)->joined) {
		rdma_leave_multicast(n->h, (struct sockaddr *)&vcmid(n)->joined->addr);
		remove_mc(&vcmid(n)->joined);
	}
}

const char *mcast_refuse_destroy(struct vnode *n)
{
	static char why[400];
	char text[INET6_ADDRSTRLEN];
	if (vqp(n)->mc) {
		inet_ntop(AF_INET6, vqp(n)->mc->gid.raw, text, sizeof text);
		snprintf(why, sizeof why, "the QP is still attached to the group %s: qp:detach_mcast(\"%s\", %u) first"
			 " (ibv_destroy_qp would fail with EBUSY)", text, text, (unsigned)vqp(n)->mc->lid);
		return why;
	}
	struct vnode *id = n->deps[QP_DEP_CM_ID];
	if (id && vcmid(id)->joined) {
		const struct sockaddr_storage *a = &vcmid(id)->joined->addr;
		const void *ip = a->ss_family == AF_INET6 ? (const void *)&((const struct sockaddr_in6 *)a)->sin6_addr
							   : (const void *)&((const struct sockaddr_in *)a)->sin_addr;
		inet_ntop(a->ss_family, ip, text, sizeof text);
		snprintf(why, sizeof why, "its id joined the group %s, which librdmacm attached the QP to: "
			 "id:leave_multicast(\"%s\") first (rdma_destroy_qp would fail to destroy it, EBUSY)", text, text);
		return why;
	}
	return NULL;
}

/* qp:attach_mcast(gid, lid) and qp:detach_mcast(gid, lid) */
static int attach_verb(lua_State *L, bool attach)
{
	struct vnode *n = vobj_check(L, 1, &vc_qp);
	struct ibv_qp *qp = n->h;
	union ibv_gid gid;
	const char *e;
	const char *verb = attach ? "ibv_attach_mcast" : "ibv_detach_mcast";

	vnoextra(L, 3, attach ? "qp:attach_mcast(gid, lid)" : "qp:detach_mcast(gid, lid)", NULL);
	if ((e = marsh_gid_read(L, 2, &gid)))
		return vargerror(L, 2, e);
	uint16_t lid = (uint16_t)marsh_check_uint(L, 3, 3, 0xffff, "lid");
	int ret = attach ? ibv_attach_mcast(qp, &gid, lid) : ibv_detach_mcast(qp, &gid, lid);
	if (ret) {
		lua_createtable(L, 0, 4);
		venum_push(L, &ve_qp_type, qp->qp_type);
		lua_setfield(L, -2, "qp_type");
		marsh_gid_push(L, &gid);
		lua_setfield(L, -2, "gid");
		lua_pushboolean(L, gid_is_multicast(&gid));
		lua_setfield(L, -2, "multicast");
		lua_pushinteger(L, lid);
		lua_setfield(L, -2, "lid");
		return vraise(L, verb, ret, 1, -1);
	}
	if (attach)
		add_mc(&vqp(n)->mc, &gid, lid, NULL);
	else
		remove_mc(find_mc(&vqp(n)->mc, &gid, lid, NULL));
	return 0;
}

int mcast_attach(lua_State *L) { return attach_verb(L, true); }
int mcast_detach(lua_State *L) { return attach_verb(L, false); }

/* ---- rdma_cm ---------------------------------------------------------------- */

/* The id at 1 must be a UD one: on a TCP id librdmacm and the kernel refuse
 * the join with an errno that names nothing (EINVAL, ENOSYS). */
static void need_ud(lua_State *L, struct vnode *n, const char *verb)
{
	struct rdma_cm_id *id = n->h;
	if (id->ps != RDMA_PS_UDP && id->ps != RDMA_PS_IPOIB) {
		const char *ps = venum_name(&ve_port_space, id->ps);
		luaL_error(L, "%s: multicast is for UD ids: this id's port space is %s; create it with"
			   " cm_ch:create_id(\"UDP\")", verb, ps ? ps : "?");
	}
}

static int join_error(lua_State *L, const char *verb, int err, int addr_arg, bool has_qp)
{
	lua_createtable(L, 0, 2);
	lua_pushvalue(L, addr_arg);
	lua_setfield(L, -2, "addr");
	lua_pushboolean(L, has_qp);
	lua_setfield(L, -2, "has_qp");
	return vraise(L, verb, err, 1, -1);
}

/* The context a join hands back in its events (ev.param.ud.context): an
 * integer, as a WR's wr_id is; nil is NULL. */
static void *read_context(lua_State *L, int arg)
{
	if (lua_isnoneornil(L, arg))
		return NULL;
	return (void *)(uintptr_t)marsh_check_uint(L, arg, arg, UINTPTR_MAX > UINT32_MAX ? INT64_MAX : UINT32_MAX,
						    "context");
}

/* id:join_multicast(addr [, context]) */
int mcast_join(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	struct sockaddr_storage ss;
	vnoextra(L, 3, "id:join_multicast(addr [, context])", NULL);
	need_ud(L, n, "rdma_join_multicast");
	cm_read_addr(L, 2, &ss, "addr");
	void *context = read_context(L, 3);
	struct rdma_cm_id *id = n->h;
	int ret = rdma_join_multicast(id, (struct sockaddr *)&ss, context);
	int err = errno;
	if (ret)
		return join_error(L, "rdma_join_multicast", err, 2, id->qp != NULL);
	add_mc(&vcmid(n)->joined, NULL, 0, &ss);
	return 0;
}

#define MC(m, t, ...) VF(struct rdma_cm_join_mc_attr_ex, m, t, __VA_ARGS__)
static const char *read_mc_addr(lua_State *L, int idx, void *dst, const struct vfield *f);
const struct vfield vf_join_mc_attr_ex[] = {
	MC(comp_mask, VT_FLAGS, .en = &ve_join_mc_attr_mask),
	MC(join_flags, VT_ENUM, .en = &ve_mc_join_flags, .bit = RDMA_CM_JOIN_MC_ATTR_JOIN_FLAGS),
	{ .name = "addr", .type = VT_CUSTOM, .custom = read_mc_addr, .bit = RDMA_CM_JOIN_MC_ATTR_ADDRESS,
	  .no_output = true },
	VF_END
};

/* What join_multicast_ex reads the attributes into: the struct and the
 * address it points to. */
struct mc_attr {
	struct rdma_cm_join_mc_attr_ex a;
	struct sockaddr_storage addr;
};

/* The address is read after the table (its text names argument 2): here
 * only its type is checked. */
static const char *read_mc_addr(lua_State *L, int idx, void *dst VUNUSED, const struct vfield *f VUNUSED)
{
	if (lua_type(L, idx) != LUA_TSTRING)
		return lua_pushfstring(L, "address expected as a string (\"239.1.2.3\"), got %s", luaL_typename(L, idx));
	return NULL;
}

/* id:join_multicast_ex({ addr=, join_flags=, comp_mask= } [, context]):
 * comp_mask defaults to the bits of the keys given. */
int mcast_join_ex(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	struct mc_attr m;
	vnoextra(L, 3, "id:join_multicast_ex(attr [, context])", NULL);
	need_ud(L, n, "rdma_join_multicast_ex");
	vchecktable(L, 2);
	memset(&m, 0, sizeof m);
	uint64_t bits = marsh_read(L, 2, 2, vf_join_mc_attr_ex, &m);
	lua_pushliteral(L, "comp_mask");
	bool mask_given = lua_rawget(L, 2) != LUA_TNIL;
	lua_pop(L, 1);
	if (!mask_given)
		m.a.comp_mask = (uint32_t)bits;
	lua_settop(L, 3);
	lua_pushliteral(L, "addr");
	if (lua_rawget(L, 2) == LUA_TNIL)   /* 4 */
		return vargerror(L, 2, "key 'addr' is required (the group, e.g. \"239.1.2.3\")");
	cm_read_addr_at(L, 2, 4, &m.addr, "key 'addr'");
	m.a.addr = (struct sockaddr *)&m.addr;
	void *context = read_context(L, 3);
	struct rdma_cm_id *id = n->h;
	int ret = rdma_join_multicast_ex(id, &m.a, context);
	int err = errno;
	if (ret)
		return join_error(L, "rdma_join_multicast_ex", err, 4, id->qp != NULL);
	add_mc(&vcmid(n)->joined, NULL, 0, &m.addr);
	return 0;
}

/* id:leave_multicast(addr) */
int mcast_leave(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cm_id);
	struct sockaddr_storage ss;
	vnoextra(L, 2, "id:leave_multicast(addr)", NULL);
	cm_read_addr(L, 2, &ss, "addr");
	struct rdma_cm_id *id = n->h;
	int ret = rdma_leave_multicast(id, (struct sockaddr *)&ss);
	int err = errno;
	if (ret)
		return join_error(L, "rdma_leave_multicast", err, 2, id->qp != NULL);
	remove_mc(find_mc(&vcmid(n)->joined, NULL, 0, &ss));
	return 0;
}
