-- Compares verbs.wire's decode of every frame of a pcap with tshark's.
-- usage: verbsh tests/wire/oracle.lua X.pcap FLAT   (FLAT from tshark_flat.py)
-- Prints one line per mismatch and a summary; exits 1 on any mismatch.
local wire = require 'verbs.wire'
local d = assert(io.open(arg[1], "rb")):read("a")
local frames, i = {}, 25
while i < #d do
  local incl = string.unpack("<I4", d, i + 8)
  frames[#frames + 1] = d:sub(i + 16, i + 15 + incl)
  i = i + 16 + incl
end
local hex = function(n) return ("0x%08x"):format(n) end
-- tshark field -> our value, as tshark prints it
local map = {
  ["ip.src"] = function(p) return p.ip.src end,
  ["ip.dst"] = function(p) return p.ip.dst end,
  ["ip.ttl"] = function(p) return tostring(p.ip.ttl) end,
  ["ip.len"] = function(p) return tostring(p.ip.len) end,
  ["udp.srcport"] = function(p) return tostring(p.udp.srcport) end,
  ["udp.dstport"] = function(p) return tostring(p.udp.dstport) end,
  ["udp.length"] = function(p) return tostring(p.udp.length) end,
  ["infiniband.bth.opcode"] = function(p) return tostring(p.bth.opcode) end,
  ["infiniband.bth.se"] = function(p) return tostring(p.bth.se) end,
  ["infiniband.bth.m"] = function(p) return tostring(p.bth.m) end,
  ["infiniband.bth.padcnt"] = function(p) return tostring(p.bth.padcnt) end,
  ["infiniband.bth.tver"] = function(p) return tostring(p.bth.tver) end,
  ["infiniband.bth.p_key"] = function(p) return tostring(p.bth.p_key) end,
  ["infiniband.bth.destqp"] = function(p) return ("0x%06x"):format(p.bth.destqp) end,
  ["infiniband.bth.a"] = function(p) return tostring(p.bth.a) end,
  ["infiniband.bth.psn"] = function(p) return tostring(p.bth.psn) end,
  ["infiniband.aeth.syndrome"] = function(p) return tostring(p.aeth.syndrome) end,
  ["infiniband.aeth.msn"] = function(p) return tostring(p.aeth.msn) end,
  ["infiniband.aeth.syndrome.opcode"] = function(p) return tostring((p.aeth.syndrome >> 5) & 3) end,
  ["infiniband.aeth.syndrome.error_code"] = function(p) return tostring(p.aeth.syndrome & 0x1F) end,
  ["infiniband.aeth.syndrome.credit_count"] = function(p) return tostring(p.aeth.value) end,
  ["ip.version"] = function(p) return tostring(p.ip.version) end,
  ["ip.hdr_len"] = function(p) return tostring(p.ip.hdr_len) end,
  ["ip.proto"] = function(p) return tostring(p.ip.proto) end,
  ["ip.id"] = function(p) return ("0x%04x"):format(p.ip.id) end,
  ["ip.checksum"] = function(p) return ("0x%04x"):format(p.ip.checksum) end,
  ["ip.dsfield"] = function(p) return ("0x%02x"):format(p.ip.dsfield) end,
  ["udp.checksum"] = function(p) return ("0x%04x"):format(p.udp.checksum) end,
  ["infiniband.deth.q_key"] = function(p) return ("0x%016x"):format(p.deth.q_key) end,
  ["infiniband.deth.srcqp"] = function(p) return ("0x%08x"):format(p.deth.src_qp) end,
  -- tshark names the AtomicETH's address and key as the RETH's
  ["infiniband.reth.va"] = function(p) return ("0x%016x"):format((p.reth or p.atomiceth).va) end,
  ["infiniband.reth.r_key"] = function(p) return ("0x%08x"):format((p.reth or p.atomiceth).r_key) end,
  ["infiniband.immdt"] = function(p)
    return ("%02x:%02x:%02x:%02x"):format(p.immdt >> 24, (p.immdt >> 16) & 255, (p.immdt >> 8) & 255, p.immdt & 255)
  end,
  ["infiniband.ieth"] = function(p)
    return ("%02x:%02x:%02x:%02x"):format(p.ieth >> 24, (p.ieth >> 16) & 255, (p.ieth >> 8) & 255, p.ieth & 255)
  end,
  ["infiniband.aeth.syndrome.timer"] = function(p) return tostring(p.aeth.timer) end,
  ["infiniband.reth.dmalen"] = function(p) return tostring(p.reth.dma_length) end,
  ["infiniband.atomiceth.swapdt"] = function(p) return tostring(p.atomiceth.swap_or_add) end,
  ["infiniband.atomiceth.cmpdt"] = function(p) return tostring(p.atomiceth.compare) end,
  ["infiniband.atomicacketh.origremdt"] = function(p) return tostring(p.atomicacketh.orig_rem_dt) end,
  ["infiniband.invariant.crc"] = function(p) return hex(p.icrc) end,
  ["ipv6.version"] = function(p) return tostring(p.ip.version) end,
  ["ipv6.tclass"] = function(p) return hex(p.ip.tclass) end,
  ["ipv6.flow"] = function(p) return ("0x%06x"):format(p.ip.flow) end,
  ["ipv6.plen"] = function(p) return tostring(p.ip.plen) end,
  ["ipv6.nxt"] = function(p) return tostring(p.ip.nxt) end,
  ["ipv6.hlim"] = function(p) return tostring(p.ip.hlim) end,
  ["ipv6.src"] = function(p) return p.ip.src end,
  ["ipv6.dst"] = function(p) return p.ip.dst end,
}
local decoded, compared, bad, unmapped = {}, 0, 0, {}
for n, f in ipairs(frames) do
  decoded[n] = assert(wire.decode(f))
  if not decoded[n].icrc_ok then print(("frame %d: ICRC mismatch"):format(n)); bad = bad + 1 end
end
for line in assert(io.open(arg[2])):lines() do
  local n, field, value = line:match("^(%d+)\t([^\t]+)\t(.*)$")
  local fn = map[field]
  if fn then
    local ok, ours = pcall(fn, decoded[tonumber(n)])
    compared = compared + 1
    if not ok or ours ~= value then
      bad = bad + 1
      print(("frame %s: %s tshark %s verbsh %s"):format(n, field, value, tostring(ours)))
    end
  else
    unmapped[field] = (unmapped[field] or 0) + 1
  end
end
-- a flipped payload byte must fail the ICRC
local f = frames[1]
local k = #f - 6
local broken = f:sub(1, k - 1) .. string.char(f:byte(k) ~ 0x01) .. f:sub(k + 1)
local corrupted = not wire.decode(broken).icrc_ok
print(("%d frames, %d fields compared, %d mismatches, corrupted byte %s"):format(
  #frames, compared, bad, corrupted and "reported" or "NOT reported"))
local names = {}
for k2 in pairs(unmapped) do names[#names + 1] = k2 end
table.sort(names)
print("not compared: " .. table.concat(names, " "))
os.exit(bad == 0 and corrupted and compared > 0 and 0 or 1)
