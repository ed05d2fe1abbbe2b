#!/usr/bin/env bats
# verbs.oob: the out-of-band exchange between two processes, over TCP on
# loopback. No RDMA device needed.
load ../helpers

# A free TCP port for this test.
port() { echo $((20000 + (RANDOM % 20000))); }

@test "oob: two processes swap connection data as typed values" {
    p=$(port)
    "$VERBSH" -e "
        local oob = require 'verbs.oob'
        local l = oob.listen($p)
        local c = l:accept()
        local peer = c:recv()
        c:send{ qp_num = 0x12, psn = 0xabcdef, gid = '::ffff:192.0.2.1', lid = 0 }
        print(('server got qp_num=%#x rkey=%#x addr=%#x ok=%s'):format(peer.qp_num, peer.rkey, peer.addr, peer.ok))
    " >"$BATS_TEST_TMPDIR/srv" 2>&1 &
    srv=$!
    run "$VERBSH" -e "
        local oob = require 'verbs.oob'
        local c = oob.connect('127.0.0.1', $p)
        c:send{ qp_num = 0x11, rkey = 0x1234, addr = 0x7f0000001000, ok = true }
        local peer = c:recv()
        print(('client got qp_num=%#x psn=%#x gid=%s %s'):format(peer.qp_num, peer.psn, peer.gid, math.type(peer.lid)))
    "
    wait $srv
    [ "$status" -eq 0 ]
    [ "$output" = "client got qp_num=0x12 psn=0xabcdef gid=::ffff:192.0.2.1 integer" ]
    [ "$(cat "$BATS_TEST_TMPDIR/srv")" = "server got qp_num=0x11 rkey=0x1234 addr=0x7f0000001000 ok=true" ]
}

@test "oob: a peer that sends garbage gives a clear error" {
    p=$(port)
    "$VERBSH" -e "
        local s = require('socket').bind('127.0.0.1', $p)
        local c = s:accept(); c:send('HELLO I AM NOT VERBSH\n'); require('socket').sleep(2)
    " &
    srv=$!
    run "$VERBSH" -e "local c = require('verbs.oob').connect('127.0.0.1', $p); c:recv()"
    wait $srv
    [ "$status" -eq 1 ]
    [[ $output == *"oob: bad message from 127.0.0.1:$p: not a verbsh-oob/1 message"* ]]
}

@test "oob: a garbage line is quoted by its first 80 bytes, the 80th included, the 81st not" {
    p=$(port)
    local a79 line
    a79=$(printf 'A%.0s' $(seq 79))
    line="${a79}BCCCCCCCCCCCCCCCCCCC"
    "$VERBSH" -e "
        local s = require('socket').bind('127.0.0.1', $p)
        local c = s:accept(); c:send('$line\n'); require('socket').sleep(2)
    " &
    srv=$!
    run "$VERBSH" -e "local c = require('verbs.oob').connect('127.0.0.1', $p); print(select(2, pcall(c.recv, c)))"
    wait $srv
    [ "$status" -eq 0 ]
    echo "$output"
    [ "$output" = "oob: bad message from 127.0.0.1:$p: not a verbsh-oob/1 message; is the peer another verbsh? (got \"${a79}B\")" ]
}

@test "oob: a peer that closes early gives a clear error" {
    p=$(port)
    "$VERBSH" -e "
        local s = require('socket').bind('127.0.0.1', $p)
        local c = s:accept(); c:send('verbsh-oob/1 qp_num=i:1'); c:close()
    " &
    srv=$!
    run "$VERBSH" -e "local c = require('verbs.oob').connect('127.0.0.1', $p); c:recv()"
    wait $srv
    [ "$status" -eq 1 ]
    [[ $output == *"closed the connection in the middle of a message"* ]]
}

