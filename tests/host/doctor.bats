#!/usr/bin/env bats
# verbsh --doctor on this host as it is (tests/vm/doctor.bats makes the
# conditions of a host with RDMA in the micro-VM).
load ../helpers

@test "doctor on a host without RDMA: the kernel check fails with the micro-VM as the fix, exit 1" {
    [ ! -d /sys/class/infiniband ] || skip "this host has RDMA (tests/vm/doctor.bats covers hosts with it)"
    run "$VERBSH" --doctor
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "verbsh doctor: what RDMA needs on this host, check by check" ]
    [[ ${lines[1]} == "ok    versions  verbsh 0.1.0, Lua 5.4."*", rdma-core "[0-9]*" ("*"libibverbs.so."*"), kernel $(uname -r)" ]]
    [[ ${lines[2]} == "fail  kernel    this kernel has no RDMA support: no /sys/class/infiniband"* ]]
    [[ ${lines[3]} == "      fix: run verbsh in the project's micro-VM"*'`scripts/rxe-vm --tty -- ./verbsh` or `make run`'* ]]
    # Nothing depends on a device that is not there: no port, gid or mtu lines.
    [[ $output != *"port "* && $output != *"gid "* ]]
    [[ $output == *"ok    vm "* || $output == *"warn  vm "* ]]
    [[ ${lines[-1]} == *" fail: fix the fail lines (first one first), then run verbsh --doctor again" ]]
}

@test "doctor --json: the same findings as one object, exit 1" {
    [ ! -d /sys/class/infiniband ] || skip "this host has RDMA"
    run "$VERBSH" --doctor --json
    [ "$status" -eq 1 ]
    run lua5.4 -e '
        local s = io.read("a")
        print(s:match([["ok":(%a+)}%s*$]]), s:match([[{"fix":"[^"]*","message":"this kernel has no RDMA[^"]*","name":"(kernel)","status":"(fail)"}]]))' <<<"$output"
    [ "$output" = "false	kernel	fail" ]
}

@test "doctor: a wrong argument is an error naming it; doctor() works at the prompt" {
    run "$VERBSH" --doctor --jsn
    [ "$status" -eq 1 ]
    [[ $output == *'verbsh --doctor: unknown argument "--jsn" (--json, --vm [--class GROUP:PORT])'* ]]
    [ ! -d /sys/class/infiniband ] || skip "this host has RDMA"
    run "$VERBSH" -e 'local ok, checks = doctor(); print(ok, checks[2].name, checks[2].status)'
    [ "${lines[0]}" = "verbsh doctor: what RDMA needs on this host, check by check" ]
    [ "${lines[-1]}" = "false	kernel	fail" ]
}

@test "verbs.sysinfo: memlock limits in bytes as getrlimit gives them (ulimit -l is in KiB), unlimited by name" {
    hard=$(ulimit -H -l)
    run bash -c 'ulimit -S -l 1024 && "$VERBSH" -e "local s = verbs.sysinfo(); print(s.memlock, s.memlock_max)"'
    [ "$status" -eq 0 ]
    if [ "$hard" = unlimited ]; then want=unlimited; else want=$((hard * 1024)); fi
    [ "$output" = "1048576	$want" ]
    if [ "$hard" = unlimited ]; then
        run bash -c 'ulimit -S -l unlimited && "$VERBSH" -e "print(verbs.sysinfo().memlock)"'
        [ "$output" = "unlimited" ]
    fi
}

@test "rxe-host: setup without IFACE gives its usage; env without an ACTIVE port says so on stderr" {
    run "$ROOT/scripts/rxe-host" setup
    [ "$status" -eq 2 ]
    [ "$output" = "usage: scripts/rxe-host setup IFACE   (IFACE: an up interface with an IPv4 address, as in ip -4 addr)" ]
    run "$ROOT/scripts/rxe-host" env
    if [ "$status" -ne 0 ]; then
        [ "$output" = "rxe-host: no ACTIVE port with a RoCE v2 IPv4 GID (scripts/rxe-host status says why)" ]
    else
        [[ $output == *RXE_DEV=* ]]   # this host has a device
    fi
}

