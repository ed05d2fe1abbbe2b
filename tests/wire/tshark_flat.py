#!/usr/bin/env python3
# tshark -T json on stdin -> "frame<TAB>field<TAB>value" lines for every leaf
# of the ip, udp and infiniband layers (the oracle of tests/wire/oracle.lua).
import json, sys
def walk(i, d):
    for k, v in d.items():
        if isinstance(v, dict):
            walk(i, v)
        elif isinstance(v, str):
            print(f"{i}\t{k}\t{v}")
for i, p in enumerate(json.load(sys.stdin), 1):
    layers = p["_source"]["layers"]
    for name in ("ip", "ipv6", "udp", "infiniband"):
        if name in layers:
            walk(i, layers[name])
