/* The rest of verbs.h that rxe runs: the extended device query, P_Keys,
 * resizing a CQ, MRs at a chosen IOVA, ibv_create_srq_ex, fork support,
 * data ordering, the *_str helpers and the static-rate conversions. Each
 * method is added to its class's methods after the classes are registered
 * (api_rest_open), so the class files stay as they were.
 *
 * What rxe refuses (XRC, device memory, flows, ...) is in devonly.c, and
 * why it refuses is lua/explain_dev.lua's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include "verbsh.h"

/* Sets t.device (t at -1) to the name of n's device: explanations say "rxe0 does not ...". */
static void set_device(lua_State *L, struct vnode *n)
{
	struct vnode *c = vobj_context(n);
	if (c && c->h) {
		lua_pushstring(L, ibv_get_device_name(((struct ibv_context *)c->h)->device));
		lua_setfield(L, -2, "device");
	}
}

/* ---- context --------------------------------------------------------------- */

/* ctx:query_device_ex() -> the ibv_device_attr keys, and the extended ones */
static int l_query_device_ex(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_context);
	vnoextra(L, 1, "ctx:query_device_ex()", NULL);
	struct ibv_device_attr_ex a;
	memset(&a, 0, sizeof a);
	int ret = ibv_query_device_ex(n->h, NULL, &a);
	if (ret)
		return vraise(L, "ibv_query_device_ex", ret > 0 ? ret : errno, 1, 0);
	marsh_push(L, vf_device_attr, &a.orig_attr);
	lua_pushstring(L, a.orig_attr.fw_ver);
	lua_setfield(L, -2, "fw_ver");
#define EX(m) (lua_pushinteger(L, (lua_Integer)a.m), lua_setfield(L, -2, #m))
	EX(comp_mask);
	EX(completion_timestamp_mask);
	EX(hca_core_clock);
	EX(device_cap_flags_ex);
	EX(max_wq_type_rq);
	EX(raw_packet_caps);
	EX(max_dm_size);
	EX(xrc_odp_caps);
	EX(phys_port_cnt_ex);
#undef EX
	/* the nested capability structs, as tables of their integers */
	/* odp_caps.per_transport_caps as in C; its three also directly in odp_caps */
	lua_createtable(L, 0, 5);
	lua_pushinteger(L, a.odp_caps.general_caps); lua_setfield(L, -2, "general_caps");
	lua_createtable(L, 0, 3);
	static const char *const odp_tr[] = { "rc_odp_caps", "uc_odp_caps", "ud_odp_caps" };
	const uint32_t odp_v[] = { a.odp_caps.per_transport_caps.rc_odp_caps, a.odp_caps.per_transport_caps.uc_odp_caps,
				   a.odp_caps.per_transport_caps.ud_odp_caps };
	for (int i = 0; i < 3; i++) {
		lua_pushinteger(L, odp_v[i]);
		lua_pushvalue(L, -1);
		lua_setfield(L, -3, odp_tr[i]);
		lua_setfield(L, -3, odp_tr[i]);
	}
	lua_setfield(L, -2, "per_transport_caps");
	lua_setfield(L, -2, "odp_caps");
	lua_createtable(L, 0, 2);
	lua_pushinteger(L, a.tso_caps.max_tso); lua_setfield(L, -2, "max_tso");
	lua_pushinteger(L, a.tso_caps.supported_qpts); lua_setfield(L, -2, "supported_qpts");
	lua_setfield(L, -2, "tso_caps");
	lua_createtable(L, 0, 2);
	lua_pushinteger(L, a.rss_caps.max_rwq_indirection_tables); lua_setfield(L, -2, "max_rwq_indirection_tables");
	lua_pushinteger(L, a.rss_caps.max_rwq_indirection_table_size);
	lua_setfield(L, -2, "max_rwq_indirection_table_size");
	lua_setfield(L, -2, "rss_caps");
	lua_createtable(L, 0, 2);
	lua_pushinteger(L, a.packet_pacing_caps.qp_rate_limit_min); lua_setfield(L, -2, "qp_rate_limit_min");
	lua_pushinteger(L, a.packet_pacing_caps.qp_rate_limit_max); lua_setfield(L, -2, "qp_rate_limit_max");
	lua_setfield(L, -2, "packet_pacing_caps");
	lua_createtable(L, 0, 2);
	lua_pushinteger(L, a.tm_caps.max_num_tags); lua_setfield(L, -2, "max_num_tags");
	lua_pushinteger(L, a.tm_caps.max_ops); lua_setfield(L, -2, "max_ops");
	lua_setfield(L, -2, "tm_caps");
	lua_createtable(L, 0, 2);
	lua_pushinteger(L, a.cq_mod_caps.max_cq_count); lua_setfield(L, -2, "max_cq_count");
	lua_pushinteger(L, a.cq_mod_caps.max_cq_period); lua_setfield(L, -2, "max_cq_period");
	lua_setfield(L, -2, "cq_mod_caps");
	lua_createtable(L, 0, 3);
	lua_pushinteger(L, a.pci_atomic_caps.fetch_add); lua_setfield(L, -2, "fetch_add");
	lua_pushinteger(L, a.pci_atomic_caps.swap); lua_setfield(L, -2, "swap");
	lua_pushinteger(L, a.pci_atomic_caps.compare_swap); lua_setfield(L, -2, "compare_swap");
	lua_setfield(L, -2, "pci_atomic_caps");
	return 1;
}

