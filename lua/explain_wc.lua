-- Work completion statuses: number, name, probable cause on rxe, and the fix.
-- Causes follow what rxe does (drivers/infiniband/sw/rxe, and the project's
-- observations that tests/device/errors.bats checks on rxe); RD and tag-matching statuses never
-- come from rxe.
local M = {}

local NOT_RXE = "rxe never reports it (it belongs to Reliable Datagram, which nobody implements)"

-- { name, cause, fix }. The numbers come from the C enum (verbs.enum), never
-- from this list's order.
local CAUSES = {
  { "SUCCESS", "the work request completed", nil },
  { "LOC_LEN_ERR",
    "local length error: the incoming message is longer than the posted receive buffer"
      .. " (UD: the buffer must hold 40 bytes of GRH plus the payload), or a send is longer than the port allows",
    "post receives at least as large as the largest message the peer sends (UD: + 40 bytes)" },
  { "LOC_QP_OP_ERR",
    "on rxe, most often a receive too small: an RC or UC receive shorter than the SEND that arrived (its"
      .. " sender then gets REM_OP_ERR) or a UD receive too small for 40 bytes of GRH plus the datagram; the"
      .. " receiving QP goes to ERR. Otherwise the WR is not valid for this QP: an opcode the QP type lacks (RDMA or atomics on UD, READ or atomics on UC),"
      .. " or a send larger than the path MTU on UD",
    "post receives at least as long as the largest SEND (compare the receive's sg_list lengths with the"
      .. " sender's); then reset both QPs (RESET->INIT->RTR->RTS, rc_connect does it) and redo the exchange;"
      .. " use the QP type that has the opcode (RC for READ and atomics); keep UD messages within the active MTU;"
      .. " size UD receives 40 + the largest message" },
  { "LOC_EEC_OP_ERR", NOT_RXE, nil },
  { "LOC_PROT_ERR",
    "local protection error: an sg_list entry's lkey is not a valid MR of this QP's PD, or the address range"
      .. " lies outside that MR, or a buffer the device writes to (receive, READ target) lacks LOCAL_WRITE",
    "use mr.lkey of an MR registered in the QP's PD, keep offset + length inside it, register it with LOCAL_WRITE" },
  { "WR_FLUSH_ERR",
    "the QP is in ERR: this WR was outstanding, or posted afterwards, and was flushed without running."
      .. " The real error is the first completion with another status (on this QP or its peer)",
    "find the first non-flush completion and fix that; a QP leaves ERR only through RESET:"
      .. ' qp:modify{ qp_state = "RESET" }, then INIT, RTR, RTS again (on both sides). On rxe a receive posted'
      .. " after the QP is in ERR is flushed only when something wakes the responder (e.g. another modify to ERR)" },
  { "MW_BIND_ERR",
    "memory window bind failed: the MR was registered without MW_BIND, or the window's range lies outside"
      .. " the MR, or it asks REMOTE_WRITE/REMOTE_ATOMIC of an MR without LOCAL_WRITE, or the window is in the"
      .. " wrong state (a type 2 window must be invalidated before it is bound again; a type 1 window's rkey in"
      .. " user space moved on at each failed ibv_bind_mw, so the kernel no longer knows it). The binding QP"
      .. " goes to ERR",
    "register the MR with { ..., \"MW_BIND\" } and bind inside it (addr = mr.addr + offset, offset + length <="
      .. " mr.length); LOCAL_INV a type 2 window before binding it again; reset the QP (RESET, INIT, RTR, RTS)" },
  { "BAD_RESP_ERR",
    "the responder answered with an unexpected transport opcode (a protocol error between the two QPs)",
    "check that both sides agree on PSNs (sq_psn = the peer's rq_psn) and that no third QP sends to this one" },
  { "LOC_ACCESS_ERR",
    "local access error: the local MR does not allow the access the operation needs (e.g. LOCAL_WRITE for a"
      .. " READ or atomic result, or for an incoming SEND at the responder)",
    "register the local MR with LOCAL_WRITE" },
  { "REM_INV_REQ_ERR",
    "the responder rejected the request as invalid: its QP's qp_access_flags lack REMOTE_WRITE/REMOTE_READ/"
      .. "REMOTE_ATOMIC for this RDMA op, or its max_dest_rd_atomic is 0 and a READ or atomic arrived, or the"
      .. " SEND is larger than its posted receive (then its receive completes in error). It is a protocol error:"
      .. " on rxe the responder's QP goes to ERR as well as the requester's",
    "on the responder: qp_access_flags with the remote rights, max_dest_rd_atomic >= 1 at RTR, receives as"
      .. " large as the sends" },
  { "REM_ACCESS_ERR",
    "the responder's MR refused the access: the target MR lacks REMOTE_WRITE/REMOTE_READ/REMOTE_ATOMIC, or the"
      .. " rkey is wrong (not that MR's, or another PD's), or remote_addr + length lies outside the MR; through"
      .. " a memory window: the window was revoked (LOCAL_INV, SEND_WITH_INV, rebound) or lacks the right, or a"
      .. " type 2 window was bound on another QP than the one the request arrives at."
      .. " On rxe both QPs then go to ERR",
    "register the target MR with the remote right (and LOCAL_WRITE, which remote write needs), send the peer"
      .. " its mr.rkey and address, and stay inside it" },
  { "REM_OP_ERR",
    "the responder could not complete a valid request; on rxe, most often its receive is shorter than this"
      .. " SEND (the responder gets LOC_QP_OP_ERR); also a receive WR with an lkey not valid at the responder, or"
      .. " its receive queue in error",
    "make the responder's receives at least as long as the SEND (look at the responder's own completion:"
      .. " LOC_QP_OP_ERR), then reset and reconnect both QPs and send again" },
  { "RETRY_EXC_ERR",
    "no ACK came back within retry_cnt retransmissions: packets went nowhere. Wrong dest_qp_num or"
      .. " ah_attr.grh.dgid (or sgid_index), the peer QP not yet in RTR, a path_mtu above the link's active MTU,"
      .. " or the peer gone",
    "compare dest_qp_num and grh.dgid with the peer's real qp_num and GID; bring the peer to RTR before"
      .. " sending; path_mtu <= active_mtu (1024 on 1500-byte Ethernet). With timeout = 0 it would hang forever" },
  { "RNR_RETRY_EXC_ERR",
    "no receive was posted at the responder (RNR NAK) and rnr_retry ran out; the requester's QP is now in ERR",
    "post receives on the responder before the peer sends, and keep them posted; rnr_retry = 7 retries"
      .. " forever, min_rnr_timer on the responder sets the wait" },
  { "LOC_RDD_VIOL_ERR", NOT_RXE, nil },
  { "REM_INV_RD_REQ_ERR", NOT_RXE, nil },
  { "REM_ABORT_ERR",
    "the responder aborted the operation (e.g. its QP went to ERR mid-message)",
    "look at the responder's completions and async events" },
  { "INV_EECN_ERR", NOT_RXE, nil },
  { "INV_EEC_STATE_ERR", NOT_RXE, nil },
  { "FATAL_ERR", "a fatal device or transport error", "check dmesg; recreate the QP (or the device context)" },
  { "RESP_TIMEOUT_ERR", "the responder did not answer in time", "check that the peer is alive and in RTS" },
  { "GENERAL_ERR", "a general error the provider has no better status for (rxe: e.g. an MR or AH gone while in use)",
    "check that the MRs, AHs and the peer live until their WRs complete; see dmesg" },
  { "TM_ERR", "tag-matching error; rxe has no tag matching", nil },
  { "TM_RNDV_INCOMPLETE", "tag-matching rendezvous incomplete; rxe has no tag matching", nil },
}
-- NUMBER: name -> ibv_wc_status value; STATUS: value -> { name, cause, fix }.
M.NUMBER = require("verbs").enum("ibv_wc_status").values
M.STATUS = {}
for _, s in ipairs(CAUSES) do
  local n = M.NUMBER[s[1]] or error("explain_wc: " .. s[1] .. " is not an ibv_wc_status")
  M.STATUS[n] = s
