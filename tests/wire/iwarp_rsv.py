# tests/wire/iwarp.pcap with the RDMAP reserved bits (RFC 5040: the 2 bits after
# the version) set in two FPDUs: 01 in frame 8 (the Send), 11 in frame 16 (the
# Read Request). The capture has MPA CRC off, so nothing else changes.
#   python3 tests/wire/iwarp_rsv.py IN.pcap OUT.pcap
import sys
sys.dont_write_bytecode = True   # (no __pycache__ left in tests/wire)
from pcap_records import records, write
hdr, recs = records(sys.argv[1])
edits = {8: 0x10, 16: 0x30}   # frame -> the RDMAP byte's rsv bits (RFC 5040: 2 bits after the version)
for n, bits in edits.items():
    rec = bytearray(recs[n - 1])
    f = 16
    tcp = f + 14 + (rec[f + 14] & 0x0F) * 4
    rdmap = tcp + (rec[tcp + 12] >> 4) * 4 + 3   # MPA length (2), DDP control (1)
    rec[rdmap] |= bits
    recs[n - 1] = bytes(rec)
write(sys.argv[2], hdr, recs)
