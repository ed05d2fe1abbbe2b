-- Lesson 3: completion queues, polling and completion events.
local K = require "verbs.lesson_kit"

local function send_pair(S)
  -- Two QPs on the learner's CQ, connected as lesson 4 will show by hand.
  if not (K.is(qp_a, "qp") and K.is(qp_b, "qp")) then
    qp_a, qp_b = K.rc_qp(cq), K.rc_qp(cq)
    rc_connect(qp_a, qp_b)
    rc_connect(qp_b, qp_a)
    print("(The lesson created qp_a and qp_b on your cq and connected them; lesson 4 shows how.)"
          .. K.describe { "qp_a", "qp_b" })
  end
end

return {
  title = "Completion queues: polling and events",
  transports = { "RoCE" },
  intro = [[
    Work requests finish asynchronously. The device reports each one as a work
    completion (WC) in a completion queue; you find it by polling, or you ask
    for an event and sleep until one arrives.]],
  setup = function()
    K.open()
    pd = ctx:alloc_pd()
    mr_a = pd:reg_mr(4096, K.all_remote)
    mr_b = pd:reg_mr(4096, K.all_remote)
    return K.describe { "ctx", "pd", "mr_a", "mr_b", "gid_index" }
  end,

  steps = {
    {
      title = "A completion channel",
      text = [[
        A completion channel is a file descriptor on which the kernel signals
        "a CQ you armed has a new completion". Many CQs can share one channel.
        You need it only to sleep instead of spinning.]],
      c = [[struct ibv_comp_channel *ch = ibv_create_comp_channel(ctx);]],
      task = [[Create a completion channel into the global ch.]],
      hint = [[ch = ctx:create_comp_channel()]],
      solution = [[ch = ctx:create_comp_channel()]],
      check = function()
        return K.check(K.is(ch, "comp_channel"), "ch is not a completion channel yet", tostring(ch))
      end,
    },
    {
      title = "A CQ",
      text = [[
        ibv_create_cq(ctx, cqe, ...) makes a queue for at least cqe completions
        (the device may round up). Size it for every WR that can complete
        before you poll: overrunning a CQ is an error (async event CQ_ERR) that
        takes its QPs down. Attaching the channel costs nothing while you poll.]],
      c = [[struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, ch, 0);]],
      task = [[Create a CQ of 16 entries attached to ch, into the global cq.]],
      hint = [[cq = ctx:create_cq(16, {channel = ch})]],
      solution = [[cq = ctx:create_cq(16, {channel = ch})]],
      check = function()
        if not K.is(cq, "cq") then return false, "cq is not a completion queue yet" end
        -- without the channel, step 4's event never comes
        if not rawequal(cq.channel, ch) then
          return false, "cq is not attached to ch: cq = ctx:create_cq(16, {channel = ch})"
        end
        return true, tostring(cq)
      end,
    },
    {
      title = "Polling",
      enter = send_pair,
      text = [[
        ibv_poll_cq takes up to N completions off the CQ and returns at once,
        with whatever is there now -- possibly nothing yet. It never blocks,
        so a polling loop costs a CPU core but reacts fastest. Each WC tells
        which WR (wr_id), on which QP (qp_num), how it ended (status) and what
        it was (opcode, byte_len).
        A receive must be posted before the message arrives (lesson 10 shows
        what happens otherwise).]],
      c = [[
        struct ibv_wc wc[16];
        int n = ibv_poll_cq(cq, 16, wc);]],
      task = [[
        Post a receive on qp_b, send 5 bytes from qp_a, then poll: wcs = cq:poll(16).
          qp_b:post_recv{wr_id = 2, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
          qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED",
                         sg_list = {{mr = mr_a, offset = 0, length = 5}}}]],
      hint = [[wcs = cq:poll(16) -- call it again if it returned fewer than two]],
      solution = [[
        qp_b:post_recv{wr_id = 2, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
        qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}
        wcs = cq:poll(16)]],
      check = function(S)
        local l = K.step_wcs(S, cq, 2)
        local s = K.find_wc(l, { wr_id = 1, status = "SUCCESS", opcode = "SEND" })
        local r = K.find_wc(l, { wr_id = 2, status = "SUCCESS", opcode = "RECV" })
        if not (s and r) then return false, "no SEND and RECV completions (wr_id 1 and 2) seen yet" end
        return true, K.wc_note(s) .. "; " .. K.wc_note(r)
      end,
    },
    {
      title = "Sleeping until a completion",
      text = [[
        To sleep instead: arm the CQ with ibv_req_notify_cq, then block in
        ibv_get_cq_event on the channel. The kernel wakes you once, for the next
        completion added to an armed CQ; arm again for another event. Each event
        must be acknowledged (ibv_ack_cq_events) -- ibv_destroy_cq waits for
        that. The event carries no WC: poll the CQ afterwards. To miss nothing,
        re-arm before that poll (a completion arriving between your last poll
        and the re-arm would otherwise never wake you).]],
      c = [[
        ibv_req_notify_cq(cq, 0);
        /* ... post ... */
        struct ibv_cq *ev_cq; void *ev_ctx;
        ibv_get_cq_event(ch, &ev_cq, &ev_ctx);
        ibv_ack_cq_events(ev_cq, 1);
        ibv_req_notify_cq(ev_cq, 0);
        n = ibv_poll_cq(ev_cq, 16, wc);]],
      task = [[
        Arm cq (cq:req_notify()), post a receive on qp_b and a send on qp_a as
        before, wait for the event (ev_cq = ch:get_cq_event(1000)), acknowledge
        it (cq:ack_events(1)), and poll into wcs.]],
      hint = [[cq:req_notify() must come before the completion arrives; ev_cq = ch:get_cq_event(1000)]],
      solution = [[
        cq:req_notify()
        qp_b:post_recv{wr_id = 4, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
        qp_a:post_send{wr_id = 3, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}
        ev_cq = ch:get_cq_event(1000)
        cq:ack_events(1)
        wcs = cq:poll(16)]],
      check = function(S)
        if not (rawequal(ev_cq, cq) or K.is(ev_cq, "cq") and tostring(ev_cq) == tostring(cq)) then
          return false, "ev_cq is not cq: arm with cq:req_notify(), post, then ev_cq = ch:get_cq_event(1000)"
        end
        local l = K.step_wcs(S, cq, 2)
        local s = K.find_wc(l, { wr_id = 3, status = "SUCCESS" })
        local r = K.find_wc(l, { wr_id = 4, status = "SUCCESS" })
        if not (s and r) then return false, "no completions for wr_id 3 and 4 seen yet" end
        return true, "event on cq, then " .. K.wc_note(s) .. "; " .. K.wc_note(r)
      end,
    },
  },
}
