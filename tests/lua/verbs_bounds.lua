-- Every field with a maximum (tests/lua/bounds_list.lua), on rxe: the
-- maximum gets past the argument checks (the verb then succeeds or fails on
-- its own, as C would), and max + 1 is refused with an error naming the key
-- and the range, before any verb is called; so is -1. A 0/1 field takes
-- true and false as well.
local dir = arg[0]:match("^(.*)/") or "."
local T = dofile(dir .. "/verbs_lib.lua")
local list = dofile(dir .. "/bounds_list.lua")

local E = { gid_index = T.gid_index }
E.ctx = verbs.open(os.getenv("RXE_DEV"))
E.gid = E.ctx:query_gid(1, E.gid_index)
E.pd = E.ctx:alloc_pd()
E.cq = E.ctx:create_cq(16)
E.mr = E.pd:reg_mr(4096, "LOCAL_WRITE")
E.ah = E.pd:create_ah{ is_global = 1, port_num = 1, grh = { dgid = E.gid, sgid_index = E.gid_index, hop_limit = 1 } }
E.ud = E.pd:create_qp{ qp_type = "UD", send_cq = E.cq, recv_cq = E.cq,
  cap = { max_send_wr = 4, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
E.ud:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = 0x11111111 }
E.ud:modify{ qp_state = "RTR" }
E.ud:modify{ qp_state = "RTS", sq_psn = 0 }
E.cm_channel = verbs.create_event_channel()
E.cm_id = E.cm_channel:create_id("TCP")
E.cm_id:resolve_addr(nil, os.getenv("RXE_ADDR") .. ":7479")
E.cm_channel:get_cm_event(5000):expect("ADDR_RESOLVED"):ack()

for _, f in ipairs(list) do
  local what = (f.src or "size") .. ": " .. f.key
  local ok, e = pcall(f.try, E, f.max)
  -- A verb's own failure is an error object naming the verb; a refused
  -- argument is a message.
  T.check(ok or type(e) ~= "string", "%s = %#x: refused: %s", what, f.max, tostring(e))
  local verdict = ok and "ok" or (e.verb .. " " .. tostring(e.errname))
  e = T.raises(what .. " = max + 1", f.try, E, f.max + 1)
  local want = ("%s': %d is out of range (0..%d)"):format(f.key, f.max + 1, f.max)
  T.check(type(e) == "string" and e:find(want, 1, true), "%s = max + 1: %s, want ...%s", what, tostring(e), want)
  e = T.raises(what .. " = -1", f.try, E, -1)
  T.check(type(e) == "string" and e:find(f.key .. "': -1 is out of range (0..", 1, true), "%s = -1: %s", what, tostring(e))
  if f.max == 1 then   -- a 0/1 field takes a boolean too
    ok, e = pcall(f.try, E, true)
    T.check(ok or type(e) ~= "string", "%s = true: refused: %s", what, tostring(e))
  end
  print(("%-28s max %-10d accepted (%s); max + 1 and -1 refused"):format(what, f.max, verdict))
end
T.done("verbs_bounds")
