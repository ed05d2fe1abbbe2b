-- Issue 19 item 2: every metamethod and method checks its self. A foreign
-- userdata, a table or a number is a Lua error naming the class, never a
-- crash nor another object's bytes.
local R = dofile((arg[0]:gsub("[^/]*$", "")) .. "robust_lib.lua")
local ctx, pd, cq, caps = R.setup()
local mr = pd:reg_mr(64, { "LOCAL_WRITE" })
local wr = verbs.send_wr{ opcode = "SEND" }
local mt = getmetatable(pd)

R.refused("pd __tostring(5)", function() return mt.__tostring(5) end,
  "__tostring of verbs.pd: self must be a verbs.pd, got number")
-- A class with live fields: the object's __index is its own methods table,
-- whose metatable's __index reads the fields (of the object at [0]).
local function fields_of(o) return getmetatable(getmetatable(o).__index).__index end
R.refused("cq fields __index({}, 'x')", function() return fields_of(cq)({}, "x") end,
  "__index of verbs.cq's methods: a table of a cq's own methods expected, got table")
R.refused("pd __gc(send_wr)", function() return mt.__gc(wr) end,
  "__gc of verbs.pd: self must be a verbs.pd, got verbs.send_wr")
R.refused("mr fields __index(cq, 'rkey')", function() return fields_of(mr)(cq, "rkey") end,
  "__index of verbs.mr's methods: a table of a mr's own methods expected, got verbs.cq")
R.refused("mr fields __index(cq's methods, 'rkey')", function() return fields_of(mr)(getmetatable(cq).__index, "rkey") end,
  "__index of verbs.mr's methods: a table of a mr's own methods expected, got table")
R.refused("qp __close(pd)", function() return getmetatable(mr).__close(pd) end,
  "__close of verbs.mr: self must be a verbs.mr, got verbs.pd")
R.refused("pd.reg_mr on a cq", function() return pd.reg_mr(cq, 64) end,
  "calling 'reg_mr' on bad self (verbs.pd expected, got verbs.cq)")
R.refused("send_wr __len(5)", function() return getmetatable(wr).__len(5) end,
  "verbs.send_wr or verbs.recv_wr expected, got number")
-- The right object still works, by hand too; finalizing by hand leaves an
-- object that says so.
R.check(mt.__tostring(pd):find("^pd "), "pd __tostring(pd) gave %s", mt.__tostring(pd))
R.check(fields_of(mr)(getmetatable(mr).__index, "length") == 64, "mr's fields __index(its methods, 'length') is not 64")
R.check(rawget(getmetatable(mr).__index, "dereg") == getmetatable(mr).__methods.dereg, "a method is a raw field of the object's methods")
local cq2 = ctx:create_cq(2)
local cmt = getmetatable(cq2)
cmt.__gc(cq2)
R.refused("cq2:poll() after __gc", function() return cq2:poll() end, "cq was finalized (its __gc was called)")
R.check(tostring(cq2) == "(finalized verbs object)", "tostring(cq2) = %s", tostring(cq2))
R.refused("cq2.cqe after __gc", function() return cq2.cqe end, "cq is finalized (reading 'cqe')")
R.refused("pd:create_qp with a finalized cq", function()
  return pd:create_qp{ qp_type = "RC", send_cq = cq2, recv_cq = cq, cap = caps } end,
  "key 'send_cq': cq was finalized (its __gc was called)")
cmt.__gc(cq2)   -- twice: nothing
mr:dereg()
pd:dealloc()
print("robust_meta: ok")
