"""A classic pcap file as its 24-byte file header and its records, each a
record header (16 bytes: seconds, microseconds, included and original
length, little-endian as tcpdump writes them here) and its frame, for tests
that build a capture from another by moving, dropping or editing records."""
import struct


def records(path):
    data = open(path, "rb").read()
    recs, i = [], 24
    while i < len(data):
        incl = struct.unpack("<I", data[i + 8:i + 12])[0]
        recs.append(data[i:i + 16 + incl])
        i += 16 + incl
    return data[:24], recs


def write(path, header, recs):
    open(path, "wb").write(header + b"".join(recs))
