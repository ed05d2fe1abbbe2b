-- `verbsh --doctor --vm [--class GROUP:PORT]`: is this PC ready for the VM
-- lab? The host's own RDMA does not matter here (a lab PC has none): what
-- does is the micro-VM's path, checked in the order a seat needs it --
-- qemu, KVM or TCG, the kernel/initramfs cache, a real boot with rxe0
-- ACTIVE, then the class segment's UDP port and multicast group. Exit 0
-- when a seat can start on this PC.
local socket = require "socket"

local M = {}

local doctor = require "verbs.doctor"
local function sh(cmd) return doctor.sh_status(cmd, "2>&1") end
local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

-- The VM script beside this verbsh (a checkout's scripts/rxe-vm), else
-- verbsh-vm on PATH; and the command that runs verbsh in it.
local function vm_script()
  local exe = require("verbs").sysinfo().exe or ""
  local dir = exe:match("^(.*)/[^/]*$") or "."
  for _, p in ipairs { "/verbsh-vm", "/scripts/rxe-vm", "/../scripts/rxe-vm", "/../../scripts/rxe-vm" } do
    local f = io.open(dir .. p)
    if f then f:close() return dir .. p, exe end
  end
  local path = sh("command -v verbsh-vm"):match("^(%S+)")
  return path, exe ~= "" and exe or "verbsh"
end

function M.run(args)
  local checks = {}
  local function add(name, status, message, fix)
    checks[#checks + 1] = { name = name, status = status, message = message, fix = fix }
  end
  local class = args.class or "239.78.0.1:7100"
  local group, port = class:match("^(%d+%.%d+%.%d+%.%d+):(%d+)$")
  port = tonumber(port)
  local pkgs = "sudo apt-get install --no-install-recommends qemu-system-x86 busybox-static xz-utils"
  local function result()
    doctor.unrun_check(add)
    local ok = true
    for _, c in ipairs(checks) do ok = ok and c.status ~= "fail" end
    return { ok = ok, checks = checks }
  end

  local qemu_v = sh("qemu-system-x86_64 --version"):match("^([^\n]*version [%d.]+)")
  if not qemu_v then add("qemu", "fail", "qemu-system-x86_64 is missing: no seat can boot", pkgs) return result() end
  add("qemu", "ok", qemu_v)

  local kvm = io.open("/dev/kvm", "r+")
  if kvm then kvm:close() end
  add("accel", "ok", kvm and "/dev/kvm is usable: KVM if it boots the guest kernel (rxe-vm probes it once), else TCG"
    or "no usable /dev/kvm: TCG (a boot takes a few seconds more; 2 cores run two seats)")

  local vm, exe = vm_script()
  if not vm then
    add("vm", "fail", "neither scripts/rxe-vm beside this verbsh nor verbsh-vm on PATH", "install the verbsh package, or run from a checkout")
    return result()
  end
  local t0 = socket.gettime()
  local out, ok = sh(q(vm) .. " --build")
  if not ok then
    add("cache", "fail", "the guest kernel and initramfs could not be built: " .. (out:match("([^\n]+)\n?$") or "?"), pkgs)
    return result()
  end
  add("cache", "ok", ("guest kernel and initramfs ready (%.0f s)"):format(socket.gettime() - t0))

  t0 = socket.gettime()
  out, ok = sh(("RXE_VM_SHARE=0 %s --timeout 300 -- sh -c %s"):format(q(vm),
    q("cat /sys/class/infiniband/rxe0/ports/1/state; grep -m1 'model name' /proc/cpuinfo; " ..
      q(exe) .. " -e 'print(\"verbs.open: \" .. verbs.open().name)'")))
  local state = out:match("%d: (%u+)")
  if ok and state == "ACTIVE" and out:find("verbs.open: rxe0", 1, true) then
    local tcg = out:find("QEMU Virtual CPU", 1, true)
    add("boot", "ok", ("a seat booted with rxe0 ACTIVE and verbsh opened it, in %.0f s (%s)")
      :format(socket.gettime() - t0, tcg and "TCG" or "KVM"))
  else
    add("boot", "fail", "a test boot did not bring rxe0 up: " .. (out:gsub("%s+$", ""):match("([^\n]*)$") or "?"),
      "run " .. vm .. " --console -- true and read the guest's console")
  end

  if not group or not port or port < 1 or port > 65535 then
    add("class", "fail", "--class wants GROUP:PORT, got " .. class)
    return result()
  end
  local s = socket.udp4()
  local bound, err = s:setsockname("0.0.0.0", port)
  if bound then
    add("port", "ok", ("UDP port %d is free here"):format(port))
    local joined, jerr = s:setoption("ip-add-membership", { multiaddr = group, interface = "0.0.0.0" })
    if joined then
      add("class", "ok", ("multicast group %s can be joined (the class segment %s)"):format(group, class))
    else
      add("class", "fail", ("cannot join multicast group %s: %s (no route for multicast?)"):format(group, tostring(jerr)),
        "as root: ip route add 224.0.0.0/4 dev $(ip -o route get 1.1.1.1 | awk '{print $5}'), or give --listen ADDR to the seats")
    end
  else
    add("port", "fail", ("UDP port %d is in use here: %s"):format(port, tostring(err)),
      "stop what holds it (ss -ulnp | grep :" .. port .. "), or give the class another port")
  end
  s:close()
  return result()
end

function M.format(r)
  return require("verbs.doctor").report(r, "verbsh doctor --vm: is this PC ready for the VM lab (seats in the micro-VM)?",
    "ready for the VM lab", "not ready: fix the fail lines, then run verbsh --doctor --vm again")
end

return M
