-- Lesson 20: multicast -- one sender, two receivers, one datagram.
local K = require "verbs.lesson_kit"

local function G(name) return rawget(_G, name) end
local GROUP = "239.1.2.3"

local function ud_state(name)
  local q = G(name)
  if not K.is(q, "qp") then return nil, name .. " should be a QP" end
  if q.qp_type ~= "UD" then return nil, name .. " is " .. q.qp_type .. ": only a UD QP joins a group" end
  return q.state
end

-- The RECV of qp on the list, and what its 12 bytes at offset 40 of mr say.
local function recv_of(list, qp, mr, off)
  local r = K.find_wc(list, { opcode = "RECV", qp_num = qp.qp_num })
  if not r then return nil end
  if r.status ~= "SUCCESS" then return r, nil end
  return r, mr:read(off + 40, r.byte_len - 40)
end

return {
  title = "Multicast: one sender, two receivers",
  intro = [[
    A UD datagram sent to a multicast group reaches every QP attached to the
    group: one post_send, many receivers. The group is an address (on RoCE an
    IPv4 multicast address such as 239.1.2.3, whose GID is ::ffff:239.1.2.3),
    and the datagram goes to QPN 0xffffff, the "any QP of the group" number.

    rdma_cm joins a group for you: it makes the host join it at the IP level
    (rxe drops a group's frames on a netdev that has not joined), attaches the
    id's QP, and hands you the group's address handle attributes and Q_Key in
    the MULTICAST_JOIN event. ibv_attach_mcast is the verbs-level attach
    underneath. The lesson gave you a UD id already resolved toward the group
    (id, on channel ch), and pd, cq, mr_a, mr_b, mr_s on the id's device.]],
  setup = function()
    K.open()
    local addr = K.gid_ipv4(K.gid)
    if not addr then error("no IPv4 address on this device's RoCE GID " .. tostring(K.gid), 0) end
    local ch = verbs.create_event_channel()
    local id = ch:create_id("UDP")
    id:bind_addr(addr .. ":0")
    id:resolve_addr(addr, GROUP .. ":0")
    local ev = ch:get_cm_event(5000)
    if not ev or ev.event ~= "ADDR_RESOLVED" then error("resolving the group failed: " .. tostring(ev), 0) end
    ev:ack()
    local ctx = id.verbs   -- librdmacm's context: the PD and CQ must come from it
    for name, v in pairs { ch = ch, id = id, group = GROUP, pd = ctx:alloc_pd() } do rawset(_G, name, v) end
    rawset(_G, "cq", ctx:create_cq(64))
    for _, m in ipairs { "mr_a", "mr_b", "mr_s" } do rawset(_G, m, G"pd":reg_mr(4096, "LOCAL_WRITE")) end
    return K.describe { "ch", "id", "group", "pd", "cq", "mr_a", "mr_b", "mr_s" }
  end,

  steps = {
    {
      title = "Receiver A joins through rdma_cm",
      text = [[
        Give the id a UD QP, then join: rdma_join_multicast. When the join is
        done, MULTICAST_JOIN arrives; its ud params are the group's: ah_attr
        (is_global, grh.dgid = the group's GID), qp_num 0xffffff and the Q_Key
        every member uses. librdmacm attached qp_a to the group as it handed
        you the event.]],
      c = [[
        rdma_create_qp(id, pd, &init_attr);   /* qp_type IBV_QPT_UD */
        rdma_join_multicast(id, (struct sockaddr *)&group, NULL);
        rdma_get_cm_event(ch, &ev);   /* RDMA_CM_EVENT_MULTICAST_JOIN: ev->param.ud */]],
      task = [[
        qp_a = id:create_qp(pd, { qp_type = "UD", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 4,
        max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }); id:join_multicast(group);
        ev = ch:get_cm_event(5000), and look at ev.param.ud.]],
      hint = [[id:join_multicast(group); ev = ch:get_cm_event(5000)]],
      solution = [[
        qp_a = id:create_qp(pd, { qp_type = "UD", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } })
        id:join_multicast(group)
        ev = ch:get_cm_event(5000)
        ev.param.ud]],
      check = function()
        local st, why = ud_state("qp_a")
        if not st then return false, why end
        if not rawequal(G"id".qp, G"qp_a") then return false, "qp_a should be id:create_qp(...): the id's own QP" end
        local ev = G"ev"
        if not K.is(ev, "cm_event") then return false, "ev should hold ch:get_cm_event(5000)" end
        local ok, name = pcall(function() return ev.event end)
        if not ok then return false, "ev is acked already: read ev.param before ev:ack()" end
        if name ~= "MULTICAST_JOIN" then return false, ("ev is %s, not MULTICAST_JOIN:\n%s"):format(name, verbs.explain(ev)) end
        local ud = ev.param.ud
        return true, ("joined: dgid %s, qp_num 0x%x, qkey 0x%x"):format(ud.ah_attr.grh.dgid, ud.qp_num, ud.qkey)
      end,
    },
    {
      title = "Receiver B attaches at the verbs level",
      text = [[
        Any UD QP of the device can be attached to the group with
        ibv_attach_mcast(qp, gid, lid): lid is 0 on RoCE. It must accept the
        group's Q_Key: set qkey at INIT to the one the event gave. (The host
        joined the group at the IP level when A joined; with plain verbs you
        would need that join yourself.)]],
      c = [[
        attr.qkey = ev->param.ud.qkey;   /* INIT, then RTR */
        ibv_attach_mcast(qp_b, &ev->param.ud.ah_attr.grh.dgid, 0);]],
      task = [[
        ud = ev.param.ud; ev:ack(); qp_b = pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq,
        cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } };
        qp_b:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = ud.qkey };
        qp_b:modify{ qp_state = "RTR" }; qp_b:attach_mcast(ud.ah_attr.grh.dgid, 0)]],
      hint = [[qp_b:attach_mcast(ud.ah_attr.grh.dgid, 0)]],
      solution = [[
        ud = ev.param.ud
        ev:ack()
        qp_b = pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }
        qp_b:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = ud.qkey }
        qp_b:modify{ qp_state = "RTR" }
        qp_b:attach_mcast(ud.ah_attr.grh.dgid, 0)]],
      check = function()
        local st, why = ud_state("qp_b")
        if not st then return false, why end
        if st ~= "RTR" and st ~= "RTS" then return false, "qp_b is " .. st .. ": a receiver needs RTR" end
        if type(G"ud") ~= "table" then return false, "ud should be ev.param.ud (read it before ev:ack())" end
        local q = G"qp_b":query().qkey
        if q ~= G"ud".qkey then return false, ("qp_b's qkey is 0x%x, the group's 0x%x"):format(q, G"ud".qkey) end
        -- attached: the second attach of the same group would be a no-op; detach + attach tells
        local ok = pcall(G"qp_b".detach_mcast, G"qp_b", G"ud".ah_attr.grh.dgid, 0)
        if not ok then return false, "qp_b is not attached to the group yet: qp_b:attach_mcast(ud.ah_attr.grh.dgid, 0)" end
        G"qp_b":attach_mcast(G"ud".ah_attr.grh.dgid, 0)
        return true, ("qp_b (%s) attached to %s, qkey 0x%x"):format(st, G"ud".ah_attr.grh.dgid, q)
      end,
    },
    {
      title = "One send, two receives",
      text = [[
        The sender needs no membership: a UD QP in RTS, an AH made from the
        group's ah_attr, and the WR's ud = { ah, remote_qpn = 0xffffff,
        remote_qkey }. Both receivers get the datagram, each with its GRH in
        the first 40 bytes of its buffer.]],
      c = [[
        ah = ibv_create_ah(pd, &ev->param.ud.ah_attr);
        wr.wr.ud = (struct ibv_send_wr){ ... }.wr.ud;   /* .ah = ah, .remote_qpn = 0xffffff, .remote_qkey */
        ibv_post_send(qp_s, &wr, &bad);]],
      task = [[
        qp_s = a UD QP in RTS with qkey = ud.qkey; ah = pd:create_ah(ud.ah_attr); post a receive of 1024
        bytes on qp_a (mr_a) and qp_b (mr_b); mr_s:write(0, "hello, group"); send its 12 bytes
        (SIGNALED) to the group; wcs = cq:wait(3).]],
      hint = [[qp_s:post_send{ wr_id = 3, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{ mr = mr_s, offset = 0, length = 12 }}, ud = { ah = ah, remote_qpn = 0xffffff, remote_qkey = ud.qkey } }]],
      solution = [[
        if not qp_s then qp_s = lesson.kit.ud_ready(pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }, ud.qkey) end
        ah = ah or pd:create_ah(ud.ah_attr)
        qp_a:post_recv{ wr_id = 1, sg_list = {{ mr = mr_a, offset = 0, length = 1024 }} }
        qp_b:post_recv{ wr_id = 2, sg_list = {{ mr = mr_b, offset = 0, length = 1024 }} }
        mr_s:write(0, "hello, group")
        qp_s:post_send{ wr_id = 3, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{ mr = mr_s, offset = 0, length = 12 }}, ud = { ah = ah, remote_qpn = 0xffffff, remote_qkey = ud.qkey } }
        wcs = cq:wait(3)]],
      check = function(S)
        local l = K.step_wcs(S, G"cq", 3)
        local a, ta = recv_of(l, G"qp_a", G"mr_a", 0)
        local b, tb = recv_of(l, G"qp_b", G"mr_b", 0)
        if not a or not b then
          return false, ("%s: post a receive on both, and send to the group (remote_qpn = 0xffffff)"):format(
            not a and not b and "no receiver got the datagram yet" or (not a and "qp_a" or "qp_b") .. " got nothing yet")
        end
        for _, r in ipairs { a, b } do
          if r.status ~= "SUCCESS" then return false, ("a receive completed %s: %s"):format(r.status, verbs.explain(r)) end
        end
        if ta ~= "hello, group" or tb ~= "hello, group" then
          return false, ("qp_a got %q and qp_b got %q: send mr_s's 12 bytes \"hello, group\""):format(ta, tb)
        end
        return true, ('both got "hello, group" from QPN 0x%06x: one send, two receives'):format(a.src_qp)
      end,
    },
    {
      title = "Leave the group",
      text = [[
        rdma_leave_multicast detaches the id's QP and makes the host leave the
        group; ibv_detach_mcast detaches qp_b. A datagram to the group then
        still completes SUCCESS at the sender -- UD has no acknowledgements --
        and no receiver sees it. (A QP still attached cannot be destroyed:
        ibv_destroy_qp says EBUSY, and verbsh says which group to leave.)]],
      c = [[
        ibv_detach_mcast(qp_b, &ev->param.ud.ah_attr.grh.dgid, 0);
        rdma_leave_multicast(id, (struct sockaddr *)&group);]],
      task = [[
        qp_b:detach_mcast(ud.ah_attr.grh.dgid, 0); id:leave_multicast(group); then post a receive on both,
        send to the group again (wr_id 4, SIGNALED) and wcs = cq:wait(1).]],
      hint = [[qp_b:detach_mcast(ud.ah_attr.grh.dgid, 0); id:leave_multicast(group)]],
      retry = "the receives it posts stay posted (nothing arrives), and a second leave fails: left already",
      solution = [[
        qp_b:detach_mcast(ud.ah_attr.grh.dgid, 0)
        id:leave_multicast(group)
        qp_a:post_recv{ wr_id = 11, sg_list = {{ mr = mr_a, offset = 0, length = 1024 }} }
        qp_b:post_recv{ wr_id = 12, sg_list = {{ mr = mr_b, offset = 0, length = 1024 }} }
        qp_s:post_send{ wr_id = 4, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{ mr = mr_s, offset = 0, length = 12 }}, ud = { ah = ah, remote_qpn = 0xffffff, remote_qkey = ud.qkey } }
        wcs = cq:wait(1)]],
      check = function(S)
        local l = K.step_wcs(S, G"cq", 2, 500)
        local s = K.find_wc(l, { wr_id = 4 })
        if not s then return false, "send to the group again (wr_id 4, SIGNALED) after leaving" end
        if s.status ~= "SUCCESS" then return false, "the send completed " .. s.status end
        local r = K.find_wc(l, { opcode = "RECV" })
        if r then
          return false, ("qp 0x%06x still received it: detach qp_b and leave with id:leave_multicast(group)"):format(r.qp_num)
        end
        return true, "the send completed SUCCESS and nobody received it: the group has no member here now"
      end,
    },
  },
}
