-- "Did you mean", through the calls that read each table, on rxe: every key
-- of every struct a verb reads, every name of every enum a verb reads and
-- every field of every object, mistyped (its last letter doubled), must be
-- suggested back; so the last candidate of each list is reached. Then each
-- C habit verbsh knows (dest_qp, mtu, imm, ...) must lead to the key it
-- means in the struct where a C programmer would type it. Run by
-- tests/device/oracle.bats.
local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/../lua/verbs_lib.lua")
local check = T.check

verbs.warnings(false)
local ctx = verbs.open(os.getenv("RXE_DEV"))
local GI = T.gid_index
local gid = ctx:query_gid(1, GI)
local pd = ctx:alloc_pd()
local cq = ctx:create_cq(8)
local CAP = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 }
local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = CAP }
local srq = pd:create_srq{ max_wr = 2, max_sge = 1 }
local mr = pd:reg_mr(64, "LOCAL_WRITE")
local cm = verbs.create_event_channel()
local id = cm:create_id("TCP")
local function copy(t) local c = {} for k, v in pairs(t) do c[k] = v end return c end

local function typo(name) return name .. name:sub(-1) end
local tried = 0
-- suggests(what, fn, typed, want): fn() raises, saying did you mean want.
local function suggests(what, fn, want)
  local ok, e = pcall(fn)
  local s = tostring(e)
  check(not ok and (s:find("did you mean '" .. want .. "'", 1, true) or s:find('did you mean "' .. want .. '"', 1, true)),
    "%s: want did you mean %s, got %s", what, want, ok and "no error" or s)
  tried = tried + 1
end

-- ---- keys: each struct through a verb that reads it ------------------------------------
local readers = {
  ibv_qp_attr = function(t) return qp:modify(t) end,
  ibv_qp_init_attr = function(t) local a = { qp_type = "RC", send_cq = cq, recv_cq = cq, cap = CAP }
    for k, v in pairs(t) do a[k] = v end return pd:create_qp(a) end,
  ibv_qp_init_attr_ex = function(t) local a = { pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq, cap = CAP }
    for k, v in pairs(t) do a[k] = v end return ctx:create_qp_ex(a) end,
  ibv_qp_cap = function(t) local c = copy(CAP) for k, v in pairs(t) do c[k] = v end
    return pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = c } end,
  ibv_ah_attr = function(t) local a = { is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = GI } }
    for k, v in pairs(t) do a[k] = v end return pd:create_ah(a) end,
  ibv_global_route = function(t) local g = { dgid = gid, sgid_index = GI }
    for k, v in pairs(t) do g[k] = v end return pd:create_ah{ is_global = 1, port_num = 1, grh = g } end,
  ibv_send_wr = function(t) local w = { opcode = "SEND" } for k, v in pairs(t) do w[k] = v end return verbs.send_wr(w) end,
  ibv_recv_wr = function(t) return verbs.recv_wr(t) end,
  ibv_sge = function(t) local s = { mr = mr, length = 1 } for k, v in pairs(t) do s[k] = v end
    return verbs.send_wr{ opcode = "SEND", sg_list = { s } } end,
  ["ibv_send_wr.wr.rdma"] = function(t) return verbs.send_wr{ opcode = "RDMA_WRITE", rdma = t } end,
  ["ibv_send_wr.wr.atomic"] = function(t) return verbs.send_wr{ opcode = "ATOMIC_FETCH_AND_ADD", atomic = t } end,
  ["ibv_send_wr.wr.ud"] = function(t) return verbs.send_wr{ opcode = "SEND", ud = t } end,
  ibv_srq_attr = function(t) return pd:create_srq(t) end,
  ibv_cq_init_attr_ex = function(t) local a = { cqe = 4 } for k, v in pairs(t) do a[k] = v end return ctx:create_cq_ex(a) end,
  ["ibv_create_cq options"] = function(t) return ctx:create_cq(4, t) end,
  rdma_conn_param = function(t) return id:connect(t) end,
  ibv_wc = function(t) local w = { status = "SUCCESS" } for k, v in pairs(t) do w[k] = v end
    return pd:create_ah_from_wc(w, ("\0"):rep(40), 1) end,
}
local structs = 0
for _, ctype in ipairs(verbs.fields()) do
  local read = readers[ctype]
  if read then
    structs = structs + 1
    for _, f in ipairs(verbs.fields(ctype)) do
      if not f.output_only then
        suggests(ctype .. "." .. f.name, function() return read{ [typo(f.name)] = 1 } end, f.name)
      end
    end
  end
end
print(("keys: %d structs"):format(structs))

