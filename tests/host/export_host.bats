#!/usr/bin/env bats
# verbs.export_c without a device: sessions written by hand as the events
# verbs.record notes (tests/export/by_hand.lua), for verbs rxe cannot run
# or outcomes it never gives. Each program's main() must hold, line for
# line, the C call of the man page with the recorded outcome checked, and
# the program must compile with -Wall -Wextra -Werror against the installed
# headers. tests/device/export.bats runs the programs of real sessions.
load ../helpers

# export_main LUA: runs the session LUA (S is tests/export/by_hand.lua) and
# puts its program's main() body in $output. compiles: that program
# compiles with the export's own flags.
export_main() {
    local c=$BATS_TEST_TMPDIR/by_hand.c
    run "$VERBSH" -e "local S = dofile(os.getenv('ROOT') .. '/tests/export/by_hand.lua')
      $1
      S.print_main('$c')"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output != *"could not be written"* ]]
    [[ $output != *"is not exported"* ]]
}
compiles() { cc -Wall -Wextra -Werror -c -o /dev/null "$BATS_TEST_TMPDIR/by_hand.c"; }

@test "export by hand: ibv_get_pkey_index, ibv_query_qp_data_in_order and rdma_reject_ece are their C call, with the value returned or the errno checked" {
    export_main '
      local ctx, qp, id = S.object("context", true), S.object("qp", true), S.object("cm_id", true)
      S.call(ctx, "get_pkey_index", { 1, 0xffff }, { 0 })
      S.call(ctx, "get_pkey_index", { 2, 0x8001 }, { 3 })
      S.failed(ctx, "get_pkey_index", { 1, 0x1234 }, 22, "EINVAL")
      S.call(qp, "query_data_in_order", { "RDMA_WRITE", 1 }, { 3 })
      S.call(qp, "query_data_in_order", { "SEND", 0 }, { 1 })
      S.failed(id, "reject_ece", { "no" }, 22, "EINVAL")
      S.call(id, "reject_ece", {})'
    has_line 'expect_int("ibv_get_pkey_index", 0, ibv_get_pkey_index(ctx1, 1, htons(0xffff)));'
    has_line 'expect_int("ibv_get_pkey_index", 3, ibv_get_pkey_index(ctx1, 2, htons(0x8001)));'
    has_line 'expect_fail("ibv_get_pkey_index", ibv_get_pkey_index(ctx1, 1, htons(0x1234)), 22);'
    # ibv_query_qp_data_in_order(qp, op, flags): 1 is IBV_QUERY_QP_DATA_IN_ORDER_RETURN_CAPS
    has_line 'expect_int("ibv_query_qp_data_in_order", 3, ibv_query_qp_data_in_order(qp1, IBV_WR_RDMA_WRITE, 1));'
    has_line 'expect_int("ibv_query_qp_data_in_order", 1, ibv_query_qp_data_in_order(qp1, IBV_WR_SEND, 0));'
    has_line 'expect_fail("rdma_reject_ece", rdma_reject_ece(cm_id1, "no", 2), 22);'
    has_line 'expect_int("rdma_reject_ece", 0, rdma_reject_ece(cm_id1, NULL, 0));'
    compiles
}

@test "export by hand: the hardware-only verbs that make an object (ibv_alloc_td, ibv_create_counters, ibv_open_xrcd, ibv_alloc_dm, ibv_create_flow_action_esp, ibv_alloc_null_mr) declare it from their C call and check it, made or NULL with the errno" {
    export_main '
      local ctx, pd = S.object("context", true), S.object("pd", true)
      S.call(ctx, "alloc_td", {}, { S.object("td") })
      S.failed(ctx, "alloc_td", {}, 95, "EOPNOTSUPP")
      S.call(ctx, "create_counters", {}, { S.object("counters") })
      S.failed(ctx, "open_xrcd", {}, 38, "ENOSYS")
      S.call(ctx, "alloc_dm", { 8192 }, { S.object("dm") })
      S.failed(ctx, "create_flow_action_esp", {}, 95, "EOPNOTSUPP")
      S.call(pd, "alloc_null_mr", {}, { S.object("mr") })'
    has_line 'struct ibv_td *td1 = ibv_alloc_td(ctx1, &td_attr1);'
    has_line 'expect_ptr("ibv_alloc_td", td1);'
    has_line 'struct ibv_td *td_failed1 = ibv_alloc_td(ctx1, &td_attr2);'
    has_line 'expect_null("ibv_alloc_td", td_failed1, 95);'
    has_line 'struct ibv_counters *counters1 = ibv_create_counters(ctx1, &counters_attr1);'
    has_line 'expect_ptr("ibv_create_counters", counters1);'
    has_line 'struct ibv_xrcd *xrcd_failed1 = ibv_open_xrcd(ctx1, &xrcd_attr1);'
    has_line 'expect_null("ibv_open_xrcd", xrcd_failed1, 38);'
    has_line 'struct ibv_alloc_dm_attr dm_attr1 = { .length = 8192 };'
    has_line 'struct ibv_dm *dm1 = ibv_alloc_dm(ctx1, &dm_attr1);'
    has_line 'expect_ptr("ibv_alloc_dm", dm1);'
    has_line 'struct ibv_flow_action *flow_action_esp_failed1 = ibv_create_flow_action_esp(ctx1, &esp_attr1);'
    has_line 'expect_null("ibv_create_flow_action_esp", flow_action_esp_failed1, 95);'
    has_line 'struct ibv_mr *mr1 = ibv_alloc_null_mr(pd1);'
    has_line 'expect_ptr("ibv_alloc_null_mr", mr1);'
    compiles
}

@test "export by hand: the other hardware-only verbs (ibv_open_qp, ibv_alloc_parent_domain, ibv_create_wq, ibv_create_rwq_ind_table, ibv_import_pd/dm/mr, ibv_reg_dmabuf_mr, ibv_create_flow, ibv_advise_mr) are their C call with the arguments in C's order, and what they made or the errno checked" {
    export_main '
      local ctx, pd, cq = S.object("context", true), S.object("pd", true), S.object("cq", true)
      local xrcd, td, mr, qp, wq = S.object("xrcd", true), S.object("td", true), S.object("mr", true), S.object("qp", true),
        S.object("wq", true)
      S.failed(ctx, "open_qp", { 0x2a17, xrcd }, 22, "EINVAL")
      S.call(ctx, "alloc_parent_domain", { pd, td }, { S.object("pd") })
      S.failed(ctx, "create_wq", { pd, cq, 24 }, 95, "EOPNOTSUPP")
      S.call(ctx, "create_rwq_ind_table", { wq }, { S.object("rwq_ind_table") })
      S.failed(ctx, "import_pd", { 0x1234 }, 9, "EBADF")
      S.call(ctx, "import_dm", { 0x2345 }, { S.object("dm") })
      S.failed(pd, "import_mr", { 0x3456 }, 2, "ENOENT")
      S.call(pd, "reg_dmabuf_mr", { 7, 512, 8192, 0x10000, { "LOCAL_WRITE", "REMOTE_READ" } }, { S.object("mr") })
      S.failed(qp, "create_flow", { 2 }, 95, "EOPNOTSUPP")
      S.failed(pd, "advise_mr", { mr }, 95, "EOPNOTSUPP")'
    has_line 'struct ibv_qp_open_attr qp_open_attr1 = { .comp_mask = IBV_QP_OPEN_ATTR_NUM | IBV_QP_OPEN_ATTR_XRCD | IBV_QP_OPEN_ATTR_TYPE, .qp_num = 10775, .xrcd = xrcd1, .qp_type = IBV_QPT_XRC_RECV };'
    has_line 'struct ibv_qp *open_qp_failed1 = ibv_open_qp(ctx1, &qp_open_attr1);'
    has_line 'expect_null("ibv_open_qp", open_qp_failed1, 22);'
    has_line 'struct ibv_parent_domain_init_attr parent_domain_attr1 = { .pd = pd1, .td = td1 };'
    has_line 'struct ibv_pd *pd2 = ibv_alloc_parent_domain(ctx1, &parent_domain_attr1);'
    has_line 'expect_ptr("ibv_alloc_parent_domain", pd2);'
    has_line 'struct ibv_wq_init_attr wq_attr1 = { .wq_type = IBV_WQT_RQ, .max_wr = 24, .max_sge = 1, .pd = pd1, .cq = cq1 };'
    has_line 'struct ibv_wq *create_wq_failed1 = ibv_create_wq(ctx1, &wq_attr1);'
    has_line 'expect_null("ibv_create_wq", create_wq_failed1, 95);'
    has_line 'struct ibv_wq *wqs1[1] = { wq1 };'
    has_line 'struct ibv_rwq_ind_table *rwq_ind_table1 = ibv_create_rwq_ind_table(ctx1, &rwq_attr1);'
    has_line 'expect_ptr("ibv_create_rwq_ind_table", rwq_ind_table1);'
    has_line 'struct ibv_pd *import_pd_failed1 = ibv_import_pd(ctx1, 4660);'
    has_line 'expect_null("ibv_import_pd", import_pd_failed1, 9);'
    has_line 'struct ibv_dm *dm1 = ibv_import_dm(ctx1, 9029);'
    has_line 'expect_ptr("ibv_import_dm", dm1);'
    has_line 'struct ibv_mr *import_mr_failed1 = ibv_import_mr(pd1, 13398);'
    has_line 'expect_null("ibv_import_mr", import_mr_failed1, 2);'
    # ibv_reg_dmabuf_mr(pd, offset, length, iova, fd, access)
    has_line 'struct ibv_mr *mr2 = ibv_reg_dmabuf_mr(pd1, 512, 8192, 0x10000, 7, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);'
    has_line 'expect_ptr("ibv_reg_dmabuf_mr", mr2);'
    has_line 'struct ibv_flow_attr flow_attr1 = { .type = IBV_FLOW_ATTR_NORMAL, .size = sizeof flow_attr1, .port = 2 };'
    has_line 'struct ibv_flow *create_flow_failed1 = ibv_create_flow(qp1, &flow_attr1);'
    has_line 'expect_null("ibv_create_flow", create_flow_failed1, 95);'
    has_line 'expect_int("ibv_advise_mr", 95, ibv_advise_mr(pd1, IBV_ADVISE_MR_ADVICE_PREFETCH, 0, &sge1, 1));'
    compiles
}

