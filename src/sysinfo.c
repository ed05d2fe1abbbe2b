/* verbs.sysinfo(): the facts about this process and its libraries that Lua
 * cannot read from /sys or /proc, for `verbsh --doctor` (lua/doctor.lua
 * decides what they mean). */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>
#include "verbsh.h"

/* libibverbs accepts kernels from uverbs ABI 3 (its IB_USER_VERBS_MIN_ABI_VERSION,
 * private to rdma-core) up to the ABI of the kernel headers it was built with. */
#define UVERBS_MIN_ABI 3

static void push_rlim(lua_State *L, rlim_t v)
{
	if (v == RLIM_INFINITY)
		lua_pushliteral(L, "unlimited");
	else
		lua_pushinteger(L, (lua_Integer)v);
}

/* Providers are built against libibverbs' private ABI N and register with
 * verbs_register_driver_N, which libibverbs exports for that N only. */
static int private_abi(void)
{
	char name[48];
	for (int n = 1; n < 100; n++) {
		snprintf(name, sizeof name, "verbs_register_driver_%d", n);
		if (dlsym(RTLD_DEFAULT, name))
			return n;
	}
	return 0;
}

static int l_sysinfo(lua_State *L)
{
	struct rlimit rl;
	struct utsname u;
	Dl_info dl;
	char real[PATH_MAX];
	ssize_t len;

	lua_createtable(L, 0, 10);
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
		push_rlim(L, rl.rlim_cur);
		lua_setfield(L, -2, "memlock");
		push_rlim(L, rl.rlim_max);
		lua_setfield(L, -2, "memlock_max");
	}
	if (uname(&u) == 0) {
		lua_pushstring(L, u.release);
		lua_setfield(L, -2, "kernel");
		lua_pushstring(L, u.machine);
		lua_setfield(L, -2, "machine");
	}
	lua_pushinteger(L, UVERBS_MIN_ABI);
	lua_setfield(L, -2, "uverbs_abi_min");
	lua_pushinteger(L, IB_USER_VERBS_ABI_VERSION);
	lua_setfield(L, -2, "uverbs_abi_max");
	lua_pushinteger(L, private_abi());
	lua_setfield(L, -2, "provider_abi");
	/* The file behind libibverbs.so.1 names rdma-core's version
	 * (libibverbs.so.1.14.44.0 is rdma-core 44). */
	if (dladdr((void *)ibv_get_device_list, &dl) && dl.dli_fname) {
		lua_pushstring(L, realpath(dl.dli_fname, real) ? real : dl.dli_fname);
		lua_setfield(L, -2, "libibverbs");
	}
	if ((len = readlink("/proc/self/exe", real, sizeof real - 1)) > 0) {
		real[len] = 0;
		lua_pushstring(L, real);
		lua_setfield(L, -2, "exe");
	}
	lua_pushstring(L, LUA_RELEASE);
	lua_setfield(L, -2, "lua");
	lua_pushinteger(L, (lua_Integer)geteuid());
	lua_setfield(L, -2, "euid");
	return 1;
}

void sysinfo_open(lua_State *L)
{
	lua_pushcfunction(L, l_sysinfo);
	lua_setfield(L, -2, "sysinfo");
}
