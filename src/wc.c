/* WC arrays: verbs.wc_array(n) is C's `struct ibv_wc wc[n]`.
 *
 * cq:poll(wcs) and cq:wait(wcs, ...) fill it in place and return the count,
 * as ibv_poll_cq does, so a loop that polls millions of completions builds
 * no table per completion. wcs[i] is a view of entry i, made once: a table
 * that holds the entry's status, the field every completion loop checks,
 * so that `wcs[i].status ~= "SUCCESS"` is a plain table read, not a call
 * into C; the other fields are read from the C struct when asked for.
 * Reading an entry the last poll did not fill is an error: in C it would be
 * stale data. */
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
static const char *read_imm(lua_State *L, int idx, void *dst, const struct vfield *f)
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

#define WCF(m, t, ...) VF(struct ibv_wc, m, t, __VA_ARGS__)
#define WCOK(m, t, ...) VF(struct ibv_wc, m, t, .present = wc_ok, __VA_ARGS__)
/* Read by pd:create_ah_from_wc and ctx:init_ah_from_wc, pushed by cq:poll,
 * cq:wait, the wc_array views and the extended CQ's current completion. */
const struct vfield vf_wc[] = {
	WCF(wr_id, VT_UINT), WCF(status, VT_ENUM, .en = &ve_wc_status), WCF(vendor_err, VT_UINT),
	WCF(qp_num, VT_UINT), WCOK(opcode, VT_ENUM, .en = &ve_wc_opcode), WCOK(byte_len, VT_UINT),
	{ .name = "imm_data", .type = VT_CUSTOM, .custom = read_imm, .push = push_imm, .present = wc_has_imm },
	WCOK(src_qp, VT_UINT), WCOK(wc_flags, VT_FLAGS, .en = &ve_wc_flags), WCOK(pkey_index, VT_UINT),
	WCOK(slid, VT_UINT), WCOK(sl, VT_UINT), WCOK(dlid_path_bits, VT_UINT),
	VF_END
};

static const char WC_META[] = "verbs.wc_meta";

/* The metatable of WC tables: require("verbs.explain").wc_meta, looked up
 * once per state (false when it cannot be loaded). */
static void push_wc_meta(lua_State *L)
{
	if (lua_getfield(L, LUA_REGISTRYINDEX, WC_META) != LUA_TNIL)
		return;
	lua_pop(L, 1);
	lua_getglobal(L, "require");
	lua_pushliteral(L, "verbs.explain");
	if (lua_pcall(L, 1, 1, 0) == LUA_OK && lua_istable(L, -1))
		lua_getfield(L, -1, "wc_meta");
	else
		lua_pushboolean(L, 0);
	if (!lua_istable(L, -1)) {
		lua_pop(L, 1);
		lua_pushboolean(L, 0);
	}
	lua_remove(L, -2);
	lua_pushvalue(L, -1);
	lua_setfield(L, LUA_REGISTRYINDEX, WC_META);
}

/* What a WC table is made of, kept per state in one registry table so that
 * wc_push (twice per iteration of a plain loop) looks nothing up by name:
 * at MAKE a Lua function that builds the table from the values of vf_wc's
 * fields in order, `function(a1, ..., aN) return { wr_id = a1, ... } end`
 * (the VM's constructor sets each key with no API call and no string
 * lookup: lua_setfield per field was half of wc_push, callgrind); the
 * metatable (or false) at META; the names of ve_wc_status and ve_wc_opcode
 * from STATUS_NAMES and OPCODE_NAMES, by their position in those tables, so
 * that no name is hashed again. */
static const char WC_PARTS = 0;
enum { WC_NFIELDS = sizeof vf_wc / sizeof vf_wc[0] - 1, MAKE = 1, META, STATUS_NAMES };
#define OPCODE_NAMES (STATUS_NAMES + (int)ve_wc_status.n)

static void push_wc_make(lua_State *L)
{
	luaL_Buffer b;
	luaL_buffinit(L, &b);
	luaL_addstring(&b, "return function(");
	for (int i = 0; i < WC_NFIELDS; i++) {
		lua_pushfstring(L, "%sa%d", i ? ", " : "", i + 1);
		luaL_addvalue(&b);
	}
	luaL_addstring(&b, ") return { ");
	for (int i = 0; i < WC_NFIELDS; i++) {
		lua_pushfstring(L, "%s = a%d, ", vf_wc[i].name, i + 1);
		luaL_addvalue(&b);
	}
	luaL_addstring(&b, "} end");
	luaL_pushresult(&b);
	if (luaL_loadbuffer(L, lua_tostring(L, -1), lua_rawlen(L, -1), "=wc_push") != LUA_OK)
		lua_error(L);   /* not reached: the text is made from vf_wc's names */
	lua_call(L, 0, 1);
	lua_remove(L, -2);
}

static void push_wc_parts(lua_State *L)
{
	if (lua_rawgetp(L, LUA_REGISTRYINDEX, &WC_PARTS) == LUA_TTABLE)
		return;
	lua_pop(L, 1);
	lua_createtable(L, OPCODE_NAMES + (int)ve_wc_opcode.n, 0);
	push_wc_make(L);
	lua_rawseti(L, -2, MAKE);
	push_wc_meta(L);
	lua_rawseti(L, -2, META);
	for (size_t i = 0; i < ve_wc_status.n; i++) {
		lua_pushstring(L, ve_wc_status.e[i].name);
		lua_rawseti(L, -2, STATUS_NAMES + (lua_Integer)i);
	}
	for (size_t i = 0; i < ve_wc_opcode.n; i++) {
		lua_pushstring(L, ve_wc_opcode.e[i].name);
		lua_rawseti(L, -2, OPCODE_NAMES + (lua_Integer)i);
	}
	lua_pushvalue(L, -1);
	lua_rawsetp(L, LUA_REGISTRYINDEX, &WC_PARTS);
}

