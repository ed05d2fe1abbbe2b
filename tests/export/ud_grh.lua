-- UD with a GRH: an AH, the Q_Key, the 40-byte GRH before the payload.
local ctx = verbs.open(os.getenv("RXE_DEV"))
local gidx = tonumber(os.getenv("RXE_GID_INDEX"))
local pd = ctx:alloc_pd()
local cq = ctx:create_cq(16)
local mr = pd:reg_mr(4096, "LOCAL_WRITE")
local function ud()
  local q = pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq,
    cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }
  q:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = 0x11111111 }
  q:modify{ qp_state = "RTR" }
  q:modify{ qp_state = "RTS", sq_psn = 0 }
  return q
end
local qa, qb = ud(), ud()
local gid = ctx:query_gid(1, gidx)
local ah = pd:create_ah{ is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = gidx, hop_limit = 1 } }
mr:write(0, "datagram!")
qb:post_recv{ wr_id = 2, sg_list = { { mr = mr, offset = 1024, length = 40 + 64 } } }
qa:post_send{ wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 0, length = 9 } },
  ud = { ah = ah, remote_qpn = qb.qp_num, remote_qkey = 0x11111111 } }
local recv
for _, wc in ipairs(cq:wait(2, 2000)) do if wc.opcode == "RECV" then recv = wc end end
print(mr:read(1024 + 40, 9))
-- The reply: an AH made from the receive's WC and GRH, back to its sender.
local grh = mr:read(1024, 40)
local attr = ctx:init_ah_from_wc(1, recv, grh)
print(attr.is_global, attr.grh.sgid_index)
local back = pd:create_ah_from_wc(recv, grh, 1)
mr:write(0, "reply")
qa:post_recv{ wr_id = 3, sg_list = { { mr = mr, offset = 2048, length = 40 + 64 } } }
qb:post_send{ wr_id = 4, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 0, length = 5 } },
  ud = { ah = back, remote_qpn = recv.src_qp, remote_qkey = 0x11111111 } }
cq:wait(2, 2000)
print(mr:read(2048 + 40, 5))
