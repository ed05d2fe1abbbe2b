/* Completion queues and completion channels: create, poll, wait, notify,
 * events. cq:poll() and cq:wait() are on the benchmark's hot path: WCs are
 * polled into a stack array, and each becomes one table. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include "verbsh.h"
#include "interrupt.h"

#define WC_BATCH 32

static int cq_destroy(struct vnode *n)
{
	cq_ex_end(n);   /* an open start_poll holds the CQ's lock */
	/* ibv_destroy_cq waits until every event of the CQ is acknowledged. */
	if (vcq(n)->events)
		ibv_ack_cq_events(n->h, vcq(n)->events);
	vcq(n)->events = 0;
	return ibv_destroy_cq(n->h);
}

static void cq_describe(lua_State *L, struct vnode *n)
{
	lua_pushfstring(L, "cqe %d", ((struct ibv_cq *)n->h)->cqe);
}

static int cq_field(lua_State *L, struct vnode *n, const char *key)
{
	if (strcmp(key, "cqe") == 0)
		lua_pushinteger(L, ((struct ibv_cq *)n->h)->cqe);
	else if (strcmp(key, "handle") == 0)
		lua_pushinteger(L, ((struct ibv_cq *)n->h)->handle);
	else if (strcmp(key, "channel") == 0)   /* user value 2 (create_cq and create_cq_ex): the channel, or nil */
		lua_getiuservalue(L, 1, 2);
	else if (strcmp(key, "wc_flags") == 0 && vcq(n)->ex)
		vflags_push(L, &ve_create_cq_wc_flags, vcq(n)->wc_flags);
	else if (vcq(n)->ex)
		return cq_ex_field(L, n, key);   /* cq.wr_id, cq.status of the current completion */
	else if (strcmp(key, "status") == 0 || strcmp(key, "wr_id") == 0 || strcmp(key, "wc_flags") == 0)
		return luaL_error(L, "cq.%s: this CQ was made by ibv_create_cq, whose completions are read from "
				     "cq:poll() (wc.%s of each); cq.%s is a member of an extended CQ (ctx:create_cq_ex"
				     "{ cqe =, wc_flags = { ... } }), valid between cq:start_poll() and cq:end_poll()",
				  key, key, key);
	else
		return 0;
	return 1;
}

struct cq_opts {
	struct ibv_comp_channel *channel;
	int comp_vector;
};
const struct vfield vf_cq_opts[] = {
	VF(struct cq_opts, channel, VT_OBJ, .cls = &vc_channel),
	VF(struct cq_opts, comp_vector, VT_INT, .max = 1024),
	VF_END
};

/* ctx:create_cq(cqe [, {channel=, comp_vector=}]) */
int cq_create(lua_State *L)
{
	struct vnode *c = vobj_check(L, 1, &vc_context);
	if (lua_istable(L, 2))   /* create_cq{cqe = 4, channel = ch} */
		vargerror(L, 2, "cqe: integer expected, got table: in verbsh it is ctx:create_cq(cqe [, { channel = ch, "
			  "comp_vector = 0 }]), e.g. ctx:create_cq(16, { channel = ch })");
	int cqe = (int)marsh_check_uint(L, 2, 2, 0x7fffffff, "cqe");
	struct cq_opts o = { 0 };
	int deps[2] = { 1, 0 };
	struct vnode *used[2] = { c };

	/* C's ibv_create_cq(ctx, cqe, cq_context, channel, comp_vector), with
	 * its arguments in a row: create_cq(16, ch) or create_cq(16, nil, ch, 0) */
	int top = lua_gettop(L);
	if (vobj_test(L, 3, &vc_channel) || top > 3)
		vargerror(L, top > 3 ? 4 : 3, lua_pushfstring(L, "%s: the channel and comp_vector are keys of a table "
			"in verbsh: ctx:create_cq(cqe [, { channel = ch, comp_vector = 0 }]), e.g. ctx:create_cq(16, "
			"{ channel = ch })", top > 3 ? "more than 2 arguments" : "table expected, got verbs.comp_channel"));
	lua_settop(L, 3);
	if (!lua_isnil(L, 3)) {
		vchecktable(L, 3);
		marsh_read(L, 3, 3, vf_cq_opts, &o);
		used[1] = vobj_field(L, 3, 3, "channel", &vc_channel, &o.channel);   /* index 4: kept as a user value */
		vobj_same_context(L, 3, "channel", used[1], c);
		deps[1] = 4;
	}
	struct vnode *n = vobj_new(L, &vc_cq, 2, deps);
	vobj_recheck(L, 3, used, 2);
	struct ibv_cq *cq = ibv_create_cq(c->h, cqe, NULL, o.channel, o.comp_vector);
	int err = errno;
	if (!cq) {
		lua_createtable(L, 0, 1);
		return vraise_create(L, "ibv_create_cq", err, 1);
	}
	vobj_set(n, cq);
	return 1;
}

