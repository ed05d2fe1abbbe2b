/* A stand-in librdmacm for host tests: built as DIR/librdmacm.so.1 and found
 * through LD_LIBRARY_PATH=DIR by the dlopen of src/rdmacm_lazy.c, so that an
 * id exists on a host without rdma_cm in the kernel. It has only the calls
 * the tests reach (verbsh ends with "undefined symbol" on any other):
 * channels and ids, rdma_resolve_addr (which binds the id to the device
 * "fakecm0", as a real resolution does: id->verbs is set, never opened,
 * and reports ADDR_RESOLVED on the channel: rdma_get_cm_event, rdma_ack_cm_event),
 * rdma_resolve_route, rdma_create_qp (always refused: EINVAL),
 * rdma_join_multicast and rdma_leave_multicast (which print the group), rdma_reject_ece, rdma_set_local_ece, and
 * rdma_getaddrinfo/rdma_freeaddrinfo with rdma_create_ep/rdma_destroy_ep
 * (an id without a QP; the addrinfo's ai_flags are the hints'). What verbsh
 * hands down is printed to stderr as "fakerdmacm: ...".
 *
 * FAKERDMACM_AI_CHAIN=n makes rdma_getaddrinfo return n entries linked by
 * ai_next, entry k with its own lengths, source 192.0.2.k:7000+k, destination
 * [2001:db8::k]:8000+k and canonical names srck.example and dstk.example.
 * rdma_connect and rdma_accept print the conn_param they are handed.
 * FAKERDMACM_ROUTE_ERRNO=n makes rdma_resolve_route fail with errno n;
 * FAKERDMACM_ECE_ERRNO=n makes rdma_set_local_ece fail with errno n. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

static struct ibv_device fake_dev = { .node_type = IBV_NODE_CA, .transport_type = IBV_TRANSPORT_IB,
				      .name = "fakecm0", .dev_name = "uverbs7" };
static struct ibv_context fake_ctx = { .device = &fake_dev };

struct rdma_event_channel *rdma_create_event_channel(void)
{
	struct rdma_event_channel *ch = calloc(1, sizeof *ch);
	if (ch)
		ch->fd = eventfd(0, EFD_CLOEXEC);
	return ch;
}
void rdma_destroy_event_channel(struct rdma_event_channel *ch)
{
	close(ch->fd);
	free(ch);
}

int rdma_create_id(struct rdma_event_channel *ch, struct rdma_cm_id **id, void *context, enum rdma_port_space ps)
{
	*id = calloc(1, sizeof **id);
	if (!*id)
		return -1;
	**id = (struct rdma_cm_id){ .channel = ch, .context = context, .ps = ps,
				    .qp_type = ps == RDMA_PS_UDP ? IBV_QPT_UD : IBV_QPT_RC };
	return 0;
}
/* The id of the one event a resolution reports (ADDR_RESOLVED), readable on
 * the channel's eventfd until rdma_get_cm_event takes it. */
static struct rdma_cm_id *resolved;
int rdma_destroy_id(struct rdma_cm_id *id)
{
	if (resolved == id)
		resolved = NULL;
	free(id);
	return 0;
}


/* "A.B.C.D:PORT" of an IPv4 address, else its family */
static const char *addr_text(const struct sockaddr *sa, char *buf, size_t len)
{
	const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
	char ip[INET_ADDRSTRLEN];
	if (sa->sa_family != AF_INET || !inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip))
		snprintf(buf, len, "family %d", sa->sa_family);
	else
		snprintf(buf, len, "%s:%d", ip, ntohs(in->sin_port));
	return buf;
}

