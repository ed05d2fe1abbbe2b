-- verbs.export_c: the recorded verb calls (verbs.record) as a standalone C
-- program in the style of rdma-core's examples, which replays them and
-- checks that every outcome is the same: each call's return value, each
-- completion's status, opcode, byte_len, imm_data and wc_flags, and the
-- bytes read back from an MR. It prints "reproduced" and exits 0, or the
-- first difference and exits 1.
local R = require "verbs.record"
local verbs = require "verbs"
local M = {}

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

-- ---------------------------------------------------------------- the verbs

local V = {}

V["nil.open"] = function(w, ev)
  if not ev.results then   -- failed here; the program's open_device exits when it fails
    w:put("/* verbs.open(%s) failed here with %s: not reproduced */", cstring(tostring(ev.args[1] or "")),
      tostring(ev.err and ev.err.errname))
    return
  end
  local ctx = ev.results[1]
  local f = R.facts(ctx) or {}
  local call = fmt("open_device(%s)", cstring(f.name or ev.args[1] or "rxe0"))
  w:verb(call, R.name_of(ctx), fmt("struct ibv_context *%s = %s;", R.name_of(ctx), call))
end
V["context.alloc_pd"] = function(w, ev)
  local v = ev.results and R.name_of(ev.results[1]) or w:tmp("pd_failed")
  w:expect_obj(ev, "struct ibv_pd", v, fmt("ibv_alloc_pd(%s)", w:obj(ev.self)), "ibv_alloc_pd")
end
V["context.create_cq"] = function(w, ev)
  local v = ev.results and R.name_of(ev.results[1]) or w:tmp("cq_failed")
  local o = ev.args[2] or {}
  w:expect_obj(ev, "struct ibv_cq", v, fmt("ibv_create_cq(%s, %d, NULL, %s, %d)", w:obj(ev.self), ev.args[1],
    o.channel and w:obj(o.channel) or "NULL", o.comp_vector or 0), "ibv_create_cq")
end
V["context.query_gid"] = function(w, ev)
  local g = w:tmp("gid")
  w:put("union ibv_gid %s;", g)
  w:expect_minus1(ev, fmt("ibv_query_gid(%s, %d, %d, &%s)", w:obj(ev.self), ev.args[1], ev.args[2], g))
  if ev.results then w.gids[ev.results[1]] = g end
end
V["context.query_port"] = function(w, ev)
  local p = w:tmp("port_attr")
  w:put("struct ibv_port_attr %s;", p)
  w:expect_ret(ev, fmt("ibv_query_port(%s, %d, &%s)", w:obj(ev.self), ev.args[1] or 1, p))
end
V["context.query_device"] = function(w, ev)
  local p = w:tmp("device_attr")
  w:put("struct ibv_device_attr %s;", p)
  w:expect_ret(ev, fmt("ibv_query_device(%s, &%s)", w:obj(ev.self), p))
end
V["context.close"] = function(w, ev) w:expect_ret(ev, fmt("ibv_close_device(%s)", w:obj(ev.self))) end