/* cq:poll(wcs): fills the verbs.wc_array wcs, returns the count. */
static int poll_array(lua_State *L, struct vnode *n, struct wc_array *a)
{
	wc_array_verify(L, 2, a);
	int r = ibv_poll_cq(n->h, a->cap, a->wc);
	if (r < 0)
		return vraise(L, "ibv_poll_cq", -r > 0 ? -r : EIO, 1, 0);
	wc_array_filled(L, 2, a, r);
	lua_pushinteger(L, r);
	return 1;
}

/* Completions a lesson's check polled are handed back: the list form of
 * the learner's next cq:poll or cq:wait returns them first, as if the check
 * had only looked (lua/lesson_kit.lua keeps them in the registry table
 * HELD_WCS, keyed by the cq). Appends up to max of them to the list at the
 * top of the stack; returns how many. Outside lessons the table is absent. */
static const char HELD_WCS[] = "verbsh.cq_held";
static int take_held(lua_State *L, int cq_idx, int max)
{
	int got = 0;
	if (lua_getfield(L, LUA_REGISTRYINDEX, HELD_WCS) != LUA_TTABLE) {
		lua_pop(L, 1);
		return 0;
	}
	lua_pushvalue(L, cq_idx);
	if (lua_rawget(L, -2) != LUA_TTABLE) {
		lua_pop(L, 2);
		return 0;
	}
	int n = (int)lua_rawlen(L, -1);
	got = n < max ? n : max;
	for (int i = 1; i <= got; i++) {
		lua_rawgeti(L, -1, i);
		lua_rawseti(L, -4, i);
	}
	for (int i = got + 1; i <= n; i++) {   /* keep the rest, in order */
		lua_rawgeti(L, -1, i);
		lua_rawseti(L, -2, i - got);
	}
	for (int i = n - got + 1; i <= n; i++) {
		lua_pushnil(L);
		lua_rawseti(L, -2, i);
	}
	lua_pop(L, 2);
	return got;
}

