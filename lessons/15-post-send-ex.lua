-- Lesson 15: the new post-send API (ibv_qp_ex) and the extended CQ (ibv_cq_ex).
local K = require "verbs.lesson_kit"

local OPS = { "SEND", "SEND_WITH_IMM", "RDMA_WRITE", "RDMA_READ", "ATOMIC_FETCH_AND_ADD", "ATOMIC_CMP_AND_SWP" }

-- True when no start_poll is left open on cq (cq:poll(0) is refused then).
local function poll_closed() return (pcall(cq.poll, cq, 0)) end

return {
  title = "The new post-send API and the extended CQ",
  transports = { "RoCE" },
  intro = [[
    Since rdma-core 26 there is a second way to post and to poll. Instead of
    filling a struct ibv_send_wr and calling ibv_post_send, you call one
    function per piece of the WR on the QP's struct ibv_qp_ex, between
    ibv_wr_start and ibv_wr_complete (see man ibv_wr_post, and
    ibv_rc_pingpong -N). Instead of copying whole struct ibv_wc, you read the
    fields you asked for from the CQ's struct ibv_cq_ex (man ibv_create_cq_ex).
    Modern providers (mlx5, efa, rxe) are fastest this way. verbsh shows both
    generations side by side: the QP here also takes post_send, and the CQ
    also takes poll.

    The lesson created an extended CQ and two RC QPs with create_qp_ex,
    connected (RTS) as in lesson 4:
      cq   = ctx:create_cq_ex{ cqe = 64, wc_flags = { "BYTE_LEN", "IMM", "QP_NUM" } }
      qp_a = ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq,
                               cap = {...}, send_ops_flags = { "SEND", "RDMA_WRITE", ... } }
    In C:
      struct ibv_qp_init_attr_ex attr = { .qp_type = IBV_QPT_RC, .send_cq = cq, .recv_cq = cq,
          .cap = {...}, .pd = pd, .comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
          .send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE | ... };
      struct ibv_qp *qp = ibv_create_qp_ex(ctx, &attr);
      struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
    send_ops_flags names every op you will use: the provider sets up only
    those (in C, calling another jumps through a NULL pointer; verbsh says so).]],
  setup = function()
    K.open()
    pd = ctx:alloc_pd()
    mr_a = pd:reg_mr(4096, K.all_remote)
    mr_b = pd:reg_mr(4096, K.all_remote)
    cq = ctx:create_cq_ex{ cqe = 64, wc_flags = { "BYTE_LEN", "IMM", "QP_NUM" } }
    local function qp()
      return ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq, send_ops_flags = OPS,
        cap = { max_send_wr = 32, max_recv_wr = 32, max_send_sge = 2, max_recv_sge = 2, max_inline_data = 64 } }
    end
    qp_a, qp_b = qp(), qp()
    rc_connect(qp_a, qp_b)
    rc_connect(qp_b, qp_a)
    return K.describe { "ctx", "pd", "cq", "mr_a", "mr_b", "qp_a", "qp_b", "gid_index" }
  end,

  steps = {
    {
      title = "A SEND, built piece by piece",
      text = [[
        wr_start opens a batch. Before each op you set the WR's id and flags
        on the QP itself (qpx->wr_id, qpx->wr_flags), then the op begins a WR
        (wr_send), then setters fill it (wr_set_sge: lkey, address, length;
        verbsh also takes mr, offset, length). wr_complete posts the whole
        batch with one doorbell. Receives are still posted with post_recv:
        the new API is for the send queue only.]],
      c = [[
        ibv_wr_start(qpx);
        qpx->wr_id = 1;
        qpx->wr_flags = IBV_SEND_SIGNALED;
        ibv_wr_send(qpx);
        ibv_wr_set_sge(qpx, mr_a->lkey, (uintptr_t)mr_a->addr, 5);
        ret = ibv_wr_complete(qpx);]],
      task = [[
        Write "hello" into mr_a, post a receive (wr_id 100) of 64 bytes on
        qp_b into mr_b, then send the 5 bytes from qp_a with the builder
        (wr_id 1, SIGNALED).]],
      hint = [[qp_a:wr_start(); qp_a.wr_id = 1; qp_a.wr_flags = "SIGNALED"; qp_a:wr_send(); qp_a:wr_set_sge(mr_a, 0, 5); qp_a:wr_complete()]],
      solution = [[
        mr_a:write(0, "hello")
        qp_b:post_recv{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
        qp_a:wr_start()
        qp_a.wr_id = 1
        qp_a.wr_flags = "SIGNALED"
        qp_a:wr_send()
        qp_a:wr_set_sge(mr_a, 0, 5)
        qp_a:wr_complete()]],
      check = function()
        local t0 = verbs.now()
        while mr_b:read(0, 5) ~= "hello" and verbs.now() - t0 < 0.5 do end
        if mr_b:read(0, 5) ~= "hello" then return false, "mr_b does not hold \"hello\" yet: was the WR completed (wr_complete)?" end
        -- The two completions must stay in cq for the next step's start_poll
        -- (reading them consumes them), so the check looks at what the SEND
        -- was built with: qpx->wr_id and qpx->wr_flags keep their last values.
        if qp_a.wr_id ~= 1 then
          return false, ("qp_a.wr_id is %s, not 1: the next step looks for the SEND's completion wr_id 1; send again with qp_a.wr_id = 1"):format(tostring(qp_a.wr_id))
        end
        if not K.has_flag(qp_a.wr_flags, "SIGNALED") then
          return false, "the SEND was not SIGNALED (qp_a.wr_flags = \"SIGNALED\" before wr_send): it completes silently, and the next step needs two completions in cq (wr_id 1 and 100). Post another receive and send again, SIGNALED"
        end
        return true, "mr_b = \"hello\"; two completions wait in cq (wr_id 1 and 100): the next step reads them"
      end,
    },
    {
      title = "Reading completions field by field",
      text = [[
        start_poll makes the oldest completion current (false, ENOENT, if
        the CQ is empty: then you must NOT call end_poll). cq.wr_id and
        cq.status are members of struct ibv_cq_ex; other fields come from
        ibv_wc_read_* accessors, and only those named in wc_flags at
        create_cq_ex exist (read_byte_len needs BYTE_LEN). next_poll moves on;
        end_poll releases the CQ and consumes what you read. Between
        start_poll and end_poll the CQ is locked: cq:poll would wait forever,
        so verbsh refuses it.]],
      c = [[
        struct ibv_poll_cq_attr attr = {};
        if (ibv_start_poll(cq, &attr) == 0) {
                do {
                        printf("%lu %d %d %u\n", cq->wr_id, cq->status,
                               ibv_wc_read_opcode(cq), ibv_wc_read_byte_len(cq));
                } while (ibv_next_poll(cq) == 0);
                ibv_end_poll(cq);
        }]],
      task = [[
        Read every completion in cq into the list `seen`: for each, append
        { wr_id = cq.wr_id, opcode = cq:read_opcode(), byte_len = cq:read_byte_len() };
        end the poll when next_poll returns false.]],
      hint = [[seen = {}; if cq:start_poll() then repeat seen[#seen + 1] = {...} until not cq:next_poll(); cq:end_poll() end]],
      solution = [[
        seen = {}
        if cq:start_poll() then
          repeat
            seen[#seen + 1] = { wr_id = cq.wr_id, opcode = cq:read_opcode(), byte_len = cq:read_byte_len() }
          until not cq:next_poll()
          cq:end_poll()
        end
        seen]],
      check = function()
        if not poll_closed() then return false, "a start_poll is still open: call cq:end_poll()" end
        if type(seen) ~= "table" then return false, "no list `seen` yet" end
        local send, recv
        for _, w in ipairs(seen) do
          if (type(w) == "table" or K.is_wc(w)) and w.wr_id == 1 then send = w end
          if (type(w) == "table" or K.is_wc(w)) and w.wr_id == 100 then recv = w end
        end
        if not (send and recv) then return false, "seen lacks wr_id 1 (the SEND) or 100 (the RECV)" end
        if recv.opcode ~= "RECV" or recv.byte_len ~= 5 then return false, "the RECV should read opcode RECV, byte_len 5" end
        return true, ("SEND wr_id 1 opcode %s; RECV wr_id 100 byte_len %d"):format(tostring(send.opcode), recv.byte_len)
      end,
    },
    {
      title = "WRITE and READ in one batch",
      text = [[
        One wr_start ... wr_complete may hold several WRs: set wr_id (and
        wr_flags) again before each op. RDMA ops take the remote rkey and
        address as the op's arguments, and the local buffer from the setter.
        `for wc in cq:iter()` runs start_poll/next_poll/end_poll for you and
        gives each completion as the same table cq:poll gives.]],
      c = [[
        ibv_wr_start(qpx);
        qpx->wr_id = 2;
        qpx->wr_flags = IBV_SEND_SIGNALED;
        ibv_wr_rdma_write(qpx, mr_b->rkey, (uintptr_t)mr_b->addr + 512);
        ibv_wr_set_sge(qpx, mr_a->lkey, (uintptr_t)mr_a->addr + 256, 7);
        qpx->wr_id = 3;
        ibv_wr_rdma_read(qpx, mr_b->rkey, (uintptr_t)mr_b->addr + 1024);
        ibv_wr_set_sge(qpx, mr_a->lkey, (uintptr_t)mr_a->addr + 1024, 9);
        ret = ibv_wr_complete(qpx);]],
      task = [[
        Put "written" at mr_a offset 256 and "read back" at mr_b offset 1024.
        In one batch on qp_a: WRITE the 7 bytes to mr_b offset 512 (wr_id 2),
        and READ mr_b's 9 bytes at 1024 into mr_a offset 1024 (wr_id 3); then
        collect both completions into wcs with cq:iter().]],
      hint = [[qp_a:wr_rdma_write(mr_b.rkey, mr_b.addr + 512); qp_a:wr_set_sge(mr_a, 256, 7)]],
      solution = [[
        mr_a:write(256, "written"); mr_b:write(1024, "read back")
        qp_a:wr_start()
        qp_a.wr_flags = "SIGNALED"
        qp_a.wr_id = 2
        qp_a:wr_rdma_write(mr_b.rkey, mr_b.addr + 512)
        qp_a:wr_set_sge(mr_a, 256, 7)
        qp_a.wr_id = 3
        qp_a:wr_rdma_read(mr_b.rkey, mr_b.addr + 1024)
        qp_a:wr_set_sge(mr_a, 1024, 9)
        qp_a:wr_complete()
        wcs = {}
        while #wcs < 2 do for wc in cq:iter() do wcs[#wcs + 1] = wc end end
        wcs]],
      check = function(S)
        if not poll_closed() then return false, "a start_poll is still open: call cq:end_poll()" end
        local l = K.step_wcs(S, cq, 2)
        local w, r = K.find_wc(l, { wr_id = 2 }), K.find_wc(l, { wr_id = 3 })
        if not (w and r) then return false, "no completions for wr_id 2 and 3 yet" end
        if w.status ~= "SUCCESS" or r.status ~= "SUCCESS" then return false, "a completion failed: " .. tostring(w) .. " / " .. tostring(r) end
        if mr_b:read(512, 7) ~= "written" then return false, "mr_b offset 512 does not hold \"written\"" end
        if mr_a:read(1024, 9) ~= "read back" then return false, "mr_a offset 1024 does not hold \"read back\"" end
        return true, ("%s, %s; mr_b+512 = \"written\", mr_a+1024 = \"read back\""):format(K.wc_note(w), K.wc_note(r))
      end,
    },
    {
      title = "An atomic, and a send with an immediate, inline",
      text = [[
        Atomics take the remote word's rkey and address plus their operands;
        the 8-byte SGE receives the word's old value. wr_send_imm carries an
        immediate (host order here; htobe32 in C). With the INLINE flag the
        payload is copied into the WR by wr_set_inline_data, so the buffer
        needs no MR (up to cap.max_inline_data bytes).]],
      c = [[
        ibv_wr_start(qpx);
        qpx->wr_id = 4;
        qpx->wr_flags = IBV_SEND_SIGNALED;
        ibv_wr_atomic_fetch_add(qpx, mr_b->rkey, (uintptr_t)mr_b->addr + 2048, 1);
        ibv_wr_set_sge(qpx, mr_a->lkey, (uintptr_t)mr_a->addr + 2048, 8);
        qpx->wr_id = 5;
        qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
        ibv_wr_send_imm(qpx, htobe32(42));
        ibv_wr_set_inline_data(qpx, "inline", 6);
        ret = ibv_wr_complete(qpx);]],
      task = [[
        Post a receive (wr_id 101) on qp_b. In one batch on qp_a: fetch-and-add
        1 to the word at mr_b offset 2048 (wr_id 4, old value into mr_a
        offset 2048), then SEND_WITH_IMM 42 with the inline payload "inline"
        (wr_id 5). Collect the three completions into wcs.]],
      hint = [[qp_a.wr_flags = {"SIGNALED", "INLINE"}; qp_a:wr_send_imm(42); qp_a:wr_set_inline_data("inline")]],
      solution = [[
        qp_b:post_recv{wr_id = 101, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
        qp_a:wr_start()
        qp_a.wr_id = 4
        qp_a.wr_flags = "SIGNALED"
        qp_a:wr_atomic_fetch_add(mr_b.rkey, mr_b.addr + 2048, 1)
        qp_a:wr_set_sge(mr_a, 2048, 8)
        qp_a.wr_id = 5
        qp_a.wr_flags = {"SIGNALED", "INLINE"}
        qp_a:wr_send_imm(42)
        qp_a:wr_set_inline_data("inline")
        qp_a:wr_complete()
        wcs = {}
        while #wcs < 3 do for wc in cq:iter() do wcs[#wcs + 1] = wc end end
        wcs]],
      check = function(S)
        if not poll_closed() then return false, "a start_poll is still open: call cq:end_poll()" end
        local l = K.step_wcs(S, cq, 3)
        local faa, r = K.find_wc(l, { wr_id = 4 }), K.find_wc(l, { wr_id = 101 })
        if not (faa and r) then return false, "no completions for wr_id 4 and the receive 101 yet" end
        if faa.status ~= "SUCCESS" or r.status ~= "SUCCESS" then
          return false, "a completion failed: " .. tostring(faa) .. " / " .. tostring(r)
        end
        if faa.opcode ~= "FETCH_ADD" then return false, "wr_id 4 is " .. tostring(faa.opcode) .. ", not FETCH_ADD" end
        if K.u64(mr_b, 2048) < 1 then return false, "the word at mr_b offset 2048 was not incremented" end
        if r.imm_data ~= 42 or mr_b:read(0, 6) ~= "inline" then return false, "the receive should hold \"inline\" with imm_data 42" end
        return true, ("FAA old value %d, word now %d; RECV imm_data %d, \"inline\""):format(K.u64(mr_a, 2048),
          K.u64(mr_b, 2048), r.imm_data)
      end,
    },
  },
}
