/* The interactive loop: read a chunk (several lines while it is incomplete),
 * run it, print its values, as Lua's lua.c does; with GNU Readline for
 * editing, history across sessions and Tab completion.
 *
 * Completion never runs user code: it walks names with raw lookups only
 * (no __index functions, no metamethods), as luaprompt's authors advise. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/select.h>
#include <readline/readline.h>
#include <readline/history.h>
#include <lua.h>
#include <lauxlib.h>
#include "core.h"
#include "interrupt.h"
#include "lazylib.h"
#include "shell.h"

/* --------------------------------------------------- calling, Ctrl-C */
static lua_State *global_L;
/* The hook that Ctrl-C's replaced (one set by debug.sethook, or the coverage
 * build's line hook): put back once the interruption is raised, or when the
 * call ended before Lua reached it. */
static lua_Hook saved_hook;
static int saved_mask, saved_count;

static void restore_hook(lua_State *L) { lua_sethook(L, saved_hook, saved_mask, saved_count); }

static void stop_hook(lua_State *L, lua_Debug *ar)
{
	(void)ar;
	restore_hook(L);
	luaL_error(L, "interrupted");
}

/* Lua code notices Ctrl-C through a hook at its next instruction; C loops
 * that may block (cq:wait, get_cq_event) notice verbsh_interrupted. */