/* As venum_push, with the name taken from the parts table at `parts`. */
static void push_enum(lua_State *L, int parts, int base, const struct venum *en, int64_t v)
{
	for (size_t i = 0; i < en->n; i++)
		if (en->e[i].value == v) {
			lua_rawgeti(L, parts, base + (lua_Integer)i);
			return;
		}
	lua_pushinteger(L, v);
}

void wc_push(lua_State *L, const struct ibv_wc *wc)
{
	luaL_checkstack(L, WC_NFIELDS + 4, "wc_push");
	push_wc_parts(L);
	int parts = lua_gettop(L);
	lua_rawgeti(L, parts, MAKE);
	for (int i = 0; i < WC_NFIELDS; i++) {   /* nil for a field that has no value: the table leaves it out */
		const struct vfield *f = &vf_wc[i];
		if (f->en == &ve_wc_status)
			push_enum(L, parts, STATUS_NAMES, f->en, wc->status);
		else if (f->en == &ve_wc_opcode && f->present(wc))
			push_enum(L, parts, OPCODE_NAMES, f->en, wc->opcode);
		else if (!marsh_push_field(L, f, wc))
			lua_pushnil(L);
	}
	lua_call(L, WC_NFIELDS, 1);
	if (lua_rawgeti(L, parts, META) == LUA_TTABLE)
		lua_setmetatable(L, -2);
	else
		lua_pop(L, 1);
	lua_remove(L, parts);
}


/* A wc_array is an empty table whose own metatable's __index is the table
 * of views, so that wcs[i] is a plain table read (no metamethod call) and
 * wcs[i] = x is still caught by __newindex. The metatable holds the C array
 * at [1] (an integer key: cq:wait finds it without hashing a string), and
 * hides itself (__metatable). Each view has a metatable of
 * its own whose functions know the entry (upvalues: the C array, i). */

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

struct wc_array *wc_array_test(lua_State *L, struct vstate *st, int idx)
{
	const void *t = lua_topointer(L, idx);
	if (t && t == st->wc_array_table && lua_istable(L, idx))   /* a light userdata holds any address */
		return st->wc_array;
	struct wc_array *a = array_views(L, idx, false);
	if (a)
		remember(L, st, idx, a);
	return a;
}

/* After a poll of the wc_array at idx filled got entries. The views of
 * entries 1..got must show their status and those of the others none (so
 * that reading one is the stale-entry error). Each view's raw status is set
 * only when it changes: in a loop of successes nothing changes, and the
 * poll makes no Lua call at all (setting two fields on every poll cost
 * more than the metamethod calls it saved). */
void wc_array_filled(lua_State *L, int idx, struct wc_array *a, int got)
{
	int shown = a->shown;
	bool same = got == shown;
	for (int i = 0; same && i < got; i++)
		same = a->wc[i].status == a->shown_status[i];
	a->filled = got;
	if (same || !array_views(L, idx, true))
		return;
	/* Raw sets: the view's __newindex refuses assignments from Lua. */
	for (int i = 0; i < (got > shown ? got : shown); i++) {
		if (i < got && i < shown && a->wc[i].status == a->shown_status[i])
			continue;
		lua_rawgeti(L, -1, i + 1);
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
	lua_pop(L, 1);
}

static struct wc_array *check_array(lua_State *L, int idx)
{
	struct wc_array *a = array_views(L, idx, false);
	if (!a)
		vtypeerror(L, idx, WC_ARRAY);
	return a;
}

/* views[i] for an i the views table lacks. */
static int views_index(lua_State *L)
{
	lua_Integer n = (lua_Integer)lua_rawlen(L, 1);
	return luaL_error(L, "wc_array: index %s is outside 1..%I", luaL_tolstring(L, 2, NULL), n);
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
	int n = (int)marsh_check_uint(L, 1, 1, 4096, "n");
	if (n < 1)
		return vargerror(L, 1, "n must be at least 1");
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
	lua_createtable(L, n, 0);        /* 4: the views */
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
	lua_createtable(L, 0, 1);
	lua_pushcfunction(L, views_index);
	lua_setfield(L, -2, "__index");
	lua_setmetatable(L, 4);
	lua_setfield(L, 3, "__index");
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

/* wcs[i].field: ibv_wc's fields. As in cq:poll's tables, the fields other
 * than wr_id, status, vendor_err and qp_num are nil unless status is
 * SUCCESS (the C struct leaves them undefined). */
static int view_index(lua_State *L)
{
	const char *k = luaL_checkstring(L, 2);
	const struct vfield *f = marsh_field(vf_wc, k);
	if (!f)
		return luaL_error(L, "wc has no field '%s' (struct ibv_wc's fields: wr_id, status, opcode, vendor_err, "
				  "byte_len, imm_data, qp_num, src_qp, wc_flags, pkey_index, slid, sl, dlid_path_bits)", k);
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
	luaL_newmetatable(L, WC_ARRAY);   /* the C array itself: reachable only through its wc_array */
	lua_pop(L, 1);
	lua_pushcfunction(L, l_wc_array);
	lua_setfield(L, -2, "wc_array");
}
