-- `verbsh --doctor` and doctor() at the prompt: why RDMA does or does not
-- work on this host, one check per line, each ok, warn or fail, with the
-- exact command that fixes it. A fail is something a lesson needs (exit 1);
-- a warn is worth knowing but no lesson on one host depends on it.
--
-- The facts come from sysfs and /proc (through verbs.explain_sys, which also
-- explains a failed verbs.open, so both say the same), from libibverbs
-- (verbs.devices, ctx:query_port, ctx:gids) and from verbs.sysinfo() (rlimits,
-- ABI numbers, library versions). What they mean is decided here.
local verbs = require "verbs"   -- stock lua5.4 has no global verbs
local sys = require "verbs.explain_sys"
local version = require "verbs.version"

local M = {}

-- Lesson 2 registers 16 MiB on top of its small MRs, and every QP and CQ
-- pins its rings too: 32 MiB leaves room.
M.LESSON_MEMLOCK = 32 << 20
-- The lessons connect with path_mtu 1024, which active_mtu must allow.
M.LESSON_MTU = 1024
local CAP_IPC_LOCK = 14

-- A command's output (stderr dropped), and whether it exited 0. io.popen
-- itself fails rarely (fork or exec: no process slot, no memory); a check
-- would then take "" for "not installed", so the first such failure is kept
-- and the report names it (M.unrun_check).
local unrun
function M.sh_status(cmd, redirect)
  local p, err = io.popen(cmd .. " " .. (redirect or "2>/dev/null"))
  if not p then
    unrun = unrun or { cmd = cmd, err = tostring(err) }
    return "", false
  end
  local s = p:read("a") or ""
  return s, p:close() == true
end
function M.sh(cmd) return (M.sh_status(cmd)) end
local sh = M.sh

-- The last finding when a command could not be started: the others that
-- read commands are not to be trusted.
function M.unrun_check(add)
  if unrun then
    add("commands", "fail", ("could not start `%s` (%s), so the findings that read a command's output (rdma, ip,"
      .. " nft, qemu ...) may be wrong"):format(unrun.cmd, unrun.err),
      "free processes or memory (io.popen could not fork and exec a shell), then run the doctor again")
  end
  unrun = nil
end
local function have(cmd) return sh("command -v " .. cmd) ~= "" end
local function text(v, s) if type(v) == "function" then return v(s) end return v end

---------------------------------------------------------------------------
-- The checks. Each appends { name=, status=, message=, fix= } through add.

