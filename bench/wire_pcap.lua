-- Large pcap files for the wire rows of `make bench`, made from a real
-- capture (tests/wire/*.pcap, from scripts/rxe-vm --two):
--   verbsh bench/wire_pcap.lua repeat SRC N OUT
--     SRC's frames over and over to N frames, the time running on;
--   verbsh bench/wire_pcap.lua stream SRC WRS FRAMES_PER_WR OUT
--     an RDMA WRITE stream: WRS messages of FIRST, MIDDLE..., LAST and an
--     ACK each, the PSNs counting up, made from SRC's WRITE FIRST, MIDDLE
--     (or SEND_MIDDLE), LAST and ACK frames, each cut to 128 bytes as a
--     capture with snaplen 128 keeps them (an ACK is whole, its ICRC redone).
local mode = arg[1]
local function header(f, snaplen)
  f:write(string.pack("<I4I2I2i4I4I4I4", 0xa1b2c3d4, 2, 4, 0, 0, snaplen, 1))
end
local function record(f, t, bytes, length)
  local sec = t // 1000000
  f:write(string.pack("<I4I4I4I4", sec, t % 1000000, #bytes, length), bytes)
end
local src = verbs.wire.read_pcap(arg[2])
if mode == "repeat" then
  local n, f = tonumber(arg[3]), assert(io.open(arg[4], "wb"))
  header(f, 65535)
  for i = 0, n - 1 do
    local p = src[i % #src + 1]
    record(f, 1700000000 * 1000000 + i * 10, p.bytes, p.length)
  end
  f:close()
elseif mode == "stream" then
  local wrs, per, f = tonumber(arg[3]), tonumber(arg[4]), assert(io.open(arg[5], "wb"))
  local want = { RDMA_WRITE_FIRST = true, RDMA_WRITE_MIDDLE = true, SEND_MIDDLE = true,
                 RDMA_WRITE_LAST = true, ACKNOWLEDGE = true }
  local t = {}
  for _, p in ipairs(src) do
    local d = verbs.wire.decode(p)
    if d and want[d.opcode] and not t[d.opcode] and (d.opcode ~= "ACKNOWLEDGE" or d.aeth.kind == "ACK") then
      t[d.opcode] = p
    end
  end
  t.RDMA_WRITE_MIDDLE = t.RDMA_WRITE_MIDDLE or t.SEND_MIDDLE
  local mid_op = string.char(7)   -- RC RDMA_WRITE_MIDDLE
  local function with_psn(p, psn, op)
    local b = p.bytes:sub(1, 128)
    local bth = 14 + (b:byte(15) & 0x0F) * 4 + 8   -- Ethernet, IPv4, UDP
    b = b:sub(1, bth) .. (op or b:sub(bth + 1, bth + 1)) .. b:sub(bth + 2, bth + 9)
      .. string.pack(">I3", psn & 0xFFFFFF) .. b:sub(bth + 13)
    if #b == p.length then   -- kept whole (an ACK): its ICRC follows the new PSN
      b = b:sub(1, -5) .. string.pack("<I4", verbs.wire.decode(b).icrc_expected)
    end
    return b, p.length
  end
  header(f, 128)
  local psn, at = 0, 1700000000 * 1000000
  for _ = 1, wrs do
    for k = 1, per do
      local op = k == 1 and "RDMA_WRITE_FIRST" or k == per and "RDMA_WRITE_LAST" or "RDMA_WRITE_MIDDLE"
      local b, len = with_psn(t[op], psn, op == "RDMA_WRITE_MIDDLE" and mid_op or nil)
      record(f, at, b, len)
      psn, at = psn + 1, at + 3
    end
    local b, len = with_psn(t.ACKNOWLEDGE, psn - 1)
    record(f, at, b, len)
    at = at + 3
  end
  f:close()
else
  error("usage: wire_pcap.lua repeat SRC N OUT | stream SRC WRS FRAMES_PER_WR OUT")
end
