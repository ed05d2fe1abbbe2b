/* verbsh: arguments, scripts and the start of the REPL. It behaves like
 * Lua's own lua.c, so a Lua user feels at home: -e, -i, -, a script with
 * `arg`, errors with a traceback and exit 1. On top of that: the verbs
 * module as the global `verbs`, -d DEV, and --lesson. */
#include <ctype.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>
#include "core.h"
#include "shell.h"

int luaopen_verbs(lua_State *L);

static const char *progname = "verbsh";

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s [options] [script [args...]]\n"
		"An interactive shell for RDMA verbs (Lua 5.4 with the verbs module).\n"
		"  -e CODE          run CODE (before a script, or before --lesson, --doctor,\n"
		"                   ... : -e 'verbs.trace(true)' --lesson 3 shows its C calls)\n"
		"  -i               enter the interactive shell after running the script\n"
		"  -d DEV           use RDMA device DEV (sets VERBSH_DEVICE for verbs.open())\n"
		"  -                run the script on standard input\n"
		"  --lesson [NAME]  list the lessons, or start one (NAME or number)\n"
		"  --lesson NAME --auto\n"
		"                   run a lesson's model solutions and check every step\n"
		"  --doctor [--json]\n"
		"                   check what RDMA needs on this host (kernel, provider,\n"
		"                   devices, GIDs, MTU, memlock, ...): ok/warn/fail lines\n"
		"                   with the fix; exit 0 when the lessons can run, else 1\n"
		"  --doctor --vm [--class GROUP:PORT]\n"
		"                   is this PC ready for the VM lab: qemu, KVM or TCG, the\n"
		"                   cache, a real boot with rxe0 ACTIVE, the class's UDP port\n"
		"                   and group; exit 0 when a seat can start here\n"
		"  --progress [--json]\n"
		"                   the lessons and steps passed on this machine (or seat),\n"
		"                   and when, per seat: passed, skipped, checked by --auto\n"
		"  --room [--class GROUP:PORT | --listen ADDR:PORT]\n"
		"                   the teacher's view: collect the seats' progress live,\n"
		"                   write room.json and room.html (--room --help)\n"
		"  --room-plan N --class GROUP:PORT\n"
		"                   print a handout per student (seat, partner, commands)\n"
		"  --export-c OUT.c run the script (or -e code, or -i session) with every verb\n"
		"                   call recorded, then write it as a C program that replays\n"
		"                   the calls and checks each outcome (also after an error)\n"
		"  --record FILE    save the chunks typed at the prompt to FILE, a script\n"
		"                   that `verbsh FILE` replays\n"
		"  -v, --version    show the version\n"
		"  -h, --help       this text\n"
		"  --               stop handling options\n"
		"With no script and no -e, verbsh reads the script from standard input\n"
		"when it is not a terminal, and opens the interactive shell when it is.\n"
		"In the shell, help() explains the objects and how their names map to C.\n",
		progname);
}

/* ------------------------------------------ a shell with no terminal */
/* verbsh was to be interactive, but its standard input is not a terminal
 * and gave nothing: run without --tty, scripts/rxe-vm gives its command
 * /dev/null, and the shell or lesson would end at once, in silence. Says
 * how to get a terminal; returns the exit status (1). */
/* Writes arg as one shell word, quoted only when it needs it ('a b' ->
 * 'a b', it's -> 'it'\''s'), so that the command printed can be pasted.
 * in_dq: the word goes inside "..." (make's ARGS="..."), where ", $, `
 * and \ are escaped as well. */
static void put_word(const char *arg, bool in_dq)
{
	bool plain = *arg != '\0';
	for (const char *c = arg; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("_./:=@%+,-", *c))
			plain = false;
	if (plain) {
		fputs(arg, stderr);
		return;
	}
	fputc('\'', stderr);
	for (const char *c = arg; *c; c++) {
		if (*c == '\'')
			fputs("'\\''", stderr);
		else if (in_dq && strchr("\"$`\\", *c))
			fprintf(stderr, "\\%c", *c);
		else
			fputc(*c, stderr);
	}
	fputc('\'', stderr);
}

