-- FETCH_ADD then COMPARE_SWAP on a 64-bit counter in mr_b; the original
-- values come back into mr_a.
local s = dofile("tests/export/common.lua")()
s.mr_b:write(0, string.pack("<I8", 40))
s.qp_a:post_send{ wr_id = 1, opcode = "ATOMIC_FETCH_AND_ADD", send_flags = "SIGNALED",
  sg_list = { { mr = s.mr_a, offset = 0, length = 8 } },
  atomic = { remote_addr = s.mr_b.addr, rkey = s.mr_b.rkey, compare_add = 2 } }
s.cq:wait(1, 2000)
s.qp_a:post_send{ wr_id = 2, opcode = "ATOMIC_CMP_AND_SWP", send_flags = "SIGNALED",
  sg_list = { { mr = s.mr_a, offset = 8, length = 8 } },
  atomic = { remote_addr = s.mr_b.addr, rkey = s.mr_b.rkey, compare_add = 42, swap = 7 } }
s.cq:wait(1, 2000)
print(s.mr_a:read(0, 16):byte(1, -1))
print(s.mr_b:read(0, 8):byte(1, -1))
