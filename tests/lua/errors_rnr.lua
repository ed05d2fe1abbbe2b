-- RC SEND with no receive posted at the responder and rnr_retry = 0:
-- RNR_RETRY_EXC_ERR, the requester in ERR; a post after that flushes.
local L = dofile((arg[0]:match("^(.*)/") or ".") .. "/errors_lib.lua")
local check, seen = L.check, L.seen
local mr = L.pd:reg_mr(4096, "LOCAL_WRITE")
local a, cqa, b = L.pair{ a = { rts = { rnr_retry = 0 } } }
check(a.state == "RTS" and b.state == "RTS", "pair not in RTS: %s %s", a.state, b.state)

a:post_send{ wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 0, length = 64 } } }
local wc = L.wc(cqa, "SEND without a receive")
seen("SEND without receive", wc.status)
check(wc.status == "RNR_RETRY_EXC_ERR", "status %s, want RNR_RETRY_EXC_ERR", wc.status)
check(wc.wr_id == 1 and wc.qp_num == a.qp_num, "wr_id %s qp_num %s", wc.wr_id, wc.qp_num)
local text = tostring(wc)
check(text:find("cause: no receive was posted at the responder (RNR NAK) and rnr_retry ran out", 1, true), "%s", text)
print(text)
seen("requester state", a.state)
check(a.state == "ERR", "requester in %s, want ERR", a.state)
seen("responder state", b.state)

-- A post after ERR is accepted and flushed.
local ok, err = pcall(a.post_send, a, { wr_id = 2, opcode = "SEND", send_flags = "SIGNALED",
  sg_list = { { mr = mr, offset = 0, length = 64 } } })
seen("post_send in ERR", ok and "accepted" or tostring(err))
check(ok, "post_send in ERR raised: %s", tostring(err))
local flush = L.wc(cqa, "SEND after ERR")
seen("SEND after ERR", flush.status)
check(flush.status == "WR_FLUSH_ERR" and flush.wr_id == 2, "status %s wr_id %s, want WR_FLUSH_ERR 2", flush.status, flush.wr_id)
check(tostring(flush):find("The real error is the first completion with another status", 1, true), "%s", tostring(flush))
print(tostring(flush))
print("errors_rnr: ok")
