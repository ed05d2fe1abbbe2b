-- Errors that teach. The bindings hand every failed verb to verb_error(e):
--   e = { verb = "ibv_modify_qp", errno = 22, errname = "EINVAL", message = "Invalid argument",
--         object = <userdata or nil>, context = { ...verb-specific... } }
-- which finds why the verb failed in this context and how to fix it, sets
-- e.hint and gives e a metatable whose __tostring is the whole explanation.
-- WCs print with wc_tostring; explain(x) explains a WC, a status, or an error.
local qp = require "verbs.explain_qp"
local wc = require "verbs.explain_wc"
local sys = require "verbs.explain_sys"
local cm = require "verbs.explain_cm"
local ex = require "verbs.explain_ex"
local mw = require "verbs.explain_mw"
local ERRNAME

local M = { qp = qp, wc = wc, sys = sys, cm = cm }

-- Errno names both ways (M.ERRNO.EINVAL == 22, ERRNAME[22] == "EINVAL"), from
-- the C library's own table (src/error.c), the one source the C side uses too.
local errno = require "verbs.errno"
M.ERRNO, ERRNAME = {}, {}
for k, v in pairs(errno) do
  if type(k) == "string" then M.ERRNO[k] = v else ERRNAME[k] = v end
end

-- Generic hints: "verb ERRNAME" first, then "ERRNAME". { why, fix }
M.HINTS = {
  EINVAL = { "an argument is not valid for this object in its current state, or a value is above a device limit",
    "compare the arguments with ctx:query_device() / ctx:query_port(1) and the object's state" },
  ENOMEM = { "out of memory, or above a device limit (queue depth, number of objects)",
    "ask for less; check RLIMIT_MEMLOCK (ulimit -l)" },
  EPERM = { "not permitted: a privileged operation (e.g. the privileged Q_Key 0x80000000 or a RAW_PACKET QP"
    .. " needs CAP_NET_RAW) or locked memory above the limit", "run with the needed capability, or avoid the privileged resource" },
  EACCES = { "permission denied: the access rights asked for are not allowed here",
    "check the access flags (remote rights need LOCAL_WRITE) and the permissions of /dev/infiniband/uverbs*" },
  ENODATA = { "no data at that index: e.g. an empty GID table slot",
    "use a filled index: ctx:query_gid(1, i), /sys/class/infiniband/DEV/ports/1/gids/" },
  EBUSY = { "the object is still in use by other objects", "destroy the objects that use it first" },
  ETIMEDOUT = { "the operation timed out: the peer or the address did not answer", "check the peer is up and reachable" },
  EAGAIN = { "temporarily unavailable: nothing there yet, or a queue is full", "retry later (poll first)" },
  EFAULT = { "a bad address was passed to the kernel (a buffer outside this process's memory)",
    "let verbsh allocate the buffer (pd:reg_mr(length, access))" },
  ENOSYS = { "the provider does not implement this verb", "rxe lacks it: use another verb or device" },
  EOPNOTSUPP = { "the device does not support this operation or flag", "check ctx:query_device() capabilities" },
  ENODEV = { "no such device, or the device went away", "ibv_devices lists the devices; rdma link show lists rxe links" },
  ["ibv_dealloc_pd EBUSY"] = { "the PD still has MRs, QPs, AHs, SRQs or MWs in it",
    "destroy (or :close()) them first; the kernel refuses to free a PD its children use" },
  ["ibv_destroy_cq EBUSY"] = { "QPs (or SRQs) still use this CQ as their send or receive CQ",
    "destroy the QPs that use it first" },
  ["ibv_destroy_comp_channel EBUSY"] = { "CQs are still attached to this completion channel",
    "destroy the CQs created with this channel first" },
  ["ibv_destroy_srq EBUSY"] = { "QPs are still attached to this SRQ", "destroy the QPs that use it first" },
  ["ibv_dereg_mr EBUSY"] = { "memory windows are still bound to this MR", "unbind or free them first" },
  ["ibv_reg_mr EINVAL"] = { "the length is 0 or above max_mr_size, or REMOTE_WRITE or REMOTE_ATOMIC is asked"
    .. " without LOCAL_WRITE", "compare the length with ctx:query_device().max_mr_size, and the access flags with"
    .. " help \"ibv_access_flags\"" },
  ["ibv_create_qp EINVAL"] = { "the cap asks for more than the device allows (max_send_wr / max_recv_wr above"
    .. " max_qp_wr, max_*_sge above max_sge, max_inline_data too big), or send_cq/recv_cq is missing",
    "compare cap with ctx:query_device() (max_qp_wr, max_sge)" },
  ["ibv_create_cq EINVAL"] = { "cqe is 0 or above the device's max_cqe", "ctx:create_cq(N) with 1 <= N <= max_cqe" },
  ["ibv_create_ah EINVAL"] = { "the address is incomplete: on RoCE (rxe) is_global = 1 with grh.dgid and"
    .. " grh.sgid_index is mandatory, and port_num must be 1", "pd:create_ah{ is_global = 1, port_num = 1,"
    .. " grh = { dgid = PEER_GID, sgid_index = GID_INDEX } }" },
  ["ibv_create_ah ENODATA"] = { "grh.sgid_index is an empty GID table slot", "use a filled slot: ctx:query_gid(1, i)" },
  ["ibv_query_gid ENODATA"] = { "that GID table slot is empty", "/sys/class/infiniband/DEV/ports/1/gids/ lists the slots" },
}

