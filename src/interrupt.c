#include "interrupt.h"
#include <lauxlib.h>

volatile sig_atomic_t verbsh_interrupted;

void verbsh_check_interrupt(lua_State *L)
{
	if (verbsh_interrupted) {
		verbsh_interrupted = 0;
		luaL_error(L, "interrupted");
	}
}
