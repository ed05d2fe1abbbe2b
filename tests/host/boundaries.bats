#!/usr/bin/env bats
# Boundaries on both sides: the value that passes and the first that fails,
# for every range the bindings check that needs no device (the device ones
# are in tests/device/oracle.bats, rxe-vm's options in tests/vm/options.bats).
load ../helpers

@test "every integer key's range is its C member's type (the C compiler's sizeof and signedness), or the IBA's narrower field width" {
    # "struct member" of every integer key that is a C struct member (ibv_sge's
    # offset is verbsh's own: an offset into the MR)
    run vsh 'for _, s in ipairs(verbs.fields()) do
        if not s:find(" ") then
          for _, f in ipairs(verbs.fields(s)) do
            if (f.type == "int" or f.type == "uint") and not (s == "ibv_sge" and f.c == "offset") then print(s, f.c) end
          end
        end
      end'
    [ "$status" -eq 0 ]
    local c=$BATS_TEST_TMPDIR/ranges.c s m base path
    {
        echo '#include <stdio.h>'
        echo '#include <infiniband/verbs.h>'
        echo '#include <rdma/rdma_cma.h>'
        echo '#define P(key, type, member) printf("%s %zu %d\n", key, sizeof(((type *)0)->member), \'
        echo '    (int)((__typeof__(((type *)0)->member))-1 < 0))'
        echo 'int main(void) {'
        while read -r s m; do
            base=${s%%.*}
            path=${s#"$base"}; path=${path#.}
            echo "  P(\"$s.$m\", struct $base, ${path:+$path.}$m);"
        done <<<"$output"
        echo '  return 0; }'
    } >"$c"
    cc -o "$BATS_TEST_TMPDIR/ranges" "$c"
    "$BATS_TEST_TMPDIR/ranges" >"$BATS_TEST_TMPDIR/facts"
    run "$VERBSH" "$ROOT/tests/oracle/ranges.lua" "$BATS_TEST_TMPDIR/facts"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[-1]} == *" keys, 0 differ" ]]
    [ "${lines[-1]%% *}" -ge 100 ]
}

@test "verbs.send_wr and verbs.recv_wr: each ranged key at its largest value passes, one more and -1 fail naming the key and the range" {
    run vsh '
      local function wr(path, v)
        local t = { opcode = "SEND", sg_list = { { addr = 4096, length = 1, lkey = 1 } } }
        local k1, k2 = path:match("^([%w_]+)%.([%w_]+)$")
        if path:match("^sg_list") then t.sg_list[1][path:match("%.(.*)")] = v
        elseif k1 then t[k1] = t[k1] or {}; t[k1][k2] = v
        else t[path] = v end
        return t
      end
      local cases = { { "sg_list[1].length", 0xffffffff }, { "sg_list[1].lkey", 0xffffffff }, { "imm_data", 0xffffffff },
        { "rdma.rkey", 0xffffffff }, { "atomic.rkey", 0xffffffff }, { "ud.remote_qpn", 0xffffff },
        { "ud.remote_qkey", 0xffffffff } }
      for _, c in ipairs(cases) do
        local path, max = c[1], c[2]
        local t = wr(path, max)
        if path == "imm_data" then t.opcode = "SEND_WITH_IMM" end
        if path:match("^rdma") then t.opcode = "RDMA_WRITE"; t.rdma.remote_addr = 8 end
        if path:match("^atomic") then t.opcode = "ATOMIC_FETCH_AND_ADD"; t.atomic.remote_addr = 8; t.sg_list[1].length = 8 end
        local ok = pcall(verbs.send_wr, t)
        t = wr(path, max + 1); if path == "imm_data" then t.opcode = "SEND_WITH_IMM" end
        local _, e1 = pcall(verbs.send_wr, t)
        t = wr(path, -1); if path == "imm_data" then t.opcode = "SEND_WITH_IMM" end
        local _, e2 = pcall(verbs.send_wr, t)
        print(path, ok, tostring(e1):match("key .*$") or tostring(e1), tostring(e2):match("key .*$") or tostring(e2))
      end
      local ok = pcall(verbs.recv_wr, { sg_list = { { addr = 4096, length = 0xffffffff, lkey = 1 } } })
      local _, e = pcall(verbs.recv_wr, { sg_list = { { addr = 4096, length = 0x100000000, lkey = 1 } } })
      print("recv length", ok, tostring(e):match("key .*$"))' 2>/dev/null
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "sg_list[1].length	true	key 'sg_list[1].length': 4294967296 is out of range (0..4294967295))	key 'sg_list[1].length': -1 is out of range (0..4294967295))"
    has_line "sg_list[1].lkey	true	key 'sg_list[1].lkey': 4294967296 is out of range (0..4294967295))	key 'sg_list[1].lkey': -1 is out of range (0..4294967295))"
    has_line "rdma.rkey	true	key 'rdma.rkey': 4294967296 is out of range (0..4294967295))	key 'rdma.rkey': -1 is out of range (0..4294967295))"
    has_line "atomic.rkey	true	key 'atomic.rkey': 4294967296 is out of range (0..4294967295))	key 'atomic.rkey': -1 is out of range (0..4294967295))"
    has_line "ud.remote_qpn	true	key 'ud.remote_qpn': 16777216 is out of range (0..16777215))	key 'ud.remote_qpn': -1 is out of range (0..16777215))"
    has_line "ud.remote_qkey	true	key 'ud.remote_qkey': 4294967296 is out of range (0..4294967295))	key 'ud.remote_qkey': -1 is out of range (0..4294967295))"
    [[ $output == *"imm_data	true	key 'imm_data': "*"4294967296"* ]]
    has_line "recv length	true	key 'sg_list[1].length': 4294967296 is out of range (0..4294967295))"
}

