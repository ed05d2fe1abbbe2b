-- verbs.room_plan: `verbsh --room-plan N --class GROUP:PORT` (or --link
-- BASEPORT): one handout per student, with the seat, the partner and the
-- commands of each role in order, printed and written as printable HTML.
--
-- Seats 1..N, in pairs (1, 2), (3, 4), ...; with N odd the last student's
-- partner is a second seat of the teacher's, 253 (254 runs the room). On a
-- --class segment every seat sends to the same group; over --link each
-- student listens on BASEPORT + seat and sends to the partner's.
local M = { teacher = 254, spare = 253 }

local usage = [[
usage: verbsh --room-plan N (--class GROUP:PORT | --link BASEPORT) [--html FILE]
Prints a handout for each of N students: seat, partner and the
commands of each role; writes them as printable HTML to FILE (default
room-plan.html in the current directory). N is 1-252 (253 and 254 are the
teacher's seats: the partner of an odd last student, and the room).]]

local function partner_of(k, n)
  if k % 2 == 1 then return k + 1 <= n and k + 1 or M.spare end
  return k - 1
end

-- The plan as data: { {seat=, partner=, start=, learner={...}, partner_role=, installed=}, ... }
function M.plan(n, mode, value)
  local students = {}
  local function seat_cmd(k, p, role)
    local where
    if mode == "class" then
      where = ("CLASS=%s SEAT=%d PEER_SEAT=%d"):format(value, k, p)
    else
      where = ("LINK=PC_OF_SEAT_%d:%d LISTEN=%d SEAT=%d PEER_SEAT=%d"):format(p, value + p, value + k, k, p)
    end
    return "make run " .. where .. (role and " ROLE=partner" or "")
  end
  local function vm_cmd(k, p)
    if mode == "class" then
      return ("verbsh-vm --class %s --seat %d --peer-seat %d --tty -- verbsh"):format(value, k, p)
    end
    return ("verbsh-vm --link PC_OF_SEAT_%d:%d --listen %d --seat %d --peer-seat %d --tty -- verbsh")
      :format(p, value + p, value + k, k, p)
  end
  for k = 1, n do
    local p = partner_of(k, n)
    students[k] = {
      seat = k, addr = "10.78.0." .. k, partner = p, partner_addr = "10.78.0." .. p,
      port = mode == "link" and value + k or tonumber(value:match(":(%d+)$")),
      start = seat_cmd(k, p), installed = vm_cmd(k, p),
      learner = { 'lesson "pair-lab"', 'lesson "rdma-cm"' },
      partner_role = seat_cmd(k, p, true),
    }
  end
  local teacher
  if mode == "class" then
    teacher = ("make run CLASS=%s SEAT=%d ARGS=--room"):format(value, M.teacher)
    if n % 2 == 1 then
      teacher = teacher .. ("\n     make run CLASS=%s SEAT=%d PEER_SEAT=%d ROLE=partner   (seat %d's partner)")
        :format(value, M.spare, n, n)
    end
  end
  return students, teacher
end

-- A handout's heading, ruled to 78 columns as a lesson step's is.
local function rule(head)
  return head .. ("─"):rep(math.max(4, 78 - utf8.len(head)))
end

local function handout(s, mode)
  local who = s.partner == M.spare and ("the teacher's seat %d"):format(s.partner) or ("seat " .. s.partner)
  local lines = {
    ("Your seat: %d (%s in the lab).  Your partner: %s (%s)."):format(s.seat, s.addr, who, s.partner_addr),
    mode == "link" and ("Your seat listens on UDP port %d; %s's on %d."):format(s.port, who,
      s.port - s.seat + s.partner) or ("The class segment: UDP port %d, shared by every seat."):format(s.port),
    "1. Start your seat (in the verbsh checkout; exit the shell to power it off):",
    "     " .. s.start,
    "   (an installed verbsh: " .. s.installed .. ")",
    "2. As the learner, at the verbsh> prompt (your partner's seat is found by itself):",
  }
  for _, c in ipairs(s.learner) do lines[#lines + 1] = "     " .. c end
  lines[#lines + 1] = ("3. As the partner, when %s learns: instead of step 1,"):format(who)
  lines[#lines + 1] = "     " .. s.partner_role
  lines[#lines + 1] = "   (or, at your seat's verbsh> prompt: partner())"
  return lines
end

local function html_escape(s)
  return (tostring(s):gsub("[&<>\"]", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;" }))
end

function M.main(args)
  local n, mode, value, html = nil, nil, nil, "room-plan.html"
  local i = 1
  while args[i] do
    local a, v = args[i], args[i + 1]
    if a == "--class" or a == "--link" then mode, value = a:sub(3), v i = i + 2
    elseif a == "--html" then html = v i = i + 2
    elseif a == "-h" or a == "--help" then print(usage) return 0
    elseif not n and tonumber(a) then n = math.tointeger(tonumber(a)) i = i + 1
    else io.stderr:write("verbsh --room-plan: unexpected ", a, "\n", usage, "\n") return 2 end
  end
  if not n or n < 1 or n > 252 then io.stderr:write("verbsh --room-plan: N wants 1-252 students\n", usage, "\n") return 2 end
  if mode == "class" then
    local g, p = tostring(value):match("^(%d+%.%d+%.%d+%.%d+):(%d+)$")
    local a = tonumber(g and g:match("^(%d+)") or "")
    if not (a and a >= 224 and a <= 239 and tonumber(p) >= 1 and tonumber(p) <= 65535) then
      io.stderr:write("verbsh --room-plan: --class wants a multicast GROUP:PORT, got ", tostring(value), "\n") return 2
    end
  elseif mode == "link" then
    value = math.tointeger(tonumber(value or ""))
    if not value or value < 1024 or value + n > 65535 then
      io.stderr:write("verbsh --room-plan: --link wants a BASEPORT (1024 or more; each seat listens on BASEPORT + seat)\n") return 2
    end
  else
    io.stderr:write(usage, "\n") return 2
  end
  if not html then io.stderr:write("verbsh --room-plan: --html needs a file name\n") return 2 end
  local students, teacher = M.plan(n, mode, value)
  local page = { [[<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>verbsh room plan</title>
<style>body{font:13pt sans-serif}.handout{page-break-after:always;border:1px solid #888;padding:10px;margin:10px 0}
pre{font-size:12pt;white-space:pre-wrap}</style></head><body>
]] }
  for _, s in ipairs(students) do
    local lines = handout(s, mode)
    print(rule(("── Student %d: seat %d "):format(s.seat, s.seat)))
    for _, l in ipairs(lines) do print(l) end
    print("")
    page[#page + 1] = ('<div class="handout" id="seat-%d"><h2>Seat %d</h2><pre>%s</pre></div>\n')
      :format(s.seat, s.seat, html_escape(table.concat(lines, "\n")))
  end
  if teacher then
    print(rule(("── The teacher: the room in seat %d "):format(M.teacher)))
    print("     " .. teacher)
    print("   (the room's page: $XDG_STATE_HOME/verbsh/room/room.html on your PC)")
    page[#page + 1] = ('<div class="handout" id="teacher"><h2>Teacher (seat %d)</h2><pre>%s</pre></div>\n')
      :format(M.teacher, html_escape(teacher))
  end
  page[#page + 1] = "</body></html>\n"
  local f, err = io.open(html, "w")
  if not f then io.stderr:write("verbsh --room-plan: ", err, "\n") return 1 end
  f:write(table.concat(page))
  f:close()
  io.stderr:write(("verbsh --room-plan: %d handouts written to %s, one per printed page\n"):format(n, html))
  return 0
end

return M
