-- What a run made and did not destroy, read from its verb calls.
--
--   verbsh -e 'dofile "tests/lua/leftovers.lua".record(FILE)' ...   records
--   lua5.4 tests/lua/leftovers.lua FILE                              checks
--
-- record(FILE) sets verbs.trace to write each call as C, with its outcome
-- ("ibv_reg_mr(pd1, buf_mr1, 4096, ...)<TAB>mr1"). The check names every
-- object made (a pd, mr, cq, qp, srq, ah, mw, completion channel, context
-- opened by name, rdma_cm channel, id or event: an event is ended by
-- rdma_ack_cm_event, and rdma_destroy_id waits for its id's) that no later
-- call of its own destroy verb ended with 0 (or, a void one, called), one
-- line each ("mr2 made by ibv_reg_mr(...)"),
-- and exits 1 when there is one: C's answer to "did the run clean up".
local M = {}

function M.record(path)
  local f = assert(io.open(path, "w"))
  verbs.trace(function(call, ret)
    f:write((call:gsub("[\t\n]", " ")), "\t", tostring(ret):gsub("[\t\n]", " "), "\n")
    f:flush()
  end)
end

-- An object's name as the recorder gives it, by its kind's prefix.
local KIND = { pd = true, mr = true, cq = true, qp = true, srq = true, ah = true, mw = true, channel = true,
               ctx = true, cm_channel = true, cm_id = true, cm_event = true }
local function kind(name) return name:match("^([%a_]-)%d+$") end
-- The verbs that end an object, and the argument that names it (the first).
local function ender(verb)
  return verb:match("^ibv_dealloc_") or verb:match("^ibv_dereg_") or verb:match("^ibv_destroy_")
    or verb == "ibv_close_device" or verb == "rdma_destroy_id" or verb == "rdma_destroy_event_channel"
    or verb == "rdma_destroy_ep" or verb == "rdma_dereg_mr" or verb == "rdma_ack_cm_event"
end
-- An outcome of 0, with or without the recorder's comment ("0  /* cm_event1->event = ... */")
local function zero(ret) return ret == "0" or ret:match("^0%s") ~= nil end

function M.check(path)
  local made, order, n = {}, {}, 0
  for line in io.lines(path) do
    n = n + 1
    local call, ret = line:match("^(.-)\t(.*)$")
    assert(call, ("%s:%d: no call<TAB>outcome"):format(path, n))
    local verb, args = call:match("^([%w_]+)%((.*)%)")
    if verb and ender(verb) then
      local first = args:match("([%a_]+%d+)")
      -- (a destroy of C type void, rdma_destroy_event_channel or rdma_destroy_ep, has no outcome to check)
      if first and (zero(ret) or ret == "(void)") then made[first] = nil end
    elseif verb then
      -- made: the value returned, or an out-parameter (&cm_id1) of a call that returned 0
      local new = {}
      if ret:match("^[%a_]+%d+$") then new[#new + 1] = ret end
      if zero(ret) then for o in args:gmatch("&([%a_]+%d+)") do new[#new + 1] = o end end
      for _, o in ipairs(new) do
        if KIND[kind(o)] and not made[o] and not (kind(o) == "ctx" and verb ~= "open_device") then
          made[o] = call
          order[#order + 1] = o
        end
      end
    end
  end
  local left = 0
  for _, o in ipairs(order) do
    if made[o] then
      print(("%s made by %s, never destroyed"):format(o, made[o]))
      made[o], left = nil, left + 1
    end
  end
  return left, n
end

if arg and arg[0] and arg[0]:match("leftovers%.lua$") and arg[1] then
  local left, n = M.check(arg[1])
  if left == 0 then print(("nothing left: every object made in %d calls was destroyed"):format(n)) end
  os.exit(left == 0 and 0 or 1)
end
return M
