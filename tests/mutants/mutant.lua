-- Reads and applies the mutants of tests/mutants/*.mut (see README, Testing).
-- A mutant file:
--   # what bug it plants (one line)
--   file: src/cq.c                        the file it changes
--   from: lua_rawseti(L, -2, got + i + 1);  code text that occurs exactly once
--   to: lua_rawseti(L, -2, i + 1);          what it becomes (\n \t \\ escapes)
--   host: verbs_host.bats -f gid_bytes    tests/host files that could kill it
--   device: verbs_rc.bats -f 'every field' tests/device files (in the guest)
--
--   lua5.4 mutant.lua check ROOT MUT...    every mutant applies to ROOT and changes it
--   lua5.4 mutant.lua apply ROOT MUT       writes the mutated file into ROOT
--   lua5.4 mutant.lua tests MUT host|device  the selections, one a line
--   lua5.4 mutant.lua why MUT              the comment line
local function unescape(s)
  return (s:gsub("\\(.)", { n = "\n", t = "\t", ["\\"] = "\\" }))
end

local function read(path)
  local f, err = io.open(path, "rb")
  if not f then return nil, err end
  local s = f:read("a")
  f:close()
  return s
end

local function parse(path)
  local m = { host = {}, device = {}, path = path, name = path:match("([^/]+)%.mut$") }
  local text, err = read(path)
  if not text then return nil, err end
  for line in text:gmatch("[^\n]+") do
    local k, v = line:match("^(%a+): (.*)$")
    if line:match("^#") then
      m.why = m.why or line:gsub("^#%s*", "")
    elseif k == "host" or k == "device" then
      table.insert(m[k], v)
    elseif k == "file" or k == "from" or k == "to" then
      if m[k] then return nil, "two '" .. k .. "' lines" end
      m[k] = k == "file" and v or unescape(v)
    else
      return nil, ("unknown line %q"):format(line)
    end
  end
  for _, k in ipairs{ "why", "file", "from", "to" } do
    if not m[k] then return nil, "no " .. (k == "why" and "'# why' comment" or "'" .. k .. ":' line") end
  end
  if #m.host + #m.device == 0 then return nil, "no host: or device: tests to kill it" end
  if m.from == m.to then return nil, "'to' is the same as 'from'" end
  return m
end

-- The mutated text of m's file under root, or nil, why.
local function mutate(root, m)
  local src, err = read(root .. "/" .. m.file)
  if not src then return nil, err end
  local at = src:find(m.from, 1, true)
  if not at then return nil, m.file .. " no longer holds the 'from' text" end
  if src:find(m.from, at + 1, true) then return nil, m.file .. " holds the 'from' text more than once" end
  local out = src:sub(1, at - 1) .. m.to .. src:sub(at + #m.from)
  if out == src then return nil, "the mutant changes nothing" end
  return out
end

local cmd, a1, a2 = arg[1], arg[2], arg[3]
if cmd == "check" then
  local bad = 0
  for i = 3, #arg do
    local m, err = parse(arg[i])
    if m then m, err = mutate(a1, m) end
    if not m then
      bad = bad + 1
      print(("FAIL %s: %s"):format(arg[i], err))
    end
  end
  print(("%d of %d mutants apply"):format(#arg - 2 - bad, #arg - 2))
  os.exit(bad == 0 and 0 or 1)
elseif cmd == "apply" then
  local m = assert(parse(a2))
  local out, err = mutate(a1, m)
  if not out then io.stderr:write(a2, ": ", err, "\n") os.exit(1) end
  local f = assert(io.open(a1 .. "/" .. m.file, "wb"))
  f:write(out)
  f:close()
  print(m.file)
elseif cmd == "tests" then
  for _, t in ipairs(assert(parse(a1))[a2]) do print(t) end
elseif cmd == "why" then
  print(assert(parse(a1)).why)
else
  io.stderr:write("usage: mutant.lua check ROOT MUT... | apply ROOT MUT | tests MUT host|device | why MUT\n")
  os.exit(2)
end