@test "export by hand: ibv_init_ah_from_wc is called with the recorded completion and GRH, and every field of the address it filled is checked (is_global, port_num, sl, grh.sgid_index), for a global and a local address" {
    export_main '
      local ctx = S.object("context", true)
      local grh = ("\x60\x12\x34\x56"):rep(10)
      S.call(ctx, "init_ah_from_wc", { 1, { wr_id = 7, status = "SUCCESS", opcode = "RECV", byte_len = 40, qp_num = 0x11,
        src_qp = 0x2a17, wc_flags = "GRH" }, grh }, { { is_global = 1, port_num = 1, sl = 3, grh = { sgid_index = 2 } } })
      S.call(ctx, "init_ah_from_wc", { 2, { wr_id = 8, status = "SUCCESS", opcode = "RECV", byte_len = 8, qp_num = 0x11,
        src_qp = 0x2a17 }, grh }, { { is_global = 0, port_num = 2, sl = 5 } })
      S.failed(ctx, "init_ah_from_wc", { 1, { wr_id = 9, status = "SUCCESS", opcode = "RECV", byte_len = 8, qp_num = 0x11,
        src_qp = 0x2a17, wc_flags = "GRH" }, grh }, 22, "EINVAL")'
    has_line 'struct ibv_wc wc1 = { .wr_id = 7, .status = IBV_WC_SUCCESS, .qp_num = 17, .opcode = IBV_WC_RECV, .byte_len = 40, .src_qp = 10775, .wc_flags = IBV_WC_GRH };'
    # the GRH's 40 bytes as a C string: 0x60 0x12 '4' 'V', ten times
    has_line "memcpy(&grh1, \"$(printf '\\140\\0224V%.0s' {1..10})\", sizeof grh1);"
    has_line 'expect_int("ibv_init_ah_from_wc", 0, ibv_init_ah_from_wc(ctx1, 1, &wc1, &grh1, &ah_attr1));'
    has_line 'expect_int("ah_attr.is_global", 1, ah_attr1.is_global);'
    has_line 'expect_int("ah_attr.port_num", 1, ah_attr1.port_num);'
    has_line 'expect_int("ah_attr.sl", 3, ah_attr1.sl);'
    has_line 'expect_int("ah_attr.grh.sgid_index", 2, ah_attr1.grh.sgid_index);'
    has_line 'expect_int("ibv_init_ah_from_wc", 0, ibv_init_ah_from_wc(ctx1, 2, &wc2, &grh2, &ah_attr2));'
    has_line 'expect_int("ah_attr.is_global", 0, ah_attr2.is_global);'
    has_line 'expect_int("ah_attr.port_num", 2, ah_attr2.port_num);'
    has_line 'expect_int("ah_attr.sl", 5, ah_attr2.sl);'
    # a failure: the errno, and nothing of an address that was not filled
    has_line 'expect_int("ibv_init_ah_from_wc", 22, ibv_init_ah_from_wc(ctx1, 1, &wc3, &grh3, &ah_attr3));'
    [ "$(grep -c 'expect_int("ah_attr' <<<"$output")" -eq 7 ]
    compiles
}

@test "export by hand: each completion of a cq:iter loop is checked through the ibv_wc_read_* accessors, every field the step recorded (wr_id, status, opcode, byte_len, imm_data, qp_num as the QP's own number) and none it did not; an error completion only by wr_id and status" {
    export_main '
      local pd, cq = S.object("pd", true), S.object("cq", true)
      local qp = S.object("qp", false, { qp_num = 0x2a17 })
      S.call(pd, "create_qp", { { qp_type = "UD", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 4, max_recv_wr = 4 } } }, { qp })
      S.call(cq, "iter", {}, {})
      local wcs = {
        { wr_id = 0x1234, status = "SUCCESS", opcode = "RECV_RDMA_WITH_IMM", byte_len = 4660, imm_data = 0x12345678, qp_num = 0x2a17 },
        { wr_id = 0x2345, status = "SUCCESS", opcode = "SEND", byte_len = 96, qp_num = 0x3b28 },
        { wr_id = 0x3456, status = "SUCCESS", opcode = "RDMA_WRITE" },
        { wr_id = 0x4567, status = "WR_FLUSH_ERR", opcode = "RECV", byte_len = 0, qp_num = 0x2a17 },
        nil }
      for step = 1, 5 do S.call(cq, "__iter", {}, { wcs[step], n = 1 }).step = step end'
    has_line 'poll_ex(cq1_ex, &poll_attr1, "cq1:iter step 1");'
    has_line 'expect_int("cq1:iter step 1 wr_id", 4660, cq1_ex->wr_id);'
    has_line 'expect_int("cq1:iter step 1 status", IBV_WC_SUCCESS, cq1_ex->status);'
    has_line 'expect_int("cq1:iter step 1 opcode", IBV_WC_RECV_RDMA_WITH_IMM, ibv_wc_read_opcode(cq1_ex));'
    has_line 'expect_int("cq1:iter step 1 byte_len", 4660, ibv_wc_read_byte_len(cq1_ex));'
    has_line 'expect_int("cq1:iter step 1 imm_data", 305419896, ntohl(ibv_wc_read_imm_data(cq1_ex)));'
    has_line 'expect_int("cq1:iter step 1 qp_num", qp1->qp_num, ibv_wc_read_qp_num(cq1_ex));'
    has_line 'poll_ex(cq1_ex, NULL, "cq1:iter step 2");'
    has_line 'expect_int("cq1:iter step 2 opcode", IBV_WC_SEND, ibv_wc_read_opcode(cq1_ex));'
    has_line 'expect_int("cq1:iter step 2 byte_len", 96, ibv_wc_read_byte_len(cq1_ex));'
    has_line 'expect_int("cq1:iter step 2 qp_num", 15144, ibv_wc_read_qp_num(cq1_ex));'   # a QP the session did not make
    has_line 'expect_int("cq1:iter step 3 opcode", IBV_WC_RDMA_WRITE, ibv_wc_read_opcode(cq1_ex));'
    has_line 'expect_int("cq1:iter step 4 wr_id", 17767, cq1_ex->wr_id);'
    has_line 'expect_int("cq1:iter step 4 status", IBV_WC_WR_FLUSH_ERR, cq1_ex->status);'
    has_line 'ibv_end_poll(cq1_ex);'
    local step n
    for step in 1:6 2:5 3:3 4:2 5:0; do
        n=$(grep -c "^expect_int(\"cq1:iter step ${step%:*} " <<<"$output" || true)
        [ "$n" -eq "${step#*:}" ] || { echo "step ${step%:*}: $n checks, want ${step#*:}"; return 1; }
    done
    compiles
}

@test "export by hand: an async event is waited for and checked by its type and what it is about, as ibv_async_event's element says: the QP, the CQ, the SRQ, or the port number; none within the timeout is not waited for" {
    export_main '
      local ctx, qp, cq, srq = S.object("context", true), S.object("qp", true), S.object("cq", true), S.object("srq", true)
      S.call(ctx, "get_async_event", { 5 }, { { event_type = "QP_FATAL", qp = qp } })
      S.call(ctx, "get_async_event", { 5 }, { { event_type = "CQ_ERR", cq = cq } })
      S.call(ctx, "get_async_event", { 5 }, { { event_type = "SRQ_LIMIT_REACHED", srq = srq } })
      S.call(ctx, "get_async_event", { 5 }, { { event_type = "PORT_ACTIVE", port_num = 2 } })
      S.call(ctx, "get_async_event", { 1 }, { n = 1 })'
    has_line 'get_async_event(ctx1, IBV_EVENT_QP_FATAL, qp1, 0, "ctx1:get_async_event");'
    has_line 'get_async_event(ctx1, IBV_EVENT_CQ_ERR, cq1, 0, "ctx1:get_async_event");'
    has_line 'get_async_event(ctx1, IBV_EVENT_SRQ_LIMIT_REACHED, srq1, 0, "ctx1:get_async_event");'
    has_line 'get_async_event(ctx1, IBV_EVENT_PORT_ACTIVE, NULL, 2, "ctx1:get_async_event");'
    has_line '/* ctx1:get_async_event: no async event within the timeout here: timing, not waited for */'
    [ "$(grep -c '^get_async_event(' <<<"$output")" -eq 4 ]
    compiles
}

@test "export by hand: srq:modify's explicit mask is the mask ibv_modify_srq gets, even where the keys given would say more; without one, the keys' own bits" {
    export_main '
      local srq = S.object("srq", true)
      S.call(srq, "modify", { { max_wr = 64, srq_limit = 10 }, "LIMIT" }, {})
      S.failed(srq, "modify", { { max_wr = 4096 }, "MAX_WR" }, 22, "EINVAL")
      S.call(srq, "modify", { { max_wr = 96, srq_limit = 12 } }, {})'
    has_line 'struct ibv_srq_attr srq_attr1 = { .max_wr = 64, .srq_limit = 10 };'
    has_line 'expect_int("ibv_modify_srq", 0, ibv_modify_srq(srq1, &srq_attr1, IBV_SRQ_LIMIT));'
    has_line 'expect_int("ibv_modify_srq", 22, ibv_modify_srq(srq1, &srq_attr2, IBV_SRQ_MAX_WR));'   # it returns the errno itself
    has_line 'expect_int("ibv_modify_srq", 0, ibv_modify_srq(srq1, &srq_attr3, IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT));'
    compiles
}

@test "export by hand: pd:reg_mr of a string registers a buffer of its length holding its bytes (quotes and newlines escaped), and pd:reg_mr of a size a zeroed one" {
    export_main '
      local pd = S.object("pd", true)
      local mr1 = S.object("mr", false, { addr = 0x1000, length = 7, lkey = 0x11, rkey = 0x22 })
      local mr2 = S.object("mr", false, { addr = 0x2000, length = 96, lkey = 0x33, rkey = 0x44 })
      S.call(pd, "reg_mr", { "ab\"c\n9z", "LOCAL_WRITE" }, { mr1 })
      S.call(pd, "reg_mr", { 96, "LOCAL_WRITE" }, { mr2 })'
    has_line 'void *buf_mr1 = calloc(1, 7);'
    has_line 'memcpy(buf_mr1, "ab\042c\0129z", 7);'
    has_line 'void *buf_mr2 = calloc(1, 96);'
    [[ $output != *'memcpy(buf_mr2'* ]]
    has_line 'struct ibv_mr *mr2 = ibv_reg_mr(pd1, buf_mr2, 96, IBV_ACCESS_LOCAL_WRITE);'
    compiles
}

@test "export by hand: mr:fill is a memset of the MR's bytes: the byte, from the offset given (else 0), as many as given (else to the MR's end)" {
    export_main '
      local pd = S.object("pd", true)
      local mr = S.object("mr", false, { addr = 0x3000, length = 96, lkey = 0x55, rkey = 0x66 })
      S.call(pd, "reg_mr", { 96, "LOCAL_WRITE" }, { mr })
      S.call(mr, "fill", { 0x5a, 8, 16 }, {})
      S.call(mr, "fill", { 0x41, 40 }, {})
      S.call(mr, "fill", { 7 }, {})'
    has_line 'memset((char *)mr1->addr + 8, 90, 16);'
    has_line 'memset((char *)mr1->addr + 40, 65, 56);'
    has_line 'memset((char *)mr1->addr + 0, 7, 96);'
    compiles
}

@test "export by hand: mr:write is a memcpy of its bytes (a NUL and a quote escaped) at the offset given, as many as the string holds" {
    export_main '
      local pd = S.object("pd", true)
      local mr = S.object("mr", false, { addr = 0x3000, length = 96, lkey = 0x55, rkey = 0x66 })
      S.call(pd, "reg_mr", { 96, "LOCAL_WRITE" }, { mr })
      S.call(mr, "write", { 5, "hello" }, {})
      S.call(mr, "write", { 40, "a\0b\"cdefgh" }, {})'
    has_line 'memcpy((char *)mr1->addr + 5, "hello", 5);'
    has_line 'memcpy((char *)mr1->addr + 40, "a\000b\042cdefgh", 10);'
    compiles
}

@test "export by hand: verbs.open is open_device of the device it opened (its name as recorded), else of the name asked for, else rxe0; a failed open is a comment" {
    export_main '
      local c1 = S.object("context", false, { name = "siw0" })
      S.call(nil, "open", {}, { c1 })
      local c2 = S.object("context", false, { name = "rxe1" })
      S.call(nil, "open", { "rxe" }, { c2 })
      local c3 = S.object("context")
      S.call(nil, "open", { "mlx5_0" }, { c3 })
      local c4 = S.object("context")
      S.call(nil, "open", {}, { c4 })
      S.failed(nil, "open", { "nodev" }, 19, "ENODEV")'
    has_line 'struct ibv_context *ctx1 = open_device("siw0");'
    has_line 'struct ibv_context *ctx2 = open_device("rxe1");'
    has_line 'struct ibv_context *ctx3 = open_device("mlx5_0");'
    has_line 'struct ibv_context *ctx4 = open_device("rxe0");'
    has_line '/* verbs.open("nodev") failed here with ENODEV: not reproduced */'
    compiles
}

