#!/usr/bin/env bats
# The data path on the stand-in device (tests/fakeverbs/fakeverbs.c, its
# last section): the provider writes every field of every WR that
# qp:post_send, qp:post_recv and srq:post_srq_recv hand it, and completes
# each at once with values it chose (a receive's from its wr_id), so that
# what verbsh marshals down and what it reads back from a WC are each
# compared with the value given, field by field, without rxe.
load ../helpers

setup_file() { fakeverbs_build "$BATS_FILE_TMPDIR"; }

# fvsh CODE: verbsh -e CODE on the fake device's data path, SETUP first
fvsh() { FAKEVERBS_DATA_PATH=1 fakeverbs_sh "$BATS_FILE_TMPDIR/fakeverbs.so" "$SETUP $1"; }
# fvq CODE: the same without the provider's lines
fvq() { fvsh "$1" 2>/dev/null; }

# ctx, pd, an RC qp (qp_num 0x111) on send CQ scq (16 entries) and recv CQ
# rcq (32), a UD qp ud (0x112) on the same CQs, and mr, 4096 bytes
# (lkey 0x1234); hex(v) writes an integer as 0x...; perr(f, ...) is the
# message of the error f(...) raises, without the chunk's location
SETUP='
  local ctx = verbs.open("fake0")
  local pd = ctx:alloc_pd()
  local scq, rcq = ctx:create_cq(16), ctx:create_cq(32)
  local cap = { max_send_wr = 8, max_recv_wr = 9, max_send_sge = 2, max_recv_sge = 3 }   -- (each its own value: the caps read back are told apart)
  local qp = pd:create_qp{ qp_type = "RC", send_cq = scq, recv_cq = rcq, cap = cap }
  local ud = pd:create_qp{ qp_type = "UD", send_cq = scq, recv_cq = rcq, cap = cap }
  local mr = pd:reg_mr(4096, "LOCAL_WRITE")
  local function hex(v) return ("0x%x"):format(v) end
  local function perr(f, ...)
    local ok, e = pcall(f, ...)
    return ok and "no error" or (tostring(e):gsub("^%(command line%):%d+: ", ""))
  end
'

@test "fake data path: qp:post_send hands down each WR of a list as given: wr_id, opcode, send_flags, imm_data in network order, invalidate_rkey, rdma, atomic, and SGEs by mr (offset, length, the rest) or by addr; each completes with its opcode and byte_len" {
    run fvsh '
      print(hex(mr.addr))
      qp:post_send{
        { wr_id = 0x1122334455667788, opcode = "RDMA_WRITE_WITH_IMM", imm_data = 0x01020304, send_flags = { "SIGNALED", "SOLICITED" },
          rdma = { remote_addr = 0x8877665544332211, rkey = 0x0badf00d },
          sg_list = { { mr = mr, offset = 16, length = 100 }, { addr = 0x2000, length = 0xffffffff, lkey = 0x62 } } },
        { wr_id = 2, opcode = "ATOMIC_FETCH_AND_ADD", atomic = { remote_addr = 0x1000000000000008, compare_add = 0x0102030405060708,
          swap = 0x1112131415161718, rkey = 0x0decade1 }, sg_list = { { mr = mr, offset = 8, length = 8 } } },
        { wr_id = 3, opcode = "SEND_WITH_INV", invalidate_rkey = 0x0f0e0d0c, send_flags = "INLINE", sg_list = { { mr = mr } } },
        { wr_id = 4, opcode = "RDMA_READ", rdma = { remote_addr = 0xffffffffffffffff, rkey = 0xffffffff },
          sg_list = { { mr = mr, offset = 4000 }, { mr = mr, offset = 4096 } } },
        { wr_id = 0xffffffffffffffff, opcode = "SEND_WITH_IMM", imm_data = 0xfffffffe },
      }
      for _, wc in ipairs(scq:poll()) do print(hex(wc.wr_id), wc.status, wc.opcode, wc.byte_len, hex(wc.qp_num)) end' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    local a=${lines[0]}
    [ "${lines[1]}" = "fakeverbs: post_send qp 0x111 wr_id 0x1122334455667788 opcode 1 send_flags 0x6 imm_data bytes 01 02 03 04 num_sge 2 sge $(printf 0x%x $((a + 16)))+100/0x1234 sge 0x2000+4294967295/0x62 rdma remote_addr 0x8877665544332211 rkey 0xbadf00d" ]
    [ "${lines[2]}" = "fakeverbs: post_send qp 0x111 wr_id 0x2 opcode 6 send_flags 0x0 imm_data bytes 00 00 00 00 num_sge 1 sge $(printf 0x%x $((a + 8)))+8/0x1234 atomic remote_addr 0x1000000000000008 compare_add 0x102030405060708 swap 0x1112131415161718 rkey 0xdecade1" ]
    [ "${lines[3]}" = "fakeverbs: post_send qp 0x111 wr_id 0x3 opcode 9 send_flags 0x8 imm_data bytes 0c 0d 0e 0f num_sge 1 sge $a+4096/0x1234 invalidate_rkey 0xf0e0d0c" ]
    [ "${lines[4]}" = "fakeverbs: post_send qp 0x111 wr_id 0x4 opcode 4 send_flags 0x0 imm_data bytes 00 00 00 00 num_sge 2 sge $(printf 0x%x $((a + 4000)))+96/0x1234 sge $(printf 0x%x $((a + 4096)))+0/0x1234 rdma remote_addr 0xffffffffffffffff rkey 0xffffffff" ]
    [ "${lines[5]}" = "fakeverbs: post_send qp 0x111 wr_id 0xffffffffffffffff opcode 3 send_flags 0x0 imm_data bytes ff ff ff fe num_sge 0" ]
    # byte_len: the fake adds the lengths as uint32_t, 100 + 0xffffffff wraps to 99
    [ "${lines[6]}" = "0x1122334455667788	SUCCESS	RDMA_WRITE	99	0x111" ]
    [ "${lines[7]}" = "0x2	SUCCESS	FETCH_ADD	8	0x111" ]
    [ "${lines[8]}" = "0x3	SUCCESS	SEND	4096	0x111" ]
    [ "${lines[9]}" = "0x4	SUCCESS	RDMA_READ	96	0x111" ]
    [ "${lines[10]}" = "0xffffffffffffffff	SUCCESS	SEND	0	0x111" ]
    [ "${#lines[@]}" -eq 11 ]
}

@test "fake data path: a UD send hands down ud.ah (the provider's AH), remote_qpn up to 0xffffff and remote_qkey up to 0xffffffff; one more is refused naming the key, and nothing is posted" {
    run fvsh '
      local ah1 = pd:create_ah{ dlid = 1, port_num = 1 }
      local ah2 = pd:create_ah{ dlid = 2, port_num = 1 }
      ud:post_send{ { wr_id = 1, opcode = "SEND", ud = { ah = ah2, remote_qpn = 0xffffff, remote_qkey = 0xffffffff } },
                    { wr_id = 2, opcode = "SEND_WITH_IMM", imm_data = 0xa1b2c3d4, ud = { ah = ah1, remote_qpn = 0x123456, remote_qkey = 0x11223344 } } }
      print(select(2, pcall(ud.post_send, ud, { opcode = "SEND", ud = { ah = ah1, remote_qpn = 0x1000000, remote_qkey = 1 } })))
      print(select(2, pcall(ud.post_send, ud, { opcode = "SEND", ud = { ah = ah1, remote_qpn = 1, remote_qkey = 0x100000000 } })))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fakeverbs: post_send qp 0x112 wr_id 0x1 opcode 2 send_flags 0x0 imm_data bytes 00 00 00 00 num_sge 0 ud ah 0xa1 remote_qpn 0xffffff remote_qkey 0xffffffff" ]
    [ "${lines[1]}" = "fakeverbs: post_send qp 0x112 wr_id 0x2 opcode 3 send_flags 0x0 imm_data bytes a1 b2 c3 d4 num_sge 0 ud ah 0xa0 remote_qpn 0x123456 remote_qkey 0x11223344" ]
    [ "${lines[2]}" = "bad argument #1 to 'post_send' (key 'ud.remote_qpn': 16777216 is out of range (0..16777215))" ]
    [ "${lines[3]}" = "bad argument #1 to 'post_send' (key 'ud.remote_qkey': 4294967296 is out of range (0..4294967295))" ]
    [ "${#lines[@]}" -eq 4 ]
}

