-- Lesson 22: iWARP and RoCE side by side -- one rdma_cm program on both, then
-- what iWARP (siw) refuses that RoCE (rxe) does, each predicted first.
local K = require "verbs.lesson_kit"
local LADDER = require "verbs.wire_iwarp_ladder"

local function G(name) return rawget(_G, name) end
local function set(name, v) rawset(_G, name, v) return v end

-- What this lesson made outside the globals (connections, QPs for the
-- out-of-band step), for teardown.
local made = {}
local function keep(fn) made[#made + 1] = fn end
local NAMES = { "roce", "iwarp", "roce_addr", "iwarp_addr", "cm_connect", "rtr_qp", "R", "W", "qr", "qw",
  "guess_ud", "guess_imm", "guess_atomic", "guess_oob", "ok_r", "ok_w", "err_r", "err_w", "dr", "dw",
  "cap", "write_ack", "roce_acks" }

local function link_layer(dev)
  local f = io.open(("/sys/class/infiniband/%s/ports/1/link_layer"):format(dev))
  local s = f and f:read("l")
  if f then f:close() end
  return s
end

-- The IPv4 address of an iWARP device: its GID is the netdev's MAC, so the
-- address is the netdev's (SIW_ADDR when rxe-vm --siw made it).
local function iwarp_address(dev)
  if os.getenv("SIW_DEV") == dev and os.getenv("SIW_ADDR") then return os.getenv("SIW_ADDR") end
  -- (an iWARP GID table has no netdev attribute: rdma link names it)
  local p = io.popen(("rdma link show '%s/1' 2>/dev/null"):format(dev))
  local nd = p and (p:read("a") or ""):match("netdev (%S+)")
  if p then p:close() end
  if not nd then return nil end
  p = io.popen(("ip -4 -o addr show dev '%s' 2>/dev/null"):format(nd))
  local out = p and p:read("a") or ""
  if p then p:close() end
  return out:match("inet (%d+%.%d+%.%d+%.%d+)")
end

-- One RC connection through rdma_cm inside this process: a listener on
-- addr, a client that connects to it, both QPs on one PD and one CQ of the
-- device rdma_cm picked. The server side has 8 receives posted (wr_id
-- 101..108 at peer_mr offsets 64, 128, ...).
local function cm_connect(addr)
  local c = {}
  keep(function()
    for _, k in ipairs{ "id", "peer_id" } do if c[k] then pcall(c[k].destroy_qp, c[k]) end end
    for _, k in ipairs{ "mr", "peer_mr" } do if c[k] then pcall(c[k].dereg, c[k]) end end
    if c.cq then pcall(c.cq.destroy, c.cq) end
    if c.pd then pcall(c.pd.dealloc, c.pd) end
    for _, k in ipairs{ "id", "peer_id", "listen", "cch", "sch" } do if c[k] then pcall(c[k].destroy, c[k]) end end
  end)
  c.sch, c.cch = verbs.create_event_channel(), verbs.create_event_channel()
  c.listen = c.sch:create_id("TCP")
  c.listen:bind_addr(addr .. ":0")
  c.listen:listen(1)
  c.id = c.cch:create_id("TCP")
  c.id:resolve_addr(nil, addr .. ":" .. c.listen:get_src_port(), 2000)
  c.cch:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()
  c.id:resolve_route(2000)
  c.cch:get_cm_event(5000):expect("ROUTE_RESOLVED"):ack()
  c.ctx = c.id.verbs
  c.dev = c.ctx.name
  c.pd, c.cq = c.ctx:alloc_pd(), c.ctx:create_cq(32)
  local attr = { qp_type = "RC", send_cq = c.cq, recv_cq = c.cq,
                 cap = { max_send_wr = 16, max_recv_wr = 16, max_send_sge = 1, max_recv_sge = 1 } }
  c.qp = c.id:create_qp(c.pd, attr)
  c.mr, c.peer_mr = c.pd:reg_mr(4096, K.all_remote), c.pd:reg_mr(4096, K.all_remote)
  c.id:connect{ responder_resources = 1, initiator_depth = 1, retry_count = 7, rnr_retry_count = 7 }
  local req = c.sch:get_cm_event(5000):expect("CONNECT_REQUEST")
  c.peer_id = req.id
  c.peer_qp = c.peer_id:create_qp(c.pd, attr)
  for i = 1, 8 do
    c.peer_qp:post_recv{ wr_id = 100 + i, sg_list = { { mr = c.peer_mr, offset = 64 * i, length = 64 } } }
  end
  c.peer_id:accept{ responder_resources = 1, initiator_depth = 1 }
  req:ack()
  c.cch:get_cm_event(5000):expect("ESTABLISHED"):ack()
  c.sch:get_cm_event(5000):expect("ESTABLISHED"):ack()
  return setmetatable(c, { __tostring = function(t)
    return ("connection on %s: qp (client), peer_qp (server), one pd, cq, mr and peer_mr"):format(t.dev)
  end })
end

-- An RC QP on dev, connected to itself out of band and left in RTR: the
-- QP number and GID exchanged by hand, as ibv_rc_pingpong does over TCP.
local function rtr_qp(dev)
  local ctx = verbs.open(dev)
  -- RoCE: the RoCE v2 GID of the address; iWARP: its one GID, the netdev's MAC.
  local idx = dev ~= G"iwarp" and K.roce_gid(ctx) or 0
  local pd, cq = ctx:alloc_pd(), ctx:create_cq(4)
  local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,
    cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }
  keep(function() pcall(qp.destroy, qp); pcall(cq.destroy, cq); pcall(pd.dealloc, pd); pcall(ctx.close, ctx) end)
  qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }
  qp:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = qp.qp_num, rq_psn = 0, max_dest_rd_atomic = 1,
    min_rnr_timer = 12, ah_attr = { is_global = 1, port_num = 1,
      grh = { dgid = ctx:query_gid(1, idx), sgid_index = idx, hop_limit = 1 } } }
  return qp