static int no_terminal(int argc, char **argv, const char *what)
{
	fprintf(stderr, "%s: %s needs you at a terminal, but standard input is not one and had nothing"
		" to read.\n", progname, what);
	if (getenv("RXE_VM")) {
		/* inside the micro-VM: rxe-vm runs commands without a terminal unless told */
		fprintf(stderr, "  scripts/rxe-vm runs a command without a terminal unless given --tty:\n"
			"    scripts/rxe-vm --tty --");
		for (int i = 0; i < argc; i++) {
			fputc(' ', stderr);
			put_word(argv[i], false);
		}
		fprintf(stderr, "\n  or simply: make run%s", argc > 1 ? " ARGS=\"" : "");
		for (int i = 1; i < argc; i++) {
			put_word(argv[i], true);
			fputs(i + 1 < argc ? " " : "\"", stderr);
		}
		fputc('\n', stderr);
	} else {
		fprintf(stderr, "  Run it from a terminal (make run opens one on a device, in the rxe micro-VM if"
			" needed),\n  or give it something to run: %s FILE.lua, %s -e CODE, or a script on"
			" standard input.\n", progname, progname);
	}
	fflush(stderr);
	return 1;
}

/* The REPL, or the message above when it could read nothing from a non-terminal. */
static void repl_or_explain(lua_State *L, int argc, char **argv, const char *what)
{
	if (shell_repl(L) == 0 && !isatty(STDIN_FILENO)) {
		lua_pushinteger(L, no_terminal(argc, argv, what));
		lua_setfield(L, LUA_REGISTRYINDEX, "verbsh.exit");
	}
}

/* ------------------------------------------------------------ setup */
/* os.exit closes the state by default, so that every verbs object is torn
 * down (children first) as on a normal end; `lesson`, help() and doctor()
 * work before their modules are loaded. In C rather than a Lua chunk: its
 * parse was a fifteenth of the start-up of `verbsh -e ''`. */
static int os_exit(lua_State *L)
{
	lua_settop(L, 2);
	if (lua_isnil(L, 2)) {
		lua_pushboolean(L, 1);
		lua_replace(L, 2);
	}
	lua_pushvalue(L, lua_upvalueindex(1));   /* Lua's own os.exit */
	lua_insert(L, 1);
	lua_call(L, 2, LUA_MULTRET);
	return lua_gettop(L);
}

/* require(upvalue 1)[upvalue 2], or its field k on top when given */
static void push_module_field(lua_State *L)
{
	vrequire(L, lua_tostring(L, lua_upvalueindex(1)));
	lua_getfield(L, -1, lua_tostring(L, lua_upvalueindex(2)));
	lua_remove(L, -2);
}

/* help(...), doctor(...), lesson(...): the module's function on the same arguments */
static int call_module_fn(lua_State *L)
{
	int first = lua_toboolean(L, lua_upvalueindex(3)) ? 2 : 1;   /* lesson(...) is a __call: skip self */
	push_module_field(L);
	lua_insert(L, first);
	lua_call(L, lua_gettop(L) - first, LUA_MULTRET);
	return lua_gettop(L) - first + 1;
}

/* lesson.x: the lesson module's x, looked up raw, while the global lesson exists */
static int lesson_index(lua_State *L)
{
	lua_getglobal(L, "lesson");
	if (lua_isnil(L, -1)) {
		lua_pushboolean(L, 0);
		return 1;
	}
	vrequire(L, "verbs.lesson");
	lua_pushvalue(L, 2);
	lua_rawget(L, -2);
	return 1;
}

static void push_module_fn(lua_State *L, const char *module, const char *fn, int is_call)
{
	lua_pushstring(L, module);
	lua_pushstring(L, fn);
	lua_pushboolean(L, is_call);
	lua_pushcclosure(L, call_module_fn, 3);
}

static void prelude(lua_State *L)
{
	lua_getglobal(L, "os");
	lua_getfield(L, -1, "exit");
	lua_pushcclosure(L, os_exit, 1);
	lua_setfield(L, -2, "exit");
	lua_pop(L, 1);
	lua_newtable(L);                          /* lesson */
	lua_createtable(L, 0, 2);
	push_module_fn(L, "verbs.lesson", "lesson", 1);
	lua_setfield(L, -2, "__call");
	lua_pushcfunction(L, lesson_index);
	lua_setfield(L, -2, "__index");
	lua_setmetatable(L, -2);
	lua_setglobal(L, "lesson");
	push_module_fn(L, "verbs.help", "help", 0);
	lua_setglobal(L, "help");
	push_module_fn(L, "verbs.doctor", "doctor", 0);
	lua_setglobal(L, "doctor");
	push_module_fn(L, "verbs.partner", "partner", 0);
	lua_setglobal(L, "partner");
}

