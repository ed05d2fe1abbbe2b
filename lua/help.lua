-- help(): what each object can do, the C call behind every method, the keys
-- of every table a method takes (read from the marshaller's descriptors,
-- verbs.fields, so the list is exactly what verbsh accepts), enum values,
-- C names and the lesson helpers.
--   help()               the overview
--   help(obj)            the methods of a verbs object (qp, cq, ...)
--   help "post_send"     one method: C prototype, its table's keys, an example (also "qp:post_send")
--   help "ibv_post_send" the same, by its C name
--   help "RDMA_WRITE"    an enum value: its enum, value, and where it is used
--   help "sg_list"       a table key: its type, meaning, and which methods take it
--   help "ibv_qp_attr"   a C struct's keys; help "ibv_wr_opcode" an enum's values
--   help "rc_connect"    a lesson helper
local D = require "verbs.help_doc"
local K = require "verbs.help_keys"
local M = {}

local function verbs() return rawget(_G, "verbs") or require "verbs" end
-- verbs.enum and verbs.fields of a C type, or nil: both raise for a name
-- they do not describe, which help (and Tab completion, which never
-- raises) asks about to find out.
local function enum_of(ctype)
  local ok, e = pcall(verbs().enum, ctype)
  return ok and e or nil
end
local function fields_of(ctype)
  local ok, f = pcall(verbs().fields, ctype)
  return ok and f or nil
end
M.enum_of, M.fields_of = enum_of, fields_of

---------------------------------------------------------------------------
-- Types of keys, from verbs.fields.

local function hex_or_dec(n)
  if n >= 0x10000 and (n + 1) & n == 0 then return ("0x%x"):format(n) end
  return tostring(n)
end

local function enum_list(ctype)
  local e = enum_of(ctype)
  return e and table.concat(e.names, ", ") or "?"
end

-- "(or full names such as IBV_MTU_256, or the C value: 1 for 256)": the value,
-- not what the name says (path_mtu = 1024 is not IBV_MTU_1024).
local function enum_also(ctype)
  local e = enum_of(ctype)
  if not e then return "" end
  local n = e.names[1]
  local value = ("the C value: %d for %s"):format(e.values[n], n)
  if e.prefix == "" then return "(or " .. value .. ")" end
  return ("(or full names such as %s%s, or %s)"):format(e.prefix, n, value)
end

