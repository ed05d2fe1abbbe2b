#!/usr/bin/env bats
# The course on real rxe: every lesson's model solutions pass their checks
# (--auto), a check does not pass before its task is done, and a learner can
# take a lesson through the REPL by typing at a terminal.
load ../helpers

setup() { require_device; }

# Runs one lesson non-interactively; its transcript is the test's output.
# With VERBSH_LESSON_RETRY=1 each step whose check judges completions is
# also taken as a failed try (its completions turned to LOC_LEN_ERR) and a
# retry: the check must refuse the failure, then pass on the redone step.
# $3: how many steps of the lesson went through that drill.
auto() {
    run env ${3:+VERBSH_LESSON_RETRY=1} "$VERBSH" --lesson "$1" --auto
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output == *"PASS $2"* ]]
    [ "$(grep -c '(retry drill: the check refused them: ' <<<"$output")" -eq "${3:-0}" ]
}

@test "lesson 1 devices: --auto passes" { auto 1 devices; }
@test "lesson 2 pd-mr: --auto passes" { auto 2 pd-mr; }
@test "lesson 3 cq: --auto passes, and each completion step after a failed try" { auto 3 cq 2; }
@test "lesson 4 rc-states: --auto passes, and shows the EINVAL explanation" {
    auto 4 rc-states 1
    [[ $output == *"EINVAL"* ]]
}
@test "lesson 5 rc-send: --auto passes" { auto 5 rc-send 4; }
@test "lesson 6 rdma-write: --auto passes" { auto 6 rdma-write 2; }
@test "lesson 7 rdma-read: --auto passes" { auto 7 rdma-read 3; }
@test "lesson 8 atomics: --auto passes" { auto 8 atomics 3; }
@test "lesson 9 ud: --auto passes" { auto 9 ud 2; }
@test "lesson 10 rc-errors: --auto passes" { auto 10 rc-errors 6; }
@test "lesson 11 srq: --auto passes" { auto 11 srq 1; }
@test "lesson 12 ud-drops: --auto passes" { auto 12 ud-drops 4; }
@test "lesson 18 memory-windows: --auto passes, and each step after a failed try" {
    auto 18 memory-windows 6
    [[ $output == *"invalidated_rkey 0x"*" = rkey2"* ]]
    [[ $output == *"READ with rkey3 0x"*" after LOCAL_INV: REM_ACCESS_ERR"* ]]
}
@test "lesson 19 uc: --auto passes on one device (five steps), and each completion step after a failed try" {
    auto 19 uc 2
    [[ $output == *"Lesson uc complete (5 steps)"* ]]
    [[ $output == *"EINVAL, qp_a still INIT"* ]]
    [[ $output == *"refused at post: UC has no READ or atomics"* ]]
}
@test "the whole course --auto leaves nothing behind: every object a lesson made was destroyed by its own verb (C's view: the recorded calls, tests/lua/leftovers.lua)" {
    # (without the retry drill: a step run twice drops its first objects to the garbage collector)
    run "$VERBSH" -e "dofile('$ROOT/tests/lua/leftovers.lua').record('$BATS_TEST_TMPDIR/calls')" --lesson all --auto
    echo "$output" | grep -E '^(PASS|SKIP|FAIL) '
    # 22 lessons, each passed or skipped for want of a second device (17: two RoCE devices; 22: siw beside rxe)
    [ "$(grep -cE '^(PASS|SKIP) ' <<<"$output")" -eq 22 ]
    [ "$(grep -c '^SKIP ' <<<"$output")" -eq "$(grep -cE '^SKIP (on-the-wire|iwarp): ' <<<"$output")" ]
    grep -q '^PASS iwarp' <<<"$output" || [ -z "${SIW_DEV:-}" ]
    if grep -q '^SKIP ' <<<"$output"; then [ "$status" -eq 77 ]; else [ "$status" -eq 0 ]; fi
    run lua5.4 "$ROOT/tests/lua/leftovers.lua" "$BATS_TEST_TMPDIR/calls"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output =~ ^nothing\ left:\ every\ object\ made\ in\ [0-9]{4,}\ calls\ was\ destroyed$ ]]
}

