/* What the binding files share: the classes (their descriptors, data and
 * the functions one class file offers another), over the foundation of
 * core.h. */
#ifndef VERBSH_H
#define VERBSH_H
#include "core.h"

/* A class with data of its own has a struct that starts with its node
 * (cls->size bytes are allocated), so a node pointer is also a pointer to
 * it; vmr(n) etc. give it, for a node of that class. */
struct vmr {
	struct vnode n;
	void *buf;                       /* the memory verbsh allocated and registered */
	size_t len;
	int access;                      /* the access flags it was registered with */
};
struct vctx {
	struct vnode n;
	bool librdmacm_owned;            /* cm_id.verbs: librdmacm opened it and closes it */
};
struct vqp {
	struct vnode n;
	int port_num;                    /* once a modify set it (0 before) */
	/* A QP of ctx:create_qp_ex: the new post-send API (qp_ex.c). */
	bool ex;
	uint64_t send_ops_flags;
	bool wr_open;                    /* between wr_start and wr_complete/wr_abort */
	int wr_count;                    /* WRs built in that session */
	uint64_t wr_op;                  /* the send_ops flag of the WR being built, 0 for none */
	unsigned wr_lacks;               /* what that WR still needs before the next one (qp_ex.c) */
	int set_state;                   /* 1 + the state the last successful qp:modify set, 0 before */
	bool state_warned;               /* the "siw does not report its state" warning was given */
	struct vmc *mc;                  /* the groups qp:attach_mcast attached (mcast.c) */
};
/* The QP's state: the provider's, except where an iWARP provider reports RESET
 * for a QP verbsh moved elsewhere (siw in Linux 6.1 never fills qp_state):
 * then the state verbsh set, or UNKNOWN, and *unreported is set (qp.c). */
enum ibv_qp_state vqp_state(struct vnode *n, bool *unreported);
/* Sets context.device and context.transport on the error context at the top. */
void vpush_device(lua_State *L, struct ibv_context *ctx);
struct vcq {
	struct vnode n;
	unsigned events;                 /* completion events received and not acked yet */
	/* A CQ of ctx:create_cq_ex: the polling API (cq_ex.c). */
	bool ex;
	uint64_t wc_flags;
	bool poll_open;                  /* between start_poll and end_poll */
	bool has_current;                /* a completion is current (start_poll or next_poll gave one) */
	bool iter_poll;                  /* the open poll is a for wc in cq:iter() loop's */
	unsigned polls;                  /* polls opened: a loop knows whether the open one is its own */
	unsigned quirks;                 /* the provider's (cq_ex.c) */
};
#define VCLASS_DATA(type, fn) static inline struct type *fn(struct vnode *n) { return (struct type *)n; }
VCLASS_DATA(vmr, vmr)
VCLASS_DATA(vctx, vctx)
VCLASS_DATA(vqp, vqp)
VCLASS_DATA(vcq, vcq)
#define vcmid(n) ((struct vcmid *)(n))

/* ---- the classes ------------------------------------------------------- */

/* pd.c: whether [addr, addr+len) lies inside the memory of a live MR verbsh allocated. */
bool vobj_mr_covers(lua_State *L, uint64_t addr, uint64_t len);

extern const struct vclass vc_context, vc_pd, vc_mr, vc_cq, vc_channel, vc_qp, vc_ah, vc_srq;
extern const struct vfield vf_ah_attr[], vf_qp_init_attr[], vf_qp_attr[], vf_global_route[], vf_wc[],
	vf_conn_param[], vf_device_attr[], vf_port_attr[], vf_cq_opts[], vf_cq_init_attr_ex[],
	vf_qp_init_attr_ex[], vf_srq_attr[];
/* A QP's dependencies: their slots in its node's deps[] and, one up
 * (QP_UV), its userdata's user values, the same at every constructor. A QP
 * created through a cm_id holds the id as QP_DEP_CM_ID and is destroyed
 * through it; the others have QP_DEP_CM_ID slots. */