@test "verbs.export_c(path): the number of calls written and the skipped list; a path it cannot write and a non-string are errors naming them" {
    run "$VERBSH" -e '
      local S = dofile(os.getenv("ROOT") .. "/tests/export/by_hand.lua")
      local pd = S.object("pd", true)
      S.call(pd, "reg_mr", { 64, "LOCAL_WRITE" }, { S.object("mr", false, { addr = 0x1000, length = 64, lkey = 1, rkey = 2 }) })
      S.call(pd, "reg_mr", { 32, "LOCAL_WRITE" }, { S.object("mr", false, { addr = 0x2000, length = 32, lkey = 3, rkey = 4 }) })
      print(pcall(verbs.export_c, "/nonexistent/dir/x.c"))
      print(pcall(verbs.export_c, 7))
      local n, skipped = verbs.export_c(os.getenv("BATS_TEST_TMPDIR") .. "/x.c")
      print(n, #skipped)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "false	export_c: /nonexistent/dir/x.c: No such file or directory" ]
    [ "${lines[1]}" = "false	bad argument #1 to 'export_c' (string expected, got number)" ]
    [ "${lines[2]}" = "2	0" ]
    grep -qx '	void \*buf_mr2 = calloc(1, 32);' "$BATS_TEST_TMPDIR/x.c"
}

@test "export by hand: ibv_create_comp_channel declares the channel the session made, or checks NULL with the errno under a name of its own" {
    export_main '
      local ctx = S.object("context", true)
      S.call(ctx, "create_comp_channel", {}, { S.object("comp_channel") })
      S.failed(ctx, "create_comp_channel", {}, 24, "EMFILE")'
    has_line 'struct ibv_comp_channel *channel1 = ibv_create_comp_channel(ctx1);'
    has_line 'expect_ptr("ibv_create_comp_channel", channel1);'
    has_line 'struct ibv_comp_channel *channel_failed1 = ibv_create_comp_channel(ctx1);'
    has_line 'expect_null("ibv_create_comp_channel", channel_failed1, 24);'
    compiles
}

@test "export by hand: the extended QP's builder calls are ibv_wr_* with the arguments in C's order (rkey, remote address, then imm in network order, add, compare and swap), the inline data as C strings with their lengths, the UD address's AH, QPN and Q_Key" {
    export_main '
      local qp, ah = S.object("qp", true), S.object("ah", true)
      S.call(qp, "wr_start", {})
      S.call(qp, "wr_rdma_write_imm", { 0x1234, 0x10000, 0xabcd0102 })
      S.call(qp, "wr_set_sge", { 0x5678, 0x20000, 64 })
      S.call(qp, "wr_atomic_fetch_add", { 0x1235, 0x10008, 5 })
      S.call(qp, "wr_atomic_cmp_swp", { 0x1236, 0x10010, 7, 9 })
      S.call(qp, "wr_set_inline_data", { "hi\"x" })
      S.call(qp, "wr_set_ud_addr", { ah, 0x2a17, 0x11111111 })
      S.call(qp, "wr_set_inline_data_list", { { "ab", "cde" } })
      S.call(qp, "wr_complete", {}, { n = 0 })'
    has_line 'ibv_wr_rdma_write_imm(qp1_ex, 0x1234, 0x10000, htonl(0xabcd0102));'
    has_line 'ibv_wr_set_sge(qp1_ex, 0x5678, 0x20000, 64);'
    has_line 'ibv_wr_atomic_fetch_add(qp1_ex, 0x1235, 0x10008, 5);'
    has_line 'ibv_wr_atomic_cmp_swp(qp1_ex, 0x1236, 0x10010, 7, 9);'
    has_line 'ibv_wr_set_inline_data(qp1_ex, "hi\042x", 4);'
    has_line 'ibv_wr_set_ud_addr(qp1_ex, ah1, 10775, 0x11111111);'
    has_line 'struct ibv_data_buf data_buf1[2] = { { .addr = "ab", .length = 2 }, { .addr = "cde", .length = 3 } };'
    has_line 'ibv_wr_set_inline_data_list(qp1_ex, 2, data_buf1);'
    has_line 'expect_int("ibv_wr_complete", 0, ibv_wr_complete(qp1_ex));'
    compiles
}

@test "export by hand: the extended CQ's poll: a failed ibv_create_cq_ex checks NULL with the errno; a start_poll or next_poll that found a completion waits for it, one that found none is a comment; an end_poll verbsh skipped is still called, said so" {
    export_main '
      local ctx, cq = S.object("context", true), S.object("cq", true)
      S.failed(ctx, "create_cq_ex", { { cqe = 8 } }, 12, "ENOMEM")
      S.call(cq, "start_poll", {}, { false })
      S.call(cq, "start_poll", {}, { true })
      S.call(cq, "next_poll", {}, { true })
      S.call(cq, "next_poll", {}, { false })
      S.call(cq, "end_poll", {}, { false })
      S.call(cq, "end_poll", {}, { true })
      S.call(cq, "iter", {}, {})
      S.call(cq, "__iter", {}, { nil, n = 1 }).step = 1
      S.call(S.object("comp_channel", true), "destroy", {})'
    has_line 'struct ibv_cq_init_attr_ex cq_attr1 = { .cqe = 8 };'
    has_line 'struct ibv_cq_ex *cq_failed1_ex = ibv_create_cq_ex(ctx1, &cq_attr1);'
    has_line 'expect_null("ibv_create_cq_ex", cq_failed1_ex, 12);'
    has_line '/* cq1:start_poll found the CQ empty here: timing, not polled */'
    has_line 'poll_ex(cq1_ex, &poll_attr1, "cq1:start_poll");'
    has_line 'poll_ex(cq1_ex, NULL, "cq1:next_poll");'
    has_line '/* cq1:next_poll found no further completion here: timing, not polled */'
    has_line "/* verbsh did not call it: this rxe (rdma-core < 55) had ended the poll at next_poll's ENOENT, which is not replayed here */"
    # the skipped end_poll (first) is said so; the one verbsh called is not
    [ "$(grep -A2 '^/\* cq1:end_poll \*/$' <<<"$output" | cut -c1-24)" = "/* cq1:end_poll */
/* verbsh did not call i
ibv_end_poll(cq1_ex);
/* cq1:end_poll */
ibv_end_poll(cq1_ex);
/* cq1:iter */" ]
    [ "$(grep -c '^poll_ex(' <<<"$output")" -eq 2 ]
    has_line '/* cq1:iter step 1 found the CQ empty here: timing, not polled */'
    has_line 'expect_int("ibv_destroy_comp_channel", 0, ibv_destroy_comp_channel(channel1));'
    compiles
}

@test "export by hand: ibv_modify_qp without a mask ORs each bit its keys set once, in bit order: four alternate-path keys give one IBV_QP_ALT_PATH; sq_psn and rq_psn their own bits" {
    export_main '
      local qp = S.object("qp", true)
      S.call(qp, "modify", { { alt_timeout = 14, qp_state = "RTS", alt_port_num = 1, alt_pkey_index = 0, sq_psn = 7,
                               alt_ah_attr = { dlid = 3, port_num = 1 } } })
      S.call(qp, "modify", { { rq_psn = 9 } })'
    has_line 'expect_int("ibv_modify_qp", 0, ibv_modify_qp(qp1, &attr1, IBV_QP_STATE | IBV_QP_ALT_PATH | IBV_QP_SQ_PSN));'
    has_line 'expect_int("ibv_modify_qp", 0, ibv_modify_qp(qp1, &attr2, IBV_QP_RQ_PSN));'
    compiles
}

@test "export by hand: ibv_set_ece, ibv_modify_qp_rate_limit, ibv_query_rt_values_ex, ibv_rereg_mr, ibv_modify_qp with an explicit mask, and rdma_migrate_id, rdma_notify, rdma_set_local_ece, rdma_get_remote_ece are their C call with the outcome checked" {
    export_main '
      local ctx, pd, qp, mr = S.object("context", true), S.object("pd", true), S.object("qp", true), S.object("mr", true)
      local id, id2 = S.object("cm_id", true), S.object("cm_id", true)
      S.call(qp, "set_ece", { 0x2c9, 0xf0e1d2 })
      S.failed(qp, "modify_rate_limit", { 5000 }, 34, "ERANGE")
      S.call(ctx, "query_rt_values_ex", {}, { { tv_sec = 1, tv_nsec = 2 } })
      S.call(mr, "rereg", { "CHANGE_PD", pd }, { 0 })
      S.call(qp, "modify", { { qp_state = "INIT", port_num = 1, pkey_index = 0 }, { "STATE", "PORT" } })
      S.call(id, "migrate", { S.object("cm_channel", true) })
      S.failed(id, "notify", { "COMM_EST" }, 22, "EINVAL")
      S.call(id, "set_local_ece", { 0x15b3, 0xabcd0102 })
      S.call(id2, "get_remote_ece", {}, { { vendor_id = 1, options = 2 } })'
    has_line 'struct ibv_ece ece1 = { .vendor_id = 0x2c9, .options = 0xf0e1d2 };'
    has_line 'expect_int("ibv_set_ece", 0, ibv_set_ece(qp1, &ece1));'
    has_line 'struct ibv_qp_rate_limit_attr rate_limit_attr1 = { .rate_limit = 5000 };'
    has_line 'expect_int("ibv_modify_qp_rate_limit", 34, ibv_modify_qp_rate_limit(qp1, &rate_limit_attr1));'
    has_line 'struct ibv_values_ex values1 = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };'
    has_line 'expect_int("ibv_query_rt_values_ex", 0, ibv_query_rt_values_ex(ctx1, &values1));'
    has_line 'expect_int("ibv_rereg_mr", 0, ibv_rereg_mr(mr1, IBV_REREG_MR_CHANGE_PD, pd1, NULL, 0, 0));'
    # the mask given, not the three keys' bits (STATE | PKEY_INDEX | PORT)
    has_line 'expect_int("ibv_modify_qp", 0, ibv_modify_qp(qp1, &attr1, IBV_QP_STATE | IBV_QP_PORT));'
    has_line 'expect_int("rdma_migrate_id", 0, rdma_migrate_id(cm_id1, cm_channel1));'
    has_line 'expect_fail("rdma_notify", rdma_notify(cm_id1, IBV_EVENT_COMM_EST), 22);'
    has_line 'struct ibv_ece ece2 = { .vendor_id = 0x15b3, .options = 0xabcd0102 };'
    has_line 'expect_int("rdma_set_local_ece", 0, rdma_set_local_ece(cm_id1, &ece2));'
    has_line 'struct ibv_ece ece3 = { 0 };'
    has_line 'expect_int("rdma_get_remote_ece", 0, rdma_get_remote_ece(cm_id2, &ece3));'
    compiles
}

@test "export by hand: ibv_is_fork_initialized checks the status recorded (DISABLED, ENABLED, UNNEEDED as C names them); ibv_is_qpt_supported 1 or 0; ibv_alloc_dm's length, 4096 when none was given" {
    export_main '
      local ctx = S.object("context", true)
      S.call(nil, "is_fork_initialized", {}, { "UNNEEDED" })
      S.call(nil, "is_fork_initialized", {}, { "ENABLED" })
      S.call(nil, "is_qpt_supported", { 0x1234, "UD" }, { true })
      S.call(nil, "is_qpt_supported", { 0x5678, "RAW_PACKET" }, { false })
      S.call(ctx, "alloc_dm", {}, { S.object("dm") })'
    has_line 'expect_int("ibv_is_fork_initialized", IBV_FORK_UNNEEDED, ibv_is_fork_initialized());'
    has_line 'expect_int("ibv_is_fork_initialized", IBV_FORK_ENABLED, ibv_is_fork_initialized());'
    has_line 'expect_int("ibv_is_qpt_supported", 1, ibv_is_qpt_supported(0x1234, IBV_QPT_UD));'
    has_line 'expect_int("ibv_is_qpt_supported", 0, ibv_is_qpt_supported(0x5678, IBV_QPT_RAW_PACKET));'
    has_line 'struct ibv_alloc_dm_attr dm_attr1 = { .length = 4096 };'
    compiles
}

# pd:reg_dmabuf_mr(fd [, offset, length, iova, access]): what verbsh passed
# for each argument left out (src/devonly.c: offset 0, length 4096, iova 0,
# LOCAL_WRITE) is what the program passes.
@test "export by hand: ibv_reg_dmabuf_mr of the fd alone has verbsh's defaults: offset 0, length 4096, iova 0, IBV_ACCESS_LOCAL_WRITE" {
    export_main '
      local pd = S.object("pd", true)
      S.call(pd, "reg_dmabuf_mr", { 9 }, { S.object("mr") })'
    has_line 'struct ibv_mr *mr1 = ibv_reg_dmabuf_mr(pd1, 0, 4096, 0x0, 9, IBV_ACCESS_LOCAL_WRITE);'
    compiles
}

@test "export by hand: a posted chain is an array of WRs linked by .next, each with its own SGE array (at the MR's offsets) or NULL when it has none" {
    export_main '
      local qp, pd = S.object("qp", true, { qp_num = 0x11 }), S.object("pd", true)
      local mr = S.object("mr", false, { addr = 0x1000, length = 64, lkey = 0x1234, rkey = 0x5678 })
      S.call(pd, "reg_mr", { 64, "LOCAL_WRITE" }, { mr })
      S.call(qp, "post_recv", { { { wr_id = 9, sg_list = { { mr = mr, offset = 0, length = 32 }, { mr = mr, offset = 40, length = 24 } } },
        { wr_id = 10, sg_list = {} } } }, {})
      S.call(qp, "post_send", { { wr_id = 7, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 8, length = 16 } } } }, {})'
    has_line 'struct ibv_sge sge1[2] = { { .addr = (uintptr_t)mr1->addr + 0, .length = 32, .lkey = mr1->lkey }, { .addr = (uintptr_t)mr1->addr + 40, .length = 24, .lkey = mr1->lkey } };'
    has_line "$(printf '\t%s' '{ .sg_list = sge1, .num_sge = 2, .wr_id = 9, .next = &wr1[1] },')"
    has_line "$(printf '\t%s' '{ .sg_list = NULL, .num_sge = 0, .wr_id = 10 },')"
    has_line 'expect_int("ibv_post_recv", 0, ibv_post_recv(qp1, wr1, &bad_wr1));'
    has_line 'struct ibv_sge sge2[1] = { { .addr = (uintptr_t)mr1->addr + 8, .length = 16, .lkey = mr1->lkey } };'
    has_line "$(printf '\t%s' '{ .sg_list = sge2, .num_sge = 1, .wr_id = 7, .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED },')"
    compiles
}

