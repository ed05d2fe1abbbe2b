-- Object lifetimes: use after destroy, parents refusing to go while children
-- live (naming them), children keeping collected parents alive, garbage
-- collection in any order, <close>, and the kernel's own count of objects
-- (rdma resource show) going back to zero.
local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/verbs_lib.lua")
local check, eq = T.check, T.eq
local dev = os.getenv("RXE_DEV") or "rxe0"

-- The kernel's count of this device's objects: { pd = n, cq = n, qp = n, mr = n, ... }
local function resources()
  local f = assert(io.popen("rdma resource show 2>&1"))
  local out = f:read("a"); f:close()
  local line = out:match("[^\n]*" .. dev .. ":[^\n]*") or ""
  local t = {}
  for k, v in line:gmatch("(%a[%w_]*) (%d+)") do t[k] = tonumber(v) end
  return t, line
end
local base, base_line = resources()
print("before: " .. base_line)
check(base.qp ~= nil and base.pd ~= nil, "rdma resource show: no counts in %q", base_line)
local function delta(what)
  local now, line = resources()
  return function(k) return (now[k] or 0) - (base[k] or 0) end, line
end

local function qp_attr(cq)
  return { qp_type = "RC", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }
end

-- 1. Use after destroy, and a parent that refuses while children live.
do
  local ctx = verbs.open(dev)
  local pd = ctx:alloc_pd()
  local cq = ctx:create_cq(8)
  local qp = pd:create_qp(qp_attr(cq))
  local mr = pd:reg_mr(4096, "LOCAL_WRITE")
  local d = delta()
  eq(d"qp", 1, "kernel sees 1 QP"); eq(d"mr", 1, "kernel sees 1 MR"); eq(d"pd", 1, "kernel sees 1 PD")

  local e = T.raises("pd:dealloc with children", pd.dealloc, pd)
  check(tostring(e):find(("qp RC 0x%06x RESET"):format(qp.qp_num), 1, true), "dealloc names the QP: %s", tostring(e))
  check(tostring(e):find("mr 4096 bytes", 1, true), "dealloc names the MR: %s", tostring(e))
  check(tostring(e):find("destroy them first", 1, true), "dealloc says what to do: %s", tostring(e))
  print("pd:dealloc with children: " .. tostring(e))
  e = T.raises("cq:destroy in use", cq.destroy, cq)
  check(tostring(e):find("still used by 1 object: qp", 1, true), "cq destroy names the QP: %s", tostring(e))
  e = T.raises("ctx:close with children", ctx.close, ctx)
  check(tostring(e):find("pd", 1, true) and tostring(e):find("cq", 1, true), "ctx:close names pd and cq: %s", tostring(e))

  qp:destroy()
  eq(tostring(qp), "qp (destroyed)", "tostring of a destroyed qp")
  e = T.raises("modify after destroy", qp.modify, qp, { qp_state = "INIT" })
  check(tostring(e):find("qp is destroyed", 1, true), "modify after destroy: %s", tostring(e))
  e = T.raises("qp.state after destroy", function() return qp.state end)
  check(tostring(e):find("qp is destroyed", 1, true), "state after destroy: %s", tostring(e))
  e = T.raises("destroy twice", qp.destroy, qp)
  check(tostring(e):find("qp is destroyed", 1, true), "destroy twice: %s", tostring(e))

  -- A WR naming a deregistered MR is refused before anything is posted.
  local qp2 = pd:create_qp(qp_attr(cq))
  qp2:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }
  local mr2 = pd:reg_mr(64, "LOCAL_WRITE")
  mr2:dereg()
  e = T.raises("post_recv with a deregistered MR", qp2.post_recv, qp2, { wr_id = 1, sg_list = { { mr = mr2 } } })
  check(tostring(e):find("key 'sg_list[1].mr': mr is destroyed", 1, true), "dereg'd MR in a WR: %s", tostring(e))
  e = T.raises("mr:read after dereg", mr2.read, mr2)
  check(tostring(e):find("mr is destroyed", 1, true), "read after dereg: %s", tostring(e))
  qp2:destroy()

  mr:dereg(); cq:destroy(); pd:dealloc(); ctx:close()
  d = delta()
  eq(d"qp", 0, "no QP left"); eq(d"mr", 0, "no MR left"); eq(d"pd", 0, "no PD left"); eq(d"cq", 0, "no CQ left")
end

-- 2. A child keeps collected parents alive: drop ctx and pd, collect, use the QP.
do
  local ctx = verbs.open(dev)
  local pd = ctx:alloc_pd()
  local cq = ctx:create_cq(8)
  local qp = pd:create_qp(qp_attr(cq))
  ctx, pd, cq = nil, nil, nil
  collectgarbage(); collectgarbage()
  local d = delta()
  eq(d"pd", 1, "the PD lives while its QP does"); eq(d"cq", 1, "the CQ lives while its QP does")
  qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }
  eq(qp.state, "INIT", "QP usable after its parents' references were dropped")
  check(tostring(qp.pd):match("^pd "), "qp.pd still there: %s", tostring(qp.pd))
  qp = nil
  collectgarbage(); collectgarbage()
  d = delta()
  eq(d"qp", 0, "GC destroyed the QP"); eq(d"pd", 0, "GC deallocated the PD"); eq(d"cq", 0, "GC destroyed the CQ")
end

-- 3. Many objects dropped at once, collected in whatever order the GC picks;
-- and a parent destroyed explicitly after its children were collected.
for round = 1, 3 do
  local ctx = verbs.open(dev)
  local pd = ctx:alloc_pd()
  local objs = {}
  for i = 1, 6 do
    local cq = ctx:create_cq(4)
    objs[#objs + 1] = cq
    objs[#objs + 1] = pd:create_qp(qp_attr(cq))
    objs[#objs + 1] = pd:reg_mr(4096 * i)
  end
  objs[#objs + 1] = pd:create_srq{ max_wr = 4, max_sge = 1 }
  objs[#objs + 1] = ctx:create_comp_channel()
  -- shuffle, then drop the references one by one with collections in between
  for i = #objs, 2, -1 do local j = (i * 7 + round) % i + 1; objs[i], objs[j] = objs[j], objs[i] end
  for i = 1, #objs do objs[i] = nil; if i % 4 == 0 then collectgarbage() end end
  if round == 1 then pd = nil; ctx = nil end
  collectgarbage(); collectgarbage()
  if pd then pd:dealloc(); ctx:close() end
  local d = delta()
  eq(d"qp" + d"cq" + d"mr" + d"pd" + d"srq", 0, "round " .. round .. ": everything collected")
end

-- 4. <close> destroys at the end of the block, children first.
do
  local ctx <close> = verbs.open(dev)
  local pd <close> = ctx:alloc_pd()
  local cq <close> = ctx:create_cq(4)
  local qp <close> = pd:create_qp(qp_attr(cq))
  eq(delta()"qp", 1, "QP while in scope")
end
collectgarbage()
local d, line = delta()
eq(d"qp" + d"cq" + d"pd" + d"mr", 0, "nothing left after <close>")
print("after: " .. line)

-- 5. Objects left for lua_close at exit (finalized in any order): created here, never freed.
local ctx = verbs.open(dev)
local pd = ctx:alloc_pd()
local cq = ctx:create_cq(4)
LEAK = { ctx = ctx, qp = pd:create_qp(qp_attr(cq)), mr = pd:reg_mr(4096), srq = pd:create_srq{ max_wr = 2, max_sge = 1 } }
T.done("verbs_lifecycle")
