-- verbs.progress: the lessons' progress log, per seat and per machine.
--
-- One line per event, appended to $XDG_STATE_HOME/verbsh/progress:
--   TIME  SEAT  LESSON  WHAT  TITLE  MACHINE  LOG:SEQ     (tab-separated)
-- WHAT is "step 2/6 passed", "step 2/6 skipped", "step 2/6 auto" (checked by
-- --auto), "finished", "finished auto", "at step 2/6" (the learner is on it)
-- or "error step 2/6" (TITLE is then the error). MACHINE is /etc/machine-id,
-- LOG a random id made with the log and SEQ counts the lines of one seat,
-- machine and log: the room (verbs.room) acknowledges them by number, so a
-- line is sent until received and counted once. Lines of an older verbsh
-- (five fields, "step 2/6" meaning passed) are still read.
local M = {}

local function read_line(path)
  local f = io.open(path)
  if not f then return nil end
  local l = f:read("l")
  f:close()
  return l
end

-- $XDG_STATE_HOME/verbsh (default ~/.local/state/verbsh), or nil.
function M.dir()
  local dir = os.getenv("XDG_STATE_HOME")
  if not dir or dir == "" then
    local home = os.getenv("HOME")
    if not home or home == "" then return nil end
    dir = home .. "/.local/state"
  end
  return dir .. "/verbsh"
end

function M.hostname() return read_line("/proc/sys/kernel/hostname") or "?" end

-- A stable id of the machine: systemd's (or D-Bus's) machine id. A seat's
-- guest sees its host's, so the seats of one PC share it.
function M.machine()
  for _, p in ipairs { "/etc/machine-id", "/var/lib/dbus/machine-id" } do
    local id = read_line(p)
    if id and id:match("^%x+$") then return id end
  end
  return "host-" .. M.hostname()
end

-- "seat 3" in a lab seat (RXE_SEAT), else "host NAME"; and the number.
function M.seat()
  local n = tonumber(os.getenv("RXE_SEAT") or "")
  if n then return "seat " .. math.tointeger(n), math.tointeger(n) end
  return "host " .. M.hostname(), nil
end

-- Progress is recorded by a learner at a terminal; a script, a test suite
-- or a guest run without --tty writes nothing unless VERBSH_PROGRESS=1.
local enabled
function M.enabled()
  if enabled == nil then
    local v = os.getenv("VERBSH_PROGRESS")
    if v == "1" then enabled = true
    elseif v == "0" then enabled = false
    else enabled = os.execute("[ -t 0 ]") == true end
  end
  return enabled
end

local function mkdir(dir)
  os.execute(("mkdir -p '%s' 2>/dev/null"):format(dir:gsub("'", "'\\''")))
end

-- The id of this log, made once with it.
function M.log_id(dir)
  local path = dir .. "/progress.id"
  local id = read_line(path)
  if id and id:match("^%x+$") then return id end
  local r = io.open("/dev/urandom", "rb")
  local bytes = r and r:read(4) or tostring(os.time())
  if r then r:close() end
  id = bytes:gsub(".", function(c) return ("%02x"):format(c:byte()) end):sub(1, 8)
  mkdir(dir)
  local f = io.open(path, "w")
  if f then f:write(id, "\n") f:close() end
  return id
end

