/* The librdmacm functions cm.c calls, as forwarders to librdmacm loaded on
 * first use (lazylib.h): loading and binding it at every start was a tenth
 * of the instructions of `verbsh -e ''`, for the few scripts that use
 * verbs.create_event_channel (the rest of verbs needs only libibverbs).
 *
 * cm.c reaches librdmacm only through rdma_create_event_channel and
 * rdma_create_id (every other call takes what they made). When librdmacm
 * cannot be loaded, each call fails as librdmacm's own failures do (-1 or
 * NULL) with errno ELIBACC, and the reason is written to stderr once.
 * A new rdma_* call in cm.c needs its forwarder here (else the link fails
 * with an undefined reference). */
#include <errno.h>
#include <netdb.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <netinet/in.h>
#include <infiniband/verbs.h>
#include "lazylib.h"
/* Hidden, also in ./verbsh: these must never interpose on a real librdmacm
 * that something else in the process loads. */
#pragma GCC visibility push(hidden)
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#ifndef RDMACM_SONAME
#define RDMACM_SONAME "librdmacm.so.1"
#endif

static struct vlib librdmacm = { .soname = RDMACM_SONAME };

/* NAME's function in librdmacm, or NULL (errno ELIBACC, the reason told once) */
#define REAL(name) ({ \
	__typeof__(&name) f_ = VLIB_REAL(librdmacm, name); \
	if (!f_) \
		unavailable(); \
	f_; })

static void unavailable(void)
{
	static int told;
	if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED)) {
		fprintf(stderr, "verbsh: librdmacm cannot be loaded: %s\n", librdmacm.error);
		fflush(stderr);
	}
	errno = ELIBACC;
}

/* FWD(ret, name, failure, (params), (args)) */
#define FWD(ret, name, failure, params, args) \
	ret name params \
	{ \
		__typeof__(&name) f = REAL(name); \
		return f ? f args : failure; \
	}
#define FWD_VOID(name, params, args) \
	void name params \
	{ \
		__typeof__(&name) f = REAL(name); \
		if (f) \
			f args; \
	}

FWD(struct rdma_event_channel *, rdma_create_event_channel, NULL, (void), ())
FWD_VOID(rdma_destroy_event_channel, (struct rdma_event_channel *ch), (ch))
FWD(int, rdma_create_id, -1, (struct rdma_event_channel *ch, struct rdma_cm_id **id, void *context,
	enum rdma_port_space ps), (ch, id, context, ps))
FWD(int, rdma_destroy_id, -1, (struct rdma_cm_id *id), (id))
FWD(int, rdma_bind_addr, -1, (struct rdma_cm_id *id, struct sockaddr *addr), (id, addr))
FWD(int, rdma_resolve_addr, -1, (struct rdma_cm_id *id, struct sockaddr *src, struct sockaddr *dst,
	int timeout_ms), (id, src, dst, timeout_ms))
FWD(int, rdma_resolve_route, -1, (struct rdma_cm_id *id, int timeout_ms), (id, timeout_ms))
FWD(int, rdma_create_qp, -1, (struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *attr),
	(id, pd, attr))
FWD_VOID(rdma_destroy_qp, (struct rdma_cm_id *id), (id))
FWD(int, rdma_connect, -1, (struct rdma_cm_id *id, struct rdma_conn_param *param), (id, param))
FWD(int, rdma_listen, -1, (struct rdma_cm_id *id, int backlog), (id, backlog))
FWD(int, rdma_accept, -1, (struct rdma_cm_id *id, struct rdma_conn_param *param), (id, param))
FWD(int, rdma_reject, -1, (struct rdma_cm_id *id, const void *data, uint8_t len), (id, data, len))
FWD(int, rdma_establish, -1, (struct rdma_cm_id *id), (id))
FWD(int, rdma_disconnect, -1, (struct rdma_cm_id *id), (id))
FWD(int, rdma_get_cm_event, -1, (struct rdma_event_channel *ch, struct rdma_cm_event **event), (ch, event))
FWD(int, rdma_ack_cm_event, -1, (struct rdma_cm_event *event), (event))
FWD(int, rdma_init_qp_attr, -1, (struct rdma_cm_id *id, struct ibv_qp_attr *attr, int *mask), (id, attr, mask))
FWD(__be16, rdma_get_src_port, 0, (struct rdma_cm_id *id), (id))
FWD(__be16, rdma_get_dst_port, 0, (struct rdma_cm_id *id), (id))
FWD(int, rdma_join_multicast, -1, (struct rdma_cm_id *id, struct sockaddr *addr, void *context), (id, addr, context))
FWD(int, rdma_join_multicast_ex, -1, (struct rdma_cm_id *id, struct rdma_cm_join_mc_attr_ex *attr, void *context),
	(id, attr, context))
FWD(int, rdma_leave_multicast, -1, (struct rdma_cm_id *id, struct sockaddr *addr), (id, addr))
FWD(int, rdma_getaddrinfo, -1, (const char *node, const char *service, const struct rdma_addrinfo *hints,
	struct rdma_addrinfo **res), (node, service, hints, res))
FWD_VOID(rdma_freeaddrinfo, (struct rdma_addrinfo *res), (res))
FWD(int, rdma_create_ep, -1, (struct rdma_cm_id **id, struct rdma_addrinfo *res, struct ibv_pd *pd,
	struct ibv_qp_init_attr *qp_init_attr), (id, res, pd, qp_init_attr))
FWD_VOID(rdma_destroy_ep, (struct rdma_cm_id *id), (id))
FWD(int, rdma_get_request, -1, (struct rdma_cm_id *listen, struct rdma_cm_id **id), (listen, id))
FWD(int, rdma_create_srq, -1, (struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_srq_init_attr *attr), (id, pd, attr))
FWD(int, rdma_create_srq_ex, -1, (struct rdma_cm_id *id, struct ibv_srq_init_attr_ex *attr), (id, attr))
FWD_VOID(rdma_destroy_srq, (struct rdma_cm_id *id), (id))

/* cm_rest.c: the rest of rdma_cma.h */
FWD(int, rdma_set_option, -1, (struct rdma_cm_id *id, int level, int optname, void *optval, size_t optlen),
    (id, level, optname, optval, optlen))
FWD(int, rdma_migrate_id, -1, (struct rdma_cm_id *id, struct rdma_event_channel *ch), (id, ch))
FWD(int, rdma_notify, -1, (struct rdma_cm_id *id, enum ibv_event_type event), (id, event))
FWD(struct ibv_context **, rdma_get_devices, NULL, (int *num), (num))
FWD_VOID(rdma_free_devices, (struct ibv_context **list), (list))
FWD(const char *, rdma_event_str, "(librdmacm cannot be loaded)", (enum rdma_cm_event_type event), (event))
FWD(int, rdma_set_local_ece, -1, (struct rdma_cm_id *id, struct ibv_ece *ece), (id, ece))
FWD(int, rdma_get_remote_ece, -1, (struct rdma_cm_id *id, struct ibv_ece *ece), (id, ece))
FWD(int, rdma_reject_ece, -1, (struct rdma_cm_id *id, const void *data, uint8_t len), (id, data, len))
FWD(int, rdma_create_qp_ex, -1, (struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *attr), (id, attr))