@test "lesson 17 on-the-wire on one device: skipped (77), saying how to get two" {
    # (an iWARP device beside rxe, as tests/run's guest has, is no partner for it)
    [ "$(grep -L RNIC /sys/class/infiniband/*/node_type | wc -l)" -eq 1 ] || skip "this host has more than one RoCE device: tests/vm/wire.bats runs the lesson"
    run "$VERBSH" --lesson on-the-wire --auto
    echo "$output"
    [ "$status" -eq 77 ]
    [[ $output == *"This lesson cannot run here: it needs two RDMA devices joined by a link (only $RXE_DEV is here): start it with \`make run TWO=1\` (or scripts/rxe-vm --two -- ./verbsh --lesson on-the-wire)"* ]]
}

# Drives the runner the way the REPL does (after_eval after each chunk) and
# asserts that a step stays open until the device's state says it is done.
# Issue 13's student: a receive too small fails both completions; after a
# reconnect the step redone right must pass (it used to judge the old
# failure), and what the check polled is handed back to the learner's own
# cq:wait, which used to block until Ctrl-C.
@test "a failed try then a fix: the step passes on the retry; the check's completions come back to cq:wait" {
    run "$VERBSH" -e '
      local L, repl = require "verbs.lesson", require "verbs.repl"
      local function step() return L.current().i end
      local function eval(code) load(code)(); repl.after_eval(true) end
      L.start("rc-send")
      eval([[mr_a:write(0, "hello")]])
      eval([[qp_b:post_recv{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 2}}}]])
      eval([[qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}]])
      print("A", step(), qp_a.state, qp_b.state)
      check()
      eval([[w = cq:wait(2, 1000)]])
      print("B", #w, w[1] and w[1].status, w[2] and w[2].status)
      eval([[rc_connect(qp_a, qp_b); rc_connect(qp_b, qp_a)]])
      eval([[qp_b:post_recv{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 64}}}]])
      eval([[qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}]])
      print("C", step())
      eval([[wcs = cq:wait(2)]])
      print("D", #wcs, wcs[1].status, wcs[2].status)
      local got, why = cq:wait(1, 50)
      print("E", #got, why)'
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "A	1	ERR	ERR"
    [[ $output == *"Not done yet: a completion failed: "*"ERR"* ]]
    has_line "B	2	REM_OP_ERR	LOC_QP_OP_ERR" || has_line "B	2	LOC_QP_OP_ERR	REM_OP_ERR"
    has_line "C	2"                # the retry passed step 1
    has_line "D	2	SUCCESS	SUCCESS" # handed back, not a hang
    has_line "E	0	timed out after 50 ms: 0 of 1 completions"
}

@test "checks look at real state: half-done tasks do not pass" {
    run "$VERBSH" -e '
      local L, repl = require "verbs.lesson", require "verbs.repl"
      local function step() return L.current().i end
      local function eval(code) load(code)(); repl.after_eval(true) end
      L.start("rc-states")
      eval("x = 1")
      print("A", step())
      eval([[qp_a = pd:create_qp{qp_type = "RC", send_cq = cq, recv_cq = cq, cap = {max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1}}]])
      print("B", step())
      eval([[qp_b = pd:create_qp{qp_type = "RC", send_cq = cq, recv_cq = cq, cap = {max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1}}]])
      print("C", step())
      eval([[qp_a:modify{qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0}]])
      print("D", step())
      eval([[qp_b:modify{qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0}]])
      print("E", step())
      eval([[err = "EINVAL"]])
      print("F", step())
      eval([[ok, err = pcall(qp_a.modify, qp_a, {qp_state = "RTR"})]])
      print("G", step())
      L.start("rc-send")
      eval([[qp_b:post_recv{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 64}}}]])
      print("H", step())
      eval([[mr_a:write(0, "hello")]])
      eval([[qp_a:post_send{wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}]])
      print("I", step(), #wcs)'
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "A	1"        # an unrelated chunk
    has_line "B	1"        # only one of the two QPs
    has_line "C	2"        # both QPs exist, in RESET
    has_line "D	2"        # qp_b still in RESET
    has_line "E	3"        # both in INIT
    has_line "F	3"        # a string is not the verb's error
    has_line "G	4"        # the real EINVAL, qp_a still INIT
    has_line "H	1"        # a receive alone completes nothing
    [[ $output == *"(the check polled cq) wcs[1] ="* ]]
    has_line "I	2	2"     # SEND and RECV seen; both kept in wcs
}

