-- SEND/RECV: the receive's bytes and byte_len.
local s = dofile("tests/export/common.lua")()
s.mr_a:write(0, "hello, verbs")
s.qp_b:post_recv{ wr_id = 2, sg_list = { { mr = s.mr_b, offset = 0, length = 64 } } }
s.qp_a:post_send{ wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = s.mr_a, offset = 0, length = 12 } } }
s.cq:wait(2, 2000)
print(s.mr_b:read(0, 12))
