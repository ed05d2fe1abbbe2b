#!/usr/bin/env bats
# The iWARP explanations without a device: verbs.explain of the error objects
# the bindings raise on siw (context.transport "IWARP", context.returned),
# against the same errors on RoCE, which must keep their usual explanation.
load ../helpers

x() { "$VERBSH" -e "print(verbs.explain($1))"; }

@test "iwarp: a post that returned -22 on siw is the provider's refusal of that opcode; the same EINVAL on rxe is not" {
    run x '{verb = "ibv_post_send", errno = 22, errname = "EINVAL", context = {returned = -22, transport = "IWARP",
           device = "siw0", qp_type = "RC", qp_state = "RTS", bad_wr = 1, wr = {wr_id = 5, opcode = "ATOMIC_CMP_AND_SWP"}}}'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "ibv_post_send failed: EINVAL (errno 22)" ]
    [ "${lines[1]}" = "  RC QP on siw0, WR #1 (wr_id=5)" ]
    [[ $output == *"ibv_post_send returned -22, a negative value: the provider refused the WR itself, at the post"* ]]
    [[ $output == *"why: siw0 is an iWARP device: iWARP (RDMAP) has no atomic operations (query_device: atomic_cap NONE), so it refuses opcode ATOMIC_CMP_AND_SWP"* ]]
    # the opcode as C names it, in lower case: the same opcode; a number is named as given
    run x '{verb = "ibv_post_send", errno = 22, errname = "EINVAL", context = {returned = -22, transport = "IWARP",
           device = "siw0", qp_type = "RC", qp_state = "RTS", bad_wr = 1, wr = {wr_id = 5, opcode = "ibv_wr_atomic_fetch_and_add"}}}'
    [[ $output == *"so it refuses opcode ATOMIC_FETCH_AND_ADD"* ]]
    run x '{verb = "ibv_post_send", errno = 22, errname = "EINVAL", context = {returned = -22, transport = "IWARP",
           device = "siw0", qp_type = "RC", qp_state = "RTS", bad_wr = 1, wr = {wr_id = 5, opcode = 99}}}'
    [[ $output == *"why: the provider refused opcode 99 on this QP (its own check, before the wire)"* ]]
    run x '{verb = "ibv_post_send", errno = 22, errname = "EINVAL", context = {transport = "IB", device = "rxe0",
           qp_type = "RC", qp_state = "RTS", bad_wr = 1, wr = {wr_id = 5, opcode = "ATOMIC_CMP_AND_SWP"}}}'
    echo "$output"
    [[ $output != *"iWARP"* ]]
    [[ $output == *"an atomic's sg_list must cover exactly 8 bytes"* ]]
}

@test "iwarp: -1 with ENOTCONN names rdma_cm; RTS EINVAL on iWARP names rdma_cm, on RoCE the state table" {
    run x '{verb = "ibv_post_send", errno = 107, errname = "ENOTCONN", context = {returned = -1, transport = "IWARP",
           device = "siw0", qp_type = "RC", qp_state = "RTR", bad_wr = 1, wr = {wr_id = 7, opcode = "SEND"}}}'
    echo "$output"
    [[ $output == *"ibv_post_send returned -1, a negative value"* ]]
    [[ $output == *"why: siw0's QP is not connected (not in RTS)"* ]]
    [[ $output == *'fix: connect with rdma_cm: id = channel:create_id("TCP")'* ]]
    run x '{verb = "ibv_modify_qp", errno = 22, errname = "EINVAL", context = {transport = "IWARP", device = "siw0",
           qp_type = "RC", cur_state = "RTR", qp_state = "RTS", state_unreported = true, mask = {"STATE"}, attr = {qp_state = "RTS"}}}'
    echo "$output"
    [ "${lines[1]}" = "  RC QP on siw0 (iWARP), RTR->RTS" ]
    [[ $output == *"an RC QP reaches RTS only through rdma_cm"* ]]
    [[ $output == *"note: the QP's state RTR is the one verbsh's last qp:modify set: siw0 does not report QP states"* ]]
    run x '{verb = "ibv_modify_qp", errno = 22, errname = "EINVAL", context = {transport = "IB", device = "rxe0",
           qp_type = "RC", cur_state = "RTR", qp_state = "RTS", mask = {"STATE"}, attr = {qp_state = "RTS"}}}'
    echo "$output"
    [[ $output != *"rdma_cm"* ]]
    [[ $output == *"required but missing for RC RTR->RTS"* ]]
}

