-- Lesson 16: busy polling against completion events: CPU time and latency.
local K = require "verbs.lesson_kit"

-- One round of the measurement: n SEND/RECV exchanges between qp_a and qp_b,
-- waiting for each completion either by spinning on ibv_poll_cq or by
-- sleeping on the channel (arm, wait_fds, get_cq_event, ack, poll).
-- Returns { mode, n, usec (per exchange, wall), cpu_ms (user + system) }.
local function exchange(mode, n)
  local function cpu() local u = verbs.getrusage() return u.ru_utime + u.ru_stime end
  local function wait_one()
    if mode == "busy" then              -- while (ibv_poll_cq(cq, 1, &wc) == 0) ;
      local w
      repeat w = cq:poll(1)[1] until w
      assert(w.status == "SUCCESS", tostring(w))
      return
    end
    while true do
      local got = cq:poll(1)[1]          -- what arrived before the CQ was armed
      if got then assert(got.status == "SUCCESS", tostring(got)) return end
      cq:req_notify()                    -- arm, then poll again: a completion may have slipped in between
      got = cq:poll(1)[1]
      if got then assert(got.status == "SUCCESS", tostring(got)) return end
      assert(#verbs.wait_fds({ ch }, 5000) == 1, "events: no event within 5 s")
      assert(ch:get_cq_event() == cq)
      cq:ack_events(1)
    end
  end
  local c0, t0 = cpu(), verbs.now()
  for i = 1, n do
    qp_b:post_recv{ wr_id = i, sg_list = { { mr = mr_b, offset = 0, length = 64 } } }
    qp_a:post_send{ wr_id = i, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr_a, offset = 0, length = 64 } } }
    wait_one(); wait_one()               -- the SEND's and the RECV's completions
  end
  local secs, used = verbs.now() - t0, cpu() - c0
  return { mode = mode, n = n, usec = secs / n * 1e6, cpu_ms = used * 1e3, cpu_share = used / secs }
end