@test "oob: a silent peer times out instead of hanging" {
    p=$(port)
    "$VERBSH" -e "
        local s = require('socket').bind('127.0.0.1', $p)
        local c = s:accept(); require('socket').sleep(5)
    " &
    srv=$!
    SECONDS=0
    run "$VERBSH" -e "local oob = require('verbs.oob'); oob.timeout = 1; oob.connect('127.0.0.1', $p):recv()"
    kill $srv 2>/dev/null || true
    [ "$status" -eq 1 ]
    [[ $output == *"no message from 127.0.0.1:$p within 1s"* ]]
    # nothing arrived, so no partial line is named
    has_line "(command line):1: oob: no message from 127.0.0.1:$p within 1s"
    [ "$SECONDS" -lt 5 ]
}

@test "oob: a peer that stops in the middle of a line times out naming what it sent" {
    p=$(port)
    "$VERBSH" -e "
        local s = require('socket').bind('127.0.0.1', $p)
        local c = s:accept(); c:send('verbsh-oob/1 qp_num=i:4660'); require('socket').sleep(5)
    " &
    srv=$!
    run "$VERBSH" -e "local oob = require('verbs.oob'); oob.timeout = 1; oob.connect('127.0.0.1', $p):recv()"
    kill $srv 2>/dev/null || true
    echo "$output"
    [ "$status" -eq 1 ]
    has_line "(command line):1: oob: no message from 127.0.0.1:$p within 1s (a partial line \"verbsh-oob/1 qp_num=i:4660\")"
}

@test "oob: malformed fields and unsendable values are errors" {
    run "$VERBSH" -e "
        local oob = require 'verbs.oob'
        for _, line in ipairs{ 'verbsh-oob/1 qp_num=i:12x', 'verbsh-oob/1 s=s:%4', 'verbsh-oob/1 =i:1' } do
            print((select(2, pcall(oob.decode, line, 'peer'))))
        end
        -- an i: field is a decimal integer: no fraction, hex, exponent or overflow
        for _, v in ipairs{ '1.5', '0x10', '1e3', '99999999999999999999', '' } do
            print(pcall(oob.decode, 'verbsh-oob/1 n=i:' .. v, 'peer'))
        end
        local m = oob.decode('verbsh-oob/1 a=i:-7 b=i:9223372036854775807 c=f:1.5 t=b:1 f=b:0', 'peer')
        print(m.a, math.type(m.a), m.b, m.c, m.t, m.f)
        print(pcall(oob.decode, 'verbsh-oob/1 ok=b:2', 'peer'))   -- a b: field is 1 or 0
        print((select(2, pcall(oob.encode, { f = print }))))
        print((select(2, pcall(oob.encode, { [1] = 2 }))))
    "
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == *'malformed field "qp_num=i:12x"'* ]]
    [[ ${lines[1]} == *'malformed field "s=s:%4"'* ]]
    [[ ${lines[2]} == *'malformed field "=i:1"'* ]]
    [ "${lines[3]}" = 'false	oob: bad message from peer: malformed field "n=i:1.5" (got "verbsh-oob/1 n=i:1.5")' ]
    [ "${lines[4]}" = 'false	oob: bad message from peer: malformed field "n=i:0x10" (got "verbsh-oob/1 n=i:0x10")' ]
    [ "${lines[5]}" = 'false	oob: bad message from peer: malformed field "n=i:1e3" (got "verbsh-oob/1 n=i:1e3")' ]
    [[ ${lines[6]} == 'false	'*'malformed field "n=i:99999999999999999999"'* ]]
    [[ ${lines[7]} == 'false	'*'malformed field "n=i:"'* ]]
    [ "${lines[8]}" = "-7	integer	9223372036854775807	1.5	true	false" ]
    [[ ${lines[9]} == 'false	'*'malformed field "ok=b:2"'* ]]
    [[ ${lines[10]} == *"cannot send a function value"* ]]
    [[ ${lines[11]} == *"bad key"* ]]
}

@test "oob: listen binds to 127.0.0.1 unless told otherwise" {
    run "$VERBSH" -e "local l = require('verbs.oob').listen(0); print(l.addr, l.port > 0, tostring(l))"
    [ "$status" -eq 0 ]
    [[ $output == "127.0.0.1	true	oob listener on 127.0.0.1:"* ]]
}

