-- Lesson 17: on the wire -- the RoCEv2 packets that verbs cause, captured
-- between two rxe devices on a veth pair (make run TWO=1).
local K = require "verbs.lesson_kit"

local function G(name) return rawget(_G, name) end
local function set(name, v) rawset(_G, name, v) return v end

-- The decoded frames of the capture in the global cap.
local function frames()
  local cap = G"cap"
  if not K.is(cap, "capture") then return nil, "cap is not a capture: start one with cap = verbs.capture{device = dev_a}" end
  local out = {}
  for _, p in ipairs(cap:packets()) do
    local d = verbs.wire.decode(p.bytes)
    if d then out[#out + 1] = d end
  end
  if #out == 0 then return nil, "cap holds no RoCEv2 frame: start it before posting, stop it after the completions" end
  return out
end
local function count(list, pred)
  local n = 0
  for _, d in ipairs(list) do if pred(d) then n = n + 1 end end
  return n
end
-- Both devices number their QPs alike (qp_a and qp_b may both be 17), so a
-- frame's direction comes from its source address, dev_a's being addr_a.
local function from_a(d) return d.ip.src == G"addr_a" end
local function to_b(d) return from_a(d) and d.bth.destqp == G"qp_b".qp_num end
local function to_a(d) return not from_a(d) and d.bth.destqp == G"qp_a".qp_num end

-- The other device: the one whose netdev is not dev_a's. An iWARP device
-- (siw beside rxe) speaks TCP, not RoCEv2: not a partner for this lesson.
local function two_devices()
  local list = verbs.devices()
  local a = os.getenv("RXE_DEV") or (list[1] and list[1].name)
  for _, d in ipairs(list) do
    if d.name ~= a and d.transport_type ~= "IWARP" then return a, d.name end
  end
  return a, nil
end

local function side(dev, suffix)
  local ctx = set("ctx_" .. suffix, verbs.open(dev))
  local idx, gid = K.roce_gid(ctx)
  if not idx then error(gid, 0) end
  set("gid_index_" .. suffix, idx)
  local pd = set("pd_" .. suffix, ctx:alloc_pd())
  local cq = set("cq_" .. suffix, ctx:create_cq(64))
  set("mr_" .. suffix, pd:reg_mr(16384, K.all_remote))
  set("qp_" .. suffix, pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,
    cap = { max_send_wr = 32, max_recv_wr = 32, max_send_sge = 1, max_recv_sge = 1 } })
  return gid, idx
end

local function connect(qp, peer_qp, peer_gid, idx, psn, peer_psn)
  qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1,
             qp_access_flags = { "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC" } }
  qp:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = peer_qp.qp_num, rq_psn = peer_psn,
             max_dest_rd_atomic = 1, min_rnr_timer = 1,
             ah_attr = { is_global = 1, port_num = 1, grh = { dgid = peer_gid, sgid_index = idx, hop_limit = 1 } } }
  -- timeout 17: 4.096 us * 2^17, about 0.5 s before a request is sent again
  qp:modify{ qp_state = "RTS", sq_psn = psn, timeout = 17, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1 }
end

local function ud_qp(suffix)
  local qp = G("pd_" .. suffix):create_qp{ qp_type = "UD", send_cq = G("cq_" .. suffix),
    recv_cq = G("cq_" .. suffix), cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }
  qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = 0x11111111 }
  qp:modify{ qp_state = "RTR" }
  qp:modify{ qp_state = "RTS", sq_psn = 0 }
  return set("ud_" .. suffix, qp)
end

local function netdev_of(dev)
  local f = io.open("/sys/class/infiniband/" .. dev .. "/ports/1/gid_attrs/ndevs/" .. G"gid_index_b")
  local n = f and f:read("l")
  if f then f:close() end
  return n
end

