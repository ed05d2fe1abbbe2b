-- Boundaries on both sides, on rxe: for each range the bindings check, the
-- largest (or smallest) value that passes the check and the first one that
-- fails it. "Passes" means the check let the call through: the verb may
-- still fail (EINVAL from rxe is fine); "fails" means verbsh refused it
-- before C saw it, naming the argument. Run by tests/device/oracle.bats.
local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/../lua/verbs_lib.lua")
local check, eq = T.check, T.eq

verbs.warnings(false)   -- several of the values that pass are ones C accepts and rxe refuses
local ctx = verbs.open(os.getenv("RXE_DEV"))
local GI = T.gid_index
local gid = ctx:query_gid(1, GI)
local pd = ctx:alloc_pd()
local cq = ctx:create_cq(64)

-- "pass" (returned, or a verb's error / any error but a range refusal) or the refusal's text.
local function try(fn, ...)
  local ok, e = pcall(fn, ...)
  if ok then return "pass", e end
  local s = tostring(e)
  if type(e) == "string" and (s:find("out of range", 1, true) or s:find("not inside an MR", 1, true)
      or s:find("bad argument", 1, true)) then
    return "refused", s
  end
  return "pass", e   -- the verb ran and failed: the check let it through
end

local edges = 0
-- edge(what, fn, good, bad, want): fn(good) passes the check, fn(bad) is refused with want in the message.
local function edge(what, fn, good, bad, want)
  local r1, v1 = try(fn, good)
  check(r1 == "pass", "%s: %s should pass the check, got: %s", what, tostring(good), tostring(v1))
  if r1 == "pass" and type(v1) == "userdata" and v1.destroy and tostring(v1):match("^ah ") then v1:destroy() end
  local r2, v2 = try(fn, bad)
  check(r2 == "refused", "%s: %s should be refused, got %s", what, tostring(bad), tostring(v2))
  check(tostring(v2):find(want, 1, true), "%s: refusal of %s says %q, want %q", what, tostring(bad), tostring(v2), want)
  edges = edges + 1
end

-- ---- every ranged key of the structs the verbs read -------------------------------
local function ranged(ctype, fn, skip)
  for _, f in ipairs(verbs.fields(ctype)) do
    if (f.type == "uint" or f.type == "int") and f.max and not (skip and skip[f.name]) and not f.input_only then
      local key = f.name
      edge(ctype .. "." .. key .. " max", function(v) return fn(key, v) end, f.max, f.max + 1,
        ("%d is out of range (%d..%d)"):format(f.max + 1, f.min, f.max))
      edge(ctype .. "." .. key .. " min", function(v) return fn(key, v) end, f.min, f.min - 1,
        ("%d is out of range (%d..%d)"):format(f.min - 1, f.min, f.max))
    end
  end
end

local rc = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,
  cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 } }
-- sq_draining has no mask bit: qp:modify refuses it whatever its value
ranged("ibv_qp_attr", function(k, v) return rc:modify{ [k] = v } end, { sq_draining = true })
ranged("ibv_ah_attr", function(k, v)
  local a = { is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = GI, hop_limit = 1 } }
  a[k] = v
  return pd:create_ah(a)
end)
ranged("ibv_global_route", function(k, v)
  local g = { dgid = gid, sgid_index = GI, hop_limit = 1 }
  g[k] = v
  return pd:create_ah{ is_global = 1, port_num = 1, grh = g }
end)
ranged("ibv_qp_cap", function(k, v)
  local c = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 }
  c[k] = v
  local qp = pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq, cap = c }
  qp:destroy()
end)
ranged("ibv_qp_init_attr", function(k, v)
  local qp = pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq, [k] = v,
    cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
  qp:destroy()
end)
ranged("ibv_srq_attr", function(k, v) local s = pd:create_srq{ max_wr = 4, max_sge = 1, [k] = v }; s:destroy() end)
local srq = pd:create_srq{ max_wr = 4, max_sge = 1 }
ranged("ibv_srq_attr", function(k, v) return srq:modify{ [k] = v } end, { max_sge = true })
ranged("ibv_cq_init_attr_ex", function(k, v)
  local t = { cqe = 4, wc_flags = { "BYTE_LEN" } }
  t[k] = v
  ctx:create_cq_ex(t):destroy()
end)
ranged("ibv_create_cq options", function(k, v) ctx:create_cq(4, { [k] = v }):destroy() end)
ranged("ibv_wc", function(k, v)
  local ah = pd:create_ah_from_wc({ status = "SUCCESS", wc_flags = "GRH", [k] = v }, ("\0"):rep(40), 1)
  ah:destroy()
end)
local cm = verbs.create_event_channel()
local id = cm:create_id("TCP")
ranged("rdma_conn_param", function(k, v) return id:connect{ [k] = v } end, { private_data_len = true })
id:destroy()

