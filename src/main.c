/* Placeholder until the shell lands: runs one chunk given with -e. */
#include <stdio.h>
#include <string.h>
#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>
int luaopen_verbs(lua_State *L);
int main(int argc, char **argv)
{
	lua_State *L = luaL_newstate();
	luaL_openlibs(L);
	luaL_requiref(L, "verbs", luaopen_verbs, 1);
	lua_pop(L, 1);
	if (argc == 3 && strcmp(argv[1], "-e") == 0 && luaL_dostring(L, argv[2]) != LUA_OK) {
		fprintf(stderr, "verbsh: %s\n", lua_tostring(L, -1));
		return 1;
	}
	lua_close(L);
	return 0;
}
