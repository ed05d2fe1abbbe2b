-- The wire view of iWARP (soft-iWARP, siw): an Ethernet frame of a TCP
-- connection that carries MPA, decoded layer by layer:
--   TCP -> MPA (the Request/Reply frames that open the connection, then
--   FPDUs: ULPDU length, padding, CRC) -> DDP (tagged: STag and tagged
--   offset; untagged: queue number, message sequence number, message
--   offset) -> RDMAP (opcode; a Read Request's sink and source).
-- Where RoCE has its own transport (BTH, PSN, ACK/NAK), iWARP leaves
-- reliability and order to TCP: the ACKs of a ladder are TCP's.
-- Names follow the RFCs (5044 MPA, 5041 DDP, 5040 RDMAP) and tshark's
-- iwarp_mpa / iwarp_ddp_rdmap fields, its oracle in tests/wire.
--
-- Assumed, as siw sets it by default: FPDUs start at the start of a TCP
-- segment (an FPDU split across segments is marked `truncated`), and no
-- markers (a connection whose MPA Request asks for markers is decoded
-- without removing them, and says so).
local M = {}

M.OPCODES = { [0] = "Write", [1] = "Read Request", [2] = "Read Response", [3] = "Send",
  [4] = "Send with Invalidate", [5] = "Send with SE", [6] = "Send with SE and Invalidate", [7] = "Terminate" }

local MPA_REQ, MPA_REP = "MPA ID Req Frame", "MPA ID Rep Frame"

local function ipv4(b, off)
  return ("%d.%d.%d.%d"):format(b:byte(off, off + 3))
end

-- DDP's header and RDMAP's, from the ULPDU at offset off of s (1-based).
local function ddp_rdmap(s, off, ulen)
  local c, r = s:byte(off, off + 1)
  local ddp = { tagged = c & 0x80 ~= 0, last = c & 0x40 ~= 0, rsvd = (c >> 2) & 0x0F, dv = c & 0x03 }
  local rdmap = { version = r >> 6, rsv = (r >> 4) & 0x03, opcode = r & 0x0F }
  rdmap.opname = M.OPCODES[rdmap.opcode] or ("0x%x"):format(rdmap.opcode)
  local hdr
  if ddp.tagged then
    ddp.stag, ddp.to = string.unpack(">I4I8", s, off + 2)
    hdr = 14
  else
    ddp.rsvdulp = s:sub(off + 1, off + 5)            -- the RDMAP control byte and 4 bytes RDMAP keeps
    rdmap.reserved = s:sub(off + 2, off + 5)
    ddp.qn, ddp.msn, ddp.mo = string.unpack(">I4I4I4", s, off + 6)
    hdr = 18
  end
  if rdmap.opcode == 1 and ulen >= hdr + 28 then   -- Read Request: where to read from and to
    if #s >= off + hdr + 27 then                    -- (a frame the snaplen cut may end before)
      local rr = {}
      rr.sinkstag, rr.sinkto, rr.rdmardsz, rr.srcstag, rr.srcto = string.unpack(">I4I8I4I4I8", s, off + hdr)
      rdmap.rr = rr
    end
    hdr = hdr + 28
  end
  return ddp, rdmap, ulen - hdr
end

-- The MPA Request or Reply frame at the start of a segment's payload.
local function mpa_frame(s, off)
  local key = s:sub(off, off + 15)
  if #s < off + 19 then   -- the snaplen cut its 20-byte header: the key only
    return { kind = key == MPA_REQ and "Request" or "Reply", key = key, cut = true }
  end
  local f, rev, pdlen = string.unpack(">BBI2", s, off + 16)
  return { kind = key == MPA_REQ and "Request" or "Reply", key = key, marker_flag = f & 0x80 ~= 0,
    crc_flag = f & 0x40 ~= 0, rej_flag = f & 0x20 ~= 0, res = f & 0x1F, rev = rev, pdlength = pdlen,
    privatedata = s:sub(off + 20, off + 19 + pdlen) }
end

-- decode(frame [, skip]) -> { ip =, tcp =, mpa = {Request/Reply} or fpdus = {...} },
-- or nil, why (not IPv4 TCP, or nothing MPA in it). skip: bytes at the
-- start of the payload that end an FPDU begun in an earlier segment (the
-- ladder follows each direction's stream; a single frame has none). An
-- FPDU that goes on in the next segment is `truncated` (with `rest`, the
-- bytes still to come, and `head`, its DDP and RDMAP headers when they are
-- here); one cut by the capture's snaplen is `cut`, as is an MPA frame whose
-- 20-byte header it cut (then only its kind and key are known).
function M.decode(b, skip)
  if #b < 14 + 20 + 20 or string.unpack(">I2", b, 13) ~= 0x0800 then return nil, "not an IPv4 frame" end
  local ip0 = 15
  local ihl = (b:byte(ip0) & 0x0F) * 4
  if b:byte(ip0 + 9) ~= 6 then return nil, "not TCP" end
  local p = { ip = { src = ipv4(b, ip0 + 12), dst = ipv4(b, ip0 + 16), len = string.unpack(">I2", b, ip0 + 2) } }
  local t0 = ip0 + ihl
  local t = {}
  t.srcport, t.dstport, t.seq, t.ack = string.unpack(">I2I2I4I4", b, t0)
  local doff = (b:byte(t0 + 12) >> 4) * 4
  t.flags = string.unpack(">I2", b, t0 + 12) & 0x0FFF
  t.len = p.ip.len - ihl - doff
  p.tcp = t
  local off, stop = t0 + doff, t0 + doff + t.len   -- the payload: [off, stop)
  local have = #b + 1                                 -- the bytes captured: [1, have)
  if t.len <= 0 then return p end                   -- a bare ACK: TCP's reliability, no RDMA in it
  skip = math.min(skip or 0, t.len)
  if skip > 0 then p.continued = skip; off = off + skip end
  local key = skip == 0 and b:sub(off, off + 15)
  if key == MPA_REQ or key == MPA_REP then
    p.mpa = mpa_frame(b, off)
    return p
  end
  p.fpdus = {}
  while off + 2 <= stop and off + 2 <= have do
    local ulen = string.unpack(">I2", b, off)
    local pad = (4 - (2 + ulen) % 4) % 4
    local fp = { ulpdulength = ulen, pad = pad }
    local whole = 2 + ulen + pad + 4                 -- length, ULPDU, pad, CRC (0 when CRC is off)
    local hdr_here = math.min(stop, have) >= off + 2 + 18   -- room for the longer DDP header
    if off + whole > stop then
      fp.truncated = true            -- continues in the next segment
      fp.rest = off + whole - stop
      if hdr_here then fp.head = {}; fp.head.ddp, fp.head.rdmap, fp.head.payload_len = ddp_rdmap(b, off + 2, ulen) end
      p.fpdus[#p.fpdus + 1] = fp
      break
    end
    if off + whole > have then
      fp.cut = true                  -- the snaplen cut it: headers only
      if hdr_here then fp.ddp, fp.rdmap, fp.payload_len = ddp_rdmap(b, off + 2, ulen) end
      p.fpdus[#p.fpdus + 1] = fp
      break
    end
    fp.ddp, fp.rdmap, fp.payload_len = ddp_rdmap(b, off + 2, ulen)
    fp.crc = string.unpack(">I4", b, off + 2 + ulen + pad)
    p.fpdus[#p.fpdus + 1] = fp
    off = off + whole
  end
  return p
end

-- A TCP header's flags byte as names, "SYN+ACK" (RFC 793's bits; the
-- describe line and the ladder both say them so).
function M.tcp_flags(f)
  local names = {}
  for _, n in ipairs{ { 0x02, "SYN" }, { 0x01, "FIN" }, { 0x04, "RST" }, { 0x10, "ACK" } } do
    if f & n[1] ~= 0 then names[#names + 1] = n[2] end
  end
  return table.concat(names, "+")
end

-- One line per frame: "198.51.100.1:50337 > 198.51.100.2:7497 Send (untagged QN 0 MSN 1 MO 0, last) 100 bytes".
function M.describe(p)
  local head = ("%s:%d > %s:%d"):format(p.ip.src, p.tcp.srcport, p.ip.dst, p.tcp.dstport)
  if p.mpa and p.mpa.cut then return ("%s MPA %s cut by the snaplen"):format(head, p.mpa.kind) end
  if p.mpa then
    return ("%s MPA %s rev %d, markers %s, CRC %s, %d bytes of private data"):format(head, p.mpa.kind, p.mpa.rev,
      p.mpa.marker_flag and "on" or "off", p.mpa.crc_flag and "on" or "off", p.mpa.pdlength)
  end
  if not p.fpdus then
    local f = p.tcp.flags
    return ("%s TCP %s %d%s"):format(head, M.tcp_flags(f), p.tcp.ack,
      f == 0x10 and " (TCP's ACK: it carries iWARP's reliability, where RoCE has its own ACK/NAK)" or "")
  end
  local parts = {}
  for _, f in ipairs(p.fpdus) do
    if f.truncated or not f.ddp then
      parts[#parts + 1] = ("FPDU of %d bytes %s"):format(f.ulpdulength,
        f.truncated and "continued in the next segment" or "cut by the snaplen")
    else
      local d = f.ddp
      local where = d.tagged and ("tagged STag 0x%08x TO 0x%x"):format(d.stag, d.to)
        or ("untagged QN %d MSN %d MO %d"):format(d.qn, d.msn, d.mo)
      parts[#parts + 1] = ("%s (%s%s) %d bytes"):format(f.rdmap.opname, where, d.last and ", last" or "", f.payload_len)
    end
  end
  return head .. " " .. table.concat(parts, "; ")
end

return M