static void on_sigint(int sig)
{
	(void)sig;
	verbsh_interrupted = 1;
	if (lua_gethook(global_L) != stop_hook) {
		saved_hook = lua_gethook(global_L);
		saved_mask = lua_gethookmask(global_L);
		saved_count = lua_gethookcount(global_L);
	}
	lua_sethook(global_L, stop_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
}

static int msg_handler(lua_State *L)
{
	lua_pushvalue(L, 1);   /* the error itself, for verbs.repl's hooks */
	lua_setfield(L, LUA_REGISTRYINDEX, "verbsh.last_error");
	const char *msg = lua_tostring(L, 1);
	if (msg == NULL) {
		if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
			msg = lua_tostring(L, -1);
		else
			msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
	}
	luaL_traceback(L, L, msg, 1);
	return 1;
}

static int plain_handler(lua_State *L)
{
	/* the error itself (a verbs.error table), for verbs.repl's hooks */
	lua_pushvalue(L, 1);
	lua_setfield(L, LUA_REGISTRYINDEX, "verbsh.last_error");
	if (lua_type(L, 1) != LUA_TSTRING && luaL_callmeta(L, 1, "__tostring") &&
	    lua_type(L, -1) == LUA_TSTRING)
		return 1;
	lua_settop(L, 1);
	return 1;
}

int shell_docall(lua_State *L, int narg, int nres, int traceback)
{
	int base = lua_gettop(L) - narg;
	struct sigaction sa = { .sa_handler = on_sigint }, old;

	lua_pushcfunction(L, traceback ? msg_handler : plain_handler);
	lua_insert(L, base);
	global_L = L;
	verbsh_interrupted = 0;
	/* No SA_RESTART: a blocking poll() or read() returns EINTR at once. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	int status = lua_pcall(L, narg, nres, base);
	sigaction(SIGINT, &old, NULL);
	if (lua_gethook(L) == stop_hook)   /* a Ctrl-C that Lua did not reach: only that hook goes */
		restore_hook(L);
	verbsh_interrupted = 0;
	lua_remove(L, base);
	return status;
}

int shell_report(lua_State *L, int status)
{
	if (status != LUA_OK) {
		const char *msg = lua_tostring(L, -1);
		if (msg == NULL)
			msg = luaL_tolstring(L, -1, NULL);
		fprintf(stderr, "%s\n", msg);
		fflush(stderr);
		lua_settop(L, 0);
	}
	return status;
}

int shell_call_lua(lua_State *L, const char *module, const char *fn, int nargs, int nres)
{
	int status = vprequire(L, module);
	if (status != LUA_OK) {
		lua_insert(L, -1 - nargs);   /* the message under the arguments, */
		lua_pop(L, nargs);           /* which go: the caller's values stay */
		return status;
	}
	lua_getfield(L, -1, fn);
	lua_remove(L, -2);
	lua_insert(L, -1 - nargs);
	return shell_docall(L, nargs, nres, 0);
}

/* GNU Readline is opened when the shell first meets a terminal, not linked:
 * scripts and -e never read a line from it, and loading it (with libtinfo)
 * was a fifth of the start-up of `verbsh -e ''`. Every name repl.c uses is
 * reached through a pointer looked up then; the #defines below keep the
 * code written against readline's own names. */
#ifndef READLINE_SONAME
#define READLINE_SONAME "libreadline.so.8"
#endif
#define RL_SYMBOLS(X) X(add_history) X(append_history) X(history_get) X(history_truncate_file) \
	X(read_history) X(using_history) X(history_base) X(history_length) \
	X(rl_callback_handler_install) X(rl_callback_handler_remove) X(rl_callback_read_char) \
	X(rl_callback_sigcleanup) X(rl_completion_matches) X(rl_redisplay) \
	X(rl_attempted_completion_function) X(rl_attempted_completion_over) X(rl_basic_quote_characters) \
	X(rl_catch_signals) X(rl_completer_word_break_characters) X(rl_completion_append_character) \
	X(rl_end) X(rl_getc_function) X(rl_line_buffer) X(rl_outstream) X(rl_point) X(rl_readline_name)
static struct vlib libreadline = { .soname = READLINE_SONAME };
static struct {
#define RL_POINTER(name) __typeof__(name) *name;
	RL_SYMBOLS(RL_POINTER)
} rl;

/* Loads readline once; 0 (and why, on stderr) when it cannot be. */
static int load_readline(void)
{
	if (rl.add_history)
		return 1;
	if (!vlib_open(&libreadline)) {
		fprintf(stderr, "verbsh: no line editing: %s\n", libreadline.error);
		return 0;
	}
#define RL_LOOKUP(name) rl.name = vlib_sym(&libreadline, #name);
	RL_SYMBOLS(RL_LOOKUP)
	return 1;
}

#define add_history (*rl.add_history)
#define append_history (*rl.append_history)
#define history_get (*rl.history_get)
#define history_truncate_file (*rl.history_truncate_file)
#define read_history (*rl.read_history)
#define using_history (*rl.using_history)
#define history_base (*rl.history_base)
#define history_length (*rl.history_length)
#define rl_callback_handler_install (*rl.rl_callback_handler_install)
#define rl_callback_handler_remove (*rl.rl_callback_handler_remove)
#define rl_callback_read_char (*rl.rl_callback_read_char)
#define rl_callback_sigcleanup (*rl.rl_callback_sigcleanup)
#define rl_completion_matches (*rl.rl_completion_matches)
#define rl_redisplay (*rl.rl_redisplay)
#define rl_attempted_completion_function (*rl.rl_attempted_completion_function)
#define rl_attempted_completion_over (*rl.rl_attempted_completion_over)
#define rl_basic_quote_characters (*rl.rl_basic_quote_characters)
#define rl_catch_signals (*rl.rl_catch_signals)
#define rl_completer_word_break_characters (*rl.rl_completer_word_break_characters)
#define rl_completion_append_character (*rl.rl_completion_append_character)
#define rl_end (*rl.rl_end)
#define rl_getc_function (*rl.rl_getc_function)
#define rl_line_buffer (*rl.rl_line_buffer)
#define rl_outstream (*rl.rl_outstream)
#define rl_point (*rl.rl_point)
#define rl_readline_name (*rl.rl_readline_name)

static int use_readline;
static char history_path[4096];

/* ------------------------------------------------------------- input */
/* Ctrl-C at the prompt drops the line (and an unfinished chunk). Readline
 * runs in callback mode under our own select(), so that a SIGINT (caught
 * without SA_RESTART) ends the wait at once with EINTR. */
static volatile sig_atomic_t prompt_sigint;
static char *cb_line;
static int cb_done;

static void prompt_handler(int sig)
{
	(void)sig;
	prompt_sigint = 1;
}

/* The signal mask of a wait at the prompt: SIGINT let through. */
static sigset_t prompt_waitmask;

/* Readline's own key reader waits in pselect() under the mask readline
 * saved, in which SIGINT is blocked. A Ctrl-C typed right after other keys
 * flushes them from the tty after our pselect() saw them, and readline's
 * read then slept with the SIGINT pending, for good (seen once in 20 runs
 * of the pty test on a loaded machine). Keys are read here instead, under
 * prompt_waitmask; on Ctrl-C this returns NUL, a harmless key (set-mark),
 * and read_line sees prompt_sigint right after. */
static int read_key(FILE *in)
{
	int fd = fileno(in);
	for (;;) {
		fd_set fds;
		FD_ZERO(&fds);
		FD_SET(fd, &fds);
		int r = pselect(fd + 1, &fds, NULL, NULL, NULL, &prompt_waitmask);
		if (r < 0 && errno != EINTR)
			return EOF;
		if (r < 0 || prompt_sigint) {
			if (prompt_sigint)
				return 0;
			continue;
		}
		/* The key pselect saw may be gone by now (a Ctrl-C flushes the
		 * tty's input): a blocking read would then sleep with SIGINT
		 * blocked. Non-blocking, an empty queue is EAGAIN: wait again. */
		unsigned char c;
		int fl = fcntl(fd, F_GETFL);
		if (fl >= 0 && !(fl & O_NONBLOCK))
			fcntl(fd, F_SETFL, fl | O_NONBLOCK);
		ssize_t n = read(fd, &c, 1);
		int saved = errno;
		if (fl >= 0 && !(fl & O_NONBLOCK))
			fcntl(fd, F_SETFL, fl);
		errno = saved;
		if (n == 1)
			return c;
		if (n == 0 || (errno != EINTR && errno != EAGAIN))
			return EOF;
	}
}

static void on_line(char *line)
{
	cb_line = line;
	cb_done = 1;
	rl_callback_handler_remove();
}

/* Reads one line into a malloc'd string (NULL at end of input); *cancelled
 * is set when Ctrl-C dropped the line. */
static char *read_line(const char *prompt, int *cancelled)
{
	*cancelled = 0;
	if (!use_readline) {
		char buf[8192];
		fputs(prompt, stdout);
		fflush(stdout);
		if (!fgets(buf, sizeof buf, stdin))
			return NULL;
		buf[strcspn(buf, "\n")] = 0;
		return strdup(buf);
	}
	struct sigaction sa = { .sa_handler = prompt_handler }, old;
	sigset_t block;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old);
	/* SIGINT is blocked except inside pselect(), so a Ctrl-C that comes
	 * while readline handles a key is not lost: it ends the next wait. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &prompt_waitmask);
	sigdelset(&prompt_waitmask, SIGINT);
	prompt_sigint = 0;
	cb_done = 0;
	cb_line = NULL;
	rl_callback_handler_install(prompt, on_line);
	while (!cb_done) {
		fd_set fds;
		FD_ZERO(&fds);
		FD_SET(STDIN_FILENO, &fds);
		int r = pselect(STDIN_FILENO + 1, &fds, NULL, NULL, NULL, &prompt_waitmask);
		if (r > 0)
			rl_callback_read_char();   /* reads through read_key */
		if (cb_done)
			break;
		if (prompt_sigint) {
			/* As bash: "^C" after the typed text, then a fresh line. The
			 * ^C goes out before the handler is removed, since removing
			 * it resets the terminal with a carriage return (after
			 * bracketed paste's "\e[?2004l"): a ^C written after that
			 * overwrote the prompt ("^Crbsh> partial"). */
			FILE *out = rl_outstream ? rl_outstream : stdout;
			rl_point = rl_end;
			rl_redisplay();
			fputs("^C", out);
			fflush(out);
			rl_callback_sigcleanup();
			rl_callback_handler_remove();
			fputs("\n", stdout);
			fflush(stdout);
			*cancelled = 1;
			break;
		}
	}
	sigprocmask(SIG_UNBLOCK, &block, NULL);
	sigaction(SIGINT, &old, NULL);
	return *cancelled ? strdup("") : cb_line;
}

