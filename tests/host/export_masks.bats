#!/usr/bin/env bats
# The mask bits, against libibverbs' own word: the manual pages say which
# IBV_QP_* bit sets which ibv_qp_attr field (tests/oracle/man_masks.lua),
# and the C compiler gives every enumerator's value. Checked here: the bit
# the binding ORs in for each key (verbs.fields' mask) and the values of
# verbsh's enum tables. tests/device/oracle.bats checks the masks
# verbs.export_c writes.
load ../helpers

@test "verbs.fields: each ibv_qp_attr key sets the IBV_QP_* bit ibv_modify_qp(3) names for it, each ibv_srq_attr key the IBV_SRQ_* bit of ibv_modify_srq(3); the fields are the man page's struct" {
    run "$VERBSH" -e '
      local M = dofile(os.getenv("ROOT") .. "/tests/oracle/man_masks.lua")
      local want, order = M.qp_attr()
      local got = {}
      for i, f in ipairs(verbs.fields("ibv_qp_attr")) do
        got[#got + 1] = f.name
        print(("qp_attr %s %s %s"):format(f.name, tostring(f.mask), tostring(want[f.name])))
      end
      print("qp_attr fields", table.concat(got, ",") == table.concat(order, ","), #got)
      local srq = M.srq_attr()
      for _, f in ipairs(verbs.fields("ibv_srq_attr")) do
        print(("srq_attr %s %s %s"):format(f.name, tostring(f.mask), tostring(srq[f.name])))
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "qp_attr fields	true	26"
    local n=0 l
    for l in "${lines[@]}"; do
        case $l in
        qp_attr\ fields*) ;;
        qp_attr\ *|srq_attr\ *)
            read -r _ field mask want <<<"$l"
            [ "$mask" = "$want" ] || { echo "field $field: verbs.fields says mask $mask, the man page $want"; return 1; }
            n=$((n + 1)) ;;
        esac
    done
    [ "$n" -eq 29 ]
    has_line "qp_attr sq_draining nil nil"      # "Irrelevant for ibv_modify_qp()": no bit
    has_line "srq_attr max_sge nil nil"         # ibv_modify_srq cannot change it
}

@test "verbs.fields: ibv_qp_init_attr_ex's pd, create_flags and send_ops_flags set the IBV_QP_INIT_ATTR_* bit named after them in verbs.h; ibv_cq_init_attr_ex's flags sets IBV_CQ_INIT_ATTR_MASK_FLAGS" {
    run vsh '
      for _, s in ipairs{ "ibv_qp_init_attr_ex", "ibv_cq_init_attr_ex" } do
        for _, f in ipairs(verbs.fields(s)) do if f.mask then print(s, f.name, f.mask) end end
      end'
    echo "$output"
    [ "$status" -eq 0 ]
    # verbs.h: enum ibv_qp_init_attr_mask names each bit after the field it makes valid
    grep -q 'IBV_QP_INIT_ATTR_PD.*=' /usr/include/infiniband/verbs.h
    local l s field mask n=0
    for l in "${lines[@]}"; do
        read -r s field mask <<<"$l"
        case $s in
        ibv_qp_init_attr_ex) want=IBV_QP_INIT_ATTR_${field^^} ;;
        ibv_cq_init_attr_ex) want=IBV_CQ_INIT_ATTR_MASK_${field^^} ;;
        esac
        grep -Eq "^[[:space:]]*$want[[:space:]]*=" /usr/include/infiniband/verbs.h || { echo "$want is not in verbs.h"; return 1; }
        [ "$mask" = "$want" ] || { echo "$s.$field: mask $mask, want $want"; return 1; }
        n=$((n + 1))
    done
    [ "$n" -eq 4 ]
}

