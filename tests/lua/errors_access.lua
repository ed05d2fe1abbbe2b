-- RDMA WRITE into an MR registered without REMOTE_WRITE: REM_ACCESS_ERR at
-- the requester, both QPs in ERR, later posts flushed.
local L = dofile((arg[0]:match("^(.*)/") or ".") .. "/errors_lib.lua")
local check, seen = L.check, L.seen
local src = L.pd:reg_mr(4096, "LOCAL_WRITE")
local dst = L.pd:reg_mr(4096, "LOCAL_WRITE")           -- no REMOTE_WRITE
local rights = { init = { qp_access_flags = { "REMOTE_WRITE" } } }
local a, cqa, b, cqb = L.pair{ a = rights, b = rights }

a:post_send{ wr_id = 5, opcode = "RDMA_WRITE", send_flags = "SIGNALED",
  sg_list = { { mr = src, offset = 0, length = 16 } }, rdma = { remote_addr = dst.addr, rkey = dst.rkey } }
local wc = L.wc(cqa, "RDMA WRITE without REMOTE_WRITE")
seen("RDMA WRITE to an MR without REMOTE_WRITE", wc.status)
check(wc.status == "REM_ACCESS_ERR", "status %s, want REM_ACCESS_ERR", wc.status)
check(tostring(wc):find("cause: the responder's MR refused the access", 1, true), "%s", tostring(wc))
print(tostring(wc))
seen("requester state", a.state)
seen("responder state", b.state)
check(a.state == "ERR", "requester in %s, want ERR", a.state)

b:post_recv{ wr_id = 6, sg_list = { { mr = dst, offset = 0, length = 64 } } }
local flush = L.wc(cqb, "post_recv on the responder after ERR")
seen("post_recv on the responder after ERR", flush.status)
check(flush.status == "WR_FLUSH_ERR", "status %s, want WR_FLUSH_ERR", flush.status)
print("errors_access: ok")
