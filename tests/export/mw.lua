-- Memory windows: a type 1 window bound with ibv_bind_mw, a type 2 window
-- bound by a BIND_MW WR and by ibv_wr_bind_mw, revoked by SEND_WITH_INV
-- and LOCAL_INV, READs through them, and the READ that fails once revoked.
local s = dofile("tests/export/common.lua"){ access = { "LOCAL_WRITE", "MW_BIND" } }
local pd, cq, a, b, mr_a, mr_b = s.pd, s.cq, s.qp_a, s.qp_b, s.mr_a, s.mr_b
mr_b:write(0, "through a window, not the MR")
local function read(id, rkey, off, len)
  a:post_send{ wr_id = id, opcode = "RDMA_READ", send_flags = "SIGNALED",
    sg_list = { { mr = mr_a, offset = 0, length = len } }, rdma = { remote_addr = mr_b.addr + off, rkey = rkey } }
  cq:wait(1, 5000)
end
local mw1 = pd:alloc_mw("TYPE_1")
local rkey = b:bind_mw(mw1, { wr_id = 1, send_flags = "SIGNALED",
  bind_info = { mr = mr_b, addr = mr_b.addr + 10, length = 6, mw_access_flags = "REMOTE_READ" } })
cq:wait(1, 5000)
read(2, rkey, 10, 6)
print(mr_a:read(0, 6))
local mw2 = pd:alloc_mw("TYPE_2")
local k = verbs.inc_rkey(mw2.rkey)
b:post_send{ wr_id = 3, opcode = "BIND_MW", send_flags = "SIGNALED",
  bind_mw = { mw = mw2, rkey = k, bind_info = { mr = mr_b, addr = mr_b.addr, length = 16, mw_access_flags = "REMOTE_READ" } } }
cq:wait(1, 5000)
read(4, k, 0, 7)
print(mr_a:read(0, 7))
b:post_send{ wr_id = 5, opcode = "LOCAL_INV", send_flags = "SIGNALED", invalidate_rkey = k }
cq:wait(1, 5000)
mw2.rkey = k
b:post_recv{ wr_id = 6, sg_list = { { mr = mr_a, offset = 64, length = 16 } } }
k = verbs.inc_rkey(k)
b:post_send{ wr_id = 7, opcode = "BIND_MW", send_flags = "SIGNALED",
  bind_mw = { mw = mw2, rkey = k, bind_info = { mr = mr_b, addr = mr_b.addr, length = 16, mw_access_flags = "REMOTE_READ" } } }
cq:wait(1, 5000)
a:post_send{ wr_id = 8, opcode = "SEND_WITH_INV", send_flags = "SIGNALED", invalidate_rkey = k,
  sg_list = { { mr = mr_a, offset = 0, length = 4 } } }
cq:wait(2, 5000)
mw1:dealloc()
read(9, k, 0, 4)
print(a.state)
