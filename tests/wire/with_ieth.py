# A pcap of three RC frames made from the SEND_ONLY of tests/wire/scenarios.pcap:
# that frame, then SEND_ONLY_WITH_INVALIDATE (opcode 23) with IETH 0x1a2b3c4d
# and SEND_LAST_WITH_INVALIDATE (22) with IETH 0x00c0ffee, each with its IPv4
# checksum and ICRC computed here (the ICRC by IBA A17.8, checked against
# the frames rxe sent), for the tshark oracle of a header rxe rarely sends.
#   python3 tests/wire/with_ieth.py IN.pcap OUT.pcap
import struct, sys, zlib
sys.dont_write_bytecode = True   # (no __pycache__ left in tests/wire)
from pcap_records import records, write
hdr, recs = records(sys.argv[1])
recs = [(r[:16], r[16:]) for r in recs]   # (record header, frame)
def icrc(f):   # RoCEv2's invariant CRC: CRC-32 of 8 bytes of 1s and the frame with its variant fields as 1s
    ip = bytearray(f[14:34]); ip[1] = 0xff; ip[8] = 0xff; ip[10:12] = b"\xff\xff"
    udp = bytearray(f[34:42]); udp[6:8] = b"\xff\xff"
    bth = bytearray(f[42:54]); bth[4] = 0xff
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(bth) + f[54:-4]))
def with_ieth(f, opcode, key):
    f = bytearray(f[:42] + bytes([opcode]) + f[43:54] + struct.pack(">I", key) + f[54:-4])
    f[16:18] = struct.pack(">H", struct.unpack(">H", f[16:18])[0] + 4)     # IPv4 total length
    f[38:40] = struct.pack(">H", struct.unpack(">H", f[38:40])[0] + 4)     # UDP length
    f[24:26] = b"\0\0"
    s = sum(struct.unpack(">10H", bytes(f[14:34])))
    while s > 0xffff: s = (s & 0xffff) + (s >> 16)
    f[24:26] = struct.pack(">H", ~s & 0xffff)
    return bytes(f) + icrc(bytes(f) + b"\0\0\0\0")
send = next(f for _, f in recs if f[42] == 4)    # an RC SEND_ONLY (no IETH)
out = [send, with_ieth(send, 23, 0x1a2b3c4d), with_ieth(send, 22, 0x00c0ffee)]
ph = recs[0][0][:8]
write(sys.argv[2], hdr, [ph + struct.pack("<II", len(f), len(f)) + f for f in out])
