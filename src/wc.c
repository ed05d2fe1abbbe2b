/* WC arrays: verbs.wc_array(n) is C's `struct ibv_wc wc[n]`.
 *
 * cq:poll(wcs) and cq:wait(wcs, ...) fill it in place and return the count,
 * as ibv_poll_cq does, so a loop that polls millions of completions builds
 * no table per completion. wcs[i] is a view of entry i, made once: a table
 * that holds the entry's status, the field every completion loop checks,
 * so that `wcs[i].status ~= "SUCCESS"` is a plain table read, not a call
 * into C; the other fields are read from the C struct when asked for.
 * Reading an entry the last poll did not fill is an error: in C it would be
 * stale data. #wcs is n; ipairs(wcs) walks the entries the last poll filled. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "verbsh.h"

static const char WC_ARRAY[] = "verbs.wc_array";

/* ---- struct ibv_wc, described once ------------------------------------ */

/* Only wr_id, status, vendor_err and qp_num are defined for a failed
 * completion; C leaves the rest undefined, so tables and views omit them. */
static bool wc_ok(const void *src)
{
	return ((const struct ibv_wc *)src)->status == IBV_WC_SUCCESS;
}

static bool wc_has_imm(const void *src)
{
	const struct ibv_wc *wc = src;
	return wc->status == IBV_WC_SUCCESS && (wc->wc_flags & IBV_WC_WITH_IMM);
}

/* imm_data is in network order in the struct and in host order in Lua, as
 * a C program would print ntohl(wc.imm_data). */
static const char *read_imm(lua_State *L, int idx, void *dst, const struct vfield *f VUNUSED)
{
	if (!lua_isinteger(L, idx) || lua_tointeger(L, idx) < 0 || lua_tointeger(L, idx) > 0xffffffff)
		return "32-bit unsigned integer expected";
	((struct ibv_wc *)dst)->imm_data = htonl((uint32_t)lua_tointeger(L, idx));
	return NULL;
}

static void push_imm(lua_State *L, const void *src)
{
	lua_pushinteger(L, ntohl(((const struct ibv_wc *)src)->imm_data));
}

/* A SEND_WITH_INV received: the rkey it revoked here, in host order (it
 * shares imm_data's bytes; WITH_INV says which one the union holds).
 * rxe (kernel 6.1, rdma-core 44) copies the kernel's flag bits as they are:
 * its IB_WC_WITH_INVALIDATE is 1 << 2, which libibverbs calls
 * IBV_WC_IP_CSUM_OK, so a received invalidation reads GRH|IP_CSUM_OK. A
 * checksum flag belongs to UD and raw-packet receives, which carry the
 * sender's QPN in src_qp; on a RECV with src_qp 0 (RC, UC) it is rxe's
 * WITH_INVALIDATE. wc_flags stays as C sees it. */
static bool wc_has_inv(const void *src)
{
	const struct ibv_wc *wc = src;
	if (wc->status != IBV_WC_SUCCESS)
		return false;
	return (wc->wc_flags & IBV_WC_WITH_INV) ||
	       ((wc->wc_flags & IBV_WC_IP_CSUM_OK) && wc->opcode == IBV_WC_RECV && wc->src_qp == 0);
}

static const char *read_inv(lua_State *L, int idx, void *dst, const struct vfield *f VUNUSED)
{
	lua_Integer v = lua_isinteger(L, idx) ? lua_tointeger(L, idx) : -1;
	if (v < 0 || v > (lua_Integer)UINT32_MAX)
		return "an rkey (32-bit unsigned integer) expected";
	((struct ibv_wc *)dst)->invalidated_rkey = (uint32_t)v;
	return NULL;
}

static void push_inv(lua_State *L, const void *src)
{
	lua_pushinteger(L, ((const struct ibv_wc *)src)->invalidated_rkey);
}

#define WCF(m, t, ...) VF(struct ibv_wc, m, t, __VA_ARGS__)
#define WCOK(m, t, ...) VF(struct ibv_wc, m, t, .present = wc_ok, __VA_ARGS__)
/* Read by pd:create_ah_from_wc and ctx:init_ah_from_wc, pushed by cq:poll,
 * cq:wait, the wc_array views and the extended CQ's current completion. */
