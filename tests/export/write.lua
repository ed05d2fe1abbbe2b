-- RDMA WRITE into mr_b: the bytes land, no completion at the responder.
local s = dofile("tests/export/common.lua")()
s.mr_a:write(100, "written remotely")
s.qp_a:post_send{ wr_id = 1, opcode = "RDMA_WRITE", send_flags = "SIGNALED",
  sg_list = { { mr = s.mr_a, offset = 100, length = 16 } },
  rdma = { remote_addr = s.mr_b.addr + 512, rkey = s.mr_b.rkey } }
s.cq:wait(1, 2000)
print(s.mr_b:read(512, 16))
