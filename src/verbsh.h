/* What the binding files share: enum/flag name tables, the one table<->struct
 * marshaller, the object layer and verb errors.
 *
 * Every verbs object is a Lua userdata holding a pointer to a `struct vnode`
 * (malloc'd, not in the userdata): the node outlives its userdata while
 * objects that depend on it are still alive, so that finalizers may run in
 * any order (lua_close finalizes everything, parents included). */
#ifndef VERBSH_H
#define VERBSH_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <lua.h>
#include <lauxlib.h>
#include <infiniband/verbs.h>

/* ---- enums.c: C enumerator names, written once ------------------------- */

struct venum_entry {
	const char *name;   /* without the prefix: "RTS", "REMOTE_WRITE", "1024" */
	int64_t value;
};
struct venum {
	const char *ctype;  /* "ibv_qp_state": the key in verbs.enums */
	const char *prefix; /* "IBV_QPS_": accepted in front of a name on input */
	bool flags;         /* a bit set: input as name, list of names or integer */
	const struct venum_entry *e;
	size_t n;
};

extern const struct venum ve_qp_state, ve_qp_type, ve_mtu, ve_wc_status, ve_wc_opcode, ve_wr_opcode,
	ve_access, ve_send_flags, ve_wc_flags, ve_qp_attr_mask, ve_port_state, ve_link_layer,
	ve_node_type, ve_transport_type, ve_event_type, ve_gid_type, ve_mig_state, ve_atomic_cap,
	ve_device_cap, ve_srq_attr_mask, ve_port_phys_state, ve_port_cap_flags, ve_port_cap_flags2, ve_port_attr_flags,
	ve_cm_event_type, ve_port_space,
	ve_send_ops_flags, ve_qp_init_attr_mask, ve_qp_create_flags, ve_create_cq_wc_flags,
	ve_cq_init_attr_mask, ve_create_cq_attr_flags, ve_mw_type,
	ve_srq_type, ve_srq_init_attr_mask, ve_fork_status, ve_rate, ve_rereg_mr_flags;

const char *venum_name(const struct venum *t, int64_t v);   /* NULL when v has no name */
/* Pushes the name of v, or v itself when it has no name. */
void venum_push(lua_State *L, const struct venum *t, int64_t v);
/* Pushes a list of the names of the bits set in v (bits without a name as integers). */
void vflags_push(lua_State *L, const struct venum *t, uint64_t v);
/* Reads the value at idx (a name, a full name, a list of names for flags, or
 * an integer). Returns NULL, or an error message pushed on the stack. */
const char *venum_read(lua_State *L, int idx, const struct venum *t, int64_t *out);
/* "IBV_QPS_RTS" / "IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE", for the trace. */
void venum_c(luaL_Buffer *b, const struct venum *t, int64_t v);
void venum_open(lua_State *L);   /* pushes verbs.enums */
/* The table of the C enum named ctype ("ibv_wr_opcode"), or NULL. */
const struct venum *venum_find(const char *ctype);
/* The i-th of every enum table, from 0; NULL past the last. */
const struct venum *venum_at(size_t i);

/* ---- suggest.c: "did you mean" for mistyped keys, names and fields ----- */

struct vsuggest {
	const char *typed, *best;
	int dist;
};
void vsuggest_init(struct vsuggest *s, const char *typed);
void vsuggest_offer(struct vsuggest *s, const char *candidate);   /* keeps the closest */
const char *vsuggest_best(const struct vsuggest *s);             /* NULL: nothing close */
void suggest_open(lua_State *L);                                 /* verbs.suggest */

/* ---- warn.c: what C accepts but is almost always a mistake ------------- */
/* Prints "verbsh warning: ..." on stderr, or raises "bad argument #arg"
 * under verbs.strict(true); silent after verbs.warnings(false). */
void vwarn(lua_State *L, int arg, const char *fmt, ...);
void warn_open(lua_State *L);                                    /* verbs.strict, verbs.warnings */

/* ---- marshal.c: C structs <-> Lua tables, driven by field descriptors --- */

enum vtype {
	VT_INT,     /* signed integer of `size` bytes */
	VT_UINT,    /* unsigned integer of `size` bytes */
	VT_ENUM,    /* integer of `size` bytes, named by `en` */
	VT_FLAGS,   /* bit set of `size` bytes, named by `en` */
	VT_GID,     /* union ibv_gid: text ("fe80::1", "::ffff:10.0.0.1") or 16 raw bytes */
	VT_STRUCT,  /* nested table described by `sub` */
	VT_OBJ,     /* a verbs object of class `cls`: its handle pointer is stored */
	VT_CUSTOM,  /* `custom` reads the value */
};

