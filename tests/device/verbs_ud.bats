#!/usr/bin/env bats
# UD (AH, Q_Key, the GRH in front of the payload) and SRQ on real rxe.
load ../helpers

setup() { require_device; }

@test "UD: AH, Q_Key, payload at offset 40, byte_len = payload + 40, imm, Q_Key mismatch dropped, INLINE" {
    run "$VERBSH" "$ROOT/tests/lua/verbs_ud.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"UD RECV: wc wr_id=50 RECV SUCCESS byte_len=49 wc_flags=GRH src_qp=0x"* ]]
    [[ $output == *"verbs_ud: ok (44 checks)"* ]]
}

@test "SRQ: a list posted once, consumed by an RC QP; srq_limit and SRQ_LIMIT_REACHED; destroy while in use" {
    run "$VERBSH" "$ROOT/tests/lua/verbs_srq.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"srq:destroy in use: destroy: srq1 is still used by 1 object: qp2 (qp RC 0x"*" RTS); destroy it first"* ]]
    [[ $output == *"verbs_srq: ok (26 checks)"* ]]
}

@test "the trace writes req_notify's solicited_only as C's 0 or 1, whichever form it was given in" {
    run "$VERBSH" -e '
      local ctx = verbs.open(); local cq = ctx:create_cq(4)
      verbs.trace(true)
      cq:req_notify(0); cq:req_notify(false); cq:req_notify(); cq:req_notify(1); cq:req_notify(true)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(grep -c 'ibv_req_notify_cq(cq1, 0) = 0' <<<"$output")" -eq 3 ]
    [ "$(grep -c 'ibv_req_notify_cq(cq1, 1) = 0' <<<"$output")" -eq 2 ]
}

@test "completion channel: req_notify, get_cq_event returns the cq, ack_events, timeout gives nil" {
    run "$VERBSH" -e '
      local ctx = verbs.open(); local pd = ctx:alloc_pd()
      local ch = ctx:create_comp_channel()
      local cq = ctx:create_cq(8, { channel = ch })
      local gid_index = tonumber(os.getenv("RXE_GID_INDEX"))
      local qp = pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq,
        cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 } }
      qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = 7 }
      qp:modify{ qp_state = "RTR" }; qp:modify{ qp_state = "RTS", sq_psn = 0 }
      local mr = pd:reg_mr(256, "LOCAL_WRITE")
      print(ch:get_cq_event(50))
      cq:req_notify()
      local ah = pd:create_ah{ is_global = 1, port_num = 1,
        grh = { dgid = ctx:query_gid(1, gid_index), sgid_index = gid_index, hop_limit = 1 } }
      qp:post_send{ wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr, length = 4 } },
        ud = { ah = ah, remote_qpn = qp.qp_num, remote_qkey = 7 } }
      local got = ch:get_cq_event(2000)
      print(got == cq, ch.fd > 2, #cq:poll())
      cq:ack_events(1)
      print(pcall(cq.ack_events, cq, 1))
      -- an event left unacked: destroying the CQ acks it (else ibv_destroy_cq would hang)
      cq:req_notify(0)   -- as in C, 0: every completion, not only solicited ones (though 0 is true in Lua)
      qp:post_send{ wr_id = 2, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr, length = 4 } },
        ud = { ah = ah, remote_qpn = qp.qp_num, remote_qkey = 7 } }
      print(ch:get_cq_event(2000) == cq)
      print(pcall(cq.req_notify, cq, "x"))
      ah:destroy(); qp:destroy(); mr:dereg(); cq:destroy(); ch:destroy(); pd:dealloc(); ctx:close()
      print("done")'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "nil" ]
    [ "${lines[1]}" = "true	true	1" ]
    [[ ${lines[2]} == "false	bad argument #1 to 'ack_events' (1 events to ack, but only 0 were received and not acked)" ]]
    [ "${lines[3]}" = "true" ]
    [ "${lines[4]}" = "false	bad argument #1 to 'req_notify' (solicited_only (boolean, or C's 0 or 1): integer expected, got string)" ]
    [ "${lines[5]}" = "done" ]
}
