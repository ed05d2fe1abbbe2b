-- The C export (and so the trace) of the rest of verbs.h and rdma_cma.h:
-- src/api_rest.c, src/devonly.c and src/cm_rest.c's bindings, added to
-- export_c.lua's table of writers (V) by add(). Each writes the C call with
-- its recorded outcome checked, as export_c.lua's own writers do.
local R = require "verbs.record"
local M = {}
local fmt = string.format

function M.add(V, HELPERS, u)
  local cenum, cflags, cstring = u.cenum, u.cflags, u.cstring

  HELPERS[#HELPERS + 1] = { name = "expect_str", text = [[
static void expect_str(const char *what, const char *want, const char *got)
{
	if (strcmp(want, got) != 0) {
		printf("first difference: %s: recorded \"%s\", now \"%s\"\n", what, want, got);
		exit(1);
	}
}
]] }
  HELPERS[#HELPERS + 1] = { name = "expect_neg", text = [[
/* A verb that returns a negative code and sets errno (ibv_rereg_mr). */
static void expect_neg(const char *what, int ret, int err)
{
	if (ret >= 0 || errno != err) {
		printf("first difference: %s: recorded a failure with errno %d, now %d and errno %d\n", what, err, ret,
		       errno);
		exit(1);
	}
}
]] }

  -- an integer result checked (or -1 and errno on a failure)
  local function expect_value(w, ev, expr)
    if ev.err then
      w:verb(expr, fmt("-1 /* errno %s */", ev.err.errname), fmt('expect_fail("%s", %s, %d);', expr:match("^[%w_]+"),
        expr, ev.err.errno))
    else
      local v = math.tointeger(ev.results[1]) or 0
      w:verb(expr, tostring(v), fmt('expect_int("%s", %d, %s);', expr:match("^[%w_]+"), v, expr))
    end
  end

  -- context
  V["context.query_device_ex"] = function(w, ev)
    local p = w:tmp("device_attr_ex")
    w:put("struct ibv_device_attr_ex %s;", p)
    w:expect_ret(ev, fmt("ibv_query_device_ex(%s, NULL, &%s)", w:obj(ev.self), p))
    if ev.results and type(ev.results[1]) == "table" then
      local max_qp = math.tointeger(ev.results[1].max_qp)
      if max_qp then
        w:verb(p .. ".orig_attr.max_qp", tostring(max_qp),
          fmt('expect_int("%s.orig_attr.max_qp", %d, %s.orig_attr.max_qp);', p, max_qp, p))
      end
    end
  end
  V["context.query_pkey"] = function(w, ev)
    local k = w:tmp("pkey")
    w:put("__be16 %s = 0;", k)
    w:expect_minus1(ev, fmt("ibv_query_pkey(%s, %d, %d, &%s)", w:obj(ev.self), ev.args[1], ev.args[2], k))
    if not ev.err then
      w:verb("ntohs(" .. k .. ")", fmt("0x%x", ev.results[1]), fmt('expect_int("pkey", 0x%x, ntohs(%s));', ev.results[1], k))
    end
  end
  V["context.get_pkey_index"] = function(w, ev)
    expect_value(w, ev, fmt("ibv_get_pkey_index(%s, %d, htons(0x%x))", w:obj(ev.self), ev.args[1], ev.args[2]))
  end
  V["context.create_srq_ex"] = function(w, ev)
    local srq = ev.results and ev.results[1]
    local v = srq and R.name_of(srq) or w:tmp("srq_failed")
    local a = w:tmp("srq_init_attr_ex")
    local t = u.copy_table(ev.args[1])
    if t.comp_mask == nil then
      local m = {}
      for key, bit in pairs { srq_type = "TYPE", pd = "PD", cq = "CQ", tm_cap = "TM" } do
        if t[key] ~= nil then m[#m + 1] = bit end
      end
      table.sort(m)
      t.comp_mask = m
    end
    w:put("struct ibv_srq_init_attr_ex %s = %s;", a, w:init("ibv_srq_init_attr_ex", t))
    w:expect_obj(ev, "struct ibv_srq", v, fmt("ibv_create_srq_ex(%s, &%s)", w:obj(ev.self), a), "ibv_create_srq_ex")
  end
  -- cq, pd, mr, qp
  V["cq.resize"] = function(w, ev)
    w:expect_ret(ev, fmt("ibv_resize_cq(%s, %d)", w:obj(ev.self), ev.args[1]))
    if not ev.err then
      local cqe = math.tointeger(ev.results[1])
      w:verb(w:obj(ev.self) .. "->cqe", tostring(cqe), fmt('expect_int("%s->cqe", %d, %s->cqe);', w:obj(ev.self), cqe,
        w:obj(ev.self)))
    end
  end
  local function reg_iova(verb)
    return function(w, ev)
      local size, init = ev.args[1], nil
      if type(size) == "string" then init, size = size, #size end
      local mr = ev.results and ev.results[1]
      local v = mr and R.name_of(mr) or w:tmp("mr_failed")
      local buf = "buf_" .. v
      w:put("void *%s = aligned_alloc(4096, %d);", buf, (size + 4095) // 4096 * 4096)
      -- (its bytes, or zeros: verbsh's buffer holds them, and aligned_alloc's may hold anything)
      if init then w:put("memcpy(%s, %s, %d);", buf, cstring(init), #init) else w:put("memset(%s, 0, %d);", buf, size) end
      w:expect_obj(ev, "struct ibv_mr", v, fmt("%s(%s, %s, %d, 0x%x, %s)", verb, w:obj(ev.self), buf, size, ev.args[2],
        cflags("ibv_access_flags", ev.args[3])), verb)
      if mr then
        local f = R.facts(mr)
        w.mrs[#w.mrs + 1] = { name = v, addr = f.addr, length = f.length or size, lkey = f.lkey, rkey = f.rkey, buf = buf }
      end
    end
  end
  V["pd.reg_mr_iova"] = reg_iova("ibv_reg_mr_iova")
  V["pd.reg_mr_iova2"] = reg_iova("ibv_reg_mr_iova2")
  V["mr.rereg"] = function(w, ev)
    local call = fmt("ibv_rereg_mr(%s, %s, %s, NULL, 0, %s)", w:obj(ev.self), cflags("ibv_rereg_mr_flags", ev.args[1]),
      ev.args[2] and w:obj(ev.args[2]) or "NULL", cflags("ibv_access_flags", ev.args[3]))
    if ev.err then
      w:verb(call, fmt("< 0 /* errno %s */", ev.err.errname), fmt('expect_neg("ibv_rereg_mr", %s, %d);', call, ev.err.errno))
    else
      w:verb(call, "0", fmt('expect_int("ibv_rereg_mr", 0, %s);', call))
    end
  end
  V["qp.query_data_in_order"] = function(w, ev)
    local v = math.tointeger(ev.results and ev.results[1]) or 0
    local call = fmt("ibv_query_qp_data_in_order(%s, %s, %d)", w:obj(ev.self), cenum("ibv_wr_opcode", ev.args[1]),
      math.tointeger(ev.args[2]) or 0)
    w:verb(call, tostring(v), fmt('expect_int("ibv_query_qp_data_in_order", %d, %s);', v, call))
  end

  -- verbs.*: pure conversions and the process-wide fork setting
  local STR = { node_type_str = { "ibv_node_type_str", "ibv_node_type" },
    port_state_str = { "ibv_port_state_str", "ibv_port_state" },
    event_type_str = { "ibv_event_type_str", "ibv_event_type" }, wc_status_str = { "ibv_wc_status_str", "ibv_wc_status" },
    event_str = { "rdma_event_str", "rdma_cm_event_type" } }
  for name, s in pairs(STR) do
    V["nil." .. name] = function(w, ev)
      local call = fmt("%s(%s)", s[1], cenum(s[2], ev.args[1]))
      w:verb(call, cstring(ev.results[1]), fmt('expect_str("%s", %s, %s);', s[1], cstring(ev.results[1]), call))
    end
  end
  local INT = { rate_to_mbps = { "ibv_rate_to_mbps", "ibv_rate" }, rate_to_mult = { "ibv_rate_to_mult", "ibv_rate" },
    mbps_to_rate = { "mbps_to_ibv_rate" }, mult_to_rate = { "mult_to_ibv_rate" },
    flow_label_to_udp_sport = { "ibv_flow_label_to_udp_sport" } }
  for name, s in pairs(INT) do
    V["nil." .. name] = function(w, ev)
      local arg = s[2] and cenum(s[2], ev.args[1]) or fmt("%d", ev.args[1])
      local call = fmt("%s(%s)", s[1], arg)
      local r = ev.results[1]
      local want = math.type(r) == "integer" and tostring(r) or cenum("ibv_rate", r)
      w:verb(call, want, fmt('expect_int("%s", %s, %s);', s[1], want, call))
    end
  end
  V["nil.is_qpt_supported"] = function(w, ev)
    local call = fmt("ibv_is_qpt_supported(0x%x, %s)", ev.args[1], cenum("ibv_qp_type", ev.args[2]))
    local want = ev.results[1] and 1 or 0
    w:verb(call, tostring(want), fmt('expect_int("ibv_is_qpt_supported", %d, %s);', want, call))
  end
  V["nil.fork_init"] = function(w, ev) w:expect_ret(ev, "ibv_fork_init()") end
  V["nil.is_fork_initialized"] = function(w, ev)
    local want = cenum("ibv_fork_status", ev.results[1])
    w:verb("ibv_is_fork_initialized()", want, fmt('expect_int("ibv_is_fork_initialized", %s, ibv_is_fork_initialized());',
      want))
  end

  -- the hardware-only rows (src/devonly.c): the same arguments as there
  local made = { open_xrcd = "struct ibv_xrcd", alloc_dm = "struct ibv_dm", alloc_td = "struct ibv_td",
    create_counters = "struct ibv_counters", create_flow_action_esp = "struct ibv_flow_action",
    alloc_null_mr = "struct ibv_mr" }
  local DEV = {
    open_xrcd = function(w, self)
      local a = w:tmp("xrcd_attr")
      w:put("struct ibv_xrcd_init_attr %s = { .comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,"
        .. " .fd = -1, .oflags = O_CREAT };", a)
      return fmt("ibv_open_xrcd(%s, &%s)", self, a)
    end,
    alloc_dm = function(w, self, ev)
      local a = w:tmp("dm_attr")
      w:put("struct ibv_alloc_dm_attr %s = { .length = %d };", a, math.tointeger(ev.args[1]) or 4096)
      return fmt("ibv_alloc_dm(%s, &%s)", self, a)
    end,
    alloc_td = function(w, self)
      local a = w:tmp("td_attr")
      w:put("struct ibv_td_init_attr %s = { 0 };", a)
      return fmt("ibv_alloc_td(%s, &%s)", self, a)
    end,
    create_counters = function(w, self)
      local a = w:tmp("counters_attr")
      w:put("struct ibv_counters_init_attr %s = { 0 };", a)
      return fmt("ibv_create_counters(%s, &%s)", self, a)
    end,
    create_flow_action_esp = function(w, self)
      local a = w:tmp("esp_attr")
      w:put("struct ibv_flow_action_esp_attr %s;", a)
      w:put("memset(&%s, 0, sizeof %s);", a, a)
      return fmt("ibv_create_flow_action_esp(%s, &%s)", self, a)
    end,
    alloc_null_mr = function(_, self) return fmt("ibv_alloc_null_mr(%s)", self) end,
  }
  for method, ctype in pairs(made) do
    local owner = method == "alloc_null_mr" and "pd" or "context"
    V[owner .. "." .. method] = function(w, ev)
      local obj = ev.results and ev.results[1]
      local v = obj and R.name_of(obj) or w:tmp(method:gsub("^%l+_", "") .. "_failed")
      local call = DEV[method](w, w:obj(ev.self), ev)
      w:expect_obj(ev, ctype, v, call, call:match("^[%w_]+"))
    end
  end
  -- the other rows: what they make, and the C that calls them as src/devonly.c does
  local function int(v, d) return math.tointeger(v) or d end
  local function row(owner, method, ctype, verb, build)
    V[owner .. "." .. method] = function(w, ev)
      local obj = ev.results and ev.results[1]
      local call = build(w, w:obj(ev.self), ev.args)
      if not ctype then return w:expect_ret(ev, call) end
      local v = obj and R.name_of(obj) or w:tmp(method .. "_failed")
      w:expect_obj(ev, ctype, v, call, verb)
    end
  end
  row("context", "open_qp", "struct ibv_qp", "ibv_open_qp", function(w, self, a)
    local t = w:tmp("qp_open_attr")
    w:put("struct ibv_qp_open_attr %s = { .comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD |"
      .. " IBV_QP_OPEN_ATTR_TYPE, .qp_num = %d, .xrcd = %s, .qp_type = IBV_QPT_XRC_RECV };", t, int(a[1], 0),
      a[2] and w:obj(a[2]) or "NULL")
    return fmt("ibv_open_qp(%s, &%s)", self, t)
  end)
  row("context", "alloc_parent_domain", "struct ibv_pd", "ibv_alloc_parent_domain", function(w, self, a)
    local t = w:tmp("parent_domain_attr")
    w:put("struct ibv_parent_domain_init_attr %s = { .pd = %s, .td = %s };", t, w:obj(a[1]), a[2] and w:obj(a[2]) or "NULL")
    return fmt("ibv_alloc_parent_domain(%s, &%s)", self, t)
  end)
  row("context", "create_wq", "struct ibv_wq", "ibv_create_wq", function(w, self, a)
    local t = w:tmp("wq_attr")
    w:put("struct ibv_wq_init_attr %s = { .wq_type = IBV_WQT_RQ, .max_wr = %d, .max_sge = 1, .pd = %s, .cq = %s };", t,
      int(a[3], 16), w:obj(a[1]), w:obj(a[2]))
    return fmt("ibv_create_wq(%s, &%s)", self, t)
  end)
  row("context", "create_rwq_ind_table", "struct ibv_rwq_ind_table", "ibv_create_rwq_ind_table", function(w, self, a)
    local t = w:tmp("rwq_attr")
    if a[1] then
      local l = w:tmp("wqs")
      w:put("struct ibv_wq *%s[1] = { %s };", l, w:obj(a[1]))
      w:put("struct ibv_rwq_ind_table_init_attr %s = { .log_ind_tbl_size = 0, .ind_tbl = %s };", t, l)
    else
      w:put("struct ibv_rwq_ind_table_init_attr %s = { .log_ind_tbl_size = 0 };", t)
    end
    return fmt("ibv_create_rwq_ind_table(%s, &%s)", self, t)
  end)
  row("context", "import_pd", "struct ibv_pd", "ibv_import_pd", function(_, self, a)
    return fmt("ibv_import_pd(%s, %d)", self, int(a[1], 0)) end)
  row("context", "import_dm", "struct ibv_dm", "ibv_import_dm", function(_, self, a)
    return fmt("ibv_import_dm(%s, %d)", self, int(a[1], 0)) end)
  row("pd", "import_mr", "struct ibv_mr", "ibv_import_mr", function(_, self, a)
    return fmt("ibv_import_mr(%s, %d)", self, int(a[1], 0)) end)
  row("pd", "reg_dmabuf_mr", "struct ibv_mr", "ibv_reg_dmabuf_mr", function(_, self, a)
    return fmt("ibv_reg_dmabuf_mr(%s, %d, %d, 0x%x, %d, %s)", self, int(a[2], 0), int(a[3], 4096), int(a[4], 0),
      int(a[1], -1), a[5] ~= nil and cflags("ibv_access_flags", a[5]) or "IBV_ACCESS_LOCAL_WRITE") end)
  row("qp", "create_flow", "struct ibv_flow", "ibv_create_flow", function(w, self, a)
    local t = w:tmp("flow_attr")
    w:put("struct ibv_flow_attr %s = { .type = IBV_FLOW_ATTR_NORMAL, .size = sizeof %s, .port = %d };", t, t, int(a[1], 1))
    return fmt("ibv_create_flow(%s, &%s)", self, t)
  end)
  row("pd", "advise_mr", nil, "ibv_advise_mr", function(w, self, a)
    local sge = w:tmp("sge")
    local m = w:obj(a[1])
    w:put("struct ibv_sge %s = { .addr = (uintptr_t)%s->addr, .length = %s->length, .lkey = %s->lkey };", sge, m, m, m)
    return fmt("ibv_advise_mr(%s, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &%s, 1)", self, sge)
  end)
  row("srq", "post_srq_ops", nil, "ibv_post_srq_ops", function(w, self, a)
    local op, bad = w:tmp("ops_wr"), w:tmp("bad_ops_wr")
    w:put("struct ibv_ops_wr %s = { .wr_id = %d, .opcode = IBV_WR_TAG_SYNC, .flags = IBV_OPS_SIGNALED }, *%s = NULL;", op,
      int(a[1], 0), bad)
    return fmt("ibv_post_srq_ops(%s, &%s, &%s)", self, op, bad)
  end)
  V["nil.import_device"] = function(w, ev)
    local a = ev.args[1]
    -- (a context, by its kind: an event holds its handle, a hand-made one the object)
    local fd = R.kind(a) == "context" and fmt("dup(%s->cmd_fd)", w:obj(a)) or fmt("%d", int(a, -1))
    local v = ev.results and R.name_of(ev.results[1]) or w:tmp("imported_failed")
    w:expect_obj(ev, "struct ibv_context", v, fmt("ibv_import_device(%s)", fd), "ibv_import_device")
  end

  V["cq.modify"] = function(w, ev)
    local a = w:tmp("modify_cq_attr")
    w:put("struct ibv_modify_cq_attr %s = { .attr_mask = IBV_CQ_ATTR_MODERATE, .moderate = { .cq_count = %d,"
      .. " .cq_period = %d } };", a, math.tointeger(ev.args[1]) or 1, math.tointeger(ev.args[2]) or 0)
    w:expect_ret(ev, fmt("ibv_modify_cq(%s, &%s)", w:obj(ev.self), a))
  end
  V["qp.query_ece"] = function(w, ev)
    local e = w:tmp("ece")
    w:put("struct ibv_ece %s = { 0 };", e)
    w:expect_ret(ev, fmt("ibv_query_ece(%s, &%s)", w:obj(ev.self), e))
  end
  V["qp.set_ece"] = function(w, ev)
    local e = w:tmp("ece")
    w:put("struct ibv_ece %s = { .vendor_id = 0x%x, .options = 0x%x };", e, math.tointeger(ev.args[1]) or 0,
      math.tointeger(ev.args[2]) or 0)
    w:expect_ret(ev, fmt("ibv_set_ece(%s, &%s)", w:obj(ev.self), e))
  end
  V["qp.modify_rate_limit"] = function(w, ev)
    local a = w:tmp("rate_limit_attr")
    w:put("struct ibv_qp_rate_limit_attr %s = { .rate_limit = %d };", a, math.tointeger(ev.args[1]) or 0)
    w:expect_ret(ev, fmt("ibv_modify_qp_rate_limit(%s, &%s)", w:obj(ev.self), a))
  end
  V["context.query_rt_values_ex"] = function(w, ev)
    local a = w:tmp("values")
    w:put("struct ibv_values_ex %s = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };", a)
    w:expect_ret(ev, fmt("ibv_query_rt_values_ex(%s, &%s)", w:obj(ev.self), a))
  end
  V["srq.get_srq_num"] = function(w, ev)
    local n = w:tmp("srq_num")
    w:put("uint32_t %s = 0;", n)
    w:expect_ret(ev, fmt("ibv_get_srq_num(%s, &%s)", w:obj(ev.self), n))
  end

  -- rdma_cma.h
  V["cm_id.set_option"] = function(w, ev)
    local names = { TOS = 0, REUSEADDR = 1, AFONLY = 2, ACK_TIMEOUT = 3 }
    local opt = math.tointeger(ev.args[2]) or names[ev.args[2]]
    local cname = ({ [0] = "RDMA_OPTION_ID_TOS", "RDMA_OPTION_ID_REUSEADDR", "RDMA_OPTION_ID_AFONLY",
      "RDMA_OPTION_ID_ACK_TIMEOUT" })[opt]
    local v = w:tmp("optval")
    local val = ev.args[3]
    if val == true or val == false then val = val and 1 or 0 end
    w:put("%s %s = %d;", (opt == 0 or opt == 3) and "uint8_t" or "int", v, val)
    w:expect_minus1(ev, fmt("rdma_set_option(%s, RDMA_OPTION_ID, %s, &%s, sizeof %s)", w:obj(ev.self), cname, v, v))
  end
  V["cm_id.migrate"] = function(w, ev)
    w:expect_minus1(ev, fmt("rdma_migrate_id(%s, %s)", w:obj(ev.self), w:obj(ev.args[1])))
  end
  V["cm_id.notify"] = function(w, ev)
    w:expect_minus1(ev, fmt("rdma_notify(%s, %s)", w:obj(ev.self), cenum("ibv_event_type", ev.args[1])))
  end
  V["cm_id.set_local_ece"] = function(w, ev)
    local e = w:tmp("ece")
    w:put("struct ibv_ece %s = { .vendor_id = 0x%x, .options = 0x%x };", e, ev.args[1], ev.args[2])
    w:expect_minus1(ev, fmt("rdma_set_local_ece(%s, &%s)", w:obj(ev.self), e))
  end
  V["cm_id.get_remote_ece"] = function(w, ev)
    local e = w:tmp("ece")
    w:put("struct ibv_ece %s = { 0 };", e)
    w:expect_minus1(ev, fmt("rdma_get_remote_ece(%s, &%s)", w:obj(ev.self), e))
  end
  V["cm_id.reject_ece"] = function(w, ev)
    local d = ev.args[1]
    w:expect_minus1(ev, fmt("rdma_reject_ece(%s, %s, %d)", w:obj(ev.self), d and cstring(d) or "NULL", d and #d or 0))
  end
  V["cm_id.create_qp_ex"] = function(w, ev)
    local a = w:tmp("init_attr_ex")
    local t = u.copy_table(ev.args[1])
    if t.comp_mask == nil then
      local m = { "IBV_QP_INIT_ATTR_PD" }
      if t.send_ops_flags then m[#m + 1] = "IBV_QP_INIT_ATTR_SEND_OPS_FLAGS" end
      if t.create_flags then m[#m + 1] = "IBV_QP_INIT_ATTR_CREATE_FLAGS" end
      t.comp_mask = m
    end
    w:put("struct ibv_qp_init_attr_ex %s = %s;", a, w:init("ibv_qp_init_attr_ex", t))
    w:expect_minus1(ev, fmt("rdma_create_qp_ex(%s, &%s)", w:obj(ev.self), a))
    local qp = ev.results and ev.results[1]
    if qp then
      local v = R.name_of(qp)
      w:bind("struct ibv_qp", v, fmt("%s->qp", w:obj(ev.self)))
      w.qps[#w.qps + 1] = { name = v, qp_num = R.facts(qp).qp_num }
      if t.send_ops_flags then w:bind("struct ibv_qp_ex", v .. "_ex", fmt("ibv_qp_to_qp_ex(%s)", v)) end
    end
  end
  V["nil.get_devices"] = function(w, ev)
    local l, n = w:tmp("rdma_devices"), w:tmp("num_devices")
    w:put("int %s = 0;", n)
    w:verb(fmt("rdma_get_devices(&%s)", n), ev.err and "NULL" or "a list", fmt("struct ibv_context **%s = rdma_get_devices(&%s);",
      l, n), ev.err and fmt('expect_null("rdma_get_devices", %s, %d);', l, ev.err.errno)
      or fmt('expect_int("rdma_get_devices count", %d, %s);', #(ev.results[1] or {}), n))
    if not ev.err then w:vput("rdma_free_devices(%s);", l) end
  end
end

-- The C declarations of variables the program never uses again (an extended
-- QP's qpN_ex when the session built no WR with wr_*, a context from
-- cm_id->verbs never read): each gets a (void) use, so -Wall -Wextra -Werror
-- accepts the program. lines: the program's body, one statement a line.
function M.use_unused(lines)
  local body = table.concat(lines, "\n")
  local out = {}
  for _, l in ipairs(lines) do
    out[#out + 1] = l
    local name = l:match("^\t[%w_ ]+[%s%*]%*?([%a_][%w_]*) = [^=]") or l:match("^\t[%w_ ]+[%s%*]%*?([%a_][%w_]*);$")
    if name and not l:find("^\t/%*") and not l:find("^\treturn") then
      local count = 0
      for _ in body:gmatch("%f[%w_]" .. name .. "%f[^%w_]") do count = count + 1 end
      if count == 1 then out[#out + 1] = ("\t(void)%s;   /* the session made it and never used it */"):format(name) end
    end
  end
  return out
end

return M
