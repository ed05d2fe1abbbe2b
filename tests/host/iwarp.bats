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

# "Not connected" is siw's -1 with ENOTCONN only: -1 with another errno is
# the opcode's refusal (iWARP's own, or the generic one), whole output compared.
@test "iwarp: a post's -1 is explained as not connected only with ENOTCONN; -1 with EINVAL for SEND_WITH_IMM is iWARP's refusal of immediate data, -1 with ENOMEM for SEND the provider's refusal" {
    local ctx='returned = -1, transport = "IWARP", device = "siw0", qp_type = "RC", bad_wr = 1'
    local said='  ibv_post_send returned -1, a negative value: the provider refused the WR itself, at the post; nothing reached the wire and no completion will come (test rc ~= 0 in C, not rc > 0)'
    run x '{verb = "ibv_post_send", errno = 107, errname = "ENOTCONN", context = {'"$ctx"', qp_state = "RTR", wr = {wr_id = 7, opcode = "SEND_WITH_IMM"}}}'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "ibv_post_send failed: ENOTCONN (errno 107)
  RC QP on siw0, WR #1 (wr_id=7)
$said
  why: siw0's QP is not connected (not in RTS): an iWARP QP sends only on the TCP connection rdma_cm made
  fix: connect with rdma_cm: id = channel:create_id(\"TCP\"), resolve_addr, resolve_route, id:create_qp(pd, {...}), id:connect{...} (and rdma_listen/accept on the other side; lesson 14), then post after ESTABLISHED" ]
    run x '{verb = "ibv_post_send", errno = 22, errname = "EINVAL", context = {'"$ctx"', qp_state = "RTS", wr = {wr_id = 5, opcode = "SEND_WITH_IMM"}}}'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "ibv_post_send failed: EINVAL (errno 22)
  RC QP on siw0, WR #1 (wr_id=5)
$said
  why: siw0 is an iWARP device: iWARP (RDMAP) carries no immediate data, so it refuses opcode SEND_WITH_IMM (the QP stays usable)
  fix: send the 32-bit value in the payload (SEND), or use a RoCE device (rxe)" ]
    run x '{verb = "ibv_post_send", errno = 12, errname = "ENOMEM", context = {'"$ctx"', qp_state = "RTS", wr = {wr_id = 8, opcode = "SEND"}}}'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "ibv_post_send failed: ENOMEM (errno 12)
  RC QP on siw0, WR #1 (wr_id=8)
$said
  why: the provider refused opcode SEND on this QP (its own check, before the wire)
  fix: check the opcode against ctx:query_device() (atomic_cap) and the QP type" ]
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
    # an AH's other errors, and an AH on RoCE, are not iWARP's
    run x '{verb = "ibv_create_ah", errno = 95, errname = "EOPNOTSUPP", context = {transport = "IB", device = "rxe0"}}'
    [ "${lines[0]}" = "ibv_create_ah failed: EOPNOTSUPP (errno 95)" ]
    [ "${lines[1]}" = "  why: the device does not support this operation or flag" ]
    run x '{verb = "ibv_create_ah", errno = 22, errname = "EINVAL", context = {transport = "IWARP", device = "siw0"}}'
    [ "${lines[0]}" = "ibv_create_ah failed: EINVAL (errno 22)" ]
    [[ ${lines[1]} == "  why: the address is incomplete: "* ]]
    [[ $output != *"(iWARP)"* ]]
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

@test "iwarp wire: frames the snaplen cut (editcap -s 86, 114) decode as far as they go: each FPDU's ULPDU length and the MPA revision as tshark reads them, nothing read past the end" {
    command -v tshark >/dev/null && command -v editcap >/dev/null || skip "tshark not installed (scripts/deps test)"
    # 86 bytes: Ethernet 14, IPv4 20, TCP 32, then 20 of the payload: an MPA
    # frame's whole header, an FPDU's length and the longer (untagged) DDP
    # header; 114 bytes: a Read Request's whole FPDU but its CRC
    for s in 86 114; do
        editcap -F pcap -s $s "$ROOT/tests/wire/iwarp.pcap" "$BATS_TEST_TMPDIR/c$s.pcap"
        tshark -r "$BATS_TEST_TMPDIR/c$s.pcap" -T fields -e frame.number -e iwarp_mpa.ulpdulength -e iwarp_mpa.rev 2>/dev/null |
            awk -F'\t' '$2 != "" || $3 != ""' >"$BATS_TEST_TMPDIR/tshark$s"
        run "$VERBSH" -e '
          local W = require "verbs.wire_iwarp"
          for i, f in ipairs(verbs.wire.read_pcap("'"$BATS_TEST_TMPDIR/c$s.pcap"'")) do
            local p = W.decode(f.bytes)
            if p.mpa then print(("%d\t\t%d"):format(i, p.mpa.rev)) end
            for _, fp in ipairs(p.fpdus or {}) do print(("%d\t%d\t"):format(i, fp.ulpdulength)) end
          end'
        echo "$output"
        [ "$status" -eq 0 ]
        diff "$BATS_TEST_TMPDIR/tshark$s" <(printf '%s\n' "${lines[@]}")
        [ "${#lines[@]}" -eq 9 ]
    done
    run "$VERBSH" -e '
      local W = require "verbs.wire_iwarp"
      local l = verbs.wire.read_pcap("'"$BATS_TEST_TMPDIR/c86.pcap"'")
      local whole = verbs.wire.read_pcap("'"$ROOT/tests/wire/iwarp.pcap"'")
      print(W.describe(W.decode(l[16].bytes)))
      local rr = W.decode(whole[16].bytes:sub(1, 114)).fpdus[1]
      print(rr.cut, rr.rdmap.rr.rdmardsz == W.decode(whole[16].bytes).fpdus[1].rdmap.rr.rdmardsz, rr.rdmap.rr.rdmardsz, rr.payload_len,
        W.decode(whole[16].bytes:sub(1, 113)).fpdus[1].rdmap.rr)
      print(W.describe(W.decode(whole[4].bytes:sub(1, 85))))
      print(require("verbs.wire_iwarp_ladder").rows({ whole[1], whole[2], whole[3], whole[4].bytes:sub(1, 85), whole[5], l[16] })[4].text)'
    echo "$output"
    [ "$status" -eq 0 ]
    # the Read Request's 28 bytes of sink and source are past the 86th byte: not read, and its length still known
    [ "${lines[0]}" = "198.51.100.1:50337 > 198.51.100.2:7497 Read Request (untagged QN 1 MSN 1 MO 0, last) 0 bytes" ]
    [ "${lines[1]}" = $'true\ttrue\t2000\t0\tnil' ]
    # 85 bytes: the MPA Request's key (16 bytes) but not the rest of its header
    [ "${lines[2]}" = "198.51.100.1:50337 > 198.51.100.2:7497 MPA Request cut by the snaplen" ]
    [ "${lines[3]}" = "MPA Request cut by the snaplen" ]
}

@test "iwarp ladder: a TCP segment sent again is a retransmission row where tshark finds one (same seq and len), tied to no WR a second time; the stream after it stays in step" {
    command -v tshark >/dev/null || skip "tshark not installed (scripts/deps test)"
    # iwarp.pcap with frame 8 (wr_id 1's Send) again, 1 ms after frame 9 (its ACK)
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$ROOT/tests/wire python3 - "$ROOT/tests/wire/iwarp.pcap" "$BATS_TEST_TMPDIR/retx.pcap" <<'PY'
import struct, sys
from pcap_records import records, write
hdr, recs = records(sys.argv[1])
sec, usec = struct.unpack("<II", recs[8][:8])
usec += 1000
again = struct.pack("<II", sec + usec // 1000000, usec % 1000000) + recs[7][8:]
write(sys.argv[2], hdr, recs[:9] + [again] + recs[9:])
PY
    want=$(tshark -r "$BATS_TEST_TMPDIR/retx.pcap" -Y tcp.analysis.retransmission -T fields -e frame.number -e tcp.seq -e tcp.len 2>/dev/null)
    run "$VERBSH" -e '
      local L = require "verbs.wire_iwarp_ladder"
      local list = verbs.wire.read_pcap("'"$BATS_TEST_TMPDIR/retx.pcap"'")
      local posts = { { qp = "qp1", wr_id = 1, opcode = "SEND", length = 100 }, { qp = "qp1", wr_id = 2, opcode = "RDMA_WRITE", length = 3000 } }
      local rows, summary = L.rows(list, posts)
      for _, r in ipairs(rows) do if r.kind == "RETRANSMISSION" then print(r.frame, r.seq, r.len) end end
      print("==")
      for _, r in ipairs(rows) do if r.frame >= 10 and r.frame <= 11 then print(r.frame, r.kind, r.text, r.note) end end
      print(table.concat(summary, "\n"))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$want" = $'10\t25\t124' ]
    [ "${lines[0]}" = "$want" ]
    [ "${lines[1]}" = "==" ]
    [ "${lines[2]}" = $'10\tRETRANSMISSION\tTCP retransmission seq 25 len 124\tnil' ]
    [ "${lines[3]}" = $'11\tDATA\tWrite STag 0x5b3d5300 TO 0x557ee9d8c100 len 1428 (seq 149)\twr_id 2\'s RDMA_WRITE' ]
    [ "${lines[4]}" = "wr_id 1 (qp1 SEND, 100 bytes): frame 8 (TCP ACK in frame 9)" ]
    [ "${lines[5]}" = "wr_id 2 (qp1 RDMA_WRITE, 3000 bytes): frames 11, 13, 15 (TCP ACK in frame 16)" ]
}

@test "iwarp wire: describe names an FPDU that goes on in the next segment, and one the snaplen cut before its DDP header, by its ULPDU length" {
    run "$VERBSH" -e '
      local W = require "verbs.wire_iwarp"
      -- frame 12: a Write FPDU of 1442 bytes (DDP tagged 14, payload 1428) in a 1448-byte segment
      local b = verbs.wire.read_pcap("'"$ROOT"'/tests/wire/iwarp.pcap")[12].bytes
      local function first(n)   -- the segment with its first n payload bytes only, as TCP would send it
        local ip = b:sub(15, 16) .. string.pack(">I2", 20 + 32 + n) .. b:sub(19, 34)
        return b:sub(1, 14) .. ip .. b:sub(35, 66) .. b:sub(67, 66 + n)
      end
      for _, n in ipairs{ 19, 20, 700 } do
        local p = W.decode(first(n))
        local f = p.fpdus[1]
        print(n, W.describe(p), f.truncated, f.rest, f.head and f.head.ddp.stag == 0x5b3d5300, f.cut)
      end
      for _, n in ipairs{ 85, 86 } do   -- the 1514-byte frame cut to n bytes: the DDP header ends at 86
        local p = W.decode(b:sub(1, n))
        print(n, W.describe(p), p.fpdus[1].cut, p.fpdus[1].truncated, p.fpdus[1].ddp and p.fpdus[1].ddp.to)
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    local head="198.51.100.1:50337 > 198.51.100.2:7497"
    # 2 + 1442 + 4 bytes of CRC: 1448 - n still to come; the DDP and RDMAP headers read once 20 bytes are here
    [ "${lines[0]}" = "19	$head FPDU of 1442 bytes continued in the next segment	true	1429	nil	nil" ]
    [ "${lines[1]}" = "20	$head FPDU of 1442 bytes continued in the next segment	true	1428	true	nil" ]
    [ "${lines[2]}" = "700	$head FPDU of 1442 bytes continued in the next segment	true	748	true	nil" ]
    [ "${lines[3]}" = "85	$head FPDU of 1442 bytes cut by the snaplen	true	nil	nil" ]
    [ "${lines[4]}" = "86	$head Write (tagged STag 0x5b3d5300 TO 0x557ee9d8c694) 1428 bytes	true	nil	$((0x557ee9d8c694))" ]
}

# fakesiw SETUP ARGS...: verbsh ARGS in namespaces of its own (mount, net: lo
# up) where /sys/class is a tmpfs that holds an iWARP device siw9 (node_type
# "4: RNIC") and lo's address, 00:00:00:00:00:00; SETUP (shell) changes it first.
fakesiw() {
    local setup=$1
    shift
    unshare -m -n sh -c 'ip link set lo up && mount -t tmpfs none /sys/class &&
        mkdir -p /sys/class/infiniband/siw9/ports/1/gids /sys/class/net/lo &&
        echo 00:00:00:00:00:00 >/sys/class/net/lo/address && echo "4: RNIC" >/sys/class/infiniband/siw9/node_type &&
        cd /sys/class && eval "$0" && cd "$OLDPWD" && exec "$@"' "$setup" "$VERBSH" "$@"
}

@test "iwarp capture: an iWARP device whose GID 0 is missing, empty, short or no netdev's MAC, or with no /sys/class/net, is named with where to look; a device that is not iWARP is looked up as rxe" {
    [ "$(id -u)" -eq 0 ] || skip "needs root (a mount namespace, CAP_NET_RAW)"
    local gid=infiniband/siw9/ports/1/gids/0 chunk='print(select(2, pcall(verbs.capture, {device = "siw9"})))'
    local why="capture: no netdev found under iWARP device 'siw9' (none has the MAC of its GID 0, /sys/class/infiniband/siw9/ports/1/gids/0): \`rdma link show siw9/1\` names it; give netdev = that name"
    for setup in true ": >$gid" "echo 0000:0000:00 >$gid" "echo 0200:00ff:fe00:0001:: >$gid" \
                 "echo 0000:0000:0000:0000:: >$gid && rm -r net"; do
        run fakesiw "$setup" -e "$chunk"
        echo "$setup: $output"
        [ "$status" -eq 0 ]
        [ "$output" = "$why" ]
    done
    # the GID of lo's MAC, 00:00:00:00:00:00, but siw9 an IB CA: its netdev is looked for in gid_attrs
    run fakesiw "echo 0000:0000:0000:0000:: >$gid && echo '1: CA' >infiniband/siw9/node_type" -e "$chunk"
    echo "$output"
    [ "$output" = "capture: no netdev found under device 'siw9' (/sys/class/infiniband/siw9/ports/1/gid_attrs/ndevs): is it an rxe or siw device? list them with verbs.devices()" ]
    run fakesiw "echo 0000:0000:0000:0000:: >$gid" -e 'local c = verbs.capture{device = "siw9"}
      local i = c:info(); print(i.netdev, i.device, i.transport, i.filter, i.device_netdev); c:stop()'
    echo "$output"
    [ "$output" = $'lo\tsiw9\tiWARP\ttcp and (host 127.0.0.1)\tnil' ]
}

@test "iwarp capture: siw9's MPA Request, Reply and a Send, replayed over TCP on lo, are the ladder print(cap) draws, and cap:save's pcap decodes as tshark does; filter refuses the capture" {
    [ "$(id -u)" -eq 0 ] || skip "needs root (a mount namespace, CAP_NET_RAW)"
    command -v tshark >/dev/null || skip "tshark not installed (scripts/deps test)"
    # the payloads of iwarp.pcap's frames 4, 6 and 8, each its own segment (TCP_NODELAY, 20 ms apart)
    cat >"$BATS_TEST_TMPDIR/replay.lua" <<'LUA'
local socket = require "socket"
local src = verbs.wire.read_pcap(arg[1])
local function payload(b)
  local ihl = (b:byte(15) & 15) * 4
  local doff = (b:byte(15 + ihl + 12) >> 4) * 4
  return b:sub(15 + ihl + doff, 14 + string.unpack(">I2", b, 17))
end
local c = verbs.capture{device = "siw9"}
local srv = assert(socket.bind("127.0.0.1", 7497))
local cl = assert(socket.connect("127.0.0.1", 7497))
local s = srv:accept()
cl:setoption("tcp-nodelay", true); s:setoption("tcp-nodelay", true)
for _, x in ipairs{ { cl, s, 4 }, { s, cl, 6 }, { cl, s, 8 } } do
  local p = payload(src[x[3]].bytes)
  assert(x[1]:send(p)); assert(x[2]:receive(#p) == p)
  socket.sleep(0.02)
end
cl:close(); s:close(); srv:close()
local n = c:stop()
print(n, c:save(arg[2]), #c:packets() == n)
print(c)
print(c:ladder() == require("verbs.wire_iwarp_ladder").ladder(c:packets(), c:posts()), #c:ladder() > 0)
print(pcall(verbs.wire.filter, c, { qp = 1 }))
LUA
    run fakesiw "echo 0000:0000:0000:0000:: >infiniband/siw9/ports/1/gids/0" \
        "$BATS_TEST_TMPDIR/replay.lua" "$ROOT/tests/wire/iwarp.pcap" "$BATS_TEST_TMPDIR/lo.pcap"
    echo "$output"
    [ "$status" -eq 0 ]
    read -r n saved same <<<"${lines[0]}"
    [ "$n/$same" = "$saved/true" ]
    [ "${lines[1]}" = "capture on lo ($n frames, stopped)" ]
    [ "${lines[2]}" = "siw9 is iWARP: TCP segments of tcp and (host 127.0.0.1) (on lo, it crosses lo); TCP's ACKs carry its reliability" ]
    local re='^   time ms  127\.0\.0\.1:[0-9]+ +127\.0\.0\.1:7497$'
    [[ ${lines[3]} =~ $re ]]
    re='^ +0\.000  \|TCP SYN ------> +\| #1$'
    [[ ${lines[4]} =~ $re ]]
    local rows
    rows=$(printf '%s\n' "${lines[@]}" | sed -n 's/^ *[0-9.]*  |\(.*\)| #[0-9]*$/\1/p' | sed 's/  *$//; s/^ *//')
    echo "$rows"
    grep -qx "MPA Request rev 2, markers off, CRC off ack 1 ------>" <<<"$rows"
    grep -qx "<------ MPA Reply rev 2, markers off, CRC off ack 25" <<<"$rows"
    grep -qx "Send QN 0 MSN 1 MO 0 last len 100 (seq 25) ack 25 ------>" <<<"$rows"
    [ "${lines[-2]}" = $'true\ttrue' ]
    [ "${lines[-1]}" = "false	bad argument #1 to 'filter' (a capture of iWARP device siw9: filter selects RoCEv2 frames by their BTH; an iWARP capture has TCP segments: read require('verbs.wire_iwarp_ladder').rows(cap:packets(), cap:posts()))" ]
    tshark -T json -r "$BATS_TEST_TMPDIR/lo.pcap" 2>/dev/null | python3 "$ROOT/tests/wire/tshark_flat_iwarp.py" >"$BATS_TEST_TMPDIR/flat"
    run "$VERBSH" "$ROOT/tests/wire/oracle_iwarp.lua" "$BATS_TEST_TMPDIR/lo.pcap" "$BATS_TEST_TMPDIR/flat"
    echo "$output"
    [ "$status" -eq 0 ]
    re="^$n frames, [0-9]+ fields compared, 0 mismatches; FPDUs: Send 1\$"
    [[ ${lines[-1]} =~ $re ]]
    # tshark read the MPA frames and the Send's FPDU from it
    grep -q $'\tiwarp_mpa.key.req\t' "$BATS_TEST_TMPDIR/flat"
    grep -q $'\tiwarp_ddp.msn\t1$' "$BATS_TEST_TMPDIR/flat"
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
      -- (siw has one GID, index 0: any other index fails, as ibv_query_gid does there)
      local ctx = { query_gid = function(self, port, index)
        if index ~= 0 then error(("ibv_query_gid(port %d, index %d) failed: EINVAL"):format(port, index)) end
        return ("52:54:00:12:34:%02d (port %d index %d)"):format(port + 50, port, index) end }
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

@test "iwarp ladder: a capture that ends after one Read Response names it in the singular, not yet ACKed; an FPDU the snaplen cut before its DDP header is a row by its ULPDU length, tied to no WR" {
    run "$VERBSH" -e '
      local L = require "verbs.wire_iwarp_ladder"
      local list = verbs.wire.read_pcap("'"$ROOT"'/tests/wire/iwarp.pcap")
      local posts = { { qp = "qp1", wr_id = 1, opcode = "SEND", length = 100 },
                      { qp = "qp1", wr_id = 2, opcode = "RDMA_WRITE", length = 3000 },
                      { qp = "qp1", wr_id = 3, opcode = "RDMA_READ", length = 2000 } }
      local part = table.move(list, 1, 18, 1, {})   -- up to the first of the two Read Responses
      print(select(2, L.rows(part, posts))[3])
      -- frame 12 (the second Write FPDU) cut to 85 bytes: its DDP header ends at 86
      part = table.move(list, 1, 11, 1, {})
      part[12] = { bytes = list[12].bytes:sub(1, 85), time = list[12].time }
      local rows, summary = L.rows(part, posts)
      print(rows[12].kind, rows[12].text, rows[12].note)
      print(summary[2])'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "wr_id 3 (qp1 RDMA_READ, 2000 bytes): request in frame 16 (TCP ACK in frame 17), Read Response in frame 18 (no TCP ACK of it in the capture)" ]
    [ "${lines[1]}" = $'DATA\tFPDU of 1442 bytes (headers not captured) (seq 1597)\tnil' ]
    [ "${lines[2]}" = "wr_id 2 (qp1 RDMA_WRITE, 3000 bytes): frame 10 (no TCP ACK of it in the capture)" ]
}

@test "iwarp doctor: an ACTIVE siw port with an IPv4 address is ok when an RC QP reaches RTS by hand there, a warning naming rdma_cm and the address when RTS fails with EINVAL, ok without a word when the QP could not be tried; what it made is freed, last made first" {
    mkdir -p "$BATS_TEST_TMPDIR/bin"
    printf '#!/bin/sh\necho "link siw7/1 state ACTIVE physical_state LINK_UP netdev dummy7 "\n' >"$BATS_TEST_TMPDIR/bin/rdma"
    printf '#!/bin/sh\necho "5: dummy7    inet 198.51.100.7/24 scope global dummy7"\n' >"$BATS_TEST_TMPDIR/bin/ip"
    chmod +x "$BATS_TEST_TMPDIR/bin/rdma" "$BATS_TEST_TMPDIR/bin/ip"
    run env PATH="$BATS_TEST_TMPDIR/bin:$PATH" "$VERBSH" -e '
      local add = function(n, st, m, fix) print(st, n, m); print("fix", fix) end
      local D = require("verbs.doctor_iwarp")
      -- a stand-in context: rts says how the RTS transition ends (true, an errname, or "nopd": no PD at all)
      local function ctx(rts)
        local function obj(name, t)
          t = t or {}
          for _, m in ipairs{ "dealloc", "destroy" } do t[m] = function() print("free", name) end end
          return t
        end
        local qp = obj("qp", { qp_num = 0x2a17 })
        function qp:modify(a)
          if a.qp_state == "RTS" and rts ~= true then error({ errname = rts }) end
        end
        local pd = obj("pd", { create_qp = function() return qp end })
        return { query_gid = function() return "52:54:00:12:34:51" end,
          alloc_pd = function() if rts == "nopd" then error("no PD") end return pd end,
          create_cq = function() return obj("cq") end }
      end
      for _, rts in ipairs{ true, "EINVAL", "ENOMEM", "nopd" } do
        print("netdev", D.port_checks(add, ctx(rts), "siw7", 1, { state = "ACTIVE" }))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    local ok="ok	port	siw7 port 1 is ACTIVE, iWARP (RDMA over TCP) on dummy7"
    local head="iwarp	siw7 port 1: iWARP on dummy7 at 198.51.100.7: connect with rdma_cm to that address"
    [ "${lines[0]}" = "$ok" ]
    [ "${lines[2]}" = "free	qp" ]
    [ "${lines[3]}" = "free	cq" ]
    [ "${lines[4]}" = "free	pd" ]
    [ "${lines[5]}" = "ok	$head; an RC QP reached RTS without rdma_cm here" ]
    [ "${lines[6]}" = "fix	nil" ]
    [ "${lines[7]}" = "netdev	dummy7" ]
    [ "${lines[13]}" = "warn	$head; measured now: an RC QP driven RESET->INIT->RTR->RTS by hand, without rdma_cm, fails at RTS with EINVAL, so ibv_rc_pingpong and the lessons that connect out of band (4-13) cannot run on it" ]
    [ "${lines[14]}" = "fix	use rdma_cm (lessons 14 and 22; rping -a 198.51.100.7 works), or a RoCE device for the other lessons" ]
    # another errno at RTS: still a warning, without the EINVAL story
    [ "${lines[21]}" = "warn	$head" ]
    [ "${lines[22]}" = "fix	use rdma_cm (lessons 14 and 22; rping -a 198.51.100.7 works), or a RoCE device for the other lessons" ]
    [ "${lines[26]}" = "ok	$head" ]
    [ "${lines[27]}" = "fix	nil" ]
    [ "${lines[28]}" = "netdev	dummy7" ]
    [ "${#lines[@]}" -eq 29 ]
}

@test "iwarp ladder: a TCP keep-alive (no payload, seq one behind) is an ACK row, not a retransmission, as tshark reads it; it acknowledges no WR a second time" {
    command -v tshark >/dev/null || skip "tshark not installed (scripts/deps test)"
    # iwarp.pcap with frame 9 (the ACK of wr_id 1's Send) again 1 ms later, its seq one less: a keep-alive
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$ROOT/tests/wire python3 - "$ROOT/tests/wire/iwarp.pcap" "$BATS_TEST_TMPDIR/ka.pcap" <<'PY'
import struct, sys
from pcap_records import records, write
hdr, recs = records(sys.argv[1])
r = bytearray(recs[8])
sec, usec = struct.unpack("<II", r[:8])
usec += 1000
r[:8] = struct.pack("<II", sec + usec // 1000000, usec % 1000000)
off = 16 + 14 + 20 + 4   # the record header, Ethernet, IPv4: the TCP sequence number
r[off:off + 4] = struct.pack(">I", (struct.unpack(">I", r[off:off + 4])[0] - 1) & 0xffffffff)
write(sys.argv[2], hdr, recs[:9] + [bytes(r)] + recs[9:])
PY
    [ "$(tshark -r "$BATS_TEST_TMPDIR/ka.pcap" -Y tcp.analysis.keep_alive -T fields -e frame.number -e tcp.seq -e tcp.len 2>/dev/null)" = $'10\t24\t0' ]
    [ -z "$(tshark -r "$BATS_TEST_TMPDIR/ka.pcap" -Y tcp.analysis.retransmission -T fields -e frame.number 2>/dev/null)" ]
    run "$VERBSH" -e '
      local L = require "verbs.wire_iwarp_ladder"
      local list = verbs.wire.read_pcap("'"$BATS_TEST_TMPDIR/ka.pcap"'")
      local posts = { { qp = "qp1", wr_id = 1, opcode = "SEND", length = 100 }, { qp = "qp1", wr_id = 2, opcode = "RDMA_WRITE", length = 3000 } }
      local rows, summary = L.rows(list, posts)
      for _, r in ipairs(rows) do if r.frame >= 9 and r.frame <= 11 then print(r.frame, r.kind, r.seq, r.len, r.text, r.note) end end
      print(table.concat(summary, "\n"))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'9\tACK\t25\t0\tTCP ACK ack 149\tTCP acknowledges wr_id 1\'s SEND' ]
    [ "${lines[1]}" = $'10\tACK\t24\t0\tTCP ACK ack 149\tnil' ]
    [ "${lines[2]}" = $'11\tDATA\t149\t1448\tWrite STag 0x5b3d5300 TO 0x557ee9d8c100 len 1428 (seq 149)\twr_id 2\'s RDMA_WRITE' ]
    [ "${lines[3]}" = "wr_id 1 (qp1 SEND, 100 bytes): frame 8 (TCP ACK in frame 9)" ]
    [ "${lines[4]}" = "wr_id 2 (qp1 RDMA_WRITE, 3000 bytes): frames 11, 13, 15 (TCP ACK in frame 16)" ]
}

@test "iwarp wire: an FPDU whose ULPDU length is not 2 short of a multiple of 4 is padded: the next FPDU of the segment is read after the pad, as tshark reads both" {
    command -v tshark >/dev/null || skip "tshark not installed (scripts/deps test)"
    # frames 1-8 of iwarp.pcap, frame 8's segment holding two FPDUs: the Send
    # less its last byte (ULPDU 117, one byte of pad), then the Send itself (118)
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$ROOT/tests/wire python3 - "$ROOT/tests/wire/iwarp.pcap" "$BATS_TEST_TMPDIR/pad.pcap" <<'PY'
import struct, sys
from pcap_records import records, write
hdr, recs = records(sys.argv[1])
frame = recs[7][16:]
head, fpdu = frame[:66], frame[66:]   # Ethernet 14, IPv4 20, TCP 32; then the FPDU
ulen = struct.unpack(">H", fpdu[:2])[0]
payload = struct.pack(">H", ulen - 1) + fpdu[2:1 + ulen] + b"\0" + fpdu[2 + ulen:6 + ulen] + fpdu
ip = bytearray(head[14:34])
ip[2:4], ip[10:12] = struct.pack(">H", 52 + len(payload)), b"\0\0"
s = sum((ip[k] << 8) | ip[k + 1] for k in range(0, 20, 2))
while s >> 16: s = (s & 0xffff) + (s >> 16)
ip[10:12] = struct.pack(">H", ~s & 0xffff)
nf = head[:14] + bytes(ip) + head[34:] + payload
recs[7] = recs[7][:8] + struct.pack("<II", len(nf), len(nf)) + nf
write(sys.argv[2], hdr, recs[:8])
PY
    want=$(tshark -r "$BATS_TEST_TMPDIR/pad.pcap" -Y 'frame.number == 8' -T fields -e iwarp_mpa.ulpdulength -e iwarp_mpa.pad -e iwarp_ddp.msn 2>/dev/null)
    [ "$want" = $'117,118\t00\t1,1' ]
    run "$VERBSH" -e '
      local W = require "verbs.wire_iwarp"
      local p = W.decode(verbs.wire.read_pcap("'"$BATS_TEST_TMPDIR/pad.pcap"'")[8].bytes)
      local u, pads, msn = {}, {}, {}
      for _, fp in ipairs(p.fpdus) do u[#u + 1], pads[#pads + 1], msn[#msn + 1] = fp.ulpdulength, fp.pad, fp.ddp.msn end
      print(table.concat(u, ","), table.concat(msn, ","), table.concat(pads, ","), p.fpdus[1].payload_len, p.fpdus[2].payload_len)
      print(W.describe(p))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "$(cut -f1,3 <<<"$want")"$'\t1,0\t99\t100' ]
    [ "${lines[1]}" = "198.51.100.1:50337 > 198.51.100.2:7497 Send (untagged QN 0 MSN 1 MO 0, last) 99 bytes; Send (untagged QN 0 MSN 1 MO 0, last) 100 bytes" ]
}

@test "iwarp ladder: a capture begun mid-connection (no SYN) numbers each direction's seq and ack from 1, as tshark does, whichever side sent first" {
    command -v tshark >/dev/null || skip "tshark not installed (scripts/deps test)"
    # iwarp.pcap from frame 8 (the client's Send) and from frame 9 (the server's ACK of it)
    for from in 8 9; do
        PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$ROOT/tests/wire python3 - "$ROOT/tests/wire/iwarp.pcap" "$BATS_TEST_TMPDIR/mid$from.pcap" "$from" <<'PY'
import struct, sys
from pcap_records import records, write
hdr, recs = records(sys.argv[1])
write(sys.argv[2], hdr, recs[int(sys.argv[3]) - 1:])
PY
        tshark -r "$BATS_TEST_TMPDIR/mid$from.pcap" -T fields -e frame.number -e tcp.seq -e tcp.ack -e tcp.len 2>/dev/null >"$BATS_TEST_TMPDIR/tshark$from"
        run "$VERBSH" -e '
          local L = require "verbs.wire_iwarp_ladder"
          for _, r in ipairs(L.rows(verbs.wire.read_pcap("'"$BATS_TEST_TMPDIR/mid$from.pcap"'"))) do
            print(("%d\t%d\t%d\t%d"):format(r.frame, r.seq, r.ack, r.len))
          end'
        echo "$output"
        [ "$status" -eq 0 ]
        diff "$BATS_TEST_TMPDIR/tshark$from" <(printf '%s\n' "${lines[@]}")
    done
    # the first row of each: the Send from seq 1 with ack 1; the server's ACK of it, its ack 1 too
    [ "$(head -1 "$BATS_TEST_TMPDIR/tshark8")" = $'1\t1\t1\t124' ]
    [ "$(head -1 "$BATS_TEST_TMPDIR/tshark9")" = $'1\t1\t1\t0' ]
    run "$VERBSH" -e 'print(require("verbs.wire_iwarp_ladder").rows(verbs.wire.read_pcap("'"$BATS_TEST_TMPDIR/mid9.pcap"'"))[1].text)'
    [ "$output" = "TCP ACK ack 1" ]
}

@test "iwarp ladder: a SYN sent again after the SYN+ACK (no ACK flag, as tshark reads it) is drawn as the first, without an ack" {
    command -v tshark >/dev/null || skip "tshark not installed (scripts/deps test)"
    # iwarp.pcap's frames 1-7 with frame 1 (the SYN) again after frame 2 (the SYN+ACK)
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$ROOT/tests/wire python3 - "$ROOT/tests/wire/iwarp.pcap" "$BATS_TEST_TMPDIR/syn2.pcap" <<'PY'
import struct, sys
from pcap_records import records, write
hdr, recs = records(sys.argv[1])
again = recs[1][:8] + recs[0][8:]   # at the SYN+ACK's time
write(sys.argv[2], hdr, recs[:2] + [again] + recs[2:7])
PY
    [ "$(tshark -r "$BATS_TEST_TMPDIR/syn2.pcap" -Y 'frame.number == 3' -T fields -e tcp.flags.syn -e tcp.flags.ack 2>/dev/null)" = $'1\t0' ]
    run "$VERBSH" -e '
      local L = require "verbs.wire_iwarp_ladder"
      local list = verbs.wire.read_pcap("'"$BATS_TEST_TMPDIR/syn2.pcap"'")
      for i, r in ipairs(L.rows(list)) do if i <= 4 then print(r.frame, r.kind, r.seq, r.ack, r.text) end end
      print(L.ladder(list))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'1\tSYN\t0\tnil\tTCP SYN' ]
    [ "${lines[1]}" = $'2\tSYN\t0\t1\tTCP SYN+ACK' ]
    [ "${lines[2]}" = $'3\tSYN\t0\tnil\tTCP SYN' ]
    [ "${lines[3]}" = $'4\tACK\t1\t1\tTCP ACK ack 1' ]
    [ "${lines[6]}" = "    24.002  |                                       <------ TCP SYN+ACK ack 1| #2" ]
    [ "${lines[7]}" = "    24.002  |TCP SYN ------>                                                 | #3" ]
}

@test "iwarp doctor: the RC QP it drives by hand is a valid loopback: one CQ of 2 for both queues, INIT on port 1, RTR to its own QPN through GID 0 of port 1 at path_mtu 1024, RTS with every retry field in range" {
    mkdir -p "$BATS_TEST_TMPDIR/bin"
    printf '#!/bin/sh\necho "link siw7/1 state ACTIVE physical_state LINK_UP netdev dummy7 "\n' >"$BATS_TEST_TMPDIR/bin/rdma"
    printf '#!/bin/sh\necho "5: dummy7    inet 198.51.100.7/24 scope global dummy7"\n' >"$BATS_TEST_TMPDIR/bin/ip"
    chmod +x "$BATS_TEST_TMPDIR/bin/rdma" "$BATS_TEST_TMPDIR/bin/ip"
    run env PATH="$BATS_TEST_TMPDIR/bin:$PATH" "$VERBSH" -e '
      local pretty = require "verbs.pretty"
      local cq = { destroy = function() end }
      local qp = { qp_num = 0x2a17, destroy = function() end }
      function qp:modify(a) print("modify", (pretty.format(a):gsub("%s+", " "))) end
      local pd = { dealloc = function() end, create_qp = function(_, init)
        print("create_qp", init.qp_type, init.send_cq == cq, init.recv_cq == cq, pretty.format(init.cap))
        return qp end }
      local ctx = { query_gid = function(_, port, index) return ("gid of port %d index %d"):format(port, index) end,
        alloc_pd = function() return pd end, create_cq = function(_, n) print("create_cq", n); return cq end }
      require("verbs.doctor_iwarp").port_checks(function() end, ctx, "siw7", 1, { state = "ACTIVE" })'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'create_cq\t2' ]
    [ "${lines[1]}" = $'create_qp\tRC\ttrue\ttrue\t{ max_recv_sge = 1, max_recv_wr = 1, max_send_sge = 1, max_send_wr = 1 }' ]
    [ "${lines[2]}" = $'modify\t{ pkey_index = 0, port_num = 1, qp_access_flags = 0, qp_state = "INIT" }' ]
    [ "${lines[3]}" = $'modify\t{ ah_attr = { grh = { dgid = "gid of port 1 index 0", sgid_index = 0 }, is_global = 1, port_num = 1 }, dest_qp_num = 10775, max_dest_rd_atomic = 1, min_rnr_timer = 12, path_mtu = "1024", qp_state = "RTR", rq_psn = 0 }' ]
    # timeout 5 bits, retry_cnt and rnr_retry 3 bits (7: retry forever)
    [ "${lines[4]}" = $'modify\t{ max_rd_atomic = 1, qp_state = "RTS", retry_cnt = 7, rnr_retry = 7, sq_psn = 0, timeout = 14 }' ]
    [ "${#lines[@]}" -eq 5 ]
}

@test "iwarp ladder: no frame, or none that is a TCP segment, is said so; one segment is a ladder of one row" {
    run "$VERBSH" -e '
      local L = require "verbs.wire_iwarp_ladder"
      local list = verbs.wire.read_pcap("'"$ROOT"'/tests/wire/iwarp.pcap")
      print(L.ladder({}))
      print(L.ladder({ "not a frame" }))
      print(L.ladder({ list[1] }))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "(no TCP segments)" ]
    [ "${lines[1]}" = "(no TCP segments)" ]
    [ "${lines[2]}" = "   time ms  198.51.100.1:50337                                               198.51.100.2:7497" ]
    [ "${lines[3]}" = "     0.000  |TCP SYN ------>                                                 | #1" ]
    [ "${#lines[@]}" -eq 4 ]
}

# The shortest frame decode reads is Ethernet (14) + IPv4 (20) + TCP (20) = 54
# bytes, a bare ACK; one byte less, or another EtherType, is refused by name.
@test "iwarp wire: a 54-byte bare ACK (14 + 20 + 20) is the shortest frame decode reads; 53 bytes, or EtherType 0x86dd, is not an IPv4 frame" {
    run "$VERBSH" -e '
      local W = require "verbs.wire_iwarp"
      local eth = string.rep("\2", 12) .. string.pack(">I2", 0x0800)
      local ip = string.pack(">BBI2I2I2BBI2", 0x45, 0, 40, 1, 0, 64, 6, 0) .. "\198\51\100\1" .. "\198\51\100\2"
      local tcp = string.pack(">I2I2I4I4BBI2I2I2", 50337, 7497, 1000, 2024, 5 << 4, 0x10, 512, 0, 0)
      local b = eth .. ip .. tcp
      print(#b, W.describe(W.decode(b)), W.decode(b).tcp.len)
      print(#b - 1, W.decode(b:sub(1, 53)))
      print(#b, W.decode(b:sub(1, 12) .. string.pack(">I2", 0x86dd) .. b:sub(15)))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "54	198.51.100.1:50337 > 198.51.100.2:7497 TCP ACK 2024 (TCP's ACK: it carries iWARP's reliability, where RoCE has its own ACK/NAK)	0" ]
    [ "${lines[1]}" = "53	nil	not an IPv4 frame" ]
    [ "${lines[2]}" = "54	nil	not an IPv4 frame" ]
    [ "${#lines[@]}" -eq 3 ]
}

# RFC 793's flag bits: FIN 0x01, SYN 0x02, RST 0x04, ACK 0x10.
@test "iwarp wire: a TCP segment's flags by RFC 793's bits: SYN 0x02, SYN+ACK 0x12, FIN+ACK 0x11, RST 0x04, RST+ACK 0x14, in describe and the ladder (kinds SYN, SYN, FIN, RST, RST)" {
    run "$VERBSH" -e '
      local W, L = require "verbs.wire_iwarp", require "verbs.wire_iwarp_ladder"
      local function frame(a, b, sport, dport, seq, ack, flags)
        local eth = string.rep("\2", 12) .. string.pack(">I2", 0x0800)
        local ip = string.pack(">BBI2I2I2BBI2", 0x45, 0, 40, 1, 0, 64, 6, 0) .. a .. b
        return eth .. ip .. string.pack(">I2I2I4I4BBI2I2I2", sport, dport, seq, ack, 5 << 4, flags, 512, 0, 0)
      end
      local A, B = "\198\51\100\1", "\198\51\100\2"
      local list = { frame(A, B, 50337, 7497, 1000, 0, 0x02), frame(B, A, 7497, 50337, 5000, 1001, 0x12),
                     frame(A, B, 50337, 7497, 1001, 5001, 0x11), frame(B, A, 7497, 50337, 5001, 1002, 0x04),
                     frame(A, B, 50337, 7497, 1002, 5002, 0x14) }
      for _, b in ipairs(list) do print(W.tcp_flags(W.decode(b).tcp.flags), W.describe(W.decode(b))) end
      for _, r in ipairs(L.rows(list)) do print(r.frame, r.kind, r.text) end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'SYN\t198.51.100.1:50337 > 198.51.100.2:7497 TCP SYN 0' ]
    [ "${lines[1]}" = $'SYN+ACK\t198.51.100.2:7497 > 198.51.100.1:50337 TCP SYN+ACK 1001' ]
    [ "${lines[2]}" = $'FIN+ACK\t198.51.100.1:50337 > 198.51.100.2:7497 TCP FIN+ACK 5001' ]
    [ "${lines[3]}" = $'RST\t198.51.100.2:7497 > 198.51.100.1:50337 TCP RST 1002' ]
    [ "${lines[4]}" = $'RST+ACK\t198.51.100.1:50337 > 198.51.100.2:7497 TCP RST+ACK 5002' ]
    [ "${lines[5]}" = $'1\tSYN\tTCP SYN' ]
    [ "${lines[6]}" = $'2\tSYN\tTCP SYN+ACK' ]
    [ "${lines[7]}" = $'3\tFIN\tTCP FIN+ACK' ]
    [ "${lines[8]}" = $'4\tRST\tTCP RST' ]
    [ "${lines[9]}" = $'5\tRST\tTCP RST+ACK' ]
    [ "${#lines[@]}" -eq 10 ]
}

@test "iwarp wire: RDMAP's reserved bits read as tshark reads them (01 and 11 set in two FPDUs of tests/wire/iwarp.pcap), the rest of each frame unchanged" {
    command -v tshark >/dev/null || skip "tshark not installed (scripts/deps test)"
    python3 "$ROOT/tests/wire/iwarp_rsv.py" "$ROOT/tests/wire/iwarp.pcap" "$BATS_TEST_TMPDIR/rsv.pcap"
    tshark -T json -r "$BATS_TEST_TMPDIR/rsv.pcap" 2>/dev/null | python3 "$ROOT/tests/wire/tshark_flat_iwarp.py" >"$BATS_TEST_TMPDIR/flat"
    [ "$(grep -P '^(8|16)\tiwarp_rdma\.rsv\t' "$BATS_TEST_TMPDIR/flat" | sort -u)" = $'16\tiwarp_rdma.rsv\t0x03\n8\tiwarp_rdma.rsv\t0x01' ]
    run "$VERBSH" "$ROOT/tests/wire/oracle_iwarp.lua" "$BATS_TEST_TMPDIR/rsv.pcap" "$BATS_TEST_TMPDIR/flat"
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "23 frames, 265 fields compared, 0 mismatches; FPDUs: Read Request 1, Read Response 2, Send 1, Write 3"
}

@test "iwarp ladder: a segment the capture missed (iwarp.pcap without frame 8, wr_id 1's Send) leaves a gap: the next segment is read from its own first byte, the Write as tshark reads it" {
    command -v tshark >/dev/null || skip "tshark not installed (scripts/deps test)"
    PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$ROOT/tests/wire python3 - "$ROOT/tests/wire/iwarp.pcap" "$BATS_TEST_TMPDIR/gap.pcap" <<'PY'
import struct, sys
from pcap_records import records, write
hdr, recs = records(sys.argv[1])
write(sys.argv[2], hdr, recs[:7] + recs[8:])
PY
    # tshark: frame 9 (the Write's first segment) is an RDMA Write (opcode 0) whose ULPDU is 1442 bytes
    want=$(tshark -r "$BATS_TEST_TMPDIR/gap.pcap" -Y 'frame.number == 9' -T fields -e iwarp_rdma.opcode -e iwarp_mpa.ulpdulength 2>/dev/null)
    run "$VERBSH" -e '
      local L = require "verbs.wire_iwarp_ladder"
      local list = verbs.wire.read_pcap("'"$BATS_TEST_TMPDIR/gap.pcap"'")
      local posts = { { qp = "qp1", wr_id = 1, opcode = "SEND", length = 100 }, { qp = "qp1", wr_id = 2, opcode = "RDMA_WRITE", length = 3000 } }
      local rows, summary = L.rows(list, posts)
      for _, r in ipairs(rows) do if r.frame >= 8 and r.frame <= 9 then print(r.frame, r.kind, r.text, r.note) end end
      print(table.concat(summary, "\n"))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$want" = $'0x00\t1442' ]
    # the ACK of the Send the capture missed, then the Write: 1442 less its 14-byte DDP/RDMAP header
    [ "${lines[0]}" = $'8\tACK\tTCP ACK ack 149\tnil' ]
    [ "${lines[1]}" = $'9\tDATA\tWrite STag 0x5b3d5300 TO 0x557ee9d8c100 len 1428 (seq 149)\twr_id 2\'s RDMA_WRITE' ]
    [ "${lines[2]}" = "wr_id 1 (qp1 SEND, 100 bytes): no frame in the capture" ]
    [ "${lines[3]}" = "wr_id 2 (qp1 RDMA_WRITE, 3000 bytes): frames 9, 11, 13 (TCP ACK in frame 14)" ]
}