static const char *get_prompt(lua_State *L, int first)
{
	static char buf[256];
	if (!first)
		return ">> ";
	/* verbs.repl.prompt() lets a lesson show its progress in the prompt. */
	if (shell_call_lua(L, "verbs.repl", "prompt", 0, 1) == LUA_OK && lua_isstring(L, -1))
		snprintf(buf, sizeof buf, "%s", lua_tostring(L, -1));
	else
		snprintf(buf, sizeof buf, "verbsh> ");
	lua_pop(L, 1);
	return buf;
}

static int incomplete(lua_State *L, int status)
{
	static const char eof[] = "<eof>";
	size_t len;
	if (status != LUA_ERRSYNTAX)
		return 0;
	const char *msg = lua_tolstring(L, -1, &len);
	return len >= sizeof eof - 1 && strcmp(msg + len - (sizeof eof - 1), eof) == 0;
}

static void remember(const char *chunk)
{
	if (!use_readline || !*chunk)
		return;
	HIST_ENTRY *last = history_length > 0 ? history_get(history_base + history_length - 1) : NULL;
	if (last && strcmp(last->line, chunk) == 0)
		return;
	add_history(chunk);
	if (history_path[0])
		append_history(1, history_path);
}

/* load_chunk's results besides LUA_OK and the load errors: the input ended,
 * or Ctrl-C dropped the line (nothing to run). Distinct from every LUA_ERR*. */
