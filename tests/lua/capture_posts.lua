-- cap:posts() of captures one after another, and of two at once, on one
-- rxe device (its own loop shows no frame; the posts are noted all the
-- same): each capture keeps the WRs posted while it ran, whatever starts
-- after it. Prints "capture_posts: ok (N checks)".
local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/verbs_lib.lua")
local eq = T.eq
local K = require "verbs.lesson_kit"
K.rc_pair()
local qp_a, qp_b, mr_a, mr_b, cq = qp_a, qp_b, mr_a, mr_b, cq   -- (the kit made them global)
local dev = ctx.name

local function send(wr_id, len)
  qp_b:post_recv{ wr_id = 1000 + wr_id, sg_list = { { mr = mr_b, offset = 0, length = 64 } } }
  qp_a:post_send{ wr_id = wr_id, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr_a, offset = 0, length = len } } }
  eq(#cq:wait(2, 2000), 2, "SEND and RECV of wr_id " .. wr_id)
end
local function ids(cap)
  local t = {}
  for _, p in ipairs(cap:posts()) do t[#t + 1] = ("%d/%s/%d"):format(p.wr_id, p.opcode, p.length) end
  return table.concat(t, " ")
end

send(1, 3)                        -- before any capture: in none
local first = verbs.capture{ device = dev }
send(5, 11)
first:stop()
send(2, 3)                        -- between the two: in none
local second = verbs.capture{ device = dev }
send(6, 13)
second:stop()
eq(ids(first), "5/SEND/11", "the first capture's posts, after a second one ran")
eq(ids(second), "6/SEND/13", "the second capture's posts")
-- two at once: the one started second sees only what came after its start
local outer = verbs.capture{ device = dev }
send(7, 17)
local inner = verbs.capture{ device = dev }
send(8, 19)
inner:stop()
send(9, 23)
outer:stop()
eq(ids(outer), "7/SEND/17 8/SEND/19 9/SEND/23", "the outer capture's posts")
eq(ids(inner), "8/SEND/19", "the inner capture's posts")
eq(ids(first), "5/SEND/11", "the first capture's posts, still")
local p = second:posts()[1]
eq(p.qp, "qp1", "the post's QP: qp_a, the first QP made"); eq(p.qp_num, qp_a.qp_num, "the post's qp_num")
eq(p.dest_qp, qp_b.qp_num, "an RC post's dest_qp: the connected QP"); eq(p.qp_type, "RC", "qp_type")
T.done("capture_posts")