return {
  title = "On the wire: the packets behind the verbs",
  transports = { "RoCE" },
  intro = [[
    Everything so far happened inside verbs calls and completions. Between
    them, the two RDMA devices exchanged RoCEv2 packets (UDP port 4791):
    a Base Transport Header (BTH) with an opcode, the destination QP and a
    packet sequence number (PSN), then extension headers. This lesson
    captures them with verbs.capture (libpcap) and print(cap) draws them as
    a ladder, each packet with the work request that caused it.

    Traffic between two QPs of ONE rxe device never reaches a netdev: rxe
    loops it back inside the driver. So the two ends here are on two devices,
    dev_a and dev_b, on the two ends of a veth pair: `make run TWO=1` in a
    checkout, `verbsh-vm --two` when installed, or scripts/rxe-host setup on
    a host. qp_a (on
    dev_a) and qp_b (on dev_b) are connected with path MTU 1024; cq_a and
    cq_b, mr_a and mr_b (16 KiB each, all remote access) go with them.
    Capturing needs root.]],
  setup = function()
    local a, b = two_devices()
    set("dev_a", a)
    set("dev_b", b)
    if not b then return end       -- requires() says why
    local gid_a, idx_a = side(a, "a")
    local gid_b, idx_b = side(b, "b")
    connect(G"qp_a", G"qp_b", gid_b, idx_a, 100, 900)
    connect(G"qp_b", G"qp_a", gid_a, idx_b, 900, 100)
    set("netdev_b", netdev_of(b))
    set("addr_a", K.gid_ipv4(gid_a))
    set("make_ud_pair", function()
      ud_qp("a")
      ud_qp("b")
      return set("ah", G"pd_a":create_ah{ is_global = 1, port_num = 1,
        grh = { dgid = gid_b, sgid_index = idx_a, hop_limit = 1 } })
    end)
    return K.describe { "dev_a", "dev_b", "netdev_b", "addr_a", "ctx_a", "ctx_b", "cq_a", "cq_b", "mr_a", "mr_b", "qp_a", "qp_b" }
  end,
  requires = function()
    if not G"dev_b" then
      local here = G"dev_a" and ("only " .. G"dev_a" .. " is here") or "there is no RDMA device here"
      -- From a checkout `make run TWO=1`; an installed verbsh has verbsh-vm.
      local how = K.installed() and "verbsh-vm --two -- verbsh --lesson on-the-wire"
        or "`make run TWO=1` (or scripts/rxe-vm --two -- ./verbsh --lesson on-the-wire)"
      return "it needs two RDMA devices joined by a link (" .. here .. "): start it with " .. how
    end
    if verbs.sysinfo().euid ~= 0 then return "capturing packets needs root (CAP_NET_RAW)" end
  end,

  steps = {
    {
      title = "A SEND, cut by the path MTU",
      text = [[
        A message longer than the path MTU travels as several packets:
        SEND_FIRST, SEND_MIDDLE..., SEND_LAST, with consecutive PSNs. Only the
        last asks for an acknowledgement (the BTH's A bit), and the responder
        answers one ACKNOWLEDGE whose PSN is the last packet's.]],
      c = [[/* no C: this is what ibv_post_send(qp_a, &wr, &bad) of 5000 bytes puts on the wire */]],
      task = [[
        cap = verbs.capture{device = dev_a}; post a receive of 8192 bytes on qp_b;
        SEND 5000 bytes of mr_a (wr_id 1); wait for both completions; cap:stop(); print(cap)]],
      hint = [[qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5000}}}]],
      solution = [[
        cap = verbs.capture{device = dev_a}
        qp_b:post_recv{wr_id = 100, sg_list = {{mr = mr_b, offset = 8192, length = 8192}}}
        qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5000}}}
        wcs = cq_a:wait(1); cq_b:wait(1)
        cap:stop()
        print(cap)]],
      check = function()
        local l, why = frames()
        if not l then return false, why end
        local ops = {}
        for _, d in ipairs(l) do if to_b(d) and d.opcode:find("^SEND") then ops[#ops + 1] = d.opcode end end
        local want = "SEND_FIRST SEND_MIDDLE SEND_MIDDLE SEND_MIDDLE SEND_LAST"
        if table.concat(ops, " ") ~= want then
          return false, "the SEND frames to qp_b were: " .. (#ops > 0 and table.concat(ops, " ") or "none") .. "; expected " .. want
        end
        if count(l, function(d) return to_a(d) and d.opcode == "ACKNOWLEDGE" and d.aeth.kind == "ACK" end) < 1 then
          return false, "no ACKNOWLEDGE came back"
        end
        return true, "5 frames: " .. want .. ", then an ACK"
      end,
    },
    {
      title = "Every message acknowledged",
      text = [[
        Post four small SENDs at once. Each is one SEND_ONLY packet. RC
        acknowledges them, but how often is the responder's choice: an ACK of
        PSN n acknowledges every packet up to n, and its MSN (message sequence
        number) counts the messages completed so far. A responder may coalesce
        (one ACK for several messages); rxe acknowledges every message that
        asks (measured: 8 SENDs, 8 ACKs, MSN 1 to 8). Look at the msn column.]],
      c = [[struct ibv_send_wr wr[4]; /* wr[i].next = &wr[i + 1] */ ibv_post_send(qp_a, wr, &bad);]],
      task = [[
        A new capture; post 4 receives of 100 bytes on qp_b; post a list of 4 SENDs of 100
        bytes (wr_id 11..14, only the last SIGNALED); wait; stop; print(cap).]],
      hint = [[Build the list in a loop: {wr_id = 10 + i, opcode = "SEND", send_flags = i == 4 and "SIGNALED" or 0, sg_list = {...}}]],
      solution = [[
        cap = verbs.capture{device = dev_a}
        for i = 1, 4 do qp_b:post_recv{wr_id = 200 + i, sg_list = {{mr = mr_b, offset = 8192, length = 100}}} end
        sends = {}
        for i = 1, 4 do sends[i] = {wr_id = 10 + i, opcode = "SEND", send_flags = i == 4 and "SIGNALED" or 0, sg_list = {{mr = mr_a, offset = 0, length = 100}}} end
        qp_a:post_send(sends)
        wcs = cq_a:wait(1); cq_b:wait(4)
        cap:stop()
        print(cap)]],
      check = function()
        local l, why = frames()
        if not l then return false, why end
        local sends = count(l, function(d) return to_b(d) and d.opcode == "SEND_ONLY" end)
        if sends ~= 4 then return false, ("%d SEND_ONLY frames to qp_b; expected 4"):format(sends) end
        local msns = {}
        for _, d in ipairs(l) do if to_a(d) and d.aeth then msns[#msns + 1] = d.aeth.msn end end
        if #msns == 0 then return false, "no ACK came back" end
        for i = 2, #msns do
          if msns[i] < msns[i - 1] then return false, "the MSNs went backwards: " .. table.concat(msns, ",") end
        end
        return true, ("4 SEND_ONLY, %d ACK%s, msn %s"):format(#msns, #msns == 1 and "" or "s", table.concat(msns, ","))
      end,
    },
    {
      title = "WRITE, with and without immediate",
      text = [[
        An RDMA WRITE carries the remote address and rkey in a RETH (RDMA
        extended transport header) on its first packet only; the responder's
        CPU sees nothing. RDMA_WRITE_WITH_IMM adds 4 bytes of immediate data
        (ImmDt) on its last packet, and that one consumes a receive WR at the
        responder and completes there as RECV_RDMA_WITH_IMM.]],
      c = [[wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM; wr.imm_data = htonl(0x1234);]],
      task = [[
        A new capture; one receive on qp_b (length 0 is fine); a WRITE of 1500 bytes
        (wr_id 21) and a WRITE_WITH_IMM of 100 bytes with imm_data 0x1234 (wr_id 22),
        both to mr_b; wait for 2 completions on cq_a and 1 on cq_b; stop; print(cap).]],
      hint = [[rdma = {remote_addr = mr_b.addr, rkey = mr_b.rkey}]],
      solution = [[
        cap = verbs.capture{device = dev_a}
        qp_b:post_recv{wr_id = 300, sg_list = {}}
        qp_a:post_send{wr_id = 21, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 1500}}, rdma = {remote_addr = mr_b.addr, rkey = mr_b.rkey}}
        qp_a:post_send{wr_id = 22, opcode = "RDMA_WRITE_WITH_IMM", send_flags = "SIGNALED", imm_data = 0x1234, sg_list = {{mr = mr_a, offset = 0, length = 100}}, rdma = {remote_addr = mr_b.addr, rkey = mr_b.rkey}}
        wcs = cq_a:wait(2); wcs_b = cq_b:wait(1)
        cap:stop()
        print(cap)]],
      check = function()
        local l, why = frames()
        if not l then return false, why end
        local first = count(l, function(d) return to_b(d) and d.opcode == "RDMA_WRITE_FIRST" and d.reth and d.reth.dma_length == 1500 end)
        local imm = count(l, function(d) return to_b(d) and d.opcode:find("WITH_IMMEDIATE") and d.immdt == 0x1234 end)
        if first ~= 1 then return false, "no RDMA_WRITE_FIRST with a RETH of dma_length 1500 to qp_b" end
        if imm ~= 1 then return false, "no WRITE frame with ImmDt 0x1234 to qp_b" end
        return true, "RDMA_WRITE_FIRST (RETH dma_length 1500), then a WRITE ...WITH_IMMEDIATE carrying ImmDt 0x1234"
      end,
    },
    {
      title = "READ: a request out, the data back",
      text = [[
        An RDMA READ is one small RDMA_READ_REQUEST packet (a RETH: address,
        rkey, length); the DATA comes back from the responder as
        RDMA_READ_RESPONSE packets, which use the PSNs after the request's.
        The responder must keep the request until it has answered it: that is
        the resource max_dest_rd_atomic counts (set at RTR), and why a QP
        connected with 0 refuses every READ (lesson 7).]],
      c = [[wr.opcode = IBV_WR_RDMA_READ; wr.wr.rdma.remote_addr = ...; wr.wr.rdma.rkey = mr_b->rkey;]],
      task = [[A new capture; READ 3000 bytes of mr_b into mr_a (wr_id 31); wait; stop; print(cap).]],
      hint = [[The same rdma = {...} as the WRITE, opcode "RDMA_READ".]],
      solution = [[
        cap = verbs.capture{device = dev_a}
        qp_a:post_send{wr_id = 31, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 3000}}, rdma = {remote_addr = mr_b.addr, rkey = mr_b.rkey}}
        wcs = cq_a:wait(1)
        cap:stop()
        print(cap)]],
      check = function()
        local l, why = frames()
        if not l then return false, why end
        local req = count(l, function(d) return to_b(d) and d.opcode == "RDMA_READ_REQUEST" and d.reth.dma_length == 3000 end)
        local resp = count(l, function(d) return to_a(d) and d.opcode:find("^RDMA_READ_RESPONSE") end)
        if req ~= 1 then return false, "no RDMA_READ_REQUEST of 3000 bytes to qp_b" end
        if resp ~= 3 then return false, ("%d RDMA_READ_RESPONSE frames came back; 3000 bytes at MTU 1024 take 3"):format(resp) end
        return true, "1 RDMA_READ_REQUEST out, 3 RDMA_READ_RESPONSE (FIRST, MIDDLE, LAST) back"
      end,
    },
    {
      title = "An atomic and its AtomicAckETH",
      text = [[
        A FETCH_ADD carries an AtomicETH (address, rkey, the value to add);
        the answer is one ATOMIC_ACKNOWLEDGE whose AtomicAckETH holds the
        ORIGINAL remote value, which the device writes into your 8-byte local
        buffer.]],
      c = [[wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD; wr.wr.atomic.compare_add = 5;]],
      task = [[
        Set mr_b's first 8 bytes to 37 (mr_b:write(0, string.pack("=I8", 37))); a new capture;
        FETCH_ADD 5 at mr_b.addr into mr_a offset 0 (wr_id 41); wait; stop; print(cap).]],
      hint = [[atomic = {remote_addr = mr_b.addr, rkey = mr_b.rkey, compare_add = 5}, and an 8-byte sg_list.]],
      solution = [[
        mr_b:write(0, string.pack("=I8", 37))
        cap = verbs.capture{device = dev_a}
        qp_a:post_send{wr_id = 41, opcode = "ATOMIC_FETCH_AND_ADD", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 8}}, atomic = {remote_addr = mr_b.addr, rkey = mr_b.rkey, compare_add = 5}}
        wcs = cq_a:wait(1)
        cap:stop()
        print(cap)]],
      check = function()
        local l, why = frames()
        if not l then return false, why end
        local fa, ack
        for _, d in ipairs(l) do
          if to_b(d) and d.opcode == "FETCH_ADD" then fa = d end
          if to_a(d) and d.opcode == "ATOMIC_ACKNOWLEDGE" then ack = d end
        end
        if not fa then return false, "no FETCH_ADD frame to qp_b" end
        if fa.atomiceth.swap_or_add ~= 5 then return false, "the FETCH_ADD adds " .. fa.atomiceth.swap_or_add .. ", not 5" end
        if not ack then return false, "no ATOMIC_ACKNOWLEDGE came back" end
        if ack.atomicacketh.orig_rem_dt ~= 37 then
          return false, "the AtomicAckETH holds " .. ack.atomicacketh.orig_rem_dt .. "; the counter was 37"
        end
        return true, "FETCH_ADD (AtomicETH add 5), ATOMIC_ACKNOWLEDGE with orig_rem_dt 37"
      end,
    },
    {
      title = "UD: the Q_Key travels in the DETH",
      text = [[
        A UD packet names no connection: a DETH (datagram extended transport
        header) carries the Q_Key and the SOURCE QP, so the receiver knows who
        sent it, and a receiver whose Q_Key differs drops it silently (lesson
        12). UD is unreliable: no ACK comes back.]],
      c = [[wr.wr.ud.ah = ah; wr.wr.ud.remote_qpn = ...; wr.wr.ud.remote_qkey = 0x11111111;]],
      task = [[
        Make ud_a and ud_b with make_ud_pair() (UD QPs in RTS, Q_Key 0x11111111,
        and ah to ud_b's device); a receive of 1064 bytes on ud_b; a new capture;
        SEND 1000 bytes on ud_a to ud_b (wr_id 51); wait on cq_a and cq_b; stop; print(cap).]],
      hint = [[ud = {ah = ah, remote_qpn = ud_b.qp_num, remote_qkey = 0x11111111}]],
      solution = [[
        make_ud_pair()
        ud_b:post_recv{wr_id = 500, sg_list = {{mr = mr_b, offset = 8192, length = 1064}}}
        cap = verbs.capture{device = dev_a}
        ud_a:post_send{wr_id = 51, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 1000}}, ud = {ah = ah, remote_qpn = ud_b.qp_num, remote_qkey = 0x11111111}}
        wcs = cq_a:wait(1); cq_b:wait(1)
        cap:stop()
        print(cap)]],
      check = function()
        local l, why = frames()
        if not l then return false, why end
        local ud_b, ud_a = G"ud_b", G"ud_a"
        if not (K.is(ud_a, "qp") and K.is(ud_b, "qp")) then return false, "ud_a and ud_b are not QPs: call make_ud_pair()" end
        local d
        for _, x in ipairs(l) do if from_a(x) and x.bth.destqp == ud_b.qp_num and x.deth then d = x end end
        if not d then return false, "no UD frame to ud_b" end
        if d.deth.q_key ~= 0x11111111 then return false, ("the DETH's Q_Key is 0x%x"):format(d.deth.q_key) end
        if d.deth.src_qp ~= ud_a.qp_num then return false, "the DETH's source QP is not ud_a's" end
        if count(l, function(x) return not from_a(x) end) > 0 then return false, "something answered the UD SEND" end
        return true, ("UD SEND_ONLY, DETH Q_Key 0x11111111, source QP %d (ud_a); no ACK"):format(d.deth.src_qp)
      end,
    },
    {
      title = "RNR NAK: no receive posted yet",
      text = [[
        A SEND that finds no receive WR at the responder is not dropped: the
        responder answers RNR NAK (receiver not ready), whose AETH carries a
        timer (qp_b's min_rnr_timer, here 1: 0.01 ms), and the requester
        sends the same PSN again after it; rnr_retry 7 means forever. Post the
        receive meanwhile and the next try gets an ACK.]],
      c = [[/* rnr_retry = 7 at RTS: retry forever; 0..6: that many times, then IBV_WC_RNR_RETRY_EXC_ERR */]],
      task = [[
        A new capture; SEND 64 bytes on qp_a (wr_id 61) with NO receive on qp_b;
        os.execute("sleep 0.05"); then post the receive; wait on cq_a and cq_b; stop; print(cap).]],
      hint = [[The order is the point: post_send first, the receive after a pause.]],
      solution = [[
        cap = verbs.capture{device = dev_a}
        qp_a:post_send{wr_id = 61, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 64}}}
        os.execute("sleep 0.05")
        qp_b:post_recv{wr_id = 600, sg_list = {{mr = mr_b, offset = 8192, length = 64}}}
        wcs = cq_a:wait(1); cq_b:wait(1)
        cap:stop()
        print(cap)]],
      check = function()
        local l, why = frames()
        if not l then return false, why end
        local naks = count(l, function(d) return to_a(d) and d.aeth and d.aeth.kind == "RNR NAK" end)
        local sends = count(l, function(d) return to_b(d) and d.opcode == "SEND_ONLY" end)
        local acks = count(l, function(d) return to_a(d) and d.aeth and d.aeth.kind == "ACK" end)
        if naks < 1 then return false, "no RNR NAK: was a receive already posted on qp_b?" end
        if sends < 2 then return false, "the SEND was not sent again" end
        if acks < 1 then return false, "no ACK at the end: post the receive on qp_b" end
        return true, ("%d RNR NAK%s, the SEND sent %d times with the same PSN, then an ACK"):format(naks, naks == 1 and "" or "s", sends)
      end,
    },
    {
      title = "A lost packet: the requester sends again",
      text = [[
        Make the responder's ACKs vanish: `tc qdisc add dev netdev_b root netem
        loss 100%` drops everything dev_b sends. The SEND arrives, qp_b takes
        it, but its ACK is lost; after qp_a's timeout (timeout 17, about 0.5
        s) qp_a sends the same PSN again. qp_b sees a duplicate PSN: it does
        not deliver the message twice, it only ACKs again, and this time the
        ACK gets through. qp_b has ONE completion. A lost request (rather than
        an ACK) is repaired the same way, or sooner by a NAK "PSN sequence
        error" when later packets arrive first.]],
      c = [[/* retry_cnt = 7 at RTS: how many times a request is sent again before IBV_WC_RETRY_EXC_ERR */]],
      task = [[
        A new capture; a receive on qp_b; os.execute("tc qdisc add dev " .. netdev_b .. " root netem loss 100%");
        SEND 100 bytes (wr_id 71); os.execute("sleep 0.1"); os.execute("tc qdisc del dev " .. netdev_b .. " root");
        wait on cq_a; wcs_b = cq_b:wait(2, 300) (one should come); stop; print(cap).]],
      hint = [[Delete the qdisc before qp_a has used up its 7 retries (7 x 0.5 s).]],
      solution = [[
        cap = verbs.capture{device = dev_a}
        qp_b:post_recv{wr_id = 700, sg_list = {{mr = mr_b, offset = 8192, length = 100}}}
        os.execute("tc qdisc add dev " .. netdev_b .. " root netem loss 100%")
        qp_a:post_send{wr_id = 71, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 100}}}
        os.execute("sleep 0.1")
        os.execute("tc qdisc del dev " .. netdev_b .. " root")
        wcs = cq_a:wait(1)
        wcs_b = cq_b:wait(2, 300)
        cap:stop()
        print(cap)]],
      check = function()
        local l, why = frames()
        if not l then return false, why end
        local psns = {}
        for _, d in ipairs(l) do
          if to_b(d) and d.opcode == "SEND_ONLY" then psns[d.bth.psn] = (psns[d.bth.psn] or 0) + 1 end
        end
        local again
        for psn, n in pairs(psns) do if n >= 2 then again = psn end end
        if not again then
          return false, "the SEND was sent once: did the netem qdisc drop the ACK? (tc qdisc needs the sch_netem module)"
        end
        local b = G"wcs_b"
        if type(b) ~= "table" or #b ~= 1 then
          return false, "qp_b should have exactly one completion (wcs_b = cq_b:wait(2, 300))"
        end
        return true, ("the SEND's PSN %d went out %d times; qp_b completed it once"):format(again, psns[again])
      end,
    },
  },
}
