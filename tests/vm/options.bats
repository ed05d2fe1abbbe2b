#!/usr/bin/env bats
# rxe-vm's option checks at each boundary: the value that passes and the
# first that fails. --build stops after the checks and the cache (no boot).
load ../helpers

# A seat on a link or a class must be given (link.bats tests that refusal):
# here one is added when the options have none, so that each check is the
# boundary's own.
with_seat() {
    local a
    for a in "$@"; do [ "$a" = --seat ] && { SEATED=("$@"); return; }; done
    for a in "$@"; do
        if [ "$a" = --link ] || [ "$a" = --class ]; then SEATED=(--seat 9 "$@"); return; fi
    done
    SEATED=("$@")
}
# opt_ok ARGS...: the checks pass (exit 0); opt_bad MSG ARGS...: exit 2 with MSG.
opt_ok() {
    with_seat "$@"
    run "$ROOT/scripts/rxe-vm" --build "${SEATED[@]}"
    [ "$status" -eq 0 ] || { echo "refused: $* -> $output"; return 1; }
}
opt_bad() {
    local msg=$1
    shift
    with_seat "$@"
    run "$ROOT/scripts/rxe-vm" --build "${SEATED[@]}"
    [ "$status" -eq 2 ] && [ "$output" = "rxe-vm: $msg" ] || { echo "$*: status $status, '$output', want 'rxe-vm: $msg'"; return 1; }
}

@test "rxe-vm: --seat 1 and 254 pass, 0 and 255 fail; --peer-seat the same range, and equal to --seat fails while seat +-1 passes" {
    local L=(--link 127.0.0.1:5000 --listen 127.0.0.1:5001)
    opt_ok --seat 1 "${L[@]}"
    opt_ok --seat 254 "${L[@]}"
    opt_bad "--seat wants 1-254, got '0'" --seat 0 "${L[@]}"
    opt_bad "--seat wants 1-254, got '255'" --seat 255 "${L[@]}"
    opt_ok --seat 5 --peer-seat 4 "${L[@]}"
    opt_ok --seat 5 --peer-seat 6 "${L[@]}"
    opt_bad "--peer-seat 5 is this guest's own seat" --seat 5 --peer-seat 5 "${L[@]}"
    opt_bad "--peer-seat 1 is this guest's own seat" --seat 1 --peer-seat 1 "${L[@]}"
    opt_ok --seat 2 --peer-seat 1 "${L[@]}"
    opt_ok --seat 1 --peer-seat 254 "${L[@]}"
    opt_bad "--peer-seat wants 1-254, got '0'" --peer-seat 0 "${L[@]}"
    opt_bad "--peer-seat wants 1-254, got '255'" --peer-seat 255 "${L[@]}"
}

@test "rxe-vm: --mtu 1280 and 9000 pass, 1279 and 9001 fail" {
    local L=(--link 127.0.0.1:5000 --listen 127.0.0.1:5001)
    opt_ok --mtu 1280 "${L[@]}"
    opt_ok --mtu 9000 "${L[@]}"
    opt_bad "--mtu wants 1280-9000, got '1279'" --mtu 1279 "${L[@]}"
    opt_bad "--mtu wants 1280-9000, got '9001'" --mtu 9001 "${L[@]}"
}

@test "rxe-vm: ports 1 and 65535 pass, 0 and 65536 fail, in --link, --listen ADDR:PORT and --listen PORT alike" {
    opt_ok --link 127.0.0.1:1 --listen 127.0.0.1:5001
    opt_ok --link 127.0.0.1:65535 --listen 127.0.0.1:5001
    opt_bad "--link wants HOST:PORT, got '127.0.0.1:0'" --link 127.0.0.1:0 --listen 127.0.0.1:5001
    opt_bad "--link wants HOST:PORT, got '127.0.0.1:65536'" --link 127.0.0.1:65536 --listen 127.0.0.1:5001
    opt_ok --link 127.0.0.1:5000 --listen 127.0.0.1:65535
    opt_bad "--listen wants HOST:PORT, got '127.0.0.1:65536'" --link 127.0.0.1:5000 --listen 127.0.0.1:65536
    opt_ok --link 127.0.0.1:5000 --listen 65535
    opt_ok --link 127.0.0.1:5000 --listen 1
    opt_bad "--listen wants [ADDR:]PORT (PORT 1-65535), got '65536'" --link 127.0.0.1:5000 --listen 65536
    opt_bad "--listen wants [ADDR:]PORT (PORT 1-65535), got '0'" --link 127.0.0.1:5000 --listen 0
}

