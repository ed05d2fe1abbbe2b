-- verbs.trace: every verb call as the C that verbs.export_c writes for it,
-- as it happens. One recorder (verbs.record) sees the calls; the export's
-- writer turns each into C, so the trace shows exactly what an exported
-- program would do, with the outcome of this run:
--   ibv_modify_qp(qp1, &attr1, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT) = 22 /* EINVAL */
-- verbs.trace(true) prints on stderr; verbs.trace(fn) calls fn(call, ret,
-- decl) instead: call is the C call or statement, ret its outcome
-- ("(void)" for a statement), decl the declarations it needs, or nil.
local R = require "verbs.record"
local X = require "verbs.export_c"
local M = {}

local sink     -- nil (never set), false, true or the user's function
local w   -- the writer: it remembers MRs, QPs and GIDs to write keys and numbers symbolically

local function deliver(call, ret, decl, statement)
  if not sink then return end   -- the function itself turned the trace off
  if sink == true then
    if decl then io.stderr:write(decl, "\n") end
    io.stderr:write(call, statement and "" or " = " .. ret, "\n")
  else
    -- a failing function must not turn a verb that worked into an error
    local ok, e = pcall(sink, call, ret, decl)
    if not ok then
      local shown, text = pcall(tostring, e)
      io.stderr:write("verbs.trace: recorder failed: ", shown and text or "(an error whose __tostring failed)", "\n")
    end
  end
end

local function show(ev)
  local from = #w.items
  X.render(w, ev)
  local decl = {}
  for i = from + 1, #w.items do
    local it = w.items[i]
    if it.call then
      deliver(it.call, it.ret, #decl > 0 and table.concat(decl, "\n") or nil)
      decl = {}
    else
      decl[#decl + 1] = it.text
    end
  end
  -- what follows the last call (memcpy, qp1_ex->wr_id = 7;) is a statement
  for _, text in ipairs(decl) do deliver((text:gsub(";$", "")), "(void)", nil, true) end
end

-- verbs.trace(true | false | fn): returns the previous setting; with no
-- argument, the current one.
function M.trace(...)
  if select("#", ...) == 0 then return sink end
  local on = ...
  if on ~= nil and type(on) ~= "boolean" and type(on) ~= "function" then
    error(("bad argument #1 to 'verbs.trace' (boolean or function expected, got %s)"):format(type(on)), 2)
  end
  local was = sink
  sink = on
  if sink then
    w = w or X.writer()
    R.listen(show)
  else
    R.listen(nil)
  end
  return was
end

return M
