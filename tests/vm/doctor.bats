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
    awk -v dir="$OUT" '/^=== / { f = dir "/" $2; next } f { print > f }' "$OUT/vm.log"
}

# The line of check NAME with STATUS, and the fix line after it.
finding() { grep -A1 -E "^$2 +$1 " "$OUT/$3"; }

@test "doctor: a healthy rxe0 is all ok, exit 0, and --json says the same" {
    run cat "$OUT/healthy"
    [[ $output == *" ok, 0 warn, 0 fail: the lessons can run here"* ]]
    [ "$(grep -c '^ok ' "$OUT/healthy")" -ge 14 ]
    [[ $output == *"ok    port      rxe0 port 1 is ACTIVE, link layer ETHERNET on dummy0"* ]]
    [[ $output == *"ok    gid       rxe0 port 1: sgid_index 1 is the RoCE v2 IPv4 GID ::ffff:192.0.2.1"* ]]
    [[ $output == *"ok    mtu       rxe0 port 1: active_mtu 1024 (dummy0 MTU 1500); use path_mtu <= 1024"* ]]
    [ "${lines[-1]}" = "exit 0" ]
    run lua5.4 -e '
        local s = io.read("a")
        print(s:match([["ok":(%a+)}%s*$]]), select(2, s:gsub([["status":"ok"]], "")), select(2, s:gsub([["status":"fail"]], "")))' <"$OUT/json"
    [ "$output" = "true	$(grep -c '^ok ' "$OUT/healthy")	0" ]
}

@test "doctor: port DOWN (netdev down) fails with ip link set up" {
    run finding port fail port_down
    [[ ${lines[0]} == "fail  port      rxe0 port 1 is DOWN"*"on netdev dummy0 which is down"* ]]
    [ "${lines[1]}" = "      fix: sudo ip link set dev dummy0 up" ]
    grep -qx "exit 1" "$OUT/port_down"
}

@test "doctor: netdev MTU 1000 gives active_mtu 512, below the lessons' path_mtu 1024" {
    run finding mtu fail mtu_1000
    [[ ${lines[0]} == "fail  mtu       rxe0 port 1 has active_mtu 512 (dummy0 MTU 1000): the lessons connect with path_mtu 1024"* ]]
    [ "${lines[1]}" = "      fix: sudo ip link set dev dummy0 mtu 1500" ]
    grep -qx "exit 1" "$OUT/mtu_1000"
}

@test "doctor: memlock lowered to 64 KiB without CAP_IPC_LOCK fails with ulimit -l" {
    run finding memlock fail memlock
    [[ ${lines[0]} == "fail  memlock   ulimit -l is 64 KiB (hard limit 64 KiB), and registered memory is pinned against it"* ]]
    [[ ${lines[1]} == "      fix: ulimit -l unlimited in the shell that starts verbsh;"* ]]
    grep -qx "exit 1" "$OUT/memlock"
}

@test "doctor: strict rp_filter warns with the sysctl that loosens it" {
    run finding rp_filter warn rp_filter
    [[ ${lines[0]} == "warn  rp_filter rp_filter is strict (1) on dummy0"* ]]
    [ "${lines[1]}" = "      fix: sudo sysctl -w net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.dummy0.rp_filter=0" ]
    grep -qx "exit 0" "$OUT/rp_filter"
}

@test "doctor: RXE_GID_INDEX pointing at the link-local GID warns with the right index" {
    run finding gid warn gid_index
    [[ ${lines[0]} == "warn  gid       RXE_GID_INDEX is 0, but the RoCE v2 IPv4 GID of rxe0 port 1 is index 1"* ]]
    [ "${lines[1]}" = "      fix: export RXE_GID_INDEX=1" ]
}

@test "doctor: the provider hidden (no /etc/libibverbs.d/rxe.driver) fails with ibverbs-providers" {
    run finding provider fail provider
    [[ ${lines[0]} == "fail  provider  the kernel has rxe0, but rdma-core has no userspace provider for it"* ]]
    [[ ${lines[1]} == "      fix: sudo apt-get install ibverbs-providers"* ]]
    grep -q "^ok    kernel " "$OUT/provider"
    grep -qx "exit 1" "$OUT/provider"
}

@test "doctor: no rxe link fails with rdma link add on the up netdev" {
    run finding rxe-link fail no_link
    [[ ${lines[0]} == "fail  rxe-link  rdma_rxe is loaded, but no rxe device is bound to a network interface"* ]]
    [[ ${lines[1]} == "      fix: sudo rdma link add rxe0 type rxe netdev dummy0"* ]]
    grep -qx "exit 1" "$OUT/no_link"
}
