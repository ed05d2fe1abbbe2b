-- RDMA READ of mr_b into mr_a.
local s = dofile("tests/export/common.lua")()
s.mr_b:write(0, "secret data")
s.qp_a:post_send{ wr_id = 1, opcode = "RDMA_READ", send_flags = "SIGNALED",
  sg_list = { { mr = s.mr_a, offset = 0, length = 11 } },
  rdma = { remote_addr = s.mr_b.addr, rkey = s.mr_b.rkey } }
s.cq:wait(1, 2000)
print(s.mr_a:read(0, 11))