-- ---- enum names: each enum through a key that reads it -------------------------------------
local enum_readers = {
  ibv_qp_state = function(v) return qp:modify{ qp_state = v } end,
  ibv_mtu = function(v) return qp:modify{ path_mtu = v } end,
  ibv_mig_state = function(v) return qp:modify{ path_mig_state = v } end,
  ibv_access_flags = function(v) return pd:reg_mr(64, v) end,
  ibv_qp_type = function(v) return pd:create_qp{ qp_type = v, send_cq = cq, recv_cq = cq, cap = CAP } end,
  ibv_wr_opcode = function(v) return verbs.send_wr{ opcode = v } end,
  ibv_send_flags = function(v) return verbs.send_wr{ opcode = "SEND", send_flags = v } end,
  ibv_qp_attr_mask = function(v) return qp:modify({ qp_state = "RESET" }, v) end,
  ibv_srq_attr_mask = function(v) return srq:modify({ srq_limit = 1 }, v) end,
  ibv_create_cq_wc_flags = function(v) return ctx:create_cq_ex{ cqe = 4, wc_flags = v } end,
  ibv_cq_init_attr_mask = function(v) return ctx:create_cq_ex{ cqe = 4, comp_mask = v } end,
  ibv_create_cq_attr_flags = function(v) return ctx:create_cq_ex{ cqe = 4, flags = v } end,
  ibv_qp_create_send_ops_flags = function(v) return ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq,
    recv_cq = cq, cap = CAP, send_ops_flags = v } end,
  ibv_qp_create_flags = function(v) return ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq,
    cap = CAP, create_flags = v } end,
  ibv_qp_init_attr_mask = function(v) return ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq,
    cap = CAP, comp_mask = v } end,
  rdma_port_space = function(v) return cm:create_id(v) end,
  ibv_wc_status = function(v) return pd:create_ah_from_wc({ status = v }, ("\0"):rep(40), 1) end,
  ibv_wc_opcode = function(v) return pd:create_ah_from_wc({ status = "SUCCESS", opcode = v }, ("\0"):rep(40), 1) end,
  ibv_wc_flags = function(v) return pd:create_ah_from_wc({ status = "SUCCESS", wc_flags = v }, ("\0"):rep(40), 1) end,
}
local enums = 0
for ctype, read in pairs(enum_readers) do
  enums = enums + 1
  for _, n in ipairs(verbs.enum(ctype).names) do
    suggests(ctype .. " " .. n, function() return read(typo(n)) end, n)
  end
end
print(("enums: %d"):format(enums))

-- ---- object fields ------------------------------------------------------------------------
local wcs = verbs.wc_array(1)
local objects = {
  { "ctx", ctx, { "name", "async_fd", "num_comp_vectors" } },
  { "qp", qp, { "qp_num", "state", "qp_type", "handle", "pd", "send_cq", "recv_cq", "srq", "wr_id", "wr_flags" } },
  { "cq", cq, { "cqe", "handle", "wc_flags", "wr_id", "status" } },
  { "mr", mr, { "addr", "length", "lkey", "rkey", "handle", "access" } },
  { "cm_id", id, { "verbs", "qp", "channel", "ps", "qp_type", "port_num" } },
  { "cm_channel", cm, { "fd" } },
  { "wc", wcs[1], { "wr_id", "status", "vendor_err", "qp_num", "opcode", "byte_len", "imm_data", "src_qp", "wc_flags",
    "pkey_index", "slid", "sl", "dlid_path_bits" } },
  { "verbs", verbs, { "open", "devices", "trace", "export_c", "record", "wire", "oob", "explain", "enums" } },
}
for _, o in ipairs(objects) do
  for _, f in ipairs(o[3]) do
    suggests(o[1] .. "." .. f, function() return o[2][typo(f)] end, f)
  end
end

-- ---- C habits: the key each means, in the struct where it is typed ------------------------
local habits = {
  { "dest_qp", "dest_qp_num", readers.ibv_qp_attr }, { "dqpn", "dest_qp_num", readers.ibv_qp_attr },
  { "access_flags", "qp_access_flags", readers.ibv_qp_attr }, { "access", "qp_access_flags", readers.ibv_qp_attr },
  { "state", "qp_state", readers.ibv_qp_attr }, { "mtu", "path_mtu", readers.ibv_qp_attr },
  { "psn", "sq_psn", readers.ibv_qp_attr }, { "retry_count", "retry_cnt", readers.ibv_qp_attr },
  { "rnr_retry_count", "rnr_retry", readers.ibv_qp_attr }, { "port", "port_num", readers.ibv_qp_attr },
  { "qpn", "qp_num", readers.rdma_conn_param }, { "qp_number", "qp_num", readers.rdma_conn_param },
  { "imm", "imm_data", readers.ibv_send_wr }, { "flags", "send_flags", readers.ibv_send_wr },
  { "sge", "sg_list", readers.ibv_send_wr }, { "sgl", "sg_list", readers.ibv_send_wr },
  { "num_sge", "sg_list", readers.ibv_send_wr }, { "num_sge", "sg_list", readers.ibv_recv_wr },
  { "qkey", "remote_qkey", readers["ibv_send_wr.wr.ud"] }, { "remote_qp", "remote_qpn", readers["ibv_send_wr.wr.ud"] },
  { "gid_index", "sgid_index", readers.ibv_global_route }, { "dgid_index", "sgid_index", readers.ibv_global_route },
  { "port", "port_num", readers.ibv_ah_attr },
}
for _, h in ipairs(habits) do
  suggests("habit " .. h[1], function() return h[3]{ [h[1]] = 1 } end, h[2])
end

print(("suggest: %d mistakes tried"):format(tried))
id:destroy(); cm:destroy(); mr:dereg(); srq:destroy(); qp:destroy(); cq:destroy(); pd:dealloc(); ctx:close()
T.done("suggest")
