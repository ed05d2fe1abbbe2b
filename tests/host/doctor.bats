#!/usr/bin/env bats
# verbsh --doctor on this host as it is (tests/vm/doctor.bats makes the
# conditions of a host with RDMA in the micro-VM).
load ../helpers

@test "doctor on a host without RDMA: the kernel check fails with the micro-VM as the fix, exit 1" {
    [ ! -d /sys/class/infiniband ] || skip "this host has RDMA (tests/vm/doctor.bats covers hosts with it)"
    run "$VERBSH" --doctor
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "verbsh doctor: what RDMA needs on this host, check by check" ]
    [[ ${lines[1]} == "ok    versions  verbsh 0.1.0, Lua 5.4."*", rdma-core "[0-9]*" ("*"libibverbs.so."*"), kernel $(uname -r)" ]]
    [[ ${lines[2]} == "fail  kernel    this kernel has no RDMA support: no /sys/class/infiniband"* ]]
    [[ ${lines[3]} == "      fix: run verbsh in the project's micro-VM"*'`scripts/rxe-vm --tty -- ./verbsh` or `make run`'* ]]
    # Nothing depends on a device that is not there: no port, gid or mtu lines.
    [[ $output != *"port "* && $output != *"gid "* ]]
    [[ $output == *"ok    vm "* || $output == *"warn  vm "* ]]
    [[ ${lines[-1]} == *" fail: fix the fail lines (first one first), then run verbsh --doctor again" ]]
}

@test "doctor --json: the same findings as one object, exit 1" {
    [ ! -d /sys/class/infiniband ] || skip "this host has RDMA"
    run "$VERBSH" --doctor --json
    [ "$status" -eq 1 ]
    run lua5.4 -e '
        local s = io.read("a")
        print(s:match([["ok":(%a+)}%s*$]]), s:match([[{"fix":"[^"]*","message":"this kernel has no RDMA[^"]*","name":"(kernel)","status":"(fail)"}]]))' <<<"$output"
    [ "$output" = "false	kernel	fail" ]
}

@test "doctor: a wrong argument is an error naming it; doctor() works at the prompt" {
    run "$VERBSH" --doctor --jsn
    [ "$status" -eq 1 ]
    [[ $output == *'verbsh --doctor: unknown argument "--jsn" (--json, --vm [--class GROUP:PORT])'* ]]
    [ ! -d /sys/class/infiniband ] || skip "this host has RDMA"
    run "$VERBSH" -e 'local ok, checks = doctor(); print(ok, checks[2].name, checks[2].status)'
    [ "${lines[0]}" = "verbsh doctor: what RDMA needs on this host, check by check" ]
    [ "${lines[-1]}" = "false	kernel	fail" ]
}

@test "verbs.sysinfo: memlock limits in bytes as getrlimit gives them (ulimit -l is in KiB), unlimited by name" {
    hard=$(ulimit -H -l)
    run bash -c 'ulimit -S -l 1024 && "$VERBSH" -e "local s = verbs.sysinfo(); print(s.memlock, s.memlock_max)"'
    [ "$status" -eq 0 ]
    if [ "$hard" = unlimited ]; then want=unlimited; else want=$((hard * 1024)); fi
    [ "$output" = "1048576	$want" ]
    if [ "$hard" = unlimited ]; then
        run bash -c 'ulimit -S -l unlimited && "$VERBSH" -e "print(verbs.sysinfo().memlock)"'
        [ "$output" = "unlimited" ]
    fi
}

@test "rxe-host: setup without IFACE gives its usage; env without an ACTIVE port says so on stderr" {
    run "$ROOT/scripts/rxe-host" setup
    [ "$status" -eq 2 ]
    [ "$output" = "usage: scripts/rxe-host setup IFACE   (IFACE: an up interface with an IPv4 address, as in ip -4 addr)" ]
    run "$ROOT/scripts/rxe-host" env
    if [ "$status" -ne 0 ]; then
        [ "$output" = "rxe-host: no ACTIVE port with a RoCE v2 IPv4 GID (scripts/rxe-host status says why)" ]
    else
        [[ $output == *RXE_DEV=* ]]   # this host has a device
    fi
}

@test "doctor --vm's report: each check on its line, the counts by status (distinct), ready or not" {
    run "$VERBSH" -e '
      local D = require "verbs.doctor_vm"
      local c = {}
      for _, s in ipairs { "ok", "ok", "ok", "warn", "fail", "fail" } do
        c[#c + 1] = { name = "n" .. #c, status = s, message = "m" .. #c, fix = s == "fail" and "f" .. #c or nil }
      end
      print(D.format { ok = false, checks = c })
      print(D.format { ok = true, checks = { c[1], c[4] } })'
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "ok    n0        m0"
    has_line "fail  n4        m4"
    has_line "      fix: f4"
    has_line "3 ok, 1 warn, 2 fail: not ready: fix the fail lines, then run verbsh --doctor --vm again"
    has_line "1 ok, 1 warn, 0 fail: ready for the VM lab"
}