enum { QP_DEP_PD, QP_DEP_SEND_CQ, QP_DEP_RECV_CQ, QP_DEP_SRQ, QP_DEP_CM_ID, QP_NDEPS };
#define QP_UV(dep) ((dep) + 1)
/* cm.c: rdma_cm event channels, ids and events. */
extern const struct vclass vc_cm_channel, vc_cm_id, vc_cm_event;
int cm_destroy_qp(struct vnode *id);
/* mw.c: memory windows (pd:alloc_mw, qp:bind_mw, verbs.inc_rkey). */
extern const struct vclass vc_mw;
extern const struct vfield vf_mw_bind[], vf_mw_bind_info[], vf_wr_bind_mw[];
int pd_alloc_mw(lua_State *L);
int qp_bind_mw(lua_State *L);
void mw_open(lua_State *L);
/* Raises what rxe would crash on in a bind (no window, no MR: at names the
 * WR, "" or "[2]."), and warns of what fails in its completion. */
/* After a BIND_MW WR was posted: the rkey it gives the window. */
void mw_note_bind(lua_State *L, struct ibv_mw *mw, uint32_t rkey);
/* whether a window that a BIND_MW work request named is still allocated */
bool mw_bound_any(struct vstate *st);
/* The checks of a bind before it is posted: the window (the argument at
 * mw_arg, or 0: the WR's bind_mw.mw) and bind_info (in the argument at arg,
 * at the path at) against the QP. */
void mw_bind_check(lua_State *L, int arg, const char *at, struct vnode *qp, struct ibv_mw *mw, int mw_arg,
		   const struct ibv_mw_bind_info *b);
int cm_destroy_srq(struct vnode *id);   /* rdma_destroy_srq: an SRQ of id:create_srq */
void cm_open(lua_State *L);
/* cm.c: an address "192.0.2.1:7471", "[fe80::1]:7471", "239.1.2.3" or "*:7471"
 * at arg (at idx, errors naming arg), or an error; and one pushed as text
 * (nil when unset). */
struct sockaddr;
struct sockaddr_storage;
void cm_read_addr(lua_State *L, int arg, struct sockaddr_storage *ss, const char *what);
void cm_read_addr_at(lua_State *L, int arg, int idx, struct sockaddr_storage *ss, const char *what);
void cm_push_addr(lua_State *L, const struct sockaddr *sa);
/* mcast.c: qp:attach_mcast, qp:detach_mcast; id:join_multicast(_ex),
 * id:leave_multicast. cm_ep.c: the librdmacm convenience path
 * (verbs.getaddrinfo, verbs.create_ep, the rdma_verbs.h helpers). */
int mcast_attach(lua_State *L);
int mcast_detach(lua_State *L);
int mcast_join(lua_State *L);
int mcast_join_ex(lua_State *L);
int mcast_leave(lua_State *L);
extern const luaL_Reg cm_id_more_methods[];
/* A cm_id's node: ep when rdma_create_ep or rdma_get_request made it, which
 * rdma_destroy_ep then frees (what create_ep kept for a listener too). */
struct vcmid {
	struct vnode n;
	bool ep;
	struct vmc *joined;              /* the groups id:join_multicast joined (mcast.c) */
};
/* mcast.c: before a QP is destroyed, its groups are left (a QP still
 * attached makes ibv_destroy_qp fail with EBUSY, and the garbage collector
 * would leak it); an explicit destroy is refused with the reason instead. */
void mcast_detach_all(struct vnode *qp);
void mcast_leave_all(struct vnode *id);
const char *mcast_refuse_destroy(struct vnode *qp);
extern const struct vfield vf_join_mc_attr_ex[], vf_rdma_addrinfo[];
extern const struct venum ve_join_mc_attr_mask, ve_mc_join_flags, ve_rai_flags, ve_ai_family;
extern const struct vclass vc_cm_addrinfo;
void cm_ep_open(lua_State *L);
int ah_create(lua_State *L);
int ah_create_from_wc(lua_State *L);   /* pd:create_ah_from_wc */
int ah_init_from_wc(lua_State *L);     /* ctx:init_ah_from_wc */

