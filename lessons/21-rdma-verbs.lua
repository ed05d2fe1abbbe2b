-- Lesson 21: librdmacm's short path -- rdma_client.c written in verbsh.
local K = require "verbs.lesson_kit"

local function G(name) return rawget(_G, name) end

return {
  title = "librdmacm's short path",
  intro = [[
    rdma-core's own first example pair, rdma_server.c and rdma_client.c, uses
    neither event channels nor CQs of its own. rdma_getaddrinfo turns an
    address into what an endpoint needs; rdma_create_ep makes a synchronous
    id that is resolved, routed and has its QP (with CQs librdmacm makes);
    the helpers of rdma_verbs.h register messages and post and wait for one
    completion at a time. You write the client; the server is verbsh's
    examples/rdma_server.lua, the same program as rdma-core's rdma_server,
    started for you at server_addr:server_port. (rdma-core's rdma_server
    itself answers your first message too: RDMA_SERVER=HOST:PORT.)]],
  setup = function()
    K.open()
    local peer = os.getenv("RDMA_SERVER")
    if peer and peer ~= "" then
      local host, port = peer:match("^(.+):(%d+)$")
      if not host then error("RDMA_SERVER must be HOST:PORT, got " .. peer, 0) end
      rawset(_G, "server_addr", host)
      rawset(_G, "server_port", port)
    else
      local addr = K.gid_ipv4(K.gid)
      if not addr then error("no IPv4 address on this device's RoCE GID " .. tostring(K.gid), 0) end
      local dir = require("verbs.lesson").dir()
      local p = K.spawn(dir .. "/../examples/rdma_server.lua", { "-p", 0, "-n", 8 })
      local port, out = p:wait_for("listening on [%d.]+:(%d+)", 60)
      if not port then error("the server did not start:\n" .. tostring(out), 0) end
      rawset(_G, "server_addr", addr)
      rawset(_G, "server_port", port)
    end
    return K.describe { "server_addr", "server_port" }
  end,

  steps = {
    {
      title = "rdma_getaddrinfo",
      text = [[
        rdma_getaddrinfo is getaddrinfo for RDMA: node and service (a port, as
        a string) and hints with struct rdma_addrinfo's fields. The result
        carries the addresses, the port space and the QP type an endpoint
        needs. A server passes ai_flags = "PASSIVE" and no node.]],
      c = [[
        struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *res;
        rdma_getaddrinfo(server, port, &hints, &res);]],
      task = [[res = verbs.getaddrinfo(server_addr, server_port, { ai_port_space = "TCP" }), and look at res.ai_dst_addr and res.ai_qp_type.]],
      hint = [[res = verbs.getaddrinfo(server_addr, server_port, { ai_port_space = "TCP" })]],
      solution = [[
        res = verbs.getaddrinfo(server_addr, server_port, { ai_port_space = "TCP" })
        res.ai_dst_addr, res.ai_qp_type]],
      check = function()
        local res = G"res"
        if not K.is(res, "cm_addrinfo") then return false, "res should be verbs.getaddrinfo(server_addr, server_port, {...})" end
        local want = G"server_addr" .. ":" .. G"server_port"
        if res.ai_dst_addr ~= want then return false, ("res.ai_dst_addr is %s, not %s"):format(tostring(res.ai_dst_addr), want) end
        if res.ai_port_space ~= "TCP" then return false, "give hints { ai_port_space = \"TCP\" }: this is a connection" end
        return true, ("%s, an %s QP"):format(res.ai_dst_addr, res.ai_qp_type)
      end,
    },
    {
      title = "An endpoint",
      text = [[
        rdma_create_ep does in one blocking call what lesson 14 did with four
        calls and three events: create the id, resolve the address and the
        route, and create the QP from the attributes you give. Without
        send_cq and recv_cq librdmacm makes the CQs itself (with a completion
        channel each); the QP type comes from res. The id has no event channel:
        connect and accept wait for their events inside.]],
      c = [[
        struct ibv_qp_init_attr attr = { .cap = { .max_send_wr = 4, .max_recv_wr = 4,
            .max_send_sge = 1, .max_recv_sge = 1 }, .sq_sig_all = 1 };
        rdma_create_ep(&id, res, NULL, &attr);   /* id->qp, id->send_cq, id->recv_cq */]],
      task = [[id = verbs.create_ep(res, nil, { cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 }, sq_sig_all = 1 }), and look at id.qp.]],
      hint = [[id = verbs.create_ep(res, nil, { cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 }, sq_sig_all = 1 })]],
      solution = [[
        id = verbs.create_ep(res, nil, { cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 }, sq_sig_all = 1 })
        id.qp]],
      check = function()
        local id = G"id"
        if not K.is(id, "cm_id") then return false, "id should be verbs.create_ep(res, nil, {...})" end
        if not id.qp then return false, "id has no QP: give create_ep the QP attributes (its third argument)" end
        return true, ("%s with %s, no event channel"):format(tostring(id), tostring(id.qp))
      end,
    },
    {
      title = "Messages",
      text = [[
        rdma_reg_msgs registers a buffer for sends and receives on the id's PD
        (the one librdmacm gave the QP): an ibv_reg_mr with LOCAL_WRITE.
        rdma_reg_read and rdma_reg_write add REMOTE_READ or REMOTE_WRITE, for
        memory the peer reads or writes.]],
      c = [[
        struct ibv_mr *recv_mr = rdma_reg_msgs(id, recv_msg, 16);
        struct ibv_mr *send_mr = rdma_reg_msgs(id, send_msg, 16);]],
      task = [[recv_mr = id:reg_msgs(16); send_mr = id:reg_msgs("hello, server!!!")]],
      hint = [[recv_mr = id:reg_msgs(16); send_mr = id:reg_msgs("hello, server!!!")]],
      solution = [[
        recv_mr = id:reg_msgs(16)
        send_mr = id:reg_msgs("hello, server!!!")]],
      check = function()
        for _, m in ipairs { "recv_mr", "send_mr" } do
          if not K.is(G(m), "mr") then return false, m .. " should be id:reg_msgs(...)" end
        end
        if G"send_mr".length ~= 16 then return false, "send_mr should hold the 16 bytes \"hello, server!!!\"" end
        return true, ("recv_mr and send_mr: 16 bytes each, %s"):format(table.concat(G"recv_mr".access, " "))
      end,
    },
    {
      title = "Connect",
      text = [[
        On a synchronous id rdma_connect returns once the connection is
        ESTABLISHED (or failed): librdmacm waited for the event and moved the
        QP to RTR and RTS meanwhile.]],
      c = [[rdma_connect(id, NULL);]],
      task = [[id:connect(), then id.qp.state.]],
      hint = [[id:connect()]],
      solution = [[
        id:connect()
        id.qp.state]],
      check = function()
        local st = G"id".qp.state
        if st ~= "RTS" then return false, "id.qp is " .. st .. ": id:connect()" end
        return true, "connected to " .. G"id":get_peer_addr() .. "; the QP is in RTS"
      end,
    },
    {
      title = "Send, and the answer",
      text = [[
        rdma_post_recv and rdma_post_send post one WR of one buffer (wr_id is
        C's context). rdma_get_send_comp and rdma_get_recv_comp poll the CQ
        librdmacm made, arm it and sleep on its channel until a completion
        comes: one call, one ibv_wc. Post the receive before the send: the
        server answers at once.]],
      c = [[
        rdma_post_recv(id, NULL, recv_msg, 16, recv_mr);
        rdma_post_send(id, NULL, send_msg, 16, send_mr, 0);
        rdma_get_send_comp(id, &wc); rdma_get_recv_comp(id, &wc);]],
      task = [[
        id:post_recv(1, recv_mr); id:post_send(2, send_mr);
        wcs = { id:get_send_comp(5000), id:get_recv_comp(5000) }; then recv_mr:read().]],
      hint = [[wcs = { id:get_send_comp(5000), id:get_recv_comp(5000) }]],
      solution = [[
        id:post_recv(1, recv_mr)
        id:post_send(2, send_mr)
        wcs = { id:get_send_comp(5000), id:get_recv_comp(5000) }
        recv_mr:read()]],
      check = function(S)
        local l = K.step_wcs(S, nil, 2)
        local s, r = K.find_wc(l, { wr_id = 2 }), K.find_wc(l, { wr_id = 1 })
        if not s then return false, "no send completion yet: id:post_send(2, send_mr) and wcs = { id:get_send_comp(5000), ... }" end
        if s.status ~= "SUCCESS" then return false, "the send completed " .. s.status .. ": " .. verbs.explain(s) end
        if not r then return false, "no answer yet: id:post_recv(1, recv_mr) before the send, then id:get_recv_comp(5000)" end
        if r.status ~= "SUCCESS" then return false, "the receive completed " .. r.status .. ": " .. verbs.explain(r) end
        return true, ("the server answered %q"):format(G"recv_mr":read(0, r.byte_len))
      end,
    },
    {
      title = "Disconnect and destroy",
      text = [[
        rdma_disconnect, then the MRs (they are on the id's PD), then
        rdma_destroy_ep: the QP, the CQs librdmacm made and the id, in one
        call. rdma_freeaddrinfo frees res.]],
      c = [[
        rdma_disconnect(id);
        rdma_dereg_mr(recv_mr); rdma_dereg_mr(send_mr);
        rdma_destroy_ep(id); rdma_freeaddrinfo(res);]],
      task = [[id:disconnect(); recv_mr:dereg(); send_mr:dereg(); id:destroy_ep(); res:free()]],
      hint = [[id:disconnect(); recv_mr:dereg(); send_mr:dereg(); id:destroy_ep(); res:free()]],
      solution = [[
        id:disconnect()
        recv_mr:dereg()
        send_mr:dereg()
        id:destroy_ep()
        res:free()]],
      check = function()
        if pcall(function() return G"id".qp end) then return false, "id is still there: id:destroy_ep() (after the MRs' dereg)" end
        if pcall(function() return G"res".ai_dst_addr end) then return false, "res is not freed yet: res:free()" end
        return true, "everything freed, as rdma_client.c ends"
      end,
    },
  },
}