V["pd.reg_mr"] = function(w, ev)
  local size, init = ev.args[1], nil
  if type(size) == "string" then init, size = size, #size end
  local mr = ev.results and ev.results[1]
  local v = mr and R.name_of(mr) or w:tmp("mr_failed")
  local buf = "buf_" .. v
  w:put("void *%s = calloc(1, %d);", buf, size)
  if init then w:put("memcpy(%s, %s, %d);", buf, cstring(init), #init) end
  w:expect_obj(ev, "struct ibv_mr", v, fmt("ibv_reg_mr(%s, %s, %d, %s)", w:obj(ev.self), buf, size,
    cflags("ibv_access_flags", ev.args[2])), "ibv_reg_mr")
  if mr then
    local f = R.facts(mr)
    w.mrs[#w.mrs + 1] = { name = v, addr = f.addr, length = f.length or size, lkey = f.lkey, rkey = f.rkey, buf = buf }
  end
end
V["pd.create_qp"] = function(w, ev)
  local qp = ev.results and ev.results[1]
  local v = qp and R.name_of(qp) or w:tmp("qp_failed")
  local a = w:tmp("init_attr")
  w:put("struct ibv_qp_init_attr %s = %s;", a, w:init("ibv_qp_init_attr", ev.args[1]))
  w:expect_obj(ev, "struct ibv_qp", v, fmt("ibv_create_qp(%s, &%s)", w:obj(ev.self), a), "ibv_create_qp")
  if qp then w.qps[#w.qps + 1] = { name = v, qp_num = R.facts(qp).qp_num } end
end
V["pd.create_ah"] = function(w, ev)
  local ah = ev.results and ev.results[1]
  local v = ah and R.name_of(ah) or w:tmp("ah_failed")
  local a = w:tmp("ah_attr")
  w:put("struct ibv_ah_attr %s = %s;", a, w:init("ibv_ah_attr", ev.args[1]))
  w:expect_obj(ev, "struct ibv_ah", v, fmt("ibv_create_ah(%s, &%s)", w:obj(ev.self), a), "ibv_create_ah")
end
-- The completion and the GRH that an AH answers, as C declares them: the
-- WC's fields as they were recorded; the GRH where the receive put it (an
-- MR that mr:read read it from, found by the export), else its 40 bytes as
-- read. Returns the WC's variable and a struct ibv_grh * expression.
local function wc_and_grh(w, ev, wc, grh)
  local wv = w:tmp("wc")
  w:put("struct ibv_wc %s = %s;", wv, w:init("ibv_wc", wc))
  local at = ev.grh_at
  if at then return wv, fmt("(struct ibv_grh *)((char *)%s->addr + %d)", R.name_of(at.mr), at.offset) end
  local gv = w:tmp("grh")
  w:put("struct ibv_grh %s;", gv)
  w:put("memcpy(&%s, %s, sizeof %s);", gv, cstring(grh), gv)
  return wv, "&" .. gv
end
V["pd.create_ah_from_wc"] = function(w, ev)
  local ah = ev.results and ev.results[1]
  local v = ah and R.name_of(ah) or w:tmp("ah_failed")
  local wc, grh = wc_and_grh(w, ev, ev.args[1], ev.args[2])
  w:expect_obj(ev, "struct ibv_ah", v, fmt("ibv_create_ah_from_wc(%s, &%s, %s, %d)", w:obj(ev.self), wc, grh,
    ev.args[3]), "ibv_create_ah_from_wc")
end
V["context.init_ah_from_wc"] = function(w, ev)
  local wc, grh = wc_and_grh(w, ev, ev.args[2], ev.args[3])
  local a = w:tmp("ah_attr")
  w:put("struct ibv_ah_attr %s;", a)
  w:expect_ret(ev, fmt("ibv_init_ah_from_wc(%s, %d, &%s, %s, &%s)", w:obj(ev.self), ev.args[1], wc, grh, a))
  local got = ev.results and ev.results[1]
  if not ev.err and type(got) == "table" then
    for _, k in ipairs{ "is_global", "port_num", "sl" } do
      local want = got[k] == true and 1 or got[k] == false and 0 or math.tointeger(got[k])
      if want then w:verb(a .. "." .. k, tostring(want), fmt('expect_int("ah_attr.%s", %d, %s.%s);', k, want, a, k)) end
    end
    if type(got.grh) == "table" and got.grh.sgid_index then
      w:verb(a .. ".grh.sgid_index", tostring(got.grh.sgid_index),
        fmt('expect_int("ah_attr.grh.sgid_index", %d, %s.grh.sgid_index);', got.grh.sgid_index, a))
    end
  end
end
V["pd.create_srq"] = function(w, ev)
  local srq = ev.results and ev.results[1]
  local v = srq and R.name_of(srq) or w:tmp("srq_failed")
  local a = w:tmp("srq_init_attr")
  w:put("struct ibv_srq_init_attr %s = { .attr = %s };", a, w:init("ibv_srq_attr", ev.args[1]))
  w:expect_obj(ev, "struct ibv_srq", v, fmt("ibv_create_srq(%s, &%s)", w:obj(ev.self), a), "ibv_create_srq")
end
V["pd.dealloc"] = function(w, ev) w:expect_ret(ev, fmt("ibv_dealloc_pd(%s)", w:obj(ev.self))) end

-- ---------------------------------------------------------------- memory windows
-- w.mws: each window's rkey as the program's mw->rkey holds it at this
-- point (W:key writes rkeys through it).
local function mw_entry(w, mw)
  local name = R.name_of(mw)
  for _, m in ipairs(w.mws or {}) do if m.name == name then return m end end
end
V["pd.alloc_mw"] = function(w, ev)
  local mw = ev.results and ev.results[1]
  local v = mw and R.name_of(mw) or w:tmp("mw_failed")
  w:expect_obj(ev, "struct ibv_mw", v, fmt("ibv_alloc_mw(%s, %s)", w:obj(ev.self), cenum("ibv_mw_type", ev.args[1])),
    "ibv_alloc_mw")
  if mw then
    w.mws = w.mws or {}
    table.insert(w.mws, 1, { name = v, rkey = R.facts(mw).rkey })
  end
end
V["mw.dealloc"] = function(w, ev) w:expect_ret(ev, fmt("ibv_dealloc_mw(%s)", w:obj(ev.self))) end
-- ibv_bind_mw writes the window's next rkey into mw->rkey
V["qp.bind_mw"] = function(w, ev)
  local b = w:tmp("mw_bind")
  w:put("struct ibv_mw_bind %s = %s;", b, w:init("ibv_mw_bind", ev.args[2]))
  w:expect_ret(ev, fmt("ibv_bind_mw(%s, %s, &%s)", w:obj(ev.self), w:obj(ev.args[1]), b))
  local m = mw_entry(w, ev.args[1])
  if m and ev.results then m.rkey = ev.results[1] end
end
-- mw->rkey = rkey, after a type 2 bind by a work request
V["mw.__newindex"] = function(w, ev)
  local m = mw_entry(w, ev.self)
  w:put("%s->%s = %s;", w:obj(ev.self), ev.args[1], w:key(ev.args[2], "rkey"))
  if m then m.rkey = ev.args[2] end
end
V["qp.wr_bind_mw"] = function(w, ev)
  local b = w:tmp("bind_info")
  w:put("struct ibv_mw_bind_info %s = %s;", b, w:init("ibv_mw_bind_info", ev.args[3]))
  w:vput("ibv_wr_bind_mw(%s, %s, %s, &%s);", w:obj(ev.self) .. "_ex", w:obj(ev.args[1]), w:key(ev.args[2], "rkey"), b)
end
V["qp.wr_local_inv"] = function(w, ev) w:vput("ibv_wr_local_inv(%s, %s);", w:obj(ev.self) .. "_ex", w:key(ev.args[1], "rkey")) end
V["qp.wr_send_inv"] = function(w, ev) w:vput("ibv_wr_send_inv(%s, %s);", w:obj(ev.self) .. "_ex", w:key(ev.args[1], "rkey")) end

V["context.create_qp_ex"] = function(w, ev)
  local qp = ev.results and ev.results[1]
  local v = qp and R.name_of(qp) or w:tmp("qp_failed")
  local a = w:tmp("init_attr_ex")
  local t = copy_table(ev.args[1])
  if t.comp_mask == nil then
    local m = { "IBV_QP_INIT_ATTR_PD" }
    if t.send_ops_flags then m[#m + 1] = "IBV_QP_INIT_ATTR_SEND_OPS_FLAGS" end
    if t.create_flags then m[#m + 1] = "IBV_QP_INIT_ATTR_CREATE_FLAGS" end
    t.comp_mask = m
  end
  w:put("struct ibv_qp_init_attr_ex %s = %s;", a, w:init("ibv_qp_init_attr_ex", t))
  w:expect_obj(ev, "struct ibv_qp", v, fmt("ibv_create_qp_ex(%s, &%s)", w:obj(ev.self), a), "ibv_create_qp_ex")
  if qp then
    w:bind("struct ibv_qp_ex", v .. "_ex", fmt("ibv_qp_to_qp_ex(%s)", v))
    w.qps[#w.qps + 1] = { name = v, qp_num = R.facts(qp).qp_num }
  end
end

-- The builder of an extended QP (ibv_qp_ex): qp.wr_id = ..., qp:wr_*().
V["qp.__newindex"] = function(w, ev)
  local k, v = ev.args[1], ev.args[2]
  local q = w:obj(ev.self) .. "_ex"
  if k == "wr_flags" then w:put("%s->wr_flags = %s;", q, cflags("ibv_send_flags", v))
  else w:put("%s->%s = %s;", q, k, tostring(math.tointeger(v) or v)) end
end
local function qx(w, ev) return w:obj(ev.self) .. "_ex" end
V["qp.wr_start"] = function(w, ev) w:vput("ibv_wr_start(%s);", qx(w, ev)) end
V["qp.wr_abort"] = function(w, ev) w:vput("ibv_wr_abort(%s);", qx(w, ev)) end
V["qp.wr_complete"] = function(w, ev) w:expect_ret(ev, fmt("ibv_wr_complete(%s)", qx(w, ev))) end
V["qp.wr_send"] = function(w, ev) w:vput("ibv_wr_send(%s);", qx(w, ev)) end
V["qp.wr_send_imm"] = function(w, ev) w:vput("ibv_wr_send_imm(%s, htonl(0x%x));", qx(w, ev), ev.args[1]) end
V["qp.wr_rdma_write"] = function(w, ev)
  w:vput("ibv_wr_rdma_write(%s, %s, %s);", qx(w, ev), w:key(ev.args[1], "rkey", ev.args[2]), w:addr(ev.args[2]))
end
V["qp.wr_rdma_write_imm"] = function(w, ev)
  w:vput("ibv_wr_rdma_write_imm(%s, %s, %s, htonl(0x%x));", qx(w, ev), w:key(ev.args[1], "rkey", ev.args[2]),
    w:addr(ev.args[2]), ev.args[3])
end
V["qp.wr_rdma_read"] = function(w, ev)
  w:vput("ibv_wr_rdma_read(%s, %s, %s);", qx(w, ev), w:key(ev.args[1], "rkey", ev.args[2]), w:addr(ev.args[2]))
end
V["qp.wr_atomic_fetch_add"] = function(w, ev)
  w:vput("ibv_wr_atomic_fetch_add(%s, %s, %s, %d);", qx(w, ev), w:key(ev.args[1], "rkey", ev.args[2]),
    w:addr(ev.args[2]), ev.args[3])
end
V["qp.wr_atomic_cmp_swp"] = function(w, ev)
  w:vput("ibv_wr_atomic_cmp_swp(%s, %s, %s, %d, %d);", qx(w, ev), w:key(ev.args[1], "rkey", ev.args[2]),
    w:addr(ev.args[2]), ev.args[3], ev.args[4])
end
V["qp.wr_set_sge"] = function(w, ev)
  local a = ev.args
  if R.kind(a[1]) == "mr" then
    local m = R.name_of(a[1])
    w:vput("ibv_wr_set_sge(%s, %s->lkey, (uintptr_t)%s->addr + %d, %d);", qx(w, ev), m, m, a[2], a[3])
  else
    w:vput("ibv_wr_set_sge(%s, %s, %s, %d);", qx(w, ev), w:key(a[1], "lkey", a[2]), w:addr(a[2]), a[3])
  end
end
V["qp.wr_set_inline_data"] = function(w, ev)
  w:vput("ibv_wr_set_inline_data(%s, %s, %d);", qx(w, ev), cstring(ev.args[1]), #ev.args[1])
end
V["qp.wr_set_ud_addr"] = function(w, ev)
  w:vput("ibv_wr_set_ud_addr(%s, %s, %s, 0x%x);", qx(w, ev), w:obj(ev.args[1]), w:qpn(ev.args[2]), ev.args[3])
end

V["qp.wr_set_sge_list"] = function(w, ev)
  local s, n = w:sges(ev.args[1])
  w:vput("ibv_wr_set_sge_list(%s, %d, %s);", qx(w, ev), n, s)
end
V["qp.wr_set_inline_data_list"] = function(w, ev)
  local b, parts = w:tmp("data_buf"), {}
  for i, d in ipairs(ev.args[1]) do parts[i] = fmt("{ .addr = %s, .length = %d }", cstring(d), #d) end
  w:put("struct ibv_data_buf %s[%d] = { %s };", b, #parts, table.concat(parts, ", "))
  w:vput("ibv_wr_set_inline_data_list(%s, %d, %s);", qx(w, ev), #parts, b)
end

local function mr_entry(w, mr)
  local name = R.name_of(mr)
  for _, m in ipairs(w.mrs) do if m.name == name then return m end end
end
-- The MR whose memory a statement touches: one the program registered.
local function known_mr(w, mr)
  return mr_entry(w, mr) or error(("%s was registered before recording began, so the program has no such MR")
    :format(R.name_of(mr)), 0)
end
V["mr.write"] = function(w, ev)
  local m = known_mr(w, ev.self)
  w:put("memcpy((char *)%s->addr + %d, %s, %d);", m.name, ev.args[1], cstring(ev.args[2]), #ev.args[2])
end
V["mr.fill"] = function(w, ev)
  local m = known_mr(w, ev.self)
  local off = ev.args[2] or 0
  local len = ev.args[3] or (m.length - off)
  w:put("memset((char *)%s->addr + %d, %d, %d);", m.name, off, ev.args[1], len)
end
V["mr.read"] = function(w, ev)
  local m = known_mr(w, ev.self)
  local off = ev.args[1] or 0
  local s = ev.results[1]
  if ev.grh_read then
    w:put("/* the GRH that the AH below is made from, read in place; not compared: its IPv4 header's ID and"
      .. " checksum differ per packet */")
    return
  end
  w:check('expect_bytes("%s:read(%d, %d)", %s, (char *)%s->addr + %d, %d);', m.name, off, #s, cstring(s), m.name, off, #s)
end
V["mr.dereg"] = function(w, ev) w:expect_ret(ev, fmt("ibv_dereg_mr(%s)", w:obj(ev.self))) end

local QP_MASK = {
  qp_state = "IBV_QP_STATE", cur_qp_state = "IBV_QP_CUR_STATE", en_sqd_async_notify = "IBV_QP_EN_SQD_ASYNC_NOTIFY",
  qp_access_flags = "IBV_QP_ACCESS_FLAGS", pkey_index = "IBV_QP_PKEY_INDEX", port_num = "IBV_QP_PORT",
  qkey = "IBV_QP_QKEY", ah_attr = "IBV_QP_AV", path_mtu = "IBV_QP_PATH_MTU", timeout = "IBV_QP_TIMEOUT",
  retry_cnt = "IBV_QP_RETRY_CNT", rnr_retry = "IBV_QP_RNR_RETRY", rq_psn = "IBV_QP_RQ_PSN",
  max_rd_atomic = "IBV_QP_MAX_QP_RD_ATOMIC", alt_ah_attr = "IBV_QP_ALT_PATH", alt_pkey_index = "IBV_QP_ALT_PATH",
  alt_port_num = "IBV_QP_ALT_PATH", alt_timeout = "IBV_QP_ALT_PATH", min_rnr_timer = "IBV_QP_MIN_RNR_TIMER",
  sq_psn = "IBV_QP_SQ_PSN", max_dest_rd_atomic = "IBV_QP_MAX_DEST_RD_ATOMIC", path_mig_state = "IBV_QP_PATH_MIG_STATE",
  cap = "IBV_QP_CAP", dest_qp_num = "IBV_QP_DEST_QPN", rate_limit = "IBV_QP_RATE_LIMIT",
}
local MASK_ORDER = { "IBV_QP_STATE", "IBV_QP_CUR_STATE", "IBV_QP_EN_SQD_ASYNC_NOTIFY", "IBV_QP_ACCESS_FLAGS",
  "IBV_QP_PKEY_INDEX", "IBV_QP_PORT", "IBV_QP_QKEY", "IBV_QP_AV", "IBV_QP_PATH_MTU", "IBV_QP_TIMEOUT",
  "IBV_QP_RETRY_CNT", "IBV_QP_RNR_RETRY", "IBV_QP_RQ_PSN", "IBV_QP_MAX_QP_RD_ATOMIC", "IBV_QP_ALT_PATH",
  "IBV_QP_MIN_RNR_TIMER", "IBV_QP_SQ_PSN", "IBV_QP_MAX_DEST_RD_ATOMIC", "IBV_QP_PATH_MIG_STATE", "IBV_QP_CAP",
  "IBV_QP_DEST_QPN", "IBV_QP_RATE_LIMIT" }

V["qp.modify"] = function(w, ev)
  local attr, mask = ev.args[1], ev.args[2]
  local a = w:tmp("attr")
  w:put("struct ibv_qp_attr %s = %s;", a, w:init("ibv_qp_attr", attr, { self = ev.self }))
  local m
  if mask ~= nil then
    m = cflags("ibv_qp_attr_mask", mask)
  else
    local have = {}
    for k in pairs(attr) do if QP_MASK[k] then have[QP_MASK[k]] = true end end
    local parts = {}
    for _, n in ipairs(MASK_ORDER) do if have[n] then parts[#parts + 1] = n end end
    m = table.concat(parts, " | ")
  end
  w:expect_ret(ev, fmt("ibv_modify_qp(%s, &%s, %s)", w:obj(ev.self), a, m))
end

-- The sg_list of a WR: an array of ibv_sge, or NULL.
function W:sges(list)
  if not list or #list == 0 then return "NULL", 0 end
  local s = self:tmp("sge")
  local parts = {}
  for _, e in ipairs(list) do
    if e.mr then
      local m = mr_entry(self, e.mr)
      parts[#parts + 1] = fmt("{ .addr = (uintptr_t)%s->addr + %d, .length = %d, .lkey = %s->lkey }",
        m and m.name or self:obj(e.mr), e.offset or 0, e.length or (m and m.length - (e.offset or 0)) or 0, m and m.name or self:obj(e.mr))
    else
      parts[#parts + 1] = fmt("{ .addr = %s, .length = %d, .lkey = %s }", self:addr(e.addr), e.length, self:key(e.lkey, "lkey", e.addr))
    end
  end
  self:put("struct ibv_sge %s[%d] = { %s };", s, #parts, table.concat(parts, ", "))
  return s, #parts
end

local function wr_list(arg)
  if type(arg) == "table" and arg[1] ~= nil then return arg end
  return { arg }
end

local function post(w, ev, send, verb, target)
  local list = wr_list(ev.args[1])
  local wrs = w:tmp("wr")
  local items = {}
  for i, wr in ipairs(list) do
    local s, n = w:sges(wr.sg_list)
    local init = w:init(send and "ibv_send_wr" or "ibv_recv_wr", wr, { self = ev.self })
    init = init:gsub("^{ ", "{ .sg_list = " .. (s == "NULL" and "NULL" or s) .. ", .num_sge = " .. n .. ", ")
    if init == "{ 0 }" then init = fmt("{ .sg_list = %s, .num_sge = %d }", s, n) end
    if i < #list then init = init:gsub(" }$", fmt(", .next = &%s[%d] }", wrs, i)) end
    items[i] = init
  end
  w:put("struct %s %s[%d] = {", send and "ibv_send_wr" or "ibv_recv_wr", wrs, #items)
  for _, it in ipairs(items) do w:put("\t%s,", it) end
  w:put("};")
  local bad = w:tmp("bad_wr")
  w:put("struct %s *%s = NULL;", send and "ibv_send_wr" or "ibv_recv_wr", bad)
  w:expect_ret(ev, fmt("%s(%s, %s, &%s)", verb, target, wrs, bad))
end
V["qp.post_send"] = function(w, ev) post(w, ev, true, "ibv_post_send", w:obj(ev.self)) end
V["qp.post_recv"] = function(w, ev) post(w, ev, false, "ibv_post_recv", w:obj(ev.self)) end
V["srq.post_recv"] = function(w, ev) post(w, ev, false, "ibv_post_srq_recv", w:obj(ev.self)) end

-- cq:poll and cq:wait: the C program polls until as many completions as
-- were recorded have come (timing differs from run to run), then compares
-- each. A poll that found nothing is timing alone: it is left out.
local function completions(w, ev)
  local list = ev.wcs or ev.results and ev.results[1]
  if type(list) ~= "table" or #list == 0 then
    w:verb(fmt("ibv_poll_cq(%s, n, wc)", w:obj(ev.self)), "0",
      fmt("/* %s found no completion here: timing, not polled */", call_text(ev)))
    return
  end
  local cq = w:obj(ev.self)
  w.pools = w.pools or {}
  if not w.pools[cq] then   -- declared where first used: an unused variable is an error
    w.pools[cq] = true
    w:check("struct wc_pool %s_wcs = { .cq = %s };", cq, cq)
  end
  local seen = {}
  for i, c in ipairs(list) do
    seen[i] = fmt("wr_id %d %s", math.tointeger(c.wr_id) or 0, tostring(c.status))
  end
  w:verb(fmt("ibv_poll_cq(%s, n, wc)", cq), fmt("%d  /* %s */", #list, table.concat(seen, ", ")),
    fmt('wait_completions(&%s_wcs, "completions on %s", %d);', cq, cq, #list))
  for i, c in ipairs(list) do
    local ok = c.status == "SUCCESS"
    w:check('expect_wc(&%s_wcs, "%s completion %d (wr_id %d)", %d, %s, %s, %d, %d, %s);', cq, cq, i,
      math.tointeger(c.wr_id) or 0, math.tointeger(c.wr_id) or 0, cenum("ibv_wc_status", c.status),
      ok and cenum("ibv_wc_opcode", c.opcode) or "0", ok and (c.byte_len or 0) or 0, c.imm_data or 0,
      ok and cflags("ibv_wc_flags", c.wc_flags) or "0")
  end
end
V["cq.poll"] = completions
V["cq.wait"] = completions
V["cq.destroy"] = function(w, ev) w:expect_ret(ev, fmt("ibv_destroy_cq(%s)", w:obj(ev.self))) end
V["qp.destroy"] = function(w, ev)
  local id = w.cm_qps and w.cm_qps[R.name_of(ev.self)]
  if id then   -- librdmacm's QP goes through its id
    w:put("(void)%s;   /* read from %s->qp; rdma_destroy_qp destroys it */", w:obj(ev.self), id)
    w:vput("rdma_destroy_qp(%s);", id)
    return
  end
  w:expect_ret(ev, fmt("ibv_destroy_qp(%s)", w:obj(ev.self)))
end
V["ah.destroy"] = function(w, ev) w:expect_ret(ev, fmt("ibv_destroy_ah(%s)", w:obj(ev.self))) end
-- ibv_modify_srq: the mask given, or the one of the keys given.
V["srq.modify"] = function(w, ev)
  local a = w:tmp("srq_attr")
  local m = {}
  if ev.args[1].max_wr ~= nil then m[#m + 1] = "IBV_SRQ_MAX_WR" end
  if ev.args[1].srq_limit ~= nil then m[#m + 1] = "IBV_SRQ_LIMIT" end
  local mask = ev.args[2] ~= nil and cflags("ibv_srq_attr_mask", ev.args[2]) or #m > 0 and table.concat(m, " | ") or "0"
  w:put("struct ibv_srq_attr %s = %s;", a, w:init("ibv_srq_attr", ev.args[1]))
  w:expect_ret(ev, fmt("ibv_modify_srq(%s, &%s, %s)", w:obj(ev.self), a, mask))
end
V["srq.query"] = function(w, ev)
  local a = w:tmp("srq_attr")
  w:put("struct ibv_srq_attr %s;", a)
  w:expect_ret(ev, fmt("ibv_query_srq(%s, &%s)", w:obj(ev.self), a))
  local t = ev.results and ev.results[1]
  if type(t) == "table" and t.srq_limit then
    w:check('expect_int("%s srq_limit", %d, %s.srq_limit);', w:obj(ev.self), t.srq_limit, a)
  end
end
V["srq.destroy"] = function(w, ev)
  local id = w.cm_srqs and w.cm_srqs[R.name_of(ev.self)]
  if id then   -- rdma_create_srq's goes through its id
    w:put("(void)%s;   /* read from %s->srq; rdma_destroy_srq destroys it */", w:obj(ev.self), id)
    w:vput("rdma_destroy_srq(%s);", id)
    return
  end
  w:expect_ret(ev, fmt("ibv_destroy_srq(%s)", w:obj(ev.self)))
end
V["qp.query"] = function(w, ev)
  local a, i = w:tmp("attr"), w:tmp("init_attr")
  w:put("struct ibv_qp_attr %s; struct ibv_qp_init_attr %s;", a, i)
  w:expect_ret(ev, fmt("ibv_query_qp(%s, &%s, IBV_QP_STATE, &%s)", w:obj(ev.self), a, i))
  local st = ev.results and type(ev.results[1]) == "table" and ev.results[1].qp_state
  if st then w:check('expect_int("%s state", %s, %s.qp_state);', w:obj(ev.self), cenum("ibv_qp_state", st), a) end
end

-- ---------------------------------------------------------------- completion channels

V["context.create_comp_channel"] = function(w, ev)
  local ch = ev.results and ev.results[1]
  local v = ch and R.name_of(ch) or w:tmp("channel_failed")
  w:expect_obj(ev, "struct ibv_comp_channel", v, fmt("ibv_create_comp_channel(%s)", w:obj(ev.self)),
    "ibv_create_comp_channel")
end
V["comp_channel.destroy"] = function(w, ev)
  w:expect_ret(ev, fmt("ibv_destroy_comp_channel(%s)", w:obj(ev.self)))
end
V["cq.req_notify"] = function(w, ev)
  local sol = ev.args[1]   -- a boolean, or C's 0 or 1 (0 is true in Lua)
  w:expect_ret(ev, fmt("ibv_req_notify_cq(%s, %d)", w:obj(ev.self), (sol == true or sol == 1) and 1 or 0))
end
V["cq.ack_events"] = function(w, ev) w:vput("ibv_ack_cq_events(%s, %d);", w:obj(ev.self), ev.args[1]) end
-- A completion event: C waits for the channel's fd (the recorded timeout, at
-- least 5 s: timing differs) and checks that the event is the recorded CQ's.
V["comp_channel.get_cq_event"] = function(w, ev)
  local cq = ev.results and ev.results[1]
  local call = fmt("ibv_get_cq_event(%s, &ev_cq, &ev_ctx)", w:obj(ev.self))
  if not cq then
    w:verb(call, "(none: timeout)",
      fmt("/* %s: no completion event within the timeout here: timing, not waited for */", call_text(ev)))
    return
  end
  w:verb(call, fmt("0  /* ev_cq = %s */", w:obj(cq)), fmt('get_cq_event(%s, %s, "%s");', w:obj(ev.self), w:obj(cq),
    call_text(ev)))
end

-- An async event: C waits for the context's async fd (the recorded timeout,
-- at least 5 s), checks the event's type and what it is about (the QP, CQ
-- or SRQ, or the port), and acks it, as verbsh did.
V["context.get_async_event"] = function(w, ev)
  local e = ev.results and ev.results[1]
  local call = fmt("ibv_get_async_event(%s, &async_event)", w:obj(ev.self))
  if not e then
    w:verb(call, "(none: timeout)",
      fmt("/* %s: no async event within the timeout here: timing, not waited for */", call_text(ev)))
    return
  end
  local etype = cenum("ibv_event_type", e.event_type)
  local about = (e.qp or e.cq or e.srq) and w:obj(e.qp or e.cq or e.srq) or "NULL"
  w:verb(call, fmt("0  /* %s */", etype), fmt('get_async_event(%s, %s, %s, %d, "%s");', w:obj(ev.self), etype,
    about, math.tointeger(e.port_num) or 0, call_text(ev)))
end

-- ---------------------------------------------------------------- the extended CQ

V["context.create_cq_ex"] = function(w, ev)
  local cq = ev.results and ev.results[1]
  local v = cq and R.name_of(cq) or w:tmp("cq_failed")
  local a = w:tmp("cq_attr")
  w:put("struct ibv_cq_init_attr_ex %s = %s;", a, w:init("ibv_cq_init_attr_ex", ev.args[1]))
  local call = fmt("ibv_create_cq_ex(%s, &%s)", w:obj(ev.self), a)
  local decl = fmt("struct ibv_cq_ex *%s_ex = %s;", v, call)
  if ev.err then
    w:verb(call, fmt("NULL /* errno %s */", ev.err.errname), decl,
      fmt('expect_null("ibv_create_cq_ex", %s_ex, %d);', v, ev.err.errno))
  else
    w:verb(call, v .. "_ex", decl, fmt('expect_ptr("ibv_create_cq_ex", %s_ex);', v))
    w:bind("struct ibv_cq", v, fmt("ibv_cq_ex_to_cq(%s_ex)", v))
  end
end
-- start_poll and next_poll find a completion or ENOENT; which one depends
-- on timing, so a recorded completion is waited for (poll_ex retries
-- ENOENT for 5 s) and a recorded ENOENT is not replayed.
V["cq.start_poll"] = function(w, ev)
  local cq = w:obj(ev.self)
  if ev.results and ev.results[1] == false then
    w:verb(fmt("ibv_start_poll(%s_ex, &poll_attr)", cq), "ENOENT",
      fmt("/* %s found the CQ empty here: timing, not polled */", call_text(ev)))
    return
  end
  local a = w:tmp("poll_attr")
  w:put("struct ibv_poll_cq_attr %s = { 0 };", a)
  w:verb(fmt("ibv_start_poll(%s_ex, &%s)", cq, a), "0", fmt('poll_ex(%s_ex, &%s, "%s");', cq, a, call_text(ev)))
end
V["cq.next_poll"] = function(w, ev)
  local cq = w:obj(ev.self)
  if ev.results and ev.results[1] == false then
    w:verb(fmt("ibv_next_poll(%s_ex)", cq), "ENOENT",
      fmt("/* %s found no further completion here: timing, not polled */", call_text(ev)))
    return
  end
  w:verb(fmt("ibv_next_poll(%s_ex)", cq), "0", fmt('poll_ex(%s_ex, NULL, "%s");', cq, call_text(ev)))
end
-- verbsh skips the provider's end_poll where this rxe (rdma-core < 55)
-- already ended the poll at next_poll's ENOENT (src/cq_ex.c). C does not
-- replay that ENOENT (timing), so its poll is still open: it ends it.
V["cq.end_poll"] = function(w, ev)
  if ev.results and ev.results[1] == false then
    w:put("/* verbsh did not call it: this rxe (rdma-core < 55) had ended the poll at next_poll's ENOENT, which"
      .. " is not replayed here */")
  end
  w:vput("ibv_end_poll(%s_ex);", w:obj(ev.self))
end
-- for wc in cq:iter(): the loop's steps, each an event (lua/record.lua).
-- A completion is the start_poll or next_poll that found it (poll_ex waits
-- for it), its fields checked through the ibv_wc_read_* accessors; the
-- step that found none ends the loop. C does not replay that last
-- next_poll (timing), so it ends the poll with ibv_end_poll, as after a
-- break, even where this rxe's next_poll had already ended it for verbsh.
V["cq.iter"] = function(w)
  w:put("/* a loop: ibv_start_poll, ibv_next_poll until ENOENT, ibv_end_poll; its steps follow */")
end
V["cq.__iter"] = function(w, ev)
  local cq = w:obj(ev.self)
  local label = call_text(ev)
  local wc = ev.results[1]
  if wc == nil then
    if ev.step == 1 then
      w:verb(fmt("ibv_start_poll(%s_ex, &poll_attr)", cq), "ENOENT",
        fmt("/* %s found the CQ empty here: timing, not polled */", label))
    else
      w:verb(fmt("ibv_next_poll(%s_ex)", cq), "ENOENT",
        "/* no further completion here (next_poll's ENOENT): timing, not polled */")
      w:vput("ibv_end_poll(%s_ex);", cq)
    end
    return
  end
  if ev.step == 1 then
    local a = w:tmp("poll_attr")
    w:put("struct ibv_poll_cq_attr %s = { 0 };", a)
    w:verb(fmt("ibv_start_poll(%s_ex, &%s)", cq, a), "0", fmt('poll_ex(%s_ex, &%s, "%s");', cq, a, label))
  else
    w:verb(fmt("ibv_next_poll(%s_ex)", cq), "0", fmt('poll_ex(%s_ex, NULL, "%s");', cq, label))
  end
  local function check(what, want, expr)
    w:verb(expr, want, fmt('expect_int("%s %s", %s, %s);', label, what, want, expr))
  end
  check("wr_id", tostring(math.tointeger(wc.wr_id) or wc.wr_id), cq .. "_ex->wr_id")
  check("status", cenum("ibv_wc_status", wc.status), cq .. "_ex->status")
  if wc.status ~= "SUCCESS" then return end
  check("opcode", cenum("ibv_wc_opcode", wc.opcode), fmt("ibv_wc_read_opcode(%s_ex)", cq))
  if wc.byte_len ~= nil then check("byte_len", tostring(wc.byte_len), fmt("ibv_wc_read_byte_len(%s_ex)", cq)) end
  if wc.imm_data ~= nil then check("imm_data", tostring(wc.imm_data), fmt("ntohl(ibv_wc_read_imm_data(%s_ex))", cq)) end
  if wc.qp_num ~= nil then check("qp_num", w:qpn(wc.qp_num), fmt("ibv_wc_read_qp_num(%s_ex)", cq)) end
end
V["cq.__iter_close"] = function(w, ev)
  w:put("/* the loop was left with a completion current: its closing value ends the poll */")
  w:vput("ibv_end_poll(%s_ex);", w:obj(ev.self))
end
for _, r in ipairs { "read_opcode", "read_vendor_err", "read_byte_len", "read_imm_data", "read_qp_num",
                     "read_src_qp", "read_wc_flags", "read_slid", "read_sl", "read_dlid_path_bits" } do
  V["cq." .. r] = function(w, ev)
    local v = ev.results and ev.results[1]
    local cq = w:obj(ev.self)
    local expr = fmt("ibv_wc_%s(%s_ex)", r, cq)
    local want
    if r == "read_opcode" then want = cenum("ibv_wc_opcode", v)
    elseif r == "read_wc_flags" then want = cflags("ibv_wc_flags", v)
    elseif r == "read_imm_data" then expr = fmt("ntohl(%s)", expr); want = tostring(v)
    elseif r == "read_qp_num" or r == "read_src_qp" then want = w:qpn(v)
    else want = tostring(math.tointeger(v) or v) end
    w:verb(expr, want, fmt('expect_int("%s %s", %s, %s);', cq, r, want, expr))
  end
end
-- cq.wr_id and cq.status of an extended CQ: the fields of the current completion.
V["cq.__read"] = function(w, ev)
  local k, v = ev.args[1], ev.results[1]
  local cq = w:obj(ev.self)
  if k == "status" then
    local want = cenum("ibv_wc_status", v)
    w:verb(cq .. "_ex->status", want, fmt('expect_int("%s status", %s, %s_ex->status);', cq, want, cq))
  elseif k == "wr_id" then
    w:verb(cq .. "_ex->wr_id", tostring(v), fmt('expect_int("%s wr_id", %d, %s_ex->wr_id);', cq, v, cq))
  end
end

-- ---------------------------------------------------------------- rdma_cm

-- What C reads from a struct member into a variable of its own: the new id
-- of a CONNECT_REQUEST (event->id), the device librdmacm opened (id->verbs).
local FIELD_TYPES = { cm_id = "struct rdma_cm_id", context = "struct ibv_context", qp = "struct ibv_qp",
                      cm_event = "struct rdma_cm_event", pd = "struct ibv_pd", cq = "struct ibv_cq" }
function V.__field(w, ev)
  local o = ev.results[1]
  local k = R.kind(o)
  w:bind(FIELD_TYPES[k] or "void", R.name_of(o), fmt("%s->%s", w:obj(ev.self), ev.args[1]))
  if k == "qp" then w.qps[#w.qps + 1] = { name = R.name_of(o), qp_num = R.facts(o).qp_num } end
  if k == "qp" and ev.class == "cm_id" then   -- librdmacm's QP goes through its id
    w.cm_qps = w.cm_qps or {}
    w.cm_qps[R.name_of(o)] = w:obj(ev.self)
  end
end

V["nil.create_event_channel"] = function(w, ev)
  local ch = ev.results and ev.results[1]
  local v = ch and R.name_of(ch) or w:tmp("cm_channel_failed")
  w:expect_obj(ev, "struct rdma_event_channel", v, "rdma_create_event_channel()", "rdma_create_event_channel")
end
V["cm_channel.destroy"] = function(w, ev) w:vput("rdma_destroy_event_channel(%s);", w:obj(ev.self)) end
V["cm_channel.create_id"] = function(w, ev)
  local id = ev.results and ev.results[1]
  local v = id and R.name_of(id) or w:tmp("cm_id_failed")
  w:put("struct rdma_cm_id *%s;", v)
  w:expect_minus1(ev, fmt("rdma_create_id(%s, &%s, NULL, %s)", w:obj(ev.self), v, cenum("rdma_port_space", ev.args[1])))
end
-- An event: C waits for it (the recorded timeout, at least 5 s) and checks
-- its type and status. Events come in the recorded order: each channel's
-- own, and the script read them one channel at a time.
V["cm_channel.get_cm_event"] = function(w, ev)
  local e = ev.results and ev.results[1]
  if ev.err then
    w:put("struct rdma_cm_event *%s;", w:tmp("cm_event_failed"))
    w:expect_minus1(ev, fmt("rdma_get_cm_event(%s, &cm_event_failed%d)", w:obj(ev.self), w.count.cm_event_failed))
    return
  end
  if not e then
    w:verb(fmt("rdma_get_cm_event(%s, &event)", w:obj(ev.self)), "(none: timeout)",
      fmt("/* %s: no event within the timeout here: timing, not waited for */", call_text(ev)))
    return
  end
  local f = R.facts(e) or {}
  local v, type = R.name_of(e), cenum("rdma_cm_event_type", f.event)
  w:verb(fmt("rdma_get_cm_event(%s, &%s)", w:obj(ev.self), v), fmt("0  /* %s->event = %s, status %d */", v, type,
    f.status or 0), fmt('struct rdma_cm_event *%s = get_cm_event(%s, %d, %s, %d);', v, w:obj(ev.self),
    math.max(5000, math.tointeger(ev.args[1]) or 0), type, f.status or 0))
end
V["cm_event.ack"] = function(w, ev) w:expect_minus1(ev, fmt("rdma_ack_cm_event(%s)", w:obj(ev.self))) end
V["cm_event.expect"] = function() end   -- get_cm_event checked the type already

V["cm_id.bind_addr"] = function(w, ev)
  local a = w:tmp("addr")
  w:put("struct sockaddr_storage %s;", a)
  w:expect_minus1(ev, fmt("rdma_bind_addr(%s, sockaddr_of(&%s, %s))", w:obj(ev.self), a, cstring(ev.args[1])))
end
V["cm_id.resolve_addr"] = function(w, ev)
  local src = "NULL"
  if ev.args[1] ~= nil then
    local a = w:tmp("addr")
    w:put("struct sockaddr_storage %s;", a)
    src = fmt("sockaddr_of(&%s, %s)", a, cstring(ev.args[1]))
  end
  local d = w:tmp("addr")
  w:put("struct sockaddr_storage %s;", d)
  w:expect_minus1(ev, fmt("rdma_resolve_addr(%s, %s, sockaddr_of(&%s, %s), %d)", w:obj(ev.self), src, d,
    cstring(ev.args[2]), math.tointeger(ev.args[3]) or 2000))
end
V["cm_id.resolve_route"] = function(w, ev)
  w:expect_minus1(ev, fmt("rdma_resolve_route(%s, %d)", w:obj(ev.self), math.tointeger(ev.args[1]) or 2000))
end
V["cm_id.listen"] = function(w, ev)
  w:expect_minus1(ev, fmt("rdma_listen(%s, %d)", w:obj(ev.self), math.tointeger(ev.args[1]) or 0))
end
V["cm_id.create_qp"] = function(w, ev)
  local a = w:tmp("init_attr")
  w:put("struct ibv_qp_init_attr %s = %s;", a, w:init("ibv_qp_init_attr", ev.args[2]))
  w:expect_minus1(ev, fmt("rdma_create_qp(%s, %s, &%s)", w:obj(ev.self), w:obj(ev.args[1]), a))
  local qp = ev.results and ev.results[1]
  if qp then
    local v = R.name_of(qp)
    w:bind("struct ibv_qp", v, fmt("%s->qp", w:obj(ev.self)))
    w.qps[#w.qps + 1] = { name = v, qp_num = R.facts(qp).qp_num }
    w.cm_qps = w.cm_qps or {}
    w.cm_qps[v] = w:obj(ev.self)
  end
end
V["cm_id.destroy_qp"] = function(w, ev) w:vput("rdma_destroy_qp(%s);", w:obj(ev.self)) end
-- connect and accept: the conn_param, private_data as the literal it was.
local function conn(w, ev, verb)
  local t = ev.args[1]
  if t == nil then
    w:expect_minus1(ev, fmt("%s(%s, NULL)", verb, w:obj(ev.self)))
    return
  end
  t = copy_table(t)
  if t.private_data ~= nil and t.private_data_len == nil then t.private_data_len = #t.private_data end
  local p = w:tmp("conn_param")
  w:put("struct rdma_conn_param %s = %s;", p, w:init("rdma_conn_param", t))
  w:expect_minus1(ev, fmt("%s(%s, &%s)", verb, w:obj(ev.self), p))
end
V["cm_id.connect"] = function(w, ev) conn(w, ev, "rdma_connect") end
V["cm_id.accept"] = function(w, ev) conn(w, ev, "rdma_accept") end
V["cm_id.reject"] = function(w, ev)
  local d = ev.args[1]
  w:expect_minus1(ev, fmt("rdma_reject(%s, %s, %d)", w:obj(ev.self), d and cstring(d) or "NULL", d and #d or 0))
end
V["cm_id.disconnect"] = function(w, ev) w:expect_minus1(ev, fmt("rdma_disconnect(%s)", w:obj(ev.self))) end
V["cm_id.establish"] = function(w, ev) w:expect_minus1(ev, fmt("rdma_establish(%s)", w:obj(ev.self))) end
V["cm_id.destroy"] = function(w, ev)
  local id = w:obj(ev.self)
  if w.eps and w.eps[id] then w:vput("rdma_destroy_ep(%s);", id) return end   -- verbs.create_ep's
  w:expect_minus1(ev, fmt("rdma_destroy_id(%s)", id))
end
-- rdma_init_qp_attr: the attributes and mask librdmacm would pass to
-- ibv_modify_qp for that state. C checks the mask; a qp:modify that passes
-- the attributes on writes them out as it writes any.
V["cm_id.init_qp_attr"] = function(w, ev)
  local a, m = w:tmp("attr"), w:tmp("mask")
  w:put("struct ibv_qp_attr %s = { .qp_state = %s };", a, cenum("ibv_qp_state", ev.args[1]))
  w:put("int %s = 0;", m)
  w:expect_minus1(ev, fmt("rdma_init_qp_attr(%s, &%s, &%s)", w:obj(ev.self), a, m))
  if not ev.err then
    local want = cflags("ibv_qp_attr_mask", ev.results[2])
    w:verb(m, want, fmt('expect_int("rdma_init_qp_attr mask", %s, %s);', want, m))
  end
end
V["cm_id.get_src_port"] = function(w, ev)
  local call = fmt("ntohs(rdma_get_src_port(%s))", w:obj(ev.self))
  w:verb(call, tostring(ev.results[1]), fmt('expect_int("%s:get_src_port", %d, %s);', w:obj(ev.self), ev.results[1], call))
end
V["cm_id.get_dst_port"] = function(w, ev)
  local call = fmt("ntohs(rdma_get_dst_port(%s))", w:obj(ev.self))
  w:verb(call, tostring(ev.results[1]), fmt('expect_int("%s:get_dst_port", %d, %s);', w:obj(ev.self), ev.results[1], call))
end
V["cm_id.get_local_addr"] = function(w, ev)
  local call, want = fmt("rdma_get_local_addr(%s)", w:obj(ev.self)), ev.results[1] and cstring(ev.results[1]) or "NULL"
  w:verb(call, fmt("/* %s */", ev.results[1] or "none"), fmt('expect_addr("%s:get_local_addr", %s, %s);', w:obj(ev.self),
    want, call))
end
V["cm_id.get_peer_addr"] = function(w, ev)
  local call, want = fmt("rdma_get_peer_addr(%s)", w:obj(ev.self)), ev.results[1] and cstring(ev.results[1]) or "NULL"
  w:verb(call, fmt("/* %s */", ev.results[1] or "none"), fmt('expect_addr("%s:get_peer_addr", %s, %s);', w:obj(ev.self),
    want, call))
end

-- ---------------------------------------------------------------- multicast

local function put_gid(w, text)
  local g = w:tmp("gid")
  w:put("union ibv_gid %s = %s;", g, w:gid(text))
  return g
end
V["qp.attach_mcast"] = function(w, ev)
  w:expect_ret(ev, fmt("ibv_attach_mcast(%s, &%s, %d)", w:obj(ev.self), put_gid(w, ev.args[1]), ev.args[2]))
end
V["qp.detach_mcast"] = function(w, ev)
  w:expect_ret(ev, fmt("ibv_detach_mcast(%s, &%s, %d)", w:obj(ev.self), put_gid(w, ev.args[1]), ev.args[2]))
end
-- A void * that carried an integer (a join's context, an rdma_post_*'s wr_id).
local function cptr(v)
  v = math.tointeger(v)
  return (v and v ~= 0) and fmt("(void *)(uintptr_t)0x%x", v) or "NULL"
end
local function sockaddr(w, text)
  local a = w:tmp("addr")
  w:put("struct sockaddr_storage %s;", a)
  return fmt("sockaddr_of(&%s, %s)", a, cstring(text))
end
V["cm_id.join_multicast"] = function(w, ev)
  w:expect_minus1(ev, fmt("rdma_join_multicast(%s, %s, %s)", w:obj(ev.self), sockaddr(w, ev.args[1]), cptr(ev.args[2])))
end
V["cm_id.join_multicast_ex"] = function(w, ev)
  local t = copy_table(ev.args[1])
  local addr = sockaddr(w, t.addr)
  t.addr = nil
  if t.comp_mask == nil then
    t.comp_mask = { "ADDRESS" }
    if t.join_flags ~= nil then t.comp_mask[2] = "JOIN_FLAGS" end
  end
  local a = w:tmp("mc_attr")
  local init = w:init("rdma_cm_join_mc_attr_ex", t):gsub(" }$", ", .addr = " .. addr .. " }")
  w:put("struct rdma_cm_join_mc_attr_ex %s = %s;", a, init)
  w:expect_minus1(ev, fmt("rdma_join_multicast_ex(%s, &%s, %s)", w:obj(ev.self), a, cptr(ev.args[2])))
end
V["cm_id.leave_multicast"] = function(w, ev)
  w:expect_minus1(ev, fmt("rdma_leave_multicast(%s, %s)", w:obj(ev.self), sockaddr(w, ev.args[1])))
end

-- ------------------------------------------- the short path (rdma_verbs.h)

local function cname_or_null(v) return v == nil and "NULL" or cstring(tostring(v)) end
V["nil.getaddrinfo"] = function(w, ev)
  local res = ev.results and ev.results[1]
  local v = res and R.name_of(res) or w:tmp("addrinfo_failed")
  local hints = "NULL"
  if type(ev.args[3]) == "table" then
    local t = copy_table(ev.args[3])
    local extra = {}
    for _, k in ipairs { "ai_src_addr", "ai_dst_addr" } do
      if t[k] then
        extra[#extra + 1] = fmt(".%s = %s, .%s = sizeof(struct sockaddr_in)", k, sockaddr(w, t[k]), k:gsub("addr$", "len"))
        t[k] = nil
      end
    end
    local h = w:tmp("hints")
    local init = w:init("rdma_addrinfo", t)
    if #extra > 0 then
      init = init == "{ 0 }" and "{ " .. table.concat(extra, ", ") .. " }"
        or init:gsub(" }$", ", " .. table.concat(extra, ", ") .. " }")
    end
    w:put("struct rdma_addrinfo %s = %s;", h, init)
    hints = "&" .. h
  end
  local service = ev.args[2]
  if math.type(service) == "integer" then service = tostring(service) end
  w:put("struct rdma_addrinfo *%s;", v)
  w:expect_minus1(ev, fmt("rdma_getaddrinfo(%s, %s, %s, &%s)", cname_or_null(ev.args[1]), cname_or_null(service), hints, v))
end
V["cm_addrinfo.free"] = function(w, ev) w:vput("rdma_freeaddrinfo(%s);", w:obj(ev.self)) end
V["nil.create_ep"] = function(w, ev)
  local id = ev.results and ev.results[1]
  local v = id and R.name_of(id) or w:tmp("cm_id_failed")
  local attr = "NULL"
  if type(ev.args[3]) == "table" then
    attr = w:tmp("init_attr")
    w:put("struct ibv_qp_init_attr %s = %s;", attr, w:init("ibv_qp_init_attr", ev.args[3]))
    attr = "&" .. attr
  end
  w:put("struct rdma_cm_id *%s;", v)
  w:expect_minus1(ev, fmt("rdma_create_ep(&%s, %s, %s, %s)", v, w:obj(ev.args[1]), w:obj(ev.args[2]), attr))
  if id then w.eps = w.eps or {}; w.eps[v] = true end
end
V["cm_id.get_request"] = function(w, ev)
  local id = ev.results and ev.results[1]
  if not ev.err and not id then
    w:verb(fmt("rdma_get_request(%s, &id)", w:obj(ev.self)), "(none: timeout)",
      fmt("/* %s: no request within the timeout here: timing, not waited for */", call_text(ev)))
    return
  end
  local v = id and R.name_of(id) or w:tmp("cm_id_failed")
  w:put("struct rdma_cm_id *%s;", v)
  w:expect_minus1(ev, fmt("rdma_get_request(%s, &%s)", w:obj(ev.self), v))
  if id then w.eps = w.eps or {}; w.eps[v] = true end
end
V["cm_id.destroy_ep"] = function(w, ev) w:vput("rdma_destroy_ep(%s);", w:obj(ev.self)) end
local function reg(verb)
  return function(w, ev)
    local size, init = ev.args[1], nil
    if type(size) == "string" then init, size = size, #size end
    local mr = ev.results and ev.results[1]
    local v = mr and R.name_of(mr) or w:tmp("mr_failed")
    local buf = "buf_" .. v
    w:put("void *%s = calloc(1, %d);", buf, size)
    if init then w:put("memcpy(%s, %s, %d);", buf, cstring(init), #init) end
    w:expect_obj(ev, "struct ibv_mr", v, fmt("%s(%s, %s, %d)", verb, w:obj(ev.self), buf, size), verb)
    if mr then
      local f = R.facts(mr)
      w.mrs[#w.mrs + 1] = { name = v, addr = f.addr, length = f.length or size, lkey = f.lkey, rkey = f.rkey, buf = buf }
    end
  end
end
V["cm_id.reg_msgs"], V["cm_id.reg_read"], V["cm_id.reg_write"] = reg("rdma_reg_msgs"), reg("rdma_reg_read"), reg("rdma_reg_write")
-- (wr_id, mr [, offset [, length]]) as C's (context, addr, length, mr)
local function buf_args(w, a)
  local m = mr_entry(w, a[2])
  local name = m and m.name or w:obj(a[2])
  local off = math.tointeger(a[3]) or 0
  local len = math.tointeger(a[4]) or ((m and m.length or 0) - off)
  return fmt("%s, (char *)%s->addr + %d, %d, %s", cptr(a[1]), name, off, len, name)
end
V["cm_id.post_recv"] = function(w, ev)
  w:expect_minus1(ev, fmt("rdma_post_recv(%s, %s)", w:obj(ev.self), buf_args(w, ev.args)))
end
V["cm_id.post_send"] = function(w, ev)
  w:expect_minus1(ev, fmt("rdma_post_send(%s, %s, %s)", w:obj(ev.self), buf_args(w, ev.args), cflags("ibv_send_flags", ev.args[5])))
end
local function rdma_rw(verb)
  return function(w, ev)
    local a = ev.args
    w:expect_minus1(ev, fmt("%s(%s, %s, %s, %s, %s)", verb, w:obj(ev.self), buf_args(w, a), cflags("ibv_send_flags", a[5]),
      w:addr(a[6]), w:key(a[7], "rkey", a[6])))
  end
end
V["cm_id.post_read"], V["cm_id.post_write"] = rdma_rw("rdma_post_read"), rdma_rw("rdma_post_write")
V["cm_id.post_ud_send"] = function(w, ev)
  local a = ev.args
  w:expect_minus1(ev, fmt("rdma_post_ud_send(%s, %s, %s, %s, %s)", w:obj(ev.self), buf_args(w, a),
    cflags("ibv_send_flags", a[5]), w:obj(a[6]), w:qpn(a[7])))
end
V["cm_id.post_recvv"] = function(w, ev)
  local s, n = w:sges(ev.args[2])
  w:expect_minus1(ev, fmt("rdma_post_recvv(%s, %s, %s, %d)", w:obj(ev.self), cptr(ev.args[1]), s, n))
end
V["cm_id.post_sendv"] = function(w, ev)
  local s, n = w:sges(ev.args[2])
  w:expect_minus1(ev, fmt("rdma_post_sendv(%s, %s, %s, %d, %s)", w:obj(ev.self), cptr(ev.args[1]), s, n,
    cflags("ibv_send_flags", ev.args[3])))
end
local function rdma_rwv(verb)
  return function(w, ev)
    local a = ev.args
    local s, n = w:sges(a[2])
    w:expect_minus1(ev, fmt("%s(%s, %s, %s, %d, %s, %s, %s)", verb, w:obj(ev.self), cptr(a[1]), s, n,
      cflags("ibv_send_flags", a[3]), w:addr(a[4]), w:key(a[5], "rkey", a[4])))
  end
end
V["cm_id.post_readv"], V["cm_id.post_writev"] = rdma_rwv("rdma_post_readv"), rdma_rwv("rdma_post_writev")
-- rdma_get_send_comp / rdma_get_recv_comp: one completion, checked as cq:poll's are.
local function get_comp(verb)
  return function(w, ev)
    local c = ev.results and ev.results[1]
    if not ev.err and c == nil then
      w:verb(fmt("%s(%s, &wc)", verb, w:obj(ev.self)), "(none: timeout)",
        fmt("/* %s: no completion within the timeout here: timing, not waited for */", call_text(ev)))
      return
    end
    local v = w:tmp("wc")
    w:put("struct ibv_wc %s;", v)
    local call = fmt("%s(%s, &%s)", verb, w:obj(ev.self), v)
    if ev.err then
      w:verb(call, fmt("-1 /* errno %s */", ev.err.errname), fmt('expect_fail("%s", %s, %d);', verb, call, ev.err.errno))
      return
    end
    w:verb(call, fmt("1  /* wr_id %d %s */", math.tointeger(c.wr_id) or 0, tostring(c.status)),
      fmt('expect_int("%s", 1, %s);', verb, call))
    w:check('expect_int("%s wr_id", %d, %s.wr_id);', verb, math.tointeger(c.wr_id) or 0, v)
    w:check('expect_int("%s status", %s, %s.status);', verb, cenum("ibv_wc_status", c.status), v)
    if c.status == "SUCCESS" then
      w:check('expect_int("%s opcode", %s, %s.opcode);', verb, cenum("ibv_wc_opcode", c.opcode), v)
      w:check('expect_int("%s byte_len", %d, %s.byte_len);', verb, math.tointeger(c.byte_len) or 0, v)
    end
  end
end
V["cm_id.get_send_comp"], V["cm_id.get_recv_comp"] = get_comp("rdma_get_send_comp"), get_comp("rdma_get_recv_comp")
V["cm_id.create_srq"] = function(w, ev)
  local a = w:tmp("srq_init_attr")
  w:put("struct ibv_srq_init_attr %s = { .attr = %s };", a, w:init("ibv_srq_attr", ev.args[2]))
  w:expect_minus1(ev, fmt("rdma_create_srq(%s, %s, &%s)", w:obj(ev.self), w:obj(ev.args[1]), a))
  local srq = ev.results and ev.results[1]
  if srq then
    w:bind("struct ibv_srq", R.name_of(srq), fmt("%s->srq", w:obj(ev.self)))
    w.cm_srqs = w.cm_srqs or {}
    w.cm_srqs[R.name_of(srq)] = w:obj(ev.self)
  end
end

V["cm_id.create_srq_ex"] = function(w, ev)
  local a = w:tmp("srq_init_attr_ex")
  local t = copy_table(ev.args[1])
  if t.comp_mask == nil then
    local m = {}
    for _, kb in ipairs { { "pd", "PD" }, { "srq_type", "TYPE" }, { "tm_cap", "TM" } } do
      if t[kb[1]] ~= nil then m[#m + 1] = kb[2] end
    end
    t.comp_mask = m
  end
  w:put("struct ibv_srq_init_attr_ex %s = %s;", a, w:init("ibv_srq_init_attr_ex", t))
  w:expect_minus1(ev, fmt("rdma_create_srq_ex(%s, &%s)", w:obj(ev.self), a))
  local srq = ev.results and ev.results[1]
  if srq then
    w:bind("struct ibv_srq", R.name_of(srq), fmt("%s->srq", w:obj(ev.self)))
    w.cm_srqs = w.cm_srqs or {}
    w.cm_srqs[R.name_of(srq)] = w:obj(ev.self)
  end
end

local HEAD = [[
/* %s
 * Exported by verbsh %s (verbs.export_c): the verb calls of a verbsh
 * session, replayed, each outcome checked against the one recorded.
 *   cc -Wall -Wextra -Werror %s -libverbs -lrdmacm && ./a.out
 * prints "reproduced" and exits 0 when everything matches, otherwise the
 * first difference and exits 1. */
#include <infiniband/verbs.h>
%s#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
]]

-- Helpers of the program, each written only when the program uses it
-- (-Werror: an unused static function is an error). needs: helpers it calls.
local HELPERS = {
  { name = "expect_int", text = [[
static void expect_int(const char *what, long long want, long long got)
{
	if (want != got) {
		printf("first difference: %s: recorded %lld, now %lld\n", what, want, got);
		exit(1);
	}
}
]] },
  { name = "expect_fail", text = [[
/* A verb that returns -1 and sets errno. */
static void expect_fail(const char *what, int ret, int err)
{
	if (ret != -1 || errno != err) {
		printf("first difference: %s: recorded -1 and errno %d, now %d and errno %d\n", what, err, ret, errno);
		exit(1);
	}
}
]] },
  { name = "expect_ptr", text = [[
static void expect_ptr(const char *what, void *p)
{
	if (!p) {
		printf("first difference: %s: recorded an object, now NULL (errno %d, %s)\n", what, errno, strerror(errno));
		exit(1);
	}
}
]] },
  { name = "expect_null", text = [[
static void expect_null(const char *what, void *p, int err)
{
	if (p || errno != err) {
		printf("first difference: %s: recorded NULL and errno %d, now %s and errno %d\n", what, err,
		       p ? "an object" : "NULL", errno);
		exit(1);
	}
}
]] },
  { name = "expect_bytes", text = [[
static void expect_bytes(const char *what, const char *want, const char *got, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (want[i] != got[i]) {
			printf("first difference: %s: byte %zu recorded 0x%02x, now 0x%02x\n", what, i,
			       (unsigned char)want[i], (unsigned char)got[i]);
			exit(1);
		}
}
]] },
  { name = "wc_pool", needs = { "expect_int" }, text = [[
/* The completions of a CQ polled but not yet compared. Timing differs from
 * run to run, so a recorded poll waits until as many have come as it found,
 * and each recorded completion is compared with the one of the same wr_id. */
struct wc_pool {
	struct ibv_cq *cq;
	struct ibv_wc wc[256];
	int n;
};

static void wait_completions(struct wc_pool *p, const char *what, int n)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (p->n < n) {
		int r = ibv_poll_cq(p->cq, 256 - p->n, p->wc + p->n);
		if (r < 0)
			break;
		p->n += r;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 5)
			break;
	}
	if (p->n < n) {
		printf("first difference: %s: recorded %d completions, now %d within 5 s\n", what, n, p->n);
		exit(1);
	}
}

/* status and wr_id always; opcode, byte_len and wc_flags of a successful
 * completion (they are undefined for a failed one); imm_data with WITH_IMM. */
static void expect_wc(struct wc_pool *p, const char *what, uint64_t wr_id, int status, int opcode,
		      long long byte_len, uint32_t imm_data, unsigned int wc_flags)
{
	char w[160];
	int i = 0;
	while (i < p->n && p->wc[i].wr_id != wr_id)
		i++;
	if (i == p->n) {
		printf("first difference: %s: no completion with wr_id %llu\n", what, (unsigned long long)wr_id);
		exit(1);
	}
	struct ibv_wc wc = p->wc[i];
	memmove(p->wc + i, p->wc + i + 1, (size_t)(p->n - i - 1) * sizeof wc);
	p->n--;
	snprintf(w, sizeof w, "%s status (now %s)", what, ibv_wc_status_str(wc.status));
	expect_int(w, status, wc.status);
	if (status != IBV_WC_SUCCESS)
		return;
	snprintf(w, sizeof w, "%s opcode", what);
	expect_int(w, opcode, wc.opcode);
	snprintf(w, sizeof w, "%s byte_len", what);
	expect_int(w, byte_len, wc.byte_len);
	snprintf(w, sizeof w, "%s wc_flags", what);
	expect_int(w, wc_flags, wc.wc_flags);
	if (wc_flags & IBV_WC_WITH_IMM) {
		snprintf(w, sizeof w, "%s imm_data", what);
		expect_int(w, imm_data, ntohl(wc.imm_data));
	}
}
]] },
  { name = "wait_fd", text = [[
/* Waits until fd is readable, at most ms milliseconds. */
static int wait_fd(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	return poll(&p, 1, ms) == 1;
}
]] },
  { name = "get_cq_event", needs = { "wait_fd" }, text = [[
/* A completion event on channel, which must be cq's. */
static void get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq *cq, const char *what)
{
	struct ibv_cq *got;
	void *cq_context;
	if (!wait_fd(channel->fd, 5000) || ibv_get_cq_event(channel, &got, &cq_context)) {
		printf("first difference: %s: recorded a completion event, now none within 5 s\n", what);
		exit(1);
	}
	if (got != cq) {
		printf("first difference: %s: the event is another CQ's\n", what);
		exit(1);
	}
}
]] },
  { name = "get_async_event", needs = { "wait_fd" }, text = [[
/* An async event of ctx: of type want, about element (a QP, CQ or SRQ; NULL
 * for a port's or the device's) or port. Acked, as verbsh acks it. */
static void get_async_event(struct ibv_context *ctx, enum ibv_event_type want, void *element, int port,
			    const char *what)
{
	struct ibv_async_event ev;
	void *about = NULL;
	int got_port = 0;
	if (!wait_fd(ctx->async_fd, 5000) || ibv_get_async_event(ctx, &ev)) {
		printf("first difference: %s: recorded %s, now no async event within 5 s\n", what,
		       ibv_event_type_str(want));
		exit(1);
	}
	switch (ev.event_type) {
	case IBV_EVENT_CQ_ERR:
		about = ev.element.cq;
		break;
	case IBV_EVENT_SRQ_ERR: case IBV_EVENT_SRQ_LIMIT_REACHED:
		about = ev.element.srq;
		break;
	case IBV_EVENT_PORT_ACTIVE: case IBV_EVENT_PORT_ERR: case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE: case IBV_EVENT_SM_CHANGE: case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		got_port = ev.element.port_num;
		break;
	case IBV_EVENT_DEVICE_FATAL:
		break;
	default:
		about = ev.element.qp;
		break;
	}
	ibv_ack_async_event(&ev);
	if (ev.event_type != want) {
		printf("first difference: %s: recorded %s, now %s\n", what, ibv_event_type_str(want),
		       ibv_event_type_str(ev.event_type));
		exit(1);
	}
	if ((element && about != element) || got_port != port) {
		printf("first difference: %s: %s is about another object or port\n", what, ibv_event_type_str(want));
		exit(1);
	}
}
]] },
  { name = "poll_ex", text = [[
/* ibv_start_poll (attr) or ibv_next_poll (attr NULL) until a completion is
 * current: ENOENT is timing, retried for 5 s. */
static void poll_ex(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr, const char *what)
{
	struct timespec t0, t;
	int r;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		r = attr ? ibv_start_poll(cq, attr) : ibv_next_poll(cq);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (r != ENOENT || t.tv_sec - t0.tv_sec > 5)
			break;
	}
	if (r) {
		printf("first difference: %s: recorded a completion, now %s\n", what,
		       r == ENOENT ? "none within 5 s" : strerror(r));
		exit(1);
	}
}
]] },
  { name = "sockaddr_of", text = [[
/* "host:port", "[v6]:port" or "*:port" (any address) as a sockaddr. */
static struct sockaddr *sockaddr_of(struct sockaddr_storage *ss, const char *text)
{
	char host[256] = "", port[16] = "0";
	const char *colon = strrchr(text, ':'), *close = strchr(text, ']');
	if (text[0] == '[' && close) {
		snprintf(host, sizeof host, "%.*s", (int)(close - text - 1), text + 1);
		if (close[1] == ':')
			snprintf(port, sizeof port, "%s", close + 2);
	} else if (colon && colon == strchr(text, ':')) {
		snprintf(host, sizeof host, "%.*s", (int)(colon - text), text);
		snprintf(port, sizeof port, "%s", colon + 1);
	} else {
		snprintf(host, sizeof host, "%s", text);
	}
	int any = host[0] == '\0' || strcmp(host, "*") == 0;
	struct addrinfo hints = { .ai_flags = AI_NUMERICSERV | (any ? AI_PASSIVE : 0),
				  .ai_family = any ? AF_INET : AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res;
	if (getaddrinfo(any ? NULL : host, port, &hints, &res)) {
		printf("first difference: the address %s does not resolve here\n", text);
		exit(1);
	}
	memset(ss, 0, sizeof *ss);
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return (struct sockaddr *)ss;
}
]] },
  { name = "expect_addr", text = [[
/* An address as "ip:port" ("[ip]:port" for IPv6). */
static void expect_addr(const char *what, const char *want, const struct sockaddr *sa)
{
	char ip[INET6_ADDRSTRLEN] = "", got[80] = "";
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;
		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
		snprintf(got, sizeof got, "%s:%d", ip, ntohs(in->sin_port));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;
		inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof ip);
		snprintf(got, sizeof got, "[%s]:%d", ip, ntohs(in6->sin6_port));
	}
	if (strcmp(want ? want : "", got) != 0) {
		printf("first difference: %s: recorded %s, now %s\n", what, want ? want : "none", got[0] ? got : "none");
		exit(1);
	}
}
]] },
  { name = "get_cm_event", needs = { "wait_fd" }, text = [[
/* The next event of channel, within ms: its type and status must be the
 * recorded ones. */
static struct rdma_cm_event *get_cm_event(struct rdma_event_channel *channel, int ms, int event, int status)
{
	struct rdma_cm_event *e;
	if (!wait_fd(channel->fd, ms) || rdma_get_cm_event(channel, &e)) {
		printf("first difference: rdma_get_cm_event: recorded %s, now no event within %d ms\n",
		       rdma_event_str(event), ms);
		exit(1);
	}
	if ((int)e->event != event || e->status != status) {
		printf("first difference: rdma_get_cm_event: recorded %s (status %d), now %s (status %d)\n",
		       rdma_event_str(event), status, rdma_event_str(e->event), e->status);
		exit(1);
	}
	return e;
}
]] },
  { name = "open_device", text = [[
static struct ibv_context *open_device(const char *name)
{
	int n;
	struct ibv_device **list = ibv_get_device_list(&n);
	struct ibv_context *ctx = NULL;
	for (int i = 0; list && i < n; i++)
		if (strcmp(ibv_get_device_name(list[i]), name) == 0)
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!ctx) {
		printf("first difference: ibv_open_device(%s): no such device, or it cannot be opened\n", name);
		exit(1);
	}
	return ctx;
}
]] },
}

-- Writes one event: its C, or a comment naming it when it has none yet.
-- Returns false for an event that is not exported.
local function render(w, ev)
  local h = V[tostring(ev.class) .. "." .. ev.method] or V[ev.method]
  if not h then
    w.skipped[#w.skipped + 1] = call_text(ev)
    w:put("/* verbsh: %s is not exported */", call_text(ev))
    return false
  end
  -- The export observes: a call it cannot write (an object made before
  -- recording began, a value of a kind it does not expect) becomes a
  -- comment, and the session and the verb's outcome go on.
  local lines, items = #w.lines, #w.items
  local ok, e = pcall(h, w, ev)
  if not ok then
    for i = #w.lines, lines + 1, -1 do w.lines[i] = nil end
    for i = #w.items, items + 1, -1 do w.items[i] = nil end
    w.skipped[#w.skipped + 1] = call_text(ev)
    w:put("/* verbsh: %s could not be written as C: %s */", call_text(ev), (tostring(e):gsub("%*/", "* /")))
    return false
  end
  return true
end
M.writer, M.render = writer, render

-- The program text for the events recorded so far.
-- A GRH given to create_ah_from_wc/init_ah_from_wc that an mr:read read
-- before: C passes the MR's memory, and that read is not compared.
local function find_grh_reads(events)
  local last = {}   -- bytes -> the mr.read that returned them
  for _, ev in ipairs(events) do
    if ev.class == "mr" and ev.method == "read" and ev.results and type(ev.results[1]) == "string" then
      last[ev.results[1]] = ev
    end
    local grh = ev.method == "create_ah_from_wc" and ev.args[2] or ev.method == "init_ah_from_wc" and ev.args[3]
    local read = type(grh) == "string" and last[grh]
    if read then
      read.grh_read = true
      ev.grh_at = { mr = read.self, offset = read.args[1] or 0 }
    end
  end
end

function M.program(path)
  local w = writer()
  find_grh_reads(R.events())
  for _, ev in ipairs(R.events()) do
    local at = #w.lines
    w:blank()
    w:put("/* %s */", call_text(ev) .. (ev.err and (" -- failed with " .. tostring(ev.err.errname)) or ""))
    if not render(w, ev) then
      table.remove(w.lines, at + 2)   -- the comment of the call is the one render wrote
    elseif #w.lines == at + 2 then   -- nothing to write (ev:expect): no comment either
      w.lines[at + 2], w.lines[at + 1] = nil, nil
    end
  end
  local ver = (pcall(require, "verbs.version") and require("verbs.version").version) or "?"
  local base = (path or "repro.c"):match("[^/]*$")
  local body = table.concat(require("verbs.export_rest").use_unused(w.lines), "\n")
  local cm = body:find("rdma_", 1, true) and "#include <rdma/rdma_cma.h>\n"
    .. ((body:find("rdma_reg_", 1, true) or body:find("rdma_post_", 1, true) or body:find("_comp(", 1, true))
      and "#include <rdma/rdma_verbs.h>\n" or "") .. "#include <netdb.h>\n#include <poll.h>\n"
    or (body:find("get_cq_event", 1, true) or body:find("get_async_event", 1, true)) and "#include <poll.h>\n"
    or ""
  if body:find("O_CREAT", 1, true) then cm = cm .. "#include <fcntl.h>\n" end
  if body:find("dup(", 1, true) then cm = cm .. "#include <unistd.h>\n" end
  local used, out = {}, { fmt(HEAD, base, tostring(ver), base, cm) }
  local function use(name)
    for _, h in ipairs(HELPERS) do
      if h.name == name and not used[name] then
        used[name] = true
        for _, n in ipairs(h.needs or {}) do use(n) end
        out[#out + 1] = h.text
      end
    end
  end
  -- a whole word: rdma_get_cm_event must not pull in get_cm_event
  for _, h in ipairs(HELPERS) do if body:find("%f[%w_]" .. h.name .. "%f[^%w_]") then use(h.name) end end
  out[#out + 1] = "int main(void)\n{" .. body .. "\n\n\tprintf(\"reproduced\\n\");\n\treturn 0;\n}\n"
  return table.concat(out, "\n"), w.skipped
end

-- verbs.export_c(path): writes the program; returns the number of calls
-- exported and a list of those it could not export.
function M.export_c(path)
  if type(path) ~= "string" then
    error(("bad argument #1 to 'export_c' (string expected, got %s)"):format(type(path)), 2)
  end
  if #R.events() == 0 then
    error("export_c: nothing recorded: verbs.record(true) before the verbs to export, or run a script"
      .. " with verbsh --export-c OUT.c SCRIPT.lua", 2)
  end
  local text, skipped = M.program(path)
  local f, err = io.open(path, "w")
  if not f then error("export_c: " .. err, 2) end
  f:write(text)
  f:close()
  return #R.events() - #skipped, skipped
end

-- verbsh --export-c OUT.c: recording from the start; finish() writes the
-- program once the run is over, however it ended (os.exit included).
local target
function M.start(path)
  -- Refused now, not after the session it would have held: open it as the
  -- end will (leaving an existing file as it is until then).
  local existed = io.open(path, "r")
  if existed then existed:close() end
  local f, err = io.open(path, "a")
  if not f then error("--export-c: cannot write " .. err, 0) end
  f:close()
  if not existed then os.remove(path) end
  target = path
  R.record(true)
  local exit = os.exit
  os.exit = function(...)   -- luacheck: ignore
    M.finish()
    return exit(...)
  end
end

function M.finish()
  if not target then return end
  local path = target
  target = nil
  if #R.events() == 0 then
    io.stderr:write("verbsh: --export-c ", path, ": no verb was called, nothing written\n")
    return
  end
  local n, skipped = M.export_c(path)
  io.stderr:write(("verbsh: %d verb calls exported to %s"):format(n, path))
  if #skipped > 0 then
    io.stderr:write((" (%d left out, as comments: %s)"):format(#skipped, table.concat(skipped, ", ")))
  end
  io.stderr:write("; cc -Wall -Wextra -Werror ", path, " -libverbs -lrdmacm && ./a.out\n")
end

-- The rest of verbs.h and rdma_cma.h (lua/export_rest.lua)
require("verbs.export_rest").add(V, HELPERS, { cenum = cenum, cflags = cflags, cstring = cstring, copy_table = copy_table })

return M
