#!/usr/bin/env bats
# verbsh --export-c on rxe: each scenario of tests/export/ runs under the
# recorder, its C program is compiled by gcc with -Wall -Wextra -Werror (and
# read by clang with the same warnings) and run, and must print "reproduced". A changed value in a program
# (a completion's status, a byte read back) makes it print the difference.
load ../helpers

setup() { require_device; cd "$ROOT"; }

# export_run NAME: exports tests/export/NAME.lua, compiles it and runs it.
export_run() {
    local c=$BATS_TEST_TMPDIR/$1.c
    run "$VERBSH" --export-c "$c" "tests/export/$1.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"verb calls exported to $c; cc -Wall -Wextra -Werror $c -libverbs -lrdmacm && ./a.out"* ]]
    [[ $output != *"left out"* ]]
    # gcc builds the program; clang, beside it, only reads it for its own
    # warnings (-fsyntax-only: under TCG a whole clang build took twice
    # gcc's time, and the program does not depend on the compiler). The
    # program does not depend on the binary that recorded it either: the
    # ASan build's run (VERBSH_TEST_FULL=1) is compiled by gcc alone.
    local pids=()
    gcc -Wall -Wextra -Werror "$c" -libverbs -lrdmacm -o "$c.gcc" >"$c.gcc.log" 2>&1 &
    pids+=($!)
    if [[ $VERBSH != *asan* ]]; then
        clang -fsyntax-only -Wall -Wextra -Werror "$c" >"$c.clang.log" 2>&1 &
        pids+=($!)
    fi
    wait "${pids[@]}" || true   # these alone: bats runs a timeout watcher in the background too
    echo "gcc: $(cat "$c.gcc.log")"
    [ -x "$c.gcc" ]
    [ ! -s "$c.gcc.log" ]
    if [[ $VERBSH != *asan* ]]; then
        echo "clang: $(cat "$c.clang.log")"
        [ ! -s "$c.clang.log" ]
    fi
    run "$c.gcc"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = reproduced ]
}

