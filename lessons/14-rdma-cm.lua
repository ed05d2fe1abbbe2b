-- Lesson 14: rdma_cm -- connect by address and events, not by exchanged numbers.
local K = require "verbs.lesson_kit"

local function G(name) return rawget(_G, name) end

-- ev.event, or nil and a message when ev is not a live event.
local function event_name(v)
  if not K.is(v, "cm_event") then return nil, "ev should hold what ch:get_cm_event(5000) returned" end
  local ok, name = pcall(function() return v.event end)
  if not ok then return nil, "ev is acked already: read ev.event before ev:ack() (ack frees the event)" end
  return name
end

-- Who the partner is when it runs elsewhere (nil: the lesson started it).
local remote

local function expect_event(want)
  local name, why = event_name(G"ev")
  if not name then return false, why end
  -- Reject reason 8 (no one listens on that port): a partner in another
  -- seat may simply not have started yet.
  if name == "REJECTED" and G"ev".status == 8 and remote then
    return false, ("waiting for your partner (%s) to start cm_partner (rejected: no one listens at %s:%s " ..
      "yet); when they have, restart(\"lesson\") connects again"):format(remote, G"partner_addr", G"partner_port"), "partner"
  end
  if name ~= want then return false, ("ev is %s, not %s yet:\n%s"):format(name, want, verbs.explain(G"ev")) end
  return true, want
end