@test "export of a session: rdma_getaddrinfo's node and service: a string is quoted, an integer service becomes its digits, nil is NULL (the service's nil as much as the node's)" {
    cd "$BATS_TEST_TMPDIR"
    cat >gai.lua <<'LUA'
pcall(verbs.getaddrinfo, "127.0.0.1", nil, { ai_port_space = "TCP" })
pcall(verbs.getaddrinfo, nil, "7471", { ai_flags = "PASSIVE" })
pcall(verbs.getaddrinfo, "192.0.2.7", 7472)
LUA
    run "$VERBSH" --export-c gai.c gai.lua
    [ "$status" -eq 0 ]
    run grep -o 'rdma_getaddrinfo([^)]*)' gai.c
    echo "$output"
    [ "${lines[0]}" = 'rdma_getaddrinfo("127.0.0.1", NULL, &hints1, &addrinfo_failed1)' ]
    [ "${lines[1]}" = 'rdma_getaddrinfo(NULL, "7471", &hints2, &addrinfo_failed2)' ]
    [ "${lines[2]}" = 'rdma_getaddrinfo("192.0.2.7", "7472", NULL, &addrinfo_failed3)' ]
    [ "${#lines[@]}" -eq 3 ]
}

@test "export of a session: rdma_getaddrinfo's hints are one initializer with every key given, and each address's length is its family's (sockaddr_in6 for IPv6)" {
    cd "$BATS_TEST_TMPDIR"
    cat >gai.lua <<'LUA'
pcall(verbs.getaddrinfo, "127.0.0.1", 7471, { ai_port_space = "TCP", ai_flags = "PASSIVE", ai_src_addr = "127.0.0.1:7000" })
pcall(verbs.getaddrinfo, "::1", 7472, { ai_dst_addr = "[::1]:7001" })
pcall(verbs.getaddrinfo, "::1", "7473", { ai_qp_type = "UD", ai_src_addr = "::1", ai_dst_addr = "127.0.0.1" })
pcall(verbs.getaddrinfo, "127.0.0.1", 7474, { ai_port_space = "UDP" })
LUA
    run "$VERBSH" --export-c gai.c gai.lua
    echo "$output"
    [ "$status" -eq 0 ]
    run grep -o 'struct rdma_addrinfo hints[0-9] = .*;$' gai.c
    echo "$output"
    [ "${lines[0]}" = 'struct rdma_addrinfo hints1 = { .ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_TCP, .ai_src_addr = sockaddr_of(&addr1, "127.0.0.1:7000"), .ai_src_len = sizeof(struct sockaddr_in) };' ]
    [ "${lines[1]}" = 'struct rdma_addrinfo hints2 = { .ai_dst_addr = sockaddr_of(&addr2, "[::1]:7001"), .ai_dst_len = sizeof(struct sockaddr_in6) };' ]
    [ "${lines[2]}" = 'struct rdma_addrinfo hints3 = { .ai_qp_type = IBV_QPT_UD, .ai_src_addr = sockaddr_of(&addr3, "::1"), .ai_src_len = sizeof(struct sockaddr_in6), .ai_dst_addr = sockaddr_of(&addr4, "127.0.0.1"), .ai_dst_len = sizeof(struct sockaddr_in) };' ]
    [ "${lines[3]}" = 'struct rdma_addrinfo hints4 = { .ai_port_space = RDMA_PS_UDP };' ]
    [ "${#lines[@]}" -eq 4 ]
    # the program holds what the session saw: each call fails with ENODEV here
    cc -Wall -Wextra -Werror gai.c -libverbs -lrdmacm -o gai
    run ./gai
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = reproduced ]
}

@test "export by hand: rdma_verbs.h's posts are their C call with the arguments in C's order (post_write/read's remote address and rkey, post_ud_send's AH and remote QPN, post_sendv/writev/readv's SGE array), a refused one checked for its errno" {
    export_main '
      local id, ah = S.object("cm_id", true), S.object("ah", true)
      local mr = S.object("mr", false, { addr = 0x1000, length = 64, lkey = 0x1234, rkey = 0x5678 })
      S.call(id, "reg_msgs", { 64 }, { mr })
      S.failed(id, "post_send", { 5, mr, 8, 16, "SIGNALED" }, 12, "ENOMEM")
      S.call(id, "post_write", { 6, mr, 4, 12, "SIGNALED", 0x12345678, 0x2a17 }, {})
      S.call(id, "post_read", { 7, mr, 0, 32, nil, 0x23456789, 0x3b28 }, {})
      S.call(id, "post_ud_send", { 8, mr, 16, 24, "SIGNALED", ah, 0x4c39 }, {})
      S.call(id, "post_sendv", { 9, { { mr = mr, offset = 0, length = 8 }, { mr = mr, offset = 40, length = 6 } }, "SIGNALED" }, {})
      S.call(id, "post_writev", { 10, { { mr = mr, offset = 2, length = 3 } }, nil, 0x3456789a, 0x4d3a }, {})
      S.call(id, "post_readv", { 11, { { mr = mr, offset = 5, length = 7 } }, "SIGNALED", 0x456789ab, 0x5e4b }, {})'
    has_line 'expect_fail("rdma_post_send", rdma_post_send(cm_id1, (void *)(uintptr_t)0x5, (char *)mr1->addr + 8, 16, mr1, IBV_SEND_SIGNALED), 12);'
    has_line 'expect_int("rdma_post_write", 0, rdma_post_write(cm_id1, (void *)(uintptr_t)0x6, (char *)mr1->addr + 4, 12, mr1, IBV_SEND_SIGNALED, 0x12345678, 0x2a17));'
    has_line 'expect_int("rdma_post_read", 0, rdma_post_read(cm_id1, (void *)(uintptr_t)0x7, (char *)mr1->addr + 0, 32, mr1, 0, 0x23456789, 0x3b28));'
    # 19513 is 0x4c39
    has_line 'expect_int("rdma_post_ud_send", 0, rdma_post_ud_send(cm_id1, (void *)(uintptr_t)0x8, (char *)mr1->addr + 16, 24, mr1, IBV_SEND_SIGNALED, ah1, 19513));'
    has_line 'struct ibv_sge sge1[2] = { { .addr = (uintptr_t)mr1->addr + 0, .length = 8, .lkey = mr1->lkey }, { .addr = (uintptr_t)mr1->addr + 40, .length = 6, .lkey = mr1->lkey } };'
    has_line 'expect_int("rdma_post_sendv", 0, rdma_post_sendv(cm_id1, (void *)(uintptr_t)0x9, sge1, 2, IBV_SEND_SIGNALED));'
    has_line 'struct ibv_sge sge2[1] = { { .addr = (uintptr_t)mr1->addr + 2, .length = 3, .lkey = mr1->lkey } };'
    has_line 'expect_int("rdma_post_writev", 0, rdma_post_writev(cm_id1, (void *)(uintptr_t)0xa, sge2, 1, 0, 0x3456789a, 0x4d3a));'
    has_line 'struct ibv_sge sge3[1] = { { .addr = (uintptr_t)mr1->addr + 5, .length = 7, .lkey = mr1->lkey } };'
    has_line 'expect_int("rdma_post_readv", 0, rdma_post_readv(cm_id1, (void *)(uintptr_t)0xb, sge3, 1, IBV_SEND_SIGNALED, 0x456789ab, 0x5e4b));'
    compiles
}

@test "export by hand: rdma_get_send_comp/rdma_get_recv_comp check the one completion's wr_id and status, opcode and byte_len only on success; a failed one its errno; none within the timeout is not waited for; a failed rdma_get_cm_event its errno" {
    export_main '
      local id, ch = S.object("cm_id", true), S.object("cm_channel", true)
      S.call(id, "get_send_comp", { 5000 }, { { wr_id = 0x2a17, status = "SUCCESS", opcode = "RDMA_WRITE", byte_len = 4660 } })
      S.call(id, "get_recv_comp", { 5000 }, { { wr_id = 0x1234, status = "WR_FLUSH_ERR", opcode = "RECV", byte_len = 0 } })
      S.failed(id, "get_send_comp", { 5000 }, 11, "EAGAIN")
      S.call(id, "get_recv_comp", { 0 }, { n = 1 })
      S.failed(ch, "get_cm_event", { 5000 }, 4, "EINTR")'
    has_line 'expect_int("rdma_get_send_comp", 1, rdma_get_send_comp(cm_id1, &wc1));'
    has_line 'expect_int("rdma_get_send_comp wr_id", 10775, wc1.wr_id);'
    has_line 'expect_int("rdma_get_send_comp status", IBV_WC_SUCCESS, wc1.status);'
    has_line 'expect_int("rdma_get_send_comp opcode", IBV_WC_RDMA_WRITE, wc1.opcode);'
    has_line 'expect_int("rdma_get_send_comp byte_len", 4660, wc1.byte_len);'
    has_line 'expect_int("rdma_get_recv_comp", 1, rdma_get_recv_comp(cm_id1, &wc2));'
    has_line 'expect_int("rdma_get_recv_comp wr_id", 4660, wc2.wr_id);'
    has_line 'expect_int("rdma_get_recv_comp status", IBV_WC_WR_FLUSH_ERR, wc2.status);'
    # an error completion's opcode and byte_len are undefined (ibv_poll_cq(3)): not checked
    [ "$(grep -c 'rdma_get_recv_comp opcode\|rdma_get_recv_comp byte_len' <<<"$output")" -eq 0 ]
    has_line 'expect_fail("rdma_get_send_comp", rdma_get_send_comp(cm_id1, &wc3), 11);'
    has_line '/* cm_id1:get_recv_comp: no completion within the timeout here: timing, not waited for */'
    [ "$(grep -c '^struct ibv_wc ' <<<"$output")" -eq 3 ]
    has_line 'struct rdma_cm_event *cm_event_failed1;'
    has_line 'expect_fail("rdma_get_cm_event", rdma_get_cm_event(cm_channel1, &cm_event_failed1), 4);'
    compiles
}

@test "export by hand: a helper named only in a comment (a failed rdma_get_cm_event, a get_async_event and a get_cq_event that timed out) is left out of the program, which compiles with -Werror" {
    export_main '
      local ctx, ch = S.object("context", true), S.object("cm_channel", true)
      S.call(ctx, "get_pkey_index", { 1, 0xffff }, { 0 })
      S.call(ctx, "get_async_event", { 1 }, { n = 1 })
      S.failed(ch, "get_cm_event", { 5000 }, 4, "EINTR")
      S.call(S.object("comp_channel"), "get_cq_event", { 1 }, { n = 1 })'
    has_line '/* ctx1:get_async_event: no async event within the timeout here: timing, not waited for */'
    has_line 'expect_fail("rdma_get_cm_event", rdma_get_cm_event(cm_channel1, &cm_event_failed1), 4);'
    has_line '/* channel1:get_cq_event: no completion event within the timeout here: timing, not waited for */'
    run grep -c '^static .*\(get_cm_event\|get_async_event\|get_cq_event\|wait_fd\)(' "$BATS_TEST_TMPDIR/by_hand.c"
    [ "$output" = 0 ]
    compiles
}

@test "export by hand: a get_cq_event and a get_async_event that failed (not timed out) are C calls expected to fail with the recorded errno, not a timeout comment" {
    export_main '
      local ctx, ch = S.object("context", true), S.object("comp_channel", true)
      S.failed(ch, "get_cq_event", { 100 }, 9, "EBADF")
      S.failed(ctx, "get_async_event", { 100 }, 4, "EINTR")
      S.failed(ch, "get_cq_event", { 100 }, 11, "EAGAIN")'
    has_line 'struct ibv_cq *ev_cq_failed1;'
    has_line 'void *ev_ctx_failed1;'
    has_line 'expect_fail("ibv_get_cq_event", ibv_get_cq_event(channel1, &ev_cq_failed1, &ev_ctx_failed1), 9);'
    has_line 'struct ibv_async_event async_event_failed1;'
    has_line 'expect_fail("ibv_get_async_event", ibv_get_async_event(ctx1, &async_event_failed1), 4);'
    has_line 'expect_fail("ibv_get_cq_event", ibv_get_cq_event(channel1, &ev_cq_failed2, &ev_ctx_failed2), 11);'
    run grep -c 'timing, not waited for' "$BATS_TEST_TMPDIR/by_hand.c"
    [ "$output" = 0 ]
    compiles
}

@test "export by hand: cq:modify's count and period in their places, and C's defaults where the call left them out (count 1, period 0, as verbsh passed them)" {
    export_main '
      local cq = S.object("cq", true)
      S.call(cq, "modify", { 7, 300 })
      S.failed(cq, "modify", { 12 }, 95, "EOPNOTSUPP")
      S.call(cq, "modify", {})'
    has_line 'struct ibv_modify_cq_attr modify_cq_attr1 = { .attr_mask = IBV_CQ_ATTR_MODERATE, .moderate = { .cq_count = 7, .cq_period = 300 } };'
    has_line 'expect_int("ibv_modify_cq", 0, ibv_modify_cq(cq1, &modify_cq_attr1));'
    has_line 'struct ibv_modify_cq_attr modify_cq_attr2 = { .attr_mask = IBV_CQ_ATTR_MODERATE, .moderate = { .cq_count = 12, .cq_period = 0 } };'
    has_line 'expect_int("ibv_modify_cq", 95, ibv_modify_cq(cq1, &modify_cq_attr2));'
    has_line 'struct ibv_modify_cq_attr modify_cq_attr3 = { .attr_mask = IBV_CQ_ATTR_MODERATE, .moderate = { .cq_count = 1, .cq_period = 0 } };'
    compiles
}

