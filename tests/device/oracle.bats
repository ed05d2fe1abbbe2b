#!/usr/bin/env bats
# The C oracle: tests/oracle/oracle.c runs a scenario on rxe with plain
# libibverbs and librdmacm and prints every value it reads; tests/oracle/
# oracle.lua runs the same scenario through verbsh. Each field verbsh reads
# must equal C's, and a difference fails naming the field.
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
    [ "$n" -ge 150 ]
}
