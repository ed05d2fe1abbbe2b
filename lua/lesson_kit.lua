-- What the lessons share: picking the RoCEv2 GID, building the objects a
-- lesson starts from (the steps of earlier lessons, done for the learner),
-- collecting a step's work completions, and tearing everything down.
local K = { port = 1, qkey = 0x11111111 }

local function out(...) io.write(...) io.write("\n") io.flush() end

-- "verbs.qp" for a verbs object, nil otherwise.
function K.kind(v)
  if type(v) ~= "userdata" then return nil end
  local mt = getmetatable(v)
  return type(mt) == "table" and rawget(mt, "__name") or nil
end
function K.is(v, kind) return K.kind(v) == "verbs." .. kind end
-- A completion: what cq:poll gives (a copy of struct ibv_wc), or a table of its fields.
function K.is_wc(v)
  if type(v) == "userdata" then return K.kind(v) == "ibv_wc" end
  return type(v) == "table" and v.status ~= nil
end

-- A short one-line rendering for transcripts (the REPL's pretty printer is
-- used instead when it is there).
function K.repr(v, depth)
  depth = depth or 0
  if type(v) == "string" then return ("%q"):format(v) end
  if type(v) ~= "table" or getmetatable(v) and getmetatable(v).__tostring then return tostring(v) end
  if depth > 2 then return "{...}" end
  local parts, n = {}, 0
  for i, x in ipairs(v) do n = i; parts[#parts + 1] = K.repr(x, depth + 1) end
  local keys = {}
  for k in pairs(v) do
    if not (math.type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do
    parts[#parts + 1] = tostring(k) .. "=" .. K.repr(v[k], depth + 1)
  end
  local s = "{" .. table.concat(parts, ", ") .. "}"
  if depth == 0 and #s > 100 and n > 1 then
    s = "{\n  " .. table.concat(parts, ",\n  ") .. "\n}"
  end
  return s
end

---------------------------------------------------------------------------
-- GIDs.

-- IPv6 text ("::ffff:192.0.2.1", "0000:...:c000:0201", "fe80::1") -> 16 bytes.
function K.gid_bytes(text)
  if type(text) ~= "string" then return nil end
  if #text == 16 and text:find("[^%x:%.]") then return text end   -- already raw
  local v4 = text:match(":(%d+%.%d+%.%d+%.%d+)$")
  local groups = {}
  local function add(part, into)
    for g in part:gmatch("[^:]+") do into[#into + 1] = tonumber(g, 16) end
  end
  local body = v4 and text:sub(1, -#v4 - 1) or text
  if v4 then body = body:gsub(":$", ":0:0") end   -- placeholders for the IPv4 groups
  local head, tail = body:match("^(.-)::(.*)$")
  if head then
    local h, t = {}, {}
    add(head, h); add(tail, t)
    for _ = 1, 8 - #h - #t do h[#h + 1] = 0 end
    for _, g in ipairs(t) do h[#h + 1] = g end
    groups = h
  else
    add(body, groups)
  end
  if #groups ~= 8 then return nil end
  if v4 then
    local a, b, c, d = v4:match("(%d+)%.(%d+)%.(%d+)%.(%d+)")
    groups[7], groups[8] = a * 256 + b, c * 256 + d
  end
  local bytes = {}
  for i, g in ipairs(groups) do
    if not g or g > 0xffff then return nil end
    bytes[2 * i - 1], bytes[2 * i] = string.char(g >> 8), string.char(g & 0xff)
  end
  return table.concat(bytes)
end

-- "192.0.2.1" when the GID is IPv4-mapped (::ffff:a.b.c.d), else nil.
function K.gid_ipv4(text)
  local b = K.gid_bytes(text)
  if not b or b:sub(1, 12) ~= ("\0"):rep(10) .. "\xff\xff" then return nil end
  return ("%d.%d.%d.%d"):format(b:byte(13, 16))
end

-- The GID index to use on RoCE: the RoCE v2 GID holding an IPv4-mapped
-- address, chosen by type and address, never by a fixed number (index 0 is
-- the link-local fe80:: GID; the others follow the netdev's addresses).
-- Returns index, gid text; or nil, why.
function K.roce_gid(ctx, port)
  port = port or K.port
  local v2
  for _, g in ipairs(ctx:gids(port)) do
    if g.type == "RoCE v2" then
      if K.gid_ipv4(g.gid) then return g.index, g.gid end
      v2 = v2 or g
    end
  end
  if v2 then return v2.index, v2.gid end
  return nil, "port " .. port .. " has no RoCE v2 GID (is the netdev up with an address?)"
end

---------------------------------------------------------------------------
-- Objects a lesson starts from. Each helper sets the globals the lessons
-- talk about and returns a one-line description of them.

local function set(name, v) rawset(_G, name, v) return v end
local function G(name) return rawget(_G, name) end

function K.open()
  if not K.is(G"ctx", "context") then set("ctx", verbs.open()) end
  local idx, gid = K.roce_gid(G"ctx")
  if not idx then error(gid, 0) end
  set("gid_index", idx)
  K.gid = gid
  return G"ctx"
end

K.all_remote = { "LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC" }

function K.base(opts)
  opts = opts or {}
  K.open()
  set("pd", G"ctx":alloc_pd())
  set("cq", G"ctx":create_cq(opts.cqe or 64))
  set("mr_a", G"pd":reg_mr(opts.size or 4096, opts.access_a or K.all_remote))
  set("mr_b", G"pd":reg_mr(opts.size or 4096, opts.access_b or K.all_remote))
end

function K.rc_qp(cq, extra)
  local attr = { qp_type = "RC", send_cq = cq or G"cq", recv_cq = cq or G"cq",
                 cap = { max_send_wr = 32, max_recv_wr = 32, max_send_sge = 2, max_recv_sge = 2 } }
  for k, v in pairs(extra or {}) do attr[k] = v end
  if attr.srq then attr.cap.max_recv_wr, attr.cap.max_recv_sge = 0, 0 end
  return G"pd":create_qp(attr)
end

-- Moves qp from any state through RESET, INIT, RTR to RTS, connected to peer
-- (a QP, or a QP number) on this device. opts overrides any attribute.
-- Exposed to the learner as the global rc_connect(qp, peer [, opts]) once
-- lesson 4 has shown each transition by hand.
function K.rc_connect(qp, peer, opts)
  local usage = "rc_connect(qp, peer [, opts]): "
  if not K.is(qp, "qp") then error(usage .. "qp must be the QP to connect (qp_a), not " .. K.repr(qp), 2) end
  if not (K.is(peer, "qp") or math.type(peer) == "integer") then
    error(usage .. "peer must be the QP at the other end (qp_b) or its qp_num, not " .. K.repr(peer), 2)
  end
  if opts ~= nil and type(opts) ~= "table" then
    error(usage .. "opts must be a table of attributes ({ rnr_retry = 0 }), not " .. K.repr(opts), 2)
  end
  opts = opts or {}
  -- The GID comes from a context: opts.ctx, the global ctx of the lessons,
  -- else one verbs.open() opens (a script that keeps its ctx local).
  local ctx = opts.ctx or G"ctx"
  if not K.is(ctx, "context") then
    if not K.is(K.own_ctx, "context") then K.own_ctx = verbs.open() end
    ctx = K.own_ctx
  end
  local idx = opts.sgid_index or G"gid_index" or K.roce_gid(ctx)
  local function o(k, dflt) if opts[k] == nil then return dflt end return opts[k] end
  if qp.state ~= "RESET" then qp:modify{ qp_state = "RESET" } end
  qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = K.port,
             qp_access_flags = o("qp_access_flags", { "REMOTE_WRITE", "REMOTE_READ", "REMOTE_ATOMIC" }) }
  qp:modify{ qp_state = "RTR", path_mtu = o("path_mtu", "1024"),
             dest_qp_num = o("dest_qp_num", type(peer) == "number" and peer or peer.qp_num),
             rq_psn = o("rq_psn", 0), max_dest_rd_atomic = o("max_dest_rd_atomic", 1),
             min_rnr_timer = o("min_rnr_timer", 1),
             ah_attr = { is_global = 1, port_num = K.port, sl = 0,
                         grh = { dgid = ctx:query_gid(K.port, idx), sgid_index = idx, hop_limit = 1 } } }
  qp:modify{ qp_state = "RTS", sq_psn = o("sq_psn", 0), timeout = o("timeout", 14),
             retry_cnt = o("retry_cnt", 7), rnr_retry = o("rnr_retry", 7),
             max_rd_atomic = o("max_rd_atomic", 1) }
  return qp
end
rawset(_G, "rc_connect", K.rc_connect)

-- ctx, pd, cq, mr_a, mr_b, and qp_a <-> qp_b connected in RTS.
-- opts.a / opts.b: rc_connect options for each side.
function K.rc_pair(opts)
  opts = opts or {}
  K.base(opts)
  set("qp_a", K.rc_qp())
  set("qp_b", K.rc_qp())
  K.rc_connect(G"qp_a", G"qp_b", opts.a)
  K.rc_connect(G"qp_b", G"qp_a", opts.b)
  return K.describe { "ctx", "pd", "cq", "mr_a", "mr_b", "qp_a", "qp_b", "gid_index" }
end

function K.ud_qp()
  return G"pd":create_qp{ qp_type = "UD", send_cq = G"cq", recv_cq = G"cq",
    cap = { max_send_wr = 32, max_recv_wr = 32, max_send_sge = 1, max_recv_sge = 1 } }
end

function K.ud_ready(qp, qkey)
  if qp.state ~= "RESET" then qp:modify{ qp_state = "RESET" } end
  qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = K.port, qkey = qkey or K.qkey }
  qp:modify{ qp_state = "RTR" }
  qp:modify{ qp_state = "RTS", sq_psn = 0 }
  return qp
end

function K.ud_ah()
  local idx = G"gid_index"
  return G"pd":create_ah{ is_global = 1, port_num = K.port, sl = 0,
    grh = { dgid = G"ctx":query_gid(K.port, idx), sgid_index = idx, hop_limit = 1 } }
end

-- ctx, pd, cq, mr_a, mr_b, UD qp_a and qp_b in RTS (Q_Key K.qkey), ah to this port.
function K.ud_pair(opts)
  K.base(opts)
  set("qp_a", K.ud_ready(K.ud_qp()))
  set("qp_b", K.ud_ready(K.ud_qp()))
  set("ah", K.ud_ah())
  return K.describe { "ctx", "pd", "cq", "mr_a", "mr_b", "qp_a", "qp_b", "ah", "gid_index" }
end

function K.describe(names)
  local parts = {}
  for _, n in ipairs(names) do
    local v = G(n)
    if v ~= nil then parts[#parts + 1] = ("\n  %-9s = %s"):format(n, tostring(v)) end
  end
  return table.concat(parts)
end

---------------------------------------------------------------------------
-- Teardown: every verbs object in a global, children first, then the
-- globals the lessons use. Memory windows go before the QPs, the dropped
-- ones too (a window replaced by a second pd:alloc_mw, collected first): a
-- type 2 window bound through a QP holds it, and rxe's ibv_destroy_qp then
-- waits 50 s for it and the kernel logs a warning.

local order = { "capture", "mw", "qp", "cm_event", "ah", "srq", "mr", "cq", "comp_channel", "pd", "cm_id", "cm_channel",
                "context" }
local closers = { capture = "stop", qp = "destroy", cm_event = "ack", ah = "destroy", srq = "destroy", mw = "dealloc",
                  mr = "dereg", cq = "destroy",
                  comp_channel = "destroy", pd = "dealloc", cm_id = "destroy", cm_channel = "destroy",
                  context = "close" }
K.lesson_globals = { "wcs", "err", "ok", "ev", "ev_cq", "gid_index", "gid", "port", "dev", "src_ip",
                     "before", "pinned", "reads", "adds", "mtu", "conn", "peer", "reply",
                     "partner_host", "partner_port", "partner_addr", "seen", "ready", "busy", "events",
                     "busy_idle", "events_idle", "exchange_round", "idle_round",
                     "dev_a", "dev_b", "netdev_b", "addr_a", "gid_index_a", "gid_index_b", "make_ud_pair",
                     "sends", "wcs_b", "rkey1", "rkey2", "rkey3", "first", "got", "drop_rule", "addr_b" }

-- Functions a lesson registers to run at teardown (closing a socket,
-- stopping a partner process), newest first.
local at_teardown = {}
function K.at_teardown(fn) at_teardown[#at_teardown + 1] = fn end

function K.teardown()
  for i = #at_teardown, 1, -1 do pcall(at_teardown[i]) end
  at_teardown = {}
  collectgarbage()
  local found, names = {}, {}
  for name, v in pairs(_G) do
    local kind = K.kind(v)
    kind = kind and kind:match("^verbs%.(.+)$")
    if kind and closers[kind] then
      found[kind] = found[kind] or {}
      table.insert(found[kind], name)
    end
  end
  for _, kind in ipairs(order) do
    for _, name in ipairs(found[kind] or {}) do
      local obj = rawget(_G, name)
      local close = obj[closers[kind]]
      if close then pcall(close, obj) end
      rawset(_G, name, nil)
      names[#names + 1] = name
    end
  end
  for _, n in ipairs(K.lesson_globals) do rawset(_G, n, nil) end
  collectgarbage()
  return names
end

---------------------------------------------------------------------------
-- Partners: a second verbsh process that a lab lesson talks to, started in
-- the background with its output in a file, and stopped at teardown.

local Partner = {}
Partner.__index = Partner

-- K.spawn(script, args): runs `verbsh script args...` with this very binary
-- (the shell's parent is this process: /proc/$PPID/exe).
function K.spawn(script, args)
  local log = os.tmpname()
  local words = {}
  for _, a in ipairs(args or {}) do words[#words + 1] = ("'%s'"):format(tostring(a):gsub("'", "'\\''")) end
  -- (readlink's stderr away: a partner stopped before its exec would have
  -- readlink write "Broken pipe" into the learner's terminal)
  local cmd = ([[exec "$(readlink /proc/$PPID/exe 2>/dev/null)" '%s' %s >'%s' 2>&1 </dev/null & echo $!]])
    :format(script, table.concat(words, " "), log)
  local p = assert(io.popen(cmd))
  local pid = math.tointeger(tonumber(p:read("l")))
  p:close()
  if not pid then error("could not start " .. script, 0) end
  local self = setmetatable({ pid = pid, log = log, script = script }, Partner)
  K.at_teardown(function() self:stop() end)
  return self
end

function Partner:output()
  local f = io.open(self.log)
  if not f then return "" end
  local s = f:read("a")
  f:close()
  return s
end

-- Alive: its process exists and has not ended. An ended partner is a
-- zombie until init reaps it (the shell that started it is gone), which on
-- a busy machine can take seconds, and kill -0 still finds a zombie.
function Partner:alive()
  local f = io.open(("/proc/%d/stat"):format(self.pid))
  if not f then return false end
  local stat = f:read("a")
  f:close()
  local state = stat and stat:match("^%d+ %b() (%a)")
  return state ~= nil and state ~= "Z" and state ~= "X"
end

-- Waits up to timeout_s for pattern in the partner's output; returns the
-- captures, or nil and the output so far (the partner may have failed).
function K.partner_wait(self, pattern, timeout_s)
  local socket = require "socket"
  local deadline = socket.gettime() + (timeout_s or 30)
  repeat
    local out = self:output()
    local caps = { out:match(pattern) }
    if caps[1] then return table.unpack(caps) end
    if not self:alive() then
      out = self:output()
      caps = { out:match(pattern) }
      if caps[1] then return table.unpack(caps) end
      return nil, out
    end
    socket.sleep(0.05)
  until socket.gettime() > deadline
  return nil, self:output()
end
Partner.wait_for = K.partner_wait

function Partner:stop()
  if self:alive() then os.execute(("kill %d 2>/dev/null"):format(self.pid)) end
  os.remove(self.log)
end

---------------------------------------------------------------------------
-- Checks.

-- The work completions of the current step: those in the global `wcs` since
-- the step began (the learner's own `wcs = cq:poll()` counts), plus what is
-- on cq now, waiting up to timeout_ms when fewer than `want` have arrived.
-- What the check polls is appended to `wcs`, printed, and handed back: the
-- learner's next cq:poll or cq:wait returns it first (src/cq.c), so a task's
-- `wcs = cq:wait(2)` never blocks on completions the check took.
-- Every WC the step met counts, held, handed back or in `wcs`. What a
-- failed check() judged, what an earlier step left held, and everything
-- before restart() is left out (S.stale), and find_wc takes the newest
-- match: after a failed try, the step judges the retry, never the old try.
local HELD = "verbsh.cq_held"
local function held_table()
  local reg = debug.getregistry()
  local t = reg[HELD]
  if not t then t = setmetatable({}, { __mode = "k" }); reg[HELD] = t end
  return t
end

-- Polls cq for the check itself, around what is held for the learner.
local function check_poll(cq, n, timeout_ms)
  local held = held_table()
  local mine = held[cq]
  held[cq] = nil
  local ok, got = pcall(function()
    if timeout_ms then return (cq:wait(n, timeout_ms)) end
    return cq:poll(n)
  end)
  local keep = mine or {}
  if ok then for _, wc in ipairs(got) do keep[#keep + 1] = wc end end
  if #keep > 0 then held[cq] = keep end
  if not ok then error(got, 0) end
  return got
end

-- The retry drill's failed try: each WC of list reads status from now on.
-- A WC is a read-only copy of struct ibv_wc, so it is replaced, in list and
-- wherever the learner or a check could meet it again (the global wcs, and
-- what a check polled and holds for the learner's own next poll), by a
-- table of its fields.
function K.fail_wcs(list, status, S)
  local failed = {}
  for i, wc in ipairs(list) do
    local f = {}
    for k, v in pairs(wc) do f[k] = v end
    f.status = status
    failed[wc] = setmetatable(f, require("verbs.explain").wc_meta)
    list[i] = failed[wc]
  end
  local function swap(l)
    if type(l) ~= "table" then return end
    for i, wc in ipairs(l) do l[i] = failed[wc] or wc end
  end
  swap(rawget(_G, "wcs"))
  for _, l in pairs(held_table()) do swap(l) end
  if S and S.all then
    swap(S.all)
    for old, new in pairs(failed) do if S.seen[old] then S.seen[new] = true end end
  end
end

-- A new step or a restart: what checks polled and still hold for the
-- learner is an earlier try's. restart() (drop = true) throws it away, so
-- the learner's next cq:wait returns the new try's completions; a new step
-- hands it back (the learner may still be typing the last step's
-- `wcs = cq:wait(n)`), but its check never judges it.
function K.scope_held(S, drop)
  S.stale = S.stale or setmetatable({}, { __mode = "k" })
  local held = held_table()
  for cq, l in pairs(held) do
    for _, wc in ipairs(l) do S.stale[wc] = true end
    if drop then held[cq] = nil end
  end
end

function K.step_wcs(S, cq, want, timeout_ms)
  local t = rawget(_G, "wcs")
  if type(t) ~= "table" or K.kind(t) then t = {}; rawset(_G, "wcs", t) end
  local base = (t == S.wcs_tbl) and S.wcs_base or 0
  S.stale = S.stale or setmetatable({}, { __mode = "k" })
  -- Every WC this step has met, in the order first met: the learner's `wcs`,
  -- and whatever a check polled, even when the learner's cq:wait took back
  -- only part of it (held) or a new `wcs` table dropped it.
  S.seen = S.seen or setmetatable({}, { __mode = "k" })
  S.all = S.all or {}
  local function meet(wc)
    if not S.seen[wc] then S.seen[wc] = true; S.all[#S.all + 1] = wc end
  end
  for i = base + 1, #t do
    if K.is_wc(t[i]) then meet(t[i]) end
  end
  local function live()
    local n = 0
    for _, wc in ipairs(S.all) do if not S.stale[wc] then n = n + 1 end end
    return n
  end
  if K.is(cq, "cq") then
    local function take(got)
      for _, wc in ipairs(got) do
        t[#t + 1] = wc
        meet(wc)
        out("  (the check polled cq) wcs[", #t, "] = ", tostring(wc))
      end
    end
    take(check_poll(cq, 64))   -- what is there now, without waiting
    local n = live()
    if n < want then take(check_poll(cq, want - n, timeout_ms or 300)) end
  end
  local list = {}
  for _, wc in ipairs(S.all) do if not S.stale[wc] then list[#list + 1] = wc end end
  S.judged, S.judged_want = list, want
  return list
end

-- After a failed check whose reason the learner was shown, the completions
-- it judged are an old try's: the next check judges only the redo's. When
-- fewer than it waited for were there (the learner may be early), only the
-- failed ones are. What a check holds is still handed back (the learner may
-- want to look at the failure); restart() drops it. Returns how many it set
-- aside.
function K.forget_judged(S)
  local list = S and S.judged
  if not list then return 0 end
  local all = #list >= (S.judged_want or 0)
  local n = 0
  for _, wc in ipairs(list) do
    if all or wc.status ~= "SUCCESS" then S.stale[wc] = true; n = n + 1 end
  end
  return n
end

-- The newest WC in list matching every field of pattern (a retry's
-- completion, not the try before it).
function K.find_wc(list, pattern)
  for i = #list, 1, -1 do
    local wc, match = list[i], true
    for k, v in pairs(pattern) do if wc[k] ~= v then match = false break end end
    if match then return wc end
  end
end

-- The pair labs' partners answer a SEND in capitals: checks that the answer
-- arrived in the MR named mr_name at offset off. Returns ok, message.
function K.check_answer(S, mr_name, off)
  local l = K.step_wcs(S, G"cq", 2)
  local r = K.find_wc(l, { opcode = "RECV" })
  if not r then return false, "no answer received yet (a RECV completion on cq)" end
  if r.status ~= "SUCCESS" then return false, "the receive completed with " .. r.status end
  local got = G(mr_name):read(off, r.byte_len)
  if got == "" or got ~= got:upper() then
    return false, ("%s holds %q at offset %d, not an answer in capitals"):format(mr_name, got, off)
  end
  return true, ("the partner answered %q"):format(got)
end

function K.has_flag(list, name)
  if type(list) ~= "table" then return false end
  for _, f in ipairs(list) do if f == name then return true end end
  return false
end

-- A compact description of what a WC showed, for the step's note.
function K.wc_note(wc)
  local s = wc.status
  if wc.status == "SUCCESS" then
    s = ("%s %s byte_len=%s"):format(wc.opcode, wc.status, tostring(wc.byte_len))
    if wc.imm_data then s = s .. (" imm_data=0x%x"):format(wc.imm_data) end
  end
  return s
end

-- An error object raised by a verb: e.verb == verb and e.errname == errname.
function K.is_verb_error(e, verb, errname)
  return type(e) == "table" and e.verb == verb and (errname == nil or e.errname == errname)
end

-- The value of a 64-bit word in an MR (host byte order, as atomics store it).
function K.u64(mr, off) return (string.unpack("=I8", mr:read(off, 8))) end

-- Pinned memory of this process, in kB (mm->pinned_vm, which reg_mr raises).
function K.vm_pin_kb()
  local f = io.open("/proc/self/status")
  if not f then return nil end
  local kb = f:read("a"):match("VmPin:%s*(%d+)")
  f:close()
  return tonumber(kb)
end

-- "Max locked memory" soft limit: a number of bytes or "unlimited".
function K.memlock()
  local f = io.open("/proc/self/limits")
  if not f then return nil end
  local soft = f:read("a"):match("Max locked memory%s+(%S+)")
  f:close()
  return tonumber(soft) or soft
end

-- A check's verdict: true, note when cond holds, else false, why. (The note
-- is an argument, not a second return value after the call: in
-- `return K.check(c, why), note` the call gives one value, so a refusal
-- showed the note where the reason belonged.)
function K.check(cond, why, note) if cond then return true, note end return false, why end

-- The partner of a lab across machines: VAR (PAIR_PEER, CM_PEER) as
-- HOST:PORT when set, else the seat's partner (RXE_PEER_ADDR, set by
-- rxe-vm --peer-seat) at the lab's PORT. Returns host, port, who that is
-- in words, and a short name for messages ("seat 2", or HOST:PORT); nil
-- when neither is set (the lesson starts a local partner).
function K.remote_partner(var, port)
  local peer = os.getenv(var)
  if peer and peer ~= "" then
    local host, p = peer:match("^(.+):(%d+)$")
    if not host then error(var .. " must be HOST:PORT, got " .. peer, 0) end
    return host, math.tointeger(tonumber(p)), ("%s (%s)"):format(peer, var), peer
  end
  local addr = os.getenv("RXE_PEER_ADDR")
  if addr and addr ~= "" then
    return addr, port, ("%s at %s:%d (RXE_PEER_ADDR)"):format(K.partner_name(), addr, port), K.partner_name()
  end
end

-- True when verbsh runs installed (no checkout with scripts/rxe-vm beside
-- its lessons): advice then names verbsh-vm, not make.
function K.installed()
  local ok, dir = pcall(function() return require("verbs.lesson").dir() end)
  local f = ok and dir and io.open(dir .. "/../scripts/rxe-vm")
  if f then f:close() return false end
  return true
end

-- "seat 2" for a seat's partner at 10.78.0.2, else "the partner at ADDR".
function K.partner_name()
  local addr = os.getenv("RXE_PEER_ADDR") or ""
  local n = addr:match("^10%.78%.0%.(%d+)$")
  return n and ("seat " .. n) or ("the partner at " .. addr)
end

return K