@test "iwarp: UD at create and an AH on siw name iWARP's RC-only transport; EOPNOTSUPP elsewhere stays generic" {
    run x '{verb = "ibv_create_qp", errno = 95, errname = "EOPNOTSUPP", context = {transport = "IWARP", device = "siw0", qp_type = "UD"}}'
    echo "$output"
    [ "${lines[1]}" = "  UD QP on siw0 (iWARP)" ]
    [[ $output == *"iWARP has one transport, reliable connected (RC) over a TCP stream"* ]]
    run x '{verb = "ibv_create_ah", errno = 95, errname = "EOPNOTSUPP", context = {transport = "IWARP", device = "siw0"}}'
    [[ $output == *"address handle on siw0 (iWARP)"* ]]
    run x '{verb = "ibv_create_qp", errno = 95, errname = "EOPNOTSUPP", context = {transport = "IB", device = "mlx5_0", qp_type = "UD"}}'
    echo "$output"
    [[ $output != *"iWARP"* ]]
    [[ $output == *"why: the device does not support this operation or flag"* ]]
}

@test "iwarp: help \"iwarp\" and verbs.explain(\"iwarp\") give the summary; help \"IWARP\" is still the enum value" {
    run "$VERBSH" -e 'help "iwarp"'
    [[ ${lines[0]} == "iWARP (siw, soft-iWARP): RDMA over TCP."* ]]
    [[ $output == *"returns"*"-22 (negative: the provider's refusal at the post"* ]]
    run "$VERBSH" -e 'print(verbs.explain("siw") == verbs.explain("iWARP"))'
    [ "$output" = true ]
    run "$VERBSH" -e 'help "IWARP"'
    [[ $output == *"IBV_TRANSPORT_IWARP = 1"* ]]
}

@test "iwarp wire: a siw capture (tests/wire/iwarp.pcap: MPA Request/Reply, Send, a 3-FPDU Write, a Read) decodes as tshark does, field by field" {
    command -v tshark >/dev/null || skip "tshark not installed (scripts/deps test)"
    tshark -T json -r "$ROOT/tests/wire/iwarp.pcap" 2>/dev/null | python3 "$ROOT/tests/wire/tshark_flat_iwarp.py" >"$BATS_TEST_TMPDIR/flat"
    run "$VERBSH" "$ROOT/tests/wire/oracle_iwarp.lua" "$ROOT/tests/wire/iwarp.pcap" "$BATS_TEST_TMPDIR/flat"
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "23 frames, 265 fields compared, 0 mismatches; FPDUs: Read Request 1, Read Response 2, Send 1, Write 3"
    has_line $'4\t198.51.100.1:50337 > 198.51.100.2:7497 MPA Request rev 2, markers off, CRC off, 4 bytes of private data'
    has_line $'12\t198.51.100.1:50337 > 198.51.100.2:7497 Write (tagged STag 0x5b3d5300 TO 0x557ee9d8c694) 1428 bytes'
    has_line $'16\t198.51.100.1:50337 > 198.51.100.2:7497 Read Request (untagged QN 1 MSN 1 MO 0, last) 0 bytes'
    has_line $'9\t198.51.100.2:7497 > 198.51.100.1:50337 TCP ACK 656329990 (TCP'"'"'s ACK: it carries iWARP'"'"'s reliability, where RoCE has its own ACK/NAK)'
}