static uint8_t port_arg(lua_State *L, int idx)
{
	return (uint8_t)marsh_check_uint(L, idx, idx, 255, "port_num");
}

/* ctx:query_pkey(port, index) -> the P_Key in host order (0xffff: the default, full membership) */
static int l_query_pkey(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_context);
	vnoextra(L, 3, "ctx:query_pkey(port, index)", NULL);
	uint8_t port = port_arg(L, 2);
	int index = (int)marsh_check_uint(L, 3, 3, 0xffff, "index");
	__be16 pkey;
	if (ibv_query_pkey(n->h, port, index, &pkey)) {
		int err = errno;
		lua_createtable(L, 0, 2);
		lua_pushinteger(L, port);
		lua_setfield(L, -2, "port_num");
		lua_pushinteger(L, index);
		lua_setfield(L, -2, "index");
		return vraise(L, "ibv_query_pkey", err, 1, -1);
	}
	lua_pushinteger(L, ntohs(pkey));
	return 1;
}

/* ctx:get_pkey_index(port, pkey) -> the index of the P_Key (host order) in the port's table */
static int l_get_pkey_index(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_context);
	vnoextra(L, 3, "ctx:get_pkey_index(port, pkey)", NULL);
	uint8_t port = port_arg(L, 2);
	uint16_t pkey = (uint16_t)marsh_check_uint(L, 3, 3, 0xffff, "pkey");
	int ret = ibv_get_pkey_index(n->h, port, htons(pkey));
	if (ret < 0) {
		int err = errno;
		lua_createtable(L, 0, 2);
		lua_pushinteger(L, port);
		lua_setfield(L, -2, "port_num");
		lua_pushinteger(L, pkey);
		lua_setfield(L, -2, "pkey");
		return vraise(L, "ibv_get_pkey_index", err, 1, -1);
	}
	lua_pushinteger(L, ret);
	return 1;
}

/* ---- SRQ of ibv_create_srq_ex ------------------------------------------------ */

#define SX(m, t, ...) VF(struct ibv_srq_init_attr_ex, m, t, __VA_ARGS__)
const struct vfield vf_tm_cap[] = {
	VF(struct ibv_tm_cap, max_num_tags, VT_UINT), VF(struct ibv_tm_cap, max_ops, VT_UINT), VF_END
};
const struct vfield vf_srq_init_attr_ex[] = {
	SX(attr, VT_STRUCT, .sub = vf_srq_attr), SX(comp_mask, VT_FLAGS, .en = &ve_srq_init_attr_mask),
	SX(srq_type, VT_ENUM, .en = &ve_srq_type, .bit = IBV_SRQ_INIT_ATTR_TYPE),
	SX(pd, VT_OBJ, .cls = &vc_pd, .bit = IBV_SRQ_INIT_ATTR_PD),
	SX(cq, VT_OBJ, .cls = &vc_cq, .bit = IBV_SRQ_INIT_ATTR_CQ),
	SX(tm_cap, VT_STRUCT, .sub = vf_tm_cap, .bit = IBV_SRQ_INIT_ATTR_TM),
	VF_END
};

