#!/usr/bin/env bats
# verbs.explain with synthetic error objects and WCs: no RDMA device needed.
# The expected attribute lists are written out here from the kernel's
# qp_state_table, independently of the module's own table.
load ../helpers

# Runs Lua with x = verbs.explain and mq(type, from, to, attr[, errname]) =
# the text of an ibv_modify_qp error whose mask is attr's keys.
xl() {
    run "$VERBSH" -e "
        x = require 'verbs.explain'
        function mq(qp_type, from, to, attr, errname)
          attr.qp_state = to
          errname = errname or 'EINVAL'
          return tostring(x.verb_error{ verb = 'ibv_modify_qp', errno = x.ERRNO[errname], errname = errname,
            context = { qp_type = qp_type, cur_state = from, qp_state = to, attr = attr } })
        end
        $1"
}

# Full, correct attribute sets per transition, by IBV_QP_* name -> attr key.
REQUIRED='
  REQ = {
    RC = { ["RESET INIT"] = { PKEY_INDEX = "pkey_index", PORT = "port_num", ACCESS_FLAGS = "qp_access_flags" },
           ["INIT RTR"] = { AV = "ah_attr", PATH_MTU = "path_mtu", DEST_QPN = "dest_qp_num", RQ_PSN = "rq_psn",
                            MAX_DEST_RD_ATOMIC = "max_dest_rd_atomic", MIN_RNR_TIMER = "min_rnr_timer" },
           ["RTR RTS"] = { SQ_PSN = "sq_psn", TIMEOUT = "timeout", RETRY_CNT = "retry_cnt", RNR_RETRY = "rnr_retry",
                           MAX_QP_RD_ATOMIC = "max_rd_atomic" } },
    UC = { ["RESET INIT"] = { PKEY_INDEX = "pkey_index", PORT = "port_num", ACCESS_FLAGS = "qp_access_flags" },
           ["INIT RTR"] = { AV = "ah_attr", PATH_MTU = "path_mtu", DEST_QPN = "dest_qp_num", RQ_PSN = "rq_psn" },
           ["RTR RTS"] = { SQ_PSN = "sq_psn" } },
    UD = { ["RESET INIT"] = { PKEY_INDEX = "pkey_index", PORT = "port_num", QKEY = "qkey" },
           ["RTR RTS"] = { SQ_PSN = "sq_psn" } },
  }
  VAL = { pkey_index = 0, port_num = 1, qp_access_flags = 0, qkey = 0x11111111, path_mtu = "1024",
          ah_attr = { is_global = 1, port_num = 1, grh = { sgid_index = 1 } }, dest_qp_num = 17, rq_psn = 0,
          max_dest_rd_atomic = 1, min_rnr_timer = 12, sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7,
          max_rd_atomic = 1 }
'

@test "explain: every transition with one required attribute missing names exactly that attribute" {
    xl "$REQUIRED"'
      local n = 0
      for qpt, trs in pairs(REQ) do
        for tr, req in pairs(trs) do
          local from, to = tr:match("(%S+) (%S+)")
          for gone, gone_key in pairs(req) do
            local attr = {}
            for _, key in pairs(req) do if key ~= gone_key then attr[key] = VAL[key] end end
            local s = mq(qpt, from, to, attr)
            local want = ("required but missing for %s %s->%s: IBV_QP_%s (%s)\n"):format(qpt, from, to, gone, gone_key)
            if not s:find(want, 1, true) then print("MISSING NOT NAMED", qpt, tr, gone, s) end
            for other in pairs(req) do
              if other ~= gone and s:find("IBV_QP_" .. other .. " ", 1, true) then print("WRONGLY NAMED", qpt, tr, other) end
            end
            if s:find("present but not allowed", 1, true) then print("SPURIOUS EXTRA", qpt, tr, s) end
            n = n + 1
          end
        end
      end
      print("checked " .. n)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "checked 26" ]   # RC 3+6+5, UC 3+4+1, UD 3+1
}

@test "explain: states given as C's values read as their names (enum ibv_qp_state: RESET 0, INIT 1, RTR 2, RTS 3, ERR 6)" {
    xl '
        local function same(a, b, c, d) return mq("RC", a, b, {}) == mq("RC", c, d, {}) end
        print(same(1, 3, "INIT", "RTS"), same(0, 2, "RESET", "RTR"), same(6, 3, "ERR", "RTS"), same(2, 0, "RTR", "RESET"))
        print(mq("RC", 1, 3, {}))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "true	true	true	true" ]
    [ "${lines[2]}" = "  RC QP, INIT->RTS" ]
    [ "${lines[3]}" = "  why: INIT->RTS is an illegal transition; from INIT a QP can go to: RESET, INIT, RTR, ERR (RTR, where the QP learns its peer, comes first)" ]
}

@test "explain: path_mtu of each ibv_mtu (256 to 4096, as bytes, a name or the enum's value) is no finding, 2048 and up get rxe's note; one byte off an MTU (511, 513) or 300 is not an ibv_mtu" {
    xl '
        local full = { ah_attr = { is_global = 1, port_num = 1, grh = { sgid_index = 1 } }, dest_qp_num = 17, rq_psn = 0,
                       max_dest_rd_atomic = 1, min_rnr_timer = 12 }
        for _, m in ipairs{ 256, "512", 512, "IBV_MTU_512", 2, 1024, 2048, 4096, 511, 513, 300 } do
          local attr = {}
          for k, v in pairs(full) do attr[k] = v end
          attr.path_mtu = m
          local t = mq("RC", "INIT", "RTR", attr)
          print(m, t:find("is not an ibv_mtu", 1, true) ~= nil, t:find("rxe refuses a path_mtu above", 1, true) ~= nil)
        end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "256	false	false
512	false	false
512	false	false
IBV_MTU_512	false	false
2	false	false
1024	false	false
2048	false	true
4096	false	true
511	true	false
513	true	false
300	true	false" ]
}

@test "explain: a failed post's head names what was posted to: an SRQ for ibv_post_srq_recv, the QP's type when known, else a QP; and the WR by its place" {
    xl '
      for _, c in ipairs{ { "ibv_post_srq_recv" }, { "ibv_post_recv" }, { "ibv_post_send" }, { "ibv_post_send", "UD" } } do
        print((tostring(x.verb_error{ verb = c[1], errno = 12, errname = "ENOMEM", context = { bad_wr = 2, qp_type = c[2] } }):match("\n([^\n]*)")))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "  SRQ, WR #2
  QP, WR #2
  QP, WR #2
  UD QP, WR #2" ]
}

@test "explain: complete attribute sets produce no missing/extra finding, and say what else rxe checks" {
    xl "$REQUIRED"'
      for qpt, trs in pairs(REQ) do
        for tr, req in pairs(trs) do
          local from, to = tr:match("(%S+) (%S+)")
          local attr = {}
          for _, key in pairs(req) do attr[key] = VAL[key] end
          local s = mq(qpt, from, to, attr)
          if s:find("missing", 1, true) or s:find("not allowed", 1, true) or not s:find("rxe also checks", 1, true) then
            print("BAD", qpt, tr, s)
          end
        end
      end
      print("done")'
    echo "$output"
    [ "$output" = "done" ]
}

@test "explain: two missing attributes are both named, in bit order, with the fix" {
    xl 'print(mq("RC", "INIT", "RTR", { ah_attr = { is_global = 1, port_num = 1 }, path_mtu = "1024", rq_psn = 0, max_dest_rd_atomic = 1 }))'
    [ "$status" -eq 0 ]
    [[ $output == *"required but missing for RC INIT->RTR: IBV_QP_MIN_RNR_TIMER (min_rnr_timer), IBV_QP_DEST_QPN (dest_qp_num)"* ]]
    [[ $output == *"fix: add min_rnr_timer = 12, dest_qp_num = PEER_QPN"* ]]
}

@test "explain: present but not allowed names the bit, the key and why (ACCESS_FLAGS on UD, QKEY on RC)" {
    xl 'print(mq("UD", "RESET", "INIT", { pkey_index = 0, port_num = 1, qkey = 1, qp_access_flags = 0 }))
        print(mq("RC", "RTR", "RTS", { sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1, qkey = 5 }))'
    [ "$status" -eq 0 ]
    [[ $output == *"present but not allowed in UD RESET->INIT: IBV_QP_ACCESS_FLAGS (qp_access_flags) (a UD QP has no RDMA or atomics"* ]]
    [[ $output == *"fix: remove qp_access_flags"* ]]
    [[ $output == *"present but not allowed in RC RTR->RTS: IBV_QP_QKEY (qkey) (Q_Keys belong to UD"* ]]
    [[ $output == *"allowed here besides the required ones: IBV_QP_CUR_STATE (cur_qp_state), IBV_QP_ACCESS_FLAGS (qp_access_flags), IBV_QP_ALT_PATH"* ]]
}

@test "explain: illegal transitions RESET->RTS, RESET->ERR, INIT->RTS, ERR->RTS and the path to take" {
    xl 'print(mq("RC", "RESET", "RTS", {}))
        print(mq("UD", "RESET", "ERR", {}))
        print(mq("RC", "INIT", "RTS", {}))
        print(mq("RC", "ERR", "RTS", {}))'
    [ "$status" -eq 0 ]
    [[ $output == *"RESET->RTS is an illegal transition; from RESET a QP can go to: RESET, INIT"* ]]
    [[ $output == *"fix: go RESET->INIT->RTR->RTS, one qp:modify per step"* ]]
    [[ $output == *"RESET->ERR is an illegal transition"*"has no work to flush"* ]]
    [[ $output == *"INIT->RTS is an illegal transition; from INIT a QP can go to: RESET, INIT, RTR, ERR"* ]]
    [[ $output == *"fix: go INIT->RTR->RTS"* ]]
    [[ $output == *"ERR->RTS is an illegal transition"*"leaves ERR only through RESET"*"fix: go ERR->RESET->INIT->RTR->RTS"* ]]
}