static void create_arg_table(lua_State *L, char **argv, int argc, int script)
{
	lua_createtable(L, argc - script - 1, script + 1);
	for (int i = 0; i < argc; i++) {
		lua_pushstring(L, argv[i]);
		lua_rawseti(L, -2, i - script);
	}
	lua_setglobal(L, "arg");
}

static int run_chunk(lua_State *L, int status)
{
	if (status == LUA_OK)
		status = shell_docall(L, 0, 0, 1);
	return shell_report(L, status);
}

/* Runs the script with its arguments (those after it in argv). */
static int run_script(lua_State *L, char **argv, int argc, int script)
{
	const char *fname = argv[script];
	if (strcmp(fname, "-") == 0 && (script == 0 || strcmp(argv[script - 1], "--") != 0))
		fname = NULL;   /* stdin */
	int status = luaL_loadfile(L, fname);
	if (status == LUA_OK) {
		int n = 0;
		for (int i = script + 1; i < argc; i++, n++)
			lua_pushstring(L, argv[i]);
		status = shell_docall(L, n, LUA_MULTRET, 1);
	}
	return shell_report(L, status);
}

static int version(lua_State *L)
{
	if (vprequire(L, "verbs.version") == LUA_OK)
		printf("%s (%s, libibverbs)\n", lua_tostring(L, -1), LUA_RELEASE);
	lua_settop(L, 0);
	return 0;
}

struct options {
	int interactive, version, help, lesson, doctor, progress, room, plan, script, nexec;
	const char *device, *record, *export_c;
};

/* Returns the index of the script in argv (0 if none), or -1 on a bad option. */
static int parse(int argc, char **argv, struct options *o)
{
	int i;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (a[0] != '-')
			return i;
		if (strcmp(a, "-") == 0)
			return i;
		if (strcmp(a, "--") == 0)
			return i + 1 < argc ? i + 1 : 0;
		if (strcmp(a, "-i") == 0)
			o->interactive = 1;
		else if (strcmp(a, "-v") == 0 || strcmp(a, "--version") == 0)
			o->version = 1;
		else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
			o->help = 1;
		else if (strcmp(a, "--lesson") == 0) {
			o->lesson = i;
			return 0;
		} else if (strcmp(a, "--doctor") == 0) {
			o->doctor = i;
			return 0;
		} else if (strcmp(a, "--progress") == 0) {
			o->progress = i;
			return 0;
		} else if (strcmp(a, "--room") == 0) {
			o->room = i;
			return 0;
		} else if (strcmp(a, "--room-plan") == 0) {
			o->plan = i;
			return 0;
		} else if (strcmp(a, "--record") == 0) {
			if (++i >= argc) {
				fprintf(stderr, "%s: '--record' needs a file name\n", progname);
				return -1;
			}
			o->record = argv[i];
		} else if (strcmp(a, "--export-c") == 0) {
			if (++i >= argc) {
				fprintf(stderr, "%s: '--export-c' needs a file name (OUT.c)\n", progname);
				return -1;
			}
			o->export_c = argv[i];
		} else if (strcmp(a, "-e") == 0 || strcmp(a, "-d") == 0) {
			if (++i >= argc) {
				fprintf(stderr, "%s: '%s' needs an argument\n", progname, a);
				return -1;
			}
			if (a[1] == 'e')
				o->nexec++;
			else
				o->device = argv[i];
		} else if (strncmp(a, "-e", 2) == 0)
			o->nexec++;
		else if (strncmp(a, "-d", 2) == 0)
			o->device = a + 2;
		else {
			fprintf(stderr, "%s: unknown option '%s'\n", progname, a);
			return -1;
		}
	}
	return 0;
}

/* Runs the -e chunks, in order. */
static int run_exec(lua_State *L, int argc, char **argv, int last)
{
	for (int i = 1; i < last; i++) {
		const char *code = NULL;
		if (strcmp(argv[i], "-e") == 0)
			code = argv[++i];
		else if (strcmp(argv[i], "-d") == 0)
			i++;
		else if (strncmp(argv[i], "-e", 2) == 0)
			code = argv[i] + 2;
		if (code && run_chunk(L, luaL_loadbuffer(L, code, strlen(code), "=(command line)")) != LUA_OK)
			return 0;
	}
	(void)argc;
	return 1;
}

