-- The server of librdmacm's short path, as rdma-core's rdma_server does it:
-- synchronous calls only, no event channel, no CQ of our own.
--
--   verbsh examples/rdma_server.lua [-s SERVER_ADDR] [-p PORT] [-n COUNT] [-x]
--
-- It waits for one client (verbsh's rdma_client.lua, or rdma-core's
-- rdma_client), receives its 16-byte message, answers with 16 bytes and
-- disconnects. -n: answers up to COUNT messages, until the client
-- disconnects (lesson 21's partner); PORT 0 picks a free port. -x (with rdma_client.lua -x): the answer is 32 bytes that
-- name two MRs of ours, one the client RDMA-reads and one it RDMA-writes,
-- and a last message tells us it wrote.
local addr, port, extra, count = nil, "7471", false, 1
local i = 1
while arg[i] do
  if arg[i] == "-s" then addr, i = arg[i + 1], i + 2
  elseif arg[i] == "-p" then port, i = arg[i + 1], i + 2
  elseif arg[i] == "-x" then extra, i = true, i + 1
  elseif arg[i] == "-n" then count, i = math.tointeger(tonumber(arg[i + 1])), i + 2
  else io.stderr:write("usage: rdma_server.lua [-s SERVER_ADDR] [-p PORT] [-n COUNT] [-x]\n"); os.exit(2) end
end
local SIZE = extra and 32 or 16

local res = verbs.getaddrinfo(addr, port, { ai_flags = "PASSIVE", ai_port_space = "TCP" })
-- The QP attributes are kept for each request: get_request makes its QP.
local listen = verbs.create_ep(res, nil, { sq_sig_all = 1,
  cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 2, max_recv_sge = 2, max_inline_data = 16 } })
listen:listen(0)
print("rdma_server.lua: listening on " .. listen:get_local_addr())
io.stdout:flush()
local id = listen:get_request(30000) or error("rdma_server.lua: no connection request within 30 s", 0)

local recv_mr = id:reg_msgs(SIZE)
local send_mr = id:reg_msgs(SIZE)
local read_mr, write_mr
id:post_recv(1, recv_mr)
if extra then
  read_mr = id:reg_read("read me, client")
  write_mr = id:reg_write(32)
  id:post_recv(2, recv_mr)   -- the client's last message: it wrote
end
id:accept()

local wc = id:get_recv_comp(10000) or error("rdma_server.lua: no message within 10 s", 0)
assert(wc.status == "SUCCESS", tostring(wc))
local got = recv_mr:read(0, wc.byte_len)
print(("rdma_server.lua: received %d bytes: %q"):format(wc.byte_len, got))
if extra then
  send_mr:write(0, string.pack("<I8I4I8I4", read_mr.addr, read_mr.rkey, write_mr.addr, write_mr.rkey))
else
  send_mr:write(0, "verbsh answers!!")   -- 16 bytes, as rdma_server's message
end
id:post_send(3, send_mr, 0, SIZE)
wc = id:get_send_comp(10000) or error("rdma_server.lua: the answer did not complete within 10 s", 0)
assert(wc.status == "SUCCESS", tostring(wc))
-- -n: the next messages, each answered in capitals, until a receive is
-- flushed (the client disconnected) or COUNT were answered
for _ = 2, extra and 1 or count do
  id:post_recv(1, recv_mr)
  -- wait for the next message or for the client's disconnect, whichever
  -- comes first: our QP is not flushed by a DREQ alone, and the client's
  -- rdma_disconnect waits for ours (poll on id->channel->fd, as C would)
  wc = nil
  for _ = 1, 600 do
    wc = id:get_recv_comp(100)
    if wc then break end
    if #verbs.wait_fds({ id }, 0) > 0 then
      print("rdma_server.lua: the client disconnected")
      break
    end
  end
  if not wc or wc.status ~= "SUCCESS" then break end
  got = recv_mr:read(0, wc.byte_len)
  print(("rdma_server.lua: received %d bytes: %q"):format(wc.byte_len, got))
  send_mr:write(0, got:upper())
  id:post_send(3, send_mr, 0, wc.byte_len)
  assert((id:get_send_comp(10000) or error("rdma_server.lua: an answer did not complete", 0)).status == "SUCCESS")
end
if extra then
  wc = id:get_recv_comp(10000) or error("rdma_server.lua: no last message within 10 s", 0)
  print(("rdma_server.lua: the client says %q; it wrote %q"):format(recv_mr:read(0, wc.byte_len), write_mr:read(0, 13)))
end

-- (after the client disconnected first, as with -n, there is nothing left to disconnect)
if count == 1 or extra then id:disconnect() else pcall(id.disconnect, id) end
for _, m in ipairs { recv_mr, send_mr, read_mr or false, write_mr or false } do if m then m:dereg() end end
id:destroy_ep()
listen:destroy_ep()
res:free()
print("rdma_server.lua: end 0")
