/* Loads verbs.so into two independent Lua states, uses both, closes the
 * first and goes on with the second: nothing of the object layer may be
 * shared between states (issue 18). Each state runs states.lua with its own
 * name; the device part runs when RXE_DEV is set.
 *   two_states DIR_OF_VERBS_SO PATH_OF_STATES_LUA */
#include <stdio.h>
#include <stdlib.h>
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

static lua_State *new_state(const char *so_dir, const char *script, const char *name)
{
	lua_State *L = luaL_newstate();
	luaL_openlibs(L);
	lua_pushfstring(L, "%s/?.so;", so_dir);
	lua_setglobal(L, "SO_PATH");
	lua_pushstring(L, name);
	lua_setglobal(L, "STATE");
	if (luaL_loadfile(L, script) != LUA_OK) {
		fprintf(stderr, "%s\n", lua_tostring(L, -1));
		exit(2);
	}
	lua_setglobal(L, "step");   /* called once per phase: step("open"), step("use"), ... */
	return L;
}

static void run(lua_State *L, const char *phase)
{
	lua_getglobal(L, "step");
	lua_pushstring(L, phase);
	if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
		fprintf(stderr, "phase %s: %s\n", phase, luaL_tolstring(L, -1, NULL));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: two_states DIR_OF_VERBS_SO STATES_LUA\n");
		return 2;
	}
	lua_State *a = new_state(argv[1], argv[2], "a"), *b = new_state(argv[1], argv[2], "b");
	run(a, "open");
	run(b, "open");
	run(a, "use");
	run(a, "trace_on");   /* a traces; b's verbs must not print (the switch is per state) */
	run(b, "use");
	run(a, "trace_off");
	lua_close(a);   /* finalizes a's objects; b's must not notice */
	printf("closed state a\n");
	run(b, "after");
	lua_close(b);
	printf("two states: ok\n");
	return 0;
}