@test "export: multicast (attach, detach, rdma_join_multicast, a SEND to the group, leave) reproduces" {
    export_run mcast
    local c=$BATS_TEST_TMPDIR/mcast.c
    grep -q 'ibv_attach_mcast(qp1, &gid1, 0)' "$c"
    grep -q 'rdma_join_multicast(cm_id1, sockaddr_of(&addr[0-9]*, "239.1.2.7"), (void \*)(uintptr_t)0x77)' "$c"
    grep -q 'rdma_leave_multicast(cm_id1' "$c"
}
@test "export: the short path (rdma_getaddrinfo, rdma_create_ep, rdma_get_request, rdma_reg_*, rdma_post_recv(v)) reproduces" {
    export_run cm_ep
    local c=$BATS_TEST_TMPDIR/cm_ep.c
    grep -q '#include <rdma/rdma_verbs.h>' "$c"
    grep -q 'rdma_getaddrinfo(NULL, "7495", &hints1, &addrinfo1)' "$c"
    grep -q 'rdma_create_ep(&cm_id1, addrinfo1, NULL, &init_attr1)' "$c"
    grep -q 'rdma_get_request(cm_id1, &cm_id3)' "$c"
    grep -q 'rdma_post_recvv(cm_id3, (void \*)(uintptr_t)0x1002, sge1, 2)' "$c"
    grep -q 'rdma_destroy_ep(cm_id1);' "$c"
}
@test "export: SEND/RECV reproduces (gcc builds it, clang checks it)" { export_run send_recv; }
@test "export: SEND_WITH_IMM reproduces" { export_run send_imm; }
@test "export: RDMA WRITE reproduces" { export_run write; }
@test "export: RDMA READ reproduces" { export_run read; }
@test "export: FETCH_ADD and COMPARE_SWAP reproduce" { export_run atomics; }
@test "export: REM_ACCESS_ERR reproduces" { export_run rem_access; }
@test "export: a remote address no MR covers is written as the number it was, and REM_ACCESS_ERR reproduces" { export_run rem_addr; }
@test "export: RNR_RETRY_EXC_ERR then WR_FLUSH_ERR reproduce" { export_run rnr; }
@test "export: UD with a GRH, and a reply through an AH made from the receive's WC and GRH, reproduce" {
    export_run ud_grh
    local c=$BATS_TEST_TMPDIR/ud_grh.c
    grep -q '.qp_num = qp2->qp_num, .opcode = IBV_WC_RECV, .byte_len = 49, .src_qp = qp1->qp_num, .wc_flags = IBV_WC_GRH' "$c"
    grep -q 'ibv_init_ah_from_wc(ctx1, 1, &wc1, (struct ibv_grh \*)((char \*)mr1->addr + 1024), &ah_attr2)' "$c"
    grep -q 'struct ibv_ah \*ah2 = ibv_create_ah_from_wc(pd1, &wc2, (struct ibv_grh \*)((char \*)mr1->addr + 1024), 1);' "$c"
    # the AH attributes init_ah_from_wc filled are compared too: global, port 1,
    # and the GID index the GRH's destination GID has (the only one it was sent to)
    grep -q 'expect_int("ah_attr.is_global", 1, ah_attr2.is_global);' "$c"
    grep -q 'expect_int("ah_attr.port_num", 1, ah_attr2.port_num);' "$c"
    grep -q "expect_int(\"ah_attr.grh.sgid_index\", $RXE_GID_INDEX, ah_attr2.grh.sgid_index);" "$c"
}
@test "export: an SRQ and its SRQ_LIMIT_REACHED async event reproduce" {
    export_run srq
    local c=$BATS_TEST_TMPDIR/srq.c
    grep -q 'get_async_event(ctx1, IBV_EVENT_SRQ_LIMIT_REACHED, srq1, 0, "ctx1:get_async_event");' "$c"
    # another event type recorded: the program names both
    sed 's/get_async_event(ctx1, IBV_EVENT_SRQ_LIMIT_REACHED/get_async_event(ctx1, IBV_EVENT_SRQ_ERR/' "$c" >"$c.other.c"
    gcc -Wall -Wextra -Werror "$c.other.c" -libverbs -lrdmacm -o "$c.other"
    run "$c.other"
    echo "$output"
    [ "$status" -eq 1 ]
    [ "$output" = "first difference: ctx1:get_async_event: recorded SRQ catastrophic error, now SRQ limit reached" ]
}
@test "export: a modify that fails with EINVAL reproduces" { export_run modify_einval; }
@test "export: the extended post-send API (ibv_qp_ex) reproduces" { export_run post_send_ex; }
@test "export: memory windows (alloc_mw, bind_mw, BIND_MW, LOCAL_INV, SEND_WITH_INV, dealloc_mw) reproduce" {
    export_run mw
    grep -q 'ibv_bind_mw(qp2, mw1, &mw_bind1)' "$BATS_TEST_TMPDIR/mw.c"
    grep -q '.rkey = ibv_inc_rkey(mw2->rkey)' "$BATS_TEST_TMPDIR/mw.c"
    grep -q 'mw2->rkey = ibv_inc_rkey(mw2->rkey);' "$BATS_TEST_TMPDIR/mw.c"
    grep -q 'IBV_WC_REM_ACCESS_ERR' "$BATS_TEST_TMPDIR/mw.c"
}
@test "export: memory windows through the extended API (wr_bind_mw, wr_send_inv, wr_local_inv) reproduce" {
    export_run mw_ex
    grep -q 'ibv_wr_bind_mw(qp2_ex, mw1, ibv_inc_rkey(mw1->rkey), &bind_info1);' "$BATS_TEST_TMPDIR/mw_ex.c"
    grep -q 'ibv_wr_local_inv(qp2_ex, ibv_inc_rkey(mw1->rkey));' "$BATS_TEST_TMPDIR/mw_ex.c"
}
@test "export: rdma_cm connect, SEND and disconnect between two ids of one process reproduce; set_option's TOS is RDMA_OPTION_ID_TOS of a uint8_t" {
    export_run cm
    grep -n 'optval' "$BATS_TEST_TMPDIR/cm.c"
    grep -Eq 'uint8_t optval1 = 32;' "$BATS_TEST_TMPDIR/cm.c"
    grep -Eq 'rdma_set_option\(cm_id2, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &optval1, sizeof optval1\)' "$BATS_TEST_TMPDIR/cm.c"
}
@test "export: completion events, the extended CQ and prepared WRs reproduce" { export_run events; }

