-- Mutants by rule, not by choice, for `tests/mutate --random N --seed S`.
-- Every site in src/*.c, lua/*.lua, lessons/*.lua and scripts/* where one of
-- these rules applies is a candidate; a seeded generator picks N of them,
-- each site as likely as any other:
--   relop    swap a relational operator       (<  <=  >  >=  ==  != / ~=)
--   arith    swap an arithmetic operator      (+ -, * /, % *, << >>)
--   const    an integer constant plus or minus 1
--   order    drop a byte-order conversion     (htonl(x) -> (x); ">I4" -> "<I4")
--   fields   swap the fields of two adjacent reads of the same shape
--   negate   negate a condition               (if, while, until)
--   delete   delete a one-line statement
--   andor    and <-> or, && <-> ||
-- Code only: comments, strings and heredocs are masked before matching.
--
--   lua5.4 random.lua sites ROOT                     candidates per rule and file
--   lua5.4 random.lua pick ROOT N SEED OUTDIR        writes OUTDIR/NAME.rmut, prints NAME
--   lua5.4 random.lua apply ROOT RMUT                mutates ROOT's file; prints its path
--   lua5.4 random.lua show RMUT                      file<TAB>old line<TAB>new line<TAB>rule
local function read(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

local function lang(path, text)
  if path:match("%.c$") then return "c" end
  if path:match("%.lua$") or text:match("^#![^\n]*lua") then return "lua" end
  if text:match("^#![^\n]*sh") then return "sh" end
end

-- The text with comments, string contents and preprocessor lines (but
-- #define) blanked out, offsets unchanged; and the string literals' spans.
local function mask(text, kind)
  local out, strings, i, n = {}, {}, 1, #text
  local function blank(a, b) out[#out + 1] = text:sub(a, b):gsub("[^\n]", " ") end
  local function keep(a, b) out[#out + 1] = text:sub(a, b) end
  local function quoted(q, a)   -- a: the opening quote; returns the closing one's offset
    local j = a + 1
    while j <= n do
      local c = text:sub(j, j)
      if c == "\\" and kind ~= "sh" or (c == "\\" and q == '"') then j = j + 2
      elseif c == q then return j
      elseif c == "\n" and kind ~= "sh" then return j - 1
      else j = j + 1 end
    end
    return n
  end
  local bol = true
  while i <= n do
    local c, two = text:sub(i, i), text:sub(i, i + 1)
    local j
    if kind == "c" and bol and text:match("^[ \t]*#", i) and not text:match("^[ \t]*#%s*define", i) then
      j = (text:find("\n", i, true) or n + 1) - 1
      while text:sub(j, j) == "\\" do j = (text:find("\n", j + 2, true) or n + 1) - 1 end
      blank(i, j)
    elseif kind == "c" and two == "//" then
      j = (text:find("\n", i, true) or n + 1) - 1; blank(i, j)
    elseif kind == "c" and two == "/*" then
      j = select(2, text:find("*/", i + 2, true)) or n; blank(i, j)
    elseif kind == "lua" and two == "--" then
      local eq = text:match("^%-%-%[(=*)%[", i)
      if eq then j = select(2, text:find("]" .. eq .. "]", i, true)) or n
      else j = (text:find("\n", i, true) or n + 1) - 1 end
      blank(i, j)
    elseif kind == "lua" and text:match("^%[=*%[", i) then
      local eq = text:match("^%[(=*)%[", i)
      j = select(2, text:find("]" .. eq .. "]", i, true)) or n
      keep(i, i); blank(i + 1, j - 1); keep(j, j)
      strings[#strings + 1] = { i, j }
    elseif kind == "sh" and c == "#" and (bol or text:sub(i - 1, i - 1):match("%s")) then
      j = (text:find("\n", i, true) or n + 1) - 1; blank(i, j)
    elseif kind == "sh" and text:match("^<<%-?'?\"?(%w+)'?\"?", i) then
      local word = text:match("^<<%-?'?\"?(%w+)", i)
      local eol = text:find("\n", i, true) or n
      keep(i, eol)
      local stop = text:find("\n%s*" .. word .. "\n", eol) or n
      blank(eol + 1, stop)
      j = stop
    elseif c == '"' or c == "'" and not (kind == "sh" and text:sub(i - 1, i - 1):match("%w")) then
      j = quoted(c, i)
      keep(i, i); blank(i + 1, j - 1); keep(j, j)
      strings[#strings + 1] = { i, j }
    else
      j = i; keep(i, i)
    end
    bol = text:sub(j, j) == "\n" or (bol and text:sub(j, j):match("[ \t]") ~= nil)
    i = j + 1
  end
  return table.concat(out), strings
end

local swaps = {
  c = { relop = { ["<"] = "<=", ["<="] = "<", [">"] = ">=", [">="] = ">", ["=="] = "!=", ["!="] = "==" },
        arith = { ["+"] = "-", ["-"] = "+", ["*"] = "/", ["/"] = "*", ["%"] = "*", ["<<"] = ">>", [">>"] = "<<" },
        andor = { ["&&"] = "||", ["||"] = "&&" } },
  lua = { relop = { ["<"] = "<=", ["<="] = "<", [">"] = ">=", [">="] = ">", ["=="] = "~=", ["~="] = "==" },
          arith = { ["+"] = "-", ["-"] = "+", ["*"] = "/", ["/"] = "*", ["//"] = "*", ["%"] = "*", ["<<"] = ">>", [">>"] = "<<" },
          andor = { ["and"] = "or", ["or"] = "and" } },
  sh = { relop = { ["-lt"] = "-le", ["-le"] = "-lt", ["-gt"] = "-ge", ["-ge"] = "-gt", ["-eq"] = "-ne", ["-ne"] = "-eq",
                   ["=="] = "!=", ["!="] = "==" },
         arith = {},
         andor = { ["&&"] = "||", ["||"] = "&&" } },
}
local order_fns = { "htonl", "ntohl", "htons", "ntohs", "htobe16", "htobe32", "htobe64",
                    "be16toh", "be32toh", "be64toh", "htole16", "htole32", "htole64",
                    "le16toh", "le32toh", "le64toh" }

-- Lines of text: { {a=first offset, b=last offset, s=masked line} ... }
local function lines_of(m)
  local ls, a = {}, 1
  for line, nl in m:gmatch("([^\n]*)()\n?") do
    if a > #m then break end
    ls[#ls + 1] = { a = a, b = a + #line - 1, s = line }
    a = nl + 1
  end
  return ls
end

local C_TYPES = { struct = 1, union = 1, enum = 1, const = 1, static = 1, int = 1, char = 1, unsigned = 1,
                  long = 1, short = 1, void = 1, double = 1, float = 1, bool = 1, size_t = 1, ssize_t = 1,
                  uint8_t = 1, uint16_t = 1, uint32_t = 1, uint64_t = 1, int64_t = 1, int32_t = 1,
                  lua_Integer = 1, lua_Number = 1, socklen_t = 1, FILE = 1, volatile = 1, typedef = 1 }
local LUA_OPEN = { ["function"] = 1, ["if"] = 1, ["do"] = 1, ["repeat"] = 1 }
local LUA_CLOSE = { ["end"] = 1, ["until"] = 1 }
local LUA_NOT_START = { ["end"] = 1, ["else"] = 1, ["elseif"] = 1, ["until"] = 1, ["then"] = 1,
                        ["do"] = 1, ["and"] = 1, ["or"] = 1, ["in"] = 1, ["not"] = 1 }

local function balanced(s)
  local d = 0
  for ch in s:gmatch("[%(%)%[%]{}]") do
    d = d + (ch:match("[%(%[{]") and 1 or -1)
    if d < 0 then return false end
  end
  return d == 0
end

-- All candidate sites of one file: { {rule=, at=, from=, to=} ... }
local function sites(path, text)
  local kind = lang(path, text)
  if not kind then return {} end
  local m, strings = mask(text, kind)
  local list = {}
  local function add(rule, at, from, to) list[#list + 1] = { rule = rule, at = at, from = from, to = to } end

  -- Binary operators, written with a space on both sides (so that unary
  -- minus, pointer declarations and address-of are not taken for them).
  local ops = {}
  for op in pairs(swaps[kind].relop) do ops[op] = "relop" end
  for op in pairs(swaps[kind].arith) do ops[op] = "arith" end
  for op in pairs(swaps[kind].andor) do ops[op] = "andor" end
  for at, op in m:gmatch("()%s(%S+)%f[%s]") do
    local rule = ops[op]
    if rule then add(rule, at + 1, op, swaps[kind][rule][op]) end
  end

  -- Integer constants (not part of a name, not floats).
  for at, num, after in m:gmatch("()([%w_%.]+)()") do
    local before = m:sub(at - 1, at - 1)
    local v = num:match("^0[xX]%x+$") and tonumber(num) or num:match("^%d+$") and tonumber(num)
    if kind == "c" then
      local base, suffix = num:match("^(0[xX]%x+)([uUlL]*)$")
      if not base then base, suffix = num:match("^(%d+)([uUlL]*)$") end
      v = base and tonumber(base)
      if v and before ~= "." and not (suffix ~= "" and #suffix > 3) then
        local new = (#list % 2 == 0 or v == 0) and v + 1 or v - 1
        local txt = base:match("^0[xX]") and ("0x%x"):format(new) or tostring(new)
        add("const", at, base, txt)
      end
    elseif v and before ~= "." and before ~= "$"
      and not (kind == "sh" and (before:match("[%-&<>]") or m:sub(at + #num, at + #num):match("[<>]"))) then
      local new = (#list % 2 == 0 or v == 0) and v + 1 or v - 1
      add("const", at, num, num:match("^0[xX]") and ("0x%x"):format(new) or tostring(new))
    end
  end

  -- Byte order: a conversion call dropped; a pack/unpack format turned around.
  if kind == "c" then
    for _, fn in ipairs(order_fns) do
      for at in m:gmatch("()%f[%w_]" .. fn .. "%s*%(") do add("order", at, fn, "") end
    end
  elseif kind == "lua" then
    for _, sp in ipairs(strings) do
      local a = sp[1]
      if m:sub(1, a - 1):match("pack%s*%(%s*$") or m:sub(1, a - 1):match("unpack%s*%(%s*$") then
        local s = text:sub(a + 1, sp[2] - 1)
        local k = s:find("[<>]")
        if k then add("order", a + k, s:sub(k, k), s:sub(k, k) == ">" and "<" or ">") end
      end
    end
  end

  local ls = lines_of(m)

  -- Two adjacent lines of the same shape that read different fields (x.a /
  -- x->a): the fields swapped.
  if kind ~= "sh" then
    for i = 1, #ls - 1 do
      local l1, l2 = ls[i], ls[i + 1]
      if #l1.s > 0 and l1.s:match("%S") then
        local t1, t2 = {}, {}
        for p, sep, name in l1.s:gmatch("()(%.?%-?>?)([%a_][%w_]*)") do t1[#t1 + 1] = { p, sep, name } end
        for p, sep, name in l2.s:gmatch("()(%.?%-?>?)([%a_][%w_]*)") do t2[#t2 + 1] = { p, sep, name } end
        local function skel(x) return (x:gsub('"%s*"', '""'):gsub("'%s*'", "''"):gsub("[%a_][%w_]*", "@")) end
        local skel1, skel2 = skel(l1.s), skel(l2.s)
        if #t1 == #t2 and skel1 == skel2 then
          local diff
          for k = 1, #t1 do
            if t1[k][3] ~= t2[k][3] then
              if diff then diff = false break end
              diff = k
            end
          end
          if diff then
            local a, b = t1[diff], t2[diff]
            if a[2] == "." or a[2] == "->" then
              -- from: both lines; to: both lines with the two names traded
              local from = text:sub(l1.a, l2.b)
              local to = text:sub(l1.a, l1.a + a[1] - 2) .. a[2] .. b[3]
                .. text:sub(l1.a + a[1] - 1 + #a[2] + #a[3], l1.b) .. "\n"
                .. text:sub(l2.a, l2.a + b[1] - 2) .. b[2] .. a[3]
                .. text:sub(l2.a + b[1] - 1 + #b[2] + #b[3], l2.b)
              add("fields", l1.a, from, to)
            end
          end
        end
      end
    end
  end

  -- Conditions negated.
  if kind == "c" then
    for at, kw, open in m:gmatch("()%f[%w_](%a+)%s*()%(") do
      if kw == "if" or kw == "while" then
        local depth, j = 0, open
        repeat
          local ch = m:sub(j, j)
          if ch == "(" then depth = depth + 1 elseif ch == ")" then depth = depth - 1 end
          j = j + 1
        until depth == 0 or j > #m
        local cond = text:sub(open + 1, j - 2)
        add("negate", open, text:sub(open, j - 1), "(!(" .. cond .. "))")
      end
    end
  elseif kind == "lua" then
    for _, l in ipairs(ls) do
      for p, kw in l.s:gmatch("()%f[%w_](%a+)%f[^%w_]") do
        local stop = ({ ["if"] = "then", ["elseif"] = "then", ["while"] = "do", ["until"] = "$" })[kw]
        if stop then
          local cs = p + #kw + 1
          local ce = stop == "$" and #l.s + 1 or l.s:find("%f[%w_]" .. stop .. "%f[^%w_]", cs)
          if ce then
            local cond = text:sub(l.a + cs - 1, l.a + ce - 2):match("^(.-)%s*$")
            if cond:match("%S") and balanced(l.s:sub(cs, ce - 1)) then
              add("negate", l.a + cs - 1, cond, "not (" .. cond .. ")")
            end
          end
        end
      end
    end
  else
    for _, l in ipairs(ls) do
      local p, kw = l.s:match("^%s*()(%a+) ")
      if (kw == "if" or kw == "while" or kw == "elif") and not l.s:match("^%s*%a+ !") then
        add("negate", l.a + p - 1 + #kw + 1, "", "! ")
      end
    end
  end

  -- One-line statements deleted (the line kept, emptied, so that line
  -- numbers in messages do not move).
  local depth = 0
  for i, l in ipairs(ls) do
    local s = l.s
    local prev = i > 1 and ls[i - 1].s or ""
    local nxt = ls[i + 1] and ls[i + 1].s or ""
    local start = depth == 0
    for ch in s:gmatch("[%(%)%[%]{}]") do
      if ch == "(" or ch == "[" then depth = depth + 1 elseif ch == ")" or ch == "]" then depth = depth - 1 end
    end
    if depth < 0 then depth = 0 end
    local body = s:match("^%s*(.-)%s*$")
    local first = body:match("^[%a_][%w_]*")
    local ok = false
    if body ~= "" and start and depth == 0 then
      if kind == "c" then
        local pv = prev:match("(%S)%s*$")
        ok = body:match(";$") and not body:match("^[{}]") and (pv == nil or pv:match("[;{}:]"))
          and (first == "return" or not (C_TYPES[first] or body:match("^[%a_][%w_]*%s+%**[%a_][%w_]*%s*[=;%[,]")))
          and not body:match("^case ") and not body:match("^default")
          and balanced(body)
      elseif kind == "lua" then
        local opens, closes = 0, 0
        for w in body:gmatch("%f[%w_]%a+%f[^%w_]") do
          if LUA_OPEN[w] then opens = opens + 1 elseif LUA_CLOSE[w] then closes = closes + 1 end
        end
        local pv = prev:match("(%S)%s*$")
        local nx = nxt:match("^%s*(%S+)")
        ok = first and not LUA_NOT_START[first] and opens == closes and balanced(body)
          and not (first == "local" and body:match("^local%s+function"))
          and not (first == "function" or first == "return" and body == "return")
          and not (pv and pv:match("[,%(%[{=%+%-%*/]") or prev:match("%f[%w_]and%s*$") or prev:match("%f[%w_]or%s*$")
                   or prev:match("%.%.%s*$"))
          and not (nx and (nx:match("^%.%.") or nx == "and" or nx == "or" or nx:match("^[%.:%(%[%+%-%*/]")
                           or nx:match("^==") or nx:match("^~=")))
          and not body:match("[,=]$")
      else
        local pv = prev:match("(%S+)%s*$") or ""
        ok = first and not ({ ["if"] = 1, ["then"] = 1, ["else"] = 1, ["elif"] = 1, fi = 1, ["do"] = 1, done = 1,
                              case = 1, esac = 1, ["for"] = 1, ["while"] = 1, ["function"] = 1, ["in"] = 1 })[first]
          and not body:match("[\\|{(&;]$") and not body:match("%)$") and not body:match("^%w+%(%)")
          and not (pv:match("\\$") or pv:match("|$") or pv:match("&&$") or pv:match("||$"))
      end
    end
    if ok then
      local a = l.a + (s:find("%S") - 1)
      add("delete", a, text:sub(a, l.a + #s:match("^(.-)%s*$") - 1), "")
    end
  end

  table.sort(list, function(x, y) return x.at < y.at or x.at == y.at and x.rule < y.rule end)
  for _, s in ipairs(list) do s.file = path end
  return list
end

local function files(root)
  local all = {}
  for _, pat in ipairs { "src/*.c", "lua/*.lua", "lessons/*.lua", "scripts/*" } do
    local p = io.popen("cd '" .. root .. "' && ls -1d " .. pat .. " 2>/dev/null")
    for f in p:lines() do all[#all + 1] = f end
    p:close()
  end
  table.sort(all)
  return all
end

local function all_sites(root)
  local list = {}
  for _, f in ipairs(files(root)) do
    for _, s in ipairs(sites(f, read(root .. "/" .. f))) do list[#list + 1] = s end
  end
  return list
end

-- splitmix64: the same sequence for a seed on every machine and Lua build.
local function rng(seed)
  local x = seed
  return function(n)   -- uniform in 1..n
    x = x + 0x9e3779b97f4a7c15
    local z = x
    z = (z ~ (z >> 30)) * 0xbf58476d1ce4e5b9
    z = (z ~ (z >> 27)) * 0x94d049bb133111eb
    z = z ~ (z >> 31)
    return math.ult(0, n) and (z % n + n) % n + 1 or 1
  end
end

local function esc(s) return (s:gsub("\\", "\\\\"):gsub("\n", "\\n"):gsub("\t", "\\t")) end
local function unesc(s) return (s:gsub("\\(.)", { n = "\n", t = "\t", ["\\"] = "\\" })) end

local function load_rmut(path)
  local m = {}
  for line in read(path):gmatch("[^\n]+") do
    local k, v = line:match("^(%a+): ?(.*)$")
    if k then m[k] = (k == "from" or k == "to" or k == "context") and unesc(v) or v end
  end
  m.at = tonumber(m.at)
  return m
end

local function line_at(text, at)
  local a = at
  while a > 1 and text:sub(a - 1, a - 1) ~= "\n" do a = a - 1 end
  local b = text:find("\n", at, true) or #text + 1
  return a, b - 1
end

local cmd = arg[1]
if cmd == "sites" then
  local by = {}
  local list = all_sites(arg[2])
  for _, s in ipairs(list) do
    local area = s.file:match("^[^/]+")
    by[s.rule .. "\t" .. area] = (by[s.rule .. "\t" .. area] or 0) + 1
  end
  local keys = {}
  for k in pairs(by) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do print(k, by[k]) end
  print("total", #list)
elseif cmd == "file" then   -- every site of one file, for a person checking the rules
  for _, s in ipairs(sites(arg[3], read(arg[2] .. "/" .. arg[3]))) do
    print(s.rule, s.at, esc(s.from), esc(s.to))
  end
elseif cmd == "pick" then
  local root, n, seed, outdir = arg[2], tonumber(arg[3]), tonumber(arg[4]), arg[5]
  local list = all_sites(root)
  local r = rng(seed)
  n = math.min(n, #list)
  for i = 1, n do   -- a partial Fisher-Yates shuffle: n distinct sites
    local j = i + r(#list - i + 1) - 1
    list[i], list[j] = list[j], list[i]
    local s = list[i]
    local text = read(root .. "/" .. s.file)
    local line = select(2, text:sub(1, s.at):gsub("\n", "")) + 1
    local name = ("s%d-%03d"):format(seed, i)
    local f = assert(io.open(outdir .. "/" .. name .. ".rmut", "wb"))
    local a, b = line_at(text, s.at)
    f:write(("# %s at %s:%d\nrule: %s\nfile: %s\nline: %d\nat: %d\ncol: %d\ncontext: %s\nfrom: %s\nto: %s\n"):format(
      s.rule, s.file, line, s.rule, s.file, line, s.at, s.at - a, esc(text:sub(a, b)), esc(s.from), esc(s.to)))
    f:close()
    print(name)
  end
elseif cmd == "apply" or cmd == "show" then
  local m = load_rmut(cmd == "apply" and arg[3] or arg[2])
  local root = cmd == "apply" and arg[2] or m.root
  if cmd == "show" then root = arg[3] end
  local text = read(root .. "/" .. m.file)
  if text:sub(m.at, m.at + #m.from - 1) ~= m.from and m.context then
    -- the file changed since the mutant was picked (--again): the same line, found by its text
    local a = text:find("\n" .. m.context .. "\n", 1, true)
    if a then m.at = a + 1 + tonumber(m.col) end
  end
  if text:sub(m.at, m.at + #m.from - 1) ~= m.from then
    io.stderr:write(m.file, ": the text at ", m.at, " is no longer ", ("%q"):format(m.from), "\n")
    os.exit(1)
  end
  local new = text:sub(1, m.at - 1) .. m.to .. text:sub(m.at + #m.from)
  if cmd == "apply" then
    local f = assert(io.open(root .. "/" .. m.file, "wb"))
    f:write(new)
    f:close()
    print(m.file)
  else
    local a = line_at(text, m.at)
    local _, b = line_at(text, m.at + math.max(#m.from - 1, 0))
    local old = text:sub(a, b)
    local _, nb = line_at(new, m.at + math.max(#m.to - 1, 0))
    local now = new:sub(a, nb):gsub("^%s+", "")
    print(table.concat({ m.file, esc(old:gsub("^%s+", "")), now == "" and "(deleted)" or esc(now), m.rule }, "\t"))
  end
else
  io.stderr:write("usage: random.lua sites ROOT | pick ROOT N SEED OUTDIR | apply ROOT RMUT | show RMUT ROOT\n")
  os.exit(2)
end