@test "explain: the mask may come as IBV_QP_* names or an integer; CUR_STATE outside RTR/RTS/SQD/SQE" {
    xl 'local function e(mask, cur, to) return tostring(x.verb_error{ verb = "ibv_modify_qp", errno = 22, errname = "EINVAL",
          context = { qp_type = "RC", cur_state = cur, qp_state = to, mask = mask, attr = {} } }) end
        print(e({ "STATE", "PKEY_INDEX", "PORT" }, "RESET", "INIT"))
        print(e(1 | 16 | 32 | 8 | 64, "RESET", "INIT"))
        print(e({ "IBV_QP_STATE", "IBV_QP_CUR_STATE" }, "INIT", "INIT"))'
    [ "$status" -eq 0 ]
    [[ ${lines[2]} == *"required but missing for RC RESET->INIT: IBV_QP_ACCESS_FLAGS (qp_access_flags)" ]]
    [[ $output == *"present but not allowed in RC RESET->INIT: IBV_QP_QKEY (qkey)"* ]]
    [[ $output == *"IBV_QP_CUR_STATE (cur_qp_state) is only allowed when the QP is in RTR, RTS, SQD or SQE, not INIT"* ]]
}

@test "explain: RoCE pitfalls: is_global unset, empty sgid slot (ENODATA), timeout > 31, path_mtu" {
    xl 'local rtr = { path_mtu = "1024", dest_qp_num = 17, rq_psn = 0, max_dest_rd_atomic = 1, min_rnr_timer = 12 }
        rtr.ah_attr = { is_global = 0, port_num = 1, dlid = 0 }
        print(mq("RC", "INIT", "RTR", rtr))
        rtr.ah_attr = { is_global = 1, port_num = 1, grh = { sgid_index = 7 } }
        print(mq("RC", "INIT", "RTR", rtr, "ENODATA"))
        print(mq("RC", "RTR", "RTS", { sq_psn = 0, timeout = 40, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1 }))
        rtr.ah_attr.grh.sgid_index = 1; rtr.path_mtu = "4096"
        print(mq("RC", "INIT", "RTR", rtr))
        rtr.path_mtu = 1500
        print(mq("RC", "INIT", "RTR", rtr))
        rtr.path_mtu = "2048"
        print(mq("RC", "INIT", "RTR", rtr))
        rtr.path_mtu = "1024"
        print("1024:", mq("RC", "INIT", "RTR", rtr))
        print(mq("RC", "RTR", "RTS", { sq_psn = 0, timeout = 14, retry_cnt = 8, rnr_retry = 7, max_rd_atomic = 1 }))
        print("retry 7:", mq("RC", "RTR", "RTS", { sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1 }))'
    [ "$status" -eq 0 ]
    # the limits themselves: 2048 is flagged and 1024 not; retry_cnt 8 is, 7 not
    [[ $output == *"note: path_mtu 2048: rxe refuses a path_mtu above the port's max_mtu"* ]]
    [[ $output != *"path_mtu 1024:"* ]]
    [[ $output == *"retry_cnt 8 does not fit its 3 bits (0..7)"*"fix: retry_cnt = 7"* ]]
    [[ $output != *"retry_cnt 7 does not fit"* ]]
    [[ $output == *"why: ah_attr.is_global is not set, but rxe is RoCEv2"*"fix: ah_attr = { is_global = 1"* ]]
    [[ $output == *"ibv_modify_qp failed: ENODATA (errno 61)"* ]]
    [[ $output == *"grh.sgid_index 7 points at an empty slot of the port's GID table (rxe answers ENODATA, not EINVAL)"* ]]
    [[ $output == *"timeout 40 is above 31"*"fix: timeout = 14"* ]]
    [[ $output == *"note: path_mtu 4096: rxe refuses a path_mtu above the port's max_mtu"*"RETRY_EXC_ERR"* ]]
    [[ $output == *"path_mtu 1500 is not an ibv_mtu (256, 512, 1024, 2048, 4096)"* ]]
}

@test "explain: post_recv in RESET, post_send before RTS, atomics, inline, num_sge, UD opcodes; bad WR index" {
    xl 'local function p(verb, ctx) print(tostring(x.verb_error{ verb = verb, errno = 22, errname = "EINVAL", context = ctx })) end
        p("ibv_post_recv", { bad_wr = 1, qp_type = "RC", qp_state = "RESET", wr = { wr_id = 7, sg_list = {} } })
        p("ibv_post_send", { bad_wr = 2, qp_type = "RC", qp_state = "RTR", wr = { wr_id = 8, opcode = "SEND" } })
        p("ibv_post_send", { bad_wr = 3, qp_type = "RC", qp_state = "RTS",
          wr = { opcode = "ATOMIC_FETCH_AND_ADD", wr = { atomic = { remote_addr = 0x1004 } }, sg_list = { { length = 8 } } } })
        p("ibv_post_send", { bad_wr = 1, qp_type = "RC", qp_state = "RTS",
          wr = { opcode = "IBV_WR_ATOMIC_CMP_AND_SWP", wr = { atomic = { remote_addr = 0x1000 } }, sg_list = { { length = 16 } } } })
        p("ibv_post_send", { bad_wr = 1, qp_type = "RC", qp_state = "RTS", cap = { max_inline_data = 64 },
          wr = { opcode = "SEND", send_flags = { "SIGNALED", "INLINE" }, sg_list = { { length = 100 } } } })
        p("ibv_post_send", { bad_wr = 1, qp_type = "RC", qp_state = "RTS", cap = { max_send_sge = 1 },
          wr = { opcode = "SEND", sg_list = { { length = 1 }, { length = 1 } } } })
        p("ibv_post_send", { bad_wr = 1, qp_type = "UD", qp_state = "RTS", wr = { opcode = "RDMA_WRITE", wr = { ud = { ah = 1 } } } })'
    [ "$status" -eq 0 ]
    [[ $output == *"RC QP in RESET, WR #1 (wr_id=7)"* ]]
    [[ $output == *"WR #1 of the list was rejected: the WRs before it were posted"* ]]
    [[ $output == *"why: post_recv on a QP in RESET: its receive queue takes WRs from INIT on"* ]]
    [[ $output == *"why: post_send on a QP in RTR: its send queue takes WRs only in RTS"*"fix: bring it to RTS first (RTR->RTS)"* ]]
    [[ $output == *"WR #3"*"atomic remote_addr 0x1004 is not 8-byte aligned"* ]]
    [[ $output == *"an atomic's sg_list must cover exactly 8 bytes"*"not 16"* ]]
    [[ $output == *"INLINE send of 100 bytes is above the QP's cap.max_inline_data 64"* ]]
    [[ $output == *"num_sge 2 is above the QP's cap.max_send_sge 1"* ]]
    [[ $output == *"opcode RDMA_WRITE on a UD QP: UD can only SEND and SEND_WITH_IMM"* ]]
}

@test "explain: memlock from reg_mr/create_cq/create_qp shows the limit and the three fixes" {
    xl 'print(x.verb_error{ verb = "ibv_reg_mr", errno = 12, errname = "ENOMEM", message = "Cannot allocate memory",
          context = { memlock = 8388608, length = 16777216 } })
        local e = x.verb_error{ verb = "ibv_create_cq", errno = 1, errname = "EPERM", context = { memlock = 65536 } }
        print(e); print("HINT " .. e.hint)
        print(x.verb_error{ verb = "ibv_create_qp", errno = 12, errname = "ENOMEM", context = { memlock = "unlimited" } })'
    [ "$status" -eq 0 ]
    [[ $output == *"ibv_reg_mr failed: ENOMEM (errno 12, Cannot allocate memory)"* ]]
    [[ $output == *"RLIMIT_MEMLOCK (ulimit -l): the limit is 8 MiB (8388608 bytes), and this asks for 16 MiB more"* ]]
    [[ $output == *"ibv_create_cq pins memory"*"the limit is 64 KiB (65536 bytes)"* ]]
    [[ $output == *"HINT ulimit -l unlimited"*"--ulimit memlock=-1"*"/etc/security/limits.conf"* ]]
    [[ $output == *"RLIMIT_MEMLOCK is unlimited, so the limit on pinned memory is not the cause"* ]]
}

@test "explain: generic fallbacks: EBUSY on dealloc_pd/destroy_cq, ETIMEDOUT, unknown errno" {
    xl 'for _, v in ipairs{ { "ibv_dealloc_pd", "EBUSY", 16 }, { "ibv_destroy_cq", "EBUSY", 16 },
                           { "rdma_resolve_addr", "ETIMEDOUT", 110 }, { "ibv_query_port", nil, 22 }, { "ibv_x", "EWHAT", 999 } } do
          print(x.verb_error{ verb = v[1], errname = v[2], errno = v[3], context = {} })
        end'
    [ "$status" -eq 0 ]
    [[ $output == *"ibv_dealloc_pd failed: EBUSY (errno 16)"*"the PD still has MRs, QPs, AHs, SRQs or MWs"* ]]
    [[ $output == *"ibv_destroy_cq failed: EBUSY"*"QPs (or SRQs) still use this CQ"* ]]
    [[ $output == *"rdma_resolve_addr failed: ETIMEDOUT (errno 110)"*"timed out"* ]]
    [[ $output == *"ibv_query_port failed: EINVAL (errno 22)"* ]]   # name filled in from the number
    [[ $output == *"ibv_x failed: EWHAT (errno 999)"* ]]
}

