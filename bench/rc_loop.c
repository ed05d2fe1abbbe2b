/* The benchmark's reference row: an RC SEND/RECV loop in plain C.
 *
 * Two RC QPs on one device, in one process. Each iteration posts a receive
 * on B, a signaled SEND of SIZE bytes on A, and polls until both completions
 * are in. The verbsh and pyverbs rows run the same loop.
 *
 *   rc_loop [-d DEV] [-g GID_INDEX] [-n ITERS] [-s SIZE]
 * prints "iters=N seconds=T iters_per_sec=R" on stdout.
 */
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define die(...) do { fprintf(stderr, "rc_loop: " __VA_ARGS__); fputc('\n', stderr); exit(1); } while (0)

struct side {
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

static void to_rts(struct ibv_qp *qp, uint32_t remote_qpn, union ibv_gid *gid, int gid_index)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ,
	};
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("RESET->INIT failed");
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = remote_qpn;
	a.rq_psn = 0;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.port_num = 1;
	a.ah_attr.grh.dgid = *gid;
	a.ah_attr.grh.sgid_index = gid_index;
	a.ah_attr.grh.hop_limit = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("INIT->RTR failed");
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
		die("RTR->RTS failed");
}

static void poll_one(struct ibv_cq *cq, const char *what)
{
	struct ibv_wc wc;
	int n;

	while ((n = ibv_poll_cq(cq, 1, &wc)) == 0)
		;
	if (n < 0 || wc.status != IBV_WC_SUCCESS)
		die("%s completion failed: %s", what, n < 0 ? "poll error" : ibv_wc_status_str(wc.status));
}

int main(int argc, char **argv)
{
	const char *devname = getenv("RXE_DEV");
	int gid_index = getenv("RXE_GID_INDEX") ? atoi(getenv("RXE_GID_INDEX")) : 1;
	long iters = 100000, size = 64;
	int opt;

	while ((opt = getopt(argc, argv, "d:g:n:s:")) != -1) {
		switch (opt) {
		case 'd': devname = optarg; break;
		case 'g': gid_index = atoi(optarg); break;
		case 'n': iters = atol(optarg); break;
		case 's': size = atol(optarg); break;
		default: die("usage: rc_loop [-d DEV] [-g GID_INDEX] [-n ITERS] [-s SIZE]");
		}
	}

	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_device *dev = NULL;
	for (int i = 0; list && list[i]; i++)
		if (!devname || strcmp(ibv_get_device_name(list[i]), devname) == 0) {
			dev = list[i];
			break;
		}
	if (!dev)
		die("no RDMA device%s%s", devname ? " named " : "", devname ? devname : "");
	struct ibv_context *ctx = ibv_open_device(dev);
	if (!ctx)
		die("ibv_open_device failed");
	union ibv_gid gid;
	if (ibv_query_gid(ctx, 1, gid_index, &gid))
		die("ibv_query_gid failed");
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	char *buf = aligned_alloc(4096, 4096);
	struct ibv_mr *mr = pd ? ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!mr)
		die("ibv_alloc_pd/ibv_reg_mr failed");

	struct side s[2];
	for (int i = 0; i < 2; i++) {
		s[i].cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
		struct ibv_qp_init_attr init = {
			.send_cq = s[i].cq, .recv_cq = s[i].cq, .qp_type = IBV_QPT_RC,
			.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1, .max_recv_sge = 1 },
		};
		s[i].qp = s[i].cq ? ibv_create_qp(pd, &init) : NULL;
		if (!s[i].qp)
			die("ibv_create_cq/ibv_create_qp failed");
	}
	to_rts(s[0].qp, s[1].qp->qp_num, &gid, gid_index);
	to_rts(s[1].qp, s[0].qp->qp_num, &gid, gid_index);

	struct ibv_sge send_sge = { .addr = (uintptr_t)buf, .length = size, .lkey = mr->lkey };
	struct ibv_sge recv_sge = { .addr = (uintptr_t)buf + 2048, .length = size, .lkey = mr->lkey };
	struct ibv_send_wr swr = { .wr_id = 1, .sg_list = &send_sge, .num_sge = 1,
				   .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED }, *bad_s;
	struct ibv_recv_wr rwr = { .wr_id = 2, .sg_list = &recv_sge, .num_sge = 1 }, *bad_r;

	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < iters; i++) {
		if (ibv_post_recv(s[1].qp, &rwr, &bad_r))
			die("ibv_post_recv failed");
		if (ibv_post_send(s[0].qp, &swr, &bad_s))
			die("ibv_post_send failed");
		poll_one(s[0].cq, "send");
		poll_one(s[1].cq, "recv");
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("iters=%ld seconds=%.3f iters_per_sec=%.0f\n", iters, secs, iters / secs);

	for (int i = 0; i < 2; i++) {
		ibv_destroy_qp(s[i].qp);
		ibv_destroy_cq(s[i].cq);
	}
	ibv_dereg_mr(mr);
	free(buf);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