local function finding(h) return h and { why = h[1], fix = h[2] } end

local MEMLOCK_VERBS = { ibv_reg_mr = true, ibv_create_cq = true, ibv_create_qp = true, ibv_create_srq = true,
  ibv_create_qp_ex = true, ibv_create_cq_ex = true }

-- Per verb: analyze(e) -> headline or nil, { {why=, fix=, note=}, ... }
M.ANALYZE = {
  ibv_modify_qp = qp.modify,
  ibv_post_send = qp.post, ibv_post_recv = qp.post, ibv_post_srq_recv = qp.post,
  ibv_open_device = function(e) return nil, { sys.diagnose_open(e.context) } end,
  ibv_get_device_list = function(e) return nil, { sys.diagnose_open(e.context) } end,
}
-- ibv_reg_mr's EINVAL has two usual causes; the call's own length and access
-- (its context) say which one it was.
M.ANALYZE.ibv_reg_mr = function(e)
  local c = e.context or {}
  if e.errname ~= "EINVAL" then return nil, {} end
  if c.length == 0 then
    return nil, { { why = "the length is 0: ibv_reg_mr registers at least one byte",
      fix = "give a length of 1 or more: pd:reg_mr(4096, access)" } }
  end
  local v = require("verbs").enum("ibv_access_flags").values
  local a = math.tointeger(c.access)
  if a and a & (v.REMOTE_WRITE | v.REMOTE_ATOMIC) ~= 0 and a & v.LOCAL_WRITE == 0 then
    return nil, { { why = "REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE too (the verbs spec: a remote write"
      .. " is a local write by the device)", fix = 'add LOCAL_WRITE: access = { "LOCAL_WRITE", "REMOTE_WRITE" }' } }
  end
  return nil, {}
end
for k, h in pairs(cm.HINTS) do M.HINTS[k] = h end
for verb, f in pairs(cm.ANALYZE) do M.ANALYZE[verb] = f end
for verb, f in pairs(ex.ANALYZE) do M.ANALYZE[verb] = f end
for verb, f in pairs(mw.ANALYZE) do M.ANALYZE[verb] = f end
for k, h in pairs(mw.HINTS) do M.HINTS[k] = h end
for verb, f in pairs(require("verbs.explain_dev").ANALYZE) do M.ANALYZE[verb] = f end
-- On an iWARP device (siw) its own refusals come first (explain_iwarp.lua).
require("verbs.explain_iwarp").wrap(M.ANALYZE)
for verb in pairs(MEMLOCK_VERBS) do
  local other = M.ANALYZE[verb]
  M.ANALYZE[verb] = function(e)
    if e.errname == "ENOMEM" or e.errname == "EPERM" or e.errname == "EFAULT" and (e.context or {}).memlock then
      return nil, { sys.memlock(e) }
    end
    if other then return other(e) end
    return nil, {}
  end
end