@test "export by hand: an extended CQ's fields read one by one (cq.wr_id, cq.status, cq:read_*) are each checked against the value recorded: enums and flags by their C names, qp_num and src_qp as the session's QP, imm_data in host order" {
    export_main '
      local pd, cq = S.object("pd", true), S.object("cq", true)
      local qp = S.object("qp", false, { qp_num = 0x2a17 })
      S.call(pd, "create_qp", { { qp_type = "UD", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 4, max_recv_wr = 4 } } }, { qp })
      S.call(cq, "__read", { "wr_id" }, { 0x1234 })
      S.call(cq, "__read", { "status" }, { "REM_ACCESS_ERR" })
      S.call(cq, "read_opcode", {}, { "RECV_RDMA_WITH_IMM" })
      S.call(cq, "read_wc_flags", {}, { { "GRH", "WITH_IMM" } })
      S.call(cq, "read_imm_data", {}, { 0x12345678 })
      S.call(cq, "read_qp_num", {}, { 0x2a17 })
      S.call(cq, "read_src_qp", {}, { 0x3b28 })
      S.call(cq, "read_byte_len", {}, { 4093 })
      S.call(cq, "read_vendor_err", {}, { 0x51 })
      S.call(cq, "read_slid", {}, { 7 })
      S.call(cq, "read_sl", {}, { 3 })
      S.call(cq, "read_dlid_path_bits", {}, { 2 })'
    [ "$(grep -A1 -x '/\* cq1.wr_id \*/' <<<"$output" | tail -1)" = 'expect_int("cq1 wr_id", 4660, cq1_ex->wr_id);' ]
    [ "$(grep -A1 -x '/\* cq1.status \*/' <<<"$output" | tail -1)" = 'expect_int("cq1 status", IBV_WC_REM_ACCESS_ERR, cq1_ex->status);' ]
    has_line 'expect_int("cq1 read_opcode", IBV_WC_RECV_RDMA_WITH_IMM, ibv_wc_read_opcode(cq1_ex));'
    has_line 'expect_int("cq1 read_wc_flags", IBV_WC_GRH | IBV_WC_WITH_IMM, ibv_wc_read_wc_flags(cq1_ex));'
    has_line 'expect_int("cq1 read_imm_data", 305419896, ntohl(ibv_wc_read_imm_data(cq1_ex)));'
    has_line 'expect_int("cq1 read_qp_num", qp1->qp_num, ibv_wc_read_qp_num(cq1_ex));'
    has_line 'expect_int("cq1 read_src_qp", 15144, ibv_wc_read_src_qp(cq1_ex));'   # a QP the session did not make
    has_line 'expect_int("cq1 read_byte_len", 4093, ibv_wc_read_byte_len(cq1_ex));'
    has_line 'expect_int("cq1 read_vendor_err", 81, ibv_wc_read_vendor_err(cq1_ex));'
    has_line 'expect_int("cq1 read_slid", 7, ibv_wc_read_slid(cq1_ex));'
    has_line 'expect_int("cq1 read_sl", 3, ibv_wc_read_sl(cq1_ex));'
    has_line 'expect_int("cq1 read_dlid_path_bits", 2, ibv_wc_read_dlid_path_bits(cq1_ex));'
    compiles
}

@test "export by hand: ibv_query_srq checks the srq_limit read back, ibv_query_qp the state, each in its own attr; a failed query its errno and no field; a result without srq_limit no field" {
    export_main '
      local srq, qp = S.object("srq", true), S.object("qp", true)
      S.call(srq, "query", {}, { { srq_limit = 13, max_wr = 64, max_sge = 2 } })
      S.call(qp, "query", {}, { { qp_state = "RTR" } })
      S.failed(qp, "query", {}, 22, "EINVAL")
      S.call(srq, "query", {}, { { max_wr = 64 } })'
    has_line 'expect_int("ibv_query_srq", 0, ibv_query_srq(srq1, &srq_attr1));'
    has_line 'expect_int("srq1 srq_limit", 13, srq_attr1.srq_limit);'
    has_line 'expect_int("ibv_query_qp", 0, ibv_query_qp(qp1, &attr1, IBV_QP_STATE, &init_attr1));'
    has_line 'expect_int("qp1 state", IBV_QPS_RTR, attr1.qp_state);'
    has_line 'expect_int("ibv_query_qp", 22, ibv_query_qp(qp1, &attr2, IBV_QP_STATE, &init_attr2));'
    has_line 'expect_int("ibv_query_srq", 0, ibv_query_srq(srq1, &srq_attr2));'
    [ "$(grep -c 'srq_limit\|qp_state' <<<"$output")" -eq 2 ]
    compiles
}

@test "export by hand: an SRQ of rdma_create_srq or rdma_create_srq_ex is its id's srq, destroyed by rdma_destroy_srq of that id; one of ibv_create_srq by ibv_destroy_srq; the program includes rdma_verbs.h for them and compiles" {
    export_main '
      local pd, id = S.object("pd", true), S.object("cm_id", true)
      local srq1, srq2, srq3 = S.object("srq"), S.object("srq"), S.object("srq")
      S.call(pd, "create_srq", { { max_wr = 16, max_sge = 2 } }, { srq1 })
      S.call(id, "create_srq", { pd, { max_wr = 32, max_sge = 1 } }, { srq2 })
      S.call(id, "create_srq_ex", { { pd = pd, srq_type = "BASIC", attr = { max_wr = 8, max_sge = 1 } } }, { srq3 })
      S.call(srq2, "destroy", {}, {})
      S.call(srq1, "destroy", {}, {})
      S.call(srq3, "destroy", {}, {})'
    has_line 'struct ibv_srq *srq1 = ibv_create_srq(pd1, &srq_init_attr1);'
    has_line 'expect_int("rdma_create_srq", 0, rdma_create_srq(cm_id1, pd1, &srq_init_attr2));'
    has_line 'struct ibv_srq *srq2 = cm_id1->srq;'
    has_line 'struct ibv_srq_init_attr_ex srq_init_attr_ex1 = { .attr = { .max_wr = 8, .max_sge = 1 }, .comp_mask = IBV_SRQ_INIT_ATTR_PD | IBV_SRQ_INIT_ATTR_TYPE, .srq_type = IBV_SRQT_BASIC, .pd = pd1 };'
    has_line 'struct ibv_srq *srq3 = cm_id1->srq;'
    has_line '(void)srq2;   /* read from cm_id1->srq; rdma_destroy_srq destroys it */'
    has_line '(void)srq3;   /* read from cm_id1->srq; rdma_destroy_srq destroys it */'
    [ "$(grep -c '^rdma_destroy_srq(cm_id1);$' <<<"$output")" -eq 2 ]
    has_line 'expect_int("ibv_destroy_srq", 0, ibv_destroy_srq(srq1));'
    grep -qx '#include <rdma/rdma_verbs.h>' "$BATS_TEST_TMPDIR/by_hand.c"
    compiles
}

@test "export by hand: ibv_wr_set_sge of an MR is the MR's lkey and its address plus the offset given, as the program's MR holds them; of numbers, the numbers" {
    export_main '
      local qp, mr = S.object("qp", true), S.object("mr", true)
      S.call(qp, "wr_start", {})
      S.call(qp, "wr_send", {})
      S.call(qp, "wr_set_sge", { mr, 256, 7 })
      S.call(qp, "wr_send", {})
      S.call(qp, "wr_set_sge", { 0x4321, 0x30000, 12 })
      S.call(qp, "wr_complete", {}, { n = 0 })'
    has_line 'ibv_wr_set_sge(qp1_ex, mr1->lkey, (uintptr_t)mr1->addr + 256, 7);'
    has_line 'ibv_wr_set_sge(qp1_ex, 0x4321, 0x30000, 12);'
    compiles
}

@test "export by hand: rdma_connect and rdma_accept take NULL or the conn_param given (private_data_len its length unless given), rdma_reject its data or NULL; rdma_init_qp_attr checks the mask; the ports and addresses read back are checked, in host order, an address or NULL; ibv_attach/detach_mcast take the group's GID bytes" {
    export_main '
      local id, id2, qp = S.object("cm_id", true), S.object("cm_id", true), S.object("qp", true)
      S.call(id, "connect", {}, {})
      S.call(id, "connect", { { responder_resources = 1, initiator_depth = 2, retry_count = 7, rnr_retry_count = 6, private_data = "hi" } }, {})
      S.failed(id2, "accept", { { private_data = "abc", private_data_len = 2 } }, 22, "EINVAL")
      S.call(id2, "accept", {}, {})
      S.call(id2, "reject", { "no" }, {})
      S.call(id2, "reject", {}, {})
      S.call(id, "establish", {}, {})
      S.call(id, "init_qp_attr", { "RTR" }, { {}, { "STATE", "AV", "PATH_MTU" } })
      S.failed(id, "init_qp_attr", { "RTS" }, 22, "EINVAL")
      S.call(id, "get_src_port", {}, { 41235 })
      S.call(id, "get_dst_port", {}, { 7471 })
      S.call(id, "get_local_addr", {}, { "198.51.100.1" })
      S.call(id, "get_peer_addr", {}, { "fe80::1" })
      S.call(id2, "get_peer_addr", {}, { nil, n = 1 })
      S.call(qp, "attach_mcast", { "ff0e::1234:5678", 0xc001 }, {})
      S.failed(qp, "detach_mcast", { "ff0e::1234:5678", 0xc002 }, 22, "EINVAL")
      S.call(id, "disconnect", {}, {})'
    has_line 'expect_int("rdma_connect", 0, rdma_connect(cm_id1, NULL));'
    has_line 'struct rdma_conn_param conn_param1 = { .private_data = "hi", .private_data_len = 2, .responder_resources = 1, .initiator_depth = 2, .retry_count = 7, .rnr_retry_count = 6 };'
    has_line 'expect_int("rdma_connect", 0, rdma_connect(cm_id1, &conn_param1));'
    has_line 'struct rdma_conn_param conn_param2 = { .private_data = "abc", .private_data_len = 2 };'
    has_line 'expect_fail("rdma_accept", rdma_accept(cm_id2, &conn_param2), 22);'
    has_line 'expect_int("rdma_accept", 0, rdma_accept(cm_id2, NULL));'
    has_line 'expect_int("rdma_reject", 0, rdma_reject(cm_id2, "no", 2));'
    has_line 'expect_int("rdma_reject", 0, rdma_reject(cm_id2, NULL, 0));'
    has_line 'expect_int("rdma_establish", 0, rdma_establish(cm_id1));'
    has_line 'struct ibv_qp_attr attr1 = { .qp_state = IBV_QPS_RTR };'
    has_line 'expect_int("rdma_init_qp_attr", 0, rdma_init_qp_attr(cm_id1, &attr1, &mask1));'
    has_line 'expect_int("rdma_init_qp_attr mask", IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU, mask1);'
    has_line 'expect_fail("rdma_init_qp_attr", rdma_init_qp_attr(cm_id1, &attr2, &mask2), 22);'
    [ "$(grep -c 'rdma_init_qp_attr mask' <<<"$output")" -eq 1 ]
    has_line 'expect_int("cm_id1:get_src_port", 41235, ntohs(rdma_get_src_port(cm_id1)));'
    has_line 'expect_int("cm_id1:get_dst_port", 7471, ntohs(rdma_get_dst_port(cm_id1)));'
    has_line 'expect_addr("cm_id1:get_local_addr", "198.51.100.1", rdma_get_local_addr(cm_id1));'
    has_line 'expect_addr("cm_id1:get_peer_addr", "fe80::1", rdma_get_peer_addr(cm_id1));'
    has_line 'expect_addr("cm_id2:get_peer_addr", NULL, rdma_get_peer_addr(cm_id2));'
    has_line 'union ibv_gid gid1 = { .raw = { 0xff, 0x0e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x34, 0x56, 0x78 } };'
    has_line 'expect_int("ibv_attach_mcast", 0, ibv_attach_mcast(qp1, &gid1, 49153));'
    has_line 'expect_int("ibv_detach_mcast", 22, ibv_detach_mcast(qp1, &gid2, 49154));'
    has_line 'expect_int("rdma_disconnect", 0, rdma_disconnect(cm_id1));'
    compiles
}