-- "integer 0..255", "enum ibv_mtu: 256, 512, ...", "a cq object", ...
local function type_text(f)
  if f.type == "int" or f.type == "uint" then
    local s = "integer"
    if f.boolean then
      s = "0 or 1 (or a boolean)"
    elseif f.max then
      s = s .. " " .. f.min .. ".." .. hex_or_dec(f.max)
    elseif f.type == "uint" then
      s = s .. " (64 bits, unsigned)"
    end
    return s
  elseif f.type == "enum" then
    return ("a name of enum %s: %s %s"):format(f.enum, enum_list(f.enum), enum_also(f.enum))
  elseif f.type == "flags" then
    return ("flags of %s: a name or a list of names of %s %s"):format(f.enum, enum_list(f.enum), enum_also(f.enum))
  elseif f.type == "gid" then
    return 'a GID: IPv6 text ("::ffff:192.0.2.1") or 16 raw bytes'
  elseif f.type == "struct" then
    local names = {}
    for _, g in ipairs(fields_of(f.struct)) do names[#names + 1] = g.name end
    return ("a table (C: %s): { %s }"):format(f.c, table.concat(names, ", "))
  elseif f.type == "object" then
    return ("a verbs %s object"):format(f.class)
  end
  return K.custom_types[f.name] or "a value"
end

local function key_meaning(ctype, name)
  return K.keys[ctype .. "." .. name] or K.keys[name] or K.struct_note[ctype]
end

-- Appends to out the keys of ctype, each with its type and meaning; nested
-- tables are expanded once (seen), deeper by indent.
local custom_sub = { sg_list = "ibv_sge" }
local function keys_text(out, ctype, indent, seen)
  seen = seen or {}
  for _, f in ipairs(fields_of(ctype) or {}) do
    out[#out + 1] = ("%s%s = %s"):format(indent, f.name, type_text(f))
    local m = key_meaning(ctype, f.name)
    if m then out[#out + 1] = indent .. "    " .. m end
    local sub = f.struct or custom_sub[f.name]
    if sub and not seen[sub] then
      seen[sub] = true
      keys_text(out, sub, indent .. "    ", seen)
    elseif sub then
      out[#out + 1] = indent .. "    (its keys as listed above)"
    end
  end
end

---------------------------------------------------------------------------
-- Methods.

local function method_text(d)
  local out = { d[2], "    C: " .. d[3], "    " .. d[4] }
  if d.keys then
    out[#out + 1] = ("  keys (struct %s):"):format(d.keys)
    keys_text(out, d.keys, "    ")
  end
  if d.gives then
    out[#out + 1] = ("  gives %s of struct %s:"):format(d.each or "a table", d.gives)
    keys_text(out, d.gives, "    ")
  end
  if d.args then
    for i = 1, 2 do
      if d.args[i] then
        out[#out + 1] = ("  argument %d: a name of %s: %s"):format(i, d.args[i], enum_list(d.args[i]))
      end
    end
  end
  if d.ex then out[#out + 1] = "  example:\n    " .. d.ex:gsub("\n", "\n    ") end
  return table.concat(out, "\n") .. "\n"
end

-- Every entry for a method name: "modify" gives qp:modify and srq:modify.
-- With a prefix that some entries have ("oob", "capture", "wire"), only
-- theirs and the plain name's: "oob.decode" is not verbs.wire.decode.
local function methods_named(name, prefix)
  local found = {}
  if D.methods[name] then found[#found + 1] = D.methods[name] end
  local keys, known = {}, false
  for k in pairs(D.methods) do
    local p, n = k:match("^([%w_]+)[:.]([%w_]+)$")
    if p and p == prefix then known = true end
    if n == name and k ~= name then keys[#keys + 1] = k end
  end
  table.sort(keys)
  for _, k in ipairs(keys) do
    if not known or k:match("^[%w_]+") == prefix then found[#found + 1] = D.methods[k] end
  end
  return found
end

-- The C function a method calls: the first ibv_/rdma_ name of its prototype.
local c_index
local function c_name_index()
  if c_index then return c_index end
  c_index = {}
  local keys = {}
  for k in pairs(D.methods) do keys[#keys + 1] = k end
  table.sort(keys)   -- a C function in several entries: the same one each run
  for _, k in ipairs(keys) do
    for c in D.methods[k][3]:gmatch("([%a_][%w_]*)%(") do
      if c:find("^ibv_") or c:find("^rdma_") or c:find("^pcap_") then c_index[c] = c_index[c] or k end
    end
  end
  for c, k in pairs(D.c_inside) do c_index[c] = c_index[c] or k end
  return c_index
end

---------------------------------------------------------------------------
-- Enums, structs and keys.

-- Where each enum is used: "ibv_send_wr.opcode (qp:post_send, verbs.send_wr)".
local function users_of_struct(ctype)
  local l = {}
  for k, d in pairs(D.methods) do
    if d.keys == ctype or d.gives == ctype then l[#l + 1] = d[2]:match("[%w_.]*[%w_][:.][%w_]+") or k end
  end
  table.sort(l)
  return l
end

local function struct_place(ctype)
  local users = users_of_struct(ctype)
  if #users == 0 then
    for _, s in ipairs(verbs().fields()) do
      for _, f in ipairs(fields_of(s)) do
        if f.struct == ctype or custom_sub[f.name] == ctype then
          return ("%s.%s"):format(s, f.name)
        end
      end
    end
    return ctype
  end
  return ("%s (%s)"):format(ctype, table.concat(users, ", "))
end

local function enum_uses(ctype)
  local l = {}
  for _, s in ipairs(verbs().fields()) do
    for _, f in ipairs(fields_of(s)) do
      if f.enum == ctype then l[#l + 1] = ("key %s of %s"):format(f.name, struct_place(s)) end
    end
  end
  if K.enum_uses[ctype] then l[#l + 1] = K.enum_uses[ctype] end
  return l
end

local function enum_value_text(e, name)
  local v = e.values[name]
  local out = { ("%s: %s%s = %s%s, a value of %s %s"):format(name, e.prefix, name, v,
    e.flags and (" (0x%x)"):format(v) or "", e.flags and "flag set" or "enum", e.ctype) }
  for _, u in ipairs(enum_uses(e.ctype)) do out[#out + 1] = "    used in: " .. u end
  if e.ctype == "ibv_wc_status" then
    out[#out + 1] = ('    verbs.explain("%s") says when it happens and how to fix it'):format(name)
  end
  return table.concat(out, "\n") .. "\n"
end

local function enum_type_text(e)
  local vals = {}
  for _, n in ipairs(e.names) do vals[#vals + 1] = ("%s=%s"):format(n, e.values[n]) end
  local out = { ("%s %s: names without %q (full names and integers accepted too)"):format(
    e.flags and "flag set" or "enum", e.ctype, e.prefix),
    "    " .. table.concat(vals, ", ") }
  for _, u in ipairs(enum_uses(e.ctype)) do out[#out + 1] = "    used in: " .. u end
  return table.concat(out, "\n") .. "\n"
end

local function struct_text(ctype)
  local out = { ("struct %s, as a table: %s"):format(ctype, struct_place(ctype)) }
  keys_text(out, ctype, "    ")
  return table.concat(out, "\n") .. "\n"
end

local function obj_field_text(kind, name)
  local m = K.obj_fields[kind .. "." .. name]
  return ("%s: field of a %s object (%s.%s)"):format(name, kind, kind, name) .. (m and "\n    " .. m or "")
end

local function key_text(name)
  local out = {}
  for _, s in ipairs(verbs().fields()) do
    for _, f in ipairs(fields_of(s)) do
      if f.name == name then
        out[#out + 1] = ("%s: key of %s: %s"):format(name, struct_place(s), type_text(f))
        local m = key_meaning(s, name)
        if m then out[#out + 1] = "    " .. m end
        local sub = f.struct or custom_sub[name]
        if sub then keys_text(out, sub, "    ") end
      end
    end
  end
  local kinds = {}
  for key, mt in pairs(debug.getregistry()) do
    local kind = type(key) == "string" and key:match("^verbs%.(.+)$")
    local fields = kind and type(mt) == "table" and rawget(mt, "__fields")
    if type(fields) == "table" then
      for _, f in ipairs(fields) do if f == name then kinds[#kinds + 1] = kind end end
    end
  end
  table.sort(kinds)
  for _, kind in ipairs(kinds) do out[#out + 1] = obj_field_text(kind, name) end
  return #out > 0 and table.concat(out, "\n") .. "\n" or nil
end

---------------------------------------------------------------------------
-- Lookup.

local function lesson_text(name)
  local d = D.lesson[name] or D.lesson[name:gsub("^kit%.", "lesson.kit.")]
  if not d then return nil end
  return ("%s\n    %s\n  example:\n    %s\n"):format(d[1], d[2], d[3] or d.ex)
end

-- Words a student says for a C struct.
local aliases = { wc = { "ibv_wc" }, wr = { "ibv_send_wr", "ibv_recv_wr" }, sge = { "ibv_sge" },
                  attr = { "ibv_qp_attr" } }

-- The names the examples give objects, for their class: id:accept, cap:stop.
local var_class = { id = "cm_id", cap = "capture" }

-- Methods named what: "post_send", "qp:post_send", "oob.listen", "cap:stop",
-- "wire.decode", and the lesson commands.
local function method_parts(what, add)
  local prefix = what:match("^([%w_]+)[:.][%w_]+$")
  prefix = var_class[prefix] or prefix
  local qualified = what:match("^[%w_]+:[%w_]+$") and prefix .. what:match(":[%w_]+$")
  if qualified and D.methods[qualified] then return add(method_text(D.methods[qualified])) end
  if D.methods[what] and what:find("[:.]") then return add(method_text(D.methods[what])) end
  if not what:find("^lesson%.") and not what:find("^kit%.") then
    for _, d in ipairs(methods_named(what:match("[:.]([%w_]+)$") or what, prefix)) do add(method_text(d)) end
  end
  add(lesson_text(what))
end

-- A C function: "ibv_post_send", or without its prefix ("modify_qp").
local function c_part(what)
  local idx = c_name_index()
  local cname = idx[what] and what or idx["ibv_" .. what] and "ibv_" .. what
    or idx["rdma_" .. what] and "rdma_" .. what
  if not cname then return nil end
  local inside = D.c_inside[cname]
  return (inside and ("%s: verbsh calls it inside %s:\n"):format(cname, D.methods[inside][2]) or "")
    .. method_text(D.methods[idx[cname]])
end

-- The enums a student types most come first: RDMA_WRITE is an ibv_wr_opcode before a wc opcode.
local first = { ibv_wr_opcode = 1, ibv_qp_state = 2, ibv_qp_type = 3, ibv_access_flags = 4, ibv_send_flags = 5,
                ibv_mtu = 6, ibv_wc_status = 7, ibv_wc_opcode = 8 }
local function sorted_enums()
  local enums = {}
  for ctype in pairs(verbs().enums) do enums[#enums + 1] = ctype end
  table.sort(enums, function(a, b)
    if (first[a] or 99) ~= (first[b] or 99) then return (first[a] or 99) < (first[b] or 99) end
    return a < b
  end)
  return enums
end

-- An enum value, short ("RTS") or full ("IBV_QPS_RTS"), in every enum that has it.
local function enum_parts(what, add)
  for _, ctype in ipairs(sorted_enums()) do
    local e = enum_of(ctype)
    local n = what
    if #e.prefix > 0 and what:sub(1, #e.prefix) == e.prefix then n = what:sub(#e.prefix + 1) end
    if e.values[n] then add(enum_value_text(e, n)) end
  end
end

-- The help text for a name, or nil.
function M.text(what)
  what = what:gsub("^verbs%.", "")
  local topic = require("verbs.explain_iwarp").topic(what)   -- help "iwarp": what siw does differently
  if topic then return topic .. "\n" end
  local parts = {}
  local function add(s) if s then parts[#parts + 1] = s end end
  method_parts(what, add)
  if #parts == 0 then add(c_part(what)) end
  if #parts == 0 and D.other_text then add(D.other_text(what)) end   -- internals, hardware topics
  enum_parts(what, add)
  local bare = what:gsub("^struct ", ""):gsub("^enum ", "")
  if enum_of(bare) then add(enum_type_text(enum_of(bare))) end
  if fields_of(bare) then add(struct_text(bare)) end
  for _, s in ipairs(aliases[what] or {}) do add(struct_text(s)) end
  local kind, fname = what:match("^([%w_]+)%.([%w_]+)$")
  if #parts == 0 and K.obj_fields[what] then add(obj_field_text(kind, fname) .. "\n") end   -- "qp.qp_num"
  if #parts == 0 then add(key_text(what) or key_text(fname or what)) end
  if #parts == 0 and what:upper() ~= what and what:find("^[%w_]+$") then   -- "rdma_write": RDMA_WRITE
    local upper = M.text(what:upper())
    return upper and upper:find("a value of") and upper or nil
  end
  return #parts > 0 and table.concat(parts, "\n") or nil
end

-- Names for "no help for X; try ...": methods, commands, enum values, keys, C types.
local function all_names()
  local l, seen = {}, {}
  local function add(k) if not seen[k] then seen[k] = true; l[#l + 1] = k end end
  for k in pairs(D.methods) do add(k) end
  for k in pairs(D.lesson) do add(k) end
  for ctype, names in pairs(verbs().enums) do
    add(ctype)
    for _, n in ipairs(names) do add(n) end
  end
  for _, s in ipairs(verbs().fields()) do
    add(s)
    for _, f in ipairs(fields_of(s)) do add(f.name) end
  end
  return l
end

local overview = [[
verbsh: the RDMA verbs of libibverbs, in Lua. Every name follows C:
  a method is the verb minus ibv_ and its object   ibv_modify_qp(qp, ...)  ->  qp:modify{...}
  table keys are the C struct fields               attr.dest_qp_num       ->  {dest_qp_num = 0x12}
  enums and flags are the C names, no prefix       IBV_QPS_RTS            ->  "RTS"  (or "IBV_QPS_RTS", or 3)

  ctx = verbs.open()                  -- ibv_open_device
  pd  = ctx:alloc_pd()                -- then pd:reg_mr, pd:create_qp, pd:create_ah, pd:create_srq
  cq  = ctx:create_cq(16)             -- then cq:poll, cq:wait
  qp  = pd:create_qp{qp_type = "RC", send_cq = cq, recv_cq = cq, cap = {...}}
  qp:modify{qp_state = "INIT", ...}   -- RESET -> INIT -> RTR -> RTS

  ch  = verbs.create_event_channel()  -- rdma_cm: ch:create_id("TCP"), id:resolve_addr, ch:get_cm_event

help(obj) lists an object's methods; help "post_send" shows one: its C prototype, every key of
its table with type and meaning, and an example. help also knows C names ("ibv_post_send"),
enum values ("RDMA_WRITE", "IBV_QPS_RTS"), table keys ("sg_list"), C types ("ibv_qp_attr",
"ibv_wr_opcode") and the lesson commands ("rc_connect", "hint").
verbs.explain(x) explains a completion status or an error; verbs.trace(true) prints each call as C.
help "iwarp" (or verbs.explain("iwarp")): what an iWARP device (siw) does differently from RoCE (rxe).
Tab completes globals, methods (qp:mo), fields (qp.qp_n), the keys of the table you are typing
(qp:modify{qp_st) and, in a string, the enum names that fit (qp_state = "R).
lesson() lists the lessons; lesson "1" starts the first.]]

-- The name help knows a function (or the lesson table) by: help(verbs.open),
-- help(qp.modify), help(hint) work as help "open", help "qp:modify", help "hint".
local function name_of(v)
  for k, x in pairs(verbs()) do if x == v and type(k) == "string" then return k end end
  for key, mt in pairs(debug.getregistry()) do
    local kind = type(key) == "string" and key:match("^verbs%.(.+)$")
    -- a class without fields (verbs.capture) has its methods as __index
    local methods = kind and type(mt) == "table" and (rawget(mt, "__methods") or rawget(mt, "__index"))
    if type(methods) == "table" then
      for k, x in pairs(methods) do if x == v then return kind .. ":" .. k end end
    end
  end
  for _, mod in ipairs { "wire", "oob" } do   -- verbs.wire.decode: help "wire.decode"
    for k, x in pairs(type(package.loaded["verbs." .. mod]) == "table" and package.loaded["verbs." .. mod] or {}) do
      if x == v and type(k) == "string" then return mod .. "." .. k end
    end
  end
  local kit = type(rawget(_G, "lesson")) == "table" and rawget(rawget(_G, "lesson"), "kit")
  for k, x in pairs(type(kit) == "table" and kit or {}) do if x == v then return "lesson.kit." .. k end end
  for k, x in pairs(_G) do if x == v and type(k) == "string" then return k end end
end

function M.help(what)
  if rawequal(what, verbs()) then what = nil end   -- help(verbs): the module is what the overview shows
  if type(what) == "function" or type(what) == "table" and not getmetatable(what) or what == rawget(_G, "lesson") then
    what = name_of(what) or what
  end
  if what == nil or what == "" then
    print(overview)
  elseif type(what) == "string" then
    local text = M.text(what)
    if not text then
      local close, low = {}, what:lower()
      for _, k in ipairs(all_names()) do
        local kl = k:lower()
        if kl:find(low, 1, true) or low:find(kl, 1, true) and #k > 3 then close[#close + 1] = k end
      end
      table.sort(close)
      if #close > 12 then close = { table.concat(close, ", ", 1, 12) .. ", ..." } end
      text = ("no help for %q%s\n"):format(what, #close > 0 and ("; try " .. table.concat(close, ", ")) or "")
    end
    io.write(text)
  else
    local mt = getmetatable(what)
    local sname = type(mt) == "table" and rawget(mt, "__name")
    if type(what) == "userdata" and type(sname) == "string" and sname:find("^ibv_") then
      -- a copy of a C struct (a completion: ibv_wc): its fields
      print(("%s -- a copy of struct %s, read like a table:"):format(tostring(what):match("^[^\n]*"), sname))
      return M.help(sname)
    end
    local methods = type(mt) == "table" and (rawget(mt, "__methods") or rawget(mt, "__index"))
    if type(methods) ~= "table" then
      print(("%s is not a verbs object; help() gives the overview"):format(tostring(what)))
      return
    end
    local names = {}
    for k in pairs(methods) do if type(k) == "string" and not k:find("^_") then names[#names + 1] = k end end
    table.sort(names)
    print(("%s -- methods:"):format(tostring(what)))
    local kind = type(mt.__name) == "string" and mt.__name:match("^verbs%.(.+)$")
    for _, n in ipairs(names) do
      local d = kind and D.methods[kind .. ":" .. n] or D.methods[n]
      io.write("  ", d and ("%s\n      %s\n"):format((d[2]:gsub("^obj:", (kind or "obj") .. ":")), d[4]) or (n .. "\n"))
    end
    for k, d in pairs(D.methods) do   -- print(cap): what the object prints as
      if k:find("^print%(") and d[1] == kind then io.write(("  %s\n      %s\n"):format(d[2], d[4])) end
    end
    local fields = type(mt) == "table" and rawget(mt, "__fields")
    if type(fields) == "table" and #fields > 0 then
      print("  fields: " .. table.concat(fields, ", "))
    end
    print('  help "NAME" shows a method with its C prototype, its keys and an example')
  end
end

-- For verbs.NAME that does not exist (src/lverbs.c): when NAME is a C
-- function ("ibv_open_device", or without its prefix: "open_device"), its
-- C name, the verbsh form that calls it ("verbs.open([name])"), and the
-- field of verbs that is that form (nil for a method: "qp:post_send(...)").
function M.c_function(name)
  local idx = c_name_index()
  local cname = idx[name] and name or idx["ibv_" .. name] and "ibv_" .. name
    or idx["rdma_" .. name] and "rdma_" .. name
  if not cname then return nil end
  local d = D.methods[idx[cname]]
  local field = d[1] == "verbs" and d[2]:match("^verbs%.([%w_]+)")
  return cname, d[2], field or nil
end

M.doc = D.methods
return M
