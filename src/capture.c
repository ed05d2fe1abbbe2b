/* verbs.capture: RoCEv2 frames (UDP 4791) seen on the netdev under an rxe
 * device, through libpcap. Decoding is policy and lives in lua/wire.lua;
 * this file only collects raw frames and writes pcap files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <pcap/pcap.h>
#include "verbsh.h"

#define CAP_MT "verbs.capture"
/* Registry key of this state's list of send WRs posted while a capture ran:
 * what lua/wire.lua matches packets against. */
#define POSTS_KEY "verbs.capture.posts"

struct capture {
	pcap_t *p;               /* NULL once stopped: the frames stay readable */
	char netdev[64];
	char device[64];         /* the rxe device asked for, or "" */
	int ref;                 /* registry ref of the Lua list of packets */
	int count;
	int stopped;
	struct vstate *st;       /* its state's capture count, dropped once by stop or __gc */
	lua_Integer post_first;  /* the posts list's indices of this capture's WRs */
	lua_Integer post_last;   /* (set by stop; while it runs, the list's end) */
};

/* The posts list on top of the stack (made when missing). */
static void push_posts(lua_State *L)
{
	if (lua_getfield(L, LUA_REGISTRYINDEX, POSTS_KEY) == LUA_TTABLE)
		return;
	lua_pop(L, 1);
	lua_newtable(L);
	lua_pushvalue(L, -1);
	lua_setfield(L, LUA_REGISTRYINDEX, POSTS_KEY);
}

void capture_note_posts(lua_State *L, struct vnode *n, const struct ibv_send_wr *wrs)
{
	struct ibv_qp *qp = n->h;
	uint32_t dest = 0;
	if (qp->qp_type != IBV_QPT_UD) {
		struct ibv_qp_attr a;
		struct ibv_qp_init_attr ia;
		if (ibv_query_qp(qp, &a, IBV_QP_DEST_QPN, &ia) == 0)
			dest = a.dest_qp_num;
	}
	char name[32];
	vobj_cname(n, name, sizeof name);
	push_posts(L);
	lua_Integer at = (lua_Integer)lua_rawlen(L, -1);
	for (const struct ibv_send_wr *w = wrs; w; w = w->next) {
		uint64_t len = 0;
		for (int i = 0; i < w->num_sge; i++)
			len += w->sg_list[i].length;
		lua_createtable(L, 0, 7);
		lua_pushstring(L, name);
		lua_setfield(L, -2, "qp");
		lua_pushinteger(L, qp->qp_num);
		lua_setfield(L, -2, "qp_num");
		venum_push(L, &ve_qp_type, qp->qp_type);
		lua_setfield(L, -2, "qp_type");
		lua_pushinteger(L, qp->qp_type == IBV_QPT_UD ? w->wr.ud.remote_qpn : dest);
		lua_setfield(L, -2, "dest_qp");
		lua_pushinteger(L, (lua_Integer)w->wr_id);
		lua_setfield(L, -2, "wr_id");
		venum_push(L, &ve_wr_opcode, w->opcode);
		lua_setfield(L, -2, "opcode");
		lua_pushinteger(L, (lua_Integer)len);
		lua_setfield(L, -2, "length");
		lua_rawseti(L, -2, ++at);
	}
	lua_pop(L, 1);
}

/* This capture no longer runs: its state counts one capture less. */
static void end_capture(lua_State *L, struct capture *c)
{
	if (c->stopped)
		return;
	c->stopped = 1;
	c->st->capturing--;
	push_posts(L);
	c->post_last = (lua_Integer)lua_rawlen(L, -1);
	lua_pop(L, 1);
}

/* The netdev of port 1 of an rxe device, from its GID table in sysfs. */
static int netdev_of(const char *dev, char *out, size_t len)
{
	char path[256], buf[64];
	snprintf(path, sizeof path, "/sys/class/infiniband/%s/ports/1/gid_attrs/ndevs", dev);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	struct dirent *e;
	int found = -1;
	while (found < 0 && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char f[512];
		snprintf(f, sizeof f, "%s/%s", path, e->d_name);
		FILE *fp = fopen(f, "r");
		if (!fp)
			continue;
		if (fgets(buf, sizeof buf, fp)) {
			buf[strcspn(buf, "\n")] = 0;
			if (buf[0]) {
				snprintf(out, len, "%s", buf);
				found = 0;
			}
		}
		fclose(fp);
	}
	closedir(d);
	return found;
}

static struct capture *check_cap(lua_State *L, int live)
{
	struct capture *c = luaL_testudata(L, 1, CAP_MT);
	if (!c)   /* named even when called through pcall(cap.stop, x), where Lua knows no name */
		vtypeerror(L, 1, CAP_MT);
	if (!c->ref)   /* its __gc ran (called by hand: the collector never leaves it reachable) */
		luaL_error(L, "capture on %s was finalized: its frames are gone; start a new one with"
			      " verbs.capture{...}", c->netdev);
	if (live && c->stopped)
		luaL_error(L, "capture on %s is stopped: start a new one with verbs.capture{...}", c->netdev);
	return c;
}

