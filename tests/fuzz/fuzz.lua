-- verbsh tests/fuzz/fuzz.lua SEED [OPS=300] [FAMILIES=all]
--
-- One seeded, reproducible run of random API sequences on a real device
-- (RXE_DEV, in the micro-VM). Every op is printed before it runs ("op N
-- family: what"), so a crash's last line names it, and the same SEED, OPS
-- and FAMILIES replay the same sequence. The families (comma-separated):
--   proxies     tables whose __index/__newindex are functions returning junk,
--               objects of other classes, lists that grow between reads
--   metamethods every class's metamethods called directly with junk selves
--   recorder    verbs.trace(function) that calls back into verbs, destroys
--               objects and collects garbage while a verb is being recorded
--   crossctx    two contexts, objects of one passed to the other
--   gc          collectgarbage at random points, references dropped
--   cm          rdma_cm ids and channels in random states, verbs in random
--               order, on 127.0.0.1 only
--   prepared    verbs.send_wr/recv_wr built, changed and posted
--   masks       explicit comp_mask lists, with and without each bit, on every
--               _ex constructor, then the wr_*/start_poll API on what it made
--   nulstr      strings with a NUL byte in every string-typed key: enum and
--               flag names, keys, addresses, GIDs, device and field names
--   tracing     verbs.trace turned on (a silent function) and off at random
--               points, so objects are made before, during and after it;
--               the trace really toggles only with VERBSH_FUZZ_TRACE=toggle
--   mw          memory windows: alloc_mw, bind_mw, BIND_MW/LOCAL_INV/
--               SEND_WITH_INV WRs and wr_bind_mw with valid and junk
--               windows, MRs and rkeys; mw.rkey assigned; windows freed
--   mcast       attach/detach of QPs to group GIDs (and to unicast ones), UD ids
--               resolved toward a group (from RXE_ADDR) joined, left, destroyed
--   ep          verbs.getaddrinfo, passive verbs.create_ep endpoints, get_request,
--               the rdma_verbs.h helpers (reg_*, post_*, get_*_comp) with junk
--   rest        the rest of verbs.h and rdma_cma.h: create_srq_ex, reg_mr_iova,
--               cq:resize, mr:rereg, the hardware-only verbs (refused on
--               rxe), id:migrate, id:set_option, id:create_qp_ex, with junk too
--
-- For the trace's differential (tests/fuzz/diff): VERBSH_FUZZ_OUTCOMES=1
-- prints every call's outcome ("= ok ..." or "= error ..."), and
-- VERBSH_FUZZ_TRACE=on traces the whole run (toggle: as the family says).
-- The base ops (create, modify, post, poll, destroy, junk arguments to every
-- method) always run. Any Lua error is fine, if it is a message or one of
-- verbsh's error objects (verbs.error, verbs.cm_error); anything else is reported (exit 3). At the end every reference
-- is dropped and collected, and `rdma res show` must list nothing of this
-- process (exit 2 otherwise); LeakSanitizer then checks the heap at exit.
local SEED = assert(tonumber(arg[1]), "usage: fuzz.lua SEED [OPS] [FAMILIES]")
local NOPS = tonumber(arg[2]) or 300
local FAMS = arg[3] or "all"
local DEV = os.getenv("RXE_DEV") or error("RXE_DEV is not set (run in scripts/rxe-vm)")
local GIDX = tonumber(os.getenv("RXE_GID_INDEX")) or 1
local PORT0 = 10000 + (SEED * 16) % 50000   -- 16 ports of its own per seed

math.randomseed(SEED)
local R = math.random
local function chance(p) return R() < p end
local function oneof(t) return t[R(#t)] end

local on = {}
for f in ("proxies,metamethods,recorder,crossctx,gc,cm,prepared,masks,nulstr,tracing,mw,mcast,ep,rest"):gmatch("[^,]+") do
  on[f] = FAMS == "all" or ("," .. FAMS .. ","):find("," .. f .. ",", 1, true) ~= nil
end

local opno, family = 0, "base"
local function log(fmt, ...) io.stdout:write(("op %d %s: " .. fmt .. "\n"):format(opno, family, ...)); io.stdout:flush() end

-- ---- the objects alive -----------------------------------------------------
local KINDS = { "ctx", "pd", "cq", "mr", "qp", "ah", "srq", "ch", "cmch", "id", "ev", "swr", "rwr", "wcs", "mw", "ai" }
local P = {}
for _, k in ipairs(KINDS) do P[k] = {} end
local function add(kind, o) if o ~= nil then local t = P[kind]; t[#t + 1] = o end return o end
local function pick(kind) local t = P[kind]; return #t > 0 and t[R(#t)] or nil end
local function any_obj() return pick(oneof(KINDS)) end
local function drop(kind) local t = P[kind]; if #t > 0 then table.remove(t, R(#t)) end end

-- ---- junk ------------------------------------------------------------------
local junk
local function proxy(depth)
  local real = chance(0.5) and { qp_type = oneof{ "RC", "UD", "UC" }, send_cq = pick("cq"), recv_cq = pick("cq"),
    opcode = "SEND", cqe = 4, cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 } } or {}
  local n = 0
  return setmetatable(real, {
    __index = function(_, k)
      n = n + 1
      if k == "sg_list" or k == "wc_flags" or k == "send_ops_flags" then   -- a list that grows at each read
        local l = {}
        for i = 1, n * 4 do l[i] = { mr = pick("mr"), length = 1 } end
        return l
      end
      return junk(depth + 1)
    end,
    __newindex = function() end,
    __len = chance(0.5) and function() return R(0, 100) end or nil,
  })
end
function junk(depth)
  depth = depth or 0
  local r = R(18)
  if r == 1 then return nil elseif r == 2 then return R(-2, 20)
  elseif r == 3 then return oneof{ math.maxinteger, math.mininteger, 2^53, -0.5, 1.5, 0/0, math.huge, 0xffffffff }
  elseif r == 4 then return oneof{ "", "x", "RC", "SEND", "LOCAL_WRITE", "RTS", ("A"):rep(300), "127.0.0.1:1" }
  elseif r == 5 then return true
  elseif r == 6 then return function() return junk(depth + 1) end
  elseif r == 7 then return coroutine.create(function() end)
  elseif r <= 11 then return any_obj()
  elseif r == 12 and depth < 3 then return proxy(depth)
  elseif r == 13 and depth < 3 then return { junk(depth + 1), junk(depth + 1), mr = pick("mr"), [junk(3) or 1] = junk(depth + 1) }
  elseif r == 14 then return io.stdout
  elseif r == 15 then return pick("swr") or pick("rwr")
  elseif r == 16 then return verbs
  end
  return {}
end

-- An outcome as text for the differential: numbers that differ from run
-- to run (QP numbers, keys, addresses) are the differential's to mask.
local OUTCOMES = os.getenv("VERBSH_FUZZ_OUTCOMES") == "1"
local TRACE = os.getenv("VERBSH_FUZZ_TRACE")
local function shown(v)
  local ok, text = pcall(tostring, v)
  return ok and text or "(no tostring)"
end
local function outcome(ok, ...)
  local parts = { ok and "ok" or "error" }
  for i = 1, select("#", ...) do parts[#parts + 1] = type((select(i, ...))) .. ":" .. shown((select(i, ...))) end
  io.stdout:write("= ", (table.concat(parts, " "):gsub("table: 0x%x+", "table")), "\n")
end

-- Calls fn(...) under pcall; an error must be a message or a verbs.error.
local bad_errors = 0
local function try(fn, ...)
  local ok, e = pcall(fn, ...)
  if OUTCOMES then outcome(ok, e) end
  if not ok then
    local mt = type(e) == "table" and getmetatable(e)
    local obj = mt and type(mt.__name) == "string" and mt.__name:find("^verbs%.[%w_]*error$") and mt.__tostring
    if type(e) ~= "string" and not obj then   -- a message, verbs.error or ev:expect's verbs.cm_error
      bad_errors = bad_errors + 1
      log("BAD ERROR VALUE: %s %s", type(e), tostring(e))
    elseif type(e) == "string" and e:find("%(errno %d+") and e:find("failed: nil") then
      bad_errors = bad_errors + 1
      log("ERROR WITHOUT ERRNO NAME: %s", e)
    end
    return nil, e
  end
  return e
end

-- ---- valid-ish arguments ---------------------------------------------------
local ACCESS = { "LOCAL_WRITE", { "LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC" }, 0, "REMOTE_READ" }
local OPCODES = { "SEND", "SEND_WITH_IMM", "RDMA_WRITE", "RDMA_WRITE_WITH_IMM", "RDMA_READ", "ATOMIC_CMP_AND_SWP",
  "ATOMIC_FETCH_AND_ADD", "LOCAL_INV", "BIND_MW", "SEND_WITH_INV", "TSO", 99 }
local function gid() local c = pick("ctx"); return c and select(2, pcall(c.query_gid, c, 1, GIDX)) end
local function sges()
  local l = {}
  for i = 1, R(0, 3) do
    local mr = pick("mr")
    l[i] = chance(0.8) and { mr = mr, offset = R(0, 64), length = R(0, 128) } or junk(1)
  end
  return l
end
local function send_wr()
  local w = { wr_id = R(0, 1000), opcode = oneof(OPCODES), sg_list = sges(),
    send_flags = oneof{ nil, "SIGNALED", { "SIGNALED", "INLINE" }, "FENCE", "SOLICITED" } }
  local u = R(4)
  if u == 1 then w.rdma = { remote_addr = oneof{ 0, 0x4141414141414141, R(0, 1 << 40) }, rkey = R(0, 100) }
  elseif u == 2 then w.atomic = { remote_addr = R(0, 64) * 8, compare_add = 1, swap = 2, rkey = R(0, 100) }
  elseif u == 3 then w.ud = { ah = pick("ah"), remote_qpn = R(0, 100), remote_qkey = 0x11111111 } end
  if chance(0.3) then w.imm_data = R(0, 100) end
  return w
end
local function recv_wr() return { wr_id = R(0, 1000), sg_list = sges() } end
local function wrs(make) if chance(0.7) then return make() end local l = {} for i = 1, R(1, 20) do l[i] = make() end return l end
local function qp_init(pd)
  return { qp_type = oneof{ "RC", "UD", "UC", "RC" }, send_cq = pick("cq"), recv_cq = pick("cq"),
    srq = chance(0.2) and pick("srq") or nil, sq_sig_all = R(0, 1),
    cap = { max_send_wr = R(1, 8), max_recv_wr = R(1, 8), max_send_sge = R(1, 3), max_recv_sge = R(1, 3),
      max_inline_data = oneof{ 0, 16, 64 } } }
end
local function qp_attr(qp)
  local s = oneof{ "INIT", "RTR", "RTS", "SQD", "ERR", "RESET", "INIT", "RTR", "RTS" }
  local peer = pick("qp") or qp
  local a = ({
    INIT = { qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = oneof{ 0, "REMOTE_WRITE" }, qkey = 0x11111111 },
    RTR = { qp_state = "RTR", path_mtu = "1024", dest_qp_num = (pcall(function() return peer.qp_num end)) and peer.qp_num or 1,
      rq_psn = 0, max_dest_rd_atomic = 1, min_rnr_timer = 1,
      ah_attr = { is_global = 1, port_num = 1, grh = { dgid = gid(), sgid_index = GIDX, hop_limit = 1 } } },
    RTS = { qp_state = "RTS", sq_psn = 0, timeout = 1, retry_cnt = 1, rnr_retry = 1, max_rd_atomic = 1 },
  })[s] or { qp_state = s }
  if chance(0.2) then a[oneof{ "qkey", "qp_access_flags", "timeout", "cap", "sq_draining", "path_mtu" }] = junk(1) end
  return a
end

-- ---- ops -------------------------------------------------------------------
local function call(o, m, ...)
  local f = o ~= nil and try(function() return o[m] end)
  if type(f) == "function" then return try(f, o, ...) end
end
local BLOCKING = { get_async_event = true, get_cq_event = true, wait = true, get_cm_event = true,
  get_request = true, get_send_comp = true, get_recv_comp = true }
-- A synchronous id (verbs.create_ep's) waits for its events inside connect
-- and accept: only passive endpoints are made, and those two are not
-- called with junk on them (they could wait for the CM's own timeouts).
local SYNC_WAITS = { connect = true, accept = true }
local base = {
  function() if #P.ctx < (on.crossctx and 2 or 1) then log("verbs.open"); add("ctx", try(verbs.open, DEV)) end end,
  function() log("alloc_pd"); add("pd", call(pick("ctx"), "alloc_pd")) end,
  function() log("create_cq"); add("cq", call(pick("ctx"), "create_cq", R(1, 16), chance(0.3) and { channel = pick("ch") } or nil)) end,
  function() log("create_cq_ex"); add("cq", call(pick("ctx"), "create_cq_ex", { cqe = R(1, 8), wc_flags = { "BYTE_LEN" } })) end,
  function() log("create_comp_channel"); add("ch", call(pick("ctx"), "create_comp_channel")) end,
  function() log("reg_mr"); add("mr", call(pick("pd"), "reg_mr", R(1, 8192), oneof(ACCESS))) end,
  function() log("create_qp"); local pd = pick("pd"); add("qp", call(pd, "create_qp", qp_init(pd))) end,
  function()
    log("create_qp_ex"); local a = qp_init(); a.pd = pick("pd"); a.send_ops_flags = { "SEND", "RDMA_WRITE" }
    add("qp", call(pick("ctx"), "create_qp_ex", a))
  end,
  function() log("create_srq"); add("srq", call(pick("pd"), "create_srq", { max_wr = R(1, 8), max_sge = R(1, 2), srq_limit = R(0, 2) })) end,
  function()
    log("create_ah"); add("ah", call(pick("pd"), "create_ah", { is_global = 1, port_num = 1, grh = { dgid = gid(), sgid_index = GIDX } }))
  end,
  function() local q = pick("qp"); log("modify %s", tostring(q)); call(q, "modify", qp_attr(q)) end,
  function() log("post_send"); call(pick("qp"), "post_send", wrs(send_wr)) end,
  function() log("post_recv"); call(pick("qp"), "post_recv", wrs(recv_wr)) end,
  function() log("srq post_recv"); call(pick("srq"), "post_recv", wrs(recv_wr)) end,
  function() log("poll"); call(pick("cq"), "poll", R(0, 8)) end,
  function() log("wait"); call(pick("cq"), "wait", R(1, 4), R(0, 5)) end,
  function() log("req_notify"); call(pick("cq"), "req_notify", chance(0.5)) end,
  function() log("get_cq_event"); call(pick("ch"), "get_cq_event", 0) end,
  function() log("ack_events"); call(pick("cq"), "ack_events", R(0, 2)) end,
  function() log("get_async_event"); call(pick("ctx"), "get_async_event", 0) end,
  function() log("query"); local q = pick("qp"); call(q, "query"); call(pick("srq"), "query"); call(pick("ctx"), "query_port", 1) end,
  function() log("mr io"); local m = pick("mr"); call(m, "write", R(0, 64), "hello"); call(m, "read", R(0, 64), R(0, 64)); call(m, "fill", R(0, 255)) end,
  function() -- destroy something, by its own method
    local k = oneof(KINDS); local o = pick(k); log("destroy a %s", k)
    for _, m in ipairs{ "destroy", "dealloc", "dereg", "close", "ack" } do
      if o and try(function() return o[m] end) then try(o[m], o); break end
    end
  end,
  function() -- any method of any object, junk arguments (blocking ones get a timeout)
    local o = any_obj(); if not o then return end
    local mt = getmetatable(o); local ms = type(mt) == "table" and rawget(mt, "__methods")
    if type(ms) ~= "table" then return end
    local names = {}
    for k in pairs(ms) do names[#names + 1] = k end
    table.sort(names)
    local m = oneof(names)
    if SYNC_WAITS[m] and on.ep then return end
    if BLOCKING[m] then log("%s(%s) with timeouts", m, tostring(o)); try(ms[m], o, R(0, 2), 0); return end
    log("%s:%s(junk)", tostring(o), m)
    try(ms[m], o, junk(), junk(), junk())
  end,
  function() local o = any_obj(); log("tostring and fields of %s", tostring(o))
    for _, k in ipairs{ "qp_num", "lkey", "rkey", "addr", "length", "state", "qp_type", "fd", "verbs", "event", "id", "cqe", "name", "wr_id", "status" } do
      try(function() return o and o[k] end)
    end
  end,
  function() log("wc_array"); add("wcs", try(verbs.wc_array, R(1, 8))); local c, w = pick("cq"), pick("wcs"); if c and w then try(c.wait, c, w, R(1, 2), 0) end end,
}

local fam = {}
fam.proxies = {
  function() log("create_qp with a proxy"); call(pick("pd"), "create_qp", proxy(0)) end,
  function() log("create_qp_ex with a proxy"); call(pick("ctx"), "create_qp_ex", proxy(0)) end,
  function() log("create_cq_ex with a proxy"); call(pick("ctx"), "create_cq_ex", proxy(0)) end,
  function() log("post_send with a proxy"); call(pick("qp"), "post_send", proxy(0)) end,
  function() log("post_recv with proxies"); call(pick("qp"), "post_recv", { proxy(0), proxy(0) }) end,
  function() log("modify with a proxy"); call(pick("qp"), "modify", proxy(0)) end,
  function() log("send_wr with a proxy"); add("swr", try(verbs.send_wr, proxy(0))) end,
  function() log("create_ah with a proxy"); call(pick("pd"), "create_ah", proxy(0)) end,
  function() log("id:create_qp with a proxy"); call(pick("id"), "create_qp", pick("pd"), proxy(0)) end,
  function() log("connect with a proxy"); call(pick("id"), "connect", proxy(0)) end,
}
fam.metamethods = {
  function()
    local o = any_obj(); local mt = o and getmetatable(o)
    if type(mt) ~= "table" then return end
    local mm = oneof{ "__index", "__newindex", "__gc", "__close", "__tostring", "__len", "__call" }
    local f = rawget(mt, mm)
    if type(f) ~= "function" then return end
    local self = chance(0.7) and junk() or o
    log("%s.%s(%s)", tostring(mt.__name), mm, type(self))
    try(f, self, junk(), junk())
  end,
}
local depth = 0
local recorder_ops = {
  function() local k = oneof(KINDS); local o = pick(k); for _, m in ipairs{ "destroy", "dealloc", "dereg", "ack" } do
    if o and try(function() return o[m] end) then try(o[m], o); return end end end,
  function() collectgarbage() end,
  function() call(pick("qp"), "post_send", send_wr()) end,
  function() call(pick("qp"), "modify", qp_attr()) end,
  function() add("pd", call(pick("ctx"), "alloc_pd")) end,
  function() call(pick("cq"), "poll", 4) end,
  function() verbs.trace(false) end,
  function() error("recorder raises") end,
}
fam.recorder = {
  function()
    log("verbs.trace(function that calls back)")
    verbs.trace(function()
      if depth > 2 then return end
      depth = depth + 1
      for _ = 1, R(1, 2) do local ok, e = pcall(oneof(recorder_ops)); if not ok then depth = depth - 1; error(e, 0) end end
      depth = depth - 1
    end)
  end,
  function() log("verbs.trace(false)"); verbs.trace(false) end,
}
fam.crossctx = {
  function() log("open a second context"); if #P.ctx < 2 then add("ctx", try(verbs.open, DEV)) end end,
  function()
    local c1, c2 = P.ctx[1], P.ctx[2]; if not (c1 and c2) then return end
    log("create_qp_ex on one context with the other's pd and cq")
    local pd1, cq1 = try(c1.alloc_pd, c1), try(c1.create_cq, c1, 4)
    add("pd", pd1); add("cq", cq1)
    add("qp", try(c2.create_qp_ex, c2, { pd = pd1, qp_type = "RC", send_cq = cq1, recv_cq = cq1,
      cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 }, send_ops_flags = { "SEND" } }))
  end,
  function() log("create_qp with objects of any context"); local pd = pick("pd"); add("qp", call(pd, "create_qp", qp_init(pd))) end,
  function() log("create_cq with another context's channel"); add("cq", call(pick("ctx"), "create_cq", 2, { channel = pick("ch") })) end,
}
fam.gc = {
  function() log("collectgarbage()"); collectgarbage() end,
  function() log("collectgarbage step"); collectgarbage("step", R(0, 200)) end,
  function() local k = oneof(KINDS); log("drop a %s", k); drop(k) end,
  function() log("drop half of everything"); for _, k in ipairs(KINDS) do for _ = 1, #P[k] // 2 do drop(k) end end end,
}
local function addr() return "127.0.0.1:" .. (PORT0 + R(0, 3)) end
fam.cm = {
  function() log("create_event_channel"); add("cmch", try(verbs.create_event_channel)) end,
  function() log("create_id"); add("id", call(pick("cmch"), "create_id", oneof{ "TCP", "UDP", "TCP", "IB", 0 })) end,
  function() log("bind_addr"); call(pick("id"), "bind_addr", oneof{ addr(), "*:" .. PORT0 + R(0, 3), "127.0.0.1" }) end,
  function() log("resolve_addr"); call(pick("id"), "resolve_addr", chance(0.2) and addr() or nil, addr(), R(10, 200)) end,
  function() log("resolve_route"); call(pick("id"), "resolve_route", R(10, 200)) end,
  function() log("listen"); call(pick("id"), "listen", R(0, 4)) end,
  function() log("get_cm_event"); local ev = call(pick("cmch"), "get_cm_event", R(0, 30)); add("ev", ev)
    if ev then try(function() add("id", ev.id) end) end end,
  function() log("connect"); call(pick("id"), "connect", oneof{ nil, { responder_resources = 1, initiator_depth = 1 }, { private_data = "hi" } }) end,
  function() log("accept"); call(pick("id"), "accept", oneof{ nil, { responder_resources = 1 }, { qp_num = 5 } }) end,
  function() log("reject"); call(pick("id"), "reject", oneof{ nil, "no" }) end,
  function() log("disconnect"); call(pick("id"), "disconnect") end,
  function() log("establish"); call(pick("id"), "establish") end,
  function() log("id:create_qp")
    local id = pick("id"); local ctx = id and try(function() return id.verbs end)
    local pd = ctx and try(ctx.alloc_pd, ctx) or pick("pd"); add("pd", pd)
    local cq = ctx and try(ctx.create_cq, ctx, 4) or pick("cq"); add("cq", cq)
    add("qp", call(id, "create_qp", pd, { qp_type = oneof{ "RC", "UD" }, send_cq = cq, recv_cq = cq,
      cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 } }))
  end,
  function() log("destroy_qp"); call(pick("id"), "destroy_qp") end,
  function() log("init_qp_attr"); call(pick("id"), "init_qp_attr", oneof{ "INIT", "RTR", "RTS" }) end,
  function() log("ack"); call(pick("ev"), "ack") end,
  function() log("expect"); call(pick("ev"), "expect", oneof{ "ESTABLISHED", "ADDR_RESOLVED" }) end,
  function() log("addresses"); local id = pick("id"); call(id, "get_local_addr"); call(id, "get_peer_addr"); call(id, "get_src_port") end,
  function() log("destroy id or channel"); call(chance(0.7) and pick("id") or pick("cmch"), "destroy") end,
}
local ADDR = os.getenv("RXE_ADDR")
local function group_gid() return oneof{ "::ffff:239.9.0." .. R(1, 3), "ff0e::" .. R(1, 3), "::ffff:" .. (ADDR or "10.0.0.1"), junk() } end
local function group() return oneof{ "239.9.0." .. R(1, 3), "239.9.0." .. R(1, 3) .. ":0", ADDR or "x", junk() } end
fam.mcast = {
  function() log("attach_mcast"); call(pick("qp"), "attach_mcast", group_gid(), oneof{ 0, R(0, 3), junk() }) end,
  function() log("detach_mcast"); call(pick("qp"), "detach_mcast", group_gid(), oneof{ 0, R(0, 3) }) end,
  function() log("a UD id toward a group")
    local ch = pick("cmch") or add("cmch", try(verbs.create_event_channel))
    local id = add("id", call(ch, "create_id", oneof{ "UDP", "UDP", "TCP" }))
    if ADDR and chance(0.8) then call(id, "bind_addr", ADDR .. ":0") end
    call(id, "resolve_addr", ADDR, "239.9.0." .. R(1, 3) .. ":0", 200)
  end,
  function() log("join_multicast"); call(pick("id"), "join_multicast", group(), oneof{ nil, R(0, 9), junk() }) end,
  function() log("join_multicast_ex")
    call(pick("id"), "join_multicast_ex", oneof{ { addr = group(), join_flags = oneof{ "FULLMEMBER", "SENDONLY_FULLMEMBER", 7 } },
      { addr = group(), comp_mask = R(0, 7) }, proxy(0), junk() }, R(0, 9))
  end,
  function() log("leave_multicast"); call(pick("id"), "leave_multicast", group()) end,
  function() log("a group's AH from a MULTICAST_JOIN")
    local ev = pick("ev"); local ok, ud = pcall(function() return ev.param.ud end)
    if ok and ud then add("ah", call(pick("pd"), "create_ah", ud.ah_attr)) end
  end,
}
local function port() return tostring(PORT0 + 4 + R(0, 3)) end
fam.ep = {
  function() log("getaddrinfo")
    add("ai", try(verbs.getaddrinfo, oneof{ nil, "127.0.0.1", junk() }, oneof{ port(), PORT0 + 4, nil, junk() },
      oneof{ { ai_flags = "PASSIVE", ai_port_space = oneof{ "TCP", "UDP" } }, { ai_flags = { "PASSIVE", "NUMERICHOST" } },
        nil, proxy(0), junk() }))
  end,
  function() log("create_ep")
    local ai = pick("ai")
    local passive = ai and try(function() return ai.ai_flags[1] == "PASSIVE" end)
    if not passive and chance(0.9) then return end   -- an active one would wait in connect
    add("id", try(verbs.create_ep, ai, chance(0.5) and pick("pd") or nil, oneof{ nil, { sq_sig_all = 1,
      cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 } }, qp_init(pick("pd")), proxy(0) }))
  end,
  function() log("get_request"); local id = pick("id"); call(id, "listen", 1); add("id", call(id, "get_request", R(0, 5))) end,
  function() log("reg_*"); add("mr", call(pick("id"), oneof{ "reg_msgs", "reg_read", "reg_write" }, oneof{ R(1, 64), "msg", junk() })) end,
  function() log("post_*")
    local m = oneof{ "post_recv", "post_send", "post_read", "post_write", "post_ud_send" }
    call(pick("id"), m, R(0, 9), pick("mr"), R(0, 8), R(0, 8), oneof{ nil, "SIGNALED", junk() }, oneof{ R(0, 4096), pick("ah") }, R(0, 9))
  end,
  function() log("post_*v")
    local m = oneof{ "post_recvv", "post_sendv", "post_readv", "post_writev" }
    call(pick("id"), m, R(0, 9), oneof{ sges(), {}, junk() }, oneof{ nil, "SIGNALED" }, R(0, 4096), R(0, 9))
  end,
  function() log("get_*_comp"); call(pick("id"), oneof{ "get_send_comp", "get_recv_comp" }, R(0, 5)) end,
  function() log("destroy_ep or free"); if chance(0.5) then call(pick("id"), "destroy_ep") else call(pick("ai"), "free") end end,
}
fam.prepared = {
  function() log("verbs.send_wr"); add("swr", try(verbs.send_wr, wrs(send_wr))) end,
  function() log("verbs.recv_wr"); add("rwr", try(verbs.recv_wr, wrs(recv_wr))) end,
  function() local w = pick("swr"); if not w then return end
    local k = oneof{ "wr_id", "opcode", "send_flags", "imm_data", "rdma", "atomic", "ud", "sg_list", "next" }
    local v = oneof{ junk(), { remote_addr = 0x4141414141414141, rkey = 1 }, oneof(OPCODES), R(0, 10) }
    log("send_wr.%s = %s", k, type(v)); try(function() w[k] = v end)
  end,
  function() log("post a prepared send_wr"); call(pick("qp"), "post_send", pick("swr")) end,
  function() log("post a prepared recv_wr"); call(chance(0.8) and pick("qp") or pick("srq"), "post_recv", pick("rwr")) end,
  function() local w = pick("swr") or pick("rwr"); log("read a prepared WR")
    if w then try(function() return w.wr_id, #w, tostring(w), w[1], w[R(-1, 30)], w.rdma, w.ud, w[junk()] end) end end,
}
fam.rest = {
  function() log("create_srq_ex"); local c = pick("ctx")
    add("srq", call(c, "create_srq_ex", chance(0.7) and { srq_type = oneof{ "BASIC", "TM", "XRC", 7 }, pd = pick("pd"),
      cq = pick("cq"), attr = { max_wr = R(0, 40), max_sge = R(0, 3), srq_limit = R(0, 4) } } or junk())) end,
  function() log("reg_mr_iova"); local pd = pick("pd")
    add("mr", call(pd, oneof{ "reg_mr_iova", "reg_mr_iova2" }, oneof{ R(0, 8192), "abc", junk() },
      oneof{ R(0, 16) * 4096, 0x12345064, R(0, 1 << 40), junk() }, oneof(ACCESS))) end,
  function() log("cq:resize"); call(pick("cq"), "resize", oneof{ R(0, 300), -1, junk() }) end,
  function() log("mr:rereg"); call(pick("mr"), "rereg", oneof{ "CHANGE_ACCESS", "CHANGE_PD", { "CHANGE_PD", "CHANGE_ACCESS" },
    "CHANGE_TRANSLATION", junk() }, chance(0.5) and pick("pd") or junk(), oneof(ACCESS)) end,
  function() local m = oneof{ "open_xrcd", "open_qp", "alloc_dm", "alloc_td", "alloc_parent_domain", "create_counters",
      "create_wq", "create_rwq_ind_table", "create_flow_action_esp", "import_pd", "import_dm", "query_rt_values_ex",
      "query_pkey", "get_pkey_index", "query_device_ex" }
    log("ctx:%s", m); call(pick("ctx"), m, junk(), junk(), junk()) end,
  function()
    local t = oneof{ { "pd", "reg_dmabuf_mr" }, { "pd", "alloc_null_mr" }, { "pd", "advise_mr" }, { "pd", "import_mr" },
      { "qp", "create_flow" }, { "qp", "modify_rate_limit" }, { "qp", "query_ece" }, { "qp", "set_ece" },
      { "qp", "query_data_in_order" }, { "cq", "modify" }, { "srq", "get_srq_num" }, { "srq", "post_srq_ops" } }
    local k, m = t[1], t[2]
    log("%s:%s", k, m); call(pick(k), m, junk(), junk(), junk()) end,
  function() log("verbs.import_device"); try(verbs.import_device, chance(0.5) and pick("ctx") or junk()) end,
  function() log("id:migrate"); call(pick("id"), "migrate", chance(0.7) and pick("cmch") or junk()) end,
  function() log("id:set_option"); call(pick("id"), "set_option", oneof{ "ID", "IB", 0, junk() },
    oneof{ "TOS", "REUSEADDR", "AFONLY", "ACK_TIMEOUT", 9, junk() }, oneof{ R(0, 40), true, junk() }) end,
  function() log("id:create_qp_ex")
    local id = pick("id"); local ctx = id and try(function() return id.verbs end)
    local pd = ctx and try(ctx.alloc_pd, ctx) or pick("pd"); add("pd", pd)
    local cq = ctx and try(ctx.create_cq, ctx, 4) or pick("cq"); add("cq", cq)
    add("qp", call(id, "create_qp_ex", { pd = pd, qp_type = oneof{ "RC", "UD" }, send_cq = cq, recv_cq = cq,
      send_ops_flags = oneof{ nil, { "SEND" }, "TSO" }, cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1,
      max_recv_sge = 1 } }))
  end,
  function() log("id:notify, ECE"); local id = pick("id"); call(id, "notify", oneof{ "COMM_EST", junk() })
    call(id, "set_local_ece", R(0, 5), R(0, 5)); call(id, "get_remote_ece"); call(id, "reject_ece", junk()) end,
}

-- A random subset of a list (each item kept with probability 1/2).
local function subset(list) local t = {} for _, v in ipairs(list) do if chance(0.5) then t[#t + 1] = v end end return t end
local CQ_MASK_BITS = { "FLAGS", "PD" }
local WR_CALLS = { "wr_start", "wr_send", "wr_rdma_write", "wr_set_sge", "wr_set_inline_data", "wr_complete", "wr_abort",
  "wr_send_imm", "wr_set_ud_addr", "wr_atomic_fetch_add" }
fam.masks = {
  function()
    local a = qp_init(); a.pd = pick("pd"); a.send_ops_flags = subset{ "SEND", "RDMA_WRITE", "SEND_WITH_IMM", "ATOMIC_FETCH_AND_ADD" }
    -- PD mostly in (else refused before the provider sees it); the bits of
    -- what rxe lacks (TSO, RSS, XRC) seldom, or nearly every create fails
    a.comp_mask = subset{ "SEND_OPS_FLAGS", "CREATE_FLAGS" }
    if chance(0.8) then table.insert(a.comp_mask, 1, "PD") end
    if chance(0.1) then a.comp_mask[#a.comp_mask + 1] = oneof{ "MAX_TSO_HEADER", "IND_TABLE", "RX_HASH", "XRCD" } end
    if chance(0.3) then a.create_flags = {} end
    log("create_qp_ex, comp_mask { %s }", table.concat(a.comp_mask, ", "))
    local q = add("qp", call(pick("ctx"), "create_qp_ex", a))
    if q and chance(0.8) then   -- at once, on that QP: a session, an op or two, its end
      call(q, "wr_start"); try(function() q.wr_id = R(0, 99) end)
      for _ = 1, R(0, 2) do call(q, oneof{ "wr_send", "wr_rdma_write", "wr_set_sge" }, oneof{ pick("mr"), R(0, 9) }, R(0, 8), R(0, 8)) end
      call(q, oneof{ "wr_complete", "wr_abort" })
    end
  end,
  function()
    local a = { cqe = R(1, 8), wc_flags = subset{ "BYTE_LEN", "IMM", "QP_NUM", "SRC_QP", "SL", "SLID" }, comp_mask = subset(CQ_MASK_BITS) }
    if chance(0.5) then a.flags = subset{ "SINGLE_THREADED" } end
    log("create_cq_ex, comp_mask { %s }", table.concat(a.comp_mask, ", "))
    local c = add("cq", call(pick("ctx"), "create_cq_ex", a))
    if call(c, "start_poll") then call(c, oneof{ "read_byte_len", "read_imm_data", "read_src_qp", "read_sl" }); call(c, "end_poll") end
  end,
  function() -- the new post-send API on any QP, in any order
    local q = pick("qp"); local m = oneof(WR_CALLS); log("qp:%s on %s", m, tostring(q))
    if m == "wr_start" or m == "wr_complete" or m == "wr_abort" then call(q, m)
    else call(q, m, oneof{ pick("mr"), R(0, 9) }, R(0, 64), R(0, 64), R(0, 9)) end
    try(function() q.wr_id = R(0, 99); return q.wr_flags end)
  end,
  function() -- the extended CQ's API on any CQ
    local c = pick("cq"); local m = oneof{ "start_poll", "next_poll", "end_poll", "read_byte_len", "read_imm_data",
      "read_qp_num", "read_src_qp", "read_opcode", "read_wc_flags", "read_sl" }
    log("cq:%s on %s", m, tostring(c)); call(c, m)
    try(function() return c and c.status, c and c.wr_id end)
  end,
}
-- A text with a NUL byte: a valid name or address, then "\0" and more.
-- Every call given one must fail: one that succeeds read the string only
-- up to the NUL, silently, and is counted as a fuzzer error.
local function nul(t) return t .. "\0" .. oneof{ "", "x", "RTS", "REMOTE_WRITE", "71" } end
local accepted = 0
local V = setmetatable({}, { __index = function(_, k) return function(_, ...) return verbs[k](...) end end })   -- verbs.f as V:f
local function refused(o, m, ...)
  local f = o ~= nil and try(function() return o[m] end)
  if not f then return end
  local ok, r = pcall(f, o, ...)
  if ok then accepted = accepted + 1; log("ACCEPTED A STRING WITH A NUL: %s", m) end
  if not ok then try(error, r, 0) end   -- the error value is checked as every other
  return ok and r or nil
end
fam.nulstr = {
  function() log("reg_mr, access with a NUL"); add("mr", refused(pick("pd"), "reg_mr", R(1, 64), oneof{ nul("LOCAL_WRITE"), { "LOCAL_WRITE", nul("REMOTE_READ") } })) end,
  function() log("modify, qp_state with a NUL"); refused(pick("qp"), "modify", { qp_state = nul(oneof{ "INIT", "RESET", "ERR" }), pkey_index = 0, port_num = 1, qp_access_flags = 0 }) end,
  function() log("modify, a key with a NUL"); refused(pick("qp"), "modify", { [nul("qp_state")] = "RESET" }) end,
  function() log("create_qp, qp_type with a NUL"); local pd = pick("pd"); local a = qp_init(pd); a.qp_type = nul(oneof{ "RC", "UD" }); add("qp", refused(pd, "create_qp", a)) end,
  function() log("post_send, opcode with a NUL"); local w = send_wr(); w.opcode = nul("SEND"); refused(pick("qp"), "post_send", w) end,
  function() log("create_ah, dgid with a NUL"); add("ah", refused(pick("pd"), "create_ah", { is_global = 1, port_num = 1, grh = { dgid = nul("fe80::1"), sgid_index = GIDX } })) end,
  function() log("verbs.open with a NUL"); add("ctx", refused(V, "open", nul(DEV))) end,
  function() log("a field name with a NUL"); local o = any_obj(); if type(o) == "userdata" then refused({ get = function(_, k) return o[k] end }, "get", nul(oneof{ "qp_num", "lkey", "state" })) end end,
  function() log("resolve_addr, an address with a NUL"); refused(pick("id"), "resolve_addr", nil, nul(addr()), R(10, 50)) end,
  function() log("bind_addr, an address with a NUL"); refused(pick("id"), "bind_addr", nul(addr())) end,
  function() log("create_id, port space with a NUL"); add("id", refused(pick("cmch"), "create_id", nul("TCP"))) end,
  function() log("verbs.fields/enum with a NUL"); refused(V, "fields", nul("ibv_qp_attr")); refused(V, "enum", nul("ibv_qp_state")) end,
}

fam.tracing = {
  function()
    local want = chance(0.5)
    log("verbs.trace(%s)", want and "a silent function" or "false")
    if TRACE == "toggle" then verbs.trace(want and function() end or false) end
  end,
}

local function bind_info()
  if chance(0.2) then return junk(1) end
  local mr = pick("mr")
  local a = mr and try(function() return mr.addr end) or 0
  return { mr = chance(0.9) and mr or nil, addr = (a or 0) + R(-8, 64), length = oneof{ 0, 8, 64, 4096, R(0, 1 << 20) },
    mw_access_flags = oneof{ 0, "REMOTE_READ", { "REMOTE_READ", "REMOTE_WRITE" }, { "REMOTE_READ", "ZERO_BASED" }, "REMOTE_ATOMIC" } }
end
local function mw_rkey()
  local mw = pick("mw")
  local k = mw and try(function() return mw.rkey end)
  return k and (chance(0.7) and verbs.inc_rkey(k) or k) or R(0, 0xffff)
end
fam.mw = {
  function() log("alloc_mw"); add("mw", call(pick("pd"), "alloc_mw", oneof{ "TYPE_1", "TYPE_2", "TYPE_2", 1, 3, junk() })) end,
  function() log("reg_mr with MW_BIND"); add("mr", call(pick("pd"), "reg_mr", R(1, 4096), oneof{ { "LOCAL_WRITE", "MW_BIND" }, "MW_BIND" })) end,
  function() log("bind_mw"); call(pick("qp"), "bind_mw", chance(0.9) and pick("mw") or junk(),
    chance(0.9) and { wr_id = R(0, 100), send_flags = oneof{ nil, "SIGNALED" }, bind_info = bind_info() } or junk()) end,
  function() log("post_send BIND_MW")
    call(pick("qp"), "post_send", { wr_id = R(0, 100), opcode = "BIND_MW", send_flags = "SIGNALED",
      bind_mw = chance(0.85) and { mw = chance(0.9) and pick("mw") or nil, rkey = mw_rkey(), bind_info = bind_info() } or nil,
      sg_list = chance(0.1) and sges() or nil })
  end,
  function() local op = oneof{ "LOCAL_INV", "SEND_WITH_INV" }; log("post_send %s", op)
    call(pick("qp"), "post_send", { wr_id = R(0, 100), opcode = op, send_flags = "SIGNALED",
      invalidate_rkey = chance(0.9) and mw_rkey() or nil, imm_data = chance(0.1) and 1 or nil,
      sg_list = op == "SEND_WITH_INV" and sges() or nil })
  end,
  function()
    log("create_qp_ex with BIND_MW"); local a = qp_init(); a.pd = pick("pd")
    a.send_ops_flags = { "SEND", "BIND_MW", "LOCAL_INV", "SEND_WITH_INV" }
    add("qp", call(pick("ctx"), "create_qp_ex", a))
  end,
  function() local q = pick("qp"); log("wr_bind_mw / wr_local_inv / wr_send_inv session on %s", tostring(q))
    if not call(q, "wr_start") and chance(0.5) then return end
    for _ = 1, R(1, 3) do
      local op = R(3)
      if op == 1 then call(q, "wr_bind_mw", chance(0.9) and pick("mw") or junk(), mw_rkey(), bind_info())
      elseif op == 2 then call(q, "wr_local_inv", mw_rkey())
      else call(q, "wr_send_inv", mw_rkey()); call(q, "wr_set_sge", pick("mr"), 0, R(0, 8)) end
    end
    call(q, chance(0.8) and "wr_complete" or "wr_abort")
  end,
  function() local mw = pick("mw"); local v = oneof{ mw_rkey(), junk() }
    log("mw.rkey = %s", type(v)); try(function() mw.rkey = v end)
    try(function() return mw.rkey, mw.type, mw.handle, mw.pd, tostring(mw) end)
  end,
  function() log("inc_rkey(junk)"); try(verbs.inc_rkey, oneof{ junk(), R(0, 0xffffffff), -1, 1 << 32 }) end,
  function() log("dealloc a window"); call(pick("mw"), "dealloc") end,
  function() log("send_wr with BIND_MW"); add("swr", try(verbs.send_wr, { opcode = "BIND_MW",
    bind_mw = { mw = pick("mw"), rkey = mw_rkey(), bind_info = bind_info() } })) end,
}

-- Each family on gets about as many slots as the base ops (in a fixed
-- order: pairs' order is not seeded, and a replay must draw the same ops).
local pool = {}
local function weigh(list, n) for _ = 1, n do for _, f in ipairs(list) do pool[#pool + 1] = f end end end
weigh(base, 2)
for _, name in ipairs{ "cm", "crossctx", "ep", "gc", "masks", "mcast", "metamethods", "nulstr", "prepared", "proxies", "recorder", "rest", "tracing", "mw" } do
  if on[name] then weigh(fam[name], math.max(1, 24 // #fam[name])) end
end
local owner = {}
for _, f in ipairs(base) do owner[f] = "base" end
for name, list in pairs(fam) do for _, f in ipairs(list) do owner[f] = name end end

print(("fuzz: seed %d, %d ops, families %s, ports %d-%d"):format(SEED, NOPS, FAMS, PORT0, PORT0 + 15))
if TRACE == "on" then verbs.trace(function() end) end
add("ctx", try(verbs.open, DEV))
for i = 1, NOPS do
  opno = i
  local f = pool[R(#pool)]
  family = owner[f]
  try(f)
end

-- ---- the end: drop everything, collect, and nothing may be left -----------
opno, family = NOPS + 1, "end"
log("drop everything, collect")
verbs.trace(false)
for _, k in ipairs(KINDS) do P[k] = {} end
pool, fam, base, recorder_ops, owner = nil, nil, nil, nil, nil
for _ = 1, 4 do collectgarbage() end

local pid = io.open("/proc/self/stat"):read("n")
local left = {}
for _, res in ipairs{ "pd", "cq", "qp", "mr", "cm_id", "srq" } do
  local p = io.popen("rdma res show " .. res .. " 2>&1")
  for line in p:lines() do
    if line:find("pid " .. pid .. " ", 1, true) then left[#left + 1] = res .. ": " .. line end
  end
  p:close()
end
for _, l in ipairs(left) do log("LEFT OVER: %s", l) end
print(("fuzz: seed %d done: %d bad error values, %d strings with a NUL accepted, %d resources left over"):format(
  SEED, bad_errors, accepted, #left))
os.exit(#left > 0 and 2 or (bad_errors > 0 or accepted > 0) and 3 or 0, true)
