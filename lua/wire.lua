-- verbs.wire: decode RoCEv2 frames (as verbs.capture collects them) into
-- tables named after the IBA spec's fields, and check their ICRC.
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
local TRANSPORT = { [0] = "RC", [1] = "UC", [2] = "RD", [3] = "UD" }
M.opcodes = OPS

-- Which extended headers follow the BTH, by the operation (low 5 bits).
local function ext_headers(op, transport)
  local h = {}
  if transport == "UD" then h[#h + 1] = "DETH" end
  if op == 6 or op == 10 or op == 11 or op == 12 then h[#h + 1] = "RETH" end
  if op == 19 or op == 20 then h[#h + 1] = "AtomicETH" end
  if op == 13 or op == 15 or op == 16 or op == 17 or op == 18 then h[#h + 1] = "AETH" end
  if op == 18 then h[#h + 1] = "AtomicAckETH" end
  if op == 3 or op == 5 or op == 9 or op == 11 then h[#h + 1] = "ImmDt" end
  if op == 22 or op == 23 then h[#h + 1] = "IETH" end
  return h
end

local NAK = { [0] = "PSN sequence error", "invalid request", "remote access error",
              "remote operational error", "invalid RD request" }

-- CRC-32 (IEEE 802.3, reflected), the ICRC's polynomial.
local crc_table = {}
for i = 0, 255 do
  local c = i
  for _ = 1, 8 do c = (c & 1 == 1) and (0xEDB88320 ~ (c >> 1)) or (c >> 1) end
  crc_table[i] = c
end
local function crc32(s)
  local c = 0xFFFFFFFF
  for i = 1, #s do c = crc_table[(c ~ s:byte(i)) & 0xFF] ~ (c >> 8) end
  return c ~ 0xFFFFFFFF
end
M.crc32 = crc32

-- The ICRC covers the IP header, UDP header, BTH and payload, with the
-- fields a router may change replaced by ones (RoCEv2, IBA annex A17):
-- 8 bytes of 1s for the absent LRH; IPv4 TOS, TTL and checksum; IPv6
-- traffic class, flow label and hop limit; UDP checksum; BTH resv8a.
local function icrc_of(ip, iphl, v6, bth_off, last)
  local b = { ("\255"):rep(8) }
  local h = ip:sub(1, iphl)
  if v6 then
    h = string.char(h:byte(1) | 0x0F) .. "\255\255\255" .. h:sub(5, 7) .. "\255" .. h:sub(9)
  else
    h = h:sub(1, 1) .. "\255" .. h:sub(3, 8) .. "\255" .. h:sub(10, 10) .. "\255\255" .. h:sub(13)
  end
  b[2] = h
  b[3] = ip:sub(iphl + 1, iphl + 6) .. "\255\255"
  local bth = ip:sub(bth_off, bth_off + 11)
  b[4] = bth:sub(1, 4) .. "\255" .. bth:sub(6)
  b[5] = ip:sub(bth_off + 12, last)
  return crc32(table.concat(b))
end

local function u(s, i, n)   -- big-endian unsigned of n bytes at i
  local v = 0
  for k = i, i + n - 1 do v = (v << 8) | s:byte(k) end
  return v
end

local function ip4(s, i) return ("%d.%d.%d.%d"):format(s:byte(i, i + 3)) end
local function ip6(s, i)
  local t = {}
  for k = 0, 7 do t[#t + 1] = ("%x"):format(u(s, i + 2 * k, 2)) end
  return table.concat(t, ":")
end

-- Decodes one frame (a string starting with the Ethernet header).
-- Returns the packet table, or nil and why it is not RoCEv2.
function M.decode(bytes)
  local s = bytes
  if type(s) ~= "string" then
    error(("bad argument #1 to 'decode' (string expected, got %s)"):format(type(s)), 2)
  end
  if #s < 14 then return nil, "shorter than an Ethernet header" end
  local p = { eth = { dst = ("%02x:%02x:%02x:%02x:%02x:%02x"):format(s:byte(1, 6)),
                      src = ("%02x:%02x:%02x:%02x:%02x:%02x"):format(s:byte(7, 12)),
                      type = u(s, 13, 2) } }
  local ipo = 15
  local v6 = p.eth.type == 0x86DD
  local iphl, udp
  if p.eth.type == 0x0800 then
    iphl = (s:byte(ipo) & 0x0F) * 4
    p.ip = { version = 4, hdr_len = iphl, dsfield = s:byte(ipo + 1), len = u(s, ipo + 2, 2),
             id = u(s, ipo + 4, 2), ttl = s:byte(ipo + 8), proto = s:byte(ipo + 9),
             checksum = u(s, ipo + 10, 2), src = ip4(s, ipo + 12), dst = ip4(s, ipo + 16) }
    if p.ip.proto ~= 17 then return nil, "not UDP" end
  elseif v6 then
    iphl = 40
    p.ip = { version = 6, tclass = (u(s, ipo, 2) >> 4) & 0xFF, flow = u(s, ipo + 1, 3) & 0xFFFFF,
             plen = u(s, ipo + 4, 2), nxt = s:byte(ipo + 6), hlim = s:byte(ipo + 7),
             src = ip6(s, ipo + 8), dst = ip6(s, ipo + 24) }
    if p.ip.nxt ~= 17 then return nil, "not UDP" end
  else
    return nil, ("ethertype 0x%04x is not IP"):format(p.eth.type)
  end
  udp = ipo + iphl
  p.udp = { srcport = u(s, udp, 2), dstport = u(s, udp + 2, 2), length = u(s, udp + 4, 2),
            checksum = u(s, udp + 6, 2) }
  if p.udp.dstport ~= 4791 then return nil, "not UDP port 4791" end
  local b = udp + 8
  local last = udp + p.udp.length - 1        -- last byte of the UDP payload
  if last > #s or last < b + 11 + 4 then return nil, "truncated RoCEv2 packet" end
  local op = s:byte(b)
  local f1 = s:byte(b + 1)
  local bth = {
    opcode = op, se = f1 >> 7, m = (f1 >> 6) & 1, padcnt = (f1 >> 4) & 3, tver = f1 & 0xF,
    p_key = u(s, b + 2, 2), f = s:byte(b + 4) >> 7, b = (s:byte(b + 4) >> 6) & 1,
    destqp = u(s, b + 5, 3), a = s:byte(b + 8) >> 7, psn = u(s, b + 9, 3),
  }
  bth.transport = TRANSPORT[op >> 5]
  bth.opname = (bth.transport or "?") .. "_" .. (OPS[op & 0x1F] or ("0x%02x"):format(op))
  p.bth = bth
  p.opcode = OPS[op & 0x1F] or ("0x%02x"):format(op)
  local o = b + 12
  for _, h in ipairs(ext_headers(op & 0x1F, bth.transport)) do
    if h == "DETH" then
      p.deth = { q_key = u(s, o, 4), src_qp = u(s, o + 5, 3) }; o = o + 8
    elseif h == "RETH" then
      p.reth = { va = u(s, o, 8), r_key = u(s, o + 8, 4), dma_length = u(s, o + 12, 4) }; o = o + 16
    elseif h == "AtomicETH" then
      p.atomiceth = { va = u(s, o, 8), r_key = u(s, o + 8, 4), swap_or_add = u(s, o + 12, 8),
                      compare = u(s, o + 20, 8) }; o = o + 28
    elseif h == "AETH" then
      local syn = s:byte(o)
      local kind = ({ [0] = "ACK", [1] = "RNR NAK", [2] = "reserved", [3] = "NAK" })[(syn >> 5) & 3]
      p.aeth = { syndrome = syn, msn = u(s, o + 1, 3), kind = kind, value = syn & 0x1F }
      if kind == "NAK" then p.aeth.nak = NAK[syn & 0x1F] end
      if kind == "RNR NAK" then p.aeth.timer = syn & 0x1F end
      o = o + 4
    elseif h == "AtomicAckETH" then
      p.atomicacketh = { orig_rem_dt = u(s, o, 8) }; o = o + 8
    elseif h == "ImmDt" then
      p.immdt = u(s, o, 4); o = o + 4
    elseif h == "IETH" then
      p.ieth = u(s, o, 4); o = o + 4
    end
  end
  p.payload_length = last - 4 - o + 1 - bth.padcnt
  p.icrc = u(s, last - 3, 4)
  -- the ICRC is sent least significant byte first
  local want = icrc_of(s:sub(ipo, last), iphl, v6, b - ipo + 1, last - ipo + 1 - 4)
  local got = s:byte(last - 3) | s:byte(last - 2) << 8 | s:byte(last - 1) << 16 | s:byte(last) << 24
  p.icrc_ok = (want == got)
  p.icrc_expected = want
  return p
end

-- Frames of a pcap file (classic format, Ethernet), as cap:packets() gives them.
function M.read_pcap(file)
  local f, err = io.open(file, "rb")
  if not f then error("read_pcap: " .. err, 2) end
  local d = f:read("a")
  f:close()
  local magic = #d >= 24 and string.unpack("<I4", d, 1)
  if magic ~= 0xa1b2c3d4 then error("read_pcap: " .. file .. " is not a little-endian microsecond pcap", 2) end
  local list, i = {}, 25
  while i + 15 <= #d do
    local sec, usec, incl, orig = string.unpack("<I4I4I4I4", d, i)
    list[#list + 1] = { time = sec + usec / 1e6, bytes = d:sub(i + 16, i + 15 + incl), length = orig }
    i = i + 16 + incl
  end
  return list
end

-- The packet list of a capture, or a list itself; nil for anything else.
local function list_of(packets)
  if type(packets) == "userdata" then
    local ok, l = pcall(packets.packets, packets)
    return ok and l or nil
  end
  return type(packets) == "table" and packets or nil
end

-- A ladder diagram: the requester (the sender of the first frame) on the
-- left, its peer on the right, one arrow per frame; runs of more than four
-- MIDDLE frames fold. packets: a capture or a list from cap:packets().
-- notes (optional): text shown after a frame's arrow, by its index in the list.
function M.ladder(packets, notes)
  local list = list_of(packets)
  if not list then
    error(("bad argument #1 to 'ladder' (capture or packet list expected, got %s)"):format(type(packets)), 2)
  end
  notes = notes or {}
  local rows, left, t0 = {}, nil, nil
  for i, pkt in ipairs(list) do
    local p = M.decode(pkt.bytes)
    if p then
      left = left or p.ip.src
      t0 = t0 or pkt.time
      rows[#rows + 1] = { p = p, t = pkt.time - t0, right = p.ip.src ~= left, note = notes[i] }
    end
  end
  if not left then return "(no RoCEv2 frames)" end
  local out = { ("%10s  %-15s %46s %s"):format("time ms", left, "", "peer") }
  local function line(r)
    local p = r.p
    local what = ("%s psn %d len %d"):format(p.opcode, p.bth.psn, p.payload_length)
    if p.aeth then
      what = what .. " " .. p.aeth.kind .. (p.aeth.timer and (" timer " .. p.aeth.timer) or "")
        .. (p.aeth.nak and (" " .. p.aeth.nak) or "") .. " msn " .. p.aeth.msn
    end
    if not p.icrc_ok then what = what .. " BAD ICRC" end
    local arrow = r.right and ("<" .. ("-"):rep(6) .. " " .. what) or (what .. " " .. ("-"):rep(6) .. ">")
    out[#out + 1] = ("%10.3f  |" .. (r.right and "%60s|" or "%-60s|")):format(r.t * 1000, arrow)
      .. (r.note and ("  " .. r.note) or "")
  end
  -- the same request and answer again and again (RNR NAK, then the same
  -- PSN): more than three rounds fold into the first, a count and the last
  local function same(r, s2)
    return r.p.opcode == s2.p.opcode and r.p.bth.psn == s2.p.bth.psn and r.right == s2.right
      and (r.p.aeth and r.p.aeth.kind) == (s2.p.aeth and s2.p.aeth.kind)
  end
  local i = 1
  while i <= #rows do
    local k = i
    while k + 3 <= #rows and same(rows[k], rows[k + 2]) and same(rows[k + 1], rows[k + 3])
      and not same(rows[k], rows[k + 1]) do k = k + 2 end
    if (k - i) / 2 + 1 > 3 then
      line(rows[i]); line(rows[i + 1])
      out[#out + 1] = ("%10s  |%-60s|"):format("", ("   ... %d more times the same two"):format((k - i) / 2 - 1))
      line(rows[k]); line(rows[k + 1])
      i = k + 2
      goto continue
    end
    do
    local j = i
    while j + 1 <= #rows and rows[j + 1].p.opcode:find("MIDDLE") and rows[j + 1].p.opcode == rows[i].p.opcode
      and rows[j + 1].right == rows[i].right do j = j + 1 end
    if rows[i].p.opcode:find("MIDDLE") and j - i + 1 > 4 then
      line(rows[i])
      out[#out + 1] = ("%10s  |%-60s|"):format("", ("   ... %d more %s"):format(j - i - 1, rows[i].p.opcode))
      line(rows[j])
    else
      for m = i, j do line(rows[m]) end
    end
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
  local out = setmetatable({}, list_mt)
  for _, pkt in ipairs(list) do
    local p = M.decode(pkt.bytes)
    if p and (qp == nil or p.bth.destqp == qp)
        and (op == nil or op == p.opcode or op == p.bth.opname or op == p.bth.opcode) then
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
    local q = queue[w.dest_qp] or {}; queue[w.dest_qp] = q
    q[#q + 1] = { post = w, frames = {}, psn = nil, kind = WR_KIND[w.opcode] or w.opcode }
  end
  local notes, open, seen = {}, {}, {}   -- open: dest_qp -> the WR whose message is under way
  local function wr_name(e) return ("wr_id %d's %s"):format(e.post.wr_id, e.post.opcode) end
  for i, pkt in ipairs(list) do
    local p = M.decode(pkt.bytes)
    local op = p and (p.bth.opcode & 0x1F)
    if p and KIND[op] then                                   -- a request
      local dq, e = p.bth.destqp, nil
      for _, x in ipairs(seen[dq] or {}) do                  -- a PSN already sent: a retransmission
        if x.psn and x.last and psn_le(x.psn, p.bth.psn) and psn_le(p.bth.psn, x.last) then e = x end
      end
      if e then
        notes[i] = wr_name(e) .. " again (retransmitted)"
      else
        if STARTS[op] or not open[dq] then
          e = table.remove(queue[dq] or {}, 1)
          open[dq] = e
          if e then
            e.psn = p.bth.psn
            seen[dq] = seen[dq] or {}; table.insert(seen[dq], e)
            local bq = by_qpn[e.post.qp_num] or {}; by_qpn[e.post.qp_num] = bq; bq[#bq + 1] = e
          end
        else
          e = open[dq]
        end
        if e then
          e.last = p.bth.psn
          e.frames[#e.frames + 1] = i
          notes[i] = wr_name(e) .. (e.kind ~= KIND[op] and (" (but the frame is a " .. KIND[op] .. ")") or "")
        end
      end
    elseif p then                                            -- a response to the QP it names
      local mine = by_qpn[p.bth.destqp] or {}
      local done = {}
      for _, e in ipairs(mine) do
        local reads = e.kind == "RDMA_READ" or e.kind == "ATOMIC"
        if reads and (op >= 13 and op <= 16 or op == 18) and psn_le(e.psn, p.bth.psn)
            and (not e.next_psn or not psn_le(e.next_psn, p.bth.psn)) then
          notes[i] = wr_name(e) .. (op == 18 and " result" or " data")
          e.answers = (e.answers or 0) + 1
        end
      end
      if p.aeth and p.aeth.kind ~= "ACK" then
        for _, e in ipairs(mine) do
          if psn_le(e.psn, p.bth.psn) and psn_le(p.bth.psn, e.last or e.psn) then
            notes[i] = ("%s on %s"):format(p.aeth.kind, wr_name(e))
          end
        end
      elseif p.aeth then                                     -- an ACK (or the last answer) completes up to its PSN
        for _, e in ipairs(mine) do
          -- a READ completes with its last response, an atomic with its
          -- ACK; a plain ACK completes SENDs and WRITEs up to its PSN
          local waits = (e.kind == "RDMA_READ" and op ~= 15 and op ~= 16)
            or (e.kind == "ATOMIC" and op ~= 18)
          if not e.acked and not waits and psn_le(e.last or e.psn, p.bth.psn) then
            e.acked = i
            done[#done + 1] = ("%d"):format(e.post.wr_id)
          end
        end
        if #done > 0 then
          notes[i] = (notes[i] and (notes[i] .. "; ") or "") .. "completes wr_id " .. table.concat(done, ", ")
        end
      end
    end
    -- a READ's responses take the PSNs after its request: the next WR of
    -- that QP starts where they end
    if p and KIND[op] then
      local list_dq = seen[p.bth.destqp] or {}
      for k = 1, #list_dq - 1 do list_dq[k].next_psn = list_dq[k].next_psn or list_dq[k + 1].psn end
    end
  end
  local summary = {}
  for _, ws in pairs(seen) do
    for _, e in ipairs(ws) do
      local w = e.post
      local line = ("wr_id %d (%s %s, %d bytes): %d frame%s from psn %d"):format(w.wr_id, w.qp, w.opcode,
        w.length, #e.frames, #e.frames == 1 and "" or "s", e.psn)
      if e.answers then line = line .. (", %d answer%s"):format(e.answers, e.answers == 1 and "" or "s") end
      if e.acked then line = line .. (", completed by frame %d (%s)"):format(e.acked, M.decode(list[e.acked].bytes).opcode)
      elseif w.qp_type == "UD" then line = line .. ", no ACK on UD: it completes when sent"
      else line = line .. ", no ACK in the capture" end
      summary[#summary + 1] = { e.frames[1] or 0, line }
    end
  end
  for _, q in pairs(queue) do
    for _, e in ipairs(q) do
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
  local head = ("capture on %s (%d frame%s%s)"):format(info.netdev, info.count,
    info.count == 1 and "" or "s", info.stopped and ", stopped" or "")
  if #list == 0 then return head end
  local notes, summary = M.attribute(list, cap:posts())
  local out = { head, M.ladder(list, notes) }
  for _, l in ipairs(summary) do out[#out + 1] = l end
  return table.concat(out, "\n")
end

return M