@test "export of a session: verbs' pure conversions (the *_str names, the rates, the flow label's UDP port) are their C call with the value verbsh returned, and the program run against the installed libraries gets the same" {
    cd "$BATS_TEST_TMPDIR"
    cat >conv.lua <<'LUA'
print(verbs.wc_status_str("REM_ACCESS_ERR"), verbs.node_type_str("RNIC"), verbs.port_state_str("ARMED"))
print(verbs.event_type_str("SRQ_LIMIT_REACHED"), verbs.event_str("ROUTE_RESOLVED"))
print(verbs.rate_to_mbps("25_GBPS"), verbs.rate_to_mult("40_GBPS"), verbs.mbps_to_rate(14062), verbs.mult_to_rate(12))
print(verbs.flow_label_to_udp_sport(0x12345))
LUA
    run "$VERBSH" --export-c conv.c conv.lua
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'remote access error\tiWARP NIC\tarmed' ]
    [ "${lines[1]}" = $'SRQ limit reached\tRDMA_CM_EVENT_ROUTE_RESOLVED' ]
    [ "${lines[2]}" = $'25781\t16\t14_GBPS\t30_GBPS' ]
    [ "${lines[3]}" = "58177" ]
    [ "${lines[4]}" = "verbsh: 10 verb calls exported to conv.c; cc -Wall -Wextra -Werror conv.c -libverbs -lrdmacm && ./a.out" ]
    [ "${#lines[@]}" -eq 5 ]
    run grep -o 'expect_.*;$' conv.c
    echo "$output"
    has_line 'expect_str("ibv_wc_status_str", "remote access error", ibv_wc_status_str(IBV_WC_REM_ACCESS_ERR));'
    has_line 'expect_str("ibv_node_type_str", "iWARP NIC", ibv_node_type_str(IBV_NODE_RNIC));'
    has_line 'expect_str("ibv_port_state_str", "armed", ibv_port_state_str(IBV_PORT_ARMED));'
    has_line 'expect_str("ibv_event_type_str", "SRQ limit reached", ibv_event_type_str(IBV_EVENT_SRQ_LIMIT_REACHED));'
    has_line 'expect_str("rdma_event_str", "RDMA_CM_EVENT_ROUTE_RESOLVED", rdma_event_str(RDMA_CM_EVENT_ROUTE_RESOLVED));'
    has_line 'expect_int("ibv_rate_to_mbps", 25781, ibv_rate_to_mbps(IBV_RATE_25_GBPS));'
    has_line 'expect_int("ibv_rate_to_mult", 16, ibv_rate_to_mult(IBV_RATE_40_GBPS));'
    has_line 'expect_int("mbps_to_ibv_rate", IBV_RATE_14_GBPS, mbps_to_ibv_rate(14062));'
    has_line 'expect_int("mult_to_ibv_rate", IBV_RATE_30_GBPS, mult_to_ibv_rate(12));'
    has_line 'expect_int("ibv_flow_label_to_udp_sport", 58177, ibv_flow_label_to_udp_sport(74565));'
    # C, the oracle: each call returns what verbsh said
    cc -Wall -Wextra -Werror conv.c -libverbs -lrdmacm -o conv
    run ./conv
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = reproduced ]
}

@test "export by hand: the extended QP's fields set (qp.wr_id, qp.wr_flags as C flags) and a window's rkey set after a type 2 bind (mw->rkey = ibv_inc_rkey) are assignments under their own comment; later rkeys are written through mw->rkey as it now holds" {
    export_main '
      local pd, qp, mw = S.object("pd", true), S.object("qp", true), S.object("mw", false, { rkey = 0x5a00 })
      S.call(pd, "alloc_mw", { "TYPE_2" }, { mw })
      S.call(qp, "wr_start", {})
      S.call(qp, "__newindex", { "wr_id", 0x1234, n = 2 }, {})
      S.call(qp, "__newindex", { "wr_flags", { "SIGNALED", "FENCE" }, n = 2 }, {})
      S.call(qp, "wr_send_inv", { 0x5a00 })
      S.call(mw, "__newindex", { "rkey", 0x5a01, n = 2 }, {})
      S.call(qp, "wr_send_inv", { 0x5a01 })
      S.call(qp, "wr_local_inv", { 0x5a02 })
      S.call(qp, "wr_complete", {}, { n = 0 })'
    [ "$(grep -A1 -x '/\* qp1.wr_id = \*/' <<<"$output" | tail -1)" = 'qp1_ex->wr_id = 4660;' ]
    [ "$(grep -A1 -x '/\* qp1.wr_flags = \*/' <<<"$output" | tail -1)" = 'qp1_ex->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;' ]
    [ "$(grep -A1 -x '/\* mw1.rkey = \*/' <<<"$output" | tail -1)" = 'mw1->rkey = ibv_inc_rkey(mw1->rkey);' ]
    [ "$(grep -c '^ibv_wr_send_inv(qp1_ex, mw1->rkey);$' <<<"$output")" -eq 2 ]
    has_line 'ibv_wr_local_inv(qp1_ex, ibv_inc_rkey(mw1->rkey));'
    compiles
}

@test "export by hand: rdma_bind_addr, rdma_resolve_addr (NULL or the source, the timeout given or 2000), rdma_resolve_route, rdma_listen; a dest_qp_num is the QP of that number other than the one modified (two devices' QPs can share a number), else the number" {
    export_main '
      local pd, pd2, cq, id = S.object("pd", true), S.object("pd", true), S.object("cq", true), S.object("cm_id", true)
      local qa, qb = S.object("qp", false, { qp_num = 0x11 }), S.object("qp", false, { qp_num = 0x11 })
      local qc = S.object("qp", false, { qp_num = 0x2a17 })
      local init = { qp_type = "RC", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 4, max_recv_wr = 4 } }
      S.call(pd, "create_qp", { init }, { qa })
      S.call(pd2, "create_qp", { init }, { qb })
      S.call(id, "bind_addr", { "198.51.100.1" }, {})
      S.call(id, "resolve_addr", { nil, "198.51.100.2:7471", n = 2 }, {})
      S.call(id, "resolve_addr", { "198.51.100.1", "[fe80::2]:7471", 500 }, {})
      S.failed(id, "resolve_route", {}, 110, "ETIMEDOUT")
      S.call(id, "resolve_route", { 750 }, {})
      S.call(id, "listen", { 3 }, {})
      S.call(id, "create_qp", { pd, init }, { qc })
      S.call(qb, "modify", { { qp_state = "RTR", dest_qp_num = 0x11 } }, {})
      S.call(qa, "modify", { { qp_state = "RTR", dest_qp_num = 0x11 } }, {})
      S.call(qa, "modify", { { qp_state = "RTR", dest_qp_num = 0x2a17 } }, {})
      S.call(qa, "modify", { { qp_state = "RTR", dest_qp_num = 0x999 } }, {})'
    has_line 'expect_int("rdma_bind_addr", 0, rdma_bind_addr(cm_id1, sockaddr_of(&addr1, "198.51.100.1")));'
    has_line 'expect_int("rdma_resolve_addr", 0, rdma_resolve_addr(cm_id1, NULL, sockaddr_of(&addr2, "198.51.100.2:7471"), 2000));'
    has_line 'expect_int("rdma_resolve_addr", 0, rdma_resolve_addr(cm_id1, sockaddr_of(&addr3, "198.51.100.1"), sockaddr_of(&addr4, "[fe80::2]:7471"), 500));'
    has_line 'expect_fail("rdma_resolve_route", rdma_resolve_route(cm_id1, 2000), 110);'
    has_line 'expect_int("rdma_resolve_route", 0, rdma_resolve_route(cm_id1, 750));'
    has_line 'expect_int("rdma_listen", 0, rdma_listen(cm_id1, 3));'
    has_line 'expect_int("rdma_create_qp", 0, rdma_create_qp(cm_id1, pd1, &init_attr3));'
    has_line 'struct ibv_qp *qp3 = cm_id1->qp;'
    has_line 'struct ibv_qp_attr attr1 = { .qp_state = IBV_QPS_RTR, .dest_qp_num = qp1->qp_num };'
    has_line 'expect_int("ibv_modify_qp", 0, ibv_modify_qp(qp2, &attr1, IBV_QP_STATE | IBV_QP_DEST_QPN));'
    has_line 'struct ibv_qp_attr attr2 = { .qp_state = IBV_QPS_RTR, .dest_qp_num = qp2->qp_num };'
    has_line 'struct ibv_qp_attr attr3 = { .qp_state = IBV_QPS_RTR, .dest_qp_num = qp3->qp_num };'
    has_line 'struct ibv_qp_attr attr4 = { .qp_state = IBV_QPS_RTR, .dest_qp_num = 2457 };'
    compiles
}

@test "export by hand: ibv_modify_cq (the moderation given, else 1 and 0), ibv_query_ece, ibv_resize_cq and the cqe it left, ibv_query_pkey and the pkey in host order, ibv_query_device_ex's max_qp, ibv_get_srq_num, rdma_set_option (each option's C name and type), rdma_get_devices' count, ibv_fork_init, ibv_post_srq_ops" {
    export_main '
      local ctx, cq, qp = S.object("context", true), S.object("cq", true), S.object("qp", true)
      local srq, id = S.object("srq", true), S.object("cm_id", true)
      S.call(cq, "modify", { 16, 5 }, {})
      S.failed(cq, "modify", {}, 95, "EOPNOTSUPP")
      S.call(qp, "query_ece", {}, { { vendor_id = 0x2c9, options = 3 } })
      S.failed(qp, "query_ece", {}, 95, "EOPNOTSUPP")
      S.call(cq, "resize", { 100 }, { 127 })
      S.failed(cq, "resize", { 1 << 20 }, 22, "EINVAL")
      S.call(ctx, "query_pkey", { 1, 0 }, { 0xffff })
      S.failed(ctx, "query_pkey", { 1, 200 }, 22, "EINVAL")
      S.call(ctx, "query_device_ex", {}, { { max_qp = 0x1234 } })
      S.call(srq, "get_srq_num", {}, { 0x77 })
      S.call(id, "set_option", { "ID", "TOS", 0x68 }, {})
      S.call(id, "set_option", { "ID", "REUSEADDR", true }, {})
      S.failed(id, "set_option", { "ID", 2, false }, 22, "EINVAL")
      S.call(id, "set_option", { "ID", "ACK_TIMEOUT", 14 }, {})
      S.call(nil, "get_devices", {}, { { 1, 2 } })
      S.failed(nil, "get_devices", {}, 19, "ENODEV")
      S.call(nil, "fork_init", {}, { 0 })
      S.failed(srq, "post_srq_ops", { 0x42 }, 95, "EOPNOTSUPP")'
    has_line 'struct ibv_modify_cq_attr modify_cq_attr1 = { .attr_mask = IBV_CQ_ATTR_MODERATE, .moderate = { .cq_count = 16, .cq_period = 5 } };'
    has_line 'expect_int("ibv_modify_cq", 0, ibv_modify_cq(cq1, &modify_cq_attr1));'
    has_line 'struct ibv_modify_cq_attr modify_cq_attr2 = { .attr_mask = IBV_CQ_ATTR_MODERATE, .moderate = { .cq_count = 1, .cq_period = 0 } };'
    has_line 'expect_int("ibv_modify_cq", 95, ibv_modify_cq(cq1, &modify_cq_attr2));'
    has_line 'expect_int("ibv_query_ece", 0, ibv_query_ece(qp1, &ece1));'
    has_line 'expect_int("ibv_query_ece", 95, ibv_query_ece(qp1, &ece2));'
    has_line 'expect_int("ibv_resize_cq", 0, ibv_resize_cq(cq1, 100));'
    has_line 'expect_int("cq1->cqe", 127, cq1->cqe);'
    has_line 'expect_int("ibv_resize_cq", 22, ibv_resize_cq(cq1, 1048576));'
    [ "$(grep -c 'cq1->cqe' <<<"$output")" -eq 1 ]
    has_line 'expect_int("ibv_query_pkey", 0, ibv_query_pkey(ctx1, 1, 0, &pkey1));'
    has_line 'expect_int("pkey", 0xffff, ntohs(pkey1));'
    has_line 'expect_fail("ibv_query_pkey", ibv_query_pkey(ctx1, 1, 200, &pkey2), 22);'
    [ "$(grep -c '"pkey"' <<<"$output")" -eq 1 ]
    has_line 'expect_int("ibv_query_device_ex", 0, ibv_query_device_ex(ctx1, NULL, &device_attr_ex1));'
    has_line 'expect_int("device_attr_ex1.orig_attr.max_qp", 4660, device_attr_ex1.orig_attr.max_qp);'
    has_line 'expect_int("ibv_get_srq_num", 0, ibv_get_srq_num(srq1, &srq_num1));'
    has_line 'uint8_t optval1 = 104;'
    has_line 'expect_int("rdma_set_option", 0, rdma_set_option(cm_id1, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &optval1, sizeof optval1));'
    has_line 'int optval2 = 1;'
    has_line 'expect_int("rdma_set_option", 0, rdma_set_option(cm_id1, RDMA_OPTION_ID, RDMA_OPTION_ID_REUSEADDR, &optval2, sizeof optval2));'
    has_line 'int optval3 = 0;'
    has_line 'expect_fail("rdma_set_option", rdma_set_option(cm_id1, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY, &optval3, sizeof optval3), 22);'
    has_line 'uint8_t optval4 = 14;'
    has_line 'expect_int("rdma_set_option", 0, rdma_set_option(cm_id1, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &optval4, sizeof optval4));'
    has_line 'struct ibv_context **rdma_devices1 = rdma_get_devices(&num_devices1);'
    has_line 'expect_int("rdma_get_devices count", 2, num_devices1);'
    has_line 'rdma_free_devices(rdma_devices1);'
    has_line 'expect_null("rdma_get_devices", rdma_devices2, 19);'
    [ "$(grep -c 'rdma_free_devices' <<<"$output")" -eq 1 ]
    has_line 'expect_int("ibv_fork_init", 0, ibv_fork_init());'
    has_line 'struct ibv_ops_wr ops_wr1 = { .wr_id = 66, .opcode = IBV_WR_TAG_SYNC, .flags = IBV_OPS_SIGNALED }, *bad_ops_wr1 = NULL;'
    has_line 'expect_int("ibv_post_srq_ops", 95, ibv_post_srq_ops(srq1, &ops_wr1, &bad_ops_wr1));'
    compiles
}

