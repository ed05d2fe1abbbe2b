-- Looking at the system: why no RDMA device opens (sysfs, /proc/modules,
-- /dev/infiniband, the provider files of rdma-core) and RLIMIT_MEMLOCK.
-- Paths are read under M.root ("" normally), so tests can point it at a
-- fake tree.
local M = { root = "" }

local function path(p) return M.root .. p end
local function read(p)
  local f = io.open(path(p))
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s and (s:gsub("%s+$", ""))
end
local function exists(p)
  local f = io.open(path(p))
  if f then f:close() end
  return f ~= nil
end
-- Directory entries (Lua has no readdir; ls is in every userland).
M.read, M.exists = read, exists
local function list(dir)
  local out = {}
  local p = io.popen("ls -1A '" .. path(dir):gsub("'", "'\\''") .. "' 2>/dev/null")
  if not p then return out end
  for name in p:lines() do out[#out + 1] = name end
  p:close()
  return out
end
M.list = list

-- The first network interface that is up (operstate "up", else "unknown"
-- as on dummy devices), other than lo.
function M.up_netdev()
  local best
  for _, n in ipairs(list("/sys/class/net")) do
    local flags = tonumber(read("/sys/class/net/" .. n .. "/flags") or "")
    local state = read("/sys/class/net/" .. n .. "/operstate")
    if n ~= "lo" and flags and flags & 1 ~= 0 then
      if state == "up" then return n end
      best = best or n
    end
  end
  return best
end

-- Provider (userspace driver) of rdma-core for a device name: "rxe0" -> rxe.
local LIBDIRS = { "/usr/lib/x86_64-linux-gnu/libibverbs", "/usr/lib/aarch64-linux-gnu/libibverbs",
                  "/usr/lib64/libibverbs", "/usr/lib/libibverbs" }
-- The provider's library files, { {path=, abi=N}, ... } for lib<name>-rdmavN.so
-- (N: the private ABI of the libibverbs it was built with).
function M.provider_files(dev)
  local name, out = dev:gsub("_?%d+$", ""), {}
  for _, d in ipairs(LIBDIRS) do
    for _, f in ipairs(list(d)) do
      local abi = f:match("^lib" .. name:gsub("%p", "%%%0") .. "%-rdmav(%d+)%.so")
      if abi then out[#out + 1] = { path = d .. "/" .. f, abi = tonumber(abi) } end
    end
  end
  return out
end
function M.provider_present(dev)
  return exists("/etc/libibverbs.d/" .. dev:gsub("_?%d+$", "") .. ".driver") and #M.provider_files(dev) > 0
end

local function modules_loadable(mod, subdir)
  if not exists("/proc/modules") then return false end
  local rel = read("/proc/sys/kernel/osrelease") or ""
  for _, f in ipairs(list("/lib/modules/" .. rel .. "/kernel/drivers/infiniband/" .. subdir)) do
    if f:find("^" .. mod .. "%.ko") then return true end
  end
  return false
end
local function loaded(mod) return exists("/sys/module/" .. mod) end

-- The micro-VM as this verbsh can start it: verbsh-vm next to an installed
-- binary; in a checkout (./verbsh or build/asan/verbsh), scripts/rxe-vm.
-- (Real paths, not under M.root: they are about this binary, not the system.)
function M.vm_command()
  local exe = require("verbs").sysinfo().exe or ""
  local dir = exe:match("^(.*)/[^/]*$") or "."
  local function here(p) local f = io.open(dir .. p) if f then f:close() end return f ~= nil end
  if not here("/verbsh-vm") then
    for _, up in ipairs { "", "/..", "/../.." } do
      if here(up .. "/scripts/rxe-vm") then return "`scripts/rxe-vm --tty -- ./verbsh` or `make run`" end
    end
  end
  return "`verbsh-vm --tty -- verbsh`"
end
local function VM_FIX()
  return "run verbsh in the project's micro-VM, which boots a kernel with rdma_rxe and creates rxe0: " .. M.vm_command()
end

-- The cases, most basic first; the first whose test holds is the diagnosis.
-- test(s) gets the facts gathered once; why/fix may be functions of them.
M.OPEN_CASES = {
  { case = "no_rdma_kernel",
    test = function(s) return #s.ibdevs == 0 and not loaded("ib_core") and not modules_loadable("ib_core", "core") end,
    why = "this kernel has no RDMA support: no /sys/class/infiniband, no ib_core module loaded and none to load"
      .. " (Soft-RoCE needs CONFIG_RDMA_RXE)",
    fix = function() return VM_FIX() .. "; or boot a kernel with CONFIG_RDMA_RXE=m" end },
  { case = "module_not_loaded",
    test = function(s) return #s.ibdevs == 0 and not loaded("rdma_rxe") and modules_loadable("rdma_rxe", "sw/rxe") end,
    why = "the kernel can do RDMA, but the Soft-RoCE module rdma_rxe is not loaded (no /sys/module/rdma_rxe)",
    fix = function(s)
      return ("sudo modprobe rdma_rxe && sudo rdma link add rxe0 type rxe netdev %s"):format(s.netdev or "IFACE")
    end },
  { case = "no_rxe_module",
    test = function(s) return #s.ibdevs == 0 and not loaded("rdma_rxe") end,
    why = "ib_core is there, but this kernel has no rdma_rxe (Soft-RoCE) module and no RDMA device",
    fix = VM_FIX },
  { case = "no_rxe_link",
    test = function(s) return #s.ibdevs == 0 end,
    why = "rdma_rxe is loaded, but no rxe device is bound to a network interface (/sys/class/infiniband is empty)",
    fix = function(s)
      return ("sudo rdma link add rxe0 type rxe netdev %s%s (check with `rdma link show`)"):format(
        s.netdev or "IFACE", s.netdev and "" or " (IFACE: an interface that is up, see `ip link`)")
    end },
  { case = "no_uverbs",
    test = function(s) return #s.uverbs == 0 end,
    why = function(s)
      return ("the kernel has %s, but no /dev/infiniband/uverbs*: ib_uverbs, which gives user space access, is not loaded")
        :format(table.concat(s.ibdevs, ", "))
    end,
    fix = "sudo modprobe ib_uverbs" },
  { case = "provider_missing",
    test = function(s) return s.missing_provider ~= nil end,
    why = function(s)
      return ("the kernel has %s, but rdma-core has no userspace provider for it (libibverbs says 'no userspace"
        .. " device-specific driver found'): /etc/libibverbs.d/%s.driver or lib%s-rdmav*.so is missing")
        :format(s.missing_provider, (s.missing_provider:gsub("_?%d+$", "")), (s.missing_provider:gsub("_?%d+$", "")))
    end,
    fix = "sudo apt-get install ibverbs-providers (rdma-core-providers / libibverbs on other distributions)" },
  { case = "not_found",
    test = function(s) return s.reason == "not_found" end,
    why = function(s)
      return ("there is no device %q; libibverbs sees: %s"):format(tostring(s.requested),
        #s.devices > 0 and table.concat(s.devices, ", ") or table.concat(s.ibdevs, ", "))
    end,
    fix = function(s)
      local d = s.devices[1] or s.ibdevs[1]
      return ('verbs.open("%s"), or start the shell with `verbsh -d %s` (ibv_devices lists them)'):format(d, d)
    end },
  { case = "no_permission",
    test = function(s) return s.unwritable ~= nil end,
    why = function(s) return ("%s is not readable and writable by this user"):format(s.unwritable) end,
    fix = "add the user to the group owning /dev/infiniband/uverbs* (often 'rdma'), or run as root" },
}

-- Facts for the cases: the kernel's devices, uverbs nodes, providers.
function M.gather(ctx)
  ctx = ctx or {}
  local s = { requested = ctx.requested, devices = ctx.devices or {}, reason = ctx.reason,
              ibdevs = list("/sys/class/infiniband"), uverbs = {}, netdev = M.up_netdev() }
  for _, n in ipairs(list("/dev/infiniband")) do
    if n:find("^uverbs") then s.uverbs[#s.uverbs + 1] = n end
  end
  -- A device libibverbs lists has its provider; only look when it lists none.
  for _, d in ipairs(#s.devices == 0 and s.ibdevs or {}) do
    if not s.missing_provider and not M.provider_present(d) then s.missing_provider = d end
  end
  for _, n in ipairs(s.uverbs) do
    local f = io.open(path("/dev/infiniband/" .. n), "r+")
    if f then f:close() elseif not s.unwritable then s.unwritable = "/dev/infiniband/" .. n end
  end
  return s
end

-- verbs.open failures: { case = ..., why = ..., fix = ... }
function M.diagnose_open(ctx)
  local s = M.gather(ctx)
  for _, c in ipairs(M.OPEN_CASES) do
    if c.test(s) then
      local function text(v) return type(v) == "function" and v(s) or v end
      return { case = c.case, why = text(c.why), fix = text(c.fix) }
    end
  end
  return { case = "unknown",
           why = ("the kernel has %s with a provider and a uverbs node, yet opening failed")
             :format(table.concat(s.ibdevs, ", ")),
           fix = "run `ibv_devinfo -v` to see what libibverbs says; check dmesg" }
end

-- The filled slots of a port's GID table: { {index=, gid=, type=}, ... }.
-- dev may be nil when the system has exactly one RDMA device.
function M.gids(dev, port)
  if not dev then
    local devs = list("/sys/class/infiniband")
    if #devs ~= 1 then return {} end
    dev = devs[1]
  end
  local base = ("/sys/class/infiniband/%s/ports/%d/"):format(dev, port or 1)
  local out = {}
  for _, n in ipairs(list(base .. "gids")) do
    local gid = read(base .. "gids/" .. n)
    if tonumber(n) and gid and not gid:find("^[0:]+$") then
      out[#out + 1] = { index = tonumber(n), gid = gid, type = read(base .. "gid_attrs/types/" .. n) }
    end
  end
  table.sort(out, function(a, b) return a.index < b.index end)
  return out
end

-- Sizes as people say them: 8388608 -> "8 MiB".
local function size(n)
  if math.type(n) ~= "integer" then return tostring(n) end
  for _, u in ipairs({ { 1 << 30, "GiB" }, { 1 << 20, "MiB" }, { 1 << 10, "KiB" } }) do
    if n >= u[1] and n % u[1] == 0 then return ("%d %s"):format(n // u[1], u[2]) end
  end
  return ("%d bytes"):format(n)
end
M.size = size

M.MEMLOCK_FIX = "ulimit -l unlimited in the shell that starts verbsh; in a container: docker run --ulimit memlock=-1;"
  .. " for good: '* soft memlock unlimited' and '* hard memlock unlimited' in /etc/security/limits.conf"
  .. " (then log in again)"

-- ENOMEM/EPERM from reg_mr, create_cq, create_qp, create_srq.
function M.memlock(e)
  local c = e.context or {}
  if c.memlock == "unlimited" then
    return { why = "RLIMIT_MEMLOCK is unlimited, so the limit on pinned memory is not the cause: the memory or a"
      .. " device limit (max_cqe, max_qp_wr, max_mr_size in ctx:query_device()) is exhausted",
      fix = "ask for less, or free what you no longer use (destroy old MRs, CQs, QPs)" }
  end
  local lim = c.memlock and ("%s (%d bytes)"):format(size(c.memlock), c.memlock) or "unknown here"
  return { why = ("%s pins memory, which counts against RLIMIT_MEMLOCK (ulimit -l): the limit is %s%s"):format(
      e.verb or "the verb", lim,
      math.type(c.length) == "integer" and (", and this asks for %s more"):format(size(c.length)) or ""),
    fix = M.MEMLOCK_FIX }
end

return M