@test "lesson 8's fetch-and-add step passes when the FAA was posted and not waited for: the check polls its completion itself, and holds it in wcs" {
    run "$VERBSH" -e '
      local L, repl = require "verbs.lesson", require "verbs.repl"
      local function eval(code) load(code)(); repl.after_eval(true) end
      L.start("atomics")
      print("A", L.current().i)
      eval([[qp_a:post_send{wr_id = 1, opcode = "ATOMIC_FETCH_AND_ADD", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 8}}, atomic = {remote_addr = mr_b.addr, rkey = mr_b.rkey, compare_add = 1}}]])
      print("B", L.current().i, #wcs, wcs[1] and wcs[1].opcode, (string.unpack("=I8", mr_b:read(0, 8))))'
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "A	1"
    [[ $output == *"(the check polled cq) wcs[1] = "* ]]
    [[ $output == *"fetched 0, counter now 1"* ]]
    has_line "B	2	1	FETCH_ADD	1"
}

@test "a check judges every completion of the try, however the learner polled; after a failed try it judges only the redo" {
    run "$VERBSH" -e '
      local L, repl = require "verbs.lesson", require "verbs.repl"
      local function step() return L.current().i end
      local function eval(code) load(code)(); repl.after_eval(true) end
      L.start("rc-send")
      skip() skip()
      print("A", step())
      -- a SIGNALED send where the task forbids it: cq:wait(1) takes back
      -- only the RECV, the check still sees the SEND it polled
      eval([[qp_b:post_recv{wr_id = 102, sg_list = {{mr = mr_b, offset = 0, length = 64}}}]])
      eval([[qp_a:post_send{wr_id = 3, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}]])
      eval([[wcs = cq:wait(1)]])
      print("B", step())
      check()
      -- the redo, unsignaled: judged on its own completions
      eval([[qp_b:post_recv{wr_id = 102, sg_list = {{mr = mr_b, offset = 0, length = 64}}}]])
      eval([[qp_a:post_send{wr_id = 3, opcode = "SEND", sg_list = {{mr = mr_a, offset = 0, length = 5}}}]])
      eval([[wcs = cq:wait(1)]])
      print("C", step())
      L.start("rdma-write")
      -- the next step`s WRITE_WITH_IMM first: qp_b gets a completion
      eval([[mr_a:write(0, "one-sided")]])
      eval([[qp_b:post_recv{wr_id = 200, sg_list = {}}]])
      eval([[qp_a:post_send{wr_id = 1, opcode = "RDMA_WRITE_WITH_IMM", imm_data = 1, send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 9}}, rdma = {remote_addr = mr_b.addr, rkey = mr_b.rkey}}]])
      check()
      eval([[qp_a:post_send{wr_id = 1, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 9}}, rdma = {remote_addr = mr_b.addr, rkey = mr_b.rkey}}]])
      eval([[wcs = cq:wait(1)]])
      print("D", step())
      -- restart() drops what the check held: the learner`s wait gets the redo`s
      L.start("rdma-write")
      eval([[mr_a:write(0, "one-sided")]])
      eval([[qp_b:post_recv{wr_id = 200, sg_list = {}}]])
      eval([[qp_a:post_send{wr_id = 1, opcode = "RDMA_WRITE_WITH_IMM", imm_data = 1, send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 9}}, rdma = {remote_addr = mr_b.addr, rkey = mr_b.rkey}}]])
      restart()
      eval([[qp_a:post_send{wr_id = 1, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 9}}, rdma = {remote_addr = mr_b.addr, rkey = mr_b.rkey}}]])
      eval([[wcs = cq:wait(1)]])
      print("E", step(), wcs[1].opcode, #cq:poll())'
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "A	3"
    has_line "B	3"     # the SIGNALED send does not pass
    [[ $output == *"Not done yet: wr_id 3 completed: was it SIGNALED?"* ]]
    [[ $output == *"(the check set those completions aside as a failed try"*"redo the task"* ]]
    has_line "C	4"     # the redo passes
    [[ $output == *"Not done yet: qp_b got a completion"* ]]
    has_line "D	2"     # the redo passes on its own WRITE
    has_line "E	2	RDMA_WRITE	0"   # nothing of the first try is handed back
}

@test "mistakes a student made get a verdict that names them" {
    run "$VERBSH" -e '
      local L, repl = require "verbs.lesson", require "verbs.repl"
      local function step() return L.current().i end
      local function eval(code) load(code)(); repl.after_eval(true) end
      -- lesson 15 step 1 without wr_flags = "SIGNALED"
      L.start("post-send-ex")
      print("cq", cq.cqe)   -- the CQ the lesson says it made: create_cq_ex{ cqe = 64, ... }, as rxe rounds it
      eval([[mr_a:write(0, "hello")]])
      eval([[qp_b:post_recv{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 64}}}]])
      eval([[qp_a:wr_start(); qp_a.wr_id = 1; qp_a:wr_send(); qp_a:wr_set_sge(mr_a, 0, 5); qp_a:wr_complete()]])
      print("A", step())
      check()
      -- lesson 10 step 3 with the receive forgotten: RNR, named as such
      L.start("rc-errors")
      skip() skip()
      eval([[rc_connect(qp_a, qp_b, {rnr_retry = 0}); rc_connect(qp_b, qp_a)]])
      eval([[qp_a:post_send{wr_id = 3, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 5}}}]])
      print("B", step())
      check()
      -- lesson 7 step 2 reports what was queried, not a fixed "asked 3"
      L.start("rdma-read")
      skip()
      eval([[rc_connect(qp_b, qp_a, {max_dest_rd_atomic = 1}); rc_connect(qp_a, qp_b, {max_rd_atomic = 1})]])
      print("C", step())
      -- a lesson object destroyed or replaced: the check says which
      L.start("rc-send")
      eval([[qp_a:destroy(); mr_b = nil]])
      check()'
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "cq	127"   # rxe: a queue of a power of two slots, one kept free (cqe 63 would stay 63)
    has_line "A	1"
    [[ $output == *"Not done yet: the SEND was not SIGNALED"* ]]
    has_line "B	3"
    [[ $output == *"Not done yet: wr_id 3 ended RNR_RETRY_EXC_ERR: no receive was posted on qp_b"* ]]
    has_line "C	3"
    [[ $output == *"step 2 done: queried max_dest_rd_atomic=1 (qp_b), max_rd_atomic=1 (qp_a); the task asks for 3"* ]]
    [[ $output == *"mr_b was replaced (it is nil now); qp_a is destroyed: "*'restart("lesson") rebuilds them'* ]]
}

@test "a step gone too far or a receive never posted: the check says how to go on" {
    run "$VERBSH" -e '
      local L, repl = require "verbs.lesson", require "verbs.repl"
      local function step() return L.current().i end
      local function eval(code) load(code)(); repl.after_eval(true) end
      -- lesson 4 step 3 done with the full RTR (the next step`s task)
      L.start("rc-states")
      skip() skip()
      eval([[qp_a:modify{qp_state = "RTR", path_mtu = "1024", dest_qp_num = qp_b.qp_num, rq_psn = 0, max_dest_rd_atomic = 1, min_rnr_timer = 12, ah_attr = {is_global = 1, port_num = 1, grh = {dgid = ctx:query_gid(1, gid_index), sgid_index = gid_index, hop_limit = 1}}}]])
      print("A", step())
      check()
      hint()
      -- lesson 12 step 2 without the receive: step 3 does not hang and says why
      L.start("ud-drops")
      skip()
      eval([[qp_a:post_send{wr_id = 2, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 9}}, ud = {ah = ah, remote_qpn = qp_b.qp_num, remote_qkey = 0x22222222}}]])
      eval([[wcs = cq:wait(2, 500)]])
      print("B", step())
      eval([[qp_a:post_send{wr_id = 3, opcode = "SEND", send_flags = "SIGNALED", sg_list = {{mr = mr_a, offset = 0, length = 9}}, ud = {ah = ah, remote_qpn = qp_b.qp_num, remote_qkey = 0x11111111}}]])
      check()
      print("C", step())'
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "A	3"
    [[ $output == *"Not done yet: qp_a is in RTR, past INIT"*'"RESET"'*"try the RTR without ah_attr"* ]]
    [[ $output == *'qp_a:modify{qp_state = "RESET"}'* ]]
    [[ $output == *"wr_id 3 was sent but the receive wr_id 100 has not completed: was it posted in step 2?"* ]]
    has_line "C	3"
}

