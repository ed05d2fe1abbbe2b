-- Lesson 19: UC, the unreliable connection -- one-way writes and what
-- unreliable means. With two devices (make run TWO=1) and root, a last step
-- loses a packet on the wire and shows it in the capture.
local K = require "verbs.lesson_kit"

local function G(name) return rawget(_G, name) end
local function set(name, v) rawset(_G, name, v) return v end

-- A second device joined by a link, and root to capture and route: the
-- wire step is added only then.
local function second_device()
  local ok, list = pcall(verbs.devices)
  if not ok then return nil end
  local a = os.getenv("RXE_DEV") or (list[1] and list[1].name)
  -- an iWARP device (siw beside rxe) has no UC and speaks TCP: not a partner here
  for _, d in ipairs(list) do if d.name ~= a and d.transport_type ~= "IWARP" then return d.name end end
end
local DEV_B = second_device()
local WIRE = DEV_B and verbs.sysinfo().euid == 0

local function uc_qp(pd, cq)
  return pd:create_qp{ qp_type = "UC", send_cq = cq, recv_cq = cq,
    cap = { max_send_wr = 16, max_recv_wr = 16, max_send_sge = 1, max_recv_sge = 1 } }
end
local function uc_connect(qp, peer_qpn, gid, idx)
  if qp.state ~= "RESET" then qp:modify{ qp_state = "RESET" } end
  qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = "REMOTE_WRITE" }
  qp:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = peer_qpn, rq_psn = 0,
    ah_attr = { is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = idx, hop_limit = 1 } } }
  qp:modify{ qp_state = "RTS", sq_psn = 0 }
end

