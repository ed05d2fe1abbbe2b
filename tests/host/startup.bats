#!/usr/bin/env bats
# Start-up: what `verbsh -e ''` loads, and that what it leaves for later
# still works when first used (issue 18: start-up within 1.5x of lua5.4).
load ../helpers

# mapped LIB: a Lua expression, true when a file named LIB* is mapped
mapped='local function mapped(lib)
  for l in io.lines("/proc/self/maps") do if l:find("/" .. lib, 1, true) then return true end end
  return false
end'

@test "startup: libpcap is loaded by the first verbs.capture, not at start, and reports its own errors" {
    run "$VERBSH" -e "$mapped"'
      print(mapped("libpcap"))
      print(pcall(verbs.capture, {netdev = "nosuchnetdev0"}))
      print(mapped("libpcap"))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = false ]
    if [ "$(id -u)" -eq 0 ]; then
        [ "${lines[1]}" = $'false\tcapture: pcap_activate(nosuchnetdev0): No such device exists' ]
    else
        [[ ${lines[1]} == $'false\tcapture: pcap_activate(nosuchnetdev0): '* ]]
    fi
    [ "${lines[2]}" = true ]
}

@test "startup: readline is loaded when the shell meets a terminal, not for -e or a script" {
    run "$VERBSH" -e "$mapped"' print(mapped("libreadline"))'
    [ "$output" = false ]
    # the shell reading a pipe (-i) needs no line editing either
    run bash -c 'echo "print(mapped(\"libreadline\"))" | "$VERBSH" -i -e "$1"' _ "${mapped#local }"
    echo "$output"
    [[ $output == *"verbsh> false"* ]]
    # at a terminal (a pty): loaded, with editing and completion working
    printf '%s\n' 'prompt; type {for l in io.lines("/proc/self/maps") do if l:find("/libreadline", 1, true) then print("RL" .. "-IN") break end end}
        see "RL-IN"
        prompt; type "verbs.ope\t()"; see "verbs.open()"
        prompt; type "os.exit(0)"; expect eof' >"$BATS_TEST_TMPDIR/frag.exp"
    HOME=$BATS_TEST_TMPDIR TERM=dumb run expect "$ROOT/tests/pty/repl.exp" "$VERBSH" "$BATS_TEST_TMPDIR/frag.exp"
    echo "$output"
    [ "$status" -eq 0 ]
}

# The loader's reason comes first; then the shell reads plain lines (the
# terminal's own echo), without the banner or a history file.
@test "startup: at a terminal without a loadable readline, the shell says why once, then reads and runs plain lines" {
    unshare -m true 2>/dev/null || skip "hiding readline needs a mount namespace (root)"
    path=$(ldconfig -p | awk '$1 == "libreadline.so.8" { print $NF; exit }')
    printf '%s\n' 'prompt; type "print(40 + 2)"; see "42"
        prompt; send "\004"; expect eof
        puts "\nexit status: [lindex [wait] 3]"' >"$BATS_TEST_TMPDIR/frag.exp"
    HOME=$BATS_TEST_TMPDIR TERM=dumb run expect "$ROOT/tests/pty/repl.exp" \
        "unshare -m sh -c {mount --bind /dev/null \"\$(readlink -f \"\$0\")\" && exec \"\$@\"} $path $VERBSH" "$BATS_TEST_TMPDIR/frag.exp"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "verbsh: no line editing: $path: file too short"$'\r' ]
    [ "${lines[1]}" = "verbsh> print(40 + 2)"$'\r' ]
    [ "${lines[2]}" = "42"$'\r' ]
    [ "${lines[-1]}" = "exit status: 0" ]
    [ ! -e "$BATS_TEST_TMPDIR/.verbsh_history" ]
}

@test "startup: librdmacm is loaded by the first verbs.create_event_channel, not at start" {
    run "$VERBSH" -e "$mapped"'
      print(mapped("librdmacm"))
      local ok, err = pcall(verbs.create_event_channel)
      print(ok or tostring(err):match("^[^\n]*"))
      print(mapped("librdmacm"))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = false ]
    # librdmacm's own answer: a channel, or (no rdma_cm here) its errno, never a load failure
    [[ ${lines[1]} == true || ${lines[1]} == "rdma_create_event_channel failed: "* ]]
    [[ $output != *ELIBACC* && $output != *"cannot be loaded"* ]]
    [ "${lines[2]}" = true ]
}