const struct vfield vf_wc[] = {
	WCF(wr_id, VT_UINT), WCF(status, VT_ENUM, .en = &ve_wc_status), WCF(vendor_err, VT_UINT),
	WCF(qp_num, VT_UINT), WCOK(opcode, VT_ENUM, .en = &ve_wc_opcode), WCOK(byte_len, VT_UINT),
	{ .name = "imm_data", .type = VT_CUSTOM, .custom = read_imm, .push = push_imm, .present = wc_has_imm },
	{ .name = "invalidated_rkey", .type = VT_CUSTOM, .custom = read_inv, .push = push_inv, .present = wc_has_inv },
	WCOK(src_qp, VT_UINT), WCOK(wc_flags, VT_FLAGS, .en = &ve_wc_flags), WCOK(pkey_index, VT_UINT),
	WCOK(slid, VT_UINT), WCOK(sl, VT_UINT), WCOK(dlid_path_bits, VT_UINT),
	VF_END
};

/* ---- a completion: struct ibv_wc as a value ------------------------------
 *
 * cq:poll, cq:wait and the extended CQ give each completion as a userdata
 * that holds a copy of C's struct ibv_wc, not as a table: a loop that polls
 * builds one small object per completion instead of a table of 12 keys (a
 * Lua table of that size cost about 5,000 instructions, callgrind; the
 * copy costs a tenth of that), and fields are read only when asked for.
 * It reads like a table: wc.status, pairs(wc) (the fields C defines for
 * this status, in struct order), tostring(wc) (explain's one line). A
 * field that C leaves undefined (opcode of a failed completion) is nil; a
 * name that is not a field of struct ibv_wc is an error, as in C. Each
 * metamethod has the metatable as its upvalue, and checks its argument
 * against it. */

static const char WC_CLASS = 0;   /* registry key (its address): this state's metatable */

/* absent: bit i set when vf_wc[i] is not there at all (a field that an
 * extended CQ was not asked for: nil, not a made-up 0). */
struct vwc {
	struct ibv_wc wc;
	unsigned absent;
};

static struct vwc *check_wc(lua_State *L, int idx)
{
	struct vwc *w = lua_touserdata(L, idx);
	if (!w || !lua_getmetatable(L, idx) || !lua_rawequal(L, -1, lua_upvalueindex(1)))
		vtypeerror(L, idx, "ibv_wc");
	lua_pop(L, 1);
	return w;
}

/* Pushes the field f of w (nil when C leaves it undefined or it is absent). */
static void push_field(lua_State *L, const struct vwc *w, const struct vfield *f)
{
	if ((w->absent & (1u << (f - vf_wc))) || !marsh_push_field(L, f, &w->wc))
		lua_pushnil(L);
}

__attribute__((noreturn))
static void no_field(lua_State *L, const char *k)
{
	const char *near = marsh_closest(vf_wc, k);
	if (near)
		luaL_error(L, "struct ibv_wc has no field '%s' (did you mean '%s'?)", k, near);
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	luaL_where(L, 1);   /* "file:line: ", as luaL_error puts it */
	luaL_addvalue(&b);
	lua_pushfstring(L, "struct ibv_wc has no field '%s' (its fields: ", k);
	luaL_addvalue(&b);
	marsh_add_names(&b, vf_wc);
	luaL_pushresult(&b);
	lua_error(L);
	abort();   /* not reached */
}

static int wc_index(lua_State *L)
{
	const struct vwc *w = check_wc(L, 1);
	const char *k = lua_type(L, 2) == LUA_TSTRING ? lua_tostring(L, 2) : NULL;
	const struct vfield *f = k ? marsh_field(vf_wc, k) : NULL;
	if (!f)
		no_field(L, k ? k : luaL_tolstring(L, 2, NULL));
	push_field(L, w, f);
	return 1;
}

/* C lets a program write into its own copy; here nothing would read it. */
static int wc_newindex(lua_State *L)
{
	check_wc(L, 1);
	const char *k = luaL_tolstring(L, 2, NULL);
	if (!marsh_field(vf_wc, k))
		no_field(L, k);
	return luaL_error(L, "wc.%s: a WC holds what the CQ reported and is not assigned"
			  " (copy the fields you want into a table of your own)", k);
}

/* The field after the one named at 2 (the first for nil) that this
 * completion defines, and its value: what next() would give. */
