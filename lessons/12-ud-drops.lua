-- Lesson 12: UD's silent drops.
local K = require "verbs.lesson_kit"

local function on_b(l)
  local n = 0
  for _, w in ipairs(l) do if w.qp_num == qp_b.qp_num then n = n + 1 end end
  return n
end

return {
  title = "UD silent drops",
  transports = { "RoCE" },
  intro = [[
    UD has no acknowledgements, so a sender cannot know whether a datagram
    arrived: its completion only says "the packet left". Whatever goes wrong at
    the receiver stays there; the sender always sees SUCCESS. qp_a and qp_b are UD QPs in RTS
    (Q_Key 0x11111111) and ah addresses this port, as in lesson 9.]],
  setup = function() return K.ud_pair() end,

  steps = {
    {
      title = "No receive posted",
      text = [[
        On RC this would be an RNR NAK and a retry; on UD there is nobody to
        NAK to. The datagram is discarded at qp_b; qp_a's WC is SUCCESS.]],
      c = [[ibv_post_send(qp_a, &swr, &bad);   /* wc.status == IBV_WC_SUCCESS, nothing received */]],
      task = [[Send 9 bytes from qp_a to qp_b (wr_id 1) with no receive posted; wcs = cq:wait(2, 500).]],
      hint = [[qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 9}}, ud = {ah = ah, remote_qpn = qp_b.qp_num, remote_qkey = 0x11111111}}]],
      solution = [[
        qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 9}}, ud = {ah = ah, remote_qpn = qp_b.qp_num, remote_qkey = 0x11111111}}
        wcs = cq:wait(2, 500)]],
      check = function(S)
        local l = K.step_wcs(S, cq, 2, 500)
        local s = K.find_wc(l, { wr_id = 1 })
        if not s then return false, "no completion for wr_id 1 yet" end
        if s.status ~= "SUCCESS" then return false, "the send ended " .. s.status end
        if on_b(l) > 0 then return false, "qp_b received something" end
        return true, "sender " .. K.wc_note(s) .. "; nothing on qp_b"
      end,
    },
    {
      title = "Wrong Q_Key",
      text = [[
        A datagram whose Q_Key differs from the receiving QP's is dropped,
        even with a receive posted, and the port counts it in qkey_viol_cntr.
        The receive stays posted: the next datagram with the right Q_Key uses
        it.]],
      c = [[swr.wr.ud.remote_qkey = 0x22222222;   /* qp_b's Q_Key is 0x11111111 */]],
      enter = function(S) S.viol = ctx:query_port(1).qkey_viol_cntr end,
      task = [[
        Post a receive of 40 + 64 bytes on qp_b (wr_id 100); send with
        remote_qkey = 0x22222222 (wr_id 2); wcs = cq:wait(2, 500); then
        ctx:query_port(1).qkey_viol_cntr.]],
      hint = [[ud = {ah = ah, remote_qpn = qp_b.qp_num, remote_qkey = 0x22222222}]],
      solution = [[
        qp_b:post_recv{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 40 + 64}}}
        qp_a:post_send{wr_id = 2, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 9}}, ud = {ah = ah, remote_qpn = qp_b.qp_num, remote_qkey = 0x22222222}}
        wcs = cq:wait(2, 500)
        ctx:query_port(1).qkey_viol_cntr]],
      check = function(S)
        local l = K.step_wcs(S, cq, 2, 500)
        local s = K.find_wc(l, { wr_id = 2 })
        if not s then return false, "no completion for wr_id 2 yet" end
        if s.status ~= "SUCCESS" then return false, "the send ended " .. s.status end
        if on_b(l) > 0 then return false, "qp_b received something: was the Q_Key wrong?" end
        local viol = ctx:query_port(1).qkey_viol_cntr
        if S.viol and viol and viol <= S.viol then return false, "qkey_viol_cntr did not grow" end
        return true, ("sender %s; nothing on qp_b; qkey_viol_cntr %s -> %s"):format(
          K.wc_note(s), tostring(S.viol), tostring(viol))
      end,
    },
    {
      title = "The receive was still there",
      text = [[
        Send again with the right Q_Key: the receive posted in the last step
        completes now, so the bad datagram never touched it.]],
      c = [[swr.wr.ud.remote_qkey = 0x11111111;]],
      task = [[Send with remote_qkey = 0x11111111 (wr_id 3); wcs = cq:wait(2, 500).]],
      hint = [[ud = {ah = ah, remote_qpn = qp_b.qp_num, remote_qkey = 0x11111111}]],
      solution = [[
        qp_a:post_send{wr_id = 3, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 9}}, ud = {ah = ah, remote_qpn = qp_b.qp_num, remote_qkey = 0x11111111}}
        wcs = cq:wait(2, 500)]],
      check = function(S)
        local l = K.step_wcs(S, cq, 2, 500)
        local r = K.find_wc(l, { wr_id = 100 })
        if r and r.status ~= "SUCCESS" then return false, "the receive wr_id 100 ended " .. r.status end
        if not r then
          if K.find_wc(l, { wr_id = 3 }) then
            return false, "wr_id 3 was sent but the receive wr_id 100 has not completed: was it posted in step 2? " ..
              "A UD datagram with no receive posted is dropped; post_recv wr_id 100 on qp_b (40 + 64 bytes) and send again"
          end
          return false, "the receive wr_id 100 has not completed"
        end
        return true, "receive 100 " .. K.wc_note(r)
      end,
    },
    {
      title = "Receive buffer too small",
      redo = [[lesson.kit.ud_ready(qp_b)]],
      text = [[
        A UD receive must hold the 40-byte GRH plus the payload. When a
        datagram does not fit, the sender still sees SUCCESS -- nothing comes
        back to it. The receiver is worse off: on rxe the receive completes
        with LOC_QP_OP_ERR and qp_b goes to ERR, so it silently loses every
        later datagram too, until it is reset. (Other devices may report
        LOC_LEN_ERR, or just drop the datagram.) Size UD receives for
        40 + the largest message, normally 40 + active_mtu.]],
      c = [[rsge.length = 40 + 4;   /* a 9-byte datagram does not fit */]],
      task = [[
        Post a receive of only 40 + 4 bytes on qp_b (wr_id 101); send 9 bytes
        (wr_id 4); wcs = cq:wait(2, 500); look at qp_b.state.]],
      hint = [[qp_b:post_recv{wr_id = 101, sg_list = {{mr = mr_b, offset = 0, length = 44}}}]],
      solution = [[
        qp_b:post_recv{wr_id = 101, sg_list = {{mr = mr_b, offset = 0, length = 40 + 4}}}
        qp_a:post_send{wr_id = 4, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 9}}, ud = {ah = ah, remote_qpn = qp_b.qp_num, remote_qkey = 0x11111111}}
        wcs = cq:wait(2, 500)
        qp_b.state]],
      check = function(S)
        local l = K.step_wcs(S, cq, 2, 500)
        local s = K.find_wc(l, { wr_id = 4 })
        if not s then return false, "no completion for wr_id 4 yet" end
        if s.status ~= "SUCCESS" then return false, "the send ended " .. s.status end
        local r = K.find_wc(l, { wr_id = 101 })
        if not r then return false, "no completion for the receive wr_id 101 yet" end
        if r.status == "SUCCESS" then return false, "receive 101 succeeded: was it 44 bytes?" end
        if qp_b.state ~= "ERR" then return false, "qp_b is " .. qp_b.state end
        return true, ("sender %s; receive 101 %s, qp_b %s"):format(K.wc_note(s), r.status, qp_b.state)
      end,
    },
  },
}
