/* The Lua half of verbsh (the files in lua/), compiled in by scripts/embed.lua. */
#ifndef VERBSH_EMBEDDED_H
#define VERBSH_EMBEDDED_H
#include <stddef.h>

struct embedded_lua {
	const char *name;   /* module name: file name without ".lua" */
	const char *source;
	size_t len;
};

/* Terminated by an entry whose name is NULL. */
extern const struct embedded_lua embedded_lua[];

/* Makes every embedded file package.preload["verbs.<name>"] (through the
 * preload table's __index, when first required), so that
 * require "verbs.pretty" finds lua/pretty.lua in the binary. */
struct lua_State;
void embedded_lua_preload(struct lua_State *L);
#endif