@test "oob: verbs.wait_fds waits on a listener (a partner to accept) and a connection (a message)" {
    run "$VERBSH" -e '
      local oob = verbs.oob
      local l = oob.listen(0)
      print(#verbs.wait_fds({ l }, 50))                 -- nobody yet
      local c = oob.connect("127.0.0.1", l.port)
      print(verbs.wait_fds({ l }, 2000)[1] == l)        -- a partner waits
      local s = l:accept()
      print(#verbs.wait_fds({ s }, 50))                 -- no message yet
      c:send{ qp_num = 7 }
      print(verbs.wait_fds({ s }, 2000)[1] == s, s:recv().qp_num)
      s:close()
      print(pcall(verbs.wait_fds, { s }, 10))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "0" ]
    [ "${lines[1]}" = "true" ]
    [ "${lines[2]}" = "0" ]
    [ "${lines[3]}" = "true	7" ]
    [[ ${lines[4]} == "false	"*"oob: connection is closed"* ]]
}

@test "oob: a line longer than max_line is refused naming the peer, one byte at the limit is still waited for; a connection names its peer, and says when it is closed" {
    run "$VERBSH" -e '
      local oob = verbs.oob
      oob.max_line = 100
      local l = oob.listen(0)
      local c = oob.connect("127.0.0.1", l.port)
      local s = l:accept()
      local _, cport = c.sock:getsockname()
      print(tostring(c) == "oob connection to 127.0.0.1:" .. l.port, tostring(s) == "oob connection to 127.0.0.1:" .. cport)
      c.sock:send(("x"):rep(100))
      print(select(2, pcall(s.recv, s, 0.5)))
      local c2 = oob.connect("127.0.0.1", l.port)
      local s2 = l:accept()
      local _, c2port = c2.sock:getsockname()
      c2.sock:send(("y"):rep(101))
      print(select(2, pcall(s2.recv, s2, 0.5)) == ("oob: 127.0.0.1:%d sent over 100 bytes without a newline"):format(c2port))
      c:close()
      print(tostring(c) == "oob connection to 127.0.0.1:" .. l.port .. " (closed)")'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "true	true" ]
    [[ ${lines[1]} == "oob: no message from 127.0.0.1:"[0-9]*" within 0.5s (a partial line \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\")" ]]
    [ "${lines[2]}" = "true" ]
    [ "${lines[3]}" = "true" ]
}

@test "oob: accept with nobody coming times out naming the listener and the wait; connect to a port nobody listens on retries for its whole timeout, then names the last error" {
    run "$VERBSH" -e '
      local oob, socket = verbs.oob, require "socket"
      local l = oob.listen(0)
      print(select(2, pcall(l.accept, l, 0.3)) == ("oob: no peer connected to 127.0.0.1:%d within 0.3s (timeout)"):format(l.port))
      oob.timeout = 0.2
      print(select(2, pcall(l.accept, l)) == ("oob: no peer connected to 127.0.0.1:%d within 0.2s (timeout)"):format(l.port))
      local port = l.port
      l:close()
      local t0 = socket.gettime()
      local ok, err = pcall(oob.connect, "127.0.0.1", port, 0.7)
      local took = socket.gettime() - t0
      print(ok, err == ("oob: cannot connect to 127.0.0.1:%d within 0.7s: connection refused"):format(port))
      print(took >= 0.7, took < 1.5)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "true" ]
    [ "${lines[1]}" = "true" ]
    [ "${lines[2]}" = "false	true" ]
    [ "${lines[3]}" = "true	true" ]
}