@test "rxe-vm: --class groups 224.0.0.1, 229.255.255.255, 230.0.0.1 and 239.255.255.255 pass, 223.255.255.255 and 240.0.0.1 fail; --mem 256 passes, 255 fails; --smp 1 passes, 0 fails" {
    opt_ok --class 224.0.0.1:5000 --listen 127.0.0.1
    opt_ok --class 239.255.255.255:5000 --listen 127.0.0.1
    # every first octet between them too: 229 ends the 22x band, 230 starts the 23x one
    opt_ok --class 229.255.255.255:5000 --listen 127.0.0.1
    opt_ok --class 230.0.0.1:5000 --listen 127.0.0.1
    opt_bad "--class wants a multicast GROUP (224.0.0.0-239.255.255.255), got '223.255.255.255'" --class 223.255.255.255:5000
    opt_bad "--class wants a multicast GROUP (224.0.0.0-239.255.255.255), got '240.0.0.1'" --class 240.0.0.1:5000
    opt_ok --mem 256
    opt_bad "--mem wants megabytes, 256 or more, got '255'" --mem 255
    opt_ok --smp 1
    opt_bad "--smp wants a count, got '0'" --smp 0
}

@test "rxe-vm: an unknown option, long or short, exits 2 naming it, with the usage on stderr; -h and --help exit 0 with the same usage on stdout" {
    "$ROOT/scripts/rxe-vm" --help >"$BATS_TEST_TMPDIR/help" 2>"$BATS_TEST_TMPDIR/help.err"
    [ ! -s "$BATS_TEST_TMPDIR/help.err" ]
    [[ $(head -1 "$BATS_TEST_TMPDIR/help") == "usage: rxe-vm (installed: verbsh-vm) [options] [--] [CMD [ARG...]]" ]]
    run "$ROOT/scripts/rxe-vm" -h
    [ "$status" -eq 0 ]
    [ "$output" = "$(cat "$BATS_TEST_TMPDIR/help")" ]
    local o rc
    for o in --bogus -x --seats; do
        rc=0
        "$ROOT/scripts/rxe-vm" "$o" -- true >"$BATS_TEST_TMPDIR/out" 2>"$BATS_TEST_TMPDIR/err" || rc=$?
        [ "$rc" -eq 2 ] || { echo "$o: status $rc"; return 1; }
        [ ! -s "$BATS_TEST_TMPDIR/out" ]
        [ "$(head -1 "$BATS_TEST_TMPDIR/err")" = "rxe-vm: unknown option $o" ]
        cmp <(tail -n +2 "$BATS_TEST_TMPDIR/err") "$BATS_TEST_TMPDIR/help"
    done
}

@test "rxe-vm: a HOST:PORT with no host (':5000') is refused in --link and --listen; --room-port 1 and 65535 (with or without its address) pass, 0 and 65536 fail" {
    opt_bad "--link wants HOST:PORT, got ':5000'" --link :5000 --listen 127.0.0.1:5001
    opt_bad "--listen wants HOST:PORT, got ':5001'" --link 127.0.0.1:5000 --listen :5001
    opt_ok --class 239.1.1.1:7100 --room-port 1
    opt_ok --class 239.1.1.1:7100 --room-port 127.0.0.1:65535
    opt_bad "--room-port wants [ADDR:]PORT (PORT 1-65535), got '0'" --class 239.1.1.1:7100 --room-port 0
    opt_bad "--room-port wants [ADDR:]PORT (PORT 1-65535), got '65536'" --class 239.1.1.1:7100 --room-port 65536
}

@test "rxe-vm --siw: its tunnel takes each port + 2, so --listen, --link and --class ports of 65533 pass and 65534 fails, each alone" {
    opt_ok --siw --link 127.0.0.1:5000 --listen 127.0.0.1:65533
    opt_bad "--siw needs --listen and --link ports below 65534 (it uses each port + 2)" --siw --link 127.0.0.1:5000 --listen 127.0.0.1:65534
    opt_ok --siw --link 127.0.0.1:65533 --listen 127.0.0.1:5001
    opt_bad "--siw needs --listen and --link ports below 65534 (it uses each port + 2)" --siw --link 127.0.0.1:65534 --listen 127.0.0.1:5001
    opt_ok --siw --class 239.1.1.1:65533 --listen 127.0.0.1
    opt_bad "--siw needs a --class port below 65534 (it uses the port + 2)" --siw --class 239.1.1.1:65534 --listen 127.0.0.1
    # (without --siw the same ports are no tunnel's: they pass)
    opt_ok --link 127.0.0.1:65534 --listen 127.0.0.1:65535
}
