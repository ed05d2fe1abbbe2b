#!/usr/bin/python3
"""The benchmark's pyverbs row: the same RC SEND/RECV loop as rc_loop.c.

Two RC QPs on one device, in one process; each iteration posts a receive,
a signaled 64-byte SEND, and polls both completions, as rdma-core's own
pyverbs tests write it.

    rc_loop.py [-d DEV] [-g GID_INDEX] [-n ITERS] [-s SIZE]
prints "iters=N seconds=T iters_per_sec=R".
"""
import argparse
import os
import time

import pyverbs.enums as e
from pyverbs.addr import AHAttr, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

p = argparse.ArgumentParser()
p.add_argument("-d", default=os.environ.get("RXE_DEV", "rxe0"))
p.add_argument("-g", type=int, default=int(os.environ.get("RXE_GID_INDEX", "1")))
p.add_argument("-n", type=int, default=20000)
p.add_argument("-s", type=int, default=64)
args = p.parse_args()

ctx = Context(name=args.d)
pd = PD(ctx)
mr = MR(pd, 4096, e.IBV_ACCESS_LOCAL_WRITE)
cqs, qps = [], []
for _ in range(2):
    cq = CQ(ctx, 16)
    cap = QPCap(max_send_wr=16, max_recv_wr=16, max_send_sge=1, max_recv_sge=1)
    qps.append(QP(pd, QPInitAttr(qp_type=e.IBV_QPT_RC, scq=cq, rcq=cq, cap=cap)))
    cqs.append(cq)

gid = ctx.query_gid(1, args.g)
for me, peer in ((0, 1), (1, 0)):
    attr = QPAttr(port_num=1)
    attr.path_mtu = e.IBV_MTU_1024
    attr.dest_qp_num = qps[peer].qp_num
    attr.rq_psn = attr.sq_psn = 0
    attr.max_dest_rd_atomic = attr.max_rd_atomic = 1
    attr.min_rnr_timer, attr.timeout, attr.retry_cnt, attr.rnr_retry = 1, 14, 7, 7
    attr.ah_attr = AHAttr(port_num=1, is_global=1,
                          gr=GlobalRoute(dgid=gid, sgid_index=args.g))
    qps[me].to_rts(attr)


def poll_one(cq, what):
    while True:
        n, wcs = cq.poll(1)
        if n:
            if wcs[0].status != e.IBV_WC_SUCCESS:
                raise SystemExit(f"rc_loop.py: {what} completion status {wcs[0].status}")
            return


send_wr = SendWR(opcode=e.IBV_WR_SEND, num_sge=1, sg=[SGE(mr.buf, args.s, mr.lkey)],
                 send_flags=e.IBV_SEND_SIGNALED)
recv_wr = RecvWR(num_sge=1, sg=[SGE(mr.buf + 2048, args.s, mr.lkey)])
t0 = time.monotonic()
for _ in range(args.n):
    qps[1].post_recv(recv_wr)
    qps[0].post_send(send_wr)
    poll_one(cqs[0], "send")
    poll_one(cqs[1], "recv")
secs = time.monotonic() - t0
print(f"iters={args.n} seconds={secs:.3f} iters_per_sec={args.n / secs:.0f}")
