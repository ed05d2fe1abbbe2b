/* Queue pairs: create, modify (the mask computed from the keys given) and
 * query. Posting work requests is in post.c. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include "verbsh.h"

/* ---- descriptors ------------------------------------------------------------ */

#define CAP(m) VF(struct ibv_qp_cap, m, VT_UINT)
const struct vfield vf_qp_cap[] = {
	CAP(max_send_wr), CAP(max_recv_wr), CAP(max_send_sge), CAP(max_recv_sge), CAP(max_inline_data),
	VF_END
};

#define IA(m, t, ...) VF(struct ibv_qp_init_attr, m, t, __VA_ARGS__)
const struct vfield vf_qp_init_attr[] = {
	IA(send_cq, VT_OBJ, .cls = &vc_cq), IA(recv_cq, VT_OBJ, .cls = &vc_cq), IA(srq, VT_OBJ, .cls = &vc_srq),
	IA(cap, VT_STRUCT, .sub = vf_qp_cap), IA(qp_type, VT_ENUM, .en = &ve_qp_type),
	IA(sq_sig_all, VT_INT, .max = 1),
	VF_END
};

#define QA(m, t, b, ...) VF(struct ibv_qp_attr, m, t, .bit = (b), __VA_ARGS__)
const struct vfield vf_qp_attr[] = {
	QA(qp_state, VT_ENUM, IBV_QP_STATE, .en = &ve_qp_state),
	QA(cur_qp_state, VT_ENUM, IBV_QP_CUR_STATE, .en = &ve_qp_state),
	QA(path_mtu, VT_ENUM, IBV_QP_PATH_MTU, .en = &ve_mtu),
	QA(path_mig_state, VT_ENUM, IBV_QP_PATH_MIG_STATE, .en = &ve_mig_state),
	QA(qkey, VT_UINT, IBV_QP_QKEY),
	QA(rq_psn, VT_UINT, IBV_QP_RQ_PSN, .max = 0xffffff),
	QA(sq_psn, VT_UINT, IBV_QP_SQ_PSN, .max = 0xffffff),
	QA(dest_qp_num, VT_UINT, IBV_QP_DEST_QPN, .max = 0xffffff),
	QA(qp_access_flags, VT_FLAGS, IBV_QP_ACCESS_FLAGS, .en = &ve_access),
	QA(cap, VT_STRUCT, IBV_QP_CAP, .sub = vf_qp_cap),
	QA(ah_attr, VT_STRUCT, IBV_QP_AV, .sub = vf_ah_attr),
	QA(alt_ah_attr, VT_STRUCT, IBV_QP_ALT_PATH, .sub = vf_ah_attr),
	QA(pkey_index, VT_UINT, IBV_QP_PKEY_INDEX),
	QA(alt_pkey_index, VT_UINT, IBV_QP_ALT_PATH),
	QA(en_sqd_async_notify, VT_UINT, IBV_QP_EN_SQD_ASYNC_NOTIFY, .max = 1),
	QA(sq_draining, VT_UINT, 0, .no_input = "ibv_query_qp reports it (is the SQ still draining in SQD?);"
	   " ibv_modify_qp has no mask bit for it, so C would ignore it: move the QP to SQD with"
	   " qp_state = \"SQD\" instead"),
	QA(max_rd_atomic, VT_UINT, IBV_QP_MAX_QP_RD_ATOMIC),
	QA(max_dest_rd_atomic, VT_UINT, IBV_QP_MAX_DEST_RD_ATOMIC),
	/* The IBA's field widths: min_rnr_timer and timeout 5 bits (timeout is
	 * 4.096 us * 2^timeout), retry_cnt and rnr_retry 3 bits (7: forever). */
	QA(min_rnr_timer, VT_UINT, IBV_QP_MIN_RNR_TIMER, .max = 31),
	QA(port_num, VT_UINT, IBV_QP_PORT),
	QA(timeout, VT_UINT, IBV_QP_TIMEOUT, .max = 31),
	QA(retry_cnt, VT_UINT, IBV_QP_RETRY_CNT, .max = 7),
	QA(rnr_retry, VT_UINT, IBV_QP_RNR_RETRY, .max = 7),
	QA(alt_port_num, VT_UINT, IBV_QP_ALT_PATH),
	QA(alt_timeout, VT_UINT, IBV_QP_ALT_PATH, .max = 31),
	QA(rate_limit, VT_UINT, IBV_QP_RATE_LIMIT),
	VF_END
};

/* ---- the class ---------------------------------------------------------------- */

/* A QP that rdma_create_qp made belongs to its cm_id too (its fifth
 * dependency): rdma_destroy_qp also clears id->qp, which the CM would
 * otherwise still modify at disconnect. */
