/* Posting work requests: qp:post_send, qp:post_recv (and srq:post_srq_recv
 * through post_recv_list). A list of WRs is posted as ONE chained C call,
 * and a failure names the WR that the provider rejected.
 *
 * Posting is the benchmark's hot path: WRs and SGEs go into stack arrays
 * (a temporary userdata only for long lists), nothing else is allocated.
 * The tables are read and checked by wr_read.c, which reads prepared WRs
 * (wr.c) too, once; a prepared WR is posted through wr.c. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include "prepared.h"

/* WRs and SGEs of a post go on the stack up to these counts. */
#define WR_STACK 16
#define SGE_STACK 64

/* ---- posting ------------------------------------------------------------------ */

/* The SGEs the WR table or list at idx names: the length of each sg_list
 * that is a table (what is no table is refused while the WRs are read). */
static size_t sges_named(lua_State *L, int idx, int count, bool is_list)
{
	size_t n = 0;
	for (int i = 1; i <= count; i++) {
		if (is_list && lua_rawgeti(L, idx, i) != LUA_TTABLE) {
			lua_pop(L, 1);
			continue;
		}
		lua_pushliteral(L, "sg_list");
		if (lua_rawget(L, is_list ? -2 : idx) == LUA_TTABLE)
			n += lua_rawlen(L, -1);
		lua_pop(L, is_list ? 2 : 1);
	}
	return n;
}

/* Room for count WRs of wsize bytes and the nsge SGEs they name: the stack
 * arrays, or a temporary userdata sized for them (a post is as long as C
 * allows: the provider judges its lengths, as in C). */
static void *wr_room(lua_State *L, int count, size_t nsge, size_t wsize, void *stack, struct sge_pool *p)
{
	if (count <= WR_STACK && nsge <= SGE_STACK)
		return stack;
	if (nsge > INT_MAX)
		luaL_error(L, "%I SGEs in one post: more than verbsh can hold", (lua_Integer)nsge);
	char *mem = lua_newuserdatauv(L, (size_t)count * wsize + nsge * sizeof(struct ibv_sge), 0);
	p->sge = (struct ibv_sge *)(mem + (size_t)count * wsize);
	p->cap = (int)nsge;
	return mem;
}

/* The table forms of qp:post_send and post_recv sit in functions of their
 * own (never inlined): their stack arrays would make each prepared post,
 * the loop's form, pay for a frame it does not use. */
__attribute__((noinline))
static int post_send_tables(lua_State *L, struct vnode *n)
{
	struct ibv_send_wr wr_stack[WR_STACK], *wrs, *bad = NULL;
	struct ibv_sge sge_stack[SGE_STACK];
	struct sge_pool p = { .sge = sge_stack, .cap = SGE_STACK, .arg = 2, .path = "", .owner = n,
			      .ctx = ((struct ibv_qp *)n->h)->context };

	lua_settop(L, 2);
	vchecktable(L, 2);
	int count = wr_count(L, 2), is_list = count > 0;
	if (!is_list)
		count = 1;
	wrs = wr_room(L, count, sges_named(L, 2, count, is_list), sizeof *wrs, wr_stack, &p);
	uint8_t union_stack[WR_STACK], *unions = count <= WR_STACK ? union_stack : lua_newuserdatauv(L, count, 0);
	wrs_read(L, 2, 2, count, is_list, true, wrs, &p, unions);
	send_wrs_check(L, 2, n->h, wrs, unions, is_list);
	int ret = ibv_post_send(n->h, wrs, &bad);
	int badi = ret ? wr_bad_index(wrs, bad, true) : 0;
	if (!ret && n->st->capturing)
		capture_note_posts(L, n, wrs);
	for (struct ibv_send_wr *w = wrs; !ret && w; w = w->next)
		if (w->opcode == IBV_WR_BIND_MW)
			mw_note_bind(L, w->bind_mw.mw, w->bind_mw.rkey);
	if (!ret)
		return 0;
	if (is_list)
		lua_rawgeti(L, 2, badi);
	else
		lua_pushvalue(L, 2);
	return post_error(L, "ibv_post_send", ret, 1, badi, n->h);
}

