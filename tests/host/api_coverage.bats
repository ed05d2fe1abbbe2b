#!/usr/bin/env bats
# Every public function of rdma-core's three headers has help: verbsh's
# binding of it (its C prototype, keys, an example), or the method that
# calls it inside, or, for libibverbs' internals, a line saying so.
#
# The rule that counts the functions (215 with rdma-core 44): gcc -aux-info
# lists every function the three headers declare, extern or static inline,
# as compiled by default (without RDMA_STATIC_PROVIDERS); the public ones are
# those whose name contains "ibv_" or "rdma_" and does not begin with "_".
# The rest (the __ibv/_ibv helpers behind the ibv_reg_mr, ibv_query_port and
# ibv_query_gid_* macros, verbs_get_ctx) and ibv_static_providers (declared
# only under RDMA_STATIC_PROVIDERS) are libibverbs' internals: help names
# each as internal.
load ../helpers

HEADERS=(/usr/include/infiniband/verbs.h /usr/include/rdma/rdma_cma.h /usr/include/rdma/rdma_verbs.h)

# declared: "static NAME" / "extern NAME" for every function of the headers
declared() {
    local dir=$BATS_TEST_TMPDIR
    printf '#include <%s>\n' infiniband/verbs.h rdma/rdma_cma.h rdma/rdma_verbs.h >"$dir/h.c"
    gcc -aux-info "$dir/aux.txt" -c "$dir/h.c" -o "$dir/h.o"
    grep -E '^/\* /usr/include/(infiniband/verbs|rdma/rdma_cma|rdma/rdma_verbs)\.h:' "$dir/aux.txt" |
        sed -E 's/^\/\* [^*]*\*\/ //' |
        sed -E 's/^(static|extern)?.*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*) \(.*$/\1 \2/'
}

public() { declared | awk '{ print $2 }' | grep -E 'ibv_|rdma_' | grep -v '^_' | sort -u; }

