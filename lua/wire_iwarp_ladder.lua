-- The ladder of an iWARP capture (verbs.capture on a siw device): one row
-- per TCP segment of each connection, its MPA, DDP and RDMAP read in order
-- along each direction's byte stream, each tied to the send WR that caused
-- it. Where RoCE has its own ACK and NAK packets, iWARP's reliability is
-- TCP's: the bare TCP ACKs are rows of their own, each saying whose bytes
-- it acknowledges. print(cap) draws this for an iWARP capture
-- (lua/wire.lua); rows() gives the same as tables, for tests and lessons.
local W = require "verbs.wire_iwarp"
local M = {}

-- RDMAP opcode -> the kind of WR that starts such a message on the wire
local KIND = { [0] = "RDMA_WRITE", [1] = "RDMA_READ", [3] = "SEND", [4] = "SEND", [5] = "SEND", [6] = "SEND" }
local WR_KIND = { SEND = "SEND", SEND_WITH_INV = "SEND", RDMA_WRITE = "RDMA_WRITE", RDMA_READ = "RDMA_READ" }

local function bytes_of(pkt)
  if type(pkt) == "string" then return pkt, 0 end
  return pkt.bytes, pkt.time or 0
end

local function fpdu_text(f)
  local d, r = f.ddp, f.rdmap
  if not d then return ("FPDU of %d bytes (headers not captured)"):format(f.ulpdulength) end
  local where = d.tagged and ("STag 0x%08x TO 0x%x"):format(d.stag, d.to)
    or ("QN %d MSN %d MO %d"):format(d.qn, d.msn, d.mo)
  local rr = r.rr and (" reads %d bytes at STag 0x%08x TO 0x%x"):format(r.rr.rdmardsz, r.rr.srcstag, r.rr.srcto) or ""
  return ("%s %s%s len %d%s"):format(r.opname, where, d.last and " last" or "", f.payload_len, rr)
end