struct vfield;
struct vnode;
struct vclass;
/* A custom reader: the value is at stack index idx; dst is the whole struct.
 * Returns NULL or an error message pushed on the stack. */
typedef const char *(*vcustom_fn)(lua_State *L, int idx, void *dst, const struct vfield *f);

struct vfield {
	const char *name;
	const char *cname;         /* the C member when it differs from name ("wr.rdma") */
	uint8_t type;
	uint8_t size;
	uint16_t offset;
	uint64_t bit;              /* mask bit set when the key is present (IBV_QP_*), or 0 */
	const struct venum *en;
	const struct vfield *sub;
	const struct vclass *cls;
	vcustom_fn custom;
	/* VT_OBJ, optional: called with each object read (at idx), once it is
	 * checked, and the ctx given to marsh_read_ctx (else NULL). */
	void (*seen)(lua_State *L, int idx, struct vnode *n, void *ctx);
	int64_t max;               /* when nonzero: the largest value accepted (1: booleans too) */
	bool no_output;            /* input only (not converted back to a table) */
	/* Output, optional: whether src holds a value for this field (a WC's
	 * byte_len only on success); absent fields are left out of the table. */
	bool (*present)(const void *src);
	/* Output, optional: pushes the value of a VT_CUSTOM field of src. */
	void (*push)(lua_State *L, const void *src);
	const char *no_input;      /* output only: why the key is refused as input */
};
#define VMEMBER_SIZE(st, m) sizeof(((st *)0)->m)
/* VF(struct, member, type, ...): the key is the member's own name. */
#define VF(st, m, t, ...) { .name = #m, .type = (t), .size = VMEMBER_SIZE(st, m), \
	.offset = offsetof(st, m), __VA_ARGS__ }
/* VFN("key", struct, member path, type, ...): for union members (wr.rdma -> "rdma"). */
#define VFN(key, st, m, t, ...) { .name = (key), .cname = #m, .type = (t), \
	.size = VMEMBER_SIZE(st, m), .offset = offsetof(st, m), __VA_ARGS__ }
#define VF_END { .name = NULL }

/* Pushes the value of one field of src and returns true; false (nothing
 * pushed) when the field is input only or has no value in src. */
bool marsh_push_field(lua_State *L, const struct vfield *f, const void *src);
/* The field named name of the description f, or NULL. */
const struct vfield *marsh_field(const struct vfield *f, const char *name);
/* The name of f closest to key (a likely typo of it), or NULL. */
const char *marsh_closest(const struct vfield *f, const char *key);
/* Adds f's names to b as "a, b, c)", for a message that lists them. */
void marsh_add_names(luaL_Buffer *b, const struct vfield *f);
/* Fills dst (which the caller zeroed) from the table at tidx, described by f.
 * Unknown keys, wrong types and out-of-range values raise
 * "bad argument #arg to 'fn' (...)" naming the key. Returns the OR of the
 * `bit`s of the keys present. */
uint64_t marsh_read(lua_State *L, int arg, int tidx, const struct vfield *f, void *dst);
/* The same, naming keys as prefix.key ("[2].sg_list"). */
uint64_t marsh_read_path(lua_State *L, int arg, int tidx, const struct vfield *f, void *dst, const char *prefix);
/* The same, naming keys as prefix.key[index].k (marsh_path): the path is
 * put together only when there is an error to name it in. */
uint64_t marsh_read_at(lua_State *L, int arg, int tidx, const struct vfield *f, void *dst, const char *prefix,
		       const char *key, int index);
/* The same, handing ctx to the fields' seen callbacks: a context of the
 * read itself, never of the state, since a finalizer run by the read's
 * allocations may read another table meanwhile. */
uint64_t marsh_read_ctx(lua_State *L, int arg, int tidx, const struct vfield *f, void *dst, const char *prefix,
			const char *key, int index, void *ctx);
/* Reads one value of field f at stack index idx into dst (the whole struct). */
void marsh_read_value(lua_State *L, int arg, int idx, const struct vfield *f, void *dst, const char *path);
/* Pushes a table with every field of f read from src. */
void marsh_push(lua_State *L, const struct vfield *f, const void *src);
/* out = prefix.key[index] (no dot after an empty prefix or before "[";
 * no [index] when index <= 0), cut to len. */
