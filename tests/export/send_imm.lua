-- SEND_WITH_IMM: imm_data and WITH_IMM at the receiver.
local s = dofile("tests/export/common.lua")()
s.qp_b:post_recv{ wr_id = 2, sg_list = { { mr = s.mr_b, offset = 0, length = 64 } } }
s.qp_a:post_send{ wr_id = 1, opcode = "SEND_WITH_IMM", imm_data = 0xcafe, send_flags = "SIGNALED",
  sg_list = { { mr = s.mr_a, offset = 0, length = 8 } } }
local wcs = s.cq:wait(2, 2000)
for _, wc in ipairs(wcs) do print(wc.wr_id, wc.opcode, wc.imm_data) end