enum { CHUNK_EOF = -1, CHUNK_CANCELLED = -2 };

/* Leaves a compiled chunk on the stack and returns LUA_OK; or an error
 * message and its status; or returns CHUNK_EOF at end of input. As lua.c: first
 * try "return <line>" so that an expression prints its value. */
/* The chunk as typed and whether it ran as `return <line>`, for
 * verbsh --record (verbs.repl.record_chunk). */
static void keep_chunk(lua_State *L, const char *text, int expr)
{
	lua_pushstring(L, text);
	lua_setfield(L, LUA_REGISTRYINDEX, "verbsh.chunk");
	lua_pushboolean(L, expr);
	lua_setfield(L, LUA_REGISTRYINDEX, "verbsh.chunk_expr");
}

static int load_chunk(lua_State *L)
{
	int cancelled;
	char *line = read_line(get_prompt(L, 1), &cancelled);
	if (!line)
		return CHUNK_EOF;
	if (cancelled) {
		free(line);
		lua_pushliteral(L, "");
		return CHUNK_CANCELLED;
	}
	luaL_Buffer b;
	const char *code = line[0] == '=' ? line + 1 : line;   /* Lua 5.1's "=expr" */
	lua_pushfstring(L, "return %s;", code);
	int status = luaL_loadbuffer(L, lua_tostring(L, -1), lua_rawlen(L, -1), "=stdin");
	if (status == LUA_OK) {
		lua_remove(L, -2);
		remember(line);
		keep_chunk(L, code, 1);
		free(line);
		return LUA_OK;
	}
	lua_pop(L, 2);
	luaL_buffinit(L, &b);
	luaL_addstring(&b, line);
	free(line);
	luaL_pushresult(&b);
	for (;;) {
		size_t len;
		const char *chunk = lua_tolstring(L, -1, &len);
		status = luaL_loadbuffer(L, chunk, len, "=stdin");
		if (!incomplete(L, status))
			break;
		lua_pop(L, 1);
		char *more = read_line(get_prompt(L, 0), &cancelled);
		if (!more || cancelled) {   /* drop the unfinished chunk */
			free(more);
			lua_pop(L, 1);
			if (!more && !cancelled)
				return CHUNK_EOF;
			lua_pushliteral(L, "");
			return CHUNK_CANCELLED;
		}
		lua_pushliteral(L, "\n");
		lua_pushstring(L, more);
		free(more);
		lua_concat(L, 3);
	}
	remember(lua_tostring(L, -2));
	if (status == LUA_OK)
		keep_chunk(L, lua_tostring(L, -2), 0);
	lua_remove(L, -2);
	return status;
}

