-- verbs.room_view: what the room shows of a snapshot (verbs.room's
-- Room:snapshot(), the data of room.json): the terminal's table, one line
-- per seat, and room.html, a self-contained page that reloads itself.
local M = {}

local function ago(sec)
  sec = math.max(0, math.floor(sec))
  if sec < 60 then return sec .. " s" end
  if sec < 3600 then return ("%d min"):format(sec // 60) end
  return ("%d h %02d min"):format(sec // 3600, sec % 3600 // 60)
end

local function cell(e)
  if not e then return "none", "" end
  if e.finished then return "done", "✓" end
  local done = e.passed + e.skipped
  if done > 0 then return "work", ("%d/%s"):format(done, e.steps or "?") end
  if e.auto > 0 then return e.auto_finished and "auto" or "work", ("A%d/%s"):format(e.auto, e.steps or "?") end
  return "work", ("0/%s"):format(e.steps or "?")
end

local function short(name) return name:match("^(%d+)%-") or name end

-- The terminal table: one line per seat.
function M.table_text(snap)
  local lines = {}
  local head = { ("%-9s"):format("seat") }
  for _, l in ipairs(snap.lessons) do head[#head + 1] = ("%5s"):format(short(l)) end
  lines[1] = table.concat(head, "") .. "  now"
  for _, s in ipairs(snap.seats) do
    local cols = { ("%-9s"):format(s.seat:gsub("^seat ", "#"):sub(1, 9)) }
    for _, l in ipairs(snap.lessons) do
      local _, txt = cell(s.lessons[l])
      cols[#cols + 1] = (" "):rep(5 - utf8.len(txt == "" and "." or txt)) .. (txt == "" and "." or txt)
    end
    local st = {}   -- the words of its "now" column, one space apart
    if s.duplicate then st[#st + 1] = "DUPLICATE" end
    if s.silent then st[#st + 1] = "SILENT" end
    if s.current then
      local c = s.current
      st[#st + 1] = (c.stuck and "STUCK " or "") .. ("%s %d/%s %s"):format(c.lesson, c.step, c.steps or "?", ago(c.seconds))
        .. (c.stuck and c.error and (": " .. c.error) or "")
    end
    if s.mtu_mismatch then st[#st + 1] = ("MTU %d"):format(s.health.mtu) end
    lines[#lines + 1] = table.concat(cols, "") .. "  " .. table.concat(st, " ")
  end
  lines[#lines + 1] = ("%d seats, %d events, %d repeats dropped, %d refused, %s"):format(#snap.seats, snap.events,
    snap.duplicates_dropped, #snap.refused, snap.generated)
  return table.concat(lines, "\n")
end

local function h(s)
  return (tostring(s):gsub("[&<>\"]", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;" }))
end

-- The page: self-contained (no script, no external file), reloading itself.
function M.html(snap, every)
  local o = {}
  local function w(...) for i = 1, select("#", ...) do o[#o + 1] = select(i, ...) end end
  w([[<!DOCTYPE html>
<html><head><meta charset="utf-8"><meta http-equiv="refresh" content="]], every, [[">
<title>verbsh room</title>
<style>
body{font:14px sans-serif;margin:12px;color:#222;background:#fff}
table.room{border-collapse:separate;border-spacing:2px}
th,td{padding:2px 6px;text-align:center;height:18px}
th{background:#dde}
td.seat{background:#345678;color:#fff;text-align:left;font-weight:bold;white-space:nowrap}
td.done{background:#4caf50;color:#fff}td.work{background:#ffd54f}td.auto{background:#90caf9}
td.none{background:#eee}td.stuck{background:#e53935;color:#fff}
td.now{text-align:left;white-space:nowrap}
tr.silent td.seat{background:#999}tr.dup td.seat{outline:3px solid #e53935}
.err{color:#b71c1c;font-family:monospace}
h2{font-size:16px;margin:14px 0 4px}
</style></head><body>
<h1>verbsh room</h1>
<p>]], h(#snap.seats), " seats, ", h(snap.events), " events; listening on ", h(snap.listen or "?"),
    "; updated ", h(snap.generated), [[ (UTC).
Green: finished; yellow: working (steps done/steps); blue: checked by --auto only; red: stuck.</p>
<table class="room"><tr><th>seat</th>]])
  for _, l in ipairs(snap.lessons) do w('<th title="', h(l), '">', h(short(l)), "</th>") end
  w("<th>now</th></tr>\n")
  for _, s in ipairs(snap.seats) do
    w('<tr class="row', s.silent and " silent" or "", s.duplicate and " dup" or "", '" id="', h(s.seat:gsub(" ", "-")),
      '"><td class="seat">', h(s.seat), "</td>")
    for _, l in ipairs(snap.lessons) do
      local cls, txt = cell(s.lessons[l])
      if s.current and s.current.stuck and s.current.lesson == l then cls = "stuck" end
      w('<td class="', cls, '">', h(txt), "</td>")
    end
    w('<td class="now">')
    if s.current then
      w(h(("%s step %d/%s, %s"):format(s.current.lesson, s.current.step, s.current.steps or "?", ago(s.current.seconds))))
      if s.current.stuck and s.current.error then w(' <span class="err">', h(s.current.error), "</span>") end
    end
    if s.silent then w(" (silent since ", h(s.last_heard), ")") end
    if s.mtu_mismatch then w(" (MTU ", h(s.health.mtu), ")") end
    w("</td></tr>\n")
  end
  w("</table>\n")
  local function section(title, list, fmt)
    if #list == 0 then return end
    w("<h2>", h(title), "</h2><ul>")
    for _, x in ipairs(list) do w("<li>", fmt(x), "</li>") end
    w("</ul>\n")
  end
  local by = {}
  for _, s in ipairs(snap.seats) do by[s.seat] = s end
  section("Stuck", snap.stuck, function(seat)
    local c = by[seat].current
    return h(("%s: %s step %d/%s (%s) for %s"):format(seat, c.lesson, c.step, c.steps or "?", c.title or "", ago(c.seconds)))
      .. (c.error and (': <span class="err stuck-error">' .. h(c.error) .. "</span>") or "")
  end)
  section("Silent", snap.silent, function(seat) return h(seat .. ": last heard " .. (by[seat].last_heard or "?")) end)
  section("Duplicate seats", snap.duplicates, function(d)
    return h(("%s: machines %s; from %s%s"):format(d.seat, table.concat(d.machines, ", "), d.ip or "?",
      #d.other_ips > 0 and (", refused from " .. table.concat(d.other_ips, ", ")) or ""))
  end)
  section("MTU mismatches", snap.mtu_mismatch, function(m)
    return h(("%s: MTU %d, the room's is %d"):format(m.seat, m.mtu, m.room_mtu))
  end)
  section("Refused reports", snap.refused, function(r) return h(("%s (%d): %s"):format(r.ip, r.count, r.why)) end)
  w("</body></html>\n")
  return table.concat(o)
end

return M