/* ctx:create_srq_ex{ srq_type=, pd=, attr={max_wr=, max_sge=, srq_limit=}, cq=, tm_cap= } */
static int l_create_srq_ex(lua_State *L)
{
	struct vnode *c = vobj_check(L, 1, &vc_context);
	struct ibv_srq_init_attr_ex a;
	memset(&a, 0, sizeof a);
	vchecktable(L, 2);
	vnoextra(L, 2, "ctx:create_srq_ex{...}", NULL);
	uint64_t mask = marsh_read(L, 2, 2, vf_srq_init_attr_ex, &a);
	lua_pushliteral(L, "comp_mask");
	bool given = lua_rawget(L, 2) != LUA_TNIL;
	lua_pop(L, 1);
	if (!given)
		a.comp_mask = (uint32_t)mask;
	if (!a.pd)
		return vargerror(L, 2, "key 'pd' is missing: an SRQ lives in a PD (ibv_create_srq_ex needs"
				       " IBV_SRQ_INIT_ATTR_PD)");
	struct vnode *p = vobj_field(L, 2, 2, "pd", &vc_pd, NULL);
	int pidx = lua_gettop(L);
	struct vnode *q = vobj_field(L, 2, 2, "cq", &vc_cq, NULL);
	int qidx = lua_gettop(L);
	vobj_same_context(L, 2, "pd", p, c);
	if (q)
		vobj_same_context(L, 2, "cq", q, c);
	int deps[] = { pidx, q ? qidx : 0 };
	struct vnode *n = vobj_new(L, &vc_srq, 2, deps);
	struct vnode *used[2] = { p, q };
	vobj_recheck(L, 2, used, 2);
	struct ibv_srq *srq = ibv_create_srq_ex(c->h, &a);
	int err = errno;
	if (!srq) {
		lua_createtable(L, 0, 2);
		venum_push(L, &ve_srq_type, a.srq_type);
		lua_setfield(L, -2, "srq_type");
		return vraise_create(L, "ibv_create_srq_ex", err, 1);
	}
	vobj_set(n, srq);
	return 1;
}

/* ---- CQ ---------------------------------------------------------------------- */

/* cq:resize(cqe) -> the new size (C's cq->cqe: the provider may round up) */
static int l_resize_cq(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cq);
	vnoextra(L, 2, "cq:resize(cqe)", NULL);
	int cqe = (int)marsh_check_uint(L, 2, 2, 0x7fffffff, "cqe");
	struct ibv_cq *cq = n->h;
	int ret = ibv_resize_cq(cq, cqe);
	if (ret) {
		lua_createtable(L, 0, 2);
		lua_pushinteger(L, cqe);
		lua_setfield(L, -2, "cqe");
		lua_pushinteger(L, cq->cqe);
		lua_setfield(L, -2, "old_cqe");
		return vraise(L, "ibv_resize_cq", ret > 0 ? ret : errno, 1, -1);
	}
	lua_pushinteger(L, cq->cqe);
	return 1;
}

/* ---- MR at a chosen IOVA ----------------------------------------------------- */

/* pd:reg_mr_iova(size_or_string, iova, access) and pd:reg_mr_iova2: an MR
 * whose remote address (what the peer puts in remote_addr) is iova instead
 * of the buffer's virtual address. */