@test "explain: error objects: metatable, hint, the fields kept, never raising on junk context" {
    xl 'local e = x.verb_error{ verb = "ibv_modify_qp", errno = 22, errname = "EINVAL", object = io.stdout,
          context = { qp_type = "RC", cur_state = "INIT", qp_state = "RTR", attr = { qp_state = "RTR" } } }
        print(getmetatable(e).__name, e.errname, e.errno, e.object == io.stdout, type(e.hint))
        print(x.explain(e) == tostring(e), select(2, pcall(error, e)) == e)
        local j = x.verb_error{ verb = "ibv_modify_qp", errno = 22, errname = "EINVAL", context = { attr = 5, mask = "x", cur_state = {} } }
        print(tostring(j):match("^[^\n]*"))
        local k = x.verb_error{ verb = "ibv_post_send", errno = 22, errname = "EINVAL", context = { wr = "junk", bad_wr = "z" } }
        print(tostring(k):match("^[^\n]*"))'
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "verbs.error	EINVAL	22	true	string" ]
    [ "${lines[1]}" = "true	true" ]
    [ "${lines[2]}" = "ibv_modify_qp failed: EINVAL (errno 22)" ]
    [ "${lines[3]}" = "ibv_post_send failed: EINVAL (errno 22)" ]
}

@test "explain: when verbs.explain itself fails, a verb's error still says which verb failed, its errno name, number and message" {
    # (rdma_create_event_channel fails here with ENODEV: this host has no RDMA)
    run "$VERBSH" -e '
      package.loaded["verbs.explain"] = { verb_error = function() error("explain is broken") end }
      local ok, e = pcall(verbs.create_event_channel)
      print(ok, getmetatable(e).__name, e.verb, e.errname, e.errno)
      print(tostring(e))
      verbs.create_event_channel()'
    echo "$output"
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "false	verbs.error	rdma_create_event_channel	ENODEV	19" ]
    [ "${lines[1]}" = "rdma_create_event_channel failed: ENODEV (errno 19, No such device)" ]
    [[ ${lines[2]} == *"rdma_create_event_channel failed: ENODEV (errno 19, No such device)" ]]
    [[ $output != *"explain is broken"* ]]
    # an explanation that is no table (nil, a string) is no explanation either
    for r in nil '"a string"'; do
        run "$VERBSH" -e '
          package.loaded["verbs.explain"] = { verb_error = function() return '"$r"' end }
          local ok, e = pcall(verbs.create_event_channel)
          print(ok, type(e), getmetatable(e).__name, e.verb, e.errname, e.errno, type(e.context), next(e.context))
          print(tostring(e))'
        echo "$output"
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "false	table	verbs.error	rdma_create_event_channel	ENODEV	19	table	nil" ]
        [ "${lines[1]}" = "rdma_create_event_channel failed: ENODEV (errno 19, No such device)" ]
    done
}

@test "wc_meta: one line for SUCCESS, with imm_data, wc_flags and src_qp when present" {
    xl 'print(setmetatable({ wr_id = 1, status = "SUCCESS", opcode = "SEND", byte_len = 64, qp_num = 0x11, vendor_err = 0 }, x.wc_meta))
        print(setmetatable({ wr_id = 2, status = "SUCCESS", opcode = "RECV", byte_len = 5, imm_data = 0x1234,
          wc_flags = { "GRH", "WITH_IMM" }, src_qp = 0x12, qp_num = 0x11 }, x.wc_meta))
        print(setmetatable({ wr_id = 3, status = "SUCCESS", opcode = "RECV", byte_len = 49, wc_flags = {}, src_qp = 0, qp_num = 0x11 }, x.wc_meta))
        print(x.wc_meta.__name)'
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "wc wr_id=1 SEND SUCCESS byte_len=64 qp_num=0x000011" ]
    [ "${lines[1]}" = "wc wr_id=2 RECV SUCCESS byte_len=5 imm_data=0x1234 wc_flags=GRH|WITH_IMM src_qp=0x000012 qp_num=0x000011" ]
    [ "${lines[2]}" = "wc wr_id=3 RECV SUCCESS byte_len=49 qp_num=0x000011" ]
    [ "${lines[3]}" = "ibv_wc" ]
}

@test "wc_meta: wc_flags given as a number (a table that only looks like a WC) is shown as it is from 1 up, and 0 is no flags" {
    xl 'for _, f in ipairs { 0, 1, 2, 0x43 } do
          print(setmetatable({ wr_id = 7, status = "SUCCESS", opcode = "RECV", byte_len = 9, wc_flags = f, qp_num = 0x2a }, x.wc_meta))
        end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "wc wr_id=7 RECV SUCCESS byte_len=9 qp_num=0x00002a" ]
    [ "${lines[1]}" = "wc wr_id=7 RECV SUCCESS byte_len=9 wc_flags=1 qp_num=0x00002a" ]
    [ "${lines[2]}" = "wc wr_id=7 RECV SUCCESS byte_len=9 wc_flags=2 qp_num=0x00002a" ]
    [ "${lines[3]}" = "wc wr_id=7 RECV SUCCESS byte_len=9 wc_flags=67 qp_num=0x00002a" ]
    [ "${#lines[@]}" -eq 4 ]
}

