/* Event-driven programs: one wait over every file descriptor that can wake
 * them, the way an epoll loop does, and the CPU time that saves.
 *
 *   local ready = verbs.wait_fds({ channel, cm_channel, ctx, sock }, 1000)
 *   for _, what in ipairs(ready) do ... end      -- the entries that are readable
 *
 * An entry is a completion channel (channel.fd), an rdma_cm event channel,
 * a device context (its async_fd), an rdma_cm id (id->channel->fd: for an
 * id of create_ep, the channel librdmacm keeps for it, readable when the
 * peer disconnected), anything with a getfd() method (a LuaSocket socket),
 * or a plain integer fd. The wait is poll(2) in slices of
 * at most 100 ms that check for Ctrl-C, so it is always interruptible.
 *
 * verbs.getrusage() is getrusage(RUSAGE_SELF), for measuring what busy
 * polling costs against sleeping in the kernel. (luaposix has it, but
 * Debian 12's lua-posix is not built for Lua 5.4.) */
#include <errno.h>
#include <poll.h>
#include <time.h>
#include <sys/resource.h>
#include <rdma/rdma_cma.h>
#include "verbsh.h"
#include "interrupt.h"

#define MAX_FDS 64

/* The fd of entry idx of the list at arg, or a Lua error naming the entry. */
static int entry_fd(lua_State *L, int arg, int idx, int i)
{
	struct vnode *n;
	if (lua_isinteger(L, idx)) {
		lua_Integer fd = lua_tointeger(L, idx);
		if (fd < 0 || fd > 0x7fffffff)
			vargerror(L, arg, lua_pushfstring(L, "[%d]: %I is not a file descriptor", i, fd));
		return (int)fd;
	}
	if ((n = vobj_test(L, idx, &vc_channel)) || (n = vobj_test(L, idx, &vc_cm_channel)) ||
	    (n = vobj_test(L, idx, &vc_context))) {
		if (!n->h)   /* named as the list's entry, not as a stack slot */
			vargerror(L, arg, lua_pushfstring(L, "[%d]: %s is %s", i, n->cls->kind, vobj_gone(n->cls)));
		if (n->cls == &vc_channel)
			return ((struct ibv_comp_channel *)n->h)->fd;
		if (n->cls == &vc_cm_channel)
			return ((struct rdma_event_channel *)n->h)->fd;
		return ((struct ibv_context *)n->h)->async_fd;
	}
	if ((n = vobj_test(L, idx, &vc_cm_id))) {
		struct rdma_cm_id *id = n->h;
		if (!id)
			vargerror(L, arg, lua_pushfstring(L, "[%d]: cm_id is %s", i, vobj_gone(n->cls)));
		if (!id->channel)   /* librdmacm always gives one (a sync id gets its own); C would crash on NULL */
			vargerror(L, arg, lua_pushfstring(L, "[%d]: this cm_id has no event channel (id->channel is NULL)", i));
		return id->channel->fd;
	}
	/* Another verbs object has no fd to wait on; asking it for getfd would
	 * only raise its own "no field" error. */
	bool ours = false;
	const char *what = luaL_typename(L, idx);
	if (lua_type(L, idx) == LUA_TUSERDATA && luaL_getmetafield(L, idx, "__name") != LUA_TNIL) {
		ours = lua_type(L, -1) == LUA_TSTRING && strncmp(lua_tostring(L, -1), "verbs.", 6) == 0;
		if (ours)
			what = lua_tostring(L, -1);   /* left on the stack: the error below ends the call */
		else
			lua_pop(L, 1);
	}
	if (!ours && luaL_getmetafield(L, idx, "__index") != LUA_TNIL) {   /* a LuaSocket object: sock:getfd() */
		lua_pop(L, 1);
		if (lua_getfield(L, idx, "getfd") == LUA_TFUNCTION) {
			lua_pushvalue(L, idx);
			lua_call(L, 1, 1);
			int isnum;   /* LuaSocket gives the fd as a float */
			lua_Integer fd = lua_tointegerx(L, -1, &isnum);
			if (isnum && fd >= 0 && fd <= 0x7fffffff) {
				lua_pop(L, 1);
				return (int)fd;
			}
			vargerror(L, arg, lua_pushfstring(L, "[%d]: its getfd() gave no open descriptor (closed?)", i));
		}
		lua_pop(L, 1);
	}
	vargerror(L, arg, lua_pushfstring(L, "[%d]: a comp_channel, cm_channel, context, cm_id, socket (getfd) "
					     "or integer fd expected, got %s", i, what));
	return -1;
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* verbs.wait_fds(list [, timeout_ms]) -> the list of entries that are
 * readable (empty after the timeout; none: wait forever). */
static int l_wait_fds(lua_State *L)
{
	struct pollfd p[MAX_FDS];
	vchecktable(L, 1);
	double timeout = lua_isnoneornil(L, 2) ? -1 : (double)marsh_check_uint(L, 2, 2, 0, "timeout_ms");
	int n = (int)lua_rawlen(L, 1);
	if (n < 1)
		return vargerror(L, 1, "an empty list: nothing could ever wake the wait");
	if (n > MAX_FDS)
		return vargerror(L, 1, lua_pushfstring(L, "%d entries, more than verbsh's %d", n, MAX_FDS));
	for (int i = 0; i < n; i++) {
		lua_rawgeti(L, 1, i + 1);
		p[i] = (struct pollfd){ .fd = entry_fd(L, 1, lua_gettop(L), i + 1), .events = POLLIN };
		lua_pop(L, 1);
	}
	double t0 = now_ms();
	int r;
	for (;;) {
		int slice = 100;
		if (timeout >= 0) {
			double left = timeout - (now_ms() - t0);
			slice = left <= 0 ? 0 : left < 100 ? (int)left + 1 : 100;
		}
		r = poll(p, (nfds_t)n, slice);
		if (r < 0 && errno != EINTR && errno != EAGAIN)
			return vraise(L, "poll", errno, 0, 0);
		verbsh_check_interrupt(L);
		if (r > 0 || (timeout >= 0 && now_ms() - t0 >= timeout))
			break;
	}
	lua_createtable(L, r > 0 ? r : 0, 0);
	int k = 0;
	for (int i = 0; r > 0 && i < n; i++) {
		if (p[i].revents & POLLNVAL)
			return vargerror(L, 1, lua_pushfstring(L, "[%d]: fd %d is not open", i + 1, p[i].fd));
		if (p[i].revents) {
			lua_rawgeti(L, 1, i + 1);
			lua_rawseti(L, -2, ++k);
		}
	}
	return 1;
}

static double secs(struct timeval t) { return (double)t.tv_sec + (double)t.tv_usec / 1e6; }

/* verbs.getrusage() -> { ru_utime =, ru_stime = (seconds), ru_maxrss = (KiB),
 * ru_nvcsw =, ru_nivcsw = } of this process */
static int l_getrusage(lua_State *L)
{
	struct rusage u;
	if (getrusage(RUSAGE_SELF, &u))
		return vraise(L, "getrusage", errno, 0, 0);
	lua_createtable(L, 0, 5);
	lua_pushnumber(L, secs(u.ru_utime));
	lua_setfield(L, -2, "ru_utime");
	lua_pushnumber(L, secs(u.ru_stime));
	lua_setfield(L, -2, "ru_stime");
	lua_pushinteger(L, u.ru_maxrss);
	lua_setfield(L, -2, "ru_maxrss");
	lua_pushinteger(L, u.ru_nvcsw);
	lua_setfield(L, -2, "ru_nvcsw");
	lua_pushinteger(L, u.ru_nivcsw);
	lua_setfield(L, -2, "ru_nivcsw");
	return 1;
}

void wait_open(lua_State *L)
{
	lua_pushcfunction(L, l_wait_fds);
	lua_setfield(L, -2, "wait_fds");
	lua_pushcfunction(L, l_getrusage);
	lua_setfield(L, -2, "getrusage");
}