@test "iwarp doctor: a siw.ko for another kernel is named with 'Invalid module format'; one for this kernel, or none, is not held against the host" {
    T=$BATS_TEST_TMPDIR/root
    mkdir -p "$T/proc/sys/kernel" "$T/lib/modules/6.1.0-56-amd64/updates" "$T/sys/module"
    echo 6.1.0-56-amd64 >"$T/proc/sys/kernel/osrelease"
    check() {
        "$VERBSH" -e "local sys = require 'verbs.explain_sys'; sys.root = '$T'
          require('verbs.doctor_iwarp').module_check(function(n, st, m, fix) print(st, n, m); print('fix', fix) end, {})"
    }
    run check
    [[ ${lines[0]} == "ok	siw	no siw module in this kernel (no siw.ko under /lib/modules/6.1.0-56-amd64, and not built in)"* ]]
    printf 'ELF...\0name=siw\0vermagic=6.1.0-99-amd64 SMP preempt mod_unload modversions \0' >"$T/lib/modules/6.1.0-56-amd64/updates/siw.ko"
    run check
    echo "$output"
    [ "${lines[0]}" = "warn	siw	/lib/modules/6.1.0-56-amd64/updates/siw.ko was built for kernel 6.1.0-99-amd64, but this kernel is 6.1.0-56-amd64: \`modprobe siw\` fails with 'Invalid module format' (dmesg: version magic '6.1.0-99-amd64 ...' should be '6.1.0-56-amd64 ...')" ]
    [[ ${lines[1]} == "fix	rebuild it for this kernel: make -C /lib/modules/6.1.0-56-amd64/build M="* ]]
    printf 'ELF...\0vermagic=6.1.0-56-amd64 SMP preempt mod_unload modversions \0' >"$T/lib/modules/6.1.0-56-amd64/updates/siw.ko"
    run check
    [ "${lines[0]}" = "ok	siw	/lib/modules/6.1.0-56-amd64/updates/siw.ko is for this kernel, not loaded: \`sudo modprobe siw\` makes iWARP devices possible" ]
    mkdir "$T/sys/module/siw"
    run check
    [[ ${lines[0]} == "ok	siw	siw (soft-iWARP) is loaded"* ]]
}

@test "iwarp: the extended verbs' EOPNOTSUPP on siw says its provider has none, not that the QP type is missing" {
    run x '{verb = "ibv_create_qp_ex", errno = 95, errname = "EOPNOTSUPP", context = {transport = "IWARP", device = "siw0", qp_type = "RC"}}'
    echo "$output"
    [ "${lines[1]}" = "  ibv_create_qp_ex on siw0 (iWARP)" ]
    [[ $output == *"siw0's provider (siw's libsiw) has no extended verbs"* ]]
    [[ $output != *"RC QP on siw0"* ]]
    run x '{verb = "ibv_create_cq_ex", errno = 95, errname = "EOPNOTSUPP", context = {transport = "IWARP", device = "siw0"}}'
    [[ $output == *"fix: use the classic verbs on siw: ctx:create_cq(cqe) and cq:poll"* ]]
}

