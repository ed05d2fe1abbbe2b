-- Arguments a method does not take are errors naming the first one, never
-- silently ignored (qp:query("qp_state") queried everything); C's positional
-- channel of ibv_create_cq is pointed to its verbsh form; flag integers with
-- bits that no flag defines are refused, as enum integers out of range are.
local L = dofile((arg[0]:match("^(.*)/") or ".") .. "/errors_lib.lua")
local check, ctx, pd = L.check, L.ctx, L.pd
local n = 0

-- A plain Lua error (not a verb's) that contains want; prints it.
local function refused(what, want, fn, ...)
  local ok, e = pcall(fn, ...)
  check(not ok, "%s: expected an error, but it succeeded", what)
  check(type(e) == "string" and e:find(want, 1, true), "%s: wanted %q in: %s", what, want, tostring(e))
  print("observed: " .. what .. ": " .. e)
  n = n + 1
end

local qp, cq = L.qp("RC")
local mr = pd:reg_mr(64, "LOCAL_WRITE")
refused("qp:query(\"qp_statee\")", "bad argument #1 to 'query' (qp:query() takes no arguments, got 1 (the first: a "
  .. "string); it queries every attribute (C's attr_mask is all of them): read the one you want from the table it "
  .. "gives, qp:query().qp_state, or the live field qp.state)", qp.query, qp, "qp_statee")
refused("ctx:query_device(\"x\")", "bad argument #1 to 'query_device' (ctx:query_device() takes no arguments, got 1 "
  .. "(the first: a string))", ctx.query_device, ctx, "x")
refused("ctx:query_port(1, 2)", "bad argument #2 to 'query_port' (ctx:query_port([port]) takes at most 1 argument, "
  .. "got 2 (the first extra one: a number))", ctx.query_port, ctx, 1, 2)
refused("ctx:query_gid(1, i, 5)", "bad argument #3 to 'query_gid' (ctx:query_gid(port, index) takes at most 2 "
  .. "arguments, got 3", ctx.query_gid, ctx, 1, L.gid_index, 5)
refused("cq:poll(1, 2)", "bad argument #2 to 'poll' (cq:poll([max]) or cq:poll(wcs) takes at most 1 argument, got 2",
  cq.poll, cq, 1, 2)
refused("ctx:alloc_pd({})", "bad argument #1 to 'alloc_pd' (ctx:alloc_pd() takes no arguments", ctx.alloc_pd, ctx, {})
refused("mr:read(0, 4, 1)", "bad argument #3 to 'read' (mr:read([off [, len]]) takes at most 2 arguments", mr.read,
  mr, 0, 4, 1)
local cq2 = ctx:create_cq(4)
refused("cq:destroy(true)", "bad argument #1 to 'destroy' (cq:destroy() takes no arguments", cq2.destroy, cq2, true)
cq2:destroy()
-- trailing nils are no arguments
check(qp:query(nil).qp_state == "RESET", "qp:query(nil)")
check(#ctx:query_gid(1, L.gid_index, nil) > 0, "query_gid(port, index, nil)")

-- ibv_create_cq(ctx, cqe, cq_context, channel, comp_vector) in a row
local ch = ctx:create_comp_channel()
refused("ctx:create_cq(4, ch)", "bad argument #2 to 'create_cq' (table expected, got verbs.comp_channel: the channel "
  .. "and comp_vector are keys of a table in verbsh: ctx:create_cq(cqe [, { channel = ch, comp_vector = 0 }]), e.g. "
  .. "ctx:create_cq(16, { channel = ch }))", ctx.create_cq, ctx, 4, ch)
refused("ctx:create_cq(4, nil, ch, 0)", "bad argument #3 to 'create_cq' (more than 2 arguments: the channel and "
  .. "comp_vector are keys of a table in verbsh", ctx.create_cq, ctx, 4, nil, ch, 0)
refused("ctx:create_cq{cqe = 4, channel = ch}", "bad argument #1 to 'create_cq' (cqe: integer expected, got table: "
  .. "in verbsh it is ctx:create_cq(cqe [, { channel = ch, comp_vector = 0 }])", ctx.create_cq, ctx,
  { cqe = 4, channel = ch })
-- cq.channel: the channel given, the same object; nil without one (two CQs, two channels)
local ch2 = ctx:create_comp_channel()
local cqa, cqb, cqn = ctx:create_cq(4, { channel = ch }), ctx:create_cq(4, { channel = ch2 }), ctx:create_cq(4)
check(rawequal(cqa.channel, ch) and rawequal(cqb.channel, ch2) and cqn.channel == nil, "cq.channel: %s %s %s",
  tostring(cqa.channel), tostring(cqb.channel), tostring(cqn.channel))
local cqx = ctx:create_cq_ex{ cqe = 4, channel = ch2 }
check(rawequal(cqx.channel, ch2), "cq_ex.channel: %s", tostring(cqx.channel))
for _, c in ipairs { cqa, cqb, cqn, cqx } do c:destroy() end

-- flags: bits no enumerator defines
refused("qp_access_flags = 0xFFFFFFFF", "bad argument #1 to 'modify' (key 'qp_access_flags': 0xffefff00 has bits no "
  .. "IBV_ACCESS_* flag defines (0xffffffff given; the flags: LOCAL_WRITE = 0x1, REMOTE_WRITE = 0x2,", qp.modify, qp,
  L.INIT{ qp_access_flags = 0xFFFFFFFF })
check(qp.state == "RESET", "still RESET: %s", qp.state)
refused("reg_mr access 0x100", "0x100 has bits no IBV_ACCESS_* flag defines", pd.reg_mr, pd, 64, 0x100)
refused("qp_access_flags = { \"REMOTE_WRITE\", 0x400 }", "key 'qp_access_flags': 0x400 has bits no IBV_ACCESS_* flag "
  .. "defines", qp.modify, qp, L.INIT{ qp_access_flags = { "REMOTE_WRITE", 0x400 } })
qp:modify(L.INIT{ qp_access_flags = 0x7 })   -- defined bits as an integer pass
check(qp.state == "INIT", "INIT with qp_access_flags = 7: %s", qp.state)
local flags = qp:query().qp_access_flags
check(type(flags) == "table" and #flags == 3, "qp_access_flags given back as 3 names: %s", tostring(flags))
print(("errors_args: ok (%d refused)"):format(n))
