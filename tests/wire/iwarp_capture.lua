-- verbs.capture on an iWARP device, live: one rdma_cm RC connection of this
-- process on SIW_DEV (both ends at SIW_ADDR, so siw's TCP crosses lo), a
-- 100-byte SEND, a 300-byte RDMA WRITE and a 200-byte RDMA READ, each of
-- its own bytes; beside it a RoCE capture on RXE_DEV, which must pick rxe's
-- netdev and UDP 4791 and see none of this TCP.
-- usage: verbsh tests/wire/iwarp_capture.lua OUT.pcap   (prints the keys
-- the test compares, then print(cap))
local addr, dev, rxe = assert(os.getenv("SIW_ADDR")), assert(os.getenv("SIW_DEV")), os.getenv("RXE_DEV")
local cap = verbs.capture{ device = dev }
local rcap = rxe and verbs.capture{ device = rxe }
local sch, cch = verbs.create_event_channel(), verbs.create_event_channel()
local listen = sch:create_id("TCP")
listen:bind_addr(addr .. ":0"); listen:listen(1)
local id = cch:create_id("TCP")
id:resolve_addr(nil, addr .. ":" .. listen:get_src_port(), 2000); cch:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()
id:resolve_route(2000); cch:get_cm_event(5000):expect("ROUTE_RESOLVED"):ack()
local ctx = id.verbs
assert(ctx.name == dev, "rdma_cm chose " .. ctx.name)
local pd, cq, scq = ctx:alloc_pd(), ctx:create_cq(16), ctx:create_cq(16)
local caps = { max_send_wr = 8, max_recv_wr = 8, max_send_sge = 1, max_recv_sge = 1 }
local qp = id:create_qp(pd, { qp_type = "RC", send_cq = cq, recv_cq = cq, cap = caps })
local mr = pd:reg_mr(4096, "LOCAL_WRITE")
id:connect{ responder_resources = 1, initiator_depth = 1 }
local req = sch:get_cm_event(5000):expect("CONNECT_REQUEST")
local sid = req.id
local sqp = sid:create_qp(pd, { qp_type = "RC", send_cq = scq, recv_cq = scq, cap = caps })
local smr = pd:reg_mr(4096, { "LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ" })
sqp:post_recv{ wr_id = 50, sg_list = { { mr = smr, offset = 0, length = 128 } } }
sid:accept{ responder_resources = 1, initiator_depth = 1 }
req:ack()
cch:get_cm_event(5000):expect("ESTABLISHED"):ack()
sch:get_cm_event(5000):expect("ESTABLISHED"):ack()

local function pattern(n, seed) local t = {} for i = 1, n do t[i] = string.char(33 + (i * seed) % 90) end return table.concat(t) end
mr:write(0, pattern(100, 7))
qp:post_send{ wr_id = 11, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 0, length = 100 } } }
assert(cq:wait(1, 5000)[1].status == "SUCCESS"); assert(scq:wait(1, 5000)[1].byte_len == 100)
mr:write(1024, pattern(300, 11))
qp:post_send{ wr_id = 12, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 1024, length = 300 } },
              rdma = { remote_addr = smr.addr + 256, rkey = smr.rkey } }
assert(cq:wait(1, 5000)[1].status == "SUCCESS")
assert(smr:read(256, 300) == pattern(300, 11))
smr:write(2048, pattern(200, 13))
qp:post_send{ wr_id = 13, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 3000, length = 200 } },
              rdma = { remote_addr = smr.addr + 2048, rkey = smr.rkey } }
assert(cq:wait(1, 5000)[1].status == "SUCCESS")
assert(mr:read(3000, 200) == pattern(200, 13))
-- the receiver's delayed ACK of the READ's data comes up to 200 ms later
-- (Linux's TCP_DELACK_MAX): wait for its 15th segment, at most 2 s
for _ = 1, 40 do
  if cap:info().count >= 15 then break end
  os.execute("sleep 0.05")
end
local n = cap:stop()
print(("keys write 0x%08x 0x%x read 0x%08x 0x%x sink 0x%08x 0x%x"):format(smr.rkey, smr.addr + 256,
  smr.rkey, smr.addr + 2048, mr.lkey, mr.addr + 3000))
local info = cap:info()
print(("info %s %s %s %s %d"):format(info.transport, info.netdev, info.device_netdev or "-", info.filter, n))
assert(cap:save(arg[1]) == n)
if rcap then
  local rn, why = rcap:stop()
  local ri = rcap:info()
  print(("roce %s %s %s %d %s"):format(ri.transport, ri.netdev, ri.filter, rn, why and why:match("^[^.]*") or "-"))
end
print(cap)
id:disconnect()
sch:get_cm_event(5000):expect("DISCONNECTED"):ack()
