-- A simulated seat for tests/host/room.bats: it speaks the seat's protocol
-- through the real code (verbs.progress.write, which hands each record to
-- verbs.room.flush), with VERBSH_ROOM, RXE_SEAT and XDG_STATE_HOME set by
-- the test. What seat K reports follows from K alone (tests/room/expect.py
-- computes the same):
--   01-devices: steps 1..K%5 passed by hand, "finished" when that is 4;
--   05-rc-send: step 1 skipped on even seats, step 2 passed on seats
--               divisible by 3; then the seat is on step 3 with an error;
--   03-cq: on seats divisible by 7, three steps checked by --auto, finished.
-- `seat.lua K part` runs the part of a seat that reconnects (tests/room/seats).
local P = require "verbs.progress"
local k, part = tonumber(arg[1]), arg[2]
local function w(lesson, what, title)
  assert(P.write(lesson, what, title), "progress.write wrote nothing: is VERBSH_PROGRESS=1 set?")
end
local function devices(from, to)
  for j = from, to do
    w("01-devices", ("at step %d/4"):format(j), "Step " .. j)
    w("01-devices", ("step %d/4 passed"):format(j), "Step " .. j)
  end
end
local a = k % 5
-- flush: send what the room has not acknowledged, waiting up to 5 s for it
if part == "flush" then assert(require("verbs.room").flush(5)) os.exit(0) end
if part == "before" then devices(1, math.min(a, 2)) os.exit(0) end
if part == "offline" then devices(3, a) os.exit(0) end
if part ~= "after" then devices(1, a) end
if a == 4 then w("01-devices", "finished") end
if k % 2 == 0 then w("05-rc-send", "step 1/4 skipped", "Send") end
if k % 3 == 0 then w("05-rc-send", "step 2/4 passed", "Receive") end
w("05-rc-send", "at step 3/4", "Poll the CQ")
w("05-rc-send", "error step 3/4", ("Not done yet: seat %d polled 0x%x completions"):format(k, 0x1234 + k))
if k % 7 == 0 then
  for j = 1, 3 do w("03-cq", ("step %d/3 auto"):format(j), "Auto " .. j) end
  w("03-cq", "finished auto")
end
-- Its last act: whatever the room has not acknowledged yet (a busy room
-- drops datagrams), sent again, waiting up to 5 s for the acknowledgement.
require("verbs.room").flush(5)
