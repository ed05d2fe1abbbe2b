-- The doctor's iWARP checks (soft-iWARP, siw): whether this kernel can have
-- an iWARP device at all, whether a siw.ko found is for this kernel, each
-- iWARP port's netdev address (rdma_cm finds an iWARP device by it), and a
-- measured fact: an RC QP driven to RTS without rdma_cm fails on it.
-- No lesson before 22 needs iWARP, so nothing here is worse than a warn
-- (a missing module is only said), except an iWARP device that rdma_cm
-- cannot reach.
local verbs = require "verbs"
local sys = require "verbs.explain_sys"

local M = {}

local function sh(cmd) return require("verbs.doctor").sh(cmd) end
local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- The kernel release a module file was built for (its vermagic), reading a
-- compressed one through its decompressor.
function M.vermagic(path)
  local cat = path:find("%.xz$") and "xz -dc " or path:find("%.zst$") and "zstd -dc " or path:find("%.gz$")
    and "gzip -dc " or "cat "
  return sh(cat .. q(sys.root .. path) .. " | tr '\\0' '\\n' | grep -a -m1 '^vermagic='"):match("^vermagic=(%S+)")
end

-- siw.ko files under /lib/modules/RELEASE (kernel/, updates/, extra/ ...).
local function siw_files(rel)
  local out = {}
  for line in sh("find " .. q(sys.root .. "/lib/modules/" .. rel) .. " -name 'siw.ko*'"):gmatch("[^\n]+") do
    out[#out + 1] = line:sub(#sys.root + 1)
  end
  table.sort(out)
  return out
end

-- The "siw" line: loaded, built in, loadable, for another kernel, or absent.
function M.module_check(add, info)
  local rel = sys.read("/proc/sys/kernel/osrelease") or info.kernel or "?"
  local builtin = (sys.read("/lib/modules/" .. rel .. "/modules.builtin") or ""):find("/siw%.ko") ~= nil
  if sys.exists("/sys/module/siw") then
    add("siw", "ok", ("siw (soft-iWARP) is %s: iWARP devices can be made (sudo rdma link add siw0 type siw netdev IFACE)")
      :format(builtin and "built in" or "loaded"))
    return
  end
  local files = siw_files(rel)
  for _, f in ipairs(files) do
    local vm = M.vermagic(f)
    if vm and vm ~= rel then
      add("siw", "warn", ("%s was built for kernel %s, but this kernel is %s: `modprobe siw` fails with"
          .. " 'Invalid module format' (dmesg: version magic '%s ...' should be '%s ...')"):format(f, vm, rel, vm, rel),
        ("rebuild it for this kernel: make -C /lib/modules/%s/build M=<linux source>/drivers/infiniband/sw/siw"
          .. " CONFIG_RDMA_SIW=m, then install it in place of %s (or remove that file)"):format(rel, f))
      return
    end
  end
  if #files > 0 then
    add("siw", "ok", ("%s is for this kernel, not loaded: `sudo modprobe siw` makes iWARP devices possible"):format(files[1]))
  else
    -- Only lesson 22 needs iWARP: its absence is said, not held against the host.
    add("siw", "ok", ("no siw module in this kernel (no siw.ko under /lib/modules/%s, and not built in), so no iWARP"
        .. " device: only lesson 22 needs one, and %s (make run SIW=1) builds siw.ko for the micro-VM's kernel"):format(
        rel, (sys.vm_command():match("^`(%S+)") or "scripts/rxe-vm") .. " --siw"))
  end
end

-- The netdev under an iWARP port: siw's GID 0 is its MAC, with no netdev
-- attribute in sysfs; `rdma link` names it.
local function netdev(dev, port)
  return sh(("rdma link show %s/%d"):format(dev, port)):match("netdev (%S+)")
end
local function ipv4(nd)
  return sh("ip -4 -o addr show dev " .. q(nd)):match("inet (%d+%.%d+%.%d+%.%d+)")
end

-- One RC QP on ctx taken RESET->INIT->RTR->RTS by hand (connected to
-- itself): the RTS's outcome, measured. nil when it could not be tried.
local function oob_rts(ctx)
  local made, errs = {}, nil   -- { object, the method that frees it }, in the order made
  local ok, res = pcall(function()
    local pd = ctx:alloc_pd(); made[#made + 1] = { pd, "dealloc" }
    local cq = ctx:create_cq(2); made[#made + 1] = { cq, "destroy" }
    local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,
      cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
    made[#made + 1] = { qp, "destroy" }
    qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }
    qp:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = qp.qp_num, rq_psn = 0, max_dest_rd_atomic = 1,
      min_rnr_timer = 12, ah_attr = { is_global = 1, port_num = 1, grh = { dgid = ctx:query_gid(1, 0), sgid_index = 0 } } }
    local rok, e = pcall(qp.modify, qp, { qp_state = "RTS", timeout = 14, retry_cnt = 7, rnr_retry = 7, sq_psn = 0,
      max_rd_atomic = 1 })
    errs = not rok and e or nil
    return rok
  end)
  for i = #made, 1, -1 do
    local o, free = made[i][1], made[i][2]
    pcall(function() o[free](o) end)
  end
  if not ok then return nil end
  return res, errs
end

-- The checks of an iWARP device's port. Returns its netdev.
function M.port_checks(add, ctx, dev, port, pa)
  local where = ("%s port %d"):format(dev, port)
  local nd = netdev(dev, port)
  if tostring(pa.state) ~= "ACTIVE" then
    add("port", "fail", ("%s (iWARP) is %s%s: no traffic until it is ACTIVE"):format(where, tostring(pa.state),
      nd and (", on netdev " .. nd) or ""), nd and ("sudo ip link set dev %s up"):format(nd) or nil)
    return nd
  end
  add("port", "ok", ("%s is ACTIVE, iWARP (RDMA over TCP)%s"):format(where, nd and (" on " .. nd) or ""))
  local addr = nd and ipv4(nd)
  if not addr then
    add("iwarp", "fail", ("%s is iWARP on %s, which has no IPv4 address: rdma_cm finds an iWARP device by its"
        .. " netdev's address (its one GID is the MAC, %s), so nothing can connect to it"):format(where,
        nd or "its netdev", tostring((pcall(ctx.query_gid, ctx, port, 0)) and ctx:query_gid(port, 0) or "?")),
      ("sudo ip addr add 198.51.100.1/24 dev %s   (an IPv4 address of its own: rdma_cm picks, for an address,"
        .. " the device created first on its netdev)"):format(nd or "IFACE"))
    return nd
  end
  local rts, e = oob_rts(ctx)
  local measured = rts == false and e and e.errname == "EINVAL"
    and "; measured now: an RC QP driven RESET->INIT->RTR->RTS by hand, without rdma_cm, fails at RTS with EINVAL,"
      .. " so ibv_rc_pingpong and the lessons that connect out of band (4-13) cannot run on it"
    or rts == true and "; an RC QP reached RTS without rdma_cm here" or ""
  add("iwarp", rts == false and "warn" or "ok", ("%s: iWARP on %s at %s: connect with rdma_cm to that address%s")
    :format(where, nd, addr, measured),
    rts == false and ("use rdma_cm (lessons 14 and 22; rping -a %s works), or a RoCE device for the other lessons")
      :format(addr) or nil)
  return nd
end

return M
