-- Issue 19 item 4, and issue 14's one recorder: a verbs.trace function that
-- calls back into verbs. It runs once the binding has returned (the trace
-- is printed by lua/trace.lua from what lua/record.lua saw), so it may
-- destroy anything, even the object of the verb being shown; verbs it calls
-- are not recorded again; an error in it does not change the verb's outcome.
local R = dofile((arg[0]:gsub("[^/]*$", "")) .. "robust_lib.lua")
local ctx, pd, cq, caps = R.setup()
local gid_index = tonumber(os.getenv("RXE_GID_INDEX")) or 1

-- Runs fn with a recorder that runs `inside` for the calls matching `pat`;
-- returns what inside's pcall said (the first time).
local function recorded(pat, inside, fn)
  local said
  verbs.trace(function(call)
    if said == nil and call:find(pat, 1, true) then
      local ok, e = pcall(inside)
      said = ok and "ok" or tostring(e)
    end
  end)
  local ok, e = pcall(fn)
  verbs.trace(false)
  return said, ok, e
end

-- mr:dereg() recorded, the recorder deregisters it again: once, not twice.
local mr = pd:reg_mr(64, { "LOCAL_WRITE" })
local seen
local said, ok = recorded("ibv_dereg_mr", function() seen = tostring(mr); return mr:dereg() end,
  function() return mr:dereg() end)
R.check(ok, "mr:dereg() failed")
R.check(said:find("mr is destroyed", 1, true), "dereg in recorder: %s", said)
R.check(seen == "mr (destroyed)", "the recorder saw %s", seen)
print("observed: dereg inside dereg's recorder: " .. said)

-- ah:destroy() recorded, the recorder deallocates its PD: the AH is gone, so it works.
local apd = ctx:alloc_pd()
local ah = apd:create_ah{ is_global = 1, port_num = 1,
  grh = { dgid = ctx:query_gid(1, gid_index), sgid_index = gid_index, hop_limit = 1 } }
said, ok = recorded("ibv_destroy_ah", function() return apd:dealloc() end, function() return ah:destroy() end)
R.check(ok and said == "ok" and tostring(apd) == "pd (destroyed)", "dealloc in recorder: %s %s", tostring(said), tostring(apd))
print("observed: dealloc pd inside destroy ah's recorder: " .. said)

-- The recorder destroys the object whose failing verb is being shown: the
-- verb has returned, and its error is still the caller's.
local function qp_ex()
  return ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq, send_ops_flags = { "SEND" },
    cap = caps }
end
local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = caps }
local e
said, ok, e = recorded("ibv_modify_qp", function() return qp:destroy() end,
  function() return qp:modify{ qp_state = "RTS" } end)
R.check(not ok and e.verb == "ibv_modify_qp" and e.errname == "EINVAL", "modify: %s", tostring(e))
R.check(said == "ok" and tostring(qp) == "qp (destroyed)", "destroy in modify's recorder: %s", tostring(said))
print("observed: destroy qp inside modify's recorder: " .. said)
qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = caps }
qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }
local rmr = pd:reg_mr(64, { "LOCAL_WRITE" })
said, ok, e = recorded("ibv_post_recv", function() return qp:destroy() end, function()
  return qp:post_recv{ wr_id = 1, sg_list = { { mr = rmr, length = 8 }, { mr = rmr, length = 8 }, { mr = rmr, length = 8 } } }
end)
R.check(not ok and e.verb == "ibv_post_recv", "post_recv of 3 SGEs: %s", tostring(e))
R.check(said == "ok" and tostring(qp) == "qp (destroyed)", "destroy in post_recv's recorder: %s", tostring(said))
print("observed: destroy qp inside post_recv's recorder: " .. said)

local x = qp_ex()
x:wr_start(); x:wr_send(); x:wr_set_sge(rmr, 0, 8)
said, ok, e = recorded("ibv_wr_complete", function() return x:destroy() end, function() return x:wr_complete() end)
R.check(not ok and e.verb == "ibv_wr_complete", "wr_complete in RESET: %s", tostring(e))
R.check(said == "ok" and tostring(x) == "qp (destroyed)", "destroy in wr_complete's recorder: %s", tostring(said))
print("observed: destroy qp inside wr_complete's recorder: " .. said)

local ch = verbs.create_event_channel()
local id = ch:create_id("TCP")
-- On a fresh id, connect is refused before the verb (librdmacm would crash
-- on its NULL device), so nothing is shown; once the address is resolved the
-- verb is called, shown, and the recorder may destroy the id.
said, ok, e = recorded("rdma_connect", function() return id:destroy() end, function() return id:connect() end)
R.check(not ok and said == nil and tostring(e):find("rdma_connect: this cm_id has no device yet", 1, true),
  "connect on a fresh id: %s %s", tostring(said), tostring(e))
id:resolve_addr(nil, os.getenv("RXE_ADDR") .. ":7998", 2000)
local ev = ch:get_cm_event(5000)
R.check(ev and ev.event == "ADDR_RESOLVED", "resolve_addr: %s", tostring(ev and ev.event))
ev:ack()
said, ok, e = recorded("rdma_connect", function() return id:destroy() end, function() return id:connect() end)
R.check(not ok and said == "ok" and tostring(id) == "cm_id (destroyed)", "destroy in connect's recorder: %s %s",
  tostring(said), tostring(e))
