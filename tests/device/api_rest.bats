#!/usr/bin/env bats
# The rest of verbs.h and rdma_cma.h on rxe: the bindings rxe runs, compared
# with the values a C program measured on the same rxe; the hardware-only
# verbs, each refused with rxe's errno and explained; their trace and C
# export; and the export of a session that makes an object of each kind and
# never uses it, which -Wall -Wextra -Werror must accept.
load ../helpers

setup() { require_device; cd "$ROOT"; }

@test "api: P_Keys, query_device_ex, cq:resize, an MR at an IOVA written remotely, rereg, create_srq_ex, data order, fork" {
    run "$VERBSH" tests/lua/api_rest.lua
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "api_rest: ok (63 checks)"
}

@test "api: every hardware-only verb gives rxe's errno, explained with the device, the feature and its help topic" {
    run "$VERBSH" tests/lua/api_devonly.lua
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "api_devonly: ok (148 checks)"
}

@test "api: fork_init before the first reg_mr succeeds, and then survives one" {
    run vsh 'print(verbs.fork_init(), verbs.is_fork_initialized())
      local ctx = verbs.open(os.getenv("RXE_DEV")); local mr = ctx:alloc_pd():reg_mr(4096, "LOCAL_WRITE")
      print(verbs.fork_init())'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "true	UNNEEDED" ]
    [ "${lines[1]}" = "true" ]
}

@test "api: rdma_cm's rest: set_option, migrate (events then on the new channel), notify, get_devices, ECE, create_qp_ex" {
    run vsh '
      local ch, ch2 = verbs.create_event_channel(), verbs.create_event_channel()
      local id = ch:create_id("TCP")
      id:set_option("ID", "TOS", 32); id:set_option("ID", "REUSEADDR", true); id:set_option("ID", "ACK_TIMEOUT", 14)
      print(select(2, pcall(id.set_option, id, "ID", "ACK_TIMEOUT", 32)))
      print(select(2, pcall(id.set_option, id, "IB", "PATH", 1)))
      local function errname(ok, e) return tostring(ok) .. " " .. tostring(type(e) == "table" and e.verb .. " " .. e.errname or e) end
      print(errname(pcall(id.notify, id, "COMM_EST")))
      id:set_local_ece(0x15b3, 1); local e = id:get_remote_ece(); print(e.vendor_id, e.options)
      print(errname(pcall(id.reject_ece, id)))
      id:migrate(ch2)
      print(pcall(ch.destroy, ch))   -- the id no longer uses ch
      print(pcall(ch2.destroy, ch2))
      id:resolve_addr(nil, os.getenv("RXE_ADDR") .. ":7471")
      local ev = ch2:get_cm_event(5000); local got = ev.event; print(got); ev:ack()
      id:resolve_route(); ch2:get_cm_event(5000):expect("ROUTE_RESOLVED"):ack()
      local devs = verbs.get_devices(); print(#devs, devs[1].name, devs[1] == id.verbs, pcall(devs[1].close, devs[1]))
      local pd = id.verbs:alloc_pd(); local cq, rcq = id.verbs:create_cq(4), id.verbs:create_cq(5)
      local qp = id:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = rcq, send_ops_flags = { "SEND" },
        cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 } }
      print(id.qp == qp, qp.state, qp.pd == pd, qp.send_cq == cq, qp.recv_cq == rcq, qp.srq,
        pcall(id.create_qp_ex, id, { pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq }))
      print(select(2, pcall(id.create_qp_ex, id, { pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq }, "extra")))
      qp:wr_start(); qp:wr_abort()
      print(verbs.event_str("ESTABLISHED"), verbs.event_str(got))
      id:destroy_qp(); id:destroy(); ch2:destroy()' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == *"ACK_TIMEOUT: 32 is out of range (0..31)"* ]]
    [[ ${lines[1]} == *"level IB has one option, PATH"* ]]
    [ "${lines[2]}" = "false rdma_notify EINVAL" ]
    [ "${lines[3]}" = "0	0" ]
    [ "${lines[4]}" = "false rdma_reject_ece EINVAL" ]
    [ "${lines[5]}" = "true" ]
    [[ ${lines[6]} == "false	destroy: cm_channel"*"still used by 1 object"* ]]
    [ "${lines[7]}" = "ADDR_RESOLVED" ]
    # every device the kernel has (rxe0, and siw0 in make test's guest), the first rxe0
    [[ ${lines[8]} == "$(ls /sys/class/infiniband | wc -l)	$RXE_DEV	true	false	close: "* ]]
    # the QP keeps its PD and its two CQs, each where it was given
    [[ ${lines[9]} == "true	INIT	true	true	true	nil	false	create_qp_ex: this id already has a QP"* ]]
    [[ ${lines[10]} == *"id:create_qp_ex(attr)"* && ${lines[10]} == *"#2"* ]]   # an extra argument, named
    [ "${lines[11]}" = "RDMA_CM_EVENT_ESTABLISHED	RDMA_CM_EVENT_ADDR_RESOLVED" ]
}

