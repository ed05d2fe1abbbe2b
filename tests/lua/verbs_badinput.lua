-- Bad input on a real device: wrong types, unknown keys, out-of-range values,
-- wrong objects. Each is a Lua error naming the function and the key, and
-- nothing crashes. Also: an explicit wrong mask, verbs.open of a missing
-- device, and verbs.trace printing calls as C.
local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/verbs_lib.lua")
local check, eq = T.check, T.eq

local ctx = verbs.open(os.getenv("RXE_DEV"))
local pd = ctx:alloc_pd()
local cq = ctx:create_cq(8)
local mr = pd:reg_mr(4096, "LOCAL_WRITE")
local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,
  cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }

local function msg(what, want, fn, ...)
  local e = T.raises(what, fn, ...)
  local s = tostring(e)
  check(s:find(want, 1, true), "%s: message %q does not contain %q", what, s, want)
  print(("%-28s %s"):format(what .. ":", s))
end

msg("unknown key", "bad argument #1 to 'modify' (unknown key 'qp_acess_flags' (did you mean 'qp_access_flags'?))",
  qp.modify, qp, { qp_state = "INIT", qp_acess_flags = 0 })
msg("unknown nested key", "bad argument #1 to 'modify' (unknown key 'ah_attr.grh.sgid_idx' (did you mean 'sgid_index'?))",
  qp.modify, qp, { ah_attr = { grh = { sgid_idx = 1 } } })
msg("bad enum name", "key 'qp_state': 'RTX' is not a name of ibv_qp_state", qp.modify, qp, { qp_state = "RTX" })
msg("full enum name ok, bad int", "key 'qp_state': 42 is not a value of ibv_qp_state", qp.modify, qp, { qp_state = 42 })
msg("bad flag in list", "key 'qp_access_flags': 'REMOTE_WRTE' is not a name of ibv_access_flags",
  qp.modify, qp, { qp_access_flags = { "REMOTE_READ", "REMOTE_WRTE" } })
msg("wrong type", "key 'pkey_index': integer expected, got string", qp.modify, qp, { pkey_index = "0" })
msg("fraction", "key 'port_num': integer expected, got a fraction", qp.modify, qp, { port_num = 1.5 })
msg("out of range", "key 'dest_qp_num': 16777216 is out of range (0..16777215)", qp.modify, qp, { dest_qp_num = 0x1000000 })
msg("u8 out of range", "key 'port_num': 256 is out of range (0..255)", qp.modify, qp, { port_num = 256 })
msg("bad gid", "key 'ah_attr.grh.dgid': 'nonsense' is not a GID", qp.modify, qp, { ah_attr = { grh = { dgid = "nonsense" } } })
msg("not a table", "bad argument #1 to 'modify' (table expected, got string)", qp.modify, qp, "INIT")
msg("wrong self", "verbs.qp expected, got verbs.pd", qp.modify, pd, {})
msg("wrong object", "bad argument #1 to 'create_qp' (key 'send_cq': verbs.cq expected, got verbs.pd)",
  pd.create_qp, pd, { qp_type = "RC", send_cq = pd, recv_cq = cq })
msg("missing recv_cq", "key 'recv_cq' is required", pd.create_qp, pd, { qp_type = "RC", send_cq = cq })
msg("bad cap", "key 'cap.max_send_wr': integer expected, got string",
  pd.create_qp, pd, { qp_type = "RC", send_cq = cq, recv_cq = cq, cap = { max_send_wr = "4" } })
msg("bad mask name", "'STAT' is not a name of ibv_qp_attr_mask", qp.modify, qp, { qp_state = "INIT" }, "STAT")
msg("no opcode", "key 'opcode' is required", qp.post_send, qp, { wr_id = 1, sg_list = {} })
msg("two union members", "rdma, atomic and ud share a union", qp.post_send, qp,
  { opcode = "RDMA_WRITE", rdma = { rkey = 1 }, atomic = { rkey = 1 } })
msg("bad WR in list", "bad argument #1 to 'post_send' (unknown key '[2].opcod' (did you mean 'opcode'?))",
  qp.post_send, qp, { { opcode = "SEND" }, { opcod = "SEND" } })
msg("SGE beyond MR", "sg_list[1]: offset 4000 + length 200 is beyond the MR's 4096 bytes",
  qp.post_recv, qp, { sg_list = { { mr = mr, offset = 4000, length = 200 } } })
msg("SGE mixed forms", "give mr (with offset) or addr and lkey, not both",
  qp.post_recv, qp, { sg_list = { { mr = mr, addr = 0, lkey = 1 } } })
msg("sg_list not a list", "list of SGEs expected, got number", qp.post_recv, qp, { sg_list = 5 })
msg("imm too big", "key 'imm_data': 32-bit unsigned integer expected", qp.post_send, qp,
  { opcode = "SEND_WITH_IMM", imm_data = 1 << 32 })