static int wc_next(lua_State *L)
{
	const struct vwc *w = check_wc(L, 1);
	const struct vfield *f = vf_wc;
	if (!lua_isnoneornil(L, 2)) {
		f = lua_type(L, 2) == LUA_TSTRING ? marsh_field(vf_wc, lua_tostring(L, 2)) : NULL;
		if (!f)
			no_field(L, luaL_tolstring(L, 2, NULL));
		f++;
	}
	for (; f->name; f++) {
		lua_pushstring(L, f->name);
		push_field(L, w, f);
		if (!lua_isnil(L, -1))
			return 2;
		lua_pop(L, 2);
	}
	lua_pushnil(L);
	return 1;
}

static int wc_pairs(lua_State *L)
{
	check_wc(L, 1);
	lua_pushvalue(L, lua_upvalueindex(2));   /* wc_next */
	lua_pushvalue(L, 1);
	lua_pushnil(L);
	return 3;
}

/* Without lua/explain_wc.lua's line (verbs.so alone, without its modules).
 * lua_pushfstring has no field widths ("%06x" raises): the QPN is written
 * by snprintf. */
static int wc_plain_tostring(lua_State *L)
{
	const struct ibv_wc *wc = &check_wc(L, 1)->wc;
	const char *status = venum_name(&ve_wc_status, wc->status);
	char qpn[16];
	snprintf(qpn, sizeof qpn, "0x%06x", (unsigned)wc->qp_num);
	lua_pushfstring(L, "wc wr_id=%I %s qp_num=%s", (lua_Integer)wc->wr_id, status ? status : "?", qpn);
	return 1;
}

/* Pushes this state's metatable of WCs, made on first use. */
static void push_wc_class(lua_State *L)
{
	static const luaL_Reg meta[] = {
		{ "__index", wc_index }, { "__newindex", wc_newindex }, { "__pairs", wc_pairs },
		{ "__tostring", wc_plain_tostring }, { NULL, NULL }
	};
	if (lua_rawgetp(L, LUA_REGISTRYINDEX, &WC_CLASS) == LUA_TTABLE)
		return;
	lua_pop(L, 1);
	lua_createtable(L, 0, 8);
	for (const luaL_Reg *r = meta; r->name; r++) {   /* upvalues: the metatable, wc_next */
		lua_pushvalue(L, -1);
		lua_pushvalue(L, -1);
		lua_pushcclosure(L, wc_next, 1);
		lua_pushcclosure(L, r->func, 2);
		lua_setfield(L, -2, r->name);
	}
	lua_pushliteral(L, "ibv_wc");
	lua_setfield(L, -2, "__name");
	lua_createtable(L, 13, 0);   /* for the shell's Tab completion (wc.<Tab>) */
	for (int i = 0; vf_wc[i].name; i++) {
		lua_pushstring(L, vf_wc[i].name);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "__fields");
	/* explain's line, with the cause and fix of a failed status */
	int top = lua_gettop(L);
	if (vprequire(L, "verbs.explain") == LUA_OK && lua_istable(L, -1) && lua_getfield(L, -1, "wc_tostring") == LUA_TFUNCTION)
		lua_setfield(L, top, "__tostring");
	lua_settop(L, top);
	lua_pushvalue(L, -1);
	lua_rawsetp(L, LUA_REGISTRYINDEX, &WC_CLASS);
}

void wc_push_without(lua_State *L, const struct ibv_wc *wc, unsigned absent)
{
	struct vwc *w = lua_newuserdatauv(L, sizeof *w, 0);
	w->wc = *wc;
	w->absent = absent;
	push_wc_class(L);
	lua_setmetatable(L, -2);
}

void wc_push(lua_State *L, const struct ibv_wc *wc)
{
	wc_push_without(L, wc, 0);
}

unsigned wc_field_bit(const char *name)
{
	const struct vfield *f = marsh_field(vf_wc, name);
	return f ? 1u << (f - vf_wc) : 0;
}

const struct ibv_wc *wc_test(lua_State *L, int idx)
{
	const struct vwc *w = lua_touserdata(L, idx);
	if (!w || !lua_getmetatable(L, idx))
		return NULL;
	lua_rawgetp(L, LUA_REGISTRYINDEX, &WC_CLASS);
	if (!lua_rawequal(L, -1, -2))
		w = NULL;
	lua_pop(L, 2);
	return w ? &w->wc : NULL;
}


