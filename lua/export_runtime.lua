-- verbs.export_runtime: the C text around the calls verbs.export_c
-- writes: the program's head (HEAD, a format: the file's name, verbsh's
-- version, the name again, the extra #includes) and the helper functions
-- (HELPERS), each written only when the program uses it.

local HEAD = [[
/* %s
 * Exported by verbsh %s (verbs.export_c): the verb calls of a verbsh
 * session, replayed, each outcome checked against the one recorded.
 *   cc -Wall -Wextra -Werror %s -libverbs -lrdmacm && ./a.out
 * prints "reproduced" and exits 0 when everything matches, otherwise the
 * first difference and exits 1. */
#include <infiniband/verbs.h>
%s#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
]]

-- Helpers of the program, each written only when the program uses it
-- (-Werror: an unused static function is an error). needs: helpers it calls.
local HELPERS = {
  { name = "expect_int", text = [[
static void expect_int(const char *what, long long want, long long got)
{
	if (want != got) {
		printf("first difference: %s: recorded %lld, now %lld\n", what, want, got);
		exit(1);
	}
}
]] },
  { name = "expect_fail", text = [[
/* A verb that returns -1 and sets errno. */
static void expect_fail(const char *what, int ret, int err)
{
	if (ret != -1 || errno != err) {
		printf("first difference: %s: recorded -1 and errno %d, now %d and errno %d\n", what, err, ret, errno);
		exit(1);
	}
}
]] },
  { name = "expect_ptr", text = [[
static void expect_ptr(const char *what, void *p)
{
	if (!p) {
		printf("first difference: %s: recorded an object, now NULL (errno %d, %s)\n", what, errno, strerror(errno));
		exit(1);
	}
}
]] },
  { name = "expect_null", text = [[
static void expect_null(const char *what, void *p, int err)
{
	if (p || errno != err) {
		printf("first difference: %s: recorded NULL and errno %d, now %s and errno %d\n", what, err,
		       p ? "an object" : "NULL", errno);
		exit(1);
	}
}
]] },
  { name = "expect_bytes", text = [[
static void expect_bytes(const char *what, const char *want, const char *got, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (want[i] != got[i]) {
			printf("first difference: %s: byte %zu recorded 0x%02x, now 0x%02x\n", what, i,
			       (unsigned char)want[i], (unsigned char)got[i]);
			exit(1);
		}
}
]] },
  { name = "wc_pool", needs = { "expect_int" }, text = [[
/* The completions of a CQ polled but not yet compared. Timing differs from
 * run to run, so a recorded poll waits until as many have come as it found,
 * and each recorded completion is compared with the one of the same wr_id. */
struct wc_pool {
	struct ibv_cq *cq;
	struct ibv_wc wc[256];
	int n;
};

static void wait_completions(struct wc_pool *p, const char *what, int n)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (p->n < n) {
		int r = ibv_poll_cq(p->cq, 256 - p->n, p->wc + p->n);
		if (r < 0)
			break;
		p->n += r;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 5)
			break;
	}
	if (p->n < n) {
		printf("first difference: %s: recorded %d completions, now %d within 5 s\n", what, n, p->n);
		exit(1);
	}
}

/* status and wr_id always; opcode, byte_len and wc_flags of a successful
 * completion (they are undefined for a failed one); imm_data with WITH_IMM. */
static void expect_wc(struct wc_pool *p, const char *what, uint64_t wr_id, int status, int opcode,
		      long long byte_len, uint32_t imm_data, unsigned int wc_flags)
{
	char w[160];
	int i = 0;
	while (i < p->n && p->wc[i].wr_id != wr_id)
		i++;
	if (i == p->n) {
		printf("first difference: %s: no completion with wr_id %llu\n", what, (unsigned long long)wr_id);
		exit(1);
	}
	struct ibv_wc wc = p->wc[i];
	memmove(p->wc + i, p->wc + i + 1, (size_t)(p->n - i - 1) * sizeof wc);
	p->n--;
	snprintf(w, sizeof w, "%s status (now %s)", what, ibv_wc_status_str(wc.status));
	expect_int(w, status, wc.status);
	if (status != IBV_WC_SUCCESS)
		return;
	snprintf(w, sizeof w, "%s opcode", what);
	expect_int(w, opcode, wc.opcode);
	snprintf(w, sizeof w, "%s byte_len", what);
	expect_int(w, byte_len, wc.byte_len);
	snprintf(w, sizeof w, "%s wc_flags", what);
	expect_int(w, wc_flags, wc.wc_flags);
	if (wc_flags & IBV_WC_WITH_IMM) {
		snprintf(w, sizeof w, "%s imm_data", what);
		expect_int(w, imm_data, ntohl(wc.imm_data));
	}
}
]] },
  { name = "wait_fd", text = [[
/* Waits until fd is readable, at most ms milliseconds. */
static int wait_fd(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, ms) == 1;
}
]] },
  { name = "get_cq_event", needs = { "wait_fd" }, text = [[
/* A completion event on channel, which must be cq's. */
static void get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq *cq, const char *what)
{
	struct ibv_cq *got;
	void *cq_context;
	if (!wait_fd(channel->fd, 5000) || ibv_get_cq_event(channel, &got, &cq_context)) {
		printf("first difference: %s: recorded a completion event, now none within 5 s\n", what);
		exit(1);
	}
	if (got != cq) {
		printf("first difference: %s: the event is another CQ's\n", what);
		exit(1);
	}
}
]] },
  { name = "get_async_event", needs = { "wait_fd" }, text = [[
/* An async event of ctx: of type want, about element (a QP, CQ or SRQ; NULL
 * for a port's or the device's) or port. Acked, as verbsh acks it. */
static void get_async_event(struct ibv_context *ctx, enum ibv_event_type want, void *element, int port,
			    const char *what)
{
	struct ibv_async_event ev;
	void *about = NULL;
	int got_port = 0;
	if (!wait_fd(ctx->async_fd, 5000) || ibv_get_async_event(ctx, &ev)) {
		printf("first difference: %s: recorded %s, now no async event within 5 s\n", what,
		       ibv_event_type_str(want));
		exit(1);
	}
	switch (ev.event_type) {
	case IBV_EVENT_CQ_ERR:
		about = ev.element.cq;
		break;
	case IBV_EVENT_SRQ_ERR: case IBV_EVENT_SRQ_LIMIT_REACHED:
		about = ev.element.srq;
		break;
	case IBV_EVENT_PORT_ACTIVE: case IBV_EVENT_PORT_ERR: case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE: case IBV_EVENT_SM_CHANGE: case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		got_port = ev.element.port_num;
		break;
	case IBV_EVENT_DEVICE_FATAL:
		break;
	default:
		about = ev.element.qp;
		break;
	}
	ibv_ack_async_event(&ev);
	if (ev.event_type != want) {
		printf("first difference: %s: recorded %s, now %s\n", what, ibv_event_type_str(want),
		       ibv_event_type_str(ev.event_type));
		exit(1);
	}
	if ((element && about != element) || got_port != port) {
		printf("first difference: %s: %s is about another object or port\n", what, ibv_event_type_str(want));
		exit(1);
	}
}
]] },
  { name = "poll_ex", text = [[
/* ibv_start_poll (attr) or ibv_next_poll (attr NULL) until a completion is
 * current: ENOENT is timing, retried for 5 s. */
static void poll_ex(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr, const char *what)
{
	struct timespec t0, t;
	int r;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		r = attr ? ibv_start_poll(cq, attr) : ibv_next_poll(cq);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (r != ENOENT || t.tv_sec - t0.tv_sec > 5)
			break;
	}
	if (r) {
		printf("first difference: %s: recorded a completion, now %s\n", what,
		       r == ENOENT ? "none within 5 s" : strerror(r));
		exit(1);
	}
}
]] },
  { name = "sockaddr_of", text = [[
/* "host:port", "[v6]:port" or "*:port" (any address) as a sockaddr. */
static struct sockaddr *sockaddr_of(struct sockaddr_storage *ss, const char *text)
{
	char host[256] = "", port[16] = "0";
	const char *colon = strrchr(text, ':'), *close = strchr(text, ']');
	if (text[0] == '[' && close) {
		snprintf(host, sizeof host, "%.*s", (int)(close - text - 1), text + 1);
		if (close[1] == ':')
			snprintf(port, sizeof port, "%s", close + 2);
	} else if (colon && colon == strchr(text, ':')) {
		snprintf(host, sizeof host, "%.*s", (int)(colon - text), text);
		snprintf(port, sizeof port, "%s", colon + 1);
	} else {
		snprintf(host, sizeof host, "%s", text);
	}
	int any = host[0] == '\0' || strcmp(host, "*") == 0;
	struct addrinfo hints = { .ai_flags = AI_NUMERICSERV | (any ? AI_PASSIVE : 0),
				  .ai_family = any ? AF_INET : AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	if (getaddrinfo(any ? NULL : host, port, &hints, &res)) {
		printf("first difference: the address %s does not resolve here\n", text);
		exit(1);
	}
	memset(ss, 0, sizeof *ss);
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return (struct sockaddr *)ss;
}
]] },
  { name = "expect_addr", text = [[
/* An address as "ip:port" ("[ip]:port" for IPv6). */
static void expect_addr(const char *what, const char *want, const struct sockaddr *sa)
{
	char ip[INET6_ADDRSTRLEN] = "", got[80] = "";
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;
		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
		snprintf(got, sizeof got, "%s:%d", ip, ntohs(in->sin_port));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;
		inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof ip);
		snprintf(got, sizeof got, "[%s]:%d", ip, ntohs(in6->sin6_port));
	}
	if (strcmp(want ? want : "", got) != 0) {
		printf("first difference: %s: recorded %s, now %s\n", what, want ? want : "none", got[0] ? got : "none");
		exit(1);
	}
}
]] },
  { name = "get_cm_event", needs = { "wait_fd" }, text = [[
/* The next event of channel, within ms: its type and status must be the
 * recorded ones. */
static struct rdma_cm_event *get_cm_event(struct rdma_event_channel *channel, int ms, int event, int status)
{
	struct rdma_cm_event *e;
	if (!wait_fd(channel->fd, ms) || rdma_get_cm_event(channel, &e)) {
		printf("first difference: rdma_get_cm_event: recorded %s, now no event within %d ms\n",
		       rdma_event_str(event), ms);
		exit(1);
	}
	if ((int)e->event != event || e->status != status) {
		printf("first difference: rdma_get_cm_event: recorded %s (status %d), now %s (status %d)\n",
		       rdma_event_str(event), status, rdma_event_str(e->event), e->status);
		exit(1);
	}
	return e;
}
]] },
  { name = "open_device", text = [[
static struct ibv_context *open_device(const char *name)
{
	int n;
	struct ibv_device **list = ibv_get_device_list(&n);
	struct ibv_context *ctx = NULL;
	for (int i = 0; list && i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), name) == 0)
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!ctx) {
		printf("first difference: ibv_open_device(%s): no such device, or it cannot be opened\n", name);
		exit(1);
	}
	return ctx;
}
]] },
}

return { HEAD = HEAD, HELPERS = HELPERS }
