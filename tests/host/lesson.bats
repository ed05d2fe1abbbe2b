#!/usr/bin/env bats
# The lesson runner without a device: finding lessons, the step checks that
# drive it (a step is done only when its check sees the state), commands,
# auto mode and its exit status. Uses small pure-Lua lessons in a temp dir.
load ../helpers

setup() {
    export XDG_STATE_HOME=$BATS_TEST_TMPDIR/state   # finished lessons go there, not to ~
    FAKE=$BATS_TEST_TMPDIR/lessons
    mkdir -p "$FAKE"
    # 01-devices.lua is how the runner recognises a lessons directory.
    cat >"$FAKE/01-devices.lua" <<'LUA'
return { title = "Counting", steps = {
  { title = "Set x", text = "x is a global.", c = "int x = 1;", task = "Set x to 1.",
    hint = "x = 1", solution = "x = 1",
    check = function() if x == 1 then return true, "x is 1" end return false, "x is " .. tostring(x) end },
  { title = "Set y", text = "y too.", task = "Set y to x + 1.", solution = "y = x + 1",
    check = function() return y == 2, "y is " .. tostring(y) end },
} }
LUA
    cat >"$FAKE/02-broken.lua" <<'LUA'
return { title = "A wrong model solution", steps = {
  { title = "Never", text = ".", task = "Set z to 3.", solution = "z = 4",
    check = function() return z == 3, "z is " .. tostring(z) end },
} }
LUA
    cat >"$FAKE/03-needs.lua" <<'LUA'
return { title = "Needs hardware", requires = function() return "no such feature on this device" end,
  steps = { { title = "t", text = ".", task = ".", solution = "", check = function() return true end } } }
LUA
}

lua_run() { VERBSH_LESSONS=$FAKE "$VERBSH" -e "$1"; }

@test "the real course: every lessons/NN-*.lua listed in order, each with a title" {
    run "$VERBSH" -e 'require("verbs.lesson").print_list()'
    [ "$status" -eq 0 ]
    [[ ${lines[1]} == *" 1  devices "*"Devices, ports and GIDs" ]]
    [[ $output == *" 4  rc-states "*"state machine"* ]]
    [[ $output == *"12  ud-drops "*"UD silent drops"* ]]
    [[ $output == *"13  pair-lab "*"Pair lab"* ]]
    [ "$(grep -c '^ *[0-9][0-9]* ' <<<"$output")" -eq "$(ls "$ROOT"/lessons/[0-9][0-9]-*.lua | wc -l)" ]
    [[ $output != *broken* ]]
}

@test "every real lesson step has text, task, hint, a compiling solution and a check" {
    run "$VERBSH" -e '
      local L = require "verbs.lesson"
      local n = 0
      for _, e in ipairs(L.list()) do
        local l = dofile(e.path)
        assert(type(l.title) == "string", e.name)
        for i, st in ipairs(l.steps) do
          for _, k in ipairs{"title", "text", "c", "task", "hint", "solution"} do
            assert(type(st[k]) == "string", e.name .. " step " .. i .. " lacks " .. k)
          end
          assert(type(st.check) == "function", e.name .. " step " .. i .. " has no check")
          -- Typed a line at a time, as the REPL takes it: a line that does
          -- not compile yet must be an unfinished statement (<eof>), and
          -- the solution must not end in the middle of one.
          local buf
          for line in L.dedent(st.solution):gmatch("[^\n]+") do
            buf = buf and (buf .. "\n" .. line) or line
            local ok, err = load("return " .. buf)
            if not ok then ok, err = load(buf) end
            if ok then buf = nil
            else assert(err:find("<eof>$"), e.name .. " step " .. i .. ": " .. err) end
          end
          assert(not buf, e.name .. " step " .. i .. " ends inside a statement: " .. tostring(buf))
          n = n + 1
        end
      end
      print(n .. " steps")'
    [ "$status" -eq 0 ]
    [[ $output =~ ^([0-9]+)\ steps$ ]]
    [ "${BASH_REMATCH[1]}" -ge 40 ]
}

@test "names: number, full name, short name, unique prefix; unknown and ambiguous ones are errors" {
    run lua_run 'local L = require "verbs.lesson"
      print(L.find(1).short, L.find("02").short, L.find("02-broken").short, L.find("ne").short)'
    [ "$status" -eq 0 ]
    [ "$output" = "devices	broken	broken	needs" ]
    run lua_run 'local L = require "verbs.lesson"; print(pcall(L.find, "zz"))'
    [ "$status" -eq 0 ]
    [[ $output == "false	"*'no lesson named "zz"; there are: devices, broken, needs'* ]]
    # a number that is no lesson's: named as typed, as a string would be
    run lua_run 'local L = require "verbs.lesson"; print(pcall(L.find, 99))'
    [ "$status" -eq 0 ]
    [ "$output" = 'false	no lesson named "99"; there are: devices, broken, needs' ]
    run "$VERBSH" -e 'print(pcall(require("verbs.lesson").find, "rc"))'
    [ "$status" -eq 0 ]
    [[ $output == "false	"*'no lesson uniquely named "rc"; it could be: rc-states, rc-send, rc-errors'* ]]
}

@test "a step is not done until its check sees the state; then the runner moves on" {
    run lua_run '
      local L, repl = require "verbs.lesson", require "verbs.repl"
      L.start("devices")
      print("prompt:", repl.prompt())
      repl.after_eval(true)                 -- the learner typed something else
      print("after unrelated chunk:", L.current().i)
      x = 2; repl.after_eval(true)
      print("after x = 2:", L.current().i)
      check()
      x = 1; repl.after_eval(true)
      print("after x = 1:", L.current().i, repl.prompt())
      y = 2; repl.after_eval(true)
      print("finished:", L.current().finished, "prompt:", repl.prompt())'
    [ "$status" -eq 0 ]
    [[ $output == *"prompt:	[devices 1/2] verbsh> "* ]]
    [[ $output == *"after unrelated chunk:	1"* ]]
    [[ $output == *"after x = 2:	1"* ]]
    [[ $output == *"Not done yet: x is 2"* ]]
    [[ $output == *"✓ step 1 done: x is 1"* ]]
    [[ $output == *"after x = 1:	2	[devices 2/2] verbsh> "* ]]
    [[ $output == *"★ Lesson devices complete"* ]]
    has_line '  Next: lesson "broken"  -- A wrong model solution'   # the lesson after this one, by number
    [[ $output == *"finished:	true	prompt:	verbsh> "* ]]
}

@test "commands: show, hint, progress, skip runs the model solution, restart starts over" {
    run lua_run '
      local L = require "verbs.lesson"
      lesson "devices"
      hint(); progress()
      skip()
      progress()
      restart("lesson")
      progress()
      lesson(false)
      print("commands after stop:", skip, hint)'
    [ "$status" -eq 0 ]
    [[ $output == *"── devices 1/2: Set x"* ]]
    [[ $output == *"In C:"*"    int x = 1;"$'\n'* ]]
    [[ $output == *"Task: Set x to 1."* ]]
    [[ $output == *"devices: step 1/2 -- Set x"* ]]
    [[ $output == *"[devices 1/2] verbsh> x = 1"* ]]
    [[ $output == *"devices: step 2/2 -- Set y"* ]]
    [ "$(grep -c 'devices: step 1/2' <<<"$output")" -eq 2 ]
    [[ $output == *"commands after stop:	nil	nil"* ]]
}

@test "commands after the last step: show says the lesson is complete (no step to show), and so does each call" {
    run lua_run '
      lesson "devices"
      skip(); skip()
      print("--")
      show(); print(pcall(show))'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"Lesson devices complete (2 steps)"* ]]
    [ "$(sed -n '/^--$/,$p' <<<"$output")" = "--
Lesson devices is complete.
Lesson devices is complete.
true" ]
}

@test "auto mode: a passing lesson returns 0 and prints the transcript" {
    run lua_run 'os.exit(require("verbs.lesson").main{"devices", "--auto"})'
    [ "$status" -eq 0 ]
    [[ $output == *"[devices 1/2] verbsh> x = 1"* ]]
    [[ $output == *"[devices 2/2] verbsh> y = x + 1"* ]]
    [[ $output == *"PASS devices"* ]]
    [ "$(grep -c '── devices' <<<"$output")" -eq 2 ]   # each step shown once
    [[ $output != *"Next: lesson"* ]]                   # --auto names no next lesson
    # the summary: each step with what its check observed, in order
    [ "$(grep -A2 '^Observed on this device:$' <<<"$output")" = "Observed on this device:
   1 Set x                              x is 1
   2 Set y                              y is 2" ]
}

@test "auto mode: a failing check returns 1 and names the step" {
    run lua_run 'os.exit(require("verbs.lesson").main{"broken", "--auto"})'
    [ "$status" -eq 1 ]
    # where the step failed, then the run's summary line, the last
    has_line "✗ FAILED lesson broken step 1 (Never): z is 4"
    [ "${lines[-1]}" = "FAIL lesson broken step 1 (Never): z is 4" ]
}

# A pair lab started before its partner: a check whose third value is
# "partner" makes --auto start the lesson over (2 s later) until the partner
# is there, within M.partner_wait; after that it fails like any check.
@test "auto mode: a check waiting for the partner starts the lesson over until it passes; after partner_wait it fails" {
    cat >"$FAKE/04-partner.lua" <<'LUA'
local tries = os.getenv("BATS_TEST_TMPDIR") .. "/tries"
return { title = "Waits for a partner", steps = {
  { title = "Connect", text = ".", task = "Connect.", solution = "connected = true",
    check = function()
      local f = io.open(tries); local n = f and tonumber(f:read("a")) or 0; if f then f:close() end
      f = io.open(tries, "w"); f:write(n + 1); f:close()
      if n < 1 then return false, "the partner has not connected yet (try " .. (n + 1) .. ")", "partner" end
      return true, "connected on try " .. (n + 1)
    end },
} }
LUA
    run lua_run 'os.exit(require("verbs.lesson").main{"partner", "--auto"})'
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "… the partner has not connected yet (try 1) (trying again in 2 s)"
    [[ $output == *"connected on try 2"* ]]
    [[ $output == *"PASS partner"* ]]
    [ "$(cat "$BATS_TEST_TMPDIR/tries")" = 2 ]
    # no time left to wait: the same first answer fails the lesson
    rm "$BATS_TEST_TMPDIR/tries"
    run lua_run 'local L = require "verbs.lesson"; L.partner_wait = 0; os.exit(L.main{"partner", "--auto"})'
    echo "$output"
    [ "$status" -eq 1 ]
    [[ $output == *"FAIL lesson partner step 1 (Connect): the partner has not connected yet (try 1)"* ]]
    [[ $output != *"trying again"* ]]
}

@test "a lesson the device cannot run says why and exits 77 in auto mode" {
    run lua_run 'os.exit(require("verbs.lesson").main{"needs", "--auto"})'
    [ "$status" -eq 77 ]
    [[ $output == *"This lesson cannot run here: no such feature on this device"* ]]
    [[ $output == *"SKIP needs: no such feature on this device"* ]]
}

@test "main: no arguments lists (status 0); a lesson name starts it and returns nil for the REPL" {
    run lua_run 'local L = require "verbs.lesson"; print("listed", L.main{}); print(L.main{"devices"}); print(L.current().short)'
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == "Lessons"* ]]
    [[ $output == *$'\nlisted\t0\n'* ]]
    [[ $output == *"── devices 1/2"* ]]
    [ "${lines[-2]}" = "nil" ]
    [ "${lines[-1]}" = "devices" ]
}

@test "kit: GIDs are parsed from either text form; only ::ffff:a.b.c.d counts as IPv4-mapped" {
    run "$VERBSH" -e '
      local K = require "verbs.lesson_kit"
      print(K.gid_ipv4("::ffff:192.0.2.1"))
      print(K.gid_ipv4("0000:0000:0000:0000:0000:ffff:c000:0201"))
      print(K.gid_ipv4("fe80::5054:ff:fe12:3456"))
      print(K.gid_ipv4("::1:c000:201"))
      print(K.gid_ipv4("::1:ffff:c000:201"))
      print(#K.gid_bytes("fe80::1"), K.gid_bytes("fe80::1"):byte(1, 2))
      print(K.gid_bytes("1:2:3"))'
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "192.0.2.1" ]
    [ "${lines[1]}" = "192.0.2.1" ]
    [ "${lines[2]}" = "nil" ]
    [ "${lines[3]}" = "nil" ]
    [ "${lines[4]}" = "nil" ]   # ffff, but not after ten zero bytes
    [ "${lines[5]}" = "16	254	128" ]
    [ "${lines[6]}" = "nil" ]
}

@test "kit: check_answer passes an answer in capitals only, and says what it saw otherwise" {
    run "$VERBSH" -e '
      local K = require "verbs.lesson_kit"
      -- the REPL globals a pair lab leaves: wcs (as the learner polled them) and the MR
      local function answer(data, wc)
        wcs = { wc or { status = "SUCCESS", opcode = "RECV", byte_len = #data } }
        mr_b = { read = function(_, off, n) return data:sub(off + 1, off + n) end }
        print(K.check_answer({}, "mr_b", 0))
      end
      answer("HELLO, WORLD")
      answer("hello, world")
      answer("Hello")
      answer("")
      answer("HI", { status = "SUCCESS", opcode = "SEND", byte_len = 2 })
      answer("HI", { status = "WR_FLUSH_ERR", opcode = "RECV", byte_len = 2 })'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = 'true	the partner answered "HELLO, WORLD"' ]
    [ "${lines[1]}" = 'false	mr_b holds "hello, world" at offset 0, not an answer in capitals' ]
    [ "${lines[2]}" = 'false	mr_b holds "Hello" at offset 0, not an answer in capitals' ]
    [ "${lines[3]}" = 'false	mr_b holds "" at offset 0, not an answer in capitals' ]
    [ "${lines[4]}" = 'false	no answer received yet (a RECV completion on cq)' ]
    [ "${lines[5]}" = 'false	the receive completed with WR_FLUSH_ERR' ]
}

# Issue 13 item 10: the README says 77 when the device lacks what the lesson
# needs; no device at all is that case too (it used to exit 2).
@test "a real lesson with --auto on a host without RDMA exits 77, with the reason" {
    [ ! -d /sys/class/infiniband ] || skip "this host has RDMA"
    run "$VERBSH" --lesson 4 --auto
    echo "$output"
    [ "$status" -eq 77 ]
    [[ $output == *"This lesson cannot run here: no RDMA device."* ]]
    [[ $output == *"this kernel has no RDMA support"* ]]
}

@test "restart() starts the step over, restart(\"lesson\") the lesson; finished lessons are kept in XDG_STATE_HOME" {
    export XDG_STATE_HOME=$BATS_TEST_TMPDIR/state
    run lua_run '
      local L, repl = require "verbs.lesson", require "verbs.repl"
      local function eval(code) load(code)(); repl.after_eval(true) end
      L.start("devices")
      eval("x = 1")
      print("A", L.current().i)
      restart()
      print("B", L.current().i)
      restart("lesson")
      print("C", L.current().i)
      eval("x = 1"); eval("y = 2")
      progress()
      L.print_list()'
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "A	2"
    [[ $output == *"Step 2 starts over (its check forgets what it saw"* ]]
    has_line "B	2"
    has_line "C	1"
    [[ $output == *"Finished: 1 of 3 lessons: devices"* ]]
    [[ $output == *"  ✓  1  devices        Counting"* ]]
    [[ $output == *"     2  broken         A wrong model solution"* ]]
    [ "$(cat "$XDG_STATE_HOME/verbsh/finished")" = "01-devices" ]
    # another session sees it
    run lua_run 'require("verbs.lesson").print_list()'
    [[ $output == *"  ✓  1  devices"* ]]
}

@test "a step done by a chunk that raised holds the next step until show(), so the explanation stays in view" {
    run lua_run '
      local L, repl = require "verbs.lesson", require "verbs.repl"
      L.start("devices")
      x = 1
      repl.after_eval(false, "some error")
      print("at", L.current().i)'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *'(Read the explanation above. show() prints step 2, "Set y", when you are ready.)'* ]]
    [[ $output != *"Task: Set y to x + 1."* ]]
    has_line "at	2"
}

# Lesson 17's step checks read a capture's frames: here the committed RoCEv2
# capture tests/wire/scenarios.pcap (rxe0 at 192.0.2.1 and rxe1, both QPs
# numbered 17; tests/host/wire.bats checks its decoding against tshark's),
# handed to the check as the capture in the global cap.
on_the_wire_check() {   # on_the_wire_check STEP_TITLE LUA_EDITING_FRAMES
    run "$VERBSH" -e '
      local frames = {}
      for i, p in ipairs(verbs.wire.read_pcap(os.getenv("ROOT") .. "/tests/wire/scenarios.pcap")) do frames[i] = p.bytes end
      '"$2"'
      local packets = {}
      for i, b in ipairs(frames) do packets[i] = { bytes = b } end
      cap = io.tmpfile()   -- a userdata that the kit takes for a capture
      debug.setmetatable(cap, { __name = "verbs.capture", __index = { packets = function() return packets end } })
      addr_a, qp_a, qp_b = "192.0.2.1", { qp_num = 17 }, { qp_num = 17 }
      for _, s in ipairs(dofile(os.getenv("ROOT") .. "/lessons/17-on-the-wire.lua").steps) do
        if s.title == "'"$1"'" then print(s.check()) end
      end'
}

@test "lesson 17's atomic step reads the AtomicAckETH of the ATOMIC_ACKNOWLEDGE to qp_a, not of a later frame to qp_a; it passes with the counter at 37 and names the value otherwise" {
    # the capture's FETCH_ADD (frame 16) adds 5 to a counter of 0; ACKs to qp_a follow its ATOMIC_ACKNOWLEDGE
    on_the_wire_check "An atomic and its AtomicAckETH" ''
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "false	the AtomicAckETH holds 0; the counter was 37" ]
    # the same frames with the AtomicAckETH's original value made 37 (bytes 59-66: Ethernet 14, IPv4 20,
    # UDP 8, BTH 12, AETH 4 before it)
    on_the_wire_check "An atomic and its AtomicAckETH" \
      'frames[17] = frames[17]:sub(1, 58) .. string.pack(">I8", 37) .. frames[17]:sub(67)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "true	FETCH_ADD (AtomicETH add 5), ATOMIC_ACKNOWLEDGE with orig_rem_dt 37" ]
}

# The capture's frames 18-21: two SEND_ONLYs to qp_b, each ACKed (msn 5, 6);
# frames 1-6: one SEND of 4 packets (SEND_FIRST, 3 SEND_MIDDLE, SEND_LAST), its ACK;
# frame 22: a UD SEND_ONLY from dev_a to QP 18, not qp_b.
@test "lesson 17's four-SENDs step counts SEND_ONLY frames to qp_b only: one SEND of four packets is refused, four SEND_ONLYs pass beside a UD SEND_ONLY to another QP" {
    # the classic wrong answer: one message of four packets, not four messages
    on_the_wire_check "Every message acknowledged" 'frames = { frames[1], frames[2], frames[3], frames[5], frames[6] }'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "false	0 SEND_ONLY frames to qp_b; expected 4" ]
    on_the_wire_check "Every message acknowledged" 'frames = { frames[18], frames[19], frames[20], frames[21], frames[22] }'
    [ "$output" = "false	2 SEND_ONLY frames to qp_b; expected 4" ]
    # the two SENDs and ACKs again, those ACKs' MSN (bytes 56-58, after the AETH's syndrome) made 7 and 8
    on_the_wire_check "Every message acknowledged" '
      local function msn(f, n) return f:sub(1, 55) .. string.pack(">I3", n) .. f:sub(59) end
      frames = { frames[18], frames[19], frames[20], frames[21], frames[18], msn(frames[19], 7), frames[20],
                 msn(frames[21], 8), frames[22] }'
    echo "$output"
    [ "$output" = "true	4 SEND_ONLY, 4 ACKs, msn 5,6,7,8" ]
}