/* Everything but the loop's form: a WR table or list, a prepared WR to
 * check (again) or to capture, or an error to raise. */
__attribute__((noinline))
static int post_send_other(lua_State *L, struct vnode *n)
{
	qp_ex_idle(L, n, "post_send");
	if (lua_type(L, 2) == LUA_TUSERDATA)
		return prepared_post_send(L, n);
	return post_send_tables(L, n);
}

/* qp:post_send(wr, a list of WRs, or a prepared verbs.send_wr). The loop's
 * form, a prepared WR whose checks hold, is posted here and nothing else
 * is tested: no wr_start session may hold the send queue (qp_ex_idle) and
 * no capture may want the post noted. */
int qp_post_send(lua_State *L)
{
	struct prepared *pw = prepared_ready(L, 1, 2, SEND_WR);
	struct vnode *n = pw ? pw->ok_node : NULL;
	if (pw && !vqp(n)->wr_open && !n->st->capturing) {
		struct ibv_send_wr *bad = NULL;
		int ret = ibv_post_send(n->h, pw->wrs, &bad);
		return ret ? prepared_fail(L, "ibv_post_send", ret, 1, pw, bad, n->h) : 0;
	}
	return post_send_other(L, vobj_check(L, 1, &vc_qp));
}

__attribute__((noinline))
static int post_recv_tables(lua_State *L, struct vnode *n, int self, int idx, const char *verb, void *h)
{
	struct ibv_recv_wr wr_stack[WR_STACK], *wrs, *bad = NULL;
	struct ibv_sge sge_stack[SGE_STACK];
	bool srq = n->cls == &vc_srq;
	struct sge_pool p = { .sge = sge_stack, .cap = SGE_STACK, .arg = idx, .path = "", .owner = n,
			      .ctx = srq ? ((struct ibv_srq *)h)->context : ((struct ibv_qp *)h)->context };

	lua_settop(L, idx);
	vchecktable(L, idx);
	int count = wr_count(L, idx), is_list = count > 0;
	if (!is_list)
		count = 1;
	wrs = wr_room(L, count, sges_named(L, idx, count, is_list), sizeof *wrs, wr_stack, &p);
	wrs_read(L, idx, idx, count, is_list, false, wrs, &p, NULL);
	int ret = srq ? ibv_post_srq_recv(h, wrs, &bad) : ibv_post_recv(h, wrs, &bad);
	int badi = ret ? wr_bad_index(wrs, bad, false) : 0;
	if (!ret)
		return 0;
	if (is_list)
		lua_rawgeti(L, idx, badi);
	else
		lua_pushvalue(L, idx);
	return post_error(L, verb, ret, self, badi, srq ? NULL : h);
}

int post_recv_list(lua_State *L, struct vnode *n, const char *verb)
{
	if (lua_type(L, 2) == LUA_TUSERDATA)
		return prepared_post_recv(L, n, 1, 2, verb, n->h);
	return post_recv_tables(L, n, 1, 2, verb, n->h);
}

/* qp:post_recv(wr, a list of WRs, or a prepared verbs.recv_wr); the loop's
 * form, as in qp:post_send, is posted here. */
int qp_post_recv(lua_State *L)
{
	struct prepared *pw = prepared_ready(L, 1, 2, RECV_WR);
	if (pw && pw->ok_node->cls == &vc_qp) {
		struct ibv_recv_wr *bad = NULL;
		int ret = ibv_post_recv(pw->ok_node->h, pw->wrs, &bad);
		return ret ? prepared_fail(L, "ibv_post_recv", ret, 1, pw, bad, pw->ok_node->h) : 0;
	}
	return post_recv_list(L, vobj_check(L, 1, &vc_qp), "ibv_post_recv");
}