msg("mr:read beyond", "bad argument #2 to 'read' (offset 4000 + length 200 is beyond the MR's 4096 bytes)", mr.read, mr, 4000, 200)
msg("mr:write beyond", "2 bytes at offset 4095 are beyond the MR's 4096 bytes", mr.write, mr, 4095, "ab")
msg("mr:fill byte", "byte: 256 is out of range (0..255)", mr.fill, mr, 256)
msg("reg_mr negative", "length: -1 is out of range", pd.reg_mr, pd, -1)
msg("reg_mr wrong type", "length (integer) or initial contents (string) expected, got table", pd.reg_mr, pd, {})
msg("reg_mr bad access", "'REMOTE' is not a name of ibv_access_flags", pd.reg_mr, pd, 64, "REMOTE")
msg("create_cq type", "cqe: integer expected, got string", ctx.create_cq, ctx, "x")
msg("create_cq option", "unknown key 'chanel'", ctx.create_cq, ctx, 4, { chanel = 1 })
msg("query_port range", "port_num: 300 is out of range (0..255)", ctx.query_port, ctx, 300)
msg("create_ah key", "unknown key 'grh.dgi'", pd.create_ah, pd, { grh = { dgi = "::1" } })
msg("srq key", "unknown key 'max_wrs'", pd.create_srq, pd, { max_wrs = 4 })

-- Values the kernel judges are passed through: the verb's own error, explained.
local e = T.raises("create_cq 0", ctx.create_cq, ctx, 0)
eq(e.verb, "ibv_create_cq", "create_cq 0 verb"); eq(e.errname, "EINVAL", "create_cq 0 errno")

-- An explicit mask reproduces the classic bug: the attributes are set, the mask says STATE only.
e = T.raises("wrong mask", qp.modify, qp, { qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }, "STATE")
eq(e.errname, "EINVAL", "wrong mask errno"); eq(#e.context.mask, 1, "mask list"); eq(e.context.mask[1], "STATE", "mask name")
eq(e.context.cur_state, "RESET", "context.cur_state"); eq(e.context.qp_type, "RC", "context.qp_type")
eq(e.object, qp, "error object is the qp")
print("wrong mask: " .. tostring(e):match("[^\n]*"))
qp:modify({ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }, { "STATE", "PKEY_INDEX", "PORT", "ACCESS_FLAGS" })
eq(qp.state, "INIT", "explicit full mask as a list")

-- verbs.open of a device that is not there: an error object with the device list.
e = T.raises("open missing", verbs.open, "nosuchdev0")
eq(e.verb, "ibv_open_device", "open verb"); eq(e.context.reason, "not_found", "open reason")
eq(e.context.requested, "nosuchdev0", "open requested")
check(#e.context.devices >= 1 and e.context.devices[1] == os.getenv("RXE_DEV"), "open devices list")

-- The trace: each verb as C, through a recorder function.
local lines = {}
verbs.trace(function(call, ret, decl) lines[#lines + 1] = (decl and decl .. "\n" or "") .. call .. " = " .. ret end)
local qp2 = pd:create_qp{ qp_type = "UD", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
qp2:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qkey = 0x11 }
qp2:post_recv{ wr_id = 3, sg_list = { { mr = mr, offset = 0, length = 64 } } }
qp2:destroy()
verbs.trace(false)
local text = table.concat(lines, "\n")
print(text)
-- the C that verbs.export_c writes: numbered declarations, symbolic keys
check(text:find("ibv_create_qp(pd1, &init_attr1) = qp2", 1, true), "trace create_qp")
check(text:find("struct ibv_qp_init_attr init_attr1 = { .send_cq = cq1, .recv_cq = cq1,", 1, true), "trace init_attr")
check(text:find(".qp_type = IBV_QPT_UD };", 1, true), "trace init_attr qp_type")
check(text:find("struct ibv_qp_attr attr1 = { .qp_state = IBV_QPS_INIT, .qkey = 17, .pkey_index = 0, .port_num = 1 };", 1, true), "trace attr")
check(text:find("ibv_modify_qp(qp2, &attr1, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY) = 0", 1, true), "trace modify")
check(text:find("{ .addr = (uintptr_t)mr1->addr + 0, .length = 64, .lkey = mr1->lkey }", 1, true), "trace sge")
check(text:find("ibv_post_recv(qp2, wr1, &bad_wr1) = 0", 1, true), "trace post_recv")
check(text:find("ibv_destroy_qp(qp2) = 0", 1, true), "trace destroy")

qp:destroy(); mr:dereg(); cq:destroy(); pd:dealloc(); ctx:close()
T.done("verbs_badinput")
