-- verbs.export_c: the recorded verb calls (verbs.record) as a standalone C
-- program in the style of rdma-core's examples, which replays them and
-- checks that every outcome is the same: each call's return value, each
-- completion's status, opcode, byte_len, imm_data and wc_flags, and the
-- bytes read back from an MR. It prints "reproduced" and exits 0, or the
-- first difference and exits 1.
local R = require "verbs.record"
local verbs = require "verbs"
local M = {}

local fmt = string.format
local X = require "verbs.export_writer"
local writer, call_text, cenum, cflags, copy_table, cstring = X.writer, X.call_text, X.cenum, X.cflags, X.copy_table,
  X.cstring
local RT = require "verbs.export_runtime"
local HEAD, HELPERS = RT.HEAD, RT.HELPERS

-- The handlers, by "class.method": libibverbs' (export_verbs.lua) and
-- librdmacm's (export_cm.lua); the rest of verbs.h and rdma_cma.h are
-- added at the end (export_rest.lua).
local V = {}
for k, h in pairs(require("verbs.export_verbs").V) do V[k] = h end
for k, h in pairs(require "verbs.export_cm") do
  assert(V[k] == nil, k)
  V[k] = h
end

-- Writes one event: its C, or a comment naming it when it has none yet.
-- Returns false for an event that is not exported.
local function render(w, ev)
  local h = V[tostring(ev.class) .. "." .. ev.method] or V[ev.method]
  if not h then
    w.skipped[#w.skipped + 1] = call_text(ev)
    w:put("/* verbsh: %s is not exported */", call_text(ev))
    return false
  end
  -- The export observes: a call it cannot write (an object made before
  -- recording began, a value of a kind it does not expect) becomes a
  -- comment, and the session and the verb's outcome go on.
  local lines, items = #w.lines, #w.items
  local ok, e = pcall(h, w, ev)
  if not ok then
    for i = #w.lines, lines + 1, -1 do w.lines[i] = nil end
    for i = #w.items, items + 1, -1 do w.items[i] = nil end
    w.skipped[#w.skipped + 1] = call_text(ev)
    w:put("/* verbsh: %s could not be written as C: %s */", call_text(ev), (tostring(e):gsub("%*/", "* /")))
    return false
  end
  return true
end
M.writer, M.render = writer, render

-- The program text for the events recorded so far.
-- A GRH given to create_ah_from_wc/init_ah_from_wc that an mr:read read
-- before: C passes the MR's memory, and that read is not compared.
local function find_grh_reads(events)
  local last = {}   -- bytes -> the mr.read that returned them
  for _, ev in ipairs(events) do
    if ev.class == "mr" and ev.method == "read" and ev.results and type(ev.results[1]) == "string" then
      last[ev.results[1]] = ev
    end
    local grh = ev.method == "create_ah_from_wc" and ev.args[2] or ev.method == "init_ah_from_wc" and ev.args[3]
    local read = type(grh) == "string" and last[grh]
    if read then
      read.grh_read = true
      ev.grh_at = { mr = read.self, offset = read.args[1] or 0 }
    end
  end
end

function M.program(path)
  local w = writer()
  find_grh_reads(R.events())
  for _, ev in ipairs(R.events()) do
    local at = #w.lines
    w:blank()
    w:put("/* %s */", call_text(ev) .. (ev.err and (" -- failed with " .. tostring(ev.err.errname)) or ""))
    if not render(w, ev) then
      table.remove(w.lines, at + 2)   -- the comment of the call is the one render wrote
    elseif #w.lines == at + 2 then   -- nothing to write (ev:expect): no comment either
      w.lines[at + 2], w.lines[at + 1] = nil, nil
    end
  end
  local ver = (pcall(require, "verbs.version") and require("verbs.version").version) or "?"
  local base = (path or "repro.c"):match("[^/]*$")
  local body = table.concat(require("verbs.export_rest").use_unused(w.lines), "\n")
  local cm = body:find("rdma_", 1, true) and "#include <rdma/rdma_cma.h>\n"
    .. ((body:find("rdma_reg_", 1, true) or body:find("rdma_post_", 1, true) or body:find("_comp(", 1, true)
        or body:find("rdma_create_srq", 1, true) or body:find("rdma_destroy_srq", 1, true))
      and "#include <rdma/rdma_verbs.h>\n" or "") .. "#include <netdb.h>\n#include <poll.h>\n"
    or (body:find("get_cq_event", 1, true) or body:find("get_async_event", 1, true)) and "#include <poll.h>\n"
    or ""
  if body:find("O_CREAT", 1, true) then cm = cm .. "#include <fcntl.h>\n" end
  if body:find("dup(", 1, true) then cm = cm .. "#include <unistd.h>\n" end
  local used, out = {}, { fmt(HEAD, base, tostring(ver), base, cm) }
  local function use(name)
    for _, h in ipairs(HELPERS) do
      if h.name == name and not used[name] then
        used[name] = true
        for _, n in ipairs(h.needs or {}) do use(n) end
        out[#out + 1] = h.text
      end
    end
  end
  -- a whole word: rdma_get_cm_event must not pull in get_cm_event; and in
  -- code, not in a comment line ("/* ch1:get_cm_event -- failed ... */"):
  -- a helper that nothing calls is an unused static function, which
  -- -Wall -Werror refuses
  local code = body:gsub("\n\t*/%*[^\n]-%*/", "\n")
  for _, h in ipairs(HELPERS) do if code:find("%f[%w_]" .. h.name .. "%f[^%w_]") then use(h.name) end end
  out[#out + 1] = "int main(void)\n{" .. body .. "\n\n\tprintf(\"reproduced\\n\");\n\treturn 0;\n}\n"
  return table.concat(out, "\n"), w.skipped
end

-- Writes the program to path: the number of calls exported and the list of
-- those left out; or nil and "PATH: why". A full disk shows only when the
-- buffered text is flushed: close's result counts as much as write's.
local function write_program(path)
  local text, skipped = M.program(path)
  local f, err = io.open(path, "w")
  if not f then return nil, err end
  local wrote, werr = f:write(text)
  local closed, cerr = f:close()
  if not (wrote and closed) then return nil, ("%s: %s"):format(path, werr or cerr) end
  return #R.events() - #skipped, skipped
end

-- verbs.export_c(path): writes the program; returns the number of calls
-- exported and a list of those it could not export.
function M.export_c(path)
  if type(path) ~= "string" then
    error(("bad argument #1 to 'export_c' (string expected, got %s)"):format(type(path)), 2)
  end
  if #R.events() == 0 then
    error("export_c: nothing recorded: verbs.record(true) before the verbs to export, or run a script"
      .. " with verbsh --export-c OUT.c SCRIPT.lua", 2)
  end
  local n, skipped = write_program(path)
  if not n then error("export_c: " .. skipped, 2) end
  return n, skipped
end

-- verbsh --export-c OUT.c: recording from the start; finish() writes the
-- program once the run is over, however it ended (os.exit included).
local target
function M.start(path)
  -- Refused now, not after the session it would have held: open it as the
  -- end will (leaving an existing file as it is until then).
  local existed = io.open(path, "r")
  if existed then existed:close() end
  local f, err = io.open(path, "a")
  if not f then error("--export-c: cannot write " .. err, 0) end
  f:close()
  if not existed then os.remove(path) end
  target = path
  R.record(true)
  local exit = os.exit
  os.exit = function(...)   -- luacheck: ignore
    M.finish()
    return exit(...)
  end
end

function M.finish()
  if not target then return end
  local path = target
  target = nil
  if #R.events() == 0 then
    io.stderr:write("verbsh: --export-c ", path, ": no verb was called, nothing written\n")
    return
  end
  -- as start's refusal: the option and the file, no place in verbsh's code
  local n, skipped = write_program(path)
  if not n then error("--export-c: cannot write " .. skipped, 0) end
  io.stderr:write(("verbsh: %d verb calls exported to %s"):format(n, path))
  if #skipped > 0 then
    io.stderr:write((" (%d left out, as comments: %s)"):format(#skipped, table.concat(skipped, ", ")))
  end
  io.stderr:write("; cc -Wall -Wextra -Werror ", path, " -libverbs -lrdmacm && ./a.out\n")
end

-- The rest of verbs.h and rdma_cma.h (lua/export_rest.lua)
require("verbs.export_rest").add(V, HELPERS, { cenum = cenum, cflags = cflags, cstring = cstring, copy_table = copy_table })

return M