static int reg_iova(lua_State *L, bool two)
{
	const char *fn = two ? "pd:reg_mr_iova2(size_or_string, iova, access)"
			     : "pd:reg_mr_iova(size_or_string, iova, access)";
	struct vnode *p = vobj_check(L, 1, &vc_pd);
	vnoextra(L, 4, fn, NULL);
	size_t len;
	const char *init = NULL;
	int64_t access = 0;
	const char *e;
	long page = sysconf(_SC_PAGESIZE);
	void *buf;

	if (lua_type(L, 2) == LUA_TSTRING)
		init = lua_tolstring(L, 2, &len);
	else if (lua_type(L, 2) == LUA_TNUMBER)
		len = (size_t)marsh_check_uint(L, 2, 2, (uint64_t)1 << 40, "length");
	else
		return vtypeerror(L, 2, "length (integer) or initial contents (string)");
	if (!lua_isinteger(L, 3))
		return vtypeerror(L, 3, "iova (integer)");
	uint64_t iova = (uint64_t)lua_tointeger(L, 3);
	if (!lua_isnoneornil(L, 4) && (e = venum_read(L, 4, &ve_access, &access)))
		return vargerror(L, 4, e);
	if (posix_memalign(&buf, (size_t)page, len ? (len + (size_t)page - 1) / (size_t)page * (size_t)page
						  : (size_t)page))
		return luaL_error(L, "reg_mr_iova: cannot allocate %I bytes", (lua_Integer)len);
	if (init)
		memcpy(buf, init, len);
	else
		memset(buf, 0, len);
	int deps[] = { 1 };
	struct vnode *n = vobj_new(L, &vc_mr, 1, deps);
	vmr(n)->buf = buf;
	vmr(n)->len = len;
	vmr(n)->access = (int)access;
	errno = 0;
	struct ibv_mr *mr = two ? ibv_reg_mr_iova2(p->h, buf, len, iova, (unsigned)access)
				: ibv_reg_mr_iova(p->h, buf, len, iova, (int)access);
	int err = errno;
	if (!mr) {
		free(buf);
		vmr(n)->buf = NULL;
		const char *verb = two ? "ibv_reg_mr_iova2" : "ibv_reg_mr_iova";
		if (err == 0 && iova % (uint64_t)page) {
			/* rxe (kernel 6.1) fails it and libibverbs leaves errno 0.
			 * (lua_pushfstring's %I is decimal: the hex is made here.) */
			char at[24], off[24];
			snprintf(at, sizeof at, "0x%llx", (unsigned long long)iova);
			snprintf(off, sizeof off, "0x%llx", (unsigned long long)(iova % (uint64_t)page));
			return luaL_error(L, "%s failed and left errno 0: iova %s is at offset %s in its page, and"
				" the buffer verbsh allocated starts a page (offset 0); the kernel maps whole pages, so the"
				" IOVA and the buffer must be at the same offset in a page: give an iova that is a multiple"
				" of %d", verb, at, off, (int)page);
		}
		lua_createtable(L, 0, 5);
		lua_pushinteger(L, (lua_Integer)len);
		lua_setfield(L, -2, "length");
		lua_pushinteger(L, (lua_Integer)access);
		lua_setfield(L, -2, "access");
		lua_pushinteger(L, (lua_Integer)iova);
		lua_setfield(L, -2, "iova");
		lua_pushinteger(L, page);
		lua_setfield(L, -2, "page");
		return vraise_create(L, verb, err ? err : EINVAL, 1);
	}
	vobj_set(n, mr);
	return 1;
}
static int l_reg_mr_iova(lua_State *L) { return reg_iova(L, false); }
static int l_reg_mr_iova2(lua_State *L) { return reg_iova(L, true); }

/* mr:rereg(flags, pd, access): ibv_rereg_mr changes the MR's PD or access in
 * place (CHANGE_TRANSLATION, a new buffer, is not offered: verbsh owns the
 * MR's memory). Returns nothing; a failure raises with C's negative code. */
static int l_rereg_mr(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_mr);
	vnoextra(L, 4, "mr:rereg(flags, pd, access)", NULL);
	int64_t flags = 0, access = 0;
	const char *e;
	if ((e = venum_read(L, 2, &ve_rereg_mr_flags, &flags)))
		return vargerror(L, 2, e);
	if (flags & IBV_REREG_MR_CHANGE_TRANSLATION)
		return vargerror(L, 2, "CHANGE_TRANSLATION moves the MR to another buffer, and verbsh owns the MR's"
				       " memory: register a new MR (pd:reg_mr) instead");
	struct ibv_pd *pd = NULL;
	struct vnode *p = NULL;
	if (!lua_isnoneornil(L, 3)) {
		p = vobj_check(L, 3, &vc_pd);
		pd = p->h;
		vobj_same_context(L, 3, "pd", p, n);
	}
	if ((flags & IBV_REREG_MR_CHANGE_PD) && !pd)
		return vargerror(L, 3, "CHANGE_PD needs the new PD (a verbs pd object)");
	if (!lua_isnoneornil(L, 4) && (e = venum_read(L, 4, &ve_access, &access)))
		return vargerror(L, 4, e);
	struct ibv_mr *mr = n->h;
	uint32_t lkey = mr->lkey, rkey = mr->rkey;
	errno = 0;
	int ret = ibv_rereg_mr(mr, (int)flags, pd, NULL, 0, (int)access);
	if (ret) {
		int err = errno ? errno : EINVAL;
		lua_createtable(L, 0, 2);
		lua_pushinteger(L, ret);
		lua_setfield(L, -2, "ret");
		static const char *const codes[] = { "", "IBV_REREG_MR_ERR_INPUT", "IBV_REREG_MR_ERR_DONT_FORK_NEW",
			"IBV_REREG_MR_ERR_DO_FORK_OLD", "IBV_REREG_MR_ERR_CMD", "IBV_REREG_MR_ERR_CMD_AND_DO_FORK_NEW" };
		if (ret < 0 && ret >= -5)
			lua_pushstring(L, codes[-ret]), lua_setfield(L, -2, "ret_name");
		set_device(L, n);
		return vraise(L, "ibv_rereg_mr", err, 1, -1);
	}
	if (flags & IBV_REREG_MR_CHANGE_ACCESS)
		vmr(n)->access = (int)access;
	if (flags & IBV_REREG_MR_CHANGE_PD)   /* the MR is the new PD's now: it keeps that one, not the old */
		vobj_replace_dep(L, 1, 0, 3);
	/* A provider may give the MR new keys (rxe keeps them): a prepared WR
	 * holding the old lkey is then warned of at its next post. */
	if (mr->lkey != lkey || mr->rkey != rkey)
		vobj_changed(n);
	return 0;
}