# A learner at a terminal: the REPL's prompt shows progress and each task
# typed at it is recognised.
@test "a lesson taken at the prompt through a pty" {
    command -v expect >/dev/null || skip "expect is not installed"
    run expect -c '
      set timeout 60
      spawn '"$VERBSH"' --lesson devices
      expect_after timeout { puts "\nTIMEOUT: the prompt or message expected did not come"; exit 98 }
      expect -re {\[devices 1/4\] verbsh> $}
      send "ctx = verbs.open()\r"
      expect "✓ step 1 done"
      expect -re {\[devices 2/4\] verbsh> $}
      send "port = 42\r"
      expect -re {\[devices 2/4\] verbsh> $}
      send "port = ctx:query_port(1)\r"
      expect "✓ step 2 done"
      expect -re {\[devices 3/4\] verbsh> $}
      send "skip()\r"
      expect "✓ step 3 done"
      send "progress()\r"
      expect "devices: step 4/4"
      send "dev = ctx:query_device()\r"
      expect "★ Lesson devices complete"
      # Readline turns bracketed paste on before each prompt (ESC [?2004h).
      expect -re {\n(\x1b\[\?2004h)?verbsh> $}
      send "os.exit(0)\r"
      expect eof
      catch wait result
      exit [lindex $result 3]'
    echo "$output"
    [ "$status" -eq 0 ]
    # what a teacher collects: the lesson finished by hand
    run "$VERBSH" --progress
    echo "$output"
    [[ $output =~ 01-devices\ +finished:\ 3\ passed,\ 1\ skipped,\ 0\ checked\ by\ --auto,\ of\ 4\ steps\ +\(20 ]]
}

@test "lesson 13 pair-lab: --auto passes against a partner verbsh process (OOB exchange, SEND, RDMA WRITE)" {
    auto 13 pair-lab
    [[ $output == *"the partner answered \"HELLO PARTNER\""* ]]
    [[ $output == *"the partner's memory holds \"written by verbsh\""* ]]
}

# The partner's answer reaches the learner before the partner sees its own
# SEND complete, so a learner may WRITE at once: a partner that cleared its
# memory after answering wiped a WRITE that had landed (a CI run's zeros).
# Here the WRITE goes out right behind the SEND, before any answer.
@test "pair_partner: an RDMA WRITE posted right behind the SEND, before the answer, is what the partner reports; distinct texts each way" {
    run "$VERBSH" -e '
      local K = require "verbs.lesson_kit"
      local p = K.spawn("'"$ROOT"'/examples/pair_partner.lua", { "--port", "0" })
      local host, port = p:wait_for("listening on ([%d.]+):(%d+)")
      local ctx = verbs.open(); local pd = ctx:alloc_pd(); local cq = ctx:create_cq(8)
      local mr = pd:reg_mr(4096, { "LOCAL_WRITE" })
      local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } }
      local gi = K.roce_gid(ctx, 1)
      local conn = verbs.oob.connect(host, tonumber(port))
      conn:send{ qp_num = qp.qp_num, psn = 0x1234, gid = ctx:query_gid(1, gi) }
      local peer = conn:recv()
      qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }
      qp:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = peer.qp_num, rq_psn = peer.psn, max_dest_rd_atomic = 1, min_rnr_timer = 12,
                 ah_attr = { is_global = 1, port_num = 1, grh = { dgid = peer.gid, sgid_index = gi, hop_limit = 1 } } }
      qp:modify{ qp_state = "RTS", sq_psn = 0x1234, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1 }
      mr:write(0, "ping, then a write")      -- 18 bytes, the SEND
      mr:write(100, "early WRITE #7")        -- 14 bytes, the WRITE
      qp:post_recv{ wr_id = 9, sg_list = { { mr = mr, offset = 1024, length = 1024 } } }
      qp:post_send{ wr_id = 1, opcode = "SEND", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 0, length = 18 } } }
      qp:post_send{ wr_id = 2, opcode = "RDMA_WRITE", send_flags = "SIGNALED", sg_list = { { mr = mr, offset = 100, length = 14 } },
                    rdma = { remote_addr = peer.addr, rkey = peer.rkey } }
      local got = {}
      for _, wc in ipairs(cq:wait(3, 10000)) do got[#got + 1] = ("%d %s %s"):format(wc.wr_id, wc.opcode, wc.status) end
      table.sort(got)
      print(table.concat(got, ", "))
      print(mr:read(1024, 18))
      conn:send{ written = 14 }
      print(conn:recv().seen)
      while p:alive() do require("socket").sleep(0.05) end
      io.write(p:output())'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "1 SEND SUCCESS, 2 RDMA_WRITE SUCCESS, 9 RECV SUCCESS" ]
    [ "${lines[1]}" = "PING, THEN A WRITE" ]
    [ "${lines[2]}" = "early WRITE #7" ]
    has_line 'partner: your RDMA WRITE left "early WRITE #7" in my memory'
}