/* A wc_array is an empty table whose own metatable's __index is the table
 * of views, so that wcs[i] is a plain table read (no metamethod call) and
 * wcs[i] = x is still caught by __newindex. The metatable holds the C array
 * at [1] (an integer key: cq:wait finds it without hashing a string), every
 * view at [2], and hides itself (__metatable). The table of views holds
 * those of the entries the last poll filled, so that ipairs(wcs) stops after
 * them; its __index (views_index) gives the others' when asked by name.
 * Each view has a metatable of its own whose functions know the entry
 * (upvalues: the C array, i). */

/* The metatable of the wc_array at idx, its C array, and (pushed) its views. */
static struct wc_array *array_views(lua_State *L, int idx, bool push_views)
{
	struct wc_array *a = NULL;
	if (!lua_istable(L, idx) || !lua_getmetatable(L, idx))
		return NULL;
	lua_rawgeti(L, -1, 1);
	a = vtagged_test(L, -1, WC_ARRAY, sizeof *a);
	lua_pop(L, 1);
	if (a && push_views) {
		lua_getfield(L, -1, "__index");
		lua_remove(L, -2);
	} else
		lua_pop(L, 1);
	return a;
}

/* A loop passes the same wc_array to every cq:wait: the state remembers the
 * last one found (the address of its table) and its C array, and the
 * registry keeps both reachable, so that no other table can take that
 * address while it is remembered. Finding it again is then one comparison
 * instead of a metatable lookup (a third of a wait's cost). */
static const char CACHED_TABLE = 0, CACHED_ARRAY = 0;   /* registry keys: their addresses */

static void remember(lua_State *L, struct vstate *st, int idx, struct wc_array *a)
{
	idx = lua_absindex(L, idx);
	lua_pushvalue(L, idx);
	lua_rawsetp(L, LUA_REGISTRYINDEX, &CACHED_TABLE);
	lua_getmetatable(L, idx);   /* array_views found it */
	lua_rawgeti(L, -1, 1);      /* the C array: kept even if debug.setmetatable drops it */
	lua_rawsetp(L, LUA_REGISTRYINDEX, &CACHED_ARRAY);
	lua_pop(L, 1);
	st->wc_array_table = lua_topointer(L, idx);
	st->wc_array = a;
}

struct wc_array *wc_array_find(lua_State *L, struct vstate *st, int idx)
{
	struct wc_array *a = array_views(L, idx, false);
	if (a)
		remember(L, st, idx, a);
	return a;
}

/* After a poll of the wc_array at idx filled got entries. The views of
 * entries 1..got must show their status and those of the others none (so
 * that reading one is the stale-entry error), and the table of views holds
 * the first got (what ipairs walks). Each view's raw status is set only
 * when it changes: in a loop of successes nothing changes, and the poll
 * makes no Lua call at all (setting two fields on every poll cost more than
 * the metamethod calls it saved). */
void wc_array_show(lua_State *L, int idx, struct wc_array *a, int got)
{
	int shown = a->shown;
	a->filled = got;
	if (!array_views(L, idx, true))   /* the views of the filled entries */
		return;
	lua_getmetatable(L, idx);
	lua_rawgeti(L, -1, 2);            /* every view */
	lua_remove(L, -2);
	/* Raw sets: the view's __newindex refuses assignments from Lua. */
	for (int i = 0; i < (got > shown ? got : shown); i++) {
		if (i < got && i < shown && a->wc[i].status == a->shown_status[i])
			continue;
		lua_rawgeti(L, -1, i + 1);
		if (i >= shown || i >= got) {     /* filled now, or no longer */
			lua_pushvalue(L, -1);
			if (i >= got) {
				lua_pop(L, 1);
				lua_pushnil(L);
			}
			lua_rawseti(L, -4, i + 1);
		}
		lua_pushliteral(L, "status");
		if (i < got) {
			venum_push(L, &ve_wc_status, a->wc[i].status);
			a->shown_status[i] = a->wc[i].status;
		} else
			lua_pushnil(L);
		lua_rawset(L, -3);
		lua_pop(L, 1);
	}
	a->shown = got;
	lua_pop(L, 2);
}

/* A view's status is a plain field, so that a loop reads it without a call
 * into C; Lua cannot refuse an assignment to a field that is there. The
 * assignment is found here, before the next poll into the array (none is
 * lost), and the view shows the poll's status again. */
