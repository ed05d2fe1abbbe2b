/* Warnings: what C accepts but is almost always a mistake (an RDMA WRITE to
 * remote address 0) is done as C would do it, and said. verbs.strict(true)
 * makes each warning an error; verbs.warnings(false) silences them, for a
 * bug-reproducing script that means it. Both settings live in the registry
 * of the state, not in the process. */
#include <stdarg.h>
#include <stdio.h>
#include "core.h"

static const char STRICT[] = "verbsh.strict", QUIET[] = "verbsh.quiet";

static bool setting(lua_State *L, const char *key)
{
	lua_getfield(L, LUA_REGISTRYINDEX, key);
	bool on = lua_toboolean(L, -1);
	lua_pop(L, 1);
	return on;
}

void vwarn(lua_State *L, int arg, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	const char *msg = lua_pushvfstring(L, fmt, ap);
	va_end(ap);
	if (setting(L, STRICT)) {
		if (arg)
			vargerror(L, arg, lua_pushfstring(L, "%s (an error under verbs.strict(true))", msg));
		luaL_where(L, 1);   /* no argument is at fault: the caller's line, then the warning */
		lua_pushfstring(L, "%s%s (an error under verbs.strict(true))", lua_tostring(L, -1), msg);
		lua_error(L);
	}
	if (!setting(L, QUIET)) {
		luaL_where(L, 1);
		fprintf(stderr, "verbsh warning: %s%s (verbs.strict(true) makes this an error,"
				" verbs.warnings(false) silences it)\n", lua_tostring(L, -1), msg);
		fflush(stderr);
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
}

/* verbs.strict([on]) / verbs.warnings([on]) -> the setting before */
static int toggle(lua_State *L, const char *key, bool inverted)
{
	bool was = setting(L, key) != inverted;
	if (!lua_isnone(L, 1)) {
		luaL_checktype(L, 1, LUA_TBOOLEAN);
		lua_pushboolean(L, lua_toboolean(L, 1) != inverted);
		lua_setfield(L, LUA_REGISTRYINDEX, key);
	}
	lua_pushboolean(L, was);
	return 1;
}
/* Strict also makes a script's undefined global an error, as at the prompt. */
static int l_strict(lua_State *L)
{
	toggle(L, STRICT, false);
	if (lua_toboolean(L, 1)) {
		vcall(L, "verbs.repl", "guard_globals", 0, 0);
	}
	return 1;
}
static int l_warnings(lua_State *L) { return toggle(L, QUIET, true); }

void warn_open(lua_State *L)
{
	lua_pushcfunction(L, l_strict);
	lua_setfield(L, -2, "strict");
	lua_pushcfunction(L, l_warnings);
	lua_setfield(L, -2, "warnings");
}
