/* Ctrl-C inside long-running C code.
 *
 * Lua's own interrupt (a count hook set from the signal handler, as lua.c
 * does) only fires between Lua instructions, so a C loop such as cq:wait()
 * or a blocking read of a completion channel would never see it. The shell's
 * SIGINT handler therefore also sets this flag, and every C loop that may
 * block polls it through verbsh_check_interrupt(). */
#ifndef VERBSH_INTERRUPT_H
#define VERBSH_INTERRUPT_H
#include <signal.h>
#include <lua.h>

extern volatile sig_atomic_t verbsh_interrupted;

/* Raises the Lua error "interrupted" (and clears the flag) if Ctrl-C was
 * pressed since the last check. */
void verbsh_check_interrupt(lua_State *L);
#endif
