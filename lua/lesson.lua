-- The lesson runner: a guided course through RC and UD verbs on a real device.
--
--   verbsh --lesson              list the lessons
--   verbsh --lesson rc-send      start one (a number, a name or a unique prefix)
--   verbsh --lesson 5 --auto     run every step's model solution and check it;
--                                exit 0 only when every check passed
--   lesson "rc-send"             the same from the prompt; lesson() lists
--
-- A lesson (lessons/NN-name.lua) returns { title=, intro=, setup=fn, steps={...} }.
-- Each step has title, text, c (the C it corresponds to), task, hint,
-- solution (Lua code, as the learner would type it) and check(S), which looks
-- at real state (ibv_query_qp, CQ contents, MR bytes) and returns true[, note]
-- or false, why. S is a per-step table that enter(S) may fill first.
-- The runner never looks at what was typed: after every chunk the REPL
-- evaluates, it runs the current step's check.
local K = require "verbs.lesson_kit"
local repl = require "verbs.repl"

local M = { kit = K }
local cur            -- the running lesson: { lesson=, name=, short=, i=, S=, auto= }

local function out(...) io.write(...) io.write("\n") io.flush() end

-- Where lessons/*.lua live: $VERBSH_LESSONS, else next to the verbsh binary
-- or verbs.so that runs us (found in /proc/self/maps: pure Lua, no readlink),
-- else an installed copy, else ./lessons.
local function exists(path)
  local f = io.open(path .. "/01-devices.lua")
  if f then f:close() return true end
end
function M.dir()
  local env = os.getenv("VERBSH_LESSONS")
  if env and env ~= "" then return env end
  local cands = {}
  local maps = io.open("/proc/self/maps")
  if maps then
    for line in maps:lines() do
      local path = line:match("%s(/%S*/)verbsh$") or line:match("%s(/%S*/)verbs%.so$")
      if path then cands[#cands + 1] = path; break end
    end
    maps:close()
  end
  if arg and arg[0] then cands[#cands + 1] = (arg[0]:match("^(.*/)") or "./") end
  for _, base in ipairs(cands) do
    for _, rel in ipairs { "lessons", "../lessons", "../../lessons", "../share/verbsh/lessons" } do
      if exists(base .. rel) then return base .. rel end
    end
  end
  for _, d in ipairs { "/usr/local/share/verbsh/lessons", "/usr/share/verbsh/lessons", "lessons" } do
    if exists(d) then return d end
  end
  return nil, "cannot find the lessons directory (set VERBSH_LESSONS=/path/to/verbsh/lessons)"
end

-- { {num=1, name="01-devices", short="devices", path=..., title=...}, ... }
function M.list()
  local dir, err = M.dir()
  if not dir then error(err, 0) end
  local p = assert(io.popen('ls -1 "' .. dir .. '" 2>/dev/null'))
  local all = {}
  for file in p:lines() do
    local num, short = file:match("^(%d+)%-(.+)%.lua$")
    if num then
      all[#all + 1] = { num = tonumber(num), name = file:sub(1, -5), short = short,
                        path = dir .. "/" .. file }
    end
  end
  p:close()
  table.sort(all, function(a, b) return a.num < b.num end)
  return all
end

local function load_lesson(entry)
  local chunk, err = loadfile(entry.path, "t")
  if not chunk then error("lesson " .. entry.name .. ": " .. err, 0) end
  local l = chunk()
  assert(type(l) == "table" and type(l.steps) == "table",
         "lesson " .. entry.name .. " must return a table with steps")
  return l
end

-- "5", "05", "rc-send", "05-rc-send" or a unique prefix of the short name.
function M.find(what)
  local all = M.list()
  what = tostring(what)
  local n = tonumber(what)
  for _, e in ipairs(all) do
    if (n and e.num == n) or e.name == what or e.short == what then return e end
  end
  local hits = {}
  for _, e in ipairs(all) do
    if e.short:sub(1, #what) == what then hits[#hits + 1] = e end
  end
  if #hits == 1 then return hits[1] end
  local names = {}
  for _, e in ipairs(#hits > 1 and hits or all) do names[#names + 1] = e.short end
  error(("no lesson %s %q; %s: %s"):format(#hits > 1 and "uniquely named" or "named", what,
        #hits > 1 and "it could be" or "there are", table.concat(names, ", ")), 0)
end

-- Finished lessons, kept across sessions in $XDG_STATE_HOME/verbsh/finished
-- (default ~/.local/state): one lesson name per line.
local function state_file()
  local dir = os.getenv("XDG_STATE_HOME")
  if not dir or dir == "" then
    local home = os.getenv("HOME")
    if not home or home == "" then return nil end
    dir = home .. "/.local/state"
  end
  return dir .. "/verbsh", dir .. "/verbsh/finished"
end

function M.finished()
  local set = {}
  local _, file = state_file()
  local f = file and io.open(file)
  if f then
    for line in f:lines() do if line ~= "" then set[line] = true end end
    f:close()
  end
  return set
end

-- The progress log, beside it (verbs.progress): each step passed, skipped
-- or checked by --auto, each lesson finished, the step a learner is on and
-- its last error, with the seat and machine, for a teacher and the room.
local progress = require "verbs.progress"
local function log_progress(lesson_name, what, title)
  progress.write(lesson_name, what, title)
end

-- verbsh --progress [--json]: the log, summed up per seat and per lesson.
function M.progress_main(args) return progress.main(args) end

local function mark_finished(name)
  if M.finished()[name] then return end
  local dir, file = state_file()
  if not dir then return end
  os.execute(("mkdir -p '%s' 2>/dev/null"):format(dir:gsub("'", "'\\''")))
  local f = io.open(file, "a")
  if f then f:write(name, "\n") f:close() end
end

-- Transports: a lesson's table says which it runs on (transports = { "RoCE" },
-- or { "RoCE", "iWARP" }); one that says nothing is taken as RoCE's. The
-- device is the one verbs.open() opens: -d / VERBSH_DEVICE, else the first.
function M.transports(l) return type(l.transports) == "table" and l.transports or { "RoCE" } end
local function runs_on(l, t)
  for _, x in ipairs(M.transports(l)) do if x == t then return true end end
  return false
end
function M.device_transport()
  local ok, devs = pcall(verbs.devices)
  if not ok or #devs == 0 then return nil end
  local want, d = os.getenv("VERBSH_DEVICE"), nil
  for _, x in ipairs(devs) do if x.name == want then d = x end end
  d = d or devs[1]
  if d.transport_type == "IWARP" then return "iWARP", d.name end
  local f = io.open(("/sys/class/infiniband/%s/ports/1/link_layer"):format(d.name))
  local ll = f and f:read("l")
  if f then f:close() end
  return ll == "InfiniBand" and "InfiniBand" or "RoCE", d.name
end
-- The lessons that run on transport t, as "22 iwarp, ...".
local function lessons_on(t)
  local names = {}
  for _, e in ipairs(M.list()) do
    local ok, l = pcall(load_lesson, e)
    if ok and runs_on(l, t) then names[#names + 1] = ("%d %s"):format(e.num, e.short) end
  end
  return #names > 0 and table.concat(names, ", ") or "none"
end

function M.print_list()
  out("Lessons (start one with `lesson \"NAME\"` or `verbsh --lesson NAME`; ✓ finished):")
  local done = M.finished()
  local t, dev = M.device_transport()
  for _, e in ipairs(M.list()) do
    local ok, l = pcall(load_lesson, e)
    -- on a device of another transport than RoCE, which lessons it can run
    local note = ok and t and t ~= "RoCE" and not runs_on(l, t)
      and ("  [needs %s: not on %s, %s]"):format(table.concat(M.transports(l), " or "), dev, t) or ""
    out(("  %s %2d  %-14s %s%s"):format(done[e.name] and "✓" or " ", e.num, e.short,
        ok and l.title or ("(broken: " .. tostring(l) .. ")"), note))
  end
end

---------------------------------------------------------------------------
-- Running code as if typed at the prompt.

local function show_values(n, ...)
  if n == 0 then return end
  local ok, pretty = pcall(require, "verbs.pretty")
  local vals = table.pack(...)
  local parts = {}
  for i = 1, n do
    local v = vals[i]
    if ok and type(pretty) == "table" and type(pretty.format) == "function" then
      parts[i] = pretty.format(v)
    else
      parts[i] = K.repr(v)
    end
  end
  out(table.concat(parts, "\t"))
end

-- Runs `code` line by line the way the REPL does (try "return LINE" first,
-- keep reading while the chunk is incomplete), echoing each chunk after
-- `prompt` when echo is set. Returns false when a chunk raised.
function M.run_code(code, echo, prompt)
  local all_ok = true
  local buf
  for line in (code:gsub("\n+$", "") .. "\n"):gmatch("(.-)\n") do
    if echo then out((buf and ">> " or (prompt or "verbsh> ")) .. line) end
    buf = buf and (buf .. "\n" .. line) or line
    local fn = load("return " .. buf, "=stdin", "t")
    local err
    if not fn then fn, err = load(buf, "=stdin", "t") end
    if fn then
      buf = nil
      local res = table.pack(xpcall(fn, function(e)
        if type(e) == "table" then return e end
        -- the learner's frames only: the runner's own (lesson.lua) are noise
        local tb = debug.traceback(tostring(e), 2)
        return (tb:gsub("\n%s*%[C%]: in function 'xpcall'.*$", ""))
      end))
      if res[1] then
        show_values(res.n - 1, table.unpack(res, 2, res.n))
      else
        all_ok = false
        out(tostring(res[2]))
      end
    elseif not err:find("<eof>$") then
      buf = nil
      all_ok = false
      out(err)
    end
  end
  return all_ok
end

---------------------------------------------------------------------------
-- Steps.

local function dedent(s)
  s = (s or ""):gsub("^\n", ""):gsub("%s+$", "")
  local indent
  for l in s:gmatch("[^\n]+") do
    local sp = l:match("^( *)%S")
    if sp and (not indent or #sp < #indent) then indent = sp end
  end
  if indent and #indent > 0 then
    s = ("\n" .. s):gsub("\n" .. indent, "\n"):sub(2)
  end
  return s
end
M.dedent = dedent

local function indent(s, pre)
  local r = (pre .. dedent(s):gsub("\n", "\n" .. pre)):gsub(" +\n", "\n")
  return r
end

local function set_prefix()
  if cur and not cur.finished then
    repl.prefix = ("[%s %d/%d] "):format(cur.short, cur.i, #cur.lesson.steps)
  else
    repl.prefix = ""
  end
end

local function step() return cur.lesson.steps[cur.i] end

function M.show()
  if not cur then out("No lesson is running: lesson() lists them.") return end
  if cur.finished then out("Lesson " .. cur.short .. " is complete.") return end
  local st = step()
  local head = ("── %s %d/%d: %s "):format(cur.short, cur.i, #cur.lesson.steps, st.title)
  out("\n", head, ("─"):rep(math.max(4, 78 - utf8.len(head))))
  out(dedent(st.text))
  if st.c then out("\n  In C:\n", indent(st.c, "    ")) end
  out("\nTask: ", dedent(st.task))
  if not cur.auto then out("      (hint()  show()  skip()  check()  restart()  progress())") end
end

local function enter_step(hold, drop_held)
  local st = step()
  cur.S = {}
  -- What checks hold for the learner is an earlier step's or try's: never
  -- judged here, and after restart() not handed back either.
  K.scope_held(cur.S, drop_held)
  -- The WCs of this step: whatever the learner keeps in `wcs` from now on.
  local w = rawget(_G, "wcs")
  cur.S.wcs_tbl, cur.S.wcs_base = w, type(w) == "table" and #w or 0
  if st.enter then st.enter(cur.S) end
  set_prefix()
  if not cur.auto then log_progress(cur.name, ("at step %d/%d"):format(cur.i, #cur.lesson.steps), st.title) end
  if hold then
    out(("  (Read the explanation above. show() prints step %d, %q, when you are ready.)"):format(cur.i, st.title))
  else
    M.show()
  end
end

local function finish()
  cur.finished = true
  if not cur.auto then mark_finished(cur.name) log_progress(cur.name, "finished")
  else log_progress(cur.name, "finished auto") end
  set_prefix()
  repl.remove(M.after_eval)
  local all = M.list()
  local nxt
  for k, e in ipairs(all) do if e.name == cur.name then nxt = all[k + 1] end end
  out(("\n★ Lesson %s complete (%d steps). The objects stay yours to play with."):format(
      cur.short, #cur.lesson.steps))
  if nxt and not cur.auto then out(("  Next: lesson %q  -- %s"):format(nxt.short, load_lesson(nxt).title)) end
end

-- Why a check could not run, in the learner's terms: which of the objects
-- the lesson set up are destroyed or no longer in their global.
local function broken_objects()
  local gone, names = {}, {}
  for k in pairs(cur.objs or {}) do names[#names + 1] = k end
  table.sort(names)
  for _, k in ipairs(names) do
    local v, now = cur.objs[k], rawget(_G, k)
    local dead = tostring(v):match("^[%w_]+ %((.-)%)$")
    if now ~= v then
      gone[#gone + 1] = ("%s was replaced (it is %s now)"):format(k, now == nil and "nil" or tostring(now))
    elseif dead then
      gone[#gone + 1] = ("%s is %s"):format(k, dead)
    end
  end
  if #gone == 0 then return "" end
  return "\n  (" .. table.concat(gone, "; ") ..
    ": the lesson's objects are needed as it set them up; restart(\"lesson\") rebuilds them)"
end

-- Runs the current step's check. Returns passed, text. `told`: the learner
-- sees a failure's reason, so the failed completions it judged are an old
-- try's from now on (the silent check after each chunk marks nothing).
local function run_check(told)
  local st = step()
  local ok, passed, why, waiting = pcall(st.check, cur.S)
  if not ok then return false, "check could not run: " .. tostring(passed) .. broken_objects() end
  if not passed and told and K.forget_judged(cur.S) > 0 then
    why = (why or "the check did not pass") ..
      "\n  (the check set those completions aside as a failed try's: redo the task and it judges only the new ones)"
  end
  return passed and true or false, why, not passed and waiting == "partner" or nil
end

local function advance(note, hold)
  local st = step()
  cur.log[#cur.log + 1] = { i = cur.i, title = st.title, note = note }
  out(("✓ step %d done%s"):format(cur.i, note and (": " .. note) or ""))
  log_progress(cur.name, ("step %d/%d %s"):format(cur.i, #cur.lesson.steps,
    cur.auto and "auto" or cur.skipping == cur.i and "skipped" or "passed"), st.title)
  if st.after then st.after(cur.S) end
  if cur.i == #cur.lesson.steps then
    finish()
  else
    cur.i = cur.i + 1
    enter_step(hold)
  end
end

-- The learner's last error on this step goes to the progress log (and so
-- to the room), once per distinct text.
local function log_error(text)
  text = tostring(text or ""):match("^[^\n]*")
  if text == "" or (cur.last_err == text and cur.last_err_i == cur.i) then return end
  cur.last_err, cur.last_err_i = text, cur.i
  log_progress(cur.name, ("error step %d/%d"):format(cur.i, #cur.lesson.steps), text)
end

-- The REPL hook: after every chunk, see whether the task is done.
function M.after_eval(chunk_ok, err)
  if not cur or cur.finished or cur.auto or cur.busy then return end
  cur.busy = true
  local ok, e = pcall(function()
    local passed, note = run_check()
    -- A step done by a chunk that raised (the error is the lesson) leaves
    -- the explanation on screen: the next step waits for show().
    if passed then advance(note, chunk_ok == false)
    elseif chunk_ok == false then log_error(err) end
  end)
  cur.busy = false
  if not ok then out("lesson: ", tostring(e)) end
end

---------------------------------------------------------------------------
-- Commands.

local commands = {}
function commands.hint()
  if not cur or cur.finished then return end
  out(dedent(step().hint or "No hint for this step: try skip() to see the solution."))
end
commands.show = function() M.show() end
function commands.check()
  if not cur or cur.finished then return end
  local passed, why = run_check(true)
  if passed then
    advance(why)
  else
    out("Not done yet: ", why or "the check did not pass")
    if not cur.auto then log_error("Not done yet: " .. (why or "the check did not pass")) end
  end
end
function commands.skip()
  if not cur or cur.finished then return end
  out("The model solution, as you would type it:")
  cur.busy = true
  M.run_code(dedent(step().solution), true, repl.prefix .. "verbsh> ")
  cur.busy = false
  cur.skipping = cur.i   -- the progress log says so
  commands.check()
  cur.skipping = nil
end
-- restart() starts the current step over: its check forgets what it has
-- seen (the objects keep their state); restart("lesson") rebuilds the
-- lesson's objects and starts again at step 1.
function commands.restart(what)
  if not cur then return end
  if what == "lesson" or cur.finished then M.start(cur.name) return end
  if what ~= nil then out('restart() starts this step over; restart("lesson") the whole lesson') return end
  out(("Step %d starts over (its check forgets what it saw; restart(\"lesson\") rebuilds the objects)."):format(cur.i))
  enter_step(nil, true)
end
function commands.progress()
  local done, names = M.finished(), {}
  for _, e in ipairs(M.list()) do if done[e.name] then names[#names + 1] = e.short end end
  if cur then
    out(("%s: step %d/%d%s"):format(cur.short, cur.i, #cur.lesson.steps,
        cur.finished and " (complete)" or (" -- " .. step().title)))
  else
    out("No lesson is running.")
  end
  out(("Finished: %d of %d lessons%s"):format(#names, #M.list(), #names > 0 and (": " .. table.concat(names, ", ")) or ""))
end

local function install_commands()
  for k, f in pairs(commands) do _G[k] = f end
end
local function remove_commands()
  for k, f in pairs(commands) do if rawget(_G, k) == f then _G[k] = nil end end
end

---------------------------------------------------------------------------
-- Starting, stopping, auto mode.

function M.stop(quiet)
  if cur then
    repl.remove(M.after_eval)
    cur = nil
    set_prefix()
    remove_commands()
    if not quiet then out("Lesson stopped; its objects are still there.") end
  end
end

-- Loads the lesson and runs its setup. Returns the entry, or nil, reason when
-- the device lacks something the lesson needs.
local function begin(what, auto)
  local entry = type(what) == "table" and what or M.find(what)
  local l = load_lesson(entry)
  M.stop(true)
  local gone = K.teardown()
  if #gone > 0 then out("(A lesson starts afresh: destroyed ", table.concat(gone, ", "), ".)") end
  cur = { lesson = l, name = entry.name, short = entry.short, i = 1, auto = auto, log = {} }
  out(("\n════ Lesson %d: %s ════"):format(entry.num, l.title))
  if l.intro then out(dedent(l.intro)) end
  local t, dev = M.device_transport()
  if t and not runs_on(l, t) then
    local why = ("%s is an %s device, and this lesson runs on %s; the lessons that run on %s: %s"):format(dev, t,
      table.concat(M.transports(l), " or "), t, lessons_on(t))
    out("\nThis lesson cannot run here: ", why)
    M.stop(true)
    return nil, why
  end
  if l.setup then
    local ok, made = pcall(l.setup, K)
    if not ok then
      -- No device at all is "cannot run here" (exit 77 with --auto), with
      -- the explanation of why verbs.open failed; anything else is a bug.
      local okd, devs = pcall(verbs.devices)
      if okd and #devs > 0 then error(made, 0) end
      out("\nThis lesson cannot run here: no RDMA device.\n", tostring(made))
      M.stop(true)
      return nil, "no RDMA device"
    end
    if made then out("\nThe lesson set up for you: ", made) end
  end
  -- The verbs objects the setup left in globals, so that a check that
  -- cannot run can say which of them the learner destroyed or replaced.
  cur.objs = {}
  for k, v in pairs(_G) do
    if type(k) == "string" and K.kind(v) then cur.objs[k] = v end
  end
  if l.requires then
    local reason = l.requires(K)
    if reason then
      out("\nThis lesson cannot run here: ", reason)
      M.stop(true)
      return nil, reason
    end
  end
  return entry
end

function M.start(what)
  if not begin(what, false) then return end
  install_commands()
  repl.remove(M.after_eval)
  repl.add(M.after_eval)
  enter_step(nil, true)
end

-- VERBSH_LESSON_RETRY=1 with --auto: every step whose check judged
-- completions is also taken as a failed try and a retry. The completions of
-- the first try are turned into failures (LOC_LEN_ERR, as a receive too
-- small gives), the check must refuse them, then the model solution runs
-- again and the check must pass on the new completions alone. A step whose
-- solution cannot simply be redone says why in its `retry` field; `redo`
-- is what a learner types first to undo the failed try (reconnect a QP
-- that went to ERR, zero a counter).
local retry_drill = os.getenv("VERBSH_LESSON_RETRY") == "1"
local function retry_step(st, note)
  local judged = cur.S.judged
  if not judged or #judged == 0 then return true, note end
  if type(st.retry) == "string" then
    out("  (retry drill: not for this step: ", st.retry, ")")
    return run_check()
  end
  K.fail_wcs(judged, "LOC_LEN_ERR", cur.S)
  out("  (retry drill: the completions above now read LOC_LEN_ERR, as a failed try's would)")
  local passed, why = run_check(true)
  if passed then return false, "the check passed on failed completions: " .. tostring(why) end
  out("  (retry drill: the check refused them: ", tostring(why), "; now the step again)")
  if st.redo then M.run_code(dedent(st.redo), true, repl.prefix .. "verbsh> ") end
  M.run_code(dedent(st.solution), true, repl.prefix .. "verbsh> ")
  local ok, note = run_check()
  if not ok then return false, "after a failed try, the redone step did not pass: " .. tostring(note) end
  return true, note
end

-- Runs one lesson without a learner. Returns true, or false and the failed
-- step, or nil and the skip reason.
-- A lab whose partner runs in another seat may start first: a check that
-- says so (third value "partner") makes --auto start the lesson again, for
-- at most this long.
M.partner_wait = 120

function M.auto(what, deadline)
  local entry, reason = begin(what, true)
  if not entry then return nil, reason end
  enter_step()
  while true do
    local st = step()
    out("")
    M.run_code(dedent(st.solution), true, repl.prefix .. "verbsh> ")
    local passed, note, waiting = run_check()
    if passed and retry_drill then passed, note = retry_step(st, note) end
    deadline = deadline or os.time() + M.partner_wait
    if waiting and os.time() < deadline then
      out("\n… ", note, " (trying again in 2 s)")
      M.stop(true)
      K.teardown()
      require("socket").sleep(2)
      return M.auto(entry, deadline)
    end
    if not passed then
      local failed = ("lesson %s step %d (%s): %s"):format(cur.short, cur.i, st.title,
                                                            note or "check did not pass")
      out("\n✗ FAILED ", failed)
      M.stop(true)
      K.teardown()
      return false, failed
    end
    advance(note)
    if cur.finished then break end
  end
  out("\nObserved on this device:")
  for _, r in ipairs(cur.log) do
    out(("  %2d %-34s %s"):format(r.i, r.title, r.note or "ok"))
  end
  M.stop(true)
  K.teardown()
  return true
end

-- The global `lesson`: lesson() lists, lesson "x" starts, lesson(false) stops.
function M.lesson(what)
  if what == nil then
    if cur and not cur.finished then commands.progress() end
    M.print_list()
  elseif what == false or what == "stop" then
    M.stop()
  else
    M.start(what)
  end
end

-- Entry point for `verbsh --lesson [NAME|all] [--auto]`; args are the strings
-- after --lesson. Returns an exit status when the shell should exit, or nil
-- when it should go on into the REPL with the lesson running.
function M.main(args)
  args = args or {}
  local auto, names = false, {}
  for _, a in ipairs(args) do
    if a == "--auto" then auto = true else names[#names + 1] = a end
  end
  local ok, res = pcall(function()
    if #names == 0 and not auto then M.print_list() return 0 end
    if not auto then
      if #names > 1 then error("one lesson at a time (or --auto to run several)", 0) end
      M.start(names[1])
      return nil
    end
    if #names == 0 or names[1] == "all" then
      names = {}
      for _, e in ipairs(M.list()) do names[#names + 1] = e end
    end
    local status, summary = 0, {}
    for _, n in ipairs(names) do
      local entry = type(n) == "table" and n or M.find(n)
      local passed, why = M.auto(entry)
      local label = entry.short
      if passed then
        summary[#summary + 1] = "PASS " .. label
      elseif passed == nil then
        summary[#summary + 1] = "SKIP " .. label .. ": " .. why
        if status == 0 then status = 77 end
      else
        summary[#summary + 1] = "FAIL " .. why
        status = 1
      end
    end
    out("\n", table.concat(summary, "\n"))
    return status
  end)
  if not ok then
    out("verbsh --lesson: ", tostring(res))
    return 2
  end
  return res
end

function M.current() return cur end

-- The global: callable (lesson "rc-send"), and lesson.kit holds the helpers
-- the lessons use (lesson.kit.vm_pin_kb(), lesson.kit.roce_gid(ctx) ...).
_G.lesson = setmetatable({ kit = K, stop = function() M.stop() end, list = M.print_list },
                         { __call = function(_, what) return M.lesson(what) end })
return M
