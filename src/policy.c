/* C hands policy to Lua: what to explain, suggest or print is decided by the
 * Lua modules (the embedded lua/ files), which C reaches only through these. */
#include "core.h"

void vrequire(lua_State *L, const char *module)
{
	lua_getglobal(L, "require");
	lua_pushstring(L, module);
	lua_call(L, 1, 1);
}

void vcall(lua_State *L, const char *module, const char *fn, int nargs, int nresults)
{
	vrequire(L, module);
	lua_getfield(L, -1, fn);
	lua_replace(L, -2);
	lua_insert(L, -(nargs + 1));
	lua_call(L, nargs, nresults);
}

/* vcall under lua_pcall: the module's and the function's names come as
 * light userdata (C strings), the results wanted as an integer. */
static int call_protected(lua_State *L)
{
	const char *module = lua_touserdata(L, 1), *fn = lua_touserdata(L, 2);
	int nresults = (int)lua_tointeger(L, 3);
	lua_rotate(L, 1, -3);
	lua_pop(L, 3);
	vcall(L, module, fn, lua_gettop(L), nresults);
	return lua_gettop(L);
}

int vpcall(lua_State *L, const char *module, const char *fn, int nargs, int nresults)
{
	lua_pushcfunction(L, call_protected);
	lua_pushlightuserdata(L, (void *)module);
	lua_pushlightuserdata(L, (void *)fn);
	lua_pushinteger(L, nresults);
	lua_rotate(L, -(nargs + 4), 4);
	return lua_pcall(L, nargs + 3, nresults, 0);
}

int vprequire(lua_State *L, const char *module)
{
	lua_getglobal(L, "require");
	lua_pushstring(L, module);
	return lua_pcall(L, 1, 1, 0);
}