end
for name, n in pairs(M.NUMBER) do
  M.STATUS[n] = M.STATUS[n] or { name, "no explanation is written for this status yet", nil }
end

-- Status name from a name ("RNR_RETRY_EXC_ERR", "IBV_WC_...") or a number.
function M.name(x)
  if math.type(x) == "integer" then return M.STATUS[x] and M.STATUS[x][1] end
  if type(x) == "string" then
    local n = x:upper():gsub("^IBV_WC_", "")
    return M.NUMBER[n] and n
  end
end

-- "RNR_RETRY_EXC_ERR (13): cause\n  fix: ..." for a status name.
function M.explain_status(name)
  local s = M.STATUS[M.NUMBER[name]]
  return ("%s (%d): %s"):format(name, M.NUMBER[name], s[2]) .. (s[3] and "\n  fix: " .. s[3] or "")
end

local function flags(v)
  if type(v) == "table" then return #v > 0 and table.concat(v, "|") or nil end
  if v ~= nil and v ~= 0 then return tostring(v) end
end
local function hex6(v) return math.type(v) == "integer" and ("0x%06x"):format(v) or tostring(v) end
-- (a table that only looks like a WC may hold anything: what is no integer is shown as it is)
local function hex(v) return math.type(v) == "integer" and ("0x%x"):format(v) or tostring(v) end

-- One line: "wc wr_id=1 SEND SUCCESS byte_len=64 qp_num=0x000011"; for an
-- error status, the cause and fix on the lines after it.
function M.tostring(wc)
  local status = M.name(wc.status) or tostring(wc.status)
  local p = { "wc", "wr_id=" .. tostring(wc.wr_id) }
  if status == "SUCCESS" then
    if wc.opcode ~= nil then p[#p + 1] = tostring(wc.opcode) end
    p[#p + 1] = status
    if wc.byte_len ~= nil then p[#p + 1] = "byte_len=" .. tostring(wc.byte_len) end
    if wc.imm_data ~= nil then p[#p + 1] = "imm_data=" .. hex(wc.imm_data) end
    if wc.invalidated_rkey ~= nil then p[#p + 1] = "invalidated_rkey=" .. hex(wc.invalidated_rkey) end
    if flags(wc.wc_flags) then p[#p + 1] = "wc_flags=" .. flags(wc.wc_flags) end
    if wc.src_qp and wc.src_qp ~= 0 then p[#p + 1] = "src_qp=" .. hex6(wc.src_qp) end
  else
    p[#p + 1] = status
    if wc.vendor_err and wc.vendor_err ~= 0 then p[#p + 1] = "vendor_err=" .. hex(wc.vendor_err) end
  end
  p[#p + 1] = "qp_num=" .. hex6(wc.qp_num)
  local line = table.concat(p, " ")
  if status == "SUCCESS" or not M.NUMBER[status] then return line end
  local s = M.STATUS[M.NUMBER[status]]
  return line .. "\n  cause: " .. s[2] .. (s[3] and "\n  fix: " .. s[3] or "")
end

M.meta = { __name = "ibv_wc", __tostring = M.tostring }

return M
