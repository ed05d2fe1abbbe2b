-- verbs.record: the verb calls of this Lua state, as events: the one
-- recorder, which the C export (verbs.export_c) turns into a program and
-- the trace (verbs.trace) shows as it happens.
--
-- Recording wraps the methods of every verbs object (and verbs.open) in a
-- function that notes the call, its arguments and its outcome: the values
-- returned, or the errno of a verb that failed. An argument error (a typo,
-- a wrong type) raises before any verb ran, so it is not an event: C would
-- not have compiled it. Objects are named as verbsh's messages name them
-- (ctx1, pd1, mr1, qp1 ...: in the order they were made), and the C
-- program declares them so.
local M = {}

local events = {}
local names = setmetatable({}, { __mode = "k" })    -- object -> "qp1"
local facts = setmetatable({}, { __mode = "k" })    -- object -> what C reads of it (qp_num, lkey ...)
local counts = {}
local wrapped = setmetatable({}, { __mode = "k" })  -- methods tables already wrapped

-- Every wrapping below is a patch of one key of a table, undone when neither
-- recording nor tracing is on: the bindings then run (and raise, naming the
-- caller's line) as if the recorder had never been there.
-- An object of a class with fields has a methods table of its own, whose
-- [0] is the object (and a settable one, a metatable of its own): their
-- patches are kept by that table, weakly, or the list would keep every such
-- object (a CQ, a QP) alive while recording.
local patches = {}
local own_patches = setmetatable({}, { __mode = "k" })   -- methods table -> { {k, old}, ... }
local function own(t)   -- a methods table whose [0] is its object, or that object's metatable
  local idx = rawget(t, "__index")
  return rawget(t, 0) ~= nil or (type(idx) == "table" and rawget(idx, 0) ~= nil)
end
local function patch(t, k, v)
  if own(t) then
    local list = own_patches[t] or {}
    own_patches[t] = list
    list[#list + 1] = { k, rawget(t, k) }
  else
    patches[#patches + 1] = { t, k, rawget(t, k) }
  end
  rawset(t, k, v)
end
local recording = false                             -- events are kept for verbs.export_c
local listener                                      -- verbs.trace's: called with each event as it happens
-- A verb called from inside a recorded one (or by the trace's function) is
-- not an event. Counted per coroutine: a trace function that yields, in a
-- coroutine then dropped, must not leave every other call counted inside.
local depths = setmetatable({}, { __mode = "k" })
local function inside() return (depths[coroutine.running()] or 0) > 0 end
local function enter() local co = coroutine.running(); depths[co] = (depths[co] or 0) + 1 end
local function leave() local co = coroutine.running(); depths[co] = depths[co] - 1 end

local function active() return recording or listener ~= nil end

-- The recorder is an observer: when its own code fails, the verb's outcome
-- stands (its values returned, its error raised as without the recorder),
-- and the failure is told on stderr as the recorder's.
local function problem(what, e)
  local shown, text = pcall(tostring, e)
  io.stderr:write(("verbsh: recorder problem (%s): %s; the verb's outcome is unchanged\n"):format(
    what, shown and text or "an error whose __tostring failed"))
end

-- An event happened: kept while recording, and shown by the trace. What the
-- trace's function calls is not recorded (inside).
local function note(ev)
  if recording then events[#events + 1] = ev end
  if listener then
    enter()
    local ok, e = pcall(listener, ev)
    leave()
    if not ok then problem("tracing " .. tostring(ev.method), e) end
  end
end

-- Events hold no object, so that what the script drops is collected while
-- recording: an object in an event is its handle, which keeps its name,
-- its kind and its facts.
local handle_mt = {}
local handles = setmetatable({}, { __mode = "k" })   -- object -> its handle

local function kind(v)
  if getmetatable(v) == handle_mt then return v.kind end
  if type(v) ~= "userdata" then return nil end
  local mt = getmetatable(v)
  local n = type(mt) == "table" and rawget(mt, "__name")
  return type(n) == "string" and n:match("^verbs%.(.+)$") or nil
end
M.kind = kind

local PREFIX = { context = "ctx", comp_channel = "channel", cq_ex = "cq" }

-- What a C program reads from an object later, noted while it is live.
local function note_facts(obj, k)
  local f = {}
  enter()   -- reading them is not an event
  local function get(field) local ok, v = pcall(function() return obj[field] end) if ok then return v end end
  if k == "qp" then f.qp_num = get("qp_num")
  elseif k == "mr" then f.lkey, f.rkey, f.addr, f.length = get("lkey"), get("rkey"), get("addr"), get("length")
  elseif k == "context" then f.name = get("name")
  elseif k == "mw" then f.rkey, f.type = get("rkey"), get("type")
  elseif k == "cm_event" then f.event, f.status = get("event"), get("status") end
  leave()
  facts[obj] = f
end

local function name_of(obj)
  if getmetatable(obj) == handle_mt then return obj.name end
  local k = kind(obj)
  if not k then return nil end
  if not names[obj] then
    -- the name C gives it in messages ("qp3 is still used by ..."), so that
    -- the trace and the errors agree; a counter of our own else
    local cname = debug.getregistry()["verbs.cname"]
    local n = cname and cname(obj)
    if not n then
      local p = PREFIX[k] or k
      counts[p] = (counts[p] or 0) + 1
      n = p .. counts[p]
    end
    names[obj] = n
    note_facts(obj, k)
  end
  return names[obj]
end
M.name_of = name_of
function M.facts(obj)
  if getmetatable(obj) == handle_mt then return obj.facts end
  return facts[obj]
end

local function handle(obj)
  local h = handles[obj]
  if not h then
    local name = name_of(obj)
    h = setmetatable({ name = name, kind = kind(obj), facts = facts[obj] }, handle_mt)
    handles[obj] = h
  end
  return h
end

-- A copy of a value as it was at the call: tables deeply (verbs objects
-- stay references), a prepared WR as tables, the rest as is.
local TOO_DEEP = 100   -- tables nested deeper are no argument a verb takes: not copied
local function copy(v, seen, depth)
  if getmetatable(v) == handle_mt then return v end
  local what = kind(v)
  if what == "send_wr" or what == "recv_wr" then
    -- a prepared WR as it is at the post: the list of its WRs' tables
    local t = {}
    for i = 1, #v do t[i] = copy(v[i]) end
    return t
  end
  if what then return handle(v) end
  if type(v) ~= "table" then return v end
  seen, depth = seen or {}, (depth or 0) + 1
  if seen[v] then return seen[v] end
  if depth > TOO_DEEP then return "(a table nested too deep to record)" end
  local t = {}
  seen[v] = t
  for k, x in next, v do t[k] = copy(x, seen, depth) end
  return t
end

local wrap_object

-- The completions a poll put in a wc_array, as the tables cq:poll returns:
-- the array is overwritten by the next poll.
local WC_KEYS = { "wr_id", "status", "opcode", "byte_len", "imm_data", "wc_flags", "qp_num", "src_qp" }
-- A wc_array is a table whose metatable is hidden; its tostring names it.
local function is_wc_array(v)
  return type(v) == "table" and tostring(v):match("^wc_array %d+ %(") ~= nil
end
local function snapshot_wcs(a, n)
  local list = {}
  for i = 1, n do
    local t = {}
    for _, k in ipairs(WC_KEYS) do
      local ok, v = pcall(function() return a[i][k] end)
      if ok then t[k] = copy(v) end
    end
    list[i] = t
  end
  return list
end

-- luaL_error and luaL_argerror name the line that called the binding: a
-- wrapper's, below. The user's line is the one that called the wrapper:
-- level (as seen from relocate's caller) names it.
local function relocate(e, level)
  if type(e) ~= "string" then return e end
  local own = e:match("^%[verbsh%]/lua/record%.lua:%d+: ")
  if not own then return e end
  local at = debug.getinfo(level + 1, "Sl")
  return (at and at.currentline > 0 and ("%s:%d: "):format(at.short_src, at.currentline) or "") .. e:sub(#own + 1)
end

-- The results of a call that is not an event, its error relocated (a tail
-- call: the wrapper's frame is gone, so its caller is level 2 here).
local function pass(ok, ...)
  if ok then return ... end
  error(relocate((...), 3), 0)   -- 3: the trampoline (verbs.cwrap) is between
end
-- A wrapper as the C closure that keeps a tail-calling caller's frame.
local function cwrap(f)
  local c = debug.getregistry()["verbs.cwrap"]
  return c and c(f) or f
end

-- for wc in cq:iter(): each step of the loop is an event of its own (the
-- completion it gave, or nil at its end), and so is leaving the loop while
-- a completion is current (a break: the closing value ends the poll), so
-- that C can run the start_poll / next_poll / end_poll loop it stands for.
-- Returns what cq:iter returned, with the step function and the closing
-- value wrapped.
local function iter_events(ev, next_fn, state, closing)
  local step, current = 0, false
  local function step_fn(s, ctl)
    local ok, wc = pcall(next_fn, s, ctl)
    if not ok then error(relocate(wc, 2), 0) end
    step = step + 1
    current = wc ~= nil
    if not inside() and active() then
      note { method = "__iter", self = ev.self, class = ev.class, step = step, results = { copy(wc), n = 1 } }
    end
    return wc
  end
  local closer = setmetatable({}, { __close = function(_, err)
    local close = getmetatable(closing).__close
    close(closing, err)
    if current and not inside() and active() then
      current = false
      note { method = "__iter_close", self = ev.self, class = ev.class }
    end
  end })
  return step_fn, state, nil, closer
end

-- After a verb returned: its new objects wrapped, and the event noted.
-- Returns the values the caller gets (cq:iter's loop wrapped).
local function returned(ev, method, res, ...)
  for i = 2, res.n do
    if kind(res[i]) then name_of(res[i]); wrap_object(res[i]) end
  end
  if method == "iter" and type(res[2]) == "function" and res[5] ~= nil then
    note(ev)
    return table.pack(iter_events(ev, res[2], res[3], res[5]))
  end
  ev.results = copy(table.pack(table.unpack(res, 2, res.n)))
  local wcs = select(1, ...)
  if (method == "poll" or method == "wait") and is_wc_array(wcs) then
    ev.wcs = snapshot_wcs(wcs, math.tointeger(res[2]) or 0)
  end
  note(ev)
  return nil
end

-- Calls fn from a line of this file, never as a tail call, so that an
-- error the binding raises carries this file's location, which relocate
-- turns into the caller's line (a binding called by pcall has none).
local function ret(...) return ... end
local function here(fn, self, ...) return ret(fn(self, ...)) end

local function wrapper(method, fn)
  return function(self, ...)
    if inside() or not active() then return pass(pcall(here, fn, self, ...)) end
    local made, ev = pcall(function(...)
      return { method = method, self = kind(self) and handle(self), class = kind(self), args = copy(table.pack(...)) }
    end, ...)
    if not made then   -- e.g. arguments nested too deep to copy: the verb runs unrecorded
      problem("recording " .. method, ev)
      return pass(pcall(here, fn, self, ...))
    end
    enter()
    local res = table.pack(pcall(here, fn, self, ...))
    leave()
    if not res[1] then
      local e = res[2]
      -- a verb that failed (an error object with its errno) is an event;
      -- an argument error is not
      if type(e) == "table" and rawget(e, "errno") and rawget(e, "verb") then
        ev.err = { errno = e.errno, errname = e.errname, verb = e.verb }
        -- what C saw, when a provider returned a negative value (siw's post)
        local c = rawget(e, "context")
        ev.err.returned = type(c) == "table" and math.tointeger(rawget(c, "returned")) or nil
        note(ev)
      end
      error(relocate(e, 3), 0)
    end
    local ok, loop = pcall(returned, ev, method, res, ...)
    if not ok then problem("recording " .. method, loop) end
    if ok and loop then return table.unpack(loop, 1, loop.n) end
    return table.unpack(res, 2, res.n)
  end
end

-- An object first met as a field of another (ev.id, the new cm_id of a
-- CONNECT_REQUEST; id.verbs, the context librdmacm opened) is an event: C
-- reads it from that struct member into a variable of its own. The fields
-- of a class are reached through the metatable of its methods tables,
-- shared by the class, so it is wrapped once.
-- Fields whose value C reads and the export checks: the current completion
-- of an extended CQ (cq.wr_id, cq.status are ibv_cq_ex's own members).
local READS = { cq = { wr_id = true, status = true } }
local function wrap_fields(idx)
  local fmt = getmetatable(idx)
  local get = type(fmt) == "table" and rawget(fmt, "__index")
  if type(get) ~= "function" or wrapped[fmt] then return end
  wrapped[fmt] = true
  patch(fmt, "__index", function(t, k)
    -- a Lua frame of ours between, so that the error's location is ours and
    -- relocate puts the reader's line there, as without the recorder
    local got, v = pcall(function() return get(t, k) end)
    if not got then error(relocate(v, 2), 0) end
    if inside() or not active() then return v end
    local ok, e = pcall(function()
    local self = rawget(t, 0)
    if READS[kind(self)] and READS[kind(self)][k] then
      note { method = "__read", self = handle(self), class = kind(self), args = { k, n = 1 }, results = { v, n = 1 } }
    elseif kind(v) and not names[v] then
      name_of(v)
      wrap_object(v)
      note { method = "__field", self = handle(self), class = kind(self), args = { k, n = 1 },
             results = { handle(v), n = 1 } }
    end
    end)
    if not ok then problem("recording the field " .. tostring(k), e) end
    return v
  end)
end

-- Wraps the methods of obj (its metatable's __index table) once, and the
-- fields it sets (qp.wr_id = 7 on an extended QP is a C assignment).
function wrap_object(obj)
  local mt = getmetatable(obj)
  local idx = type(mt) == "table" and rawget(mt, "__index")
  if type(idx) ~= "table" or wrapped[idx] then return end
  wrapped[idx] = true
  wrap_fields(idx)
  local set = rawget(mt, "__newindex")
  if type(set) == "function" and not wrapped[mt] then
    wrapped[mt] = true
    patch(mt, "__newindex", function(o, k, v)
      -- raises on a bad field or value: then it is no event, and the error
      -- names the assigning line, as without the recorder
      local newindex = set   -- the name Lua gives a metamethod in an argument error, as without the recorder
      local done, e = pcall(function() newindex(o, k, v) end)
      if not done then error(relocate(e, 2), 0) end
      if not inside() and active() then
        local ok, why = pcall(function()
          note { method = "__newindex", self = handle(o), class = kind(o), args = { k, copy(v), n = 2 } }
        end)
        if not ok then problem("recording the assignment of " .. tostring(k), why) end
      end
    end)
  end
  -- A class without fields shares one methods table, which error messages
  -- search to name the binding that raised: they find the originals in a
  -- copy listed beside it.
  local listed = debug.getregistry()["verbs.method_tables"]
  for _, t in ipairs(type(listed) == "table" and listed or {}) do
    if rawequal(t, idx) then
      local originals = {}
      for m, fn in next, idx do originals[m] = fn end
      patch(listed, #listed + 1, originals)
      break
    end
  end
  for m, fn in next, idx do
    if type(m) == "string" and type(fn) == "function" then patch(idx, m, cwrap(wrapper(m, fn))) end
  end
end

-- The module's constructors: verbs.open, verbs.create_event_channel, of
-- every module table the recorder was reached through (verbs.trace,
-- verbs.record: src/lverbs.c adopts the table).
local modules = setmetatable({}, { __mode = "k" })   -- table -> wrapped yet
local started = false
local function wrap_module(verbs)
  if modules[verbs] then return end
  modules[verbs] = true
  local reg = debug.getregistry()
  if type(reg["verbs.module_originals"]) ~= "table" then patch(reg, "verbs.module_originals", {}) end
  for _, name in ipairs { "open", "create_event_channel", "getaddrinfo", "create_ep",
                          -- lua/export_rest.lua's: the rest of verbs.h and rdma_cma.h
                          "fork_init", "is_fork_initialized", "get_devices", "event_str", "node_type_str",
                          "port_state_str", "event_type_str", "wc_status_str", "rate_to_mbps", "rate_to_mult",
                          "mbps_to_rate", "mult_to_rate", "flow_label_to_udp_sport", "is_qpt_supported", "import_device" } do
    local fn = rawget(verbs, name)
    if type(fn) == "function" then
      local w = wrapper(name, function(_, ...) return ret(fn(...)) end)   -- no tail call: see here
      patch(reg["verbs.module_originals"], name, fn)   -- so that its errors still name verbs.open
      patch(verbs, name, cwrap(function(...) return w(nil, ...) end))
    end
  end
end
function M.adopt(verbs)
  if modules[verbs] == nil then modules[verbs] = false end
  if started then wrap_module(verbs) end
end

-- Wraps the constructors and every object that exists already (made
-- before recording or tracing began): their calls are events too, and
-- they are named when first met.
local function start()
  started = true
  if next(modules) == nil then modules[require "verbs"] = false end
  for verbs in next, modules do wrap_module(verbs) end
  local objects = debug.getregistry()["verbs.objects"]
  for _, obj in next, type(objects) == "table" and objects or {} do
    if kind(obj) then wrap_object(obj) end   -- the table is its own metatable: skip its __mode
  end
end

-- Undoes every patch, newest first; the next start wraps again.
local function stop()
  for i = #patches, 1, -1 do
    local p = patches[i]
    rawset(p[1], p[2], p[3])
  end
  patches = {}
  for t, list in next, own_patches do
    for i = #list, 1, -1 do rawset(t, list[i][1], list[i][2]) end
    own_patches[t] = nil
  end
  for t in next, wrapped do wrapped[t] = nil end
  for m in next, modules do modules[m] = false end
  started = false
end

-- verbs.record(true | false): start or stop noting verb calls; with no
-- argument, whether it is on.
function M.record(on)
  if on == nil then return recording end
  if type(on) ~= "boolean" then
    error(("bad argument #1 to 'record' (boolean expected, got %s)"):format(type(on)), 2)
  end
  if on then start() end
  recording = on
  if not active() then stop() end
  return recording
end

-- The trace's listener (lua/trace.lua): fn(event) after each event, or nil.
function M.listen(fn)
  if fn then start() end
  listener = fn
  if not active() then stop() end
end

function M.events() return events end

-- A WC list or a string read back, for the exporter: the results of an event.
function M.reset()
  events = {}
end

return M