/* cq:poll([max = 16]) -> list of WCs (possibly empty); cq:poll(wcs) -> count */
static int l_poll(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cq);
	vnoextra(L, 2, "cq:poll([max]) or cq:poll(wcs)", NULL);
	cq_ex_idle(L, n, "poll");
	struct wc_array *a = wc_array_test(L, n->st, 2);
	if (a)
		return poll_array(L, n, a);
	int max = lua_isnoneornil(L, 2) ? 16 : (int)marsh_check_uint(L, 2, 2, 1 << 20, "max");
	struct ibv_wc wc[WC_BATCH];
	int got = 0;

	lua_createtable(L, max < 4 ? max : 4, 0);
	got = take_held(L, 1, max);
	while (got < max) {
		int want = max - got < WC_BATCH ? max - got : WC_BATCH;
		int r = ibv_poll_cq(n->h, want, wc);
		if (r < 0)
			return vraise(L, "ibv_poll_cq", -r > 0 ? -r : EIO, 1, 0);
		for (int i = 0; i < r; i++) {
			wc_push(L, &wc[i]);
			lua_rawseti(L, -2, ++got);
		}
		if (r < want)
			break;
	}
	return 1;
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Polls until want WCs arrived or timeout_ms passed (< 0: forever): into
 * out[got..want) (a wc_array's), or with push, each batch into out[0..)
 * (WC_BATCH entries) and from there as WCs appended to the list at the top
 * of the stack. Ctrl-C stops it; WCs already polled are returned rather
 * than lost, and so are they when a poll fails (*err: its errno). */
static int wait_wcs(lua_State *L, struct vnode *n, int want, double timeout, struct ibv_wc *out, int got, bool push,
		    int *err)
{
	unsigned idle = 0;
	double t0 = 0;

	while (got < want) {
		int batch = want - got < WC_BATCH ? want - got : WC_BATCH;
		int r = ibv_poll_cq(n->h, batch, push ? out : out + got);
		if (r < 0) {
			/* As on Ctrl-C, completions already polled are returned (into
			 * a wc_array they are already written); the next poll meets
			 * the error again. */
			if (got) {
				*err = -r;
				break;
			}
			return vraise(L, "ibv_poll_cq", -r, 1, 0);
		}
		if (push)
			for (int i = 0; i < r; i++) {
				wc_push(L, &out[i]);
				lua_rawseti(L, -2, got + i + 1);
			}
		got += r;
		if (r > 0) {
			idle = 0;
			continue;
		}
		if (verbsh_interrupted) {
			if (got)
				break;   /* the shell's hook raises "interrupted" at the next Lua instruction */
			verbsh_check_interrupt(L);
		}
		/* Spin briefly (rxe completes in microseconds), then yield the CPU
		 * to rxe's own threads, then sleep in short naps. */
		if (++idle < 4096)
			continue;
		double t = now_ms();
		if (t0 == 0)
			t0 = t;
		if (timeout >= 0 && t - t0 >= timeout)
			break;
		if (t - t0 < 2)
			sched_yield();
		else
			nanosleep(&(struct timespec){ .tv_nsec = 50000 }, NULL);
	}
	return got;
}

/* The list form, apart: its batch array would make each wait into a
 * wc_array (the loop's form) pay for a frame it does not use. */
__attribute__((noinline))
static int wait_tables(lua_State *L, struct vnode *n, int want, double timeout, int got, int *err)
{
	struct ibv_wc batch[WC_BATCH];
	return wait_wcs(L, n, want, timeout, batch, got, true, err);
}

/* Say it when the timeout or a failed poll (err) cut a wait short: an
 * empty or short list, or a count below n, alone looks like success.
 * Pushes the second value; returns 1 when it did. */
static int timed_out(lua_State *L, int got, int want, double timeout, int err)
{
	if (got >= want)
		return 0;
	if (err) {
		lua_pushfstring(L, "ibv_poll_cq failed after %d of %d completions: %s (errno %d); those are returned, "
				   "and the next poll meets the error again", got, want, verrname(err) ? verrname(err) : "?",
				err);
		return 1;
	}
	if (timeout < 0)
		return 0;
	lua_pushfstring(L, "timed out after %d ms: %d of %d completions", (int)timeout, got, want);
	return 1;
}

/* cq:wait in all its forms but the loop's (l_wait, below):
 * cq:wait(n [, timeout_ms]) -> list of up to n WCs: polls until n arrived or
 * the timeout passed (none: forever).
 * cq:wait(wcs [, n = 1 [, timeout_ms]]) -> count: the same into a wc_array.
 * Either form cut short by its timeout also returns "timed out after ...". */
__attribute__((noinline))
static int wait_other(lua_State *L, struct vnode *n, struct wc_array *a)
{
	if (vcq(n)->poll_open)
		cq_ex_idle(L, n, "wait");
	int arg = a ? 3 : 2, err = 0;
	bool none = lua_gettop(L) < arg;
	int want = none || lua_isnil(L, arg) ? 1 : (int)marsh_check_uint(L, arg, arg, 1 << 20, "n");
	double timeout = none || lua_isnoneornil(L, arg + 1) ? -1 :
		(double)marsh_check_uint(L, arg + 1, arg + 1, 0, "timeout_ms");
	if (a) {
		if (want > a->cap)
			return vargerror(L, 3, lua_pushfstring(L, "n = %d is more than the wc_array's %d entries", want,
								   a->cap));
		/* A wait that raises (Ctrl-C before anything came) wrote no entry,
		 * so what the last poll filled stays valid until this one returns. */
		wc_array_verify(L, 2, a);
		int got = wait_wcs(L, n, want, timeout, a->wc, 0, false, &err);
		wc_array_filled(L, 2, a, got);
		lua_pushinteger(L, a->filled);
		return 1 + timed_out(L, got, want, timeout, err);
	}
	lua_createtable(L, want < 8 ? want : 8, 0);
	int got = wait_tables(L, n, want, timeout, take_held(L, 1, want), &err);
	return 1 + timed_out(L, got, want, timeout, err);
}

/* cq:wait(wcs, 1) written out: the number 1, nothing after it. */
static inline bool just_one(lua_State *L, int top)
{
	return top == 3 && lua_type(L, 3) == LUA_TNUMBER && lua_tointeger(L, 3) == 1;
}

/* The loop's form, cq:wait(wcs) or cq:wait(wcs, 1), is served here when its
 * first poll finds the completion (in a loop it mostly does): nothing else
 * is read. A poll that finds none, or an error, is met again by
 * wait_other's, which waits or raises. */
static int l_wait(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cq);
	struct wc_array *a = wc_array_test(L, n->st, 2);
	int top = lua_gettop(L);
	if (a && !vcq(n)->poll_open && (top == 2 || just_one(L, top)) && ibv_poll_cq(n->h, 1, a->wc) == 1) {
		wc_array_filled(L, 2, a, 1);
		lua_pushinteger(L, 1);
		return 1;
	}
	return wait_other(L, n, a);
}

/* cq:req_notify([solicited_only]): a boolean, or C's int 0 or 1 (0 is
 * every completion, though Lua would take it as true). */
static int l_req_notify(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cq);
	vnoextra(L, 2, "cq:req_notify([solicited_only])", NULL);
	int sol = lua_isnoneornil(L, 2) ? 0
		: lua_type(L, 2) == LUA_TBOOLEAN ? lua_toboolean(L, 2)
		: (int)marsh_check_uint(L, 2, 2, 1, "solicited_only (boolean, or C's 0 or 1)");
	int ret = ibv_req_notify_cq(n->h, sol);
	if (ret)
		return vraise(L, "ibv_req_notify_cq", ret, 1, 0);
	return 0;
}

