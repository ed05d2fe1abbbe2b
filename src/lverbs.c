/* The "verbs" module: entry point shared by ./verbsh and ./verbs.so. */
#include <string.h>
#include "verbsh.h"
#include "embedded.h"

/* Pushes require(module) (raising as require does). */
void vrequire(lua_State *L, const char *module)
{
	lua_getglobal(L, "require");
	lua_pushstring(L, module);
	lua_call(L, 1, 1);
}

/* Lua modules that verbs.X loads on first use, so that verbs.oob does not
 * pull in LuaSocket for users who never touch it, nor verbs.wire its
 * decoder; and verbs.enums, the name lists of every enum, built when first
 * read (a tenth of start-up else). */
static int lazy_index(lua_State *L)
{
	const char *k = luaL_checkstring(L, 2);
	if (strcmp(k, "enums") == 0) {
		venum_open(L);
		lua_pushvalue(L, -1);
		lua_setfield(L, 1, k);
		return 1;
	}
	if (strcmp(k, "record") == 0 || strcmp(k, "export_c") == 0 || strcmp(k, "trace") == 0) {
		/* verbs.record(on), verbs.export_c(path) and verbs.trace(on):
		 * functions of the recorder's Lua modules. The recorder wraps
		 * verbs.open of this very table (a state may hold two, after
		 * package.loaded.verbs = nil). */
		vrequire(L, "verbs.record");
		lua_getfield(L, -1, "adopt");
		lua_pushvalue(L, 1);
		lua_call(L, 1, 0);
		lua_pop(L, 1);
		vrequire(L, lua_pushfstring(L, "verbs.%s", k));
		lua_getfield(L, -1, k);
		lua_pushvalue(L, -1);
		lua_setfield(L, 1, k);
		return 1;
	}
	if (strcmp(k, "oob") != 0 && strcmp(k, "explain") != 0 && strcmp(k, "wire") != 0)
		return 0;
	vrequire(L, lua_pushfstring(L, "verbs.%s", k));
	if (strcmp(k, "explain") == 0) {
		/* verbs.explain(x) is the module's explain, its result shown as
		 * text at the prompt (verbs.pretty.text_results) */
		vrequire(L, "verbs.pretty");
		lua_getfield(L, -1, "text_results");
		lua_getfield(L, -3, "explain");
		lua_call(L, 1, 1);
	}
	lua_pushvalue(L, -1);
	lua_setfield(L, 1, k);
	return 1;
}

/* The only symbol verbs.so exports (the Makefile hides the rest). */
__attribute__((visibility("default"))) int luaopen_verbs(lua_State *L)
{
	embedded_lua_preload(L);
	lua_newtable(L);
	context_open(L);
	pd_open(L);
	cq_open(L);
	qp_open(L);
	srq_open(L);
	cm_open(L);
	wr_open(L);
	wc_open(L);
	cq_ex_open(L);
	wait_open(L);
	fields_open(L);
	sysinfo_open(L);
	capture_open(L);
	suggest_open(L);
	warn_open(L);
	verrno_open(L);
	lua_pushvalue(L, -1);   /* for vargerror's names */
	lua_setfield(L, LUA_REGISTRYINDEX, "verbs.module");
	lua_newtable(L);
	lua_pushcfunction(L, lazy_index);
	lua_setfield(L, -2, "__index");
	/* what lazy_index answers, for the shell's Tab completion (as an object's __fields) */
	static const char *const lazy[] = { "enums", "oob", "explain", "wire", "record", "export_c", "trace" };
	int nlazy = (int)(sizeof lazy / sizeof lazy[0]);
	lua_createtable(L, nlazy, 0);
	for (int i = 0; i < nlazy; i++) {
		lua_pushstring(L, lazy[i]);
		lua_rawseti(L, -2, i + 1);
	}
	lua_setfield(L, -2, "__fields");
	lua_setmetatable(L, -2);
	return 1;
}
