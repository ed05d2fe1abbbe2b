-- RDMA WRITE into an MR registered without REMOTE_WRITE: REM_ACCESS_ERR at
-- the requester, both QPs in ERR, the responder's receives flushed.
local L = dofile((arg[0]:match("^(.*)/") or ".") .. "/errors_lib.lua")
local check, seen = L.check, L.seen
local src = L.pd:reg_mr(4096, "LOCAL_WRITE")
local dst = L.pd:reg_mr(4096, "LOCAL_WRITE")           -- no REMOTE_WRITE
local rights = { init = { qp_access_flags = { "REMOTE_WRITE" } } }
local a, cqa, b, cqb = L.pair{ a = rights, b = rights }
b:post_recv{ wr_id = 60, sg_list = { { mr = dst, offset = 0, length = 64 } } }   -- outstanding at the error

a:post_send{ wr_id = 5, opcode = "RDMA_WRITE", send_flags = "SIGNALED",
  sg_list = { { mr = src, offset = 0, length = 16 } }, rdma = { remote_addr = dst.addr, rkey = dst.rkey } }
local wc = L.wc(cqa, "RDMA WRITE without REMOTE_WRITE")
seen("RDMA WRITE to an MR without REMOTE_WRITE", wc.status)
check(wc.status == "REM_ACCESS_ERR", "status %s, want REM_ACCESS_ERR", wc.status)
check(tostring(wc):find("cause: the responder's MR refused the access", 1, true), "%s", tostring(wc))
print(tostring(wc))
seen("requester state", a.state)
seen("responder state", b.state)
check(a.state == "ERR" and b.state == "ERR", "requester in %s, responder in %s, want ERR ERR", a.state, b.state)

-- The receive that was outstanding is flushed.
local flushed = L.wc(cqb, "the responder's outstanding receive")
seen("responder's outstanding receive", ("%s wr_id=%d"):format(flushed.status, flushed.wr_id))
check(flushed.status == "WR_FLUSH_ERR" and flushed.wr_id == 60, "%s", tostring(flushed))

-- rxe: a receive posted after ERR is only written to the queue (no doorbell):
-- it completes when something kicks the responder, e.g. another modify to ERR.
b:post_recv{ wr_id = 61, sg_list = { { mr = dst, offset = 0, length = 64 } } }
local none = cqb:wait(1, 1500)
seen("post_recv in ERR, completions within 1.5 s", #none)
b:modify{ qp_state = "ERR" }
local late = L.wc(cqb, "the receive posted in ERR, after modify to ERR")
seen("after modify to ERR", ("%s wr_id=%d"):format(late.status, late.wr_id))
check(late.status == "WR_FLUSH_ERR" and late.wr_id == 61, "%s", tostring(late))
print("errors_access: ok")
