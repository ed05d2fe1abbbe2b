-- Verbs-level multicast from SDEV to RDEV (tests/vm/multicast.bats): two UD
-- QPs on RDEV attached with ibv_attach_mcast, one datagram to the group.
local sdev, rdev = arg[1], arg[2]
local GROUP, QKEY = "::ffff:239.1.2.9", 0x11111111
local gidx = tonumber(os.getenv("RXE_GID_INDEX"))
local cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 }
local function ud(pd, cq)
  local qp = pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq, cap = cap }
  qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = QKEY }
  qp:modify{ qp_state = "RTR" }
  return qp
end
local sctx, rctx = verbs.open(sdev), verbs.open(rdev)
local spd, scq, rpd, rcq = sctx:alloc_pd(), sctx:create_cq(4), rctx:alloc_pd(), rctx:create_cq(4)
local smr, rmr = spd:reg_mr(64, "LOCAL_WRITE"), rpd:reg_mr(512, "LOCAL_WRITE")
local s = ud(spd, scq)
s:modify{ qp_state = "RTS", sq_psn = 0 }
local r = { ud(rpd, rcq), ud(rpd, rcq) }
for i, q in ipairs(r) do
  q:attach_mcast(GROUP, 0)
  q:post_recv{ wr_id = i, sg_list = { { mr = rmr, offset = (i - 1) * 256, length = 256 } } }
end
local ah = spd:create_ah{ is_global = 1, port_num = 1, grh = { dgid = GROUP, sgid_index = gidx, hop_limit = 1 } }
smr:write(0, "to the group")
s:post_send{ wr_id = 9, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = smr, offset = 0, length = 12 } },
  ud = { ah = ah, remote_qpn = 0xffffff, remote_qkey = QKEY } }
assert(scq:wait(1, 2000)[1].status == "SUCCESS")
local got = rcq:wait(2, 1500)
local text = #got == 2 and (' "%s" on both QPs'):format(rmr:read(40, 12)) or ""
if #got == 2 and rmr:read(296, 12) ~= rmr:read(40, 12) then text = " (different bytes)" end
print(("verbs: received %d of 1 on %s%s"):format(#got // 2, rdev, #got > 0 and ":" .. text or ""))
for _, q in ipairs(r) do q:detach_mcast(GROUP, 0) end