/* With a source address, its line names both ends (IPv4) */
int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src, struct sockaddr *dst, int timeout_ms)
{
	char a[64], b[64];
	if (src)
		fprintf(stderr, "fakerdmacm: resolve_addr src %s dst %s\n", addr_text(src, a, sizeof a), addr_text(dst, b, sizeof b));
	fprintf(stderr, "fakerdmacm: resolve_addr timeout %d\n", timeout_ms);
	id->verbs = &fake_ctx;
	resolved = id;
	eventfd_write(id->channel->fd, 1);
	return 0;
}
int rdma_get_cm_event(struct rdma_event_channel *ch, struct rdma_cm_event **event)
{
	eventfd_t n;
	if (!resolved || resolved->channel != ch || eventfd_read(ch->fd, &n)) {
		errno = EAGAIN;
		return -1;
	}
	*event = calloc(1, sizeof **event);
	if (!*event)
		return -1;
	(*event)->id = resolved;
	(*event)->event = RDMA_CM_EVENT_ADDR_RESOLVED;
	resolved = NULL;
	fprintf(stderr, "fakerdmacm: get_cm_event ADDR_RESOLVED\n");
	return 0;
}
int rdma_ack_cm_event(struct rdma_cm_event *event)
{
	fprintf(stderr, "fakerdmacm: ack_cm_event %d\n", event->event);
	free(event);
	return 0;
}

int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	const char *e = getenv("FAKERDMACM_ROUTE_ERRNO");
	(void)id;
	fprintf(stderr, "fakerdmacm: resolve_route timeout %d\n", timeout_ms);
	if (e && *e) {
		errno = atoi(e);
		return -1;
	}
	return 0;
}

/* rdma_create_qp fails with EINVAL: this stand-in makes no QP */
int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	(void)pd;
	fprintf(stderr, "fakerdmacm: create_qp qp_type %d bound %d\n", attr->qp_type, id->verbs != NULL);
	errno = EINVAL;
	return -1;
}

int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr, void *context)
{
	(void)id;
	char a[INET_ADDRSTRLEN] = "?";
	if (addr->sa_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)addr)->sin_addr, a, sizeof a);
	fprintf(stderr, "fakerdmacm: join_multicast %s context %p\n", a, context);
	return 0;
}
int rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	(void)id;
	(void)addr;
	fprintf(stderr, "fakerdmacm: leave_multicast\n");
	return 0;
}

/* rdma_connect and rdma_accept: the conn_param they are handed, each field
 * and the private data's bytes in hex ("none" for a NULL param) */
static int conn_print(const char *verb, struct rdma_conn_param *c)
{
	if (!c) {
		fprintf(stderr, "fakerdmacm: %s none\n", verb);
		return 0;
	}
	fprintf(stderr, "fakerdmacm: %s responder_resources %u initiator_depth %u flow_control %u retry_count %u"
		" rnr_retry_count %u srq %u qp_num 0x%x private_data_len %u:", verb, c->responder_resources,
		c->initiator_depth, c->flow_control, c->retry_count, c->rnr_retry_count, c->srq, c->qp_num,
		c->private_data_len);
	for (unsigned i = 0; i < c->private_data_len; i++)
		fprintf(stderr, " %02x", ((const unsigned char *)c->private_data)[i]);
	fputc('\n', stderr);
	return 0;
}
int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *c) { (void)id; return conn_print("connect", c); }
int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *c) { (void)id; return conn_print("accept", c); }

int rdma_reject_ece(struct rdma_cm_id *id, const void *data, uint8_t len)
{
	(void)id;
	fprintf(stderr, "fakerdmacm: reject_ece %u bytes: \"%.*s\"\n", len, (int)len, data ? (const char *)data : "");
	return 0;
}

/* What verbsh hands rdma_set_option: the level, the option, the value's
 * size and the value as the integer of that size. */
int rdma_set_option(struct rdma_cm_id *id, int level, int optname, void *optval, size_t optlen)
{
	unsigned long v = optlen == 1 ? *(uint8_t *)optval : optlen == sizeof(int) ? (unsigned long)*(int *)optval : 0;
	(void)id;
	fprintf(stderr, "fakerdmacm: set_option level %d optname %d optlen %zu value %lu\n", level, optname, optlen, v);
	return 0;
}

