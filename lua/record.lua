-- verbs.record: the verb calls of this Lua state, as events that the C
-- export (verbs.export_c) turns into a program.
--
-- Recording wraps the methods of every verbs object (and verbs.open) in a
-- function that notes the call, its arguments and its outcome: the values
-- returned, or the errno of a verb that failed. An argument error (a typo,
-- a wrong type) raises before any verb ran, so it is not an event: C would
-- not have compiled it. Objects are named as the C program will name them
-- (ctx1, pd1, mr1, qp1 ...), in the order they were made.
local M = {}

local events = {}
local names = setmetatable({}, { __mode = "k" })    -- object -> "qp1"
local facts = setmetatable({}, { __mode = "k" })    -- object -> what C reads of it (qp_num, lkey ...)
local counts = {}
local wrapped = setmetatable({}, { __mode = "k" })  -- methods tables already wrapped
local recording = false
local depth = 0                                     -- a verb called from inside a recorded one is not an event

local function kind(v)
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
  local function get(field) local ok, v = pcall(function() return obj[field] end) if ok then return v end end
  if k == "qp" then f.qp_num = get("qp_num")
  elseif k == "mr" then f.lkey, f.rkey, f.addr, f.length = get("lkey"), get("rkey"), get("addr"), get("length")
  elseif k == "context" then f.name = get("name")
  elseif k == "srq" then f.srq_num = nil end
  facts[obj] = f
end

local function name_of(obj)
  local k = kind(obj)
  if not k then return nil end
  if not names[obj] then
    local p = PREFIX[k] or k
    counts[p] = (counts[p] or 0) + 1
    names[obj] = p .. counts[p]
    note_facts(obj, k)
  end
  return names[obj]
end
M.name_of = name_of
function M.facts(obj) return facts[obj] end

-- A copy of a value as it was at the call: tables deeply (verbs objects
-- stay references), the rest as is.
local function copy(v, seen)
  if type(v) ~= "table" then return v end
  seen = seen or {}
  if seen[v] then return seen[v] end
  local t = {}
  seen[v] = t
  for k, x in next, v do t[k] = copy(x, seen) end
  return t
end

local wrap_object

local function wrapper(method, fn)
  return function(self, ...)
    if not recording or depth > 0 then return fn(self, ...) end
    local ev = { method = method, self = self, class = kind(self), args = copy(table.pack(...)) }
    depth = depth + 1
    local res = table.pack(pcall(fn, self, ...))
    depth = depth - 1
    if not res[1] then
      local e = res[2]
      -- a verb that failed (an error object with its errno) is an event;
      -- an argument error is not
      if type(e) == "table" and rawget(e, "errno") and rawget(e, "verb") then
        ev.err = { errno = e.errno, errname = e.errname, verb = e.verb }
        events[#events + 1] = ev
      end
      error(e, 0)
    end
    ev.results = copy(table.pack(table.unpack(res, 2, res.n)))
    for i = 1, ev.results.n do
      local r = ev.results[i]
      if kind(r) then name_of(r); wrap_object(r) end
    end
    events[#events + 1] = ev
    return table.unpack(res, 2, res.n)
  end
end

-- Wraps the methods of obj (its metatable's __index table) once, and the
-- fields it sets (qp.wr_id = 7 on an extended QP is a C assignment).
function wrap_object(obj)
  local mt = getmetatable(obj)
  local idx = type(mt) == "table" and rawget(mt, "__index")
  if type(idx) ~= "table" or wrapped[idx] then return end
  wrapped[idx] = true
  local set = rawget(mt, "__newindex")
  if type(set) == "function" and not wrapped[mt] then
    wrapped[mt] = true
    rawset(mt, "__newindex", function(o, k, v)
      set(o, k, v)   -- raises on a bad field or value: then it is no event
      if recording and depth == 0 then
        events[#events + 1] = { method = "__newindex", self = o, class = kind(o), args = { k, copy(v), n = 2 } }
      end
    end)
  end
  for m, fn in next, idx do
    if type(m) == "string" and type(fn) == "function" then rawset(idx, m, wrapper(m, fn)) end
  end
end

local module_wrapped = false
local function wrap_module()
  if module_wrapped then return end
  module_wrapped = true
  local verbs = require "verbs"
  local open = verbs.open
  local w = wrapper("open", function(_, ...) return open(...) end)
  rawset(verbs, "open", function(...) return w(verbs, ...) end)
end

-- verbs.record(true | false): start or stop noting verb calls; with no
-- argument, whether it is on.
function M.record(on)
  if on == nil then return recording end
  if type(on) ~= "boolean" then
    error(("bad argument #1 to 'record' (boolean expected, got %s)"):format(type(on)), 2)
  end
  if on then wrap_module() end
  recording = on
  return recording
end

function M.events() return events end

-- A WC list or a string read back, for the exporter: the results of an event.
function M.reset()
  events = {}
end

return M
