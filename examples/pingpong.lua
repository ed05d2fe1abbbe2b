-- What examples/rc_pingpong.lua and ud_pingpong.lua share with rdma-core's
-- ibv_rc_pingpong and ibv_ud_pingpong (libibverbs/examples), so that verbsh
-- can stand on either side of a connection with them: the options, the
-- out-of-band wire format and the ping-pong loop.
--
-- Each side sends one fixed-size message over TCP, NUL included:
--     "LLLL:QQQQQQ:PPPPPP:GGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGG\0"
-- lid (4 hex), qpn (6 hex), psn (6 hex) and the 16 raw GID bytes as 32 hex
-- digits. After the server's reply the client writes "done\0"; the server
-- waits for it before it starts counting.
local socket = require "socket"

local M = { port = 18515, timeout = 20 }
M.MSG_SIZE = #"0000:000000:000000:00000000000000000000000000000000" + 1

-- "fe80::1" style text -> 32 hex digits, via the GID's raw bytes.
local function gid_hex(gid_text)
  local raw = verbs.gid_bytes and verbs.gid_bytes(gid_text)
  if raw then return (raw:gsub(".", function(c) return ("%02x"):format(c:byte()) end)) end
  -- Expand an IPv6 text form by hand.
  local head, tail = gid_text:match("^(.-)::(.*)$")
  local groups = {}
  local function add(part)
    for g in part:gmatch("[^:]+") do
      if g:find("%.") then   -- a trailing dotted IPv4
        local a, b, c, d = g:match("^(%d+)%.(%d+)%.(%d+)%.(%d+)$")
        groups[#groups + 1] = ("%02x%02x"):format(a, b)
        groups[#groups + 1] = ("%02x%02x"):format(c, d)
      else
        groups[#groups + 1] = ("%04x"):format(tonumber(g, 16))
      end
    end
  end
  if head then
    add(head)
    local n = #groups
    local rest = {}
    local saved = groups
    groups = rest
    add(tail)
    groups = saved
    for _ = 1, 8 - n - #rest do groups[#groups + 1] = "0000" end
    for _, g in ipairs(rest) do groups[#groups + 1] = g end
  else
    add(gid_text)
  end
  assert(#groups == 8, "bad GID text " .. gid_text)
  return table.concat(groups)
end

-- 32 hex digits -> IPv6 text ("0000:...:c000:0201" groups, compressed by nobody).
local function hex_gid(hex)
  local g = {}
  for i = 1, 32, 4 do g[#g + 1] = hex:sub(i, i + 3) end
  return table.concat(g, ":")
end

function M.encode(dest)
  local s = ("%04x:%06x:%06x:%s"):format(dest.lid or 0, dest.qpn, dest.psn, gid_hex(dest.gid))
  return s .. "\0"
end

function M.decode(msg, peer)
  local lid, qpn, psn, gid = msg:match("^(%x%x%x%x):(%x%x%x%x%x%x):(%x%x%x%x%x%x):(%x+)%z?$")
  if not lid or #gid ~= 32 then
    error(("pingpong: bad address message from %s: %q"):format(peer, msg), 0)
  end
  return { lid = tonumber(lid, 16), qpn = tonumber(qpn, 16), psn = tonumber(psn, 16),
           gid = hex_gid(gid) }
end

local function read_exact(sock, n, peer)
  sock:settimeout(M.timeout, "t")
  local data, err, partial = sock:receive(n)
  if not data then
    error(("pingpong: %s: %s after %d of %d bytes"):format(peer, err, #(partial or ""), n), 0)
  end
  return data
end

-- Client side: connect, send ours, read theirs, then "done".
function M.client(host, port, mine)
  local sock = assert(socket.tcp())
  sock:settimeout(M.timeout)
  local deadline = socket.gettime() + M.timeout
  while true do
    local ok, err = sock:connect(host, port or M.port)
    if ok then break end
    if socket.gettime() > deadline then
      error(("pingpong: cannot connect to %s:%d: %s"):format(host, port or M.port, err), 0)
    end
    sock:close(); socket.sleep(0.1); sock = assert(socket.tcp())
  end
  local peer = ("%s:%d"):format(host, port or M.port)
  assert(sock:send(M.encode(mine)))
  local theirs = M.decode(read_exact(sock, M.MSG_SIZE, peer), peer)
  assert(sock:send("done\0"))
  return theirs, sock
end

-- Server side: accept, read theirs, connect(theirs) (so our QP is in RTR
-- before the client may send), send ours, wait for "done".
function M.server(port, mine, connect)
  local l = assert(socket.bind("*", port or M.port))
  l:settimeout(M.timeout)
  local sock, err = l:accept()
  l:close()
  if not sock then error(("pingpong: no client within %ds: %s"):format(M.timeout, err), 0) end
  local peer = ("%s:%s"):format(sock:getpeername())
  local theirs = M.decode(read_exact(sock, M.MSG_SIZE, peer), peer)
  connect(theirs)
  assert(sock:send(M.encode(mine)))
  read_exact(sock, #"done\0", peer)
  return theirs, sock
end

-- Options as the C tools take them; returns opt and the server name (or nil).
function M.options(args, defaults, usage)
  local opt = defaults
  local server
  local i = 1
  while i <= #args do
    local flag = args[i]:match("^%-(%a)$")
    if not flag then
      server, i = args[i], i + 1
    elseif not ("dgnspr"):find(flag, 1, true) or args[i + 1] == nil then
      error(usage, 0)
    else
      opt[flag] = flag == "d" and args[i + 1] or tonumber(args[i + 1]) or error(usage, 0)
      i = i + 2
    end
  end
  return opt, server
end

-- The loop of the C tools: the client sends first; each side sends its next
-- message once its previous send completed and the peer's message arrived.
-- post_recvs(n) reposts receives; opt.on_recv(wc), if set, sees each receive
-- first (a UD server learns its peer's address there). Returns the seconds.
function M.loop(qp, cq, send_wr, post_recvs, opt, is_client)
  local RECV, SEND = 1, 2
  local pending = RECV
  local t0 = socket.gettime()
  if is_client then qp:post_send(send_wr); pending = RECV | SEND end
  local rcnt, scnt, routs = 0, 0, opt.r
  while rcnt < opt.n or scnt < opt.n do
    local wcs = cq:wait(1, 20000)
    if #wcs == 0 then error("pingpong: no completion within 20 s", 0) end
    for _, wc in ipairs(wcs) do
      if wc.status ~= "SUCCESS" then error("pingpong: " .. tostring(wc), 0) end
      if wc.wr_id == SEND then
        scnt = scnt + 1
      else
        if opt.on_recv then opt.on_recv(wc) end
        rcnt, routs = rcnt + 1, routs - 1
        if routs <= 1 then post_recvs(opt.r - routs); routs = opt.r end
      end
      pending = pending & ~wc.wr_id
      if scnt < opt.n and pending == 0 then
        qp:post_send(send_wr)
        pending = RECV | SEND
      end
    end
  end
  return socket.gettime() - t0
end

function M.report(opt, secs)
  local bytes = opt.s * opt.n * 2
  print(("%d bytes in %.2f seconds = %.2f Mbit/sec"):format(bytes, secs, bytes * 8 / secs / 1e6))
  print(("%d iters in %.2f seconds = %.2f usec/iter"):format(opt.n, secs, secs * 1e6 / opt.n))
end

function M.show(what, d)
  print(("  %s LID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s"):format(what, d.lid, d.qpn, d.psn, d.gid))
end

M.gid_hex, M.hex_gid = gid_hex, hex_gid
-- A function that posts n copies of recv_wr on qp in one call (the
-- examples' refill), as ibv_*_pingpong's pp_post_recv does one by one.
function M.receiver(qp, recv_wr)
  return function(n)
    local list = {}
    for k = 1, n do list[k] = recv_wr end
    qp:post_recv(list)
  end
end

-- The rest of either example: the TCP exchange as client (SERVER given) or
-- server, then the loop and its report. connect(dest) readies the QP for the
-- peer at dest and returns the send WR.
function M.run(opt, server, mine, qp, cq, post_recvs, connect)
  local send_wr
  local function ready(dest) send_wr = connect(dest) end
  local dest, sock
  if server then
    dest, sock = M.client(server, opt.p, mine)
    ready(dest)
  else
    dest, sock = M.server(opt.p, mine, ready)
  end
  M.show("remote address:", dest)
  M.report(opt, M.loop(qp, cq, send_wr, post_recvs, opt, server ~= nil))
  sock:close()
end

return M