@test "wc_meta and explain: each error status's probable cause" {
    xl 'for _, s in ipairs{ "RNR_RETRY_EXC_ERR", "REM_ACCESS_ERR", "REM_INV_REQ_ERR", "WR_FLUSH_ERR", "RETRY_EXC_ERR",
                           "LOC_PROT_ERR", "LOC_QP_OP_ERR", "LOC_LEN_ERR", "REM_OP_ERR", "LOC_ACCESS_ERR", "BAD_RESP_ERR", "GENERAL_ERR" } do
          print(setmetatable({ wr_id = 9, status = s, vendor_err = 0, qp_num = 0x11 }, x.wc_meta))
        end'
    [ "$status" -eq 0 ]
    [[ $output == *"wc wr_id=9 RNR_RETRY_EXC_ERR qp_num=0x000011
  cause: no receive was posted at the responder (RNR NAK) and rnr_retry ran out"* ]]
    [[ $output == *"REM_ACCESS_ERR qp_num=0x000011
  cause: the responder's MR refused the access: the target MR lacks REMOTE_WRITE"*"rkey is wrong"*"On rxe both QPs then go to ERR"* ]]
    [[ $output == *"REM_INV_REQ_ERR"*"qp_access_flags lack REMOTE_WRITE"*"max_dest_rd_atomic is 0"*"larger than its posted receive"* ]]
    [[ $output == *"WR_FLUSH_ERR"*"the QP is in ERR"*"The real error is the first completion with another status"* ]]
    [[ $output == *"RETRY_EXC_ERR"*"Wrong dest_qp_num or ah_attr.grh.dgid"*"the peer QP not yet in RTR"* ]]
    [[ $output == *"LOC_PROT_ERR"*"lkey is not a valid MR"* ]]
    [[ $output == *"LOC_QP_OP_ERR"*"an opcode the QP type lacks"* ]]
    [[ $output == *"LOC_LEN_ERR"*"longer than the posted receive buffer"* ]]
    [[ $output == *"REM_OP_ERR"*"responder could not complete"* ]]
    [ "$(grep -c '^  fix: ' <<<"$output")" -eq 12 ]
}

@test "explain(): status numbers and names, errno names, unknown keys, WC tables, bad input" {
    xl 'print(x.explain(13)); print(x.explain("IBV_WC_WR_FLUSH_ERR")); print(x.explain("rem_access_err"))
        print(x.explain(99)); print(x.explain("EBUSY"))
        print(x.explain("bad argument #1 to '"'"'modify'"'"' (unknown key '"'"'qp_acess_flags'"'"')"))
        print(x.explain("bad argument #1 to '"'"'post_send'"'"' (unknown key '"'"'sg_lst'"'"')"))
        print(x.explain({ wr_id = 1, status = "LOC_PROT_ERR", qp_num = 1 }))
        print(x.explain(true))
        print(x.explain(verbs.send_wr{ opcode = "SEND" })); print(x.explain(io.stdout)); print(x.explain(1.5))
        print(x.explain(setmetatable({}, { __index = function() return "x" end })))'
    [ "$status" -eq 0 ]
    # a table whose __index answers every key is shown as it reads, no format of "x" as a number
    [ "${lines[-1]}" = "wc wr_id=x x vendor_err=x qp_num=x" ]
    # a userdata that is no WC nor cm event is named by its class
    [ "${lines[-4]}" = "explain() takes a WC, a WC status (name or number), an errno name or an error object, not a verbs.send_wr" ]
    [ "${lines[-3]}" = "explain() takes a WC, a WC status (name or number), an errno name or an error object, not a FILE*" ]
    [ "${lines[-2]}" = "explain() takes a WC, a WC status (name or number), an errno name or an error object, not a number" ]
    [[ ${lines[0]} == "RNR_RETRY_EXC_ERR (13): no receive was posted at the responder (RNR NAK) and rnr_retry ran out"* ]]
    [[ $output == *"WR_FLUSH_ERR (5): the QP is in ERR"* ]]
    [[ $output == *"REM_ACCESS_ERR (10): "* ]]
    [[ $output == *"99 is not an ibv_wc_status (0..23)"* ]]
    [[ $output == *"EBUSY (errno 16): the object is still in use"* ]]
    [[ $output == *"did you mean 'qp_access_flags'?"* ]]
    [[ $output == *"did you mean 'sg_list'?"* ]]
    [[ $output == *"wc wr_id=1 LOC_PROT_ERR qp_num=0x000001"*"cause: local protection error"* ]]
    [[ $output == *"explain() takes a WC"*"not a boolean"* ]]
}

# A fake system root for verbs.open diagnosis: mk DIR... / file PATH CONTENT.
mkroot() {
    R=$BATS_TEST_TMPDIR/root; rm -rf "$R"; mkdir -p "$R"
}
d() { for p; do mkdir -p "$R$p"; done; }
f() { mkdir -p "$(dirname "$R$1")"; printf '%s\n' "$2" >"$R$1"; }
netdev() { d /sys/class/net/$1; f /sys/class/net/$1/flags "$2"; f /sys/class/net/$1/operstate "$3"; }
diag() {
    run "$VERBSH" -e "
        local x = require 'verbs.explain'
        x.sys.root = '$R'
        print(x.verb_error{ verb = '$1', errno = 19, errname = 'ENODEV', message = 'No such device',
          context = { reason = '$2', requested = ${3:-nil}, devices = { ${4:-} } } })"
}

@test "open: no RDMA in the kernel and no modules -> the micro-VM" {
    mkroot; netdev lo 0x9 unknown; netdev eth0 0x1003 up
    diag ibv_get_device_list no_device
    [ "$status" -eq 0 ]
    [[ $output == *"case: no_rdma_kernel"* ]]
    [[ $output == *"fix: run verbsh in the project's micro-VM"*'`scripts/rxe-vm --tty -- ./verbsh` or `make run`'* ]]
}

@test "open: modules there but not loaded -> modprobe rdma_rxe, then rdma link add on an up interface" {
    mkroot; netdev lo 0x9 unknown; netdev ifb0 0x82 down; netdev eth7 0x1003 up
    f /proc/modules ""; f /proc/sys/kernel/osrelease 6.1.0-test
    f /lib/modules/6.1.0-test/kernel/drivers/infiniband/core/ib_core.ko ""
    f /lib/modules/6.1.0-test/kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko.xz ""
    diag ibv_get_device_list no_device
    [[ $output == *"case: module_not_loaded"* ]]
    [[ $output == *"fix: sudo modprobe rdma_rxe && sudo rdma link add rxe0 type rxe netdev eth7"* ]]
}

@test "open: the interface offered for rdma link add is never lo, even when no other one says up" {
    mkroot; netdev lo 0x9 unknown; netdev veth9 0x1003 unknown
    f /proc/modules ""; f /proc/sys/kernel/osrelease 6.1.0-test
    f /lib/modules/6.1.0-test/kernel/drivers/infiniband/core/ib_core.ko ""
    f /lib/modules/6.1.0-test/kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko.xz ""
    diag ibv_get_device_list no_device
    [ "$status" -eq 0 ]
    [[ $output == *"fix: sudo modprobe rdma_rxe && sudo rdma link add rxe0 type rxe netdev veth9"* ]]
}

@test "open: ib_core without an rxe module -> the micro-VM" {
    mkroot; d /sys/module/ib_core; f /proc/modules "ib_core 1 0"
    diag ibv_get_device_list no_device
    [[ $output == *"case: no_rxe_module"*"scripts/rxe-vm"* ]]
}

@test "open: rdma_rxe loaded, no link -> the exact rdma link add line (dummy interface: operstate unknown)" {
    mkroot; d /sys/module/ib_core /sys/module/rdma_rxe; netdev lo 0x9 unknown; netdev dummy0 0x83 unknown
    diag ibv_get_device_list no_device
    [[ $output == *"case: no_rxe_link"* ]]
    [[ $output == *"fix: sudo rdma link add rxe0 type rxe netdev dummy0 (check with \`rdma link show\`)"* ]]
}

@test "open: rxe0 in the kernel, no uverbs node -> modprobe ib_uverbs" {
    mkroot; d /sys/module/ib_core /sys/module/rdma_rxe /sys/class/infiniband/rxe0
    diag ibv_get_device_list no_device
    [[ $output == *"case: no_uverbs"*"fix: sudo modprobe ib_uverbs"* ]]
}

@test "open: rxe0 and uverbs0 but no provider -> apt-get install ibverbs-providers" {
    mkroot; d /sys/module/ib_core /sys/module/rdma_rxe /sys/class/infiniband/rxe0; f /dev/infiniband/uverbs0 ""
    diag ibv_get_device_list no_device
    [[ $output == *"case: provider_missing"*"no userspace device-specific driver found"*"/etc/libibverbs.d/rxe.driver"* ]]
    [[ $output == *"fix: sudo apt-get install ibverbs-providers"* ]]
}

@test "open: a name that is not there -> the devices there are, and how to pick one" {
    mkroot; d /sys/module/ib_core /sys/module/rdma_rxe /sys/class/infiniband/rxe0; f /dev/infiniband/uverbs0 ""
    f /etc/libibverbs.d/rxe.driver "driver rxe"; f /usr/lib/x86_64-linux-gnu/libibverbs/librxe-rdmav34.so ""
    diag ibv_open_device not_found "'mlx5_0'" "'rxe0'"
    [[ $output == *"case: not_found"*'there is no device "mlx5_0"; libibverbs sees: rxe0'* ]]
    [[ $output == *'fix: verbs.open("rxe0"), or start the shell with `verbsh -d rxe0`'* ]]
}

@test "open: this host, as it is (no RDMA kernel here -> micro-VM)" {
    [ -e /sys/module/ib_core ] && skip "this host has RDMA in its kernel"
    [ -e /proc/modules ] && skip "this host can load modules"
    run "$VERBSH" -e "print(require('verbs.explain').sys.diagnose_open({ reason = 'no_device', devices = {} }).case)"
    [ "$output" = "no_rdma_kernel" ]
}

@test "modify_qp ENODATA: the filled GID slots of the only device are listed" {
    mkroot; G=/sys/class/infiniband/rxe0/ports/1
    f $G/gids/0 fe80:0000:0000:0000:5054:00ff:fe12:3456; f $G/gid_attrs/types/0 "RoCE v2"
    f $G/gids/1 0000:0000:0000:0000:0000:ffff:0a00:0001; f $G/gid_attrs/types/1 "RoCE v2"
    f $G/gids/2 0000:0000:0000:0000:0000:0000:0000:0000
    xl "x.sys.root = '$R'"'
        print(mq("RC", "INIT", "RTR", { ah_attr = { is_global = 1, port_num = 1, grh = { sgid_index = 7 } }, path_mtu = "1024",
          dest_qp_num = 1, rq_psn = 0, max_dest_rd_atomic = 1, min_rnr_timer = 1 }, "ENODATA"))'
    [ "$status" -eq 0 ]
    [[ $output == *"grh.sgid_index 7 points at an empty slot"*"; filled slots: 0 fe80:0000:0000:0000:5054:00ff:fe12:3456 (RoCE v2), 1 0000:0000:0000:0000:0000:ffff:0a00:0001 (RoCE v2)"$'\n'* ]]
    # no slot filled at all (the netdev has no address yet): nothing to list
    f $G/gids/0 0000:0000:0000:0000:0000:0000:0000:0000; f $G/gids/1 0000:0000:0000:0000:0000:0000:0000:0000
    xl "x.sys.root = '$R'"'
        print(mq("RC", "INIT", "RTR", { ah_attr = { is_global = 1, port_num = 1, grh = { sgid_index = 3 } }, path_mtu = "1024",
          dest_qp_num = 1, rq_psn = 0, max_dest_rd_atomic = 1, min_rnr_timer = 1 }, "ENODATA"))'
    [ "$status" -eq 0 ]
    [[ $output == *"grh.sgid_index 3 points at an empty slot of the port's GID table (rxe answers ENODATA, not EINVAL)"$'\n'* ]]
    [[ $output != *"filled slots"* ]]
}

@test "rdma_cm error events: each status gets its cause (REJECTED 8/28, UD's UNREACHABLE, ADDR_ERROR ENODEV)" {
    run "$VERBSH" -e '
      local c = require "verbs.explain_cm"
      for _, e in ipairs { { "REJECTED", 8 }, { "REJECTED", 28 }, { "UNREACHABLE", 1 }, { "UNREACHABLE", -110 },
                           { "ADDR_ERROR", -19 }, { "ROUTE_ERROR", -19 }, { "ESTABLISHED", 0 },
                           { "ADDR_ERROR", -110 }, { "ADDR_ERROR", -113 } } do
        print(e[1], e[2], (c.event_cause(e[1], e[2])))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == "REJECTED	8	nobody listens on that port at the destination (IB CM reject reason 8, INVALID_SERVICE_ID)" ]]
    [[ ${lines[1]} == "REJECTED	28	the server called rdma_reject (reason 28, CONSUMER_DEFINED)"* ]]
    [[ ${lines[2]} == "UNREACHABLE	1	the UD service lookup was answered with status 1, UNSUPPORTED (nobody listens on that port)" ]]
    [[ ${lines[3]} == "UNREACHABLE	-110	the peer's CM never answered the connection request (status -110 ETIMEDOUT)"* ]]
    [[ ${lines[4]} == "ADDR_ERROR	-19	no RDMA device sits on the netdev that routes to this address (ENODEV): 127.0.0.1 and lo"* ]]
    [[ ${lines[5]} == "ROUTE_ERROR	-19	the route leads over a netdev without an RDMA device (ENODEV), e.g. lo" ]]
    [ "${lines[6]}" = "ESTABLISHED	0	nil" ]
    [ "${lines[7]}" = "ADDR_ERROR	-110	address resolution timed out (ETIMEDOUT): no ARP answer from the destination" ]
    [[ ${lines[8]} == "ADDR_ERROR	-113	no route to the destination ("*")" ]]
}

@test "explain: wr_complete's EINVAL on a QP not yet in RTS says so; in RTS it does not blame the state" {
    run "$VERBSH" -e '
      local x = require "verbs.explain"
      for _, st in ipairs { "INIT", "RTS" } do
        print(x.verb_error{ verb = "ibv_wr_complete", errno = 22, errname = "EINVAL", message = "Invalid argument",
          context = { qp_type = "RC", qp_state = st, built = 1 } })
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[1]}" = "  RC QP in INIT, 1 WR built since wr_start" ]
    [ "${lines[2]}" = "  why: the QP is in INIT: a send queue accepts work only in RTS (the doorbell was refused, and the WRs stay in the queue until the QP is reset)" ]
    [ "${lines[3]}" = "  fix: qp:modify the QP through INIT and RTR to RTS first, then wr_start again" ]
    [[ $output != *"the QP is in RTS"* ]]
}

