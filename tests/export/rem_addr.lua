-- A WRITE to an address no MR covers (0x10, a literal the export keeps as
-- it is): REM_ACCESS_ERR, and the requester goes to ERR.
local s = dofile("tests/export/common.lua")()
s.qp_a:post_send{ wr_id = 1, opcode = "RDMA_WRITE", send_flags = "SIGNALED",
  sg_list = { { mr = s.mr_a, offset = 0, length = 16 } },
  rdma = { remote_addr = 0x10, rkey = s.mr_b.rkey } }
local wcs = s.cq:wait(1, 2000)
print(wcs[1].status, s.qp_a:query().qp_state)
