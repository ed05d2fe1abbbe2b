#!/usr/bin/env bats
# verbsh --doctor against real conditions made in one micro-VM boot, each
# undone before the next: every finding is asserted with its fix. The host
# with no RDMA at all is this machine (tests/host/doctor.bats).
load ../helpers

setup_file() {
    export OUT=$BATS_FILE_TMPDIR/doctor
    mkdir -p "$OUT"
    # The guest's /tmp is its own, so each report comes back on stdout after
    # a "=== NAME" line, and is split into $OUT/NAME here.
    "$ROOT/scripts/rxe-vm" -- bash -c '
        d() { echo "=== $1"; shift; "$@" "$VERBSH" --doctor 2>&1; echo "exit $?"; }
        d healthy
        echo "=== json"; "$VERBSH" --doctor --json
        ip link set dummy0 down; sleep 1; d port_down; ip link set dummy0 up; sleep 1
        ip link set dummy0 mtu 1000; sleep 0.5; d mtu_1000; ip link set dummy0 mtu 1500; sleep 0.5
        # As a user: root has CAP_IPC_LOCK, for which memlock does not count.
        (ulimit -l 64; d memlock setpriv --bounding-set=-ipc_lock --inh-caps=-ipc_lock)
        echo 1 >/proc/sys/net/ipv4/conf/all/rp_filter; d rp_filter; echo 0 >/proc/sys/net/ipv4/conf/all/rp_filter
        d gid_index env RXE_GID_INDEX=0
        mkdir /tmp/empty; mount --bind /tmp/empty /etc/libibverbs.d; d provider; umount /etc/libibverbs.d
        rdma link del rxe0; d no_link
    ' >"$OUT/vm.log" 2>&1 || { cat "$OUT/vm.log" >&3; return 1; }
    # two devices on a veth pair, whose ends the guest set up for rdma_cm between them
    "$ROOT/scripts/rxe-vm" --two -- bash -c 'echo "=== two"; "$VERBSH" --doctor 2>&1; echo "exit $?"' \
        >>"$OUT/vm.log" 2>&1 || { cat "$OUT/vm.log" >&3; return 1; }
    awk -v dir="$OUT" '/^=== / { f = dir "/" $2; next } f { print > f }' "$OUT/vm.log"
}

# expect REPORT NAME STATUS MESSAGE FIX EXIT: report REPORT has the line
# "STATUS NAME MESSAGE..." followed by "fix: FIX..." (both prefixes), and
# verbsh exited with EXIT.
expect() {
    local report=$OUT/$1 name=$2 status=$3 message=$4 fix=$5 code=$6 line
    line=$(grep -A1 -E "^$status +$name " "$report") || { echo "no '$status $name' line in:"; cat "$report"; return 1; }
    [[ ${line%%$'\n'*} == "$(printf '%-5s %-9s %s' "$status" "$name" "$message")"* ]] || { echo "$line"; return 1; }
    [[ ${line#*$'\n'} == "      fix: $fix"* ]] || { echo "$line"; return 1; }
    grep -qx "exit $code" "$report"
}

@test "doctor: a healthy rxe0 is all ok, exit 0, and --json says the same" {
    run cat "$OUT/healthy"
    [[ $output == *" ok, 0 warn, 0 fail: the lessons can run here"* ]]
    [ "$(grep -c '^ok ' "$OUT/healthy")" -ge 14 ]
    [[ $output == *"ok    kernel    RDMA in the kernel: ib_core, ib_uverbs, rdma_rxe loaded; /sys/class/infiniband has rxe0"* ]]
    [[ $output == *"ok    port      rxe0 port 1 is ACTIVE, link layer ETHERNET on dummy0"* ]]
    [[ $output == *"ok    gid       rxe0 port 1: sgid_index 1 is the RoCE v2 IPv4 GID ::ffff:192.0.2.1"* ]]
    [[ $output == *"ok    mtu       rxe0 port 1: active_mtu 1024 (dummy0 MTU 1500); use path_mtu <= 1024"* ]]
    [ "${lines[-1]}" = "exit 0" ]
    run lua5.4 -e '
        local s = io.read("a")
        print(s:match([["ok":(%a+)}%s*$]]), select(2, s:gsub([["status":"ok"]], "")), select(2, s:gsub([["status":"fail"]], "")))' <"$OUT/json"
    [ "$output" = "true	$(grep -c '^ok ' "$OUT/healthy")	0" ]
}

@test "doctor: each RDMA netdev's rp_filter and accept_local as the kernel reads them (the larger of all's and its own): dummy0 alone, veth0 and veth1 with --two" {
    local ok='(rdma_cm works between devices of one host)'
    grep -qx "ok    rp_filter dummy0: rp_filter 0, accept_local 1 $ok" "$OUT/healthy"
    grep -qx "ok    rp_filter veth0: rp_filter 0, accept_local 1 $ok" "$OUT/two"
    grep -qx "ok    rp_filter veth1: rp_filter 0, accept_local 1 $ok" "$OUT/two"
    [ "$(grep -c '^ok    rp_filter ' "$OUT/two")" -eq 2 ]
    grep -qx "exit 0" "$OUT/two"
}

@test "doctor: port DOWN (netdev down) fails with ip link set up" {
    expect port_down port fail 'rxe0 port 1 is DOWN (phys_state' 'sudo ip link set dev dummy0 up' 1
    grep -q '^fail  port .*on netdev dummy0 which is down' "$OUT/port_down"
}

@test "doctor: netdev MTU 1000 gives active_mtu 512, below the lessons' path_mtu 1024" {
    expect mtu_1000 mtu fail 'rxe0 port 1 has active_mtu 512 (dummy0 MTU 1000): the lessons connect with path_mtu 1024' \
        'sudo ip link set dev dummy0 mtu 1500' 1
}

@test "doctor: memlock lowered to 64 KiB without CAP_IPC_LOCK fails with ulimit -l" {
    expect memlock memlock fail 'ulimit -l is 64 KiB (hard limit 64 KiB), and registered memory is pinned against it' \
        'ulimit -l unlimited in the shell that starts verbsh;' 1
}

@test "doctor: strict rp_filter warns with the sysctl that loosens it" {
    expect rp_filter rp_filter warn 'rp_filter is strict (1) on dummy0' \
        'sudo sysctl -w net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.dummy0.rp_filter=0' 0
}

@test "doctor: RXE_GID_INDEX pointing at the link-local GID warns with the right index" {
    expect gid_index gid warn 'RXE_GID_INDEX is 0, but the RoCE v2 IPv4 GID of rxe0 port 1 is index 1' \
        'export RXE_GID_INDEX=1' 0
}

@test "doctor: the provider hidden (no /etc/libibverbs.d/rxe.driver) fails with ibverbs-providers" {
    grep -q "^ok    kernel " "$OUT/provider"
    expect provider provider fail 'the kernel has rxe0, but rdma-core has no userspace provider for it' \
        'sudo apt-get install ibverbs-providers' 1
}

@test "doctor: no rxe link fails with rdma link add on the up netdev" {
    grep -q "^ok    kernel    RDMA in the kernel: ib_core, ib_uverbs, rdma_rxe loaded$" "$OUT/no_link"
    expect no_link rxe-link fail 'rdma_rxe is loaded, but no rxe device is bound to a network interface' \
        'sudo rdma link add rxe0 type rxe netdev dummy0' 1
}
