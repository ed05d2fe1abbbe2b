#!/usr/bin/env bats
# The settings' "before" values and the documented nothings that need no
# device, each by its exact number of values.
load ../helpers

@test "verbs.warnings and verbs.strict return the setting before, whatever the new one; with no argument the current one, unchanged" {
    run vsh 'local p = table.pack
      local function show(r) return r.n .. ":" .. tostring(r[1]) end
      print("warnings", show(p(verbs.warnings())), show(p(verbs.warnings(false))), show(p(verbs.warnings())),
        show(p(verbs.warnings(false))), show(p(verbs.warnings(true))), show(p(verbs.warnings(true))), show(p(verbs.warnings())))
      print("strict", show(p(verbs.strict())), show(p(verbs.strict(true))), show(p(verbs.strict())),
        show(p(verbs.strict(true))), show(p(verbs.strict(false))), show(p(verbs.strict(false))), show(p(verbs.strict())))'
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "warnings	1:true	1:true	1:false	1:false	1:false	1:true	1:true"
    has_line "strict	1:false	1:false	1:true	1:true	1:true	1:false	1:false"
}

@test "verbs.record: the setting after, or with no argument whether it is on; a warning silenced by verbs.warnings(false) still raises under strict" {
    run vsh 'local p = table.pack
      local function show(r) return r.n .. ":" .. tostring(r[1]) end
      print("record", show(p(verbs.record())), show(p(verbs.record(true))), show(p(verbs.record())),
        show(p(verbs.record(false))), show(p(verbs.record())))
      local RDMA_WRITE_NO_RDMA = { opcode = "RDMA_WRITE", sg_list = {} }
      verbs.warnings(false)
      print("silenced", pcall(verbs.send_wr, RDMA_WRITE_NO_RDMA))
      verbs.strict(true)
      local ok, e = pcall(verbs.send_wr, RDMA_WRITE_NO_RDMA)
      print("strict still raises", ok, (tostring(e):match("an error under verbs.strict%(true%)")))' 2>"$BATS_TEST_TMPDIR/err"
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "record	1:false	1:true	1:true	1:false	1:false"
    has_line "silenced	true	send_wr RDMA_WRITE wr_id=0 (1 WR, 0 SGEs)"
    has_line "strict still raises	false	an error under verbs.strict(true)"
    # verbs.warnings(false): nothing on stderr (stdout and stderr apart: run would mix them)
    vsh 'verbs.warnings(false); pcall(verbs.send_wr, { opcode = "RDMA_WRITE", sg_list = {} })' 2>"$BATS_TEST_TMPDIR/err" >/dev/null
    [ ! -s "$BATS_TEST_TMPDIR/err" ]
    # and the same WR warns without it
    vsh 'pcall(verbs.send_wr, { opcode = "RDMA_WRITE", sg_list = {} })' 2>"$BATS_TEST_TMPDIR/err" >/dev/null
    [ "$(cat "$BATS_TEST_TMPDIR/err")" = "verbsh warning: RDMA_WRITE without rdma: remote_addr 0, rkey 0, as C would post it (rdma = { remote_addr = mr_b.addr, rkey = mr_b.rkey } names the remote buffer) (verbs.strict(true) makes this an error, verbs.warnings(false) silences it)" ]
}

@test "verbs.suggest: nil (one value) when nothing is close; lesson.kit.gid_ipv4: nil for a GID that holds no IPv4 address" {
    run vsh 'local p = table.pack
      local r = p(verbs.suggest("zzzzzzzz", { "qp_state", "dest_qp_num" }))
      print("suggest far", r.n, r[1])
      r = p(verbs.suggest("dest_qp", { "qp_state", "dest_qp_num" }))
      print("suggest near", r.n, r[1])
      for _, g in ipairs{ "fe80::1", "::", "::ffff:10.0.0.1", "::ffff:0a00:0102" } do
        r = p(lesson.kit.gid_ipv4(g)); print("gid_ipv4", g, r.n, r[1])
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "suggest far	1	nil"
    has_line "suggest near	1	dest_qp_num"
    has_line "gid_ipv4	fe80::1	1	nil"
    has_line "gid_ipv4	::	1	nil"
    has_line "gid_ipv4	::ffff:10.0.0.1	1	10.0.0.1"
    has_line "gid_ipv4	::ffff:0a00:0102	1	10.0.1.2"
}