-- Waiting for a completion that takes its time: an RC SEND to a peer QP
-- that stays in RESET is retried (timeout 14, about 67 ms, retry_cnt 3) and
-- ends in RETRY_EXC_ERR; nothing in this process hurries it.
-- (qp_c and qp_dead are the lesson's own, not the student's globals: made
-- once, for both rounds, and destroyed at teardown, before cq)
local qp_c, qp_dead
local function idle(mode)
  local function cpu() local u = verbs.getrusage() return u.ru_utime + u.ru_stime end
  if not qp_c then
    qp_c, qp_dead = K.rc_qp(cq), K.rc_qp(cq)
    K.at_teardown(function()
      pcall(qp_c.destroy, qp_c); pcall(qp_dead.destroy, qp_dead)
      qp_c, qp_dead = nil, nil
    end)
  end
  rc_connect(qp_c, qp_dead, { timeout = 14, retry_cnt = 3 })
  local c0, t0 = cpu(), verbs.now()
  qp_c:post_send{ wr_id = 99, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr_a, offset = 0, length = 8 } } }
  local wc
  if mode == "busy" then
    repeat wc = cq:poll(1)[1] until wc or verbs.now() - t0 > 10
  else
    while not wc do
      cq:req_notify()
      wc = cq:poll(1)[1]
      if not wc then
        assert(#verbs.wait_fds({ ch }, 10000) == 1, "events: no event within 10 s")
        ch:get_cq_event(); cq:ack_events(1)
        wc = cq:poll(1)[1]
      end
    end
  end
  assert(wc and wc.status == "RETRY_EXC_ERR", "expected RETRY_EXC_ERR, got " .. tostring(wc))
  local secs, used = verbs.now() - t0, cpu() - c0
  return { mode = mode .. " idle", n = 1, usec = secs * 1e6, cpu_ms = used * 1e3, cpu_share = used / secs }
end

local function report(r)
  local what = r.n == 1 and "one slow SEND:" or ("%d exchanges:"):format(r.n)
  return ("%-11s %-15s %.0f us each, CPU %.0f ms (%.0f%% of the wall time)"):format(r.mode, what, r.usec,
    r.cpu_ms, r.cpu_share * 100)
end

return {
  title = "Busy polling or events: CPU time against latency",
  transports = { "RoCE" },
  intro = [[
    A program can wait for a completion in two ways. It can spin on
    ibv_poll_cq: the fastest reaction, and one core at 100% while it waits.
    Or it can arm the CQ and sleep on the completion channel's fd (alone, or
    in an epoll loop with its sockets): no CPU while idle, and a wake-up
    (a system call and a context switch) per event. You will measure both
    with getrusage(2).

    The lesson made ch (a completion channel), cq on it, and qp_a <-> qp_b
    connected (RTS); mr_a and mr_b are 4 KiB.]],
  setup = function()
    K.open()
    pd = ctx:alloc_pd()
    ch = ctx:create_comp_channel()
    cq = ctx:create_cq(64, { channel = ch })
    mr_a = pd:reg_mr(4096, K.all_remote)
    mr_b = pd:reg_mr(4096, K.all_remote)
    qp_a, qp_b = K.rc_qp(cq), K.rc_qp(cq)
    rc_connect(qp_a, qp_b)
    rc_connect(qp_b, qp_a)
    exchange_round, idle_round = exchange, idle
    return K.describe { "ctx", "pd", "ch", "cq", "mr_a", "mr_b", "qp_a", "qp_b", "gid_index" }
  end,

  steps = {
    {
      title = "Sleep until the CQ has work",
      text = [[
        req_notify arms the CQ: its next completion writes one event to the
        channel's fd. verbs.wait_fds({ch, ...}, ms) is the epoll_wait of an
        event loop: it returns the entries that are readable (Ctrl-C
        interrupts it). get_cq_event then reads the event (it names the CQ),
        ack_events acknowledges it, and poll takes the completion. Arm BEFORE
        the last poll, or a completion between the two is never signalled.]],
      c = [[
        ibv_req_notify_cq(cq, 0);
        struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
        poll(&pfd, 1, 5000);                  /* or epoll_wait */
        ibv_get_cq_event(ch, &ev_cq, &ev_ctx);
        ibv_ack_cq_events(ev_cq, 1);
        ibv_poll_cq(ev_cq, 1, &wc);]],
      task = [[
        Arm cq, post a receive (wr_id 7) on qp_b and a signaled 64-byte SEND
        (wr_id 7) on qp_a, then: ready = verbs.wait_fds({ch}, 5000),
        ev_cq = ch:get_cq_event(), ev_cq:ack_events(1), wcs = cq:wait(2).]],
      hint = [[cq:req_notify(); ...post...; ready = verbs.wait_fds({ch}, 5000); ev_cq = ch:get_cq_event()]],
      solution = [[
        cq:req_notify()
        qp_b:post_recv{wr_id = 7, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
        qp_a:post_send{wr_id = 7, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 64}}}
        ready = verbs.wait_fds({ch}, 5000)
        ev_cq = ch:get_cq_event()
        ev_cq:ack_events(1)
        wcs = cq:wait(2)]],
      check = function(S)
        if ev_cq ~= cq then return false, "ev_cq is not cq: did get_cq_event return it?" end
        if type(ready) ~= "table" or ready[1] ~= ch then return false, "ready should be { ch }: wait_fds' answer" end
        local l = K.step_wcs(S, cq, 2)
        local r, s = K.find_wc(l, { wr_id = 7, opcode = "RECV" }), K.find_wc(l, { wr_id = 7, opcode = "SEND" })
        if not (r and s) then return false, "no SEND and RECV completions for wr_id 7 yet" end
        if r.status ~= "SUCCESS" or s.status ~= "SUCCESS" then
          return false, "a completion failed: " .. tostring(s) .. " / " .. tostring(r)
        end
        return true, "the channel woke wait_fds, the event named cq, and both completions were polled"
      end,
    },
    {
      title = "Measure: spinning against sleeping",
      text = [[
        The lesson's functions (read lessons/16-events.lua) time two things,
        each by spinning (mode "busy": cq:poll in a tight loop) and by events
        (mode "events": arm, poll, wait_fds, get_cq_event, ack, poll), reading
        getrusage before and after (ru_utime + ru_stime: the CPU this process
        burnt):
          exchange_round(mode, n): n quick SEND/RECV exchanges;
          idle_round(mode): one SEND to a peer that never answers, which
            fails with RETRY_EXC_ERR after about 0.3 s of retries.
        Note what rxe does to the first: soft-RoCE runs the "NIC" inside your
        own system calls (ibv_post_send does the protocol work in your
        process), so a quick exchange costs CPU either way and the wake-ups
        only add to it. The second shows what events are for: while nothing
        happens, spinning burns a core and sleeping costs nothing.]],
      c = [[
        struct rusage r0, r1;
        getrusage(RUSAGE_SELF, &r0);   /* ... the loop ... */   getrusage(RUSAGE_SELF, &r1);
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime);]],
      task = [[
        busy = exchange_round("busy", 200); events = exchange_round("events", 200)
        busy_idle = idle_round("busy"); events_idle = idle_round("events")
        and compare their cpu_ms and usec.]],
      hint = [[busy_idle = idle_round("busy")]],
      solution = [[
        busy = exchange_round("busy", 200)
        events = exchange_round("events", 200)
        busy_idle = idle_round("busy")
        events_idle = idle_round("events")]],
      check = function()
        local rounds = { rawget(_G, "busy"), rawget(_G, "events"), rawget(_G, "busy_idle"), rawget(_G, "events_idle") }
        for i, name in ipairs { "busy", "events", "busy_idle", "events_idle" } do
          if type(rounds[i]) ~= "table" or not rounds[i].usec then return false, "no " .. name .. " round yet" end
        end
        if busy.mode ~= "busy" or events.mode ~= "events" or busy_idle.mode ~= "busy idle" or events_idle.mode ~= "events idle" then
          return false, "busy/events should be exchange_round's busy and events rounds, *_idle idle_round's"
        end
        for _, r in ipairs(rounds) do print("  " .. report(r)) end
        return true, ("waiting %.0f ms for a slow completion cost %.0f ms of CPU spinning, %.0f ms sleeping"):format(
          busy_idle.usec / 1e3, busy_idle.cpu_ms, events_idle.cpu_ms)
      end,
    },
  },
}