# The names of the file $1 that help(name) answers "no help for", on the
# standard output: "N of M functions have help" and "missing: ...".
help_missing() {
    "$VERBSH" -e "arg_file = '$1'" -e '
      local H = require "verbs.help"
      local missing, n = {}, 0
      for name in io.lines(arg_file) do
        n = n + 1
        local out = {}
        local write = io.write
        io.write = function(...) for _, s in ipairs { ... } do out[#out + 1] = tostring(s) end end
        local ok = pcall(H.help, name)
        io.write = write
        if not ok or table.concat(out):find("^no help for") then missing[#missing + 1] = name end
      end
      print(("%d of %d functions have help"):format(n - #missing, n))
      if #missing > 0 then print("missing: " .. table.concat(missing, " ")) end'
}

@test "api: the rule counts 215 public functions in rdma-core 44's headers, extern and static inline" {
    public >"$BATS_TEST_TMPDIR/public"
    run wc -l <"$BATS_TEST_TMPDIR/public"
    echo "$output"
    [ "$output" -eq 215 ]
    # both kinds are in: an extern (ibv_open_device) and a static inline (ibv_post_send, rdma_post_send)
    grep -qx ibv_open_device "$BATS_TEST_TMPDIR/public"
    grep -qx ibv_post_send "$BATS_TEST_TMPDIR/public"
    grep -qx rdma_post_send "$BATS_TEST_TMPDIR/public"
    grep -qx mbps_to_ibv_rate "$BATS_TEST_TMPDIR/public"
    ! grep -qx __ibv_reg_mr "$BATS_TEST_TMPDIR/public"
    ! grep -qx verbs_get_ctx "$BATS_TEST_TMPDIR/public"
}

@test "api: every public function of verbs.h, rdma_cma.h and rdma_verbs.h has help (the missing ones listed)" {
    public >"$BATS_TEST_TMPDIR/public"
    run help_missing "$BATS_TEST_TMPDIR/public"
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "215 of 215 functions have help"
}

@test "api: libibverbs' internals, and ibv_static_providers, are named internal in help" {
    { declared | awk '{ print $2 }' | grep -Ev 'ibv_|rdma_'; declared | awk '{ print $2 }' | grep '^_'; } |
        sort -u >"$BATS_TEST_TMPDIR/internal"
    echo ibv_static_providers >>"$BATS_TEST_TMPDIR/internal"
    cat "$BATS_TEST_TMPDIR/internal"
    [ "$(wc -l <"$BATS_TEST_TMPDIR/internal")" -eq 7 ]
    while read -r name; do
        run vsh "help '$name'"
        echo "$output"
        [[ $output == "$name: internal to libibverbs/librdmacm, not for applications"* ]]
    done <"$BATS_TEST_TMPDIR/internal"
}

@test "api: a hardware topic names its devices, rxe's answer and its functions; its name in lower case finds it too, an unknown one does not" {
    run vsh 'help "xrc"'
    [[ ${lines[0]} == "XRC: XRC domains" ]]
    run vsh 'print(require("verbs.explain_dev").topic_text("Xrc") ~= nil, require("verbs.explain_dev").topic_text("XRCD") == nil)'
    [ "$output" = "true	true" ]
    run vsh 'help "XRC"'
    echo "$output"
    [[ $output == *"XRC: XRC domains"* ]]
    [[ $output == *"devices that have it: NVIDIA ConnectX-3 and later (mlx4, mlx5)"* ]]
    [[ $output == *"rxe (kernel 6.1, rdma-core 44): EOPNOTSUPP"* ]]
    [[ $output == *"C functions: ibv_open_xrcd, ibv_close_xrcd, ibv_open_qp"* ]]
    # every verb of a topic has help of its own, which names the topic or calls it inside a binding
    run vsh 'local T = require("verbs.explain_dev").FEATURES; local H = require "verbs.help"
      local bad = {}
      for topic, f in pairs(T) do for _, v in ipairs(f.verbs) do if not H.text(v) then bad[#bad + 1] = v end end end
      print(#bad == 0 and "all have help" or table.concat(bad, " "))'
    echo "$output"
    [ "$output" = "all have help" ]
}

@test "api: the *_str and rate helpers answer as libibverbs and librdmacm do" {
    run vsh 'print(verbs.node_type_str("CA"), verbs.port_state_str("ACTIVE"), verbs.event_type_str("SRQ_LIMIT_REACHED"),
      verbs.wc_status_str("RNR_RETRY_EXC_ERR"), verbs.event_str("ESTABLISHED"))'
    echo "$output"
    [ "$output" = "InfiniBand channel adapter	active	SRQ limit reached	RNR retry counter exceeded	RDMA_CM_EVENT_ESTABLISHED" ]
    # librdmacm's own number for an event, and a name it has not
    run vsh 'print(verbs.event_str(15), verbs.event_str("RDMA_CM_EVENT_TIMEWAIT_EXIT")) print(select(2, pcall(verbs.event_str, "ESTABLISHD")))'
    echo "$output"
    [ "${lines[0]}" = "RDMA_CM_EVENT_TIMEWAIT_EXIT	RDMA_CM_EVENT_TIMEWAIT_EXIT" ]
    [[ ${lines[1]} == "bad argument #1 to 'verbs.event_str' ('ESTABLISHD' is not a name of rdma_cm_event_type: did you mean \"ESTABLISHED\"? (known: ADDR_RESOLVED, "* ]]
    run vsh 'print(verbs.wc_status_str(13), verbs.wc_status_str(99), verbs.node_type_str(99))'
    [ "$output" = "RNR retry counter exceeded	unknown	unknown" ]
    # the values a C program gets from libibverbs 44 for the same calls
    run vsh 'print(verbs.rate_to_mbps("10_GBPS"), verbs.rate_to_mult("IBV_RATE_10_GBPS"), verbs.rate_to_mbps("25_GBPS"),
      verbs.mult_to_rate(4), verbs.mbps_to_rate(10000), verbs.mbps_to_rate(12345), verbs.mult_to_rate(3))'
    echo "$output"
    [ "$output" = "10000	4	25781	10_GBPS	10_GBPS	MAX	MAX" ]
    run vsh 'print(verbs.flow_label_to_udp_sport(0x12345), verbs.flow_label_to_udp_sport(0xfffff),
      verbs.is_qpt_supported(1 << 2, "RC"), verbs.is_qpt_supported(1 << 2, "UD"))'
    echo "$output"
    [ "$output" = "58177	65472	true	false" ]
    # caps is a uint32_t: its top value passes (every type's bit set), the next is refused as argument #1
    run vsh 'print(verbs.is_qpt_supported(0xffffffff, "RAW_PACKET"), verbs.is_qpt_supported(0, "RC"))
      print(select(2, pcall(verbs.is_qpt_supported, 0x100000000, "RC")))'
    echo "$output"
    [ "${lines[0]}" = "true	false" ]
    [ "${lines[1]}" = "bad argument #1 to 'verbs.is_qpt_supported' (caps: 4294967296 is out of range (0..4294967295))" ]
    run vsh 'verbs.flow_label_to_udp_sport(0x100000)'
    [[ $output == *"flow_label: 1048576 is out of range (0..1048575)"* ]]
    run vsh 'verbs.rate_to_mbps("11_GBPS")'
    [[ $output == *"'11_GBPS' is not a name of ibv_rate"* ]]
}