void wc_array_verify(lua_State *L, int idx, struct wc_array *a)
{
	if (!a->shown)
		return;
	int top = lua_gettop(L);
	idx = lua_absindex(L, idx);
	lua_getmetatable(L, idx);
	lua_rawgeti(L, -1, 2);   /* top + 2: every view */
	for (int i = 0; i < a->shown; i++) {
		lua_rawgeti(L, top + 2, i + 1);
		lua_pushliteral(L, "status");
		lua_rawget(L, -2);
		venum_push(L, &ve_wc_status, a->shown_status[i]);
		if (!lua_rawequal(L, -1, -2)) {
			const char *was = luaL_tolstring(L, -2, NULL);
			const char *is = lua_tostring(L, -2);
			lua_pushliteral(L, "status");
			lua_pushvalue(L, -3);
			lua_rawset(L, top + 3);   /* the view shows the poll's status again */
			luaL_error(L, "wcs[%d].status was assigned (%s) after the poll that filled it gave %s: a "
				      "completion's fields are read-only (keep a status of your own in a variable)",
				   i + 1, was, is);
		}
		lua_settop(L, top + 2);
	}
	lua_settop(L, top);
}

static struct wc_array *check_array(lua_State *L, int idx)
{
	struct wc_array *a = array_views(L, idx, false);
	if (!a)
		vtypeerror(L, idx, WC_ARRAY);
	return a;
}

/* Whether the caller is ipairs' step function (lbaselib's ipairsaux, found
 * at wc_open). */
static bool called_by_ipairs(lua_State *L)
{
	lua_CFunction step = vstate(L)->ipairs_step;
	lua_Debug ar;
	if (!step || !lua_getstack(L, 1, &ar) || !lua_getinfo(L, "f", &ar))
		return false;
	bool yes = lua_tocfunction(L, -1) == step;
	lua_pop(L, 1);
	return yes;
}

/* views[i] for an i the views table lacks: an entry the last poll did not
 * fill (its view: wcs[i] is the same table before and after a poll, and
 * reading its fields is the stale-entry error), or none. For ipairs the
 * entries end where the last poll's did. Upvalues: every view, the C array. */
static int views_index(lua_State *L)
{
	const struct wc_array *a = lua_touserdata(L, lua_upvalueindex(2));
	int isint;
	lua_Integer i = lua_tointegerx(L, 2, &isint);
	if (called_by_ipairs(L))
		return 0;
	if (isint && i >= 1 && i <= a->cap) {
		lua_rawgeti(L, lua_upvalueindex(1), i);
		return 1;
	}
	return luaL_error(L, "wc_array: index %s is outside 1..%d", luaL_tolstring(L, 2, NULL), a->cap);
}

static int array_newindex(lua_State *L)
{
	return luaL_error(L, "wc_array is filled by cq:poll and cq:wait, not assigned");
}

static int array_len(lua_State *L)
{
	lua_pushinteger(L, check_array(L, 1)->cap);
	return 1;
}

static int array_tostring(lua_State *L)
{
	struct wc_array *a = check_array(L, 1);
	lua_pushfstring(L, "wc_array %d (%d filled by the last poll)", a->cap, a->filled);
	return 1;
}

static int view_index(lua_State *L);
static int view_newindex(lua_State *L);
static int view_tostring(lua_State *L);

