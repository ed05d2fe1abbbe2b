-- UD on rxe: Q_Key, an address handle, the 40-byte GRH in front of every
-- received payload (byte_len = payload + 40), SEND_WITH_IMM, and a Q_Key
-- mismatch that drops the datagram while the sender sees SUCCESS.
local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/verbs_lib.lua")
local check, eq = T.check, T.eq
local QKEY = 0x11111111

local ctx = verbs.open(os.getenv("RXE_DEV"))
local gid = ctx:query_gid(1, T.gid_index)
local pd = ctx:alloc_pd()
local cq_a, cq_b = ctx:create_cq(16), ctx:create_cq(16)
local mr = pd:reg_mr(4096, "LOCAL_WRITE")

local function ud_qp(cq)
  local qp = pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq,
    cap = { max_send_wr = 8, max_recv_wr = 8, max_send_sge = 1, max_recv_sge = 1 } }
  qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = QKEY }
  qp:modify{ qp_state = "RTR" }
  qp:modify{ qp_state = "RTS", sq_psn = 0 }
  return qp
end
local a, b = ud_qp(cq_a), ud_qp(cq_b)
eq(a.state, "RTS", "UD state"); eq(a.qp_type, "UD", "UD qp_type")
eq(b:query().qkey, QKEY, "query qkey")

local ah = pd:create_ah{ is_global = 1, port_num = 1, sl = 0,
                         grh = { dgid = gid, sgid_index = T.gid_index, hop_limit = 1 } }
check(tostring(ah):match("^ah "), "ah tostring %s", tostring(ah))

-- 9 bytes into a receive of 40 + 64
mr:write(0, "ud hello!")
b:post_recv{ wr_id = 50, sg_list = { { mr = mr, offset = 1024, length = 40 + 64 } } }
a:post_send{ wr_id = 51, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 0, length = 9 } },
             ud = { ah = ah, remote_qpn = b.qp_num, remote_qkey = QKEY } }
local s, r = T.wc(cq_a, "UD SEND"), T.wc(cq_b, "UD RECV")
eq(s.status, "SUCCESS", "UD send status"); eq(s.opcode, "SEND", "UD send opcode")
eq(r.status, "SUCCESS", "UD recv status"); eq(r.opcode, "RECV", "UD recv opcode"); eq(r.wr_id, 50, "UD recv wr_id")
eq(r.byte_len, 9 + 40, "UD byte_len = payload + 40 (GRH)")
eq(r.src_qp, a.qp_num, "UD src_qp")
eq(r.wc_flags[1], "GRH", "UD wc_flags has GRH")
eq(mr:read(1024 + 40, 9), "ud hello!", "payload at offset 40")
-- RoCEv2 over IPv4: the IPv4 header is in bytes 20..39 of the GRH.
local ip = mr:read(1024 + 20, 20)
eq(ip:byte(1), 0x45, "IPv4 header version/IHL at GRH offset 20")
local v4 = gid:match("::ffff:(.*)$")
eq(("%d.%d.%d.%d"):format(ip:byte(17, 20)), v4, "IPv4 destination in the GRH")
print("UD RECV: " .. tostring(r))

-- Answering the sender from its WC and GRH: init_ah_from_wc gives the
-- address back to a's GID, create_ah_from_wc an AH that reaches a.
local grh = mr:read(1024, 40)
local back = ctx:init_ah_from_wc(1, r, grh)
eq(back.is_global, 1, "init_ah_from_wc is_global"); eq(back.grh.dgid, gid, "init_ah_from_wc dgid is the sender's")
eq(back.port_num, 1, "init_ah_from_wc port_num")
for _, bad in ipairs{ grh:sub(1, 39), grh .. "x" } do
  local e = T.raises(#bad .. "-byte GRH", ctx.init_ah_from_wc, ctx, 1, r, bad)
  check(tostring(e):find("the 40-byte GRH in front of the payload expected (mr:read(offset, 40)), got a string of another length",
    1, true), "%d-byte GRH: %s", #bad, tostring(e))
end
local e = T.raises("imm_data of 2^32", pd.create_ah_from_wc, pd, { status = "SUCCESS", wc_flags = "GRH", imm_data = 1 << 32 }, grh, 1)
check(tostring(e):find("imm_data': 32-bit unsigned integer expected", 1, true), "imm_data 2^32: %s", tostring(e))
-- the port is required (C has no default): none is named, whatever the WC
e = T.raises("create_ah_from_wc without a port", pd.create_ah_from_wc, pd, r, grh)
check(tostring(e):find("(port_num: integer expected, got no value)", 1, true), "no port_num: %s", tostring(e))
local reply_ah = pd:create_ah_from_wc(r, grh, 1)
a:post_recv{ wr_id = 60, sg_list = { { mr = mr, offset = 3072, length = 40 + 64 } } }
b:post_send{ wr_id = 61, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 0, length = 2 } },
             ud = { ah = reply_ah, remote_qpn = r.src_qp, remote_qkey = QKEY } }
