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

@test "rxe-host setup IFACE loads rdma_rxe and adds rxe0 on IFACE; siw: without IFACE its usage (exit 2); where no siw module loads, it says so and exits 1, before it adds anything" {
    [ ! -d /sys/module/siw ] || skip "this kernel has siw loaded: the missing-module path cannot be taken here"
    mkdir -p "$BATS_TEST_TMPDIR/bin"
    printf '#!/bin/sh\necho "modprobe $*" >>%s/rdma.log\n[ "$1" != siw ] || { echo "modprobe: FATAL: Module siw not found" >&2; exit 1; }\n' "$BATS_TEST_TMPDIR" >"$BATS_TEST_TMPDIR/bin/modprobe"
    printf '#!/bin/sh\necho "rdma $*" >>%s/rdma.log\n' "$BATS_TEST_TMPDIR" >"$BATS_TEST_TMPDIR/bin/rdma"
    chmod +x "$BATS_TEST_TMPDIR/bin/modprobe" "$BATS_TEST_TMPDIR/bin/rdma"
    run env PATH="$BATS_TEST_TMPDIR/bin:$PATH" "$ROOT/scripts/rxe-host" setup veth9
    [ "$status" -eq 0 ]
    [ "$(cat "$BATS_TEST_TMPDIR/rdma.log")" = "modprobe rdma_rxe
rdma link add rxe0 type rxe netdev veth9
rdma link show rxe0/1" ]
    rm "$BATS_TEST_TMPDIR/rdma.log"
    run env PATH="$BATS_TEST_TMPDIR/bin:$PATH" "$ROOT/scripts/rxe-host" siw
    [ "$status" -eq 2 ]
    [[ $output == "usage: scripts/rxe-host siw IFACE "* ]]
    run env PATH="$BATS_TEST_TMPDIR/bin:$PATH" "$ROOT/scripts/rxe-host" siw lo
    echo "$output"
    [ "$status" -eq 1 ]
    [[ $output == *"rxe-host: no siw module for this kernel ($(uname -r)); verbsh --doctor says why. scripts/rxe-vm --siw has one." ]]
    [ "$(cat "$BATS_TEST_TMPDIR/rdma.log")" = "modprobe siw" ]   # and no rdma link add
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

# doctor_checks ROOT NAMES LUA: the findings named in NAMES (names separated
# by spaces), "name|status|message|fix", of a
# doctor run with sysfs under ROOT and libibverbs made up by LUA, which fills
# `devs` (name -> { port = query_port's answer, gids = ..., fail = open's
# error }) and may replace verbs.sysinfo.
doctor_checks() {
    "$VERBSH" -e "
      require('verbs.explain_sys').root = '$1'
      local devs = {}
      $3
      verbs.devices = function()
        local l = {}
        for n in pairs(devs) do l[#l + 1] = { name = n } end
        table.sort(l, function(a, b) return a.name < b.name end)
        return l
      end
      verbs.open = function(name)
        local d = devs[name]
        if d.fail then error(d.fail, 0) end
        return { query_device = function() return { phys_port_cnt = 1 } end,
                 query_port = function() return d.port end, gids = function() return d.gids or {} end,
                 close = function() end }
      end
      for _, c in ipairs(require('verbs.doctor').run().checks) do
        if (' $2 '):find(' ' .. c.name .. ' ', 1, true) then
          print(c.name .. '|' .. c.status .. '|' .. c.message .. '|' .. tostring(c.fix))
        end
      end"
}

# fake_rxe_root ROOT DEV...: sysfs with those RDMA devices and a uverbs node
fake_rxe_root() {
    local t=$1 d; shift
    mkdir -p "$t/dev/infiniband" "$t/sys/class/net"
    touch "$t/dev/infiniband/uverbs0"
    for d; do mkdir -p "$t/sys/class/infiniband/$d"; done
}

@test "doctor's ABI check: a provider built for another private ABI fails naming its file, both ABIs and libibverbs; one of this ABI beside it passes; the kernel's uverbs ABI passes at 3 and 6, fails at 2 and 7" {
    T=$BATS_TEST_TMPDIR/root
    L=/usr/lib/x86_64-linux-gnu/libibverbs
    fake_rxe_root "$T" rxe0
    mkdir -p "$T$L"
    touch "$T$L/librxe-rdmav33.so" "$T$L/libmlx5-rdmav34.so"
    sysinfo='local real = verbs.sysinfo
      verbs.sysinfo = function() local s = real(); s.libibverbs = "/usr/lib/libibverbs.so.1.14.44.0"; return s end
      devs.rxe0 = { port = { state = "ACTIVE", link_layer = "ETHERNET", active_mtu = 1024 } }'
    run doctor_checks "$T" abi "$sysinfo"
    echo "$output"
    [ "$output" = "abi|fail|the provider for rxe0, $L/librxe-rdmav33.so, was built for libibverbs' private ABI 33, but this libibverbs (/usr/lib/libibverbs.so.1.14.44.0) loads ABI 34 providers only: the two come from different rdma-core releases|sudo apt-get install --reinstall libibverbs1 ibverbs-providers (both from one rdma-core release)" ]
    touch "$T$L/librxe-rdmav34.so"
    run doctor_checks "$T" abi "$sysinfo"
    [ "$output" = "abi|ok|kernel uverbs ABI ? (libibverbs: 3-6), providers of private ABI 34|nil" ]
    mkdir -p "$T/sys/class/infiniband_verbs"
    for kabi in 2 3 6 7; do
        echo "$kabi" >"$T/sys/class/infiniband_verbs/abi_version"
        run doctor_checks "$T" abi "$sysinfo"
        echo "$kabi: $output"
        case $kabi in
        2|7) [ "$output" = "abi|fail|the kernel's uverbs ABI is $kabi, but this libibverbs supports 3 to 6 (libibverbs says 'Fatal: kernel ABI version $kabi doesn't match library version 6')|sudo apt-get install --only-upgrade rdma-core libibverbs1 ibverbs-providers (or boot the kernel this rdma-core was made for)" ] ;;
        *) [ "$output" = "abi|ok|kernel uverbs ABI $kabi (libibverbs: 3-6), providers of private ABI 34|nil" ] ;;
        esac
    done
}

@test "doctor's device check: \$VERBSH_DEVICE naming a device libibverbs sees is ok naming it; one it does not see fails with the devices it sees and the fix; unset or empty, there is no device line" {
    T=$BATS_TEST_TMPDIR/root
    fake_rxe_root "$T" rxe0 rxe1
    local d out=()
    for d in rxe1 rxe9 ""; do
        VERBSH_DEVICE=$d run doctor_checks "$T" "provider device access" '
          devs.rxe0 = { port = { state = "ACTIVE", link_layer = "ETHERNET", active_mtu = 1024 } }
          devs.rxe1 = devs.rxe0'
        echo "$output"
        [ "$status" -eq 0 ]
        out+=("$output")
    done
    [ "${out[0]}" = "provider|ok|libibverbs sees rxe0, rxe1 (its provider is installed)|nil
device|ok|device rxe1 exists|nil
access|ok|this user can open /dev/infiniband/uverbs*|nil" ]
    [ "${out[1]}" = "provider|ok|libibverbs sees rxe0, rxe1 (its provider is installed)|nil
device|fail|there is no device \"rxe9\"; libibverbs sees: rxe0, rxe1|verbs.open(\"rxe0\"), or start the shell with \`verbsh -d rxe0\` (ibv_devices lists them)" ]
    [ "${out[2]}" = "provider|ok|libibverbs sees rxe0, rxe1 (its provider is installed)|nil
access|ok|this user can open /dev/infiniband/uverbs*|nil" ]
}

@test "doctor's mtu check: active_mtu 512 fails (with the netdev's MTU and the ip fix, or on InfiniBand the path_mtu to use); 1024, the lessons' path_mtu, and 4096 pass; a device that cannot be opened is a port failure with open's error" {
    T=$BATS_TEST_TMPDIR/root
    fake_rxe_root "$T" mlx5_0 rxe0 rxe1 rxe2 rxe3
    for n in 7:1000 8:1500 9:9000; do mkdir -p "$T/sys/class/net/veth${n%:*}"; echo "${n#*:}" >"$T/sys/class/net/veth${n%:*}/mtu"; done
    run doctor_checks "$T" "port mtu" '
      local function roce(mtu, nd)
        return { port = { state = "ACTIVE", link_layer = "ETHERNET", active_mtu = mtu },
                 gids = { { index = 1, type = "RoCE v2", gid = "::ffff:192.0.2.7", netdev = nd } } }
      end
      devs.rxe0, devs.rxe1, devs.rxe2 = roce(512, "veth7"), roce(1024, "veth8"), roce(4096, "veth9")
      devs.rxe3 = { fail = "rxe3: ibv_open_device: ENODEV 19 (No such device)" }
      devs.mlx5_0 = { port = { state = "ACTIVE", link_layer = "INFINIBAND", active_mtu = 256 } }'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 9 ]
    [ "${lines[1]}" = "mtu|fail|mlx5_0 port 1 has active_mtu 256: the lessons connect with path_mtu 1024, and a path_mtu above active_mtu loses every packet longer than 256 bytes|use path_mtu 256 in your QPs' RTR transition" ]
    [ "${lines[3]}" = "mtu|fail|rxe0 port 1 has active_mtu 512 (veth7 MTU 1000): the lessons connect with path_mtu 1024, and a path_mtu above active_mtu loses every packet longer than 512 bytes|sudo ip link set dev veth7 mtu 1500" ]
    [ "${lines[5]}" = "mtu|ok|rxe1 port 1: active_mtu 1024 (veth8 MTU 1500); use path_mtu <= 1024|nil" ]
    [ "${lines[7]}" = "mtu|ok|rxe2 port 1: active_mtu 4096 (veth9 MTU 9000); use path_mtu <= 4096|nil" ]
    # the device that does not open has no port of its own to judge
    [ "${lines[8]}" = "port|fail|cannot open rxe3: rxe3: ibv_open_device: ENODEV 19 (No such device)|see the checks above" ]
}

@test "doctor's gid check: RXE_GID_INDEX other than the RoCE v2 IPv4 GID's index (below or above it) warns with the export that fixes it; that index is ok" {
    T=$BATS_TEST_TMPDIR/root
    fake_rxe_root "$T" rxe0
    gids='devs.rxe0 = { port = { state = "ACTIVE", link_layer = "ETHERNET", active_mtu = 1024 },
      gids = { { index = 0, type = "RoCE v2", gid = "fe80::5054:ff:fe12:3456", netdev = "veth7" },
               { index = 1, type = "RoCE v1", gid = "::ffff:192.0.2.7", netdev = "veth7" },
               { index = 2, type = "RoCE v2", gid = "::ffff:192.0.2.7", netdev = "veth7" } } }'
    table="(table: 0 RoCE v2 fe80::5054:ff:fe12:3456; 1 RoCE v1 ::ffff:192.0.2.7; 2 RoCE v2 ::ffff:192.0.2.7)"
    for want in 1 3; do
        RXE_GID_INDEX=$want run doctor_checks "$T" gid "$gids"
        [ "$output" = "gid|warn|RXE_GID_INDEX is $want, but the RoCE v2 IPv4 GID of rxe0 port 1 is index 2 $table|export RXE_GID_INDEX=2" ]
    done
    RXE_GID_INDEX=2 run doctor_checks "$T" gid "$gids"
    [ "$output" = "gid|ok|rxe0 port 1: sgid_index 2 is the RoCE v2 IPv4 GID ::ffff:192.0.2.7 $table|nil" ]
}

# /proc/sys/net/ipv4/conf under a fake root: ROOT DEV KEY VALUE ...
sysctl_conf() {
    local t=$1; shift
    while [ $# -gt 0 ]; do mkdir -p "$t/proc/sys/net/ipv4/conf/$1"; echo "$3" >"$t/proc/sys/net/ipv4/conf/$1/$2"; shift 3; done
}

@test "doctor's rp_filter check: each RDMA netdev's rp_filter is the larger of all's and its own, strict (1) warns, 0 and 2 (loose) do not; accept_local 0 in both warns, 1 in either does not" {
    T=$BATS_TEST_TMPDIR/root
    fake_rxe_root "$T" rxe0 rxe1 rxe2
    ports='local function roce(nd)
        return { port = { state = "ACTIVE", link_layer = "ETHERNET", active_mtu = 1024 },
                 gids = { { index = 1, type = "RoCE v2", gid = "::ffff:192.0.2.7", netdev = nd } } }
      end
      devs.rxe0, devs.rxe1, devs.rxe2 = roce("veth7"), roce("veth8"), roce("veth9")'
    sysctl_conf "$T" all rp_filter 0 all accept_local 0 veth7 rp_filter 1 veth7 accept_local 1 \
        veth8 rp_filter 2 veth8 accept_local 1 veth9 rp_filter 0 veth9 accept_local 0
    run doctor_checks "$T" rp_filter "$ports"
    echo "$output"
    [ "${#lines[@]}" -eq 3 ]
    [ "${lines[0]}" = "rp_filter|warn|rp_filter is strict (1) on veth7: the kernel drops RoCE and rdma_cm packets whose source address it would route elsewhere, as between two RDMA devices of one host|sudo sysctl -w net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.veth7.rp_filter=0" ]
    [ "${lines[1]}" = "rp_filter|ok|veth8: rp_filter 2, accept_local 1 (rdma_cm works between devices of one host)|nil" ]
    [ "${lines[2]}" = "rp_filter|warn|accept_local is 0 on veth9: rdma_cm between two RDMA devices of this host sees its own addresses as martians|sudo sysctl -w net.ipv4.conf.all.accept_local=1 net.ipv4.conf.veth9.accept_local=1" ]
    # all's values count too: strict all over veth9's 0, all's accept_local over veth9's 0; loose veth8 stays loose
    sysctl_conf "$T" all rp_filter 1 all accept_local 1
    run doctor_checks "$T" rp_filter "$ports"
    echo "$output"
    [ "${lines[0]}" = "rp_filter|warn|rp_filter is strict (1) on veth7: the kernel drops RoCE and rdma_cm packets whose source address it would route elsewhere, as between two RDMA devices of one host|sudo sysctl -w net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.veth7.rp_filter=0" ]
    [ "${lines[1]}" = "rp_filter|ok|veth8: rp_filter 2, accept_local 1 (rdma_cm works between devices of one host)|nil" ]
    [[ ${lines[2]} == "rp_filter|warn|rp_filter is strict (1) on veth9: "* ]]
    sysctl_conf "$T" all rp_filter 0 veth9 rp_filter 0
    run doctor_checks "$T" rp_filter "$ports"
    [ "${lines[2]}" = "rp_filter|ok|veth9: rp_filter 0, accept_local 1 (rdma_cm works between devices of one host)|nil" ]
}

# tools_only DIR TOOL...: DIR holds only those commands of this host's (links)
tools_only() {
    local d=$1 t; shift
    mkdir -p "$d"
    for t; do ln -sf "$(command -v "$t")" "$d/$t"; done
}

@test "doctor on a PATH without rdma, qemu, nft or iptables: netns and vm warn with the package that brings each, the firewall has no rules to check" {
    B=$BATS_TEST_TMPDIR/bin
    tools_only "$B" ls cat grep tr find readlink
    run env PATH="$B" "$VERBSH" -e '
      for _, c in ipairs(require("verbs.doctor").run().checks) do
        if c.name == "netns" or c.name == "vm" or c.name == "firewall" then
          print(c.name .. "|" .. c.status .. "|" .. c.message .. "|" .. tostring(c.fix))
        end
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 3 ]
    [ "${lines[0]}" = "netns|warn|the \`rdma\` tool (iproute2) is missing: cannot read the RDMA netns mode or create rxe links|sudo apt-get install iproute2" ]
    [ "${lines[1]}" = "firewall|ok|no nft or iptables here: no packet filter rules to check for UDP 4791|nil" ]
    [ "${lines[2]}" = "vm|warn|qemu is missing, so scripts/rxe-vm (real rxe in a micro-VM, for hosts without RDMA) cannot run|sudo apt-get install --no-install-recommends qemu-system-x86 busybox-static xz-utils" ]
}

@test "doctor's firewall check as a user: a warning that reading the rules needs root, with the root command for the tool there is (nft before iptables)" {
    local d=$BATS_TEST_TMPDIR
    tools_only "$d/base" ls cat grep tr find readlink
    fake_tool "$d/both" nft 'policy drop'
    fake_tool "$d/both" iptables '-P INPUT DROP'
    fake_tool "$d/ipt" iptables '-P INPUT DROP'
    fw() {
        PATH="$1:$d/base" "$VERBSH" -e '
          local real = verbs.sysinfo
          verbs.sysinfo = function() local s = real(); s.euid = 1000; return s end
          for _, c in ipairs(require("verbs.doctor").run().checks) do
            if c.name == "firewall" then print(c.status .. "|" .. c.message .. "|" .. tostring(c.fix)) end
          end'
    }
    run fw "$d/both"
    [ "$output" = "warn|reading the firewall rules needs root: not checked whether UDP 4791 (RoCE v2) passes|sudo nft list ruleset | grep -n -e 4791 -e 'policy drop'" ]
    run fw "$d/ipt"
    [ "$output" = "warn|reading the firewall rules needs root: not checked whether UDP 4791 (RoCE v2) passes|sudo iptables -S INPUT | grep -e 4791 -e '-P INPUT DROP'" ]
}

@test "doctor's JSON: quotes, backslashes, newlines and tabs escaped by name, other control characters as \\u00XX; a value JSON has no form for is null" {
    run "$VERBSH" -e '
      local json = require("verbs.doctor").json
      print(json { a = "q\"b\\n\nt\tc\1d\27", f = print, list = { 12, true, "x" } })'
    [ "$status" -eq 0 ]
    [ "$output" = '{"a":"q\"b\\n\nt\tc\u0001d\u001b","f":null,"list":[12,true,"x"]}' ]
}

# doctor_vm_run BINARY CLASS [BUILD BOOT PATHVM]: doctor --vm's findings
# ("name|status|message|fix") with its commands answered by a fake io.popen:
# the cache build and the test boot succeed unless BUILD or BOOT is "fail",
# `command -v verbsh-vm` finds PATHVM (none when empty).
doctor_vm_run() {
    cat >"$BATS_TEST_TMPDIR/vmrun.lua" <<'LUA'
local build, boot, pathvm = os.getenv("FAKE_BUILD"), os.getenv("FAKE_BOOT"), os.getenv("FAKE_PATHVM") or ""
io.popen = function(cmd)
  local out, ok = "", true
  if cmd:find("^qemu%-system%-x86_64 %-%-version") then out = "QEMU emulator version 7.2.0\n"
  elseif cmd:find("^command %-v verbsh%-vm") then out = pathvm ~= "" and pathvm .. "\n" or ""; ok = pathvm ~= ""
  elseif cmd:find("%-%-build 2>&1$") then
    if build == "fail" then out, ok = "building the guest kernel\nxz: (stdin): File format not recognized\n", false end
  elseif cmd:find("RXE_VM_SHARE=0", 1, true) then
    if boot == "fail" then out, ok = "1: DOWN\nmodel name : QEMU Virtual CPU version 2.5+\nverbs.open: no device  \n\n", true
    else out = "1: ACTIVE\nmodel name : QEMU Virtual CPU version 2.5+\nverbs.open: rxe0\n" end
  end
  return { read = function() return out end, close = function() return ok end }
end
local r = require("verbs.doctor_vm").run { class = os.getenv("FAKE_CLASS") }
for _, c in ipairs(r.checks) do print(c.name .. "|" .. c.status .. "|" .. c.message .. "|" .. tostring(c.fix)) end
print("ok", r.ok)
LUA
    (cd "$BATS_TEST_TMPDIR" && FAKE_CLASS=$2 FAKE_BUILD=${3:-} FAKE_BOOT=${4:-} FAKE_PATHVM=${5:-} "$1" "$BATS_TEST_TMPDIR/vmrun.lua")
}

@test "doctor --vm: no VM script anywhere, a cache that cannot be built, a boot without rxe0 each fail with the output's last line and stop there; the class's port bounds are 1 and 65535" {
    B=$BATS_TEST_TMPDIR/opt/bin
    mkdir -p "$B"
    cp "$VERBSH" "$B/verbsh"
    run doctor_vm_run "$B/verbsh" 239.78.0.1:7100
    echo "$output"
    [ "${lines[2]}" = "vm|fail|neither scripts/rxe-vm beside this verbsh nor verbsh-vm on PATH|install the verbsh package, or run from a checkout" ]
    [ "${lines[3]}" = "ok	false" ]
    [ "${#lines[@]}" -eq 4 ]
    run doctor_vm_run "$VERBSH" 239.78.0.1:7100 fail
    echo "$output"
    [ "${lines[2]}" = "cache|fail|the guest kernel and initramfs could not be built: xz: (stdin): File format not recognized|sudo apt-get install --no-install-recommends qemu-system-x86 busybox-static xz-utils" ]
    [ "${lines[3]}" = "ok	false" ]
    run doctor_vm_run "$VERBSH" 239.78.0.1:0 "" fail
    echo "$output"
    [[ ${lines[2]} == "cache|ok|guest kernel and initramfs ready ("[0-9]*" s)|nil" ]]
    [[ ${lines[3]} == "boot|fail|a test boot did not bring rxe0 up: verbs.open: no device|run "*" --console -- true and read the guest's console" ]]
    vm=${lines[3]#*|run }
    [ "$(realpath "${vm%% *}")" = "$(realpath "$ROOT/scripts/rxe-vm")" ]
    [ "${lines[4]}" = "class|fail|--class wants GROUP:PORT, got 239.78.0.1:0|nil" ]
    run doctor_vm_run "$VERBSH" 239.78.0.1:65536
    echo "$output"
    [[ ${lines[3]} == "boot|ok|a seat booted with rxe0 ACTIVE and verbsh opened it, in "[0-9]*" s (TCG)|nil" ]]
    [ "${lines[4]}" = "class|fail|--class wants GROUP:PORT, got 239.78.0.1:65536|nil" ]
    for port in 1 65535; do
        run doctor_vm_run "$VERBSH" "239.78.0.1:$port"
        echo "$output"
        [ "${lines[4]}" = "port|ok|UDP port $port is free here|nil" ]
    done
}

@test "doctor --vm's class segment: a free port and a multicast group are ok; a port in use fails naming it; a group that is not multicast cannot be joined" {
    ip -4 route get 239.78.0.1 >/dev/null 2>&1 || skip "no route for multicast on this host"
    run doctor_vm_run "$VERBSH" 239.78.0.1:47123
    echo "$output"
    [ "${lines[4]}" = "port|ok|UDP port 47123 is free here|nil" ]
    [ "${lines[5]}" = "class|ok|multicast group 239.78.0.1 can be joined (the class segment 239.78.0.1:47123)|nil" ]
    [ "${lines[6]}" = "ok	true" ]
    run doctor_vm_run "$VERBSH" 192.0.2.77:47124
    echo "$output"
    [ "${lines[4]}" = "port|ok|UDP port 47124 is free here|nil" ]
    [ "${lines[5]}" = "class|fail|cannot join multicast group 192.0.2.77: setsockopt failed (no route for multicast?)|as root: ip route add 224.0.0.0/4 dev \$(ip -o route get 1.1.1.1 | awk '{print \$5}'), or give --listen ADDR to the seats" ]
    [ "${lines[6]}" = "ok	false" ]
    # the port held by another process
    python3 -c 'import socket, time; s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("0.0.0.0", 47125)); print("bound", flush=True); time.sleep(30)' >"$BATS_TEST_TMPDIR/holder" &
    holder=$!
    while ! grep -q bound "$BATS_TEST_TMPDIR/holder"; do sleep 0.1; done
    run doctor_vm_run "$VERBSH" 239.78.0.1:47125
    kill "$holder"
    echo "$output"
    [ "${lines[4]}" = "port|fail|UDP port 47125 is in use here: address already in use|stop what holds it (ss -ulnp | grep :47125), or give the class another port" ]
    [ "${#lines[@]}" -eq 6 ]
    [ "${lines[5]}" = "ok	false" ]
}

@test "doctor's memlock check: ulimit -l at the lessons' 32 MiB or unlimited is ok; 1 KiB less fails with the soft and hard limits (a size or unlimited) and the fix; with CAP_IPC_LOCK (root) it is a warning" {
    cat >"$BATS_TEST_TMPDIR/mem.lua" <<'LUA'
local real = verbs.sysinfo
for _, l in ipairs{ { 32 << 20, 32 << 20 }, { "unlimited", "unlimited" }, { (32 << 20) - 1024, "unlimited" }, { 3 << 20, 12 << 20 } } do
  verbs.sysinfo = function() local i = real(); i.memlock, i.memlock_max = l[1], l[2]; return i end
  for _, c in ipairs(require("verbs.doctor").run().checks) do
    if c.name == "memlock" then print(c.status, c.message); print("fix", c.fix) end
  end
end
LUA
    # without CAP_IPC_LOCK, as a user is (root drops it from its bounding set)
    if [ "$(id -u)" = 0 ]; then run setpriv --bounding-set -ipc_lock -- "$VERBSH" "$BATS_TEST_TMPDIR/mem.lua"
    else run "$VERBSH" "$BATS_TEST_TMPDIR/mem.lua"; fi
    echo "$output"
    [ "$status" -eq 0 ]
    local fix="fix	ulimit -l unlimited in the shell that starts verbsh; in a container: docker run --ulimit memlock=-1; for good: '* soft memlock unlimited' and '* hard memlock unlimited' in /etc/security/limits.conf (then log in again)"
    [ "${lines[0]}" = "ok	ulimit -l is 32 MiB (the lessons need 32 MiB)" ]
    [ "${lines[1]}" = "fix	nil" ]
    [ "${lines[2]}" = "ok	ulimit -l is unlimited (the lessons need 32 MiB)" ]
    [ "${lines[3]}" = "fix	nil" ]
    [ "${lines[4]}" = "fail	ulimit -l is 32767 KiB (hard limit unlimited), and registered memory is pinned against it: lesson 2 pins 16 MiB more, so reg_mr fails with ENOMEM" ]
    [ "${lines[5]}" = "$fix" ]
    [ "${lines[6]}" = "fail	ulimit -l is 3 MiB (hard limit 12 MiB), and registered memory is pinned against it: lesson 2 pins 16 MiB more, so reg_mr fails with ENOMEM" ]
    [ "${lines[7]}" = "$fix" ]
    [ "${#lines[@]}" -eq 8 ]
    local cap
    cap=$(awk '/^CapEff:/ { print $2 }' /proc/self/status)
    (( (0x$cap >> 14) & 1 )) || skip "no CAP_IPC_LOCK (bit 14) here to keep"
    run "$VERBSH" "$BATS_TEST_TMPDIR/mem.lua"
    [ "${lines[4]}" = "warn	ulimit -l is 32767 KiB, below the 32 MiB the lessons pin, but this process has CAP_IPC_LOCK (root), for which the limit does not count; other users hit ENOMEM in reg_mr" ]
    [ "${lines[5]}" = "$fix" ]
}

@test "doctor's firewall check (run as root): an input policy of accept, or a drop policy on another hook, with no rule for 4791 is ok; a rule that rejects 4791 fails as one that drops it, even beside a drop policy" {
    [ "$(id -u)" -eq 0 ] || skip "the firewall rules are read as root only"
    local d=$BATS_TEST_TMPDIR p=/usr/local/bin:/usr/bin:/bin   # (not /usr/sbin: the host's own nft or iptables)
    fw() { PATH="$1:$p" "$VERBSH" --doctor | grep -A1 '^[a-z]* *firewall '; }
    fake_tool "$d/nft_accept" nft $'table inet filter {\n\tchain input {\n\t\ttype filter hook input priority filter; policy accept;\n\t\ttcp dport 22 accept\n\t}\n\tchain output {\n\t\ttype filter hook output priority filter; policy drop;\n\t}\n}'
    run fw "$d/nft_accept"
    [ "${lines[0]}" = "ok    firewall  nft: nothing drops UDP port 4791 (RoCE v2)" ]
    [[ ${lines[1]} != "      fix:"* ]]
    fake_tool "$d/ipt_accept" iptables $'-P INPUT ACCEPT\n-A INPUT -p tcp --dport 22 -j DROP'
    run fw "$d/ipt_accept"
    [ "${lines[0]}" = "ok    firewall  iptables: nothing drops UDP port 4791 (RoCE v2)" ]
    fake_tool "$d/ipt_reject" iptables $'-P INPUT ACCEPT\n-A INPUT -p udp -m udp --dport 4791 -j REJECT --reject-with icmp-port-unreachable'
    run fw "$d/ipt_reject"
    [ "${lines[0]}" = "fail  firewall  iptables: a rule drops UDP port 4791 (RoCE v2)" ]
    [ "${lines[1]}" = "      fix: sudo iptables -I INPUT -p udp --dport 4791 -j ACCEPT" ]
    fake_tool "$d/nft_reject" nft $'table inet filter {\n\tchain input {\n\t\ttype filter hook input priority filter; policy drop;\n\t\tudp dport 4791 reject\n\t}\n}'
    run fw "$d/nft_reject"
    [ "${lines[0]}" = "fail  firewall  nft: a rule drops UDP port 4791 (RoCE v2)" ]
    [ "${lines[1]}" = "      fix: sudo nft insert rule inet filter input udp dport 4791 accept" ]
}

@test "doctor on a host without RDMA runs its checks in order, the siw module check once, after the kernel's and before memlock" {
    [ ! -d /sys/class/infiniband ] || skip "this host has RDMA (tests/vm/doctor.bats covers hosts with it)"
    run "$VERBSH" -e 'local n = {}
      for _, c in ipairs(require("verbs.doctor").run().checks) do n[#n + 1] = c.name end
      print(table.concat(n, " "))'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == "versions kernel siw memlock "* ]]
    [ "$(grep -o ' siw ' <<<"$output" | wc -l)" -eq 1 ]
}

@test "doctor: when no command can be started (io.popen fails, as when fork does) it still gives its report, each check with a verdict (ok, warn or fail)" {
    run "$VERBSH" -e '
      io.popen = function() return nil, "Resource temporarily unavailable" end
      local r = require("verbs.doctor").run()
      local ok = #r.checks > 0
      for _, c in ipairs(r.checks) do ok = ok and (c.status == "ok" or c.status == "warn" or c.status == "fail") end
      print(type(r.ok), ok)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "boolean	true" ]
}

@test "doctor: a command that cannot be started (io.popen fails: fork, memory) is a fail naming it and popen's error, last, in --doctor and --doctor --vm; the other checks still run" {
    local fail_on='REAL = io.popen; io.popen = function(c) if c:find(PAT) then return nil, ERR end return REAL(c) end'
    run "$VERBSH" -e "PAT, ERR = '^command %-v qemu', 'fork: Resource temporarily unavailable'; $fail_on" --doctor
    echo "$output"
    [ "$status" -eq 1 ]
    [ "${lines[-3]}" = "fail  commands  could not start \`command -v qemu-system-x86_64\` (fork: Resource temporarily unavailable), so the findings that read a command's output (rdma, ip, nft, qemu ...) may be wrong" ]
    [ "${lines[-2]}" = "      fix: free processes or memory (io.popen could not fork and exec a shell), then run the doctor again" ]
    [[ $output == *"warn  vm        qemu is missing"* ]]   # what it read: nothing
    [ "$(grep -c '^fail  commands' <<<"$output")" -eq 1 ]
    # only the first failure is named (rdma's, the first command -v); each run starts afresh:
    # with popen mended, the next run (--doctor) has no such line
    run "$VERBSH" -e "PAT, ERR = '^command %-v ', 'e1'; $fail_on" -e 'local ok, c = doctor(); io.popen = REAL; print(c[#c].name, c[#c].message:match("%b``"))' --doctor
    echo "$output"
    [ "$(grep -c '^fail  commands' <<<"$output")" -eq 1 ]
    [ "$(grep -c '^fail  commands  could not start `command -v rdma` (e1)' <<<"$output")" -eq 1 ]
    [ "$(grep -c '^verbsh doctor: ' <<<"$output")" -eq 2 ]
    sed -n '/^commands	`command -v rdma`$/,$p' <<<"$output" | grep -q '^verbsh doctor: '
    run "$VERBSH" -e "PAT, ERR = '^qemu%-system', 'fork: Cannot allocate memory'; $fail_on" --doctor --vm
    echo "$output"
    [ "$status" -eq 1 ]
    [ "${lines[-3]}" = "fail  commands  could not start \`qemu-system-x86_64 --version\` (fork: Cannot allocate memory), so the findings that read a command's output (rdma, ip, nft, qemu ...) may be wrong" ]
    # nothing failed to start: no such line
    run "$VERBSH" --doctor
    [[ $output != *"commands"* ]]
}

@test "doctor --vm's accel line: /dev/kvm that opens says KVM may run the guest, none says TCG (each message exact)" {
    cat >"$BATS_TEST_TMPDIR/kvm.lua" <<'LUA'
io.popen = function(cmd)
  local out = cmd:find("^qemu%-system%-x86_64 %-%-version") and "QEMU emulator version 7.2.0\n" or ""
  return { read = function() return out end, close = function() return true end }
end
local open = io.open
io.open = function(path, mode)
  if path == "/dev/kvm" then
    return os.getenv("KVM") == "yes" and { close = function() end } or nil, "/dev/kvm: No such file or directory"
  end
  return open(path, mode)
end
for _, c in ipairs(require("verbs.doctor_vm").run { class = "239.78.0.1:0" }.checks) do
  if c.name == "accel" then print(c.status .. "|" .. c.message) end
end
LUA
    KVM=yes run "$VERBSH" "$BATS_TEST_TMPDIR/kvm.lua"
    [ "$output" = "ok|/dev/kvm is usable: KVM if it boots the guest kernel (rxe-vm probes it once), else TCG" ]
    KVM=no run "$VERBSH" "$BATS_TEST_TMPDIR/kvm.lua"
    [ "$output" = "ok|no usable /dev/kvm: TCG (a boot takes a few seconds more; 2 cores run two seats)" ]
}
