-- The wire row of `make bench`: every frame of a pcap decoded, its PSN and
-- ICRC read and written out, as tshark -T fields -e infiniband.bth.psn
-- -e infiniband.invariant.crc does; the ICRC is also checked.
--   verbsh bench/wire.lua FILE
local out = io.open("/dev/null", "w")
local n, ok, t0 = 0, 0, os.clock()
for p in verbs.wire.frames(arg[1]) do
  n = n + 1
  local bth = p.bth
  if bth then
    out:write(bth.psn, "\t", p.icrc, "\n")
    if p.icrc_ok then ok = ok + 1 end
  end
end
print(("frames=%d icrc_ok=%d cpu_s=%.3f"):format(n, ok, os.clock() - t0))
