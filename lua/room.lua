-- verbs.room: a class's progress, seen live by the teacher.
--
-- Seat side: each record verbs.progress writes is sent to the room as one
-- UDP datagram, with the seat's health (device state, MTU, partner heard),
-- until the room acknowledges its number; a seat that cannot reach the room
-- keeps its log and sends the rest with its next record.
--   where to: VERBSH_ROOM=HOST:PORT, else RXE_CLASS (a --class seat's
--   segment: GROUP:PORT, the room joins that group); VERBSH_ROOM=off: never
-- Room side: `verbsh --room` collects them, draws a table on its terminal
-- and writes room.json and room.html every few seconds.
--
-- A datagram is one line: "verbsh-room/1" then key=value words, the values
-- percent-encoded. It carries progress only (lesson names, step titles, the
-- learner's last error), nothing is evaluated, and nothing authenticates it:
-- the room checks that a seat reports from its own address, which catches
-- mistakes, not someone who forges the source address.
local socket = require "socket"
local P = require "verbs.progress"
local V = require "verbs.room_view"

local M = { MAGIC = "verbsh-room/1", max_datagram = 1400, burst = 64 }
local OBJECT = {}   -- the metatable of a table room.json writes as an object

---------------------------------------------------------------------------
-- The datagram.

function M.encode(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  local parts = { M.MAGIC }
  for _, k in ipairs(keys) do
    local v = tostring(t[k]):gsub("[^%w%-%._~:/]", function(c) return ("%%%02X"):format(c:byte()) end)
    parts[#parts + 1] = k .. "=" .. v
  end
  return table.concat(parts, " ")
end

-- Returns the table, or nil and why.
function M.decode(line)
  if #line > M.max_datagram then return nil, "longer than " .. M.max_datagram .. " bytes" end
  local words = {}
  for w in line:gmatch("%S+") do words[#words + 1] = w end
  if words[1] ~= M.MAGIC then return nil, "not a " .. M.MAGIC .. " datagram" end
  local t = {}
  for i = 2, #words do
    local k, v = words[i]:match("^([%a_][%w_]*)=(.*)$")
    if not k or v:find("%%%X") or v:find("%%.%X") or v:find("%%.?$") then
      return nil, ("malformed field %q"):format(words[i]:sub(1, 40))
    end
    t[k] = v:gsub("%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end)
  end
  return t
end

local function host_port(s, any_port)
  local h, p = tostring(s or ""):match("^(.+):(%d+)$")
  p = tonumber(p)
  if h and p and p >= (any_port and 0 or 1) and p <= 65535 then return h, p end
end
M.host_port = host_port

local function multicast(ip)
  local a = tonumber(tostring(ip):match("^(%d+)%.%d+%.%d+%.%d+$") or "")
  return a and a >= 224 and a <= 239
end

---------------------------------------------------------------------------
-- Seat side.

-- The room's HOST, PORT (nil when this seat reports to no room).
function M.target()
  local r = os.getenv("VERBSH_ROOM")
  if r == "off" then return nil end
  if r and r ~= "" then return host_port(r) end
  return host_port(os.getenv("RXE_CLASS"))
end

local function read_line(path)
  local f = io.open(path)
  if not f then return nil end
  local l = f:read("l")
  f:close()
  return l
end

-- This seat's health: its device's port state, its netdev's MTU, and
-- whether its partner (RXE_PEER_ADDR) answered ARP.
function M.health()
  local h = {}
  local dev = os.getenv("RXE_DEV")
  if dev and dev ~= "" then
    h.dev = dev
    local st = read_line("/sys/class/infiniband/" .. dev .. "/ports/1/state")
    h.state = st and st:match("(%u[%u_]*)") or "missing"
  end
  local nd = os.getenv("RXE_NETDEV")
  if nd and nd ~= "" then h.mtu = read_line("/sys/class/net/" .. nd .. "/mtu") end
  local peer = os.getenv("RXE_PEER_ADDR")
  if peer and peer ~= "" then
    h.peer, h.heard = peer, 0
    local f = io.open("/proc/net/arp")
    if f then
      for line in f:lines() do
        local ip, flags = line:match("^(%S+)%s+%S+%s+(%S+)")
        if ip == peer and flags ~= "0x0" then h.heard = 1 end
      end
      f:close()
    end
  end
  return h
end

local warned
-- Flushes in a row that heard nothing back: a room that is not there (the
-- teacher has not started it) then costs the learner no wait, but for
-- every tenth record, which probes whether it came.
local unheard = 0

local function open_socket(host)
  local s = assert(socket.udp4())
  local addr = os.getenv("RXE_ADDR")
  -- From the seat's own address: the room checks it.
  if not (addr and addr ~= "" and s:setsockname(addr, 0)) then s:setsockname("0.0.0.0", 0) end
  if multicast(host) and addr and addr ~= "" then s:setoption("ip-multicast-if", addr) end
  return s
end

local function read_acked(path)
  local t = {}
  local f = io.open(path)
  if f then
    for line in f:lines() do
      local key, upto = line:match("^(.*)\t(%d+)$")
      if key then t[key] = tonumber(upto) end
    end
    f:close()
  end
  return t
end

-- Sends this seat's health and every record of its log that the room has
-- not acknowledged yet (at most M.burst), then waits a moment for the
-- acknowledgements. Returns the number acknowledged so far, or nil, why.
function M.flush(wait)
  local host, port = M.target()
  if not host then return nil, "no room (VERBSH_ROOM or RXE_CLASS)" end
  local dir = P.dir()
  if not dir or not P.enabled() then return nil, "progress is not recorded here" end
  local seat, n = P.seat()
  local machine, log = P.machine(), P.log_id(dir)
  local acked_path = dir .. "/room-acked"
  local acked = read_acked(acked_path)
  local key = seat .. "\t" .. machine .. "\t" .. log
  local upto = acked[key] or 0
  local pending, last = {}, upto
  for _, r in ipairs(P.read(dir .. "/progress")) do
    if r.seat == seat and r.machine == machine and r.log == log and r.seq > upto then
      if #pending < M.burst then pending[#pending + 1] = r end
      if r.seq > last then last = r.seq end
    end
  end
  local s = open_socket(host)
  local addr = os.getenv("RXE_ADDR")
  local base = { seat = seat, n = n, machine = machine, log = log, addr = addr ~= "" and addr or nil }
  local function send(extra)
    local m = {}
    for k, v in pairs(base) do m[k] = v end
    for k, v in pairs(extra) do m[k] = v end
    s:sendto(M.encode(m), host, port)
  end
  local hl = M.health()
  hl.kind = "health"
  send(hl)
  for _, r in ipairs(pending) do
    send { kind = "rec", seq = r.seq, t = r.t, lesson = r.lesson, what = r.what, title = r.title }
  end
  local want = pending[#pending] and pending[#pending].seq or upto
  wait = wait or (#pending > 0 and (unheard < 3 or unheard % 10 == 0) and 0.3 or 0)
  local deadline = socket.gettime() + wait
  local heard = false
  local got = upto
  while got < want do
    local left = deadline - socket.gettime()
    if left <= 0 then break end
    s:settimeout(left)
    local data = s:receivefrom()
    if not data then break end
    local m = M.decode(data)
    if m and m.machine == machine and m.log == log and m.seat == seat then
      heard = true
      if m.kind == "ack" and tonumber(m.upto) then
        got = math.max(got, tonumber(m.upto))
      elseif m.kind == "refused" then
        if not warned then
          io.stderr:write("verbsh: the room refused this seat's report: ", tostring(m.why), "\n")
          warned = true
        end
        break
      end
    end
  end
  s:close()
  unheard = heard and 0 or unheard + 1
  if got > upto then
    acked[key] = got
    local f = io.open(acked_path .. ".new", "w")
    if f then
      for k, v in pairs(acked) do f:write(k, "\t", v, "\n") end
      f:close()
      os.rename(acked_path .. ".new", acked_path)
    end
  end
  return got, last
end

---------------------------------------------------------------------------
-- Room side.

local function now() return os.time() end

-- "2026-11-24T05:50:01Z" -> seconds since the epoch.
local tz
local function epoch(iso)
  local y, mo, d, h, mi, s = tostring(iso):match("^(%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)Z$")
  if not y then return nil end
  if not tz then
    local t = os.time()
    tz = os.difftime(t, os.time(os.date("!*t", t)))
  end
  return os.time { year = y, month = mo, day = d, hour = h, min = mi, sec = s, isdst = false } + tz
end
M.epoch = epoch

local Room = {}
Room.__index = Room

function M.new(opts)
  local r = setmetatable({ opts = opts, rows = {}, order = {}, refused = {}, refused_order = {},
                           events = 0, duplicates_dropped = 0, malformed = 0 }, Room)
  return r
end

function Room:row(label)
  local row = self.rows[label]
  if not row then
    row = { seat = label, number = tonumber(label:match("^seat (%d+)$")), machines = {}, ips = {},
            streams = {}, events = 0 }
    self.rows[label] = row
    self.order[#self.order + 1] = row
  end
  return row
end

function Room:refuse(label, ip, why)
  local k = label .. "\0" .. ip
  local e = self.refused[k]
  if not e then
    e = { seat = label, ip = ip, why = why, count = 0 }
    self.refused[k] = e
    self.refused_order[#self.refused_order + 1] = e
  end
  e.count = e.count + 1
  return why
end

-- Checks a datagram's seat against where it came from. Returns the row,
-- or nil and why it is refused.
function Room:admit(m, ip)
  local label = m.seat
  if type(label) ~= "string" or not (label:match("^seat %d+$") or label:match("^host [%w%.%-_]+$")) or #label > 64 then
    self.malformed = self.malformed + 1
    return nil, "no seat"
  end
  if type(m.machine) ~= "string" or not m.machine:match("^[%w%-_%.]+$") or
     type(m.log) ~= "string" or not m.log:match("^%x+$") then
    self.malformed = self.malformed + 1
    return nil, "no machine or log id"
  end
  if m.addr and m.addr ~= ip then
    return nil, self:refuse(label, ip, ("%s says it is %s but reports from %s"):format(label, m.addr, ip))
  end
  local n = tonumber(label:match("^seat (%d+)$"))
  if n and ip:match("^10%.78%.0%.%d+$") and ip ~= "10.78.0." .. n then
    return nil, self:refuse(label, ip, ("%s must report from 10.78.0.%d, not %s"):format(label, n, ip))
  end
  local row = self:row(label)
  if row.ip and row.ip ~= ip then
    row.ips[ip] = true
    return nil, self:refuse(label, ip, ("%s already reports from %s; this report came from %s (two seats with one number?)")
      :format(label, row.ip, ip))
  end
  row.ip = ip
  row.machines[m.machine] = true
  row.heard = now()
  return row
end

-- Applies one accepted record; returns the stream's acknowledged number.
function Room:record(row, m, ip, replaying)
  local seq = math.tointeger(tonumber(m.seq))
  if not seq or seq < 1 or type(m.lesson) ~= "string" or type(m.what) ~= "string" or not P.what(m.what)
     or not epoch(m.t) then
    self.malformed = self.malformed + 1
    return nil
  end
  local sk = m.machine .. "/" .. m.log
  local st = row.streams[sk]
  if not st then st = { seen = {}, lo = seq, upto = seq - 1 } row.streams[sk] = st end
  if st.seen[seq] then
    self.duplicates_dropped = self.duplicates_dropped + 1
  else
    st.seen[seq] = true
    P.add(row, { t = m.t, lesson = m.lesson, what = m.what, title = m.title or "" })
    row.events = row.events + 1
    self.events = self.events + 1
    if not replaying and self.logf then
      self.logf:write(ip, "\t", M.encode(m), "\n")
      self.logf:flush()
    end
    if seq < st.lo then st.lo, st.upto = seq, seq - 1 end
    while st.seen[st.upto + 1] do st.upto = st.upto + 1 end
  end
  return st.upto
end

-- One datagram from ip:port; returns the reply to send, or nil.
function Room:handle(data, ip, replaying)
  local m = M.decode(data)
  if not m then self.malformed = self.malformed + 1 return nil end
  local row, why = self:admit(m, ip)
  local reply = { seat = m.seat, machine = m.machine, log = m.log }
  if not row then
    if why and m.seat then reply.kind, reply.why = "refused", why return reply end
    return nil
  end
  if m.kind == "health" then
    local heard
    if m.heard then heard = m.heard == "1" end
    row.health = setmetatable({ dev = m.dev, state = m.state, mtu = tonumber(m.mtu), peer = m.peer,
                   heard = heard }, OBJECT)
    return nil
  elseif m.kind == "rec" then
    local upto = self:record(row, m, ip, replaying)
    if not upto then return nil end
    if replaying then row.heard = epoch(m.t) end
    reply.kind, reply.upto = "ack", upto
    return reply
  end
  self.malformed = self.malformed + 1
end

-- The room's own log (every record accepted, with its source): a room that
-- restarts reads it back, so that nothing is counted twice.
function Room:replay(path)
  local f = io.open(path)
  if f then
    for line in f:lines() do
      local ip, data = line:match("^([^\t]+)\t(.*)$")
      if ip then self:handle(data, ip, true) end
    end
    f:close()
  end
  self.logf = io.open(path, "a")
end

---------------------------------------------------------------------------
-- What the room shows.

-- The lessons as columns: those this verbsh has, then any other reported.
function Room:lessons()
  local cols, seen = {}, {}
  local ok, list = pcall(function() return require("verbs.lesson").list() end)
  if ok then
    for _, e in ipairs(list) do cols[#cols + 1] = e.name seen[e.name] = true end
  end
  local extra = {}
  for _, row in ipairs(self.order) do
    for name in pairs(row.lessons or {}) do
      if not seen[name] then seen[name] = true extra[#extra + 1] = name end
    end
  end
  table.sort(extra)
  for _, n in ipairs(extra) do cols[#cols + 1] = n end
  return cols
end

local function sorted_rows(self)
  local rows = {}
  for _, r in ipairs(self.order) do rows[#rows + 1] = r end
  table.sort(rows, function(a, b)
    if (a.number ~= nil) ~= (b.number ~= nil) then return a.number ~= nil end
    if a.number and b.number then return a.number < b.number end
    return a.seat < b.seat
  end)
  return rows
end

-- Everything the page and the table show, as plain tables (room.json).
function Room:snapshot()
  local t = now()
  local o = self.opts
  local snap = { generated = os.date("!%Y-%m-%dT%H:%M:%SZ", t), listen = o.where, lessons = self:lessons(),
                 seats = {}, duplicates = {}, mtu_mismatch = {}, refused = {}, silent = {}, stuck = {},
                 events = self.events, duplicates_dropped = self.duplicates_dropped, malformed = self.malformed }
  local mtus = {}
  for _, row in ipairs(sorted_rows(self)) do
    local machines = {}
    for mid in pairs(row.machines) do machines[#machines + 1] = mid end
    table.sort(machines)
    local s = { seat = row.seat, number = row.number, ip = row.ip, machines = machines, events = row.events,
                health = row.health, lessons = setmetatable({}, OBJECT), last_heard = row.heard and os.date("!%Y-%m-%dT%H:%M:%SZ", row.heard) }
    for name, e in pairs(row.lessons or {}) do
      local p, k, a = P.counts(e)
      s.lessons[name] = { passed = p, skipped = k, auto = a, steps = e.of, finished = e.finished,
                          auto_finished = e.auto_finished }
    end
    local cur = row.current
    if cur and cur.at and not cur.finished then
      local on = epoch(cur.at_t) or t     -- on this step since then
      s.current = { lesson = cur.lesson, step = cur.at, steps = cur.of, title = cur.at_title, since = cur.at_t,
                    seconds = math.max(0, t - on), error = cur.err }
      if t - on >= o.stuck then
        s.current.stuck = true
        snap.stuck[#snap.stuck + 1] = row.seat
      end
    end
    s.silent = row.heard and (t - row.heard >= o.silent) or false
    if s.silent then snap.silent[#snap.silent + 1] = row.seat end
    local ips = {}
    for ip in pairs(row.ips) do ips[#ips + 1] = ip end
    if #machines > 1 or #ips > 0 then
      table.sort(ips)
      snap.duplicates[#snap.duplicates + 1] = { seat = row.seat, machines = machines, ip = row.ip, other_ips = ips }
      s.duplicate = true
    end
    if row.health and row.health.mtu then
      mtus[row.health.mtu] = (mtus[row.health.mtu] or 0) + 1
    end
    snap.seats[#snap.seats + 1] = s
  end
  -- An MTU mismatch: seats whose MTU differs from the room's most common one.
  local common, most = nil, 0
  for mtu, c in pairs(mtus) do if c > most or (c == most and mtu < common) then common, most = mtu, c end end
  for _, s in ipairs(snap.seats) do
    if s.health and s.health.mtu and s.health.mtu ~= common then
      snap.mtu_mismatch[#snap.mtu_mismatch + 1] = { seat = s.seat, mtu = s.health.mtu, room_mtu = common }
      s.mtu_mismatch = true
    end
  end
  for _, e in ipairs(self.refused_order) do snap.refused[#snap.refused + 1] = e end
  return snap
end

-- JSON, keys sorted so that the file is stable; empty tables are arrays
-- unless marked as objects.
local function json(v, out)
  local tv = type(v)
  if tv == "table" then
    if getmetatable(v) ~= OBJECT and (next(v) == nil or #v > 0) then
      out[#out + 1] = "["
      for i, x in ipairs(v) do
        if i > 1 then out[#out + 1] = "," end
        json(x, out)
      end
      out[#out + 1] = "]"
    else
      local keys = {}
      for k in pairs(v) do keys[#keys + 1] = tostring(k) end
      table.sort(keys)
      out[#out + 1] = "{"
      for i, k in ipairs(keys) do
        if i > 1 then out[#out + 1] = "," end
        out[#out + 1] = P.json_string(k) .. ":"
        json(v[k], out)
      end
      out[#out + 1] = "}"
    end
  elseif tv == "string" then out[#out + 1] = P.json_string(v)
  elseif tv == "number" then out[#out + 1] = math.type(v) == "integer" and tostring(v) or ("%.17g"):format(v)
  elseif tv == "boolean" then out[#out + 1] = tostring(v)
  else out[#out + 1] = "null" end
  return out
end
function M.json(v) return table.concat(json(v, {})) end

local function write_file(path, text)
  local f = assert(io.open(path .. ".new", "w"))
  f:write(text)
  f:close()
  assert(os.rename(path .. ".new", path))
end

function Room:write(tty)
  local snap = self:snapshot()
  write_file(self.opts.dir .. "/room.json", M.json(snap) .. "\n")
  write_file(self.opts.dir .. "/room.html", V.html(snap, self.opts.every))
  if tty then io.write("\27[H\27[2J", V.table_text(snap), "\n") io.flush() end
  return snap
end

local usage = [[
usage: verbsh --room [--class GROUP:PORT | --listen ADDR:PORT] [--dir DIR]
                     [--every SEC] [--stuck SEC] [--silent SEC] [--for SEC]
Collects the seats' progress reports; writes DIR/room.json and room.html
(DIR: $XDG_STATE_HOME/verbsh/room) every SEC seconds (default 3).
  --class GROUP:PORT  the room's segment (default $RXE_CLASS in a seat)
  --listen ADDR:PORT  receive unicast reports there instead (VERBSH_ROOM on seats)
  --stuck SEC         a seat on one step that long is stuck (default 300)
  --silent SEC        a seat not heard that long is silent (default 120)
  --for SEC           stop after SEC seconds (default: until Ctrl-C)]]

function M.main(args)
  local o = { every = 3, stuck = 300, silent = 120 }
  local i = 1
  while args[i] do
    local a, v = args[i], args[i + 1]
    local num = tonumber(v or "")
    local valued = a == "--class" or a == "--listen" or a == "--dir"
    local timed = a == "--every" or a == "--stuck" or a == "--silent" or a == "--for"
    if (valued or timed) and not v then io.stderr:write("verbsh --room: ", a, " needs a value\n", usage, "\n") return 2 end
    if valued then
      o[a:sub(3)] = v
    elseif timed then
      -- (--every 0 would rewrite room.json and room.html a hundred times a second)
      if not num or num < 0 or (a == "--every" and num == 0) then
        io.stderr:write("verbsh --room: ", a, " wants seconds", a == "--every" and " above 0" or "", ", got ", v, "\n", usage, "\n")
        return 2
      end
      o[a:sub(3)] = num
    elseif a == "-h" or a == "--help" then print(usage) return 0
    else io.stderr:write("verbsh --room: unknown option ", a, "\n", usage, "\n") return 2 end
    i = i + 2
  end
  if not o.class and not o.listen then o.class = os.getenv("RXE_CLASS") ~= "" and os.getenv("RXE_CLASS") or nil end
  local s = assert(socket.udp4())
  s:setoption("reuseaddr", true)
  if o.listen then
    local host, port = host_port(o.listen, true)
    local ok, err = host and s:setsockname(host, port)
    if not ok then io.stderr:write("verbsh --room: cannot listen on ", o.listen, ": ", tostring(err or "want ADDR:PORT"), "\n") return 1 end
    local a, p = s:getsockname()
    o.where = a .. ":" .. p
  elseif o.class then
    local group, port = host_port(o.class)
    if not group or not multicast(group) then
      io.stderr:write("verbsh --room: --class wants a multicast GROUP:PORT, got ", o.class, "\n") return 2
    end
    local ok, err = s:setsockname("0.0.0.0", port)
    if ok then
      local ifaddr = os.getenv("RXE_ADDR")
      ok, err = s:setoption("ip-add-membership", { multiaddr = group, interface = (ifaddr and ifaddr ~= "") and ifaddr or "0.0.0.0" })
    end
    if not ok then io.stderr:write("verbsh --room: cannot join ", o.class, ": ", tostring(err), "\n") return 1 end
    o.where = o.class
  else
    io.stderr:write("verbsh --room: where do the seats report? give --class GROUP:PORT (the seats' --class) or --listen ADDR:PORT\n")
    return 2
  end
  o.dir = o.dir or ((P.dir() or ".") .. "/room")
  os.execute(("mkdir -p '%s'"):format(o.dir:gsub("'", "'\\''")))
  local room = M.new(o)
  room:replay(o.dir .. "/room.log")
  local tty = os.execute("[ -t 1 ]") == true
  -- A room run in a seat (RXE_SEAT and RXE_ADDR: a class guest) takes that
  -- seat's health itself at every write: the guest's heartbeat went to the
  -- group before the room listened, and the next one is 15 s away.
  local own = tonumber(os.getenv("RXE_SEAT") or "") and os.getenv("RXE_ADDR")
  local function own_health()
    if not own or own == "" then return end
    local m = M.health()
    m.kind, m.seat, m.machine, m.log, m.addr = "health", P.seat(), P.machine(), "0", own
    room:handle(M.encode(m), own)
  end
  io.stderr:write(("verbsh --room: listening on %s; %s/room.json and room.html every %s s\n"):format(o.where, o.dir, o.every))
  local stop = o["for"] and socket.gettime() + o["for"]
  local next_write = 0
  while true do
    local t = socket.gettime()
    if stop and t >= stop then break end
    -- The next write is `every` seconds after this one ends: on a slow
    -- host (a loaded seat's guest) a write may take longer than `every`,
    -- and the room must still spend time receiving between writes.
    if t >= next_write then own_health() room:write(tty) t = socket.gettime() next_write = t + o.every end
    s:settimeout(math.max(0.01, math.min(next_write, stop or next_write) - t))
    local data, ip, port = s:receivefrom()
    if data then
      local reply = room:handle(data, ip)
      if reply then s:sendto(M.encode(reply), ip, port) end
    end
  end
  own_health()
  local snap = room:write(false)
  print(V.table_text(snap))
  s:close()
  return 0
end

return M
