-- A multicast sender or receiver through rdma_cm, as rdma-core's mckey:
-- a UD id joins the group, and the MULTICAST_JOIN event gives the group's
-- address (an AH), QPN (0xffffff) and Q_Key.
--
--   verbsh examples/mcast.lua -m GROUP -b BIND_ADDR [-s] [-C COUNT] [-S SIZE] [-w WAIT_MS]
--
-- -s sends COUNT messages of SIZE bytes (SEND_WITH_IMM, the immediate our
-- QPN, as mckey sends); without it, receives up to COUNT and reports each,
-- waiting at most WAIT_MS (default 10000) for them all.
local group, bind, sender, count, size, wait_ms = nil, nil, false, 10, 100, 10000
local i = 1
while arg[i] do
  local a, v = arg[i], arg[i + 1]
  if a == "-s" then sender, i = true, i + 1
  elseif a == "-m" then group, i = v, i + 2
  elseif a == "-b" then bind, i = v, i + 2
  elseif a == "-C" then count, i = math.tointeger(tonumber(v)), i + 2
  elseif a == "-S" then size, i = math.tointeger(tonumber(v)), i + 2
  elseif a == "-w" then wait_ms, i = math.tointeger(tonumber(v)), i + 2
  else group = nil; break end
end
if not group or not bind or not count or not size then
  io.stderr:write("usage: mcast.lua -m GROUP -b BIND_ADDR [-s] [-C COUNT] [-S SIZE] [-w WAIT_MS]\n")
  os.exit(2)
end
local GRH = 40   -- every UD receive starts with the 40-byte GRH

local ch = verbs.create_event_channel()
local function event(want)
  return (ch:get_cm_event(10000) or error("mcast.lua: no rdma_cm event within 10 s (waiting for " .. want .. ")", 0))
    :expect(want)
end
local id = ch:create_id("UDP")
id:bind_addr(bind .. ":0")
id:resolve_addr(bind, group .. ":0")
event("ADDR_RESOLVED"):ack()

local ctx = id.verbs
local pd, cq = ctx:alloc_pd(), ctx:create_cq(2 * count)
local qp = id:create_qp(pd, { qp_type = "UD", send_cq = cq, recv_cq = cq,
  cap = { max_send_wr = count, max_recv_wr = count, max_send_sge = 1, max_recv_sge = 1 } })
local mr = pd:reg_mr((GRH + size) * count, "LOCAL_WRITE")
if not sender then
  for k = 1, count do
    qp:post_recv{ wr_id = k, sg_list = { { mr = mr, offset = (k - 1) * (GRH + size), length = GRH + size } } }
  end
end
id:join_multicast(group)
local ev = event("MULTICAST_JOIN")
local ud = ev.param.ud
print(("mcast.lua: joined %s (dgid %s), QPN 0x%06x, Q_Key 0x%x"):format(group, ud.ah_attr.grh.dgid, ud.qp_num, ud.qkey))
local ah = pd:create_ah(ud.ah_attr)
local remote_qpn, qkey = ud.qp_num, ud.qkey
ev:ack()
io.stdout:flush()

if sender then
  mr:fill(0x5a, 0, size)
  for k = 1, count do
    qp:post_send{ wr_id = k, opcode = "SEND_WITH_IMM", imm_data = qp.qp_num, send_flags = "SIGNALED",
      sg_list = { { mr = mr, offset = 0, length = size } }, ud = { ah = ah, remote_qpn = remote_qpn, remote_qkey = qkey } }
  end
  local wcs = cq:wait(count, 5000)
  for _, wc in ipairs(wcs) do assert(wc.status == "SUCCESS", tostring(wc)) end
  print(("mcast.lua: sent %d messages of %d bytes from QPN 0x%06x"):format(#wcs, size, qp.qp_num))
else
  local wcs = cq:wait(count, wait_ms)
  for _, wc in ipairs(wcs) do
    assert(wc.status == "SUCCESS", tostring(wc))
    print(("mcast.lua: message %d: %d bytes, imm 0x%06x from QPN 0x%06x"):format(wc.wr_id, wc.byte_len - GRH,
      wc.imm_data or 0, wc.src_qp))
  end
  print(("mcast.lua: received %d of %d messages"):format(#wcs, count))
end

id:leave_multicast(group)
ah:destroy()
qp:destroy()
mr:dereg(); cq:destroy(); pd:dealloc()
id:destroy(); ch:destroy()