-- ---- the range checks of single arguments -------------------------------------------
edge("query_port port_num", function(v) return ctx:query_port(v) end, 255, 256, "256 is out of range")
edge("query_gid index", function(v) return ctx:query_gid(1, v) end, 0xffff, 0x10000, "65536 is out of range")
edge("create_cq cqe", function(v) ctx:create_cq(v):destroy() end, 0x7fffffff, 0x80000000, "2147483648 is out of range")
edge("cq:poll max", function(v) return cq:poll(v) end, 1 << 20, (1 << 20) + 1, "1048577 is out of range")
edge("cq:wait n", function(v) return cq:wait(v, 0) end, 1 << 20, (1 << 20) + 1, "1048577 is out of range")
edge("cq:req_notify solicited_only", function(v) return cq:req_notify(v) end, 1, 2, "2 is out of range")

local mr = pd:reg_mr(4096, "LOCAL_WRITE")
edge("mr:read offset", function(v) return mr:read(v, 0) end, 4096, 4097, "4097 is out of range")
edge("mr:read length", function(v) return mr:read(1, v) end, 4095, 4096, "")
edge("mr:write at the end", function(v) return mr:write(v, "abc") end, 4093, 4094, "")
edge("mr:fill byte", function(v) return mr:fill(v) end, 255, 256, "256 is out of range")

-- ---- INLINE SGEs at the MR's first and last byte (the only MR alive) -------------------
local ud = pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq,
  cap = { max_send_wr = 16, max_recv_wr = 16, max_send_sge = 2, max_recv_sge = 2, max_inline_data = 64 } }
ud:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = 0x22334455 }
ud:modify{ qp_state = "RTR" }; ud:modify{ qp_state = "RTS", sq_psn = 0 }
local ah = pd:create_ah{ is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = GI, hop_limit = 1 } }
local function inline_at(addr, len)
  return ud:post_send{ wr_id = 9, opcode = "SEND", send_flags = { "INLINE", "SIGNALED" },
    sg_list = { { addr = addr, length = len, lkey = 0 } }, ud = { ah = ah, remote_qpn = ud.qp_num, remote_qkey = 0x22334455 } }
end
edge("INLINE at the MR's first byte", function(a) return inline_at(a, 16) end, mr.addr, mr.addr - 1, "is not inside an MR")
edge("INLINE ending at the MR's last byte", function(a) return inline_at(a, 16) end, mr.addr + 4096 - 16,
  mr.addr + 4096 - 15, "is not inside an MR")