/* ---- QP ---------------------------------------------------------------------- */

/* qp:query_data_in_order(opcode [, flags]) -> 0, 1 (in order) or, with flags 1
 * (IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS), the capability bits */
static int l_query_data_in_order(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_qp);
	vnoextra(L, 3, "qp:query_data_in_order(opcode [, flags])", NULL);
	int64_t op;
	const char *e = venum_read(L, 2, &ve_wr_opcode, &op);
	if (e)
		return vargerror(L, 2, e);
	uint32_t flags = lua_isnoneornil(L, 3) ? 0 : (uint32_t)marsh_check_uint(L, 3, 3, 1, "flags");
	lua_pushinteger(L, ibv_query_qp_data_in_order(n->h, (enum ibv_wr_opcode)op, flags));
	return 1;
}

/* ---- verbs.* ------------------------------------------------------------------ */

/* verbs.fork_init() -> true, or raises with the errno (EINVAL once memory is registered, where fork needs it) */
static int l_fork_init(lua_State *L)
{
	vnoextra(L, 0, "verbs.fork_init()", NULL);
	int ret = ibv_fork_init();
	if (ret)
		return vraise(L, "ibv_fork_init", ret, 0, 0);
	lua_pushboolean(L, 1);
	return 1;
}

/* verbs.is_fork_initialized() -> "DISABLED", "ENABLED" or "UNNEEDED" */
static int l_is_fork_initialized(lua_State *L)
{
	vnoextra(L, 0, "verbs.is_fork_initialized()", NULL);
	venum_push(L, &ve_fork_status, ibv_is_fork_initialized());
	return 1;
}