/* Everything runs in protected mode, as in lua.c. */
static int pmain(lua_State *L)
{
	int argc = (int)lua_tointeger(L, 1);
	char **argv = lua_touserdata(L, 2);
	struct options o = { 0 };
	int script = parse(argc, argv, &o);

	if (script < 0) {
		usage(stderr);
		return 0;
	}
	if (o.help) {
		usage(stdout);
		lua_pushboolean(L, 1);
		return 1;
	}
	if (o.device)
		setenv("VERBSH_DEVICE", o.device, 1);
	luaL_openlibs(L);
	luaL_requiref(L, "verbs", luaopen_verbs, 1);
	lua_pop(L, 1);
	prelude(L);
	if (o.version) {
		version(L);
		lua_pushboolean(L, 1);
		return 1;
	}
	/* As lua.c: arg[0] is the script (or the program, without one). */
	create_arg_table(L, argv, argc, script);

	if (o.lesson || o.doctor || o.progress || o.room || o.plan) {
		int first = o.lesson ? o.lesson : o.doctor ? o.doctor : o.progress ? o.progress :
			    o.room ? o.room : o.plan;
		/* A mode runs alone: -i, --record and --export-c before it would
		 * be dropped in silence. -e runs first (verbs.trace(true) shows a
		 * lesson's calls as C). */
		const char *alone = o.interactive ? "-i" : o.record ? "--record" : o.export_c ? "--export-c" : NULL;
		if (alone) {
			fprintf(stderr, "%s: '%s' does not go with '%s' (before it, only -e CODE and -d DEV)\n",
				progname, alone, argv[first]);
			return 0;
		}
		if (!run_exec(L, argc, argv, first))
			return 0;
		const char *module = o.doctor ? "verbs.doctor" : o.room ? "verbs.room" :
				     o.plan ? "verbs.room_plan" : "verbs.lesson";
		lua_createtable(L, argc, 0);
		for (int i = first + 1; i < argc; i++) {
			lua_pushstring(L, argv[i]);
			lua_rawseti(L, -2, i - first);
		}
		int status = shell_call_lua(L, module, o.progress ? "progress_main" : "main", 1, 1);
		if (shell_report(L, status) != LUA_OK)
			return 0;
		if (!lua_isnil(L, -1)) {
			/* the lesson finished (auto mode, or just the list) */
			lua_pushinteger(L, lua_tointeger(L, -1));
			lua_setfield(L, LUA_REGISTRYINDEX, "verbsh.exit");
			lua_pushboolean(L, 1);
			return 1;
		}
		lua_pop(L, 1);
		repl_or_explain(L, argc, argv, "the lesson");
		lua_pushboolean(L, 1);
		return 1;
	}
	if (o.record) {
		lua_pushstring(L, o.record);
		if (shell_report(L, shell_call_lua(L, "verbs.repl", "record_open", 1, 0)) != LUA_OK)
			return 0;
	}
	if (o.export_c) {
		lua_pushstring(L, o.export_c);
		if (shell_report(L, shell_call_lua(L, "verbs.export_c", "start", 1, 0)) != LUA_OK)
			return 0;
	}
	/* A run that ends in an error is exported too: it is often the bug. */
	int ran = run_exec(L, argc, argv, script ? script : argc) &&
		  (!script || run_script(L, argv, argc, script) == LUA_OK);
	if (o.export_c && (!ran || !o.interactive) &&
	    shell_report(L, shell_call_lua(L, "verbs.export_c", "finish", 0, 0)) != LUA_OK)
		return 0;
	if (!ran)
		return 0;
	if (o.interactive) {
		repl_or_explain(L, argc, argv, "the interactive shell (-i)");
		if (o.export_c && shell_report(L, shell_call_lua(L, "verbs.export_c", "finish", 0, 0)) != LUA_OK)
			return 0;
	}
	else if (!script && !o.nexec) {
		int c;
		if (isatty(STDIN_FILENO))
			shell_repl(L);
		else if ((c = getc(stdin)) == EOF) {   /* an empty script is more likely a missing terminal */
			lua_pushinteger(L, no_terminal(argc, argv, "the interactive shell"));
			lua_setfield(L, LUA_REGISTRYINDEX, "verbsh.exit");
		} else if (ungetc(c, stdin), run_chunk(L, luaL_loadfile(L, NULL)) != LUA_OK)
			return 0;
	}
	lua_pushboolean(L, 1);
	return 1;
}