@test "export: rdma_cm and completion events read like C: event types checked, ids from events, symbolic QP numbers" {
    c=$BATS_TEST_TMPDIR/cm.c
    "$VERBSH" --export-c "$c" tests/export/cm.lua
    cat "$c"
    grep -q '#include <rdma/rdma_cma.h>' "$c"
    grep -q 'expect_int("rdma_create_id", 0, rdma_create_id(cm_channel1, &cm_id1, NULL, RDMA_PS_TCP));' "$c"
    grep -q 'rdma_bind_addr(cm_id1, sockaddr_of(&addr1, "\*:7479"))' "$c"
    grep -q 'struct rdma_cm_event \*cm_event3 = get_cm_event(cm_channel1, 5000, RDMA_CM_EVENT_CONNECT_REQUEST, 0);' "$c"
    grep -q 'struct rdma_cm_id \*cm_id3 = cm_event3->id;' "$c"
    grep -q 'struct ibv_context \*ctx1 = cm_id2->verbs;' "$c"
    grep -q 'struct ibv_qp \*qp2 = cm_id3->qp;' "$c"
    grep -q '.private_data = "hello from client", .private_data_len = 17' "$c"
    # rdma_init_qp_attr, its mask checked
    grep -q 'expect_int("rdma_init_qp_attr", 0, rdma_init_qp_attr(cm_id3, &attr[0-9]*, &mask1));' "$c"
    grep -q 'expect_int("rdma_init_qp_attr mask", IBV_QP_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_PORT, mask1);' "$c"
    # ev:expect() is checked by get_cm_event: no line, not even a comment
    ! grep -q 'expect \*/' "$c"
    sed 's/RDMA_CM_EVENT_ESTABLISHED, 0);/RDMA_CM_EVENT_REJECTED, 0);/' "$c" >"$c.ev.c"
    gcc -Wall -Wextra -Werror "$c.ev.c" -libverbs -lrdmacm -o "$c.ev"
    run "$c.ev"
    echo "$output"
    [ "$status" -eq 1 ]
    [ "$output" = "first difference: rdma_get_cm_event: recorded RDMA_CM_EVENT_REJECTED (status 0), now RDMA_CM_EVENT_ESTABLISHED (status 0)" ]
    e=$BATS_TEST_TMPDIR/ev.c
    "$VERBSH" --export-c "$e" tests/export/events.lua
    grep -q 'get_cq_event(channel1, cq1, "channel1:get_cq_event");' "$e"
    grep -q 'ibv_ack_cq_events(cq1, 1);' "$e"
    grep -q 'poll_ex(cq2_ex, &poll_attr1, "cq2:start_poll");' "$e"
    grep -q 'expect_int("cq2 read_qp_num", qp2->qp_num, ibv_wc_read_qp_num(cq2_ex));' "$e"
    # cq:iter: start_poll, next_poll, and end_poll after the last step or a break
    grep -q 'poll_ex(cq2_ex, &poll_attr2, "cq2:iter step 1");' "$e"
    grep -q 'poll_ex(cq2_ex, NULL, "cq2:iter step 2");' "$e"
    grep -q 'expect_int("cq2:iter step 2 byte_len", 5, ibv_wc_read_byte_len(cq2_ex));' "$e"
    [ "$(grep -c 'ibv_end_poll(cq2_ex);' "$e")" -eq 4 ]   # end_poll, two loops run out, one left by break
    grep -q '.opcode = IBV_WR_SEND_WITH_IMM, .send_flags = IBV_SEND_SIGNALED, .imm_data = htonl(0x1234)' "$e"
}

@test "export: the program reads like C: symbolic values, IBV_* names, the mask spelled out" {
    c=$BATS_TEST_TMPDIR/x.c
    "$VERBSH" --export-c "$c" tests/export/write.lua
    cat "$c"
    grep -q 'struct ibv_context \*ctx1 = open_device("'"$RXE_DEV"'");' "$c"
    grep -q '\.dest_qp_num = qp2->qp_num' "$c"
    grep -q '\.dgid = gid1,' "$c"
    grep -q 'ibv_query_gid(ctx1, 1, '"$RXE_GID_INDEX"', &gid1)' "$c"
    grep -q 'IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_RQ_PSN | IBV_QP_MIN_RNR_TIMER | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_DEST_QPN' "$c"
    grep -q '\.wr.rdma = { .remote_addr = (uintptr_t)mr2->addr + 512, .rkey = mr2->rkey }' "$c"
    grep -q '{ .addr = (uintptr_t)mr1->addr + 100, .length = 16, .lkey = mr1->lkey }' "$c"
    grep -q 'memcpy((char \*)mr1->addr + 100, "written remotely", 16);' "$c"
    grep -q 'expect_bytes("mr2:read(512, 16)", "written remotely", (char \*)mr2->addr + 512, 16);' "$c"
    # the user's literals only: no raw key or address of this run
    ! grep -Eq '0x[0-9a-f]{8,}' "$c"
}