/* lverbs.c: the module's entry, require "verbs" (main.c declares it too) */
int luaopen_verbs(lua_State *L);
void context_open(lua_State *L);   /* each adds its functions to the module table at -1 */
void pd_open(lua_State *L);
void cq_open(lua_State *L);
void qp_open(lua_State *L);
void srq_open(lua_State *L);
/* api_rest.c: the rest of verbs.h that rxe runs, added to the classes above */
extern const struct vfield vf_srq_init_attr_ex[], vf_tm_cap[];
void api_rest_open(lua_State *L);
void api_add_methods(lua_State *L, const char *tname, const luaL_Reg *fns);
/* devonly.c: the verbs that need hardware, each called and its answer explained */
void devonly_open(lua_State *L);
/* cm_rest.c: the rest of rdma_cma.h */
void cm_rest_open(lua_State *L);

/* context.c: waits until fd is readable (true) or timeout_ms passed (false;
 * < 0: forever), in slices of at most 100 ms that check for Ctrl-C. */
bool wait_readable(lua_State *L, int fd, lua_Integer timeout_ms);
/* The constructors that other files' method tables list. */
int pd_alloc(lua_State *L);         /* pd.c: ctx:alloc_pd */
/* pd.c: registers memory verbsh allocates (size or contents at arg) on pd,
 * the MR using the object at dep; pushes it. verb: the C call's name. */
int mr_register(lua_State *L, int dep, struct ibv_pd *pd, int arg, int access, const char *verb);
int cq_create(lua_State *L);        /* cq.c: ctx:create_cq */
int channel_create(lua_State *L);   /* cq.c: ctx:create_comp_channel */
int qp_create(lua_State *L);        /* qp.c: pd:create_qp */
int srq_create(lua_State *L);       /* srq.c: pd:create_srq */

/* qp.c: pushes send_cq, recv_cq and srq of the table at tidx (read by
 * vobj_field: raw, checked, their handles stored in the attribute struct),
 * puts their nodes in used[QP_DEP_SEND_CQ .. QP_DEP_SRQ], and raises unless each belongs to owner's
 * context (owner NULL: not checked). */
void qp_read_deps(lua_State *L, int arg, int tidx, struct ibv_cq **send_cq, struct ibv_cq **recv_cq,
		  struct ibv_srq **srq, struct vnode *owner, struct vnode **used);
/* qp.c: raises unless the QP attributes read at arg name both CQs (libibverbs
 * dereferences them: a missing one would crash, not fail) and a qp_type
 * (types: the ones to suggest). For pd:create_qp, ctx:create_qp_ex and
 * id:create_qp. */
#define QP_TYPES "\"RC\", \"UC\" or \"UD\""
void qp_check_required(lua_State *L, int arg, const void *send_cq, const void *recv_cq, int qp_type,
		       const char *types);
/* qp_ex.c: ctx:create_qp_ex and the new post-send API (qp:wr_start ...
 * qp:wr_complete). qp_ex_idle raises when a wr_start session holds the send
 * queue (ibv_post_send would deadlock on the provider's lock). */
int qp_create_ex(lua_State *L);
void qp_ex_idle(lua_State *L, struct vnode *n, const char *fn);
void qp_ex_abort(struct vnode *n);   /* before destroy: closes an open session */
int qp_ex_field(lua_State *L, struct vnode *n, const char *key);
int qp_ex_setfield(lua_State *L, struct vnode *n, const char *key, int vidx);
extern const luaL_Reg qp_ex_methods[];
/* cq_ex.c: ctx:create_cq_ex, start_poll/next_poll/end_poll and the
 * ibv_wc_read_* accessors. cq_ex_idle raises while a poll is open. */
