-- iWARP on the wire: siw0 (client, SIW_ADDR) connects to siw1 (server,
-- SIW1_ADDR) through rdma_cm, across veth2/veth3 (scripts/rxe-vm --siw
-- --two), then a 100-byte SEND, a 3000-byte RDMA WRITE, a 2000-byte RDMA
-- READ and a 2000-byte SEND (two FPDUs: a message the ladder follows across
-- them), each with its own bytes; prints the STags and addresses the frames
-- must carry: "send", "write STAG ADDR", "read STAG ADDR", "send 2000".
--   verbsh tests/wire/iwarp_scenario.lua [OUT.pcap]: with OUT.pcap, under
--   verbs.capture{device = SIW_DEV} (veth2), saved there, print(cap) after
local A, B, PORT = os.getenv("SIW_ADDR"), os.getenv("SIW1_ADDR"), 7497
local capture = arg[1] and verbs.capture{ device = os.getenv("SIW_DEV") }
local sch, cch = verbs.create_event_channel(), verbs.create_event_channel()
local listen = sch:create_id("TCP")
listen:bind_addr(B .. ":" .. PORT); listen:listen(1)
local id = cch:create_id("TCP")
id:resolve_addr(A .. ":0", B .. ":" .. PORT, 2000); cch:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()
id:resolve_route(2000); cch:get_cm_event(5000):expect("ROUTE_RESOLVED"):ack()
local cap = { max_send_wr = 8, max_recv_wr = 8, max_send_sge = 1, max_recv_sge = 1 }
local cctx = id.verbs
local cpd, ccq = cctx:alloc_pd(), cctx:create_cq(16)
local qp = id:create_qp(cpd, { qp_type = "RC", send_cq = ccq, recv_cq = ccq, cap = cap })
local mr = cpd:reg_mr(8192, "LOCAL_WRITE")
id:connect{ responder_resources = 1, initiator_depth = 1 }
local req = sch:get_cm_event(5000):expect("CONNECT_REQUEST")
local sid = req.id
local sctx = sid.verbs
local spd, scq = sctx:alloc_pd(), sctx:create_cq(16)
local sqp = sid:create_qp(spd, { qp_type = "RC", send_cq = scq, recv_cq = scq, cap = cap })
local smr = spd:reg_mr(8192, { "LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ" })
sqp:post_recv{ wr_id = 50, sg_list = { { mr = smr, offset = 0, length = 128 } } }
sqp:post_recv{ wr_id = 51, sg_list = { { mr = smr, offset = 6144, length = 2048 } } }
sid:accept{ responder_resources = 1, initiator_depth = 1 }
req:ack()
cch:get_cm_event(5000):expect("ESTABLISHED"):ack()
sch:get_cm_event(5000):expect("ESTABLISHED"):ack()
io.stderr:write(("connected %s -> %s on %s and %s\n"):format(A, B, cctx.name, sctx.name))

local function pattern(n, seed) local t = {} for i = 1, n do t[i] = string.char(33 + (i * seed) % 90) end return table.concat(t) end
mr:write(0, pattern(100, 7))
qp:post_send{ wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 0, length = 100 } } }
assert(ccq:wait(1, 5000)[1].status == "SUCCESS"); assert(scq:wait(1, 5000)[1].byte_len == 100)
print("send")
mr:write(1024, pattern(3000, 11))
qp:post_send{ wr_id = 2, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 1024, length = 3000 } },
              rdma = { remote_addr = smr.addr + 256, rkey = smr.rkey } }
assert(ccq:wait(1, 5000)[1].status == "SUCCESS")
assert(smr:read(256, 3000) == pattern(3000, 11))
print(("write 0x%08x 0x%x"):format(smr.rkey, smr.addr + 256))
smr:write(4096, pattern(2000, 13))
qp:post_send{ wr_id = 3, opcode = "RDMA_READ", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 5000, length = 2000 } },
              rdma = { remote_addr = smr.addr + 4096, rkey = smr.rkey } }
assert(ccq:wait(1, 5000)[1].status == "SUCCESS")
assert(mr:read(5000, 2000) == pattern(2000, 13))
print(("read 0x%08x 0x%x 0x%08x 0x%x"):format(smr.rkey, smr.addr + 4096, mr.lkey, mr.addr + 5000))
mr:write(0, pattern(2000, 17))
qp:post_send{ wr_id = 4, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 0, length = 2000 } } }
assert(ccq:wait(1, 5000)[1].status == "SUCCESS")
local got = scq:wait(1, 5000)[1]
assert(got.wr_id == 51 and got.byte_len == 2000, "the 2000-byte SEND's receive")
assert(smr:read(6144, 2000) == pattern(2000, 17))
print("send 2000")
id:disconnect()
sch:get_cm_event(5000):expect("DISCONNECTED"):ack()
if capture then
  -- the FINs and their ACKs, then the capture ends quiet
  for _ = 1, 40 do
    if capture:info().count >= 26 then break end
    os.execute("sleep 0.05")
  end
  capture:stop()
  capture:save(arg[1])
  print(capture)
end