@test "lesson 14 rdma-cm: --auto passes against a partner verbsh process (resolve, connect with private data, SEND, disconnect)" {
    auto 14 rdma-cm
    [[ $output == *"bound to $RXE_DEV; peer $RXE_ADDR:"* ]]
    [[ $output == *"qp RC 0x"*" INIT, made by rdma_create_qp"* ]]
    [[ $output == *"connected; the partner says \"welcome from the partner\"; qp went INIT -> RTR -> RTS without a modify"* ]]
    [[ $output == *'"RTS"	196	"welcome from the partner"'* ]]
    [[ $output == *"the partner answered \"HELLO PARTNER\""* ]]
    [[ $output == *"disconnected; qp is ERR"* ]]
}

@test "lesson 15 post-send-ex: --auto passes (wr_* builder, start_poll/read_*/end_poll, cq:iter)" {
    auto 15 post-send-ex 2
    [[ $output == *"RECV wr_id 100 byte_len 5"* ]]
    [[ $output == *'mr_b+512 = "written", mr_a+1024 = "read back"'* ]]
    # the retry drill runs the step's solution twice: the second FAA fetches the first one's 1
    # and leaves 2 (the 8-byte word at mr_b+2048 itself)
    [[ $output == *'step 4 done: FAA old value 1, word now 2; RECV imm_data 42, "inline"'* ]]
}

