#!/usr/bin/env bats
# Error paths on real rxe: each scenario is a script in tests/lua/errors_*.lua
# that checks statuses and messages itself and prints "observed: ..." lines;
# here the key values are asserted once more, by value.
load ../helpers

setup() { require_device; }

# Through -e and dofile, so that it also works with a shell that runs only -e.
scenario() {
    run "$VERBSH" -e "arg = { [0] = '$ROOT/tests/lua/errors_$1.lua' }; dofile(arg[0])"
    echo "$output"
}

@test "modify_qp: each RC step with one required attribute missing -> EINVAL naming it; RoCE pitfalls; illegal transitions" {
    scenario modify
    [ "$status" -eq 0 ]
    [ "$(grep -c '^observed: RC .* without .*: EINVAL 22, still ' <<<"$output")" -eq 14 ]
    [[ $output == *"observed: RC INIT->RTR without ah_attr: EINVAL 22, still INIT"* ]]
    [[ $output == *"observed: RC RESET->INIT without qp_access_flags: EINVAL 22, still RESET"* ]]
    [[ $output == *"observed: RC RTR->RTS without max_rd_atomic: EINVAL 22, still RTR"* ]]
    [[ $output == *"observed: RTR with is_global = 0: EINVAL 22, still INIT"* ]]
    [[ $output == *"observed: RTR with sgid_index 7 (empty): ENODATA 61"* ]]
    [[ $output == *"observed: RTS with timeout 40: refused: key 'timeout': 40 is out of range (0..31)"* ]]
    [[ $output == *"observed: RESET->RTS: EINVAL 22, still RESET"* ]]
    [[ $output == *"observed: RESET->ERR: EINVAL 22, still RESET"* ]]
    [[ $output == *"observed: UD RESET->INIT with qp_access_flags: EINVAL 22"* ]]
    [[ $output == *"errors_modify: ok"* ]]
}

@test "post_recv in RESET -> EINVAL with the WR index; accepted in INIT" {
    scenario post
    [ "$status" -eq 0 ]
    [[ $output == *"observed: post_recv in RESET: EINVAL 22 bad_wr=1"* ]]
    [[ $output == *"observed: post_recv in INIT: accepted"* ]]
    [[ $output == *"observed: post_send in INIT: EINVAL 22"* ]]
    [[ $output == *"errors_post: ok"* ]]
}

@test "SEND with no receive and rnr_retry = 0 -> RNR_RETRY_EXC_ERR, requester in ERR, then WR_FLUSH_ERR" {
    scenario rnr
    [ "$status" -eq 0 ]
    [[ $output == *"observed: SEND without receive: RNR_RETRY_EXC_ERR"* ]]
    [[ $output == *"wc wr_id=1 RNR_RETRY_EXC_ERR "*"cause: no receive was posted at the responder (RNR NAK) and rnr_retry ran out"* ]]
    [[ $output == *"observed: requester state: ERR"* ]]
    [[ $output == *"observed: responder state: RTS"* ]]   # an RNR NAK is not an error at the responder
    [[ $output == *"observed: post_send in ERR: accepted"* ]]
    [[ $output == *"observed: SEND after ERR: WR_FLUSH_ERR"* ]]
    [[ $output == *"errors_rnr: ok"* ]]
}

@test "RDMA WRITE to an MR without REMOTE_WRITE -> REM_ACCESS_ERR, both QPs in ERR, receives flushed" {
    scenario access
    [ "$status" -eq 0 ]
    [[ $output == *"observed: RDMA WRITE to an MR without REMOTE_WRITE: REM_ACCESS_ERR"* ]]
    [[ $output == *"observed: requester state: ERR"* ]]
    [[ $output == *"observed: responder state: ERR"* ]]
    [[ $output == *"observed: responder's outstanding receive: WR_FLUSH_ERR wr_id=60"* ]]
    [[ $output == *"observed: after modify to ERR: WR_FLUSH_ERR wr_id=61"* ]]
    [[ $output == *"errors_access: ok"* ]]
}