print("observed: destroy id inside connect's recorder: " .. said)

-- get_cq_event recorded, the recorder destroys the CQ: the event was
-- counted first, so the destroy acks it (no hang).
local cch = ctx:create_comp_channel()
local ecq = ctx:create_cq(4, { channel = cch })
local eqp = pd:create_qp{ qp_type = "RC", send_cq = ecq, recv_cq = ecq, cap = caps }
eqp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }
eqp:post_recv{ wr_id = 7, sg_list = { { mr = rmr, length = 8 } } }
ecq:req_notify()
eqp:modify{ qp_state = "ERR" }   -- flushes the receive: a completion, so an event
eqp:destroy()
said, ok, e = recorded("ibv_get_cq_event", function() return ecq:destroy() end, function() return cch:get_cq_event(2000) end)
R.check(ok and rawequal(e, ecq), "get_cq_event: %s", tostring(e))
R.check(said == "ok" and tostring(ecq) == "cq (destroyed)", "destroy in get_cq_event's recorder: %s", tostring(said))
print("observed: destroy cq inside get_cq_event's recorder: " .. said)
cch:destroy()

-- A recorder that raises: the verb's outcome stands, the error is reported.
verbs.trace(function() error("boom") end)
local bpd = ctx:alloc_pd()
verbs.trace(false)
R.check(tostring(bpd):find("^pd "), "a verb under a failing recorder: %s", tostring(bpd))
bpd:dealloc()
print("observed: a failing recorder leaves the verb's result: " .. tostring(bpd))

-- A recorder that calls verbs: they work, and are not recorded again.
local calls, made = {}, {}
verbs.trace(function(call)
  calls[#calls + 1] = call
  made[#made + 1] = ctx:alloc_pd()
  made[#made + 1] = ctx:query_port(1).state
end)
local p = ctx:alloc_pd()
verbs.trace(false)
R.check(#calls == 1 and calls[1]:find("^ibv_alloc_pd%(ctx"), "recorded: %s", table.concat(calls, "; "))
R.check(tostring(made[1]):find("^pd ") and made[2] == "ACTIVE", "the recorder's verbs: %s %s", tostring(made[1]), tostring(made[2]))
print("observed: verbs called by a recorder: not recorded (" .. calls[1] .. ")")
made[1]:dealloc()
p:dealloc()
rmr:dereg()

-- A __gc metamethod runs whenever Lua allocates, also inside a binding that
-- holds handles: a destroy from it is refused there; from a collection that
-- Lua code asked for it works.
local said_gc
local function arm(victim)
  setmetatable({}, { __gc = function()
    local ok2, e2 = pcall(victim.destroy, victim)
    said_gc = ok2 and "ok" or tostring(e2)
  end })
end
local gcq = ctx:create_cq(1)
arm(gcq)
collectgarbage()
R.check(said_gc == "ok" and tostring(gcq) == "cq (destroyed)", "collectgarbage(): %s %s", tostring(said_gc), tostring(gcq))
print("observed: destroy from a __gc run by collectgarbage(): ok")
local inside
for _ = 1, 100000 do
  said_gc = nil
  arm(ctx:create_cq(1))
  pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = caps }:destroy()
  if said_gc and said_gc ~= "ok" then inside = said_gc break end
end
R.check(inside and inside:find("not from a __gc metamethod that the garbage collector runs inside '", 1, true),
  "no finalizer ran inside a binding: %s", tostring(inside))
print("observed: destroy from a __gc run inside a binding: " .. inside)
-- A trace function that yields (the traced verb ran in a coroutine) and
-- whose coroutine is dropped does not leave the trace deaf to every later call.
do
  local seen = 0
  verbs.trace(function() seen = seen + 1; if coroutine.isyieldable() then coroutine.yield() end end)
  local co = coroutine.create(function() return pd:reg_mr(64) end)
  R.check(coroutine.resume(co) and coroutine.status(co) == "suspended", "the trace function yielded")
  co = nil
  collectgarbage()
  local before = seen
  pd:reg_mr(64):dereg()
  verbs.trace(false)
  R.check(seen - before == 2, "calls traced after an abandoned yield: %d (want 2: reg_mr, dereg)", seen - before)
  print("observed: a trace function that yielded, its coroutine dropped: the trace goes on")
end
-- Once a trace has been on, the methods stay wrapped: their errors must still
-- name the caller's line, not the wrapper's.
do
  verbs.trace(true); verbs.trace(false)
  local here = debug.getinfo(1, "S").short_src
  local line = debug.getinfo(1, "l").currentline + 1
  local ok, e = pcall(function() return pd:reg_mr(-1) end)
  R.check(not ok and tostring(e):sub(1, #here + 1) == here .. ":" and tostring(e):find(":" .. line .. ": bad argument #1 to 'reg_mr'", 1, true),
    "an error after the trace names the caller's line %d: %s", line, tostring(e))
  print("observed: after the trace, errors name the caller's line")
end
print("robust_trace: ok")