/* A dropped type 2 window bound through this QP would hold it (mw.c). */
static bool qp_collect_first(struct vnode *n) { return mw_bound_any(n->st); }

static int qp_destroy(struct vnode *n)
{
	qp_ex_abort(n);   /* an open wr_start session holds the send queue's lock */
	mcast_detach_all(n);
	if (n->deps[QP_DEP_CM_ID])
		return cm_destroy_qp(n->deps[QP_DEP_CM_ID]);
	return ibv_destroy_qp(n->h);
}

/* The state from the provider: libibverbs' cached qp->state changes only in
 * modify and query, so a QP that an error moved to ERR would still say RTS.
 * siw (Linux 6.1) leaves qp_state 0 (RESET) in every ibv_query_qp: on an
 * iWARP device a RESET is believed only when verbsh's last qp:modify set it;
 * otherwise the state is the one verbsh set, or UNKNOWN for a QP that rdma_cm
 * moved (the kernel's iWARP CM does that, out of verbsh's sight). */
enum ibv_qp_state vqp_state(struct vnode *n, bool *unreported)
{
	struct ibv_qp *qp = n->h;
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	*unreported = false;
	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &ia))
		return IBV_QPS_UNKNOWN;
	if (a.qp_state != IBV_QPS_RESET || qp->context->device->transport_type != IBV_TRANSPORT_IWARP ||
	    vqp(n)->set_state == 1 + IBV_QPS_RESET)
		return a.qp_state;
	/* A QP never modified and not rdma_cm's is truly in RESET. */
	if (vqp(n)->set_state == 0 && !n->deps[QP_DEP_CM_ID])
		return IBV_QPS_RESET;
	*unreported = true;
	return vqp(n)->set_state ? (enum ibv_qp_state)(vqp(n)->set_state - 1) : IBV_QPS_UNKNOWN;
}

/* Sets device and transport in the error context at the top: explanations
 * that depend on the kind of device (iWARP's RC-only transport) read them. */
void vpush_device(lua_State *L, struct ibv_context *ctx)
{
	lua_pushstring(L, ibv_get_device_name(ctx->device));
	lua_setfield(L, -2, "device");
	venum_push(L, &ve_transport_type, ctx->device->transport_type);
	lua_setfield(L, -2, "transport");
}

/* qp.state and qp:query() on such a QP say so, once per QP. */
static enum ibv_qp_state qp_state_said(lua_State *L, struct vnode *n)
{
	bool unreported;
	enum ibv_qp_state s = vqp_state(n, &unreported);
	if (unreported && !vqp(n)->state_warned) {
		vqp(n)->state_warned = true;
		const char *dev = ibv_get_device_name(((struct ibv_qp *)n->h)->context->device);
		if (s == IBV_QPS_UNKNOWN)
			vwarn(L, 0, "%s (iWARP) does not report QP states (siw in Linux 6.1 says RESET whatever the"
				    " state): this QP's state is UNKNOWN to verbsh, as rdma_cm moved it; a completion or"
				    " an event tells what it does", dev);
		else
			vwarn(L, 0, "%s (iWARP) does not report QP states (siw in Linux 6.1 says RESET whatever the"
				    " state): %s is the state verbsh's last qp:modify set, not the device's report",
			      dev, venum_name(&ve_qp_state, s));
	}
	return s;
}

static void qp_describe(lua_State *L, struct vnode *n)
{
	struct ibv_qp *qp = n->h;
	const char *t = venum_name(&ve_qp_type, qp->qp_type);
	bool unreported;
	enum ibv_qp_state st = vqp_state(n, &unreported);
	const char *s = venum_name(&ve_qp_state, st);
	char buf[128];
	snprintf(buf, sizeof buf, "%s 0x%06x %s%s", t ? t : "?", qp->qp_num, s ? s : "?",
		 !unreported ? "" : st == IBV_QPS_UNKNOWN ? " (rdma_cm moved it: the iWARP device does not report QP states)"
		 : " (as verbsh set it: the iWARP device does not report QP states)");
	lua_pushstring(L, buf);
}

static int qp_field(lua_State *L, struct vnode *n, const char *key)
{
	struct ibv_qp *qp = n->h;
	static const char *const uv[] = { [QP_DEP_PD] = "pd", [QP_DEP_SEND_CQ] = "send_cq",
					  [QP_DEP_RECV_CQ] = "recv_cq", [QP_DEP_SRQ] = "srq", [QP_DEP_CM_ID] = NULL };
	if (strcmp(key, "qp_num") == 0)
		lua_pushinteger(L, qp->qp_num);
	else if (strcmp(key, "state") == 0)
		venum_push(L, &ve_qp_state, qp_state_said(L, n));
	else if (strcmp(key, "qp_type") == 0)
		venum_push(L, &ve_qp_type, qp->qp_type);
	else if (strcmp(key, "handle") == 0)
		lua_pushinteger(L, qp->handle);
	else {
		for (int i = 0; uv[i]; i++)
			if (strcmp(key, uv[i]) == 0) {
				lua_getiuservalue(L, 1, QP_UV(i));
				return 1;
			}
		return qp_ex_field(L, n, key);   /* qp.wr_id, qp.wr_flags: the ibv_qp_ex members */
	}
	return 1;
}