/* Moves every frame libpcap has buffered into the packet list. */
static void on_frame(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	lua_State *L = (lua_State *)user;
	struct capture *c = lua_touserdata(L, -2);
	lua_createtable(L, 0, 4);
	lua_pushnumber(L, (double)h->ts.tv_sec + h->ts.tv_usec / 1e6);
	lua_setfield(L, -2, "time");
	lua_pushlstring(L, (const char *)bytes, h->caplen);
	lua_setfield(L, -2, "bytes");
	lua_pushinteger(L, h->len);
	lua_setfield(L, -2, "length");
	lua_rawseti(L, -2, ++c->count);
}

static void drain(lua_State *L, struct capture *c)
{
	if (!c->p)
		return;
	lua_pushvalue(L, 1);           /* -2: the capture userdata */
	lua_rawgeti(L, LUA_REGISTRYINDEX, c->ref);   /* -1: its list */
	while (pcap_dispatch(c->p, -1, on_frame, (u_char *)L) > 0)
		;
	lua_pop(L, 2);
}

static int l_capture(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	char device[64] = "", netdev[64] = "";
	lua_pushnil(L);
	while (lua_next(L, 1)) {
		const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
		if (strcmp(k, "device") && strcmp(k, "netdev"))
			return luaL_error(L, "bad argument #1 to 'capture' (unknown key '%s': give device = \"rxe1\" or netdev = \"veth1\")", k);
		if (lua_type(L, -1) != LUA_TSTRING)
			return luaL_error(L, "bad argument #1 to 'capture' (%s: string expected, got %s)", k, luaL_typename(L, -1));
		if (!marsh_cstring(L, -1))
			return luaL_error(L, "bad argument #1 to 'capture' (%s: the name has a NUL byte after '%s')", k,
					  lua_tostring(L, -1));
		snprintf(strcmp(k, "device") ? netdev : device, 64, "%s", lua_tostring(L, -1));
		lua_pop(L, 1);
	}
	if (!device[0] && !netdev[0])
		return luaL_error(L, "bad argument #1 to 'capture' (give device = \"rxe1\" or netdev = \"veth1\")");
	if (device[0] && netdev[0])
		return luaL_error(L, "bad argument #1 to 'capture' (give device or netdev, not both)");
	if (device[0] && netdev_of(device, netdev, sizeof netdev) < 0)
		return luaL_error(L, "capture: no netdev found under device '%s' "
			"(/sys/class/infiniband/%s/ports/1/gid_attrs/ndevs): is it an rxe device? "
			"list them with verbs.devices()", device, device);
	char err[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = pcap_create(netdev, err);
	if (!p)
		return luaL_error(L, "capture: pcap_create(%s): %s", netdev, err);
	/* Frames are only read when Lua asks (cap:stop(), cap:packets()), so
	 * the kernel's ring must hold a whole exchange meanwhile: the ring has
	 * a slot per snaplen, and a 64 KiB snaplen left 32 slots in the default
	 * 2 MiB. A RoCEv2 frame is at most a 4096-byte payload plus headers. */
	pcap_set_snaplen(p, 9216);
	pcap_set_buffer_size(p, 32 << 20);
	pcap_set_immediate_mode(p, 1);
	pcap_set_timeout(p, 10);
	int rc = pcap_activate(p);
	if (rc < 0) {
		const char *why = pcap_geterr(p);
		char msg[PCAP_ERRBUF_SIZE + 64];
		snprintf(msg, sizeof msg, "%s", rc == PCAP_ERROR_PERM_DENIED ?
			"permission denied (capturing needs root or CAP_NET_RAW)" : why);
		pcap_close(p);
		return luaL_error(L, "capture: pcap_activate(%s): %s", netdev, msg);
	}
	struct bpf_program prog;
	if (pcap_compile(p, &prog, "udp port 4791", 1, PCAP_NETMASK_UNKNOWN) < 0 ||
	    pcap_setfilter(p, &prog) < 0) {
		lua_pushfstring(L, "capture: filter 'udp port 4791' on %s: %s", netdev, pcap_geterr(p));
		pcap_close(p);
		return lua_error(L);
	}
	pcap_freecode(&prog);
	if (pcap_setnonblock(p, 1, err) < 0) {
		pcap_close(p);
		return luaL_error(L, "capture: pcap_setnonblock(%s): %s", netdev, err);
	}
	struct capture *c = lua_newuserdatauv(L, sizeof *c, 0);
	memset(c, 0, sizeof *c);
	c->p = p;
	c->st = vstate(L);
	/* The posts list grows only while some capture runs; the first
	 * capture of a quiet spell starts it afresh. */
	push_posts(L);
	if (c->st->capturing++ == 0) {
		lua_pop(L, 1);
		lua_newtable(L);
		lua_setfield(L, LUA_REGISTRYINDEX, POSTS_KEY);
		c->post_first = 1;
	} else {
		c->post_first = (lua_Integer)lua_rawlen(L, -1) + 1;
		lua_pop(L, 1);
	}
	snprintf(c->netdev, sizeof c->netdev, "%s", netdev);
	snprintf(c->device, sizeof c->device, "%s", device);
	lua_newtable(L);
	c->ref = luaL_ref(L, LUA_REGISTRYINDEX);
	luaL_setmetatable(L, CAP_MT);
	return 1;
}

static int l_stop(lua_State *L)
{
	struct capture *c = check_cap(L, 1);
	/* A frame that arrived with the completion (the ACK that caused it)
	 * may still be on its way through the kernel's packet socket: stop
	 * once the netdev has been quiet for 20 ms. */
	int before, quiet = 0;
	while (quiet < 10) {
		before = c->count;
		drain(L, c);
		quiet = c->count == before ? quiet + 1 : 0;
		if (quiet)
			usleep(2000);
	}
	struct pcap_stat ps;
	unsigned dropped = pcap_stats(c->p, &ps) == 0 ? ps.ps_drop : 0;
	pcap_close(c->p);
	c->p = NULL;
	end_capture(L, c);
	lua_pushinteger(L, c->count);
	if (dropped) {
		lua_pushfstring(L, "the kernel dropped %d frames: the capture buffer (32 MiB) was full; "
			"stop or read (cap:packets()) a capture more often", (int)dropped);
		return 2;
	}
	if (c->count > 0)
		return 1;
	/* The usual reason: both QPs were on one rxe device, which loops its
	 * own traffic back inside the driver. */
	lua_pushfstring(L, "no RoCEv2 frame crossed %s. Traffic between two QPs of one "
		"rxe device never reaches a netdev (rxe loops it back), so there is "
		"nothing to capture: put the two ends on two devices "
		"(scripts/rxe-vm --two gives rxe0 and rxe1 on a veth pair; "
		"scripts/rxe-host setup makes one on a host)", c->netdev);
	return 2;
}

/* A copy of the list: callers may sort or trim it. */
static int l_packets(lua_State *L)
{
	struct capture *c = check_cap(L, 0);
	drain(L, c);
	lua_rawgeti(L, LUA_REGISTRYINDEX, c->ref);
	lua_createtable(L, c->count, 0);
	for (int i = 1; i <= c->count; i++) {
		lua_rawgeti(L, -2, i);
		lua_rawseti(L, -2, i);
	}
	return 1;
}

static int l_save(lua_State *L)
{
	struct capture *c = check_cap(L, 0);
	if (lua_type(L, 2) != LUA_TSTRING)
		return vtypeerror(L, 2, "file name (string)");
	const char *file = marsh_check_cstring(L, 2, 2, "file name");
	drain(L, c);
	pcap_t *dead = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *d = pcap_dump_open(dead, file);
	if (!d) {
		lua_pushfstring(L, "capture:save: %s", pcap_geterr(dead));
		pcap_close(dead);
		return lua_error(L);
	}
	lua_rawgeti(L, LUA_REGISTRYINDEX, c->ref);
	/* Raw reads, and no conversion that could raise: dead and d must reach
	 * their close below (a frame table is the user's to change). */
	for (int i = 1; i <= c->count; i++) {
		lua_rawgeti(L, -1, i);
		if (!lua_istable(L, -1)) {
			lua_pop(L, 1);
			continue;
		}
		lua_pushliteral(L, "time");
		lua_rawget(L, -2);
		double t = lua_tonumber(L, -1);
		lua_pushliteral(L, "bytes");
		lua_rawget(L, -3);
		size_t n = 0;
		const char *b = lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &n) : "";
		lua_pushliteral(L, "length");
		lua_rawget(L, -4);
		struct pcap_pkthdr h = { .caplen = n, .len = lua_tointeger(L, -1) };
		h.ts.tv_sec = (time_t)t;
		h.ts.tv_usec = (suseconds_t)((t - (double)h.ts.tv_sec) * 1e6 + 0.5);
		if (h.ts.tv_usec >= 1000000) { h.ts.tv_sec++; h.ts.tv_usec -= 1000000; }
		pcap_dump((u_char *)d, &h, (const u_char *)b);
		lua_pop(L, 4);
	}
	int bad = pcap_dump_flush(d);
	pcap_dump_close(d);
	pcap_close(dead);
	if (bad)
		return luaL_error(L, "capture:save: writing %s failed", file);
	lua_pushinteger(L, c->count);
	return 1;
}