-- rows(list, posts) -> rows, summary. list: frames (cap:packets(), read_pcap)
-- or strings; posts: cap:posts() (optional). A row: { frame =, t =, conn =,
-- src =, dst =, seq =, ack =, len = (relative, as tshark shows them), text =,
-- fpdus = { {op =, ...} }, note =, kind = "SYN"|"MPA"|"DATA"|"ACK"|"FIN"|"RST"|"RETRANSMISSION" }.
function M.rows(list, posts)
  local queue = {}
  for _, w in ipairs(posts or {}) do
    queue[#queue + 1] = { post = w, kind = WR_KIND[w.opcode] or w.opcode, frames = {} }
  end
  local dirs, bound, rows, conns, t0 = {}, {}, {}, {}, nil
  -- the next WR of a direction's QP (bound by its first message) of this kind
  local function take(dir, kind)
    for _, e in ipairs(queue) do
      if not e.taken and e.kind == kind and (dir.qp == nil and not bound[e.post.qp] or dir.qp == e.post.qp) then
        e.taken, dir.qp, bound[e.post.qp] = true, e.post.qp, true
        return e
      end
    end
  end
  local function wr_name(e) return ("wr_id %d's %s"):format(e.post.wr_id, e.post.opcode) end
  -- one direction of a connection: its ISN (relative seqs count from it), the seq it sends next, what is under way
  local function new_dir(isn) return { isn = isn & 0xFFFFFFFF, next = nil, carry = 0, pending = {}, reads = {}, sent = {} } end
  for i, pkt in ipairs(list) do
    local b, time = bytes_of(pkt)
    local p = b and W.decode(b)
    if p then
      t0 = t0 or time
      local tcp = p.tcp
      local src, dst = ("%s:%d"):format(p.ip.src, tcp.srcport), ("%s:%d"):format(p.ip.dst, tcp.dstport)
      local key = src < dst and (src .. " " .. dst) or (dst .. " " .. src)
      if not conns[key] then conns[key] = { n = #rows + 1, left = src }; conns[#conns + 1] = key end
      local d = dirs[src .. ">" .. dst] or new_dir(tcp.seq - (tcp.flags & 0x02 ~= 0 and 0 or 1))
      dirs[src .. ">" .. dst] = d
      local back = dirs[dst .. ">" .. src]
      if not back and tcp.flags & 0x10 ~= 0 then   -- a capture begun after the peer's SYN: as tshark, the byte
        back = new_dir(tcp.ack - 1)                 -- this ACK asks for is the peer's relative seq 1
        dirs[dst .. ">" .. src] = back
      end
      local r = { frame = i, t = time - t0, conn = key, src = src, dst = dst, len = tcp.len,
                  seq = (tcp.seq - d.isn) & 0xFFFFFFFF, fpdus = {} }
      if tcp.flags & 0x10 ~= 0 and back then r.ack = (tcp.ack - back.isn) & 0xFFFFFFFF end
      local syn_fin = (tcp.flags & 0x03 ~= 0) and 1 or 0
      if tcp.len > 0 and d.next and ((tcp.seq - d.next) & 0xFFFFFFFF) >= 0x80000000 then
        r.kind, r.text = "RETRANSMISSION", ("TCP retransmission seq %d len %d"):format(r.seq, tcp.len)
      else
        if d.next and tcp.seq ~= d.next then d.carry = 0 end   -- a gap: bytes the capture missed
        if d.carry > 0 then p = W.decode(b, d.carry) end
        d.carry = 0
        d.next = (tcp.seq + tcp.len + syn_fin) & 0xFFFFFFFF
        if tcp.flags & 0x07 ~= 0 then
          r.kind = (tcp.flags & 0x02 ~= 0) and "SYN" or (tcp.flags & 0x04 ~= 0) and "RST" or "FIN"
          r.text = "TCP " .. W.tcp_flags(tcp.flags)
        elseif p.mpa then
          r.kind = "MPA"
          r.text = p.mpa.cut and ("MPA %s cut by the snaplen"):format(p.mpa.kind)
            or ("MPA %s rev %d, markers %s, CRC %s"):format(p.mpa.kind, p.mpa.rev,
            p.mpa.marker_flag and "on" or "off", p.mpa.crc_flag and "on" or "off")
        elseif tcp.len == 0 then
          r.kind, r.text = "ACK", ("TCP ACK ack %d"):format(r.ack or 0)
        else
          r.kind = "DATA"
          local parts, notes = {}, {}
          if p.continued then parts[1] = ("(%d bytes end the FPDU before)"):format(p.continued) end
          for _, f in ipairs(p.fpdus or {}) do
            local h = f.ddp and f or f.head
            if f.truncated then d.carry = f.rest end
            if h and h.ddp then
              local op = h.rdmap.opcode
              local e
              if op == 2 then                           -- a Read Response: the oldest Read the peer asked
                e = back and back.reads[1]
                if e and h.ddp.last then table.remove(back.reads, 1) end
              elseif d.open then e = d.open             -- the message under way
              elseif KIND[op] then
                e = take(d, KIND[op])
                if e and op == 1 then d.reads[#d.reads + 1] = e end
              end
              d.open = (op ~= 2 and not h.ddp.last) and e or nil
              if e then
                local list_ = op == 2 and e.answers or e.frames
                if op == 2 and not e.answers then e.answers = {}; list_ = e.answers end
                if list_[#list_] ~= i then list_[#list_ + 1] = i end
                local note = wr_name(e) .. (op == 2 and (h.ddp.last and " data (last: it completes)" or " data") or "")
                if notes[#notes] ~= note then notes[#notes + 1] = note end
                -- its last byte, for the TCP ACK that covers it (the request's, or the data's)
                if h.ddp.last then
                  d.sent[#d.sent + 1] = { e = e, stop = (tcp.seq + tcp.len) & 0xFFFFFFFF, data = op == 2 }
                end
              end
              r.fpdus[#r.fpdus + 1] = { op = h.rdmap.opname, last = h.ddp.last, tagged = h.ddp.tagged,
                len = h.payload_len, stag = h.ddp.stag, to = h.ddp.to, qn = h.ddp.qn, msn = h.ddp.msn, mo = h.ddp.mo }
            end
            parts[#parts + 1] = f.truncated and ("%s, continued"):format(h and h.ddp and fpdu_text(h) or
              ("FPDU of %d bytes"):format(f.ulpdulength)) or fpdu_text(f)
          end
          r.text = table.concat(parts, "; ") .. (" (seq %d)"):format(r.seq)
          if #notes > 0 then r.note = table.concat(notes, "; ") end
        end
      end
      -- every ACK, bare or not, acknowledges the peer's bytes up to it:
      -- the first to cover a WR's last byte is the one that makes it reliable
      if tcp.flags & 0x10 ~= 0 and back then
        local acked = {}
        while back.sent[1] and ((tcp.ack - back.sent[1].stop) & 0xFFFFFFFF) < 0x80000000 do
          local s = table.remove(back.sent, 1)
          if s.data then s.e.data_acked = i else s.e.acked = i end
          acked[#acked + 1] = wr_name(s.e) .. (s.data and " data" or "")
        end
        if #acked > 0 then
          local s = "TCP acknowledges " .. table.concat(acked, ", ")
          r.note = r.note and (r.note .. "; " .. s) or s
        end
      end
      rows[#rows + 1] = r
    end
  end
  local summary = {}
  for _, e in ipairs(queue) do
    local w = e.post
    local line = ("wr_id %d (%s %s, %d bytes): "):format(w.wr_id, w.qp, w.opcode, w.length)
    if #e.frames == 0 then
      line = line .. "no frame in the capture"
    else
      local function acked(n) return n and (" (TCP ACK in frame %d)"):format(n) or " (no TCP ACK of it in the capture)" end
      line = line .. ("%sframe%s %s"):format(e.kind == "RDMA_READ" and "request in " or "", #e.frames == 1 and "" or "s",
        table.concat(e.frames, ", ")) .. acked(e.acked)
      if e.kind == "RDMA_READ" then
        line = line .. (e.answers and (", Read Response%s in frame%s %s"):format(#e.answers == 1 and "" or "s",
          #e.answers == 1 and "" or "s", table.concat(e.answers, ", ")) .. acked(e.data_acked) or ", no Read Response")
      end
    end
    summary[#summary + 1] = line
  end
  return rows, summary, conns
end

-- ladder(list, posts) -> the diagram: per connection, its first sender on
-- the left, one arrow per TCP segment; then a line per WR.
function M.ladder(list, posts)
  local rows, summary, conns = M.rows(list, posts)
  if #rows == 0 then return "(no TCP segments)" end
  local out = {}
  for _, key in ipairs(conns) do
    local left
    for _, r in ipairs(rows) do
      if r.conn == key then
        if not left then
          left = r.src
          local right = r.dst
          out[#out + 1] = ("%10s  %-24s %38s  %s"):format("time ms", left, "", right)
        end
        local what = r.text .. (r.kind == "ACK" and "" or (r.ack and (" ack %d"):format(r.ack) or ""))
        local toright = r.src == left
        local arrow = toright and (what .. " " .. ("-"):rep(6) .. ">") or ("<" .. ("-"):rep(6) .. " " .. what)
        out[#out + 1] = ("%10.3f  |" .. (toright and "%-64s|" or "%64s|") .. " #%d%s"):format(r.t * 1000, arrow,
          r.frame, r.note and ("  " .. r.note) or "")
      end
    end
  end
  for _, l in ipairs(summary) do out[#out + 1] = l end
  return table.concat(out, "\n")
end

return M
