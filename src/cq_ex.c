/* The extended CQ: ibv_create_cq_ex, and polling one completion at a time
 * with ibv_start_poll / ibv_next_poll / ibv_end_poll and the
 * ibv_wc_read_* accessors, instead of copying whole struct ibv_wc.
 *
 *   cq = ctx:create_cq_ex{ cqe = 16, wc_flags = { "BYTE_LEN", "IMM", "QP_NUM" } }
 *   if cq:start_poll() then                 -- false: empty (ENOENT)
 *     repeat print(cq.wr_id, cq.status, cq:read_byte_len()) until not cq:next_poll()
 *     cq:end_poll()
 *   end
 *   for wc in cq:iter() do ... end          -- the same WCs as cq:poll()
 *
 * The CQ object is an ordinary verbs.cq too (ibv_cq_ex_to_cq), so QPs take
 * it and cq:poll, cq:wait and req_notify work on it. What verbsh enforces,
 * because the provider would hang or return garbage instead of failing:
 *   - ibv_start_poll holds the CQ's lock until ibv_end_poll, so another
 *     start_poll, cq:poll or cq:wait in between would wait forever;
 *   - after start_poll returned ENOENT the lock is not held, and end_poll
 *     must not be called;
 *   - an accessor whose field was not asked for in wc_flags has no reader,
 *     and on a failed completion only wr_id, status, vendor_err and qp_num
 *     mean anything. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "verbsh.h"

static const char CQ_ITER[] = "verbs.cq_iter";

#define CX(m, t, ...) VF(struct ibv_cq_init_attr_ex, m, t, __VA_ARGS__)
const struct vfield vf_cq_init_attr_ex[] = {
	CX(cqe, VT_UINT, .max = 0x7fffffff), CX(channel, VT_OBJ, .cls = &vc_channel),
	CX(comp_vector, VT_UINT, .max = 1024), CX(wc_flags, VT_FLAGS, .en = &ve_create_cq_wc_flags),
	CX(comp_mask, VT_FLAGS, .en = &ve_cq_init_attr_mask),
	CX(flags, VT_FLAGS, .en = &ve_create_cq_attr_flags, .bit = IBV_CQ_INIT_ATTR_MASK_FLAGS),
	VF_END
};

static struct ibv_cq_ex *cqx(struct vnode *n) { return (struct ibv_cq_ex *)n->h; }

/* A provider bug that the man page's own sequence trips: in rdma-core
 * before 55 (Debian 12 ships 44), rxe's ibv_next_poll, when it returns
 * ENOENT, has already stored the consumer index and released the CQ, and
 * ibv_end_poll then advances the index once more, past the producer: from
 * then on the CQ hands out stale entries (fixed upstream by "rxe: fix
 * completion queue consumer index overrun", rdma-core 55). On such a
 * provider verbsh's end_poll skips the provider's call in exactly that
 * case, and the trace says so. */
enum { QUIRK_END_AFTER_ENOENT = 1 };

/* rdma-core's version, from the file name of the libibverbs in use
 * (libibverbs.so.1.14.44.0 -> 44), or 0 when it cannot tell. */
static int rdma_core_version(void)
{
	Dl_info info;
	char *real;
	int abi, ver = 0;
	if (!dladdr((void *)ibv_open_device, &info) || !info.dli_fname || !(real = realpath(info.dli_fname, NULL)))
		return 0;
	const char *base = strrchr(real, '/');
	if (sscanf(base ? base + 1 : real, "libibverbs.so.1.%d.%d", &abi, &ver) != 2)
		ver = 0;
	free(real);
	return ver;
}

static unsigned provider_quirks(struct ibv_context *ctx)
{
	int version = rdma_core_version();   /* once per CQ: no cache to keep per process */
	struct ibv_device_attr a;
	/* rxe reports vendor_id 0xffffff (the kernel's RXE_VENDOR_ID). */
	if (version > 0 && version < 55 && ibv_query_device(ctx, &a) == 0 && a.vendor_id == 0xffffff)
		return QUIRK_END_AFTER_ENOENT;
	return 0;
}

/* ibv_end_poll, or nothing where the provider already ended the poll. */
static bool end_poll(struct vnode *n)
{
	bool skip = (vcq(n)->quirks & QUIRK_END_AFTER_ENOENT) && !vcq(n)->has_current;
	if (!skip)
		ibv_end_poll(cqx(n));
	vcq(n)->poll_open = false;
	vcq(n)->has_current = false;
	vcq(n)->iter_poll = false;
	return !skip;
}

