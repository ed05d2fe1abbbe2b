-- Errors that teach, for rdma_cm: the failing rdma_* verbs (hints merged into
-- verbs.explain), and the error events (REJECTED, UNREACHABLE, ADDR_ERROR, ...)
-- that arrive instead of the event a program waits for.
local M = {}

-- A status of ADDR_ERROR, ROUTE_ERROR, UNREACHABLE or CONNECT_ERROR is a
-- negative errno; a status of REJECTED is the IB CM's reject reason.
local errno = require "verbs.errno"
local function errname(st) return math.type(st) == "integer" and errno[-st] or nil end
local REJECT_REASON = { [1] = "NO_QP", [2] = "NO_EEC", [3] = "NO_RESOURCES", [4] = "TIMEOUT",
  [5] = "UNSUPPORTED", [6] = "INVALID_COMM_ID", [7] = "INVALID_COMM_INSTANCE", [8] = "INVALID_SERVICE_ID",
  [9] = "INVALID_TRANSPORT_TYPE", [10] = "STALE_CONN", [13] = "INVALID_LID", [25] = "INVALID_PORT",
  [28] = "CONSUMER_DEFINED", [29] = "INVALID_RNR_RETRY", [30] = "DUPLICATE_LOCAL_COMM_ID",
  [31] = "INVALID_CLASS_VERSION" }

local LOOPBACK_FIX = "between two local netdevs (the two ends of a veth pair) the kernel drops packets whose"
  .. " source is a local address: sysctl -w net.ipv4.conf.all.accept_local=1 net.ipv4.conf.all.rp_filter=0"

-- event name -> function(status) -> why, fix
local EVENT = {}
EVENT.ADDR_ERROR = function(st)
  if st == -19 then
    return "no RDMA device sits on the netdev that routes to this address (ENODEV): 127.0.0.1 and lo"
      .. " never work for rdma_cm, and an interface without an rxe link has no device",
      "use an address on the rxe netdev (rdma link show; RXE_ADDR in the micro-VM), or add one:"
      .. " rdma link add rxe0 type rxe netdev IFACE"
  elseif st == -110 then
    return "address resolution timed out (ETIMEDOUT): no ARP answer from the destination",
      "check the peer address is up (ping it); " .. LOOPBACK_FIX
  elseif st == -101 or st == -113 then
    return "no route to the destination (" .. errname(st) .. ")", "ip route get ADDR shows the route; add an address"
      .. " in the peer's subnet to the rxe netdev"
  end
  return "address resolution failed", "check the destination address and the routes (ip route get ADDR)"
end
EVENT.ROUTE_ERROR = function(st)
  if st == -19 then
    return "the route leads over a netdev without an RDMA device (ENODEV), e.g. lo",
      "use an address on the rxe netdev, not 127.0.0.1"
  end
  return "route resolution failed (status " .. st .. ")", "resolve_addr must have succeeded first"
    .. " (ADDR_RESOLVED); then resolve_route"
end
local SIDR_STATUS = { [1] = "UNSUPPORTED (nobody listens on that port)", [2] = "REJECT (the server rejected"
  .. " or failed before accepting)", [3] = "NO_QP", [4] = "REDIRECT", [5] = "UNSUPPORTED_VERSION" }
EVENT.UNREACHABLE = function(st)
  if st > 0 and SIDR_STATUS[st] then   -- a UD (RDMA_PS_UDP) lookup: the SIDR reply's status
    return "the UD service lookup was answered with status " .. st .. ", " .. SIDR_STATUS[st],
      st == 1 and "start the server first, on the same port and port space (UDP)"
        or "see the server's output: its create_qp or accept failed, or it called reject"
  end
  return "the peer's CM never answered the connection request (status " .. st
    .. (errname(st) and " " .. errname(st) or "") .. "): the REQ or its REP was lost, or nothing runs there",
    "start the server first and check the address; " .. LOOPBACK_FIX