-- The kernel, rxe link, uverbs, provider and access checks are the cases
-- that explain a failed verbs.open, in its order: the first that holds is
-- the fail, and the checks after it cannot be judged, so they are left out.
local OPEN_CHECKS = {
  { name = "kernel", cases = { no_rdma_kernel = true, module_not_loaded = true, no_rxe_module = true },
    ok = function(s)
      local mods = {}
      for _, m in ipairs { "ib_core", "ib_uverbs", "rdma_rxe", "siw" } do
        if sys.exists("/sys/module/" .. m) then mods[#mods + 1] = m end
      end
      return ("RDMA in the kernel: %s%s"):format(#mods > 0 and (table.concat(mods, ", ") .. " loaded") or "built in",
        #s.ibdevs > 0 and ("; /sys/class/infiniband has " .. table.concat(s.ibdevs, ", ")) or "")
    end },
  { name = "rxe-link", cases = { no_rxe_link = true },
    ok = function(s) return "RDMA devices: " .. table.concat(s.ibdevs, ", ") end },
  { name = "uverbs", cases = { no_uverbs = true },
    ok = function(s) return "user-space access: /dev/infiniband/" .. table.concat(s.uverbs, ", ") end },
  { name = "provider", cases = { provider_missing = true },
    ok = function(s) return "libibverbs sees " .. table.concat(s.devices, ", ") .. " (its provider is installed)" end },
  { name = "device", cases = { not_found = true },
    ok = function(s) return s.requested and ("device %s exists"):format(s.requested) end },
  { name = "access", cases = { no_permission = true },
    ok = function() return "this user can open /dev/infiniband/uverbs*" end },
}

local function open_checks(add, found)
  local names = {}
  for i, d in ipairs(found.devices) do names[i] = d.name end
  local req = os.getenv("VERBSH_DEVICE")
  local s = sys.gather { devices = names, requested = req ~= "" and req or nil,
                         reason = req and req ~= "" and not found.byname[req] and "not_found" or nil }
  for _, chk in ipairs(OPEN_CHECKS) do
    for _, c in ipairs(sys.OPEN_CASES) do
      if chk.cases[c.case] and c.test(s) then
        add(chk.name, "fail", text(c.why, s), text(c.fix, s))
        return false
      end
    end
    local msg = chk.ok(s)
    if msg then add(chk.name, "ok", msg) end
  end
  return true
end

-- The kernel's uverbs ABI against libibverbs', and each provider library's
-- private ABI against the one this libibverbs loads.
local function abi_check(add, info)
  local kabi = tonumber(sys.read("/sys/class/infiniband_verbs/abi_version") or "")
  if kabi and (kabi < info.uverbs_abi_min or kabi > info.uverbs_abi_max) then
    add("abi", "fail", ("the kernel's uverbs ABI is %d, but this libibverbs supports %d to %d (libibverbs says"
        .. " 'Fatal: kernel ABI version %d doesn't match library version %d')"):format(kabi, info.uverbs_abi_min,
        info.uverbs_abi_max, kabi, info.uverbs_abi_max),
      "sudo apt-get install --only-upgrade rdma-core libibverbs1 ibverbs-providers (or boot the kernel this rdma-core"
        .. " was made for)")
    return
  end
  for _, dev in ipairs(sys.list("/sys/class/infiniband")) do
    local files, match = sys.provider_files(dev), false
    for _, f in ipairs(files) do match = match or f.abi == info.provider_abi end
    if #files > 0 and not match then
      add("abi", "fail", ("the provider for %s, %s, was built for libibverbs' private ABI %d, but this libibverbs"
          .. " (%s) loads ABI %d providers only: the two come from different rdma-core releases"):format(dev,
          files[1].path, files[1].abi, info.libibverbs or "?", info.provider_abi),
        "sudo apt-get install --reinstall libibverbs1 ibverbs-providers (both from one rdma-core release)")
      return
    end
  end
  add("abi", "ok", ("kernel uverbs ABI %s (libibverbs: %d-%d), providers of private ABI %d"):format(
    kabi or "?", info.uverbs_abi_min, info.uverbs_abi_max, info.provider_abi))
end

-- The netdev under a RoCE port: from its GIDs, else from `rdma link`.
local function port_netdev(dev, port, gids)
  for _, g in ipairs(gids) do if g.netdev then return g.netdev end end
  return sh(("rdma link show %s/%d"):format(dev, port)):match("netdev (%S+)")
end

local function port_checks(add, dev, port, pa, gids)
  local where = ("%s port %d"):format(dev, port)
  local roce = tostring(pa.link_layer) == "ETHERNET"
  local nd = roce and port_netdev(dev, port, gids)
  if tostring(pa.state) ~= "ACTIVE" then
    local fix
    if nd and not ((tonumber(sys.read("/sys/class/net/" .. nd .. "/flags") or "") or 0) & 1 ~= 0) then
      fix = ("sudo ip link set dev %s up"):format(nd)
    elseif nd then
      fix = ("ip link show %s: it is up but has no carrier; connect its link (cable, peer, switch port)"):format(nd)
    else
      fix = "start a subnet manager on the fabric (sudo systemctl start opensm), then check `ibstat`"
    end
    add("port", "fail", ("%s is %s (phys_state %s)%s: no traffic until it is ACTIVE"):format(where,
      tostring(pa.state), tostring(pa.phys_state), nd and (", on netdev " .. nd .. " which is "
      .. (sys.read("/sys/class/net/" .. nd .. "/operstate") or "?")) or ""), fix)
  else
    add("port", "ok", ("%s is ACTIVE, link layer %s%s"):format(where, tostring(pa.link_layer),
      nd and (" on " .. nd) or ""))
  end

  -- GIDs: RoCE v2 over IPv4 uses the ::ffff:a.b.c.d entry of type RoCE v2.
  local listed, v2 = {}, nil
  for _, g in ipairs(gids) do
    listed[#listed + 1] = ("%d %s %s"):format(g.index, tostring(g.type), tostring(g.gid))
    if not v2 and tostring(g.type) == "RoCE v2" and tostring(g.gid):find("^::ffff:%d") then v2 = g end
  end
  local table_txt = #listed > 0 and (" (table: " .. table.concat(listed, "; ") .. ")") or ""
  if not roce then
    add("gid", "ok", ("%s: InfiniBand, sgid_index 0%s"):format(where, table_txt))
  elseif not v2 then
    add("gid", "fail", ("%s has no RoCE v2 GID with an IPv4 address: %s has no IPv4 address%s"):format(where,
      nd or "its netdev", table_txt),
      ("sudo ip addr add 192.0.2.1/24 dev %s   (an IPv4 address of your network; 192.0.2.1 is an example)")
        :format(nd or "IFACE"))
  else
    local want = tonumber(os.getenv("RXE_GID_INDEX") or "")
    if want and want ~= v2.index then
      add("gid", "warn", ("RXE_GID_INDEX is %d, but the RoCE v2 IPv4 GID of %s is index %d%s"):format(want, where,
        v2.index, table_txt), ("export RXE_GID_INDEX=%d"):format(v2.index))
    else
      add("gid", "ok", ("%s: sgid_index %d is the RoCE v2 IPv4 GID %s%s"):format(where, v2.index,
        tostring(v2.gid), table_txt))
    end
  end

  -- active_mtu is what the netdev's MTU leaves after RoCE's headers.
  local active = tonumber(tostring(pa.active_mtu)) or 0
  local ndmtu = nd and tonumber(sys.read("/sys/class/net/" .. nd .. "/mtu") or "")
  local mtu_txt = ndmtu and (" (%s MTU %d)"):format(nd, ndmtu) or ""
  if active < M.LESSON_MTU then
    add("mtu", "fail", ("%s has active_mtu %d%s: the lessons connect with path_mtu %d, and a path_mtu above"
        .. " active_mtu loses every packet longer than %d bytes"):format(where, active, mtu_txt, M.LESSON_MTU, active),
      nd and ("sudo ip link set dev %s mtu 1500"):format(nd)
        or ("use path_mtu %d in your QPs' RTR transition"):format(active))
  else
    add("mtu", "ok", ("%s: active_mtu %d%s; use path_mtu <= %d"):format(where, active, mtu_txt, active))
  end
  return nd
end

local function device_checks(add, found)
  local netdevs = {}
  for _, d in ipairs(found.devices) do
    local ok, ctx = pcall(verbs.open, d.name)
    if not ok then
      add("port", "fail", ("cannot open %s: %s"):format(d.name, tostring(ctx)), "see the checks above")
    else
      local nports = ctx:query_device().phys_port_cnt
      for port = 1, nports do
        local pa = ctx:query_port(port)
        local gok, gids = pcall(ctx.gids, ctx, port)
        local nd
        if d.transport_type == "IWARP" then   -- siw: no RoCE GIDs; its address is its netdev's
          nd = require("verbs.doctor_iwarp").port_checks(add, ctx, d.name, port, pa)
        else
          nd = port_checks(add, d.name, port, pa, gok and gids or {})
        end
        if nd then netdevs[#netdevs + 1] = nd end
      end
      ctx:close()
    end
  end
  return netdevs
end

local function has_cap(bit)
  local st = sys.read("/proc/self/status") or ""
  local hex = st:match("CapEff:%s*(%x+)")
  return hex and (tonumber(hex, 16) >> bit) & 1 == 1
end

local function memlock_check(add, info)
  local lim, need = info.memlock, M.LESSON_MEMLOCK
  local shown = lim == "unlimited" and "unlimited" or sys.size(lim)
  if lim == "unlimited" or (math.type(lim) == "integer" and lim >= need) then
    add("memlock", "ok", ("ulimit -l is %s (the lessons need %s)"):format(shown, sys.size(need)))
  elseif has_cap(CAP_IPC_LOCK) then
    add("memlock", "warn", ("ulimit -l is %s, below the %s the lessons pin, but this process has CAP_IPC_LOCK"
        .. " (root), for which the limit does not count; other users hit ENOMEM in reg_mr"):format(shown,
        sys.size(need)), sys.MEMLOCK_FIX)
  else
    local hard = info.memlock_max
    add("memlock", "fail", ("ulimit -l is %s (hard limit %s), and registered memory is pinned against it:"
        .. " lesson 2 pins %s more, so reg_mr fails with ENOMEM"):format(shown,
        hard == "unlimited" and "unlimited" or sys.size(hard), sys.size(16 << 20)), sys.MEMLOCK_FIX)
  end
end

local function netns_check(add, have_rdma)
  if not have("rdma") then
    add("netns", "warn", "the `rdma` tool (iproute2) is missing: cannot read the RDMA netns mode or create rxe links",
      "sudo apt-get install iproute2")
    return
  end
  local mode = sh("rdma system show"):match("netns (%a+)")
  if not mode then
    if have_rdma then add("netns", "warn", "`rdma system show` says nothing of netns mode", "rdma system show") end
    return
  end
  -- (under explain_sys.root, as the other files the doctor reads)
  local function ns(p) return (sh("readlink '" .. sys.root .. p .. "'"):gsub("%s+$", "")) end
  local mine, init = ns("/proc/self/ns/net"), ns("/proc/1/ns/net")
  if mode == "exclusive" and mine ~= "" and init ~= "" and mine ~= init then
    add("netns", "fail", "RDMA netns mode is exclusive and this process is not in the initial network namespace:"
      .. " it sees only the RDMA devices moved into its namespace", "sudo rdma system set netns shared")
  elseif mode == "exclusive" and (mine == "" or init == "") then
    -- (pid 1's namespace is unreadable in some containers: say so, not guess)
    add("netns", "warn", "RDMA netns mode is exclusive, and /proc/1/ns/net cannot be read here, so whether this process"
      .. " is in the initial network namespace is unknown: outside it, it sees only the RDMA devices moved into its own",
      "sudo rdma system set netns shared")
  else
    add("netns", "ok", ("RDMA netns mode %s%s"):format(mode,
      mode == "exclusive" and " (this process is in the initial namespace, which keeps the devices)" or ""))
  end
end

-- rp_filter: the larger of all and the interface counts; accept_local: either.
local function rp_filter_check(add, netdevs)
  if #netdevs == 0 then return end
  local function conf(dev, key) return tonumber(sys.read(("/proc/sys/net/ipv4/conf/%s/%s"):format(dev, key)) or "") or 0 end
  for _, nd in ipairs(netdevs) do
    local rp = math.max(conf("all", "rp_filter"), conf(nd, "rp_filter"))
    local al = math.max(conf("all", "accept_local"), conf(nd, "accept_local"))
    if rp == 1 then
      add("rp_filter", "warn", ("rp_filter is strict (1) on %s: the kernel drops RoCE and rdma_cm packets whose source"
          .. " address it would route elsewhere, as between two RDMA devices of one host"):format(nd),
        ("sudo sysctl -w net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.%s.rp_filter=0"):format(nd))
    elseif al == 0 then
      add("rp_filter", "warn", ("accept_local is 0 on %s: rdma_cm between two RDMA devices of this host sees its"
          .. " own addresses as martians"):format(nd),
        ("sudo sysctl -w net.ipv4.conf.all.accept_local=1 net.ipv4.conf.%s.accept_local=1"):format(nd))
    else
      add("rp_filter", "ok", ("%s: rp_filter %d, accept_local %d (rdma_cm works between devices of one host)")
        :format(nd, rp, al))
    end
  end
end

-- RoCE v2 is UDP to port 4791: a rule dropping it, or an input policy of
-- drop with no rule accepting it, silently stops every packet.
local function firewall_check(add, info)
  local tool = have("nft") and "nft" or have("iptables") and "iptables" or nil
  if not tool then
    add("firewall", "ok", "no nft or iptables here: no packet filter rules to check for UDP 4791")
    return
  end
  if info.euid ~= 0 then
    add("firewall", "warn", "reading the firewall rules needs root: not checked whether UDP 4791 (RoCE v2) passes",
      tool == "nft" and "sudo nft list ruleset | grep -n -e 4791 -e 'policy drop'"
        or "sudo iptables -S INPUT | grep -e 4791 -e '-P INPUT DROP'")
    return
  end
  local rules = tool == "nft" and sh("nft list ruleset") or sh("iptables -S INPUT")
  local dropped, accepted, policy_drop = false, false, false
  for line in rules:gmatch("[^\n]+") do
    if line:find("4791") then
      if line:find("drop") or line:find("reject") or line:find("DROP") or line:find("REJECT") then dropped = true end
      if line:find("accept") or line:find("ACCEPT") then accepted = true end
    end
    if line:find("hook input.*policy drop") or line:find("^%-P INPUT DROP") then policy_drop = true end
  end
  local fix = tool == "nft" and "sudo nft insert rule inet filter input udp dport 4791 accept"
    or "sudo iptables -I INPUT -p udp --dport 4791 -j ACCEPT"
  if dropped or (policy_drop and not accepted) then
    add("firewall", "fail", ("%s: %s"):format(tool, dropped and "a rule drops UDP port 4791 (RoCE v2)"
      or "the input policy drops packets and no rule accepts UDP port 4791 (RoCE v2)"), fix)
  else
    add("firewall", "ok", tool .. ": nothing drops UDP port 4791 (RoCE v2)")
  end
end

local function vm_check(add, info)
  if os.getenv("RXE_VM") == "1" then
    add("vm", "ok", "running inside verbsh's micro-VM")
    return
  end
  local vm = sys.vm_command():match("^`(%S+)")
  if not have("qemu-system-x86_64") then
    add("vm", "warn", ("qemu is missing, so %s (real rxe in a micro-VM, for hosts without RDMA) cannot run"):format(vm),
      "sudo apt-get install --no-install-recommends qemu-system-x86 busybox-static xz-utils")
    return
  end
  local kvm = io.open("/dev/kvm", "r+")
  if kvm then kvm:close() end
  add("vm", "ok", ("qemu is installed: %s can run the micro-VM, %s"):format(vm,
    kvm and "with KVM if /dev/kvm boots its kernel (probed once), else TCG" or "under TCG (no usable /dev/kvm)"))
end

local function versions(info)
  local rc = (info.libibverbs or ""):match("libibverbs%.so%.%d+%.%d+%.(%d+)")
  return ("%s, %s, rdma-core %s (%s), kernel %s"):format(version, info.lua, rc or "?",
    info.libibverbs or "libibverbs not found", info.kernel or "?")
end

---------------------------------------------------------------------------

-- Runs every check: { ok = bool, checks = { {name, status, message, fix}, ... } }.
function M.run()
  local checks = {}
  local function add(name, status, message, fix)
    checks[#checks + 1] = { name = name, status = status, message = message, fix = fix }
  end
  local info = verbs.sysinfo()
  add("versions", "ok", versions(info))
  local found = { devices = verbs.devices(), byname = {} }
  for _, d in ipairs(found.devices) do found.byname[d.name] = d end
  local usable = open_checks(add, found)
  require("verbs.doctor_iwarp").module_check(add, info)
  local netdevs = {}
  if usable and #found.devices > 0 then
    abi_check(add, info)
    netdevs = device_checks(add, found)
  end
  memlock_check(add, info)
  netns_check(add, #found.devices > 0)
  rp_filter_check(add, netdevs)
  firewall_check(add, info)
  vm_check(add, info)
  M.unrun_check(add)
  local ok = true
  for _, c in ipairs(checks) do ok = ok and c.status ~= "fail" end
  return { ok = ok, checks = checks }
end

-- A report as text: the title, a line per check (and its fix), then the
-- counts and what they mean (`ready` when nothing failed, else `not_ready`).
-- verbsh --doctor --vm (verbs.doctor_vm) prints its checks the same way.
function M.report(r, title, ready, not_ready)
  local out, n = { title }, { ok = 0, warn = 0, fail = 0 }
  for _, c in ipairs(r.checks) do
    n[c.status] = n[c.status] + 1
    out[#out + 1] = ("%-5s %-9s %s"):format(c.status, c.name, c.message)
    if c.fix then out[#out + 1] = ("      fix: %s"):format(c.fix) end
  end
  out[#out + 1] = ("%d ok, %d warn, %d fail: %s"):format(n.ok, n.warn, n.fail, r.ok and ready or not_ready)
  return table.concat(out, "\n")
end

function M.format(r)
  return M.report(r, "verbsh doctor: what RDMA needs on this host, check by check", "the lessons can run here",
    "fix the fail lines (first one first), then run verbsh --doctor again")
end

-- JSON by hand: strings, numbers, booleans, arrays and string-keyed tables.
local function json(v)
  local t = type(v)
  if t == "string" then
    return '"' .. v:gsub('[%c"\\]', function(c)
      return ({ ['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\t"] = "\\t" })[c] or ("\\u%04x"):format(c:byte())
    end) .. '"'
  elseif t == "number" or t == "boolean" then
    return tostring(v)
  elseif t == "table" then
    local parts = {}
    if #v > 0 then
      for i, x in ipairs(v) do parts[i] = json(x) end
      return "[" .. table.concat(parts, ",") .. "]"
    end
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = k end
    table.sort(keys)
    for _, k in ipairs(keys) do parts[#parts + 1] = json(k) .. ":" .. json(v[k]) end
    return "{" .. table.concat(parts, ",") .. "}"
  end
  return "null"
end
M.json = json

-- verbsh --doctor [--json]: prints, returns the exit status.
function M.main(args)
  local as_json, vm, opts = false, false, {}
  local i = 1
  args = args or {}
  while args[i] do
    local a = args[i]
    if a == "--json" then as_json = true
    elseif a == "--vm" then vm = true   -- the VM lab's path alone (verbs.doctor_vm)
    elseif a == "--class" and vm and args[i + 1] then opts.class = args[i + 1] i = i + 1
    else error(("verbsh --doctor: unknown argument %q (--json, --vm [--class GROUP:PORT])"):format(a), 0) end
    i = i + 1
  end
  local D = vm and require("verbs.doctor_vm") or M
  local r = vm and D.run(opts) or M.run()
  print(as_json and json(r) or D.format(r))
  return r.ok and 0 or 1
end

-- doctor() at the prompt: prints the report, returns whether all passed and the findings.
function M.doctor()
  local r = M.run()
  print(M.format(r))
  return r.ok, r.checks
end

return M
