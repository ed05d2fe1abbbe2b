/* The "verbs" module: entry point shared by ./verbsh and ./verbs.so. */
#include "verbsh.h"
#include "embedded.h"

int luaopen_verbs(lua_State *L)
{
	embedded_lua_preload(L);
	lua_newtable(L);
	context_open(L);
	pd_open(L);
	cq_open(L);
	qp_open(L);
	srq_open(L);
	venum_open(L);
	lua_setfield(L, -2, "enums");
	vtrace_open(L);
	lua_pushvalue(L, -1);   /* for vargerror's names */
	lua_setfield(L, LUA_REGISTRYINDEX, "verbs.module");
	return 1;
}
