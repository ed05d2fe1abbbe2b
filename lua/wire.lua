-- verbs.wire: RoCEv2 frames (as verbs.capture collects them, or a pcap
-- file holds them) decoded under the IBA spec's field names, and checked
-- against their ICRC. A frame is a userdata of src/wire.c whose headers are
-- read when asked (p.bth.psn); the ladder, the filter and the attribution
-- of frames to WRs are policy, here.
local core = require "verbs.wire_core"
local M = {}

local OPS = {
  [0] = "SEND_FIRST", "SEND_MIDDLE", "SEND_LAST", "SEND_LAST_WITH_IMMEDIATE",
  "SEND_ONLY", "SEND_ONLY_WITH_IMMEDIATE", "RDMA_WRITE_FIRST", "RDMA_WRITE_MIDDLE",
  "RDMA_WRITE_LAST", "RDMA_WRITE_LAST_WITH_IMMEDIATE", "RDMA_WRITE_ONLY",
  "RDMA_WRITE_ONLY_WITH_IMMEDIATE", "RDMA_READ_REQUEST", "RDMA_READ_RESPONSE_FIRST",
  "RDMA_READ_RESPONSE_MIDDLE", "RDMA_READ_RESPONSE_LAST", "RDMA_READ_RESPONSE_ONLY",
  "ACKNOWLEDGE", "ATOMIC_ACKNOWLEDGE", "COMPARE_SWAP", "FETCH_ADD", nil,
  "SEND_LAST_WITH_INVALIDATE", "SEND_ONLY_WITH_INVALIDATE",
}
M.opcodes = OPS
local TRANSPORT = { [0] = "RC", [1] = "UC", [2] = "RD", [3] = "UD" }

-- zlib's CRC-32, the ICRC's polynomial (src/wire.c).
M.crc32 = core.crc32
-- for p in M.frames("x.pcap"): one frame at a time, in constant memory.
M.frames = core.frames
-- Every frame of a pcap file in a list, as cap:packets() gives them.
M.read_pcap = core.read_pcap

-- Decodes one frame: a string starting with the Ethernet header, or a
-- frame (cap:packets(), read_pcap, frames). Returns the frame, or nil and
-- why it is not RoCEv2. The Ethernet, IP and UDP headers, the BTH and the
-- extended headers its opcode names are found in C (src/wire.c); a frame
-- of another transport would be recognized here, from the reason.
function M.decode(bytes)
  if type(bytes) ~= "string" and not core.is_frame(bytes) then
    error(("bad argument #1 to 'decode' (string expected, got %s)"):format(type(bytes)), 2)
  end
  return core.decode(bytes)
end