@test "explain: every errno has its name, from the C library's table (EBADF, EPROTONOSUPPORT; not nil)" {
    xl 'print(tostring(x.verb_error{ verb = "ibv_query_qp", errno = 9, message = "Bad file descriptor" }))
        print(tostring(x.verb_error{ verb = "ibv_create_ah_from_wc", errno = 93 }))
        print(x.explain("ENOTUNIQ"))
        print(x.ERRNO.EHWPOISON, require("verbs.errno")[133], require("verbs.errno").EINVAL)
        print(require("verbs.explain_cm").event_cause("ADDR_ERROR", -113))'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == "ibv_query_qp failed: EBADF (errno 9, Bad file descriptor)" ]]
    [[ ${lines[1]} == "ibv_create_ah_from_wc failed: EPROTONOSUPPORT (errno 93)"* ]]
    [[ ${lines[2]} == "ENOTUNIQ (errno 76): "* ]]
    [[ $output == *"
133	EHWPOISON	22
no route to the destination (EHOSTUNREACH)	ip route get ADDR"* ]]
}

@test "explain: a UC modify with RC's attributes names what UC lacks; the same mask passes for RC" {
    run "$VERBSH" -e '
      local function ex(t, mask) return tostring(verbs.explain{ verb = "ibv_modify_qp", errno = 22, errname = "EINVAL",
        context = { qp_type = t, cur_state = "RTR", qp_state = "RTS", mask = mask } }) end
      print(ex("UC", { "STATE", "SQ_PSN", "TIMEOUT" }))
      print(ex("UC", { "STATE", "SQ_PSN", "MIN_RNR_TIMER" }))
      print(ex("RC", { "STATE", "SQ_PSN", "TIMEOUT", "RETRY_CNT", "RNR_RETRY", "MAX_QP_RD_ATOMIC", "MIN_RNR_TIMER" }))'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"present but not allowed in UC RTR->RTS: IBV_QP_TIMEOUT (timeout) (UC sends no ACKs, so nothing waits for one to time out)"* ]]
    [[ $output == *"present but not allowed in UC RTR->RTS: IBV_QP_MIN_RNR_TIMER (min_rnr_timer) (a UC receiver sends no RNR NAK"* ]]
    [[ $output == *"the transition and the mask are legal for RC RTR->RTS"* ]]
    [[ $output != *"not allowed in RC"* ]]
}

@test "explain's sizes: the largest unit that divides the size exactly (GiB, MiB, KiB), else bytes; each unit's boundary on both sides" {
    run "$VERBSH" -e '
      local size = require("verbs.explain_sys").size
      local t = {}
      for _, n in ipairs { 1 << 30, 3 << 30, (1 << 30) + (1 << 20), 1 << 29, 1 << 20, (1 << 20) - 1024, 1536 << 10, 1024, 1023, 0 } do
        t[#t + 1] = size(n)
      end
      print(table.concat(t, "; "), size(1.5), size("unlimited"))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "1 GiB; 3 GiB; 1025 MiB; 512 MiB; 1 MiB; 1023 KiB; 1536 KiB; 1 KiB; 1023 bytes; 0 bytes	1.5	unlimited" ]
}

@test "explain: an ADDR_ERROR or ROUTE_ERROR event's status gives its cause and fix, each status its own, any other the general one" {
    run "$VERBSH" -e '
      local c = require "verbs.explain_cm"
      for _, st in ipairs { -19, -110, -101, -113, -22 } do print(st, c.event_cause("ADDR_ERROR", st)) end
      for _, st in ipairs { -19, -22 } do print(st, c.event_cause("ROUTE_ERROR", st)) end'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == "-19	no RDMA device sits on the netdev that routes to this address (ENODEV): 127.0.0.1 and lo never work for rdma_cm"*"	use an address on the rxe netdev"* ]]
    [[ ${lines[1]} == "-110	address resolution timed out (ETIMEDOUT): no ARP answer from the destination	check the peer address is up (ping it); "* ]]
    [ "${lines[2]}" = "-101	no route to the destination (ENETUNREACH)	ip route get ADDR shows the route; add an address in the peer's subnet to the rxe netdev" ]
    [ "${lines[3]}" = "-113	no route to the destination (EHOSTUNREACH)	ip route get ADDR shows the route; add an address in the peer's subnet to the rxe netdev" ]
    [ "${lines[4]}" = "-22	address resolution failed	check the destination address and the routes (ip route get ADDR)" ]
    [ "${lines[5]}" = "-19	the route leads over a netdev without an RDMA device (ENODEV), e.g. lo	use an address on the rxe netdev, not 127.0.0.1" ]
    [[ ${lines[6]} == "-22	route resolution failed (status -22)	resolve_addr must have succeeded first (ADDR_RESOLVED); then resolve_route"* ]]
}

@test "explain: modify_qp's AV on another port than 1 and rnr_retry above 7 are named (port 1 and 7 not); an unknown current state and a QP type the table lacks say so" {
    xl 'local rtr = { path_mtu = "1024", dest_qp_num = 17, rq_psn = 0, max_dest_rd_atomic = 1, min_rnr_timer = 12,
          ah_attr = { is_global = 1, port_num = 2, grh = { sgid_index = 1 } } }
        print(mq("RC", "INIT", "RTR", rtr))
        rtr.ah_attr.port_num = 1
        print(mq("RC", "INIT", "RTR", rtr))
        print(mq("RC", "RTR", "RTS", { sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 8, max_rd_atomic = 1 }))
        print(mq("RC", "RTR", "RTS", { sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1 }))
        print(mq("UC", "BOGUS", "INIT", { pkey_index = 0 }))
        print(mq("RAW_PACKET", "RESET", "INIT", { port_num = 1 }))'
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "ibv_modify_qp failed: EINVAL (errno 22)" ]
    [ "${lines[1]}" = "  RC QP, INIT->RTR" ]
    [ "${lines[2]}" = "  why: ah_attr.port_num is 2; rxe has one port, number 1" ]
    [ "${lines[3]}" = "  fix: ah_attr.port_num = 1" ]
    [ "${lines[5]}" = "  RC QP, INIT->RTR" ]
    [[ ${lines[6]} == "  why: the transition and the mask are legal for RC INIT->RTR "* ]]
    [[ ${lines[7]} == "  fix: rxe also checks: "* ]]
    [ "${lines[9]}" = "  RC QP, RTR->RTS" ]
    [ "${lines[10]}" = "  why: rnr_retry 8 does not fit its 3 bits (0..7; 7 means retry forever)" ]
    [ "${lines[11]}" = "  fix: rnr_retry = 7" ]
    [[ ${lines[14]} == "  why: the transition and the mask are legal for RC RTR->RTS "* ]]
    [ "${lines[17]}" = "  UC QP, BOGUS->INIT" ]
    [ "${lines[18]}" = "  why: the QP's current state BOGUS is unknown to the state table" ]
    [ "${lines[19]}" = "  fix: qp:query() to see its state" ]
    [ "${lines[21]}" = "  RAW_PACKET QP, RESET->INIT" ]
    [ "${lines[22]}" = "  why: the state table here covers RC, UC and UD, not RAW_PACKET" ]
    [ "${#lines[@]}" -eq 23 ]
}

@test "explain: post_send of READ on UC and a UD send without an AH are named; a well-formed WR's EINVAL lists what rxe also checks, its ENOMEM says which queue is full" {
    xl 'local function p(verb, ctx, en)
          print(tostring(x.verb_error{ verb = verb, errno = x.ERRNO[en], errname = en, context = ctx }))
        end
        local sg = { { length = 8 } }
        p("ibv_post_send", { qp_type = "UC", qp_state = "RTS", wr = { opcode = "RDMA_READ", sg_list = sg } }, "EINVAL")
        p("ibv_post_send", { qp_type = "UC", qp_state = "RTS", wr = { opcode = "RDMA_WRITE", sg_list = sg } }, "EINVAL")
        p("ibv_post_send", { qp_type = "UD", qp_state = "RTS", wr = { opcode = "SEND", sg_list = sg } }, "EINVAL")
        p("ibv_post_send", { qp_type = "UD", qp_state = "RTS", wr = { opcode = "SEND", sg_list = sg, ud = { ah = 1 } } }, "ENOMEM")
        p("ibv_post_recv", { bad_wr = 2, qp_type = "RC", qp_state = "RTS", wr = { sg_list = sg } }, "ENOMEM")
        p("ibv_post_send", { qp_type = "RC", qp_state = "RTS", wr = { opcode = "SEND", sg_list = sg } }, "EFAULT")
        p("ibv_post_send", { qp_type = "UD", qp_state = "RTS", wr = { opcode = "SEND", sg_list = sg } }, "ENOMEM")'
    [ "$status" -eq 0 ]
    [ "${lines[1]}" = "  UC QP in RTS, WR #?" ]
    [ "${lines[2]}" = "  why: opcode RDMA_READ on a UC QP: UC has no READ or atomics (no responder state)" ]
    [ "${lines[3]}" = "  fix: use an RC QP" ]
    [ "${lines[6]}" = "  why: the WR looks well-formed here; rxe also rejects: num_sge above the QP's max, an atomic with a remote address not 8-byte aligned or a length other than 8, inline data above max_inline_data, an opcode the QP type lacks, or a QP not in a state that accepts posts" ]
    [ "${lines[7]}" = "  fix: qp:query() to compare with the QP's cap and state" ]
    [ "${lines[10]}" = "  why: a UD send needs an address handle (wr.ud.ah), remote_qpn and remote_qkey" ]
    [ "${lines[11]}" = "  fix: ah = pd:create_ah{...}; wr.ud = { ah = ah, remote_qpn = PEER_QPN, remote_qkey = QKEY }" ]
    [ "${lines[12]}" = "ibv_post_send failed: ENOMEM (errno 12)" ]
    [ "${lines[14]}" = "  why: the queue is full: more WRs outstanding than cap.max_send_wr" ]
    [ "${lines[15]}" = "  fix: poll the CQ to retire completions before posting more, or create the QP with a deeper queue" ]
    [ "${lines[17]}" = "  RC QP in RTS, WR #2" ]
    [ "${lines[19]}" = "  why: the queue is full: more WRs outstanding than cap.max_recv_wr" ]
    # EFAULT: neither of the two, the errno's own hint
    [ "${lines[22]}" = "  RC QP in RTS, WR #?" ]
    [ "${lines[23]}" = "  why: a bad address was passed to the kernel (a buffer outside this process's memory)" ]
    # ENOMEM with a finding of its own: that finding, not the full queue
    [ "${lines[25]}" = "ibv_post_send failed: ENOMEM (errno 12)" ]
    [ "${lines[27]}" = "  why: a UD send needs an address handle (wr.ud.ah), remote_qpn and remote_qkey" ]
    [ "${#lines[@]}" -eq 29 ]
}