int cq_create_ex(lua_State *L);
void cq_ex_idle(lua_State *L, struct vnode *n, const char *fn);
void cq_ex_end(struct vnode *n);     /* before destroy: closes an open poll */
int cq_ex_field(lua_State *L, struct vnode *n, const char *key);
extern const luaL_Reg cq_ex_methods[];
void cq_ex_open(lua_State *L);
/* wait.c: verbs.wait_fds (an epoll-style wait on channels and sockets) and
 * verbs.getrusage. */
void wait_open(lua_State *L);
void sysinfo_open(lua_State *L);   /* verbs.sysinfo, for the doctor */
void capture_open(lua_State *L);   /* verbs.capture (libpcap) */
/* Notes a posted chain of send WRs for the running captures (cap:posts()),
 * which tie frames to the WRs that caused them. Call when st->capturing. */
void capture_note_posts(lua_State *L, struct vnode *n, const struct ibv_send_wr *wrs);

/* ---- wr_read.c: reading and checking WRs (post.c posts them, wr.c prepares them) -- */

/* Where the SGEs of the WRs being read go. */
struct sge_pool {
	struct ibv_sge *sge;
	int used, cap;
	int arg;
	const char *path;
	/* Prepared WRs only (else NULL): the MRs and AHs the WRs name, as read,
	 * each also put in the table at keep so that it stays alive. */
	struct vnode **deps;
	int ndeps, maxdeps, keep;
	/* Where each of deps was named: WR dep_at[d].wr (0-based), its SGE
	 * dep_at[d].sge (1-based; 0 for ud.ah); cur_wr and cur_sge: the WR
	 * and SGE being read. */
	struct wr_dep_at *dep_at;
	int cur_wr, cur_sge;
	/* Plain posts: the QP or SRQ posted to and its context, whose MRs alone
	 * the SGEs may name (NULL: not checked here; a prepared WR is checked
	 * at its post). */
	struct vnode *owner;
	struct ibv_context *ctx;
};
struct wr_dep_at { int wr, sge; };
/* "[2].sg_list[1].mr", "ud.ah": the key of a prepared WR's dep named at at. */
const char *wr_dep_path(char *buf, size_t len, bool is_list, const struct wr_dep_at *at);
extern const struct vfield vf_qp_cap[], vf_send_wr[], vf_recv_wr[], vf_sge[], vf_wr_rdma[], vf_wr_atomic[],
	vf_wr_ud[];
/* The number of WRs when the table at idx is a list of WRs (has [1]), else 0. */
int wr_count(lua_State *L, int idx);
/* Reads the list of SGE tables at idx ({mr=, offset=, length=} or {addr=,
 * length=, lkey=}) into out (cap entries); raises naming the entry, or an
 * MR of another context than owner's (the QP the SGEs are for). */
int sge_list_read(lua_State *L, int arg, int idx, struct ibv_sge *out, int cap, struct vnode *owner);
/* Reads count WRs (struct ibv_send_wr when send, else ibv_recv_wr) from the
 * table at idx (a list, or one WR) into wrs, chained, with their SGEs in p.
 * Raises naming the key. */
void wrs_read(lua_State *L, int arg, int idx, int count, bool is_list, bool send, void *wrs, struct sge_pool *p,
	      uint8_t *unions);
/* Which member of ibv_send_wr's union `wr` a WR was given (unions[i] of
 * wrs_read): the bytes cannot tell, since ud.ah shares them with
 * rdma.remote_addr and atomic.remote_addr. */
enum { WR_UNION_RDMA = 1, WR_UNION_ATOMIC = 2, WR_UNION_UD = 4 };
/* Also noted there: the WR was given bind_mw (a union of its own, with tso). */
enum { WR_GAVE_BIND_MW = 128 };
/* Before every send: what the provider would crash on rather than fail, and
 * the fields the QP type and opcode do not use (unions: as wrs_read gave). */