#ifdef VERBSH_COVERAGE
/* Lua line coverage, for tests/mutate-coverage's test selection; compiled
 * only into build/cov/verbsh (make ... CFLAGS=-DVERBSH_COVERAGE). With
 * VERBSH_LUA_COVERAGE=DIR, a line hook keeps every (chunk, line) of lua/ and
 * lessons/ that runs, and exit appends them to DIR/lua.PID. Coroutines
 * inherit the hook. Chunks are keyed by their name's text, not its address:
 * a collected chunk's name may be freed and its address reused. */
#include <stdint.h>
#define COV_SLOTS (1u << 18)
static struct cov_slot { char *src; int line; uint32_t h; } *cov;

static uint32_t cov_hash(const char *s)
{
	uint32_t h = 2166136261u;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void cov_hook(lua_State *L, lua_Debug *ar)
{
	if (!lua_getinfo(L, "S", ar) || !(strstr(ar->source, "lua/") || strstr(ar->source, "lessons/")))
		return;
	uint32_t h = cov_hash(ar->source);
	for (uint32_t i = (h ^ (uint32_t)ar->currentline * 2654435761u) & (COV_SLOTS - 1);; i = (i + 1) & (COV_SLOTS - 1)) {
		struct cov_slot *c = &cov[i];
		if (!c->src) {
			c->src = strdup(ar->source), c->line = ar->currentline, c->h = h;
			return;
		}
		if (c->h == h && c->line == ar->currentline && strcmp(c->src, ar->source) == 0)
			return;
	}
}

static void cov_write(void)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/lua.%ld", getenv("VERBSH_LUA_COVERAGE"), (long)getpid());
	FILE *f = fopen(path, "a");
	if (!f)
		return;
	for (uint32_t i = 0; i < COV_SLOTS; i++)
		if (cov[i].src)
			fprintf(f, "%s\t%d\n", cov[i].src, cov[i].line);
	fclose(f);
}

static void cov_start(lua_State *L)
{
	if (!getenv("VERBSH_LUA_COVERAGE") || !(cov = calloc(COV_SLOTS, sizeof *cov)))
		return;
	lua_sethook(L, cov_hook, LUA_MASKLINE, 0);
	atexit(cov_write);
}
#endif

int main(int argc, char **argv)
{
	if (argv[0] && argv[0][0])
		progname = argv[0];
	lua_State *L = luaL_newstate();
	if (!L) {
		fprintf(stderr, "%s: cannot create the Lua state: not enough memory\n", progname);
		return EXIT_FAILURE;
	}
#ifdef VERBSH_COVERAGE
	cov_start(L);
#endif
	lua_pushcfunction(L, pmain);
	lua_pushinteger(L, argc);
	lua_pushlightuserdata(L, argv);
	int status = lua_pcall(L, 2, 1, 0);
	int ok = status == LUA_OK && lua_toboolean(L, -1);
	if (status != LUA_OK)
		shell_report(L, status);
	int code = ok ? EXIT_SUCCESS : EXIT_FAILURE;
	if (lua_getfield(L, LUA_REGISTRYINDEX, "verbsh.exit") == LUA_TNUMBER)
		code = (int)lua_tointeger(L, -1);
	/* Closing the state finalizes every verbs object, children first. */
	lua_close(L);
	return code;
}

#ifdef VERBSH_COVERAGE
/* A process that a test ends with a signal (the room server, a partner: kill
 * or TERM) never reaches exit, where the Lua lines and gcc's counters are
 * written, so its lines would look unrun to tests/mutate-coverage. Here
 * (only in build/cov/verbsh, and below main so that the other builds' lines
 * do not move) SIGTERM, SIGINT and SIGHUP write both, then the process dies
 * by the same signal as before. A disposition inherited as ignored stays so;
 * a handler set later (the shell's Ctrl-C) replaces this one as before. The
 * writing is not async-signal-safe; a coverage run can afford that. */
void __gcov_dump(void);

static void cov_die(int sig)
{
	if (cov)
		cov_write();
	__gcov_dump();
	signal(sig, SIG_DFL);
	raise(sig);   /* blocked in this handler: delivered, by default, as it returns */
}

__attribute__((constructor)) static void cov_catch(void)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
		struct sigaction old, sa = { .sa_handler = cov_die };
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			sigaction(sigs[i], &sa, NULL);
	}
}
#endif
