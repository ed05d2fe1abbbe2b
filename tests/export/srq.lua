-- An SRQ feeds qp_b's receives.
local s = dofile("tests/export/common.lua")({ srq = true })
s.srq:post_recv{ { wr_id = 10, sg_list = { { mr = s.mr_b, offset = 0, length = 64 } } },
                 { wr_id = 11, sg_list = { { mr = s.mr_b, offset = 64, length = 64 } } } }
s.mr_a:write(0, "via srq")
s.qp_a:post_send{ wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = s.mr_a, offset = 0, length = 7 } } }
s.cq:wait(2, 2000)
print(s.mr_b:read(0, 7))
-- The limit that arms IBV_EVENT_SRQ_LIMIT_REACHED, set and read back.
s.srq:modify{ srq_limit = 1 }
print(s.srq:query().srq_limit)
-- The last receive taken drops the SRQ below its limit: the async event.
s.mr_a:write(0, "and again")
s.qp_a:post_send{ wr_id = 2, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = s.mr_a, offset = 0, length = 9 } } }
s.cq:wait(2, 2000)
print(s.mr_b:read(64, 9))
local ev = s.ctx:get_async_event(2000)
print(ev and ev.event_type, ev and ev.srq == s.srq)