@test "explain: bind_mw's EINVAL through a QP neither RC nor UC, and a QP not in RTS or SQD, are named; an access list without ZERO_BASED is not blamed; alloc_mw's EINVAL gets the general hint" {
    xl 'local function p(verb, ctx, en)
          print(tostring(x.verb_error{ verb = verb, errno = x.ERRNO[en], errname = en, context = ctx }))
        end
        p("ibv_bind_mw", { mw_type = "TYPE_1", qp_type = "UD", qp_state = "RTS", mw_access_flags = { "REMOTE_WRITE" } }, "EINVAL")
        p("ibv_bind_mw", { mw_type = "TYPE_1", qp_type = "RC", qp_state = "RTR" }, "EINVAL")
        p("ibv_bind_mw", { mw_type = "TYPE_1", qp_type = "UC", qp_state = "SQD" }, "EINVAL")
        p("ibv_alloc_mw", { type = "TYPE_1" }, "EINVAL")'
    [ "$status" -eq 0 ]
    [ "${lines[1]}" = "  why: the bind is posted on a UD QP: windows are bound through an RC or UC QP" ]
    [ "${lines[2]}" = "  fix: call bind_mw on an RC or UC QP of the same PD" ]
    [ "${lines[4]}" = "  why: the QP is in RTR: ibv_bind_mw posts a work request, which the send queue takes only in RTS" ]
    [ "${lines[5]}" = "  fix: bring the QP to RTS first" ]
    # UC in SQD: nothing of its own, the general EINVAL hint
    [ "${lines[7]}" = "  why: an argument is not valid for this object in its current state, or a value is above a device limit" ]
    [ "${lines[9]}" = "ibv_alloc_mw failed: EINVAL (errno 22)" ]
    [ "${lines[10]}" = "  why: an argument is not valid for this object in its current state, or a value is above a device limit" ]
}

@test "explain: wr_complete's ENOMEM and ENOSPC give the QP's caps (? when unknown); reg_mr's EINVAL blames missing LOCAL_WRITE for REMOTE_WRITE and REMOTE_ATOMIC only" {
    xl 'local function p(verb, ctx, en)
          print(tostring(x.verb_error{ verb = verb, errno = x.ERRNO[en], errname = en, context = ctx }))
        end
        p("ibv_wr_complete", { qp_type = "RC", qp_state = "RTS", built = 3,
          cap = { max_send_wr = 4, max_inline_data = 64, max_send_sge = 2 } }, "ENOMEM")
        p("ibv_wr_complete", { qp_type = "UC", qp_state = "RTS", built = 1 }, "ENOSPC")
        for _, a in ipairs { 2, 8, 4, 1 | 2 } do p("ibv_reg_mr", { length = 4096, access = a }, "EINVAL") end'
    [ "$status" -eq 0 ]
    [ "${lines[1]}" = "  RC QP in RTS, 3 WRs built since wr_start" ]
    [ "${lines[2]}" = "  why: a WR did not fit: the send queue holds 4 WRs (cap.max_send_wr), or inline data above max_inline_data (64), or more SGEs than max_send_sge (2); nothing of this session was posted" ]
    [ "${lines[3]}" = "  fix: poll completions before building more, build fewer WRs per session, or create the QP with a bigger cap" ]
    [ "${lines[4]}" = "ibv_wr_complete failed: ENOSPC (errno 28)" ]
    [ "${lines[5]}" = "  UC QP in RTS, 1 WR built since wr_start" ]
    [ "${lines[6]}" = "  why: a WR did not fit: the send queue holds ? WRs (cap.max_send_wr), or inline data above max_inline_data (?), or more SGEs than max_send_sge (?); nothing of this session was posted" ]
    local need='  why: REMOTE_WRITE and REMOTE_ATOMIC need LOCAL_WRITE too (the verbs spec: a remote write is a local write by the device)'
    local general='  why: the length is 0 or above max_mr_size, or REMOTE_WRITE or REMOTE_ATOMIC is asked without LOCAL_WRITE'
    [ "${lines[9]}" = "$need" ]
    [ "${lines[12]}" = "$need" ]
    [ "${lines[15]}" = "$general" ]
    [ "${lines[18]}" = "$general" ]
}

@test "explain(text): a verb's failure text is returned as it is, any other text says what explain takes" {
    xl 'print(x.explain("ibv_foo failed: EINVAL"))
        print(x.explain("verbs.open_thing failed: ENODEV"))
        print(x.explain("what failed"))'
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "ibv_foo failed: EINVAL" ]
    [ "${lines[1]}" = "verbs.open_thing failed: ENODEV" ]
    [ "${lines[2]}" = 'no explanation known for "what failed"; explain() takes a WC, a WC status (name or number), an errno name, or an error object' ]
}

@test "rdma_cm error events: REJECTED's other reasons (NO_QP, a named one, an unnamed one), CONNECT_ERROR and MULTICAST_ERROR with and without an errno name, TIMEWAIT_EXIT, DEVICE_REMOVAL" {
    run "$VERBSH" -e '
      local c = require "verbs.explain_cm"
      for _, e in ipairs { { "REJECTED", 1 }, { "REJECTED", 3 }, { "REJECTED", 12 }, { "CONNECT_ERROR", -110 },
                           { "CONNECT_ERROR", -4660 }, { "TIMEWAIT_EXIT", 0 }, { "MULTICAST_ERROR", -99 },
                           { "MULTICAST_ERROR", 5 }, { "DEVICE_REMOVAL", 0 }, { "ADDR_RESOLVED", 0 } } do
        print(e[1], e[2], c.event_cause(e[1], e[2]))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "REJECTED	1	the server could not create its QP or had none (reason 1, NO_QP)	check the server's create_qp" ]
    [ "${lines[1]}" = "REJECTED	3	the passive side rejected the request (IB CM reject reason 3, NO_RESOURCES)	compare responder_resources/initiator_depth with the peer's, and check the port space" ]
    # 12 has no name in the IB CM's table: the number alone
    [ "${lines[2]}" = "REJECTED	12	the passive side rejected the request (IB CM reject reason 12)	compare responder_resources/initiator_depth with the peer's, and check the port space" ]
    [ "${lines[3]}" = "CONNECT_ERROR	-110	the connection failed while it formed (status -110 ETIMEDOUT): typically the QP could not be moved to RTR/RTS with the peer's parameters	check responder_resources/initiator_depth against the device's max_qp_rd_atom; the QP's cap" ]
    [ "${lines[4]}" = "CONNECT_ERROR	-4660	the connection failed while it formed (status -4660): typically the QP could not be moved to RTR/RTS with the peer's parameters	check responder_resources/initiator_depth against the device's max_qp_rd_atom; the QP's cap" ]
    [ "${lines[5]}" = "TIMEWAIT_EXIT	0	the QP left the time-wait state after a disconnect	nothing to fix" ]
    [ "${lines[6]}" = "MULTICAST_ERROR	-99	the join failed, or a joined group went away (status -99 EADDRNOTAVAIL): on RoCE the kernel joins the group's IP address on the netdev (IGMP); on InfiniBand the subnet manager refused or dropped the group	join again (id:join_multicast); check that the address is a multicast one (224.0.0.0/4, ff00::/8) and that the id was resolved on the RDMA netdev" ]
    # a positive status names no errno (errno's table is of negated statuses)
    [[ ${lines[7]} == "MULTICAST_ERROR	5	the join failed, or a joined group went away (status 5): on RoCE"* ]]
    [ "${lines[8]}" = "DEVICE_REMOVAL	0	the RDMA device went away (rdma link delete, or module unload)	destroy everything on it and start over" ]
    [ "${lines[9]}" = "ADDR_RESOLVED	0	nil" ]
    [ "${#lines[@]}" -eq 10 ]
}

@test "rdma_cm events: expect returns the event named (short or full name); another raises a verbs.cm_error with the event, status, names expected and hint, which prints as its text" {
    run "$VERBSH" -e '
      local c = require "verbs.explain_cm"
      local ok, e = pcall(c.expect, { event = "REJECTED", status = 28 }, "ESTABLISHED", "RDMA_CM_EVENT_CONNECT_RESPONSE")
      print(ok, getmetatable(e).__name, e.event, e.status, table.concat(e.expected, ","))
      print(tostring(e) == e.text, e.hint)
      print(tostring(e))
      print(c.expect({ event = "ESTABLISHED", status = 0 }, "RDMA_CM_EVENT_ESTABLISHED").event)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "false	verbs.cm_error	REJECTED	28	ESTABLISHED,RDMA_CM_EVENT_CONNECT_RESPONSE" ]
    [ "${lines[1]}" = "true	see why the server refused; fix the request it checks" ]
    [ "${lines[2]}" = "rdma_get_cm_event: expected ESTABLISHED or RDMA_CM_EVENT_CONNECT_RESPONSE, got REJECTED (status 28)" ]
    [ "${lines[3]}" = "  why: the server called rdma_reject (reason 28, CONSUMER_DEFINED); its private data may say why (event.param.conn.private_data)" ]
    [ "${lines[4]}" = "  fix: see why the server refused; fix the request it checks" ]
    [ "${lines[5]}" = "ESTABLISHED" ]
}