# Lesson 19's wire step exists with a second RoCE device and root; here
# verbs.devices, verbs.sysinfo and verbs.open answer as two rxe devices and a
# siw one would (objects that log what the step does with them).
@test "lesson 19's wire step opens the second RoCE device (not siw) and connects qp_x and qp_y across the two, each to the other's QPN and GID" {
    run "$VERBSH" -e '
      local GIDS = { rxe0 = { { index = 1, type = "RoCE v2", gid = "::ffff:192.0.2.1" } },
                     rxe1 = { { index = 2, type = "IB/RoCE v1", gid = "fe80::2" }, { index = 3, type = "RoCE v2", gid = "::ffff:192.0.2.2" } } }
      local qpn = 0x50
      local function pd_of(dev)
        return { dev = dev, reg_mr = function() return { dev = dev } end,
          create_qp = function(_, attr)
            qpn = qpn + 0x13
            local qp = { dev = dev, qp_num = qpn, state = "RESET", cq = attr.send_cq }
            function qp:modify(a)
              self.state = a.qp_state
              if a.qp_state == "RTR" then self.rtr = a end
            end
            return qp
          end }
      end
      verbs.devices = function()
        return { { name = "rxe0", transport_type = "InfiniBand" }, { name = "siw0", transport_type = "IWARP" },
                 { name = "rxe1", transport_type = "InfiniBand" } }
      end
      verbs.sysinfo = function() return { euid = 0 } end
      verbs.open = function(name)
        return { name = name, gids = function() return GIDS[name] end, alloc_pd = function() return pd_of(name) end,
                 create_cq = function() return { dev = name } end }
      end
      pd, cq, gid_index, gid = pd_of("rxe0"), { dev = "rxe0" }, 1, "::ffff:192.0.2.1"
      for _, s in ipairs(dofile(os.getenv("ROOT") .. "/lessons/19-uc.lua").steps) do
        if s.title == "A packet lost on the wire" then s.enter() end
      end
      print("ctx_b", ctx_b.name, "pd_b", pd_b.dev, "cq_y", cq_y.dev, "mr_y", mr_y.dev, "addr_b", addr_b)
      for _, n in ipairs { "qp_x", "qp_y" } do
        local q = _G[n]
        print(n, q.dev, q.cq.dev, ("%#x"):format(q.qp_num), q.state, ("%#x"):format(q.rtr.dest_qp_num),
              q.rtr.ah_attr.grh.dgid, q.rtr.ah_attr.grh.sgid_index)
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    has_line $'ctx_b\trxe1\tpd_b\trxe1\tcq_y\trxe1\tmr_y\trxe1\taddr_b\t192.0.2.2'
    # qp_x (on rxe0) to qp_y at rxe1's RoCE v2 GID, from rxe0's sgid_index 1; qp_y back, from rxe1's index 3
    has_line $'qp_x\trxe0\trxe0\t0x63\tRTS\t0x76\t::ffff:192.0.2.2\t1'
    has_line $'qp_y\trxe1\trxe1\t0x76\tRTS\t0x63\t::ffff:192.0.2.1\t3'
}

@test "kit: roce_gid takes the RoCE v2 GID holding an IPv4 address, else the first RoCE v2 GID, else says the port has none" {
    run "$VERBSH" -e '
      local K = require "verbs.lesson_kit"
      local function ctx(list) return { gids = function(_, port) assert(port == 1) return list end } end
      local v1 = { index = 0, type = "IB/RoCE v1", gid = "fe80::5054:ff:fe12:3456" }
      local v2_6 = { index = 1, type = "RoCE v2", gid = "fe80::5054:ff:fe12:3456" }
      local v2_6b = { index = 2, type = "RoCE v2", gid = "2001:db8::7" }
      local v1_4 = { index = 3, type = "IB/RoCE v1", gid = "::ffff:192.0.2.7" }
      local v2_4 = { index = 4, type = "RoCE v2", gid = "::ffff:192.0.2.7" }
      print(K.roce_gid(ctx{ v1, v2_6, v2_6b, v1_4, v2_4 }, 1))
      print(K.roce_gid(ctx{ v1, v2_6, v2_6b, v1_4 }, 1))
      print(K.roce_gid(ctx{ v1, v1_4 }, 1))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'4\t::ffff:192.0.2.7' ]
    [ "${lines[1]}" = $'1\tfe80::5054:ff:fe12:3456' ]
    [ "${lines[2]}" = $'nil\tport 1 has no RoCE v2 GID (is the netdev up with an address?)' ]
}

@test "kit: roce_gid reads the port it is given (2), and K.port (3 here) when given none" {
    run "$VERBSH" -e '
      local K = require "verbs.lesson_kit"
      K.port = 3
      local asked = {}
      local ctx = { gids = function(_, port) asked[#asked + 1] = port return {} end }
      print(K.roce_gid(ctx, 2))
      print(K.roce_gid(ctx))
      print(table.concat(asked, " "))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'nil\tport 2 has no RoCE v2 GID (is the netdev up with an address?)' ]
    [ "${lines[1]}" = $'nil\tport 3 has no RoCE v2 GID (is the netdev up with an address?)' ]
    [ "${lines[2]}" = "2 3" ]
}

# K.repr prints step values when verbs.pretty is not there: three levels of
# nesting, keyed or listed alike, then {...}, so a table that holds itself
# (a QP table pointing back at its owner) prints and ends.
@test "kit: fail_wcs replaces each WC of a failed try, in its list, the learner's wcs, what checks hold and the step's list, by a copy with the new status that explains itself; other WCs and the originals stay" {
    run "$VERBSH" -e '
      local K = require "verbs.lesson_kit"
      local a = { wr_id = 1, status = "SUCCESS", opcode = "SEND", byte_len = 5, qp_num = 0x11 }
      local b = { wr_id = 2, status = "SUCCESS", opcode = "RECV", byte_len = 5, qp_num = 0x12 }
      local c = { wr_id = 3, status = "SUCCESS", opcode = "SEND", byte_len = 7, qp_num = 0x11 }
      local cqk = {}
      debug.getregistry()["verbsh.cq_held"] = setmetatable({ [cqk] = { c, a } }, { __mode = "k" })
      local list = { a, b }
      wcs = { b, c }
      local S = { all = { a, c, b }, seen = { [a] = true, [c] = true, [b] = true } }
      K.fail_wcs(list, "WR_FLUSH_ERR", S)
      local function show(l)
        local r = {}
        for i, w in ipairs(l) do r[i] = ("%d:%s:%s"):format(w.wr_id, w.status, tostring(w == a or w == b or w == c)) end
        return table.concat(r, " ")
      end
      print(show(list)); print(show(wcs)); print(show(S.all)); print(show(debug.getregistry()["verbsh.cq_held"][cqk]))
      print(rawequal(list[2], wcs[1]), rawequal(list[1], S.all[1]), a.status, b.status, list[1].byte_len, list[2].opcode)
      local n = 0 for _ in pairs(S.seen) do n = n + 1 end
      print(n, S.seen[list[1]], S.seen[list[2]])
      print(tostring(list[1]):match("^[^\n]*"))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "1:WR_FLUSH_ERR:false 2:WR_FLUSH_ERR:false" ]
    [ "${lines[1]}" = "2:WR_FLUSH_ERR:false 3:SUCCESS:true" ]
    [ "${lines[2]}" = "1:WR_FLUSH_ERR:false 3:SUCCESS:true 2:WR_FLUSH_ERR:false" ]
    [ "${lines[3]}" = "3:SUCCESS:true 1:WR_FLUSH_ERR:false" ]
    [ "${lines[4]}" = "true	true	SUCCESS	SUCCESS	5	RECV" ]
    [ "${lines[5]}" = "5	true	true" ]
    [ "${lines[6]}" = "wc wr_id=1 WR_FLUSH_ERR qp_num=0x000011" ]
}

@test "kit: a partner K.spawn started is stopped by the lesson's teardown, and its log removed" {
    # (up and running before the teardown: a partner that ended by itself
    # would prove nothing; it sleeps in-process, so that no child of its
    # outlives it holding bats' descriptors)
    printf 'print("up") io.stdout:flush() require("socket").sleep(30)\n' >"$BATS_TEST_TMPDIR/partner.lua"
    run "$VERBSH" -e '
      local K = require "verbs.lesson_kit"
      local p = K.spawn("'"$BATS_TEST_TMPDIR/partner.lua"'")
      print(K.partner_wait(p, "^(up)\n", 20), p:alive(), io.open(p.log) ~= nil)
      K.teardown()
      for _ = 1, 50 do if not p:alive() then break end os.execute("sleep 0.1") end
      print(p:alive(), io.open(p.log) == nil)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "up	true	true
false	true" ]
}

@test "kit: repr stops after three levels of nested tables, keyed or listed, so a table holding itself prints" {
    run "$VERBSH" -e '
      local K = require "verbs.lesson_kit"
      local t = { name = "qp_a" }
      t.self = t
      print(K.repr(t))
      print(K.repr({ a = { b = { c = { d = 1 } } } }))
      print(K.repr({ { { { 7 } } }, "s" }))
      print(K.repr({ a = { b = { c = 3 } } }))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = '{name="qp_a", self={name="qp_a", self={name="qp_a", self={...}}}}' ]
    [ "${lines[1]}" = '{a={b={c={...}}}}' ]
    [ "${lines[2]}" = '{{{{...}}}, "s"}' ]
    [ "${lines[3]}" = '{a={b={c=3}}}' ]
}

# Lesson 8's compare-and-swap step judged on completions and memory given by
# hand (plain WC tables, MRs that read 8-byte words), no device.
cas_check() {   # cas_check STATUS21 STATUS22 A200 A208 B0
    run "$VERBSH" -e '
      local function wc(id, st) return setmetatable({ wr_id = id, status = st, opcode = "COMP_SWAP" },
        { __tostring = function() return ("wc{wr_id = %d, status = %s}"):format(id, st) end }) end
      local function mr(words) return { read = function(_, off, n) return string.pack("=I8", words[off] or 0) end } end
      wcs = { wc(21, "'"$1"'"), wc(22, "'"$2"'") }
      mr_a, mr_b, cq = mr{ [200] = '"$3"', [208] = '"$4"' }, mr{ [0] = '"$5"' }, nil
      for _, s in ipairs(dofile(os.getenv("ROOT") .. "/lessons/08-atomics.lua").steps) do
        if s.title == "Compare and swap" then print(s.check({})) end
      end'
}

@test "lesson 8's compare-and-swap step: both CASes right pass; a failed first CAS is named by its own completion, not by the flushed second; a wrong old value is named" {
    cas_check SUCCESS SUCCESS 11 100 100
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == "true"* ]]
    cas_check REM_ACCESS_ERR WR_FLUSH_ERR 0 0 11
    echo "$output"
    [ "$output" = $'false\ta CAS failed: wc{wr_id = 21, status = REM_ACCESS_ERR}' ]
    cas_check SUCCESS REM_ACCESS_ERR 11 0 100
    [ "$output" = $'false\ta CAS failed: wc{wr_id = 22, status = REM_ACCESS_ERR}' ]
    cas_check SUCCESS SUCCESS 11 11 100    # the second CAS should have seen 100
    [ "$output" = $'false\tthe second CAS should have returned 100' ]
    cas_check SUCCESS SUCCESS 100 100 100  # the first should have seen 11
    [ "$output" = $'false\tthe first CAS should have returned 11' ]
}

# Lesson 19's lost-SEND step judged on completions and memory given by hand.
uc_lost_check() {   # uc_lost_check FIRST_LUA WCS_LUA MR_B_TEXT
    run "$VERBSH" -e '
      local function wc(id, st, qpn) return { wr_id = id, status = st, qp_num = qpn } end
      qp_a, qp_b, cq = { qp_num = 0x11 }, { qp_num = 0x12 }, nil
      first = '"$1"'
      wcs = '"$2"'
      mr_b = { read = function(_, off, n) return off == 1024 and ("'"$3"'"):sub(1, n) or "" end }
      for _, s in ipairs(dofile(os.getenv("ROOT") .. "/lessons/19-uc.lua").steps) do
        if s.title == "Unreliable: nobody tells the sender" then print(s.check({})) end
      end'
}

@test "lesson 19's lost-SEND step: SUCCESS at qp_a and nothing at qp_b passes; the lost SEND not SUCCESS, a completion at qp_b, or the second message missing are each named" {
    uc_lost_check '{ wc(4, "SUCCESS", 0x11) }' '{ wc(5, "SUCCESS", 0x11), wc(101, "SUCCESS", 0x12) }' second
    echo "$output"
    [ "$output" = $'true\t"first": SUCCESS at qp_a, never arrived; the receive got "second"' ]
    uc_lost_check '{ wc(4, "REM_OP_ERR", 0x11) }' '{ wc(5, "SUCCESS", 0x11), wc(101, "SUCCESS", 0x12) }' second
    [ "$output" = $'false\tthe lost SEND did not complete SUCCESS' ]
    uc_lost_check '{ wc(4, "SUCCESS", 0x11), wc(100, "SUCCESS", 0x12) }' '{ wc(5, "SUCCESS", 0x11), wc(101, "SUCCESS", 0x12) }' second
    [ "$output" = $'false\tqp_b got a completion: was a receive posted?' ]
    uc_lost_check '{ wc(4, "SUCCESS", 0x11) }' '{ wc(5, "SUCCESS", 0x11), wc(101, "SUCCESS", 0x12) }' first
    [ "$output" = $'false\tqp_b\'s receive does not hold "second"' ]
    uc_lost_check '{ }' '{ }' second
    [ "$output" = $'false\tfirst should hold wr_id 4\'s completion: first = cq:wait(2, 300) after the SEND with no receive' ]
}

@test "kit: wc_note gives a successful completion's opcode, status and byte_len, its imm_data in hex when there is one, and an error's status alone" {
    run "$VERBSH" -e '
      local K = require "verbs.lesson_kit"
      print(K.wc_note{ status = "SUCCESS", opcode = "RECV", byte_len = 5 })
      print(K.wc_note{ status = "SUCCESS", opcode = "RECV_RDMA_WITH_IMM", byte_len = 0, imm_data = 0x12345678 })
      print(K.wc_note{ status = "REM_ACCESS_ERR", opcode = "RDMA_WRITE", byte_len = 4096 })'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "RECV SUCCESS byte_len=5" ]
    [ "${lines[1]}" = "RECV_RDMA_WITH_IMM SUCCESS byte_len=0 imm_data=0x12345678" ]
    [ "${lines[2]}" = "REM_ACCESS_ERR" ]
}

# Lesson 16's measuring step judged on rounds given by hand.
rounds_check() {   # rounds_check MODE_BUSY MODE_EVENTS MODE_BUSY_IDLE MODE_EVENTS_IDLE
    run "$VERBSH" -e '
      local function r(mode, usec, cpu) return { mode = mode, usec = usec, cpu_ms = cpu, n = 200, cpu_share = cpu * 1e3 / usec } end
      busy, events = r("'"$1"'", 910, 870), r("'"$2"'", 1430, 95)
      busy_idle, events_idle = r("'"$3"'", 300012, 298), r("'"$4"'", 300477, 3)
      for _, s in ipairs(dofile(os.getenv("ROOT") .. "/lessons/16-events.lua").steps) do
        if s.title == "Measure: spinning against sleeping" then print(select(2, s.check())) end
      end'
}

@test "lesson 16's measuring step: the four rounds in their places pass with the figures; any one of them swapped or from the other function is refused" {
    rounds_check busy events "busy idle" "events idle"
    echo "$output"
    [ "${lines[-1]}" = "waiting 300 ms for a slow completion cost 298 ms of CPU spinning, 3 ms sleeping" ]
    local want="busy/events should be exchange_round's busy and events rounds, *_idle idle_round's"
    rounds_check events events "busy idle" "events idle";       [ "$output" = "$want" ]
    rounds_check busy busy "busy idle" "events idle";           [ "$output" = "$want" ]
    rounds_check busy events "busy" "events idle";              [ "$output" = "$want" ]
    rounds_check busy events "busy idle" "busy idle";           [ "$output" = "$want" ]
    rounds_check events busy "busy idle" "events idle";         [ "$output" = "$want" ]
}

@test "the kit's readers of /proc (vm_pin_kb, memlock) give this process's values and close what they open: no descriptor is left to the garbage collector" {
    run "$VERBSH" -e '
      collectgarbage("stop")   -- an unclosed file would stay open until collected
      local K = require "verbs.lesson_kit"
      local f = io.open("/proc/self/stat"); local pid = f:read("n"); f:close()
      print(K.vm_pin_kb(), K.memlock())
      -- what this process still has open of /proc/PID (the files the readers opened)
      local p = io.popen("ls -l /proc/" .. pid .. "/fd 2>/dev/null | grep -c -e /status -e /limits")
      print(p:read("n")); p:close()'
    echo "$output"
    [ "$status" -eq 0 ]
    # nothing pinned without an MR; the soft limit this shell passed on (ulimit -l is in KiB)
    local l; l=$(ulimit -l); [ "$l" = unlimited ] || l=$((l * 1024))
    [ "${lines[0]}" = "0	$l" ]
    [ "${lines[1]}" = "0" ]
}