/* Prints the values on the stack through verbs.pretty. */
static void print_results(lua_State *L)
{
	int n = lua_gettop(L);
	if (n == 0)
		return;
	if (shell_call_lua(L, "verbs.pretty", "print", n, 0) != LUA_OK) {
		fprintf(stderr, "(cannot print: %s)\n", lua_tostring(L, -1));
		lua_settop(L, 0);
	}
}

/* ------------------------------------------------------- completion */
static lua_State *comp_L;
static char **cands;
static size_t ncands, capcands;

static void add_cand(const char *prefix, const char *name, size_t len)
{
	if (ncands + 1 >= capcands) {
		capcands = capcands ? 2 * capcands : 64;
		cands = realloc(cands, capcands * sizeof *cands);
	}
	size_t pl = strlen(prefix);
	char *s = malloc(pl + len + 1);
	memcpy(s, prefix, pl);
	memcpy(s + pl, name, len);
	s[pl + len] = 0;
	cands[ncands++] = s;
}

static void clear_cands(void)
{
	for (size_t i = 0; i < ncands; i++)
		free(cands[i]);
	ncands = 0;
}

static int is_ident(const char *s, size_t len)
{
	if (len == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	for (size_t i = 1; i < len; i++)
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
			return 0;
	return 1;
}

/* Adds the identifier keys of the table at idx that start with word;
 * only_functions for "obj:" completion. Raw iteration only. */
static void add_keys(lua_State *L, int idx, const char *prefix, const char *word, int only_functions)
{
	size_t wl = strlen(word);
	idx = lua_absindex(L, idx);
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		size_t kl;
		if (lua_type(L, -2) == LUA_TSTRING) {
			const char *k = lua_tolstring(L, -2, &kl);
			if (is_ident(k, kl) && strncmp(k, word, wl) == 0 &&
			    (!only_functions || lua_type(L, -1) == LUA_TFUNCTION) &&
			    !(k[0] == '_' && k[1] == '_' && word[0] != '_'))
				add_cand(prefix, k, kl);
		}
		lua_pop(L, 1);
	}
}

/* Adds the strings of the list at idx that start with word (and are not
 * candidates already, when unique is set). Raw access only. */
static void add_list(lua_State *L, int idx, const char *prefix, const char *word, int unique)
{
	size_t wl = strlen(word);
	idx = lua_absindex(L, idx);
	for (lua_Integer i = 1; lua_rawgeti(L, idx, i) == LUA_TSTRING; i++) {
		size_t len;
		const char *s = lua_tolstring(L, -1, &len);
		int dup = 0;
		for (size_t j = 0; unique && j < ncands && !dup; j++)
			dup = strcmp(cands[j], s) == 0;
		if (!dup && strncmp(s, word, wl) == 0)
			add_cand(prefix, s, len);
		lua_pop(L, 1);
	}
	lua_pop(L, 1);   /* the value that ended the list */
}

static int raw_getfield(lua_State *L, int idx, const char *k)
{
	idx = lua_absindex(L, idx);
	lua_pushstring(L, k);
	return lua_rawget(L, idx);
}

/* Adds what can be completed after "value." or "value:": the value's own
 * keys (tables) and its metatable's __methods or __index table. */
static void add_members(lua_State *L, int idx, const char *prefix, const char *word, int colon)
{
	idx = lua_absindex(L, idx);
	if (lua_type(L, idx) == LUA_TTABLE)
		add_keys(L, idx, prefix, word, colon);
	if (lua_getmetatable(L, idx)) {
		/* a verbs object's fields (qp.qp_num), listed in __fields */
		if (!colon) {
			if (raw_getfield(L, -1, "__fields") == LUA_TTABLE)
				add_list(L, -1, prefix, word, 0);
			lua_pop(L, 1);
		}
		if (raw_getfield(L, -1, "__methods") == LUA_TTABLE)
			add_keys(L, -1, prefix, word, colon);
		else {
			lua_pop(L, 1);
			if (raw_getfield(L, -1, "__index") == LUA_TTABLE)
				add_keys(L, -1, prefix, word, colon);
		}
		lua_pop(L, 2);
	}
}

