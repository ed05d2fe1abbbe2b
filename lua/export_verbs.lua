-- verbs.export_verbs: how verbs.export_c writes each recorded call of
-- libibverbs (verbs.h) as C: V["class.method"](w, ev), through the writer
-- (export_writer.lua). rdma_cm's are in export_cm.lua, the rest of verbs.h
-- and rdma_cma.h in export_rest.lua.
local R = require "verbs.record"
local verbs = require "verbs"
local X = require "verbs.export_writer"
local W, call_text, cenum, cflags, copy_table, cstring = X.W, X.call_text, X.cenum, X.cflags, X.copy_table, X.cstring

local fmt = string.format

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

-- The C mask of the keys given in attr ("IBV_QP_STATE | IBV_QP_PORT"), in
-- bit order: the marshaller's own map of key to bit (verbs.fields: mask,
-- bit), the one the binding ORs in. "" when no key sets a bit.
local function keys_mask(ctype, attr)
  local have, bits = {}, {}
  for _, f in ipairs(verbs.fields(ctype)) do
    if f.bit and attr[f.name] ~= nil and not have[f.mask] then
      have[f.mask] = true
      bits[#bits + 1] = f
    end
  end
  table.sort(bits, function(a, b) return a.bit < b.bit end)
  for i, f in ipairs(bits) do bits[i] = f.mask end
  return table.concat(bits, " | ")
end

V["qp.modify"] = function(w, ev)
  local attr, mask = ev.args[1], ev.args[2]
  local a = w:tmp("attr")
  w:put("struct ibv_qp_attr %s = %s;", a, w:init("ibv_qp_attr", attr, { self = ev.self }))
  local m
  if mask ~= nil then
    m = cflags("ibv_qp_attr_mask", mask)
  else
    m = keys_mask("ibv_qp_attr", attr)
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
  local m = keys_mask("ibv_srq_attr", ev.args[1])
  local mask = ev.args[2] ~= nil and cflags("ibv_srq_attr_mask", ev.args[2]) or m ~= "" and m or "0"
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
  if ev.err then   -- it failed (not a timeout): C's call fails with the same errno
    local c, x = w:tmp("ev_cq_failed"), w:tmp("ev_ctx_failed")
    w:put("struct ibv_cq *%s;", c)
    w:put("void *%s;", x)
    return w:expect_minus1(ev, fmt("ibv_get_cq_event(%s, &%s, &%s)", w:obj(ev.self), c, x))
  end
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
  if ev.err then   -- it failed (not a timeout): C's call fails with the same errno
    local v = w:tmp("async_event_failed")
    w:put("struct ibv_async_event %s;", v)
    return w:expect_minus1(ev, fmt("ibv_get_async_event(%s, &%s)", w:obj(ev.self), v))
  end
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

return { V = V, mr_entry = mr_entry }