char *marsh_path(char *out, size_t len, const char *prefix, const char *key, int index);
/* Reads an unsigned integer in [0, max] at idx, or raises naming `what`. */
uint64_t marsh_check_uint(lua_State *L, int arg, int idx, uint64_t max, const char *what);
/* GID text <-> bytes. */
const char *marsh_gid_read(lua_State *L, int idx, union ibv_gid *gid);
const char *marsh_cstring(lua_State *L, int idx);
const char *marsh_check_cstring(lua_State *L, int arg, int idx, const char *what);
void marsh_warn_unmasked(lua_State *L, int arg, const struct vfield *f, uint64_t given, uint64_t comp_mask,
			 const struct venum *mask_names);
void marsh_gid_push(lua_State *L, const union ibv_gid *gid);

/* ---- object.c: userdata over verbs handles ------------------------------ */

/* The classes, each with a slot in the per-state tables (ids handed out). */
enum { VC_CONTEXT, VC_PD, VC_MR, VC_CQ, VC_CHANNEL, VC_QP, VC_AH, VC_SRQ, VC_CM_CHANNEL, VC_CM_ID, VC_CM_EVENT, VC_DEVOBJ,
       VC_MW, VC_CM_ADDRINFO, VCLASS_MAX_ };

#define VN_MAXDEPS 6   /* a QP made by rdma_create_qp: pd, send_cq, recv_cq, srq, cm_id; a listener of
			  * create_ep: (channel), pd, (its QP's slot), send_cq, recv_cq, srq */

struct vnode {
	const struct vclass *cls;
	void *h;                         /* the ibv_* handle; NULL once destroyed */
	struct vnode *deps[VN_MAXDEPS];  /* objects this one uses; each counts us in its users */
	int users;                       /* live (not destroyed) objects that use this one */
	bool lua_alive;                  /* its userdata has not been finalized yet */
	unsigned id;                     /* qp1, qp2, ... in traces */
	struct vnode *next, *prev;       /* every node of its Lua state, to list the users of one */
	struct vstate *st;               /* that state's share of the object layer (object.c) */
};

/* What one Lua state holds of the object layer (object.c): the list of its
 * nodes, the ids handed out per class (qp1, qp2, ... in traces), a count of
 * changes, and the trace switch. It lives in a userdata in that state's
 * registry, so two states (or a state closed while another goes on) share
 * nothing; its memory outlives every finalizer, which lua_close runs before
 * it frees any object. */
struct vstate {
	struct vnode all;
	unsigned ids[VCLASS_MAX_];
	unsigned long changes;           /* bumped whenever an object is destroyed or finalized */
	int capturing;                   /* live verbs.capture objects: posts are noted for them */
	/* wc.c: the wc_array last met by cq:poll or cq:wait (its table, kept
	 * reachable from the registry) and its C array, so that a loop passing
	 * the same one each time finds it without looking. */
	const void *wc_array_table;
	struct wc_array *wc_array;
	lua_CFunction ipairs_step;       /* ipairs' step function: views_index tells it apart */
};
/* This state's (made on first use). */
struct vstate *vstate(lua_State *L);

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

struct vclass {
	const char *kind;                /* "qp" */
	const char *var;                 /* "qp": the trace names objects qp1, qp2, ... */
	const char *tname;               /* "verbs.qp" */
	const char *destroy_verb;        /* "ibv_destroy_qp" */
	const char *destroy_method;      /* "destroy" */
	int (*destroy)(struct vnode *n); /* returns 0 or an errno */
	void (*describe)(lua_State *L, struct vnode *n); /* pushes "RC 0x000011 RTS" */
	int (*field)(lua_State *L, struct vnode *n, const char *key); /* live fields; pushes 1 or 0 */
	const char *const *fields;       /* the keys `field` answers (NULL-ended): Tab completes them */
	const luaL_Reg *methods;
	const luaL_Reg *more_methods;    /* optional: a second group (qp_ex.c's wr_*, cq_ex.c's poll API) */
	/* Optional: what a finished object is ("acked" for a cm_event); default "destroyed". */
	const char *gone;
	/* Optional: a reason why the explicit destroy is refused (a context that
	 * librdmacm opened is not the user's to close), or NULL. */
	const char *(*refuse_destroy)(struct vnode *n);
	/* Optional: the C call that destroys n, when not destroy_verb(n). */
	void (*destroy_call)(struct vnode *n, char *buf, size_t len);
	/* Optional: obj.key = value (qp.wr_id); returns 0 when key is not settable. */
	int (*setfield)(lua_State *L, struct vnode *n, const char *key, int vidx);
	int index;                       /* VC_QP...: its slot in per-state tables */
	size_t size;                     /* bytes of its node: sizeof(struct vqp), or 0 for a plain vnode */
};


/* Pushes a new userdata for class cls with no handle yet. deps: absolute
 * stack indices of the objects it will use (its user values, so that they
 * stay reachable), 0 entries ignored. */
struct vnode *vobj_new(lua_State *L, const struct vclass *cls, int ndeps, const int *deps);
/* Gives the node its handle, and counts it as a user of its deps. */
void vobj_set(struct vnode *n, void *h);
/* n lost one user that stays (id:migrate's old channel): n is freed now if
 * that was the last and its Lua side is gone */
void vobj_unuse(lua_State *L, struct vnode *n);
/* NULL when idx holds a live object of class cls (*out: its node); else
 * pushes and returns why not: "verbs.cq expected, got number", "cq is destroyed". */
const char *vobj_why(lua_State *L, int idx, const struct vclass *cls, struct vnode **out);
/* An object a verb takes from the table at tidx (send_cq, srq, channel, pd):
 * pushes t[key] read raw, as marsh_read reads (a table's __index is never
 * called), and raises "key 'srq': verbs.srq expected, got number" unless it
 * is nil or a live object of cls. Stores its handle (or NULL) at slot when
 * not NULL, so that the C struct holds the very object kept as a dependency.
 * Returns its node, or NULL for nil. */
struct vnode *vobj_field(lua_State *L, int arg, int tidx, const char *key, const struct vclass *cls, void *slot);
/* Raises unless each node (NULL entries skipped) is still live: a __gc run
 * by an allocation since the objects were read may have destroyed one. */
void vobj_recheck(lua_State *L, int arg, struct vnode *const *nodes, int count);
/* The context node that n belongs to (through its parents), or NULL. */
struct vnode *vobj_context(struct vnode *n);
/* Raises, naming key and both contexts, unless obj (NULL: nothing to check)
 * belongs to owner's context: the kernel resolves handle numbers per context. */
void vobj_same_context(lua_State *L, int arg, const char *key, struct vnode *obj, struct vnode *owner);
/* Whether obj and owner belong to two contexts (false when either has none). */
bool vobj_other_context(struct vnode *obj, struct vnode *owner);
/* Raises, naming key (NULL: none) and both contexts: obj, named by a WR or
 * a wr_set_* call, is of another context than owner, the QP or SRQ. */
void vobj_wr_context(lua_State *L, int arg, const char *key, struct vnode *obj, struct vnode *owner);
/* A number that changes whenever an object of n's Lua state is destroyed or
 * finalized: what was checked at one value holds while it stays. */
unsigned long vobj_changes(const struct vnode *n);
/* The node at idx when it is an object of class cls (destroyed or not), else NULL. */
struct vnode *vobj_test(lua_State *L, int idx, const struct vclass *cls);
/* The userdata of a verbs object: its node (NULL once finalized) and its
 * class, the tag that tells it from any other userdata. */
struct vud {
	struct vnode *n;
	const struct vclass *cls;
};
/* &ud->n when idx holds a verbs object of class cls (finalized or not), else NULL. */
struct vnode **vud_test(lua_State *L, int idx, const struct vclass *cls);
/* The node of a live object at idx, or a Lua error: wrong type, "qp is
 * destroyed". Every method call checks its object: the live case is inline
 * (two API calls), the errors are object.c's vobj_check_fail. The size is
 * checked first (0 for a light userdata or any other value), so no foreign
 * memory is read. */
struct vnode *vobj_check_fail(lua_State *L, int idx, const struct vclass *cls);
static inline struct vnode *vobj_check(lua_State *L, int idx, const struct vclass *cls)
{
	struct vud *u = lua_touserdata(L, idx);
	if (u && lua_rawlen(L, idx) == sizeof *u && u->cls == cls && u->n && u->n->h)
		return u->n;
	return vobj_check_fail(L, idx, cls);
}
/* A userdata of verbsh's own (wc_array, prepared WR) whose first member is
 * the pointer tag, at least min bytes long; else NULL. Pure Lua cannot
 * write a userdata's bytes, and the tag is the address of a constant: no
 * state is needed to tell the kinds apart. Inline: posts check one each. */
static inline void *vtagged_test(lua_State *L, int idx, const void *tag, size_t min)
{
	void *p = lua_touserdata(L, idx);   /* a light userdata too, but its rawlen is 0 */
	if (!p || lua_rawlen(L, idx) < min || *(const void *const *)p != tag)
		return NULL;
	return p;
}
/* The registry's list of the classes' methods tables (error.c names a
 * binding by finding it there). */
#define VMETHOD_TABLES "verbs.method_tables"
/* Registers the metatable of cls (methods, __gc, __close, __tostring, __index). */
void vobj_register(lua_State *L, const struct vclass *cls);
/* "destroyed", or the class's own word ("acked") */
const char *vobj_gone(const struct vclass *cls);
/* "qp3" */
const char *vobj_cname(struct vnode *n, char *buf, size_t len);
/* The live node of this state whose handle is h, or NULL (for the trace's names). */
struct vnode *vobj_find(lua_State *L, void *h);
/* Whether [addr, addr+len) lies inside the memory of a live MR verbsh allocated. */
bool vobj_mr_covers(lua_State *L, uint64_t addr, uint64_t len);
/* Whether h is the handle of a live object of class cls (a WR's ud.ah). */
bool vobj_live_handle(lua_State *L, const struct vclass *cls, const void *h);
/* Pushes the userdata of node n if it still exists; false (nothing pushed) if not. */
bool vobj_push(lua_State *L, struct vnode *n);

/* ---- error.c: verb failures as error objects ------------------------------ */

/* Raises the error object (verb, errno, errname, message, object, context) for a failed verb. obj: stack
 * index of the object the verb was called on (0: none); ctxidx: index of a
 * context table (0: empty). Never returns. */
int vraise(lua_State *L, const char *verb, int err, int obj, int ctxidx);
/* Pushes the soft RLIMIT_MEMLOCK: bytes, or "unlimited". */
void vraise_push_memlock(lua_State *L);
/* luaL_argerror / luaL_typeerror naming the binding itself ("modify", "verbs.open")
 * and counting arguments as in a method call, however it was called. */
int vargerror(lua_State *L, int arg, const char *msg);
int vtypeerror(lua_State *L, int arg, const char *tname);
/* lverbs.c: pushes require(module), raising as require does. */
void vrequire(lua_State *L, const char *module);
/* lverbs.c: calls require(module)[fn] on the top nargs values, leaving nresults. */
void vcall(lua_State *L, const char *module, const char *fn, int nargs, int nresults);
/* The name of the verbs binding running at stack level `level` (pushed:
 * "modify", "verbs.open"), or NULL (nothing pushed) for any other function. */
const char *vbinding_at(lua_State *L, int level);
void vchecktable(lua_State *L, int arg);
/* A method or function that takes at most `last` arguments (self counted)
 * given more that are not nil: qp:query("qp_state") is an error naming the
 * first extra argument, never an argument silently ignored. form: the call
 * as help shows it ("qp:query()"); hint: NULL or what to do instead. */
void vnoextra_fail(lua_State *L, int last, const char *form, const char *hint);
static inline void vnoextra(lua_State *L, int last, const char *form, const char *hint)
{
	if (lua_gettop(L) > last)
		vnoextra_fail(L, last, form, hint);
}
/* errno -> "EINVAL" */
const char *verrname(int err);

void verrno_open(lua_State *L);   /* require "verbs.errno" */

/* ---- fields.c: verbs.fields and verbs.enum, the descriptors seen from Lua */

/* Sets verbs.fields and verbs.enum in the module table at -1. */
void fields_open(lua_State *L);

/* ---- the classes ------------------------------------------------------- */

extern const struct vclass vc_context, vc_pd, vc_mr, vc_cq, vc_channel, vc_qp, vc_ah, vc_srq;
extern const struct vfield vf_ah_attr[], vf_qp_init_attr[], vf_qp_attr[], vf_global_route[], vf_wc[],
	vf_conn_param[], vf_device_attr[], vf_port_attr[], vf_cq_opts[], vf_cq_init_attr_ex[],
	vf_qp_init_attr_ex[], vf_srq_attr[];
/* cm.c: rdma_cm event channels, ids and events. A QP created through a
 * cm_id holds the id as dependency QP_DEP_CM_ID and is destroyed through it. */
extern const struct vclass vc_cm_channel, vc_cm_id, vc_cm_event;
#define QP_DEP_CM_ID 4
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
void mw_bind_check(lua_State *L, int arg, const char *at, struct vnode *qp, struct ibv_mw *mw,
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
 * puts their nodes in used[1..3], and raises unless each belongs to owner's
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

/* ---- post.c: reading and posting WRs (tables, and prepared ones: wr.c) -- */

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
