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
