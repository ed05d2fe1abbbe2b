-- Compares verbs.wire_iwarp's decode of every frame of a pcap with tshark's
-- (tcp, iwarp_mpa, iwarp_ddp_rdmap), field by field.
-- usage: verbsh tests/wire/oracle_iwarp.lua X.pcap FLAT   (FLAT from tshark_flat_iwarp.py)
-- Prints each frame as decoded, one line per mismatch, and a summary; exits 1 on any mismatch.
local W = require "verbs.wire_iwarp"
local d = assert(io.open(arg[1], "rb")):read("a")
local frames, i = {}, 25
while i < #d do
  local incl = string.unpack("<I4", d, i + 8)
  frames[#frames + 1] = d:sub(i + 16, i + 15 + incl)
  i = i + 16 + incl
end
local function hexbytes(s) return (s:gsub(".", function(c) return ("%02x:"):format(c:byte()) end):sub(1, -2)) end
local function flag(b) return b and "1" or "0" end
local function x(n, w) return ("0x%0" .. w .. "x"):format(n) end
-- tshark field -> our value(s) for a frame, as tshark prints them
local P, F = {}, {}   -- per packet; per FPDU
P["ip.src"] = function(p) return p.ip.src end
P["ip.dst"] = function(p) return p.ip.dst end
P["tcp.srcport"] = function(p) return tostring(p.tcp.srcport) end
P["tcp.dstport"] = function(p) return tostring(p.tcp.dstport) end
P["tcp.len"] = function(p) return tostring(p.tcp.len) end
P["tcp.seq_raw"] = function(p) return tostring(p.tcp.seq) end
P["tcp.ack_raw"] = function(p) return tostring(p.tcp.ack) end
local function mpa(f) return function(p) return p.mpa and f(p.mpa) end end
P["iwarp_mpa.key.req"] = mpa(function(m) return m.kind == "Request" and hexbytes(m.key) or nil end)
P["iwarp_mpa.key.rep"] = mpa(function(m) return m.kind == "Reply" and hexbytes(m.key) or nil end)
P["iwarp_mpa.marker_flag"] = mpa(function(m) return flag(m.marker_flag) end)
P["iwarp_mpa.crc_flag"] = mpa(function(m) return flag(m.crc_flag) end)
P["iwarp_mpa.rej_flag"] = mpa(function(m) return flag(m.rej_flag) end)
P["iwarp_mpa.res"] = mpa(function(m) return x(m.res, 2) end)
P["iwarp_mpa.rev"] = mpa(function(m) return tostring(m.rev) end)
P["iwarp_mpa.pdlength"] = mpa(function(m) return tostring(m.pdlength) end)
P["iwarp_mpa.privatedata"] = mpa(function(m) return m.pdlength > 0 and hexbytes(m.privatedata) or nil end)
F["iwarp_mpa.ulpdulength"] = function(f) return tostring(f.ulpdulength) end
F["iwarp_mpa.crc"] = function(f) return f.crc and x(f.crc, 8) end
F["iwarp_ddp.tagged_flag"] = function(f) return f.ddp and flag(f.ddp.tagged) end
F["iwarp_ddp.last_flag"] = function(f) return f.ddp and flag(f.ddp.last) end
F["iwarp_ddp.rsvd"] = function(f) return f.ddp and x(f.ddp.rsvd, 2) end
F["iwarp_ddp.dv"] = function(f) return f.ddp and tostring(f.ddp.dv) end
F["iwarp_ddp.stag"] = function(f) return f.ddp and f.ddp.stag and x(f.ddp.stag, 8) end
F["iwarp_ddp.tagged_offset"] = function(f) return f.ddp and f.ddp.to and x(f.ddp.to, 16) end
F["iwarp_ddp.rsvdulp"] = function(f) return f.ddp and f.ddp.rsvdulp and hexbytes(f.ddp.rsvdulp) end
F["iwarp_ddp.qn"] = function(f) return f.ddp and f.ddp.qn and tostring(f.ddp.qn) end
F["iwarp_ddp.msn"] = function(f) return f.ddp and f.ddp.msn and tostring(f.ddp.msn) end
F["iwarp_ddp.mo"] = function(f) return f.ddp and f.ddp.mo and tostring(f.ddp.mo) end
F["iwarp_rdma.version"] = function(f) return f.rdmap and tostring(f.rdmap.version) end
F["iwarp_rdma.rsv"] = function(f) return f.rdmap and x(f.rdmap.rsv, 2) end
F["iwarp_rdma.opcode"] = function(f) return f.rdmap and x(f.rdmap.opcode, 2) end
F["iwarp_rdma.reserved"] = function(f) return f.rdmap and f.rdmap.reserved and hexbytes(f.rdmap.reserved) end
local function rr(k, fmt) return function(f) local r = f.rdmap and f.rdmap.rr return r and fmt(r[k]) end end
F["iwarp_rdma.sinkstag"] = rr("sinkstag", function(v) return x(v, 8) end)
F["iwarp_rdma.sinkto"] = rr("sinkto", function(v) return x(v, 16) end)
F["iwarp_rdma.rdmardsz"] = rr("rdmardsz", tostring)
F["iwarp_rdma.srcstag"] = rr("srcstag", function(v) return x(v, 8) end)
F["iwarp_rdma.srcto"] = rr("srcto", function(v) return x(v, 16) end)

local want = {}   -- want[frame][field] = { values in order }
for line in io.lines(arg[2]) do
  local fr, k, v = line:match("^(%d+)\t([^\t]+)\t(.*)$")
  fr = tonumber(fr)
  if fr and (P[k] or F[k]) then
    want[fr] = want[fr] or {}
    want[fr][k] = want[fr][k] or {}
    table.insert(want[fr][k], v)
  end
end

local compared, bad, ops = 0, 0, {}
for n, b in ipairs(frames) do
  local p = assert(W.decode(b))
  print(n, W.describe(p))
  local got = {}
  for k, f in pairs(P) do got[k] = { f(p) } end
  for k, f in pairs(F) do
    got[k] = {}
    for _, fp in ipairs(p.fpdus or {}) do got[k][#got[k] + 1] = f(fp) end
  end
  for _, fp in ipairs(p.fpdus or {}) do if fp.rdmap then ops[fp.rdmap.opname] = (ops[fp.rdmap.opname] or 0) + 1 end end
  local keys = {}
  for k in pairs(P) do keys[#keys + 1] = k end
  for k in pairs(F) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do
    local g, w = table.concat(got[k], ","), table.concat((want[n] or {})[k] or {}, ",")
    if g ~= "" or w ~= "" then
      compared = compared + 1
      if g ~= w then
        bad = bad + 1
        print(("MISMATCH frame %d %s: ours %q, tshark %q"):format(n, k, g, w))
      end
    end
  end
end
local names = {}
for k, v in pairs(ops) do names[#names + 1] = ("%s %d"):format(k, v) end
table.sort(names)
print(("%d frames, %d fields compared, %d mismatches; FPDUs: %s"):format(#frames, compared, bad, table.concat(names, ", ")))
os.exit(bad == 0 and 0 or 1)