/* The send WRs posted in this Lua state while the capture ran, in post
 * order: { qp =, qp_num =, qp_type =, dest_qp =, wr_id =, opcode =, length = }. */
static int l_posts(lua_State *L)
{
	struct capture *c = check_cap(L, 0);
	push_posts(L);
	lua_Integer last = c->stopped ? c->post_last : (lua_Integer)lua_rawlen(L, -1);
	lua_createtable(L, last >= c->post_first ? (int)(last - c->post_first + 1) : 0, 0);
	for (lua_Integer i = c->post_first; i <= last; i++) {
		lua_rawgeti(L, -2, i);
		lua_rawseti(L, -2, i - c->post_first + 1);
	}
	return 1;
}

static int l_info(lua_State *L)
{
	struct capture *c = check_cap(L, 0);
	drain(L, c);
	lua_createtable(L, 0, 4);
	lua_pushstring(L, c->netdev);
	lua_setfield(L, -2, "netdev");
	if (c->device[0]) {
		lua_pushstring(L, c->device);
		lua_setfield(L, -2, "device");
	}
	lua_pushboolean(L, c->stopped);
	lua_setfield(L, -2, "stopped");
	lua_pushinteger(L, c->count);
	lua_setfield(L, -2, "count");
	return 1;
}

static int l_gc(lua_State *L)
{
	struct capture *c = luaL_checkudata(L, 1, CAP_MT);
	if (c->p)
		pcap_close(c->p);
	c->p = NULL;
	if (c->st && !c->stopped) {   /* at lua_close the registry may be gone: count only */
		c->stopped = 1;
		c->st->capturing--;
	}
	if (c->ref) {
		luaL_unref(L, LUA_REGISTRYINDEX, c->ref);
		c->ref = 0;
	}
	return 0;
}

