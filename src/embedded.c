#include <string.h>
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

/* package.preload's __index: the loader of lua/NAME.lua for "verbs.NAME",
 * made when require first asks. Registering all twenty loaders up front was
 * a twentieth of the start-up of `verbsh -e ''`, most of them never used. */
static int find_embedded(lua_State *L)
{
	const char *name = luaL_checkstring(L, 2);
	if (strncmp(name, "verbs.", 6) != 0)
		return 0;
	for (int i = 0; embedded_lua[i].name; i++) {
		if (strcmp(name + 6, embedded_lua[i].name) == 0) {
			lua_pushinteger(L, i);
			lua_pushcclosure(L, load_embedded, 1);
			return 1;
		}
	}
	return 0;
}

void embedded_lua_preload(lua_State *L)
{
	luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
	if (!lua_getmetatable(L, -1)) {
		lua_createtable(L, 0, 1);
		lua_pushcfunction(L, find_embedded);
		lua_setfield(L, -2, "__index");
		lua_setmetatable(L, -2);
	} else if (lua_getfield(L, -1, "__index"), lua_tocfunction(L, -1) != find_embedded) {
		/* package.preload has a metatable of someone else's: leave it,
		 * and register every loader up front instead */
		lua_pop(L, 2);
		for (int i = 0; embedded_lua[i].name; i++) {
			lua_pushfstring(L, "verbs.%s", embedded_lua[i].name);
			lua_pushinteger(L, i);
			lua_pushcclosure(L, load_embedded, 1);
			lua_rawset(L, -3);
		}
	} else {
		lua_pop(L, 2);   /* ours already: verbs opened again in this state */
	}
	lua_pop(L, 1);
}
