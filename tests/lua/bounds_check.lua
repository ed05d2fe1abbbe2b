-- tests/host/mutants.bats: checks that tests/lua/bounds_list.lua names every
-- field of the marshaller with a maximum (a `.max =` in a vfield of the C
-- files given as arguments), with that maximum. Prints what is missing or
-- extra, then the count of such fields.
-- the fields with a maximum, from the descriptors: MACRO(..., name, ..., .max = N)
local want, n = {}, 0
for _, path in ipairs(arg) do
  local src = assert(io.open(path)):read("a")
  for args, max in src:gmatch("%u+%(([^()]-)%.max = (%w+)%)") do
    local name
    for a in args:gmatch("[^,]+") do
      a = a:match("^%s*(.-)%s*$")
      if not name and a:match("^[%l_][%w_]*$") and not a:match("_t$") then name = a end
    end
    want[path:match("[^/]+$") .. ":" .. name] = math.tointeger(tonumber(max)); n = n + 1
  end
end
local got = {}
for _, f in ipairs(dofile("tests/lua/bounds_list.lua")) do
  if f.src then got[f.src .. ":" .. f.key:match("[%w_]+$")] = f.max end
end
for k, max in pairs(want) do
  if got[k] ~= max then print(("missing or wrong: %s (max %d), the list has %s"):format(k, max, got[k])) end
end
for k in pairs(got) do if not want[k] then print("not a field with a maximum: " .. k) end end
print(n .. " fields with a maximum")
