-- Lesson 10: when things go wrong on RC.
local K = require "verbs.lesson_kit"

return {
  title = "When things go wrong (RC)",
  transports = { "RoCE" },
  intro = [[
    RC is reliable: when a message cannot be delivered, you are told -- in a
    completion with an error status -- and the QP stops (state ERR). This
    lesson makes the common mistakes on purpose and recovers from them.
    qp_a -> qp_b are connected with rnr_retry = 0 on qp_a, so that the first
    "receiver not ready" is fatal instead of retried forever.
    mr_b is registered with LOCAL_WRITE only; mr_w allows REMOTE_WRITE.]],
  setup = function()
    local made = K.rc_pair { access_b = "LOCAL_WRITE", a = { rnr_retry = 0 } }
    mr_w = pd:reg_mr(4096, { "LOCAL_WRITE", "REMOTE_WRITE" })
    return made .. K.describe { "mr_w" }
  end,

  steps = {
    {
      title = "RNR: no receive posted",
      redo = [[rc_connect(qp_a, qp_b, { rnr_retry = 0 }); rc_connect(qp_b, qp_a)]],
      text = [[
        A SEND needs a posted receive at the responder. With none, qp_b answers
        "Receiver Not Ready" (an RNR NAK) and qp_a retries after min_rnr_timer,
        up to rnr_retry times (7 means forever, the usual choice, which only
        delays). With rnr_retry = 0 the requester fails at once with
        RNR_RETRY_EXC_ERR and qp_a goes to ERR. The responder did nothing
        wrong: qp_b stays in RTS.]],
      c = [[/* no ibv_post_recv(qp_b, ...) */ ibv_post_send(qp_a, &swr, &bad);  /* wc.status == IBV_WC_RNR_RETRY_EXC_ERR */]],
      task = [[Send 5 bytes from qp_a (wr_id 1) without posting a receive; wcs = cq:wait(1, 2000); look at qp_a.state and qp_b.state.]],
      hint = [[qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}]],
      solution = [[
        qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}
        wcs = cq:wait(1, 2000)
        qp_a.state, qp_b.state]],
      check = function(S)
        local w = K.find_wc(K.step_wcs(S, cq, 1, 2000), { wr_id = 1 })
        if not w then return false, "no completion for wr_id 1 yet" end
        if w.status ~= "RNR_RETRY_EXC_ERR" then return false, "wr_id 1 ended " .. w.status end
        if qp_a.state ~= "ERR" then return false, "qp_a is " .. qp_a.state end
        return true, ("%s; qp_a %s, qp_b %s"):format(w.status, qp_a.state, qp_b.state)
      end,
    },
    {
      title = "ERR flushes everything",
      text = [[
        A QP in ERR still accepts work requests -- ibv_post_send returns 0 --
        but completes every one (and every receive still posted) at once with
        WR_FLUSH_ERR, without sending anything. Flushed completions are how
        you get your buffers back before you destroy or reset the QP.]],
      c = [[ibv_post_send(qp_a, &swr, &bad);   /* returns 0; wc.status == IBV_WC_WR_FLUSH_ERR */]],
      task = [[Post another send on qp_a (wr_id 2) and collect its completion.]],
      hint = [[The same post_send with wr_id = 2; wcs = cq:wait(1)]],
      solution = [[
        qp_a:post_send{wr_id = 2, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}
        wcs = cq:wait(1)]],
      check = function(S)
        local w = K.find_wc(K.step_wcs(S, cq, 1), { wr_id = 2 })
        if not w then return false, "no completion for wr_id 2 yet" end
        if w.status ~= "WR_FLUSH_ERR" then return false, "wr_id 2 ended " .. w.status end
        return true, w.status .. " (post_send itself returned success)"
      end,
    },
    {
      title = "Recover through RESET",
      text = [[
        The way out of ERR is RESET, then INIT, RTR, RTS again, which forgets
        all outstanding work. Both sides must agree on the PSNs afterwards,
        so reset and reconnect both. This time, post the receive first.]],
      c = [[attr.qp_state = IBV_QPS_RESET; ibv_modify_qp(qp_a, &attr, IBV_QP_STATE); /* then INIT, RTR, RTS */]],
      task = [[
        rc_connect(qp_a, qp_b, {rnr_retry = 0}) and rc_connect(qp_b, qp_a); post a
        receive on qp_b (wr_id 100); send from qp_a (wr_id 3); wcs = cq:wait(2).]],
      hint = [[qp_b:post_recv{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 64}}}]],
      solution = [[
        rc_connect(qp_a, qp_b, {rnr_retry = 0})
        rc_connect(qp_b, qp_a)
        qp_b:post_recv{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
        qp_a:post_send{wr_id = 3, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}
        wcs = cq:wait(2)]],
      check = function(S)
        local l = K.step_wcs(S, cq, 2)
        local s, r = K.find_wc(l, { wr_id = 3 }), K.find_wc(l, { wr_id = 100 })
        local why = {
          RNR_RETRY_EXC_ERR = "no receive was posted on qp_b when the SEND arrived: reconnect both, post the receive first, then send",
          WR_FLUSH_ERR = "a QP was still in ERR, which flushes every WR: rc_connect both QPs before posting",
        }
        for _, w in ipairs({ s or false, r or false }) do
          if w and w.status ~= "SUCCESS" then
            return false, ("wr_id %d ended %s: %s"):format(w.wr_id, w.status,
              why[w.status] or "reconnect both QPs and do the task again")
          end
        end
        if not (s and r) then return false, "no completions for wr_id 3 and 100 yet" end
        return true, ("SEND %s, RECV %s; qp_a %s, qp_b %s"):format(s.status, r.status, qp_a.state, qp_b.state)
      end,
    },
    {
      title = "REM_ACCESS_ERR: no remote right",
      redo = [[rc_connect(qp_a, qp_b, { rnr_retry = 0 }); rc_connect(qp_b, qp_a)]],
      text = [[
        An RDMA WRITE into memory registered without REMOTE_WRITE (mr_b) is
        refused by the responder's device after it checked the rkey's rights:
        the requester gets REM_ACCESS_ERR. This is a protection fault on the
        remote side, so BOTH QPs go to ERR. The same happens with a wrong
        rkey, or a range outside the MR. (If instead the responder QP's
        qp_access_flags lack REMOTE_WRITE, the status is REM_INV_REQ_ERR.)]],
      c = [[swr.opcode = IBV_WR_RDMA_WRITE; swr.wr.rdma.rkey = mr_b->rkey; /* mr_b: IBV_ACCESS_LOCAL_WRITE only */]],
      task = [[RDMA WRITE 5 bytes into mr_b (wr_id 4); wcs = cq:wait(1); look at both states.]],
      hint = [[qp_a:post_send{wr_id = 4, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}, rdma = {remote_addr = mr_b.addr, rkey = mr_b.rkey}}]],
      solution = [[
        qp_a:post_send{wr_id = 4, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}, rdma = {remote_addr = mr_b.addr, rkey = mr_b.rkey}}
        wcs = cq:wait(1)
        qp_a.state, qp_b.state]],
      check = function(S)
        local w = K.find_wc(K.step_wcs(S, cq, 1, 2000), { wr_id = 4 })
        if not w then return false, "no completion for wr_id 4 yet" end
        if w.status ~= "REM_ACCESS_ERR" then return false, "wr_id 4 ended " .. w.status end
        if qp_a.state ~= "ERR" or qp_b.state ~= "ERR" then
          return false, ("qp_a is %s, qp_b is %s"):format(qp_a.state, qp_b.state)
        end
        return true, ("%s; qp_a %s, qp_b %s"):format(w.status, qp_a.state, qp_b.state)
      end,
    },
    {
      title = "A wrong rkey",
      text = [[
        Reconnect both, and write into mr_w -- which allows REMOTE_WRITE -- but
        with a key that is not its rkey. The responder cannot find a matching
        MR: REM_ACCESS_ERR again. That the responder answered at all proves
        the reconnection worked: a QP in ERR would have flushed the WR.]],
      c = [[swr.wr.rdma.rkey = mr_w->rkey ^ 0x80;   /* not a key the responder knows */]],
      task = [[
        rc_connect both again; RDMA WRITE into mr_w.addr with rkey = mr_w.rkey ~ 0x80
        (wr_id 5); wcs = cq:wait(1).]],
      hint = [[rdma = {remote_addr = mr_w.addr, rkey = mr_w.rkey ~ 0x80}   (~ is Lua's xor)]],
      solution = [[
        rc_connect(qp_a, qp_b, {rnr_retry = 0})
        rc_connect(qp_b, qp_a)
        qp_a:post_send{wr_id = 5, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}, rdma = {remote_addr = mr_w.addr, rkey = mr_w.rkey ~ 0x80}}
        wcs = cq:wait(1)]],
      check = function(S)
        local w = K.find_wc(K.step_wcs(S, cq, 1, 2000), { wr_id = 5 })
        if not w then return false, "no completion for wr_id 5 yet" end
        if w.status ~= "REM_ACCESS_ERR" then return false, "wr_id 5 ended " .. w.status end
        return true, ("%s with a wrong rkey; qp_a %s, qp_b %s"):format(w.status, qp_a.state, qp_b.state)
      end,
    },
    {
      title = "Nobody answers: retry exceeded",
      text = [[
        If the packets reach no QP -- a wrong dest_qp_num or GID, or a peer not
        yet in RTR -- nothing comes back at all. After `timeout`
        (4.096 us * 2^timeout) the requester resends, retry_cnt times, then
        completes with RETRY_EXC_ERR and goes to ERR. Small values fail fast;
        timeout = 0 would wait forever.]],
      c = [[attr.dest_qp_num = 0xdead;  /* RTR */  attr.timeout = 8; attr.retry_cnt = 1;  /* RTS */]],
      task = [[
        rc_connect(qp_a, qp_b.qp_num + 1000, {timeout = 8, retry_cnt = 1}); send from
        qp_a (wr_id 6); wcs = cq:wait(1, 3000).]],
      hint = [[rc_connect's second argument may be a QP number instead of a QP.]],
      solution = [[
        rc_connect(qp_a, qp_b.qp_num + 1000, {timeout = 8, retry_cnt = 1})
        qp_a:post_send{wr_id = 6, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}
        wcs = cq:wait(1, 3000)
        qp_a.state]],
      check = function(S)
        local w = K.find_wc(K.step_wcs(S, cq, 1, 3000), { wr_id = 6 })
        if not w then return false, "no completion for wr_id 6 yet" end
        if w.status ~= "RETRY_EXC_ERR" then return false, "wr_id 6 ended " .. w.status end
        return true, ("%s; dest_qp_num 0x%x, qp_a %s"):format(w.status, qp_a:query().dest_qp_num, qp_a.state)
      end,
    },
  },
}
