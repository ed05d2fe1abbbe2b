-- Lesson 7: RDMA READ, max_rd_atomic and max_dest_rd_atomic.
local K = require "verbs.lesson_kit"

return {
  title = "RDMA READ and the read/atomic budget",
  transports = { "RoCE" },
  intro = [[
    RDMA READ fetches remote memory into a local MR, again without the remote
    CPU. Unlike WRITE, a READ needs resources at the responder to answer it, so
    both sides agree on how many may be in flight: max_rd_atomic on the
    requester (set at RTS) and max_dest_rd_atomic on the responder (set at RTR).
    The lesson connected qp_b with max_dest_rd_atomic = 0 -- on purpose.
    mr_b holds "secret data".]],
  setup = function()
    local made = K.rc_pair { b = { max_dest_rd_atomic = 0 } }
    mr_b:write(0, "secret data")
    return made
  end,

  steps = {
    {
      title = "A READ the responder refuses",
      redo = [[
        rc_connect(qp_a, qp_b); rc_connect(qp_b, qp_a, { max_dest_rd_atomic = 0 })]],
      text = [[
        qp_b accepts no READs (max_dest_rd_atomic 0), so it answers the request
        with a NAK "invalid request": the requester's WC is REM_INV_REQ_ERR.
        It is a protocol error on both ends: qp_a and qp_b both go to ERR.
        Errors always complete, even unsignaled WRs.]],
      c = [[
        swr.opcode = IBV_WR_RDMA_READ; swr.sg_list = &sge_a;   /* where the data goes */
        swr.wr.rdma.remote_addr = (uintptr_t)buf_b; swr.wr.rdma.rkey = mr_b->rkey;]],
      task = [[READ 11 bytes of mr_b into mr_a (wr_id 1); wcs = cq:wait(1); look at qp_a.state and qp_b.state.]],
      hint = [[qp_a:post_send{wr_id = 1, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 11}}, rdma = {remote_addr = mr_b.addr, rkey = mr_b.rkey}}]],
      solution = [[
        qp_a:post_send{wr_id = 1, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 11}}, rdma = {remote_addr = mr_b.addr, rkey = mr_b.rkey}}
        wcs = cq:wait(1)
        qp_a.state, qp_b.state]],
      check = function(S)
        local l = K.step_wcs(S, cq, 1, 2000)
        local w = K.find_wc(l, { wr_id = 1 })
        if not w then return false, "no completion for wr_id 1 yet" end
        if w.status ~= "REM_INV_REQ_ERR" then return false, "wr_id 1 ended " .. w.status end
        if qp_a.state ~= "ERR" or qp_b.state ~= "ERR" then
          return false, ("qp_a is %s, qp_b is %s"):format(qp_a.state, qp_b.state)
        end
        return true, ("%s; qp_a %s, qp_b %s"):format(w.status, qp_a.state, qp_b.state)
      end,
    },
    {
      title = "Reconnect with a budget",
      text = [[
        max_dest_rd_atomic can only be set on the way to RTR, so both QPs go back
        through RESET (the only way out of ERR) and reconnect: qp_b with
        max_dest_rd_atomic = 3, qp_a with max_rd_atomic = 3. Neither may exceed
        the device's max_qp_rd_atom. rxe rounds these up to a power of two --
        query to see what you got.]],
      c = [[
        attr.qp_state = IBV_QPS_RESET; ibv_modify_qp(qp, &attr, IBV_QP_STATE);
        ... RTR: attr.max_dest_rd_atomic = 3;  RTS: attr.max_rd_atomic = 3; ...]],
      task = [[
        rc_connect(qp_b, qp_a, {max_dest_rd_atomic = 3})
        rc_connect(qp_a, qp_b, {max_rd_atomic = 3})
        then qp_b:query().max_dest_rd_atomic and qp_a:query().max_rd_atomic.]],
      hint = [[rc_connect resets the QP first, then INIT, RTR, RTS with your overrides.]],
      solution = [[
        rc_connect(qp_b, qp_a, {max_dest_rd_atomic = 3})
        rc_connect(qp_a, qp_b, {max_rd_atomic = 3})
        qp_b:query().max_dest_rd_atomic, qp_a:query().max_rd_atomic]],
      check = function()
        if qp_a.state ~= "RTS" or qp_b.state ~= "RTS" then
          return false, ("qp_a is %s, qp_b is %s; both should be RTS"):format(qp_a.state, qp_b.state)
        end
        local d, r = qp_b:query().max_dest_rd_atomic, qp_a:query().max_rd_atomic
        if (d or 0) < 1 or (r or 0) < 1 then
          return false, ("max_dest_rd_atomic=%s on qp_b, max_rd_atomic=%s on qp_a"):format(tostring(d), tostring(r))
        end
        return true, ("queried max_dest_rd_atomic=%d (qp_b), max_rd_atomic=%d (qp_a); the task asks for 3, which rxe rounds up"):format(d, r)
      end,
    },
    {
      title = "READ",
      text = [[
        Now the READ is answered. The data lands in mr_a (which needs
        LOCAL_WRITE: the device writes it), the WC's opcode is RDMA_READ with
        byte_len 11, and qp_b's CPU again sees nothing.]],
      c = [[ibv_post_send(qp_a, &swr, &bad);   /* IBV_WR_RDMA_READ */]],
      task = [[Clear mr_a (mr_a:fill(0)), READ 11 bytes of mr_b into it (wr_id 2), wcs = cq:wait(1).]],
      hint = [[The same post_send as in step 1 with wr_id = 2.]],
      solution = [[
        mr_a:fill(0)
        qp_a:post_send{wr_id = 2, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 11}}, rdma = {remote_addr = mr_b.addr, rkey = mr_b.rkey}}
        wcs = cq:wait(1)
        mr_a:read(0, 11)]],
      check = function(S)
        local l = K.step_wcs(S, cq, 1)
        local w = K.find_wc(l, { wr_id = 2 })
        if not w then return false, "no completion for wr_id 2 yet" end
        if w.status ~= "SUCCESS" or w.opcode ~= "RDMA_READ" then return false, "wr_id 2: " .. K.wc_note(w) end
        if mr_a:read(0, 11) ~= "secret data" then return false, "mr_a does not hold \"secret data\"" end
        return true, K.wc_note(w) .. "; mr_a = \"secret data\""
      end,
    },
    {
      title = "More READs than the budget",
      text = [[
        Post more READs than max_rd_atomic allows in flight: that is not an
        error. The extra ones wait in the send queue until earlier ones are
        answered; all complete, in order.]],
      c = [[struct ibv_send_wr wr[8]; /* chained with wr[i].next = &wr[i+1] */ ibv_post_send(qp_a, wr, &bad);]],
      task = [[
        Post 8 READs in one call (a list of WRs, wr_id 10..17), each reading the
        byte mr_b[i] into mr_a[100 + i]; wcs = cq:wait(8).]],
      hint = [[
        local l = {} for i = 0, 7 do l[#l + 1] = {wr_id = 10 + i, opcode = "RDMA_READ", send_flags = "SIGNALED",
          sg_list = {{mr = mr_a, offset = 100 + i, length = 1}}, rdma = {remote_addr = mr_b.addr + i, rkey = mr_b.rkey}} end
        qp_a:post_send(l)]],
      solution = [[
        reads = {}
        for i = 0, 7 do reads[#reads + 1] = {wr_id = 10 + i, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 100 + i, length = 1}}, rdma = {remote_addr = mr_b.addr + i, rkey = mr_b.rkey}} end
        qp_a:post_send(reads)
        wcs = cq:wait(8)
        mr_a:read(100, 8)]],
      check = function(S)
        local l = K.step_wcs(S, cq, 8, 2000)
        local order = {}
        for i = 0, 7 do
          local w = K.find_wc(l, { wr_id = 10 + i })
          if not (w and w.status == "SUCCESS") then return false, "READ wr_id " .. (10 + i) .. " has not completed" end
        end
        for _, w in ipairs(l) do order[#order + 1] = w.wr_id end
        if mr_a:read(100, 8) ~= "secret d" then return false, "mr_a+100 does not hold \"secret d\"" end
        return true, "8 READs SUCCESS, wr_id order " .. table.concat(order, ",") .. "; mr_a+100 = \"secret d\""
      end,
    },
  },
}