@test "api: migrate refuses an id whose event is not acked (rdma_migrate_id would wait forever)" {
    run vsh '
      local ch, ch2 = verbs.create_event_channel(), verbs.create_event_channel()
      local id = ch:create_id("UDP")
      id:resolve_addr(nil, os.getenv("RXE_ADDR") .. ":7472")
      local ev = ch:get_cm_event(5000)
      print(pcall(id.migrate, id, ch2))
      ev:ack(); id:migrate(ch2); print("moved")' 2>&1
    echo "$output"
    [[ ${lines[0]} == "false	"*"migrate: an event of this id is not acked yet"* ]]
    [ "${lines[1]}" = "moved" ]
}

@test "api: migrate lets go of the old channel: once collected, its descriptor is closed" {
    run vsh '
      local pid = io.open("/proc/self/stat"):read("n")
      local function open(fd) local p = io.popen("readlink /proc/" .. pid .. "/fd/" .. fd); local l = p:read("l"); p:close(); return l end
      local ch, ch2 = verbs.create_event_channel(), verbs.create_event_channel()
      local fd, fd2 = ch.fd, ch2.fd
      local id = ch:create_id("TCP")
      ch = nil; collectgarbage(); collectgarbage()
      print(open(fd), open(fd2))     -- the id keeps its channel
      id:migrate(ch2); collectgarbage(); collectgarbage()
      print(open(fd), open(fd2))     -- nothing uses the first one now
      id:destroy()' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "/dev/infiniband/rdma_cm	/dev/infiniband/rdma_cm" ]
    [ "${lines[1]}" = "nil	/dev/infiniband/rdma_cm" ]
}

@test "api: the trace writes the new calls as C, with rxe's outcomes" {
    run vsh '
      local ctx = verbs.open(os.getenv("RXE_DEV")); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(16)
      verbs.trace(true)
      ctx:query_pkey(1, 0); cq:resize(64); pcall(ctx.open_xrcd, ctx); pcall(cq.modify, cq, 4, 10)
      local mr = pd:reg_mr_iova(4096, 0x12345000, "LOCAL_WRITE"); pcall(mr.rereg, mr, "CHANGE_ACCESS", nil, "LOCAL_WRITE")' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"ibv_query_pkey(ctx1, 1, 0, &pkey1) = 0"* ]]
    [[ $output == *"ntohs(pkey1) = 0xffff"* ]]
    [[ $output == *"ibv_resize_cq(cq1, 64) = 0"* ]]
    [[ $output == *"cq1->cqe = 127"* ]]
    [[ $output == *"ibv_open_xrcd(ctx1, &xrcd_attr1) = NULL /* errno EOPNOTSUPP */"* ]]
    [[ $output == *"ibv_modify_cq(cq1, &modify_cq_attr1) = 95 /* EOPNOTSUPP */"* ]]
    [[ $output == *"ibv_reg_mr_iova(pd1, buf_mr1, 4096, 0x12345000, IBV_ACCESS_LOCAL_WRITE) = mr1"* ]]
    [[ $output == *"ibv_rereg_mr(mr1, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, IBV_ACCESS_LOCAL_WRITE) = < 0 /* errno EOPNOTSUPP */"* ]]
}

# export_check NAME: exports tests/export/NAME.lua, builds it with -Werror and runs it
export_check() {
    local c=$BATS_TEST_TMPDIR/$1.c
    run "$VERBSH" --export-c "$c" "tests/export/$1.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output != *"left out"* ]]
    # the program does not depend on the binary that recorded it: built and run with ./verbsh's
    [[ $VERBSH == *asan* ]] && return 0
    run gcc -Wall -Wextra -Werror "$c" -libverbs -lrdmacm -o "$c.bin"
    echo "$output"
    [ "$status" -eq 0 ]
    run "$c.bin"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = reproduced ]
}

@test "api: the C export of the rest of verbs.h compiles with -Werror and reproduces; a changed answer is the difference" {
    export_check api_rest
    local c=$BATS_TEST_TMPDIR/api_rest.c
    grep -q 'expect_null("ibv_open_xrcd", xrcd_failed1, 95);' "$c"
    grep -q 'expect_neg("ibv_rereg_mr", ibv_rereg_mr(mr1, IBV_REREG_MR_CHANGE_ACCESS, NULL, NULL, 0, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ), 95);' "$c"
    grep -q 'expect_int("mult_to_ibv_rate", IBV_RATE_10_GBPS, mult_to_ibv_rate(4));' "$c"
    # another answer recorded: the program names the difference
    [[ $VERBSH == *asan* ]] && return 0
    sed 's/expect_int("pkey", 0xffff/expect_int("pkey", 0x7fff/' "$c" >"$c.other.c"
    gcc -Wall -Wextra -Werror "$c.other.c" -libverbs -lrdmacm -o "$c.other"
    run "$c.other"
    echo "$output"
    [ "$status" -eq 1 ]
    [ "$output" = "first difference: pkey: recorded 32767, now 65535" ]
}