@test "rdma_cm events: describe adds why and fix to an error event only; expect refuses an event name that is no string" {
    run "$VERBSH" -e '
      local c = require "verbs.explain_cm"
      print(c.describe{ event = "REJECTED", status = 3 })
      print(c.describe{ event = "ESTABLISHED", status = 0 })
      print(c.describe{ event = "DISCONNECTED", status = 0 })
      local ev = { event = "ESTABLISHED", status = 0 }
      print(c.expect(ev, "ESTABLISHED", 7) == ev)
      print(select(2, pcall(c.expect, ev, 7, "ESTABLISHED")))
      print(select(2, pcall(c.expect, ev, "REJECTED", true)))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "cm_event REJECTED, status 3" ]
    [ "${lines[1]}" = "  why: the passive side rejected the request (IB CM reject reason 3, NO_RESOURCES)" ]
    [ "${lines[2]}" = "  fix: compare responder_resources/initiator_depth with the peer's, and check the port space" ]
    [ "${lines[3]}" = "cm_event ESTABLISHED, status 0" ]
    [ "${lines[4]}" = "cm_event DISCONNECTED, status 0" ]
    [ "${lines[5]}" = "  why: the peer disconnected (rdma_disconnect) or its process exited" ]
    [ "${lines[6]}" = "  fix: if unexpected: see the peer's output" ]
    # the first name that matches returns the event: a later bad one is never looked at
    [ "${lines[7]}" = "true" ]
    [ "${lines[8]}" = "bad argument to 'expect' (event names are strings, got number)" ]
    [ "${lines[9]}" = "bad argument to 'expect' (event names are strings, got boolean)" ]
    [ "${#lines[@]}" -eq 10 ]
}

@test "explain: rdma_create_qp's EINVAL on an id bound to no device says so; on a bound id, and an attach of a UD QP to a multicast GID, the general EINVAL" {
    run "$VERBSH" -e '
      print(verbs.explain{ verb = "rdma_create_qp", errno = 22, errname = "EINVAL", context = { bound = false } })
      print(verbs.explain{ verb = "rdma_create_qp", errno = 22, errname = "EINVAL", context = { bound = true, same_device = true } })
      print(verbs.explain{ verb = "ibv_attach_mcast", errno = 22, errname = "EINVAL", context = { qp_type = "UD", multicast = true } })'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "rdma_create_qp failed: EINVAL (errno 22)" ]
    [ "${lines[1]}" = "  why: the id is not bound to a device yet: librdmacm does not know which device the QP belongs to" ]
    [ "${lines[2]}" = "  fix: create the QP after ADDR_RESOLVED / ROUTE_RESOLVED (client), or on the new id of a CONNECT_REQUEST (server)" ]
    [ "${lines[3]}" = "rdma_create_qp failed: EINVAL (errno 22)" ]
    [ "${lines[4]}" = "  why: an argument is not valid for this object in its current state, or a value is above a device limit" ]
    [ "${lines[6]}" = "ibv_attach_mcast failed: EINVAL (errno 22)" ]
    [ "${lines[7]}" = "  why: an argument is not valid for this object in its current state, or a value is above a device limit" ]
    [ "${#lines[@]}" -eq 9 ]
}

@test "explain: ibv_attach_mcast's EINVAL with a GID that is no group names the GID and the group ranges; its ENOMEM the multicast limits, whatever the GID; a QP that is not UD is named first" {
    run "$VERBSH" -e '
      local function e(errname, ctx) print(verbs.explain{ verb = "ibv_attach_mcast", errno = require("verbs.explain").ERRNO[errname], errname = errname, context = ctx }) end
      e("EINVAL", { qp_type = "UD", multicast = false, gid = "::ffff:192.0.2.1" })
      e("ENOMEM", { qp_type = "UD", multicast = false, gid = "::ffff:192.0.2.1" })
      e("EINVAL", { qp_type = "RC", multicast = false, gid = "::ffff:192.0.2.1" })'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[1]}" = "  why: ::ffff:192.0.2.1 is not a multicast address (a group GID is ::ffff:224.0.0.0 to ::ffff:239.255.255.255 on RoCE over IPv4, or ff00::/8)" ]
    [ "${lines[2]}" = '  fix: attach a group GID, e.g. "::ffff:239.1.2.3"' ]
    [ "${lines[3]}" = "ibv_attach_mcast failed: ENOMEM (errno 12)" ]
    [ "${lines[4]}" = "  why: the device's multicast limits are reached (ctx:query_device(): max_mcast_grp, max_mcast_qp_attach QPs per group, max_total_mcast_qp_attach)" ]
    [ "${lines[7]}" = "  why: only a UD QP joins a multicast group; this QP is RC" ]
    [ "${#lines[@]}" -eq 9 ]
}

@test "open: devices, uverbs nodes and providers all there, yet open failed -> case unknown naming the kernel's devices, and ibv_devinfo" {
    mkroot; d /sys/module/ib_core /sys/module/rdma_rxe /sys/class/infiniband/rxe0 /sys/class/infiniband/mlx5_0
    f /dev/infiniband/uverbs0 ""; f /dev/infiniband/uverbs1 ""
    diag ibv_open_device open_failed "'rxe0'" "'rxe0', 'mlx5_0'"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 4 ]
    [ "${lines[0]}" = "ibv_open_device failed: ENODEV (errno 19, No such device)" ]
    [ "${lines[1]}" = "  case: unknown" ]
    [ "${lines[2]}" = "  why: the kernel has mlx5_0, rxe0 with a provider and a uverbs node, yet opening failed" ]
    [ "${lines[3]}" = "  fix: run \`ibv_devinfo -v\` to see what libibverbs says; check dmesg" ]
}

@test "open: the micro-VM offered is the checkout's scripts/rxe-vm for a binary at most two folders below it, else verbsh-vm, which beside the binary wins" {
    mkroot
    C=$BATS_TEST_TMPDIR/co
    mkdir -p "$C/scripts" "$C/a/b/c"
    touch "$C/scripts/rxe-vm"
    fix() {   # fix BINARY: the no_rdma_kernel fix the binary at that place gives
        cp "$VERBSH" "$1"
        "$1" -e "local s = require('verbs.explain').sys; s.root = '$R'
          print(s.diagnose_open({ reason = 'no_device', devices = {} }).fix)"
    }
    checkout="run verbsh in the project's micro-VM, which boots a kernel with rdma_rxe and creates rxe0: \`scripts/rxe-vm --tty -- ./verbsh\` or \`make run\`; or boot a kernel with CONFIG_RDMA_RXE=m"
    installed="run verbsh in the project's micro-VM, which boots a kernel with rdma_rxe and creates rxe0: \`verbsh-vm --tty -- verbsh\`; or boot a kernel with CONFIG_RDMA_RXE=m"
    for b in "$C/verbsh" "$C/a/verbsh" "$C/a/b/verbsh"; do
        run fix "$b"
        [ "$output" = "$checkout" ]
    done
    run fix "$C/a/b/c/verbsh"
    [ "$output" = "$installed" ]
    touch "$C/a/verbsh-vm"
    run fix "$C/a/verbsh"
    [ "$output" = "$installed" ]
}

@test "explain: EFAULT from a memlock verb is the memlock limit only when the limit is known; without it, the bad address; an ENOMEM with no limit known says so" {
    xl 'print(x.verb_error{ verb = "ibv_reg_mr", errno = 14, errname = "EFAULT", context = { memlock = 1048576, length = 3145728 } })
        print(x.verb_error{ verb = "ibv_reg_mr", errno = 14, errname = "EFAULT", context = { length = 3145728 } })
        print(x.verb_error{ verb = "ibv_create_cq", errno = 12, errname = "ENOMEM", context = {} })'
    echo "$output"
    [ "$status" -eq 0 ]
    local fix="  fix: ulimit -l unlimited in the shell that starts verbsh; in a container: docker run --ulimit memlock=-1; for good: '* soft memlock unlimited' and '* hard memlock unlimited' in /etc/security/limits.conf (then log in again)"
    [ "${lines[0]}" = "ibv_reg_mr failed: EFAULT (errno 14)" ]
    [ "${lines[1]}" = "  why: ibv_reg_mr pins memory, which counts against RLIMIT_MEMLOCK (ulimit -l): the limit is 1 MiB (1048576 bytes), and this asks for 3 MiB more" ]
    [ "${lines[2]}" = "$fix" ]
    [ "${lines[3]}" = "ibv_reg_mr failed: EFAULT (errno 14)" ]
    [ "${lines[4]}" = "  why: a bad address was passed to the kernel (a buffer outside this process's memory)" ]
    [ "${lines[5]}" = "  fix: let verbsh allocate the buffer (pd:reg_mr(length, access))" ]
    [ "${lines[6]}" = "ibv_create_cq failed: ENOMEM (errno 12)" ]
    [ "${lines[7]}" = "  why: ibv_create_cq pins memory, which counts against RLIMIT_MEMLOCK (ulimit -l): the limit is unknown here" ]
    [ "${lines[8]}" = "$fix" ]
    [ "${#lines[@]}" -eq 9 ]
}