@test "lesson 16 events: --auto passes and prints the CPU time of spinning and of sleeping, from getrusage" {
    auto 16 events 1
    [[ $output == *"the channel woke wait_fds, the event named cq, and both completions were polled"* ]]
    [[ $output == *"busy idle   one slow SEND:"*"CPU "*" ms ("*"% of the wall time)"* ]]
    [[ $output == *"events idle one slow SEND:"*"CPU "*" ms ("*"% of the wall time)"* ]]
    [[ $output == *"for a slow completion cost "*" ms of CPU spinning, "*" ms sleeping"* ]]
    # The shares, against what one thread allows: CPU time counted from the
    # round's start can never pass its wall time (105: the figures are
    # rounded); spinning through a slow SEND takes at least half the wall
    # time, sleeping through it at most half.
    local shares
    shares=$(sed -n 's/.*, CPU [0-9]* ms (\([0-9]*\)% of the wall time)$/\1/p' <<<"$output")
    echo "shares: $shares"
    [ "$(wc -l <<<"$shares")" -ge 4 ]
    local p
    for p in $shares; do [ "$p" -le 105 ] || return 1; done
    p=$(sed -n 's/^ *busy idle   one slow SEND:.*(\([0-9]*\)% of the wall time)$/\1/p' <<<"$output" | tail -1)
    [ "$p" -ge 50 ]
    p=$(sed -n 's/^ *events idle one slow SEND:.*(\([0-9]*\)% of the wall time)$/\1/p' <<<"$output" | tail -1)
    [ "$p" -le 50 ]
}

