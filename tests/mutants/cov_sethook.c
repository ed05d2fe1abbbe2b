/* lua_sethook for the coverage build of tests/mutate-coverage, which compiles
 * verbsh with -Dlua_sethook=cov_sethook and links this file: a shell that
 * clears every hook at the end of each call it makes (src/repl.c before
 * 2026-11-26 did) would drop the line hook of -DVERBSH_COVERAGE after the
 * first call, and the map would miss what runs later (the REPL's chunks,
 * --export-c's finish). Here a clear puts the line hook back. Nothing else
 * is built with it: ./verbsh and the ASan build call Lua's own. */
#include <lua.h>

static lua_Hook line_hook;
static int line_mask, line_count;

void cov_sethook(lua_State *L, lua_Hook f, int mask, int count);
void cov_sethook(lua_State *L, lua_Hook f, int mask, int count)
{
	if (!line_hook && f && (mask & LUA_MASKLINE))   /* the first line hook: the coverage one */
		line_hook = f, line_mask = mask, line_count = count;
	if (!f && line_hook)
		f = line_hook, mask = line_mask, count = line_count;
	lua_sethook(L, f, mask, count);
}
