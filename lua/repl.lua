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

function M.after_eval(ok)
  for _, fn in ipairs(M.hooks) do fn(ok) end
end

-- The primary prompt; a lesson adds its progress in front ("[rc 3/9] ").
M.prefix = ""
function M.prompt()
  return M.prefix .. "verbsh> "
end

return M
