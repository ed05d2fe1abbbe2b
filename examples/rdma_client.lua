-- The client of librdmacm's short path, as rdma-core's rdma_client does it:
-- rdma_getaddrinfo, rdma_create_ep (resolved, routed and with a QP in one
-- call), rdma_connect, and the rdma_verbs.h helpers.
--
--   verbsh examples/rdma_client.lua -s SERVER_ADDR [-p PORT] [-x]
--
-- It sends 16 bytes, waits for the server's 16 and disconnects. -x (with
-- rdma_server.lua -x): the answer names two MRs of the server's; it
-- RDMA-reads one, RDMA-writes the other (two SGEs: post_writev) and says so.
local server, port, extra = nil, "7471", false
local i = 1
while arg[i] do
  if arg[i] == "-s" then server, i = arg[i + 1], i + 2
  elseif arg[i] == "-p" then port, i = arg[i + 1], i + 2
  elseif arg[i] == "-x" then extra, i = true, i + 1
  else i = #arg + 1; server = nil end
end
if not server then io.stderr:write("usage: rdma_client.lua -s SERVER_ADDR [-p PORT] [-x]\n"); os.exit(2) end
local SIZE = extra and 32 or 16

local res = verbs.getaddrinfo(server, port, { ai_port_space = "TCP" })
local id = verbs.create_ep(res, nil, { sq_sig_all = 1,
  cap = { max_send_wr = 2, max_recv_wr = 1, max_send_sge = 2, max_recv_sge = 1, max_inline_data = 16 } })
local recv_mr = id:reg_msgs(SIZE)
local send_mr = id:reg_msgs(("hello from verbs"):rep(2):sub(1, SIZE))
id:post_recv(1, recv_mr)
id:connect()   -- synchronous: returns once ESTABLISHED
print("rdma_client.lua: connected to " .. id:get_peer_addr())

id:post_send(2, send_mr, 0, 16)
local wc = id:get_send_comp(10000) or error("rdma_client.lua: the send did not complete within 10 s", 0)
assert(wc.status == "SUCCESS", tostring(wc))
wc = id:get_recv_comp(10000) or error("rdma_client.lua: no answer within 10 s", 0)
assert(wc.status == "SUCCESS", tostring(wc))
local got = recv_mr:read(0, wc.byte_len)
print(("rdma_client.lua: received %d bytes: %s"):format(wc.byte_len, (got:gsub(".", function(c)
  return c:match("[%w%p ]") and c or ("\\x%02x"):format(c:byte()) end))))

local read_mr
if extra then
  local raddr, rkey, waddr, wkey = string.unpack("<I8I4I8I4", got)
  read_mr = id:reg_msgs(32)
  id:post_read(3, read_mr, 0, 15, nil, raddr, rkey)
  assert((id:get_send_comp(10000) or error("no READ completion", 0)).status == "SUCCESS")
  print(("rdma_client.lua: read %q"):format(read_mr:read(0, 15)))
  send_mr:write(0, "wrote  by verbs")
  id:post_writev(4, { { mr = send_mr, offset = 0, length = 6 }, { mr = send_mr, offset = 7, length = 7 } }, nil,
    waddr, wkey)
  assert((id:get_send_comp(10000) or error("no WRITE completion", 0)).status == "SUCCESS")
  send_mr:write(0, "done")
  id:post_send(5, send_mr, 0, 4)
  assert((id:get_send_comp(10000) or error("no completion of the last send", 0)).status == "SUCCESS")
end

id:disconnect()
recv_mr:dereg(); send_mr:dereg()
if read_mr then read_mr:dereg() end
id:destroy_ep()
res:free()
print("rdma_client.lua: end 0")