/* cq:ack_events(n) */
static int l_ack_events(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_cq);
	vnoextra(L, 2, "cq:ack_events(n)", NULL);
	unsigned k = (unsigned)marsh_check_uint(L, 2, 2, 0xffffffff, "n");
	if (k > vcq(n)->events)
		return vargerror(L, 2, lua_pushfstring(L, "%d events to ack, but only %d were received and not acked",
							   (int)k, (int)vcq(n)->events));
	ibv_ack_cq_events(n->h, k);
	vcq(n)->events -= k;
	return 0;
}

/* ---- completion channel ---------------------------------------------------- */

static int channel_destroy(struct vnode *n) { return ibv_destroy_comp_channel(n->h); }

static void channel_describe(lua_State *L, struct vnode *n)
{
	lua_pushfstring(L, "fd %d", ((struct ibv_comp_channel *)n->h)->fd);
}

static int channel_field(lua_State *L, struct vnode *n, const char *key)
{
	if (strcmp(key, "fd") != 0)
		return 0;
	lua_pushinteger(L, ((struct ibv_comp_channel *)n->h)->fd);
	return 1;
}

/* ctx:create_comp_channel() */
int channel_create(lua_State *L)
{
	struct vnode *c = vobj_check(L, 1, &vc_context);
	vnoextra(L, 1, "ctx:create_comp_channel()", NULL);
	int deps[] = { 1 };
	struct vnode *n = vobj_new(L, &vc_channel, 1, deps);
	struct ibv_comp_channel *ch = ibv_create_comp_channel(c->h);
	int err = errno;
	if (!ch)
		return vraise(L, "ibv_create_comp_channel", err, 1, 0);
	vobj_set(n, ch);
	return 1;
}

/* channel:get_cq_event([timeout_ms]) -> the cq, or nil after the timeout.
 * The event counts as received: cq:ack_events(n) acknowledges it (and
 * destroying the CQ acknowledges what is left). */
static int l_get_cq_event(lua_State *L)
{
	struct vnode *n = vobj_check(L, 1, &vc_channel);
	lua_Integer timeout = lua_isnoneornil(L, 2) ? -1 : (lua_Integer)marsh_check_uint(L, 2, 2, 0, "timeout_ms");
	struct ibv_comp_channel *ch = n->h;
	struct ibv_cq *cq;
	void *cq_ctx;

	if (!wait_readable(L, ch->fd, timeout)) {
		lua_pushnil(L);
		return 1;
	}
	int ret = ibv_get_cq_event(ch, &cq, &cq_ctx);
	int err = errno;
	struct vnode *cn = ret ? NULL : vobj_find(L, cq);
	if (cn)
		vcq(cn)->events++;   /* before the recorder: destroying the CQ acks it, not waits for it forever */
	if (ret)
		return vraise(L, "ibv_get_cq_event", err, 1, 0);
	if (!cn) {   /* cannot happen while the CQ's node lives; ack so that nothing hangs */
		ibv_ack_cq_events(cq, 1);
		return luaL_error(L, "get_cq_event: event for an unknown CQ");
	}
	if (!vobj_push(L, cn))
		lua_pushnil(L);
	return 1;
}

static const luaL_Reg cq_methods[] = {
	{ "poll", l_poll }, { "wait", l_wait }, { "req_notify", l_req_notify }, { "ack_events", l_ack_events },
	{ NULL, NULL }
};
static const luaL_Reg channel_methods[] = { { "get_cq_event", l_get_cq_event }, { NULL, NULL } };

const struct vclass vc_cq = {
	.size = sizeof(struct vcq),
	.index = VC_CQ,
	.kind = "cq", .var = "cq", .tname = "verbs.cq", .destroy_verb = "ibv_destroy_cq",
	.destroy_method = "destroy", .destroy = cq_destroy, .describe = cq_describe, .field = cq_field,
	.fields = (const char *const[]){ "cqe", "handle", "channel", "wc_flags", "wr_id", "status", NULL },
	.methods = cq_methods, .more_methods = cq_ex_methods,
};
const struct vclass vc_channel = {
	.index = VC_CHANNEL,
	.kind = "comp_channel", .var = "channel", .tname = "verbs.comp_channel",
	.destroy_verb = "ibv_destroy_comp_channel", .destroy_method = "destroy", .destroy = channel_destroy,
	.describe = channel_describe, .field = channel_field,
	.fields = (const char *const[]){ "fd", NULL }, .methods = channel_methods,
};

void cq_open(lua_State *L)
{
	vobj_register(L, &vc_cq);
	vobj_register(L, &vc_channel);
}