/* The *_str helpers: verbs.node_type_str(v) etc., v a name or a number. */
#define STR_FN(name, en, call) \
	static int l_##name(lua_State *L) \
	{ \
		vnoextra(L, 1, "verbs." #name "(value)", NULL); \
		int64_t v; \
		const char *e = lua_isinteger(L, 1) ? NULL : venum_read(L, 1, &en, &v); \
		if (e) \
			return vargerror(L, 1, e); \
		if (lua_isinteger(L, 1)) /* any number, as in C: "unknown" for one without a name */ \
			v = lua_tointeger(L, 1); \
		lua_pushstring(L, call); \
		return 1; \
	}
STR_FN(node_type_str, ve_node_type, ibv_node_type_str((enum ibv_node_type)v))
STR_FN(port_state_str, ve_port_state, ibv_port_state_str((enum ibv_port_state)v))
STR_FN(event_type_str, ve_event_type, ibv_event_type_str((enum ibv_event_type)v))
STR_FN(wc_status_str, ve_wc_status, ibv_wc_status_str((enum ibv_wc_status)v))

/* verbs.rate_to_mbps(rate), verbs.rate_to_mult(rate): rate a name of enum ibv_rate */
static int rate_conv(lua_State *L, bool mbps)
{
	vnoextra(L, 1, mbps ? "verbs.rate_to_mbps(rate)" : "verbs.rate_to_mult(rate)", NULL);
	int64_t v;
	const char *e = venum_read(L, 1, &ve_rate, &v);
	if (e)
		return vargerror(L, 1, e);
	lua_pushinteger(L, mbps ? ibv_rate_to_mbps((enum ibv_rate)v) : ibv_rate_to_mult((enum ibv_rate)v));
	return 1;
}
static int l_rate_to_mbps(lua_State *L) { return rate_conv(L, true); }
static int l_rate_to_mult(lua_State *L) { return rate_conv(L, false); }

/* verbs.mbps_to_rate(mbps), verbs.mult_to_rate(mult) -> a name of enum ibv_rate
 * ("MAX", 0, when no rate is exactly that) */
static int to_rate(lua_State *L, bool mbps)
{
	vnoextra(L, 1, mbps ? "verbs.mbps_to_rate(mbps)" : "verbs.mult_to_rate(mult)", NULL);
	int v = (int)marsh_check_uint(L, 1, 1, 0x7fffffff, mbps ? "mbps" : "mult");
	venum_push(L, &ve_rate, mbps ? mbps_to_ibv_rate(v) : mult_to_ibv_rate(v));
	return 1;
}
static int l_mbps_to_rate(lua_State *L) { return to_rate(L, true); }
static int l_mult_to_rate(lua_State *L) { return to_rate(L, false); }

/* verbs.flow_label_to_udp_sport(flow_label) -> the RoCEv2 UDP source port */
static int l_flow_label_to_udp_sport(lua_State *L)
{
	vnoextra(L, 1, "verbs.flow_label_to_udp_sport(flow_label)", NULL);
	uint32_t fl = (uint32_t)marsh_check_uint(L, 1, 1, 0xfffff, "flow_label");
	lua_pushinteger(L, ibv_flow_label_to_udp_sport(fl));
	return 1;
}

/* verbs.is_qpt_supported(caps, qp_type) -> boolean: whether bit qp_type is set in caps */
static int l_is_qpt_supported(lua_State *L)
{
	vnoextra(L, 2, "verbs.is_qpt_supported(caps, qp_type)", NULL);
	uint32_t caps = (uint32_t)marsh_check_uint(L, 1, 1, 0xffffffff, "caps");
	int64_t t;
	const char *e = venum_read(L, 2, &ve_qp_type, &t);
	if (e)
		return vargerror(L, 2, e);
	lua_pushboolean(L, ibv_is_qpt_supported(caps, (enum ibv_qp_type)t));
	return 1;
}

/* Adds fns to the methods of the class named tname (registered already:
 * each object copies its class's methods when it is made). */
void api_add_methods(lua_State *L, const char *tname, const luaL_Reg *fns)
{
	luaL_getmetatable(L, tname);
	lua_getfield(L, -1, "__methods");
	luaL_setfuncs(L, fns, 0);
	lua_pop(L, 2);
}

void api_rest_open(lua_State *L)
{
	static const luaL_Reg ctx_fns[] = {
		{ "query_device_ex", l_query_device_ex }, { "query_pkey", l_query_pkey },
		{ "get_pkey_index", l_get_pkey_index }, { "create_srq_ex", l_create_srq_ex }, { NULL, NULL }
	};
	static const luaL_Reg cq_fns[] = { { "resize", l_resize_cq }, { NULL, NULL } };
	static const luaL_Reg pd_fns[] = { { "reg_mr_iova", l_reg_mr_iova }, { "reg_mr_iova2", l_reg_mr_iova2 },
					   { NULL, NULL } };
	static const luaL_Reg mr_fns[] = { { "rereg", l_rereg_mr }, { NULL, NULL } };
	static const luaL_Reg qp_fns[] = { { "query_data_in_order", l_query_data_in_order }, { NULL, NULL } };
	static const luaL_Reg fns[] = {
		{ "fork_init", l_fork_init }, { "is_fork_initialized", l_is_fork_initialized },
		{ "node_type_str", l_node_type_str }, { "port_state_str", l_port_state_str },
		{ "event_type_str", l_event_type_str }, { "wc_status_str", l_wc_status_str },
		{ "rate_to_mbps", l_rate_to_mbps }, { "rate_to_mult", l_rate_to_mult },
		{ "mbps_to_rate", l_mbps_to_rate }, { "mult_to_rate", l_mult_to_rate },
		{ "flow_label_to_udp_sport", l_flow_label_to_udp_sport }, { "is_qpt_supported", l_is_qpt_supported },
		{ NULL, NULL }
	};
	api_add_methods(L, "verbs.context", ctx_fns);
	api_add_methods(L, "verbs.cq", cq_fns);
	api_add_methods(L, "verbs.pd", pd_fns);
	api_add_methods(L, "verbs.mr", mr_fns);
	api_add_methods(L, "verbs.qp", qp_fns);
	luaL_setfuncs(L, fns, 0);
}