return {
  title = "rdma_cm: connect by address, with events",
  transports = { "RoCE" },
  intro = [[
    In the pair lab you swapped QP numbers, PSNs and GIDs yourself and moved
    the QP through INIT, RTR and RTS by hand. librdmacm (rdma_cm) does all of
    that from an IP address and a port, the way sockets do, and tells you how
    far it got with events on an event channel.

    Your partner is a second verbsh running examples/cm_partner.lua, which the
    lesson started for you; it listens at partner_addr:partner_port. For a lab
    on two hosts your partner runs `verbsh examples/cm_partner.lua` on theirs,
    and you start the lesson with CM_PEER=THEIR_IP:7471 in the environment.]],
  setup = function()
    K.open()
    remote = nil
    local host, port, who, short = K.remote_partner("CM_PEER", 7471)
    if host then
      rawset(_G, "partner_addr", host)
      rawset(_G, "partner_port", port)
      remote = short
      io.write("\nYour partner: ", who, ". They run:\n    verbsh examples/cm_partner.lua --port ", port,
               "\n(or make run ... ROLE=partner in their seat)\n")
    else
      local addr = K.gid_ipv4(K.gid)
      if not addr then error("no IPv4 address on this device's RoCE GID " .. tostring(K.gid), 0) end
      local dir = require("verbs.lesson").dir()
      local p = K.spawn(dir .. "/../examples/cm_partner.lua", { "--port", 0 })
      local port, out = p:wait_for("listening on rdma_cm port (%d+)", 60)
      if not port then error("the partner did not start:\n" .. tostring(out), 0) end
      rawset(_G, "partner_addr", addr)
      rawset(_G, "partner_port", math.tointeger(tonumber(port)))
    end
    return K.describe { "partner_addr", "partner_port" }
  end,

  steps = {
    {
      title = "An event channel and an id",
      text = [[
        Every rdma_cm call that talks to the network returns at once; its
        outcome arrives later as an event on an event channel (a file
        descriptor, ch.fd, that you may poll with others). The rdma_cm_id is
        the socket of rdma_cm: "TCP" (RDMA_PS_TCP) gives reliable connections
        with an RC QP, "UDP" datagrams with a UD QP.]],
      c = [[
        struct rdma_event_channel *ch = rdma_create_event_channel();
        struct rdma_cm_id *id;
        rdma_create_id(ch, &id, NULL, RDMA_PS_TCP);]],
      task = [[ch = verbs.create_event_channel(), then id = ch:create_id("TCP").]],
      hint = [[id = ch:create_id("TCP")]],
      solution = [[
        ch = verbs.create_event_channel()
        id = ch:create_id("TCP")]],
      check = function()
        if not K.is(G"ch", "cm_channel") then return false, "ch should be verbs.create_event_channel()" end
        if not K.is(G"id", "cm_id") then return false, "id should be ch:create_id(\"TCP\")" end
        if G"id".ps ~= "TCP" then return false, "id is " .. G"id".ps .. ": this lesson uses a TCP id (RC)" end
        return true, tostring(G"id")
      end,
    },
    {
      title = "Resolve the address",
      text = [[
        rdma_resolve_addr finds which local RDMA device reaches the
        destination (through the IP routing table and ARP) and binds the id to
        it: id.verbs becomes that device's context. Then ADDR_RESOLVED
        arrives; ADDR_ERROR instead says why not (try 127.0.0.1 afterwards:
        lo has no RDMA device).]],
      c = [[
        rdma_resolve_addr(id, NULL, (struct sockaddr *)&dst, 2000);
        rdma_get_cm_event(ch, &ev);   /* ev->event == RDMA_CM_EVENT_ADDR_RESOLVED */]],
      task = [[
        id:resolve_addr(nil, partner_addr .. ":" .. partner_port), then
        ev = ch:get_cm_event(5000) and look at ev.event and id.verbs.]],
      hint = [[id:resolve_addr(nil, partner_addr .. ":" .. partner_port); ev = ch:get_cm_event(5000)]],
      solution = [[
        id:resolve_addr(nil, partner_addr .. ":" .. partner_port)
        ev = ch:get_cm_event(5000)
        ev.event, id.verbs]],
      check = function()
        local ok, why = expect_event("ADDR_RESOLVED")
        if not ok then return false, why end
        if not G"id".verbs then return false, "id.verbs is not set: the address did not resolve" end
        return true, ("bound to %s; peer %s"):format(G"id".verbs.name, G"id":get_peer_addr())
      end,
    },
    {
      title = "Ack, and resolve the route",
      text = [[
        Every event must be acked (rdma_ack_cm_event frees it): an id cannot
        be destroyed while one of its events is not, and verbsh says so. Then
        rdma_resolve_route finds the path (on RoCE: the GIDs and the next hop's
        MAC address); ROUTE_RESOLVED follows.]],
      c = [[
        rdma_ack_cm_event(ev);
        rdma_resolve_route(id, 2000);
        rdma_get_cm_event(ch, &ev);   /* RDMA_CM_EVENT_ROUTE_RESOLVED */]],
      task = [[ev:ack(); id:resolve_route(); ev = ch:get_cm_event(5000)]],
      hint = [[ev:ack(); id:resolve_route(); ev = ch:get_cm_event(5000)]],
      solution = [[
        ev:ack()
        id:resolve_route()
        ev = ch:get_cm_event(5000)
        ev.event]],
      check = function() return expect_event("ROUTE_RESOLVED") end,
    },
    {
      title = "A QP on the CM's device",
      text = [[
        librdmacm opened its own context for the device: id.verbs. The PD and
        CQs must come from it (a PD from verbs.open() is another context, and
        rdma_create_qp says EINVAL). rdma_create_qp makes the QP and moves it
        to INIT at once; RTR and RTS will follow during the connection.]],
      c = [[
        struct ibv_pd *pd = ibv_alloc_pd(id->verbs);
        struct ibv_cq *cq = ibv_create_cq(id->verbs, 16, NULL, NULL, 0);
        rdma_create_qp(id, pd, &init_attr);   /* id->qp */]],
      task = [[
        ev:ack(); pd = id.verbs:alloc_pd(); cq = id.verbs:create_cq(16);
        mr = pd:reg_mr(4096, "LOCAL_WRITE"); qp = id:create_qp(pd, { qp_type = "RC",
        send_cq = cq, recv_cq = cq, cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } })
        and look at qp.state.]],
      hint = [[qp = id:create_qp(pd, { qp_type = "RC", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } })]],
      solution = [[
        ev:ack()
        pd = id.verbs:alloc_pd()
        cq = id.verbs:create_cq(16)
        mr = pd:reg_mr(4096, "LOCAL_WRITE")
        qp = id:create_qp(pd, { qp_type = "RC", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } })
        qp.state]],
      check = function()
        local qp = G"qp"
        if not K.is(qp, "qp") then return false, "qp should be id:create_qp(pd, {...})" end
        if not rawequal(G"id".qp, qp) then return false, "qp is not id.qp: make it with id:create_qp, not pd:create_qp" end
        if not K.is(G"mr", "mr") then return false, "mr should be pd:reg_mr(4096, \"LOCAL_WRITE\")" end
        return true, ("%s, made by rdma_create_qp"):format(tostring(qp))
      end,
    },
    {
      title = "Connect",
      text = [[
        rdma_connect sends a connection request carrying your QP number and up
        to 56 bytes of private data. When the partner accepts, librdmacm moves
        your QP to RTR and RTS, and ESTABLISHED arrives with the partner's
        private data: the whole 196-byte field of the reply, zero padded
        (private_data_len says 196, whatever the partner passed). Post your
        receive first: the partner may send as soon as it is connected.]],
      c = [[
        struct rdma_conn_param p = { .private_data = "hello", .private_data_len = 5,
            .responder_resources = 1, .initiator_depth = 1, .retry_count = 7, .rnr_retry_count = 7 };
        rdma_connect(id, &p);   /* then RDMA_CM_EVENT_ESTABLISHED */]],
      task = [[
        qp:post_recv{ wr_id = 100, sg_list = {{ mr = mr, offset = 1024, length = 1024 }} };
        id:connect{ private_data = "hello from a learner", responder_resources = 1, initiator_depth = 1,
        retry_count = 7, rnr_retry_count = 7 }; ev = ch:get_cm_event(5000); then look at qp.state and
        ev.param.conn.private_data (and its length).]],
      hint = [[id:connect{ private_data = "hello from a learner", responder_resources = 1, initiator_depth = 1, retry_count = 7, rnr_retry_count = 7 }]],
      solution = [[
        qp:post_recv{ wr_id = 100, sg_list = {{ mr = mr, offset = 1024, length = 1024 }} }
        id:connect{ private_data = "hello from a learner", responder_resources = 1, initiator_depth = 1, retry_count = 7, rnr_retry_count = 7 }
        ev = ch:get_cm_event(5000)
        qp.state, ev.param.conn.private_data_len, (ev.param.conn.private_data:gsub("%z+$", ""))]],
      check = function()
        local ok, why, waiting = expect_event("ESTABLISHED")
        if not ok then return false, why, waiting end
        if G"qp".state ~= "RTS" then return false, "qp is " .. G"qp".state .. ", not RTS" end
        return true, ("connected; the partner says %q; qp went INIT -> RTR -> RTS without a modify"):format(
          (G"ev".param.conn.private_data:gsub("%z+$", "")))
      end,
    },
    {
      title = "SEND, and an answer",
      text = [[
        From here on it is plain verbs: the QP posts and polls as in every
        lesson before. The partner answers your SEND in capitals.]],
      c = [[
        ibv_post_send(id->qp, &swr, &bad_wr);   /* then ibv_poll_cq */]],
      task = [[
        ev:ack(); mr:write(0, "hello partner"); send 13 bytes from offset 0 (SIGNALED);
        wcs = cq:wait(2); the answer is in mr at offset 1024.]],
      hint = [[qp:post_send{ wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{ mr = mr, offset = 0, length = 13 }} }]],
      solution = [[
        ev:ack()
        mr:write(0, "hello partner")
        qp:post_send{ wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{ mr = mr, offset = 0, length = 13 }} }
        wcs = cq:wait(2)
        mr:read(1024, 13)]],
      check = function(S) return K.check_answer(S, "mr", 1024) end,
    },
    {
      title = "Disconnect",
      text = [[
        rdma_disconnect moves your QP to ERR and tells the partner, who gets
        DISCONNECTED and disconnects too; then DISCONNECTED reaches you. After
        that: rdma_destroy_qp, then rdma_destroy_id (verbsh refuses the other
        order, as the C library would leak the QP).]],
      c = [[
        rdma_disconnect(id);
        rdma_get_cm_event(ch, &ev);   /* RDMA_CM_EVENT_DISCONNECTED */
        rdma_ack_cm_event(ev); rdma_destroy_qp(id); rdma_destroy_id(id);]],
      task = [[id:disconnect(); ev = ch:get_cm_event(5000); then qp.state.]],
      hint = [[id:disconnect(); ev = ch:get_cm_event(5000)]],
      solution = [[
        id:disconnect()
        ev = ch:get_cm_event(5000)
        qp.state]],
      check = function()
        local ok, why = expect_event("DISCONNECTED")
        if not ok then return false, why end
        return true, ("disconnected; qp is %s"):format(G"qp".state)
      end,
    },
  },
}