@test "export by hand: each start_poll and next_poll is written in its place: the one that found the CQ empty a comment, the one that found a completion its poll_ex, in the order recorded" {
    export_main '
      local cq = S.object("cq", true)
      S.call(cq, "start_poll", {}, { false })
      S.call(cq, "start_poll", {}, { true })
      S.call(cq, "next_poll", {}, { true })
      S.call(cq, "next_poll", {}, { false })
      S.call(cq, "end_poll", {}, { true })'
    [ "${lines[0]}" = "/* cq1:start_poll */" ]
    [ "${lines[1]}" = "/* cq1:start_poll found the CQ empty here: timing, not polled */" ]
    [ "${lines[2]}" = "/* cq1:start_poll */" ]
    [ "${lines[3]}" = "struct ibv_poll_cq_attr poll_attr1 = { 0 };" ]
    [ "${lines[4]}" = 'poll_ex(cq1_ex, &poll_attr1, "cq1:start_poll");' ]
    [ "${lines[5]}" = "/* cq1:next_poll */" ]
    [ "${lines[6]}" = 'poll_ex(cq1_ex, NULL, "cq1:next_poll");' ]
    [ "${lines[7]}" = "/* cq1:next_poll */" ]
    [ "${lines[8]}" = "/* cq1:next_poll found no further completion here: timing, not polled */" ]
    [ "${lines[9]}" = "/* cq1:end_poll */" ]
    [ "${lines[10]}" = "ibv_end_poll(cq1_ex);" ]
    compiles
}

@test "export by hand: rdma_create_event_channel and rdma_create_id, made or failed; a cm event is waited for with the recorded timeout (5 s at least) and checked by its type and status; none within the timeout is a comment; rdma_ack_cm_event, rdma_destroy_id, rdma_destroy_event_channel" {
    export_main '
      local ch, id = S.object("cm_channel"), S.object("cm_id")
      S.call(nil, "create_event_channel", {}, { ch })
      S.failed(nil, "create_event_channel", {}, 24, "EMFILE")
      S.call(ch, "create_id", { "TCP" }, { id })
      S.failed(ch, "create_id", { "UDP" }, 12, "ENOMEM")
      local e1 = S.object("cm_event", false, { event = "CONNECT_REQUEST", status = 0 })
      local e2 = S.object("cm_event", false, { event = "REJECTED", status = 8 })
      S.call(ch, "get_cm_event", { 8000 }, { e1 })
      S.call(e1, "ack", {}, {})
      S.call(ch, "get_cm_event", { 100 }, { e2 })
      S.call(ch, "get_cm_event", { 100 }, { nil, n = 1 })
      S.call(id, "destroy", {}, {})
      S.call(ch, "destroy", {}, {})'
    has_line 'struct rdma_event_channel *cm_channel1 = rdma_create_event_channel();'
    has_line 'expect_ptr("rdma_create_event_channel", cm_channel1);'
    has_line 'struct rdma_event_channel *cm_channel_failed1 = rdma_create_event_channel();'
    has_line 'expect_null("rdma_create_event_channel", cm_channel_failed1, 24);'
    has_line 'expect_int("rdma_create_id", 0, rdma_create_id(cm_channel1, &cm_id1, NULL, RDMA_PS_TCP));'
    has_line 'expect_fail("rdma_create_id", rdma_create_id(cm_channel1, &cm_id_failed1, NULL, RDMA_PS_UDP), 12);'
    has_line 'struct rdma_cm_event *cm_event1 = get_cm_event(cm_channel1, 8000, RDMA_CM_EVENT_CONNECT_REQUEST, 0);'
    has_line 'expect_int("rdma_ack_cm_event", 0, rdma_ack_cm_event(cm_event1));'
    has_line 'struct rdma_cm_event *cm_event2 = get_cm_event(cm_channel1, 5000, RDMA_CM_EVENT_REJECTED, 8);'
    has_line '/* cm_channel1:get_cm_event: no event within the timeout here: timing, not waited for */'
    has_line 'expect_int("rdma_destroy_id", 0, rdma_destroy_id(cm_id1));'
    has_line 'rdma_destroy_event_channel(cm_channel1);'
    compiles
}

@test "export by hand: an SGE of an MR without a length is the rest of the MR from its offset (all of it from 0); a QP of rdma_create_qp_ex is the one a dest_qp_num of its number names" {
    export_main '
      local qp, pd, id = S.object("qp", true, { qp_num = 0x11 }), S.object("pd", true), S.object("cm_id", true)
      local mr = S.object("mr", false, { addr = 0x1000, length = 4096, lkey = 0x1234, rkey = 0x5678 })
      S.call(pd, "reg_mr", { 4096, "LOCAL_WRITE" }, { mr })
      S.call(qp, "post_recv", { { wr_id = 9, sg_list = { { mr = mr }, { mr = mr, offset = 100 } } } }, {})
      local qx = S.object("qp", false, { qp_num = 0x2a17 })
      S.call(id, "create_qp_ex", { { qp_type = "RC", pd = pd, cap = { max_send_wr = 2 } } }, { qx })
      S.call(qp, "modify", { { qp_state = "RTR", dest_qp_num = 0x2a17 } }, {})'
    has_line 'struct ibv_sge sge1[2] = { { .addr = (uintptr_t)mr1->addr + 0, .length = 4096, .lkey = mr1->lkey }, { .addr = (uintptr_t)mr1->addr + 100, .length = 3996, .lkey = mr1->lkey } };'
    has_line 'expect_int("rdma_create_qp_ex", 0, rdma_create_qp_ex(cm_id1, &init_attr_ex1));'
    has_line 'struct ibv_qp *qp2 = cm_id1->qp;'
    has_line 'struct ibv_qp_attr attr1 = { .qp_state = IBV_QPS_RTR, .dest_qp_num = qp2->qp_num };'
    compiles
}

@test "verbsh --export-c to a file it cannot write stops before the script runs, naming the file and why; an existing file is left as it was when nothing is exported" {
    cd "$BATS_TEST_TMPDIR"
    echo 'print("ran")' >s.lua
    run "$VERBSH" --export-c "$BATS_TEST_TMPDIR/no/such/dir/x.c" s.lua
    echo "$output"
    [ "$status" -eq 1 ]
    [ "$output" = "--export-c: cannot write $BATS_TEST_TMPDIR/no/such/dir/x.c: No such file or directory" ]
    echo keep >exist.c
    run "$VERBSH" --export-c exist.c s.lua
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "ran" ]
    [ "${lines[1]}" = "verbsh: --export-c exist.c: no verb was called, nothing written" ]
    [ "$(cat exist.c)" = keep ]
}

@test "export by hand: a GRH that mr:read read from a registered MR is passed to ibv_init_ah_from_wc and ibv_create_ah_from_wc in place (the MR at that offset), that read not compared; other reads compared, other GRH bytes copied" {
    export_main '
      local ctx, pd = S.object("context", true), S.object("pd", true)
      local mr = S.object("mr", false, { addr = 0x1000, length = 4096, lkey = 0x1234, rkey = 0x5678 })
      S.call(pd, "reg_mr", { 4096, "LOCAL_WRITE" }, { mr })
      local grh = ("\x60\x12\x34\x56"):rep(10)
      S.call(mr, "read", { 40, 40 }, { grh })
      S.call(mr, "read", { 0, 4 }, { "E\0\0\28" })
      local wc = { wr_id = 7, status = "SUCCESS", opcode = "RECV", byte_len = 40, qp_num = 0x11, src_qp = 0x2a17, wc_flags = "GRH" }
      S.call(ctx, "init_ah_from_wc", { 1, wc, grh }, { { is_global = 1, port_num = 1 } })
      S.call(pd, "create_ah_from_wc", { wc, grh, 1 }, { S.object("ah") })
      S.call(pd, "create_ah_from_wc", { wc, ("a"):rep(40), 1 }, { S.object("ah") })'
    has_line "/* the GRH that the AH below is made from, read in place; not compared: its IPv4 header's ID and checksum differ per packet */"
    has_line 'expect_bytes("mr1:read(0, 4)", "E\000\000\034", (char *)mr1->addr + 0, 4);'
    [ "$(grep -c '^expect_bytes' <<<"$output")" -eq 1 ]
    has_line 'expect_int("ibv_init_ah_from_wc", 0, ibv_init_ah_from_wc(ctx1, 1, &wc1, (struct ibv_grh *)((char *)mr1->addr + 40), &ah_attr1));'
    has_line 'struct ibv_ah *ah1 = ibv_create_ah_from_wc(pd1, &wc2, (struct ibv_grh *)((char *)mr1->addr + 40), 1);'
    has_line 'memcpy(&grh1, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", sizeof grh1);'
    has_line 'struct ibv_ah *ah2 = ibv_create_ah_from_wc(pd1, &wc3, &grh1, 1);'
    compiles
}

@test "export by hand: a cq:poll waits for its completions and checks each (wr_id, status; opcode, byte_len, imm_data and wc_flags only on success); one that found none is a comment. A GID that ibv_query_gid read is the variable an AH's dgid of that GID names; another GID its bytes" {
    export_main '
      local ctx, pd, cq = S.object("context", true), S.object("pd", true), S.object("cq", true)
      S.call(cq, "poll", { 4 }, { { { wr_id = 0x1234, status = "SUCCESS", opcode = "RECV", byte_len = 64, imm_data = 0x12345678,
          wc_flags = { "GRH", "WITH_IMM" } }, { wr_id = 0x2345, status = "WR_FLUSH_ERR", opcode = "RECV", byte_len = 9, wc_flags = "GRH" },
        { wr_id = 0x3456, status = "SUCCESS", opcode = "RDMA_WRITE" } } })
      S.call(cq, "poll", { 4 }, { {} })
      S.call(ctx, "query_gid", { 1, 1 }, { "::ffff:198.51.100.1" })
      S.failed(ctx, "query_gid", { 1, 200 }, 22, "EINVAL")
      S.call(pd, "create_ah", { { is_global = 1, port_num = 1, grh = { dgid = "::ffff:198.51.100.1", sgid_index = 1 } } }, { S.object("ah") })
      S.call(pd, "create_ah", { { is_global = 1, port_num = 1, grh = { dgid = "fe80::2", sgid_index = 0 } } }, { S.object("ah") })'
    has_line 'wait_completions(&cq1_wcs, "completions on cq1", 3);'
    has_line 'expect_wc(&cq1_wcs, "cq1 completion 1 (wr_id 4660)", 4660, IBV_WC_SUCCESS, IBV_WC_RECV, 64, 305419896, IBV_WC_GRH | IBV_WC_WITH_IMM);'
    has_line 'expect_wc(&cq1_wcs, "cq1 completion 2 (wr_id 9029)", 9029, IBV_WC_WR_FLUSH_ERR, 0, 0, 0, 0);'
    has_line 'expect_wc(&cq1_wcs, "cq1 completion 3 (wr_id 13398)", 13398, IBV_WC_SUCCESS, IBV_WC_RDMA_WRITE, 0, 0, 0);'
    has_line '/* cq1:poll found no completion here: timing, not polled */'
    has_line 'expect_int("ibv_query_gid", 0, ibv_query_gid(ctx1, 1, 1, &gid1));'
    has_line 'expect_fail("ibv_query_gid", ibv_query_gid(ctx1, 1, 200, &gid2), 22);'
    has_line 'struct ibv_ah_attr ah_attr1 = { .grh = { .dgid = gid1, .sgid_index = 1 }, .is_global = 1, .port_num = 1 };'
    has_line 'struct ibv_ah_attr ah_attr2 = { .grh = { .dgid = { .raw = { 0xfe, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02 } }, .sgid_index = 0 }, .is_global = 1, .port_num = 1 };'
    compiles
}