@test "iwarp ladder: tests/wire/iwarp.pcap as print(cap) draws it: frames tied to WRs, the TCP ACK of each, relative seq and ack as tshark's; an FPDU split across two segments keeps the stream in step" {
    run "$VERBSH" -e '
        local L = require "verbs.wire_iwarp_ladder"
        local list = verbs.wire.read_pcap("'"$ROOT"'/tests/wire/iwarp.pcap")
        local posts = { { qp = "qp1", wr_id = 1, opcode = "SEND", length = 100 },
                        { qp = "qp1", wr_id = 2, opcode = "RDMA_WRITE", length = 3000 },
                        { qp = "qp1", wr_id = 3, opcode = "RDMA_READ", length = 2000 },
                        { qp = "qp1", wr_id = 4, opcode = "SEND", length = 5 } }
        print(L.ladder(list, posts))
        -- frame 10 (a 1428-byte Write FPDU in 1448 bytes of TCP) cut in two segments of 700 and 748
        local b = list[10].bytes
        local function seg(from, n, seq)
          local ip = b:sub(15, 16) .. string.pack(">I2", 20 + 32 + n) .. b:sub(19, 34)
          local tcp = b:sub(35, 38) .. string.pack(">I4", seq) .. b:sub(43, 66)
          return b:sub(1, 14) .. ip .. tcp .. b:sub(67 + from, 66 + from + n)
        end
        local seq = string.unpack(">I4", b, 39)
        local split = {}
        for i, p in ipairs(list) do
          if i == 10 then split[#split + 1] = seg(0, 700, seq); split[#split + 1] = seg(700, 748, seq + 700)
          else split[#split + 1] = p end
        end
        print("== split")
        for _, r in ipairs(L.rows(split, posts)) do
          if r.frame >= 10 and r.frame <= 13 then print(r.frame, r.text, r.note) end
        end'
    echo "$output"
    [ "$status" -eq 0 ]
    # the connection's two ends head the ladder, then its first segment
    [ "${lines[0]}" = "   time ms  198.51.100.1:50337                                               198.51.100.2:7497" ]
    [ "${lines[1]}" = "     0.000  |TCP SYN ------>                                                 | #1" ]
    has_line '   112.007  |Send QN 0 MSN 1 MO 0 last len 100 (seq 25) ack 25 ------>       | #8  wr_id 1'"'"'s SEND'
    has_line '   168.011  |                                         <------ TCP ACK ack 149| #9  TCP acknowledges wr_id 1'"'"'s SEND'
    has_line '   400.025  |Write STag 0x5b3d5300 TO 0x557ee9d8cc28 last len 144 (seq 3045) ack 25 ------>| #14  wr_id 2'"'"'s RDMA_WRITE'
    has_line '   400.025  |                                        <------ TCP ACK ack 3209| #15  TCP acknowledges wr_id 2'"'"'s RDMA_WRITE'
    has_line '   428.027  |                                        <------ TCP ACK ack 3261| #17  TCP acknowledges wr_id 3'"'"'s RDMA_READ'
    has_line '   436.027  |<------ Read Response STag 0x5c697900 TO 0x557ee9d8991c last len 572 (seq 1473) ack 3261| #19  wr_id 3'"'"'s RDMA_READ data (last: it completes)'
    has_line '   436.027  |TCP ACK ack 2065 ------>                                        | #20  TCP acknowledges wr_id 3'"'"'s RDMA_READ data'
    has_line '   476.030  |                                    <------ TCP FIN+ACK ack 3262| #22'
    has_line 'wr_id 1 (qp1 SEND, 100 bytes): frame 8 (TCP ACK in frame 9)'
    has_line 'wr_id 2 (qp1 RDMA_WRITE, 3000 bytes): frames 10, 12, 14 (TCP ACK in frame 15)'
    has_line 'wr_id 3 (qp1 RDMA_READ, 2000 bytes): request in frame 16 (TCP ACK in frame 17), Read Responses in frames 18, 19 (TCP ACK in frame 20)'
    has_line 'wr_id 4 (qp1 SEND, 5 bytes): no frame in the capture'
    # the split: the first part names the FPDU, the second ends it, the next Write is read in step
    has_line $'10\tWrite STag 0x5b3d5300 TO 0x557ee9d8c100 len 1428, continued (seq 149)\twr_id 2\'s RDMA_WRITE'
    has_line $'11\t(748 bytes end the FPDU before) (seq 849)\tnil'
    has_line $'13\tWrite STag 0x5b3d5300 TO 0x557ee9d8c694 len 1428 (seq 1597)\twr_id 2\'s RDMA_WRITE'
}

@test "iwarp doctor: a siw port that is not ACTIVE is one failure, its state and netdev, and the fix; nothing else is checked on a port that carries no traffic" {
    # `rdma link` names the port's netdev (siw has no netdev in sysfs); this one says DOWN
    mkdir -p "$BATS_TEST_TMPDIR/bin"
    printf '#!/bin/sh\n[ "$*" = "link show siw7/2" ] && echo "link siw7/2 state DOWN physical_state DISABLED netdev dummy7 "\n' >"$BATS_TEST_TMPDIR/bin/rdma"
    chmod +x "$BATS_TEST_TMPDIR/bin/rdma"
    run env PATH="$BATS_TEST_TMPDIR/bin:$PATH" "$VERBSH" -e '
      local nd = require("verbs.doctor_iwarp").port_checks(function(n, st, m, fix) print(st, n, m); print("fix", fix) end,
        {}, "siw7", 2, { state = "DOWN" })
      print("netdev", nd)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 3 ]
    [ "${lines[0]}" = "fail	port	siw7 port 2 (iWARP) is DOWN, on netdev dummy7: no traffic until it is ACTIVE" ]
    [ "${lines[1]}" = "fix	sudo ip link set dev dummy7 up" ]
    [ "${lines[2]}" = "netdev	dummy7" ]
}

@test "iwarp doctor: an ACTIVE siw port whose netdev has no IPv4 address fails naming the netdev and its MAC GID, with the ip fix; with no netdev known, 'its netdev', IFACE and '?'" {
    # `rdma link` names siw7/1's netdev (none for siw8/1); `ip -4` finds no address on it
    mkdir -p "$BATS_TEST_TMPDIR/bin"
    printf '#!/bin/sh\n[ "$*" = "link show siw7/1" ] && echo "link siw7/1 state ACTIVE physical_state LINK_UP netdev dummy7 "\nexit 0\n' >"$BATS_TEST_TMPDIR/bin/rdma"
    printf '#!/bin/sh\necho "$*" >>%s/ip.log\n' "$BATS_TEST_TMPDIR" >"$BATS_TEST_TMPDIR/bin/ip"
    chmod +x "$BATS_TEST_TMPDIR/bin/rdma" "$BATS_TEST_TMPDIR/bin/ip"
    run env PATH="$BATS_TEST_TMPDIR/bin:$PATH" "$VERBSH" -e '
      local add = function(n, st, m, fix) print(st, n, m); print("fix", fix) end
      local D = require("verbs.doctor_iwarp")
      local ctx = { query_gid = function(self, port, index) return ("52:54:00:12:34:%02d (port %d index %d)"):format(port + 50, port, index) end }
      print("netdev", D.port_checks(add, ctx, "siw7", 1, { state = "ACTIVE" }))
      print("netdev", D.port_checks(add, {}, "siw8", 1, { state = "ACTIVE" }))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 10 ]
    [ "${lines[0]}" = "ok	port	siw7 port 1 is ACTIVE, iWARP (RDMA over TCP) on dummy7" ]
    [ "${lines[2]}" = "fail	iwarp	siw7 port 1 is iWARP on dummy7, which has no IPv4 address: rdma_cm finds an iWARP device by its netdev's address (its one GID is the MAC, 52:54:00:12:34:51 (port 1 index 0)), so nothing can connect to it" ]
    [ "${lines[3]}" = "fix	sudo ip addr add 198.51.100.1/24 dev dummy7   (an IPv4 address of its own: rdma_cm picks, for an address, the device created first on its netdev)" ]
    [ "${lines[4]}" = "netdev	dummy7" ]
    [ "${lines[5]}" = "ok	port	siw8 port 1 is ACTIVE, iWARP (RDMA over TCP)" ]
    [ "${lines[7]}" = "fail	iwarp	siw8 port 1 is iWARP on its netdev, which has no IPv4 address: rdma_cm finds an iWARP device by its netdev's address (its one GID is the MAC, ?), so nothing can connect to it" ]
    [ "${lines[8]}" = "fix	sudo ip addr add 198.51.100.1/24 dev IFACE   (an IPv4 address of its own: rdma_cm picks, for an address, the device created first on its netdev)" ]
    [ "${lines[9]}" = "netdev	nil" ]
    [ "$(cat "$BATS_TEST_TMPDIR/ip.log")" = "-4 -o addr show dev dummy7" ]
}
