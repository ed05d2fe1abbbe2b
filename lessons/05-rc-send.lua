-- Lesson 5: RC SEND / RECV, SEND_WITH_IMM, signaling, scatter/gather.
local K = require "verbs.lesson_kit"

local function recv_on_b(l, wr_id)
  return K.find_wc(l, { wr_id = wr_id, qp_num = qp_b.qp_num })
end

return {
  title = "RC SEND and RECV",
  transports = { "RoCE" },
  intro = [[
    SEND is two-sided: the receiver must have posted a receive WR naming where
    the message goes, and both sides get a completion. qp_a and qp_b are
    connected (RTS) as in lesson 4; mr_a and mr_b are 4 KiB each.]],
  setup = function() return K.rc_pair() end,

  steps = {
    {
      title = "SEND meets RECV",
      text = [[
        post_recv hands the receive queue a buffer (scatter list of
        {mr, offset, length}); the next incoming SEND lands there. post_send
        with opcode SEND and send_flags SIGNALED asks for a completion on the
        sender too. The receiver's WC says how many bytes arrived (byte_len).]],
      c = [[
        struct ibv_sge sge = { .addr = (uintptr_t)buf_b, .length = 64, .lkey = mr_b->lkey };
        struct ibv_recv_wr rwr = { .wr_id = 100, .sg_list = &sge, .num_sge = 1 }, *bad_r;
        ibv_post_recv(qp_b, &rwr, &bad_r);
        struct ibv_send_wr swr = { .wr_id = 1, .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED, ... };
        ibv_post_send(qp_a, &swr, &bad_s);]],
      task = [[
        Write "hello" into mr_a, post a 64-byte receive (wr_id 100) on qp_b into
        mr_b, send 5 bytes from qp_a (wr_id 1), and collect: wcs = cq:wait(2).]],
      hint = [[
        qp_b:post_recv{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
        qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}]],
      solution = [[
        mr_a:write(0, "hello")
        qp_b:post_recv{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
        qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}
        wcs = cq:wait(2)
        mr_b:read(0, 5)]],
      check = function(S)
        local l = K.step_wcs(S, cq, 2)
        local r = recv_on_b(l, 100)
        local s = K.find_wc(l, { wr_id = 1, qp_num = qp_a.qp_num })
        if not (r and s) then return false, "no completions for wr_id 100 (qp_b) and 1 (qp_a) yet" end
        if r.status ~= "SUCCESS" or s.status ~= "SUCCESS" then
          return false, "a completion failed: " .. tostring(s.status) .. " / " .. tostring(r.status)
        end
        if r.opcode ~= "RECV" or r.byte_len ~= 5 then return false, "the RECV should show byte_len 5" end
        if mr_b:read(0, 5) ~= "hello" then return false, "mr_b does not hold \"hello\"" end
        return true, K.wc_note(r) .. ", " .. K.wc_note(s) .. ", mr_b = \"hello\""
      end,
    },
    {
      title = "SEND_WITH_IMM",
      text = [[
        SEND_WITH_IMM carries a 32-bit immediate value besides the payload. It
        arrives in the receiver's WC (imm_data, with wc_flags WITH_IMM), not in
        memory: handy for a sequence number or a message type. In C it is in
        network byte order (htobe32); verbsh converts both ways, so you see the
        number you sent.]],
      c = [[
        swr.opcode = IBV_WR_SEND_WITH_IMM; swr.imm_data = htobe32(0x1234);
        /* receiver: if (wc.wc_flags & IBV_WC_WITH_IMM) be32toh(wc.imm_data) */]],
      task = [[
        Post a receive (wr_id 101) on qp_b, then send "imm!" (4 bytes) from qp_a
        with opcode SEND_WITH_IMM and imm_data = 0x1234 (wr_id 2); wcs = cq:wait(2).]],
      hint = [[qp_a:post_send{wr_id = 2, opcode = "SEND_WITH_IMM", imm_data = 0x1234, send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 4}}}]],
      solution = [[
        mr_a:write(0, "imm!")
        qp_b:post_recv{wr_id = 101, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
        qp_a:post_send{wr_id = 2, opcode = "SEND_WITH_IMM", imm_data = 0x1234, send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 4}}}
        wcs = cq:wait(2)]],
      check = function(S)
        local l = K.step_wcs(S, cq, 2)
        local r = recv_on_b(l, 101)
        if not r then return false, "no completion for the receive wr_id 101 yet" end
        if r.status ~= "SUCCESS" or r.imm_data ~= 0x1234 then
          return false, "the RECV should be SUCCESS with imm_data 0x1234"
        end
        if not K.has_flag(r.wc_flags, "WITH_IMM") then return false, "the RECV's wc_flags lack WITH_IMM" end
        return true, ("%s wc_flags={%s}"):format(K.wc_note(r), table.concat(r.wc_flags, ","))
      end,
    },
    {
      title = "Unsignaled sends",
      text = [[
        Without SIGNALED (and with sq_sig_all = 0 at create_qp) a successful
        send makes no completion: fewer CQ entries to poll. The WR still
        occupies its send-queue slot until a later signaled WR completes, so
        signal at least every Nth WR. A failed WR always completes, signaled
        or not. The receiver's completion is unaffected.]],
      c = [[swr.send_flags = 0;   /* no IBV_SEND_SIGNALED */]],
      task = [[
        Post a receive (wr_id 102) on qp_b, send 5 bytes from qp_a with wr_id 3
        and no send_flags, then poll: only the RECV shows up.]],
      hint = [[qp_a:post_send{wr_id = 3, opcode = "SEND", sg_list = {{mr = mr_a, offset = 0, length = 5}}}]],
      solution = [[
        qp_b:post_recv{wr_id = 102, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
        qp_a:post_send{wr_id = 3, opcode = "SEND", sg_list = {{mr = mr_a, offset = 0, length = 5}}}
        wcs = cq:wait(1)]],
      check = function(S)
        local l = K.step_wcs(S, cq, 2, 300)   -- wait a little longer than needed: nothing else may come
        local r = recv_on_b(l, 102)
        if not r then return false, "no completion for the receive wr_id 102 yet" end
        if r.status ~= "SUCCESS" then return false, "the receive wr_id 102 ended " .. r.status end
        if K.find_wc(l, { wr_id = 3 }) then return false, "wr_id 3 completed: was it SIGNALED?" end
        return true, K.wc_note(r) .. "; no completion for the unsignaled SEND"
      end,
    },
    {
      title = "Scatter/gather",
      text = [[
        A WR's sg_list gathers from several places (up to cap.max_send_sge;
        these QPs have 2) into one message, and a receive scatters it into
        several buffers. One message, one completion, no copying.]],
      c = [[
        struct ibv_sge sge[2] = { { buf_a, 3, lkey }, { buf_a + 100, 3, lkey } };
        swr.sg_list = sge; swr.num_sge = 2;]],
      task = [[
        Put "abc" at offset 0 and "def" at offset 100 of mr_a; post a receive
        (wr_id 103) on qp_b; send both pieces as ONE SEND (wr_id 4, two SGEs);
        wcs = cq:wait(2). mr_b then starts with "abcdef".]],
      hint = [[sg_list = {{mr = mr_a, offset = 0, length = 3}, {mr = mr_a, offset = 100, length = 3}}]],
      solution = [[
        mr_a:write(0, "abc"); mr_a:write(100, "def")
        qp_b:post_recv{wr_id = 103, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
        qp_a:post_send{wr_id = 4, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 3}, {mr = mr_a, offset = 100, length = 3}}}
        wcs = cq:wait(2)
        mr_b:read(0, 6)]],
      check = function(S)
        local l = K.step_wcs(S, cq, 2)
        local r = recv_on_b(l, 103)
        if not (r and r.status == "SUCCESS") then return false, "no successful receive wr_id 103 yet" end
        if r.byte_len ~= 6 then return false, "byte_len is " .. tostring(r.byte_len) .. ", not 6" end
        if mr_b:read(0, 6) ~= "abcdef" then return false, "mr_b does not start with \"abcdef\"" end
        return true, K.wc_note(r) .. ", mr_b = \"abcdef\""
      end,
    },
  },
}