end
EVENT.REJECTED = function(st)
  local r = REJECT_REASON[st]
  if st == 8 then
    return "nobody listens on that port at the destination (IB CM reject reason 8, INVALID_SERVICE_ID)",
      "start the server first (id:bind_addr + id:listen), on the same port number and port space (TCP/UDP)"
  elseif st == 28 then
    return "the server called rdma_reject (reason 28, CONSUMER_DEFINED); its private data may say why"
      .. " (event.param.conn.private_data)", "see why the server refused; fix the request it checks"
  elseif st == 1 then
    return "the server could not create its QP or had none (reason 1, NO_QP)", "check the server's create_qp"
  end
  return "the passive side rejected the request (IB CM reject reason " .. st .. (r and ", " .. r or "") .. ")",
    "compare responder_resources/initiator_depth with the peer's, and check the port space"
end
EVENT.CONNECT_ERROR = function(st)
  return "the connection failed while it formed (status " .. st .. (errname(st) and " " .. errname(st) or "")
    .. "): typically the QP could not be moved to RTR/RTS with the peer's parameters",
    "check responder_resources/initiator_depth against the device's max_qp_rd_atom; the QP's cap"
end
EVENT.DISCONNECTED = function()
  return "the peer disconnected (rdma_disconnect) or its process exited", "if unexpected: see the peer's output"
end
EVENT.TIMEWAIT_EXIT = function()
  return "the QP left the time-wait state after a disconnect", "nothing to fix"
end
EVENT.MULTICAST_ERROR = function(st)
  return "the join failed, or a joined group went away (status " .. st .. (errname(st) and " " .. errname(st) or "")
    .. "): on RoCE the kernel joins the group's IP address on the netdev (IGMP); on InfiniBand the subnet"
    .. " manager refused or dropped the group", "join again (id:join_multicast); check that the address is a"
    .. " multicast one (224.0.0.0/4, ff00::/8) and that the id was resolved on the RDMA netdev"
end
EVENT.DEVICE_REMOVAL = function()
  return "the RDMA device went away (rdma link delete, or module unload)", "destroy everything on it and start over"
end

function M.event_cause(name, status)
  local f = EVENT[name]
  if not f then return nil end
  return f(status)
end

-- The one-line form plus, for an error event, why and how to fix.
function M.describe(ev)
  local why, fix = M.event_cause(ev.event, ev.status)
  local s = ("cm_event %s, status %d"):format(ev.event, ev.status)
  if why and ev.event ~= "ESTABLISHED" then s = s .. "\n  why: " .. why .. "\n  fix: " .. fix end
  return s
end

local expect_meta = { __name = "verbs.cm_error" }
expect_meta.__tostring = function(e) return e.text end

