/* verbs.capture: RoCEv2 frames (UDP 4791) seen on the netdev under an rxe
 * device, or the TCP segments of an iWARP (siw) device's addresses, through
 * libpcap. A thread of its own reads them as they come, so
 * that the kernel's buffer never fills while Lua waits in cq:wait during a
 * bulk transfer, and keeps them in a store of large chunks (no Lua value
 * per frame until one is asked for). Decoding is src/wire.c's and the
 * ladder lua/wire.lua's; this file collects frames and writes pcap files. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <pcap/pcap.h>
#include "verbsh.h"
#include "wire.h"

#define CAP_MT "verbs.capture"
#define STORE_MT "verbs.capture_store"
#define CHUNK (4u << 20)
#define SNAPLEN_MIN 128         /* every header: Ethernet, IPv4 with options or IPv6, UDP, BTH, AtomicETH */
#define SNAPLEN_MAX 262144      /* libpcap's own largest */
#define SNAPLEN_DEFAULT 9216    /* a 4096-byte payload and every header */

/* A captured frame, in a chunk of the store. */
struct rec {
	double time;
	uint32_t caplen, len;
	uint8_t b[];
};

/* The frames of one capture: records in chunks that never move (frames
 * made by cap:packets() point into them), and an index of them. The drain
 * thread appends under the lock; Lua reads under it. Freed by its __gc,
 * once neither the capture nor any of its frames refers to it. */
struct store {
	pthread_mutex_t lock;
	uint8_t **chunks;
	size_t nchunks, used;          /* used: bytes taken in the last chunk */
	struct rec **at;
	size_t n, cap;
	int nomem;                     /* a frame was lost for want of memory */
	struct pcap_stat ps;           /* the thread's last pcap_stats */
	char error[PCAP_ERRBUF_SIZE];  /* why the thread stopped early, or "" */
};
/* Registry key of this state's list of send WRs posted while a capture ran:
 * what lua/wire.lua matches packets against. */
#define POSTS_KEY "verbs.capture.posts"