/* Calls require("verbs.wire")[fn] with this call's arguments: the ladder,
 * the filter and the attribution are policy, in lua/wire.lua. */
static int wire_call(lua_State *L, const char *fn)
{
	vcall(L, "verbs.wire", fn, lua_gettop(L), LUA_MULTRET);
	return lua_gettop(L);
}

/* cap:filter{qp = ..., opcode = ...}: checked here, so that the error
 * counts arguments as a method call does ("#1" is the table). */
static int l_filter(lua_State *L)
{
	check_cap(L, 0);
	if (lua_type(L, 2) != LUA_TTABLE)
		return vtypeerror(L, 2, "table {qp=, opcode=}");
	lua_pushnil(L);
	while (lua_next(L, 2)) {
		lua_pop(L, 1);
		if (lua_type(L, -1) != LUA_TSTRING || (strcmp(lua_tostring(L, -1), "qp") != 0 &&
							 strcmp(lua_tostring(L, -1), "opcode") != 0))
			return vargerror(L, 2, lua_pushfstring(L, "unknown key '%s': qp or opcode",
							    luaL_tolstring(L, -1, NULL)));
	}
	lua_settop(L, 2);
	lua_pushboolean(L, 1);   /* as a method: the table is argument #1 */
	return wire_call(L, "filter");
}

static int l_ladder(lua_State *L)
{
	check_cap(L, 0);
	return wire_call(L, "ladder");
}

/* print(cap): what it captured, as a ladder with each frame's WR. */
static int l_tostring(lua_State *L)
{
	struct capture *c = luaL_testudata(L, 1, CAP_MT);
	if (c && !c->ref) {
		lua_pushfstring(L, "capture on %s (finalized)", c->netdev);
		return 1;
	}
	check_cap(L, 0);
	lua_settop(L, 1);
	return wire_call(L, "show");
}

void capture_open(lua_State *L)
{
	static const luaL_Reg methods[] = {
		{ "stop", l_stop }, { "packets", l_packets }, { "save", l_save },
		{ "info", l_info }, { "posts", l_posts }, { "filter", l_filter },
		{ "ladder", l_ladder }, { NULL, NULL },
	};
	if (luaL_newmetatable(L, CAP_MT)) {
		luaL_newlib(L, methods);
		/* listed with the classes' methods: argument errors name the method */
		luaL_getsubtable(L, LUA_REGISTRYINDEX, VMETHOD_TABLES);
		lua_pushvalue(L, -2);
		lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
		lua_pop(L, 1);
		lua_setfield(L, -2, "__index");
		lua_pushcfunction(L, l_gc);
		lua_setfield(L, -2, "__gc");
		lua_pushcfunction(L, l_tostring);
		lua_setfield(L, -2, "__tostring");
	}
	lua_pop(L, 1);
	lua_pushcfunction(L, l_capture);
	lua_setfield(L, -2, "capture");
}