/* The wc_flags whose reader the provider filled in. A field asked for but
 * left without one is treated as not asked (read_* then says so), so that
 * no ibv_wc_read_* ever calls through NULL, whatever the provider did. */
static uint64_t readers_of(const struct ibv_cq_ex *x)
{
	const struct { uint64_t flag; bool set; } r[] = {
		{ IBV_WC_EX_WITH_BYTE_LEN, x->read_byte_len }, { IBV_WC_EX_WITH_IMM, x->read_imm_data },
		{ IBV_WC_EX_WITH_QP_NUM, x->read_qp_num }, { IBV_WC_EX_WITH_SRC_QP, x->read_src_qp },
		{ IBV_WC_EX_WITH_SLID, x->read_slid }, { IBV_WC_EX_WITH_SL, x->read_sl },
		{ IBV_WC_EX_WITH_DLID_PATH_BITS, x->read_dlid_path_bits },
		{ IBV_WC_EX_WITH_COMPLETION_TIMESTAMP, x->read_completion_ts },
		{ IBV_WC_EX_WITH_CVLAN, x->read_cvlan }, { IBV_WC_EX_WITH_FLOW_TAG, x->read_flow_tag },
		{ IBV_WC_EX_WITH_TM_INFO, x->read_tm_info },
		{ IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK, x->read_completion_wallclock_ns },
	};
	uint64_t ok = ~(uint64_t)0;
	for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
		if (!r[i].set)
			ok &= ~r[i].flag;
	return ok;
}

/* ctx:create_cq_ex{ cqe=, wc_flags=, channel=, comp_vector=, flags=, comp_mask= } */
int cq_create_ex(lua_State *L)
{
	struct vnode *c = vobj_check(L, 1, &vc_context);
	struct ibv_cq_init_attr_ex a = { 0 };

	vchecktable(L, 2);
	lua_settop(L, 2);
	uint64_t mask = marsh_read(L, 2, 2, vf_cq_init_attr_ex, &a);
	lua_pushliteral(L, "comp_mask");   /* raw reads, as marsh_read's */
	if (lua_rawget(L, 2) == LUA_TNIL)
		a.comp_mask = (uint32_t)mask;
	else
		marsh_warn_unmasked(L, 2, vf_cq_init_attr_ex, mask, a.comp_mask, &ve_cq_init_attr_mask);
	lua_pop(L, 1);
	lua_pushliteral(L, "cqe");
	if (lua_rawget(L, 2) == LUA_TNIL)
		return vargerror(L, 2, "key 'cqe' is required (the least number of entries)");
	lua_pop(L, 1);
	struct vnode *used[2] = { c, vobj_field(L, 2, 2, "channel", &vc_channel, &a.channel) };   /* 3: a user value */
	vobj_same_context(L, 2, "channel", used[1], c);
	int deps[] = { 1, 3 };
	struct vnode *n = vobj_new(L, &vc_cq, 2, deps);
	vobj_recheck(L, 2, used, 2);
	struct ibv_cq_init_attr_ex asked = a;
	struct ibv_cq_ex *x = ibv_create_cq_ex(c->h, &a);
	int err = errno;
	if (!x) {
		lua_createtable(L, 0, 3);
		vflags_push(L, &ve_create_cq_wc_flags, asked.wc_flags);
		lua_setfield(L, -2, "wc_flags");
		vpush_device(L, c->h);
		return vraise_create(L, "ibv_create_cq_ex", err, 1);
	}
	vobj_set(n, ibv_cq_ex_to_cq(x));
	vcq(n)->ex = x->start_poll && x->next_poll && x->end_poll && x->read_opcode && x->read_vendor_err &&
		     x->read_wc_flags;
	vcq(n)->wc_flags = asked.wc_flags & readers_of(x);
	vcq(n)->quirks = provider_quirks(c->h);
	return 1;
}

void cq_ex_idle(lua_State *L, struct vnode *n, const char *fn)
{
	if (vcq(n)->poll_open && vcq(n)->iter_poll)
		luaL_error(L, "%s: a for wc in cq:iter() loop is polling this CQ: ibv_start_poll holds the CQ until the "
			      "loop ends its poll, and %s would wait for it forever; call it after the loop (break "
			      "out of the loop to end it early)", fn, fn);
	if (vcq(n)->poll_open)
		luaL_error(L, "%s: a start_poll() is open on this CQ: ibv_start_poll holds the CQ until ibv_end_poll, "
			      "and %s would wait for it forever; call cq:end_poll() first", fn, fn);
}