int rdma_set_local_ece(struct rdma_cm_id *id, struct ibv_ece *ece)
{
	const char *e = getenv("FAKERDMACM_ECE_ERRNO");
	(void)id;
	fprintf(stderr, "fakerdmacm: set_local_ece vendor_id 0x%x options 0x%x\n", ece->vendor_id, ece->options);
	if (e && *e) {
		errno = atoi(e);
		return -1;
	}
	return 0;
}

int rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints,
		     struct rdma_addrinfo **res)
{
	fprintf(stderr, "fakerdmacm: getaddrinfo %s %s\n", node ? node : "NULL", service ? service : "NULL");
	const char *chain = getenv("FAKERDMACM_AI_CHAIN");
	int n = chain ? atoi(chain) : 1;
	struct rdma_addrinfo **at = res;
	*res = NULL;
	for (int k = 1; k <= n; k++, at = &(*at)->ai_next) {
		*at = calloc(1, sizeof **at);
		if (!*at)
			return -1;
		(*at)->ai_flags = hints ? hints->ai_flags : 0;
		(*at)->ai_port_space = RDMA_PS_TCP;
		(*at)->ai_qp_type = IBV_QPT_RC;
		if (!chain)
			break;
		/* entry k of a chain: UD/UDP at even k, and lengths that tell the fields apart */
		if (k % 2 == 0) {
			(*at)->ai_port_space = RDMA_PS_UDP;
			(*at)->ai_qp_type = IBV_QPT_UD;
		}
		(*at)->ai_dst_len = 20 + k;
		(*at)->ai_route_len = 40 + k;
		(*at)->ai_connect_len = 60 + k;
		struct sockaddr_in *sin = calloc(1, sizeof *sin);
		if (!sin)
			return -1;
		sin->sin_family = AF_INET;
		sin->sin_port = htons(7000 + k);
		sin->sin_addr.s_addr = htonl(0xc0000200 + k);   /* 192.0.2.k */
		(*at)->ai_src_addr = (struct sockaddr *)sin;
		(*at)->ai_src_len = sizeof *sin;
		(*at)->ai_family = AF_INET;
		/* each entry's own names, the destination's in IPv6 (2001:db8::k, port 8000 + k) */
		struct sockaddr_in6 *six = calloc(1, sizeof *six);
		char *src_name = malloc(32), *dst_name = malloc(32);
		if (!six || !src_name || !dst_name)
			return -1;
		six->sin6_family = AF_INET6;
		six->sin6_port = htons(8000 + k);
		six->sin6_addr.s6_addr[0] = 0x20;
		six->sin6_addr.s6_addr[1] = 0x01;
		six->sin6_addr.s6_addr[2] = 0x0d;
		six->sin6_addr.s6_addr[3] = 0xb8;
		six->sin6_addr.s6_addr[15] = (unsigned char)k;
		(*at)->ai_dst_addr = (struct sockaddr *)six;
		snprintf(src_name, 32, "src%d.example", k);
		snprintf(dst_name, 32, "dst%d.example", k);
		(*at)->ai_src_canonname = src_name;
		(*at)->ai_dst_canonname = dst_name;
	}
	return 0;
}
void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	fprintf(stderr, "fakerdmacm: freeaddrinfo\n");
	while (res) {
		struct rdma_addrinfo *next = res->ai_next;
		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res);
		res = next;
	}
}
int rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res, struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	(void)pd;
	(void)qp_init_attr;
	*id = calloc(1, sizeof **id);
	if (!*id)
		return -1;
	**id = (struct rdma_cm_id){ .ps = res->ai_port_space, .qp_type = res->ai_qp_type };
	return 0;
}
void rdma_destroy_ep(struct rdma_cm_id *id)
{
	fprintf(stderr, "fakerdmacm: destroy_ep\n");
	free(id);
}
