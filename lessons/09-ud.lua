-- Lesson 9: UD -- address handles, Q_Keys, the GRH, the MTU limit.
local K = require "verbs.lesson_kit"

local function both_rts()
  if not (K.is(qp_a, "qp") and K.is(qp_b, "qp")) then return false, "qp_a and qp_b must be QPs" end
  if qp_a.qp_type ~= "UD" or qp_b.qp_type ~= "UD" then return false, "qp_a and qp_b must be UD QPs" end
  if qp_a.state ~= "RTS" or qp_b.state ~= "RTS" then
    return false, ("qp_a is %s, qp_b is %s; both should be RTS"):format(qp_a.state, qp_b.state)
  end
  return true
end

return {
  title = "UD: datagrams, address handles and the GRH",
  transports = { "RoCE" },
  intro = [[
    Unreliable Datagram QPs are not connected: one UD QP can send to any UD QP
    anywhere, naming the destination in each WR. There are no ACKs and no
    retries, every message fits in one packet, and only SEND (with or without
    immediate) exists.]],
  setup = function()
    K.base()
    return K.describe { "ctx", "pd", "cq", "mr_a", "mr_b", "gid_index" }
  end,

  steps = {
    {
      title = "Two UD QPs, three transitions",
      text = [[
        A UD QP's state machine is short: INIT needs pkey_index, port_num and a
        Q_Key (qkey, instead of access flags: no RDMA on UD). RTR needs nothing
        else (there is no fixed peer), RTS only sq_psn. The Q_Key is a 32-bit
        password: a receiving QP accepts only datagrams that carry its Q_Key.]],
      c = [[
        init.qp_type = IBV_QPT_UD; qp = ibv_create_qp(pd, &init);
        attr = (struct ibv_qp_attr){ .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1, .qkey = 0x11111111 };
        ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
        attr.qp_state = IBV_QPS_RTR; ibv_modify_qp(qp, &attr, IBV_QP_STATE);
        attr.qp_state = IBV_QPS_RTS; attr.sq_psn = 0; ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN);]],
      task = [[
        Create UD QPs qp_a and qp_b (cap: 32 WRs, 1 SGE each way) and bring both to
        RTS with qkey = 0x11111111.]],
      hint = [[
        qp_a = pd:create_qp{qp_type = "UD", send_cq = cq, recv_cq = cq, cap = {max_send_wr = 32, max_recv_wr = 32, max_send_sge = 1, max_recv_sge = 1}}
        qp_a:modify{qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = 0x11111111}
        qp_a:modify{qp_state = "RTR"}
        qp_a:modify{qp_state = "RTS", sq_psn = 0}]],
      solution = [[
        qp_a = pd:create_qp{qp_type = "UD", send_cq = cq, recv_cq = cq, cap = {max_send_wr = 32, max_recv_wr = 32, max_send_sge = 1, max_recv_sge = 1}}
        qp_b = pd:create_qp{qp_type = "UD", send_cq = cq, recv_cq = cq, cap = {max_send_wr = 32, max_recv_wr = 32, max_send_sge = 1, max_recv_sge = 1}}
        for _, q in ipairs{qp_a, qp_b} do q:modify{qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = 0x11111111}; q:modify{qp_state = "RTR"}; q:modify{qp_state = "RTS", sq_psn = 0} end
        qp_a, qp_b]],
      check = function()
        local ok, why = both_rts()
        if not ok then return false, why end
        local q = qp_b:query().qkey
        if q ~= 0x11111111 then return false, ("qp_b's qkey is %s"):format(tostring(q)) end
        return true, ("both UD in RTS, qkey 0x%x"):format(q)
      end,
    },
    {
      title = "An address handle",
      text = [[
        What an RC QP learned at RTR (ah_attr), a UD sender puts in an address
        handle, created once per destination and named in each WR. On RoCE it
        has a GRH: the destination GID (here our own: both QPs are on this
        device) and our source GID index.]],
      c = [[
        struct ibv_ah_attr ah_attr = { .is_global = 1, .port_num = 1,
          .grh = { .dgid = gid, .sgid_index = gid_index, .hop_limit = 1 } };
        struct ibv_ah *ah = ibv_create_ah(pd, &ah_attr);]],
      task = [[Create an address handle `ah` to this port's RoCE v2 GID.]],
      hint = [[ah = pd:create_ah{is_global = 1, port_num = 1, grh = {dgid = ctx:query_gid(1, gid_index), sgid_index = gid_index, hop_limit = 1}}]],
      solution = [[ah = pd:create_ah{is_global = 1, port_num = 1, grh = {dgid = ctx:query_gid(1, gid_index), sgid_index = gid_index, hop_limit = 1}}]],
      check = function()
        return K.check(K.is(ah, "ah"), "ah is not an address handle yet", tostring(ah))
      end,
    },
    {
      title = "A datagram, and the 40-byte GRH",
      text = [[
        A UD send names ah, remote_qpn and remote_qkey. On the receiver, the
        first 40 bytes of every receive buffer are reserved for the Global
        Route Header and the payload starts at offset 40, so byte_len is the
        payload + 40, wc_flags has GRH, and src_qp tells who sent it (there
        is no connection to tell you). Size UD receive buffers payload + 40.]],
      c = [[
        swr.wr.ud.ah = ah; swr.wr.ud.remote_qpn = qp_b->qp_num; swr.wr.ud.remote_qkey = 0x11111111;
        /* receiver: data at buf + 40, wc.byte_len = 40 + len, wc.src_qp */]],
      task = [[
        Post a receive of 40 + 64 bytes on qp_b (wr_id 100), send "datagram!" (9
        bytes) from qp_a (wr_id 1) to qp_b; wcs = cq:wait(2); read mr_b at offset 40.]],
      hint = [[qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 9}}, ud = {ah = ah, remote_qpn = qp_b.qp_num, remote_qkey = 0x11111111}}]],
      solution = [[
        mr_a:write(0, "datagram!")
        qp_b:post_recv{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 40 + 64}}}
        qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 9}}, ud = {ah = ah, remote_qpn = qp_b.qp_num, remote_qkey = 0x11111111}}
        wcs = cq:wait(2)
        mr_b:read(40, 9)]],
      check = function(S)
        local l = K.step_wcs(S, cq, 2)
        local r = K.find_wc(l, { wr_id = 100, qp_num = qp_b.qp_num })
        local s = K.find_wc(l, { wr_id = 1, qp_num = qp_a.qp_num })
        if not (r and s) then return false, "no completions for wr_id 100 (qp_b) and 1 (qp_a) yet" end
        if r.status ~= "SUCCESS" or s.status ~= "SUCCESS" then return false, "a completion failed" end
        if r.byte_len ~= 49 then return false, "the RECV's byte_len is " .. tostring(r.byte_len) .. ", not 40 + 9" end
        if r.src_qp ~= qp_a.qp_num then return false, "src_qp is not qp_a's number" end
        if mr_b:read(40, 9) ~= "datagram!" then return false, "mr_b+40 does not hold \"datagram!\"" end
        return true, ("RECV byte_len=%d src_qp=0x%x wc_flags={%s}; SEND byte_len=%s; payload at offset 40"):format(
          r.byte_len, r.src_qp, table.concat(r.wc_flags or {}, ","), tostring(s.byte_len))
      end,
    },
    {
      title = "Inside the GRH",
      text = [[
        With RoCE v2 over IPv4 there is no real GRH on the wire but a UDP/IPv4
        header; the device puts the IPv4 header in the LAST 20 of the 40 bytes
        (offset 20; bytes 0-19 are undefined). Byte 20 is 0x45 (IPv4, 5-word
        header); the source address is at offset 20 + 12 = 32.]],
      c = [[struct iphdr *ip = (struct iphdr *)(buf + 20); /* ip->saddr */]],
      task = [[
        Decode the sender's IPv4 address from mr_b bytes 32..35 into the global
        src_ip ("a.b.c.d"); compare it with your GID.]],
      hint = [[src_ip = table.concat({mr_b:read(32, 4):byte(1, 4)}, ".")]],
      solution = [[
        ("%02x"):format(mr_b:read(20, 1):byte())
        src_ip = table.concat({mr_b:read(32, 4):byte(1, 4)}, ".")
        ctx:query_gid(1, gid_index)]],
      check = function()
        local want = K.gid_ipv4(ctx:query_gid(1, gid_index))
        if mr_b:read(20, 1) ~= "\x45" then return false, "mr_b[20] is not 0x45: no IPv4 header there" end
        if src_ip ~= want then return false, ("src_ip is %s; the sender's address is elsewhere"):format(tostring(src_ip)) end
        return true, ("mr_b[20] = 0x45, source address %s = the GID's IPv4"):format(want)
      end,
    },
    {
      title = "One packet: the MTU limit",
      text = [[
        A UD message is one packet, so it must fit the port's active MTU (1024
        bytes here), GRH not included. A larger one is not an error you see:
        the send completes with SUCCESS and nothing is sent (the spec says the
        device "shall not emit any packets" and "shall not generate an error").
        Check your message sizes against active_mtu yourself.]],
      c = [[if (len > 1024 /* port.active_mtu */) ... /* ibv_post_send() would still "succeed" */]],
      task = [[
        Post two receives of 40 + 2048 bytes on qp_b (wr_id 101, 102), then send
        exactly active_mtu bytes (wr_id 2), then active_mtu + 1 bytes (wr_id 3);
        wcs = cq:wait(4, 500). Only the first arrives.]],
      hint = [[
        mtu = tonumber(ctx:query_port(1).active_mtu)
        qp_a:post_send{wr_id = 2, ..., sg_list = {{mr = mr_a, offset = 0, length = mtu}}, ud = {...}}]],
      solution = [[
        mtu = tonumber(ctx:query_port(1).active_mtu)
        qp_b:post_recv{{wr_id = 101, sg_list = {{mr = mr_b, offset = 0, length = 40 + 2048}}}, {wr_id = 102, sg_list = {{mr = mr_b, offset = 0, length = 40 + 2048}}}}
        qp_a:post_send{wr_id = 2, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = mtu}}, ud = {ah = ah, remote_qpn = qp_b.qp_num, remote_qkey = 0x11111111}}
        qp_a:post_send{wr_id = 3, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = mtu + 1}}, ud = {ah = ah, remote_qpn = qp_b.qp_num, remote_qkey = 0x11111111}}
        wcs = cq:wait(4, 500)]],
      check = function(S)
        local mtu = tonumber(ctx:query_port(1).active_mtu)
        local l = K.step_wcs(S, cq, 4, 500)
        local s2, s3 = K.find_wc(l, { wr_id = 2 }), K.find_wc(l, { wr_id = 3 })
        if not (s2 and s3) then return false, "no completions for the sends wr_id 2 and 3 yet" end
        if s2.status ~= "SUCCESS" or s3.status ~= "SUCCESS" then return false, "a send did not succeed" end
        local recvs = {}
        for _, w in ipairs(l) do if w.qp_num == qp_b.qp_num then recvs[#recvs + 1] = w end end
        if #recvs ~= 1 or recvs[1].byte_len ~= mtu + 40 then
          return false, ("qp_b should get exactly one receive of %d bytes; it got %d"):format(mtu + 40, #recvs)
        end
        return true, ("send of %d: SUCCESS, received byte_len %d; send of %d: SUCCESS, nothing received"):format(
          mtu, recvs[1].byte_len, mtu + 1)
      end,
    },
  },
}