@test "fake data path: after mr:rereg gave the MR new keys, a prepared WR holding the old lkey is posted as C would (the old key), with a warning naming its SGE and both keys; an error under strict, nothing posted; no warning where the keys stayed, or for a plain post" {
    local w="this prepared WR holds lkey 0x1234, the MR's key when it was prepared; mr:rereg has given the MR lkey 0x2234 since, and the device refuses the old one (a LOC_PROT_ERR completion), as C would post it: prepare the WR again"
    # the keys stay (as on rxe): no warning
    run fvsh '
      local s = verbs.send_wr{ wr_id = 0x51, opcode = "SEND", sg_list = { { mr = mr, offset = 4, length = 12 } } }
      qp:post_send(s)
      mr:rereg("CHANGE_ACCESS", nil, "LOCAL_WRITE")
      qp:post_send(s)
      print(hex(mr.lkey))'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output != *warning* ]]
    [ "$(grep -c 'wr_id 0x51 .*/0x1234$' <<<"$output")" -eq 2 ]
    [ "${lines[-1]}" = 0x1234 ]
    # new keys: the chain's second WR's first SGE names the MR; its old key is posted, said once per check
    FAKEVERBS_REREG_KEYS=1 run fvsh '
      local s = verbs.send_wr{ { wr_id = 0x51, opcode = "SEND" },
                               { wr_id = 0x52, opcode = "SEND", sg_list = { { mr = mr, offset = 4, length = 12 } } } }
      local r = verbs.recv_wr{ wr_id = 0x61, sg_list = { { mr = mr, offset = 0, length = 8 } } }
      qp:post_send(s)
      mr:rereg("CHANGE_ACCESS", nil, "LOCAL_WRITE")
      print(hex(mr.lkey), hex(mr.rkey))
      qp:post_send(s)
      qp:post_send(s)
      qp:post_recv(r)
      qp:post_send{ wr_id = 0x53, opcode = "SEND", sg_list = { { mr = mr, offset = 4, length = 12 } } }'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(grep -c 'wr_id 0x52 .*/0x1234$' <<<"$output")" -eq 3 ]
    [ "$(grep -c "^verbsh warning: (command line):[0-9]*: \[2\].sg_list\[1\].mr: $w (verbs.strict(true) makes this an error, verbs.warnings(false) silences it)$" <<<"$output")" -eq 1 ]
    [ "$(grep -c "^verbsh warning: (command line):[0-9]*: sg_list\[1\].mr: $w (verbs.strict(true)" <<<"$output")" -eq 1 ]
    [ "$(grep -c 'warning' <<<"$output")" -eq 2 ]
    grep -qx '0x2234	0x6678' <<<"$output"
    grep -q 'post_recv qp 0x111 wr_id 0x61 num_sge 1 sge 0x[0-9a-f]*+8/0x1234$' <<<"$output"
    grep -q 'wr_id 0x53 .*/0x2234$' <<<"$output"
    # strict: an error naming the argument and the SGE, nothing posted
    FAKEVERBS_REREG_KEYS=1 run fvsh '
      local s = verbs.send_wr{ wr_id = 0x51, opcode = "SEND", sg_list = { { mr = mr, offset = 4, length = 12 } } }
      mr:rereg("CHANGE_ACCESS", nil, "LOCAL_WRITE")
      verbs.strict(true)
      print(perr(qp.post_send, qp, s))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[-1]}" = "bad argument #1 to 'post_send' (sg_list[1].mr: $w (an error under verbs.strict(true)))" ]
    [[ $output != *"post_send qp"* ]]
}

@test "fake data path: a prepared chain is posted as it was read, and again with the wr_id, imm_data, opcode and rdma set since; a prepared UD WR keeps its AH" {
    run fvsh '
      local s = verbs.send_wr{ { wr_id = 0x51, opcode = "SEND_WITH_IMM", imm_data = 0x0a0b0c0d, sg_list = { { mr = mr, offset = 4, length = 12 } } },
                               { wr_id = 0x52, opcode = "RDMA_WRITE", rdma = { remote_addr = 0x7000, rkey = 0x77 }, send_flags = "FENCE" } }
      qp:post_send(s)
      s.wr_id = 0x61; s.imm_data = 0xdeadbeef
      qp:post_send(s)
      s.opcode = "RDMA_WRITE_WITH_IMM"; s.rdma = { remote_addr = 0x9000, rkey = 0x99 }
      qp:post_send(s)
      local u = verbs.send_wr{ wr_id = 0x71, opcode = "SEND", ud = { ah = pd:create_ah{ dlid = 3, port_num = 1 }, remote_qpn = 0xabcdef, remote_qkey = 0x5 } }
      collectgarbage()
      ud:post_send(u)
      local r = verbs.recv_wr{ { wr_id = 0x81, sg_list = { { mr = mr, offset = 100, length = 28 } } }, { wr_id = 0x82 } }
      qp:post_recv(r)' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    local a
    a=$(printf '%s\n' "${lines[0]}" | sed -n 's/.* sge \(0x[0-9a-f]*\)+12.*/\1/p')
    [ -n "$a" ]
    [ "${lines[0]}" = "fakeverbs: post_send qp 0x111 wr_id 0x51 opcode 3 send_flags 0x0 imm_data bytes 0a 0b 0c 0d num_sge 1 sge $a+12/0x1234" ]
    [ "${lines[1]}" = "fakeverbs: post_send qp 0x111 wr_id 0x52 opcode 0 send_flags 0x1 imm_data bytes 00 00 00 00 num_sge 0 rdma remote_addr 0x7000 rkey 0x77" ]
    [ "${lines[2]}" = "fakeverbs: post_send qp 0x111 wr_id 0x61 opcode 3 send_flags 0x0 imm_data bytes de ad be ef num_sge 1 sge $a+12/0x1234" ]
    [ "${lines[3]}" = "${lines[1]}" ]
    [ "${lines[4]}" = "fakeverbs: post_send qp 0x111 wr_id 0x61 opcode 1 send_flags 0x0 imm_data bytes de ad be ef num_sge 1 sge $a+12/0x1234 rdma remote_addr 0x9000 rkey 0x99" ]
    [ "${lines[5]}" = "${lines[1]}" ]
    [ "${lines[6]}" = "fakeverbs: post_send qp 0x112 wr_id 0x71 opcode 2 send_flags 0x0 imm_data bytes 00 00 00 00 num_sge 0 ud ah 0xa0 remote_qpn 0xabcdef remote_qkey 0x5" ]
    [ "${lines[7]}" = "fakeverbs: post_recv qp 0x111 wr_id 0x81 num_sge 1 sge $(printf 0x%x $((a - 4 + 100)))+28/0x1234" ]
    [ "${lines[8]}" = "fakeverbs: post_recv qp 0x111 wr_id 0x82 num_sge 0" ]
    [ "${#lines[@]}" -eq 9 ]
}

# ERR: pcall's error object e as one line: its verb, errno, returned (C's
# value when it was negative), and context's bad_wr, wr_id of context.wr,
# qp_type, qp_state and cap
ERR='
  local function err(ok, e)
    if ok then return "no error" end
    local c = e.context or {}
    local cap = c.cap and table.concat({ c.cap.max_send_wr, c.cap.max_recv_wr, c.cap.max_send_sge, c.cap.max_recv_sge,
      c.cap.max_inline_data }, ",") or "-"
    return table.concat({ e.verb, e.errno, tostring(c.returned), tostring(c.bad_wr), c.wr and hex(c.wr.wr_id) or "-",
      tostring(c.qp_type), tostring(c.qp_state), cap }, " ")
  end
'