@test "api: a session that makes an object of each kind and never uses it exports a program -Werror accepts" {
    # one session per kind, each recorded and exported in turn by one process
    cat >"$BATS_TEST_TMPDIR/kinds.lua" <<'LUA'
local dir, gi = arg[1], tonumber(os.getenv("RXE_GID_INDEX")) or 1
local head = 'local ctx = verbs.open(os.getenv("RXE_DEV")); '
local qpattr = 'qp_type = "RC", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 2, max_recv_wr = 2, max_send_sge = 1, max_recv_sge = 1 }'
local resolved = 'local ch = verbs.create_event_channel(); local id = ch:create_id("TCP"); '
  .. 'id:resolve_addr(nil, os.getenv("RXE_ADDR") .. ":%d"); ch:get_cm_event(5000):ack(); '
local kinds = {
  { "context", head },
  { "pd", head .. "ctx:alloc_pd()" },
  { "mr", head .. 'ctx:alloc_pd():reg_mr(64, "LOCAL_WRITE")' },
  { "mr_iova", head .. 'ctx:alloc_pd():reg_mr_iova(4096, 0x1000, "LOCAL_WRITE")' },
  { "cq", head .. "ctx:create_cq(4)" },
  { "comp_channel", head .. "ctx:create_comp_channel()" },
  { "cq_ex", head .. 'ctx:create_cq_ex{ cqe = 4, wc_flags = { "BYTE_LEN" } }' },
  { "qp", head .. "local cq = ctx:create_cq(4); ctx:alloc_pd():create_qp{ " .. qpattr .. " }" },
  { "qp_ex", head .. 'local cq = ctx:create_cq(4); ctx:create_qp_ex{ pd = ctx:alloc_pd(), send_ops_flags = { "SEND" }, ' .. qpattr .. " }" },
  { "ah", head .. ("ctx:alloc_pd():create_ah{ is_global = 1, port_num = 1, grh = { dgid = ctx:query_gid(1, %d), sgid_index = %d, hop_limit = 1 } }"):format(gi, gi) },
  { "srq", head .. "ctx:alloc_pd():create_srq{ max_wr = 4, max_sge = 1 }" },
  { "srq_ex", head .. "ctx:create_srq_ex{ pd = ctx:alloc_pd(), attr = { max_wr = 4, max_sge = 1 } }" },
  { "cm_channel", "verbs.create_event_channel()" },
  { "cm_id", 'verbs.create_event_channel():create_id("TCP")' },
  { "cm_verbs", resolved:format(7473) .. "local c = id.verbs" },
  { "cm_qp_ex", resolved:format(7474) .. 'id:resolve_route(); ch:get_cm_event(5000):ack(); local cq = id.verbs:create_cq(4); '
    .. 'id:create_qp_ex{ pd = id.verbs:alloc_pd(), send_ops_flags = { "SEND" }, ' .. qpattr .. " }" },
}
local R = require "verbs.record"
local only = arg[2] and "," .. arg[2] .. ","
for _, k in ipairs(kinds) do
  if only and not only:find("," .. k[1] .. ",", 1, true) then goto next end
  R.reset(); verbs.record(true)
  assert(load(k[2], "=" .. k[1]))()
  verbs.record(false)
  local n, skipped = verbs.export_c(dir .. "/" .. k[1] .. ".c")
  print(k[1], n, #skipped)
  ::next::
end
LUA
    # the verbs kinds in one process; each rdma_cm one in its own, as the
    # context librdmacm opened is one object per process, named when first met
    local out=
    for only in context,pd,mr,mr_iova,cq,comp_channel,cq_ex,qp,qp_ex,ah,srq,srq_ex,cm_channel,cm_id cm_verbs cm_qp_ex; do
        run "$VERBSH" "$BATS_TEST_TMPDIR/kinds.lua" "$BATS_TEST_TMPDIR" "$only"
        echo "$output"
        [ "$status" -eq 0 ]
        out+="$output"$'\n'
    done
    mapfile -t lines <<<"${out%$'\n'}"
    [ "${#lines[@]}" -eq 16 ]
    for l in "${lines[@]}"; do [[ $l == *"	0" ]]; done   # nothing left out
    grep -q '(void)qp.*_ex;   /\* the session made it and never used it \*/' "$BATS_TEST_TMPDIR/qp_ex.c"
    grep -q '(void)ctx.*;' "$BATS_TEST_TMPDIR/context.c"
    # The programs do not depend on the binary that recorded them: compiled with ./verbsh's run only
    # (under TCG a compile takes seconds). Each file is its own program: one compiler run checks them all.
    [[ $VERBSH == *asan* ]] && return 0
    run gcc -fsyntax-only -Wall -Wextra -Werror "$BATS_TEST_TMPDIR"/*.c
    echo "$output"
    [ "$status" -eq 0 ]
    gcc -Wall -Wextra -Werror "$BATS_TEST_TMPDIR/qp_ex.c" -libverbs -lrdmacm -o "$BATS_TEST_TMPDIR/qp_ex"
    run "$BATS_TEST_TMPDIR/qp_ex"
    [ "$output" = reproduced ]
}