@test "preconditions librdmacm and rxe assume are explained errors, not crashes (issue 19 items 7-10)" {
    scenario preconditions
    [ "$status" -eq 0 ]
    [[ $output == *"observed: resolve_route before resolve_addr: rdma_resolve_route: this cm_id has no device yet (librdmacm would crash on it): call id:resolve_addr(...) first"* ]]
    [[ $output == *"observed: connect on an unbound id: rdma_connect: this cm_id has no device yet"* ]]
    [[ $output == *"observed: accept on an unbound id: rdma_accept: this cm_id has no device yet"* ]]
    [[ $output == *"observed: TCP accept with no QP and no conn_param: rdma_accept: with no QP on the id, a conn_param is needed"*"id:create_qp(pd, {...}) first"* ]]
    [[ $output == *"observed: UDP accept with no QP and no conn_param: rdma_accept: with no QP on the id, a conn_param is needed"* ]]
    [[ $output == *"observed: BIND_MW: "*"opcode BIND_MW needs bind_mw = { mw =, rkey =, bind_info = { mr =,"*"which rxe's provider dereferences"* ]]
    [[ $output == *"observed: TSO: "*"opcode TSO needs tso.hdr"* ]]
    [[ $output == *"observed: UD SEND with rdma: "*"key 'rdma' on a UD QP"*"give ud = { ah =, remote_qpn =, remote_qkey = }"* ]]
    [[ $output == *"observed: UD SEND with atomic: "*"key 'atomic' on a UD QP"* ]]
    [[ $output == *"observed: UD SEND without ud: "*"key 'ud.ah' is required on a UD QP"* ]]
    [[ $output == *"observed: RC SEND with ud: "*"key 'ud' on this RC QP"* ]]
    [[ $output == *"observed: RC SEND with rdma: "*"key 'rdma' with opcode SEND, which does not use it"* ]]
    [[ $output == *"observed: RC RDMA_WRITE with atomic: "*"key 'atomic' with opcode RDMA_WRITE"* ]]
    [[ $output == *"observed: list: the second WR: "*"[2].key 'ud' on this RC QP"* ]]
    [[ $output == *"observed: prepared UD WR after wr.rdma: "*"key 'rdma' on a UD QP"* ]]
    [[ $output == *"observed: prepared WR after its MR's __gc: "*"this prepared WR names an object that was finalized"* ]]
    [[ $output == *"observed: UD SEND with ud in RESET: EINVAL 22"* ]]
    [[ $output == *"observed: RC prepared RDMA_WRITE in RESET: EINVAL 22"* ]]
    [[ $output == *"observed: modify sq_draining: "*"key 'sq_draining' cannot be set: ibv_query_qp reports it"* ]]
    [[ $output == *"observed: srq modify max_sge: "*"key 'max_sge' is fixed when the SRQ is created"* ]]
    [[ $output == *"observed: srq modify srq_limit: 1"* ]]
    [[ $output == *"errors_preconditions: ok"* ]]
}

@test "a failed reg_mr's error names the memlock limit: unlimited by name, else in bytes" {
    code='local pd = verbs.open():alloc_pd()
      local ok, e = pcall(pd.reg_mr, pd, 4096, "REMOTE_WRITE")   -- REMOTE_WRITE needs LOCAL_WRITE: EINVAL
      print(ok, e.errname, e.context.memlock, e.context.length)'
    [ "$(ulimit -H -l)" = unlimited ] || skip "the hard memlock limit is finite here (the micro-VM's is unlimited)"
    run bash -c 'ulimit -S -l unlimited && "$VERBSH" -e "$1"' _ "$code"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "false	EINVAL	unlimited	4096" ]
    run bash -c 'ulimit -S -l 64 && "$VERBSH" -e "$1"' _ "$code"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "false	EINVAL	65536	4096" ]
}

@test "arguments a method does not take, create_cq's C-style channel and undefined flag bits are refused, naming them" {
    scenario args
    [ "$status" -eq 0 ]
    [[ $output == *"observed: qp:query(\"qp_statee\"): bad argument #1 to 'query' (qp:query() takes no arguments"* ]]
    [[ $output == *"observed: ctx:create_cq(4, ch): bad argument #2 to 'create_cq' (table expected, got verbs.comp_channel: "*"ctx:create_cq(16, { channel = ch })"* ]]
    [[ $output == *"observed: qp_access_flags = 0xFFFFFFFF: "*"key 'qp_access_flags': 0xffefff00 has bits no IBV_ACCESS_* flag defines"* ]]
    [[ $output == *"errors_args: ok (14 refused)"* ]]
}