@test "startup: the embedded Lua modules are found when first required, also under a foreign package.preload metatable" {
    run "$VERBSH" -e 'print(rawget(package.preload, "verbs.help"), type(package.preload["verbs.help"]),
      package.preload["verbs.nosuch"], package.preload["help"], require("verbs.version"))'
    echo "$output"
    [[ $output == $'nil\tfunction\tnil\tnil\tverbsh '* ]]
    # verbs.so in a stock lua5.4 whose package.preload already has a metatable
    LUA_CPATH="$ROOT/?.so" run lua5.4 -e '
      setmetatable(package.preload, { __index = function(_, k) if k == "mine" then return function() return "mine" end end end })
      local verbs = require "verbs"
      print(require("verbs.version"), require("mine"), type(verbs.explain))'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == $'verbsh '*$'\tmine\tfunction' ]]
    # there each module of lua/ has its loader up front, the first of the list as the last
    MODULES=$(cd "$ROOT/lua" && ls *.lua) LUA_CPATH="$ROOT/?.so" run lua5.4 -e '
      setmetatable(package.preload, { __index = function() end })
      require "verbs"
      for f in os.getenv("MODULES"):gmatch("([%w_]+)%.lua") do print("verbs." .. f, type(rawget(package.preload, "verbs." .. f))) end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq "$(ls "$ROOT"/lua/*.lua | wc -l)" ]
    [ "$(grep -vc '	function$' <<<"$output")" -eq 0 ]
    # verbs opened again in the same state (require after package.loaded.verbs
    # = nil): package.preload keeps its metatable and gets no loader of its own
    LUA_CPATH="$ROOT/?.so" run lua5.4 -e '
      local a = require "verbs"
      local mt = getmetatable(package.preload)
      package.loaded.verbs = nil
      local b = require "verbs"
      print(a ~= b, type(b.explain), getmetatable(package.preload) == mt, rawget(package.preload, "verbs.help"),
        (require("verbs.version")))'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == $'true\tfunction\ttrue\tnil\tverbsh '* ]]
}

# Runs verbsh (args "$@") in a mount namespace where LIB (a soname) is an
# empty file, as on a machine where it is missing or broken: dlopen fails.
without() {
    local lib=$1 path
    shift
    path=$(ldconfig -p | awk -v l="$lib" '$1 == l { print $NF; exit }')
    [ -n "$path" ] || { echo "no $lib in ldconfig -p" >&2; return 1; }
    unshare -m sh -c 'mount --bind /dev/null "$(readlink -f "$0")" && exec "$@"' "$path" "$VERBSH" "$@"
}

@test "startup: without a loadable libpcap, verbs.capture, read_pcap and frames fail with the loader's reason, and decode still works" {
    unshare -m true 2>/dev/null || skip "hiding libpcap needs a mount namespace (root)"
    run without libpcap.so.0.8 -e '
      local w = verbs.wire
      print(pcall(verbs.capture, {netdev = "lo"}))
      print(pcall(w.read_pcap, "tests/wire/scenarios.pcap"))
      print(pcall(w.frames, "tests/wire/send5000.pcap"))
      local d = io.open("tests/wire/scenarios.pcap", "rb"):read("a")
      local p = w.decode(d:sub(41, 40 + string.unpack("<I4", d, 33)))
      print(p.opcode, p.bth.psn, p.icrc_ok)'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == $'false\tcapture: pcap_create(lo): '*"libpcap.so.0.8: file too short" ]]
    [[ ${lines[1]} == $'false\tread_pcap: '*"libpcap.so.0.8: file too short" ]]
    [[ ${lines[2]} == $'false\tframes: '*"libpcap.so.0.8: file too short" ]]
    [ "${lines[3]}" = $'SEND_FIRST\t100\ttrue' ]
    [ "${#lines[@]}" -eq 4 ]
}

@test "startup: without a loadable zlib, the ICRC and crc32 fail with the loader's reason; the other fields still read" {
    unshare -m true 2>/dev/null || skip "hiding zlib needs a mount namespace (root)"
    run without libz.so.1 -e '
      local w = verbs.wire
      local p = w.read_pcap("tests/wire/scenarios.pcap")[6]
      print(p.opcode, p.bth.psn, p.aeth.msn)
      print(pcall(function() return p.icrc_ok end))
      print(pcall(require("verbs.wire_core").crc32, "123456789"))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'ACKNOWLEDGE\t104\t1' ]
    [[ ${lines[1]} == $'false\t'*"the ICRC is zlib's crc32, and zlib could not be loaded: "*"libz.so.1: file too short" ]]
    [[ ${lines[2]} == $'false\tcrc32: zlib could not be loaded: '*"libz.so.1: file too short" ]]
}

@test "startup: a librdmacm that cannot be loaded (an empty file found first) is said once, with dlopen's reason; each cm verb then fails with ELIBACC, the shell goes on" {
    mkdir -p "$BATS_TEST_TMPDIR/lib" && : >"$BATS_TEST_TMPDIR/lib/librdmacm.so.1"
    LD_LIBRARY_PATH=$BATS_TEST_TMPDIR/lib run "$VERBSH" -e '
      for _ = 1, 2 do
        local ok, e = pcall(verbs.create_event_channel)
        print(ok, e.verb, e.errno, e.errname)
      end
      print("alive")' 2>&1
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "verbsh: librdmacm cannot be loaded: $BATS_TEST_TMPDIR/lib/librdmacm.so.1: file too short" ]
    [ "${lines[1]}" = "false	rdma_create_event_channel	79	ELIBACC" ]
    [ "${lines[2]}" = "${lines[1]}" ]
    [ "${lines[3]}" = "alive" ]
    [ "${#lines[@]}" -eq 4 ]
}
