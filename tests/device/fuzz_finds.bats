#!/usr/bin/env bats
# What fuzz campaigns found, kept as tests on real rxe with both binaries:
# an extended QP whose comp_mask left out SEND_OPS_FLAGS (rxe then leaves
# every ibv_wr_* function pointer NULL), and strings with a NUL byte that C
# would have read up to the NUL.
load ../helpers

setup() { require_device; }

# The QP of the fuzz report: comp_mask names PD and CREATE_FLAGS only.
QP_NO_OPS='
  local ctx = verbs.open(); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)
  qp = ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq,
    cap = { max_send_wr = 1, max_recv_wr = 1 }, send_ops_flags = {}, comp_mask = { "PD", "CREATE_FLAGS" } }'

@test "create_qp_ex with a comp_mask without SEND_OPS_FLAGS: wr_start is a named error, not a jump through NULL" {
    run "$VERBSH" -e "$QP_NO_OPS"'
      print(pcall(qp.wr_start, qp))
      print(pcall(function() return qp.wr_id end))
      print(pcall(qp.wr_send, qp))
      print(qp.qp_type, qp.state)' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    # create warns that send_ops_flags was ignored, naming the missing bit
    [[ $output == *"verbsh warning: "*"key 'send_ops_flags' is ignored: comp_mask lacks SEND_OPS_FLAGS"* ]]
    [[ ${lines[1]} == "false	wr_start: this QP has no new post-send API"*"a comp_mask you give must name \"SEND_OPS_FLAGS\""* ]]
    [[ ${lines[2]} == "false	"*"wr_id: this QP has no new post-send API"* ]]
    [[ ${lines[3]} == "false	wr_send: this QP has no new post-send API"* ]]
    # the QP itself is fine: plain post_send still works on it
    has_line "RC	RESET"
}

@test "create_qp_ex: the same comp_mask is an error under verbs.strict(true); with SEND_OPS_FLAGS wr_start works" {
    run "$VERBSH" -e 'verbs.strict(true)'"$QP_NO_OPS" 2>&1
    echo "$output"
    [ "$status" -eq 1 ]
    [[ $output == *"key 'send_ops_flags' is ignored: comp_mask lacks SEND_OPS_FLAGS"*"(an error under verbs.strict(true))"* ]]
    [[ $output != *"verbsh warning"* ]]
    # the boundary's other side: the same table with the bit named works
    run "$VERBSH" -e '
      local ctx = verbs.open(); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)
      local qp = ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq,
        cap = { max_send_wr = 1, max_recv_wr = 1 }, send_ops_flags = { "SEND" }, comp_mask = { "PD", "SEND_OPS_FLAGS" } }
      qp:wr_start(); qp.wr_id = 0x1234; print(qp.wr_id); qp:wr_abort(); print("ok")' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output != *"warning"* ]]
    has_line "4660"
    has_line "ok"
}

@test "create_cq_ex: flags given with a comp_mask that lacks FLAGS is a warning naming the key" {
    run "$VERBSH" -e '
      local ctx = verbs.open()
      local cq = ctx:create_cq_ex{ cqe = 4, wc_flags = { "BYTE_LEN" }, flags = { "SINGLE_THREADED" }, comp_mask = {} }
      print(cq:start_poll())' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"key 'flags' is ignored: comp_mask lacks FLAGS"* ]]
    has_line "false"
}

@test "strings with a NUL byte: enum and flag names, addresses, GIDs, keys and field names are refused by name" {
    run "$VERBSH" -e '
      local ctx = verbs.open(); local pd = ctx:alloc_pd()
      local function try(f) local ok, e = pcall(f); print(ok, e) end
      try(function() return pd:reg_mr(64, "LOCAL_WRITE\0REMOTE_WRITE") end)
      try(function() return pd:reg_mr(64, { "LOCAL_WRITE", "REMOTE_READ\0x" }) end)
      local cq = ctx:create_cq(4)
      local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 1, max_recv_wr = 1 } }
      try(function() qp:modify{ qp_state = "INIT\0RTS", pkey_index = 0, port_num = 1, qp_access_flags = 0 } end)
      print(qp.state)
      try(function() qp:modify{ ["qp_state\0x"] = "INIT" } end)
      try(function() return qp["qp_num\0x"] end)
      try(function() return verbs.open("rxe0\0x") end)
      local id = verbs.create_event_channel():create_id("TCP")
      try(function() id:resolve_addr(nil, "10.0.0.1:74\0" .. "71", 100) end)
      try(function() return pd:create_ah{ is_global = 1, port_num = 1, grh = { dgid = "fe80::1\0junk", sgid_index = 0 } } end)
      try(function() return verbs.fields("ibv_qp_attr\0x") end)' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == "false	"*"'LOCAL_WRITE' is followed by a NUL byte and more text"* ]]
    [[ ${lines[1]} == "false	"*"'REMOTE_READ' is followed by a NUL byte"* ]]
    [[ ${lines[2]} == "false	"*"qp_state"*"'INIT' is followed by a NUL byte"* ]]
    has_line "RESET"
    [[ ${lines[4]} == "false	"*"unexpected key 'qp_state' followed by a NUL byte"* ]]
    [[ ${lines[5]} == "false	"*"qp has no field 'qp_num' followed by a NUL byte"* ]]
    [[ ${lines[6]} == "false	"*"device name: the string has a NUL byte after 'rxe0'"* ]]
    [[ ${lines[7]} == "false	"*"the string has a NUL byte after '10.0.0.1:74'"* ]]
    [[ ${lines[8]} == "false	"*"'fe80::1' followed by a NUL byte is not a GID"* ]]
    [[ ${lines[9]} == "false	"*"C type: the string has a NUL byte after 'ibv_qp_attr'"* ]]
    # the other side: the same calls without the NUL are accepted
    run "$VERBSH" -e '
      local ctx = verbs.open(); local pd = ctx:alloc_pd()
      local mr = pd:reg_mr(64, { "LOCAL_WRITE", "REMOTE_WRITE" }); print(verbs.enum("ibv_access_flags") and mr.length)
      -- 16 raw bytes, NULs included, are a GID: rxe0'"'"'s own IPv4-mapped one
      local a, b, c, d = os.getenv("RXE_ADDR"):match("(%d+)%.(%d+)%.(%d+)%.(%d+)")
      local raw = string.rep("\0", 10) .. "\255\255" .. string.char(a, b, c, d)
      local gi = tonumber(os.getenv("RXE_GID_INDEX"))
      local ah = pd:create_ah{ is_global = 1, port_num = 1, grh = { dgid = raw, sgid_index = gi } }
      print(type(ah), ctx:query_gid(1, gi) == "::ffff:" .. os.getenv("RXE_ADDR"))' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "64"
    has_line "userdata	true"
}
