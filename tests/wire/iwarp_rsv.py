# tests/wire/iwarp.pcap with the RDMAP reserved bits (RFC 5040: the 2 bits after
# the version) set in two FPDUs: 01 in frame 8 (the Send), 11 in frame 16 (the
# Read Request). The capture has MPA CRC off, so nothing else changes.
#   python3 tests/wire/iwarp_rsv.py IN.pcap OUT.pcap
import struct, sys
d = open(sys.argv[1], "rb").read()
out, i, n = bytearray(d[:24]), 24, 0
edits = {8: 0x10, 16: 0x30}   # frame -> the RDMAP byte's rsv bits (RFC 5040: 2 bits after the version)
while i < len(d):
    incl = struct.unpack("<I", d[i + 8:i + 12])[0]
    rec = bytearray(d[i:i + 16 + incl]); i += 16 + incl; n += 1
    if n in edits:
        f = 16
        tcp = f + 14 + (rec[f + 14] & 0x0F) * 4
        rdmap = tcp + (rec[tcp + 12] >> 4) * 4 + 3   # MPA length (2), DDP control (1)
        rec[rdmap] |= edits[n]
    out += rec
open(sys.argv[2], "wb").write(out)
