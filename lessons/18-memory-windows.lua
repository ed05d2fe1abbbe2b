-- Lesson 18: memory windows -- grant, use and revoke remote access.
local K = require "verbs.lesson_kit"

local CONTENT = "granted through a window, and only while it lasts"

-- The newest completion of wr_id on qp (a retry's, not the try before it).
local function wc_of(S, want, wr_id, qp, timeout)
  local l = K.step_wcs(S, cq, want, timeout)
  return K.find_wc(l, { wr_id = wr_id, qp_num = qp.qp_num })
end
local function needs(wc, what, status, opcode)
  if not wc then return false, "no completion for " .. what .. " yet" end
  if wc.status ~= status then return false, ("%s completed %s, not %s"):format(what, wc.status, status) end
  if opcode and wc.opcode ~= opcode then return false, ("%s is %s, not %s"):format(what, wc.opcode, opcode) end
  return true
end

return {
  title = "Memory windows",
  intro = [[
    An MR's rkey opens the whole MR to a peer for as long as it is
    registered. A memory window is a second rkey onto a part of an MR that
    the owner grants and takes back at will, without registering again:
    hand a peer access to one buffer for one operation, then revoke it.

    mr_b is registered with LOCAL_WRITE and MW_BIND only: its own rkey
    gives a peer nothing (no REMOTE_READ or REMOTE_WRITE). Its bytes 64..
    hold a message. qp_a and qp_b are connected RC QPs; qp_b is the owner's
    side, where windows are bound.]],
  setup = function()
    local made = K.rc_pair { access_b = { "LOCAL_WRITE", "MW_BIND" } }
    mr_b:write(64, CONTENT)
    return made
  end,

  steps = {
    {
      title = "A type 1 window",
      text = [[
        A window belongs to a PD. A type 1 window is bound with ibv_bind_mw,
        which posts a bind on a QP of the owner and gives the window its next
        rkey: the same window index (the upper 24 bits) with the 8-bit key
        incremented, ibv_inc_rkey(old). The bind completes as opcode BIND_MW
        on qp_b's CQ. mw_access_flags is what the peer may do through it.]],
      c = [[
        struct ibv_mw *mw1 = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
        struct ibv_mw_bind bind = { .wr_id = 1, .send_flags = IBV_SEND_SIGNALED,
            .bind_info = { .mr = mr_b, .addr = (uintptr_t)mr_b->addr + 64, .length = 64,
                           .mw_access_flags = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE } };
        ibv_bind_mw(qp_b, mw1, &bind);   /* mw1->rkey is now the window's new rkey */]],
      task = [[
        mw1 = pd:alloc_mw("TYPE_1"); bind it on qp_b over mr_b's bytes 64..127
        (wr_id 1, SIGNALED, REMOTE_READ and REMOTE_WRITE), keep the rkey it
        returns in rkey1, and wcs = cq:wait(1).]],
      hint = [[rkey1 = qp_b:bind_mw(mw1, {wr_id = 1, send_flags = "SIGNALED", bind_info = {mr = mr_b, addr = mr_b.addr + 64, length = 64, mw_access_flags = {"REMOTE_READ", "REMOTE_WRITE"}}})]],
      solution = [[
        mw1 = pd:alloc_mw("TYPE_1")
        rkey1 = qp_b:bind_mw(mw1, {wr_id = 1, send_flags = "SIGNALED", bind_info = {mr = mr_b, addr = mr_b.addr + 64, length = 64, mw_access_flags = {"REMOTE_READ", "REMOTE_WRITE"}}})
        wcs = cq:wait(1)
        print(("rkey1 0x%x = mw1.rkey 0x%x"):format(rkey1, mw1.rkey))]],
      check = function(S)
        if not K.is(rawget(_G, "mw1"), "mw") then return false, "mw1 is not a window yet: mw1 = pd:alloc_mw(\"TYPE_1\")" end
        if mw1.type ~= "TYPE_1" then return false, "mw1 is a " .. mw1.type .. " window: this step binds a TYPE_1" end
        local ok, why = needs(wc_of(S, 1, 1, qp_b), "the bind (wr_id 1)", "SUCCESS", "BIND_MW")
        if not ok then return false, why end
        if rawget(_G, "rkey1") ~= mw1.rkey then return false, "rkey1 should be what bind_mw returned (mw1.rkey)" end
        return true, ("BIND_MW SUCCESS; rkey1 = 0x%x, window index 0x%x"):format(rkey1, rkey1 >> 8)
      end,
    },
    {
      title = "Use it: READ and WRITE through the window",
      text = [[
        The peer uses the window like an MR: rdma = { remote_addr, rkey } with
        the window's rkey, inside the window. rxe checks the access right
        against the window (REMOTE_READ, REMOTE_WRITE) and the address
        against its MR.]],
      c = [[swr.wr.rdma.remote_addr = (uintptr_t)mr_b->addr + 64; swr.wr.rdma.rkey = mw1->rkey;]],
      task = [[
        From qp_a: READ 24 bytes at mr_b.addr + 64 with rkey1 into mr_a
        (wr_id 2), and WRITE "through mw1" (11 bytes) from mr_a at offset 100
        to mr_b.addr + 100 (wr_id 3); wcs = cq:wait(2).]],
      hint = [[qp_a:post_send{wr_id = 2, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 24}}, rdma = {remote_addr = mr_b.addr + 64, rkey = rkey1}}]],
      solution = [[
        mr_a:write(100, "through mw1")
        qp_a:post_send{wr_id = 2, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 24}}, rdma = {remote_addr = mr_b.addr + 64, rkey = rkey1}}
        qp_a:post_send{wr_id = 3, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 100, length = 11}}, rdma = {remote_addr = mr_b.addr + 100, rkey = rkey1}}
        wcs = cq:wait(2)
        print(mr_a:read(0, 24), mr_b:read(100, 11))]],
      check = function(S)
        local l = K.step_wcs(S, cq, 2)
        local ok, why = needs(K.find_wc(l, { wr_id = 2 }), "the READ (wr_id 2)", "SUCCESS", "RDMA_READ")
        if not ok then return false, why end
        ok, why = needs(K.find_wc(l, { wr_id = 3 }), "the WRITE (wr_id 3)", "SUCCESS", "RDMA_WRITE")
        if not ok then return false, why end
        if mr_a:read(0, 24) ~= CONTENT:sub(1, 24) then return false, "mr_a does not hold the 24 bytes read" end
        if mr_b:read(100, 11) ~= "through mw1" then return false, "mr_b does not hold \"through mw1\" at 100" end
        return true, ("READ %q, WRITE landed; mr_b's own rkey would have been refused"):format(mr_a:read(0, 24))
      end,
    },
    {
      title = "Revoke it",
      text = [[
        A type 1 window is revoked by binding it again with length 0 (or by
        freeing it: mw1:dealloc()). Its rkey moves on once more, and the old
        rkey1 opens nothing: a READ with it completes REM_ACCESS_ERR, and on
        RC both QPs go to ERR (print the WC: the explanation names revoked
        windows). Wait for the unbind's completion before the READ: the two
        QPs run side by side.]],
      c = [[bind.bind_info.length = 0; ibv_bind_mw(qp_b, mw1, &bind);   /* revoked */]],
      task = [[
        Unbind mw1 (wr_id 4, SIGNALED, bind_info = {mr = mr_b, addr = mr_b.addr,
        length = 0}); wcs = cq:wait(1); then READ 8 bytes with the old rkey1
        (wr_id 5); wcs = cq:wait(1); print(wcs[1]).]],
      hint = [[qp_b:bind_mw(mw1, {wr_id = 4, send_flags = "SIGNALED", bind_info = {mr = mr_b, addr = mr_b.addr, length = 0}})]],
      solution = [[
        qp_b:bind_mw(mw1, {wr_id = 4, send_flags = "SIGNALED", bind_info = {mr = mr_b, addr = mr_b.addr, length = 0}})
        wcs = cq:wait(1)
        qp_a:post_send{wr_id = 5, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 8}}, rdma = {remote_addr = mr_b.addr + 64, rkey = rkey1}}
        wcs = cq:wait(1)
        print(wcs[1])]],
      -- the failed try left both QPs in ERR: connect them again first
      redo = [[
        rc_connect(qp_a, qp_b); rc_connect(qp_b, qp_a)]],
      check = function(S)
        local ok, why = needs(wc_of(S, 1, 5, qp_a), "the READ with the old rkey1 (wr_id 5)", "REM_ACCESS_ERR")
        if not ok then return false, why .. (why:find("SUCCESS") and ": unbind mw1 first (length = 0)" or "") end
        if mw1.rkey == rkey1 then return false, "mw1.rkey is still rkey1: the unbind did not run" end
        return true, ("READ with rkey1 0x%x: REM_ACCESS_ERR; mw1.rkey is 0x%x now"):format(rkey1, mw1.rkey)
      end,
    },
    {
      title = "A type 2 window, bound by a work request",
      text = [[
        A type 2 window is bound by a BIND_MW work request in the owner's send
        queue, with the rkey you choose: verbs.inc_rkey(mw2.rkey). Post it on
        the QP that will serve the peer (rxe accepts a type 2 window's rkey
        only on the QP that bound it). A work request does not write C's
        struct ibv_mw: set mw2.rkey = rkey2 yourself, as C sets mw->rkey, or
        the next bind of mw2 fails. First reconnect the QPs (the last step
        left them in ERR).]],
      c = [[
        struct ibv_mw *mw2 = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
        uint32_t rkey2 = ibv_inc_rkey(mw2->rkey);
        swr.opcode = IBV_WR_BIND_MW; swr.bind_mw.mw = mw2; swr.bind_mw.rkey = rkey2;
        swr.bind_mw.bind_info = (struct ibv_mw_bind_info){ mr_b, (uintptr_t)mr_b->addr, 4096, IBV_ACCESS_REMOTE_READ };
        ibv_post_send(qp_b, &swr, &bad);  /* then, once it completed: */  mw2->rkey = rkey2;]],
      task = [[
        rc_connect both QPs; mw2 = pd:alloc_mw("TYPE_2"); rkey2 = verbs.inc_rkey(mw2.rkey);
        post the BIND_MW on qp_b (wr_id 6, SIGNALED, all of mr_b, REMOTE_READ);
        wcs = cq:wait(1); mw2.rkey = rkey2; READ 24 bytes at mr_b.addr + 64
        with rkey2 (wr_id 7); wcs = cq:wait(1).]],
      hint = [[qp_b:post_send{wr_id = 6, opcode = "BIND_MW", send_flags = "SIGNALED", bind_mw = {mw = mw2, rkey = rkey2, bind_info = {mr = mr_b, addr = mr_b.addr, length = 4096, mw_access_flags = "REMOTE_READ"}}}]],
      solution = [[
        rc_connect(qp_a, qp_b); rc_connect(qp_b, qp_a)
        mw2 = pd:alloc_mw("TYPE_2")
        rkey2 = verbs.inc_rkey(mw2.rkey)
        qp_b:post_send{wr_id = 6, opcode = "BIND_MW", send_flags = "SIGNALED", bind_mw = {mw = mw2, rkey = rkey2, bind_info = {mr = mr_b, addr = mr_b.addr, length = 4096, mw_access_flags = "REMOTE_READ"}}}
        wcs = cq:wait(1)
        mw2.rkey = rkey2
        mr_a:fill(0, 0, 24)
        qp_a:post_send{wr_id = 7, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 24}}, rdma = {remote_addr = mr_b.addr + 64, rkey = rkey2}}
        wcs = cq:wait(1)
        print(mr_a:read(0, 24))]],
      check = function(S)
        if not K.is(rawget(_G, "mw2"), "mw") or mw2.type ~= "TYPE_2" then
          return false, "mw2 is not a TYPE_2 window yet: mw2 = pd:alloc_mw(\"TYPE_2\")"
        end
        local ok, why = needs(wc_of(S, 1, 7, qp_a), "the READ through mw2 (wr_id 7)", "SUCCESS", "RDMA_READ")
        if not ok then return false, why end
        if mr_a:read(0, 24) ~= CONTENT:sub(1, 24) then return false, "mr_a does not hold the 24 bytes read" end
        if mw2.rkey ~= rkey2 then return false, "set mw2.rkey = rkey2 (C: mw2->rkey = rkey2)" end
        return true, ("bound with rkey2 0x%x; READ %q"):format(rkey2, mr_a:read(0, 24))
      end,
    },
    {
      title = "Revoked by the peer: SEND_WITH_INV",
      text = [[
        The peer can give a type 2 window back itself: SEND_WITH_INV is a
        SEND that carries an rkey to invalidate at the receiver. The
        receiver's completion names it: wc.invalidated_rkey, with flag
        WITH_INV. (rxe reports that flag with the kernel's bit, which
        libibverbs calls IP_CSUM_OK: wc_flags reads GRH, IP_CSUM_OK; verbsh
        reads invalidated_rkey from it on an RC or UC receive.)]],
      c = [[swr.opcode = IBV_WR_SEND_WITH_INV; swr.invalidate_rkey = rkey2;   /* wc.invalidated_rkey at qp_b */]],
      task = [[
        Post a receive on qp_b (wr_id 8, 64 bytes of mr_b at offset 2048);
        SEND_WITH_INV 4 bytes from qp_a with invalidate_rkey = rkey2 (wr_id 9);
        wcs = cq:wait(2); print(wcs[1], wcs[2]).]],
      hint = [[qp_a:post_send{wr_id = 9, opcode = "SEND_WITH_INV", send_flags = "SIGNALED", invalidate_rkey = rkey2, sg_list = {{mr = mr_a, offset = 0, length = 4}}}]],
      solution = [[
        qp_b:post_recv{wr_id = 8, sg_list = {{mr = mr_b, offset = 2048, length = 64}}}
        qp_a:post_send{wr_id = 9, opcode = "SEND_WITH_INV", send_flags = "SIGNALED", invalidate_rkey = rkey2, sg_list = {{mr = mr_a, offset = 0, length = 4}}}
        wcs = cq:wait(2)
        print(wcs[1], wcs[2])]],
      -- the first try revoked the window: bind it again before the redo
      redo = [[
        rkey2 = verbs.inc_rkey(mw2.rkey)
        qp_b:post_send{wr_id = 6, opcode = "BIND_MW", send_flags = "SIGNALED", bind_mw = {mw = mw2, rkey = rkey2, bind_info = {mr = mr_b, addr = mr_b.addr, length = 4096, mw_access_flags = "REMOTE_READ"}}}
        local bound = cq:wait(1)
        mw2.rkey = rkey2]],
      check = function(S)
        local r = wc_of(S, 2, 8, qp_b)
        local ok, why = needs(r, "qp_b's receive (wr_id 8)", "SUCCESS", "RECV")
        if not ok then return false, why end
        if r.invalidated_rkey ~= rkey2 then
          return false, ("the receive names no invalidated rkey 0x%x: send with opcode SEND_WITH_INV and"
            .. " invalidate_rkey = rkey2"):format(rkey2)
        end
        return true, ("qp_b's receive: invalidated_rkey 0x%x = rkey2; mw2 is free again"):format(r.invalidated_rkey)
      end,
    },
    {
      title = "Revoked by its owner: LOCAL_INV",
      text = [[
        The owner revokes a type 2 window with a LOCAL_INV work request on its
        own QP. Bind mw2 again (a window is bound only when free), READ once,
        invalidate it, and READ again: REM_ACCESS_ERR, both QPs to ERR.]],
      c = [[swr.opcode = IBV_WR_LOCAL_INV; swr.invalidate_rkey = rkey3; ibv_post_send(qp_b, &swr, &bad);]],
      task = [[
        rkey3 = verbs.inc_rkey(mw2.rkey); bind mw2 with rkey3 (wr_id 10) and
        wcs = cq:wait(1); mw2.rkey = rkey3; LOCAL_INV rkey3 on qp_b (wr_id 11,
        SIGNALED) and wcs = cq:wait(1); READ 8 bytes with rkey3 (wr_id 12);
        wcs = cq:wait(1); print(wcs[1]).]],
      hint = [[qp_b:post_send{wr_id = 11, opcode = "LOCAL_INV", send_flags = "SIGNALED", invalidate_rkey = rkey3}]],
      solution = [[
        rkey3 = verbs.inc_rkey(mw2.rkey)
        qp_b:post_send{wr_id = 10, opcode = "BIND_MW", send_flags = "SIGNALED", bind_mw = {mw = mw2, rkey = rkey3, bind_info = {mr = mr_b, addr = mr_b.addr, length = 4096, mw_access_flags = "REMOTE_READ"}}}
        wcs = cq:wait(1)
        mw2.rkey = rkey3
        qp_b:post_send{wr_id = 11, opcode = "LOCAL_INV", send_flags = "SIGNALED", invalidate_rkey = rkey3}
        wcs = cq:wait(1)
        qp_a:post_send{wr_id = 12, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 8}}, rdma = {remote_addr = mr_b.addr, rkey = rkey3}}
        wcs = cq:wait(1)
        print(wcs[1])]],
      redo = [[
        rc_connect(qp_a, qp_b); rc_connect(qp_b, qp_a)]],
      check = function(S)
        local ok, why = needs(wc_of(S, 1, 12, qp_a), "the READ after LOCAL_INV (wr_id 12)", "REM_ACCESS_ERR")
        if not ok then return false, why end
        return true, ("READ with rkey3 0x%x after LOCAL_INV: REM_ACCESS_ERR"):format(rkey3)
      end,
    },
  },
}