@test "the kit's teardown closes the lesson's objects children first (qp, mr, cq, pd, context) and names each it released, in that order" {
    run "$VERBSH" -e '
      local K = require "verbs.lesson_kit"
      local closed = {}
      local function obj(kind, closer)   -- a stand-in: a userdata whose class is verbs.KIND
        local o = io.tmpfile()
        debug.setmetatable(o, { __name = "verbs." .. kind, __index = { [closer] = function() closed[#closed + 1] = kind end } })
        return o
      end
      ctx, pd, cq = obj("context", "close"), obj("pd", "dealloc"), obj("cq", "destroy")
      mr_b, qp_a, wcs = obj("mr", "dereg"), obj("qp", "destroy"), { 1 }
      local gone = K.teardown()
      print(table.concat(gone, " "))
      print(table.concat(closed, " "))
      print(rawget(_G, "qp_a"), rawget(_G, "ctx"), rawget(_G, "wcs"))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "qp_a mr_b cq pd ctx" ]
    [ "${lines[1]}" = "qp mr cq pd context" ]
    [ "${lines[2]}" = "nil	nil	nil" ]
}

@test "the lessons directory: VERBSH_LESSONS, else beside the binary (lessons, ../lessons, ../../lessons, ../share/verbsh/lessons, in that order), else ./lessons; with none, --lesson says how to set it and exits 2" {
    T=$BATS_TEST_TMPDIR/t
    mkdir -p "$T/x/y/bin" "$T/cwd"
    cp "$VERBSH" "$T/x/y/bin/verbsh"
    cd "$T/cwd"
    where() { env -u VERBSH_LESSONS "$T/x/y/bin/verbsh" -e 'print(require("verbs.lesson").dir())'; }
    run env -u VERBSH_LESSONS "$T/x/y/bin/verbsh" --lesson
    [ "$status" -eq 2 ]
    [[ ${lines[0]} == "Lessons ("* ]]
    [ "${lines[1]}" = "verbsh --lesson: cannot find the lessons directory (set VERBSH_LESSONS=/path/to/verbsh/lessons)" ]
    [ "${#lines[@]}" -eq 2 ]
    mkdir lessons
    touch lessons/01-devices.lua   # (how a lessons directory is recognised)
    run where
    [ "$output" = "lessons" ]
    # each place beside the binary comes before the ones after it, and before ./lessons
    for d in x/y/share/verbsh/lessons x/lessons x/y/lessons x/y/bin/lessons; do
        mkdir -p "$T/$d"
        touch "$T/$d/01-devices.lua"
        run where
        [ "$(realpath "$output")" = "$T/$d" ]
    done
    # a script run from elsewhere: still beside the binary (read from /proc/self/maps), not beside the script
    mkdir -p "$T/elsewhere"
    echo 'print(require("verbs.lesson").dir())' >"$T/elsewhere/s.lua"
    run env -u VERBSH_LESSONS "$T/x/y/bin/verbsh" "$T/elsewhere/s.lua"
    [ "$(realpath "$output")" = "$T/x/y/bin/lessons" ]
    VERBSH_LESSONS=$FAKE run "$T/x/y/bin/verbsh" -e 'print(require("verbs.lesson").dir())'
    [ "$output" = "$FAKE" ]
}

@test "without XDG_STATE_HOME, finished lessons and the progress log go under HOME/.local/state; with neither, nowhere (and nothing fails)" {
    H=$BATS_TEST_TMPDIR/home
    mkdir -p "$H"
    run env -u XDG_STATE_HOME HOME="$H" VERBSH_LESSONS="$FAKE" VERBSH_PROGRESS=1 VERBSH_ROOM=off "$VERBSH" -e '
      local L, P = require "verbs.lesson", require "verbs.progress"
      print(P.dir())
      lesson "devices"; skip(); skip()
      lesson "devices"; skip(); skip()   -- finished again: listed once
      print(L.finished()["01-devices"])'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "$H/.local/state/verbsh" ]
    [ "${lines[-1]}" = "true" ]
    [ "$(cat "$H/.local/state/verbsh/finished")" = "01-devices" ]
    [ "$(cut -f3,4 "$H/.local/state/verbsh/progress" | tail -1)" = "01-devices	finished" ]
    run env -u XDG_STATE_HOME HOME= VERBSH_LESSONS="$FAKE" VERBSH_PROGRESS=1 VERBSH_ROOM=off "$VERBSH" -e '
      local L, P = require "verbs.lesson", require "verbs.progress"
      print(P.dir())
      lesson "devices"; skip(); skip()
      print(next(L.finished()), P.write("01-devices", "finished"))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "nil" ]
    [ "${lines[-1]}" = "nil	nil" ]
}

@test "lesson() in a lesson says where it stands, then lists; progress() kept after the lesson stopped says none runs; a chunk with a syntax error is shown and counts as failed; --lesson with two names is refused (exit 2)" {
    run lua_run '
      local L = require "verbs.lesson"
      lesson "devices"
      local kept = progress
      lesson(false)
      kept()
      lesson "devices"
      print("--- lesson()")
      lesson()
      print("--- run_code", L.run_code("a = 1\nb = = 2\nreturn a + 41", false))'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *$'\nLesson stopped; its objects are still there.\nNo lesson is running.\nFinished: 0 of 3 lessons\n'* ]]
    # lesson() in a lesson: where it stands, then the list
    [[ $output == *$'\n--- lesson()\ndevices: step 1/2 -- Set x\nFinished: 0 of 3 lessons\nLessons (start one'* ]]
    has_line "stdin:1: unexpected symbol near '='"
    has_line "42"
    [ "${lines[-1]}" = "--- run_code	false" ]
    run lua_run 'os.exit(require("verbs.lesson").main{ "devices", "broken" })'
    [ "$status" -eq 2 ]
    [ "$output" = "verbsh --lesson: one lesson at a time (or --auto to run several)" ]
}

@test "kit: rc_connect refuses a peer that is neither a QP nor an integer qp_num, opts that are not a table, and a qp that is not a QP, each naming what it got (a QP of tests/fakeverbs)" {
    fakeverbs_build "$BATS_TEST_TMPDIR"
    run fakeverbs_sh "$BATS_TEST_TMPDIR/fakeverbs.so" '
      local K = require "verbs.lesson_kit"
      local ctx = verbs.open("fake0")
      local pd, cq = ctx:alloc_pd(), ctx:create_cq(4)
      local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,
        cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
      for _, a in ipairs { { qp, "qp_b" }, { qp, 17.5 }, { qp, 17, 0 }, { qp, 17, "rnr_retry=0" }, { cq, 17 } } do
        print(select(2, pcall(K.rc_connect, a[1], a[2], a[3])))
      end
      qp:destroy() cq:destroy() pd:dealloc() ctx:close()'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = 'rc_connect(qp, peer [, opts]): peer must be the QP at the other end (qp_b) or its qp_num, not "qp_b"' ]
    [ "${lines[1]}" = 'rc_connect(qp, peer [, opts]): peer must be the QP at the other end (qp_b) or its qp_num, not 17.5' ]
    [ "${lines[2]}" = 'rc_connect(qp, peer [, opts]): opts must be a table of attributes ({ rnr_retry = 0 }), not 0' ]
    [ "${lines[3]}" = 'rc_connect(qp, peer [, opts]): opts must be a table of attributes ({ rnr_retry = 0 }), not "rnr_retry=0"' ]
    [ "${lines[4]}" = 'rc_connect(qp, peer [, opts]): qp must be the QP to connect (qp_a), not cq cqe 4' ]
}

@test "kit: step_wcs on a CQ whose poll fails passes the poll's error on as it is, with the one location of the poll (a CQ of tests/fakeverbs); on a live empty CQ it gives no completions" {
    fakeverbs_build "$BATS_TEST_TMPDIR"
    run fakeverbs_sh "$BATS_TEST_TMPDIR/fakeverbs.so" '
      local K = require "verbs.lesson_kit"
      local ctx = verbs.open("fake0")
      local cq = ctx:create_cq(4)
      print(#K.step_wcs({}, cq, 1, 10))
      cq:destroy()
      print(select(2, pcall(K.step_wcs, {}, cq, 1)))
      ctx:close()'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = 0 ]
    [[ ${lines[1]} =~ ^\[verbsh\]/lua/lesson_kit\.lua:[0-9]+:\ cq\ is\ destroyed$ ]]
    [ "${#lines[@]}" -eq 2 ]
}

@test "kit: remote_partner takes VAR as HOST:PORT (refusing anything else), else the seat's partner at RXE_PEER_ADDR on the lab's port, else nothing; installed() is false beside a checkout's scripts/rxe-vm only" {
    run env PAIR_PEER=198.51.100.7:18515 RXE_PEER_ADDR=10.78.0.2 "$VERBSH" -e '
      local K = require "verbs.lesson_kit"
      print(K.remote_partner("PAIR_PEER", 7471))'
    [ "$output" = "198.51.100.7	18515	198.51.100.7:18515 (PAIR_PEER)	198.51.100.7:18515" ]
    run env PAIR_PEER=198.51.100.7 "$VERBSH" -e 'print(pcall(require("verbs.lesson_kit").remote_partner, "PAIR_PEER", 7471))'
    [ "$output" = "false	PAIR_PEER must be HOST:PORT, got 198.51.100.7" ]
    run env PAIR_PEER= RXE_PEER_ADDR=10.78.0.2 "$VERBSH" -e 'print(require("verbs.lesson_kit").remote_partner("PAIR_PEER", 7471))'
    [ "$output" = "10.78.0.2	7471	seat 2 at 10.78.0.2:7471 (RXE_PEER_ADDR)	seat 2" ]
    run env -u PAIR_PEER RXE_PEER_ADDR=192.0.2.9 "$VERBSH" -e 'print(require("verbs.lesson_kit").remote_partner("PAIR_PEER", 7472))'
    [ "$output" = "192.0.2.9	7472	the partner at 192.0.2.9 at 192.0.2.9:7472 (RXE_PEER_ADDR)	the partner at 192.0.2.9" ]
    run env -u PAIR_PEER RXE_PEER_ADDR= "$VERBSH" -e 'print(select("#", require("verbs.lesson_kit").remote_partner("PAIR_PEER", 7471)))'
    [ "$output" = "0" ]
    run env VERBSH_LESSONS="$FAKE" "$VERBSH" -e 'print(require("verbs.lesson_kit").installed())'
    [ "$output" = "true" ]
    run env VERBSH_LESSONS="$ROOT/lessons" "$VERBSH" -e 'print(require("verbs.lesson_kit").installed())'
    [ "$output" = "false" ]
}

@test "kit: partner_wait returns the captures as soon as they appear, even in the last output of a partner that exited; a partner that exited without them gives nil and its output at once" {
    run "$VERBSH" -e '
      local K, socket = require "verbs.lesson_kit", require "socket"
      local reads = 0
      local late = { alive = function() return false end,
                     output = function() reads = reads + 1 return reads == 1 and "" or "qp_num 4660 psn 23\n" end }
      print(K.partner_wait(late, "qp_num (%d+) psn (%d+)", 5))
      local f = os.tmpname()
      local w = io.open(f, "w") w:write("print(\"no device here\", ...)\n") w:close()
      local p = K.spawn(f, { "seat 3" })   -- a partner that fails at once
      local t0 = socket.gettime()
      local caps, out = K.partner_wait(p, "ready (%d+)", 5)
      print(caps, out == "no device here\tseat 3\n", socket.gettime() - t0 < 3)
      os.remove(f)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "4660	23" ]
    [ "${lines[1]}" = "nil	true	true" ]
}

@test "kit: repr writes a list of two or more over 100 characters one item a line; 100 characters, or one long item, stay on one line" {
    run "$VERBSH" -e '
      local K = require "verbs.lesson_kit"
      local function s(n) return ("x"):rep(n) end
      print(#K.repr { s(46), s(46) })
      print(K.repr { s(46), s(47) })
      print(K.repr { s(120) } == ("{%q}"):format(s(120)))
      print(K.repr { a = s(120), b = 1 } == ("{a=%q, b=1}"):format(s(120)))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "100" ]
    [ "${lines[1]}" = "{" ]
    [ "${lines[2]}" = "  \"$(printf 'x%.0s' $(seq 46))\"," ]
    [ "${lines[3]}" = "  \"$(printf 'x%.0s' $(seq 47))\"" ]
    [ "${lines[4]}" = "}" ]
    [ "${lines[5]}" = "true" ]
    [ "${lines[6]}" = "true" ]
}

# A lesson's setup and checks without a device: the kit's device
# helpers stubbed, os.getenv answering from ENV (so that one process sees the
# partner variable set, then unset), K.spawn logging the partner it would
# start (its wait_for giving the captures in WAIT). LUA runs after the stubs, with L the lesson and step(title) its step
# (the first whose title starts so).
stubbed_lesson() {   # stubbed_lesson FILE LUA
    run "$VERBSH" -e '
      local K = require "verbs.lesson_kit"
      ENV = { ROOT = os.getenv("ROOT") }
      os.getenv = function(k) return ENV[k] end
      K.open, K.base = function() end, function() end
      K.rc_qp = function() return "a QP" end
      K.gid = "::ffff:192.0.2.1"
      K.describe = function(names) return "described " .. table.concat(names, " ") end
      K.spawn = function(script, args)
        print("spawn", script:match("[^/]+/[^/]+$"), table.concat(args, " "))
        return { wait_for = function(_, pattern) print("wait_for", pattern) return table.unpack(WAIT) end }
      end
      -- a userdata the kit takes for a verbs object of KIND, with FIELDS
      function fake(kind, fields) return debug.setmetatable(io.tmpfile(), { __name = "verbs." .. kind, __index = fields }) end
      L = dofile(os.getenv("ROOT") .. "/lessons/'"$1"'")
      function step(t) for _, s in ipairs(L.steps) do if s.title:sub(1, #t) == t then return s end end end
      '"$2"
}

@test "lesson 13 with PAIR_PEER: the partner is the variable's HOST:PORT, its command printed, and meeting waits for it (kind partner); set up again without it, the lesson starts its own and a missing conn is the learner's" {
    stubbed_lesson 13-pair-lab.lua '
      ENV.PAIR_PEER = "192.0.2.9:18611"
      gid_index = 3
      print("setup", L.setup())
      print("partner", partner_host, math.type(partner_port), partner_port)
      print("meet", step("Meet your partner").check())
      ENV.PAIR_PEER, WAIT = nil, { "127.0.0.1", "18622" }
      L.setup()
      print("partner", partner_host, math.type(partner_port), partner_port)
      print("meet", step("Meet your partner").check())
      conn = setmetatable({ sock = 5, peer = "127.0.0.1:18622" }, { __name = "verbs.oob.conn" })
      print("meet", step("Meet your partner").check())
      ENV.RXE_PEER_ADDR = "10.78.0.4"
      L.setup()
      conn = nil
      print("meet", step("Meet your partner").check())'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "Your partner: 192.0.2.9:18611 (PAIR_PEER). They run:" ]
    [ "${lines[1]}" = "    verbsh examples/pair_partner.lua --listen 192.0.2.9 --port 18611" ]
    [ "${lines[2]}" = "(or make run ... ROLE=partner in their seat)" ]
    [ "${lines[3]}" = "setup	described ctx pd cq mr_a mr_b qp gid_index gid partner_host partner_port" ]
    [ "${lines[4]}" = "partner	192.0.2.9	integer	18611" ]
    [ "${lines[5]}" = "meet	false	waiting for your partner (192.0.2.9:18611) to start examples/pair_partner.lua; connect again when they have	partner" ]
    # no partner variable: the lesson's own partner on this device (gid_index 3), a local check
    [ "${lines[6]}" = "spawn	examples/pair_partner.lua	--port 0 -g 3" ]
    [ "${lines[7]}" = "wait_for	listening on ([%d.]+):(%d+)" ]
    [ "${lines[8]}" = "partner	127.0.0.1	integer	18622" ]
    [ "${lines[9]}" = "meet	false	conn should be an open verbs.oob connection" ]
    [ "${lines[10]}" = "meet	true	connected to 127.0.0.1:18622" ]
    # a seat's partner: named by its seat, on the lab's port
    [ "${lines[11]}" = "Your partner: seat 4 at 10.78.0.4:18600 (RXE_PEER_ADDR). They run:" ]
    [ "${lines[12]}" = "    verbsh examples/pair_partner.lua --listen 10.78.0.4 --port 18600" ]
    [ "${lines[14]}" = "meet	false	waiting for your partner (seat 4) to start examples/pair_partner.lua; connect again when they have	partner" ]
    [ "${#lines[@]}" -eq 15 ]
}

@test "lesson 13's RDMA WRITE step: the WRITE must have completed with SUCCESS; the partner's seen text must be mr_a's first bytes, not empty, not one byte off; a reply without seen is named" {
    stubbed_lesson 13-pair-lab.lua '
      mr_a = { read = function(_, off, n) return ("written by verbsh\0\0\0"):sub(off + 1, off + n) end }
      local s = step("RDMA WRITE into their memory")
      reply = { seen = "written by verbsh" }
      wcs = {}
      print(s.check({}))   -- no completion: the reply is not enough
      wcs = { { wr_id = 2, status = "RETRY_EXC_ERR", opcode = "RDMA_WRITE" } }
      print(s.check({}))
      wcs = { { wr_id = 2, status = "SUCCESS", opcode = "RDMA_WRITE" } }
      for _, r in ipairs { { seen = "written by verbsh" }, { seen = "written by verbsX" }, { seen = "" }, { written = 17 }, "written by verbsh" } do
        reply = r
        print(s.check({}))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = 'false	no completion on cq for your RDMA WRITE: wait for it (wcs = cq:wait(1)) before you tell the partner' ]
    [ "${lines[1]}" = 'false	your RDMA WRITE (wr_id 2) completed with RETRY_EXC_ERR, so the partner'"'"'s memory may not hold it; verbs.explain(wc) says why' ]
    [ "${lines[2]}" = 'true	the partner'"'"'s memory holds "written by verbsh"' ]
    [ "${lines[3]}" = 'false	the partner saw "written by verbsX"; mr_a starts with "written by verbsh"' ]
    [ "${lines[4]}" = 'false	the partner saw ""; mr_a starts with ""' ]
    [ "${lines[5]}" = 'false	reply should be the partner'"'"'s answer, { seen = ... }' ]
    [ "${lines[6]}" = "${lines[5]}" ]
    [ "${#lines[@]}" -eq 7 ]
}

@test "lesson 14 with CM_PEER: the partner's address and port from the variable, its command printed; a REJECTED connect (status 8: no listener) waits for the partner, another status or the lesson's own partner is explained" {
    stubbed_lesson 14-rdma-cm.lua '
      verbs.explain = function(v) return "explained " .. v.event .. " status " .. v.status end
      qp = fake("qp", { state = "RTS" })
      local connect = step("Connect")
      ENV.CM_PEER = "192.0.2.7:7479"
      print("setup", L.setup())
      print("partner", partner_addr, math.type(partner_port), partner_port)
      ev = fake("cm_event", { event = "REJECTED", status = 8 })
      print(connect.check())
      ev = fake("cm_event", { event = "REJECTED", status = 28 })
      print(connect.check())
      ENV.CM_PEER, WAIT = nil, { "18633" }
      L.setup()
      print("partner", partner_addr, math.type(partner_port), partner_port)
      ev = fake("cm_event", { event = "REJECTED", status = 8 })
      print(connect.check())
      ev = fake("cm_event", { event = "ESTABLISHED", status = 0, param = { conn = { private_data = "hi there\0\0\0" } } })
      print(connect.check())'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "Your partner: 192.0.2.7:7479 (CM_PEER). They run:" ]
    [ "${lines[1]}" = "    verbsh examples/cm_partner.lua --port 7479" ]
    [ "${lines[2]}" = "(or make run ... ROLE=partner in their seat)" ]
    [ "${lines[3]}" = "setup	described partner_addr partner_port" ]
    [ "${lines[4]}" = "partner	192.0.2.7	integer	7479" ]
    [ "${lines[5]}" = 'false	waiting for your partner (192.0.2.7:7479) to start cm_partner (rejected: no one listens at 192.0.2.7:7479 yet); when they have, restart("lesson") connects again	partner' ]
    [ "${lines[6]}" = "false	ev is REJECTED, not ESTABLISHED yet:" ]
    [ "${lines[7]}" = "explained REJECTED status 28	nil" ]   # no kind: not a wait for the partner
    # the lesson's own partner, at this device's address: a rejection is the learner's to read
    [ "${lines[8]}" = "spawn	examples/cm_partner.lua	--port 0" ]
    [ "${lines[9]}" = "wait_for	listening on rdma_cm port (%d+)" ]
    [ "${lines[10]}" = "partner	192.0.2.1	integer	18633" ]
    [ "${lines[11]}" = "false	ev is REJECTED, not ESTABLISHED yet:" ]
    [ "${lines[12]}" = "explained REJECTED status 8	nil" ]
    [ "${lines[13]}" = 'true	connected; the partner says "hi there"; qp went INIT -> RTR -> RTS without a modify' ]
    [ "${#lines[@]}" -eq 14 ]
}

@test "lesson 21 with RDMA_SERVER: server_addr and server_port from HOST:PORT (an IPv6 host's colons kept), anything else refused naming it; empty, the lesson starts its own server at this device's address" {
    stubbed_lesson 21-rdma-verbs.lua '
      for _, v in ipairs { "192.0.2.5:20079", "fe80::5:20080", "192.0.2.5", "192.0.2.5:port", "192.0.2.5:", "" } do
        ENV.RDMA_SERVER, WAIT = v, { "18644" }
        server_addr, server_port = nil, nil
        local ok, e = pcall(L.setup)
        print(ok and "server" or "error", ok and server_addr or e, server_port)
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "server	192.0.2.5	20079" ]
    [ "${lines[1]}" = "server	fe80::5	20080" ]
    [ "${lines[2]}" = "error	RDMA_SERVER must be HOST:PORT, got 192.0.2.5	nil" ]
    [ "${lines[3]}" = "error	RDMA_SERVER must be HOST:PORT, got 192.0.2.5:port	nil" ]
    [ "${lines[4]}" = "error	RDMA_SERVER must be HOST:PORT, got 192.0.2.5:	nil" ]
    [ "${lines[5]}" = "spawn	examples/rdma_server.lua	-p 0 -n 8" ]
    [ "${lines[6]}" = "wait_for	listening on [%d.]+:(%d+)" ]
    [ "${lines[7]}" = "server	192.0.2.1	18644" ]
    [ "${#lines[@]}" -eq 8 ]
}

# Lesson 16's exchange_round("events") on a CQ that has nothing at the first
# poll (rxe's own completions are always there already, so the device never
# sleeps): arm, poll again, then sleep on the channel, read and ack the event.
@test "lesson 16's events round: an empty CQ is armed and polled again, then wait_fds on the channel (5 s), get_cq_event, ack_events(1), poll; a completion found after arming ends the wait; a failed one, an event of another CQ or none are errors" {
    stubbed_lesson 16-events.lua '
      local log, polls = {}, {}
      local function wc(st) return setmetatable({ status = st }, { __tostring = function() return "wc{status = " .. st .. "}" end }) end
      CH = { name = "ch" }
      -- (a poll past the scripted answers raises: a wrong loop must not spin forever)
      CQ = { poll = function(_, n) log[#log + 1] = "poll " .. n return table.remove(polls, 1) or error("polled past the script", 0) end,
             req_notify = function() log[#log + 1] = "arm" end,
             ack_events = function(_, n) log[#log + 1] = "ack " .. n end }
      function CH.get_cq_event() log[#log + 1] = "get_cq_event" return EVENT_CQ end
      verbs.wait_fds = function(list, ms) log[#log + 1] = ("wait_fds %s %d"):format(list[1].name, ms) return READY end
      local function qp(name)
        return { post_recv = function(_, wr) log[#log + 1] = name .. " post_recv " .. wr.wr_id end,
                 post_send = function(_, wr) log[#log + 1] = name .. " post_send " .. wr.wr_id end }
      end
      local qps = { qp("qp_a"), qp("qp_b") }
      K.rc_qp = function(cq) assert(cq == CQ) return table.remove(qps, 1) end
      ctx = { alloc_pd = function() return { reg_mr = function() return {} end } end,
              create_comp_channel = function() return CH end,
              create_cq = function(_, n, o) assert(o.channel == CH) return CQ end }
      rc_connect = function() end
      L.setup()
      local function round(answers, event_cq, ready)
        log, polls, EVENT_CQ, READY = {}, answers, event_cq, ready
        local ok, r = pcall(exchange_round, "events", 1)
        print(ok and ("%s n=%d"):format(r.mode, r.n) or r:gsub("^.-16%-events%.lua:%d+: ", ""))
        print(table.concat(log, ", "))
      end
      -- the SEND: nothing, nothing after arming, then the event; the RECV: found after arming
      round({ {}, {}, { wc("SUCCESS") }, {}, { wc("SUCCESS") } }, CQ, { CH })
      round({ {}, { wc("WR_FLUSH_ERR") } }, CQ, { CH })
      round({ {}, {} }, { "another CQ" }, { CH })
      round({ {}, {} }, CQ, {})'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "events n=1" ]
    [ "${lines[1]}" = "qp_b post_recv 1, qp_a post_send 1, poll 1, arm, poll 1, wait_fds ch 5000, get_cq_event, ack 1, poll 1, poll 1, arm, poll 1" ]
    [ "${lines[2]}" = "wc{status = WR_FLUSH_ERR}" ]
    [ "${lines[3]}" = "qp_b post_recv 1, qp_a post_send 1, poll 1, arm, poll 1" ]
    [ "${lines[4]}" = "assertion failed!" ]
    [ "${lines[5]}" = "qp_b post_recv 1, qp_a post_send 1, poll 1, arm, poll 1, wait_fds ch 5000, get_cq_event" ]
    [ "${lines[6]}" = "events: no event within 5 s" ]
    [ "${lines[7]}" = "qp_b post_recv 1, qp_a post_send 1, poll 1, arm, poll 1, wait_fds ch 5000" ]
    [ "${#lines[@]}" -eq 8 ]
}

# Lesson 22's setup off the device: verbs.devices and the sysfs link layer
# answer as rxe0, siw0 and rxe1 would, io.popen as `rdma link` and `ip addr`
# would (each command logged).
@test "lesson 22's setup: the first Ethernet device and the iWARP one; siw's address from SIW_ADDR when SIW_DEV names it, else from its netdev (rdma link, then ip addr); without one, or without RoCE's, requires() names the device; without root the wire steps; without a pair, what it found" {
    stubbed_lesson 22-iwarp.lua '
      local open = io.open
      LINK = { rxe0 = "Ethernet\n", siw0 = "Ethernet\n", rxe1 = "Ethernet\n" }
      io.open = function(path, ...)
        local dev = path:match("^/sys/class/infiniband/([^/]+)/ports/1/link_layer$")
        if not dev then return open(path, ...) end
        return LINK[dev] and { read = function() return (LINK[dev]:gsub("\n$", "")) end, close = function() end }
      end
      OUT = {}
      io.popen = function(cmd)
        print("popen", cmd)
        local out = OUT[cmd]
        return out and { read = function() return out end, close = function() end }
      end
      verbs.devices = function()
        return { { name = "rxe0", transport_type = "InfiniBand" }, { name = "siw0", transport_type = "IWARP" },
                 { name = "rxe1", transport_type = "InfiniBand" } }
      end
      verbs.open = function(name) return { name = name, close = function() end } end
      K.roce_gid = function(ctx) return GID_INDEX, GID and GID[ctx.name] end
      verbs.sysinfo = function() return { euid = EUID } end
      local function try(what)
        for _, n in ipairs { "roce", "iwarp", "roce_addr", "iwarp_addr" } do rawset(_G, n, nil) end
        local said = L.setup()
        print(what, roce, iwarp, roce_addr, iwarp_addr, said and said:match("^described [%w_ ]+") or "nothing", L.requires())
      end
      local LINK_SHOW, ADDR_SHOW = "rdma link show '"'"'siw0/1'"'"' 2>/dev/null", "ip -4 -o addr show dev '"'"'veth2'"'"' 2>/dev/null"
      GID_INDEX, GID, EUID = 1, { rxe0 = "::ffff:192.0.2.1", rxe1 = "::ffff:192.0.2.2" }, 0
      OUT[LINK_SHOW] = "link siw0/1 state ACTIVE physical_state LINK_UP netdev veth2 \n"
      OUT[ADDR_SHOW] = "7: veth2    inet 198.51.100.1/24 brd 198.51.100.255 scope global veth2\\       valid_lft forever\n"
      try("netdev")
      ENV.SIW_DEV, ENV.SIW_ADDR = "siw0", "198.51.100.9"
      try("SIW_ADDR")
      ENV.SIW_DEV = "siw1"
      try("other SIW_DEV")
      ENV.SIW_DEV = nil
      OUT[LINK_SHOW] = "link siw0/1 state ACTIVE physical_state LINK_UP\n"
      try("no netdev")
      OUT[LINK_SHOW] = nil
      try("no rdma")
      OUT[LINK_SHOW] = "link siw0/1 state ACTIVE physical_state LINK_UP netdev veth2 \n"
      OUT[ADDR_SHOW] = "7: veth2    inet6 fe80::1/64 scope link\n"
      try("no IPv4")
      ENV.SIW_DEV = "siw0"
      GID_INDEX = nil
      try("no RoCE v2")
      GID_INDEX, EUID = 1, 1000
      try("user")
      LINK.rxe0 = "InfiniBand\n"
      try("rxe0 IB")
      LINK.rxe1 = nil
      try("no RoCE")'
    echo "$output"
    [ "$status" -eq 0 ]
    local ok="described roce roce_addr iwarp iwarp_addr"
    [ "${lines[0]}" = "popen	rdma link show 'siw0/1' 2>/dev/null" ]
    [ "${lines[1]}" = "popen	ip -4 -o addr show dev 'veth2' 2>/dev/null" ]
    [ "${lines[2]}" = "netdev	rxe0	siw0	192.0.2.1	198.51.100.1	$ok" ]
    # SIW_ADDR without asking rdma or ip; not when SIW_DEV names another device
    [ "${lines[3]}" = "SIW_ADDR	rxe0	siw0	192.0.2.1	198.51.100.9	$ok" ]
    [ "${lines[4]}" = "${lines[0]}" ]
    [ "${lines[5]}" = "${lines[1]}" ]
    [ "${lines[6]}" = "other SIW_DEV	rxe0	siw0	192.0.2.1	198.51.100.1	$ok" ]
    local none="no IPv4 address on siw0's netdev: rdma_cm needs one"
    [ "${lines[7]}" = "${lines[0]}" ]
    [ "${lines[8]}" = "no netdev	rxe0	siw0	192.0.2.1	nil	$ok	$none" ]
    [ "${lines[9]}" = "${lines[0]}" ]
    [ "${lines[10]}" = "no rdma	rxe0	siw0	192.0.2.1	nil	$ok	$none" ]
    [ "${lines[11]}" = "${lines[0]}" ]
    [ "${lines[12]}" = "${lines[1]}" ]
    [ "${lines[13]}" = "no IPv4	rxe0	siw0	192.0.2.1	nil	$ok	$none" ]
    [ "${lines[14]}" = "no RoCE v2	rxe0	siw0	nil	198.51.100.9	$ok	no IPv4 address on rxe0's netdev: rdma_cm needs one" ]
    [ "${lines[15]}" = "user	rxe0	siw0	192.0.2.1	198.51.100.9	$ok	its wire steps capture packets, which needs root (CAP_NET_RAW)" ]
    [ "${lines[16]}" = "rxe0 IB	rxe1	siw0	192.0.2.2	198.51.100.9	$ok	its wire steps capture packets, which needs root (CAP_NET_RAW)" ]
    [ "${lines[17]}" = "no RoCE	nil	siw0	nil	nil	nothing	it needs a RoCE device and an iWARP device side by side (found: RoCE none, iWARP siw0): start it inside scripts/rxe-vm --siw (make run SIW=1)" ]
    [ "${#lines[@]}" -eq 18 ]
}

# Lesson 22's rtr_qp(dev) on a stand-in context: the attributes of each
# qp:modify, which C's ibv_rc_pingpong would pass for an RC QP connected to
# itself (its own QP number; the RoCE v2 GID's index on RoCE, 0 on iWARP).
@test "lesson 22's rtr_qp: create_qp, INIT and RTR with the attributes C passes for an RC QP looped to itself, the RoCE v2 GID index on rxe and 0 on siw" {
    stubbed_lesson 22-iwarp.lua '
      local open = io.open
      io.open = function(path, ...)
        if path:match("^/sys/class/infiniband/[^/]+/ports/1/link_layer$") then
          return { read = function() return "Ethernet" end, close = function() end }
        end
        return open(path, ...)
      end
      verbs.devices = function()
        return { { name = "rxe0", transport_type = "InfiniBand" }, { name = "siw0", transport_type = "IWARP" } }
      end
      ENV.SIW_DEV, ENV.SIW_ADDR = "siw0", "198.51.100.9"
      K.roce_gid = function(ctx) return 3, "::ffff:192.0.2.1" end
      verbs.sysinfo = function() return { euid = 0 } end
      verbs.open = function(name) return { name = name, close = function() end } end
      L.setup()
      local function dump(v)
        if type(v) ~= "table" then return type(v) == "string" and ("%q"):format(v) or tostring(v) end
        local keys, out = {}, {}
        for k in pairs(v) do keys[#keys + 1] = k end
        table.sort(keys)
        for _, k in ipairs(keys) do out[#out + 1] = k .. "=" .. dump(v[k]) end
        return "{" .. table.concat(out, ",") .. "}"
      end
      local n = 0x1a2b
      verbs.open = function(name)
        return { name = name, close = function() end,
          query_gid = function(_, port, idx) return ("gid(%s,%d,%d)"):format(name, port, idx) end,
          create_cq = function(_, cqe) return { cq_of = name, cqe = cqe, destroy = function() end } end,
          alloc_pd = function() return { dealloc = function() end, create_qp = function(_, a)
            a.send_cq, a.recv_cq = a.send_cq and a.send_cq.cq_of .. "/" .. a.send_cq.cqe, a.recv_cq and a.recv_cq.cq_of .. "/" .. a.recv_cq.cqe
            print("create_qp", dump(a))
            n = n + 1
            return { qp_num = n, destroy = function() end, modify = function(_, m) print("modify", dump(m)) end }
          end } end }
      end
      print(rtr_qp(roce).qp_num, rtr_qp(iwarp).qp_num)'
    echo "$output"
    [ "$status" -eq 0 ]
    local create="{cap={max_recv_sge=1,max_recv_wr=4,max_send_sge=1,max_send_wr=4},qp_type=\"RC\",recv_cq=\"DEV/4\",send_cq=\"DEV/4\"}"
    local init="{pkey_index=0,port_num=1,qp_access_flags=0,qp_state=\"INIT\"}"
    [ "${lines[0]}" = "create_qp	${create//DEV/rxe0}" ]
    [ "${lines[1]}" = "modify	$init" ]
    [ "${lines[2]}" = "modify	{ah_attr={grh={dgid=\"gid(rxe0,1,3)\",hop_limit=1,sgid_index=3},is_global=1,port_num=1},dest_qp_num=$((0x1a2c)),max_dest_rd_atomic=1,min_rnr_timer=12,path_mtu=\"1024\",qp_state=\"RTR\",rq_psn=0}" ]
    [ "${lines[3]}" = "create_qp	${create//DEV/siw0}" ]
    [ "${lines[4]}" = "modify	$init" ]
    [ "${lines[5]}" = "modify	{ah_attr={grh={dgid=\"gid(siw0,1,0)\",hop_limit=1,sgid_index=0},is_global=1,port_num=1},dest_qp_num=$((0x1a2d)),max_dest_rd_atomic=1,min_rnr_timer=12,path_mtu=\"1024\",qp_state=\"RTR\",rq_psn=0}" ]
    [ "${lines[6]}" = "$((0x1a2c))	$((0x1a2d))" ]
    [ "${#lines[@]}" -eq 7 ]
}

# Lesson 22's wire steps judged on tests/wire/iwarp.pcap (a SEND, a 3000-byte
# WRITE in three FPDUs, a READ, a SEND), its WRs numbered as the lesson's (5, 6, 7).
@test "lesson 22's ladder steps on a real iWARP capture: every WR's frame found (the READ's request and its data apart), a capture missing one named; the WRITE's TCP ACK is frame 15, and the WRITE itself, another frame, or RoCE's ACKNOWLEDGEs miscounted are each refused" {
    stubbed_lesson 22-iwarp.lua '
      local list = verbs.wire.read_pcap(os.getenv("ROOT") .. "/tests/wire/iwarp.pcap")
      local POSTS = { { qp = "qp1", wr_id = 5, opcode = "SEND", length = 100 },
                      { qp = "qp1", wr_id = 6, opcode = "RDMA_WRITE", length = 3000 },
                      { qp = "qp1", wr_id = 7, opcode = "RDMA_READ", length = 2000 },
                      { qp = "qp1", wr_id = 8, opcode = "SEND", length = 5 } }
      iwarp = "siw0"
      local function capture(info, upto, posts)
        local packets = table.move(list, 1, upto, 1, {})
        return fake("capture", { info = function() return info end, packets = function() return packets end,
                                 posts = function() return posts end })
      end
      local ladder, acks = step("On the wire: iWARP"), step("Two ladders")
      for _, c in ipairs {
        { { device = "siw0", stopped = true }, #list, POSTS },
        { { device = "siw0", stopped = true }, #list, { POSTS[1], POSTS[2] } },       -- the READ not posted
        { { device = "siw0", stopped = true }, 17, POSTS },                           -- stopped before its data
        { { device = "siw0", stopped = true }, 7, POSTS },                            -- nothing but the handshake
        { { device = "siw0", stopped = false }, #list, POSTS },
        { { device = "rxe0", stopped = true }, #list, POSTS },
        { { netdev = "lo", stopped = true }, #list, POSTS } } do
        cap = capture(table.unpack(c))
        print("ladder", ladder.check())
      end
      cap = "a capture"
      print("ladder", ladder.check())
      cap = capture({ device = "siw0", stopped = true }, #list, POSTS)
      for _, a in ipairs { { 15, 2 }, { 14, 2 }, { 10, 2 }, { 9, 2 }, { 16, 2 }, { 15, 3 }, { 15, 1 }, { 15, "2" } } do
        write_ack, roce_acks = a[1], a[2]
        print("acks", acks.check())
      end
      cap = capture({ device = "siw0", stopped = true }, 14, POSTS)
      print("acks", acks.check())
      cap = nil
      print("acks", acks.check())'
    echo "$output"
    [ "$status" -eq 0 ]
    local start="start the capture first, post on W.qp, wait, then cap:stop()"
    [ "${lines[0]}" = "ladder	true	Send in frame 8, Write in frame 10, Read Request in frame 16, its Read Response in frame 18" ]
    [ "${lines[1]}" = "ladder	false	no frame of wr_id 7's RDMA_READ in cap: $start" ]
    [ "${lines[2]}" = "ladder	false	no frame of wr_id 7's RDMA_READ data in cap: $start" ]
    [ "${lines[3]}" = "ladder	false	no frame of wr_id 5's SEND in cap: $start" ]
    [ "${lines[4]}" = "ladder	false	cap still runs: cap:stop() once the READ has completed" ]
    [ "${lines[5]}" = "ladder	false	cap captures rxe0, not the iWARP device siw0: cap = verbs.capture{device = iwarp}" ]
    [ "${lines[6]}" = "ladder	false	cap captures lo, not the iWARP device siw0: cap = verbs.capture{device = iwarp}" ]
    [ "${lines[7]}" = "ladder	false	cap is not a capture: cap = verbs.capture{device = iwarp}" ]
    [ "${lines[8]}" = "acks	true	frame 15: TCP's ACK, a field of an ordinary segment, acknowledges the WRITE; RoCE's 2 ACKNOWLEDGEs are packets of the RDMA transport itself" ]
    # frame 14: the WRITE's last FPDU; 10 its first; 9 the SEND's ACK; 16 the READ's request
    [ "${lines[9]}" = "acks	false	frame 14 is the WRITE itself; what acknowledges it comes back from the other side" ]
    [ "${lines[10]}" = "acks	false	write_ack should be the frame whose note says \"TCP acknowledges wr_id 6's RDMA_WRITE\" (it is not 10)" ]
    [ "${lines[11]}" = "acks	false	write_ack should be the frame whose note says \"TCP acknowledges wr_id 6's RDMA_WRITE\" (it is not 9)" ]
    [ "${lines[12]}" = "acks	false	write_ack should be the frame whose note says \"TCP acknowledges wr_id 6's RDMA_WRITE\" (it is not 16)" ]
    [ "${lines[13]}" = "acks	false	roce_acks is 3: a READ's response is its acknowledgement, RoCE sends no ACKNOWLEDGE for it" ]
    [ "${lines[14]}" = "acks	false	roce_acks: count the ACKNOWLEDGE lines of the RoCE ladder" ]
    [ "${lines[15]}" = "${lines[14]}" ]
    [ "${lines[16]}" = "acks	false	cap holds no TCP ACK of the WRITE: capture again (the step before) and wait for it" ]
    [ "${lines[17]}" = "acks	false	cap is gone: do the step before again" ]
    [ "${#lines[@]}" -eq 18 ]
}

@test "lesson 22's UD step: a prediction first; RoCE's UD QP made, and siw's EOPNOTSUPP from ibv_create_qp in err_w, not another errno or verb, naming the iWARP device" {
    stubbed_lesson 22-iwarp.lua '
      iwarp = "siw0"
      local ud = step("Predict: a UD QP")
      local function err(verb, name) return { verb = verb, errname = name } end
      for _, c in ipairs {
        { "iWARP", true, err("ibv_create_qp", "EOPNOTSUPP") },
        { "RoCE", true, err("ibv_create_qp", "EOPNOTSUPP") },
        { "iwarp", true, err("ibv_create_qp", "EOPNOTSUPP") },
        { "iWARP", false, err("ibv_create_qp", "EOPNOTSUPP") },
        { "iWARP", true, err("ibv_create_qp", "EINVAL") },
        { "iWARP", true, err("ibv_create_cq", "EOPNOTSUPP") },
        { "iWARP", true, "a QP" } } do
        guess_ud, ok_r, err_w = table.unpack(c)
        err_r = ok_r and "a UD QP" or "ENOMEM"
        print(ud.check())
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "true	you predicted iWARP: right; RoCE made a UD QP, iWARP said EOPNOTSUPP at create: iWARP is RC only" ]
    [ "${lines[1]}" = "true	you predicted RoCE; it was iWARP; RoCE made a UD QP, iWARP said EOPNOTSUPP at create: iWARP is RC only" ]
    [ "${lines[2]}" = 'false	predict first: guess_ud = "RoCE", "iWARP", "both" or "neither" (which device refuses?)' ]
    [ "${lines[3]}" = "false	the UD QP on RoCE was not created: ENOMEM" ]
    local want="false	err_w should hold ibv_create_qp's EOPNOTSUPP on siw0"
    [ "${lines[4]}" = "$want" ]
    [ "${lines[5]}" = "$want" ]
    [ "${lines[6]}" = "$want" ]
    [ "${#lines[@]}" -eq 7 ]
}

# Lesson 19's wire step (added with a second RoCE device and root: here
# verbs.devices and verbs.sysinfo say so) judged on frames of
# tests/wire/scenarios.pcap: its SEND_ONLY to QP 17 made UC (BTH opcode 0x24).
@test "lesson 19's wire step: one UC SEND_ONLY to qp_y in the capture, qp_x's wr_id 6 SUCCESS and nothing at qp_y pass; two frames, none (RC's, another QP's), the SEND not SUCCESS, or a completion at qp_y are each named" {
    stubbed_lesson 19-uc.lua '
      verbs.devices = function() return { { name = "rxe0", transport_type = "InfiniBand" }, { name = "rxe1", transport_type = "InfiniBand" } } end
      verbs.sysinfo = function() return { euid = 0 } end
      L = dofile(os.getenv("ROOT") .. "/lessons/19-uc.lua")
      local l = verbs.wire.read_pcap(os.getenv("ROOT") .. "/tests/wire/scenarios.pcap")
      local rc = l[18].bytes
      local uc = rc:sub(1, 42) .. string.char(0x24) .. rc:sub(44)
      local junk = ("\0"):rep(60)
      local function capture(...) local p = {} for i, b in ipairs { ... } do p[i] = { bytes = b } end return fake("capture", { packets = function() return p end }) end
      local lost = step("A packet lost on the wire")
      local ok_wcs = { { wr_id = 6, status = "SUCCESS" } }
      for _, c in ipairs {
        { capture(l[17].bytes, uc, junk, l[19].bytes), 17, ok_wcs, {} },
        { capture(uc, uc), 17, ok_wcs, {} },
        { capture(rc, l[19].bytes), 17, ok_wcs, {} },
        { capture(uc), 18, ok_wcs, {} },
        { capture(uc), 17, { { wr_id = 6, status = "WR_FLUSH_ERR" } }, {} },
        { capture(uc), 17, { { wr_id = 5, status = "SUCCESS" } }, {} },
        { capture(uc), 17, nil, {} },
        { capture(uc), 17, ok_wcs, { { wr_id = 200, status = "SUCCESS" } } },
        { capture(uc), 17, ok_wcs, nil },
        { "a capture", 17, ok_wcs, {} } } do
        cap, qp_y, wcs, got = c[1], { qp_num = c[2] }, c[3], c[4]
        print(lost.check({}))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "true	the frame reached dev_b's veth and was dropped there; qp_x SUCCESS, qp_y nothing, no ACK" ]
    [ "${lines[1]}" = "false	the capture holds 2 UC SEND_ONLY frames to qp_y, not 1" ]
    [ "${lines[2]}" = "false	the capture holds 0 UC SEND_ONLY frames to qp_y, not 1" ]
    [ "${lines[3]}" = "${lines[2]}" ]
    local send="false	qp_x's SEND (wr_id 6) did not complete SUCCESS"
    [ "${lines[4]}" = "$send" ]
    [ "${lines[5]}" = "$send" ]
    [ "${lines[6]}" = "$send" ]
    [ "${lines[7]}" = "false	qp_y got a completion: was the rule added?" ]
    [ "${lines[8]}" = "${lines[7]}" ]
    [ "${lines[9]}" = "false	cap is not a capture: cap = verbs.capture{device = dev_b}" ]
    [ "${#lines[@]}" -eq 10 ]
}

# The checks below read the step's completions through K.step_wcs: stubbed
# to give WCS, completions written as tables.
@test "lessons 2 and 4 off the device: VmPin must grow by 16 MiB (16383 kB is short; before and pinned numbers), mr_b must follow REMOTE_WRITE's EINVAL, and \"ping\" must be at mr offset 32 beside the SEND on qp_a and the RECV on qp_b" {
    stubbed_lesson 02-pd-mr.lua '
      K.vm_pin_kb, K.memlock = function() return 1008 end, function() return 65536 end
      local pin = step("Pinned memory and memlock")
      for _, c in ipairs { { nil, 20000 }, { "1000", 20000 }, { 1000, "20000" }, { 1000, 17383 }, { 1000, 17384 }, { 2000, 18384 } } do
        before, pinned = c[1], c[2]
        print(pin.check({}))
      end
      big = fake("mr", { read = function() return "x" end })
      print(pin.check({}))'
    echo "$output"
    [ "$status" -eq 0 ]
    local keep="false	keep VmPin before and after the registration in \`before\` and \`pinned\`"
    [ "${lines[0]}" = "$keep" ]
    [ "${lines[1]}" = "$keep" ]
    [ "${lines[2]}" = "$keep" ]
    [ "${lines[3]}" = "false	VmPin grew by only 16383 kB" ]
    [ "${lines[4]}" = "true	VmPin 1000 kB -> 17384 kB with 16 MiB registered, 1008 kB after dereg; memlock=65536" ]
    [ "${lines[5]}" = "true	VmPin 2000 kB -> 18384 kB with 16 MiB registered, 1008 kB after dereg; memlock=65536" ]
    [ "${lines[6]}" = "false	big is still registered: big:dereg()" ]
    [ "${#lines[@]}" -eq 7 ]
    # the access-flags step: REMOTE_WRITE alone refused with EINVAL, then mr_b registered
    stubbed_lesson 02-pd-mr.lua '
      local flags = step("Access flags have rules")
      local einval = { verb = "ibv_reg_mr", errname = "EINVAL", errno = 22 }
      for _, c in ipairs { { einval, fake("mr", { rkey = 0x1234 }) }, { einval, nil }, { einval, "an MR" },
                           { { verb = "ibv_reg_mr", errname = "EPERM", errno = 1 }, fake("mr", { rkey = 0x1234 }) } } do
        err, mr_b = c[1], c[2]
        print(flags.check())
      end'
    echo "$output"
    [ "${lines[0]}" = "true	REMOTE_WRITE alone: EINVAL (errno 22); mr_b rkey=0x1234" ]
    [ "${lines[1]}" = "false	mr_b is not a memory region yet" ]
    [ "${lines[2]}" = "${lines[1]}" ]
    [ "${lines[3]}" = "false	err does not hold the EINVAL of ibv_reg_mr with REMOTE_WRITE alone" ]
    [ "${#lines[@]}" -eq 4 ]
    stubbed_lesson 04-rc-states.lua '
      K.step_wcs = function() return WCS end
      qp_a, qp_b = fake("qp", { qp_num = 0x11 }), fake("qp", { qp_num = 0x12 })
      local mem = ("\0"):rep(64)
      mr = fake("mr", { read = function(_, off, n) return mem:sub(off + 1, off + n) end })
      local prove = step("Prove the connection")
      local function wc(op, qpn) return { status = "SUCCESS", opcode = op, qp_num = qpn, byte_len = 4 } end
      WCS = { wc("RECV", 0x12), wc("SEND", 0x11) }
      for _, m in ipairs { "ping" .. ("\0"):rep(60), ("\0"):rep(32) .. "pinG", ("\0"):rep(31) .. "ping", ("\0"):rep(32) .. "ping" } do
        mem = m
        print(prove.check({}))
      end
      mr = "ping"
      print(prove.check({}))
      WCS = { wc("RECV", 0x11), wc("SEND", 0x12) }
      print(prove.check({}))'
    echo "$output"
    [ "$status" -eq 0 ]
    local nothing='false	mr does not hold "ping" at offset 32'
    [ "${lines[0]}" = "$nothing" ]
    [ "${lines[1]}" = "$nothing" ]
    [ "${lines[2]}" = "$nothing" ]
    [ "${lines[3]}" = 'true	SEND SUCCESS byte_len=4; RECV SUCCESS byte_len=4; "ping" arrived' ]
    [ "${lines[4]}" = "$nothing" ]
    [ "${lines[5]}" = "false	no successful SEND on qp_a and RECV on qp_b seen yet" ]
    [ "${#lines[@]}" -eq 6 ]
}

@test "lessons 7 and 10 off the device: an error completion must leave both QPs in ERR (either one not is named), and the read budget must be at least 1 on each side (0 or none named)" {
    stubbed_lesson 07-rdma-read.lua '
      K.step_wcs = function() return WCS end
      WCS = { { wr_id = 1, status = "REM_INV_REQ_ERR" } }
      local refused, budget = step("A READ the responder refuses"), step("Reconnect with a budget")
      for _, s in ipairs { { "ERR", "RTS" }, { "RTS", "ERR" }, { "ERR", "ERR" } } do
        qp_a, qp_b = fake("qp", { state = s[1] }), fake("qp", { state = s[2] })
        print(refused.check({}))
      end
      for _, b in ipairs { { 0, 3 }, { nil, 3 }, { 3, 0 }, { 1, 1 }, { 4, 3 } } do
        qp_a = fake("qp", { state = "RTS", query = function() return { max_rd_atomic = b[2] } end })
        qp_b = fake("qp", { state = "RTS", query = function() return { max_dest_rd_atomic = b[1] } end })
        print(budget.check())
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "false	qp_a is ERR, qp_b is RTS" ]
    [ "${lines[1]}" = "false	qp_a is RTS, qp_b is ERR" ]
    [ "${lines[2]}" = "true	REM_INV_REQ_ERR; qp_a ERR, qp_b ERR" ]
    [ "${lines[3]}" = "false	max_dest_rd_atomic=0 on qp_b, max_rd_atomic=3 on qp_a" ]
    [ "${lines[4]}" = "false	max_dest_rd_atomic=nil on qp_b, max_rd_atomic=3 on qp_a" ]
    [ "${lines[5]}" = "false	max_dest_rd_atomic=3 on qp_b, max_rd_atomic=0 on qp_a" ]
    [ "${lines[6]}" = "true	queried max_dest_rd_atomic=1 (qp_b), max_rd_atomic=1 (qp_a); the task asks for 3, which rxe rounds up" ]
    [ "${lines[7]}" = "true	queried max_dest_rd_atomic=4 (qp_b), max_rd_atomic=3 (qp_a); the task asks for 3, which rxe rounds up" ]
    [ "${#lines[@]}" -eq 8 ]
    stubbed_lesson 10-rc-errors.lua '
      K.step_wcs = function() return WCS end
      WCS = { { wr_id = 4, status = "REM_ACCESS_ERR" } }
      for _, s in ipairs { { "ERR", "RTS" }, { "RTS", "ERR" }, { "ERR", "ERR" } } do
        qp_a, qp_b = fake("qp", { state = s[1] }), fake("qp", { state = s[2] })
        print(step("REM_ACCESS_ERR").check({}))
      end'
    echo "$output"
    [ "${lines[0]}" = "false	qp_a is ERR, qp_b is RTS" ]
    [ "${lines[1]}" = "false	qp_a is RTS, qp_b is ERR" ]
    [ "${lines[2]}" = "true	REM_ACCESS_ERR; qp_a ERR, qp_b ERR" ]
    [ "${#lines[@]}" -eq 3 ]
}

@test "lessons 8, 9 and 15 off the device: atomic_cap NONE (by either name, or 0) makes lesson 8 unrunnable; both UD QPs must be RTS (the other named) with qkey 0x11111111; the extended SEND's qp_a.wr_id must still be 1" {
    stubbed_lesson 08-atomics.lua '
      for _, cap in ipairs { "NONE", "ATOMIC_NONE", 0, "HCA", "ATOMIC_HCA", "GLOB", 1 } do
        ctx = { query_device = function() return { atomic_cap = cap } end }
        print(cap, L.requires())
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    local none="this device has atomic_cap NONE: no RDMA atomics"
    [ "$output" = "NONE	$none
ATOMIC_NONE	$none
0	$none
HCA
ATOMIC_HCA
GLOB
1" ]
    stubbed_lesson 09-ud.lua '
      local two = step("Two UD QPs, three transitions")
      for _, c in ipairs { { "RTS", "RTR", 0x11111111 }, { "INIT", "RTS", 0x11111111 }, { "RTS", "RTS", 0x11111112 }, { "RTS", "RTS", 0x11111111 },
                           { "RTS", "RTS", 0x11111111, "RC" }, { "RTS", "RTS", 0x11111111, "UD", "UC" } } do
        qp_a = fake("qp", { qp_type = c[4] or "UD", state = c[1] })
        qp_b = fake("qp", { qp_type = c[5] or "UD", state = c[2], query = function() return { qkey = c[3] } end })
        print(two.check())
      end
      qp_a = "a QP"
      print(two.check())'
    echo "$output"
    [ "${lines[0]}" = "false	qp_a is RTS, qp_b is RTR; both should be RTS" ]
    [ "${lines[1]}" = "false	qp_a is INIT, qp_b is RTS; both should be RTS" ]
    [ "${lines[2]}" = "false	qp_b's qkey is 286331154" ]
    [ "${lines[3]}" = "true	both UD in RTS, qkey 0x11111111" ]
    # an RC (or UC) QP among them, whichever
    [ "${lines[4]}" = "false	qp_a and qp_b must be UD QPs" ]
    [ "${lines[5]}" = "${lines[4]}" ]
    [ "${lines[6]}" = "false	qp_a and qp_b must be QPs" ]
    [ "${#lines[@]}" -eq 7 ]
    stubbed_lesson 15-post-send-ex.lua '
      mr_b = fake("mr", { read = function() return "hello" end })
      for _, c in ipairs { { 2, "SIGNALED" }, { 0, "SIGNALED" }, { nil, "SIGNALED" }, { 1, "SIGNALED" } } do
        qp_a = fake("qp", { wr_id = c[1], wr_flags = { c[2] } })
        print(step("A SEND, built piece by piece").check())
      end'
    echo "$output"
    local again="not 1: the next step looks for the SEND's completion wr_id 1; send again with qp_a.wr_id = 1"
    [ "${lines[0]}" = "false	qp_a.wr_id is 2, $again" ]
    [ "${lines[1]}" = "false	qp_a.wr_id is 0, $again" ]
    [ "${lines[2]}" = "false	qp_a.wr_id is nil, $again" ]
    [ "${lines[3]}" = 'true	mr_b = "hello"; two completions wait in cq (wr_id 1 and 100): the next step reads them' ]
    [ "${#lines[@]}" -eq 4 ]
}

@test "lessons 18 and 20 off the device: the type 2 step needs mw2 a TYPE_2 window before its READ; both multicast receivers must hold the 12 bytes \"hello, group\" (one byte short or off is named with both texts)" {
    stubbed_lesson 18-memory-windows.lua '
      K.step_wcs = function() return {} end
      qp_a, cq = fake("qp", { qp_num = 0x11 }), "a CQ"
      local two = step("A type 2 window")
      for _, w in ipairs { "a window", fake("mw", { type = "TYPE_1" }), fake("mw", { type = "TYPE_2" }) } do
        mw2 = w
        print(two.check({}))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = 'false	mw2 is not a TYPE_2 window yet: mw2 = pd:alloc_mw("TYPE_2")' ]
    [ "${lines[1]}" = "${lines[0]}" ]
    [ "${lines[2]}" = "false	no completion for the READ through mw2 (wr_id 7) yet" ]
    [ "${#lines[@]}" -eq 3 ]
    stubbed_lesson 20-multicast.lua '
      K.step_wcs = function() return WCS end
      qp_a, qp_b = fake("qp", { qp_num = 0x21 }), fake("qp", { qp_num = 0x22 })
      local function mr(text) return fake("mr", { read = function(_, off, n) return (("\0"):rep(40) .. text):sub(off + 1, off + n) end }) end
      local function recv(qpn, len) return { opcode = "RECV", status = "SUCCESS", qp_num = qpn, byte_len = len, src_qp = 0x123 } end
      for _, c in ipairs { { "hello, group", "hello, group", 52 }, { "hello, group", "hello, grouP", 52 }, { "hello, group", "hello, group", 51 } } do
        mr_a, mr_b, WCS = mr(c[1]), mr(c[2]), { recv(0x21, 52), recv(0x22, c[3]) }
        print(step("One send, two receives").check({}))
      end'
    echo "$output"
    [ "${lines[0]}" = 'true	both got "hello, group" from QPN 0x000123: one send, two receives' ]
    [ "${lines[1]}" = 'false	qp_a got "hello, group" and qp_b got "hello, grouP": send mr_s'"'"'s 12 bytes "hello, group"' ]
    [ "${lines[2]}" = 'false	qp_a got "hello, group" and qp_b got "hello, grou": send mr_s'"'"'s 12 bytes "hello, group"' ]
    [ "${#lines[@]}" -eq 3 ]
}

@test "lesson 1 requires a device: runnable when verbs.devices lists one; with none, or when listing raises, it prints why verbs.open fails and says no RDMA device" {
    stubbed_lesson 01-devices.lua '
      verbs.open = function() error("verbs.open: no RDMA device found (ibv_get_device_list: 0 devices)", 0) end
      for _, d in ipairs { function() return { { name = "rxe0" } } end, function() return {} end, function() error("no sysfs") end } do
        verbs.devices = d
        print("requires", L.requires())
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "requires	nil" ]
    [ "${lines[1]}" = "verbs.open: no RDMA device found (ibv_get_device_list: 0 devices)" ]
    [ "${lines[2]}" = "requires	no RDMA device" ]
    [ "${lines[3]}" = "${lines[1]}" ]
    [ "${lines[4]}" = "${lines[2]}" ]
    [ "${#lines[@]}" -eq 5 ]
}

@test "lesson 8's ten clients: ten distinct tickets and the counter at 11 pass; a counter that did not start at 1 (tickets 5..14, counter 15), a repeated ticket, or a completion that failed are each named" {
    stubbed_lesson 08-atomics.lua '
      K.step_wcs = function() return WCS end
      local function u64s(list) return fake("mr", { read = function(_, off, n) return list[off] or string.pack("=I8", 0) end }) end
      local function run(first, counter, failed, repeat_at)
        local slots = {}
        for i = 1, 10 do slots[8 * i] = string.pack("=I8", (repeat_at == i and first or first + i - 1)) end
        mr_a, mr_b = u64s(slots), u64s({ [0] = string.pack("=I8", counter) })
        WCS = {}
        for i = 1, 10 do WCS[i] = { wr_id = 10 + i, status = failed == i and "LOC_LEN_ERR" or "SUCCESS" } end
        print(step("Ten clients").check({}))
      end
      run(1, 11)
      run(5, 15)
      run(1, 11, 3)
      run(1, 11, nil, 4)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "true	tickets 1,2,3,4,5,6,7,8,9,10; counter 11" ]
    [ "${lines[1]}" = "false	the counter is 15, not 11" ]
    [ "${lines[2]}" = "false	wr_id 13 has not completed" ]
    [ "${lines[3]}" = "false	two fetch-and-adds returned the same value 1" ]
    [ "${#lines[@]}" -eq 4 ]
}

@test "lesson 14's first step: ch a CM event channel, then id a cm_id, then a TCP one; each missing or wrong is named in that order" {
    stubbed_lesson 14-rdma-cm.lua '
      local first = step("An event channel and an id")
      for _, c in ipairs { { "a channel", nil }, { fake("cm_channel", {}), nil }, { fake("cm_channel", {}), "an id" },
                           { fake("cm_channel", {}), fake("cm_id", { ps = "UDP" }) }, { fake("cm_channel", {}), fake("cm_id", { ps = "TCP" }) } } do
        ch, id = c[1], c[2]
        print(first.check())
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "false	ch should be verbs.create_event_channel()" ]
    [ "${lines[1]}" = 'false	id should be ch:create_id("TCP")' ]
    [ "${lines[2]}" = "${lines[1]}" ]
    [ "${lines[3]}" = "false	id is UDP: this lesson uses a TCP id (RC)" ]
    [[ ${lines[4]} == "true	verbs.cm_id: 0x"* ]]
    [ "${#lines[@]}" -eq 5 ]
}

# The other steps of lesson 17 judged on scenarios.pcap (frames 1-6: a SEND of
# 5000 bytes and its ACK; 7-11: WRITE 1500 and WRITE_WITH_IMM 0x1234, ACKed;
# 12-15: READ of 3000 and its three responses; 18-21: a SEND, its RNR NAK, the
# same PSN 112 again, its ACK; 22: a UD SEND from QP 18 to QP 18, Q_Key 0x11111111).
@test "lesson 17's steps on scenarios.pcap: each passes on its frames, and refuses the capture with one of them missing, naming it; an empty capture is named as such" {
    local t
    t() { on_the_wire_check "$1" "$2"; echo "$output"; [ "$status" -eq 0 ]; [ "$output" = "$3" ]; }
    local empty="false	cap holds no RoCEv2 frame: start it before posting, stop it after the completions"
    t "A SEND, cut by the path MTU" 'frames = { table.unpack(frames, 1, 6) }' "true	5 frames: SEND_FIRST SEND_MIDDLE SEND_MIDDLE SEND_MIDDLE SEND_LAST, then an ACK"
    t "A SEND, cut by the path MTU" 'frames = { frames[1], frames[2], frames[3], frames[5], frames[6] }' \
      "false	the SEND frames to qp_b were: SEND_FIRST SEND_MIDDLE SEND_MIDDLE SEND_LAST; expected SEND_FIRST SEND_MIDDLE SEND_MIDDLE SEND_MIDDLE SEND_LAST"
    t "A SEND, cut by the path MTU" 'frames = { table.unpack(frames, 1, 5) }' "false	no ACKNOWLEDGE came back"
    t "A SEND, cut by the path MTU" 'frames = {}' "$empty"
    t "A SEND, cut by the path MTU" 'frames = { ("\0"):rep(60) }' "$empty"
    t "WRITE, with and without immediate" 'frames = { table.unpack(frames, 7, 11) }' \
      "true	RDMA_WRITE_FIRST (RETH dma_length 1500), then a WRITE ...WITH_IMMEDIATE carrying ImmDt 0x1234"
    t "WRITE, with and without immediate" 'frames = { frames[10], frames[11] }' "false	no RDMA_WRITE_FIRST with a RETH of dma_length 1500 to qp_b"
    t "WRITE, with and without immediate" 'frames = { table.unpack(frames, 7, 9) }' "false	no WRITE frame with ImmDt 0x1234 to qp_b"
    t "READ: a request out, the data back" 'frames = { table.unpack(frames, 12, 15) }' "true	1 RDMA_READ_REQUEST out, 3 RDMA_READ_RESPONSE (FIRST, MIDDLE, LAST) back"
    t "READ: a request out, the data back" 'frames = { frames[12], frames[13], frames[15] }' "false	2 RDMA_READ_RESPONSE frames came back; 3000 bytes at MTU 1024 take 3"
    t "READ: a request out, the data back" 'frames = { table.unpack(frames, 13, 15) }' "false	no RDMA_READ_REQUEST of 3000 bytes to qp_b"
    local ud='local function qp(n) return debug.setmetatable(io.tmpfile(), { __name = "verbs.qp", __index = { qp_num = n } }) end
      ud_a, ud_b = qp(18), qp(18)'
    t "UD: the Q_Key travels in the DETH" "$ud; frames = { frames[22] }" "true	UD SEND_ONLY, DETH Q_Key 0x11111111, source QP 18 (ud_a); no ACK"
    t "UD: the Q_Key travels in the DETH" "$ud; frames = { frames[22], frames[6] }" "false	something answered the UD SEND"
    t "UD: the Q_Key travels in the DETH" "$ud; ud_a = qp(19); frames = { frames[22] }" "false	the DETH's source QP is not ud_a's"
    t "UD: the Q_Key travels in the DETH" "$ud; ud_b = qp(19); frames = { frames[22] }" "false	no UD frame to ud_b"
    t "UD: the Q_Key travels in the DETH" "frames = { frames[22] }" "false	ud_a and ud_b are not QPs: call make_ud_pair()"
    t "UD: the Q_Key travels in the DETH" "$ud; frames = {}" "$empty"
    t "RNR NAK: no receive posted yet" 'frames = { table.unpack(frames, 18, 21) }' "true	1 RNR NAK, the SEND sent 2 times with the same PSN, then an ACK"
    t "RNR NAK: no receive posted yet" 'frames = { frames[18], frames[20], frames[21] }' "false	no RNR NAK: was a receive already posted on qp_b?"
    t "RNR NAK: no receive posted yet" 'frames = { frames[18], frames[19] }' "false	the SEND was not sent again"
    t "RNR NAK: no receive posted yet" 'frames = { table.unpack(frames, 18, 20) }' "false	no ACK at the end: post the receive on qp_b"
    t "A lost packet: the requester sends again" 'wcs_b = { {} }; frames = { frames[18], frames[20] }' "true	the SEND's PSN 112 went out 2 times; qp_b completed it once"
    t "A lost packet: the requester sends again" 'wcs_b = { {} }; frames = { frames[18], frames[21] }' \
      "false	the SEND was sent once: did the netem qdisc drop the ACK? (tc qdisc needs the sch_netem module)"
    t "A lost packet: the requester sends again" 'wcs_b = {}; frames = { frames[18], frames[20] }' "false	qp_b should have exactly one completion (wcs_b = cq_b:wait(2, 300))"
    t "A lost packet: the requester sends again" 'wcs_b = { {}, {} }; frames = { frames[18], frames[20] }' "false	qp_b should have exactly one completion (wcs_b = cq_b:wait(2, 300))"
}

# The check polls the CQ for what the learner did not: all there is, then a
# wait for the rest of the two it judges (here the READ's completion comes
# only from that wait).
@test "lesson 15's WRITE-and-READ step: the check waits for the second completion when only the first is in the CQ, then passes on both and the memory; an open start_poll is named first" {
    stubbed_lesson 15-post-send-ex.lua '
      local function wc(id, op, len) return setmetatable({ wr_id = id, status = "SUCCESS", opcode = op, byte_len = len },
        { __tostring = function() return ("wc{wr_id = %d}"):format(id) end }) end
      cq = fake("cq", {
        poll = function(_, n) print("poll", n) return n == 0 and {} or { wc(2, "RDMA_WRITE", 7) } end,
        wait = function(_, n, ms) print("wait", n, ms) return { wc(3, "RDMA_READ", 9) } end })
      mr_a = fake("mr", { read = function(_, off, n) return off == 1024 and ("read back"):sub(1, n) or "" end })
      mr_b = fake("mr", { read = function(_, off, n) return off == 512 and ("written"):sub(1, n) or "" end })
      wcs = {}
      local s3 = step("WRITE and READ in one batch")
      print(s3.check({}))
      cq = fake("cq", { poll = function() error("a poll is open", 0) end })
      print(s3.check({}))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "poll	0" ]
    [ "${lines[1]}" = "poll	64" ]
    [ "${lines[2]}" = "  (the check polled cq) wcs[1] = wc{wr_id = 2}" ]
    [ "${lines[3]}" = "wait	1	300" ]
    [ "${lines[4]}" = "  (the check polled cq) wcs[2] = wc{wr_id = 3}" ]
    [ "${lines[5]}" = 'true	RDMA_WRITE SUCCESS byte_len=7, RDMA_READ SUCCESS byte_len=9; mr_b+512 = "written", mr_a+1024 = "read back"' ]
    [ "${lines[6]}" = "false	a start_poll is still open: call cq:end_poll()" ]
    [ "${#lines[@]}" -eq 7 ]
}

@test "lesson 20's joins: qp_a must be the id's QP and ev a MULTICAST_JOIN (another event explained); qp_b must be a UD QP in RTR or RTS (INIT named) with the group's qkey, attached" {
    stubbed_lesson 20-multicast.lua '
      verbs.explain = function(v) return "explained " .. v.event end
      local ud = { ah_attr = { grh = { dgid = "::ffff:239.1.2.3" } }, qp_num = 0xffffff, qkey = 0x1234abcd }
      local join, attach = step("Receiver A joins"), step("Receiver B attaches")
      qp_a = fake("qp", { qp_type = "UD", state = "RTS" })
      id = fake("cm_id", { qp = qp_a })
      for _, e in ipairs { "MULTICAST_JOIN", "MULTICAST_ERROR" } do
        ev = fake("cm_event", { event = e, param = { ud = ud } })
        print(join.check())
      end
      qp_a = fake("qp", { qp_type = "UD", state = "RTS" })
      print(join.check())
      local log = {}
      local function qp_b_in(st, qkey, attached)
        return fake("qp", { qp_type = "UD", state = st, query = function() return { qkey = qkey } end,
          detach_mcast = function(_, gid, lid) if not attached then error("not attached") end log[#log + 1] = "detach " .. gid .. " " .. lid end,
          attach_mcast = function(_, gid, lid) log[#log + 1] = "attach " .. gid .. " " .. lid end })
      end
      _G.ud = ud
      for _, c in ipairs { { "RTR", 0x1234abcd, true }, { "RTS", 0x1234abcd, true }, { "INIT", 0x1234abcd, true }, { "RESET", 0x1234abcd, true },
                           { "RTR", 0x11111111, true }, { "RTR", 0x1234abcd, false } } do
        qp_b = qp_b_in(table.unpack(c))
        print(attach.check())
      end
      print(table.concat(log, ", "))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "true	joined: dgid ::ffff:239.1.2.3, qp_num 0xffffff, qkey 0x1234abcd" ]
    [ "${lines[1]}" = "false	ev is MULTICAST_ERROR, not MULTICAST_JOIN:" ]
    [ "${lines[2]}" = "explained MULTICAST_ERROR" ]
    [ "${lines[3]}" = "false	qp_a should be id:create_qp(...): the id's own QP" ]
    [ "${lines[4]}" = "true	qp_b (RTR) attached to ::ffff:239.1.2.3, qkey 0x1234abcd" ]
    [ "${lines[5]}" = "true	qp_b (RTS) attached to ::ffff:239.1.2.3, qkey 0x1234abcd" ]
    [ "${lines[6]}" = "false	qp_b is INIT: a receiver needs RTR" ]
    [ "${lines[7]}" = "false	qp_b is RESET: a receiver needs RTR" ]
    [ "${lines[8]}" = "false	qp_b's qkey is 0x11111111, the group's 0x1234abcd" ]
    [ "${lines[9]}" = "false	qp_b is not attached to the group yet: qp_b:attach_mcast(ud.ah_attr.grh.dgid, 0)" ]
    # each pass detached and attached again the group's GID
    [ "${lines[10]}" = "detach ::ffff:239.1.2.3 0, attach ::ffff:239.1.2.3 0, detach ::ffff:239.1.2.3 0, attach ::ffff:239.1.2.3 0" ]
    [ "${#lines[@]}" -eq 11 ]
}

@test "lesson 21's checks: res must be for server_addr:server_port over TCP; at the end the id goes before res, each named while it stays" {
    stubbed_lesson 21-rdma-verbs.lua '
      server_addr, server_port = "192.0.2.5", "20079"
      local gai, done = step("rdma_getaddrinfo"), step("Disconnect and destroy")
      for _, c in ipairs { { "192.0.2.5:20079", "TCP" }, { "192.0.2.9:20079", "TCP" }, { "192.0.2.5:20078", "TCP" }, { "192.0.2.5:20079", "UDP" } } do
        res = fake("cm_addrinfo", { ai_dst_addr = c[1], ai_port_space = c[2], ai_qp_type = "RC" })
        print(gai.check())
      end
      res = "an addrinfo"
      print(gai.check())
      -- live objects raise on a field of another class, as verbsh'"'"'s do
      local function strict(kind, fields)
        return fake(kind, setmetatable({}, { __index = function(_, k) return fields[k] or error("no field " .. k .. " in a " .. kind) end }))
      end
      local live_id, live_res = strict("cm_id", { qp = "a QP" }), strict("cm_addrinfo", { ai_dst_addr = "192.0.2.5:20079" })
      for _, c in ipairs { { live_id, live_res }, { nil, live_res }, { live_id, nil }, { nil, nil } } do
        id, res = c[1], c[2]
        print(done.check())
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "true	192.0.2.5:20079, an RC QP" ]
    [ "${lines[1]}" = "false	res.ai_dst_addr is 192.0.2.9:20079, not 192.0.2.5:20079" ]
    [ "${lines[2]}" = "false	res.ai_dst_addr is 192.0.2.5:20078, not 192.0.2.5:20079" ]
    [ "${lines[3]}" = 'false	give hints { ai_port_space = "TCP" }: this is a connection' ]
    [ "${lines[4]}" = "false	res should be verbs.getaddrinfo(server_addr, server_port, {...})" ]
    [ "${lines[5]}" = "false	id is still there: id:destroy_ep() (after the MRs' dereg)" ]
    [ "${lines[6]}" = "false	res is not freed yet: res:free()" ]
    [ "${lines[7]}" = "${lines[5]}" ]
    [ "${lines[8]}" = "true	everything freed, as rdma_client.c ends" ]
    [ "${#lines[@]}" -eq 9 ]
}

@test "the runner's device transport: the device VERBSH_DEVICE names, else the first listed; iWARP by its transport, InfiniBand or RoCE by its port's link layer; none without devices; finished() closes the file it reads" {
    mkdir -p "$XDG_STATE_HOME/verbsh"; printf 'pd-mr\n\ncq\n' >"$XDG_STATE_HOME/verbsh/finished"
    run "$VERBSH" -e '
      local L = require "verbs.lesson"
      local env, open = {}, io.open
      local getenv = os.getenv
      os.getenv = function(k) if env[k] ~= nil then return env[k] or nil end return getenv(k) end
      local LINK = { rxe0 = "Ethernet", ib0 = "InfiniBand" }
      io.open = function(path, ...)
        local dev = path:match("^/sys/class/infiniband/([^/]+)/ports/1/link_layer$")
        if not dev then return open(path, ...) end
        return LINK[dev] and { read = function() return LINK[dev] end, close = function() end }
      end
      local function dev(name, t) return { name = name, transport_type = t or "InfiniBand" } end
      for _, c in ipairs { { {} }, { "raise" }, { { dev("rxe0"), dev("siw0", "IWARP") } }, { { dev("rxe0"), dev("siw0", "IWARP") }, "siw0" },
                           { { dev("rxe0"), dev("siw0", "IWARP") }, "mlx0" }, { { dev("siw0", "IWARP"), dev("rxe0") }, "rxe0" },
                           { { dev("ib0"), dev("rxe0") } }, { { dev("rxe9") } } } do
        verbs.devices = function() if c[1] == "raise" then error("no sysfs") end return c[1] end
        env.VERBSH_DEVICE = c[2] or false
        print(c[2] or "-", L.device_transport())
      end
      collectgarbage("stop")   -- an unclosed file would stay open until collected
      local done = L.finished()
      print(done["pd-mr"], done.cq, done[""], done.ud)
      local f = open("/proc/self/stat"); local pid = f:read("n"); f:close()
      local p = io.popen("ls -l /proc/" .. pid .. "/fd 2>/dev/null | grep -c /verbsh/finished")
      print(p:read("n")); p:close()'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "-	nil" ]
    [ "${lines[1]}" = "-	nil" ]
    [ "${lines[2]}" = "-	RoCE	rxe0" ]
    [ "${lines[3]}" = "siw0	iWARP	siw0" ]
    [ "${lines[4]}" = "mlx0	RoCE	rxe0" ]
    [ "${lines[5]}" = "rxe0	RoCE	rxe0" ]
    [ "${lines[6]}" = "-	InfiniBand	ib0" ]
    # no link layer to read: taken as RoCE
    [ "${lines[7]}" = "-	RoCE	rxe9" ]
    [ "${lines[8]}" = "true	true	nil	nil" ]
    [ "${lines[9]}" = "0" ]
    [ "${#lines[@]}" -eq 10 ]
}

# A check that raises: the runner says which of the lesson's objects the
# learner destroyed (its tostring "kind (destroyed)") or replaced, in name order.
@test "a check that cannot run names the setup's objects destroyed or replaced (none: nothing added); dedent strips the common indentation only" {
    cat >"$FAKE/04-objs.lua" <<'LUA'
return { title = "Objects", setup = function()
    SHOW = { cq_x = "cq (live)", qp_x = "qp (live)" }
    for name, kind in pairs { cq_x = "cq", qp_x = "qp" } do
      rawset(_G, name, debug.setmetatable(io.tmpfile(), { __name = "verbs." .. kind, __tostring = function() return SHOW[name] end }))
    end
    return "cq_x, qp_x"
  end,
  steps = { { title = "Broken", text = "The check raises.", task = ".", solution = "",
    check = function() error("the check met a destroyed object", 0) end } } }
LUA
    run lua_run '
      local L = require "verbs.lesson"
      L.start("objs")
      SHOW.cq_x, SHOW.qp_x = "cq_x", "qp_x 0x12 RTS"
      check()
      SHOW.cq_x = "cq (destroyed)"
      check()
      qp_x = nil
      check()
      qp_x = "a string"
      check()
      local function shown(s) return (s:gsub("\n", "|"):gsub("\t", "<tab>")) end
      print(shown(L.dedent("\n    a\n      b\n\n    c  \n")), shown(L.dedent("a\n  b")), shown(L.dedent("  a\n   b\n\tc")))'
    echo "$output"
    [ "$status" -eq 0 ]
    local why="Not done yet: check could not run: the check met a destroyed object" rest=": the lesson's objects are needed as it set them up; restart(\"lesson\") rebuilds them)"
    [ "$(grep -c "^$why\$" <<<"$output")" -eq 4 ]
    [ "$(grep -A1 "^$why\$" <<<"$output" | grep -c '^  (')" -eq 3 ]   # the first, with nothing broken, adds nothing
    has_line "  (cq_x is destroyed$rest"
    has_line "  (cq_x is destroyed; qp_x was replaced (it is nil now)$rest"
    has_line "  (cq_x is destroyed; qp_x was replaced (it is a string now)$rest"
    # the first blank line and trailing blanks dropped; a line led by a tab sets no indentation
    [ "${lines[-1]}" = "a|  b||c	a|  b	a| b|<tab>c" ]
}

@test "a check that runs a chunk through the REPL hook (after_eval inside a check) is not checked again from inside: one check per chunk" {
    cat >"$FAKE/04-reentry.lua" <<'LUA'
return { title = "Re-entry", steps = { { title = "Once", text = ".", task = ".", solution = "",
  check = function() CHECKS = (CHECKS or 0) + 1; require("verbs.repl").after_eval(true); return false, "checked " .. CHECKS end } } }
LUA
    run lua_run '
      local repl = require "verbs.repl"
      lesson "reentry"
      repl.after_eval(true)
      repl.after_eval(true)
      print("checks", CHECKS)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[-1]}" = "checks	2" ]
    [[ $output != *"lesson: "* ]]
}

@test "stopping a lesson takes its step off the prompt and says its objects stay (quietly: nothing said)" {
    run lua_run '
      local L, repl = require "verbs.lesson", require "verbs.repl"
      L.start("devices")
      print("during", repl.prompt())
      L.stop()
      print("after", repl.prompt(), L.current())
      L.start("devices")
      L.stop(true)
      print("quiet", repl.prompt())'
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "during	[devices 1/2] verbsh> "
    has_line "Lesson stopped; its objects are still there."
    has_line "after	verbsh> 	nil"
    [ "${lines[-1]}" = "quiet	verbsh> " ]
    [ "$(grep -c 'Lesson stopped' <<<"$output")" -eq 1 ]
}

@test "a failed check the learner was shown sets its completions aside, said once: all of them when it had all it waited for, else only the failed ones" {
    cat >"$FAKE/04-judged.lua" <<'LUA'
return { title = "Judged", steps = { { title = "Two", text = ".", task = ".", solution = "",
  check = function(S) local l = require("verbs.lesson_kit").step_wcs(S, nil, WANT); return false, "judged " .. #l end } } }
LUA
    local aside="  (the check set those completions aside as a failed try's: redo the task and it judges only the new ones)"
    for want in 2 3; do
      run lua_run '
        WANT = '$want'
        lesson "judged"
        wcs = { { wr_id = 1, status = "LOC_LEN_ERR" }, { wr_id = 2, status = "SUCCESS" } }
        check()
        check()'
      echo "$output"
      [ "$status" -eq 0 ]
      [ "${lines[-3]}" = "Not done yet: judged 2" ]
      [ "${lines[-2]}" = "$aside" ]
      # the two it waited for: both set aside; fewer than three: the failed one only
      [ "${lines[-1]}" = "Not done yet: judged $((want == 2 ? 0 : 1))" ]
    done
}

# rc_connect's defaults are what the lessons' text and C panels assume (one
# READ/atomic in flight each way); opts override each. A stub QP records
# the modify calls (tables such as ah_attr and the access flags left out).
@test "kit: rc_connect's defaults: INIT on port 1, RTR with max_dest_rd_atomic 1 (path_mtu 1024, rq_psn 0, min_rnr_timer 1), RTS with max_rd_atomic 1 (sq_psn 0, timeout 14, retries 7); opts override them" {
    run "$VERBSH" -e '
      local K = require "verbs.lesson_kit"
      local function fake(kind, fields) return debug.setmetatable(io.tmpfile(), { __name = "verbs." .. kind, __index = fields }) end
      local ctx = fake("context", { query_gid = function() return "::ffff:192.0.2.1" end })
      for _, opts in ipairs { { ctx = ctx, sgid_index = 1 }, { ctx = ctx, sgid_index = 1, max_dest_rd_atomic = 4, max_rd_atomic = 2 } } do
        local qp = fake("qp", { state = "RESET", modify = function(_, a)
          local t = {}
          for k, v in pairs(a) do if k ~= "qp_state" and type(v) ~= "table" then t[#t + 1] = k .. "=" .. tostring(v) end end
          table.sort(t)
          print(a.qp_state, table.concat(t, " "))
        end })
        K.rc_connect(qp, 0x12, opts)
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "INIT	pkey_index=0 port_num=1
RTR	dest_qp_num=18 max_dest_rd_atomic=1 min_rnr_timer=1 path_mtu=1024 rq_psn=0
RTS	max_rd_atomic=1 retry_cnt=7 rnr_retry=7 sq_psn=0 timeout=14
INIT	pkey_index=0 port_num=1
RTR	dest_qp_num=18 max_dest_rd_atomic=4 min_rnr_timer=1 path_mtu=1024 rq_psn=0
RTS	max_rd_atomic=2 retry_cnt=7 rnr_retry=7 sq_psn=0 timeout=14" ]
}

# The step's enter() keeps the counter in S.viol; the datagram with the wrong
# Q_Key must have raised it: the same value is refused, one more passes.
@test "lesson 12's wrong-Q_Key step: qkey_viol_cntr unchanged (or lower) since the step began is refused; grown by one passes, naming both values" {
    stubbed_lesson 12-ud-drops.lua '
      K.step_wcs = function() return WCS end
      qp_a, qp_b = fake("qp", { qp_num = 0x11 }), fake("qp", { qp_num = 0x12 })
      WCS = { { wr_id = 2, qp_num = 0x11, status = "SUCCESS", opcode = "SEND", byte_len = 9 } }
      for _, c in ipairs { { 3, 3 }, { 3, 4 }, { 3, 2 } } do
        ctx = fake("context", { query_port = function() return { qkey_viol_cntr = c[2] } end })
        print(step("Wrong Q_Key").check({ viol = c[1] }))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "false	qkey_viol_cntr did not grow" ]
    [ "${lines[1]}" = "true	sender SEND SUCCESS byte_len=9; nothing on qp_b; qkey_viol_cntr 3 -> 4" ]
    [ "${lines[2]}" = "${lines[0]}" ]
    [ "${#lines[@]}" -eq 3 ]
}

@test "lesson 19's SEND-and-WRITE step: a failed WRITE completion is named by its status, a missing one as not yet come; both SUCCESS with the memory pass" {
    stubbed_lesson 19-uc.lua '
      K.step_wcs = function() return WCS end
      qp_a, qp_b = fake("qp", { qp_num = 0x11 }), fake("qp", { qp_num = 0x12 })
      -- (mr_b as the two messages leave it: "one-way" at 0, "landed" at 512, zeros between)
      local mem = "one-way" .. ("\0"):rep(505) .. "landed" .. ("\0"):rep(506)
      mr_b = fake("mr", { read = function(_, off, n) return mem:sub(off + 1, off + n) end })
      local recv = { wr_id = 100, qp_num = 0x12, status = "SUCCESS", opcode = "RECV", byte_len = 7 }
      for _, w in ipairs { { wr_id = 2, qp_num = 0x11, status = "REM_ACCESS_ERR" }, false,
                           { wr_id = 2, qp_num = 0x11, status = "SUCCESS", opcode = "RDMA_WRITE", byte_len = 6 } } do
        WCS = { recv, w or nil }
        print(step("SEND and RDMA WRITE").check({}))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "false	the WRITE (wr_id 2): REM_ACCESS_ERR" ]
    [ "${lines[1]}" = "false	the WRITE (wr_id 2): no completion yet" ]
    [ "${lines[2]}" = 'true	RECV byte_len=7 "one-way"; WRITE "landed" at mr_b + 512' ]
    [ "${#lines[@]}" -eq 3 ]
}

# W is what the learner typed: anything but cm_connect's table (with its CQ)
# gets the task's own words back, not a Lua error from indexing it.
@test "lesson 22's iWARP SEND step: W missing, a string, a table without a CQ or with a CQ that is not one is named as not cm_connect(iwarp_addr); cm_connect's table on siw passes" {
    stubbed_lesson 22-iwarp.lua '
      K.step_wcs = function() return { { wr_id = 2, status = "SUCCESS", opcode = "SEND" }, { wr_id = 7, status = "SUCCESS", opcode = "RECV", byte_len = 10 } } end
      iwarp = "siw0"
      for _, w in ipairs { false, "siw0", { dev = "siw0" }, { dev = "siw0", cq = "a CQ" }, { dev = "siw0", cq = fake("cq", {}) } } do
        W = w or nil
        print(step("The same program: on iWARP").check({}))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    local want="false	W should be cm_connect(iwarp_addr)"
    [ "${lines[0]}" = "$want" ]
    [ "${lines[1]}" = "$want" ]
    [ "${lines[2]}" = "$want" ]
    [ "${lines[3]}" = "$want" ]
    [ "${lines[4]}" = "true	siw0: SEND and RECV SUCCESS, 10 bytes: the same program on iWARP" ]
    [ "${#lines[@]}" -eq 5 ]
}

# dr and dw are query_device tables: either missing (or a string, whose
# fields index as nil) is named before which device each came from.
@test "lesson 22's query_device step: dr or dw missing or not a table is named first; dw not iWARP's, then dr not RoCE's, are named; both right pass with their values" {
    stubbed_lesson 22-iwarp.lua '
      local roce = { atomic_cap = "HCA", max_ah = 4096, max_mcast_grp = 8192 }
      local siw = { atomic_cap = "NONE", max_ah = 0, max_mcast_grp = 0 }
      for _, c in ipairs { { nil, nil }, { roce, nil }, { nil, siw }, { roce, "siw0" }, { "rxe0", siw }, { roce, roce }, { siw, siw }, { roce, siw } } do
        dr, dw = c[1], c[2]
        print(pcall(step("What each device says").check))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    local want="true	false	dr and dw should be R.ctx:query_device() and W.ctx:query_device()"
    [ "${lines[0]}" = "$want" ]
    [ "${lines[1]}" = "$want" ]
    [ "${lines[2]}" = "$want" ]
    [ "${lines[3]}" = "$want" ]
    [ "${lines[4]}" = "$want" ]
    [ "${lines[5]}" = "true	false	dw is not the iWARP device's: dw = W.ctx:query_device()" ]
    [ "${lines[6]}" = "true	false	dr is not the RoCE device's: dr = R.ctx:query_device()" ]
    [ "${lines[7]}" = "true	true	RoCE: atomic_cap HCA, max_ah 4096, max_mcast_grp 8192; iWARP: atomic_cap NONE, max_ah 0, max_mcast_grp 0" ]
    [ "${#lines[@]}" -eq 8 ]
}

# Not a QP comes first: id.qp is nil until id:create_qp, so qp = nil (or a
# string id.qp also holds) would otherwise be "the id's QP".
@test "lesson 14's QP step: qp not a QP is named first (even when id.qp holds the same thing); a QP other than id.qp is named; id.qp passes" {
    stubbed_lesson 14-rdma-cm.lua '
      mr = fake("mr", {})
      local q = fake("qp", {})
      for _, c in ipairs { { nil, fake("cm_id", {}) }, { "a QP", fake("cm_id", { qp = "a QP" }) }, { q, fake("cm_id", {}) }, { q, fake("cm_id", { qp = q }) } } do
        qp, id = c[1], c[2]
        local ok, why = step("A QP on the CM").check()
        print(ok, why == tostring(q) .. ", made by rdma_create_qp" and "q, made by rdma_create_qp" or why)
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "false	qp should be id:create_qp(pd, {...})" ]
    [ "${lines[1]}" = "${lines[0]}" ]
    [ "${lines[2]}" = "false	qp is not id.qp: make it with id:create_qp, not pd:create_qp" ]
    [ "${lines[3]}" = "true	q, made by rdma_create_qp" ]
    [ "${#lines[@]}" -eq 4 ]
}

@test "lesson 21's send-and-answer step: no send completion (none at all, or only the receive's) says how to get it; then no answer is named; both pass with the answer" {
    stubbed_lesson 21-rdma-verbs.lua '
      K.step_wcs = function() return WCS end
      recv_mr = fake("mr", { read = function(_, _, n) return ("the answer"):sub(1, n) end })
      local send, recv = { wr_id = 2, status = "SUCCESS" }, { wr_id = 1, status = "SUCCESS", byte_len = 10 }
      for _, c in ipairs { {}, { recv }, { send }, { send, recv } } do
        WCS = c
        print(step("Send, and the answer").check({}))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "false	no send completion yet: id:post_send(2, send_mr) and wcs = { id:get_send_comp(5000), ... }" ]
    [ "${lines[1]}" = "${lines[0]}" ]
    [ "${lines[2]}" = "false	no answer yet: id:post_recv(1, recv_mr) before the send, then id:get_recv_comp(5000)" ]
    [ "${lines[3]}" = 'true	the server answered "the answer"' ]
    [ "${#lines[@]}" -eq 4 ]
}

# The SEND lands in mr_b a moment after wr_complete: the check reads mr_b
# until it holds "hello", for 0.5 s at most. Counted reads show the wait:
# "hello" at the third read passes after four reads (the loop's three, the
# test's one); "hello" from the first is two reads, no waiting; never
# "hello" is refused after 0.5 s of reading.
@test "lesson 15's built-SEND step waits for mr_b to hold \"hello\": it appears at the third read and passes; there at once, read twice; never, refused after 0.5 s" {
    stubbed_lesson 15-post-send-ex.lua '
      qp_a = fake("qp", { wr_id = 1, wr_flags = { "SIGNALED" } })
      for _, from in ipairs { 3, 1, math.huge } do
        local n = 0
        mr_b = fake("mr", { read = function() n = n + 1 return n >= from and "hello" or "hell\0" end })
        local t0 = verbs.now()
        local ok, why = step("A SEND, built piece by piece").check()
        if from == math.huge then n = (n > 2 and "many reads, " or n .. " reads, ") .. (verbs.now() - t0 >= 0.5 and "0.5 s" or "less") end
        print(ok, why, n)
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    local pass='true	mr_b = "hello"; two completions wait in cq (wr_id 1 and 100): the next step reads them'
    [ "${lines[0]}" = "$pass	4" ]
    [ "${lines[1]}" = "$pass	2" ]
    [ "${lines[2]}" = 'false	mr_b does not hold "hello" yet: was the WR completed (wr_complete)?	many reads, 0.5 s' ]
    [ "${#lines[@]}" -eq 3 ]
}

@test "lesson kit: is_wc is true of a table with a status (a WC's copy), false of a table without one, nil, a number, a string and another userdata" {
    run "$VERBSH" -e '
      local K = require "verbs.lesson_kit"
      print(K.is_wc({ status = "SUCCESS" }), K.is_wc({ status = 0 }), K.is_wc({}), K.is_wc({ wr_id = 1 }))
      print(K.is_wc(nil), K.is_wc(5), K.is_wc("SUCCESS"), K.is_wc(io.stdout))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "true	true	false	false" ]
    [ "${lines[1]}" = "false	false	false	false" ]
}

@test "kit: a partner is alive while its script runs and not once it ended, even before it is reaped (a zombie); partner_wait waits for a live one's line; stop ends a live one" {
    run "$VERBSH" -e '
      local K, socket = require "verbs.lesson_kit", require "socket"
      local f, g = os.tmpname(), os.tmpname()
      local w = io.open(f, "w") w:write("require(\"socket\").sleep(0.4) print(\"ready 5\")\n") w:close()
      w = io.open(g, "w") w:write("require(\"socket\").sleep(60)\n") w:close()
      local function gone(p) for _ = 1, 200 do if not p:alive() then return true end socket.sleep(0.05) end return false end
      local p = K.spawn(f, {})
      print(p:alive(), p:wait_for("ready (%d+)", 30))
      print(gone(p), p:alive())
      local q = K.spawn(g, {})
      print(q:alive()); q:stop(); print(gone(q))
      -- an ended process that no one has reaped yet (a zombie: kill -0 finds it) has ended
      local z = os.tmpname()
      os.execute("sh -c '"'"'sleep 0 & echo $! >" .. z .. "; exec sleep 3'"'"' >/dev/null 2>&1 &")
      local zpid
      for _ = 1, 100 do local h = io.open(z) zpid = h and math.tointeger(tonumber(h:read("l"))) if h then h:close() end if zpid then break end socket.sleep(0.05) end
      for _ = 1, 100 do local h = io.open("/proc/" .. zpid .. "/stat") local st = h and h:read("a"):match("^%d+ %b() (%a)") if h then h:close() end if st == "Z" then break end socket.sleep(0.05) end
      print(os.execute("kill -0 " .. zpid .. " 2>/dev/null"), setmetatable({ pid = zpid }, getmetatable(q)):alive())
      os.remove(f) os.remove(g) os.remove(z)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "true	5" ]
    [ "${lines[1]}" = "true	false" ]
    [ "${lines[2]}" = "true" ]
    [ "${lines[3]}" = "true" ]
    [ "${lines[4]}" = "true	false" ]
    [ "${#lines[@]}" -eq 5 ]
}

@test "lesson 22's prediction steps (immediate data, an atomic, out of band) each ask for the prediction first, naming its variable, before judging anything; a word that is no choice counts as none" {
    stubbed_lesson 22-iwarp.lua '
      iwarp = "siw0"
      for _, c in ipairs { { "Predict: immediate data", "guess_imm" }, { "Predict: an atomic", "guess_atomic" },
                           { "Predict: connecting out of band", "guess_oob" } } do
        _G[c[2]] = nil
        print(step(c[1]).check())
        _G[c[2]] = "maybe"
        print(step(c[1]).check())
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    for i in 0 1; do [ "${lines[$i]}" = 'false	predict first: guess_imm = "RoCE", "iWARP", "both" or "neither" (which device refuses?)' ]; done
    for i in 2 3; do [ "${lines[$i]}" = 'false	predict first: guess_atomic = "RoCE", "iWARP", "both" or "neither" (which device refuses?)' ]; done
    for i in 4 5; do [ "${lines[$i]}" = 'false	predict first: guess_oob = "RoCE", "iWARP", "both" or "neither" (which device refuses?)' ]; done
    [ "${#lines[@]}" -eq 6 ]
}

@test "lesson 5's SEND_WITH_IMM check judges the two completions it asks for: a wrong imm_data is refused, and both are then set aside as a failed try's (the runner says so)" {
    stubbed_lesson 05-rc-send.lua '
      local K = require "verbs.lesson_kit"
      qp_b = fake("qp", { qp_num = 0x22 })
      local polls = 0
      cq = fake("cq", {
        poll = function() polls = polls + 1
          if polls > 1 then return {} end
          return { { wr_id = 2, status = "SUCCESS", opcode = "SEND", qp_num = 0x21 },
                   { wr_id = 101, status = "SUCCESS", opcode = "RECV", qp_num = 0x22, imm_data = 0x9999, wc_flags = { "WITH_IMM" } } }
        end,
        wait = function() return {} end })
      local S = {}
      print(step("SEND_WITH_IMM").check(S))
      print(K.forget_judged(S))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[-2]}" = "false	the RECV should be SUCCESS with imm_data 0x1234" ]
    [ "${lines[-1]}" = "2" ]
}

@test "lesson 6's WRITE_WITH_IMM check refuses each wrong part alone (a failed status, a plain RECV, imm_data 43) and passes the right completion with \"landed\" at mr_b + 64" {
    stubbed_lesson 06-rdma-write.lua '
      qp_b = fake("qp", { qp_num = 0x22 })
      mr_b = fake("mr", { read = function(_, off, len) return off == 64 and len == 6 and "landed" or "" end })
      local recv
      cq = fake("cq", {
        poll = function() local r = recv; recv = nil; return r and { { wr_id = 2, status = "SUCCESS", opcode = "RDMA_WRITE", qp_num = 0x21 }, r } or {} end,
        wait = function() return {} end })
      for _, r in ipairs {
        { status = "REM_ACCESS_ERR", opcode = "RECV_RDMA_WITH_IMM", imm_data = 42 },
        { status = "SUCCESS", opcode = "RECV", imm_data = 42 },
        { status = "SUCCESS", opcode = "RECV_RDMA_WITH_IMM", imm_data = 43 },
        { status = "SUCCESS", opcode = "RECV_RDMA_WITH_IMM", imm_data = 42 } } do
        r.wr_id, r.qp_num, recv = 200, 0x22, r
        local ok, why = step("WRITE_WITH_IMM").check({})
        print(ok, (why:gsub(", got .*", "")))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    mapfile -t v < <(grep -E '^(true|false)	' <<<"$output")   # (the verdicts; the check also shows what it polled)
    for i in 0 1 2; do [ "${v[$i]}" = "false	qp_b's WC should be RECV_RDMA_WITH_IMM with imm_data 42" ]; done
    [[ ${v[3]} == "true	"*'mr_b+64 = "landed"' ]]
    [ "${#v[@]}" -eq 4 ]
}

@test "kit: describe lists each named global that is set, one a line, its name padded to 9 columns, in the order given; an unset one is left out" {
    run "$VERBSH" -e '
      local K = require "verbs.lesson_kit"
      x_one, x_two = 5, "str"
      io.write(K.describe { "x_one", "nope", "x_two" }, "|\n")
      io.write(K.describe { "nope" }, "|\n")'
    [ "$status" -eq 0 ]
    [ "$output" = $'\n  x_one     = 5\n  x_two     = str|\n|' ]
}

@test "lesson 21's setup on a device whose RoCE GID holds no IPv4 address says so and starts no server; RDMA_SERVER=HOST:PORT is taken as it is, anything else refused (a device of tests/fakeverbs)" {
    fakeverbs_build "$BATS_TEST_TMPDIR"
    local probe='
      local L = dofile(os.getenv("ROOT") .. "/lessons/21-rdma-verbs.lua")
      local ok, err = pcall(L.setup)
      print(ok, err)
      print(rawget(_G, "server_addr"), rawget(_G, "server_port"), rawget(_G, "gid_index"))'
    # port 1's RoCE v2 GID of the fake device is fe80::22 (index 2)
    unset RDMA_SERVER
    ROOT=$ROOT run fakeverbs_sh "$BATS_TEST_TMPDIR/fakeverbs.so" "$probe"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "false	no IPv4 address on this device's RoCE GID fe80::22" ]
    [ "${lines[1]}" = "nil	nil	2" ]
    [ "${#lines[@]}" -eq 2 ]
    ROOT=$ROOT RDMA_SERVER=198.51.100.7:7471 run fakeverbs_sh "$BATS_TEST_TMPDIR/fakeverbs.so" "$probe"
    echo "$output"
    [ "${lines[0]}" = "true	" ]
    [ "${lines[-1]}" = "198.51.100.7	7471	2" ]
    ROOT=$ROOT RDMA_SERVER=198.51.100.7 run fakeverbs_sh "$BATS_TEST_TMPDIR/fakeverbs.so" "$probe"
    [ "${lines[0]}" = "false	RDMA_SERVER must be HOST:PORT, got 198.51.100.7" ]
    [ "${lines[1]}" = "nil	nil	2" ]
}

# A completion may arrive after the check's first look at the CQ (a slow
# device, a loaded machine): each completion step of lesson 8 waits for as
# many as its task makes before it judges.
@test "lesson 8's fetch-and-add check waits for a completion that is not there at its first poll" {
    stubbed_lesson 08-atomics.lua '
      local words = { [0] = 0 }
      local function mr(t) return { read = function(_, off) return string.pack("=I8", t[off] or 0) end } end
      local late
      cq = fake("cq", { poll = function() return {} end,
                        wait = function(_, n) local got = {} for i = 1, math.min(n, #late) do got[i] = table.remove(late, 1) end return got end })
      local function wc(id) return { wr_id = id, status = "SUCCESS", opcode = "FETCH_ADD", qp_num = 0x11 } end
      mr_a, mr_b = mr{ [0] = 0 }, mr{ [0] = 1 }
      late = { wc(1) }
      print(step("Fetch and add").check({}))
      wcs, late = nil, {}
      print(step("Fetch and add").check({}))'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == "  (the check polled cq) wcs[1] = "* ]]   # (the late one, from its wait)
    [ "${lines[1]}" = "true	FETCH_ADD SUCCESS byte_len=nil; fetched 0, counter now 1" ]
    [ "${lines[2]}" = "false	no completion for wr_id 1 yet" ]
    [ "${#lines[@]}" -eq 3 ]
}

# The 8-byte words of step 4 are at offset 2048 of mr_a (the old value) and
# mr_b (the counter); the byte before each holds something else, so a read
# one byte early shows.
@test "lesson 15's atomic step reads the FAA's old value and the counter at offset 2048 exactly: word 1 and 2 pass with those values; a counter of 0 is refused though the byte before it is not 0" {
    stubbed_lesson 15-post-send-ex.lua '
      local function mem(head, word) return ("%s%s"):format(head, ("\0"):rep(2047 - #head)) .. "\7" .. string.pack("<I8", word) end
      local function wc(t) t.status = "SUCCESS" return t end
      cq = fake("cq", { poll = function() return {} end, wait = function() return {} end })
      for _, counter in ipairs { 2, 0 } do
        mr_a = fake("mr", { read = function(_, off, n) return mem("", 1):sub(off + 1, off + n) end })
        mr_b = fake("mr", { read = function(_, off, n) return mem("inline", counter):sub(off + 1, off + n) end })
        wcs = { wc{ wr_id = 4, opcode = "FETCH_ADD" }, wc{ wr_id = 5, opcode = "SEND" }, wc{ wr_id = 101, opcode = "RECV_RDMA_WITH_IMM", imm_data = 42 } }
        print(step("An atomic, and a send").check({}))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = 'true	FAA old value 1, word now 2; RECV imm_data 42, "inline"' ]
    [ "${lines[1]}" = "false	the word at mr_b offset 2048 was not incremented" ]
    [ "${#lines[@]}" -eq 2 ]
}

# The receive of lesson 9's datagram step must come from qp_a: src_qp is
# the only thing on a UD receive that says who sent it.
@test "lesson 9's datagram step: a receive from qp_a (src_qp 0x11) passes with its fields; one from another QP (0x13) is refused by src_qp; byte_len 48 or 50 is refused" {
    stubbed_lesson 09-ud.lua '
      qp_a, qp_b = fake("qp", { qp_num = 0x11 }), fake("qp", { qp_num = 0x12 })
      mr_b = fake("mr", { read = function(_, off, n) return off == 40 and ("datagram!"):sub(1, n) or "" end })
      local st = step("A datagram, and the 40-byte GRH")
      for _, c in ipairs { { 0x11, 49 }, { 0x13, 49 }, { 0x11, 48 }, { 0x11, 50 } } do
        wcs = { { wr_id = 100, qp_num = 0x12, status = "SUCCESS", opcode = "RECV", byte_len = c[2], src_qp = c[1], wc_flags = { "GRH" } },
                { wr_id = 1, qp_num = 0x11, status = "SUCCESS", opcode = "SEND", byte_len = 9 } }
        print(st.check({}))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "true	RECV byte_len=49 src_qp=0x11 wc_flags={GRH}; SEND byte_len=9; payload at offset 40" ]
    [ "${lines[1]}" = "false	src_qp is not qp_a's number" ]
    [ "${lines[2]}" = "false	the RECV's byte_len is 48, not 40 + 9" ]
    [ "${lines[3]}" = "false	the RECV's byte_len is 50, not 40 + 9" ]
    [ "${#lines[@]}" -eq 4 ]
}

# Lesson 7's READ step: a completion is not enough, the bytes must have
# arrived in mr_a (a READ of 10 bytes, or into another offset, completes
# with SUCCESS too).
@test "lesson 7's READ step passes when mr_a holds \"secret data\" and refuses a successful READ that left \"secret dat\" or nothing there" {
    stubbed_lesson 07-rdma-read.lua '
      local st = step("READ")
      for _, held in ipairs { "secret data", "secret dat\0", ("\0"):rep(11) } do
        mr_a = fake("mr", { read = function(_, off, n) return off == 0 and held:sub(1, n) or "" end })
        wcs = { { wr_id = 2, status = "SUCCESS", opcode = "RDMA_READ", byte_len = 11, qp_num = 0x11 } }
        print(st.check({}))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = 'true	RDMA_READ SUCCESS byte_len=11; mr_a = "secret data"' ]
    [ "${lines[1]}" = 'false	mr_a does not hold "secret data"' ]
    [ "${lines[2]}" = "${lines[1]}" ]
    [ "${#lines[@]}" -eq 3 ]
}

# Lesson 8's CAS step judges by the old values in mr_a when the learner's
# `wcs = cq:wait(1)` twice kept only the second completion: both 0 is
# "nothing yet"; one of them 0 is a CAS that went wrong, said as such.
@test "lesson 8's compare-and-swap step: old values 11 and 100 pass; 0 and 100 is the first CAS's fault, 11 and 0 the second's; both 0 is no completion yet" {
    stubbed_lesson 08-atomics.lua '
      local st = step("Compare and swap")
      cq = fake("cq", { poll = function() return {} end, wait = function() return {} end })
      for _, c in ipairs { { 11, 100 }, { 0, 100 }, { 11, 0 }, { 0, 0 } } do
        mr_a = fake("mr", { read = function(_, off) return string.pack("=I8", off == 200 and c[1] or off == 208 and c[2] or 0) end })
        mr_b = fake("mr", { read = function() return string.pack("=I8", 100) end })
        wcs = {}
        print(st.check({}))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "true	first CAS returned 11 (won), second returned 100 (lost); word = 100" ]
    [ "${lines[1]}" = "false	the first CAS should have returned 11" ]
    [ "${lines[2]}" = "false	the second CAS should have returned 100" ]
    [ "${lines[3]}" = "false	no completions for wr_id 21 and 22 yet" ]
    [ "${#lines[@]}" -eq 4 ]
}

# A WRITE that failed may find mr_b already holding the text (an earlier
# try wrote it): the step judges the completion first.
@test "lesson 6's WRITE step: wr_id 1 as a SUCCESS RDMA_WRITE passes; REM_ACCESS_ERR, or a SEND, is refused by its completion though mr_b holds \"one-sided\"" {
    stubbed_lesson 06-rdma-write.lua '
      qp_a, qp_b = fake("qp", { qp_num = 0x11 }), fake("qp", { qp_num = 0x12 })
      mr_b = fake("mr", { read = function(_, off, n) return off == 0 and ("one-sided"):sub(1, n) or "" end })
      cq = fake("cq", { poll = function() return {} end, wait = function() return {} end })
      local st = step("RDMA WRITE")
      for _, c in ipairs { { "SUCCESS", "RDMA_WRITE" }, { "REM_ACCESS_ERR", "RDMA_WRITE" }, { "SUCCESS", "SEND" } } do
        wcs = { { wr_id = 1, qp_num = 0x11, status = c[1], opcode = c[2], byte_len = 9 } }
        print(st.check({}))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = 'true	RDMA_WRITE SUCCESS byte_len=9; mr_b = "one-sided"; no completion on qp_b' ]
    [ "${lines[1]}" = "false	wr_id 1 completed with REM_ACCESS_ERR" ]
    [ "${lines[2]}" = "false	wr_id 1 completed with SEND SUCCESS byte_len=9" ]
    [ "${#lines[@]}" -eq 3 ]
}

@test "lesson 16's figures: CPU is user + system time, the later getrusage's minus the earlier's, and the wall time per exchange is verbs.now's difference over n; the idle round's the same for one SEND" {
    stubbed_lesson 16-events.lua '
      local wc = { status = "SUCCESS" }
      CQ = { poll = function() return { wc } end, req_notify = function() end, ack_events = function() end }
      local qp = { post_recv = function() end, post_send = function() end }
      K.rc_qp = function() return qp end
      ctx = { alloc_pd = function() return { reg_mr = function() return {} end } end,
              create_comp_channel = function() return {} end,
              create_cq = function() return CQ end }
      rc_connect = function() end
      L.setup()
      -- (user and system time apart, each a different binary fraction: the
      -- sum and the difference of each pair are unlike)
      local use = { { ru_utime = 1.25, ru_stime = 0.5 }, { ru_utime = 1.5, ru_stime = 0.875 } }
      local clock = { 10, 12.5 }
      verbs.getrusage = function() return table.remove(use, 1) end
      verbs.now = function() return table.remove(clock, 1) end
      local r = exchange_round("busy", 5)
      print(r.mode, r.n, r.usec, r.cpu_ms, r.cpu_share)
      use = { { ru_utime = 2.0, ru_stime = 0.25 }, { ru_utime = 2.125, ru_stime = 0.75 } }
      clock = { 20, 20.5 }
      CQ.poll = function() return { { status = "RETRY_EXC_ERR" } } end
      r = idle_round("busy")
      print(r.mode, r.n, r.usec, r.cpu_ms, r.cpu_share)'
    echo "$output"
    [ "$status" -eq 0 ]
    # 2.5 s over 5 exchanges: 500000 us each; CPU (1.5 + 0.875) - (1.25 + 0.5) = 0.625 s
    [ "${lines[0]}" = "busy	5	500000.0	625.0	0.25" ]
    # one SEND in 0.5 s; CPU (2.125 + 0.75) - (2.0 + 0.25) = 0.625 s
    [ "${lines[1]}" = "busy idle	1	500000.0	625.0	1.25" ]
    [ "${#lines[@]}" -eq 2 ]
}

@test "lesson 19's lost-SEND check judges the two completions of the second SEND: when qp_b's receive holds the wrong bytes it is refused and both are set aside, so a redo that only rewrites mr_b, with no new receive, is refused as no completion yet" {
    stubbed_lesson 19-uc.lua '
      local K = require "verbs.lesson_kit"
      qp_a, qp_b = fake("qp", { qp_num = 0x31 }), fake("qp", { qp_num = 0x32 })
      local mem = "secnod"
      mr_b = fake("mr", { read = function(_, off, n) return off == 1024 and n == 6 and mem or "" end })
      local polls = 0
      cq = fake("cq", {
        poll = function() polls = polls + 1
          if polls > 1 then return {} end
          return { { wr_id = 5, status = "SUCCESS", opcode = "SEND", qp_num = 0x31 },
                   { wr_id = 101, status = "SUCCESS", opcode = "RECV", qp_num = 0x32, byte_len = 6 } }
        end,
        wait = function(_, n, ms) print("wait", n, ms) return {} end })
      first = { { wr_id = 4, status = "SUCCESS", opcode = "SEND", qp_num = 0x31 } }
      local S, lost = {}, step("Unreliable: nobody tells the sender")
      print(lost.check(S))
      print(K.forget_judged(S))
      mem = "second"
      print(lost.check(S))'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == "  (the check polled cq) wcs[1] = "* ]]
    [[ ${lines[1]} == "  (the check polled cq) wcs[2] = "* ]]
    [ "${lines[2]}" = "false	qp_b's receive does not hold \"second\"" ]
    [ "${lines[3]}" = "2" ]
    # (the redo: nothing live, so the check waits for its two, 300 ms)
    [ "${lines[4]}" = "wait	2	300" ]
    [ "${lines[5]}" = "false	no completion for qp_b's receive (wr_id 101) yet" ]
    [ "${#lines[@]}" -eq 6 ]
}

@test "lesson 3's event step wants both completions, each SUCCESS: the SEND's (wr_id 3) and the RECV's (wr_id 4); either alone or failed is refused, and both pass with their notes" {
    stubbed_lesson 03-cq.lua '
      K.step_wcs = function() return WCS end
      cq = fake("cq", {}); ev_cq = cq
      local send = { wr_id = 3, status = "SUCCESS", opcode = "SEND", byte_len = 5 }
      local recv = { wr_id = 4, status = "SUCCESS", opcode = "RECV", byte_len = 5 }
      for _, l in ipairs { { recv }, { send }, { { wr_id = 3, status = "WR_FLUSH_ERR" }, recv },
                           { send, { wr_id = 4, status = "LOC_LEN_ERR" } }, { recv, send } } do
        WCS = l
        print(step("Sleeping until a completion").check({}))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    local no="false	no completions for wr_id 3 and 4 seen yet"
    [ "${lines[0]}" = "$no" ]
    [ "${lines[1]}" = "$no" ]
    [ "${lines[2]}" = "$no" ]
    [ "${lines[3]}" = "$no" ]
    [ "${lines[4]}" = "true	event on cq, then SEND SUCCESS byte_len=5; RECV SUCCESS byte_len=5" ]
    [ "${#lines[@]}" -eq 5 ]
}