@test "export by hand: an rkey two MRs share (two devices') is the MR the remote address falls in; rdma_get_request names the new id, or checks the errno, or is a comment when none came; the id it made is destroyed by rdma_destroy_ep" {
    export_main '
      local pd, qp, id = S.object("pd", true), S.object("qp", true), S.object("cm_id", true)
      local m1 = S.object("mr", false, { addr = 0x10000, length = 4096, lkey = 0x11, rkey = 0x2a })
      local m2 = S.object("mr", false, { addr = 0x40000, length = 4096, lkey = 0x11, rkey = 0x2a })
      S.call(pd, "reg_mr", { 4096, "REMOTE_READ" }, { m1 })
      S.call(pd, "reg_mr", { 4096, "REMOTE_READ" }, { m2 })
      S.call(qp, "wr_start", {})
      S.call(qp, "wr_rdma_read", { 0x2a, 0x10010 })
      S.call(qp, "wr_rdma_write", { 0x2a, 0x10020 })
      S.call(qp, "wr_rdma_read", { 0x2a, 0x40030 })
      S.call(qp, "wr_send_imm", { 0x12345678 })
      S.call(qp, "wr_abort", {})
      local got = S.object("cm_id")
      S.call(id, "get_request", {}, { got })
      S.failed(id, "get_request", {}, 11, "EAGAIN")
      S.call(id, "get_request", {}, { nil, n = 1 })
      S.call(got, "destroy", {}, {})'
    has_line 'ibv_wr_rdma_read(qp1_ex, mr1->rkey, (uintptr_t)mr1->addr + 16);'
    has_line 'ibv_wr_rdma_write(qp1_ex, mr1->rkey, (uintptr_t)mr1->addr + 32);'
    has_line 'ibv_wr_rdma_read(qp1_ex, mr2->rkey, (uintptr_t)mr2->addr + 48);'
    has_line 'ibv_wr_send_imm(qp1_ex, htonl(0x12345678));'
    has_line 'ibv_wr_abort(qp1_ex);'
    has_line 'struct rdma_cm_id *cm_id2;'
    has_line 'expect_int("rdma_get_request", 0, rdma_get_request(cm_id1, &cm_id2));'
    has_line 'expect_fail("rdma_get_request", rdma_get_request(cm_id1, &cm_id_failed1), 11);'
    has_line '/* cm_id1:get_request: no request within the timeout here: timing, not waited for */'
    has_line 'rdma_destroy_ep(cm_id2);'
    compiles
}

@test "verbsh --export-c to a new file: checked writable at the start, yet not left behind, empty, when the session called no verb" {
    cd "$BATS_TEST_TMPDIR"
    echo 'print("ran")' >s.lua
    run "$VERBSH" --export-c new.c s.lua
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "ran" ]
    [ "${lines[1]}" = "verbsh: --export-c new.c: no verb was called, nothing written" ]
    [ ! -e new.c ]
}

@test "verbsh --export-c leaves nothing of its start on the stack the chunks run over: the caller of an -e chunk holds argc, argv, the message handler and the chunk, as without the option" {
    cd "$BATS_TEST_TMPDIR"
    # debug.getlocal shows a C function's stack slots as "(C temporary)"
    local slots='local t = {}
      for i = 1, 9 do
        local n, v = debug.getlocal(2, i)
        if not n then break end
        t[i] = type(v) == "function" and debug.getinfo(v, "S").what or type(v)
      end
      print(table.concat(t, " "))'
    run "$VERBSH" -e "$slots"
    [ "$output" = "number userdata C main" ]
    run "$VERBSH" --export-c x.c -e "$slots"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "number userdata C main" ]
    [ "${lines[1]}" = "verbsh: --export-c x.c: no verb was called, nothing written" ]
    [ "${#lines[@]}" -eq 2 ]
}

@test "export by hand: ibv_create_cq takes the cqe, the completion channel and vector given (NULL and 0 without); rdma_create_qp_ex's comp_mask is PD and SEND_OPS_FLAGS when send_ops_flags is given, the mask given when one is, and its extended QP is ibv_qp_to_qp_ex of the id's QP" {
    export_main '
      local ctx, id, pd = S.object("context", true), S.object("cm_id", true), S.object("pd", true)
      local ch = S.object("comp_channel")
      S.call(ctx, "create_comp_channel", {}, { ch })
      S.call(ctx, "create_cq", { 16, { channel = ch, comp_vector = 1 } }, { S.object("cq") })
      S.call(ctx, "create_cq", { 8 }, { S.object("cq") })
      S.failed(ctx, "create_cq", { 1 << 30 }, 22, "EINVAL")
      S.call(id, "create_qp_ex", { { qp_type = "RC", pd = pd, send_ops_flags = { "SEND" }, cap = { max_send_wr = 2 } } }, { S.object("qp", false, { qp_num = 5 }) })
      S.call(id, "create_qp_ex", { { qp_type = "RC", pd = pd, comp_mask = { "PD" } } }, { S.object("qp", false, { qp_num = 6 }) })'
    has_line 'struct ibv_cq *cq1 = ibv_create_cq(ctx1, 16, NULL, channel1, 1);'
    has_line 'struct ibv_cq *cq2 = ibv_create_cq(ctx1, 8, NULL, NULL, 0);'
    has_line 'struct ibv_cq *cq_failed1 = ibv_create_cq(ctx1, 1073741824, NULL, NULL, 0);'
    has_line 'expect_null("ibv_create_cq", cq_failed1, 22);'
    has_line 'struct ibv_qp_init_attr_ex init_attr_ex1 = { .pd = pd1, .cap = { .max_send_wr = 2 }, .qp_type = IBV_QPT_RC, .send_ops_flags = IBV_QP_EX_WITH_SEND, .comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS };'
    has_line 'struct ibv_qp *qp1 = cm_id1->qp;'
    has_line 'struct ibv_qp_ex *qp1_ex = ibv_qp_to_qp_ex(qp1);'
    has_line 'struct ibv_qp_init_attr_ex init_attr_ex2 = { .pd = pd1, .qp_type = IBV_QPT_RC, .comp_mask = IBV_QP_INIT_ATTR_PD };'
    [ "$(grep -c 'ibv_qp_to_qp_ex' <<<"$output")" -eq 1 ]
    compiles
}

@test "export by hand: pd:reg_mr_iova of a string copies its bytes into a page-aligned buffer, pd:reg_mr_iova2 of a size zeroes it as verbsh does; each with its iova and access" {
    export_main '
      local pd = S.object("pd", true)
      local mr1 = S.object("mr", false, { addr = 0x7f0000001000, length = 11, lkey = 0x15, rkey = 0x26 })
      local mr2 = S.object("mr", false, { addr = 0x7f0000003000, length = 5000, lkey = 0x37, rkey = 0x48 })
      S.call(pd, "reg_mr_iova", { "iova\"bytes\n", 0x10000, "LOCAL_WRITE" }, { mr1 })
      S.call(pd, "reg_mr_iova2", { 5000, 0x20000, { "LOCAL_WRITE", "REMOTE_READ" } }, { mr2 })'
    has_line 'void *buf_mr1 = aligned_alloc(4096, 4096);'
    has_line 'memcpy(buf_mr1, "iova\042bytes\012", 11);'
    has_line 'struct ibv_mr *mr1 = ibv_reg_mr_iova(pd1, buf_mr1, 11, 0x10000, IBV_ACCESS_LOCAL_WRITE);'
    has_line 'void *buf_mr2 = aligned_alloc(4096, 8192);'
    has_line 'memset(buf_mr2, 0, 5000);'
    has_line 'struct ibv_mr *mr2 = ibv_reg_mr_iova2(pd1, buf_mr2, 5000, 0x20000, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);'
    [[ $(grep -c 'buf_mr1' "$BATS_TEST_TMPDIR/by_hand.c") -eq 3 ]]   # (no memset of the copied bytes)
    compiles
}

@test "export by hand: id:reg_msgs, reg_read and reg_write of a string copy its bytes into a zeroed buffer of its length; of a size, a zeroed buffer alone; each its own verb" {
    export_main '
      local id = S.object("cm_id", true)
      local m1 = S.object("mr", false, { addr = 0x1000, length = 5, lkey = 0x11, rkey = 0x21 })
      local m2 = S.object("mr", false, { addr = 0x2000, length = 300, lkey = 0x12, rkey = 0x22 })
      local m3 = S.object("mr", false, { addr = 0x3000, length = 3, lkey = 0x13, rkey = 0x23 })
      S.call(id, "reg_msgs", { "hello" }, { m1 })
      S.call(id, "reg_read", { 300 }, { m2 })
      S.call(id, "reg_write", { "w\"x" }, { m3 })'
    has_line 'void *buf_mr1 = calloc(1, 5);'
    has_line 'memcpy(buf_mr1, "hello", 5);'
    has_line 'struct ibv_mr *mr1 = rdma_reg_msgs(cm_id1, buf_mr1, 5);'
    has_line 'void *buf_mr2 = calloc(1, 300);'
    has_line 'struct ibv_mr *mr2 = rdma_reg_read(cm_id1, buf_mr2, 300);'
    [[ $output != *'memcpy(buf_mr2'* ]]
    has_line 'void *buf_mr3 = calloc(1, 3);'
    has_line 'memcpy(buf_mr3, "w\042x", 3);'
    has_line 'struct ibv_mr *mr3 = rdma_reg_write(cm_id1, buf_mr3, 3);'
    compiles
}

@test "export by hand: verbs.import_device of a context imports a dup of its command fd, of a number that fd; a refused one checks the errno" {
    export_main '
      local ctx, ic = S.object("context", true), S.object("context", false)
      S.call(nil, "import_device", { ctx }, { ic })
      S.failed(nil, "import_device", { 9 }, 9, "EBADF")'
    has_line 'struct ibv_context *ctx2 = ibv_import_device(dup(ctx1->cmd_fd));'
    has_line 'struct ibv_context *imported_failed1 = ibv_import_device(9);'
    has_line 'expect_null("ibv_import_device", imported_failed1, 9);'
    compiles
}

@test "export by hand: rdma_post_send and rdma_post_recv without a length take the MR's from the offset on (64 - 8 = 56; 64 from 0)" {
    export_main '
      local id = S.object("cm_id", true)
      local mr = S.object("mr", false, { addr = 0x1000, length = 64, lkey = 0x1234, rkey = 0x5678 })
      S.call(id, "reg_msgs", { 64 }, { mr })
      S.call(id, "post_send", { 5, mr, 8 }, {})
      S.call(id, "post_recv", { 6, mr }, {})'
    has_line 'expect_int("rdma_post_send", 0, rdma_post_send(cm_id1, (void *)(uintptr_t)0x5, (char *)mr1->addr + 8, 56, mr1, 0));'
    has_line 'expect_int("rdma_post_recv", 0, rdma_post_recv(cm_id1, (void *)(uintptr_t)0x6, (char *)mr1->addr + 0, 64, mr1));'
    compiles
}

@test "export by hand: cq:req_notify writes solicited_only as C's int: true and 1 as 1, false, 0 and nothing as 0" {
    export_main '
      local cq = S.object("cq", true)
      S.call(cq, "req_notify", { true }, {})
      S.call(cq, "req_notify", { 1 }, {})
      S.call(cq, "req_notify", { false }, {})
      S.call(cq, "req_notify", { 0 }, {})
      S.call(cq, "req_notify", {}, {})'
    [ "$(grep -o 'ibv_req_notify_cq(cq1, [01])' <<<"$output" | tr '\n' ' ')" = "ibv_req_notify_cq(cq1, 1) ibv_req_notify_cq(cq1, 1) ibv_req_notify_cq(cq1, 0) ibv_req_notify_cq(cq1, 0) ibv_req_notify_cq(cq1, 0) " ]
    compiles
}

@test "export by hand: a failed ibv_query_device_ex is the errno it returned, with no field read after it; a query that returned no attributes reads none either" {
    export_main '
      local ctx = S.object("context", true)
      S.failed(ctx, "query_device_ex", {}, 95, "EOPNOTSUPP")
      S.call(ctx, "query_device_ex", {}, {})
      S.call(ctx, "query_device_ex", {}, { { max_qp = 0x77 } })'
    has_line 'expect_int("ibv_query_device_ex", 95, ibv_query_device_ex(ctx1, NULL, &device_attr_ex1));'   # (it returns the errno itself)
    [ "$(grep -c 'orig_attr.max_qp' <<<"$output")" -eq 1 ]
    [[ $output == *'expect_int("device_attr_ex3.orig_attr.max_qp", 119, device_attr_ex3.orig_attr.max_qp);'* ]]
    compiles
}