/* verbs.wc_array(n) */
static int l_wc_array(lua_State *L)
{
	static const luaL_Reg meta[] = {
		{ "__newindex", array_newindex }, { "__len", array_len }, { "__tostring", array_tostring }, { NULL, NULL }
	};
	static const luaL_Reg view_meta[] = {
		{ "__index", view_index }, { "__newindex", view_newindex }, { "__tostring", view_tostring }, { NULL, NULL }
	};
	int isint;
	lua_Integer want = lua_tointegerx(L, 1, &isint);
	if (isint && lua_type(L, 1) == LUA_TNUMBER && (want < 1 || want > 4096))   /* 0 entries is no array */
		return vargerror(L, 1, lua_pushfstring(L, "n: %I is out of range (1..4096)", want));
	int n = (int)marsh_check_uint(L, 1, 1, 4096, "n");   /* what is not an integer */
	lua_settop(L, 1);
	lua_newtable(L);                 /* 2: the wc_array */
	lua_createtable(L, 0, 6);        /* 3: its metatable */
	luaL_setfuncs(L, meta, 0);
	lua_pushliteral(L, "verbs.wc_array");
	lua_setfield(L, 3, "__name");
	lua_pushboolean(L, 0);
	lua_setfield(L, 3, "__metatable");
	size_t size = sizeof(struct wc_array) + (size_t)n * (sizeof(struct ibv_wc) + sizeof(enum ibv_wc_status));
	struct wc_array *a = lua_newuserdatauv(L, size, 0);   /* 4 */
	memset(a, 0, size);
	a->tag = WC_ARRAY;
	a->cap = n;
	a->shown_status = (enum ibv_wc_status *)(a->wc + n);
	luaL_setmetatable(L, WC_ARRAY);
	lua_rawseti(L, 3, 1);
	lua_createtable(L, n, 0);        /* 4: every view */
	for (int i = 0; i < n; i++) {
		lua_createtable(L, 0, 1);                /* the view: status, once filled */
		lua_createtable(L, 0, 5);                /* its metatable */
		lua_rawgeti(L, 3, 1);                    /* upvalues: the C array (kept alive) and i */
		lua_pushinteger(L, i);
		luaL_setfuncs(L, view_meta, 2);
		lua_pushliteral(L, "verbs.wc");
		lua_setfield(L, -2, "__name");
		lua_pushboolean(L, 0);
		lua_setfield(L, -2, "__metatable");
		lua_setmetatable(L, -2);
		lua_rawseti(L, 4, i + 1);
	}
	lua_createtable(L, n, 0);        /* 5: the views of the filled entries (none yet) */
	lua_createtable(L, 0, 1);
	lua_pushvalue(L, 4);
	lua_rawgeti(L, 3, 1);
	lua_pushcclosure(L, views_index, 2);
	lua_setfield(L, -2, "__index");
	lua_setmetatable(L, 5);
	lua_setfield(L, 3, "__index");
	lua_rawseti(L, 3, 2);
	lua_setmetatable(L, 2);
	return 1;
}

static struct ibv_wc *entry(lua_State *L)
{
	struct wc_array *a = lua_touserdata(L, lua_upvalueindex(1));
	int i = (int)lua_tointeger(L, lua_upvalueindex(2));
	if (i >= a->filled)
		luaL_error(L, "wc[%d]: the last poll filled %d entr%s (in C, wc[%d] would hold stale data)", i + 1,
			   a->filled, a->filled == 1 ? "y" : "ies", i);
	return &a->wc[i];
}

/* wcs[i].field: ibv_wc's fields. As in cq:poll's WCs, the fields other
 * than wr_id, status, vendor_err and qp_num are nil unless status is
 * SUCCESS (the C struct leaves them undefined). */
static int view_index(lua_State *L)
{
	const char *k = luaL_checkstring(L, 2);
	const struct vfield *f = marsh_field(vf_wc, k);
	if (!f)
		no_field(L, k);
	if (!marsh_push_field(L, f, entry(L)))
		lua_pushnil(L);
	return 1;
}

/* The same line as a cq:poll table prints, with the probable cause of a
 * failed status. */
static int view_tostring(lua_State *L)
{
	struct wc_array *a = lua_touserdata(L, lua_upvalueindex(1));
	int i = (int)lua_tointeger(L, lua_upvalueindex(2));
	if (i >= a->filled) {
		lua_pushfstring(L, "wc[%d] (not filled by the last poll)", i + 1);
		return 1;
	}
	wc_push(L, entry(L));
	luaL_tolstring(L, -1, NULL);
	return 1;
}

/* In C a program may write into its wc[] (nothing reads it back); here a
 * field the poll does not store would be lost on the next read, so say so. */
static int view_newindex(lua_State *L)
{
	return luaL_error(L, "wc[%d].%s: the entries of a wc_array are filled by cq:poll and cq:wait, not assigned",
			  (int)lua_tointeger(L, lua_upvalueindex(2)) + 1, luaL_tolstring(L, 2, NULL));
}

void wc_open(lua_State *L)
{
	int top = lua_gettop(L);
	lua_getglobal(L, "ipairs");   /* ipairs({}) returns its step function */
	lua_newtable(L);
	if (lua_isfunction(L, -2) && lua_pcall(L, 1, 1, 0) == LUA_OK)
		vstate(L)->ipairs_step = lua_tocfunction(L, -1);
	lua_settop(L, top);
	luaL_newmetatable(L, WC_ARRAY);   /* the C array itself: reachable only through its wc_array */
	lua_pop(L, 1);
	lua_pushcfunction(L, l_wc_array);
	lua_setfield(L, -2, "wc_array");
}
