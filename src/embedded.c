#include <lua.h>
#include <lauxlib.h>
#include "embedded.h"

/* package.preload loader: upvalue 1 is the index into embedded_lua[]. */
static int load_embedded(lua_State *L)
{
	const struct embedded_lua *e = &embedded_lua[lua_tointeger(L, lua_upvalueindex(1))];
	const char *modname = luaL_checkstring(L, 1);

	lua_pushfstring(L, "=[verbsh]/lua/%s.lua", e->name);
	if (luaL_loadbuffer(L, e->source, e->len, lua_tostring(L, -1)) != LUA_OK)
		return lua_error(L);
	lua_pushstring(L, modname);
	lua_call(L, 1, 1);
	return 1;
}

void embedded_lua_preload(lua_State *L)
{
	luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
	for (int i = 0; embedded_lua[i].name; i++) {
		lua_pushfstring(L, "verbs.%s", embedded_lua[i].name);
		lua_pushinteger(L, i);
		lua_pushcclosure(L, load_embedded, 1);
		lua_rawset(L, -3);
	}
	lua_pop(L, 1);
}
