-- Lesson 11: shared receive queues and the SRQ limit event.
local K = require "verbs.lesson_kit"

return {
  title = "Shared receive queues",
  transports = { "RoCE" },
  intro = [[
    A server with many connections cannot keep a full receive queue per QP:
    most of those buffers would sit idle. A shared receive queue (SRQ) is one
    pool of receives that any number of QPs consume from. Here two senders,
    qp_a1 and qp_a2, talk to two receivers, qp_b1 and qp_b2, which share one SRQ.]],
  setup = function()
    K.base()
    return K.describe { "ctx", "pd", "cq", "mr_a", "mr_b", "gid_index" }
  end,

  steps = {
    {
      title = "Create the SRQ",
      text = [[
        ibv_create_srq takes the pool's size (max_wr) and SGEs per receive
        (max_sge). Receives go to it with ibv_post_srq_recv, not to a QP.]],
      c = [[
        struct ibv_srq_init_attr a = { .attr = { .max_wr = 64, .max_sge = 1 } };
        struct ibv_srq *srq = ibv_create_srq(pd, &a);]],
      task = [[Create srq with max_wr = 64 and max_sge = 1.]],
      hint = [[srq = pd:create_srq{max_wr = 64, max_sge = 1}]],
      solution = [[srq = pd:create_srq{max_wr = 64, max_sge = 1}]],
      check = function()
        return K.check(K.is(srq, "srq"), "srq is not a shared receive queue yet", tostring(srq))
      end,
    },
    {
      title = "QPs on the SRQ",
      text = [[
        A QP created with init_attr.srq takes its receives from the SRQ; its own
        receive queue is unused (max_recv_wr 0). The lesson then creates the
        senders qp_a1 and qp_a2 and connects qp_a1 <-> qp_b1, qp_a2 <-> qp_b2
        with rc_connect.]],
      c = [[init.srq = srq; init.cap.max_recv_wr = 0; qp_b1 = ibv_create_qp(pd, &init);]],
      task = [[
        Create two RC QPs qp_b1 and qp_b2 on srq:
          qp_b1 = pd:create_qp{qp_type = "RC", send_cq = cq, recv_cq = cq, srq = srq,
                               cap = {max_send_wr = 4, max_send_sge = 1}}]],
      hint = [[The same call twice; srq = srq is the point.]],
      solution = [[
        qp_b1 = pd:create_qp{qp_type = "RC", send_cq = cq, recv_cq = cq, srq = srq, cap = {max_send_wr = 4, max_send_sge = 1}}
        qp_b2 = pd:create_qp{qp_type = "RC", send_cq = cq, recv_cq = cq, srq = srq, cap = {max_send_wr = 4, max_send_sge = 1}}]],
      check = function()
        if not (K.is(qp_b1, "qp") and K.is(qp_b2, "qp")) then return false, "qp_b1 and qp_b2 must be QPs" end
        if rawequal(qp_b1, qp_b2) then return false, "qp_b1 and qp_b2 are the same QP" end
        -- without srq = srq each QP has its own receive queue, which step 3's srq:post_recv never fills
        for _, name in ipairs { "qp_b1", "qp_b2" } do
          if not rawequal(rawget(_G, name).srq, srq) then
            return false, name .. " is not on srq: create it with srq = srq (and no max_recv_wr)"
          end
        end
        return true, ("qp_b1 0x%x, qp_b2 0x%x"):format(qp_b1.qp_num, qp_b2.qp_num)
      end,
      after = function()
        qp_a1, qp_a2 = K.rc_qp(), K.rc_qp()
        rc_connect(qp_a1, qp_b1); rc_connect(qp_b1, qp_a1)
        rc_connect(qp_a2, qp_b2); rc_connect(qp_b2, qp_a2)
        print("(The lesson created qp_a1 and qp_a2 and connected them to qp_b1 and qp_b2.)"
              .. K.describe { "qp_a1", "qp_a2", "qp_b1", "qp_b2" })
      end,
    },
    {
      title = "One pool, two QPs",
      text = [[
        Post four receives to the SRQ; then each sender sends twice. The four
        messages are spread over the pool in arrival order, whichever QP they
        came in on: each RECV WC's qp_num says which QP it arrived on, and
        wr_id says which of the SRQ's buffers it used.]],
      c = [[ibv_post_srq_recv(srq, &rwr, &bad);]],
      task = [[
        Post receives wr_id 100..103 (mr_b offsets 0, 64, 128, 192; 64 bytes each)
        with srq:post_recv{...list...}; send 5 bytes twice from qp_a1 and twice
        from qp_a2; wcs = cq:wait(8).]],
      hint = [[
        srq:post_recv{{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 64}}}, ...}
        for i = 1, 2 do for _, q in ipairs{qp_a1, qp_a2} do q:post_send{...} end end]],
      solution = [[
        srq:post_recv{{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 64}}}, {wr_id = 101, sg_list = {{mr = mr_b, offset = 64, length = 64}}}, {wr_id = 102, sg_list = {{mr = mr_b, offset = 128, length = 64}}}, {wr_id = 103, sg_list = {{mr = mr_b, offset = 192, length = 64}}}}
        mr_a:write(0, "hello")
        for i = 1, 2 do for _, q in ipairs{qp_a1, qp_a2} do q:post_send{wr_id = i, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}} end end
        wcs = cq:wait(8)]],
      check = function(S)
        local l = K.step_wcs(S, cq, 8)
        local on = {}
        local used = {}
        for _, w in ipairs(l) do
          if w.opcode == "RECV" and w.status == "SUCCESS" then
            on[w.qp_num] = (on[w.qp_num] or 0) + 1
            used[#used + 1] = ("%d@0x%x"):format(w.wr_id, w.qp_num)
          end
        end
        if (on[qp_b1.qp_num] or 0) ~= 2 or (on[qp_b2.qp_num] or 0) ~= 2 then
          return false, "expected two successful RECVs on each of qp_b1 and qp_b2"
        end
        return true, "4 RECVs from one SRQ: " .. table.concat(used, " ")
      end,
    },
    {
      title = "The limit event",
      text = [[
        To refill an SRQ in time without polling its fill level, arm its limit:
        ibv_modify_srq with srq_limit = N. When fewer than N receives remain,
        the device raises the asynchronous event SRQ_LIMIT_REACHED -- on the
        context's async event queue, not on a CQ -- and disarms the limit
        (srq_limit reads 0 again); re-arm after refilling.]],
      c = [[
        struct ibv_srq_attr a = { .srq_limit = 2 };
        ibv_modify_srq(srq, &a, IBV_SRQ_LIMIT);
        struct ibv_async_event ev;
        ibv_get_async_event(ctx, &ev);   /* ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED */
        ibv_ack_async_event(&ev);]],
      task = [[
        Post 4 receives to srq (wr_id 110..113), arm srq_limit = 2, send 3 messages
        from qp_a1, collect their 6 completions, then ev = ctx:get_async_event(1000).]],
      hint = [[srq:modify{srq_limit = 2}; after 3 of 4 receives are used, 1 < 2 remains.]],
      solution = [[
        srq:post_recv{{wr_id = 110, sg_list = {{mr = mr_b, offset = 0, length = 64}}}, {wr_id = 111, sg_list = {{mr = mr_b, offset = 64, length = 64}}}, {wr_id = 112, sg_list = {{mr = mr_b, offset = 128, length = 64}}}, {wr_id = 113, sg_list = {{mr = mr_b, offset = 192, length = 64}}}}
        srq:modify{srq_limit = 2}
        for i = 1, 3 do qp_a1:post_send{wr_id = 10 + i, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}} end
        wcs = cq:wait(6)
        ev = ctx:get_async_event(1000)
        srq:query()]],
      check = function(S)
        if type(ev) ~= "table" then
          return false, "ev holds no async event: ev = ctx:get_async_event(1000) after the receives ran low"
        end
        if ev.event_type ~= "SRQ_LIMIT_REACHED" then return false, "ev is " .. tostring(ev.event_type) end
        local limit = srq:query().srq_limit
        return true, ("%s; srq_limit now %s"):format(ev.event_type, tostring(limit))
      end,
    },
  },
}
