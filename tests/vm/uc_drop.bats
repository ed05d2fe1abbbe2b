#!/usr/bin/env bats
# RC against UC when one packet is lost (scripts/rxe-vm --two): a routing
# rule drops the SEND that arrives at rxe1's veth, after the capture saw it
# (tests/wire/uc_drop.lua). RC retransmits and completes; UC completes
# SUCCESS at once and its receiver gets nothing. The same guest runs lesson
# 19 (uc), whose last step loses a packet the same way when two devices
# are there.
load ../helpers

@test "UC vs RC over the veth pair: the lost SEND is retransmitted on RC, gone on UC; lesson 19's wire step passes" {
    cd "$ROOT"
    run scripts/rxe-vm --two -- bash -c '"$VERBSH" tests/wire/uc_drop.lua && "$VERBSH" --lesson uc --auto' 
    echo "$output"
    [ "$status" -eq 0 ]
    has_line "observed: RC sender's completion while the frame was lost: none yet (waits for an ACK)"
    has_line "observed: RC sender's completion: SUCCESS"
    has_line 'observed: RC receiver: SUCCESS byte_len=1000 "RC payload"'
    # the lost frame and at least one retransmission of the same PSN, then the ACK
    [[ $output == *"observed: RC frames on rxe1's veth: RC SEND_ONLY psn 100, RC SEND_ONLY psn 100, "*"RC ACKNOWLEDGE psn 100"* ]]
    [[ $output == *"SEND_ONLY psn 100 len 1000 ------>"*"wr_id 1's SEND again (retransmitted)"* ]]
    has_line "observed: UC sender's completion while the frame was lost: SUCCESS"
    has_line "observed: UC receiver: nothing"
    has_line "observed: UC frames on rxe1's veth: UC SEND_ONLY psn 100"
    [[ $output == *"no ACK in the capture"* ]]
    # lesson 19 with its sixth step, the loss on the wire
    [[ $output == *"✓ step 6 done: the frame reached dev_b's veth and was dropped there; qp_x SUCCESS, qp_y nothing, no ACK"* ]]
    [[ $output == *"PASS uc"* ]]
}