# connect's last try starts before its deadline, none at it: with a clock
# that sleep moves by exactly 0.25 s, timeout 1 is tries at 0, 0.25, 0.5 and
# 0.75 (each given what is left of the timeout), then the error at 1.
@test "oob: connect with a stepped clock tries at 0, 0.25, 0.5 and 0.75 of a 1 s timeout, not at 1 itself, then names the last error" {
    run "$VERBSH" -e '
      local oob, socket = verbs.oob, require "socket"
      local now, tries = 0, {}
      socket.gettime = function() return now end
      socket.sleep = function() now = now + 0.25 end
      socket.tcp = function()
        return { settimeout = function(_, t) tries[#tries + 1] = ("%g@%g"):format(t, now) end,
                 connect = function() return nil, "connection refused" end, close = function() end }
      end
      print(pcall(oob.connect, "192.0.2.1", 7471, 1))
      print(#tries, table.concat(tries, " "), now)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "false	oob: cannot connect to 192.0.2.1:7471 within 1s: connection refused" ]
    [ "${lines[1]}" = "4	1@0 0.75@0.25 0.5@0.5 0.25@0.75	1.0" ]
}

@test "oob: connect keeps trying until a listener that starts late is there" {
    p=$(port)
    "$VERBSH" -e "
        require('socket').sleep(0.6)
        local l = verbs.oob.listen($p)
        local c = l:accept(5)
        c:send{ late = 0x2b }
    " &
    srv=$!
    run "$VERBSH" -e "
      local t0 = require('socket').gettime()
      local c = verbs.oob.connect('127.0.0.1', $p, 5)
      print(c:recv().late, require('socket').gettime() - t0 >= 0.5)"
    wait $srv
    [ "$status" -eq 0 ]
    [ "$output" = "43	true" ]
}

@test "oob: a recv that timed out in the middle of a line keeps what it had: the next recv returns the whole message" {
    run "$VERBSH" -e '
      local oob = verbs.oob
      local l = oob.listen(0)
      local c = oob.connect("127.0.0.1", l.port)
      local s = l:accept()
      c.sock:send("verbsh-oob/1 qp_num=i:46")
      print(pcall(s.recv, s, 0.3))
      c.sock:send("60 psn=i:1193046\n")
      local m = s:recv(2)
      print(m.qp_num, m.psn)'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == "false	oob: no message from 127.0.0.1:"[0-9]*" within 0.3s (a partial line \"verbsh-oob/1 qp_num=i:46\")" ]]
    [ "${lines[1]}" = "4660	1193046" ]
}

@test "oob: send and recv on a closed connection are errors that say so, at the caller's line; closing twice is no error" {
    run "$VERBSH" -e '
      local oob = verbs.oob
      local l = oob.listen(0)
      local c = oob.connect("127.0.0.1", l.port)
      local s = l:accept()
      c:close(); c:close()
      print(pcall(c.recv, c, 0.2))
      print(pcall(c.send, c, { n = 1 }))
      print(select(2, pcall(function()
        c:recv(0.2) end)))
      s:close(); l:close()'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'false\toob: connection is closed' ]
    [ "${lines[1]}" = $'false\toob: connection is closed' ]
    [ "${lines[2]}" = '(command line):10: oob: connection is closed' ]
    [ "${#lines[@]}" -eq 3 ]
}

@test "oob: a message send refuses (a key that is no identifier, a value of a type it cannot send, no table) is an error at the caller's line" {
    run "$VERBSH" -e '
      local oob = verbs.oob
      local l = oob.listen(0)
      local c = oob.connect("127.0.0.1", l.port)
      print(select(2, pcall(function()
        c:send{ [1] = 2 } end)))
      print(select(2, pcall(function()
        c:send{ x = {} } end)))
      print(select(2, pcall(function()
        c:send(5) end)))
      c:close(); l:close()'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = '(command line):6: oob: bad key "1" (keys are identifiers)' ]
    [ "${lines[1]}" = '(command line):8: oob: cannot send a table value' ]
    [ "${lines[2]}" = '(command line):10: oob: send wants a table' ]
    [ "${#lines[@]}" -eq 3 ]
}

@test "oob: connect closes the socket of each attempt that failed: no descriptor is left to the garbage collector" {
    run "$VERBSH" -e "$FDS_LUA"'
      collectgarbage("stop")
      local l = verbs.oob.listen(0); local port = l.port; l:close()   -- a port nobody listens on now
      local before = fds()
      local ok, e = pcall(verbs.oob.connect, "127.0.0.1", port, 0.5)
      print(ok, (tostring(e):gsub(":%d+ within", ":PORT within")), fds() - before)'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == $'false\toob: cannot connect to 127.0.0.1:PORT within 0.5s: '*$'\t0' ]]
}