@test "every name of every verbsh enum table is a C enumerator of the installed headers with the same value (the C compiler says)" {
    run vsh '
      local names = {}
      for ctype in pairs(verbs.enums) do names[#names + 1] = ctype end
      table.sort(names)
      for _, ctype in ipairs(names) do
        local t = verbs.enum(ctype)
        if t.prefix ~= "" then
          for _, n in ipairs(t.names) do print(ctype, t.prefix .. n, t.values[n]) end
        end
      end'
    [ "$status" -eq 0 ]
    local c=$BATS_TEST_TMPDIR/enums.c
    {
        echo '#include <stdio.h>'
        echo '#include <infiniband/verbs.h>'
        echo '#include <rdma/rdma_cma.h>'
        echo 'int main(void) {'
        local ctype name value
        while read -r ctype name value; do
            echo "  printf(\"%s %s %lld\\n\", \"$ctype\", \"$name\", (long long)($name));"
        done <<<"$output"
        echo '  return 0; }'
    } >"$c"
    cc -o "$BATS_TEST_TMPDIR/enums" "$c"
    "$BATS_TEST_TMPDIR/enums" >"$BATS_TEST_TMPDIR/c.txt"
    printf '%s\n' "$output" | tr '\t' ' ' >"$BATS_TEST_TMPDIR/verbsh.txt"
    diff "$BATS_TEST_TMPDIR/c.txt" "$BATS_TEST_TMPDIR/verbsh.txt"
    [ "$(wc -l <"$BATS_TEST_TMPDIR/c.txt")" -gt 250 ]
}

@test "verbs.fields: bit is the value of the mask it names, the one map explain_qp.lua reads; a struct without a C mask has none" {
    run "$VERBSH" -e '
      local n, bad = 0, {}
      for _, t in ipairs{ { "ibv_qp_attr", "ibv_qp_attr_mask" }, { "ibv_srq_attr", "ibv_srq_attr_mask" } } do
        local e = verbs.enum(t[2])
        for _, f in ipairs(verbs.fields(t[1])) do
          if f.mask then
            n = n + 1
            if f.bit ~= e.values[f.mask:sub(#e.prefix + 1)] then bad[#bad + 1] = f.name end
          elseif f.bit ~= nil then bad[#bad + 1] = f.name .. " (bit without mask)" end
        end
      end
      print(n, table.concat(bad, ","))
      local by = {}
      for _, f in ipairs(verbs.fields("ibv_qp_attr")) do by[f.name] = f end
      print(by.path_mtu.bit, by.rate_limit.bit, by.sq_draining.bit)
      local sent = 0
      for _, f in ipairs(verbs.fields("ibv_send_wr")) do if f.bit then sent = sent + 1 end end
      print(sent)
      local qp = require "verbs.explain_qp"
      print(qp.KEY_BIT.path_mtu, qp.KEY_BIT.alt_timeout, qp.KEY_BIT.sq_draining, #qp.BITS, qp.BITS[1][1], qp.BITS[#qp.BITS][1])'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = $'27\t' ]              # 25 qp_attr keys with a bit, 2 of srq_attr; none wrong
    [ "${lines[1]}" = $'256\t33554432\tnil' ] # IBV_QP_PATH_MTU 1<<8, IBV_QP_RATE_LIMIT 1<<25; sq_draining has none
    [ "${lines[2]}" = 0 ]                      # post.c's bits are its own bookkeeping, not C's
    [ "${lines[3]}" = $'PATH_MTU\tALT_PATH\tnil\t22\tSTATE\tRATE_LIMIT' ]
}

@test "verbs.export_c writes a flags value as the C names of its bits, one name a bit, and C reads the same number back: every bit of every flags type, all of them at once, 0, and a bit no name has (as hex)" {
    run "$VERBSH" -e '
      local cflags = require("verbs.export_writer").cflags
      local types = {}
      for ctype in pairs(verbs.enums) do if verbs.enum(ctype).flags then types[#types + 1] = ctype end end
      table.sort(types)
      for _, ctype in ipairs(types) do
        local e, all = verbs.enum(ctype), 0
        for _, n in ipairs(e.names) do
          local v = e.values[n]
          if v ~= 0 and v & (v - 1) == 0 then   -- one bit
            all = all | v
            print(ctype, v, 1, cflags(ctype, v))
          end
        end
        local bits = 0
        for i = 0, 62 do if all >> i & 1 == 1 then bits = bits + 1 end end
        print(ctype, all, bits, cflags(ctype, all))
        print(ctype, 0, 0, cflags(ctype, 0))
        print(ctype, all | 1 << 40, "hex", cflags(ctype, all | 1 << 40))
      end'
    [ "$status" -eq 0 ]
    local c=$BATS_TEST_TMPDIR/flags.c n=0 ctype value parts text
    printf '%s\n' '#include <stdio.h>' '#include <infiniband/verbs.h>' '#include <rdma/rdma_cma.h>' 'int main(void) {' >"$c"
    while IFS=$'\t' read -r ctype value parts text; do
        echo "  printf(\"%s %lld\\n\", \"$ctype\", (long long)($text));" >>"$c"
        n=$((n + 1))
        case $parts in
        0) [ "$text" = 0 ] || { echo "$ctype 0: '$text'"; return 1; } ;;
        hex) [[ $text == *" | 0x10000000000" ]] || { echo "$ctype: the unnamed bit 1<<40 is not hex at the end: $text"; return 1; } ;;
        *)  # names only, one a bit: no hex rest, no name of no bit
            [[ $text != *0x* ]] || { echo "$ctype $value: '$text' is not all names"; return 1; }
            local names=${text//[^|]/}
            [ $((${#names} + 1)) -eq "$parts" ] || { echo "$ctype $value: '$text' is not $parts names"; return 1; } ;;
        esac
    done <<<"$output"
    echo '  return 0; }' >>"$c"
    cc -o "$BATS_TEST_TMPDIR/flags" "$c"
    "$BATS_TEST_TMPDIR/flags" >"$BATS_TEST_TMPDIR/c.txt"
    cut -f1,2 <<<"$output" | tr '\t' ' ' >"$BATS_TEST_TMPDIR/verbsh.txt"
    diff "$BATS_TEST_TMPDIR/verbsh.txt" "$BATS_TEST_TMPDIR/c.txt"
    [ "$n" -gt 150 ]
    echo "$n values"
}