void cq_ex_end(struct vnode *n)
{
	if (vcq(n)->poll_open)
		end_poll(n);
}

static struct vnode *ex_self(lua_State *L, const char *fn)
{
	struct vnode *n = vobj_check(L, 1, &vc_cq);
	if (!vcq(n)->ex)
		luaL_error(L, "%s: this CQ was made by ibv_create_cq (or its provider set up no poll functions): the "
			      "start_poll/next_poll/read_* API needs ctx:create_cq_ex{ cqe =, wc_flags = { ... } } "
			      "(cq:poll works on both)", fn);
	return n;
}

static int poll_result(lua_State *L, struct vnode *n, const char *verb, int ret)
{
	if (!ret || ret == ENOENT)
		vcq(n)->has_current = ret == 0;   /* before the recorder: verbsh's state first */
	if (ret && ret != ENOENT)
		return vraise(L, verb, ret, 1, 0);
	lua_pushboolean(L, ret == 0);
	return 1;
}

/* cq:start_poll() -> true (a completion is current: cq.wr_id, cq.status,
 * cq:read_*) or false (the CQ is empty: ENOENT, and no end_poll). */
static int l_start_poll(lua_State *L)
{
	struct vnode *n = ex_self(L, "start_poll");
	vnoextra(L, 1, "cq:start_poll()", NULL);
	if (vcq(n)->poll_open && vcq(n)->iter_poll)
		return luaL_error(L, "start_poll: a for wc in cq:iter() loop has a poll open on this CQ "
				     "(ibv_start_poll would wait for the lock it holds): the loop gives each completion, "
				     "and ends its poll when it ends; break out of it to poll again");
	if (vcq(n)->poll_open)
		return luaL_error(L, "start_poll: a poll is already open on this CQ: call cq:end_poll() first "
				     "(ibv_start_poll would wait for the lock it holds)");
	struct ibv_poll_cq_attr attr = { 0 };
	int ret = ibv_start_poll(cqx(n), &attr);
	vcq(n)->poll_open = ret == 0;
	vcq(n)->polls += ret == 0;
	return poll_result(L, n, "ibv_start_poll", ret);
}

/* cq:next_poll() -> true, or false when no more (end_poll still needed). */
static int l_next_poll(lua_State *L)
{
	struct vnode *n = ex_self(L, "next_poll");
	vnoextra(L, 1, "cq:next_poll()", NULL);
	if (!vcq(n)->poll_open)
		return luaL_error(L, "next_poll: no poll is open: call cq:start_poll() first, and next_poll only "
				     "after it returned true");
	return poll_result(L, n, "ibv_next_poll", ibv_next_poll(cqx(n)));
}

/* cq:end_poll(): releases the CQ and consumes the completions read. */
static int l_end_poll(lua_State *L)
{
	struct vnode *n = ex_self(L, "end_poll");
	vnoextra(L, 1, "cq:end_poll()", NULL);
	if (!vcq(n)->poll_open)
		return luaL_error(L, "end_poll: no poll is open. Call ibv_end_poll only after a start_poll that "
				     "returned true (0): when start_poll returns false (ENOENT, the CQ was empty) it "
				     "has already let go of the CQ, and ending it again would release a lock nobody holds");
	/* false: the provider call was skipped (the rxe workaround above) */
	lua_pushboolean(L, end_poll(n));
	return 1;
}

/* The current completion, or an error saying why there is none. flag: the
 * wc_flags bit the field needs (0: always there); ok_on_error: whether the
 * field means anything on a failed completion. */
static struct ibv_cq_ex *current(lua_State *L, struct vnode **np, const char *fn, uint64_t flag, bool ok_on_error)
{
	struct vnode *n = ex_self(L, fn);
	if (!vcq(n)->poll_open || !vcq(n)->has_current)
		luaL_error(L, "%s: no current completion: read it after cq:start_poll() or cq:next_poll() returned "
			      "true, and before cq:end_poll()", fn);
	if (flag && !(vcq(n)->wc_flags & flag))
		luaL_error(L, "%s: this CQ was created without %s in wc_flags, so the provider has no reader for it: "
			      "create it with ctx:create_cq_ex{ ..., wc_flags = { ..., \"%s\" } }", fn,
			   venum_name(&ve_create_cq_wc_flags, (int64_t)flag), venum_name(&ve_create_cq_wc_flags, (int64_t)flag));
	struct ibv_cq_ex *x = cqx(n);
	if (!ok_on_error && x->status != IBV_WC_SUCCESS)
		luaL_error(L, "%s: this completion failed with %s, and then only wr_id, status, vendor_err and qp_num "
			      "are valid (verbs.explain(\"%s\") says why it failed)", fn,
			   venum_name(&ve_wc_status, x->status), venum_name(&ve_wc_status, x->status));
	*np = n;
	return x;
}

