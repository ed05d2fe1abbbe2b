-- The masks verbs.export_c writes, against ibv_modify_qp(3) and
-- ibv_modify_srq(3): every ibv_qp_attr key is modified alone (most of these
-- calls fail with EINVAL, which does not matter: the call is recorded), and
-- each ibv_modify_qp / ibv_modify_srq line of the export must carry exactly
-- the bit the man page names for that key. Run by tests/device/oracle.bats.
local M = dofile((arg[0]:match("^(.*)/") or ".") .. "/man_masks.lua")
local want_qp, want_srq = M.qp_attr(), M.srq_attr()

local ctx = verbs.open(os.getenv("RXE_DEV"))
local pd = ctx:alloc_pd()
local cq = ctx:create_cq(4)
local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,
  cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
local srq = pd:create_srq{ max_wr = 4, max_sge = 1 }

-- A value of the key's type that the marshaller accepts.
local function value(f)
  if f.type == "enum" then return verbs.enum(f.enum).names[1]
  elseif f.type == "flags" then return {}
  elseif f.name == "cap" then return { max_send_wr = 1 }
  elseif f.type == "struct" then return { port_num = 1 }
  end
  return f.min == 0 and 1 or 1
end

verbs.warnings(false)   -- some of these are what C accepts but means nothing
verbs.record(true)
local order = {}
for _, f in ipairs(verbs.fields("ibv_qp_attr")) do
  if want_qp[f.name] then
    order[#order + 1] = f.name
    pcall(qp.modify, qp, { [f.name] = value(f) })
  end
end
local srq_order = { "max_wr", "srq_limit" }
srq:modify{ max_wr = 8 }
pcall(srq.modify, srq, { srq_limit = 2 })
-- ibv_qp_init_attr_ex: comp_mask names the fields given (verbs.h names each bit after its field)
local ex_keys = { { "pd", "send_ops_flags" }, { "pd", "create_flags", "send_ops_flags" } }
for _, keys in ipairs(ex_keys) do
  local t = { qp_type = "RC", send_cq = cq, recv_cq = cq,
    cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
  for _, k in ipairs(keys) do t[k] = k == "pd" and pd or k == "send_ops_flags" and { "SEND" } or {} end
  pcall(ctx.create_qp_ex, ctx, t)
end
verbs.record(false)

local path = os.tmpname()
-- export_c gives the number of calls written and the list of those left out (none here)
local r = table.pack(verbs.export_c(path))
print("export_c", r.n, r[1], type(r[2]), #r[2])
local f = assert(io.open(path))
local c = f:read("a")
f:close()
os.remove(path)
local i, j = 0, 0
for mask in c:gmatch("ibv_modify_qp%([%w_]+, &[%w_]+, ([^)]+)%)") do
  i = i + 1
  print(("qp %s %s %s"):format(order[i], mask:gsub("%s", ""), want_qp[order[i]]))
end
for mask in c:gmatch("ibv_modify_srq%([%w_]+, &[%w_]+, ([^)]+)%)") do
  j = j + 1
  print(("srq %s %s %s"):format(srq_order[j], mask:gsub("%s", ""), want_srq[srq_order[j]]))
end
local k = 0
for mask in c:gmatch("struct ibv_qp_init_attr_ex [%w_]+ = {.-%.comp_mask = ([^,}]+)") do
  k = k + 1
  local want = {}
  for n, key in ipairs(ex_keys[k]) do want[n] = "IBV_QP_INIT_ATTR_" .. key:upper() end
  local got = {}   -- the bits in any order: C's | is commutative
  for bit in mask:gmatch("[%w_]+") do got[#got + 1] = bit end
  table.sort(got); table.sort(want)
  print(("qp_ex %s %s %s"):format(table.concat(ex_keys[k], "+"), table.concat(got, "|"), table.concat(want, "|")))
end
print("calls", i, #order, j, #srq_order, k, #ex_keys)
