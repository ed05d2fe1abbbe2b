-- Lesson 6: RDMA WRITE and WRITE_WITH_IMM.
local K = require "verbs.lesson_kit"

return {
  title = "RDMA WRITE and WRITE_WITH_IMM",
  transports = { "RoCE" },
  intro = [[
    RDMA WRITE is one-sided: qp_a writes straight into qp_b's memory at an
    address it names, with the rkey qp_b's side gave out. The responder posts
    no receive and its CPU sees nothing. In a real program mr_b.addr and
    mr_b.rkey travel to the peer out of band (TCP, rdma_cm private data).
    mr_b allows REMOTE_WRITE; qp_b's qp_access_flags allow it too.]],
  setup = function() return K.rc_pair() end,

  steps = {
    {
      title = "RDMA WRITE",
      text = [[
        The WR names local data (sg_list) and the remote place (rdma =
        {remote_addr, rkey}). The responder's device checks the rkey, the
        range and the REMOTE_WRITE right, places the data and ACKs; only the
        requester gets a completion.]],
      c = [[
        swr.opcode = IBV_WR_RDMA_WRITE;
        swr.wr.rdma.remote_addr = (uintptr_t)buf_b; swr.wr.rdma.rkey = mr_b->rkey;]],
      task = [[
        Write "one-sided" (9 bytes) from mr_a into mr_b at offset 0 (wr_id 1),
        wait for its completion, and see that qp_b got none.]],
      hint = [[qp_a:post_send{wr_id = 1, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 9}}, rdma = {remote_addr = mr_b.addr, rkey = mr_b.rkey}}]],
      solution = [[
        mr_a:write(0, "one-sided")
        qp_a:post_send{wr_id = 1, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 9}}, rdma = {remote_addr = mr_b.addr, rkey = mr_b.rkey}}
        wcs = cq:wait(1)
        mr_b:read(0, 9)]],
      check = function(S)
        local l = K.step_wcs(S, cq, 2, 300)   -- a second WC would be qp_b's: there must be none
        local s = K.find_wc(l, { wr_id = 1, qp_num = qp_a.qp_num })
        if not s then return false, "no completion for wr_id 1 yet" end
        if s.status ~= "SUCCESS" or s.opcode ~= "RDMA_WRITE" then
          return false, "wr_id 1 completed with " .. K.wc_note(s)
        end
        if mr_b:read(0, 9) ~= "one-sided" then return false, "mr_b does not hold \"one-sided\"" end
        if K.find_wc(l, { qp_num = qp_b.qp_num }) then return false, "qp_b got a completion" end
        return true, K.wc_note(s) .. "; mr_b = \"one-sided\"; no completion on qp_b"
      end,
    },
    {
      title = "WRITE_WITH_IMM: tell the responder",
      text = [[
        To let the responder know that data has landed, WRITE_WITH_IMM writes
        the data like RDMA WRITE and then consumes one posted receive, whose WC
        (opcode RECV_RDMA_WITH_IMM) carries imm_data and byte_len. The
        receive's own buffer is not touched -- it may have no sg_list at all.
        RC delivers in order, so every earlier WRITE is visible by then.]],
      c = [[
        struct ibv_recv_wr rwr = { .wr_id = 200, .sg_list = NULL, .num_sge = 0 };
        ibv_post_recv(qp_b, &rwr, &bad_r);
        swr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM; swr.imm_data = htobe32(42);]],
      task = [[
        Post a receive with an empty sg_list on qp_b (wr_id 200), then write
        "landed" (6 bytes) into mr_b at offset 64 with WRITE_WITH_IMM and
        imm_data = 42 (wr_id 2); wcs = cq:wait(2).]],
      hint = [[
        qp_b:post_recv{wr_id = 200, sg_list = {}}
        rdma = {remote_addr = mr_b.addr + 64, rkey = mr_b.rkey}]],
      solution = [[
        mr_a:write(0, "landed")
        qp_b:post_recv{wr_id = 200, sg_list = {}}
        qp_a:post_send{wr_id = 2, opcode = "RDMA_WRITE_WITH_IMM", imm_data = 42, send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 6}}, rdma = {remote_addr = mr_b.addr + 64, rkey = mr_b.rkey}}
        wcs = cq:wait(2)
        mr_b:read(64, 6)]],
      check = function(S)
        local l = K.step_wcs(S, cq, 2)
        local r = K.find_wc(l, { wr_id = 200, qp_num = qp_b.qp_num })
        if not r then return false, "no completion for qp_b's receive wr_id 200 yet" end
        if r.status ~= "SUCCESS" or r.opcode ~= "RECV_RDMA_WITH_IMM" or r.imm_data ~= 42 then
          return false, "qp_b's WC should be RECV_RDMA_WITH_IMM with imm_data 42, got " .. K.wc_note(r)
        end
        if mr_b:read(64, 6) ~= "landed" then return false, "mr_b does not hold \"landed\" at offset 64" end
        return true, K.wc_note(r) .. "; mr_b+64 = \"landed\""
      end,
    },
  },
}
