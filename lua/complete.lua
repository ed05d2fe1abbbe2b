-- Tab completion that knows verbs: the keys of the table being typed
-- (qp:modify{qp_st -> qp_state, and nested: ah_attr = {grh = {sg -> sgid_index})
-- and, inside a string, the names of the enum that fits where it is typed
-- (qp_state = "R -> RESET, RTR, RTS; pd:reg_mr(4096, "LOC -> LOCAL_WRITE).
-- The keys come from the marshaller's descriptors (verbs.fields), which
-- methods take which table from help's table. Like the rest of completion
-- (src/repl.c), it never runs user code: globals are read with rawget and
-- metatables with debug.getmetatable.
local M = {}

local function doc() return require("verbs.help").doc end
local function V() return rawget(_G, "verbs") or require "verbs" end
-- verbs.enum and verbs.fields of a C type, or nil (help's: completing never raises).
local function enum_of(ctype) return require("verbs.help").enum_of(ctype) end
local function fields_of(ctype) return require("verbs.help").fields_of(ctype) end

-- The brackets still open at the end of text, outermost first:
-- { ch = "{" or "(", pos = index }; and the index of the quote of an
-- unfinished string, if any.
local function open_brackets(text)
  local stack, i, quote, qpos = {}, 1, nil, nil
  while i <= #text do
    local c = text:sub(i, i)
    if quote then
      if c == "\\" then i = i + 1 elseif c == quote then quote = nil end
    elseif c == '"' or c == "'" then
      quote, qpos = c, i
    elseif c == "-" and text:sub(i, i + 1) == "--" then
      break   -- a comment to the end of the line
    elseif c == "{" or c == "(" or c == "[" then
      stack[#stack + 1] = { ch = c, pos = i }
    elseif c == "}" or c == ")" or c == "]" then
      stack[#stack] = nil
    end
    i = i + 1
  end
  return stack, quote and qpos or nil
end

-- The class of the object a dotted name refers to ("qp" for qp_a, "cm_id"
-- for ev.id is unknown: only raw tables are walked), or nil.
local function kind_of(expr)
  local v = _G
  for part in expr:gmatch("[^.]+") do
    if type(v) ~= "table" then return nil end
    v = rawget(v, part)
  end
  local mt = v ~= nil and debug.getmetatable(v)
  local name = type(mt) == "table" and rawget(mt, "__name")
  return type(name) == "string" and name:match("^verbs%.(.+)$") or nil
end

-- The doc entry of the method called as `expr:method` or `expr.method`.
local function method_doc(expr, method)
  local kind = kind_of(expr)
  local d = doc()
  return kind and d[kind .. ":" .. method] or d[method]
end

local function field(ctype, key)
  for _, f in ipairs(fields_of(ctype) or {}) do
    if f.name == key then return f end
  end
end

-- What the table opened at stack[n] describes: { struct = ctype },
-- { list = ctype } (sg_list: a list of SGEs), { enum = ctype } (a list of
-- flag names), or nil.
local function table_type(text, stack, n)
  local e = stack[n]
  local pre = text:sub(1, e.pos - 1)
  local key = pre:match("([%a_][%w_]*)%s*=%s*$")
  if key and not pre:match("[=~<>]=%s*$") then
    local outer = n > 1 and stack[n - 1].ch == "{" and table_type(text, stack, n - 1)
    local f = outer and outer.struct and field(outer.struct, key)
    if not f then return nil end
    if f.struct then return { struct = f.struct } end
    if f.name == "sg_list" then return { list = "ibv_sge" } end
    if f.type == "flags" then return { enum = f.enum } end
    return nil
  end
  local expr, method = pre:match("([%a_][%w_.]*)[:.]([%a_][%w_]*)%s*$")
  if method then   -- qp:modify{
    local d = method_doc(expr, method)
    return d and d.keys and { struct = d.keys }
  end
  if n > 1 and stack[n - 1].ch == "(" then   -- id:create_qp(pd, {
    local cpre = text:sub(1, stack[n - 1].pos - 1)
    expr, method = cpre:match("([%a_][%w_.]*)[:.]([%a_][%w_]*)%s*$")
    local d = method and method_doc(expr, method)
    return d and d.keys and { struct = d.keys }
  end
  if n > 1 and stack[n - 1].ch == "{" and pre:match("[{,;]%s*$") then   -- an item of a list
    local outer = table_type(text, stack, n - 1)
    if outer and outer.list then return { struct = outer.list } end
    if outer and outer.struct then return outer end   -- a list of WRs
  end
  return nil
end

-- Enums whose names fit a string typed after `key =` / `key ==`: the
-- field of that name in the table being typed, else in any struct.
local object_fields = { state = "ibv_qp_state", event = "rdma_cm_event_type", ps = "rdma_port_space",
                        access = "ibv_access_flags", wr_flags = "ibv_send_flags" }
local function enums_for_key(key, ctx)
  local f = ctx and ctx.struct and field(ctx.struct, key)
  if f then return { f.enum } end   -- {} for a key that takes no names (private_data = ")
  local found, seen = {}, {}
  for _, s in ipairs(V().fields()) do
    f = field(s, key)
    if f and f.enum and not seen[f.enum] then
      seen[f.enum] = true
      found[#found + 1] = f.enum
    end
  end
  if #found == 0 and object_fields[key] then found[1] = object_fields[key] end
  return #found > 0 and found or nil
end

-- The enums that fit a string opened at qpos, or nil (then every name fits).
local function string_enums(text, stack, qpos)
  local pre = text:sub(1, qpos - 1)
  local key = pre:match("([%a_][%w_]*)%s*[=~]?=%s*$")
  local top = stack[#stack]
  local ctx = top and top.ch == "{" and table_type(text, stack, #stack)
  if key then return enums_for_key(key, ctx) end
  if not top or not pre:match("[{(,]%s*$") then return nil end
  if top.ch == "{" then return ctx and ctx.enum and { ctx.enum } or nil end
  if top.ch == "(" then   -- an argument: pd:reg_mr(4096, "LOC
    local expr, method = text:sub(1, top.pos - 1):match("([%a_][%w_.]*)[:.]([%a_][%w_]*)%s*$")
    local d = method and method_doc(expr, method)
    if not (d and d.args) then return nil end
    local args, depth = text:sub(top.pos + 1, qpos - 1), 0
    local index = 1
    for c in args:gmatch(".") do
      if c == "{" or c == "(" then depth = depth + 1
      elseif c == "}" or c == ")" then depth = depth - 1
      elseif c == "," and depth == 0 then index = index + 1 end
    end
    return d.args[index] and { d.args[index] } or nil
  end
  return nil
end

-- candidates(before, word): the completions of word, typed after before on
-- the line, or nil when verbs has nothing special to offer there (then the
-- shell completes globals, fields and methods, or every enum name).
function M.candidates(before, word)
  local stack, qpos = open_brackets(before .. word)
  local out, seen = {}, {}
  local function add(s)
    if not seen[s] and s:sub(1, #word) == word then seen[s] = true; out[#out + 1] = s end
  end
  if qpos then
    local enums = string_enums(before, stack, qpos)
    if not enums then return nil end
    for _, ctype in ipairs(enums) do
      local e = enum_of(ctype) or { names = {}, prefix = "" }
      for _, n in ipairs(e.names) do
        add(n)
        if word:sub(1, #e.prefix) == e.prefix and #e.prefix > 0 then add(e.prefix .. n) end
      end
    end
    return out
  end
  local top = stack[#stack]
  if not (top and top.ch == "{" and before:match("[{,;]%s*$")) then return nil end
  local t = table_type(before, stack, #stack)
  if not (t and t.struct) then return nil end
  for _, f in ipairs(fields_of(t.struct) or {}) do add(f.name) end
  return out
end

-- verbs.enums, which the module builds on first use (the shell's completer
-- reads tables raw, and asks here for this one).
function M.enums() return require("verbs").enums end

return M