@test "export: a changed status or a changed byte in the program is the first difference, exit 1" {
    c=$BATS_TEST_TMPDIR/rnr.c
    "$VERBSH" --export-c "$c" tests/export/rnr.lua
    sed 's/IBV_WC_RNR_RETRY_EXC_ERR/IBV_WC_RETRY_EXC_ERR/' "$c" >"$c.status.c"
    ! cmp -s "$c" "$c.status.c"
    gcc -Wall -Wextra -Werror "$c.status.c" -libverbs -o "$c.status"
    run "$c.status"
    echo "$output"
    [ "$status" -eq 1 ]
    [ "$output" = "first difference: cq1 completion 1 (wr_id 1) status (now RNR retry counter exceeded): recorded 12, now 13" ]
    d=$BATS_TEST_TMPDIR/send.c
    "$VERBSH" --export-c "$d" tests/export/send_recv.lua
    sed 's/"hello, verbs", (char/"hellO, verbs", (char/' "$d" >"$d.data.c"
    ! cmp -s "$d" "$d.data.c"
    gcc -Wall -Wextra -Werror "$d.data.c" -libverbs -o "$d.data"
    run "$d.data"
    echo "$output"
    [ "$status" -eq 1 ]
    [ "$output" = "first difference: mr2:read(0, 12): byte 4 recorded 0x4f, now 0x6f" ]
}

@test "export: a script that ends in an error is exported up to it; the failed verb is checked too" {
    c=$BATS_TEST_TMPDIR/err.c
    run "$VERBSH" --export-c "$c" -e '
      local ctx = verbs.open(os.getenv("RXE_DEV"))
      local pd = ctx:alloc_pd()
      local cq = ctx:create_cq(4)
      local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
      print(pcall(qp.modify, qp, { qp_stat = "INIT" }))   -- a typo: no verb ran, nothing to export
      qp:modify{ qp_state = "RTS" }'
    echo "$output"
    [ "$status" -eq 1 ]
    [[ $output == *"unknown key 'qp_stat'"* ]]
    [ "$(grep -c 'ibv_modify_qp(' "$c")" -eq 1 ]
    [[ $output == *"ibv_modify_qp failed"* ]]
    [[ $output == *"verb calls exported to $c"* ]]
    grep -Eq 'expect_int\("ibv_modify_qp", 22, ibv_modify_qp\(qp1, &attr[0-9]+, IBV_QP_STATE\)\);' "$c"
    gcc -Wall -Wextra -Werror "$c" -libverbs -o "$c.bin"
    run "$c.bin"
    [ "$output" = reproduced ]
}

@test "export: what cannot be exported yet is named, and verbs.export_c refuses bad input" {
    run "$VERBSH" -e 'print(pcall(verbs.export_c, 42)); print(pcall(verbs.export_c, "/tmp/x.c")); print(pcall(verbs.record, "yes"))'
    echo "$output"
    [[ ${lines[0]} == *"bad argument #1 to 'export_c' (string expected, got number)"* ]]
    [[ ${lines[1]} == *"export_c: nothing recorded: verbs.record(true) before the verbs to export, or run a script with verbsh --export-c OUT.c SCRIPT.lua"* ]]
    [[ ${lines[2]} == *"bad argument #1 to 'record' (boolean expected, got string)"* ]]
    c=$BATS_TEST_TMPDIR/p.c
    run "$VERBSH" --export-c "$c" -e '
      local ctx = verbs.open(os.getenv("RXE_DEV"))
      print(#ctx:gids() > 0)'
    echo "$output"
    [[ $output == *"(1 left out, as comments: ctx1:gids)"* ]]
    grep -q '/\* verbsh: ctx1:gids is not exported \*/' "$c"
}
