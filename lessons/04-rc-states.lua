-- Lesson 4: the RC QP state machine, by hand.
local K = require "verbs.lesson_kit"

local function both(state)
  if not (K.is(qp_a, "qp") and K.is(qp_b, "qp")) then return false, "qp_a and qp_b must both be QPs" end
  local a, b = qp_a.state, qp_b.state
  if a ~= state or b ~= state then
    return false, ("qp_a is %s and qp_b is %s; both should be %s"):format(a, b, state)
  end
  return true
end

return {
  title = "The RC QP state machine, by hand",
  transports = { "RoCE" },
  intro = [[
    A queue pair is a send queue and a receive queue. A new QP is in RESET and
    can do nothing; ibv_modify_qp walks it through INIT, RTR (ready to
    receive) and RTS (ready to send), and each step needs specific attributes.
    Here you connect two RC QPs of this device to each other, qp_a <-> qp_b.]],
  setup = function()
    K.open()
    pd = ctx:alloc_pd()
    cq = ctx:create_cq(64)
    return K.describe { "ctx", "pd", "cq", "gid_index" }
  end,

  steps = {
    {
      title = "Create two RC QPs",
      text = [[
        ibv_create_qp takes the QP type (RC: reliable connected -- one peer,
        acknowledged, in order), the CQs its two queues complete to, and the
        queue sizes (cap). The new QP has a number (qp_num) that the peer will
        need, and is in RESET: it cannot even accept receives yet.]],
      c = [[
        struct ibv_qp_init_attr init = {
          .send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
          .cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1, .max_recv_sge = 1 } };
        struct ibv_qp *qp_a = ibv_create_qp(pd, &init);]],
      task = [[
        Create qp_a and qp_b:
          qp_a = pd:create_qp{qp_type = "RC", send_cq = cq, recv_cq = cq,
                 cap = {max_send_wr = 16, max_recv_wr = 16, max_send_sge = 1, max_recv_sge = 1}}]],
      hint = [[The same call twice, once for qp_a, once for qp_b.]],
      solution = [[
        qp_a = pd:create_qp{qp_type = "RC", send_cq = cq, recv_cq = cq, cap = {max_send_wr = 16, max_recv_wr = 16, max_send_sge = 1, max_recv_sge = 1}}
        qp_b = pd:create_qp{qp_type = "RC", send_cq = cq, recv_cq = cq, cap = {max_send_wr = 16, max_recv_wr = 16, max_send_sge = 1, max_recv_sge = 1}}
        qp_a.qp_num, qp_a.state]],
      check = function()
        local ok, why = both("RESET")
        if not ok then return false, why end
        if qp_a.qp_type ~= "RC" or qp_b.qp_type ~= "RC" then return false, "both QPs must be RC" end
        if rawequal(qp_a, qp_b) then return false, "qp_a and qp_b are the same QP" end
        return true, ("qp_a 0x%x and qp_b 0x%x in RESET"):format(qp_a.qp_num, qp_b.qp_num)
      end,
    },
    {
      title = "RESET -> INIT",
      text = [[
        INIT ties the QP to a port and a partition and says what the PEER may do
        to this QP's memory: qp_access_flags (REMOTE_WRITE, REMOTE_READ,
        REMOTE_ATOMIC; lesson 10 shows the error when one is missing).
        Required for RC: qp_state, pkey_index, port_num, qp_access_flags -- the
        C mask is IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS.
        verbsh derives the mask from the fields you set. From INIT on, you may
        post receives (not sends).]],
      c = [[
        struct ibv_qp_attr attr = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
          .qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC };
        ibv_modify_qp(qp_a, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);]],
      task = [[
        Move qp_a and qp_b to INIT:
          qp_a:modify{qp_state = "INIT", pkey_index = 0, port_num = 1,
                      qp_access_flags = {"REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC"}}]],
      hint = [[for _, q in ipairs{qp_a, qp_b} do q:modify{...} end does both]],
      solution = [[
        for _, q in ipairs{qp_a, qp_b} do q:modify{qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = {"REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC"}} end
        qp_a.state, qp_b.state]],
      check = function()
        local ok, why = both("INIT")
        if not ok then return false, why end
        return true, "qp_a INIT, qp_b INIT (queried)"
      end,
    },
    {
      title = "RTR needs the path: see it fail",
      text = [[
        INIT -> RTR is where the QP learns its peer. RC requires: the address
        vector ah_attr (how to reach the peer: on RoCE is_global = 1 and a GRH
        with the peer's GID and our sgid_index), path_mtu, dest_qp_num,
        rq_psn (the first packet sequence number to expect),
        max_dest_rd_atomic (how many READs/atomics the peer may have in flight
        here) and min_rnr_timer. Leave one out and ibv_modify_qp fails with
        EINVAL -- it does not say which one, so verbsh's error explains.]],
      c = [[
        attr.qp_state = IBV_QPS_RTR; attr.path_mtu = IBV_MTU_1024; attr.dest_qp_num = qpn_b; ...
        ibv_modify_qp(qp_a, &attr, IBV_QP_STATE | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN
                      | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);   /* no IBV_QP_AV: EINVAL */]],
      task = [[
        Try RTR without ah_attr and read the explanation:
          qp_a:modify{qp_state = "RTR", path_mtu = "1024", dest_qp_num = qp_b.qp_num,
                      rq_psn = 0, max_dest_rd_atomic = 1, min_rnr_timer = 12}
        (In a script you would catch it: ok, err = pcall(qp_a.modify, qp_a, {...}).
        qp_a stays in INIT.)]],
      hint = [[
        The failure is the point: the modify must fail with ibv_modify_qp's EINVAL.
        If qp_a already went further (the full RTR is the next step), take it back:
          qp_a:modify{qp_state = "RESET"}
          qp_a:modify{qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = {"REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC"}}
        then try the RTR without ah_attr.]],
      solution = [[
        ok, err = pcall(qp_a.modify, qp_a, {qp_state = "RTR", path_mtu = "1024", dest_qp_num = qp_b.qp_num, rq_psn = 0, max_dest_rd_atomic = 1, min_rnr_timer = 12})
        print(err)
        qp_a.state]],
      -- Either form counts: the error raised at the prompt, or one kept in err.
      check = function()
        if qp_a.state ~= "INIT" and qp_a.state ~= "RESET" then
          return false, ("qp_a is in %s, past INIT (the full RTR is the next step): take it back with " ..
            "qp_a:modify{qp_state = \"RESET\"}, then INIT as in step 2 (hint() shows both), " ..
            "and try the RTR without ah_attr"):format(qp_a.state)
        end
        local e = require("verbs.repl").last_error
        if not K.is_verb_error(e, "ibv_modify_qp", "EINVAL") then e = rawget(_G, "err") end
        if not K.is_verb_error(e, "ibv_modify_qp", "EINVAL") then
          return false, "no EINVAL from ibv_modify_qp yet: try the RTR modify without ah_attr"
        end
        if qp_a.state ~= "INIT" then return false, "qp_a should still be in INIT" end
        return true, ("%s errno %d, qp_a still %s"):format(e.errname, e.errno, qp_a.state)
      end,
    },
    {
      title = "INIT -> RTR, properly",
      text = [[
        Both QPs are on this device, so the peer's GID is our own GID
        (ctx:query_gid(1, gid_index)); each QP's dest_qp_num is the other's
        qp_num. path_mtu must not exceed the port's active_mtu (1024 here).
        In RTR the QP accepts incoming packets; it still cannot send.]],
      c = [[
        attr.ah_attr.is_global = 1; attr.ah_attr.port_num = 1;
        attr.ah_attr.grh.dgid = gid; attr.ah_attr.grh.sgid_index = gid_index; attr.ah_attr.grh.hop_limit = 1;
        ibv_modify_qp(qp_a, &attr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN
                      | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);]],
      task = [[
        Move both to RTR, each pointing at the other:
          gid = ctx:query_gid(1, gid_index)
          qp_a:modify{qp_state = "RTR", path_mtu = "1024", dest_qp_num = qp_b.qp_num, rq_psn = 0,
                      max_dest_rd_atomic = 1, min_rnr_timer = 12,
                      ah_attr = {is_global = 1, port_num = 1,
                                 grh = {dgid = gid, sgid_index = gid_index, hop_limit = 1}}}
        and the same for qp_b with dest_qp_num = qp_a.qp_num.]],
      hint = [[for _, p in ipairs{{qp_a, qp_b}, {qp_b, qp_a}} do p[1]:modify{..., dest_qp_num = p[2].qp_num, ...} end]],
      solution = [[
        gid = ctx:query_gid(1, gid_index)
        for _, p in ipairs{{qp_a, qp_b}, {qp_b, qp_a}} do p[1]:modify{qp_state = "RTR", path_mtu = "1024", dest_qp_num = p[2].qp_num, rq_psn = 0, max_dest_rd_atomic = 1, min_rnr_timer = 12, ah_attr = {is_global = 1, port_num = 1, grh = {dgid = gid, sgid_index = gid_index, hop_limit = 1}}} end
        qp_a.state, qp_b.state]],
      check = function()
        local ok, why = both("RTR")
        if not ok then return false, why end
        local qa, qb = qp_a:query(), qp_b:query()
        if qa.dest_qp_num ~= qp_b.qp_num or qb.dest_qp_num ~= qp_a.qp_num then
          return false, "the QPs are in RTR but do not point at each other (dest_qp_num)"
        end
        return true, ("both RTR; queried dest_qp_num 0x%x <-> 0x%x, path_mtu %s"):format(
          qa.dest_qp_num, qb.dest_qp_num, tostring(qa.path_mtu))
      end,
    },
    {
      title = "RTR -> RTS",
      text = [[
        RTS turns on the send queue. RC requires the sender's side of the
        protocol: sq_psn (our first PSN; must equal the peer's rq_psn),
        timeout (ACK timeout, 4.096 us * 2^timeout; 14 is about 67 ms;
        0 means wait forever), retry_cnt (resends after a timeout),
        rnr_retry (resends after "receiver not ready"; 7 = forever) and
        max_rd_atomic (our READs/atomics in flight).]],
      c = [[
        attr.qp_state = IBV_QPS_RTS; attr.sq_psn = 0; attr.timeout = 14; attr.retry_cnt = 7;
        attr.rnr_retry = 7; attr.max_rd_atomic = 1;
        ibv_modify_qp(qp_a, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT
                      | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);]],
      task = [[
        Move both to RTS:
          qp_a:modify{qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7,
                      rnr_retry = 7, max_rd_atomic = 1}]],
      hint = [[for _, q in ipairs{qp_a, qp_b} do q:modify{qp_state = "RTS", ...} end]],
      solution = [[
        for _, q in ipairs{qp_a, qp_b} do q:modify{qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1} end
        qp_a, qp_b]],
      check = function()
        local ok, why = both("RTS")
        if not ok then return false, why end
        local qa = qp_a:query()
        return true, ("both RTS; qp_a timeout=%s retry_cnt=%s rnr_retry=%s"):format(
          tostring(qa.timeout), tostring(qa.retry_cnt), tostring(qa.rnr_retry))
      end,
    },
    {
      title = "Prove the connection",
      text = [[
        A connected pair carries messages both ways. From the next lesson on,
        rc_connect(qp, peer [, attrs]) does these three transitions for you
        (RESET first when needed) -- exactly the calls you just typed.]],
      c = [[ibv_post_recv(qp_b, &rwr, &bad); ibv_post_send(qp_a, &swr, &bad); ibv_poll_cq(cq, 2, wc);]],
      task = [[
        mr = pd:reg_mr(64, "LOCAL_WRITE"); mr:write(0, "ping")
        post a receive on qp_b into mr at offset 32, send 4 bytes from offset 0 on qp_a,
        and wcs = cq:wait(2).]],
      hint = [[
        qp_b:post_recv{wr_id = 2, sg_list = {{mr = mr, offset = 32, length = 32}}}
        qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr, offset = 0, length = 4}}}]],
      solution = [[
        mr = pd:reg_mr(64, "LOCAL_WRITE")
        mr:write(0, "ping")
        qp_b:post_recv{wr_id = 2, sg_list = {{mr = mr, offset = 32, length = 32}}}
        qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr, offset = 0, length = 4}}}
        wcs = cq:wait(2)
        mr:read(32, 4)]],
      check = function(S)
        local l = K.step_wcs(S, cq, 2)
        local r = K.find_wc(l, { status = "SUCCESS", opcode = "RECV", qp_num = qp_b.qp_num })
        local s = K.find_wc(l, { status = "SUCCESS", opcode = "SEND", qp_num = qp_a.qp_num })
        if not (r and s) then return false, "no successful SEND on qp_a and RECV on qp_b seen yet" end
        if not (K.is(mr, "mr") and mr:read(32, 4) == "ping") then
          return false, "mr does not hold \"ping\" at offset 32"
        end
        return true, K.wc_note(s) .. "; " .. K.wc_note(r) .. "; \"ping\" arrived"
      end,
    },
  },
}