eq(T.wc(cq_b, "reply SEND").status, "SUCCESS", "reply through create_ah_from_wc sent")
local back_r = T.wc(cq_a, "reply RECV")
eq(back_r.wr_id, 60, "reply received by a"); eq(back_r.src_qp, b.qp_num, "reply's src_qp is b")

-- SEND_WITH_IMM
b:post_recv{ wr_id = 52, sg_list = { { mr = mr, offset = 2048, length = 40 + 64 } } }
a:post_send{ wr_id = 53, opcode = "SEND_WITH_IMM", send_flags = "SIGNALED", imm_data = 0xabcdef01,
             sg_list = { { mr = mr, offset = 0, length = 2 } },
             ud = { ah = ah, remote_qpn = b.qp_num, remote_qkey = QKEY } }
s, r = T.wc(cq_a, "UD SEND_WITH_IMM"), T.wc(cq_b, "UD RECV imm")
eq(r.imm_data, 0xabcdef01, "UD imm_data"); eq(r.byte_len, 42, "UD imm byte_len")
eq(table.concat(r.wc_flags, ","), "GRH,WITH_IMM", "UD imm wc_flags")

-- Q_Key mismatch: sender SUCCESS, nothing arrives; the receive stays posted
b:post_recv{ wr_id = 54, sg_list = { { mr = mr, offset = 3072, length = 40 + 64 } } }
a:post_send{ wr_id = 55, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 0, length = 9 } },
             ud = { ah = ah, remote_qpn = b.qp_num, remote_qkey = QKEY + 1 } }
s = T.wc(cq_a, "UD SEND wrong qkey")
eq(s.status, "SUCCESS", "wrong Q_Key: sender still sees SUCCESS")
eq(#cq_b:wait(1, 300), 0, "wrong Q_Key: no receive completion")
a:post_send{ wr_id = 56, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 0, length = 3 } },
             ud = { ah = ah, remote_qpn = b.qp_num, remote_qkey = QKEY } }
T.wc(cq_a, "UD SEND right qkey")
r = T.wc(cq_b, "UD RECV after mismatch")
eq(r.wr_id, 54, "the receive was still there"); eq(r.byte_len, 43, "byte_len after mismatch")

-- A UD send without ud = {...}: the WR names no destination
local e = T.raises("UD send without ah", a.post_send, a, { wr_id = 57, opcode = "SEND",
  sg_list = { { mr = mr, offset = 0, length = 3 } } })
check(tostring(e):find("key 'ud.ah' is required on a UD QP", 1, true), "UD send without ah: %s", tostring(e))
-- INLINE copies from process memory: a raw address outside any MR is refused
e = T.raises("INLINE from a raw address", a.post_send, a, { wr_id = 58, opcode = "SEND", send_flags = "INLINE",
  sg_list = { { addr = 16, length = 8, lkey = mr.lkey } }, ud = { ah = ah, remote_qpn = b.qp_num, remote_qkey = QKEY } })
check(tostring(e):find("not inside an MR of verbsh", 1, true), "INLINE raw addr: %s", tostring(e))
-- ... and so is one that starts inside the MR but runs past its end
e = T.raises("INLINE past the MR's end", a.post_send, a, { wr_id = 58, opcode = "SEND", send_flags = "INLINE",
  sg_list = { { addr = mr.addr + 4090, length = 16, lkey = mr.lkey } }, ud = { ah = ah, remote_qpn = b.qp_num, remote_qkey = QKEY } })
check(tostring(e):find("not inside an MR of verbsh", 1, true), "INLINE past the end: %s", tostring(e))
-- INLINE from an MR works, and needs no lkey
b:post_recv{ wr_id = 59, sg_list = { { mr = mr, offset = 1024, length = 40 + 64 } } }
mr:write(512, "inline!")
a:post_send{ wr_id = 60, opcode = "SEND", send_flags = { "INLINE", "SIGNALED" }, sg_list = { { mr = mr, offset = 512, length = 7 } },
             ud = { ah = ah, remote_qpn = b.qp_num, remote_qkey = QKEY } }
T.wc(cq_a, "INLINE send")
r = T.wc(cq_b, "INLINE recv")
eq(r.byte_len, 47, "INLINE byte_len"); eq(mr:read(1024 + 40, 7), "inline!", "INLINE payload")

ah:destroy(); reply_ah:destroy(); a:destroy(); b:destroy(); mr:dereg(); cq_a:destroy(); cq_b:destroy(); pd:dealloc(); ctx:close()
T.done("verbs_ud")