-- One line of the log as a record, or nil.
function M.parse(line)
  local f = {}
  for field in (line .. "\t"):gmatch("([^\t]*)\t") do f[#f + 1] = field end
  if #f < 4 or not f[1]:match("^%d%d%d%d%-") then return nil end
  local r = { t = f[1], seat = f[2], lesson = f[3], what = f[4], title = f[5] or "",
              machine = f[6] or "", log = "", seq = nil }
  local log, seq = (f[7] or ""):match("^(%x+):(%d+)$")
  if log then r.log, r.seq = log, tonumber(seq) end
  return r
end

function M.read(path)
  local recs = {}
  local f = path and io.open(path)
  if not f then return recs end
  for line in f:lines() do
    local r = M.parse(line)
    if r then recs[#recs + 1] = r end
  end
  f:close()
  return recs
end

local function clean(s)
  return (tostring(s or ""):gsub("[%c]+", " "):sub(1, 300))
end

-- Appends one record (nothing when progress is not recorded here) and hands
-- the news to the room. Returns the record.
function M.write(lesson, what, title)
  if not M.enabled() then return nil end
  local dir = M.dir()
  if not dir then return nil end
  mkdir(dir)
  local seat = M.seat()
  local machine, log = M.machine(), M.log_id(dir)
  local path = dir .. "/progress"
  local seq = 0
  for _, r in ipairs(M.read(path)) do
    if r.seat == seat and r.machine == machine and r.log == log and r.seq > seq then seq = r.seq end
  end
  local rec = { t = os.date("!%Y-%m-%dT%H:%M:%SZ"), seat = seat, lesson = lesson, what = what,
                title = clean(title), machine = machine, log = log, seq = seq + 1 }
  local f = io.open(path, "a")
  if not f then return nil end
  f:write(table.concat({ rec.t, rec.seat, rec.lesson, rec.what, rec.title, rec.machine,
                         rec.log .. ":" .. rec.seq }, "\t"), "\n")
  f:close()
  local ok, room = pcall(require, "verbs.room")
  if ok then pcall(room.flush) end
  return rec
end

---------------------------------------------------------------------------
-- Summing up: the same for `verbsh --progress` and for the room.

-- WHAT -> kind, step, of ("passed", 2, 6), ("finished"), ("at", 2, 6) ...
function M.what(what)
  local i, n, how = what:match("^step (%d+)/(%d+) ?(%a*)$")
  if i then return how == "" and "passed" or how, tonumber(i), tonumber(n) end
  if what == "finished" then return "finished" end
  if what == "finished auto" then return "finished auto" end
  local at, i2, n2 = what:match("^(%a+) step (%d+)/(%d+)$")
  if at == "at" or at == "error" then return at, tonumber(i2), tonumber(n2) end
end

-- Adds a record to a lesson table of `acc` (acc.lessons[name], acc.order).
function M.add(acc, r)
  acc.lessons = acc.lessons or {}
  acc.order = acc.order or {}
  local e = acc.lessons[r.lesson]
  if not e then
    e = { lesson = r.lesson, passed = {}, skipped = {}, auto = {}, finished = false, auto_finished = false }
    acc.lessons[r.lesson] = e
    acc.order[#acc.order + 1] = e
  end
  local kind, i, n = M.what(r.what)
  if not kind then return e end
  if n then e.of = n end
  if kind == "passed" or kind == "skipped" or kind == "auto" then
    e[kind][i] = true
    if kind ~= "auto" and e.at == i then e.at, e.err = nil, nil end
  elseif kind == "finished" then e.finished = true e.at, e.err = nil, nil
  elseif kind == "finished auto" then e.auto_finished = true
  elseif kind == "at" then
    if e.at ~= i then e.at, e.at_t, e.err, e.err_t = i, r.t, nil, nil end
    e.at_title = r.title
  elseif kind == "error" then
    if e.at ~= i then e.at, e.at_t, e.at_title = i, r.t, nil end
    e.err, e.err_t = r.title, r.t
  end
  if kind ~= "auto" and kind ~= "finished auto" then acc.current = e end
  e.first = (e.first and e.first < r.t) and e.first or r.t
  e.last = (e.last and e.last > r.t) and e.last or r.t
  return e
end

local function count(set) local n = 0 for _ in pairs(set) do n = n + 1 end return n end

-- The three counts of a lesson: steps passed by hand, skipped (and not
-- passed by hand since), checked by --auto. Each step counts once.
function M.counts(e)
  local skipped = 0
  for i in pairs(e.skipped) do if not e.passed[i] then skipped = skipped + 1 end end
  return count(e.passed), skipped, count(e.auto)
end

function M.json_string(s)
  return '"' .. tostring(s):gsub('[%c"\\]', function(c) return ("\\u%04x"):format(c:byte()) end) .. '"'
end

-- verbsh --progress [--json]: the log, summed up per seat and per lesson.
function M.main(args)
  local out = function(...) io.write(...) io.write("\n") end
  local json = args[1] == "--json"
  if (args[1] and not json) or args[2] then out("usage: verbsh --progress [--json]") return 2 end
  local dir = M.dir()
  local path = dir and dir .. "/progress"
  local seats, order = {}, {}
  for _, r in ipairs(M.read(path)) do
    local key = r.seat .. "\0" .. r.machine
    local s = seats[key]
    if not s then s = { seat = r.seat, machine = r.machine } seats[key] = s order[#order + 1] = s end
    M.add(s, r)
  end
  local q = M.json_string
  if json then
    local ss = {}
    for _, s in ipairs(order) do
      local items = {}
      for _, e in ipairs(s.order) do
        local p, k, a = M.counts(e)
        items[#items + 1] = ('{"lesson":%s,"passed":%d,"skipped":%d,"auto":%d,"steps":%s,"finished":%s,"first":%s,"last":%s}')
          :format(q(e.lesson), p, k, a, e.of and tostring(e.of) or "null", tostring(e.finished), q(e.first), q(e.last))
      end
      ss[#ss + 1] = ('{"seat":%s,"machine":%s,"lessons":[%s]}'):format(q(s.seat), q(s.machine), table.concat(items, ","))
    end
    out(('{"log":%s,"seats":[%s]}'):format(path and q(path) or "null", table.concat(ss, ",")))
    return 0
  end
  if #order == 0 then out("No lesson steps passed here yet (the log: " .. (path or "none") .. ").") return 0 end
  out(("Progress per seat (the log: %s):"):format(path))
  for _, s in ipairs(order) do
    out(("%s, machine %s:"):format(s.seat, s.machine ~= "" and s.machine:sub(1, 8) or "unknown (an older log)"))
    for _, e in ipairs(s.order) do
      local p, k, a = M.counts(e)
      out(("  %-22s %s%d passed, %d skipped, %d checked by --auto, of %s steps  (%s .. %s)"):format(e.lesson,
        e.finished and "finished: " or "", p, k, a, e.of or "?", e.first, e.last))
    end
  end
  return 0
end

return M
