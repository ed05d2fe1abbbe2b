-- How the shell prints values: tables nested and sorted, objects through
-- their __tostring, strings quoted, cycles and depth cut short. Printing
-- never fails: a failing __tostring is shown instead of raised.
local M = { max_depth = 5, max_items = 200, width = 78 }

local function is_ident(k)
  return type(k) == "string" and k:match("^[%a_][%w_]*$") and not ({
    ["and"] = 1, ["break"] = 1, ["do"] = 1, ["else"] = 1, ["elseif"] = 1, ["end"] = 1,
    ["false"] = 1, ["for"] = 1, ["function"] = 1, ["goto"] = 1, ["if"] = 1, ["in"] = 1,
    ["local"] = 1, ["nil"] = 1, ["not"] = 1, ["or"] = 1, ["repeat"] = 1, ["return"] = 1,
    ["then"] = 1, ["true"] = 1, ["until"] = 1, ["while"] = 1 })[k]
end

-- Numbers before strings before the rest; each group in its natural order.
local rank = { number = 1, string = 2, boolean = 3 }
local function key_less(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then return (rank[ta] or 9) < (rank[tb] or 9) end
  if ta == "number" or ta == "string" then return a < b end
  return tostring(a) < tostring(b)
end

local function safe_tostring(v)
  local ok, s = pcall(tostring, v)
  if ok and type(s) == "string" then return s end
  return ("<%s: __tostring failed: %s>"):format(type(v), tostring(s))
end

local function has_tostring(v)
  local mt = getmetatable(v)
  return type(mt) == "table" and rawget(mt, "__tostring") ~= nil
end

-- Strings shown as text, not as quoted Lua strings, when they are a result
-- at the prompt: explanations, whose lines a student reads. They stay plain
-- strings for scripts. The last few are remembered, so that `s` typed after
-- `s = verbs.explain(wc)` reads as text too.
local texts, text_order = {}, {}
function M.as_text(s)
  if type(s) == "string" and not texts[s] then
    texts[s] = true
    text_order[#text_order + 1] = s
    if #text_order > 32 then texts[table.remove(text_order, 1)] = nil end
  end
  return s
end
-- fn's string results are shown as text (lverbs.c wraps verbs.explain).
function M.text_results(fn)
  return function(...) return M.as_text((fn(...))) end
end

local format

local function format_table(t, depth, seen, indent)
  if seen[t] then return "<cycle>" end
  if depth > M.max_depth then return "{...}" end
  seen[t] = true
  local keys, n = {}, #t
  for k in next, t do
    if not (math.type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  table.sort(keys, key_less)
  local items = {}
  for i = 1, n do
    if #items >= M.max_items then break end
    items[#items + 1] = format(rawget(t, i), depth + 1, seen, indent .. "  ")
  end
  for _, k in ipairs(keys) do
    if #items >= M.max_items then break end
    local ks = is_ident(k) and k or "[" .. format(k, depth + 1, seen, indent .. "  ") .. "]"
    items[#items + 1] = ks .. " = " .. format(rawget(t, k), depth + 1, seen, indent .. "  ")
  end
  if n + #keys > #items then items[#items + 1] = ("... (%d more)"):format(n + #keys - #items) end
  seen[t] = nil
  if #items == 0 then return "{}" end
  local one = "{ " .. table.concat(items, ", ") .. " }"
  if #one + #indent <= M.width and not one:find("\n") then return one end
  return "{\n" .. indent .. "  " .. table.concat(items, ",\n" .. indent .. "  ") .. "\n" .. indent .. "}"
end

function format(v, depth, seen, indent)
  local t = type(v)
  if t == "string" then return (("%q"):format(v):gsub("\\\n", "\\n")) end   -- the text alone, not gsub's count
  if t == "table" and not has_tostring(v) then return format_table(v, depth or 1, seen or {}, indent or "") end
  return safe_tostring(v)
end

-- pretty.format(v): the text the shell would print for v.
function M.format(v)
  if type(v) == "string" and texts[v] then return v end
  return format(v, 1, {}, "")
end

-- pretty.print(...): what the shell does with an expression's values
-- (none, as print("x") returns: nothing at all).
function M.print(...)
  if select("#", ...) == 0 then return end
  local out = {}
  for i = 1, select("#", ...) do out[i] = M.format((select(i, ...))) end
  io.write(table.concat(out, "\t"), "\n")
  io.flush()
end

return M
