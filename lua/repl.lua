-- Hooks between the REPL (src/repl.c) and Lua-side features such as the
-- lesson runner. The REPL calls after_eval() once after every chunk it
-- evaluates (whether it succeeded or not) and prompt() for each new input.
local M = { hooks = {} }

-- Registers fn(ok) to run after every evaluated chunk; returns fn, so that it
-- can be removed again with remove().
function M.add(fn)
  M.hooks[#M.hooks + 1] = fn
  return fn
end

function M.remove(fn)
  for i = #M.hooks, 1, -1 do
    if M.hooks[i] == fn then table.remove(M.hooks, i) end
  end
end

-- err: the error a failed chunk raised (a verbs.error for a failed verb),
-- kept in M.last_error until the next chunk, so that a lesson step can count
-- `qp_a:modify{...}` that raised as well as `ok, err = pcall(...)`.
function M.after_eval(ok, err)
  M.last_error = not ok and err or nil
  for _, fn in ipairs(M.hooks) do fn(ok, err) end
end

-- At the shell's prompt an undefined global is a mistake, not a nil:
-- `qp:modify{qp_state = RTS}` would otherwise send an empty table. Only
-- chunks typed at the prompt (source "=stdin") are guarded; scripts, lessons
-- and modules keep plain Lua semantics unless verbs.strict(true) opts in
-- (which installs the guard in a script too).
M.strict_globals = false

-- "RTS is not defined: did you mean "RTS"?" for an enum name; else the
-- closest global.
function M.undefined(name)
  local verbs = rawget(_G, "verbs")
  local short = name:gsub("^IBV_%u+_", ""):gsub("^RDMA_%u+_", "")
  if verbs and type(verbs.enums) == "table" then
    for ctype, names in pairs(verbs.enums) do
      for _, n in ipairs(names) do
        if n == name or n == short then
          return ("%s is not defined: did you mean \"%s\"? (enum values are strings: a name of %s)"):format(
            name, n, ctype)
        end
      end
    end
  end
  local globals = {}
  for k in next, _G do if type(k) == "string" then globals[#globals + 1] = k end end
  local best = verbs and verbs.suggest and verbs.suggest(name, globals)
  if best then return ("%s is not defined: did you mean %s?"):format(name, best) end
  return ("%s is not defined (no global of that name has been set)"):format(name)
end

function M.guard_globals()
  local mt = getmetatable(_G)
  if mt and mt.__index then return end   -- the user's own (strict.lua and the like)
  mt = mt or {}
  mt.__index = function(_, name)
    if type(name) ~= "string" then return nil end
    local info = debug.getinfo(2, "S")
    if not (info and info.source == "=stdin") then
      local verbs = rawget(_G, "verbs")
      if not (M.strict_globals or verbs and verbs.strict and verbs.strict()) then return nil end
    end
    error(M.undefined(name), 2)
  end
  setmetatable(_G, mt)
end

-- The primary prompt; a lesson adds its progress in front ("[rc 3/9] ").
M.prefix = ""
function M.prompt()
  return M.prefix .. "verbsh> "
end

-- verbsh --record FILE: each chunk the prompt compiled is appended to FILE
-- as a script that `verbsh FILE` replays. A chunk that raised in the session
-- is replayed under pcall, so that the replay shows the same error and goes
-- on, as the session did; it is loaded as "=stdin", as at the prompt, so
-- the prompt's guard against undefined globals (installed by the file's
-- third line) judges it as it did there. Each chunk is its own block, as at
-- the prompt (where a `local` does not outlive its chunk). The file is
-- appended to: a second session goes after the first, under its own header.
function M.record_open(path)
  local f, err = io.open(path, "a")
  if not f then error("--record: cannot write " .. err, 0) end
  local dev = os.getenv("VERBSH_DEVICE")
  if not dev then
    local ok, list = pcall(verbs.devices)
    dev = ok and list[1] and list[1].name or "none"
  end
  f:write("-- ", require "verbs.version", " session on device ", dev, ", recorded ",
          os.date("!%Y-%m-%d %H:%M:%S UTC"), "\n",
          "-- replay: verbsh ", dev == "none" and "" or "-d " .. dev .. " ", path, "\n",
          "require 'verbs.repl'.guard_globals()   -- undefined globals are errors, as at the prompt\n")
  f:flush()
  M.record_file = f
end

-- [[...]] around s, with enough '=' that nothing in s closes it; s's last
-- line is ended, so that a final ']' of s does not either.
local function long_string(s)
  local eq = ""
  while s:find("]" .. eq .. "]", 1, true) do eq = eq .. "=" end
  return "[" .. eq .. "[\n" .. s .. "\n]" .. eq .. "]"
end

-- Whether the statements in text may `return`: at the prompt that prints the
-- values and ends the chunk; written bare into the replay it would end the
-- whole script.
local function may_return(text)
  return text:find("%f[%w_]return%f[^%w_]") ~= nil
end

-- text: the chunk as typed; expr: the prompt ran it as `return text`.
function M.record_chunk(text, expr, ok)
  local f = M.record_file
  if not f then return end
  -- A comment on the last line would swallow the closing parenthesis.
  local close = text:find("--", 1, true) and "\n)" or ")"
  local body
  if expr then
    body = "require 'verbs.pretty'.print(" .. text .. close
  elseif may_return(text) then
    body = "require 'verbs.pretty'.print((function(...) " .. text .. "\nend)())"
  else
    body = text
  end
  if ok then
    f:write("do\n", body, "\nend\n")
  else
    f:write("-- this chunk raised an error in the session\n",
            "do\n  local ok, err = pcall(load(", long_string(body), ", \"=stdin\"))\n",
            "  if not ok then io.stderr:write(tostring(err), \"\\n\") end\nend\n")
  end
  f:flush()
end

return M