local function render(e, head, f)
  local lines = { ("%s failed: %s (errno %s%s)"):format(tostring(e.verb or "verb"), tostring(e.errname or "?"),
    tostring(e.errno), e.message and ", " .. e.message or "") }
  if head then lines[#lines + 1] = "  " .. head end
  local fixes = {}
  for _, x in ipairs(f) do
    if x.case then lines[#lines + 1] = "  case: " .. x.case end
    if x.info then lines[#lines + 1] = "  " .. x.info end
    if x.why then lines[#lines + 1] = (x.note and "  note: " or "  why: ") .. x.why end
    if x.fix then lines[#lines + 1] = "  fix: " .. x.fix; fixes[#fixes + 1] = x.fix end
  end
  return table.concat(lines, "\n"), #fixes > 0 and table.concat(fixes, "\n") or nil
end

-- The bindings read the user's tables raw: a WR's or an attr's __index,
-- __pairs and __len are never called. The analyzers read the same values,
-- from a raw copy, so that no user code runs (or loops forever) inside an
-- explanation. Tables of verbsh's own (a WC) are kept as they are.
local RAW_DEPTH = 6
local function raw_copy(v, depth)
  if type(v) ~= "table" or rawequal(debug.getmetatable(v), wc.meta) then return v end
  local t = {}
  if depth > 0 then
    for k, x in next, v do t[k] = raw_copy(x, depth - 1) end
  end
  return t
end

-- The findings for an error object, never raising: a bug here must not hide
-- the verb's own error.
local function analyze(e)
  e.errname = e.errname or ERRNAME[e.errno]
  e.errno = e.errno or M.ERRNO[e.errname]
  local ok, head, f = pcall(function()
    local a = M.ANALYZE[e.verb]
    local view = setmetatable({ context = raw_copy(rawget(e, "context"), RAW_DEPTH) }, { __index = e })
    if a then return a(view) end
    return nil, {}
  end)
  if not ok then head, f = nil, { { why = "(explain failed: " .. tostring(head) .. ")" } } end
  f = f or {}
  local has_why = false
  for _, x in ipairs(f) do if x.why and not x.note then has_why = true end end
  if not has_why then
    local h = finding(M.HINTS[("%s %s"):format(e.verb, e.errname)] or M.HINTS[e.errname])
    if h then f[#f + 1] = h end
  end
  return head, f
end

-- The text is made once, when the error happens: the system may change later.
local TEXT = setmetatable({}, { __mode = "k" })
local error_meta = { __name = "verbs.error" }
error_meta.__tostring = function(e) return TEXT[e] or (render(e, analyze(e))) end

function M.verb_error(e)
  TEXT[e], e.hint = render(e, analyze(e))
  return setmetatable(e, error_meta)
end

M.wc_meta = wc.meta          -- for tables of your own that hold WC fields
M.wc_tostring = wc.tostring  -- the __tostring of the WCs cq:poll gives (src/wc.c)

-- Plain-string errors from the bindings about an unknown key: suggest the
-- nearest known key (qp_acess_flags -> qp_access_flags).
local KNOWN_KEYS = { "wr_id", "sg_list", "opcode", "send_flags", "imm_data", "remote_addr", "rkey", "lkey",
  "compare_add", "swap", "remote_qpn", "remote_qkey", "ah", "mr", "offset", "length", "addr", "next",
  "qp_type", "send_cq", "recv_cq", "srq", "cap", "max_send_wr", "max_recv_wr", "max_send_sge",
  "max_recv_sge", "max_inline_data", "sq_sig_all", "is_global", "dlid", "sl", "src_path_bits",
  "static_rate", "grh", "dgid", "sgid_index", "hop_limit", "flow_label", "traffic_class", "access" }
for k in pairs(qp.KEY_BIT) do KNOWN_KEYS[#KNOWN_KEYS + 1] = k end

-- (the rule of every "did you mean" of verbsh's, the bindings' own included:
-- verbs.suggest, src/suggest.c)
function M.nearest_key(key)
  return require("verbs").suggest(key, KNOWN_KEYS)
end

local function explain_string(s)
  local topic = require("verbs.explain_iwarp").topic(s)
  if topic then return topic end
  local status = wc.name(s)
  if status then return wc.explain_status(status) end
  local name = s:upper()
  if M.ERRNO[name] then
    local h = M.HINTS[name]
    return ("%s (errno %d): %s\n  fix: %s"):format(name, M.ERRNO[name], h and h[1] or "no hint known",
      h and h[2] or "see errno(3)")
  end
  local key = s:match("unknown key '([%w_]+)'")
  if key then
    if s:find("(did you mean '", 1, true) then return s end   -- the binding's error says it already
    local near = M.nearest_key(key)
    return s .. (near and ("\n  did you mean '%s'?"):format(near) or "\n  no known key is close to '" .. key .. "'")
  end
  if s:find("^ibv_[%w_]+ failed:") or s:find("^[%w_.]+ failed:") then return s end
  return ("no explanation known for %q; explain() takes a WC, a WC status (name or number),"
    .. " an errno name, or an error object"):format(s)
end

-- explain(x): x is a WC table, a status name or number, an error object or its text.
function M.explain(x)
  local t = type(x)
  if t == "table" and getmetatable(x) == error_meta then return error_meta.__tostring(x) end
  -- raw: a wc_array entry (a view) refuses names that are not WC fields
  if t == "table" and rawget(x, "verb") and (rawget(x, "errno") or rawget(x, "errname")) then
    return (render(x, analyze(x)))
  end
  if t == "table" then
    -- an entry of a verbs.wc_array the last poll did not fill: what reading
    -- it says is its explanation
    local ok, status = pcall(function() return x.status end)
    if not ok then return (tostring(status):gsub("^[^\n]-:%d+: ", "", 1)) end
    if status ~= nil then return wc.tostring(x) end
  end
  -- a userdata's class, by its metatable's __name ("ibv_wc", "verbs.cm_event", "FILE*")
  local mt = t == "userdata" and getmetatable(x)
  local class = type(mt) == "table" and rawget(mt, "__name")
  if class == "ibv_wc" then return wc.tostring(x) end
  if class == "verbs.cm_event" then return cm.describe(x) end
  if math.type(x) == "integer" then
    local name = wc.name(x)
    return name and wc.explain_status(name) or ("%d is not an ibv_wc_status (0..23)"):format(x)
  end
  if t == "string" then return explain_string(x) end
  return ("explain() takes a WC, a WC status (name or number), an errno name or an error object, not a %s"):format(
    type(class) == "string" and class or t)
end

return M
