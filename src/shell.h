/* The shell around the verbs module: main.c (arguments, scripts) uses
 * repl.c (calls into Lua under Ctrl-C, the interactive loop, Readline,
 * completion), never the reverse. */
#ifndef VERBSH_SHELL_H
#define VERBSH_SHELL_H
#include <lua.h>

/* Calls the function below its narg arguments like lua_pcall, under a
 * message handler that adds a traceback (when traceback is set) and with
 * Ctrl-C interrupting it. */
int shell_docall(lua_State *L, int narg, int nres, int traceback);
/* Prints the error on top of the stack (if status is not LUA_OK) to stderr,
 * through its __tostring for error objects; returns status. */
int shell_report(lua_State *L, int status);
/* Calls require(name)[fn](...) with nargs arguments on the stack, in
 * protected mode; leaves nres results. Returns a lua status. */
int shell_call_lua(lua_State *L, const char *module, const char *fn, int nargs, int nres);
/* The interactive loop, until end of input. Returns the number of lines read. */
int shell_repl(lua_State *L);
#endif