void send_wrs_check(lua_State *L, int arg, struct ibv_qp *qp, struct ibv_send_wr *wrs, const uint8_t *unions,
		    bool is_list);
/* The 1-based position of bad in the chain wrs. */
int wr_bad_index(void *wrs, void *bad, bool send);
/* Raises a post's verb error; the bad WR's table is on the top of the stack. */
int post_error(lua_State *L, const char *verb, int err, int self, int bad, struct ibv_qp *qp);
int qp_post_send(lua_State *L);
int qp_post_recv(lua_State *L);
/* wr.c: posting a prepared verbs.send_wr / verbs.recv_wr (at index 2 / idx). */
int prepared_post_send(lua_State *L, struct vnode *qp);
int prepared_post_recv(lua_State *L, struct vnode *n, int self, int idx, const char *verb, void *h);
void wr_open(lua_State *L);
/* wc.c: verbs.wc_array(n), an array of struct ibv_wc that cq:poll and
 * cq:wait fill in place (no table per completion). */
struct wc_array {
	const char *tag;                    /* "verbs.wc_array": what vtagged_test checks */
	int cap, filled;
	int shown;                          /* views whose status field is set */
	enum ibv_wc_status *shown_status;   /* the status each of them shows */
	struct ibv_wc wc[];
};
/* The wc_array at idx, or NULL; st: the state's (a CQ's n->st). The one
 * the state met last is known by its address (a light userdata may hold
 * any address: the type is tested first); others are looked up. */
struct wc_array *wc_array_find(lua_State *L, struct vstate *st, int idx);
static inline struct wc_array *wc_array_test(lua_State *L, struct vstate *st, int idx)
{
	if (lua_type(L, idx) == LUA_TTABLE && lua_topointer(L, idx) == st->wc_array_table)
		return st->wc_array;
	return wc_array_find(L, st, idx);
}
/* Call before a poll into the wc_array at idx: raises when a view's status
 * is not what the last poll stored (a script assigned it; the views are
 * plain tables, so that reading it costs no call). The loop's form,
 * cq:wait(wcs) served by its first poll, does not look: that would cost it
 * a fifth of its instructions. */
void wc_array_verify(lua_State *L, int idx, struct wc_array *a);
/* Call after a poll put got entries into the wc_array at idx. The views
 * show each entry's status; in a loop of successes none changes, and
 * nothing is called. */
void wc_array_show(lua_State *L, int idx, struct wc_array *a, int got);
static inline void wc_array_filled(lua_State *L, int idx, struct wc_array *a, int got)
{
	bool same = got == a->shown;
	for (int i = 0; same && i < got; i++)
		same = a->wc[i].status == a->shown_status[i];
	if (same)
		a->filled = got;
	else
		wc_array_show(L, idx, a, got);
}
void wc_open(lua_State *L);

/* wc.c: pushes one completion, a copy of the struct in an ibv_wc userdata
 * (fields as vf_wc describes; tostring: explain_wc.lua's line). */
void wc_push(lua_State *L, const struct ibv_wc *wc);
/* The same with some fields absent (nil): absent ORs wc_field_bit(name)s. */
void wc_push_without(lua_State *L, const struct ibv_wc *wc, unsigned absent);
unsigned wc_field_bit(const char *name);
/* The struct ibv_wc of the WC (as wc_push made it) at idx, or NULL. */
const struct ibv_wc *wc_test(lua_State *L, int idx);
/* post.c: qp:post_recv and srq:post_srq_recv, for the QP or SRQ n at 1: reads
 * the receive WR, list or prepared verbs.recv_wr at 2 and calls verb
 * (ibv_post_recv or ibv_post_srq_recv); raises its error naming the bad WR. */
int post_recv_list(lua_State *L, struct vnode *n, const char *verb);
#endif