@test "lesson 20 multicast: --auto passes (one send, two receivers: rdma_cm join and attach_mcast), and the send step after a failed try" {
    auto 20 multicast 1
    [[ $output == *"joined: dgid ::ffff:239.1.2.3, qp_num 0xffffff, qkey 0x1234567"* ]]
    [[ $output == *'both got "hello, group" from QPN 0x'*": one send, two receives"* ]]
    [[ $output == *"the send completed SUCCESS and nobody received it"* ]]
}

@test "lesson 21 rdma-verbs: --auto passes against examples/rdma_server.lua, and the send/answer step after a failed try" {
    auto 21 rdma-verbs 1
    [[ $output == *"$RXE_ADDR:"*", an RC QP"* ]]
    [[ $output == *'"verbsh answers!!"'* ]]    # the first try's answer, read back
    [[ $output == *'the server answered "HELLO, SERVER!!!"'* ]]   # the retry's message, answered in capitals
    [[ $output == *"everything freed, as rdma_client.c ends"* ]]
}

# Issue 13 items 1, 2 and 8 as a student meets them, typed at a terminal:
# lesson 4's failing RTR typed plainly (no pcall) counts and leaves its
# explanation in view; in lesson 5 a receive too small fails, check() says
# so, and after reconnecting the redone step passes; the completions the
# check polled come back to the student's own cq:wait.
@test "lessons 4 and 5 by hand through a pty: a plain failing verb counts; a failed try, then the fix" {
    command -v expect >/dev/null || skip "expect is not installed"
    export XDG_STATE_HOME=$BATS_TEST_TMPDIR/state
    run expect -c '
      set timeout 60
      spawn '"$VERBSH"' --lesson rc-states
      expect_after timeout { puts "\nTIMEOUT: the prompt or message expected did not come"; exit 98 }
      expect -re {\[rc-states 1/[0-9]+\] verbsh> $}
      send "skip()\r"
      expect "✓ step 1 done"
      expect -re {\[rc-states 2/[0-9]+\] verbsh> $}
      send "skip()\r"
      expect "✓ step 2 done"
      expect -re {\[rc-states 3/[0-9]+\] verbsh> $}
      send "qp_a:modify{qp_state = \"RTR\", path_mtu = \"1024\", dest_qp_num = qp_b.qp_num, rq_psn = 0, max_dest_rd_atomic = 1, min_rnr_timer = 12}\r"
      expect "ibv_modify_qp failed: EINVAL"
      expect "✓ step 3 done: EINVAL errno 22, qp_a still INIT"
      expect "(Read the explanation above. show() prints step 4"
      expect -re {\[rc-states 4/[0-9]+\] verbsh> $}
      send "lesson \"rc-send\"\r"
      expect -re {\[rc-send 1/4\] verbsh> $}
      send "mr_a:write(0, \"hello\")\r"
      expect -re {\[rc-send 1/4\] verbsh> $}
      send "qp_b:post_recv{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 2}}}\r"
      expect -re {\[rc-send 1/4\] verbsh> $}
      send "qp_a:post_send{wr_id = 1, opcode = \"SEND\", send_flags = \"SIGNALED\", sg_list = {{mr = mr_a, offset = 0, length = 5}}}\r"
      expect -re {\[rc-send 1/4\] verbsh> $}
      send "check()\r"
      expect "Not done yet: a completion failed:"
      expect -re {\[rc-send 1/4\] verbsh> $}
      send "rc_connect(qp_a, qp_b); rc_connect(qp_b, qp_a)\r"
      expect -re {\[rc-send 1/4\] verbsh> $}
      send "qp_b:post_recv{wr_id = 100, sg_list = {{mr = mr_b, offset = 0, length = 64}}}\r"
      expect -re {\[rc-send 1/4\] verbsh> $}
      send "qp_a:post_send{wr_id = 1, opcode = \"SEND\", send_flags = \"SIGNALED\", sg_list = {{mr = mr_a, offset = 0, length = 5}}}\r"
      expect "✓ step 1 done: RECV SUCCESS byte_len=5, SEND SUCCESS byte_len=5, mr_b = \"hello\""
      expect -re {\[rc-send 2/4\] verbsh> $}
      send "#cq:wait(2)\r"
      expect "2"
      expect -re {\[rc-send 2/4\] verbsh> $}
      send "os.exit(0)\r"
      expect eof
      catch wait result
      exit [lindex $result 3]'
    echo "$output"
    [ "$status" -eq 0 ]
    # what a teacher collects: the steps passed (and skipped) by hand, and when
    run "$VERBSH" --progress
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "Progress per seat (the log: $XDG_STATE_HOME/verbsh/progress):" ]
    [[ ${lines[1]} == "host "*", machine "* ]]
    # step 3 passed by hand, steps 1 and 2 skipped: one passed, not three
    [[ $output =~ 04-rc-states\ +1\ passed,\ 2\ skipped,\ 0\ checked\ by\ --auto,\ of\ [0-9]+\ steps\ +\(20[0-9-]+T[0-9:]+Z\ \.\.\ 20 ]]
    [[ $output =~ 05-rc-send\ +1\ passed,\ 0\ skipped,\ 0\ checked\ by\ --auto,\ of\ 4\ steps\ +\( ]]
    run "$VERBSH" --progress --json
    echo "$output"
    [[ $output == '{"log":"'"$XDG_STATE_HOME/verbsh/progress"'","seats":[{"seat":"host '*'","lessons":[{"lesson":"04-rc-states","passed":1,"skipped":2,"auto":0,"steps":'* ]]
    [[ $output == *'{"lesson":"05-rc-send","passed":1,"skipped":0,"auto":0,"steps":4,"finished":false,"first":"20'* ]]
}

@test "rc_connect, which help suggests for scripts, works where ctx is a local, not a global" {
    run "$VERBSH" -e '
      local rc_connect = require("verbs.lesson_kit").rc_connect
      local ctx = verbs.open()
      local pd, cq = ctx:alloc_pd(), ctx:create_cq(8)
      local function qp() return pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,
        cap = { max_send_wr = 4, max_recv_wr = 4, max_send_sge = 1, max_recv_sge = 1 } } end
      local a, b = qp(), qp()
      rc_connect(a, b); rc_connect(b, a, { sq_psn = 0x1234 })
      print(rawget(_G, "ctx"), a.state, b.state, a:query().dest_qp_num == b.qp_num)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "nil	RTS	RTS	true" ]
}