static const char *const keywords[] = {
	"and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if",
	"in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while", NULL
};

/* "a.b.c:me" -> the candidates "a.b.c:method"... Each name before the last
 * separator is looked up raw, from _G down. */
static void complete_expr(lua_State *L, const char *text)
{
	const char *last = NULL;
	for (const char *p = text; *p; p++)
		if (*p == '.' || *p == ':')
			last = p;
	if (!last) {
		size_t wl = strlen(text);
		for (int i = 0; keywords[i]; i++)
			if (strncmp(keywords[i], text, wl) == 0)
				add_cand("", keywords[i], strlen(keywords[i]));
		lua_pushglobaltable(L);
		add_keys(L, -1, "", text, 0);
		lua_pop(L, 1);
		return;
	}
	lua_pushglobaltable(L);
	const char *seg = text;
	while (seg < last) {
		const char *end = seg + strcspn(seg, ".:");
		if (end > last)
			end = last;
		if (!is_ident(seg, end - seg) || lua_type(L, -1) != LUA_TTABLE) {
			lua_pop(L, 1);
			return;
		}
		lua_pushlstring(L, seg, end - seg);
		lua_rawget(L, -2);
		lua_remove(L, -2);
		seg = end + 1;
	}
	size_t plen = last - text + 1;
	char *prefix = malloc(plen + 1);
	memcpy(prefix, text, plen);
	prefix[plen] = 0;
	add_members(L, -1, prefix, last + 1, *last == ':');
	free(prefix);
	lua_pop(L, 1);
}

/* Inside a string literal: the enum and flag names of verbs.enums. What it
 * pushes, the caller pops (never below: on a continuation line the stack
 * holds the chunk typed so far). */
static void complete_enum_name(lua_State *L, const char *text)
{
	lua_getglobal(L, "verbs");
	if (lua_type(L, -1) != LUA_TTABLE)
		return;
	if (raw_getfield(L, -1, "enums") != LUA_TTABLE) {
		/* built on first use (lverbs.c's lazy_index): the module builds it */
		lua_pop(L, 1);
		if (shell_call_lua(L, "verbs.complete", "enums", 0, 1) != LUA_OK || !lua_istable(L, -1))
			return;
	}
	{
		lua_pushnil(L);
		while (lua_next(L, -2)) {
			if (lua_type(L, -1) == LUA_TTABLE)
				add_list(L, -1, "", text, 1);
			lua_pop(L, 1);
		}
	}
}

/* Is position start of the line inside a string literal? */
static int in_string(const char *line, int start)
{
	char quote = 0;
	for (int i = 0; i < start && line[i]; i++) {
		if (quote && line[i] == '\\' && line[i + 1]) {
			i++;
			continue;
		}
		if (!quote && (line[i] == '"' || line[i] == '\''))
			quote = line[i];
		else if (quote && line[i] == quote)
			quote = 0;
	}
	return quote != 0;
}

/* What verbs.complete offers where the word is typed: the keys of the
 * table being typed, or the names of the enum a string fits. Returns 0 when
 * it has nothing special (then the plain completion runs). */
static int complete_verbs(lua_State *L, const char *line, int start, const char *text)
{
	lua_pushlstring(L, line, (size_t)start);
	lua_pushstring(L, text);
	if (shell_call_lua(L, "verbs.complete", "candidates", 2, 1) != LUA_OK || !lua_istable(L, -1)) {
		lua_pop(L, 1);   /* its nil (or message): the other completers start from the caller's stack */
		return 0;
	}
	add_list(L, -1, "", "", 0);
	return 1;
}

static size_t gen_index;

static char *generator(const char *text, int state)
{
	(void)text;
	if (state == 0)
		gen_index = 0;
	return gen_index < ncands ? strdup(cands[gen_index++]) : NULL;
}

