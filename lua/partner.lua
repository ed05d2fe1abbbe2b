-- partner(): the partner's side of the pair lessons, started from a seat's
-- prompt -- what `make run ... ROLE=partner` runs, in the background of
-- this verbsh, so that the student who plays the partner keeps a prompt.
--   partner()            lesson 13's partner, then lesson 14's
--   partner "pair-lab"   lesson 13's only (examples/pair_partner.lua)
--   partner "rdma-cm"    lesson 14's only (examples/cm_partner.lua)
--   partner(false)       stops the one this verbsh started
-- It serves the seat's partner (RXE_PEER_ADDR): it listens on this seat's
-- address (RXE_ADDR) at the ports the lessons use by default there.
local K = require "verbs.lesson_kit"

local M = { pair_port = 18600, cm_port = 7471 }

-- The roles, in the order partner() runs them.
local roles = {
  { lesson = "pair-lab", number = 13, script = "pair_partner.lua",
    args = function(addr) return { "--listen", addr, "--port", M.pair_port } end,
    where = function(addr) return ("listens on %s:%d (verbs.oob)"):format(addr, M.pair_port) end },
  { lesson = "rdma-cm", number = 14, script = "cm_partner.lua",
    args = function() return { "--port", M.cm_port } end,
    where = function(addr) return ("listens on rdma_cm port %d (your partner connects to %s:%d)")
      :format(M.cm_port, addr, M.cm_port) end },
}

local running

local function quote(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

local function stop()
  if not running then print("partner: none running (partner() starts one)") return false end
  -- its own process group (setsid): the shell and the verbsh it runs
  os.execute(("kill -TERM -- -%d 2>/dev/null"):format(running.pid))
  -- gone before this returns (p:alive() false), within a second
  for _ = 1, 20 do
    if not running:alive() then break end
    require("socket").sleep(0.05)
  end
  print(("partner: stopped (pid %d); its output is in %s"):format(running.pid, running.log))
  running = nil
  return true
end

function M.partner(which)
  if which == false or which == "stop" then return stop() end
  -- the argument first: a wrong one is named wherever it is typed
  local chosen = {}
  for _, r in ipairs(roles) do
    if which == nil or which == r.lesson or which == r.number then chosen[#chosen + 1] = r end
  end
  if #chosen == 0 then
    error(("partner(): which lesson's partner? \"pair-lab\" (13), \"rdma-cm\" (14), or nothing for both, got %s")
      :format(type(which) == "string" and which or math.type(which) and tostring(which) or "a " .. type(which)), 2)
  end
  local peer, addr = os.getenv("RXE_PEER_ADDR") or "", os.getenv("RXE_ADDR") or ""
  if peer == "" or addr == "" then
    error("partner(): this is not a lab seat with a partner (RXE_PEER_ADDR is not set), so there is no one to"
      .. " serve. Start a seat with its partner's number (make run LINK=HOST:PORT LISTEN=PORT SEAT=N PEER_SEAT=M,"
      .. " or CLASS=GROUP:PORT SEAT=N PEER_SEAT=M); on one machine lessons 13 and 14 start their partner"
      .. " themselves", 2)
  end
  if running and running:alive() then
    error(("partner(): one is running already (pid %d, output in %s): partner(false) stops it")
      :format(running.pid, running.log), 2)
  end
  local dir = require("verbs.lesson").dir() .. "/../examples/"
  local cmds = {}
  for i, r in ipairs(chosen) do
    local words = { '"$0"', quote(dir .. r.script) }
    for _, a in ipairs(r.args(addr)) do words[#words + 1] = quote(a) end
    cmds[#cmds + 1] = (i == #chosen and "exec " or "") .. table.concat(words, " ")
  end
  local log = os.tmpname()
  -- This very binary runs the scripts (the shell's parent is this process).
  local cmd = ([[exec setsid sh -c %s "$(readlink /proc/$PPID/exe)" >%s 2>&1 </dev/null & echo $!]])
    :format(quote(table.concat(cmds, " && ")), quote(log))
  local p = assert(io.popen(cmd))
  local pid = math.tointeger(tonumber(p:read("l")))
  p:close()
  if not pid then error("partner(): could not start the partner", 2) end
  running = setmetatable({ pid = pid, log = log }, { __index = {
    -- (not kill -0: a killed partner whose reaper is slow stays a zombie)
    alive = function(self)
      local f = io.open(("/proc/%d/stat"):format(self.pid))
      local stat = f and f:read("l")
      if f then f:close() end
      return stat ~= nil and stat:match("^%d+ %b() (%a)") ~= "Z"
    end,
    output = function(self)
      local f = io.open(self.log)
      local s = f and f:read("a") or ""
      if f then f:close() end
      return s
    end } })
  local who = K.partner_name()
  if who:match("^seat ") then who = ("%s (%s)"):format(who, peer) end
  local lines = { ("partner: started in the background (pid %d) for your partner, %s:"):format(pid, who) }
  for i, r in ipairs(chosen) do
    lines[#lines + 1] = ("  %slesson %d (%s): examples/%s %s"):format(i > 1 and "then " or "", r.number, r.lesson,
      r.script, r.where(addr))
  end
  lines[#lines + 1] = ("  its output: %s; partner(false) stops it"):format(log)
  print(table.concat(lines, "\n"))
  return running
end

return M
