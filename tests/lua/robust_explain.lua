-- Issue 19 item 6: an explanation reads what the binding read. The binding
-- reads a WR's sg_list and a modify's attr raw; the explanation used to walk
-- them with ipairs/pairs, through the user's __index/__pairs: a list whose
-- __index never returns nil made it loop forever.
local R = dofile((arg[0]:gsub("[^/]*$", "")) .. "robust_lib.lua")
local ctx, pd, cq, caps = R.setup()
local mr = pd:reg_mr(4096, { "LOCAL_WRITE" })
local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = caps }
local touched = 0
local function hostile(t)
  return setmetatable(t, {
    __index = function() touched = touched + 1; return { mr = mr } end,
    __pairs = function() touched = touched + 1; return function() return "qp_state", "RTS" end end,
    __len = function() touched = touched + 1; return 1000 end })
end

-- The issue's reproducer: an INLINE SEND above max_inline_data (in RESET,
-- so the post fails and is explained).
local msg = R.refused("INLINE send, sg_list with an endless __index", function()
  return qp:post_send{ opcode = "SEND", send_flags = { "INLINE" },
    sg_list = hostile({ { mr = mr, offset = 0, length = 4000 } }) } end,
  "ibv_post_send", "INLINE send of 4000 bytes is above the QP's cap.max_inline_data")
R.check(touched == 0, "the user's metamethods ran %d times", touched)

-- modify: the attr is read raw, by the binding and by the explanation.
msg = R.refused("modify with an endless __pairs attr", function()
  return qp:modify(hostile({ qp_state = "RTR" })) end, "ibv_modify_qp", "EINVAL")
R.check(touched == 0, "the user's metamethods ran %d times", touched)
R.check(msg:find("RESET", 1, true), "the explanation lacks the QP's state: %s", msg)
qp:destroy()
mr:dereg()
print("robust_explain: ok")
