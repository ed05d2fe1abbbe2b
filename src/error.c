/* Failed verbs become error objects that lua/explain.lua turns into a
 * lesson (fields: verb, errno, errname, message, object, context), and
 * argument errors that name the binding. The trace is not here: verbs.trace
 * prints what the recorder (lua/record.lua) saw, as lua/export_c.lua writes it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include "core.h"

/* The one source of errno names, C's and the Lua explanations' alike (the
 * Lua side reads them through require "verbs.errno"): glibc's own table. */
const char *verrname(int err)
{
	return err > 0 ? strerrorname_np(err) : NULL;
}

/* require "verbs.errno" -> { EINVAL = 22, ..., [22] = "EINVAL", ... }: every
 * errno this libc has a name for, both ways. */
static int l_errno_module(lua_State *L)
{
	lua_newtable(L);
	for (int e = 1; e < 4096; e++) {
		const char *name = strerrorname_np(e);
		if (!name)
			continue;
		lua_pushstring(L, name);
		lua_rawseti(L, -2, e);
		lua_pushinteger(L, e);
		lua_setfield(L, -2, name);
	}
	return 1;
}

static void push_memlock(lua_State *L)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0)
		lua_pushnil(L);
	else if (rl.rlim_cur == RLIM_INFINITY)
		lua_pushliteral(L, "unlimited");
	else
		lua_pushinteger(L, (lua_Integer)rl.rlim_cur);
}

/* Used when verbs.explain cannot be loaded: the error still prints. */
static int fallback_tostring(lua_State *L)
{
	lua_getfield(L, 1, "verb");
	lua_getfield(L, 1, "errname");
	lua_getfield(L, 1, "errno");
	lua_getfield(L, 1, "message");
	lua_pushfstring(L, "%s failed: %s (errno %s, %s)", luaL_optstring(L, 2, "verb"),
			luaL_optstring(L, 3, "?"), luaL_tolstring(L, 4, NULL), luaL_optstring(L, 5, ""));
	return 1;
}

int vraise(lua_State *L, const char *verb, int err, int obj, int ctxidx)
{
	const char *name = verrname(err);
	obj = obj ? lua_absindex(L, obj) : 0;
	ctxidx = ctxidx ? lua_absindex(L, ctxidx) : 0;
	lua_createtable(L, 0, 8);
	lua_pushstring(L, verb);
	lua_setfield(L, -2, "verb");
	lua_pushinteger(L, err);
	lua_setfield(L, -2, "errno");
	if (name) {
		lua_pushstring(L, name);
		lua_setfield(L, -2, "errname");
	}
	lua_pushstring(L, strerror(err));
	lua_setfield(L, -2, "message");
	if (obj) {
		lua_pushvalue(L, obj);
		lua_setfield(L, -2, "object");
	}
	if (ctxidx)
		lua_pushvalue(L, ctxidx);
	else
		lua_newtable(L);
	lua_setfield(L, -2, "context");

	/* The explanation must never hide the verb's own error. */
	int e = lua_gettop(L);
	lua_pushvalue(L, e);
	if (vpcall(L, "verbs.explain", "verb_error", 1, 1) != LUA_OK || !lua_istable(L, -1)) {
		lua_pop(L, 1);
		if (luaL_newmetatable(L, "verbs.error")) {
			lua_pushcfunction(L, fallback_tostring);
			lua_setfield(L, -2, "__tostring");
		}
		lua_setmetatable(L, e);
		lua_pushvalue(L, e);
	}
	return lua_error(L);
}

/* require "verbs.errno": C's errno names and numbers, for the explanations. */
void verrno_open(lua_State *L)
{
	luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
	lua_pushcfunction(L, l_errno_module);
	lua_setfield(L, -2, "verbs.errno");
	lua_pop(L, 1);
}

/* ---- argument errors that name the method -------------------------------------
 * luaL_argerror names the function from the call site, which gives
 * "bad argument #2 to '?'" under pcall(qp.modify, qp, t). The bindings know
 * their own names: look the running C function up in the method tables and
 * the module table, and count arguments as a method call does (self is not #1). */


/* With the function at the top: its name in the table at -2 (pushed), or false. */
static bool find_in(lua_State *L, int t)
{
	lua_pushnil(L);
	while (lua_next(L, t)) {
		if (lua_rawequal(L, -1, -3) && lua_type(L, -2) == LUA_TSTRING) {
			lua_pop(L, 1);
			return true;
		}
		lua_pop(L, 1);
	}
	return false;
}