@test "fake data path: a post the provider refuses names the WR it pointed bad_wr at (#3 of a list, #1 alone, #2 of a prepared chain) and gives that WR's table; the WRs before it were handed down" {
    run fvsh "$ERR"'
      local list = { { wr_id = 0x31, opcode = "SEND" }, { wr_id = 0x32, opcode = "SEND" }, { wr_id = 0xbad, opcode = "SEND" },
                     { wr_id = 0x34, opcode = "SEND" } }
      local ok, e = pcall(qp.post_send, qp, list)
      print(err(ok, e), rawequal(e.context.wr, list[3]))
      local one = { wr_id = 0xbad, opcode = "SEND_WITH_IMM", imm_data = 7 }
      ok, e = pcall(qp.post_send, qp, one)
      print(err(ok, e), rawequal(e.context.wr, one))
      ok, e = pcall(qp.post_send, qp, verbs.send_wr{ { wr_id = 0x41, opcode = "SEND" }, { wr_id = 0xbad, opcode = "RDMA_WRITE",
        rdma = { remote_addr = 0x4000, rkey = 0x44 } } })
      print(err(ok, e), hex(e.context.wr.rdma.remote_addr), e.context.wr.opcode)
      list = { { wr_id = 0x51 }, { wr_id = 0xbad } }
      ok, e = pcall(qp.post_recv, qp, list)
      print(err(ok, e), rawequal(e.context.wr, list[2]))
      ok, e = pcall(qp.post_recv, qp, verbs.recv_wr{ { wr_id = 0xbad }, { wr_id = 0x62 } })
      print(err(ok, e))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fakeverbs: post_send qp 0x111 wr_id 0x31 opcode 2 send_flags 0x0 imm_data bytes 00 00 00 00 num_sge 0" ]
    [ "${lines[1]}" = "fakeverbs: post_send qp 0x111 wr_id 0x32 opcode 2 send_flags 0x0 imm_data bytes 00 00 00 00 num_sge 0" ]
    [ "${lines[2]}" = "ibv_post_send 22 nil 3 0xbad RC RESET 8,9,2,3,0	true" ]
    [ "${lines[3]}" = "ibv_post_send 22 nil 1 0xbad RC RESET 8,9,2,3,0	true" ]
    [ "${lines[4]}" = "fakeverbs: post_send qp 0x111 wr_id 0x41 opcode 2 send_flags 0x0 imm_data bytes 00 00 00 00 num_sge 0" ]
    [ "${lines[5]}" = "ibv_post_send 22 nil 2 0xbad RC RESET 8,9,2,3,0	0x4000	RDMA_WRITE" ]
    [ "${lines[6]}" = "fakeverbs: post_recv qp 0x111 wr_id 0x51 num_sge 0" ]
    [ "${lines[7]}" = "ibv_post_recv 22 nil 2 0xbad RC RESET 8,9,2,3,0	true" ]
    [ "${lines[8]}" = "ibv_post_recv 22 nil 1 0xbad RC RESET 8,9,2,3,0" ]
    [ "${#lines[@]}" -eq 9 ]
}

@test "fake data path: a refused post keeps C's return: -1 takes the errno (ENOTCONN, 107), a negative errno (-22) its value; context.returned holds what C saw; an SRQ's refusal has no QP fields" {
    FAKEVERBS_POST_RET=-1 FAKEVERBS_POST_ERRNO=107 run fvsh "$ERR"'
      print(err(pcall(qp.post_send, qp, { wr_id = 0xbad, opcode = "SEND" })))
      local srq = pd:create_srq{ max_wr = 4, max_sge = 1 }
      print(err(pcall(srq.post_recv, srq, { { wr_id = 0x71 }, { wr_id = 0xbad } })))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "ibv_post_send 107 -1 1 0xbad RC RESET 8,9,2,3,0" ]
    [ "${lines[1]}" = "fakeverbs: post_srq_recv srq 0x0 wr_id 0x71 num_sge 0" ]
    [ "${lines[2]}" = "ibv_post_srq_recv 107 -1 2 0xbad nil nil -" ]
    FAKEVERBS_POST_RET=-22 run fvsh "$ERR"'
      print(err(pcall(qp.post_recv, qp, { wr_id = 0xbad })))
      print(err(pcall(ud.post_send, ud, verbs.send_wr{ wr_id = 0xbad, opcode = "SEND", ud = { ah = pd:create_ah{ dlid = 1, port_num = 1 },
        remote_qpn = 1, remote_qkey = 2 } })))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "ibv_post_recv 22 -22 1 0xbad RC RESET 8,9,2,3,0" ]
    [ "${lines[1]}" = "ibv_post_send 22 -22 1 0xbad UD RESET 8,9,2,3,0" ]
}

