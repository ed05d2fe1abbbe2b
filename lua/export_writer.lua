-- verbs.export_writer: the writer of verbs.export_c (lua/export_c.lua):
-- recorded values as C (enum and flag names, string literals), the
-- program's lines and declarations, and each call's outcome checked. The
-- verb handlers (export_verbs.lua, export_cm.lua, export_rest.lua) write
-- through it.
local R = require "verbs.record"
local verbs = require "verbs"

local fmt = string.format

-- ---------------------------------------------------------------- values

local function cenum(ctype, v)
  local e = verbs.enum(ctype)
  if math.type(v) == "integer" then
    for name, n in pairs(e.values) do if n == v then return e.prefix .. name end end
    return tostring(v)
  end
  v = tostring(v)
  if v:sub(1, #e.prefix) == e.prefix then return v end
  return e.prefix .. v
end

local function cflags(ctype, v)
  if v == nil or v == 0 then return "0" end
  if math.type(v) == "integer" then
    local e, parts, left = verbs.enum(ctype), {}, v
    local list = {}
    for name, n in pairs(e.values) do list[#list + 1] = { name, n } end
    table.sort(list, function(a, b) return a[2] < b[2] end)
    for _, p in ipairs(list) do
      if p[2] ~= 0 and left & p[2] == p[2] then parts[#parts + 1] = e.prefix .. p[1]; left = left & ~p[2] end
    end
    if left ~= 0 then parts[#parts + 1] = fmt("0x%x", left) end
    return #parts > 0 and table.concat(parts, " | ") or "0"
  end
  local list = type(v) == "table" and v or {}
  if type(v) == "string" then for name in v:gmatch("[^|%s]+") do list[#list + 1] = name end end
  local parts = {}
  for _, name in ipairs(list) do parts[#parts + 1] = cenum(ctype, name) end
  return #parts > 0 and table.concat(parts, " | ") or "0"
end

local function copy_table(t)
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  return c
end

-- A C string literal of s: printable characters as they are, the rest (and
-- '?', which could start a trigraph) as octal escapes.
local function cstring(s)
  return '"' .. s:gsub("[^%w %.,:;/_%-%*!%(%)%[%]#=%+@<>']", function(c) return fmt("\\%03o", c:byte()) end) .. '"'
end

-- ---------------------------------------------------------------- the writer

local W = {}
W.__index = W

-- The writer names objects and never holds one: the trace keeps a writer
-- for the whole session, and the objects must stay collectable.
-- The program's lines, and the same as items for the trace: a verb call is
-- one item with its C call and its outcome ({ call =, ret =, text = }),
-- anything else an item of its own text (a declaration, memcpy, a check).
local function writer()
  return setmetatable({ lines = {}, items = {}, mrs = {}, qps = {}, gids = {}, skipped = {}, n = 0 }, W)
end
function W:put(s, ...)
  local text = select("#", ...) > 0 and fmt(s, ...) or s
  self.lines[#self.lines + 1] = "\t" .. text
  self.items[#self.items + 1] = { text = text }
end
function W:blank() self.lines[#self.lines + 1] = "" end
-- A verb call: call is its C expression, ret its recorded outcome as the
-- trace shows it ("0", "qp1", "22 /* EINVAL */"), the rest the program's
-- lines that make and check it.
function W:verb(call, ret, ...)
  for i = 1, select("#", ...) do self.lines[#self.lines + 1] = "\t" .. select(i, ...) end
  self.items[#self.items + 1] = { call = call, ret = ret, text = table.concat({ ... }, "\n") }
end
-- attr1, attr2, sge1 ...: a counter per name
function W:tmp(base)
  self.count = self.count or {}
  self.count[base] = (self.count[base] or 0) + 1
  return base .. self.count[base]
end

-- An object argument as the C variable that holds it.
function W:obj(o)
  if o == nil then return "NULL" end
  local n = R.name_of(o)
  if not n then error("export_c: an argument is not a verbs object", 0) end
  return n
end

-- A number that came from an object, as the expression that reads it.
function W:qpn(v, not_self)
  local best
  for _, q in ipairs(self.qps) do
    if q.qp_num == v and q.name ~= (not_self and R.name_of(not_self)) then best = q end
  end
  return best and (best.name .. "->qp_num") or tostring(v)
end
function W:mr_of(addr)
  for i = #self.mrs, 1, -1 do
    local m = self.mrs[i]
    if m.addr and addr >= m.addr and addr < m.addr + m.length then return m end
  end
end
function W:addr(v)
  local m = math.type(v) == "integer" and self:mr_of(v)
  if not m then return fmt("0x%x", v) end
  local off = v - m.addr
  return off == 0 and fmt("(uintptr_t)%s->addr", m.name) or fmt("(uintptr_t)%s->addr + %d", m.name, off)
end
function W:key(v, which, addr)
  -- a memory window's rkey: mw->rkey as it is now, or the next one that a
  -- type 2 bind gives it (ibv_inc_rkey); rkeys differ from run to run
  if which == "rkey" then
    for _, mw in ipairs(self.mws or {}) do
      if mw.rkey == v then return mw.name .. "->rkey" end
      if verbs.inc_rkey(mw.rkey) == v then return fmt("ibv_inc_rkey(%s->rkey)", mw.name) end
    end
  end
  local m = addr and self:mr_of(addr)
  if m and m[which] == v then return m.name .. "->" .. which end
  for i = #self.mrs, 1, -1 do
    if self.mrs[i][which] == v then return self.mrs[i].name .. "->" .. which end
  end
  return fmt("0x%x", v)
end
function W:gid(v)
  if self.gids[v] then return self.gids[v] end
  local b = verbs.gid_bytes(v)
  local t = {}
  for i = 1, #b do t[i] = fmt("0x%02x", b:byte(i)) end
  return "{ .raw = { " .. table.concat(t, ", ") .. " } }"
end

-- A designated initializer for C struct ctype from the table t, walking
-- verbsh's own descriptors (verbs.fields), so every key is the C field.
function W:init(ctype, t, ctx)
  ctx = ctx or {}
  local parts = {}
  for _, f in ipairs(verbs.fields(ctype)) do
    local v = t[f.name]
    if v ~= nil then
      local c
      if f.type == "enum" then c = cenum(f.enum, v)
      elseif f.type == "flags" then c = cflags(f.enum, v)
      elseif f.type == "struct" then c = self:init(f.struct, v, ctx)
      elseif f.type == "object" then c = self:obj(v)
      elseif f.type == "gid" then c = self:gid(v)
      elseif f.name == "dest_qp_num" or f.name == "remote_qpn" then c = self:qpn(v, ctx.self)
      elseif f.name == "qp_num" or f.name == "src_qp" then c = self:qpn(v)   -- a completion's
      elseif f.name == "remote_addr" then c = self:addr(v)
      elseif f.name == "addr" and ctype == "ibv_mw_bind_info" then c = self:addr(v)
      elseif f.name == "invalidate_rkey" then c = self:key(v, "rkey")
      elseif f.name == "rkey" then c = self:key(v, "rkey", t.remote_addr)
      elseif f.name == "imm_data" then c = fmt("htonl(0x%x)", v)
      elseif f.name == "private_data" then c = cstring(v)
      elseif f.type == "custom" then c = nil
      elseif type(v) == "boolean" then c = v and "1" or "0"
      else c = tostring(math.tointeger(v) or v) end
      if c then parts[#parts + 1] = "." .. f.c .. " = " .. c end
    end
  end
  return #parts > 0 and ("{ " .. table.concat(parts, ", ") .. " }") or "{ 0 }"
end

-- ---------------------------------------------------------------- outcomes

-- "qp1:modify", "verbs.open", and for a field "cm_event2.id", "qp1.wr_id ="
local function call_text(ev)
  local who = ev.self and R.name_of(ev.self)
  if ev.method == "__field" or ev.method == "__read" then return fmt("%s.%s", who, ev.args[1]) end
  if ev.method == "__newindex" then return fmt("%s.%s =", who, ev.args[1]) end
  if ev.method == "__iter" then return fmt("%s:iter step %d", who, ev.step) end
  if ev.method == "__iter_close" then return fmt("%s:iter, left with a completion current", who) end
  return who and fmt("%s:%s", who, ev.method) or "verbs." .. ev.method
end

-- A verb that returns 0 or an errno (ibv_modify_qp, ibv_post_send ...).
-- A provider may return -1 with errno set, or a negative errno (siw's post):
-- the program expects what C returned.
function W:expect_ret(ev, expr)
  local ret = ev.err and ev.err.returned
  if ret == -1 then return self:expect_minus1(ev, expr) end
  local want = ev.err and fmt("%d", ret or ev.err.errno) or "0"
  self:verb(expr, ev.err and fmt("%d /* %s%s */", ret or ev.err.errno, ret and "-" or "", ev.err.errname) or "0",
    fmt('expect_int("%s", %s, %s);', expr:match("^[%w_]+"), want, expr))
end
-- A verb that returns -1 and sets errno on failure.
function W:expect_minus1(ev, expr)
  if ev.err then
    self:verb(expr, fmt("-1 /* errno %s */", ev.err.errname),
      fmt('expect_fail("%s", %s, %d);', expr:match("^[%w_]+"), expr, ev.err.errno))
  else
    self:verb(expr, "0", fmt('expect_int("%s", 0, %s);', expr:match("^[%w_]+"), expr))
  end
end
-- A verb that returns an object, or NULL and errno.
function W:expect_obj(ev, ctype, var, expr, verb)
  local decl = fmt("%s *%s = %s;", ctype, var, expr)
  if ev.err then
    self:verb(expr, fmt("NULL /* errno %s */", ev.err.errname), decl,
      fmt('expect_null("%s", %s, %d);', verb, var, ev.err.errno))
  else
    self:verb(expr, var, decl, fmt('expect_ptr("%s", %s);', verb, var))
  end
end
-- A check that only the program makes (a completion, bytes read back): the
-- trace leaves it out.
function W:check(s, ...)
  self.lines[#self.lines + 1] = "\t" .. fmt(s, ...)
end
-- A void verb (ibv_wr_start, ibv_ack_cq_events): its statement, formatted.
function W:vput(s, ...)
  local text = fmt(s, ...)
  self:verb((text:gsub(";$", "")), "(void)", text)
end
-- A variable read from a struct member (cm_id2->verbs, cm_event3->id).
function W:bind(ctype, var, expr) self:verb(expr, var, fmt("%s *%s = %s;", ctype, var, expr)) end

return { W = W, writer = writer, call_text = call_text, cenum = cenum, cflags = cflags, copy_table = copy_table,
  cstring = cstring }
