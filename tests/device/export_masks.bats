#!/usr/bin/env bats
# The masks verbs.export_c writes, against the manual pages (see
# tests/host/export_masks.bats for the binding's own bits).
load ../helpers

setup() { require_device; }

@test "verbs.export_c: each ibv_qp_attr key, modified alone, is written with the IBV_QP_* bit ibv_modify_qp(3) names for it; each ibv_srq_attr key with ibv_modify_srq(3)'s; create_qp_ex's comp_mask has the IBV_QP_INIT_ATTR_* bit of each field given" {
    run "$VERBSH" "$ROOT/tests/oracle/export_masks.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "calls	25	25	2	2	2	2"
    local l kind field mask want n=0
    for l in "${lines[@]}"; do
        case $l in
        "qp "*|"srq "*|"qp_ex "*)
            read -r kind field mask want <<<"$l"
            [ "$mask" = "$want" ] || { echo "$kind field $field: the export writes $mask, the man page says $want"; return 1; }
            n=$((n + 1)) ;;
        esac
    done
    [ "$n" -eq 29 ]
}