# WC: wcline(wc) is a WC's fields in struct order as pairs() gives them,
# integers in hex; viewline(wcs[i]) the same of a wc_array entry, read by name
WC='
  local function show(out, k, v)
    if type(v) == "table" then v = table.concat(v, "|") elseif math.type(v) == "integer" then v = hex(v) end
    out[#out + 1] = k .. "=" .. tostring(v)
  end
  local function wcline(wc)
    local out = {}
    for k, v in pairs(wc) do show(out, k, v) end
    return table.concat(out, " ")
  end
  local function viewline(w)
    local out = {}
    for _, k in ipairs{ "wr_id", "status", "vendor_err", "qp_num", "opcode", "byte_len", "imm_data", "invalidated_rkey",
                        "src_qp", "wc_flags", "pkey_index", "slid", "sl", "dlid_path_bits" } do
      if w[k] ~= nil then show(out, k, w[k]) end
    end
    return table.concat(out, " ")
  end
'

@test "fake data path: cq:poll gives each field of a receive's WC as the provider set it; imm_data (host order) with WITH_IMM, invalidated_rkey with WITH_INV, or with IP_CSUM_OK on a RECV from src_qp 0 (rxe's flag), neither otherwise; a failed one only wr_id, status, vendor_err and qp_num" {
    run fvq "$WC"'
      qp:post_recv{ { wr_id = 0x0003000000000001, sg_list = { { mr = mr, offset = 0, length = 40 }, { mr = mr, offset = 64, length = 2 } } },
                    { wr_id = 0x0004000000000002 }, { wr_id = 0x0004001234000003 }, { wr_id = 0x0008000000000004 },
                    { wr_id = 0x0000000000000005 }, { wr_id = 0x0c02000000000006, sg_list = { { mr = mr } } } }
      local wcs = rcq:poll()
      for i, wc in ipairs(wcs) do print(wcline(wc)) end
      print(#wcs, wcs[1].opcode, wcs[6].opcode, wcs[6].byte_len, wcs[6].imm_data)'
    echo "$output"
    [ "$status" -eq 0 ]
    local ok="status=SUCCESS vendor_err=0x0 qp_num=0x111 opcode=RECV"
    local tail="pkey_index=0x123 slid=0x4567 sl=0x9 dlid_path_bits=0x3e"
    [ "${lines[0]}" = "wr_id=0x3000000000001 $ok byte_len=0x2a imm_data=0x5e6f7081 src_qp=0x0 wc_flags=GRH|WITH_IMM $tail" ]
    [ "${lines[1]}" = "wr_id=0x4000000000002 $ok byte_len=0x0 invalidated_rkey=0x1a2b3c4d src_qp=0x0 wc_flags=IP_CSUM_OK $tail" ]
    [ "${lines[2]}" = "wr_id=0x4001234000003 $ok byte_len=0x0 src_qp=0x1234 wc_flags=IP_CSUM_OK $tail" ]
    [ "${lines[3]}" = "wr_id=0x8000000000004 $ok byte_len=0x0 invalidated_rkey=0x1a2b3c4d src_qp=0x0 wc_flags=WITH_INV $tail" ]
    [ "${lines[4]}" = "wr_id=0x5 $ok byte_len=0x0 src_qp=0x0 wc_flags= $tail" ]
    [ "${lines[5]}" = "wr_id=0xc02000000000006 status=RETRY_EXC_ERR vendor_err=0x1d2 qp_num=0x111" ]
    [ "${lines[6]}" = "6	RECV	nil	nil	nil" ]
}

# cq:poll(max) polls in batches of 32: the last batch asks for what is left
# to max, never a whole batch more.
@test "fake data path: cq:poll(40) with 70 completions waiting returns 40 (wr_id 1 to 40) and leaves 30 for the next poll; poll(32) and poll(33) take exactly that many" {
    run fvq '
      local cq = ctx:create_cq(128)
      local q = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 128, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
      local function post(n) for i = 1, n do q:post_send{ wr_id = i, opcode = "SEND" } end end
      post(70)
      local a, b, c = cq:poll(40), cq:poll(40), cq:poll(40)
      print(#a, a[1].wr_id, a[40].wr_id, #b, b[1].wr_id, b[30].wr_id, #c)
      post(70)
      a, b = cq:poll(32), cq:poll(33)
      print(#a, a[32].wr_id, #b, b[1].wr_id, b[33].wr_id, #cq:poll(40))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'40\t1\t40\t30\t41\t70\t0' ]
    [ "${lines[1]}" = $'32\t32\t33\t33\t65\t5' ]
    [ "${#lines[@]}" -eq 2 ]
}

@test "fake data path: cq:poll(wcs) fills a wc_array in place: the count, each entry's fields, ipairs over the filled ones; a shorter poll makes the rest stale; wcs[1] and wcs[n] are views, wcs[0] and wcs[n+1] errors" {
    run fvq "$WC"'
      local wcs = verbs.wc_array(3)
      qp:post_recv{ { wr_id = 0x0002000000000011 }, { wr_id = 0x0c00000000000012 }, { wr_id = 0x13 }, { wr_id = 0x14 } }
      print(rcq:poll(wcs), tostring(wcs), viewline(wcs[1]), viewline(wcs[2]), hex(wcs[3].wr_id))
      local n = 0
      for i, w in ipairs(wcs) do n = n + 1; io.write(i, "=", w.status, " ") end
      print(n)
      print(rcq:poll(wcs), tostring(wcs), hex(wcs[1].wr_id), wcs[1].status, perr(function() return wcs[2].wr_id end))
      n = 0
      for i in ipairs(wcs) do n = n + 1 end
      print(n, rawequal(wcs[3], wcs[3]), perr(function() return wcs[2].status end))
      print(perr(function() return wcs[0] end))
      print(perr(function() return wcs[4] end))
      print(perr(function() return wcs[1.5] end))
      print(rcq:poll(wcs), tostring(wcs), tostring(wcs[1]))'
    echo "$output"
    [ "$status" -eq 0 ]
    local tail="pkey_index=0x123 slid=0x4567 sl=0x9 dlid_path_bits=0x3e"
    [ "${lines[0]}" = "3	wc_array 3 (3 filled by the last poll)	wr_id=0x2000000000011 status=SUCCESS vendor_err=0x0 qp_num=0x111 opcode=RECV byte_len=0x0 imm_data=0x5e6f7081 src_qp=0x0 wc_flags=WITH_IMM $tail	wr_id=0xc00000000000012 status=RETRY_EXC_ERR vendor_err=0x1d2 qp_num=0x111	0x13" ]
    [ "${lines[1]}" = "1=SUCCESS 2=RETRY_EXC_ERR 3=SUCCESS 3" ]
    [ "${lines[2]}" = "1	wc_array 3 (1 filled by the last poll)	0x14	SUCCESS	wc[2]: the last poll filled 1 entry (in C, wc[1] would hold stale data)" ]
    [ "${lines[3]}" = "1	true	wc[2]: the last poll filled 1 entry (in C, wc[1] would hold stale data)" ]
    [ "${lines[4]}" = "wc_array: index 0 is outside 1..3" ]
    [ "${lines[5]}" = "wc_array: index 4 is outside 1..3" ]
    [ "${lines[6]}" = "wc_array: index 1.5 is outside 1..3" ]
    [ "${lines[7]}" = "0	wc_array 3 (0 filled by the last poll)	wc[1] (not filled by the last poll)" ]
}

@test "fake data path: a status assigned to a wc_array entry is found at the next poll, naming the entry, the value and the poll's status, which the entry shows again" {
    run fvq '
      local wcs = verbs.wc_array(4)
      qp:post_recv{ { wr_id = 1 }, { wr_id = 0x0500000000000002 }, { wr_id = 3 } }
      print(rcq:poll(wcs))
      wcs[2].status = "SUCCESS"
      print(perr(rcq.poll, rcq, wcs))
      print(wcs[2].status, wcs[1].status, wcs[3].status)
      wcs[3].status = "WR_FLUSH_ERR"
      print(perr(rcq.wait, rcq, wcs, 1, 0))
      print(wcs[3].status, rcq:poll(wcs))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "3" ]
    [ "${lines[1]}" = "wcs[2].status was assigned (SUCCESS) after the poll that filled it gave WR_FLUSH_ERR: a completion's fields are read-only (keep a status of your own in a variable)" ]
    [ "${lines[2]}" = "WR_FLUSH_ERR	SUCCESS	SUCCESS" ]
    [ "${lines[3]}" = "wcs[3].status was assigned (WR_FLUSH_ERR) after the poll that filled it gave SUCCESS: a completion's fields are read-only (keep a status of your own in a variable)" ]
    [ "${lines[4]}" = "SUCCESS	0" ]
}

@test "fake data path: the loop's own cq:wait(wcs) and cq:wait(wcs, 1) do not look for an assigned status (as documented); the next cq:poll(wcs) or cq:wait(wcs, n, timeout_ms) finds it, and the entry shows the poll's status again" {
    run fvq '
      local wcs = verbs.wc_array(2)
      qp:post_recv{ { wr_id = 0x21 }, { wr_id = 0x22 }, { wr_id = 0x23 }, { wr_id = 0x24 } }
      print(rcq:wait(wcs), hex(wcs[1].wr_id), wcs[1].status)
      wcs[1].status = "WR_FLUSH_ERR"
      print(perr(rcq.wait, rcq, wcs), hex(wcs[1].wr_id))
      print(perr(rcq.poll, rcq, wcs), wcs[1].status)
      print(rcq:wait(wcs, 1), hex(wcs[1].wr_id))
      wcs[1].status = "LOC_LEN_ERR"
      print(perr(rcq.wait, rcq, wcs, 1), hex(wcs[1].wr_id))
      print(perr(rcq.wait, rcq, wcs, 1, 0), wcs[1].status)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "1	0x21	SUCCESS" ]
    [ "${lines[1]}" = "no error	0x22" ]
    [ "${lines[2]}" = "wcs[1].status was assigned (WR_FLUSH_ERR) after the poll that filled it gave SUCCESS: a completion's fields are read-only (keep a status of your own in a variable)	SUCCESS" ]
    [ "${lines[3]}" = "1	0x23" ]
    [ "${lines[4]}" = "no error	0x24" ]
    [ "${lines[5]}" = "wcs[1].status was assigned (LOC_LEN_ERR) after the poll that filled it gave SUCCESS: a completion's fields are read-only (keep a status of your own in a variable)	SUCCESS" ]
    [ "${#lines[@]}" -eq 6 ]
}

@test "fake data path: cq:wait waits its timeout out on an empty CQ, in both forms: not less (a lower bound: a loaded machine may take longer)" {
    run fvq '
      local wcs = verbs.wc_array(2)
      local t0 = verbs.now()
      local l, why = rcq:wait(1, 300)
      local t1 = verbs.now()
      local n, why2 = rcq:wait(wcs, 1, 200)
      local t2 = verbs.now()
      print(#l, why, (t1 - t0) * 1000 >= 300)
      print(n, why2, (t2 - t1) * 1000 >= 200)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'0\ttimed out after 300 ms: 0 of 1 completions\ttrue' ]
    [ "${lines[1]}" = $'0\ttimed out after 200 ms: 0 of 1 completions\ttrue' ]
}

@test "fake data path: cq:wait(n [, timeout]) returns n WCs in order, or those that came and 'timed out after T ms: got of n completions'; cq:wait(wcs [, n [, timeout]]) the count; n beyond the wc_array, a bad n, timeout or max are refused naming the argument" {
    run fvq '
      qp:post_recv{ { wr_id = 0x21 }, { wr_id = 0x22 }, { wr_id = 0x23 } }
      local l, why = rcq:wait(2)
      print(#l, hex(l[1].wr_id), hex(l[2].wr_id), why)
      l, why = rcq:wait(2, 20)
      print(#l, hex(l[1].wr_id), why)
      l, why = rcq:wait(1, 0)
      print(#l, why)
      local wcs = verbs.wc_array(4)
      qp:post_recv{ { wr_id = 0x31 }, { wr_id = 0x32 }, { wr_id = 0x33 } }
      print(rcq:wait(wcs), hex(wcs[1].wr_id), tostring(wcs))
      print(rcq:wait(wcs, 1), hex(wcs[1].wr_id), tostring(wcs))
      print(rcq:wait(wcs, 2, 10))
      print(hex(wcs[1].wr_id), tostring(wcs))
      print(rcq:wait(wcs, 4, 0))
      print(perr(rcq.wait, rcq, wcs, 5))
      print(rcq:wait(wcs, nil, 0))
      print(perr(rcq.wait, rcq, 1, -1))
      print(perr(rcq.wait, rcq, wcs, 1, "x"))
      print(perr(rcq.wait, rcq, wcs, 1.5))
      print(perr(rcq.poll, rcq, 0x100001))
      print(select(2, rcq:wait(0x100000, 0)))
      print(perr(rcq.wait, rcq, 0x100001, 0))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "2	0x21	0x22	nil" ]
    [ "${lines[1]}" = "1	0x23	timed out after 20 ms: 1 of 2 completions" ]
    [ "${lines[2]}" = "0	timed out after 0 ms: 0 of 1 completions" ]
    [ "${lines[3]}" = "1	0x31	wc_array 4 (1 filled by the last poll)" ]
    [ "${lines[4]}" = "1	0x32	wc_array 4 (1 filled by the last poll)" ]
    [ "${lines[5]}" = "1	timed out after 10 ms: 1 of 2 completions" ]
    [ "${lines[6]}" = "0x33	wc_array 4 (1 filled by the last poll)" ]
    [ "${lines[7]}" = "0	timed out after 0 ms: 0 of 4 completions" ]
    [ "${lines[8]}" = "bad argument #2 to 'wait' (n = 5 is more than the wc_array's 4 entries)" ]
    [ "${lines[9]}" = "0	timed out after 0 ms: 0 of 1 completions" ]
    [ "${lines[10]}" = "bad argument #2 to 'wait' (timeout_ms: -1 is negative)" ]
    [ "${lines[11]}" = "bad argument #3 to 'wait' (timeout_ms: integer expected, got string)" ]
    [ "${lines[12]}" = "bad argument #2 to 'wait' (n: integer expected, got a fraction)" ]
    [ "${lines[13]}" = "bad argument #1 to 'poll' (max: 1048577 is out of range (0..1048576))" ]
    # wait's n: up to 1 << 20 as poll's max, one more refused
    [ "${lines[14]}" = "timed out after 0 ms: 0 of 1048576 completions" ]
    [ "${lines[15]}" = "bad argument #1 to 'wait' (n: 1048577 is out of range (0..1048576))" ]
    [ "${#lines[@]}" -eq 16 ]
}

@test "fake data path: a poll that fails raises ibv_poll_cq with the provider's errno (cq:poll(), cq:poll(wcs), cq:wait before any WC); a wait that already has WCs returns them" {
    FAKEVERBS_POLL_ERR=5 run fvq '
      local function e(f, ...) local ok, x = pcall(f, ...); return ok and "no error" or (x.verb .. " " .. x.errno) end
      local wcs = verbs.wc_array(2)
      print(e(rcq.poll, rcq), e(rcq.poll, rcq, wcs), e(rcq.wait, rcq, 1), e(rcq.wait, rcq, wcs), e(rcq.wait, rcq, wcs, 2, 5))
      qp:post_recv{ { wr_id = 0x41 }, { wr_id = 0x42 } }
      local l, why = rcq:wait(3)
      print(#l, hex(l[1].wr_id), hex(l[2].wr_id), why)
      qp:post_recv{ { wr_id = 0x43 } }
      print(rcq:wait(wcs, 2), hex(wcs[1].wr_id), tostring(wcs))
      qp:post_recv{ { wr_id = 0x44 } }
      l = rcq:poll(5)
      print(#l, hex(l[1].wr_id))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "ibv_poll_cq 5	ibv_poll_cq 5	ibv_poll_cq 5	ibv_poll_cq 5	ibv_poll_cq 5" ]
    # the wait ended by the failed poll says so (not a timeout, none was given)
    [ "${lines[1]}" = "2	0x41	0x42	ibv_poll_cq failed after 2 of 3 completions: EIO (errno 5); those are returned, and the next poll meets the error again" ]
    [ "${lines[2]}" = "1	0x43	wc_array 2 (1 filled by the last poll)" ]
    [ "${lines[3]}" = "1	0x44" ]
}

@test "fake data path: cq:poll(max) returns at most max WCs and leaves the rest in order, 16 without max, over several provider calls of at most 32" {
    run fvq '
      local big = ctx:create_cq(64)
      local q = pd:create_qp{ qp_type = "RC", send_cq = big, recv_cq = big, cap = cap }
      local wrs = {}
      for i = 1, 40 do wrs[i] = { wr_id = 0x100 + i } end
      q:post_recv(wrs)
      local function ids(l) local t = {} for i, w in ipairs(l) do t[i] = hex(w.wr_id) end return #l .. ":" .. table.concat(t, ",") end
      print(ids(big:poll(1)))
      print(ids(big:poll()))
      print(ids(big:poll(2)))
      print(#big:poll(40), #big:poll(1))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "1:0x101" ]
    [ "${lines[1]}" = "16:0x102,0x103,0x104,0x105,0x106,0x107,0x108,0x109,0x10a,0x10b,0x10c,0x10d,0x10e,0x10f,0x110,0x111" ]
    [ "${lines[2]}" = "2:0x112,0x113" ]
    [ "${lines[3]}" = "21	0" ]
}

@test "fake data path: cq:req_notify hands down solicited_only 0 for nothing, nil, false and 0, and 1 for true and 1; 2 is refused" {
    run fvsh '
      rcq:req_notify(); rcq:req_notify(nil); rcq:req_notify(false); rcq:req_notify(0)
      scq:req_notify(true); scq:req_notify(1)
      print(perr(rcq.req_notify, rcq, 2))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    local i
    for i in 0 1 2 3; do [ "${lines[$i]}" = "fakeverbs: req_notify_cq cqe 32 solicited_only 0" ]; done
    for i in 4 5; do [ "${lines[$i]}" = "fakeverbs: req_notify_cq cqe 16 solicited_only 1" ]; done
    [ "${lines[6]}" = "bad argument #1 to 'req_notify' (solicited_only (boolean, or C's 0 or 1): 2 is out of range (0..1))" ]
    [ "${#lines[@]}" -eq 7 ]
}

@test "fake data path: channel:get_cq_event returns the CQ whose armed completion came (cq.channel is its channel), nil after the timeout; cq:ack_events and destroy ack what was received; the provider's failure and a CQ verbsh never made are errors" {
    run fvsh '
      local ch = ctx:create_comp_channel()
      local a, b = ctx:create_cq(8, { channel = ch }), ctx:create_cq(24, { channel = ch })
      local q = pd:create_qp{ qp_type = "RC", send_cq = a, recv_cq = b, cap = cap }
      print(rawequal(a.channel, ch), rawequal(b.channel, ch), scq.channel, ch:get_cq_event(0))
      b:req_notify()
      q:post_recv{ wr_id = 1 }
      print(rawequal(ch:get_cq_event(100), b), ch:get_cq_event(0))
      a:req_notify(); b:req_notify()
      q:post_send{ wr_id = 2, opcode = "SEND" }
      q:post_recv{ wr_id = 3 }
      print(rawequal(ch:get_cq_event(100), a), rawequal(ch:get_cq_event(100), b))
      print(perr(b.ack_events, b, 3))
      b:ack_events(2)
      print(perr(b.ack_events, b, 1))
      q:destroy()
      a:destroy()
      print("destroyed")' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "true	true	nil	nil" ]
    [ "${lines[3]}" = "true	nil" ]
    [ "${lines[8]}" = "true	true" ]
    [ "${lines[9]}" = "bad argument #1 to 'ack_events' (3 events to ack, but only 2 were received and not acked)" ]
    [ "${lines[10]}" = "fakeverbs: ack_cq_events cqe 24 n 2" ]
    [ "${lines[11]}" = "bad argument #1 to 'ack_events' (1 events to ack, but only 0 were received and not acked)" ]
    [ "${lines[12]}" = "fakeverbs: ack_cq_events cqe 8 n 1" ]
    [ "${lines[13]}" = "destroyed" ]
    FAKEVERBS_CQ_EVENT_ERRNO=11 run fvq '
      local ch = ctx:create_comp_channel()
      local c = ctx:create_cq(8, { channel = ch })
      c:req_notify()
      pd:create_qp{ qp_type = "RC", send_cq = c, recv_cq = c, cap = cap }:post_recv{ wr_id = 1 }
      local ok, e = pcall(ch.get_cq_event, ch, 100)
      print(ok, e.verb, e.errno, rawequal(e.object, ch))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "false	ibv_get_cq_event	11	true" ]
    FAKEVERBS_CQ_EVENT_STRANGER=1 run fvsh '
      local ch = ctx:create_comp_channel()
      local c = ctx:create_cq(8, { channel = ch })
      c:req_notify()
      pd:create_qp{ qp_type = "RC", send_cq = c, recv_cq = c, cap = cap }:post_recv{ wr_id = 1 }
      print(perr(ch.get_cq_event, ch, 100))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[2]}" = "fakeverbs: ack_cq_events cqe 999 n 1" ]
    [ "${lines[3]}" = "get_cq_event: event for an unknown CQ" ]
}

@test "fake data path: completions a lesson check held (the registry's verbsh.cq_held[cq]) come first from cq:poll and cq:wait, at most as many as asked, the rest kept in order" {
    run fvq '
      local held = {}
      debug.getregistry()["verbsh.cq_held"] = held
      held[rcq] = { "h1", "h2", "h3", "h4" }
      qp:post_recv{ { wr_id = 0x91 } }
      local function ids(l) local t = {} for i, w in ipairs(l) do t[i] = type(w) == "string" and w or hex(w.wr_id) end return table.concat(t, ",") end
      local function keys(t) local n = 0 for _ in pairs(t) do n = n + 1 end return n end
      print(ids(rcq:poll(1)), keys(held[rcq]), table.concat(held[rcq], ","))
      print(ids(rcq:wait(2)), keys(held[rcq]), table.concat(held[rcq], ","))
      print(ids(rcq:poll(3)), keys(held[rcq]))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "h1	3	h2,h3,h4" ]
    [ "${lines[1]}" = "h2,h3	1	h4" ]
    [ "${lines[2]}" = "h4,0x91	0" ]
}

@test "fake data path: pd:reg_mr gives the provider's lkey, rkey and handle, the length and access asked; mr:write, mr:fill and mr:read reach the MR's bytes up to its end and not one byte further" {
    run fvq '
      local m = pd:reg_mr("ab\0cd", { "LOCAL_WRITE", "REMOTE_READ" })
      print(hex(m.lkey), hex(m.rkey), m.handle, m.length, table.concat(m.access, "|"), m.addr % 4096, m:read() == "ab\0cd")
      print(hex(mr.lkey), hex(mr.rkey), mr.handle, mr.length, table.concat(mr.access, "|"))
      mr:write(4090, "uvwxyz")
      mr:fill(0x41, 2, 3)
      mr:fill(0x42, 4095)
      print((mr:read(0, 6):gsub("%z", ".")), mr:read(4090), select("#", mr:read(4096)), mr:read(4096) == "", #mr:read())
      print(perr(mr.write, mr, 4091, "uvwxyz"))
      print(perr(mr.write, mr, 0, "x", 5))
      print(perr(mr.write, mr, 0, 5))
      print(perr(mr.read, mr, 4097))
      print(perr(mr.read, mr, 4000, 97))
      print(perr(mr.fill, mr, 256))
      print(perr(pd.reg_mr, pd, true))
      print(perr(pd.reg_mr, pd, -1, "BOGUS"))
      print(perr(pd.reg_mr, pd, (1 << 40) + 1))
      local z = pd:reg_mr(0)
      print(z.length, z:read() == "", #z:read(0, 0))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "0x1235	0x5679	1	5	LOCAL_WRITE|REMOTE_READ	0	true" ]
    [ "${lines[1]}" = "0x1234	0x5678	0	4096	LOCAL_WRITE" ]
    [ "${lines[2]}" = "..AAA.	uvwxyB	1	true	4096" ]
    [ "${lines[3]}" = "bad argument #2 to 'write' (6 bytes at offset 4091 are beyond the MR's 4096 bytes)" ]
    [ "${lines[4]}" = "bad argument #3 to 'write' (mr:write(off, str) takes at most 2 arguments, got 3 (the first extra one: a number))" ]
    [ "${lines[5]}" = "bad argument #2 to 'write' (string expected, got number)" ]
    [ "${lines[6]}" = "bad argument #1 to 'read' (offset: 4097 is out of range (0..4096))" ]
    [ "${lines[7]}" = "bad argument #2 to 'read' (offset 4000 + length 97 is beyond the MR's 4096 bytes)" ]
    [ "${lines[8]}" = "bad argument #1 to 'fill' (byte: 256 is out of range (0..255))" ]
    [ "${lines[9]}" = "bad argument #1 to 'reg_mr' (length (integer) or initial contents (string) expected, got boolean)" ]
    [ "${lines[10]}" = "bad argument #1 to 'reg_mr' (length: -1 is out of range (0..1099511627776))" ]
    [ "${lines[11]}" = "bad argument #1 to 'reg_mr' (length: 1099511627777 is out of range (0..1099511627776))" ]
    [ "${lines[12]}" = "0	true	0" ]
}

@test "fake data path: srq:modify hands down max_wr and srq_limit with the mask of the keys given (or the mask given); max_sge and an empty table are refused; a refusal gives the mask and attr; srq:query the provider's values; an SRQ in use by a QP is not destroyed" {
    run fvsh '
      local srq = pd:create_srq{ max_wr = 16, max_sge = 2, srq_limit = 3 }
      srq:modify{ max_wr = 0x20, srq_limit = 0x11 }
      srq:modify({ srq_limit = 5, max_wr = 0x30 }, "LIMIT")
      local q = srq:query()
      print(q.max_wr, q.max_sge, q.srq_limit, tostring(srq))
      print(perr(srq.modify, srq, { max_sge = 3 }))
      print(perr(srq.modify, srq, {}))
      local ok, e = pcall(srq.modify, srq, { srq_limit = 0xdead })
      print(ok, e.verb, e.errno, table.concat(e.context.mask, "|"), hex(e.context.attr.srq_limit), e.object == srq)
      local q2 = pd:create_qp{ qp_type = "RC", send_cq = scq, recv_cq = rcq, srq = srq }
      print(perr(srq.destroy, srq))
      print(perr(srq.query, srq, 1))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fakeverbs: modify_srq max_wr 32 max_sge 0 srq_limit 17 mask 0x3" ]
    [ "${lines[1]}" = "fakeverbs: modify_srq max_wr 48 max_sge 0 srq_limit 5 mask 0x2" ]
    [ "${lines[2]}" = "499	7	5	srq max_wr 499 max_sge 7 srq_limit 5" ]
    [ "${lines[3]}" = "bad argument #1 to 'modify' (key 'max_sge' is fixed when the SRQ is created (pd:create_srq); ibv_modify_srq changes only max_wr and srq_limit)" ]
    [ "${lines[4]}" = "bad argument #1 to 'modify' (no attributes: ibv_modify_srq with attr_mask 0 changes nothing; give max_wr or srq_limit)" ]
    [ "${lines[5]}" = "fakeverbs: modify_srq max_wr 0 max_sge 0 srq_limit 57005 mask 0x2" ]
    [ "${lines[6]}" = "false	ibv_modify_srq	22	LIMIT	0xdead	true" ]   # the error's object is the SRQ
    [ "${lines[7]}" = "destroy: srq1 is still used by 1 object: qp3 (qp RC 0x000113 RESET); destroy it first" ]
    [ "${lines[8]}" = "bad argument #1 to 'query' (srq:query() takes no arguments, got 1 (the first: a number))" ]
    [ "${#lines[@]}" -eq 9 ]
}

@test "fake data path: a UC QP takes SEND, SEND_WITH_IMM and RDMA_WRITE, and refuses RDMA_READ and both atomics naming the opcode; an RC QP refuses ud, and rdma or atomic with an opcode that does not use it" {
    run fvq '
      local uc = pd:create_qp{ qp_type = "UC", send_cq = scq, recv_cq = rcq, cap = cap }
      local r = { remote_addr = 0x1000, rkey = 1 }
      local a = { remote_addr = 0x1000, rkey = 1, compare_add = 1, swap = 2 }
      for _, wr in ipairs{ { opcode = "SEND" }, { opcode = "SEND_WITH_IMM", imm_data = 1 }, { opcode = "RDMA_WRITE", rdma = r },
                           { opcode = "RDMA_READ", rdma = r }, { opcode = "ATOMIC_CMP_AND_SWP", atomic = a },
                           { opcode = "ATOMIC_FETCH_AND_ADD", atomic = a } } do
        print(wr.opcode, (perr(uc.post_send, uc, wr):match("^[^:]*")))
      end
      print(perr(qp.post_send, qp, { opcode = "SEND", ud = { remote_qpn = 1 } }))
      print(perr(qp.post_send, qp, { opcode = "SEND", rdma = r }))
      print(perr(qp.post_send, qp, { { opcode = "SEND" }, { opcode = "RDMA_READ", atomic = a } }))
      print(#scq:poll())'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "SEND	no error" ]
    [ "${lines[1]}" = "SEND_WITH_IMM	no error" ]
    [ "${lines[2]}" = "RDMA_WRITE	no error" ]
    [ "${lines[3]}" = "RDMA_READ	bad argument #1 to 'post_send' (opcode RDMA_READ on a UC QP" ]
    [ "${lines[4]}" = "ATOMIC_CMP_AND_SWP	bad argument #1 to 'post_send' (opcode ATOMIC_CMP_AND_SWP on a UC QP" ]
    [ "${lines[5]}" = "ATOMIC_FETCH_AND_ADD	bad argument #1 to 'post_send' (opcode ATOMIC_FETCH_AND_ADD on a UC QP" ]
    [ "${lines[6]}" = "bad argument #1 to 'post_send' (key 'ud' on this RC QP: only a UD QP's sends are addressed per WR (ud.ah, ud.remote_qpn); a connected QP sends to the peer of its RTR (dest_qp_num, ah_attr). Remove ud)" ]
    [ "${lines[7]}" = "bad argument #1 to 'post_send' (key 'rdma' with opcode SEND, which does not use it: rdma = { remote_addr =, rkey = } goes with RDMA_WRITE, RDMA_WRITE_WITH_IMM and RDMA_READ)" ]
    [ "${lines[8]}" = "bad argument #1 to 'post_send' ([2].key 'atomic' with opcode RDMA_READ, which does not use it: atomic = { remote_addr =, compare_add =, swap =, rkey = } goes with ATOMIC_CMP_AND_SWP and ATOMIC_FETCH_AND_ADD)" ]
    [ "${lines[9]}" = "3" ]
}

@test "fake data path: an sg_list is a list: a key 0, a key past its end or a string key is refused naming it, before anything is posted" {
    run fvq '
      local s = { addr = 0x1000, length = 1, lkey = 2 }
      print(perr(qp.post_recv, qp, { sg_list = { [0] = s, s } }))
      print(perr(qp.post_recv, qp, { sg_list = { s, [3] = s } }))
      print(perr(qp.post_send, qp, { opcode = "SEND", sg_list = { s, x = s } }))
      print(perr(verbs.recv_wr, { sg_list = { [-1] = s } }))
      print(#rcq:poll(), #scq:poll())'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "bad argument #1 to 'post_recv' (key 'sg_list': sg_list: unexpected key '0' (a list of SGEs))" ]
    [ "${lines[1]}" = "bad argument #1 to 'post_recv' (key 'sg_list': sg_list: unexpected key '3' (a list of SGEs))" ]
    [ "${lines[2]}" = "bad argument #1 to 'post_send' (key 'sg_list': sg_list: unexpected key 'x' (a list of SGEs))" ]
    [ "${lines[3]}" = "bad argument #1 to 'verbs.recv_wr' (key 'sg_list': sg_list: unexpected key '-1' (a list of SGEs))" ]
    [ "${lines[4]}" = "0	0" ]
}

@test "fake data path: a prepared WR that names an MR of another device's context is refused when posted, naming the key (with [i]. only in a chain), both objects and their contexts" {
    FAKEVERBS_DEVICES=2 run fvq '
      local c1 = verbs.open("fake1")
      local other = c1:alloc_pd():reg_mr(64)
      local one = verbs.send_wr{ opcode = "SEND", sg_list = { { mr = mr }, { mr = other } } }
      local chain = verbs.send_wr{ { opcode = "SEND" }, { opcode = "SEND", sg_list = { { mr = other, offset = 8 } } } }
      print(perr(qp.post_send, qp, one))
      print(perr(qp.post_send, qp, chain))
      print(perr(qp.post_send, qp, { opcode = "SEND", sg_list = { { mr = other } } }))
      print(#scq:poll())'
    echo "$output"
    [ "$status" -eq 0 ]
    local why=": the device looks a posted WR's lkeys and AH up in the context of the qp it is posted to, where they name nothing or another object: the WR would complete in error, its QP going to ERR; use a mr of ctx1)"
    [ "${lines[0]}" = "bad argument #1 to 'post_send' (key 'sg_list[2].mr': mr2 belongs to ctx2, but qp1 belongs to ctx1$why" ]
    [ "${lines[1]}" = "bad argument #1 to 'post_send' (key '[2].sg_list[1].mr': mr2 belongs to ctx2, but qp1 belongs to ctx1$why" ]
    [ "${lines[2]}" = "bad argument #1 to 'post_send' (key 'sg_list[1].mr': mr2 belongs to ctx2, but qp1 belongs to ctx1$why" ]
    [ "${lines[3]}" = "0" ]
}

@test "fake data path: a polled WC is read-only and knows its fields: a name far from any lists them all, a near one is suggested; its pairs step ends with one nil; ctx:init_ah_from_wc takes it (and no other userdata)" {
    run fvsh '
      qp:post_recv{ wr_id = 0x0001000000000077 }
      local wc = rcq:poll()[1]
      print(perr(function() return wc.zzzzzzzzzzzz end))
      print(perr(function() return wc.statsu end))
      print(perr(function() wc.status = "SUCCESS" end))
      local step = getmetatable(wc).__pairs(wc)
      print(select("#", step(wc, "dlid_path_bits")), step(wc, "dlid_path_bits"), step(wc, "sl"))
      local a = ctx:init_ah_from_wc(1, wc, ("\0"):rep(40))
      print(a.dlid, a.sl, a.port_num)
      print(perr(ctx.init_ah_from_wc, ctx, 1, pd, ("\0"):rep(40)))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[1]}" = "struct ibv_wc has no field 'zzzzzzzzzzzz' (its fields: wr_id, status, vendor_err, qp_num, opcode, byte_len, imm_data, invalidated_rkey, src_qp, wc_flags, pkey_index, slid, sl, dlid_path_bits)" ]
    [ "${lines[2]}" = "struct ibv_wc has no field 'statsu' (did you mean 'status'?)" ]
    [ "${lines[3]}" = "wc.status: a WC holds what the CQ reported and is not assigned (copy the fields you want into a table of your own)" ]
    [ "${lines[4]}" = "1	nil	dlid_path_bits	62" ]
    [ "${lines[5]}" = "fakeverbs: init_ah_from_wc port 1 wr_id 281474976710775 wc_flags 0x1 imm_data bytes 5e 6f 70 81 src_qp 0x0 slid 17767 sl 9 grh 0x00..0x00" ]
    [ "${lines[6]}" = "17767	9	1" ]
    [ "${lines[7]}" = "bad argument #2 to 'init_ah_from_wc' (ibv_wc (a completion from cq:poll) or table expected, got verbs.pd)" ]
}

@test "fake data path: a WR C would post with zeros is posted so, with a warning naming the WR and the opcode (rdma, atomic, invalidate_rkey missing); verbs.warnings(false) silences it, verbs.strict(true) refuses it" {
    run fvsh '
      qp:post_send{ wr_id = 1, opcode = "RDMA_WRITE" }
      qp:post_send{ { wr_id = 2, opcode = "SEND" }, { wr_id = 3, opcode = "ATOMIC_FETCH_AND_ADD", sg_list = { { mr = mr, length = 8 } } } }
      qp:post_send{ wr_id = 4, opcode = "LOCAL_INV" }
      verbs.warnings(false)
      qp:post_send{ wr_id = 5, opcode = "RDMA_READ" }
      verbs.strict(true)
      print(perr(qp.post_send, qp, { wr_id = 6, opcode = "SEND_WITH_INV" }))
      print(#scq:poll())' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    local tail=" (verbs.strict(true) makes this an error, verbs.warnings(false) silences it)"
    local at=$(($(printf '%s' "$SETUP" | wc -l) + 2))   # the chunk's line of the first post
    [ "${lines[0]}" = "verbsh warning: (command line):$at: RDMA_WRITE without rdma: remote_addr 0, rkey 0, as C would post it (rdma = { remote_addr = mr_b.addr, rkey = mr_b.rkey } names the remote buffer)$tail" ]
    [ "${lines[1]}" = "fakeverbs: post_send qp 0x111 wr_id 0x1 opcode 0 send_flags 0x0 imm_data bytes 00 00 00 00 num_sge 0 rdma remote_addr 0x0 rkey 0x0" ]
    [ "${lines[2]}" = "verbsh warning: (command line):$((at + 1)): [2].ATOMIC_FETCH_AND_ADD without atomic: remote_addr 0, rkey 0, as C would post it (atomic = { remote_addr =, rkey =, compare_add =, swap = })$tail" ]
    [ "${lines[5]}" = "verbsh warning: (command line):$((at + 2)): LOCAL_INV without invalidate_rkey: rkey 0, as C would post it (invalidate_rkey = the window's rkey names what to revoke)$tail" ]
    [ "${lines[6]}" = "fakeverbs: post_send qp 0x111 wr_id 0x4 opcode 7 send_flags 0x0 imm_data bytes 00 00 00 00 num_sge 0 invalidate_rkey 0x0" ]
    [ "${lines[7]}" = "fakeverbs: post_send qp 0x111 wr_id 0x5 opcode 4 send_flags 0x0 imm_data bytes 00 00 00 00 num_sge 0 rdma remote_addr 0x0 rkey 0x0" ]
    [ "${lines[8]}" = "bad argument #1 to 'post_send' (SEND_WITH_INV without invalidate_rkey: rkey 0, as C would post it (invalidate_rkey = the window's rkey names what to revoke) (an error under verbs.strict(true)))" ]
    [ "${lines[9]}" = "5" ]
    [ "${#lines[@]}" -eq 10 ]
}

@test "fake data path: a completion status or opcode no name has is its number (99), and its vendor_err is still given" {
    run fvq '
      qp:post_recv{ wr_id = 0x6300000000000001 }
      local wc = rcq:poll()[1]
      print(wc.status, math.type(wc.status), hex(wc.vendor_err), wc.opcode, hex(wc.qp_num))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "99	integer	0x1d2	nil	0x111" ]
}

@test "fake data path: a post takes the SGEs its WRs name, as C hands them to the provider: 64 in one WR (the stack's room), 65, 16 WRs of 5 (80) and 17 WRs of 16; an SGE's offset without mr, and a list entry that is no table, are refused naming them" {
    run fvq '
      local function sges(n) local l = {} for i = 1, n do l[i] = { addr = 0x1000 + i, length = i, lkey = 7 } end return l end
      qp:post_recv{ wr_id = 1, sg_list = sges(64) }
      local w = rcq:poll()[1]
      print(w.byte_len, hex(w.wr_id))
      local list = {}
      for i = 1, 17 do list[i] = { wr_id = 0x100 + i, sg_list = sges(16) } end
      qp:post_recv(list)
      local got = rcq:poll(20)
      print(#got, hex(got[1].wr_id), hex(got[17].wr_id), got[17].byte_len)
      qp:post_recv{ wr_id = 2, sg_list = sges(65) }
      w = rcq:poll()[1]
      print(w.byte_len, hex(w.wr_id))
      list = {}
      for i = 1, 16 do list[i] = { wr_id = 0x200 + i, sg_list = sges(5) } end
      qp:post_recv(list)
      got = rcq:poll(20)
      print(#got, hex(got[1].wr_id), hex(got[16].wr_id), got[16].byte_len)
      print(perr(qp.post_send, qp, { opcode = "SEND", sg_list = { { addr = 1, length = 2, lkey = 3, offset = 4 } } }))
      print(perr(qp.post_send, qp, { { opcode = "SEND" }, 5 }))
      print(#rcq:poll(), #scq:poll())'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "2080	0x1" ]
    [ "${lines[1]}" = "17	0x101	0x111	136" ]
    # (the stand-in completes a receive with the sum of its SGEs' lengths: 1 + ... + 65, 1 + ... + 5)
    [ "${lines[2]}" = "2145	0x2" ]
    [ "${lines[3]}" = "16	0x201	0x210	15" ]
    [ "${lines[4]}" = "bad argument #1 to 'post_send' (key 'sg_list': sg_list[1]: offset= goes with mr=)" ]
    [ "${lines[5]}" = "bad argument #1 to 'post_send' (WR #2: table expected, got number)" ]
    [ "${lines[6]}" = "0	0" ]
}

@test "fake data path: a UD send with an AH of another device's context is refused naming ud.ah, both objects and their contexts" {
    FAKEVERBS_DEVICES=2 run fvq '
      local ah = verbs.open("fake1"):alloc_pd():create_ah{ dlid = 1, port_num = 1 }
      print(perr(ud.post_send, ud, { { opcode = "SEND", ud = { ah = pd:create_ah{ dlid = 2, port_num = 1 } } }, { opcode = "SEND", ud = { ah = ah } } }))
      print(#scq:poll())'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "bad argument #1 to 'post_send' (key '[2].ud.ah': ah1 belongs to ctx2, but qp2 belongs to ctx1: the device looks a posted WR's lkeys and AH up in the context of the qp it is posted to, where they name nothing or another object: the WR would complete in error, its QP going to ERR; use a ah of ctx1)" ]
    [ "${lines[1]}" = "0" ]
}

@test "fake data path: ctx:create_cq takes cqe up to 0x7fffffff and comp_vector 0..1024; one more, -1, a table for cqe and C's channel and comp_vector as arguments are refused, each naming its argument" {
    run fvq '
      local ch = ctx:create_comp_channel()
      print(ctx:create_cq(8, { comp_vector = 1024 }).cqe, ctx:create_cq(0x7fffffff).cqe, ctx:create_cq(0, { channel = ch, comp_vector = 0 }).cqe)
      print(perr(ctx.create_cq, ctx, 8, { comp_vector = 1025 }))
      print(perr(ctx.create_cq, ctx, 8, { comp_vector = -1 }))
      print(perr(ctx.create_cq, ctx, 8, ch))
      print(perr(ctx.create_cq, ctx, 8, nil, ch, 0))
      print(perr(ctx.create_cq, ctx, { cqe = 4 }))
      print(perr(ctx.create_cq, ctx, 0x80000000))
      print(perr(ctx.create_cq, ctx, 8, { channel = 5 }))'
    echo "$output"
    [ "$status" -eq 0 ]
    local how="the channel and comp_vector are keys of a table in verbsh: ctx:create_cq(cqe [, { channel = ch, comp_vector = 0 }]), e.g. ctx:create_cq(16, { channel = ch })"
    [ "${lines[0]}" = "8	2147483647	0" ]
    [ "${lines[1]}" = "bad argument #2 to 'create_cq' (key 'comp_vector': 1025 is out of range (0..1024))" ]
    [ "${lines[2]}" = "bad argument #2 to 'create_cq' (key 'comp_vector': -1 is out of range (0..1024))" ]
    [ "${lines[3]}" = "bad argument #2 to 'create_cq' (table expected, got verbs.comp_channel: $how)" ]
    [ "${lines[4]}" = "bad argument #3 to 'create_cq' (more than 2 arguments: $how)" ]
    [ "${lines[5]}" = "bad argument #1 to 'create_cq' (cqe: integer expected, got table: in verbsh it is ctx:create_cq(cqe [, { channel = ch, comp_vector = 0 }]), e.g. ctx:create_cq(16, { channel = ch }))" ]
    [ "${lines[6]}" = "bad argument #1 to 'create_cq' (cqe: 2147483648 is out of range (0..2147483647))" ]
    [ "${lines[7]}" = "bad argument #2 to 'create_cq' (key 'channel': verbs.comp_channel expected, got number)" ]
}

@test "fake data path: without verbs.explain's line a WC still prints its wr_id, status (? for a number no name has) and qp_num" {
    run fvq '
      package.loaded["verbs.explain"] = {}
      qp:post_recv{ { wr_id = 0x1234 }, { wr_id = 0x0500000000000003 }, { wr_id = 0x6300000000000004 } }
      for _, wc in ipairs(rcq:poll()) do print(tostring(wc)) end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "wc wr_id=4660 SUCCESS qp_num=0x000111" ]
    [ "${lines[1]}" = "wc wr_id=360287970189639683 WR_FLUSH_ERR qp_num=0x000111" ]
    [ "${lines[2]}" = "wc wr_id=7133701809754865668 ? qp_num=0x000111" ]
}

@test "fake data path: the trace of a refused post shows C's return with its errno name: 22 /* EINVAL */, a negative errno -22 /* -EINVAL */" {
    for r in 22 -22; do
        FAKEVERBS_POST_RET=$r run fvsh '
          local c = verbs.open("fake0"); local pd, cq = c:alloc_pd(), c:create_cq(4)
          local qp = pd:create_qp{ send_cq = cq, recv_cq = cq, qp_type = "RC", cap = { max_send_wr = 2, max_recv_wr = 2 } }
          verbs.trace(true)
          pcall(qp.post_send, qp, { wr_id = 0xbad, opcode = "SEND" })
          verbs.trace(false)' 2>&1
        echo "$output"
        [ "$status" -eq 0 ]
        want="ibv_post_send(qpN, wr1, &bad_wr1) = $r /* ${r%%[0-9]*}EINVAL */"   # (the sign of r, or none)
        [ "$(grep -c '^ibv_post_send' <<<"$output")" -eq 1 ]
        [ "$(grep '^ibv_post_send' <<<"$output" | sed 's/(qp[0-9]*,/(qpN,/')" = "$want" ]
        # (the declarations the call needs come first, each once, in order)
        [ "$(grep -v '^fakeverbs\|^ibv_post_send' <<<"$output")" = "struct ibv_send_wr wr1[1] = {
	{ .sg_list = NULL, .num_sge = 0, .wr_id = 2989, .opcode = IBV_WR_SEND },
};
struct ibv_send_wr *bad_wr1 = NULL;" ]
    done
}

@test "fake data path: a refused post whose provider left bad_wr unset names the first WR (#1 and its table), C's bad_wr being no WR of the list" {
    run fvsh "$ERR"'
      local list = { { wr_id = 0x31, opcode = "SEND" }, { wr_id = 0xbad0, opcode = "SEND" } }
      local ok, e = pcall(qp.post_send, qp, list)
      print(err(ok, e), rawequal(e.context.wr, list[1]))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "fakeverbs: post_send qp 0x111 wr_id 0x31 opcode 2 send_flags 0x0 imm_data bytes 00 00 00 00 num_sge 0" ]
    [ "${lines[1]}" = "ibv_post_send 22 nil 1 0x31 RC RESET 8,9,2,3,0	true" ]
    [ "${#lines[@]}" -eq 2 ]
}
