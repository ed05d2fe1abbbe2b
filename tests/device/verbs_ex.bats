#!/usr/bin/env bats
# The extended verbs on real rxe: the wr_* builder of ibv_qp_ex, the
# ibv_cq_ex accessors, their misuse, their trace, and event-driven waits.
load ../helpers

setup() { require_device; }

@test "extended verbs: SEND, SEND_WITH_IMM, WRITE, READ, CAS, FAA and UD through wr_*, read through ibv_cq_ex; misuse is an error" {
    run "$VERBSH" "$ROOT/tests/lua/verbs_ex.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"SEND: wr_id=1 SEND SUCCESS; RECV: wr_id=100 byte_len=5"* ]]
    [[ $output == *"atomics: wc wr_id=5 FETCH_ADD SUCCESS byte_len=8"* ]]
    [[ $output == *"UD: SEND wr_id=51, RECV byte_len=49"* ]]
    [[ $output == *"verbs_ex: ok (170 checks)"* ]]
}

@test "extended verbs: verbs.trace prints the new calls as C" {
    run "$VERBSH" -e '
      local ctx = verbs.open(); local pd = ctx:alloc_pd(); local mr = pd:reg_mr(64, "LOCAL_WRITE")
      verbs.trace(true)
      local cq = ctx:create_cq_ex{ cqe = 4, wc_flags = { "BYTE_LEN", "QP_NUM" } }
      local qp = ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq, send_ops_flags = { "SEND", "RDMA_WRITE" },
        cap = { max_send_wr = 2, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
      qp:wr_start(); qp.wr_id = 7; qp.wr_flags = "SIGNALED"; qp:wr_rdma_write(0x1234, 0x1000); qp:wr_set_sge(mr, 0, 8)
      qp:wr_abort()
      print(cq:start_poll())' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    # the same C as verbs.export_c writes, with this run's outcomes
    [[ $output == *"struct ibv_cq_init_attr_ex cq_attr1 = { .cqe = 4, .wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM };"* ]]
    [[ $output == *"ibv_create_cq_ex(ctx1, &cq_attr1) = cq1_ex"* ]]
    [[ $output == *"ibv_cq_ex_to_cq(cq1_ex) = cq1"* ]]
    [[ $output == *".send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE, .comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS"* ]]
    [[ $output == *"ibv_create_qp_ex(ctx1, &init_attr_ex1) = qp1"* ]]
    [[ $output == *"ibv_qp_to_qp_ex(qp1) = qp1_ex"* ]]
    [[ $output == *"ibv_wr_start(qp1_ex) = (void)"* ]]
    # an assignment is a statement, not a call with an outcome
    [[ $output == *$'\nqp1_ex->wr_id = 7\n'* ]]
    [[ $output == *$'\nqp1_ex->wr_flags = IBV_SEND_SIGNALED\n'* ]]
    [[ $output == *"ibv_wr_rdma_write(qp1_ex, 0x1234, 0x1000) = (void)"* ]]
    [[ $output == *"ibv_wr_set_sge(qp1_ex, mr1->lkey, (uintptr_t)mr1->addr + 0, 8) = (void)"* ]]
    [[ $output == *"ibv_wr_abort(qp1_ex) = (void)"* ]]
    [[ $output == *"ibv_start_poll(cq1_ex, &poll_attr) = ENOENT"* ]]
}

@test "events: verbs.wait_fds on two completion channels returns the one whose CQ completed, get_cq_event its CQ" {
    run "$VERBSH" -e '
      local ctx = verbs.open(); local pd = ctx:alloc_pd(); local mr = pd:reg_mr(64, "LOCAL_WRITE")
      local ch1, ch2 = ctx:create_comp_channel(), ctx:create_comp_channel()
      local cq1 = ctx:create_cq_ex{ cqe = 4, channel = ch1, wc_flags = { "BYTE_LEN" } }
      local cq2 = ctx:create_cq(4, { channel = ch2 })
      print("fds", math.type(ch1.fd), ch1.fd ~= ch2.fd)
      cq1:req_notify(); cq2:req_notify()
      local t0 = verbs.now()
      print("quiet", #verbs.wait_fds({ ch1, ch2 }, 300), verbs.now() - t0 >= 0.25)
      -- a UD QP on cq2 sends to itself: one completion on cq2 only
      local gi = tonumber(os.getenv("RXE_GID_INDEX")) or 1
      local qp = pd:create_qp{ qp_type = "UD", send_cq = cq2, recv_cq = cq2,
        cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
      qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = 1 }
      qp:modify{ qp_state = "RTR" }; qp:modify{ qp_state = "RTS", sq_psn = 0 }
      local ah = pd:create_ah{ is_global = 1, port_num = 1, grh = { dgid = ctx:query_gid(1, gi), sgid_index = gi, hop_limit = 1 } }
      qp:post_send{ opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr, length = 8 } },
        ud = { ah = ah, remote_qpn = qp.qp_num, remote_qkey = 1 } }
      local ready = verbs.wait_fds({ ch1, ch2 }, 5000)
      print("ready", #ready, ready[1] == ch2)
      local cq = ch2:get_cq_event(1000)
      print("event", cq == cq2, #cq2:poll())
      cq2:ack_events(1)
      local gone = ctx:create_comp_channel(); gone:destroy()
      print(pcall(verbs.wait_fds, { ch1, gone }, 10))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fds	integer	true" ]
    [ "${lines[1]}" = "quiet	0	true" ]
    [ "${lines[2]}" = "ready	1	true" ]
    [ "${lines[3]}" = "event	true	1" ]
    [ "${lines[4]}" = "false	bad argument #1 to 'verbs.wait_fds' ([2]: comp_channel is destroyed)" ]
}
