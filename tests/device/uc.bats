#!/usr/bin/env bats
# UC, the unreliable connection, on rxe (tests/lua/verbs_uc.lua checks every
# value itself); here the key observations once more, by value.
load ../helpers

setup() { require_device; }

@test "UC: every state, RC's attributes refused with UC's reason; SEND and WRITE arrive, READ and atomics refused, losses silent" {
    run "$VERBSH" "$ROOT/tests/lua/verbs_uc.lua"
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "observed: UC RTR with max_dest_rd_atomic and min_rnr_timer: present but not allowed in UC INIT->RTR: IBV_QP_MIN_RNR_TIMER (min_rnr_timer), IBV_QP_MAX_DEST_RD_ATOMIC (max_dest_rd_atomic) (a UC receiver sends no RNR NAK: a SEND that finds no receive is dropped; UC has no READ or atomics, so the responder keeps no resources for them)"
    [[ $output == *"observed: UC RTS with timeout, retry_cnt, rnr_retry, max_rd_atomic: present but not allowed in UC RTR->RTS: IBV_QP_TIMEOUT (timeout), IBV_QP_RETRY_CNT (retry_cnt), IBV_QP_RNR_RETRY (rnr_retry), IBV_QP_MAX_QP_RD_ATOMIC (max_rd_atomic) (UC sends no ACKs"* ]]
    [[ $output == *"observed: connected: qp UC 0x"*" RTS <-> qp UC 0x"*" RTS"* ]]
    has_line "observed: states: RESET INIT RTR RTS SQD RTS ERR RESET INIT"
    [[ $output == *"verbs_uc: ok (67 checks)"* ]]
    # SEND and RDMA WRITE arrive; READ and atomics are refused at post; lost messages complete SUCCESS
    [[ $output == *"observed: SEND: wc wr_id=100 RECV SUCCESS byte_len=10 wc_flags=GRH qp_num=0x"* ]]
    has_line "observed: RDMA_WRITE: bytes arrived"
    [[ $output == *"observed: RDMA_WRITE_WITH_IMM: wc wr_id=102 RECV_RDMA_WITH_IMM SUCCESS byte_len=4 imm_data=0x12345678 wc_flags=GRH|WITH_IMM"* ]]
    has_line "observed: UC RDMA_READ: opcode RDMA_READ on a UC QP: UC has no READ or atomics"
    has_line "observed: UC atomics: refused"
    has_line "observed: UC create_qp_ex with RDMA_READ: EOPNOTSUPP"
    has_line "observed: SEND with no receive posted: sender SUCCESS, receiver nothing; the next SEND is the one received"
    has_line "observed: UC WRITE to an MR without REMOTE_WRITE: sender SUCCESS, nothing written, both QPs in RTS"
}
