-- No receive posted and rnr_retry 0: RNR_RETRY_EXC_ERR; the next SEND, in
-- a QP now in ERR, is flushed (WR_FLUSH_ERR).
local s = dofile("tests/export/common.lua")({ rnr_retry = 0 })
s.qp_a:post_send{ wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = s.mr_a, offset = 0, length = 8 } } }
local w1 = s.cq:wait(1, 2000)
s.qp_a:post_send{ wr_id = 2, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = s.mr_a, offset = 0, length = 8 } } }
local w2 = s.cq:wait(1, 2000)
print(w1[1].status, w2[1].status)
