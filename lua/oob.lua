-- verbs.oob: the out-of-band exchange that every RDMA connection needs
-- before its first packet. Two processes (or two hosts) swap QPN, PSN, GID,
-- LID -- and for one-sided labs addr and rkey -- over a TCP socket.
--
--   server:  local l = verbs.oob.listen(18515)        -- 127.0.0.1 unless an address is given
--            local c = l:accept()                     -- waits at most oob.timeout seconds
--   client:  local c = verbs.oob.connect("127.0.0.1", 18515)
--   both:    c:send{ qp_num = qp.qp_num, psn = 0, gid = gid }
--            local peer = c:recv()
--
-- A message is one line: "verbsh-oob/1" then key=value pairs. Values are
-- integers, numbers, booleans or strings; the parser is strict and never
-- evaluates what the peer sent. Every wait has a timeout, so a silent,
-- slow or garbage-sending peer gives a clear error, never a hang.
local socket = require "socket"

local M = { timeout = 10, max_line = 65536 }
local MAGIC = "verbsh-oob/1"

local function encode_value(v)
  local t = math.type(v) or type(v)
  if t == "integer" then return "i:" .. string.format("%d", v)
  elseif t == "float" then return "f:" .. string.format("%.17g", v)
  elseif t == "boolean" then return v and "b:1" or "b:0"
  elseif t == "string" then
    return "s:" .. v:gsub("[^%w%-%._~:/]", function(c) return ("%%%02X"):format(c:byte()) end)
  end
  error(("oob: cannot send a %s value"):format(t), 4)   -- (encode, then Conn:send, then their caller)
end

