#!/usr/bin/env python3
# tshark -T json on stdin -> "frame<TAB>field<TAB>value" lines for every leaf
# of the ip, tcp, iwarp_mpa and iwarp_ddp_rdmap layers (the oracle of
# tests/wire/oracle_iwarp.lua). A layer that tshark gives as a list (two
# FPDUs in one segment) is walked item by item.
import json, sys
def walk(i, d):
    if isinstance(d, list):
        for x in d:
            walk(i, x)
        return
    for k, v in d.items():
        if isinstance(v, (dict, list)):
            walk(i, v)
        elif isinstance(v, str):
            print(f"{i}\t{k}\t{v}")
for i, p in enumerate(json.load(sys.stdin), 1):
    layers = p["_source"]["layers"]
    for name in ("ip", "tcp", "iwarp_mpa", "iwarp_ddp_rdmap"):
        if name in layers:
            walk(i, layers[name])