void qp_check_required(lua_State *L, int arg, const void *send_cq, const void *recv_cq, int qp_type,
		       const char *types)
{
	if (!send_cq)
		vargerror(L, arg, "key 'send_cq' is required");
	if (!recv_cq)
		vargerror(L, arg, "key 'recv_cq' is required");
	if (!qp_type)
		vargerror(L, arg, lua_pushfstring(L, "key 'qp_type' is required (%s)", types));
}

void qp_read_deps(lua_State *L, int arg, int tidx, struct ibv_cq **send_cq, struct ibv_cq **recv_cq,
		  struct ibv_srq **srq, struct vnode *owner, struct vnode **used)
{
	static const char *const key[] = { "send_cq", "recv_cq", "srq" };
	void *slot[] = { send_cq, recv_cq, srq };
	for (int i = 0; i < 3; i++) {
		used[QP_DEP_SEND_CQ + i] = vobj_field(L, arg, tidx, key[i], i < 2 ? &vc_cq : &vc_srq, slot[i]);
		vobj_same_context(L, arg, key[i], used[QP_DEP_SEND_CQ + i], owner);
	}
}

/* pd:create_qp{ qp_type=, send_cq=, recv_cq=, srq=, cap={...}, sq_sig_all= } */
int qp_create(lua_State *L)
{
	struct vnode *p = vobj_check(L, 1, &vc_pd);
	struct ibv_qp_init_attr ia = { 0 };

	vchecktable(L, 2);
	lua_settop(L, 2);
	marsh_read(L, 2, 2, vf_qp_init_attr, &ia);
	qp_check_required(L, 2, ia.send_cq, ia.recv_cq, ia.qp_type, QP_TYPES);
	struct vnode *used[QP_DEP_CM_ID] = { [QP_DEP_PD] = p };
	qp_read_deps(L, 2, 2, &ia.send_cq, &ia.recv_cq, &ia.srq, p, used);   /* 3, 4, 5 */
	int deps[QP_DEP_CM_ID] = { [QP_DEP_PD] = 1, [QP_DEP_SEND_CQ] = 3, [QP_DEP_RECV_CQ] = 4, [QP_DEP_SRQ] = 5 };
	struct vnode *n = vobj_new(L, &vc_qp, QP_DEP_CM_ID, deps);
	vobj_recheck(L, 2, used, QP_DEP_CM_ID);
	struct ibv_qp *qp = ibv_create_qp(p->h, &ia);
	int err = errno;
	if (!qp) {
		lua_createtable(L, 0, 4);
		venum_push(L, &ve_qp_type, ia.qp_type);
		lua_setfield(L, -2, "qp_type");
		vpush_device(L, ((struct ibv_pd *)p->h)->context);
		return vraise_create(L, "ibv_create_qp", err, 1);
	}
	vobj_set(n, qp);
	return 1;
}

/* qp:modify(attr [, mask]): the mask is the IBV_QP_* bits of the keys in
 * attr, unless given (names, a list of names or an integer), which lets a
 * learner reproduce a wrong-mask bug. */