local function encode(msg)
  if type(msg) ~= "table" then error("oob: send wants a table", 3) end
  local keys = {}
  for k in pairs(msg) do
    if type(k) ~= "string" or not k:match("^[%a_][%w_]*$") then
      error(("oob: bad key %q (keys are identifiers)"):format(tostring(k)), 3)
    end
    keys[#keys + 1] = k
  end
  table.sort(keys)
  local parts = { MAGIC }
  for _, k in ipairs(keys) do parts[#parts + 1] = k .. "=" .. encode_value(msg[k]) end
  return table.concat(parts, " ") .. "\n"
end

local decoders = {
  i = function(s) return s:match("^%-?%d+$") and math.tointeger(tonumber(s)) end,
  f = function(s) return tonumber(s) end,
  b = function(s) if s == "1" then return true elseif s == "0" then return false end end,
  s = function(s)
    if s:find("%%%X") or s:find("%%.%X") or s:find("%%.?$") then return nil end
    return (s:gsub("%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end))
  end,
}

local function decode(line, peer)
  local function bad(why)
    error(("oob: bad message from %s: %s (got %q)"):format(peer, why, line:sub(1, 80)), 0)
  end
  local words = {}
  for w in line:gmatch("%S+") do words[#words + 1] = w end
  if words[1] ~= MAGIC then bad("not a verbsh-oob/1 message; is the peer another verbsh?") end
  local msg = {}
  for i = 2, #words do
    local k, tag, v = words[i]:match("^([%a_][%w_]*)=(%a):(.*)$")
    local value = k and decoders[tag] and decoders[tag](v)
    if value == nil then bad(("malformed field %q"):format(words[i])) end
    msg[k] = value
  end
  return msg
end

local Conn = {}
Conn.__index = Conn
Conn.__name = "verbs.oob.conn"

function Conn:send(msg)
  if not self.sock then error("oob: connection is closed", 2) end
  self.sock:settimeout(M.timeout, "t")
  local ok, err = self.sock:send(encode(msg))
  if not ok then error(("oob: send to %s failed: %s"):format(self.peer, err), 2) end
end

function Conn:recv(timeout)
  if not self.sock then error("oob: connection is closed", 2) end
  local limit = timeout or M.timeout
  local deadline = socket.gettime() + limit
  -- (what a timed-out recv had of a line is kept: the next recv goes on from it)
  local buf = self.partial or ""
  self.partial = nil
  while true do
    local left = deadline - socket.gettime()
    if left <= 0 then
      self.partial = buf ~= "" and buf or nil
      error(("oob: no message from %s within %gs%s"):format(self.peer, limit,
        #buf > 0 and (" (a partial line %q)"):format(buf:sub(1, 40)) or ""), 2)
    end
    -- Short slices, so that the size limit is checked while a line grows.
    self.sock:settimeout(math.min(left, 0.2))
    local line, err, partial = self.sock:receive("*l", buf)
    if line then return decode(line, self.peer) end
    buf = partial or buf
    if #buf > M.max_line then
      error(("oob: %s sent over %d bytes without a newline"):format(self.peer, M.max_line), 2)
    end
    if err == "closed" then
      self:close()
      error(("oob: %s closed the connection%s"):format(self.peer,
        #buf > 0 and " in the middle of a message" or " before sending anything"), 2)
    end
  end
end

-- The socket's descriptor, for verbs.wait_fds: ready when bytes arrive (a
-- message recv has already buffered is read at once, without waiting).
function Conn:getfd()
  if not self.sock then error("oob: connection is closed", 2) end
  return self.sock:getfd()
end

function Conn:close()
  if self.sock then self.sock:close(); self.sock = nil end
end
Conn.__close = Conn.close
Conn.__gc = Conn.close
function Conn:__tostring()
  return ("oob connection to %s%s"):format(self.peer, self.sock and "" or " (closed)")
end

local function wrap(sock)
  local host, port = sock:getpeername()
  return setmetatable({ sock = sock, peer = ("%s:%s"):format(host, port) }, Conn)
end

local Listener = {}
Listener.__index = Listener
Listener.__name = "verbs.oob.listener"

-- verbs.oob.listen(port [, addr]): addr defaults to 127.0.0.1, so nothing is
-- exposed unless asked for. Port 0 picks a free one: see l.port.
function M.listen(port, addr)
  addr = addr or "127.0.0.1"
  local s = assert(socket.tcp())
  s:setoption("reuseaddr", true)
  local ok, err = s:bind(addr, port)
  if not ok then s:close(); error(("oob: cannot listen on %s:%s: %s"):format(addr, port, err), 2) end
  assert(s:listen(1))
  local _, bound = s:getsockname()
  return setmetatable({ sock = s, addr = addr, port = tonumber(bound) }, Listener)
end

function Listener:accept(timeout)
  if not self.sock then error("oob: listener is closed", 2) end
  self.sock:settimeout(timeout or M.timeout)
  local c, err = self.sock:accept()
  if not c then
    error(("oob: no peer connected to %s:%d within %gs (%s)"):format(self.addr, self.port,
      timeout or M.timeout, err), 2)
  end
  return wrap(c)
end

-- For verbs.wait_fds: ready when a partner is waiting to be accepted.
function Listener:getfd()
  if not self.sock then error("oob: listener is closed", 2) end
  return self.sock:getfd()
end

function Listener:close()
  if self.sock then self.sock:close(); self.sock = nil end
end
Listener.__close = Listener.close
Listener.__gc = Listener.close
function Listener:__tostring() return ("oob listener on %s:%d"):format(self.addr, self.port) end

-- verbs.oob.connect(host, port [, timeout]): retries until the peer listens,
-- since in a lab the other side often starts a moment later.
function M.connect(host, port, timeout)
  local limit = timeout or M.timeout
  local deadline = socket.gettime() + limit
  local last
  repeat
    local s = assert(socket.tcp())
    s:settimeout(math.max(0.1, deadline - socket.gettime()))
    local ok, err = s:connect(host, port)
    if ok then return wrap(s) end
    s:close()
    last = err
    socket.sleep(0.1)
  until socket.gettime() >= deadline
  error(("oob: cannot connect to %s:%s within %gs: %s"):format(host, port, limit, last), 2)
end

M.encode, M.decode = encode, decode
return M