@test "verbs.wc_array(n): 1 and 4096 pass, 0 and 4097 fail saying the range" {
    run vsh 'for _, n in ipairs{ 1, 4096, 0, 4097 } do
        local ok, r = pcall(verbs.wc_array, n)
        print(n, ok, ok and #r or tostring(r))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "1	true	1"
    has_line "4096	true	4096"
    has_line "0	false	bad argument #1 to 'verbs.wc_array' (n: 0 is out of range (1..4096))"
    has_line "4097	false	bad argument #1 to 'verbs.wc_array' (n: 4097 is out of range (1..4096))"
}

@test "doctor's memlock threshold (32 MiB, what the lessons pin): exactly 32 MiB and one byte more are ok, one byte less is not" {
    # CAP_IPC_LOCK (bit 14 of CapEff) turns the failure into a warning: the limit does not bind root
    local cap want_below=fail
    cap=$(awk '/^CapEff/ { print $2 }' /proc/self/status)
    (( (16#$cap >> 14) & 1 )) && want_below=warn
    run vsh 'local real = verbs.sysinfo
      for _, v in ipairs{ 33554432, 33554433, 33554431, "unlimited" } do
        verbs.sysinfo = function() local s = real(); s.memlock = v; s.memlock_max = "unlimited"; return s end
        for _, c in ipairs(require("verbs.doctor").run().checks) do
          if c.name == "memlock" then print(v, c.status, c.message) end
        end
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "33554432	ok	ulimit -l is 32 MiB (the lessons need 32 MiB)"
    [[ $output == *$'\n33554433\tok\tulimit -l is '* ]]
    [[ $output == *$'\n33554431\t'"$want_below"$'\tulimit -l is '* ]]
    has_line "unlimited	ok	ulimit -l is unlimited (the lessons need 32 MiB)"
}

@test "an enum given as an integer: its first and last values pass, one past either end is refused listing the values; ibv_mtu's 1024 names the enum value it meant" {
    local vals='(values: "RDMA_WRITE" = 0, "RDMA_WRITE_WITH_IMM" = 1, "SEND" = 2, "SEND_WITH_IMM" = 3, "RDMA_READ" = 4, "ATOMIC_CMP_AND_SWP" = 5, "ATOMIC_FETCH_AND_ADD" = 6, "LOCAL_INV" = 7, "BIND_MW" = 8, "SEND_WITH_INV" = 9, "TSO" = 10)'
    run "$VERBSH" -e '
      verbs.warnings(false)
      for _, v in ipairs { 0, 10, 11, -1 } do print(v, pcall(verbs.send_wr, { opcode = v, wr_id = 7 })) end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'0\ttrue\tsend_wr RDMA_WRITE wr_id=7 (1 WR, 0 SGEs)' ]
    [ "${lines[1]}" = $'10\ttrue\tsend_wr TSO wr_id=7 (1 WR, 0 SGEs)' ]
    [ "${lines[2]}" = $'11\tfalse\t'"bad argument #1 to 'verbs.send_wr' (key 'opcode': 11 is not a value of ibv_wr_opcode $vals)" ]
    [ "${lines[3]}" = $'-1\tfalse\t'"bad argument #1 to 'verbs.send_wr' (key 'opcode': -1 is not a value of ibv_wr_opcode $vals)" ]
    [ "${#lines[@]}" -eq 4 ]
    fakeverbs_build "$BATS_TEST_TMPDIR"
    run fakeverbs_sh "$BATS_TEST_TMPDIR/fakeverbs.so" '
      local ctx = verbs.open("fake0"); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(4)
      local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq }
      for _, v in ipairs { 1024, 7, 5 } do print(pcall(qp.modify, qp, { path_mtu = v }, "PATH_MTU")) end'
    echo "$output"
    local mtus='(values: "256" = 1, "512" = 2, "1024" = 3, "2048" = 4, "4096" = 5)'
    has_line "false	bad argument #1 to 'modify' (key 'path_mtu': 1024 is not a value of ibv_mtu: use the name \"1024\" (IBV_MTU_1024 = 3); the integer is the enum's value, not 1024 $mtus)"
    has_line "false	bad argument #1 to 'modify' (key 'path_mtu': 7 is not a value of ibv_mtu $mtus)"
    has_line "true"
}

@test "verbs.wait_fds: an fd is 0..2147483647 (C's int), given as a number or by getfd(): the largest is taken and found not open, one past it and -1 are no file descriptor" {
    run "$VERBSH" -e '
      for _, fd in ipairs { 2147483647, 2147483648, -1 } do print(select(2, pcall(verbs.wait_fds, { fd }, 0))) end
      -- the same bounds for a socket-like object whose getfd() gives the number (LuaSocket gives a float)
      for _, fd in ipairs { 2147483647.0, 2147483648.0, -1.0 } do
        print(select(2, pcall(verbs.wait_fds, { setmetatable({}, { __index = { getfd = function() return fd end } }) }, 0)))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "bad argument #1 to 'verbs.wait_fds' ([1]: fd 2147483647 is not open)" ]
    [ "${lines[1]}" = "bad argument #1 to 'verbs.wait_fds' ([1]: 2147483648 is not a file descriptor)" ]
    [ "${lines[2]}" = "bad argument #1 to 'verbs.wait_fds' ([1]: -1 is not a file descriptor)" ]
    [ "${lines[3]}" = "bad argument #1 to 'verbs.wait_fds' ([1]: fd 2147483647 is not open)" ]
    [ "${lines[4]}" = "bad argument #1 to 'verbs.wait_fds' ([1]: its getfd() gave no open descriptor (closed?))" ]
    [ "${lines[5]}" = "bad argument #1 to 'verbs.wait_fds' ([1]: its getfd() gave no open descriptor (closed?))" ]
}
