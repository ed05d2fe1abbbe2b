-- Two completions waiting at once on librdmacm's own CQs (rdma_get_send_comp
-- and rdma_get_recv_comp poll one WC each): a server and a client process
-- of the short path.
--   verbsh tests/lua/cm_ep_comps.lua server PORT
--   verbsh tests/lua/cm_ep_comps.lua client ADDR PORT
-- The server posts two receives, takes both SENDs, then answers; the
-- client's two SENDs have completed by the time the answer comes, so both
-- wait in its send CQ: get_send_comp gives wr_id 21, then 22, then nil.
-- The server reads its two receive completions the same way. Each side
-- prints "comps: ok".
local role = arg[1]
local cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 }
local function expect(wc, wr_id, what)
  if not wc then error(what .. ": no completion", 0) end
  if wc.wr_id ~= wr_id or wc.status ~= "SUCCESS" then
    error(("%s: wr_id %s %s, want %d SUCCESS"):format(what, tostring(wc.wr_id), tostring(wc.status), wr_id), 0)
  end
end
if role == "server" then
  local listen = verbs.create_ep(verbs.getaddrinfo(nil, arg[2], { ai_flags = "PASSIVE", ai_port_space = "TCP" }), nil,
    { cap = cap, sq_sig_all = 1 })
  listen:listen(1)
  local id = listen:get_request(60000) or error("no request", 0)
  local mr = id:reg_msgs(64)
  id:post_recv(11, mr, 0, 32)
  id:post_recv(12, mr, 32, 32)
  id:accept()
  -- both SENDs arrive before the first is read: wait for the second's bytes
  for _ = 1, 500 do
    if mr:read(32, 6) == "second" then break end
    os.execute("sleep 0.01")
  end
  expect(id:get_recv_comp(5000), 11, "first receive")
  expect(id:get_recv_comp(5000), 12, "second receive")
  if id:get_recv_comp(0) ~= nil then error("a third receive completion", 0) end
  local ans = id:reg_msgs("both")
  id:post_send(13, ans, 0, 4)
  expect(id:get_send_comp(5000), 13, "the answer")
  local ev = id:get_recv_comp(0)   -- (nothing more)
  if ev ~= nil then error("an extra completion", 0) end
  id:disconnect()
  print("server comps: ok")
else
  local id = verbs.create_ep(verbs.getaddrinfo(arg[2], arg[3], { ai_port_space = "TCP" }), nil, { cap = cap, sq_sig_all = 1 })
  local rmr = id:reg_msgs(16)
  local smr = id:reg_msgs("first.second")
  id:post_recv(31, rmr, 0, 16)
  id:connect()
  id:post_send(21, smr, 0, 6)
  id:post_send(22, smr, 6, 6)
  expect(id:get_recv_comp(10000), 31, "the answer")
  -- both SENDs were acknowledged before the answer came: two completions wait
  expect(id:get_send_comp(0), 21, "first send")
  expect(id:get_send_comp(0), 22, "second send")
  if id:get_send_comp(0) ~= nil then error("a third send completion", 0) end
  if rmr:read(0, 4) ~= "both" then error("the answer's bytes: " .. rmr:read(0, 4), 0) end
  id:disconnect()
  print("client comps: ok")
end
