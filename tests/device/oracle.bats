#!/usr/bin/env bats
# Tests that know the right answer, on rxe (one file: each .bats file costs
# seconds of bats' own start-up in the micro-VM):
# - the C oracle: tests/oracle/oracle.c runs a scenario with plain
#   libibverbs and librdmacm and prints every value it reads;
#   tests/oracle/oracle.lua runs the same scenario through verbsh. Each
#   field verbsh reads must equal C's, and a difference fails naming it;
# - every documented second return and nothing (tests/oracle/returns.lua);
# - the masks verbs.export_c writes, against the man pages;
# - boundaries on both sides (tests/oracle/boundaries.lua);
# - did you mean, for every key, enum name and field (tests/oracle/suggest.lua).
load ../helpers

V6=fd00:78::1

setup_file() {
    require_device
    # The IPv6 half of the rdma_cm scenario needs a global address on the
    # rxe netdev: the micro-VM's dummy0 has only its link-local one.
    if [ "${RXE_VM:-}" = 1 ] && ! ip -6 addr show dev "$RXE_NETDEV" | grep -q "$V6/"; then
        ip -6 addr add "$V6/64" dev "$RXE_NETDEV" nodad
        touch "$BATS_FILE_TMPDIR/added_v6"
    fi
}

teardown_file() {
    if [ -e "$BATS_FILE_TMPDIR/added_v6" ]; then ip -6 addr del "$V6/64" dev "$RXE_NETDEV"; fi
    return 0
}

setup() { require_device; }

# The oracle as make test builds it, or built here when it is missing or older than its source.
oracle_bin() {
    local bin=$ROOT/build/oracle
    if [ ! -x "$bin" ] || [ "$ROOT/tests/oracle/oracle.c" -nt "$bin" ]; then
        bin=$BATS_FILE_TMPDIR/oracle
        [ -x "$bin" ] || cc -std=gnu11 -O1 -o "$bin" "$ROOT/tests/oracle/oracle.c" -libverbs -lrdmacm || return 1
    fi
    echo "$bin"
}

# compare C_FILE VERBSH_FILE: every key of either side, in C's order; prints
# "N fields compared" and one line per field that differs or is missing.
compare() {
    awk -F'\t' '
        NR == FNR { if ($1 in c) { print "the C oracle printed " $1 " twice"; bad++ } c[$1] = $2; order[++n] = $1; next }
        { if ($1 in v) { print "verbsh printed " $1 " twice"; bad++ } v[$1] = $2; vo[++m] = $1 }
        END {
            for (i = 1; i <= n; i++) {
                k = order[i]
                if (!(k in v)) { print "field " k ": C reads \"" c[k] "\", verbsh printed no such field"; bad++ }
                else if (v[k] != c[k]) { print "field " k ": C reads \"" c[k] "\", verbsh \"" v[k] "\""; bad++ }
            }
            for (i = 1; i <= m; i++)
                if (!(vo[i] in c)) { print "field " vo[i] ": verbsh printed \"" v[vo[i]] "\", the C oracle has no such field"; bad++ }
            print n " fields compared, " bad + 0 " differ"
            exit bad > 0
        }' "$1" "$2"
}

@test "C oracle: every field verbsh reads (device, port, GIDs, QPs, CQs, MRs, SRQ, WCs of every poll API, AH from WC, cm events over IPv4, IPv6 and UD) equals libibverbs' and librdmacm's" {
    local v6=$V6
    if ! ip -6 addr show dev "$RXE_NETDEV" | grep -q "$v6/"; then
        v6=$(ip -6 -o addr show dev "$RXE_NETDEV" scope global | awk '{ sub("/.*", "", $4); print $4; exit }')
        [ -n "$v6" ] || skip "$RXE_NETDEV has no global IPv6 address for the IPv6 rdma_cm fields"
    fi
    local bin args
    bin=$(oracle_bin)
    args=("$RXE_DEV" "${RXE_GID_INDEX:-1}" "$RXE_ADDR" "$v6" 7491)
    "$bin" "${args[@]}" >"$BATS_TEST_TMPDIR/c.txt"
    "$VERBSH" "$ROOT/tests/oracle/oracle.lua" "${args[@]}" >"$BATS_TEST_TMPDIR/verbsh.txt" 2>"$BATS_TEST_TMPDIR/err" ||
        { cat "$BATS_TEST_TMPDIR/err"; return 1; }
    # verbsh warns about nothing in this scenario: each call is what C does.
    [ ! -s "$BATS_TEST_TMPDIR/err" ] || { cat "$BATS_TEST_TMPDIR/err"; return 1; }
    run compare "$BATS_TEST_TMPDIR/c.txt" "$BATS_TEST_TMPDIR/verbsh.txt"
    echo "$output"
    [ "$status" -eq 0 ]
    # The issue asks for at least 150 fields; the scenario has many more.
    local n=${lines[-1]%% *}
    echo "# C oracle: $n fields compared with $VERBSH" >&3   # in make test's log
    [ "$n" -ge 150 ]
}

@test "second returns and nothings: cq:wait timed out only when cut short (list and wc_array forms), held WCs handed back once, nil/empty at every timeout, query and init_qp_attr give two values" {
    run "$VERBSH" "$ROOT/tests/oracle/returns.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"returns: ok (76 checks)"* ]]
}

# See tests/host/export_masks.bats for the binding's own bits.
@test "verbs.export_c: each ibv_qp_attr key, modified alone, is written with the IBV_QP_* bit ibv_modify_qp(3) names for it; each ibv_srq_attr key with ibv_modify_srq(3)'s; create_qp_ex's comp_mask has the IBV_QP_INIT_ATTR_* bit of each field given" {
    run "$VERBSH" "$ROOT/tests/oracle/export_masks.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "calls	25	25	2	2	2	2"
    has_line "export_c	2	29	table	0"   # the calls written, and the empty list of those left out
    local l kind field mask want n=0
    for l in "${lines[@]}"; do
        case $l in
        "qp "*|"srq "*|"qp_ex "*)
            read -r kind field mask want <<<"$l"
            [ "$mask" = "$want" ] || { echo "$kind field $field: the export writes $mask, the man page says $want"; return 1; }
            n=$((n + 1)) ;;
        esac
    done
    [ "$n" -eq 29 ]
}

@test "boundaries on rxe: the value that passes each check and the first that fails it (133 edges)" {
    run "$VERBSH" "$ROOT/tests/oracle/boundaries.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "boundaries: 133 edges"
    [[ $output == *"why: num_sge 5 is above the QP's cap.max_send_sge 4"* ]]
    [[ $output == *"boundaries: ok (400 checks)"* ]]
}

@test "did you mean: each key of 17 structs, each name of 19 enums, each object field, and 23 C habits are suggested right" {
    run "$VERBSH" "$ROOT/tests/oracle/suggest.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "keys: 17 structs"
    has_line "enums: 19"
    [[ $output == *"suggest: ok (352 checks)"* ]]
}
