-- Lesson 8: atomics -- fetch-and-add, compare-and-swap, alignment.
local K = require "verbs.lesson_kit"

local function u64(mr, off) return K.u64(mr, off) end

return {
  title = "Atomics: a shared counter",
  transports = { "RoCE" },
  intro = [[
    An atomic operates on one 64-bit word of remote memory, and no other
    atomic on that device can come between its read and its write. The
    original value comes back into your local buffer (8 bytes). qp_a and qp_b
    are connected with max_rd_atomic / max_dest_rd_atomic 4 (atomics share
    the READ budget); mr_b allows REMOTE_ATOMIC. The counter is the 64-bit
    word at mr_b offset 0, now 0.]],
  setup = function()
    local made = K.rc_pair { a = { max_rd_atomic = 4 }, b = { max_dest_rd_atomic = 4 } }
    mr_b:fill(0)
    return made
  end,
  requires = function()
    local cap = ctx:query_device().atomic_cap
    if cap == "NONE" or cap == "ATOMIC_NONE" or cap == 0 then
      return "this device has atomic_cap NONE: no RDMA atomics"
    end
  end,

  steps = {
    {
      title = "Fetch and add",
      redo = [[mr_b:write(0, string.pack("=I8", 0))]],
      text = [[
        ATOMIC_FETCH_AND_ADD adds compare_add to the remote word and returns
        the old value. Atomics work on values in the responder's byte order
        (here, the same machine); read them with string.unpack("=I8", ...)
        or lesson.kit.u64(mr, offset).]],
      c = [[
        swr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
        swr.sg_list = &(struct ibv_sge){ (uintptr_t)buf_a, 8, mr_a->lkey }; swr.num_sge = 1;
        swr.wr.atomic.remote_addr = (uintptr_t)buf_b; swr.wr.atomic.rkey = mr_b->rkey;
        swr.wr.atomic.compare_add = 1;]],
      task = [[Add 1 to the counter (wr_id 1), old value into mr_a offset 0; wcs = cq:wait(1).]],
      hint = [[qp_a:post_send{wr_id = 1, opcode = "ATOMIC_FETCH_AND_ADD", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 8}}, atomic = {remote_addr = mr_b.addr, rkey = mr_b.rkey, compare_add = 1}}]],
      solution = [[
        qp_a:post_send{wr_id = 1, opcode = "ATOMIC_FETCH_AND_ADD", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 8}}, atomic = {remote_addr = mr_b.addr, rkey = mr_b.rkey, compare_add = 1}}
        wcs = cq:wait(1)
        string.unpack("=I8", mr_a:read(0, 8)), string.unpack("=I8", mr_b:read(0, 8))]],
      check = function(S)
        local l = K.step_wcs(S, cq, 1)
        local w = K.find_wc(l, { wr_id = 1 })
        if not w then return false, "no completion for wr_id 1 yet" end
        if w.status ~= "SUCCESS" then return false, "wr_id 1 ended " .. w.status end
        if u64(mr_b, 0) ~= 1 then return false, "the counter is " .. u64(mr_b, 0) .. ", not 1" end
        if u64(mr_a, 0) ~= 0 then return false, "the fetched old value is not 0" end
        return true, K.wc_note(w) .. "; fetched 0, counter now 1"
      end,
    },
    {
      title = "Ten clients, one counter",
      redo = [[mr_b:write(0, string.pack("=I8", 1))]],
      text = [[
        Post ten fetch-and-adds at once, as ten clients would. Each gets a
        different old value -- a ticket -- and none is lost: 1 + 10 = 11.
        Each result needs its own 8-byte slot in mr_a.]],
      c = [[for (i = 0; i < 10; i++) { wr[i].sg_list->addr = (uintptr_t)buf_a + 8 * i; ... } ibv_post_send(qp_a, wr, &bad);]],
      task = [[Post 10 FETCH_AND_ADDs of 1 (wr_id 11..20) with results at mr_a offsets 8*i; wcs = cq:wait(10).]],
      hint = [[Build the list in a for loop: sg_list = {{mr = mr_a, offset = 8 * i, length = 8}}]],
      solution = [[
        adds = {}
        for i = 1, 10 do adds[i] = {wr_id = 10 + i, opcode = "ATOMIC_FETCH_AND_ADD", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 8 * i, length = 8}}, atomic = {remote_addr = mr_b.addr, rkey = mr_b.rkey, compare_add = 1}} end
        qp_a:post_send(adds)
        wcs = cq:wait(10)
        lesson.kit.u64(mr_b, 0)]],
      check = function(S)
        local l = K.step_wcs(S, cq, 10, 2000)
        local seen, tickets = {}, {}
        for i = 1, 10 do
          local w = K.find_wc(l, { wr_id = 10 + i })
          if not (w and w.status == "SUCCESS") then return false, "wr_id " .. (10 + i) .. " has not completed" end
          local v = u64(mr_a, 8 * i)
          if seen[v] then return false, "two fetch-and-adds returned the same value " .. v end
          seen[v] = true
          tickets[#tickets + 1] = v
        end
        if u64(mr_b, 0) ~= 11 then return false, "the counter is " .. u64(mr_b, 0) .. ", not 11" end
        table.sort(tickets)
        return true, "tickets " .. table.concat(tickets, ",") .. "; counter 11"
      end,
    },
    {
      title = "Compare and swap",
      redo = [[mr_b:write(0, string.pack("=I8", 11)); mr_a:write(200, string.rep("\0", 16))]],
      text = [[
        ATOMIC_CMP_AND_SWP writes swap only if the word equals compare_add,
        and always returns the old value: you won when the old value equals
        what you compared with. This is how a remote lock or a lock-free
        update works.]],
      c = [[swr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP; swr.wr.atomic.compare_add = 11; swr.wr.atomic.swap = 100;]],
      task = [[
        CAS 11 -> 100 (wr_id 21, old value at mr_a offset 200), wait; then the
        same CAS again (wr_id 22, old value at offset 208), wait. The first
        wins, the second sees 100 and changes nothing.]],
      hint = [[atomic = {remote_addr = mr_b.addr, rkey = mr_b.rkey, compare_add = 11, swap = 100}]],
      solution = [[
        qp_a:post_send{wr_id = 21, opcode = "ATOMIC_CMP_AND_SWP", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 200, length = 8}}, atomic = {remote_addr = mr_b.addr, rkey = mr_b.rkey, compare_add = 11, swap = 100}}
        wcs = cq:wait(1)
        qp_a:post_send{wr_id = 22, opcode = "ATOMIC_CMP_AND_SWP", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 208, length = 8}}, atomic = {remote_addr = mr_b.addr, rkey = mr_b.rkey, compare_add = 11, swap = 100}}
        wcs = cq:wait(1)
        lesson.kit.u64(mr_a, 200), lesson.kit.u64(mr_a, 208), lesson.kit.u64(mr_b, 0)]],
      check = function(S)
        local l = K.step_wcs(S, cq, 2)
        local w1, w2 = K.find_wc(l, { wr_id = 21 }), K.find_wc(l, { wr_id = 22 })
        for _, w in ipairs { w1 or {}, w2 or {} } do
          if w.status and w.status ~= "SUCCESS" then return false, "a CAS failed: " .. tostring(w) end
        end
        if not (w1 and w2) then
          -- the learner's own `wcs = cq:wait(1)` twice keeps only the second:
          -- the returned values in mr_a say what the CASes did
          if u64(mr_a, 200) == 0 and u64(mr_a, 208) == 0 then return false, "no completions for wr_id 21 and 22 yet" end
        end
        if u64(mr_a, 200) ~= 11 then return false, "the first CAS should have returned 11" end
        if u64(mr_a, 208) ~= 100 then return false, "the second CAS should have returned 100" end
        if u64(mr_b, 0) ~= 100 then return false, "the word should be 100" end
        return true, "first CAS returned 11 (won), second returned 100 (lost); word = 100"
      end,
    },
    {
      title = "Alignment",
      text = [[
        An atomic's remote address must be 8-byte aligned and its local
        buffer exactly 8 bytes. rxe checks this when you post: ibv_post_send
        fails with EINVAL and nothing is sent (hardware may instead fail the
        WR with a completion error). Keep counters on 8-byte boundaries.]],
      c = [[swr.wr.atomic.remote_addr = (uintptr_t)buf_b + 4;   /* ibv_post_send() returns EINVAL */]],
      task = [[
        Catch the failure of a fetch-and-add at mr_b.addr + 4:
          ok, err = pcall(qp_a.post_send, qp_a, {...})  and print(err).]],
      hint = [[ok, err = pcall(qp_a.post_send, qp_a, {wr_id = 30, opcode = "ATOMIC_FETCH_AND_ADD", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 8}}, atomic = {remote_addr = mr_b.addr + 4, rkey = mr_b.rkey, compare_add = 1}})]],
      solution = [[
        ok, err = pcall(qp_a.post_send, qp_a, {wr_id = 30, opcode = "ATOMIC_FETCH_AND_ADD", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 8}}, atomic = {remote_addr = mr_b.addr + 4, rkey = mr_b.rkey, compare_add = 1}})
        print(err)]],
      check = function(S)
        if not K.is_verb_error(err, "ibv_post_send", "EINVAL") then
          return false, "err does not hold the EINVAL of ibv_post_send"
        end
        local l = K.step_wcs(S, cq, 1, 200)
        if #l > 0 then return false, "the misaligned atomic produced a completion: " .. K.wc_note(l[1]) end
        return true, ("post_send %s (errno %d); counter still %d; qp_a %s"):format(
          err.errname, err.errno, u64(mr_b, 0), qp_a.state)
      end,
    },
  },
}