static const char *own_name(lua_State *L, int level, bool *method)
{
	lua_Debug ar;
	if (!lua_getstack(L, level, &ar) || !lua_getinfo(L, "f", &ar))
		return NULL;
	int f = lua_gettop(L);
	lua_getfield(L, LUA_REGISTRYINDEX, VMETHOD_TABLES);   /* every class's methods, as vobj_register made them */
	for (lua_Integer i = 1; lua_istable(L, f + 1) && lua_rawgeti(L, f + 1, i) == LUA_TTABLE; i++) {
		lua_pushvalue(L, f);
		if (find_in(L, lua_gettop(L) - 1)) {
			*method = true;
			return lua_tostring(L, -1);
		}
		lua_settop(L, f + 1);
	}
	/* the module's functions, and their originals while the recorder has
	 * replaced them with its wrappers (lua/record.lua) */
	const char *const modules[] = { "verbs.module", "verbs.module_originals" };
	for (int m = 0; m < 2; m++) {
		lua_settop(L, f);
		if (lua_getfield(L, LUA_REGISTRYINDEX, modules[m]) == LUA_TTABLE) {
			lua_pushvalue(L, f);
			if (find_in(L, lua_gettop(L) - 1)) {
				*method = false;
				return lua_pushfstring(L, "verbs.%s", lua_tostring(L, -1));
			}
		}
	}
	lua_settop(L, f);
	return NULL;
}

const char *vbinding_at(lua_State *L, int level)
{
	bool method;
	int top = lua_gettop(L);
	const char *name = own_name(L, level, &method);
	if (!name)
		lua_settop(L, top);
	return name;
}

int vargerror(lua_State *L, int arg, const char *msg)
{
	bool method = false;
	int top = lua_gettop(L);
	const char *name = own_name(L, 0, &method);
	if (!name) {
		lua_settop(L, top);
		return luaL_argerror(L, arg, msg);
	}
	if (method && arg == 1)
		return luaL_error(L, "calling '%s' on bad self (%s)", name, msg);
	return luaL_error(L, "bad argument #%d to '%s' (%s)", method ? arg - 1 : arg, name, msg);
}

const char *vwhat_is(lua_State *L, int idx)
{
	const char *s = luaL_typename(L, idx);
	if (lua_getmetatable(L, idx)) {
		lua_pushliteral(L, "__name");
		if (lua_rawget(L, -2) == LUA_TSTRING)   /* raw: a metatable may have a metatable too */
			s = lua_tostring(L, -1);   /* kept alive by the metatable, which the value holds */
		lua_pop(L, 2);
	}
	return s;
}

const char *vpush_expected(lua_State *L, int idx, const char *tname)
{
	const char *got = vwhat_is(L, idx);
	/* a value that wears the metatable (debug.setmetatable) but is no object verbsh made */
	if (strcmp(got, tname) == 0)
		return lua_pushfstring(L, "%s expected, got a %s with its metatable: only verbsh makes a %s", tname,
				       luaL_typename(L, idx), tname);
	return lua_pushfstring(L, "%s expected, got %s", tname, got);
}

int vtypeerror(lua_State *L, int arg, const char *tname)
{
	return vargerror(L, arg, vpush_expected(L, arg, tname));
}

void vnoextra_fail(lua_State *L, int last, const char *form, const char *hint)
{
	int top = lua_gettop(L);
	while (top > last && lua_isnil(L, top))   /* qp:query(nil) passes nothing */
		top--;
	if (top <= last)
		return;
	bool method = strchr(form, ':') != NULL;
	int params = method ? last - 1 : last, extra = top - last;
	const char *got = luaL_typename(L, last + 1);
	if (params == 0)
		lua_pushfstring(L, "%s takes no arguments, got %d (the first: a %s)%s%s", form, extra + params, got,
				hint ? "; " : "", hint ? hint : "");
	else
		lua_pushfstring(L, "%s takes at most %d argument%s, got %d (the first extra one: a %s)%s%s", form, params,
				params == 1 ? "" : "s", top - (method ? 1 : 0), got, hint ? "; " : "", hint ? hint : "");
	vargerror(L, last + 1, lua_tostring(L, -1));
}

void vchecktable(lua_State *L, int arg)
{
	if (!lua_istable(L, arg))
		vtypeerror(L, arg, "table");
}

int vraise_create(lua_State *L, const char *verb, int err, int obj)
{
	push_memlock(L);
	lua_setfield(L, -2, "memlock");
	return vraise(L, verb, err, obj, -1);
}
