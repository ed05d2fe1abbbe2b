-- Synchronous post errors: post_recv in RESET; the WR index in a list.
local L = dofile((arg[0]:match("^(.*)/") or ".") .. "/errors_lib.lua")
local check, seen = L.check, L.seen
local mr = L.pd:reg_mr(4096, "LOCAL_WRITE")
local qp = L.qp("RC")

local e = L.fails("post_recv in RESET", qp.post_recv, qp, { wr_id = 7, sg_list = { { mr = mr, offset = 0, length = 64 } } })
check(e.errname == "EINVAL" and e.errno == 22, "post_recv in RESET: %s %s", e.errname, e.errno)
check(e.verb == "ibv_post_recv", "post_recv in RESET: verb %s", e.verb)
check(tostring(e):find("post_recv on a QP in RESET: its receive queue takes WRs from INIT on", 1, true),
  "post_recv in RESET:\n%s", tostring(e))
check(tostring(e):find("RC QP in RESET, WR #1 (wr_id=7)", 1, true), "post_recv in RESET, headline:\n%s", tostring(e))
seen("post_recv in RESET", ("%s %d bad_wr=%s"):format(e.errname, e.errno, tostring(e.context.bad_wr)))

-- In INIT the same receive is accepted.
qp:modify(L.INIT())
qp:post_recv{ wr_id = 8, sg_list = { { mr = mr, offset = 0, length = 64 } } }
seen("post_recv in INIT", "accepted")

-- post_send in INIT: rxe refuses until RTS.
local ok, e2 = pcall(qp.post_send, qp, { wr_id = 9, opcode = "SEND", sg_list = { { mr = mr, offset = 0, length = 8 } } })
seen("post_send in INIT", ok and "accepted" or ("%s %d"):format(e2.errname, e2.errno))
if not ok then
  check(tostring(e2):find("post_send on a QP in INIT: its send queue takes WRs only in RTS", 1, true),
    "post_send in INIT:\n%s", tostring(e2))
end
print("errors_post: ok")
