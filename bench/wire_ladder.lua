-- The ladder and attribution row of bench/wire: a pcap of a WRITE stream
-- (bench/wire_pcap.lua stream) read into a list, its WRs tied to frames
-- (verbs.wire.attribute) and drawn (verbs.wire.ladder), with the times.
--   verbsh bench/wire_ladder.lua FILE WRS
local w = verbs.wire
local clock = os.clock
local t0 = clock()
local list = w.read_pcap(arg[1])
local t1 = clock()
local first = w.decode(list[1])
local ack
for _, p in ipairs(list) do if p.opcode == "ACKNOWLEDGE" then ack = p break end end
local posts = {}
for i = 1, tonumber(arg[2]) do
  posts[i] = { qp = "qp1", qp_num = ack.bth.destqp, qp_type = "RC", dest_qp = first.bth.destqp, wr_id = i,
               opcode = "RDMA_WRITE", length = 1048576 }
end
local notes, summary = w.attribute(list, posts)
local t2 = clock()
local ladder = w.ladder(list, notes)
local t3 = clock()
local _, lines = ladder:gsub("\n", "")
print(("ladder: %d frames read in %.2f s; attribute %.2f s (%d WRs, the last: %s); ladder %.2f s (%d lines)")
  :format(#list, t1 - t0, t2 - t1, #summary, summary[#summary], t3 - t2, lines + 1))