-- ev:expect(name, ...) -> ev, or raises { event=, status=, expected=, text= }.
function M.expect(ev, ...)
  local want = { ... }
  if #want == 0 then error("bad argument #1 to 'expect' (an event name expected, e.g. \"ESTABLISHED\")", 2) end
  local got = ev.event
  for _, w in ipairs(want) do
    if type(w) ~= "string" then
      error(("bad argument to 'expect' (event names are strings, got %s)"):format(type(w)), 2)
    end
    local short = w:gsub("^RDMA_CM_EVENT_", "")
    if short == got then return ev end
  end
  local why, fix = M.event_cause(got, ev.status)
  local lines = { ("rdma_get_cm_event: expected %s, got %s (status %d)"):format(table.concat(want, " or "), got,
    ev.status) }
  if why then
    lines[#lines + 1] = "  why: " .. why
    lines[#lines + 1] = "  fix: " .. fix
  end
  local e = { event = got, status = ev.status, expected = want, text = table.concat(lines, "\n") }
  e.hint = fix
  error(setmetatable(e, expect_meta), 2)
end

-- Hints for failing rdma_* verbs: "verb ERRNAME" -> { why, fix }.
M.HINTS = {
  ["rdma_create_event_channel ENODEV"] = { "no RDMA device, or the rdma_ucm module is not loaded"
    .. " (/dev/infiniband/rdma_cm is missing)", "modprobe rdma_ucm; or run in the micro-VM: scripts/rxe-vm" },
  ["rdma_create_event_channel ENOENT"] = { "/dev/infiniband/rdma_cm is missing: rdma_ucm is not loaded",
    "modprobe rdma_ucm; or run in the micro-VM: scripts/rxe-vm" },
  ["rdma_bind_addr EADDRINUSE"] = { "another id (in this or another process: a second verbsh, rping) is bound"
    .. " to that port", "pick another port, or stop the other listener" },
  ["rdma_bind_addr EADDRNOTAVAIL"] = { "the port is already bound by another id, in this or another process"
    .. " (rdma_cm says EADDRNOTAVAIL, not EADDRINUSE, for a taken port); or no local netdev has this address",
    "pick another port or stop the other listener; ip -br addr lists the local addresses" },
  ["rdma_bind_addr ENODEV"] = { "the address is on a netdev without an RDMA device (e.g. 127.0.0.1 on lo)",
    "bind to the rxe netdev's address, or to \"*:PORT\"" },
  ["rdma_resolve_addr ENODEV"] = { "the source address is on a netdev without an RDMA device",
    "use the rxe netdev's address" },
  ["rdma_resolve_route ENODEV"] = { "the route leads over a netdev without an RDMA device: 127.0.0.1 (lo)"
    .. " resolves as an address, but lo has no rxe device, so there is no route", "use an address on the"
    .. " rxe netdev (rdma link show; RXE_ADDR in the micro-VM)" },
  ["rdma_resolve_addr ENETUNREACH"] = { "no route to the destination: no local netdev is in its subnet and"
    .. " there is no default route", "ip route get ADDR; use an address in the rxe netdev's subnet" },
  ["rdma_resolve_addr EADDRNOTAVAIL"] = { "the source address given is not on this host", "leave src_addr nil" },
  ["rdma_resolve_route EINVAL"] = { "the address is not resolved yet: resolve_route comes after the"
    .. " ADDR_RESOLVED event", "id:resolve_addr(nil, DST); wait for ADDR_RESOLVED; then id:resolve_route()" },
  ["rdma_listen EINVAL"] = { "the id is past the listening stage (resolved or connected); an unbound id"
    .. " would listen on a random port", 'a fresh id: id:bind_addr("*:PORT") then id:listen()' },
  ["rdma_connect EINVAL"] = { "the route is not resolved yet (connect comes after ROUTE_RESOLVED), or"
    .. " private_data is longer than a REQ carries (56 bytes on RDMA_PS_TCP)",
    "wait for ROUTE_RESOLVED; keep private_data short" },
  ["rdma_accept EINVAL"] = { "accept is called on the new id of a CONNECT_REQUEST event, not on the listening"
    .. " id; or private_data is too long (a REP carries 196 bytes)", "ev.id:accept(conn_param)" },
  ["rdma_disconnect EINVAL"] = { "the id is not connected", "disconnect after ESTABLISHED" },
  ["rdma_join_multicast ENODEV"] = { "the id is not bound to an RDMA device yet", "id:bind_addr(RDMA_NETDEV_ADDR .. \":0\")"
    .. " or id:resolve_addr(src, GROUP) and wait for ADDR_RESOLVED before joining" },
  ["rdma_join_multicast EINVAL"] = { "the address is not a multicast one, or the id is not resolved yet",
    "join a group address (224.0.0.0 to 239.255.255.255, or ff00::/8) after ADDR_RESOLVED" },
  ["rdma_join_multicast EADDRINUSE"] = { "this id already joined that group", "join it once; leave_multicast first to join again" },
  ["rdma_join_multicast_ex ENOSYS"] = { "this kernel or librdmacm lacks the join flags asked for", "join with join_flags = \"FULLMEMBER\"" },
  ["rdma_leave_multicast EADDRNOTAVAIL"] = { "this id has not joined that group (or left it already)",
    "leave only a group joined with id:join_multicast" },
  ["rdma_get_request EINVAL"] = { "the id is not listening (id:listen() first), or it is no listener of verbs.create_ep",
    "res = verbs.getaddrinfo(nil, PORT, { ai_flags = \"PASSIVE\", ai_port_space = \"TCP\" }); l = verbs.create_ep(res); l:listen()" },
  ["rdma_getaddrinfo ENODEV"] = { "no RDMA device (rdma_getaddrinfo opens librdmacm's device list first)",
    "run where an RDMA device exists: rdma link show; scripts/rxe-vm starts one" },
  ["rdma_create_ep ENODEV"] = { "the address is on a netdev without an RDMA device (127.0.0.1 on lo, say)",
    "use an address of the rxe netdev (RXE_ADDR in the micro-VM)" },
  ["rdma_create_ep EADDRNOTAVAIL"] = { "the passive address is not on this host, or its port is taken", "pick another port; ip -br addr" },
}

-- ibv_attach_mcast / ibv_detach_mcast: the QP type and the GID, which the kernel checks.
local function analyze_mcast(e)
  local c = e.context or {}
  if e.errname == "EINVAL" and c.qp_type and c.qp_type ~= "UD" then
    return nil, { { why = "only a UD QP joins a multicast group; this QP is " .. tostring(c.qp_type),
      fix = "create the QP with qp_type = \"UD\"" } }
  end
  if e.errname == "EINVAL" and c.multicast == false then
    return nil, { { why = tostring(c.gid) .. " is not a multicast address (a group GID is ::ffff:224.0.0.0 to"
      .. " ::ffff:239.255.255.255 on RoCE over IPv4, or ff00::/8)", fix = "attach a group GID, e.g. \"::ffff:239.1.2.3\"" } }
  end
  if e.errname == "ENOMEM" then
    return nil, { { why = "the device's multicast limits are reached (ctx:query_device(): max_mcast_grp,"
      .. " max_mcast_qp_attach QPs per group, max_total_mcast_qp_attach)", fix = "detach QPs or groups no longer used" } }
  end
  if e.errname == "EINVAL" and e.verb == "ibv_detach_mcast" then
    return nil, { { why = "this QP is not attached to that group and lid", fix = "detach with the gid and lid given to attach_mcast" } }
  end
  return nil, {}
end

-- rdma_create_qp: which precondition failed.
local function analyze_create_qp(e)
  local c = e.context or {}
  if e.errname == "EINVAL" and c.bound == false then
    return nil, { { why = "the id is not bound to a device yet: librdmacm does not know which device the QP"
      .. " belongs to", fix = "create the QP after ADDR_RESOLVED / ROUTE_RESOLVED (client), or on the new id"
      .. " of a CONNECT_REQUEST (server)" } }
  end
  if e.errname == "EINVAL" and c.same_device == false then
    return nil, { { why = "the PD belongs to another context than id.verbs; librdmacm opened its own"
      .. " context for the device", fix = "allocate the PD and CQs on id.verbs: pd = id.verbs:alloc_pd()" } }
  end
  return nil, {}
end

-- rdma_connect / rdma_accept on an id without a QP: the CM needs a QPN.
local function analyze_conn(e)
  local c = e.context or {}
  if e.errname == "EINVAL" and c.has_qp == false and c.has_param == false then
    return nil, { { why = "this id has no QP and no conn_param: the CM has no QP number to put in the"
      .. " message", fix = "id:create_qp(pd, init_attr) first, or pass conn_param with qp_num (a QP you"
      .. " move yourself, see id:init_qp_attr)" } }
  end
  return nil, {}
end

M.ANALYZE = { rdma_create_qp = analyze_create_qp, rdma_connect = analyze_conn, rdma_accept = analyze_conn,
  ibv_attach_mcast = analyze_mcast, ibv_detach_mcast = analyze_mcast }

return M