end

-- The learner's prediction for a step: which device refuses.
local CHOICES = { RoCE = true, iWARP = true, both = true, neither = true }
local function prediction(name, truth)
  local g = G(name)
  if not CHOICES[g] then
    return nil, ('predict first: %s = "RoCE", "iWARP", "both" or "neither" (which device refuses?)'):format(name)
  end
  return g == truth and ("you predicted %s: right"):format(g) or ("you predicted %s; it was %s"):format(g, truth)
end

-- err holds ibv_post_send's refusal at the post: -22 (EINVAL), not a completion.
local function refused_at_post(e, what)
  if not K.is_verb_error(e, "ibv_post_send", "EINVAL") then
    return false, ("err_w should hold the error of W.qp:post_send (%s): ok_w, err_w = pcall(W.qp.post_send, W.qp, {...})"):format(what)
  end
  if e.context.returned ~= -22 then return false, "err_w is an EINVAL, but not the provider's -22 at the post" end
  return true
end

return {
  title = "iWARP and RoCE side by side",
  transports = { "RoCE", "iWARP" },
  intro = [[
    RDMA has three transports: InfiniBand, RoCE (InfiniBand's transport in
    UDP packets over Ethernet) and iWARP (RDMA over TCP). This machine has
    one RoCE device (rxe, soft-RoCE) and one iWARP device (siw, soft-iWARP).
    The verbs are the same on both; what each device does with them is not.

    iWARP layers RDMAP (the RDMA operations) over DDP (data placement) over
    MPA (framing) over an ordinary TCP connection: TCP gives the reliability
    and the ordering that RoCE's transport does itself. The connection is a
    TCP connection, so it is made by the iWARP connection manager: rdma_cm.

    Before each step that may fail, write down your prediction: which device
    refuses -- "RoCE", "iWARP", "both" or "neither".]],
  setup = function()
    for _, d in ipairs(verbs.devices()) do
      if d.transport_type == "IWARP" then
        if not G"iwarp" then set("iwarp", d.name) end
      elseif link_layer(d.name) == "Ethernet" and not G"roce" then
        set("roce", d.name)
      end
    end
    if not (G"roce" and G"iwarp") then return end   -- requires() says why
    local ctx = verbs.open(G"roce")
    local idx, gid = K.roce_gid(ctx)
    ctx:close()
    set("roce_addr", idx and K.gid_ipv4(gid))
    set("iwarp_addr", iwarp_address(G"iwarp"))
    set("cm_connect", cm_connect)
    set("rtr_qp", rtr_qp)
    K.at_teardown(function()
      for i = #made, 1, -1 do pcall(made[i]) end
      made = {}
      for _, n in ipairs(NAMES) do rawset(_G, n, nil) end
    end)
    return K.describe { "roce", "roce_addr", "iwarp", "iwarp_addr" }
      .. "\n  cm_connect(addr) connects two RC QPs of this process through rdma_cm, on the device of addr"
      .. "\n  rtr_qp(dev)      gives an RC QP on dev connected to itself out of band, in RTR"
  end,
  requires = function()
    if not (G"roce" and G"iwarp") then
      return ("it needs a RoCE device and an iWARP device side by side (found: RoCE %s, iWARP %s): "
        .. "start it inside scripts/rxe-vm --siw (make run SIW=1)"):format(tostring(G"roce" or "none"),
        tostring(G"iwarp" or "none"))
    end
    if not (G"roce_addr" and G"iwarp_addr") then
      return "no IPv4 address on " .. (G"roce_addr" and G"iwarp" or G"roce") .. "'s netdev: rdma_cm needs one"
    end
    if verbs.sysinfo().euid ~= 0 then return "its wire steps capture packets, which needs root (CAP_NET_RAW)" end
  end,

  steps = {
    {
      title = "One rdma_cm program: on RoCE",
      text = [[
        cm_connect(addr) is lesson 14's program in one process: listen,
        resolve the address and the route, create the QPs, connect, accept.
        rdma_cm picks the device from the address. Run it for rxe's address
        and send one message over the connection.]],
      c = [[
        rdma_resolve_addr(id, NULL, (struct sockaddr *)&roce_addr, 2000);  /* ... rdma_connect */
        ibv_post_send(id->qp, &swr, &bad_wr);]],
      task = [[
        R = cm_connect(roce_addr); R.mr:write(0, "over RoCE"); SEND 9 bytes from R.mr
        on R.qp (wr_id 1, SIGNALED); wcs = R.cq:wait(2) (the SEND and the server's RECV).]],
      hint = [[R.qp:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = R.mr, offset = 0, length = 9}}}]],
      solution = [[
        R = cm_connect(roce_addr)
        R.mr:write(0, "over RoCE")
        R.qp:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = R.mr, offset = 0, length = 9}}}
        wcs = R.cq:wait(2)
        R.dev, R.peer_mr:read(64, 9)]],
      check = function(S)
        local R = G"R"
        if type(R) ~= "table" or not K.is(R.cq, "cq") then return false, "R should be cm_connect(roce_addr)" end
        if R.dev ~= G"roce" then return false, ("R is on %s, not %s: give cm_connect roce_addr"):format(R.dev, G"roce") end
        local l = K.step_wcs(S, R.cq, 2)
        local s, r = K.find_wc(l, { wr_id = 1 }), K.find_wc(l, { opcode = "RECV" })
        if not (s and r) then return false, "the SEND (wr_id 1) and the server's RECV have not both completed" end
        if s.status ~= "SUCCESS" or r.status ~= "SUCCESS" then return false, "a completion failed: " .. K.wc_note(s.status ~= "SUCCESS" and s or r) end
        return true, ("%s: SEND and RECV SUCCESS, %d bytes"):format(R.dev, r.byte_len)
      end,
    },
    {
      title = "The same program: on iWARP",
      text = [[
        Now the very same lines with siw's address. rdma_cm hands siw a TCP
        connection and runs the MPA exchange on it; your code does not change.]],
      c = [[rdma_resolve_addr(id, NULL, (struct sockaddr *)&iwarp_addr, 2000);   /* the rest unchanged */]],
      task = [[W = cm_connect(iwarp_addr); the same SEND of "over iWARP" (10 bytes, wr_id 2); wcs = W.cq:wait(2).]],
      hint = [[W.qp:post_send{wr_id = 2, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = W.mr, offset = 0, length = 10}}}]],
      solution = [[
        W = cm_connect(iwarp_addr)
        W.mr:write(0, "over iWARP")
        W.qp:post_send{wr_id = 2, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = W.mr, offset = 0, length = 10}}}
        wcs = W.cq:wait(2)
        W.dev, W.peer_mr:read(64, 10)]],
      check = function(S)
        local W = G"W"
        if type(W) ~= "table" or not K.is(W.cq, "cq") then return false, "W should be cm_connect(iwarp_addr)" end
        if W.dev ~= G"iwarp" then return false, ("W is on %s, not %s: give cm_connect iwarp_addr"):format(W.dev, G"iwarp") end
        local l = K.step_wcs(S, W.cq, 2)
        local s, r = K.find_wc(l, { wr_id = 2 }), K.find_wc(l, { opcode = "RECV" })
        if not (s and r) then return false, "the SEND (wr_id 2) and the server's RECV have not both completed" end
        if s.status ~= "SUCCESS" or r.status ~= "SUCCESS" then return false, "a completion failed: " .. K.wc_note(s.status ~= "SUCCESS" and s or r) end
        return true, ("%s: SEND and RECV SUCCESS, %d bytes: the same program on iWARP"):format(W.dev, r.byte_len)
      end,
    },
    {
      title = "Predict: a UD QP",
      text = [[
        UD (unreliable datagram) sends single messages to any QP, with an
        address handle per destination. Predict which device refuses to
        create a UD QP, then try both: catch the refusal with pcall.]],
      c = [[struct ibv_qp *qp = ibv_create_qp(pd, &(struct ibv_qp_init_attr){ .qp_type = IBV_QPT_UD, ... });]],
      task = [[
        guess_ud = "RoCE" | "iWARP" | "both" | "neither"; then
        ok_r, err_r = pcall(R.pd.create_qp, R.pd, {qp_type = "UD", send_cq = R.cq, recv_cq = R.cq, cap = {max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1}})
        and the same on W into ok_w, err_w; print(err_w).]],
      hint = [[ok_w, err_w = pcall(W.pd.create_qp, W.pd, {qp_type = "UD", send_cq = W.cq, recv_cq = W.cq, cap = {max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1}})]],
      solution = [[
        guess_ud = "iWARP"
        ok_r, err_r = pcall(R.pd.create_qp, R.pd, {qp_type = "UD", send_cq = R.cq, recv_cq = R.cq, cap = {max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1}})
        ok_w, err_w = pcall(W.pd.create_qp, W.pd, {qp_type = "UD", send_cq = W.cq, recv_cq = W.cq, cap = {max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1}})
        print(err_w)
        if ok_r then err_r:destroy() end]],
      check = function()
        local said, why = prediction("guess_ud", "iWARP")
        if not said then return false, why end
        if not G"ok_r" then return false, "the UD QP on RoCE was not created: " .. tostring(G"err_r") end
        if not K.is_verb_error(G"err_w", "ibv_create_qp", "EOPNOTSUPP") then
          return false, "err_w should hold ibv_create_qp's EOPNOTSUPP on " .. tostring(G"iwarp")
        end
        return true, said .. "; RoCE made a UD QP, iWARP said EOPNOTSUPP at create: iWARP is RC only"
      end,
    },
    {
      title = "Predict: immediate data",
      text = [[
        SEND_WITH_IMM carries 32 bits beside the payload, which the receiver
        finds in its completion (wc.imm_data). Predict which device refuses
        it, and where: at the post (ibv_post_send returns non-zero) or in a
        completion.]],
      c = [[
        swr.opcode = IBV_WR_SEND_WITH_IMM; swr.imm_data = htonl(0x12345678);
        if (ibv_post_send(qp, &swr, &bad_wr) != 0) ...   /* siw returns -22: test != 0, not > 0 */]],
      task = [[
        guess_imm = ...; send "imm" with SEND_WITH_IMM, imm_data = 0x12345678 on R.qp (wr_id 3);
        wcs = R.cq:wait(2); then ok_w, err_w = pcall(W.qp.post_send, W.qp, {the same WR}); print(err_w).]],
      hint = [[{wr_id = 3, opcode = "SEND_WITH_IMM", imm_data = 0x12345678, send_flags = "SIGNALED", sg_list = {{mr = R.mr, offset = 0, length = 3}}}]],
      solution = [[
        guess_imm = "iWARP"
        R.mr:write(0, "imm")
        R.qp:post_send{wr_id = 3, opcode = "SEND_WITH_IMM", imm_data = 0x12345678, send_flags = "SIGNALED", sg_list = {{mr = R.mr, offset = 0, length = 3}}}
        wcs = R.cq:wait(2)
        ok_w, err_w = pcall(W.qp.post_send, W.qp, {wr_id = 3, opcode = "SEND_WITH_IMM", imm_data = 0x12345678, send_flags = "SIGNALED", sg_list = {{mr = W.mr, offset = 0, length = 3}}})
        print(err_w)]],
      check = function(S)
        local said, why = prediction("guess_imm", "iWARP")
        if not said then return false, why end
        local l = K.step_wcs(S, G"R".cq, 2)
        local s, r = K.find_wc(l, { wr_id = 3 }), K.find_wc(l, { opcode = "RECV" })
        if not (s and r) then return false, "on RoCE the SEND_WITH_IMM (wr_id 3) and its RECV have not both completed" end
        if s.status ~= "SUCCESS" or r.status ~= "SUCCESS" then return false, "a completion failed: " .. K.wc_note(s.status ~= "SUCCESS" and s or r) end
        if r.imm_data ~= 0x12345678 then return false, ("the RECV's imm_data is %s, not 0x12345678"):format(tostring(r.imm_data)) end
        local ok, why2 = refused_at_post(G"err_w", "SEND_WITH_IMM")
        if not ok then return false, why2 end
        return true, said .. "; RoCE delivered imm_data 0x12345678, iWARP's post returned -22: no immediate data in iWARP"
      end,
    },
    {
      title = "Predict: an atomic",
      text = [[
        A FETCH_AND_ADD adds to a 64-bit word of remote memory and brings the
        old value back (lesson 8). Predict again. (query_device's atomic_cap
        would have told you: the last step looks.)]],
      c = [[swr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD; swr.wr.atomic.compare_add = 1;]],
      task = [[
        guess_atomic = ...; R.peer_mr:write(0, string.pack("=I8", 41)); FETCH_AND_ADD 1 to R.peer_mr
        offset 0 from R.qp (wr_id 4, old value into R.mr offset 8); wcs = R.cq:wait(1); then the same on W into ok_w, err_w.]],
      hint = [[atomic = {remote_addr = R.peer_mr.addr, rkey = R.peer_mr.rkey, compare_add = 1}]],
      solution = [[
        guess_atomic = "iWARP"
        R.peer_mr:write(0, string.pack("=I8", 41))
        R.qp:post_send{wr_id = 4, opcode = "ATOMIC_FETCH_AND_ADD", send_flags = "SIGNALED", sg_list = {{mr = R.mr, offset = 8, length = 8}}, atomic = {remote_addr = R.peer_mr.addr, rkey = R.peer_mr.rkey, compare_add = 1}}
        wcs = R.cq:wait(1)
        ok_w, err_w = pcall(W.qp.post_send, W.qp, {wr_id = 4, opcode = "ATOMIC_FETCH_AND_ADD", send_flags = "SIGNALED", sg_list = {{mr = W.mr, offset = 8, length = 8}}, atomic = {remote_addr = W.peer_mr.addr, rkey = W.peer_mr.rkey, compare_add = 1}})
        print(err_w)
        lesson.kit.u64(R.mr, 8), lesson.kit.u64(R.peer_mr, 0)]],
      check = function(S)
        local said, why = prediction("guess_atomic", "iWARP")
        if not said then return false, why end
        local R = G"R"
        local l = K.step_wcs(S, R.cq, 1)
        local w = K.find_wc(l, { wr_id = 4 })
        if not w then return false, "on RoCE the FETCH_AND_ADD (wr_id 4) has not completed" end
        if w.status ~= "SUCCESS" then return false, "wr_id 4 ended " .. w.status end
        if K.u64(R.mr, 8) ~= 41 or K.u64(R.peer_mr, 0) ~= 42 then
          return false, ("fetched %d, counter %d: want 41 and 42"):format(K.u64(R.mr, 8), K.u64(R.peer_mr, 0))
        end
        local ok, why2 = refused_at_post(G"err_w", "ATOMIC_FETCH_AND_ADD")
        if not ok then return false, why2 end
        return true, said .. "; RoCE fetched 41 and left 42, iWARP's post returned -22: no atomics in iWARP"
      end,
    },
    {
      title = "Predict: connecting out of band",
      text = [[
        In lessons 4 and 13 you connected QPs yourself: QP numbers and GIDs
        exchanged by hand, then INIT, RTR, RTS with qp:modify. rtr_qp(dev)
        does that up to RTR, on each device. Predict which device refuses
        RTS. (siw does not report QP states: reading qw.state, verbsh warns
        that it shows the state it set.)]],
      c = [[attr.qp_state = IBV_QPS_RTS; ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_TIMEOUT | ...);]],
      task = [[
        guess_oob = ...; qr, qw = rtr_qp(roce), rtr_qp(iwarp); qr:modify{qp_state = "RTS", timeout = 14,
        retry_cnt = 7, rnr_retry = 7, sq_psn = 0, max_rd_atomic = 1}; the same on qw with pcall into ok_w, err_w.]],
      hint = [[ok_w, err_w = pcall(qw.modify, qw, {qp_state = "RTS", timeout = 14, retry_cnt = 7, rnr_retry = 7, sq_psn = 0, max_rd_atomic = 1})]],
      solution = [[
        guess_oob = "iWARP"
        qr, qw = rtr_qp(roce), rtr_qp(iwarp)
        qr:modify{qp_state = "RTS", timeout = 14, retry_cnt = 7, rnr_retry = 7, sq_psn = 0, max_rd_atomic = 1}
        ok_w, err_w = pcall(qw.modify, qw, {qp_state = "RTS", timeout = 14, retry_cnt = 7, rnr_retry = 7, sq_psn = 0, max_rd_atomic = 1})
        print(err_w)
        qr.state, qw.state]],
      check = function()
        local said, why = prediction("guess_oob", "iWARP")
        if not said then return false, why end
        if not K.is(G"qr", "qp") or G"qr".state ~= "RTS" then return false, "qr should be rtr_qp(roce), then in RTS" end
        if not K.is_verb_error(G"err_w", "ibv_modify_qp", "EINVAL") then
          return false, "err_w should hold ibv_modify_qp's EINVAL for qw's RTS"
        end
        if not tostring(G"err_w"):find("only through rdma_cm", 1, true) then return false, "err_w is another EINVAL: " .. tostring(G"err_w") end
        return true, said .. "; RoCE reached RTS out of band, iWARP stopped at RTR: only rdma_cm connects an iWARP QP"
      end,
    },
    {
      title = "What each device says about itself",
      text = [[
        ibv_query_device told all of this before you tried: compare
        atomic_cap, max_ah, max_mw, max_mcast_grp and max_sge_rd, and each
        port's gid_tbl_len (iWARP's one GID is the netdev's MAC).]],
      c = [[ibv_query_device(ctx, &attr);   /* attr.atomic_cap, attr.max_ah, ... */]],
      task = [[dr = R.ctx:query_device(); dw = W.ctx:query_device(); compare their atomic_cap, max_ah, max_mw, max_mcast_grp, max_sge_rd.]],
      hint = [[for _, k in ipairs{"atomic_cap", "max_ah", "max_mw", "max_mcast_grp", "max_sge_rd"} do print(k, dr[k], dw[k]) end]],
      solution = [[
        dr = R.ctx:query_device()
        dw = W.ctx:query_device()
        for _, k in ipairs{"atomic_cap", "max_ah", "max_mw", "max_mcast_grp", "max_sge_rd"} do print(k, dr[k], dw[k]) end
        R.ctx:query_port(1).gid_tbl_len, W.ctx:query_port(1).gid_tbl_len]],
      check = function()
        local dr, dw = G"dr", G"dw"
        if type(dr) ~= "table" or type(dw) ~= "table" then return false, "dr and dw should be R.ctx:query_device() and W.ctx:query_device()" end
        if dw.atomic_cap ~= "NONE" or dw.max_ah ~= 0 then return false, "dw is not the iWARP device's: dw = W.ctx:query_device()" end
        if dr.atomic_cap == "NONE" or dr.max_ah == 0 then return false, "dr is not the RoCE device's: dr = R.ctx:query_device()" end
        return true, ("RoCE: atomic_cap %s, max_ah %d, max_mcast_grp %d; iWARP: atomic_cap NONE, max_ah 0, max_mcast_grp %d")
          :format(dr.atomic_cap, dr.max_ah, dr.max_mcast_grp, dw.max_mcast_grp)
      end,
    },
    {
      title = "On the wire: iWARP's ladder",
      text = [[
        Lesson 17 drew RoCE's packets: a BTH with a PSN in each, and the
        responder's own ACKNOWLEDGE packets. iWARP puts its messages in a TCP
        byte stream instead: each MPA FPDU holds a DDP header (tagged: STag and
        offset of the memory it lands in; untagged: queue number, message
        sequence number, offset) and an RDMAP opcode. Capture a SEND, a WRITE
        and a READ on W, then print(cap) draws the TCP segments as a ladder,
        each with the WR that caused it. (Between two QPs of one rxe, RoCE
        never reaches a netdev; siw's TCP to its own address crosses lo, so
        this capture sees it.)]],
      c = [[/* no C: what ibv_post_send of a SEND, an RDMA_WRITE and an RDMA_READ puts on the wire */]],
      task = [[
        cap = verbs.capture{device = iwarp}; on W.qp: SEND 10 bytes (wr_id 5), RDMA_WRITE 20 bytes to
        W.peer_mr offset 1024 (wr_id 6), RDMA_READ 30 bytes from W.peer_mr offset 2048 (wr_id 7),
        each SIGNALED and waited for; cap:stop(); print(cap)]],
      hint = [[W.qp:post_send{wr_id = 6, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{mr = W.mr, offset = 0, length = 20}}, rdma = {remote_addr = W.peer_mr.addr + 1024, rkey = W.peer_mr.rkey}}]],
      solution = [[
        cap = verbs.capture{device = iwarp}
        W.qp:post_send{wr_id = 5, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = W.mr, offset = 0, length = 10}}}
        W.cq:wait(2)
        W.qp:post_send{wr_id = 6, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{mr = W.mr, offset = 0, length = 20}}, rdma = {remote_addr = W.peer_mr.addr + 1024, rkey = W.peer_mr.rkey}}
        W.cq:wait(1)
        W.qp:post_send{wr_id = 7, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = {{mr = W.mr, offset = 512, length = 30}}, rdma = {remote_addr = W.peer_mr.addr + 2048, rkey = W.peer_mr.rkey}}
        W.cq:wait(1)
        cap:stop()
        print(cap)]],
      check = function()
        local cap = G"cap"
        if not K.is(cap, "capture") then return false, "cap is not a capture: cap = verbs.capture{device = iwarp}" end
        local info = cap:info()
        if info.device ~= G"iwarp" then
          return false, ("cap captures %s, not the iWARP device %s: cap = verbs.capture{device = iwarp}")
            :format(tostring(info.device or info.netdev), tostring(G"iwarp"))
        end
        if not info.stopped then return false, "cap still runs: cap:stop() once the READ has completed" end
        local rows = LADDER.rows(cap:packets(), cap:posts())
        local at = {}
        for _, r in ipairs(rows) do
          for _, want in ipairs{ "wr_id 5's SEND", "wr_id 6's RDMA_WRITE", "wr_id 7's RDMA_READ data", "wr_id 7's RDMA_READ" } do
            if not at[want] and r.kind == "DATA" and (r.note or ""):find(want, 1, true) then at[want] = r.frame; break end
          end
        end
        for _, want in ipairs{ "wr_id 5's SEND", "wr_id 6's RDMA_WRITE", "wr_id 7's RDMA_READ", "wr_id 7's RDMA_READ data" } do
          if not at[want] then
            return false, ("no frame of %s in cap: start the capture first, post on W.qp, wait, then cap:stop()"):format(want)
          end
        end
        return true, ("Send in frame %d, Write in frame %d, Read Request in frame %d, its Read Response in frame %d")
          :format(at["wr_id 5's SEND"], at["wr_id 6's RDMA_WRITE"], at["wr_id 7's RDMA_READ"], at["wr_id 7's RDMA_READ data"])
      end,
    },
    {
      title = "Two ladders: who acknowledges?",
      text = [[
        The same three operations between two rxe devices (lesson 17, with
        make run TWO=1) draw this RoCE ladder:
            SEND_ONLY psn 0 ------>
                    <------ ACKNOWLEDGE psn 0 ACK msn 1
            RDMA_WRITE_ONLY psn 1 ------>
                    <------ ACKNOWLEDGE psn 1 ACK msn 2
            RDMA_READ_REQUEST psn 2 ------>
                    <------ RDMA_READ_RESPONSE_ONLY psn 2 ACK msn 3
        RoCE's responder acknowledges by itself, per PSN; a READ's response
        carries its AETH, so it needs no ACKNOWLEDGE of its own. In your
        iWARP ladder, find what acknowledges the WRITE.]],
      c = [[/* RoCE: the ACK is a packet of the RDMA transport; iWARP: TCP's ack field */]],
      task = [[
        write_ack = the frame number (#N) of the segment that says "TCP acknowledges wr_id 6's RDMA_WRITE";
        roce_acks = how many ACKNOWLEDGE packets the RoCE ladder above has.]],
      hint = [[for _, r in ipairs(require("verbs.wire_iwarp_ladder").rows(cap:packets(), cap:posts())) do print(r.frame, r.text, r.note) end]],
      solution = [[
        for _, r in ipairs(require("verbs.wire_iwarp_ladder").rows(cap:packets(), cap:posts())) do
          if (r.note or ""):find("TCP acknowledges wr_id 6's", 1, true) then write_ack = r.frame end
        end
        roce_acks = 2
        write_ack, roce_acks]],
      check = function()
        local cap = G"cap"
        if not K.is(cap, "capture") then return false, "cap is gone: do the step before again" end
        local want, write
        for _, r in ipairs(LADDER.rows(cap:packets(), cap:posts())) do
          if (r.note or ""):find("TCP acknowledges wr_id 6's", 1, true) then want = r.frame end
          if r.kind == "DATA" and (r.note or ""):find("wr_id 6's RDMA_WRITE", 1, true) then write = r.frame end
        end
        if not want then return false, "cap holds no TCP ACK of the WRITE: capture again (the step before) and wait for it" end
        local got = G"write_ack"
        if got == write then
          return false, ("frame %d is the WRITE itself; what acknowledges it comes back from the other side"):format(write)
        end
        if got ~= want then return false, ("write_ack should be the frame whose note says \"TCP acknowledges wr_id 6's RDMA_WRITE\" (it is not %s)"):format(tostring(got)) end
        if G"roce_acks" == 3 then
          return false, "roce_acks is 3: a READ's response is its acknowledgement, RoCE sends no ACKNOWLEDGE for it"
        end
        if G"roce_acks" ~= 2 then return false, "roce_acks: count the ACKNOWLEDGE lines of the RoCE ladder" end
        return true, ("frame %d: TCP's ACK, a field of an ordinary segment, acknowledges the WRITE; RoCE's 2 ACKNOWLEDGEs are packets of the RDMA transport itself")
          :format(want)
      end,
    },
  },
}
