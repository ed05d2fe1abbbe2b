/* The "verbs" module: entry point shared by ./verbsh and ./verbs.so. */
#include <lua.h>
#include <lauxlib.h>
#include "embedded.h"

int luaopen_verbs(lua_State *L)
{
	embedded_lua_preload(L);
	lua_newtable(L);
	return 1;
}