local steps = {
  {
    title = "RC's RTR on a UC QP",
    text = [[
      UC is connected like RC: one QP talks to one peer QP, named at RTR. But
      nothing is acknowledged. So the attributes RC needs for ACKs, retries
      and READ/atomic resources do not exist for UC, and passing them is
      EINVAL: at RTR max_dest_rd_atomic and min_rnr_timer, at RTS timeout,
      retry_cnt, rnr_retry and max_rd_atomic. Try RC's RTR on qp_a and read
      why it fails.]],
    c = [[ibv_modify_qp(qp_a, &attr, IBV_QP_STATE | IBV_QP_AV | ... | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);   /* EINVAL on UC */]],
    task = [[
      qp_a:modify{qp_state = "RTR", path_mtu = "1024", dest_qp_num = qp_b.qp_num, rq_psn = 0,
        max_dest_rd_atomic = 1, min_rnr_timer = 12, ah_attr = {is_global = 1, port_num = 1,
        grh = {dgid = gid, sgid_index = gid_index, hop_limit = 1}}}]],
    hint = [[The failure is the point: the modify must fail with ibv_modify_qp's EINVAL, qp_a staying in INIT.]],
    solution = [[
      ok, err = pcall(qp_a.modify, qp_a, {qp_state = "RTR", path_mtu = "1024", dest_qp_num = qp_b.qp_num, rq_psn = 0, max_dest_rd_atomic = 1, min_rnr_timer = 12, ah_attr = {is_global = 1, port_num = 1, grh = {dgid = gid, sgid_index = gid_index, hop_limit = 1}}})
      print(err)]],
    check = function()
      local e = require("verbs.repl").last_error
      if not K.is_verb_error(e, "ibv_modify_qp", "EINVAL") then e = G"err" end
      if not K.is_verb_error(e, "ibv_modify_qp", "EINVAL") then
        return false, "no EINVAL from ibv_modify_qp yet: try RC's RTR (with max_dest_rd_atomic and min_rnr_timer) on qp_a"
      end
      if qp_a.state ~= "INIT" then return false, "qp_a should still be in INIT, it is in " .. qp_a.state end
      if not tostring(e):find("not allowed in UC", 1, true) then return false, "that EINVAL is not about UC's attributes" end
      return true, "EINVAL, qp_a still INIT; the explanation names what UC lacks (no RNR NAKs, no READ resources)"
    end,
  },
  {
    title = "UC's RTR and RTS",
    text = [[
      The UC way: RTR takes the path (ah_attr, path_mtu), the peer
      (dest_qp_num) and the first PSN it expects (rq_psn); RTS only the first
      PSN it sends (sq_psn).]],
    c = [[
      ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN);
      ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN);]],
    task = [[Bring qp_a and qp_b (each the other's peer) to RTR and RTS the UC way.]],
    hint = [[
      qp_a:modify{qp_state = "RTR", path_mtu = "1024", dest_qp_num = qp_b.qp_num, rq_psn = 0, ah_attr = {...}}
      qp_a:modify{qp_state = "RTS", sq_psn = 0}]],
    solution = [[
      for _, p in ipairs{{qp_a, qp_b}, {qp_b, qp_a}} do
        p[1]:modify{qp_state = "RTR", path_mtu = "1024", dest_qp_num = p[2].qp_num, rq_psn = 0, ah_attr = {is_global = 1, port_num = 1, grh = {dgid = gid, sgid_index = gid_index, hop_limit = 1}}}
        p[1]:modify{qp_state = "RTS", sq_psn = 0}
      end
      print(qp_a, qp_b)]],
    check = function()
      for _, n in ipairs{ "qp_a", "qp_b" } do
        local q = G(n)
        if not K.is(q, "qp") or q.qp_type ~= "UC" then return false, n .. " is not a UC QP" end
        if q.state ~= "RTS" then return false, ("%s is in %s, not RTS yet"):format(n, q.state) end
      end
      if qp_a:query().dest_qp_num ~= qp_b.qp_num then return false, "qp_a's dest_qp_num is not qp_b's qp_num" end
      return true, "both UC QPs in RTS, with no ACK timers and no READ resources"
    end,
  },
  {
    title = "SEND and RDMA WRITE",
    text = [[
      Both work as on RC: a SEND consumes a receive at qp_b, an RDMA WRITE
      lands in mr_b with no completion there. The difference is what the
      sender's completion means: on RC the responder acknowledged; on UC the
      packets have left, and that is all.]],
    c = [[/* the same ibv_post_send as on RC */]],
    task = [[
      Post a receive on qp_b (wr_id 100, 64 bytes of mr_b); SEND "one-way" (7
      bytes of mr_a, wr_id 1); RDMA WRITE "landed" (6 bytes of mr_a at 64) to
      mr_b.addr + 512 (wr_id 2); wcs = cq:wait(3).]],
    hint = [[qp_a:post_send{wr_id = 2, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 64, length = 6}}, rdma = {remote_addr = mr_b.addr + 512, rkey = mr_b.rkey}}]],
    solution = [[
      mr_a:write(0, "one-way"); mr_a:write(64, "landed")
      qp_b:post_recv{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 64}}}
      qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 7}}}
      qp_a:post_send{wr_id = 2, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 64, length = 6}}, rdma = {remote_addr = mr_b.addr + 512, rkey = mr_b.rkey}}
      wcs = cq:wait(3)
      print(mr_b:read(0, 7), mr_b:read(512, 6))]],
    check = function(S)
      local l = K.step_wcs(S, cq, 3)
      local r = K.find_wc(l, { wr_id = 100, qp_num = qp_b.qp_num })
      if not r then return false, "no completion for qp_b's receive (wr_id 100) yet" end
      if r.status ~= "SUCCESS" or r.byte_len ~= 7 then return false, "qp_b's receive: " .. K.wc_note(r) end
      local w = K.find_wc(l, { wr_id = 2 })
      if not w or w.status ~= "SUCCESS" then return false, "the WRITE (wr_id 2): " .. (w and K.wc_note(w) or "no completion yet") end
      if mr_b:read(0, 7) ~= "one-way" or mr_b:read(512, 6) ~= "landed" then return false, "mr_b does not hold both messages" end
      return true, ("RECV byte_len=7 %q; WRITE %q at mr_b + 512"):format(mr_b:read(0, 7), mr_b:read(512, 6))
    end,
  },
  {
    title = "No READ on UC",
    text = [[
      A READ needs an answer from the responder (the data), an atomic too
      (the old value): a responder that keeps state and sends responses. UC
      has neither. rxe would take the WR and complete it LOC_QP_OP_ERR;
      verbsh refuses it at post and says why.]],
    c = [[swr.opcode = IBV_WR_RDMA_READ;   /* on a UC QP: IBV_WC_LOC_QP_OP_ERR on rxe */]],
    task = [[Try a READ of 8 bytes from mr_b on qp_a (wr_id 3) and read the refusal.]],
    hint = [[qp_a:post_send{wr_id = 3, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 8}}, rdma = {remote_addr = mr_b.addr, rkey = mr_b.rkey}}]],
    solution = [[
      ok, err = pcall(qp_a.post_send, qp_a, {wr_id = 3, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 8}}, rdma = {remote_addr = mr_b.addr, rkey = mr_b.rkey}})
      print(err)]],
    check = function()
      local e = require("verbs.repl").last_error
      for _, x in pairs{ e or false, G"err" or false } do
        if type(x) == "string" and x:find("UC has no READ or atomics", 1, true) then
          return true, "refused at post: UC has no READ or atomics"
        end
      end
      return false, "no refusal yet: post an RDMA_READ on qp_a"
    end,
  },
  {
    title = "Unreliable: nobody tells the sender",
    text = [[
      On RC, a SEND that finds no receive gets RNR NAKs and is sent again
      until a receive is there. On UC it is dropped at qp_b, and qp_a's
      completion is SUCCESS all the same: it only says that the message left.
      A later SEND takes the next receive; the lost one is gone for good. The
      same happens to a packet lost on the wire, and to a WRITE the
      responder's MR refuses.]],
    c = [[ibv_post_send(qp_a, &swr, &bad);   /* IBV_WC_SUCCESS at qp_a, nothing at qp_b */]],
    task = [[
      SEND "first" (5 bytes, wr_id 4) with no receive posted; first = cq:wait(2, 300)
      (only qp_a's completion comes); then post a receive on qp_b (wr_id 101,
      at mr_b offset 1024), SEND "second" (6 bytes, wr_id 5) and wcs = cq:wait(2).]],
    hint = [[first = cq:wait(2, 300) waits 300 ms and returns what came: qp_a's SUCCESS alone.]],
    solution = [[
      mr_a:write(0, "first"); mr_a:write(64, "second")
      qp_a:post_send{wr_id = 4, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}
      first = cq:wait(2, 300)
      qp_b:post_recv{wr_id = 101, sg_list = {{mr = mr_b, offset = 1024, length = 64}}}
      qp_a:post_send{wr_id = 5, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 64, length = 6}}}
      wcs = cq:wait(2)
      print(first[1], #first, mr_b:read(1024, 6))]],
    check = function(S)
      local first = G"first"
      if type(first) ~= "table" or not K.find_wc(first, { wr_id = 4 }) then
        return false, "first should hold wr_id 4's completion: first = cq:wait(2, 300) after the SEND with no receive"
      end
      if K.find_wc(first, { wr_id = 4 }).status ~= "SUCCESS" then return false, "the lost SEND did not complete SUCCESS" end
      if K.find_wc(first, { qp_num = qp_b.qp_num }) then return false, "qp_b got a completion: was a receive posted?" end
      local l = K.step_wcs(S, cq, 2)
      local r = K.find_wc(l, { wr_id = 101, qp_num = qp_b.qp_num })
      if not r then return false, "no completion for qp_b's receive (wr_id 101) yet" end
      if r.status ~= "SUCCESS" then return false, "qp_b's receive: " .. K.wc_note(r) end
      if mr_b:read(1024, 6) ~= "second" then return false, "qp_b's receive does not hold \"second\"" end
      return true, "\"first\": SUCCESS at qp_a, never arrived; the receive got \"second\""
    end,
  },
}

-- With two devices: the same loss on a real link, seen in the capture.
if WIRE then
  steps[#steps + 1] = {
    title = "A packet lost on the wire",
    text = [[
      Two devices on a veth pair: qp_x on this device, qp_y on dev_b, UC and
      connected (set up for you). A routing rule on dev_b's netdev throws
      away what arrives for dev_b's address, after the capture there saw it:
      one SEND is lost on the way. qp_x completes SUCCESS, qp_y gets
      nothing, and the capture shows the frame arriving and no ACK, ever. An
      RC requester would send the same PSN again after its timeout (lesson
      17 showed it) and complete only when an ACK came.]],
    c = [[/* UC: no ACK, no retransmission; the loss is the application's problem */]],
    enter = function()
      local ctx_b = set("ctx_b", verbs.open(DEV_B))
      local idx_b, gid_b = K.roce_gid(ctx_b)
      local pd_b = set("pd_b", ctx_b:alloc_pd())
      local cq_y = set("cq_y", ctx_b:create_cq(16))
      set("mr_y", pd_b:reg_mr(4096, "LOCAL_WRITE"))
      local qp_x, qp_y = set("qp_x", uc_qp(pd, cq)), set("qp_y", uc_qp(pd_b, cq_y))
      uc_connect(qp_x, qp_y.qp_num, gid_b, gid_index)
      uc_connect(qp_y, qp_x.qp_num, gid, idx_b)
      local f = io.open("/sys/class/infiniband/" .. DEV_B .. "/ports/1/gid_attrs/ndevs/" .. idx_b)
      set("netdev_b", f and f:read("l")); if f then f:close() end
      set("addr_b", K.gid_ipv4(gid_b))
      set("drop_rule", ("pref 5 iif %s to %s blackhole"):format(G"netdev_b", G"addr_b"))
    end,
    task = [[
      cap = verbs.capture{device = dev_b}; post a receive on qp_y (wr_id 200,
      mr_y); os.execute("ip rule add " .. drop_rule); SEND 1000 bytes from
      qp_x (wr_id 6); wcs = cq:wait(1); os.execute("ip rule del " .. drop_rule);
      got = cq_y:wait(1, 500); cap:stop(); print(cap).]],
    hint = [[The rule must be gone before you look at qp_y: got should be empty all the same.]],
    solution = [[
      cap = verbs.capture{device = dev_b}
      qp_y:post_recv{wr_id = 200, sg_list = {{mr = mr_y, offset = 0, length = 4096}}}
      os.execute("ip rule add " .. drop_rule)
      qp_x:post_send{wr_id = 6, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 1000}}}
      wcs = cq:wait(1)
      os.execute("ip rule del " .. drop_rule)
      got = cq_y:wait(1, 500)
      cap:stop()
      print(cap)]],
    retry = "the rule and the capture are one-shot; the loss is judged on the wire, not on a completion",
    check = function(S)
      local cap = G"cap"
      if not K.is(cap, "capture") then return false, "cap is not a capture: cap = verbs.capture{device = dev_b}" end
      local sends = 0
      for _, p in ipairs(cap:packets()) do
        local d = verbs.wire.decode(p.bytes)
        if d and d.bth.transport == "UC" and d.opcode == "SEND_ONLY" and d.bth.destqp == qp_y.qp_num then sends = sends + 1 end
      end
      if sends ~= 1 then return false, ("the capture holds %d UC SEND_ONLY frames to qp_y, not 1"):format(sends) end
      local s = K.find_wc(G"wcs" or {}, { wr_id = 6 })
      if not s or s.status ~= "SUCCESS" then return false, "qp_x's SEND (wr_id 6) did not complete SUCCESS" end
      if type(G"got") ~= "table" or #G"got" ~= 0 then return false, "qp_y got a completion: was the rule added?" end
      return true, "the frame reached dev_b's veth and was dropped there; qp_x SUCCESS, qp_y nothing, no ACK"
    end,
  }
end

return {
  title = "UC: the unreliable connection",
  intro = [[
    Between RC (reliable, connected) and UD (unreliable datagrams) sits UC:
    connected to one peer like RC, unacknowledged like UD. It can SEND and
    RDMA WRITE, not READ or do atomics, and a lost message stays lost: the
    sender is never told. qp_a and qp_b are UC QPs in INIT (qp_access_flags
    REMOTE_WRITE); mr_b allows REMOTE_WRITE.]] .. (WIRE and "" or [[

    With two devices joined by a link (make run TWO=1) and root, a last
    step loses a packet on the wire and shows it in a capture; here the
    loss is shown with a SEND that finds no receive, which UC drops in the
    same silent way.]]),
  setup = function()
    K.base { access_b = { "LOCAL_WRITE", "REMOTE_WRITE" } }
    set("gid", G"ctx":query_gid(K.port, G"gid_index"))
    set("dev_b", DEV_B)
    for _, n in ipairs{ "qp_a", "qp_b" } do
      local q = set(n, uc_qp(G"pd", G"cq"))
      q:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = "REMOTE_WRITE" }
    end
    return K.describe { "ctx", "pd", "cq", "mr_a", "mr_b", "qp_a", "qp_b", "gid_index", "gid" }
  end,
  steps = steps,
}
