-- One state's part of two_states.c: step(phase) with phase "open", "use"
-- (both states), "trace_on" and "trace_off" (state a, around b's "use") and
-- "after" (state b, once state a is closed).
local phase = ...
local function check(cond, what)
  if not cond then error(STATE .. ": " .. what, 2) end
end
local dev = os.getenv("RXE_DEV")
if dev == "" then dev = nil end

if phase == "open" then
  package.cpath = SO_PATH .. package.cpath
  verbs = require "verbs"
  -- Loaded again in the same state: a second module table over the same
  -- classes, and objects of one work with the other.
  package.loaded.verbs = nil
  verbs2 = require "verbs"
  check(verbs2 ~= verbs, "require after clearing package.loaded gave the same table")
  wr = verbs.send_wr{ wr_id = 7, opcode = "SEND" }
  check(tostring(verbs2.send_wr{ opcode = "SEND" }):match("send_wr"), "send_wr from the second module")
  wcs = verbs2.wc_array(4)
  check(#wcs == 4, "wc_array length")
  local ok, err = pcall(function() return wcs[1].status end)
  check(not ok and err:match("the last poll filled 0 entries"), "unfilled wc_array entry: " .. tostring(err))
  check(verbs.enum("ibv_qp_state").values.RTS == 3, "enum RTS")
  print(STATE .. ": open ok")
elseif phase == "use" then
  check(wr.wr_id == 7, "prepared WR read back")
  if dev then
    ctx = verbs.open(dev)
    pd = ctx:alloc_pd()
    cq = ctx:create_cq(8)
    mr = pd:reg_mr(4096, "LOCAL_WRITE")
    qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,
                       cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }
    qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }
    -- ids are per state: each state's first QP is qp1
    local ok, err = pcall(pd.dealloc, pd)
    check(not ok and err:match("pd1 is still used by 2 objects: mr1 %(.-%), qp1 %("), "users of pd1: " .. tostring(err))
    qp:post_recv{ wr_id = 1, sg_list = { { mr = mr, offset = 0, length = 64 } } }
    print(STATE .. ": use ok, " .. tostring(qp))
  else
    print(STATE .. ": use ok (no device: RXE_DEV unset)")
  end
elseif phase == "trace_on" then
  calls = {}
  verbs.trace(function(call) calls[#calls + 1] = call end)
elseif phase == "trace_off" then
  verbs.trace(false)
  check(#calls == 0, "a traced calls it did not make: " .. table.concat(calls, " | "))
  print(STATE .. ": traced nothing of b's")
elseif phase == "after" then
  collectgarbage()
  if dev then
    check(tostring(qp):match("INIT"), "b's QP after a closed: " .. tostring(qp))
    qp:modify{ qp_state = "RESET" }
    local qp2 = pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq,
                              cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 } }
    local ok, err = pcall(cq.destroy, cq)
    check(not ok and err:match("cq1 is still used by 2 objects: qp1 %(.-%), qp2 %("), "users of cq1: " .. tostring(err))
    qp2:destroy(); qp:destroy(); mr:dereg(); cq:destroy(); pd:dealloc(); ctx:close()
  end
  -- the trace switch is per state too: on in b only, so a's verbs (had it
  -- any left) would print nothing
  local lines = {}
  verbs.trace(function(call) lines[#lines + 1] = call end)
  local pd3 = dev and verbs.open(dev):alloc_pd()
  verbs.trace(false)
  check(not dev or (#lines == 2 and lines[2]:match("^ibv_alloc_pd")), "b's trace: " .. table.concat(lines, " | "))
  local ok, err = pcall(verbs.send_wr, { opcode = "SEND", sg_list = 5 })
  check(not ok and err:match("sg_list"), "a bad WR still names its key: " .. tostring(err))
  print(STATE .. ": after ok")
end