/* The ibv_wc_read_* accessors whose result is an integer. */
#define READER(what, flag, ok_on_error, expr)                                             \
	static int l_read_##what(lua_State *L)                                            \
	{                                                                                 \
		struct vnode *n;                                                          \
		struct ibv_cq_ex *x = current(L, &n, "read_" #what, flag, ok_on_error);   \
		lua_Integer v = (lua_Integer)(expr);                                      \
		lua_pushinteger(L, v);                                                    \
		return 1;                                                                 \
	}
READER(vendor_err, 0, true, ibv_wc_read_vendor_err(x))
READER(byte_len, IBV_WC_EX_WITH_BYTE_LEN, false, ibv_wc_read_byte_len(x))
READER(imm_data, IBV_WC_EX_WITH_IMM, false, ntohl(ibv_wc_read_imm_data(x)))
/* The rkey a received SEND_WITH_INV revoked: imm_data's bytes, host order. */
READER(invalidated_rkey, IBV_WC_EX_WITH_IMM, false, ibv_wc_read_invalidated_rkey(x))
READER(qp_num, IBV_WC_EX_WITH_QP_NUM, true, ibv_wc_read_qp_num(x))
READER(src_qp, IBV_WC_EX_WITH_SRC_QP, false, ibv_wc_read_src_qp(x))
READER(slid, IBV_WC_EX_WITH_SLID, false, ibv_wc_read_slid(x))
READER(sl, IBV_WC_EX_WITH_SL, false, ibv_wc_read_sl(x))
READER(dlid_path_bits, IBV_WC_EX_WITH_DLID_PATH_BITS, false, ibv_wc_read_dlid_path_bits(x))
READER(completion_ts, IBV_WC_EX_WITH_COMPLETION_TIMESTAMP, false, ibv_wc_read_completion_ts(x))
/* The hardware reads (rxe refuses a CQ that asks for them: EOPNOTSUPP). */
READER(completion_wallclock_ns, IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK, false,
       ibv_wc_read_completion_wallclock_ns(x))
READER(cvlan, IBV_WC_EX_WITH_CVLAN, false, ibv_wc_read_cvlan(x))
READER(flow_tag, IBV_WC_EX_WITH_FLOW_TAG, false, ibv_wc_read_flow_tag(x))
static int l_read_tm_info(lua_State *L)
{
	struct vnode *n;
	struct ibv_cq_ex *x = current(L, &n, "read_tm_info", IBV_WC_EX_WITH_TM_INFO, false);
	struct ibv_wc_tm_info tm;
	ibv_wc_read_tm_info(x, &tm);
	lua_createtable(L, 0, 2);
	lua_pushinteger(L, (lua_Integer)tm.tag);
	lua_setfield(L, -2, "tag");
	lua_pushinteger(L, tm.priv);
	lua_setfield(L, -2, "priv");
	return 1;
}

static int l_read_opcode(lua_State *L)
{
	struct vnode *n;
	struct ibv_cq_ex *x = current(L, &n, "read_opcode", 0, false);
	enum ibv_wc_opcode op = ibv_wc_read_opcode(x);
	venum_push(L, &ve_wc_opcode, op);
	return 1;
}

static int l_read_wc_flags(lua_State *L)
{
	struct vnode *n;
	struct ibv_cq_ex *x = current(L, &n, "read_wc_flags", 0, false);
	unsigned f = ibv_wc_read_wc_flags(x);
	vflags_push(L, &ve_wc_flags, f);
	return 1;
}

/* cq.wr_id and cq.status: the public members of struct ibv_cq_ex, valid
 * while a completion is current. */
int cq_ex_field(lua_State *L, struct vnode *n, const char *key)
{
	bool id = strcmp(key, "wr_id") == 0;
	if (!id && strcmp(key, "status") != 0)
		return 0;
	struct ibv_cq_ex *x = current(L, &n, id ? "cq.wr_id" : "cq.status", 0, true);
	if (id)
		lua_pushinteger(L, (lua_Integer)x->wr_id);
	else
		venum_push(L, &ve_wc_status, x->status);
	return 1;
}

/* ---- cq:iter(): for wc in cq:iter() do ... end --------------------------------- */

/* The current completion as the WC cq:poll gives, with only the fields
 * the CQ's wc_flags asked for. */
static void push_current(lua_State *L, struct vnode *n)
{
	struct ibv_cq_ex *x = cqx(n);
	struct ibv_wc wc = { .wr_id = x->wr_id, .status = x->status, .vendor_err = ibv_wc_read_vendor_err(x) };
	uint64_t f = vcq(n)->wc_flags;
	if (f & IBV_WC_EX_WITH_QP_NUM)
		wc.qp_num = ibv_wc_read_qp_num(x);
	if (wc.status == IBV_WC_SUCCESS) {
		wc.opcode = ibv_wc_read_opcode(x);
		wc.wc_flags = ibv_wc_read_wc_flags(x);
		if (f & IBV_WC_EX_WITH_BYTE_LEN)
			wc.byte_len = ibv_wc_read_byte_len(x);
		/* imm_data's bytes also hold an invalidated rkey (WITH_INV; rxe's
		 * IP_CSUM_OK bit, src/wc.c): the WC shows the one its flags say */
		if ((f & IBV_WC_EX_WITH_IMM) && (wc.wc_flags & (IBV_WC_WITH_IMM | IBV_WC_WITH_INV | IBV_WC_IP_CSUM_OK)))
			wc.imm_data = ibv_wc_read_imm_data(x);
		if (f & IBV_WC_EX_WITH_SRC_QP)
			wc.src_qp = ibv_wc_read_src_qp(x);
		if (f & IBV_WC_EX_WITH_SLID)
			wc.slid = ibv_wc_read_slid(x);
		if (f & IBV_WC_EX_WITH_SL)
			wc.sl = ibv_wc_read_sl(x);
		if (f & IBV_WC_EX_WITH_DLID_PATH_BITS)
			wc.dlid_path_bits = ibv_wc_read_dlid_path_bits(x);
	}
	/* What was not asked for is absent, not a made-up 0. */
	static const struct { uint64_t flag; const char *key; } opt[] = {
		{ IBV_WC_EX_WITH_QP_NUM, "qp_num" }, { IBV_WC_EX_WITH_BYTE_LEN, "byte_len" },
		{ IBV_WC_EX_WITH_IMM, "imm_data" }, { IBV_WC_EX_WITH_IMM, "invalidated_rkey" }, { IBV_WC_EX_WITH_SRC_QP, "src_qp" },
		{ IBV_WC_EX_WITH_SLID, "slid" }, { IBV_WC_EX_WITH_SL, "sl" },
		{ IBV_WC_EX_WITH_DLID_PATH_BITS, "dlid_path_bits" }, { ~(uint64_t)0, "pkey_index" },
	};
	unsigned absent = 0;
	for (size_t i = 0; i < sizeof opt / sizeof opt[0]; i++)
		if (!(f & opt[i].flag) || opt[i].flag == ~(uint64_t)0)
			absent |= wc_field_bit(opt[i].key);
	wc_push_without(L, &wc, absent);
}

struct cq_iter {
	struct vnode *n;
	bool started, done;
	unsigned poll;   /* the CQ's count of polls when this loop opened its own */
};

/* The poll this loop opened is gone: the loop's body ended it (cq:end_poll,
 * maybe then a cq:start_poll of its own) or destroyed the CQ. ibv_next_poll
 * on it would read a poll nobody holds: stale entries, or a completion
 * another poll already took. */
__attribute__((noreturn))
static void iter_lost(lua_State *L, struct cq_iter *it, struct vnode *n)
{
	it->done = true;   /* nothing of the loop's is left to end: a poll open now is not its own */
	if (!n)
		luaL_error(L, "cq:iter(): the CQ was destroyed inside the for wc in cq:iter() loop; break out of the "
			      "loop first (the loop ends its poll itself), then call cq:destroy()");
	luaL_error(L, "cq:iter(): cq:end_poll() was called inside the for wc in cq:iter() loop, which ended the poll "
		      "the loop was reading%s; to stop early, break out of the loop instead (the loop ends its "
		      "poll itself)",
		   !vcq(n)->poll_open ? "" :
		   vcq(n)->iter_poll ? " (the poll open now is another cq:iter() loop's)" :
				       " (the poll open now is another one, from cq:start_poll(): end it with cq:end_poll())");
	abort();   /* not reached */
}

/* iter(state): the next completion's table, or nil (and the poll ended). */
static int iter_next(lua_State *L)
{
	struct cq_iter *it = luaL_checkudata(L, 1, CQ_ITER);
	if (it->done)
		return 0;
	lua_getiuservalue(L, 1, 1);   /* the cq: checked live at every step */
	lua_replace(L, 1);
	lua_settop(L, 1);
	if (it->started) {
		struct vnode *gone = vobj_test(L, 1, &vc_cq);
		if (!gone || !gone->h)
			iter_lost(L, it, NULL);
	}
	struct vnode *n = vobj_check(L, 1, &vc_cq);
	int ret;
	if (!it->started) {
		it->started = true;
		cq_ex_idle(L, n, "iter");
		ret = ibv_start_poll(cqx(n), &(struct ibv_poll_cq_attr){ 0 });
		vcq(n)->poll_open = ret == 0;
		vcq(n)->iter_poll = ret == 0;
		it->poll = vcq(n)->polls += ret == 0;
	} else if (!vcq(n)->poll_open || vcq(n)->polls != it->poll) {
		iter_lost(L, it, n);
	} else if (!vcq(n)->has_current) {
		/* a cq:next_poll() in the loop's body returned false: the poll
		 * has nothing more, and another next_poll would read past it */
		it->done = true;
		cq_ex_end(n);
		return 0;
	} else {
		ret = ibv_next_poll(cqx(n));
	}
	if (ret) {
		const char *verb = vcq(n)->poll_open ? "ibv_next_poll" : "ibv_start_poll";
		it->done = true;
		vcq(n)->has_current = false;
		cq_ex_end(n);   /* after next_poll's ENOENT; nothing to end after start_poll's */
		if (ret != ENOENT)
			return vraise(L, verb, ret, 1, 0);
		return 0;
	}
	vcq(n)->has_current = true;
	push_current(L, n);
	return 1;
}

/* Leaving the loop early (break, error) still ends the poll. */
static int iter_close(lua_State *L)
{
	struct cq_iter *it = luaL_checkudata(L, 1, CQ_ITER);
	if (!it->done && it->started) {
		lua_getiuservalue(L, 1, 1);
		struct vnode *n = vobj_test(L, -1, &vc_cq);
		if (n && n->h)
			cq_ex_end(n);
	}
	it->done = true;
	return 0;
}

/* cq:iter() -> next, state, nil, state: a generic for with a closing value. */
static int l_iter(lua_State *L)
{
	struct vnode *n = ex_self(L, "iter");
	vnoextra(L, 1, "cq:iter()", NULL);
	cq_ex_idle(L, n, "iter");
	lua_pushcfunction(L, iter_next);
	struct cq_iter *it = lua_newuserdatauv(L, sizeof *it, 1);
	*it = (struct cq_iter){ .n = n };
	lua_pushvalue(L, 1);
	lua_setiuservalue(L, -2, 1);
	luaL_setmetatable(L, CQ_ITER);
	lua_pushnil(L);
	lua_pushvalue(L, -2);
	return 4;
}

const luaL_Reg cq_ex_methods[] = {
	{ "start_poll", l_start_poll }, { "next_poll", l_next_poll }, { "end_poll", l_end_poll },
	{ "read_opcode", l_read_opcode }, { "read_vendor_err", l_read_vendor_err },
	{ "read_byte_len", l_read_byte_len }, { "read_imm_data", l_read_imm_data },
	{ "read_invalidated_rkey", l_read_invalidated_rkey },
	{ "read_qp_num", l_read_qp_num }, { "read_src_qp", l_read_src_qp }, { "read_wc_flags", l_read_wc_flags },
	{ "read_slid", l_read_slid }, { "read_sl", l_read_sl }, { "read_dlid_path_bits", l_read_dlid_path_bits },
	{ "read_completion_ts", l_read_completion_ts }, { "iter", l_iter },
	{ "read_completion_wallclock_ns", l_read_completion_wallclock_ns }, { "read_cvlan", l_read_cvlan },
	{ "read_flow_tag", l_read_flow_tag }, { "read_tm_info", l_read_tm_info },
	{ NULL, NULL }
};

void cq_ex_open(lua_State *L)
{
	static const luaL_Reg meta[] = { { "__close", iter_close }, { "__gc", iter_close }, { NULL, NULL } };
	luaL_newmetatable(L, CQ_ITER);
	luaL_setfuncs(L, meta, 0);
	lua_pop(L, 1);
}