static char **attempt_completion(const char *text, int start, int end)
{
	(void)end;
	lua_State *L = comp_L;
	int top = lua_gettop(L);
	clear_cands();
	rl_attempted_completion_over = 1;   /* never fall back to file names */
	if (complete_verbs(L, rl_line_buffer, start, text)) {
		rl_completion_append_character = '\0';
	} else if (in_string(rl_line_buffer, start)) {
		rl_completion_append_character = '\0';
		complete_enum_name(L, text);
	} else {
		rl_completion_append_character = '\0';
		complete_expr(L, text);
	}
	lua_settop(L, top);
	if (ncands == 0)
		return NULL;
	return rl_completion_matches(text, generator);
}

/* ------------------------------------------------------------- loop */
static void init_readline(lua_State *L)
{
	const char *home = getenv("HOME"), *path = getenv("VERBSH_HISTORY");
	comp_L = L;
	rl_readline_name = "verbsh";
	rl_catch_signals = 0;
	rl_getc_function = read_key;
	rl_attempted_completion_function = attempt_completion;
	/* Keep "qp:mo" and "a.b.c" together as one word to complete. */
	rl_completer_word_break_characters = " \t\n\"'`@$><=;|&{}()[],+-*/%^~#";
	rl_basic_quote_characters = "";
	if (path && *path)
		snprintf(history_path, sizeof history_path, "%s", path);
	else if (home && *home)
		snprintf(history_path, sizeof history_path, "%s/.verbsh_history", home);
	if (history_path[0]) {
		using_history();
		if (read_history(history_path) != 0) {
			/* append_history needs the file to exist */
			FILE *f = fopen(history_path, "a");
			if (f)
				fclose(f);
		}
	}
}

/* Appends the chunk that just ran to the --record file, if any. */
static void record_chunk(lua_State *L, int ok)
{
	lua_getfield(L, LUA_REGISTRYINDEX, "verbsh.chunk");
	lua_getfield(L, LUA_REGISTRYINDEX, "verbsh.chunk_expr");
	lua_pushboolean(L, ok);
	if (shell_call_lua(L, "verbs.repl", "record_chunk", 3, 0) != LUA_OK)
		shell_report(L, LUA_ERRRUN);
	lua_settop(L, 0);
}

int shell_repl(lua_State *L)
{
	int lines = 0;
	use_readline = isatty(STDIN_FILENO) && load_readline();
	if (use_readline) {
		init_readline(L);
		printf("verbsh: Lua %s with RDMA verbs. help() explains; Ctrl-D leaves.\n",
		       LUA_VERSION_MAJOR "." LUA_VERSION_MINOR);
	}
	lua_settop(L, 0);
	if (shell_call_lua(L, "verbs.repl", "guard_globals", 0, 0) != LUA_OK)
		lua_settop(L, 0);
	for (;;) {
		int status = load_chunk(L);
		if (status == CHUNK_EOF)
			break;
		lines++;
		if (status == CHUNK_CANCELLED) {
			lua_settop(L, 0);
			continue;
		}
		int compiled = status == LUA_OK;
		if (compiled)
			status = shell_docall(L, 0, LUA_MULTRET, 0);
		int ok = status == LUA_OK;
		if (ok) {
			print_results(L);
			lua_settop(L, 0);
			lua_pushboolean(L, ok);
			lua_pushnil(L);
		} else {
			shell_report(L, status);   /* empties the stack */
			/* the error as raised (the handler kept it), for the hooks:
			 * a lesson counts a verb's error */
			lua_pushboolean(L, ok);
			lua_getfield(L, LUA_REGISTRYINDEX, "verbsh.last_error");
			lua_pushnil(L);   /* not kept past this chunk (it may hold objects) */
			lua_setfield(L, LUA_REGISTRYINDEX, "verbsh.last_error");
		}
		/* Hooks such as the lesson runner's step checker: after_eval(ok, err). */
		if (shell_call_lua(L, "verbs.repl", "after_eval", 2, 0) != LUA_OK)
			shell_report(L, LUA_ERRRUN);
		lua_settop(L, 0);
		if (compiled)
			record_chunk(L, ok);
	}
	if (use_readline) {
		fputc('\n', stdout);
		if (history_path[0])
			history_truncate_file(history_path, 1000);
	}
	fflush(stdout);
	return lines;
}