@test "rdma_cm UNREACHABLE of a UD lookup: each SIDR reply status (1 to 5, the IB spec's) by its name and fix; 6, no SIDR status, is the unanswered request" {
    run "$VERBSH" -e 'local c = require "verbs.explain_cm"
      for st = 1, 6 do print(st, c.event_cause("UNREACHABLE", st)) end'
    echo "$output"
    [ "$status" -eq 0 ]
    local srv="see the server's output: its create_qp or accept failed, or it called reject"
    [ "${lines[0]}" = $'1\tthe UD service lookup was answered with status 1, UNSUPPORTED (nobody listens on that port)\tstart the server first, on the same port and port space (UDP)' ]
    [ "${lines[1]}" = $'2\tthe UD service lookup was answered with status 2, REJECT (the server rejected or failed before accepting)\t'"$srv" ]
    [ "${lines[2]}" = $'3\tthe UD service lookup was answered with status 3, NO_QP\t'"$srv" ]
    [ "${lines[3]}" = $'4\tthe UD service lookup was answered with status 4, REDIRECT\t'"$srv" ]
    [ "${lines[4]}" = $'5\tthe UD service lookup was answered with status 5, UNSUPPORTED_VERSION\t'"$srv" ]
    [[ ${lines[5]} == $'6\tthe peer\'s CM never answered the connection request (status 6): the REQ or its REP was lost, or nothing runs there\tstart the server first and check the address; '* ]]
    [ "${#lines[@]}" -eq 6 ]
}

@test "explain: rdma_connect's EINVAL on an id with neither a QP nor a conn_param says the CM has no QP number; rdma_accept's EINVAL on an id with a QP is the listening id or too much private data" {
    xl 'print(x.verb_error{ verb = "rdma_connect", errno = 22, errname = "EINVAL", context = { has_qp = false, has_param = false } })
        print(x.verb_error{ verb = "rdma_accept", errno = 22, errname = "EINVAL", context = { has_qp = true, has_param = false } })'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "rdma_connect failed: EINVAL (errno 22)" ]
    [ "${lines[1]}" = "  why: this id has no QP and no conn_param: the CM has no QP number to put in the message" ]
    [ "${lines[2]}" = "  fix: id:create_qp(pd, init_attr) first, or pass conn_param with qp_num (a QP you move yourself, see id:init_qp_attr)" ]
    [ "${lines[3]}" = "rdma_accept failed: EINVAL (errno 22)" ]
    [ "${lines[4]}" = "  why: accept is called on the new id of a CONNECT_REQUEST event, not on the listening id; or private_data is too long (a REP carries 196 bytes)" ]
    [ "${lines[5]}" = "  fix: ev.id:accept(conn_param)" ]
    [ "${#lines[@]}" -eq 6 ]
}

@test "open: a name that is not there, libibverbs listing none -> the kernel's device named instead, in the why and the fix" {
    mkroot; d /sys/module/ib_core /sys/module/siw /sys/class/infiniband/siw7; f /dev/infiniband/uverbs0 ""
    f /etc/libibverbs.d/siw.driver "driver siw"; f /usr/lib/x86_64-linux-gnu/libibverbs/libsiw-rdmav34.so ""
    diag ibv_open_device not_found "'mlx5_0'"
    echo "$output"
    [[ $output == *"case: not_found"*'there is no device "mlx5_0"; libibverbs sees: siw7'* ]]
    [[ $output == *'fix: verbs.open("siw7"), or start the shell with `verbsh -d siw7` (ibv_devices lists them)'* ]]
}

@test "explain: an unknown key's nearest known key follows verbs.suggest's rule (1 edit up to 3 letters, 2 up to 6, 3 beyond; a C habit by name), as the binding's own error does, which it does not repeat; of two at one distance, the first listed (rkey before lkey)" {
    run "$VERBSH" -e '
      local x = require "verbs.explain"
      for _, k in ipairs{ "opcodeXYZ", "opcodeWXYZ", "rkeyQQ", "rkeQQQ", "xkey", "dqpn", "zz" } do
        print(x.explain("bad argument #1 to '"'"'post_send'"'"' (unknown key '"'"'" .. k .. "'"'"')"):match("\n  (.*)$"))
      end
      local ok, e = pcall(verbs.send_wr, { opcodeXYZ = 1 })
      print(x.explain(e))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "did you mean 'opcode'?" ]                 # 9 letters, 3 edits: within 3
    [ "${lines[1]}" = "no known key is close to 'opcodeWXYZ'" ]  # 10 letters, 4 edits
    [ "${lines[2]}" = "did you mean 'rkey'?" ]                   # 6 letters, 2 edits: within 2
    [ "${lines[3]}" = "no known key is close to 'rkeQQQ'" ]      # 6 letters, 3 edits
    [ "${lines[4]}" = "did you mean 'rkey'?" ]                   # 1 edit from rkey and from lkey
    [ "${lines[5]}" = "did you mean 'dest_qp_num'?" ]            # C's dqpn
    [ "${lines[6]}" = "no known key is close to 'zz'" ]          # 2 letters: 1 edit at most
    # the binding's own error names the same key, once
    [ "${lines[7]}" = "bad argument #1 to 'verbs.send_wr' (unknown key 'opcodeXYZ' (did you mean 'opcode'?))" ]
    [ "${#lines[@]}" -eq 8 ]
}

@test "explain: a successful WC's line names each field it holds, in order (byte_len, imm_data or invalidated_rkey in hex, wc_flags, src_qp, qp_num); one it lacks is left out" {
    run "$VERBSH" -e '
      local x = require "verbs.explain"
      print(x.explain({ wr_id = 31, status = "SUCCESS", opcode = "RECV", byte_len = 3, invalidated_rkey = 0x1a2b, wc_flags = { "WITH_INV" }, qp_num = 5 }))
      print(x.explain({ wr_id = 32, status = "SUCCESS", opcode = "RECV_RDMA_WITH_IMM", byte_len = 0, imm_data = 0x4d3c, wc_flags = { "WITH_IMM" }, src_qp = 0x12, qp_num = 6 }))
      print(x.explain({ wr_id = 33, status = "SUCCESS", qp_num = 7 }))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "wc wr_id=31 RECV SUCCESS byte_len=3 invalidated_rkey=0x1a2b wc_flags=WITH_INV qp_num=0x000005" ]
    [ "${lines[1]}" = "wc wr_id=32 RECV_RDMA_WITH_IMM SUCCESS byte_len=0 imm_data=0x4d3c wc_flags=WITH_IMM src_qp=0x000012 qp_num=0x000006" ]
    [ "${lines[2]}" = "wc wr_id=33 SUCCESS qp_num=0x000007" ]
}

@test "explain: EINVAL leaving SQD names the drain when sq_draining read 1 (not for SQD->ERR, which rxe allows); read 0, a note says a drain may have ended; unknown, nothing" {
    xl 'local function e(to, d) return tostring(x.verb_error{ verb = "ibv_modify_qp", errno = 22, errname = "EINVAL",
          context = { qp_type = "RC", cur_state = "SQD", qp_state = to, mask = { "STATE" }, attr = { qp_state = to }, sq_draining = d } }) end
        print(e("RTS", 1)); print("=="); print(e("RTS", 0)); print("=="); print(e("RTS", nil)); print("=="); print(e("SQD", 1)); print("=="); print(e("ERR", 1))'
    echo "$output"
    [ "$status" -eq 0 ]
    local IFS=$'\n' parts
    parts=$(awk 'BEGIN { RS = "==\n" } { gsub(/\n/, "|"); print }' <<<"$output")
    set -- $parts
    [[ $1 == *"why: the QP was still draining its send queue (sq_draining = 1 when the modify failed)"* ]]
    [[ $1 != *"so a value was refused"* ]]
    [[ $2 == *"why: the transition and the mask are legal for RC SQD->RTS"*"note: leaving SQD is refused too while the send queue still drains; sq_draining read 0 just after the failure"*"fix: try the modify again"* ]]
    [[ $3 == *"why: the transition and the mask are legal for RC SQD->RTS"* ]]
    [[ $3 != *"drain"* ]]
    [[ $4 == *"RC QP, SQD->SQD"*"still draining its send queue (sq_draining = 1"* ]]
    [[ $5 == *"RC QP, SQD->ERR"* ]]
    [[ $5 != *"drain"* ]]
}

@test "explain: ibv_create_cq_ex's EOPNOTSUPP names the wc_flags rxe cannot fill, in the order given; any other errno gets the errno's own reading, not that one" {
    run "$VERBSH" -e '
      print(verbs.explain{ verb = "ibv_create_cq_ex", errno = 95, errname = "EOPNOTSUPP",
        context = { device = "rxe0", transport = "IB", wc_flags = { "BYTE_LEN", "COMPLETION_TIMESTAMP", "CVLAN" } } })
      print(verbs.explain{ verb = "ibv_create_cq_ex", errno = 22, errname = "EINVAL",
        context = { device = "rxe0", transport = "IB", wc_flags = { "BYTE_LEN", "COMPLETION_TIMESTAMP" } } })'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "ibv_create_cq_ex failed: EOPNOTSUPP (errno 95)" ]
    [ "${lines[1]}" = "  why: the provider cannot fill COMPLETION_TIMESTAMP, CVLAN (rxe offers BYTE_LEN, IMM, QP_NUM, SRC_QP, SLID, SL, DLID_PATH_BITS; a completion timestamp needs a NIC clock, which soft-RoCE has not)" ]
    [ "${lines[2]}" = "  fix: leave those out of wc_flags; ctx:query_device() tells a real NIC's completion_timestamp_mask" ]
    [ "${lines[3]}" = "ibv_create_cq_ex failed: EINVAL (errno 22)" ]
    [ "${lines[4]}" = "  why: an argument is not valid for this object in its current state, or a value is above a device limit" ]
    [ "${lines[5]}" = "  fix: compare the arguments with ctx:query_device() / ctx:query_port(1) and the object's state" ]
    [ "${#lines[@]}" -eq 6 ]
}