static int l_modify(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_qp);
	struct ibv_qp *qp = n->h;
	struct ibv_qp_attr a = { 0 };
	uint64_t mask;
	int64_t given;
	const char *e;

	vchecktable(L, 2);
	lua_settop(L, 3);
	mask = marsh_read(L, 2, 2, vf_qp_attr, &a);
	if (!lua_isnil(L, 3)) {
		if ((e = venum_read(L, 3, &ve_qp_attr_mask, &given)))
			return vargerror(L, 3, e);
		mask = (uint64_t)given;
	} else if (mask == 0) {
		/* {qp_state = RTS} with RTS an undefined global is {} too */
		return vargerror(L, 2, "no attributes: ibv_modify_qp with attr_mask 0 changes nothing; give qp_state and"
				       " the transition's attributes, e.g. {qp_state = \"INIT\", ...} (a nil value, such as an"
				       " undefined global RTS instead of \"RTS\", leaves its key out)");
	}
	bool unreported;
	enum ibv_qp_state cur = vqp_state(n, &unreported);
	int ret = ibv_modify_qp(qp, &a, (int)mask);
	if (ret == 0) {
		if (mask & IBV_QP_PORT)
			vqp(n)->port_num = a.port_num;
		if (mask & IBV_QP_STATE)
			vqp(n)->set_state = 1 + (int)a.qp_state;
		return 0;
	}
	lua_createtable(L, 0, 7);
	venum_push(L, &ve_qp_type, qp->qp_type);
	lua_setfield(L, -2, "qp_type");
	venum_push(L, &ve_qp_state, cur);
	lua_setfield(L, -2, "cur_state");
	if (mask & IBV_QP_STATE) {
		venum_push(L, &ve_qp_state, a.qp_state);
		lua_setfield(L, -2, "qp_state");
	}
	vflags_push(L, &ve_qp_attr_mask, mask);
	lua_setfield(L, -2, "mask");
	lua_pushvalue(L, 2);
	lua_setfield(L, -2, "attr");
	if (vqp(n)->port_num || (mask & IBV_QP_PORT)) {
		lua_pushinteger(L, mask & IBV_QP_PORT ? a.port_num : vqp(n)->port_num);
		lua_setfield(L, -2, "port_num");
	}
	if (cur == IBV_QPS_SQD) {
		/* Leaving SQD while the SQ still drains is refused (EINVAL on
		 * rxe): the explanation needs sq_draining as it is now. */
		struct ibv_qp_attr q;
		struct ibv_qp_init_attr qi;
		if (ibv_query_qp(qp, &q, IBV_QP_STATE, &qi) == 0) {
			lua_pushinteger(L, q.sq_draining);
			lua_setfield(L, -2, "sq_draining");
		}
	}
	vpush_device(L, qp->context);
	if (unreported) {
		lua_pushboolean(L, 1);
		lua_setfield(L, -2, "state_unreported");
	}
	return vraise(L, "ibv_modify_qp", ret, 1, -1);
}

/* qp:query() -> attr, init_attr (C field names) */
static int l_query(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_qp);
	vnoextra(L, 1, "qp:query()", "it queries every attribute (C's attr_mask is all of them): read the one you want from the table it gives, qp:query().qp_state, or the live field qp.state");
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;
	int all = IBV_QP_STATE | IBV_QP_CUR_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY | IBV_QP_ACCESS_FLAGS |
		  IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_TIMEOUT |
		  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_RQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_ALT_PATH |
		  IBV_QP_MIN_RNR_TIMER | IBV_QP_SQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_PATH_MIG_STATE |
		  IBV_QP_CAP | IBV_QP_DEST_QPN;
	memset(&a, 0, sizeof a);
	memset(&ia, 0, sizeof ia);
	int ret = ibv_query_qp(n->h, &a, all, &ia);
	if (ret)
		return vraise(L, "ibv_query_qp", ret, 1, 0);
	a.qp_state = qp_state_said(L, n);   /* siw's RESET-whatever-the-state corrected, and said */
	marsh_push(L, vf_qp_attr, &a);
	lua_pushinteger(L, ((struct ibv_qp *)n->h)->qp_num);
	lua_setfield(L, -2, "qp_num");
	marsh_push(L, vf_qp_init_attr, &ia);
	const char *keys[] = { [QP_DEP_SEND_CQ] = "send_cq", [QP_DEP_RECV_CQ] = "recv_cq", [QP_DEP_SRQ] = "srq" };
	for (int d = QP_DEP_SEND_CQ; d <= QP_DEP_SRQ; d++) {
		lua_getiuservalue(L, 1, QP_UV(d));
		lua_setfield(L, -2, keys[d]);
	}
	return 2;
}

static const luaL_Reg qp_methods[] = {
	{ "modify", l_modify }, { "query", l_query }, { "post_send", qp_post_send }, { "post_recv", qp_post_recv },
	{ "bind_mw", qp_bind_mw }, { "attach_mcast", mcast_attach }, { "detach_mcast", mcast_detach },
	{ NULL, NULL }
};

const struct vclass vc_qp = {
	.size = sizeof(struct vqp),
	.index = VC_QP,
	.kind = "qp", .var = "qp", .tname = "verbs.qp", .destroy_verb = "ibv_destroy_qp",
	.destroy_method = "destroy", .destroy = qp_destroy, .describe = qp_describe, .field = qp_field,
	.fields = (const char *const[]){ "qp_num", "state", "qp_type", "handle", "pd", "send_cq", "recv_cq", "srq",
					  "wr_id", "wr_flags", NULL },
	.methods = qp_methods, .more_methods = qp_ex_methods,
	.setfield = qp_ex_setfield, .refuse_destroy = mcast_refuse_destroy, .collect_first = qp_collect_first,
};

void qp_open(lua_State *L)
{
	vobj_register(L, &vc_qp);
	vobj_register(L, &vc_ah);
}
