/* prepared.h: the prepared WR (verbs.send_wr, verbs.recv_wr; wr.c) as the
 * posts see it. A loop posts the same prepared WR to the same QP millions of
 * times; prepared_ready lets qp:post_send and qp:post_recv (post.c) post it
 * with no test but those below, inline. Everything else, and every error,
 * goes through wr.c's prepared_post_send and prepared_post_recv. */
#ifndef VERBSH_PREPARED_H
#define VERBSH_PREPARED_H
#include "verbsh.h"

/* The metatable names, and the tags: pointers to these constants. */
extern const char SEND_WR[], RECV_WR[];

struct prepared {
	const char *tag;        /* SEND_WR or RECV_WR: what vtagged_test checks */
	bool send;
	int count;              /* WRs in the chain */
	int nsge;
	int ndeps;
	void *wrs;              /* count ibv_send_wr or ibv_recv_wr, chained */
	struct ibv_sge *sge;
	struct vnode **deps;    /* the MRs and AHs named */
	struct wr_dep_at *dep_at;   /* where each was named, for an error (struct sge_pool) */
	uint8_t *unions;        /* per WR: the member of the union wr it was given (WR_UNION_*) */
	/* The checks of a post passed for the object (QP or SRQ) ok_node,
	 * whose userdata is at ok_ud, while its state's changes counter
	 * (vobj_changes) was ok_at; 0: not checked since the WR was made or
	 * changed. A finalized userdata bumps the counter before its memory
	 * can be reused, so while ok_at holds, ok_ud is still that object's. */
	unsigned long ok_at;
	const void *ok_ud;
	struct vnode *ok_node;
	const struct vstate *ok_st;
};

/* The prepared WR of kind tag at idx if its last checks still hold for the
 * object at self: the same userdata, and no object of the state destroyed
 * or finalized since (nor the WR changed). Then pw->ok_node is that live
 * QP or SRQ, found without testing self's type or size. Else NULL: the
 * caller takes the slow path, which checks again or raises. (A light
 * userdata holding that live object's address would be taken as it: only
 * C can make one, and the memory read is the object's.) */
static inline struct prepared *prepared_ready(lua_State *L, int self, int idx, const char *tag)
{
	const void *ud = lua_touserdata(L, self);
	struct prepared *pw = vtagged_test(L, idx, tag, sizeof *pw);
	if (pw && ud && ud == pw->ok_ud && pw->ok_at == pw->ok_st->changes)
		return pw;
	return NULL;
}

/* Raises the verb's error for a post of pw that returned err, bad being
 * the WR the provider refused; self: the QP's or SRQ's index. */
int prepared_fail(lua_State *L, const char *verb, int err, int self, struct prepared *pw, void *bad, struct ibv_qp *qp);

#endif