struct capture {
	pcap_t *p;               /* NULL once stopped: the frames stay readable */
	char netdev[64];
	char device[64];         /* the rxe or siw device asked for, or "" */
	char via[64];            /* an iWARP device's own netdev, when its traffic crosses another (lo) */
	char filter[256];        /* the BPF filter: RoCEv2's UDP port, or TCP of the iWARP addresses */
	int iwarp;               /* TCP segments of an iWARP device, not RoCEv2 frames */
	int ref;                 /* nonzero until __gc: the store (user value 1) is reachable */
	                         /* (user value 2: the posts list its WRs are in, kept by the
	                          * capture: a later one may start a new list) */
	struct store *store;
	pthread_t thread;
	int running;             /* the drain thread was started and not yet joined */
	volatile int quit;
	int snaplen;
	unsigned drops;          /* libpcap's ps_drop when stopped */
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

/* This capture (at idx) no longer runs: its state counts one capture less. */
static void end_capture(lua_State *L, int idx, struct capture *c)
{
	if (c->stopped)
		return;
	c->stopped = 1;
	c->st->capturing--;
	lua_getiuservalue(L, idx, 2);
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

/* Reads the first line of a sysfs file into out; 0 on success. */
static int read_line(const char *path, char *out, size_t len)
{
	FILE *fp = fopen(path, "r");
	if (!fp)
		return -1;
	int ok = fgets(out, (int)len, fp) != NULL;
	fclose(fp);
	if (!ok)
		return -1;
	out[strcspn(out, "\n")] = 0;
	return 0;
}

/* Whether dev is an iWARP device (node_type "4: RNIC"). */
static int is_iwarp(const char *dev)
{
	char path[256], buf[64];
	snprintf(path, sizeof path, "/sys/class/infiniband/%s/node_type", dev);
	return read_line(path, buf, sizeof buf) == 0 && strncmp(buf, "4:", 2) == 0;
}

/* The netdev of an iWARP device: its GID table has no netdev attribute,
 * but its one GID starts with the netdev's MAC (siw). */
static int iwarp_netdev(const char *dev, char *out, size_t len)
{
	char path[512], gid[64], mac[64], want[20];
	snprintf(path, sizeof path, "/sys/class/infiniband/%s/ports/1/gids/0", dev);
	if (read_line(path, gid, sizeof gid) < 0 || strlen(gid) < 14)
		return -1;
	/* "eadc:fbc3:9850:..." -> "ea:dc:fb:c3:98:50" */
	snprintf(want, sizeof want, "%.2s:%.2s:%.2s:%.2s:%.2s:%.2s", gid, gid + 2, gid + 5, gid + 7, gid + 10, gid + 12);
	DIR *d = opendir("/sys/class/net");
	if (!d)
		return -1;
	struct dirent *e;
	int found = -1;
	while (found < 0 && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/sys/class/net/%s/address", e->d_name);
		if (read_line(path, mac, sizeof mac) == 0 && strcmp(mac, want) == 0) {
			if (strlen(e->d_name) < len) {   /* an interface name is at most 15 bytes */
				memcpy(out, e->d_name, strlen(e->d_name) + 1);
				found = 0;
			}
		}
	}
	closedir(d);
	return found;
}

/* Whether netdev is a dummy: it drops what it sends, so TCP to its
 * addresses is local and crosses lo (ethtool's driver name). */
static int is_dummy(const char *netdev)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	if (strlen(netdev) >= sizeof ifr.ifr_name)
		return 0;
	memcpy(ifr.ifr_name, netdev, strlen(netdev) + 1);
	ifr.ifr_data = (void *)&info;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return 0;
	int rc = ioctl(fd, SIOCETHTOOL, &ifr);
	close(fd);
	return rc == 0 && strcmp(info.driver, "dummy") == 0;
}

/* "tcp and (host A or host B)" for the IPv4 addresses of netdev, or "tcp":
 * siw's connections are TCP ones from and to those addresses. */
static void iwarp_filter(const char *netdev, char *out, size_t len)
{
	struct ifaddrs *all, *a;
	size_t n = (size_t)snprintf(out, len, "tcp");
	int hosts = 0;
	if (getifaddrs(&all) < 0)
		return;
	for (a = all; a; a = a->ifa_next) {
		if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || strcmp(a->ifa_name, netdev))
			continue;
		char ip[INET_ADDRSTRLEN];
		inet_ntop(AF_INET, &((struct sockaddr_in *)a->ifa_addr)->sin_addr, ip, sizeof ip);
		if (n + 40 < len)
			n += (size_t)snprintf(out + n, len - n, "%shost %s", hosts++ ? " or " : " and (", ip);
	}
	freeifaddrs(all);
	if (hosts && n + 2 < len)
		snprintf(out + n, len - n, ")");
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

/* ---- the store ---------------------------------------------------------- */

static int store_gc(lua_State *L)
{
	struct store *st = luaL_checkudata(L, 1, STORE_MT);
	for (size_t i = 0; i < st->nchunks; i++)
		free(st->chunks[i]);
	free(st->chunks);
	free(st->at);
	st->chunks = NULL;
	st->at = NULL;
	st->nchunks = st->n = 0;
	pthread_mutex_destroy(&st->lock);
	return 0;
}

static struct store *new_store(lua_State *L)
{
	struct store *st = lua_newuserdatauv(L, sizeof *st, 0);
	memset(st, 0, sizeof *st);
	pthread_mutex_init(&st->lock, NULL);
	if (luaL_newmetatable(L, STORE_MT)) {
		lua_pushcfunction(L, store_gc);
		lua_setfield(L, -2, "__gc");
	}
	lua_setmetatable(L, -2);
	return st;
}

/* Appends a frame (the drain thread, under the lock). */
static void store_add(struct store *st, const struct pcap_pkthdr *h, const u_char *bytes)
{
	size_t need = (sizeof(struct rec) + h->caplen + 7) & ~(size_t)7;
	if (!st->nchunks || st->used + need > CHUNK) {
		size_t size = need > CHUNK ? need : CHUNK;
		uint8_t **more = realloc(st->chunks, (st->nchunks + 1) * sizeof *more);
		uint8_t *c = more ? malloc(size) : NULL;
		if (more)
			st->chunks = more;
		if (!c) {
			st->nomem++;
			return;
		}
		st->chunks[st->nchunks++] = c;
		st->used = 0;
	}
	if (st->n == st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 4096;
		struct rec **at = realloc(st->at, cap * sizeof *at);
		if (!at) {
			st->nomem++;
			return;
		}
		st->at = at;
		st->cap = cap;
	}
	struct rec *r = (struct rec *)(st->chunks[st->nchunks - 1] + st->used);
	st->used += need;
	r->time = (double)h->ts.tv_sec + h->ts.tv_usec / 1e6;
	r->caplen = h->caplen;
	r->len = h->len;
	memcpy(r->b, bytes, h->caplen);
	st->at[st->n++] = r;
}

static size_t store_count(struct store *st)
{
	pthread_mutex_lock(&st->lock);
	size_t n = st->n;
	pthread_mutex_unlock(&st->lock);
	return n;
}

static void on_frame(u_char *user, const struct pcap_pkthdr *h, const u_char *bytes)
{
	struct store *st = (struct store *)user;
	pthread_mutex_lock(&st->lock);
	store_add(st, h, bytes);
	pthread_mutex_unlock(&st->lock);
}

/* The drain thread: reads frames as libpcap hands them over (it wakes at
 * least every 10 ms, the handle's timeout, to see whether to quit). */
static void *drain_thread(void *arg)
{
	struct capture *c = arg;
	struct store *st = c->store;
	while (!c->quit) {
		int rc = pcap_dispatch(c->p, -1, on_frame, (u_char *)st);
		struct pcap_stat ps;
		int got = pcap_stats(c->p, &ps) == 0;
		pthread_mutex_lock(&st->lock);
		if (got)
			st->ps = ps;
		if (rc == PCAP_ERROR)
			snprintf(st->error, sizeof st->error, "%s", pcap_geterr(c->p));
		pthread_mutex_unlock(&st->lock);
		if (rc == PCAP_ERROR)
			break;
	}
	return NULL;
}

/* Stops the drain thread and closes the handle: the store is final. */
static void close_pcap(struct capture *c)
{
	if (c->running) {
		c->quit = 1;
		pcap_breakloop(c->p);
		pthread_join(c->thread, NULL);
		c->running = 0;
		/* Frames the kernel's ring still holds came before the stop: the
		 * thread, descheduled on a busy machine or told to quit, left
		 * them. Read them now, without waiting for more (a dispatch that
		 * finds the break flag still set clears it and reads nothing). */
		char err[PCAP_ERRBUF_SIZE];
		if (c->store && pcap_setnonblock(c->p, 1, err) == 0) {
			int rc, breaks = 0;
			do
				rc = pcap_dispatch(c->p, -1, on_frame, (u_char *)c->store);
			while (rc > 0 || (rc == PCAP_ERROR_BREAK && breaks++ == 0));
		}
	}
	if (c->p) {
		struct pcap_stat ps;   /* the last word, now that the thread is gone */
		if (c->store && pcap_stats(c->p, &ps) == 0)
			c->store->ps = ps;
		c->drops = c->store ? c->store->ps.ps_drop : 0;
		pcap_close(c->p);
		c->p = NULL;
	}
}

/* The capture's store on top of the stack. */
static struct store *push_store(lua_State *L, int idx)
{
	lua_getiuservalue(L, idx, 1);
	return lua_touserdata(L, -1);
}

static int l_capture(lua_State *L)
{
	luaL_checktype(L, 1, LUA_TTABLE);
	char device[64] = "", netdev[64] = "";
	lua_Integer snaplen = SNAPLEN_DEFAULT;
	lua_pushnil(L);
	while (lua_next(L, 1)) {
		const char *k = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?";
		if (strcmp(k, "snaplen") == 0) {
			int ok;
			snaplen = lua_tointegerx(L, -1, &ok);
			if (!ok || snaplen < SNAPLEN_MIN || snaplen > SNAPLEN_MAX)
				return luaL_error(L, "bad argument #1 to 'capture' (snaplen: the bytes kept of each frame, "
					"an integer from %d (its headers) to %d expected, got %s)", SNAPLEN_MIN, SNAPLEN_MAX,
					luaL_tolstring(L, -1, NULL));
			lua_pop(L, 1);
			continue;
		}
		if (strcmp(k, "device") && strcmp(k, "netdev"))
			return luaL_error(L, "bad argument #1 to 'capture' (unknown key '%s': give device = \"rxe1\" or netdev = \"veth1\", and snaplen)", k);
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
	char via[64] = "", filter[256] = "udp port 4791";
	int iwarp = device[0] && is_iwarp(device);
	if (iwarp) {
		if (iwarp_netdev(device, netdev, sizeof netdev) < 0)
			return luaL_error(L, "capture: no netdev found under iWARP device '%s' (none has the MAC of "
				"its GID 0, /sys/class/infiniband/%s/ports/1/gids/0): `rdma link show %s/1` names it; "
				"give netdev = that name", device, device, device);
		iwarp_filter(netdev, filter, sizeof filter);
		/* a dummy netdev sends nothing: siw's TCP to its addresses crosses lo */
		if (is_dummy(netdev)) {
			snprintf(via, sizeof via, "%s", netdev);
			snprintf(netdev, sizeof netdev, "lo");
		}
	} else if (device[0] && netdev_of(device, netdev, sizeof netdev) < 0)
		return luaL_error(L, "capture: no netdev found under device '%s' "
			"(/sys/class/infiniband/%s/ports/1/gid_attrs/ndevs): is it an rxe or siw device? "
			"list them with verbs.devices()", device, device);
	/* the userdata first: once pcap_create succeeds, nothing may raise
	 * before the handle is the capture's (its __gc closes it) */
	struct capture *c = lua_newuserdatauv(L, sizeof *c, 2);
	memset(c, 0, sizeof *c);
	c->st = vstate(L);
	c->stopped = 1;   /* counted as capturing once it runs */
	c->ref = 1;
	c->snaplen = (int)snaplen;
	snprintf(c->netdev, sizeof c->netdev, "%s", netdev);
	snprintf(c->device, sizeof c->device, "%s", device);
	snprintf(c->via, sizeof c->via, "%s", via);
	snprintf(c->filter, sizeof c->filter, "%s", filter);
	c->iwarp = iwarp;
	luaL_setmetatable(L, CAP_MT);
	c->store = new_store(L);
	lua_setiuservalue(L, -2, 1);
	char err[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = pcap_create(netdev, err);
	if (!p)
		return luaL_error(L, "capture: pcap_create(%s): %s", netdev, err);
	c->p = p;
	/* A thread reads the frames as they come; the kernel's ring holds
	 * them while that thread is descheduled (the ring has a slot per
	 * snaplen). A RoCEv2 frame is at most a 4096-byte payload plus headers. */
	pcap_set_snaplen(p, c->snaplen);
	pcap_set_buffer_size(p, 32 << 20);
	pcap_set_immediate_mode(p, 1);
	pcap_set_timeout(p, 10);
	int rc = pcap_activate(p);
	if (rc < 0) {
		/* pcap_geterr's text lives in the handle, which the capture's __gc closes */
		return luaL_error(L, "capture: pcap_activate(%s): %s", netdev, rc == PCAP_ERROR_PERM_DENIED ?
				  "permission denied (capturing needs root or CAP_NET_RAW)" : pcap_geterr(p));
	}
	struct bpf_program prog;
	if (pcap_compile(p, &prog, c->filter, 1, PCAP_NETMASK_UNKNOWN) < 0 ||
	    pcap_setfilter(p, &prog) < 0)
		return luaL_error(L, "capture: filter '%s' on %s: %s", c->filter, netdev, pcap_geterr(p));
	pcap_freecode(&prog);
	if ((rc = pthread_create(&c->thread, NULL, drain_thread, c)) != 0)
		return luaL_error(L, "capture: pthread_create: %s", strerror(rc));
	c->running = 1;
	c->stopped = 0;
	/* The posts list grows only while some capture runs; the first
	 * capture of a quiet spell starts it afresh, and each capture keeps
	 * the list it began in (user value 2), for cap:posts() after that. */
	push_posts(L);
	if (c->st->capturing++ == 0) {
		lua_pop(L, 1);
		lua_newtable(L);
		lua_pushvalue(L, -1);
		lua_setfield(L, LUA_REGISTRYINDEX, POSTS_KEY);
		c->post_first = 1;
	} else {
		c->post_first = (lua_Integer)lua_rawlen(L, -1) + 1;
	}
	lua_setiuservalue(L, -2, 2);
	return 1;
}

/* Frames lost: by the kernel (its buffer was full: libpcap's ps_drop) or
 * for want of memory here; pushes why, or nothing. */
static int push_losses(lua_State *L, struct capture *c)
{
	pthread_mutex_lock(&c->store->lock);
	unsigned drops = c->p ? c->store->ps.ps_drop : c->drops;
	int nomem = c->store->nomem;
	pthread_mutex_unlock(&c->store->lock);
	if (drops)
		lua_pushfstring(L, "the kernel dropped %d frames (libpcap's ps_drop): its capture buffer "
			"(32 MiB) was full before the capture's thread read them; a smaller snaplen "
			"(verbs.capture{snaplen = 128}: the headers only) keeps more frames in it", (int)drops);
	else if (nomem)
		lua_pushfstring(L, "%d frames were lost: out of memory to keep them", nomem);
	else if (c->store->error[0])
		lua_pushfstring(L, "the capture stopped early: %s", c->store->error);
	else
		return 0;
	return 1;
}

static int l_stop(lua_State *L)
{
	struct capture *c = check_cap(L, 1);
	vnoextra(L, 1, "cap:stop()", NULL);
	/* A frame that arrived with the completion (the ACK that caused it)
	 * may still be on its way through the kernel's packet socket: stop
	 * once the netdev has been quiet for 20 ms. */
	size_t before;
	int quiet = 0;
	while (quiet < 10) {
		before = store_count(c->store);
		usleep(2000);
		quiet = store_count(c->store) == before ? quiet + 1 : 0;
	}
	close_pcap(c);
	end_capture(L, 1, c);
	size_t n = store_count(c->store);
	lua_pushinteger(L, (lua_Integer)n);
	if (push_losses(L, c))
		return 2;
	if (n > 0)
		return 1;
	if (c->iwarp) {
		lua_pushfstring(L, "no TCP segment of %s's addresses crossed %s (filter: %s). siw's "
			"traffic is kernel TCP: it crosses the netdev the route to the peer takes (lo when "
			"both ends are addresses of this host); capture{netdev = ...} picks another",
			c->device, c->netdev, c->filter);
		return 2;
	}
	/* The usual reason: both QPs were on one rxe device, which loops its
	 * own traffic back inside the driver. */
	lua_pushfstring(L, "no RoCEv2 frame crossed %s. Traffic between two QPs of one "
		"rxe device never reaches a netdev (rxe loops it back), so there is "
		"nothing to capture: put the two ends on two devices "
		"(scripts/rxe-vm --two gives rxe0 and rxe1 on a veth pair; "
		"scripts/rxe-host setup makes one on a host)", c->netdev);
	return 2;
}

/* A list of the frames so far: one frame userdata each, pointing into the
 * store (no copy). Callers may sort or trim the list. */
static int l_packets(lua_State *L)
{
	struct capture *c = check_cap(L, 0);
	vnoextra(L, 1, "cap:packets()", NULL);
	struct store *st = push_store(L, 1);
	int owner = lua_gettop(L);
	size_t n = store_count(st);
	lua_createtable(L, n < INT_MAX ? (int)n : 0, 0);
	for (size_t i = 0; i < n; i++) {
		pthread_mutex_lock(&st->lock);
		struct rec *r = st->at[i];   /* at may move as it grows; the record does not */
		pthread_mutex_unlock(&st->lock);
		wire_push_frame(L, r->b, r->caplen, r->len, r->time, owner);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	(void)c;
	return 1;
}

static int l_save(lua_State *L)
{
	struct capture *c = check_cap(L, 0);
	vnoextra(L, 2, "cap:save(file)", NULL);
	if (lua_type(L, 2) != LUA_TSTRING)
		return vtypeerror(L, 2, "file name (string)");
	const char *file = marsh_check_cstring(L, 2, 2, "file name");
	pcap_t *dead = pcap_open_dead(DLT_EN10MB, c->snaplen > 65535 ? c->snaplen : 65535);
	pcap_dumper_t *d = pcap_dump_open(dead, file);
	if (!d) {
		lua_pushfstring(L, "capture:save: %s", pcap_geterr(dead));
		pcap_close(dead);
		return lua_error(L);
	}
	/* straight from the store: no Lua value per frame */
	struct store *st = c->store;
	size_t n = store_count(st);
	for (size_t i = 0; i < n; i++) {
		pthread_mutex_lock(&st->lock);
		struct rec *r = st->at[i];
		pthread_mutex_unlock(&st->lock);
		struct pcap_pkthdr h = { .caplen = r->caplen, .len = r->len };
		h.ts.tv_sec = (time_t)r->time;
		h.ts.tv_usec = (suseconds_t)((r->time - (double)h.ts.tv_sec) * 1e6 + 0.5);
		if (h.ts.tv_usec >= 1000000) { h.ts.tv_sec++; h.ts.tv_usec -= 1000000; }
		pcap_dump((u_char *)d, &h, r->b);
	}
	int bad = pcap_dump_flush(d);
	pcap_dump_close(d);
	pcap_close(dead);
	if (bad)
		return luaL_error(L, "capture:save: writing %s failed", file);
	lua_pushinteger(L, (lua_Integer)n);
	return 1;
}

/* The send WRs posted in this Lua state while the capture ran, in post
 * order: { qp =, qp_num =, qp_type =, dest_qp =, wr_id =, opcode =, length = }. */
static int l_posts(lua_State *L)
{
	struct capture *c = check_cap(L, 0);
	vnoextra(L, 1, "cap:posts()", NULL);
	if (lua_getiuservalue(L, 1, 2) != LUA_TTABLE) {   /* it never ran */
		lua_newtable(L);
		return 1;
	}
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
	vnoextra(L, 1, "cap:info()", NULL);
	lua_createtable(L, 0, 10);
	lua_pushstring(L, c->netdev);
	lua_setfield(L, -2, "netdev");
	if (c->device[0]) {
		lua_pushstring(L, c->device);
		lua_setfield(L, -2, "device");
	}
	if (c->via[0]) {
		lua_pushstring(L, c->via);
		lua_setfield(L, -2, "device_netdev");
	}
	lua_pushstring(L, c->iwarp ? "iWARP" : "RoCE");
	lua_setfield(L, -2, "transport");
	lua_pushstring(L, c->filter);
	lua_setfield(L, -2, "filter");
	lua_pushboolean(L, c->stopped);
	lua_setfield(L, -2, "stopped");
	lua_pushinteger(L, (lua_Integer)store_count(c->store));
	lua_setfield(L, -2, "count");
	pthread_mutex_lock(&c->store->lock);
	unsigned drops = c->p ? c->store->ps.ps_drop : c->drops;
	pthread_mutex_unlock(&c->store->lock);
	lua_pushinteger(L, drops);
	lua_setfield(L, -2, "drops");
	lua_pushinteger(L, c->snaplen);
	lua_setfield(L, -2, "snaplen");
	if (push_losses(L, c))
		lua_setfield(L, -2, "lost");
	return 1;
}

static int l_gc(lua_State *L)
{
	struct capture *c = luaL_checkudata(L, 1, CAP_MT);
	close_pcap(c);
	if (c->st && !c->stopped) {   /* at lua_close the registry may be gone: count only */
		c->stopped = 1;
		c->st->capturing--;
	}
	if (c->ref) {   /* the frames of cap:packets() keep the store alive on their own */
		c->ref = 0;
		c->store = NULL;
		lua_pushnil(L);
		lua_setiuservalue(L, 1, 1);
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
	vnoextra(L, 2, "cap:filter{qp=, opcode=}", NULL);
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
	vnoextra(L, 2, "cap:ladder([notes])", NULL);
	if (!lua_isnoneornil(L, 2) && !lua_istable(L, 2))   /* checked here: as a method, notes is #1 */
		return vtypeerror(L, 2, "table of notes (notes[i] after frame i)");
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