-- A frame of a list entry: a frame itself, or a table {bytes=, time=,
-- length=} as cap:packets() gave them before frames were userdata.
local function as_frame(pkt)
  if core.is_frame(pkt) then return pkt end
  if type(pkt) == "table" and type(rawget(pkt, "bytes")) == "string" then
    return core.frame(pkt.bytes, pkt.time, math.max(pkt.length or 0, #pkt.bytes))
  end
end

-- The packet list of a capture, or a list itself; nil for anything else.
local function list_of(packets)
  if type(packets) == "userdata" then
    local ok, l = pcall(packets.packets, packets)
    return ok and l or nil
  end
  return type(packets) == "table" and packets or nil
end

-- A capture of an iWARP device: TCP segments, drawn by lua/wire_iwarp_ladder.lua.
local function is_iwarp(cap)
  if type(cap) ~= "userdata" then return false end
  local ok, info = pcall(cap.info, cap)
  return ok and info.transport == "iWARP"
end

-- A ladder diagram: the requester (the sender of the first frame) on the
-- left, its peer on the right, one arrow per frame; runs of more than four
-- MIDDLE frames fold. packets: a capture or a list from cap:packets().
-- notes (optional): text shown after a frame's arrow, by its index in the list.
function M.ladder(packets, notes)
  if is_iwarp(packets) then return require("verbs.wire_iwarp_ladder").ladder(packets:packets(), packets:posts()) end
  local list = list_of(packets)
  if not list then
    error(("bad argument #1 to 'ladder' (capture or packet list expected, got %s)"):format(type(packets)), 2)
  end
  if notes ~= nil and type(notes) ~= "table" then
    error(("bad argument #2 to 'ladder' (table of notes (notes[i] after frame i) expected, got %s)"):format(type(notes)), 2)
  end
  notes = notes or {}
  -- The rows (RoCEv2 frames) are read as the folding looks ahead and
  -- dropped once drawn, so that a million frames need no million tables.
  local cache, scanned, nrows, n = {}, 0, 0, #list
  local left, t0
  local function row(k)
    while k > nrows and scanned < n do
      scanned = scanned + 1
      local p = as_frame(list[scanned])
      local op, psn, _, kind, src = core.key(p)
      if op then
        left = left or src
        t0 = t0 or p.time or 0
        nrows = nrows + 1
        local note = notes[scanned]
        if note ~= nil and type(note) ~= "string" and type(note) ~= "number" then
          error(("ladder: notes[%d] is the text shown after frame %d: a string expected, got %s")
            :format(scanned, scanned, type(note)), 0)
        end
        cache[nrows] = { p = p, op = OPS[op & 0x1F] or ("0x%02x"):format(op), psn = psn, kind = kind,
                         t = (p.time or 0) - t0, right = src ~= left, note = note }
      end
    end
    return cache[k]
  end
  local first = row(1)
  if not first then return "(no RoCEv2 frames)" end
  local out = { ("%10s  %-15s %46s %s"):format("time ms", first.p.ip.src, "", "peer") }
  local function line(r)
    local p = r.p
    local what = ("%s psn %d len %d"):format(r.op, r.psn, p.payload_length)
    if r.kind then
      local aeth = p.aeth
      what = what .. " " .. r.kind .. (aeth.timer and (" timer " .. aeth.timer) or "")
        .. (aeth.nak and (" " .. aeth.nak) or "") .. " msn " .. aeth.msn
    end
    if p.icrc_ok == false then what = what .. " BAD ICRC" end
    local arrow = r.right and ("<" .. ("-"):rep(6) .. " " .. what) or (what .. " " .. ("-"):rep(6) .. ">")
    out[#out + 1] = ("%10.3f  |" .. (r.right and "%60s|" or "%-60s|")):format(r.t * 1000, arrow)
      .. (r.note and ("  " .. r.note) or "")
  end
  -- the same request and answer again and again (RNR NAK, then the same
  -- PSN): more than three rounds fold into the first, a count and the last
  local function same(r, s2)
    return r.op == s2.op and r.psn == s2.psn and r.right == s2.right and r.kind == s2.kind
  end
  local i = 1
  while row(i) do
    local k = i
    while row(k + 3) and same(row(k), row(k + 2)) and same(row(k + 1), row(k + 3))
      and not same(row(k), row(k + 1)) do
      k = k + 2
      -- four rounds or more fold for sure: only the first and the last are drawn
      if k - i >= 6 then cache[k - 2], cache[k - 1] = nil, nil end
    end
    if (k - i) / 2 + 1 > 3 then
      line(row(i)); line(row(i + 1))
      out[#out + 1] = ("%10s  |%-60s|"):format("", ("   ... %d more times the same two"):format((k - i) / 2 - 1))
      line(row(k)); line(row(k + 1))
      for m = i, i + 5 do cache[m] = nil end
      cache[k], cache[k + 1] = nil, nil
      i = k + 2
      goto continue
    end
    do
    local j, ri = i, row(i)
    local middle = ri.op:find("MIDDLE")
    while middle and row(j + 1) and row(j + 1).op == ri.op and row(j + 1).right == ri.right do
      j = j + 1
      if j - i + 1 > 4 then cache[j - 1] = nil end   -- folded for sure: only row i and row j are drawn
    end
    if middle and j - i + 1 > 4 then
      line(ri)
      out[#out + 1] = ("%10s  |%-60s|"):format("", ("   ... %d more %s"):format(j - i - 1, ri.op))
      line(row(j))
    else
      for m = i, j do line(row(m)) end
    end
    for m = i, j do cache[m] = nil end
    i = j + 1
    end
    ::continue::
  end
  return table.concat(out, "\n")
end

-- A filtered list prints as its ladder.
local list_mt = { __tostring = function(l) return M.ladder(l) end }

-- The frames of a capture or list whose BTH matches: qp (DestQP) and/or
-- opcode (a name such as "SEND_FIRST" or "RC_SEND_FIRST", or a number).
-- as_method: called as cap:filter{...} (src/capture.c), where the table is
-- argument #1.
function M.filter(packets, want, as_method)
  if is_iwarp(packets) then
    error(("bad argument #1 to 'filter' (a capture of iWARP device %s: filter selects RoCEv2 frames by their BTH;"
      .. " an iWARP capture has TCP segments: read require('verbs.wire_iwarp_ladder').rows(cap:packets(), cap:posts()))")
      :format(packets:info().device), 2)
  end
  local list = list_of(packets)
  if not list then
    error(("bad argument #1 to 'filter' (capture or packet list expected, got %s)"):format(type(packets)), 2)
  end
  if type(want) ~= "table" then
    error(("bad argument #2 to 'filter' (table {qp=, opcode=} expected, got %s)"):format(type(want)), 2)
  end
  for k in next, want do   -- raw, as every table given to verbs is read
    if k ~= "qp" and k ~= "opcode" then
      error(("bad argument #2 to 'filter' (unknown key '%s': qp or opcode)"):format(tostring(k)), 2)
    end
  end
  -- A value no frame can have would select nothing, in silence.
  local qp, op = rawget(want, "qp"), rawget(want, "opcode")
  local argn = as_method and "#1" or "#2"
  if qp ~= nil and not (math.type(qp) == "integer" and qp >= 0 and qp <= 0xffffff) then
    error(("bad argument %s to 'filter' (key 'qp': a QP number (0..0xffffff, as qp.qp_num) expected, got %s)")
      :format(argn, math.type(qp) == "integer" and ("%d"):format(qp) or type(qp)), 2)
  end
  if op ~= nil then
    local known = math.type(op) == "integer" and op >= 0 and op <= 255
    if type(op) == "string" then
      local base = op:gsub("^[A-Z][A-Z]_", "", 1)
      for _, name in pairs(OPS) do if name == op or name == base then known = true end end
    end
    if not known then
      local names = {}
      for i = 0, 23 do if OPS[i] then names[#names + 1] = OPS[i] end end
      local near = type(op) == "string" and require("verbs").suggest(op:upper(), names)
      error(("bad argument %s to 'filter' (key 'opcode': %s is not a BTH opcode%s; the names: %s)"):format(
        argn, type(op) == "string" and ("'" .. op .. "'") or tostring(op), near and (" (did you mean '" .. near .. "'?)") or "",
        table.concat(names, ", ")), 2)
    end
  end
  -- the BTH opcodes (0..255) that op names: by number, by name, or by its
  -- name with the transport ("RC_SEND_FIRST")
  local match = {}
  for o = 0, 255 do
    local name = OPS[o & 0x1F] or ("0x%02x"):format(o)
    match[o] = op == nil or op == o or op == name or op == (TRANSPORT[o >> 5] or "?") .. "_" .. name
  end
  local out = setmetatable({}, list_mt)
  for _, pkt in ipairs(list) do
    local o, _, destqp = core.key(as_frame(pkt))
    if o and match[o] and (qp == nil or destqp == qp) then
      out[#out + 1] = pkt
    end
  end
  return out
end

-- Tying frames to the WRs that caused them. A request's BTH names the
-- responder's QP (DestQP), and a WR posted on a connected QP goes to its
-- dest_qp_num (on UD, to the WR's remote_qpn): so the requests to one DestQP
-- are the WRs posted toward it, message by message, in post order. The
-- responses (ACK, READ response, atomic ACK) name the requester's own QP
-- and the PSN of the request they answer.
local KIND = {}   -- operation (low 5 bits) -> message kind, for requests
for op = 0, 5 do KIND[op] = "SEND" end
for op = 6, 11 do KIND[op] = "RDMA_WRITE" end
KIND[12], KIND[19], KIND[20], KIND[22], KIND[23] = "RDMA_READ", "ATOMIC", "ATOMIC", "SEND", "SEND"
local STARTS = { [0] = true, [4] = true, [5] = true, [6] = true, [10] = true, [11] = true,
                 [12] = true, [19] = true, [20] = true, [23] = true }
local WR_KIND = { SEND = "SEND", SEND_WITH_IMM = "SEND", SEND_WITH_INV = "SEND",
                  RDMA_WRITE = "RDMA_WRITE", RDMA_WRITE_WITH_IMM = "RDMA_WRITE",
                  RDMA_READ = "RDMA_READ", ATOMIC_CMP_AND_SWP = "ATOMIC", ATOMIC_FETCH_AND_ADD = "ATOMIC" }

local function psn_le(a, b) return ((b - a) & 0xFFFFFF) < 0x800000 end   -- a <= b, modulo 2^24

-- notes[i] for the frames of list that belong to a WR of posts (cap:posts()),
-- and a summary line per WR. Returns notes, summary (a list of lines).
function M.attribute(list, posts)
  local queue, by_qpn = {}, {}          -- dest_qp -> WRs not yet seen; qp_num -> WRs seen
  for _, w in ipairs(posts) do
    local q = queue[w.dest_qp] or { head = 1 }; queue[w.dest_qp] = q
    q[#q + 1] = { post = w, frames = {}, psn = nil, kind = WR_KIND[w.opcode] or w.opcode }
  end
  local notes, open, seen = {}, {}, {}   -- open: dest_qp -> the WR whose message is under way
  local acked_to = {}                    -- qp_num -> the first WR of by_qpn not yet completed
  local function wr_name(e) return ("wr_id %d's %s"):format(e.post.wr_id, e.post.opcode) end
  -- The WRs of one QP take PSNs in post order, each its own range: the
  -- only one a PSN can belong to is the last that starts at or before it.
  local function at_psn(ws, psn)
    for k = #ws, 1, -1 do
      if psn_le(ws[k].psn, psn) then return ws[k] end
    end
  end
  for i, pkt in ipairs(list) do
    local opcode, psn, dq, kind = core.key(as_frame(pkt))
    local op = opcode and (opcode & 0x1F)
    if op and KIND[op] then                                  -- a request
      local x, e = at_psn(seen[dq] or {}, psn), nil
      if x and x.last and psn_le(psn, x.last) then e = x end -- a PSN already sent: a retransmission
      if e then
        notes[i] = wr_name(e) .. " again (retransmitted)"
      else
        if STARTS[op] or not open[dq] then
          local q = queue[dq] or { head = 1 }
          e = q[q.head]
          if e then q.head = q.head + 1 end
          open[dq] = e
          if e then
            e.psn = psn
            local sq = seen[dq] or {}; seen[dq] = sq
            -- a READ's responses take the PSNs after its request: the
            -- next WR of that QP starts where they end
            if sq[#sq] then sq[#sq].next_psn = sq[#sq].next_psn or psn end
            sq[#sq + 1] = e
            local bq = by_qpn[e.post.qp_num] or {}; by_qpn[e.post.qp_num] = bq; bq[#bq + 1] = e
          end
        else
          e = open[dq]
        end
        if e then
          e.last = psn
          e.frames[#e.frames + 1] = i
          notes[i] = wr_name(e) .. (e.kind ~= KIND[op] and (" (but the frame is a " .. KIND[op] .. ")") or "")
        end
      end
    elseif op then                                           -- a response to the QP it names
      local mine = by_qpn[dq] or {}
      local done = {}
      local e = at_psn(mine, psn)
      if e and (e.kind == "RDMA_READ" or e.kind == "ATOMIC") and (op >= 13 and op <= 16 or op == 18)
          and (not e.next_psn or not psn_le(e.next_psn, psn)) then
        notes[i] = wr_name(e) .. (op == 18 and " result" or " data")
        e.answers = (e.answers or 0) + 1
      end
      if kind and kind ~= "ACK" then
        if e and psn_le(psn, e.last or e.psn) then
          notes[i] = ("%s on %s"):format(kind, wr_name(e))
        end
      elseif kind then                                       -- an ACK (or the last answer) completes up to its PSN
        local k = acked_to[dq] or 1
        while mine[k] and mine[k].acked do k = k + 1 end
        acked_to[dq] = k
        for m = k, #mine do
          e = mine[m]
          if not psn_le(e.last or e.psn, psn) then break end   -- this one and the later ones are after the ACK
          -- a READ completes with its last response, an atomic with its
          -- ACK; a plain ACK completes SENDs and WRITEs up to its PSN
          local waits = (e.kind == "RDMA_READ" and op ~= 15 and op ~= 16)
            or (e.kind == "ATOMIC" and op ~= 18)
          if not e.acked and not waits then
            e.acked = i
            done[#done + 1] = ("%d"):format(e.post.wr_id)
          end
        end
        if #done > 0 then
          notes[i] = (notes[i] and (notes[i] .. "; ") or "") .. "completes wr_id " .. table.concat(done, ", ")
        end
      end
    end
  end
  local summary = {}
  for _, ws in pairs(seen) do
    for _, e in ipairs(ws) do
      local w = e.post
      local line = ("wr_id %d (%s %s, %d bytes): %d frame%s from psn %d"):format(w.wr_id, w.qp, w.opcode,
        w.length, #e.frames, #e.frames == 1 and "" or "s", e.psn)
      if e.answers then line = line .. (", %d answer%s"):format(e.answers, e.answers == 1 and "" or "s") end
      if e.acked then line = line .. (", completed by frame %d (%s)"):format(e.acked, as_frame(list[e.acked]).opcode)
      elseif w.qp_type == "UD" then line = line .. ", no ACK on UD: it completes when sent"
      else line = line .. ", no ACK in the capture" end
      summary[#summary + 1] = { e.frames[1] or 0, line }
    end
  end
  for _, q in pairs(queue) do
    for k = q.head, #q do
      local e = q[k]
      summary[#summary + 1] = { math.huge, ("wr_id %d (%s %s, %d bytes): no frame in the capture"):format(
        e.post.wr_id, e.post.qp, e.post.opcode, e.post.length) }
    end
  end
  table.sort(summary, function(a, b) return a[1] < b[1] end)
  for k, v in ipairs(summary) do summary[k] = v[2] end
  return notes, summary
end

-- print(cap): the capture's frames as a ladder, each with the WR that
-- caused it, and a line per WR; or why there is nothing to show.
function M.show(cap)
  local info, list = cap:info(), cap:packets()
  -- frames the kernel dropped are never hidden: they are in the first line
  local head = ("capture on %s (%d frame%s%s%s)"):format(info.netdev, info.count,
    info.count == 1 and "" or "s", info.drops > 0 and (", %d dropped by the kernel"):format(info.drops) or "",
    info.stopped and ", stopped" or "")
  if info.lost then head = head .. "\n" .. info.lost end
  if info.transport == "iWARP" then
    head = head .. ("\n%s is iWARP: TCP segments of %s (on %s, it crosses %s); TCP's ACKs carry its reliability")
      :format(info.device, info.filter, info.device_netdev or info.netdev, info.netdev)
    if #list == 0 then return head end
    return head .. "\n" .. require("verbs.wire_iwarp_ladder").ladder(list, cap:posts())
  end
  if #list == 0 then return head end
  local notes, summary = M.attribute(list, cap:posts())
  local out = { head, M.ladder(list, notes) }
  for _, l in ipairs(summary) do out[#out + 1] = l end
  return table.concat(out, "\n")
end

return M