@test "doctor --vm's report: each check on its line, the counts by status (distinct), ready or not" {
    run "$VERBSH" -e '
      local D = require "verbs.doctor_vm"
      local c = {}
      for _, s in ipairs { "ok", "ok", "ok", "warn", "fail", "fail" } do
        c[#c + 1] = { name = "n" .. #c, status = s, message = "m" .. #c, fix = s == "fail" and "f" .. #c or nil }
      end
      print(D.format { ok = false, checks = c })
      print(D.format { ok = true, checks = { c[1], c[4] } })'
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "ok    n0        m0"
    has_line "fail  n4        m4"
    has_line "      fix: f4"
    has_line "3 ok, 1 warn, 2 fail: not ready: fix the fail lines, then run verbsh --doctor --vm again"
    has_line "1 ok, 1 warn, 0 fail: ready for the VM lab"
}

# The port check with libibverbs' answers made up (verbs.devices, verbs.open)
# and sysfs under a fake root: a port that is not ACTIVE names its netdev's
# operstate as sysfs has it, and the fix follows the netdev's IFF_UP bit.
@test "doctor: a port that is not ACTIVE names its netdev's operstate from sysfs ('?' when sysfs has none) and the fix for that state" {
    T=$BATS_TEST_TMPDIR/root
    mkdir -p "$T/sys/class/infiniband/rxe0" "$T/dev/infiniband" "$T/sys/class/net/veth7" "$T/sys/class/net/veth8"
    touch "$T/dev/infiniband/uverbs0"
    echo 0x1002 >"$T/sys/class/net/veth7/flags"; echo down >"$T/sys/class/net/veth7/operstate"
    echo 0x1003 >"$T/sys/class/net/veth8/flags"; echo lowerlayerdown >"$T/sys/class/net/veth8/operstate"
    run "$VERBSH" -e "
      require('verbs.explain_sys').root = '$T'
      local ports = { rxe0 = { 'DOWN', 'DISABLED', 'ETHERNET', 'veth7' }, rxe1 = { 'DOWN', 'POLLING', 'ETHERNET', 'veth8' },
                      rxe2 = { 'INIT', 'LINK_UP', 'ETHERNET', 'veth9' }, rxe3 = { 'ACTIVE', 'LINK_UP', 'ETHERNET', 'veth8' },
                      mlx5_0 = { 'DOWN', 'POLLING', 'INFINIBAND' } }
      verbs.devices = function()
        return { { name = 'rxe0' }, { name = 'rxe1' }, { name = 'rxe2' }, { name = 'rxe3' }, { name = 'mlx5_0' } }
      end
      verbs.open = function(name)
        local p = ports[name]
        return { query_device = function() return { phys_port_cnt = 1 } end,
                 query_port = function() return { state = p[1], phys_state = p[2], link_layer = p[3], active_mtu = 1024 } end,
                 gids = function() return { { index = 1, type = 'RoCE v2', gid = '::ffff:192.0.2.7', netdev = p[4] } } end,
                 close = function() end }
      end
      for _, c in ipairs(require('verbs.doctor').run().checks) do
        if c.name == 'port' then print(c.status, c.message) print('fix', c.fix) end
      end"
    echo "$output"
    [ "$status" -eq 0 ]
    has_line $'fail\trxe0 port 1 is DOWN (phys_state DISABLED), on netdev veth7 which is down: no traffic until it is ACTIVE'
    has_line $'fix\tsudo ip link set dev veth7 up'
    has_line $'fail\trxe1 port 1 is DOWN (phys_state POLLING), on netdev veth8 which is lowerlayerdown: no traffic until it is ACTIVE'
    has_line $'fix\tip link show veth8: it is up but has no carrier; connect its link (cable, peer, switch port)'
    # a netdev sysfs does not have (another network namespace): no flags, no operstate
    has_line $'fail\trxe2 port 1 is INIT (phys_state LINK_UP), on netdev veth9 which is ?: no traffic until it is ACTIVE'
    has_line $'fix\tsudo ip link set dev veth9 up'
    has_line $'ok\trxe3 port 1 is ACTIVE, link layer ETHERNET on veth8'
    has_line $'fix\tnil'
    # InfiniBand: no netdev; the subnet manager brings a port to ACTIVE
    has_line $'fail\tmlx5_0 port 1 is DOWN (phys_state POLLING): no traffic until it is ACTIVE'
    has_line $'fix\tstart a subnet manager on the fabric (sudo systemctl start opensm), then check `ibstat`'
}

# doctor --vm with every command it runs answered by a fake io.popen (qemu,
# `command -v verbsh-vm`, the cache build, the test boot): which VM script
# it picks and which verbsh the test boot runs, from where the binary is.
doctor_vm_fake() {   # doctor_vm_fake BINARY: the checks, then each command run
    cat >"$BATS_TEST_TMPDIR/vm.lua" <<'LUA'
local cmds = {}
io.popen = function(cmd)
  cmds[#cmds + 1] = cmd
  local out = ""
  if cmd:find("^qemu%-system%-x86_64 %-%-version") then out = "QEMU emulator version 7.2.0\n"
  elseif cmd:find("^command %-v verbsh%-vm") then out = "/opt/seat7/bin/verbsh-vm\n"
  elseif cmd:find("RXE_VM_SHARE=0", 1, true) then out = "1: ACTIVE\nmodel name : QEMU Virtual CPU version 2.5+\nverbs.open: rxe0\n" end
  return { read = function() return out end, close = function() return true end }
end
local r = require("verbs.doctor_vm").run { class = "239.78.0.1:0" }   -- port 0: stops before binding one
for _, c in ipairs(r.checks) do print(c.name, c.status) end
for _, c in ipairs(cmds) do print("ran", c) end
-- the test boot's command: the VM script, and the verbsh it runs in the guest
local vm, exe = cmds[#cmds]:match("^RXE_VM_SHARE=0 '([^']+)' .* '\\''([^']+)'\\'' %-e")
print("vm", vm)
print("exe", exe)
LUA
    (cd "$BATS_TEST_TMPDIR" && "$1" "$BATS_TEST_TMPDIR/vm.lua")
}

@test "doctor --vm picks the checkout's scripts/rxe-vm beside the binary from any directory, else verbsh-vm beside it, else on PATH; the test boot runs this very verbsh" {
    run doctor_vm_fake "$VERBSH"   # a checkout's ./verbsh or build/asan/verbsh, started from elsewhere
    echo "$output"
    [ "$status" -eq 0 ]
    has_line $'cache\tok'
    has_line $'boot\tok'
    [ "$(realpath -m "$(sed -n 's/^vm\t//p' <<<"$output")")" = "$(realpath "$ROOT/scripts/rxe-vm")" ]
    [ "$(realpath -m "$(sed -n 's/^exe\t//p' <<<"$output")")" = "$(realpath "$VERBSH")" ]
    [[ $output != *"command -v verbsh-vm"* ]]
    # a copy of the binary outside any checkout: verbsh-vm from PATH, the copy in the guest
    B=$BATS_TEST_TMPDIR/opt/bin
    mkdir -p "$B"
    cp "$VERBSH" "$B/verbsh"
    run doctor_vm_fake "$B/verbsh"
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "ran	command -v verbsh-vm 2>&1"
    has_line "ran	'/opt/seat7/bin/verbsh-vm' --build 2>&1"
    has_line "vm	/opt/seat7/bin/verbsh-vm"
    has_line "exe	$(realpath "$B/verbsh")"
    has_line $'boot\tok'
    # verbsh-vm beside the binary (the installed layout) comes before PATH
    touch "$B/verbsh-vm"
    run doctor_vm_fake "$B/verbsh"
    echo "$output"
    has_line "vm	$(realpath "$B")/verbsh-vm"
    has_line "exe	$(realpath "$B/verbsh")"
    [[ $output != *"command -v verbsh-vm"* ]]
}

# `rdma system show` stood in for by a script on PATH, and the namespaces of
# this process and of pid 1 by links under a fake root (explain_sys.root).
@test "doctor: RDMA netns mode shared is ok; exclusive is ok in the initial namespace, a fail with the fix outside it, a warning when pid 1's cannot be read" {
    local bin=$BATS_TEST_TMPDIR/bin T=$BATS_TEST_TMPDIR/root
    mkdir -p "$bin" "$T/proc/self/ns" "$T/proc/1/ns"
    netns() {   # netns MODE SELF INIT: the doctor's netns line and its fix
        printf '#!/bin/sh\necho "netns %s copy-on-fork on"\n' "$1" >"$bin/rdma"
        chmod +x "$bin/rdma"
        rm -f "$T/proc/self/ns/net" "$T/proc/1/ns/net"
        [ -z "$2" ] || ln -s "$2" "$T/proc/self/ns/net"
        [ -z "$3" ] || ln -s "$3" "$T/proc/1/ns/net"
        PATH=$bin:$PATH "$VERBSH" -e "
          require('verbs.explain_sys').root = '$T'
          for _, c in ipairs(require('verbs.doctor').run().checks) do
            if c.name == 'netns' then print(c.status .. '|' .. c.message .. '|' .. tostring(c.fix)) end
          end"
    }
    run netns shared 'net:[4026531840]' 'net:[4026531840]'
    [ "$output" = "ok|RDMA netns mode shared|nil" ]
    run netns shared 'net:[4026532245]' 'net:[4026531840]'
    [ "$output" = "ok|RDMA netns mode shared|nil" ]
    run netns exclusive 'net:[4026531840]' 'net:[4026531840]'
    [ "$output" = "ok|RDMA netns mode exclusive (this process is in the initial namespace, which keeps the devices)|nil" ]
    run netns exclusive 'net:[4026532245]' 'net:[4026531840]'
    [ "$output" = "fail|RDMA netns mode is exclusive and this process is not in the initial network namespace: it sees only the RDMA devices moved into its namespace|sudo rdma system set netns shared" ]
    run netns exclusive 'net:[4026532245]' ''
    [ "$output" = "warn|RDMA netns mode is exclusive, and /proc/1/ns/net cannot be read here, so whether this process is in the initial network namespace is unknown: outside it, it sees only the RDMA devices moved into its own|sudo rdma system set netns shared" ]
}

# gid: the port's GID table is quoted after each finding, empty or not
@test "doctor: gid names the RoCE v2 IPv4 GID with the port's GID table after it; a RoCE port without one fails with the table and the ip fix; an empty table quotes nothing" {
    T=$BATS_TEST_TMPDIR/root
    mkdir -p "$T/sys/class/infiniband/rxe0" "$T/dev/infiniband" "$T/sys/class/net/veth7"
    touch "$T/dev/infiniband/uverbs0"
    run "$VERBSH" -e "
      require('verbs.explain_sys').root = '$T'
      local gids = {
        rxe0 = { { index = 0, type = 'RoCE v2', gid = 'fe80::5054:ff:fe12:3456', netdev = 'veth7' },
                 { index = 1, type = 'RoCE v2', gid = '::ffff:192.0.2.7', netdev = 'veth7' } },
        rxe1 = { { index = 0, type = 'RoCE v2', gid = 'fe80::5054:ff:fe12:3457', netdev = 'veth7' } },
        rxe2 = {} }
      verbs.devices = function() return { { name = 'rxe0' }, { name = 'rxe1' }, { name = 'rxe2' } } end
      verbs.open = function(name)
        return { query_device = function() return { phys_port_cnt = 1 } end,
                 query_port = function() return { state = 'ACTIVE', phys_state = 'LINK_UP', link_layer = 'ETHERNET', active_mtu = 1024 } end,
                 gids = function() return gids[name] end, close = function() end }
      end
      for _, c in ipairs(require('verbs.doctor').run().checks) do
        if c.name == 'gid' then print(c.status .. '|' .. c.message .. '|' .. tostring(c.fix)) end
      end"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "ok|rxe0 port 1: sgid_index 1 is the RoCE v2 IPv4 GID ::ffff:192.0.2.7 (table: 0 RoCE v2 fe80::5054:ff:fe12:3456; 1 RoCE v2 ::ffff:192.0.2.7)|nil" ]
    [ "${lines[1]}" = "fail|rxe1 port 1 has no RoCE v2 GID with an IPv4 address: veth7 has no IPv4 address (table: 0 RoCE v2 fe80::5054:ff:fe12:3457)|sudo ip addr add 192.0.2.1/24 dev veth7   (an IPv4 address of your network; 192.0.2.1 is an example)" ]
    [ "${lines[2]}" = "fail|rxe2 port 1 has no RoCE v2 GID with an IPv4 address: its netdev has no IPv4 address|sudo ip addr add 192.0.2.1/24 dev IFACE   (an IPv4 address of your network; 192.0.2.1 is an example)" ]
}

# fake_tool DIR NAME OUTPUT: a command NAME in DIR that prints OUTPUT
fake_tool() { mkdir -p "$1"; printf '#!/bin/sh\ncat <<"EOF_"\n%s\nEOF_\n' "$3" >"$1/$2"; chmod +x "$1/$2"; }

@test "doctor's firewall check (run as root): no nft or iptables is ok; a rule dropping UDP 4791, or an input policy of drop that no rule opens, fails with the fix for that tool; a policy of drop with 4791 accepted is ok" {
    [ "$(id -u)" -eq 0 ] || skip "the firewall rules are read as root only"
    local d=$BATS_TEST_TMPDIR p=/usr/local/bin:/usr/bin:/bin   # (not /usr/sbin: the host's own nft or iptables)
    fw() { PATH="$1:$p" "$VERBSH" --doctor | grep -A1 '^[a-z]* *firewall '; }
    run fw "$d/none"
    [ "${lines[0]}" = "ok    firewall  no nft or iptables here: no packet filter rules to check for UDP 4791" ]
    fake_tool "$d/nft_drop" nft $'table inet filter {\n\tchain input {\n\t\ttype filter hook input priority filter; policy accept;\n\t\tudp dport 4791 drop\n\t}\n}'
    run fw "$d/nft_drop"
    [ "${lines[0]}" = "fail  firewall  nft: a rule drops UDP port 4791 (RoCE v2)" ]
    [ "${lines[1]}" = "      fix: sudo nft insert rule inet filter input udp dport 4791 accept" ]
    fake_tool "$d/nft_open" nft $'table inet filter {\n\tchain input {\n\t\ttype filter hook input priority filter; policy drop;\n\t\tudp dport 4791 accept\n\t}\n}'
    run fw "$d/nft_open"
    [ "${lines[0]}" = "ok    firewall  nft: nothing drops UDP port 4791 (RoCE v2)" ]
    fake_tool "$d/ipt_policy" iptables $'-P INPUT DROP\n-A INPUT -p tcp --dport 22 -j ACCEPT'
    run fw "$d/ipt_policy"
    [ "${lines[0]}" = "fail  firewall  iptables: the input policy drops packets and no rule accepts UDP port 4791 (RoCE v2)" ]
    [ "${lines[1]}" = "      fix: sudo iptables -I INPUT -p udp --dport 4791 -j ACCEPT" ]
    fake_tool "$d/ipt_open" iptables $'-P INPUT DROP\n-A INPUT -p udp -m udp --dport 4791 -j ACCEPT'
    run fw "$d/ipt_open"
    [ "${lines[0]}" = "ok    firewall  iptables: nothing drops UDP port 4791 (RoCE v2)" ]
}
