-- Lesson 13: a pair lab -- connect to a partner's QP through an out-of-band exchange.
local K = require "verbs.lesson_kit"

local function G(name) return rawget(_G, name) end

local function is_conn(v)
  local mt = getmetatable(v)
  return type(v) == "table" and mt and mt.__name == "verbs.oob.conn" and v.sock ~= nil
end

-- Who the partner is when it runs elsewhere (nil: the lesson started it).
local remote

return {
  title = "Pair lab: two processes, one RC connection",
  transports = { "RoCE" },
  intro = [[
    Until now both QPs lived in one process, so each side could read the
    other's qp_num. Between two processes (or two hosts) those numbers must
    travel some other way first: an out-of-band (OOB) exchange, usually a TCP
    socket, as in rdma-core's ibv_rc_pingpong. verbs.oob does that exchange.

    Your partner is a second verbsh running examples/pair_partner.lua, which
    the lesson started for you on this device. For a lab on two hosts, your
    partner runs on theirs:
        verbsh examples/pair_partner.lua --listen 0.0.0.0 --port 18600
    and you start the lesson with PAIR_PEER=THEIR_IP:18600 in the environment.]],
  setup = function()
    remote = nil
    K.base()
    rawset(_G, "gid", K.gid)
    rawset(_G, "qp", K.rc_qp())
    local host, port, who, short = K.remote_partner("PAIR_PEER", 18600)
    if host then
      rawset(_G, "partner_host", host)
      rawset(_G, "partner_port", port)
      remote = short
      io.write("\nYour partner: ", who, ". They run:\n    verbsh examples/pair_partner.lua --listen ",
               host, " --port ", port, "\n(or make run ... ROLE=partner in their seat)\n")
    else
      local dir = require("verbs.lesson").dir()
      local p = K.spawn(dir .. "/../examples/pair_partner.lua", { "--port", 0, "-g", G"gid_index" })
      local host, port = p:wait_for("listening on ([%d.]+):(%d+)", 60)
      if not host then error("the partner did not start:\n" .. tostring(port), 0) end
      rawset(_G, "partner_host", host)
      rawset(_G, "partner_port", math.tointeger(tonumber(port)))
    end
    K.at_teardown(function() local c = G"conn" if is_conn(c) then c:close() end end)
    return K.describe { "ctx", "pd", "cq", "mr_a", "mr_b", "qp", "gid_index", "gid", "partner_host", "partner_port" }
  end,

  steps = {
    {
      title = "Meet your partner",
      text = [[
        The exchange needs any channel both sides can reach. verbs.oob.connect
        opens a TCP connection (and retries for a while, since partners rarely
        start at the same second). In C this is socket(), connect() and a
        hand-written message format.]],
      c = [[
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        connect(fd, (struct sockaddr *)&partner, sizeof partner);]],
      task = [[Connect: conn = verbs.oob.connect(partner_host, partner_port)]],
      hint = [[conn = verbs.oob.connect(partner_host, partner_port)]],
      solution = [[conn = verbs.oob.connect(partner_host, partner_port)]],
      check = function()
        if not is_conn(G"conn") then
          -- oob.connect gave up: the partner's verbsh is not listening yet
          if remote then
            return false, ("waiting for your partner (%s) to start examples/pair_partner.lua; " ..
              "connect again when they have"):format(remote), "partner"
          end
          return false, "conn should be an open verbs.oob connection"
        end
        return true, "connected to " .. G"conn".peer
      end,
    },
    {
      title = "Swap the numbers",
      text = [[
        To reach a QP you need its number (dest_qp_num), the PSN it expects
        first (rq_psn), and on RoCE its GID (the IP address inside). For
        RDMA WRITE or READ you also need the address and rkey of the memory.
        Each side sends its own and receives the other's. Nothing here is
        secret from the network: an rkey is a capability, so give it only to
        a peer you trust.]],
      c = [[
        struct dest { uint32_t qpn, psn; union ibv_gid gid; uint64_t addr; uint32_t rkey; } me, them;
        write(fd, &me, sizeof me); read(fd, &them, sizeof them);]],
      task = [[
        Send { qp_num = qp.qp_num, psn = 0, gid = gid, addr = mr_b.addr, rkey = mr_b.rkey }
        with conn:send, then peer = conn:recv().]],
      hint = [[conn:send{ qp_num = qp.qp_num, psn = 0, gid = gid, addr = mr_b.addr, rkey = mr_b.rkey }; peer = conn:recv()]],
      solution = [[
        conn:send{ qp_num = qp.qp_num, psn = 0, gid = gid, addr = mr_b.addr, rkey = mr_b.rkey }
        peer = conn:recv()]],
      check = function()
        local p = G"peer"
        if type(p) ~= "table" then return false, "peer should hold the table conn:recv() returned" end
        for _, k in ipairs{ "qp_num", "psn", "gid", "addr", "rkey" } do
          if p[k] == nil then return false, "peer lacks " .. k end
        end
        return true, ("partner: qp_num %d, psn %d, gid %s, rkey 0x%x"):format(p.qp_num, p.psn, p.gid, p.rkey)
      end,
    },
    {
      title = "Connect your QP to theirs",
      text = [[
        The same three transitions as lesson 4, with the partner's numbers:
        dest_qp_num and rq_psn are theirs at RTR, dgid is their GID, and at
        RTS sq_psn is the PSN you told them (0). Their QP is connecting to
        yours at the same time.]],
      c = [[
        attr.dest_qp_num = them.qpn; attr.rq_psn = them.psn; attr.ah_attr.grh.dgid = them.gid;
        ...  attr.sq_psn = me.psn;]],
      task = [[
        Bring qp to RTS towards peer: INIT (qp_access_flags REMOTE_WRITE), RTR
        (dest_qp_num = peer.qp_num, rq_psn = peer.psn, dgid = peer.gid), RTS (sq_psn = 0).]],
      hint = [[
        qp:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = peer.qp_num, rq_psn = peer.psn,
                   max_dest_rd_atomic = 1, min_rnr_timer = 12,
                   ah_attr = { is_global = 1, port_num = 1, grh = { dgid = peer.gid, sgid_index = gid_index, hop_limit = 1 } } }]],
      solution = [[
        qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = "REMOTE_WRITE" }
        qp:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = peer.qp_num, rq_psn = peer.psn, max_dest_rd_atomic = 1, min_rnr_timer = 12, ah_attr = { is_global = 1, port_num = 1, grh = { dgid = peer.gid, sgid_index = gid_index, hop_limit = 1 } } }
        qp:modify{ qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1 }]],
      check = function()
        local qp, p = G"qp", G"peer"
        if qp.state ~= "RTS" then return false, "qp is " .. qp.state .. ", not RTS yet" end
        local a = qp:query()
        if a.dest_qp_num ~= p.qp_num then return false, "dest_qp_num is not peer.qp_num" end
        if a.rq_psn ~= p.psn then return false, ("rq_psn is %d, the partner starts at %d"):format(a.rq_psn, p.psn) end
        if a.ah_attr.grh.dgid ~= p.gid then return false, "ah_attr.grh.dgid is not peer.gid" end
        return true, ("RTS towards qp_num %d at %s"):format(p.qp_num, p.gid)
      end,
    },
    {
      title = "SEND, and an answer",
      text = [[
        Your partner posted a receive and answers each SEND with the same text
        in capitals. Post your own receive for the answer first: with
        rnr_retry 7 their reply would wait for it anyway, but a receive posted
        late is the classic pair-lab bug (RNR NAKs, then RNR_RETRY_EXC_ERR
        with a smaller rnr_retry).]],
      c = [[
        ibv_post_recv(qp, &rwr /* into mr_b */, &bad_r);
        ibv_post_send(qp, &swr /* from mr_a */, &bad_s);   /* then poll both */]],
      task = [[
        Write "hello partner" into mr_a; post a receive on qp into mr_b (1024
        bytes); send the 13 bytes; wcs = cq:wait(2). mr_b then holds the answer.]],
      hint = [[qp:post_send{ wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{ mr = mr_a, offset = 0, length = 13 }} }]],
      solution = [[
        mr_a:write(0, "hello partner")
        qp:post_recv{ wr_id = 100, sg_list = {{ mr = mr_b, offset = 0, length = 1024 }} }
        qp:post_send{ wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{ mr = mr_a, offset = 0, length = 13 }} }
        wcs = cq:wait(2)
        mr_b:read(0, 13)]],
      check = function(S) return K.check_answer(S, "mr_b", 0) end,
    },
    {
      title = "RDMA WRITE into their memory",
      text = [[
        With the partner's addr and rkey you write straight into their MR:
        their CPU is not involved and their QP makes no completion. So they
        learn about it only if you tell them, here over the OOB channel (RDMA
        WRITE_WITH_IMM would be the in-band way).]],
      c = [[
        swr.opcode = IBV_WR_RDMA_WRITE;
        swr.wr.rdma.remote_addr = them.addr; swr.wr.rdma.rkey = them.rkey;]],
      task = [[
        Write "written by verbsh" (17 bytes) from mr_a to peer.addr with peer.rkey,
        wait for its completion, then conn:send{ written = 17 } and reply = conn:recv():
        reply.seen is what the partner found in its memory.]],
      hint = [[qp:post_send{ wr_id = 2, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{ mr = mr_a, offset = 0, length = 17 }}, rdma = { remote_addr = peer.addr, rkey = peer.rkey } }]],
      solution = [[
        mr_a:write(0, "written by verbsh")
        qp:post_send{ wr_id = 2, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{ mr = mr_a, offset = 0, length = 17 }}, rdma = { remote_addr = peer.addr, rkey = peer.rkey } }
        wcs = cq:wait(1)
        conn:send{ written = 17 }
        reply = conn:recv()
        reply.seen]],
      check = function(S)
        -- Only a successful completion says the bytes are in their memory
        -- (RC acknowledges a WRITE once the responder placed it).
        local l = K.step_wcs(S, G"cq", 1)
        local w = l[#l]
        if not w then
          return false, "no completion on cq for your RDMA WRITE: wait for it (wcs = cq:wait(1)) before you tell the partner"
        end
        if w.status ~= "SUCCESS" then
          return false, ("your RDMA WRITE (wr_id %s) completed with %s, so the partner's memory may not hold it; verbs.explain(wc) says why"):format(
            tostring(w.wr_id), w.status)
        end
        local reply = G"reply"
        if type(reply) ~= "table" or reply.seen == nil then
          return false, "reply should be the partner's answer, { seen = ... }"
        end
        local mine = G"mr_a":read(0, #reply.seen)
        if reply.seen == "" or reply.seen ~= mine then
          return false, ("the partner saw %q; mr_a starts with %q"):format(reply.seen, mine)
        end
        return true, ("the partner's memory holds %q"):format(reply.seen)
      end,
    },
  },
}
