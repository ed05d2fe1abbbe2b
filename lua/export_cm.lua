-- verbs.export_cm: how verbs.export_c writes each recorded call of
-- librdmacm (rdma_cma.h, and rdma_verbs.h's short path) as C, through the
-- writer (export_writer.lua): V["class.method"](w, ev), merged into
-- export_verbs.lua's by export_c.lua.
local R = require "verbs.record"
local X = require "verbs.export_writer"
local call_text, cenum, cflags, copy_table, cstring = X.call_text, X.cenum, X.cflags, X.copy_table, X.cstring
local mr_entry = require("verbs.export_verbs").mr_entry

local fmt = string.format
local V = {}

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

-- An address written as IPv6 ("::1", "[::1]:7471"): its host part has a
-- colon. rdma_getaddrinfo copies ai_src_len bytes of the hint, so an IPv6
-- hint with sizeof(struct sockaddr_in) loses half its address.
local function ipv6_text(text)
  local host = text:match("^%[(.*)%]") or (select(2, text:gsub(":", "")) == 1 and text:match("^(.*):") or text)
  return host:find(":", 1, true) ~= nil
end
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
        extra[#extra + 1] = fmt(".%s = %s, .%s = sizeof(struct %s)", k, sockaddr(w, t[k]), k:gsub("addr$", "len"),
          ipv6_text(tostring(t[k])) and "sockaddr_in6" or "sockaddr_in")
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

return V
