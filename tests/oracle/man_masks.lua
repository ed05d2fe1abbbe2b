-- The C names of the mask bits, as libibverbs' own manual pages give them
-- (ibv_modify_qp(3), ibv_modify_srq(3), from libibverbs-dev): an oracle
-- for verbs.fields' `mask` and for the masks verbs.export_c writes, read
-- from a source that is not verbsh's.
local M = {}

local function man(page)
  local path = "/usr/share/man/man3/" .. page .. ".3.gz"
  local f = io.open(path)
  if not f then error(path .. " is missing: install libibverbs-dev (scripts/deps test)", 0) end
  f:close()
  local p = assert(io.popen("zcat " .. path))
  local text = p:read("a")
  p:close()
  return text
end

-- ibv_qp_attr: { field = "IBV_QP_..." } from ".B IBV_QP_X \fR Set field"
-- (and "Set the alternative path via: a, b, c, d"), and the struct's
-- fields in order, from the page's copy of struct ibv_qp_attr.
function M.qp_attr()
  local text = man("ibv_modify_qp")
  local map, fields = {}, {}
  local body = assert(text:match("struct ibv_qp_attr {(.-)};"), "no struct ibv_qp_attr in ibv_modify_qp(3)")
  for name in body:gmatch("[%w_]+%s+([%w_]+);") do fields[#fields + 1] = name end
  for bit, what in text:gmatch("%.B (IBV_QP_[%u_]+) \\fR ([^\n]+)") do
    local list = what:match("via: (.*)$") or what:match("^%a+ ([%w_]+)$")
    for field in assert(list, "unreadable line for " .. bit):gmatch("[%w_]+") do
      assert(not map[field], field .. " is named twice")
      map[field] = bit
    end
  end
  return map, fields
end

-- ibv_srq_attr: the page says "IBV_SRQ_MAX_WR Resize the SRQ" and
-- "IBV_SRQ_LIMIT Set the SRQ limit"; resizing is max_wr, the limit srq_limit.
function M.srq_attr()
  local text = man("ibv_modify_srq")
  local map = {}
  for bit, what in text:gmatch("%.B (IBV_SRQ_[%u_]+) \\fR ([^\n]+)") do
    if what:match("^Resize the SRQ") then map.max_wr = bit
    elseif what:match("^Set the SRQ limit") then map.srq_limit = bit
    else error("ibv_modify_srq(3) has a mask this oracle does not know: " .. bit) end
  end
  return map
end

return M