edge("INLINE length to the MR's end", function(n) return inline_at(mr.addr + 4096 - 32, n) end, 32, 33, "is not inside an MR")
eq(#cq:wait(3, 5000), 3, "the three INLINE sends that passed completed")

-- ---- exactly max_send_sge / max_recv_sge SGEs, and one more ----------------------------
local _, init = ud:query()
local function sges(n, len)
  local l = {}
  for i = 1, n do l[i] = { mr = mr, offset = 64 * (i - 1), length = len } end
  return l
end
local ms, mrs = init.cap.max_send_sge, init.cap.max_recv_sge
check(ms >= 2 and mrs >= 2, "caps %d %d", ms, mrs)
-- the receive first: a UD datagram with no receive posted is dropped
local ok = pcall(ud.post_recv, ud, { wr_id = 12, sg_list = sges(mrs, 64) })
check(ok, "post_recv with exactly max_recv_sge SGEs")
local e
ok, e = pcall(ud.post_recv, ud, { wr_id = 13, sg_list = sges(mrs + 1, 64) })
check(not ok and tostring(e):find("max_recv_sge", 1, true), "post_recv with max_recv_sge + 1 SGEs: %s", tostring(e))
local r1, v1 = try(function() return ud:post_send{ wr_id = 10, opcode = "SEND", send_flags = "SIGNALED", sg_list = sges(ms, 1),
  ud = { ah = ah, remote_qpn = ud.qp_num, remote_qkey = 0x22334455 } } end)
eq(r1, "pass", "post_send with exactly max_send_sge SGEs: " .. tostring(v1))
ok, e = pcall(ud.post_send, ud, { wr_id = 11, opcode = "SEND", send_flags = "SIGNALED", sg_list = sges(ms + 1, 1),
  ud = { ah = ah, remote_qpn = ud.qp_num, remote_qkey = 0x22334455 } })
check(not ok and tostring(e):find("max_send_sge", 1, true), "post_send with max_send_sge + 1 SGEs: %s", tostring(e))
print(("SGEs: max_send_sge %d, max_recv_sge %d; one more: %s"):format(ms, mrs, tostring(e)))
edges = edges + 2
eq(#cq:wait(2, 5000), 2, "the max_send_sge send and its receive completed")

-- ---- the extended QP's builder ------------------------------------------------------------
local xq = ctx:create_qp_ex{ pd = pd, qp_type = "UD", send_cq = cq, recv_cq = cq, send_ops_flags = { "SEND" },
  cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }
xq:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = 0x22334455 }
xq:modify{ qp_state = "RTR" }; xq:modify{ qp_state = "RTS", sq_psn = 0 }
-- each try in a session of its own, aborted after
local function in_session(fn)
  return function(v)
    xq:wr_start(); xq.wr_id = 20; xq:wr_send()
    local ok, e = pcall(fn, v)
    pcall(xq.wr_abort, xq)
    if not ok then error(e, 0) end
  end
end
edge("wr_set_ud_addr remote_qpn", in_session(function(v) return xq:wr_set_ud_addr(ah, v, 0x22334455) end),
  0xffffff, 0x1000000, "16777216 is out of range")
edge("wr_set_sge offset", in_session(function(v) return xq:wr_set_sge(mr, v, 0) end), 4096, 4097, "4097 is out of range")

-- ---- rdma_cm ----------------------------------------------------------------------------------
local lid = cm:create_id("TCP")
lid:bind_addr("*:7497")
edge("listen backlog", function(v) return lid:listen(v) end, 0x7fffffff, 0x80000000, "2147483648 is out of range")
local cid = cm:create_id("TCP")
edge("resolve_addr timeout_ms", function(v) return cid:resolve_addr(nil, os.getenv("RXE_ADDR") .. ":7497", v) end,
  0x7fffffff, 0x80000000, "2147483648 is out of range")
-- an event is there (ADDR_RESOLVED): the longest wait returns it at once
edge("get_cm_event timeout_ms", function(v) local ev = cm:get_cm_event(v); ev:ack() end, 0x7fffffff, 0x80000000,
  "2147483648 is out of range")
cid:destroy(); lid:destroy(); cm:destroy()

-- ---- doctor's uverbs ABI check: the kernel's ABI at each end of libibverbs' range ----------------
local real = verbs.sysinfo
local kabi = tonumber(io.open("/sys/class/infiniband_verbs/abi_version"):read("l"))
local function abi(min, max)
  verbs.sysinfo = function() local s = real(); s.uverbs_abi_min, s.uverbs_abi_max = min, max; return s end
  local st = "ok"
  for _, c in ipairs(require("verbs.doctor").run().checks) do if c.name == "abi" then st = c.status end end
  verbs.sysinfo = real
  return st
end
eq(abi(kabi, kabi), "ok", "doctor: kernel ABI = the range's both ends")
eq(abi(kabi + 1, kabi + 5), "fail", "doctor: kernel ABI one below the range")
eq(abi(kabi - 5, kabi - 1), "fail", "doctor: kernel ABI one above the range")
edges = edges + 1

print(("boundaries: %d edges"):format(edges))
ah:destroy(); xq:destroy(); ud:destroy(); rc:destroy(); srq:destroy(); mr:dereg(); cq:destroy(); pd:dealloc(); ctx:close()
T.done("boundaries")
