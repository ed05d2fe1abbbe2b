/* The foundation below the classes: enum and flag names (enums.c), "did you
 * mean" (suggest.c), warnings (warn.c), the one table<->struct marshaller
 * (marshal.c), the object layer (object.c), verb errors (error.c),
 * verbs.fields (fields.c) and the calls from C into Lua (policy.c).
 *
 * Those files include this header alone: it names no class, so a class's
 * descriptor or data used there fails to compile, and tests/host/layers.bats
 * checks the objects the same way. The classes build on it (verbsh.h).
 *
 * Every verbs object is a Lua userdata holding a pointer to a `struct vnode`
 * (malloc'd, not in the userdata): the node outlives its userdata while
 * objects that depend on it are still alive, so that finalizers may run in
 * any order (lua_close finalizes everything, parents included). */
#ifndef VERBSH_CORE_H
#define VERBSH_CORE_H
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
 * under verbs.strict(true) (arg 0: no argument is at fault, the caller's
 * line and the warning); silent after verbs.warnings(false). */
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
/* A parameter a callback's signature demands and this one does not use. */
#define VUNUSED __attribute__((unused))

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
/* for each node n of L's state, in the order made */
#define FOR_NODES(L, n) for (struct vnode *head_ = &vstate(L)->all, *n = head_->next; n != head_; n = n->next)

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
	/* Optional: true when garbage not yet collected may hold n in the
	 * kernel (a dropped type 2 window bound through a QP): the explicit
	 * destroy collects first. */
	bool (*collect_first)(struct vnode *n);
	/* Optional: the verb that destroys n when it depends on n (a device
	 * object's kind: ibv_free_dm, ibv_destroy_wq ...), else destroy_verb. */
	const char *(*destroy_verb_of)(struct vnode *n);
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
/* Makes the object at idx (absolute) dep i of the object at self in place of
 * the one it had, as mr:rereg's CHANGE_PD moves an MR to another PD: the new
 * one counts it as a user, the old one no longer (and is freed when that was
 * all that kept it). */
void vobj_replace_dep(lua_State *L, int self, int i, int idx);
/* n changed in a way that a prepared WR naming it must see (mr:rereg gave
 * an MR new keys): the next post of every prepared WR checks again. */
void vobj_changed(struct vnode *n);
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
/* Whether h is the handle of a live object of class cls (a WR's ud.ah). */
bool vobj_live_handle(lua_State *L, const struct vclass *cls, const void *h);
/* Pushes the userdata of node n if it still exists; false (nothing pushed) if not. */
bool vobj_push(lua_State *L, struct vnode *n);

/* ---- error.c: verb failures as error objects ------------------------------ */

/* Raises the error object (verb, errno, errname, message, object, context) for a failed verb. obj: stack
 * index of the object the verb was called on (0: none); ctxidx: index of a
 * context table (0: empty). Never returns. */
int vraise(lua_State *L, const char *verb, int err, int obj, int ctxidx);
/* vraise for a verb that creates an object (ibv_create_qp, ibv_reg_mr, ...):
 * the context table on the top gets memlock, the soft RLIMIT_MEMLOCK (bytes,
 * or "unlimited"), since pinned memory is what creates run out of first and
 * the explanation names the limit. Never returns. */
int vraise_create(lua_State *L, const char *verb, int err, int obj);
/* luaL_argerror / luaL_typeerror naming the binding itself ("modify", "verbs.open")
 * and counting arguments as in a method call, however it was called. */
int vargerror(lua_State *L, int arg, const char *msg);
int vtypeerror(lua_State *L, int arg, const char *tname);
/* "verbs.pd" for a verbs object (its metatable's raw __name), else the
 * value's Lua type: what an error says it got. */
const char *vwhat_is(lua_State *L, int idx);
/* Pushes and returns "verbs.pd expected, got verbs.context" (vwhat_is). */
const char *vpush_expected(lua_State *L, int idx, const char *tname);
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

/* A table verbsh reads or gives, by the C type it stands for; mask: the
 * enum of the C mask its fields' bits are (NULL when the bits are verbsh's
 * own bookkeeping, as post.c's). */
struct vstruct {
	const char *ctype;
	const struct vfield *f;
	const struct venum *mask;
};
/* Sets verbs.fields and verbs.enum in the module table at -1, describing
 * the n structs of list (the module entry's, which knows the classes). */
void fields_open(lua_State *L, const struct vstruct *list, size_t n);

/* ---- policy.c: C hands policy to Lua ------------------------------------ */

/* Pushes require(module), raising as require does. */
void vrequire(lua_State *L, const char *module);
/* Calls require(module)[fn] on the top nargs values, leaving nresults in
 * their place (LUA_MULTRET: all), raising as the call does. */
void vcall(lua_State *L, const char *module, const char *fn, int nargs, int nresults);
/* The same in protected mode: returns a Lua status, and on an error (of the
 * require or of the call) leaves the message alone in the nargs' place.
 * For what must never hide the caller's own outcome (an explanation). */
int vpcall(lua_State *L, const char *module, const char *fn, int nargs, int nresults);
/* Pushes require(module) in protected mode (or the error); returns a Lua status. */
int vprequire(lua_State *L, const char *module);

#endif
