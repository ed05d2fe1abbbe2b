#!/usr/bin/python3
"""Checks room.json cell by cell against what tests/room/seat.lua sends.

usage: expect.py ROOM.JSON|--events FIRST LAST STUCK_SEAT [OTHER_SEAT...]
Seat K of FIRST..LAST follows seat.lua's rules; STUCK_SEAT sent the backlog
tests/room/seats wrote by hand (05-rc-send step 1 passed, then stuck on step
2). OTHER_SEATs are real seats in the same room: they must be there, the
caller checks their cells; the room's event count is then not checked."""
import json
import sys

first, last, stuck = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
others = ["seat %d" % int(n) for n in sys.argv[5:]]
sim = range(first, last + 1)
errors, cells = [], 0


def want(k):
    """The lessons, the current step and the event count seat k sent."""
    if k == stuck:
        return ({"05-rc-send": dict(passed=1, skipped=0, auto=0, steps=4, finished=False, auto_finished=False)},
                dict(lesson="05-rc-send", step=2, steps=4, stuck=True,
                     error="Not done yet: qp_b has no receive posted (seat %d)" % k), 3)
    a, les, events = k % 5, {}, 0
    if a:
        les["01-devices"] = dict(passed=a, skipped=0, auto=0, steps=4, finished=a == 4, auto_finished=False)
        events += 2 * a + (a == 4)
    les["05-rc-send"] = dict(passed=int(k % 3 == 0), skipped=int(k % 2 == 0), auto=0, steps=4,
                             finished=False, auto_finished=False)
    events += (k % 2 == 0) + (k % 3 == 0) + 2
    if k % 7 == 0:
        les["03-cq"] = dict(passed=0, skipped=0, auto=3, steps=3, finished=False, auto_finished=True)
        events += 4
    cur = dict(lesson="05-rc-send", step=3, steps=4, error="Not done yet: seat %d polled 0x%x completions" % (k, 0x1234 + k))
    return les, cur, events


if sys.argv[1] == "--events":
    print(sum(want(k)[2] for k in sim))
    sys.exit(0)
room = json.load(open(sys.argv[1]))
seats = {s["seat"]: s for s in room["seats"]}
if sorted(seats) != sorted(["seat %d" % k for k in sim] + others):
    errors.append("%d seats in room.json, want %d: %s" % (len(seats), len(sim) + len(others), sorted(seats)))
total = 0
for k in sim:
    s = seats.get("seat %d" % k)
    if not s:
        errors.append("seat %d is missing" % k)
        continue
    les, cur, events = want(k)
    total += events
    if s["events"] != events:
        errors.append("seat %d: %d events, want %d" % (k, s["events"], events))
    if set(s["lessons"]) != set(les):
        errors.append("seat %d: lessons %s, want %s" % (k, sorted(s["lessons"]), sorted(les)))
    for name, cell in les.items():
        got = s["lessons"].get(name, {})
        for key, value in cell.items():
            cells += 1
            if got.get(key) != value:
                errors.append("seat %d %s %s: %r, want %r" % (k, name, key, got.get(key), value))
    got = s.get("current") or {}
    for key, value in cur.items():
        cells += 1
        if got.get(key) != value:
            errors.append("seat %d current %s: %r, want %r" % (k, key, got.get(key), value))
    if k != stuck and got.get("stuck"):
        errors.append("seat %d is stuck, only seat %d should be" % (k, stuck))
if not others and room["events"] != total:
    errors.append("room events %d, want %d" % (room["events"], total))
if room["stuck"] != ["seat %d" % stuck]:
    errors.append("stuck %r, want only seat %d" % (room["stuck"], stuck))
if errors:
    print("\n".join(errors))
    sys.exit(1)
print("ok: %d seats, %d cells, %d events" % (len(sim), cells, total))
