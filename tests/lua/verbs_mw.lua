-- Memory windows on rxe, between two RC QPs of one process: b owns the
-- memory (an MR with MW_BIND and no remote rights of its own) and grants a
-- window onto part of it; a reads and writes through the window's rkey.
-- Type 1 (qp:bind_mw), type 2 (a BIND_MW WR, and qp:wr_bind_mw), LOCAL_INV,
-- SEND_WITH_INV (the receiver's WC names the rkey it revoked), and the
-- access that fails once the window is revoked. Prints "observed: ..." lines.
local T = dofile((arg[0]:match("^(.*)/") or ".") .. "/verbs_lib.lua")
local check, eq = T.check, T.eq
local function seen(what, v) print(("observed: %s: %s"):format(what, tostring(v))) end

local ctx = verbs.open(os.getenv("RXE_DEV"))
local gid = ctx:query_gid(1, T.gid_index)
local pd = ctx:alloc_pd()
local cq_a, cq_b = ctx:create_cq(16), ctx:create_cq(16)
-- 64 distinct bytes: what a read through the window must give back
local CONTENT = ("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-+")
local mr_b = pd:reg_mr(CONTENT, { "LOCAL_WRITE", "MW_BIND" })
local mr_a = pd:reg_mr(4096, "LOCAL_WRITE")

local function rc_qp(cq) return pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,
  cap = { max_send_wr = 8, max_recv_wr = 8, max_send_sge = 1, max_recv_sge = 1 } } end
-- (Re)connects x and y: a remote access error leaves both in ERR.
local function connect(x, y)
  for _, p in ipairs{ { x, y }, { y, x } } do
    local qp, peer = p[1], p[2]
    qp:modify{ qp_state = "RESET" }
    qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = { "REMOTE_READ", "REMOTE_WRITE" } }
    qp:modify{ qp_state = "RTR", path_mtu = "1024", dest_qp_num = peer.qp_num, rq_psn = 0, max_dest_rd_atomic = 1,
      min_rnr_timer = 12, ah_attr = { is_global = 1, port_num = 1, grh = { dgid = gid, sgid_index = T.gid_index } } }
    qp:modify{ qp_state = "RTS", sq_psn = 0, timeout = 14, retry_cnt = 7, rnr_retry = 7, max_rd_atomic = 1 }
  end
end
local a, b = rc_qp(cq_a), rc_qp(cq_b)
connect(a, b)

-- a reads len bytes at remote addr through rkey into mr_a: the WC
local n = 0
local function read(rkey, addr, len)
  n = n + 1
  mr_a:fill(0x2e, 0, 64)
  a:post_send{ wr_id = 1000 + n, opcode = "RDMA_READ", send_flags = "SIGNALED",
    sg_list = { { mr = mr_a, offset = 0, length = len } }, rdma = { remote_addr = addr, rkey = rkey } }
  return T.wc(cq_a, "READ " .. n)
end
local function write(rkey, addr, s)
  n = n + 1
  mr_a:write(0, s)
  a:post_send{ wr_id = 1000 + n, opcode = "RDMA_WRITE", send_flags = "SIGNALED",
    sg_list = { { mr = mr_a, offset = 0, length = #s } }, rdma = { remote_addr = addr, rkey = rkey } }
  return T.wc(cq_a, "WRITE " .. n)
end

-- The MR alone grants no remote access: its own rkey is refused.
eq(read(mr_b.rkey, mr_b.addr, 8).status, "REM_ACCESS_ERR", "READ through the MR's own rkey")
connect(a, b)

-- ---- type 1: qp:bind_mw, revoked by binding again with length 0
local mw1 = pd:alloc_mw("TYPE_1")
eq(mw1.type, "TYPE_1", "mw1.type")
check(math.type(mw1.handle) == "integer", "mw1.handle %s", tostring(mw1.handle))
eq(mw1.pd, pd, "mw1.pd")
local r0 = mw1.rkey
local r1 = b:bind_mw(mw1, { wr_id = 11, send_flags = "SIGNALED",
  bind_info = { mr = mr_b, addr = mr_b.addr + 16, length = 32, mw_access_flags = { "REMOTE_READ", "REMOTE_WRITE" } } })
eq(r1, verbs.inc_rkey(r0), "bind_mw's rkey is inc_rkey of the old one")
eq(mw1.rkey, r1, "mw1.rkey after bind_mw")
eq(r1 & 0xffffff00, r0 & 0xffffff00, "the window index stays")
local wc = T.wc(cq_b, "type 1 bind")
eq(wc.status, "SUCCESS", "bind status"); eq(wc.opcode, "BIND_MW", "bind opcode"); eq(wc.wr_id, 11, "bind wr_id")
seen("type 1 bind", ("%s %s rkey +1 in the low byte: %s"):format(wc.opcode, wc.status,
  tostring((r1 & 0xff) == ((r0 + 1) & 0xff))))
wc = read(r1, mr_b.addr + 16, 32)
eq(wc.status, "SUCCESS", "READ through type 1")
eq(mr_a:read(0, 32), CONTENT:sub(17, 48), "bytes read through the window")
seen("type 1 READ", mr_a:read(0, 32))
eq(write(r1, mr_b.addr + 20, "\x12\x34\x56\x78").status, "SUCCESS", "WRITE through type 1")
eq(mr_b:read(16, 8), "ghij\x12\x34\x56\x78", "bytes written through the window")
-- rxe (kernel 6.1) checks an access through a window against the range of
-- the window's MR, not the window's own: one byte past the window passes,
-- one byte past the MR fails
eq(read(r1, mr_b.addr + 47, 1).status, "SUCCESS", "READ of the window's last byte")
wc = read(r1, mr_b.addr + 47, 2)
seen("READ one byte past the window, inside the MR", wc.status)
eq(wc.status, "SUCCESS", "rxe: READ one byte past the window, inside the MR")
eq(read(r1, mr_b.addr + 56, 8).status, "SUCCESS", "READ of the MR's last 8 bytes")
wc = read(r1, mr_b.addr + 57, 8)
seen("READ one byte past the MR", wc.status)
eq(wc.status, "REM_ACCESS_ERR", "READ one byte past the MR")
connect(a, b)
-- revoke: bind again with length 0
local r2 = b:bind_mw(mw1, { wr_id = 12, send_flags = "SIGNALED", bind_info = { mr = mr_b, addr = mr_b.addr, length = 0 } })
eq(r2, verbs.inc_rkey(r1), "unbind's rkey")
eq(T.wc(cq_b, "type 1 unbind").status, "SUCCESS", "unbind status")
wc = read(r1, mr_b.addr + 16, 8)
eq(wc.status, "REM_ACCESS_ERR", "READ through the revoked type 1 rkey")
seen("type 1 READ after unbind", wc.status)
connect(a, b)
wc = write(r1, mr_b.addr + 16, "x")
eq(wc.status, "REM_ACCESS_ERR", "WRITE through the revoked type 1 rkey")
seen("type 1 WRITE after unbind", wc.status)
check(tostring(wc):find("rkey", 1, true), "explained: %s", tostring(wc))
connect(a, b)

-- ---- type 2: a BIND_MW WR on the QP that will serve the peer
local mw2 = pd:alloc_mw("TYPE_2")
local m0 = mw2.rkey
local k1 = verbs.inc_rkey(m0)
b:post_send{ wr_id = 21, opcode = "BIND_MW", send_flags = "SIGNALED", bind_mw = { mw = mw2, rkey = k1,
  bind_info = { mr = mr_b, addr = mr_b.addr, length = 64, mw_access_flags = { "REMOTE_READ", "REMOTE_WRITE" } } } }
wc = T.wc(cq_b, "type 2 bind")
eq(wc.status, "SUCCESS", "type 2 bind status"); eq(wc.opcode, "BIND_MW", "type 2 bind opcode")
eq(mw2.rkey, m0, "a BIND_MW WR leaves mw.rkey as it was (C's ibv_mw is not written)")
eq(read(k1, mr_b.addr + 40, 8).status, "SUCCESS", "READ through type 2")
eq(mr_a:read(0, 8), CONTENT:sub(41, 48), "bytes read through the type 2 window")
seen("type 2 READ", mr_a:read(0, 8))
-- SEND_WITH_INV: a revokes b's window as it sends
mr_b:fill(0, 0, 0)
local recv_mr = pd:reg_mr(64, "LOCAL_WRITE")
b:post_recv{ wr_id = 31, sg_list = { { mr = recv_mr, offset = 0, length = 64 } } }
mr_a:write(0, "bye")
a:post_send{ wr_id = 32, opcode = "SEND_WITH_INV", send_flags = "SIGNALED", invalidate_rkey = k1,
  sg_list = { { mr = mr_a, offset = 0, length = 3 } } }
eq(T.wc(cq_a, "SEND_WITH_INV").status, "SUCCESS", "SEND_WITH_INV status")
wc = T.wc(cq_b, "the receive of SEND_WITH_INV")
eq(wc.status, "SUCCESS", "recv status"); eq(wc.byte_len, 3, "recv byte_len")
-- rxe hands the kernel's IB_WC_WITH_INVALIDATE (1 << 2) through as it is:
-- libibverbs names that bit IP_CSUM_OK (src/wc.c reads it as WITH_INV)
eq(table.concat(wc.wc_flags, ","), "GRH,IP_CSUM_OK", "rxe's wc_flags of a SEND_WITH_INV receive")
eq(wc.invalidated_rkey, k1, "wc.invalidated_rkey")
eq(wc.imm_data, nil, "no imm_data with WITH_INV")
seen("SEND_WITH_INV receive", tostring(wc))
wc = read(k1, mr_b.addr, 8)
eq(wc.status, "REM_ACCESS_ERR", "READ after SEND_WITH_INV")
seen("type 2 READ after SEND_WITH_INV", wc.status)
connect(a, b)
-- bind again (the window is free), then LOCAL_INV by its owner. rxe checks
-- the bind against the window's current rkey, k1: C's mw->rkey = k1 first
mw2.rkey = k1
eq(mw2.rkey, k1, "mw.rkey assigned")
local k2 = verbs.inc_rkey(k1)
b:post_send{ wr_id = 22, opcode = "BIND_MW", send_flags = "SIGNALED", bind_mw = { mw = mw2, rkey = k2,
  bind_info = { mr = mr_b, addr = mr_b.addr, length = 64, mw_access_flags = "REMOTE_WRITE" } } }
eq(T.wc(cq_b, "type 2 rebind").status, "SUCCESS", "rebind status")
eq(write(k2, mr_b.addr + 8, "\x87\x65\x43\x21").status, "SUCCESS", "WRITE through the rebound window")
eq(mr_b:read(8, 4), "\x87\x65\x43\x21", "bytes written through type 2")
eq(read(k2, mr_b.addr + 8, 4).status, "REM_ACCESS_ERR", "READ through a write-only window")
connect(a, b)
b:post_send{ wr_id = 23, opcode = "LOCAL_INV", send_flags = "SIGNALED", invalidate_rkey = k2 }
wc = T.wc(cq_b, "LOCAL_INV")
eq(wc.status, "SUCCESS", "LOCAL_INV status"); eq(wc.opcode, "LOCAL_INV", "LOCAL_INV opcode")
wc = write(k2, mr_b.addr + 8, "z")
eq(wc.status, "REM_ACCESS_ERR", "WRITE after LOCAL_INV")
seen("type 2 WRITE after LOCAL_INV", wc.status)
connect(a, b)

-- ---- the extended API: wr_bind_mw, wr_local_inv, wr_send_inv
local function ex_qp(cq) return ctx:create_qp_ex{ pd = pd, qp_type = "RC", send_cq = cq, recv_cq = cq,
  cap = { max_send_wr = 8, max_recv_wr = 8, max_send_sge = 1, max_recv_sge = 1 },
  send_ops_flags = { "SEND", "RDMA_READ", "BIND_MW", "LOCAL_INV", "SEND_WITH_INV" } } end
local xa, xb = ex_qp(cq_a), ex_qp(cq_b)
connect(xa, xb)
local k3 = verbs.inc_rkey(k2)
mw2.rkey = k2
-- a misspelt key of bind_info: the error names wr_bind_mw's 3rd argument (after mw and rkey)
local bad = select(2, pcall(xb.wr_bind_mw, xb, mw2, k3, { mr = mr_b, addr = mr_b.addr, lenght = 16 }))
check(tostring(bad):find("bad argument #3 to 'wr_bind_mw'", 1, true) and tostring(bad):find("lenght", 1, true),
  "bind_info's error: %s", tostring(bad))
xb:wr_start()
xb.wr_id = 41
xb.wr_flags = "SIGNALED"
xb:wr_bind_mw(mw2, k3, { mr = mr_b, addr = mr_b.addr + 32, length = 16, mw_access_flags = "REMOTE_READ" })
xb:wr_complete()
eq(T.wc(cq_b, "wr_bind_mw").opcode, "BIND_MW", "wr_bind_mw completion")
xa:wr_start(); xa.wr_id = 42; xa.wr_flags = "SIGNALED"
xa:wr_rdma_read(k3, mr_b.addr + 32, 16); xa:wr_set_sge(mr_a, 0, 16)
xa:wr_complete()
eq(T.wc(cq_a, "READ through wr_bind_mw's window").status, "SUCCESS", "ex READ")
eq(mr_a:read(0, 16), CONTENT:sub(33, 48), "bytes read through the wr_bind_mw window")
xb:post_recv{ wr_id = 43, sg_list = { { mr = recv_mr, offset = 0, length = 64 } } }
xa:wr_start(); xa.wr_id = 44; xa.wr_flags = "SIGNALED"
xa:wr_send_inv(k3); xa:wr_set_sge(mr_a, 0, 5)
xa:wr_complete()
eq(T.wc(cq_a, "wr_send_inv").status, "SUCCESS", "wr_send_inv status")
wc = T.wc(cq_b, "the receive of wr_send_inv")
eq(wc.invalidated_rkey, k3, "invalidated_rkey of wr_send_inv")
local k4 = verbs.inc_rkey(k3)
mw2.rkey = k3
xb:wr_start(); xb.wr_id = 45; xb.wr_flags = "SIGNALED"
xb:wr_bind_mw(mw2, k4, { mr = mr_b, addr = mr_b.addr, length = 8, mw_access_flags = "REMOTE_READ" })
xb.wr_id = 46
xb:wr_local_inv(k4)
xb:wr_complete()
eq(T.wc(cq_b, "wr_bind_mw 2").wr_id, 45, "second bind")
wc = T.wc(cq_b, "wr_local_inv")
eq(wc.opcode, "LOCAL_INV", "wr_local_inv opcode"); eq(wc.wr_id, 46, "wr_local_inv wr_id")
xa:wr_start(); xa.wr_id = 47; xa.wr_flags = "SIGNALED"
xa:wr_rdma_read(k4, mr_b.addr, 8); xa:wr_set_sge(mr_a, 0, 8)
xa:wr_complete()
eq(T.wc(cq_a, "READ after wr_local_inv").status, "REM_ACCESS_ERR", "READ after wr_local_inv")
seen("extended API", "bind, read, send_inv, bind, local_inv, read refused")

-- ---- mistakes, each explained
-- an MR without MW_BIND: C accepts the bind; its completion is MW_BIND_ERR
connect(a, b)
local plain = pd:reg_mr(64, "LOCAL_WRITE")
local mw3 = pd:alloc_mw("TYPE_1")
local before = mw3.rkey
local rk = b:bind_mw(mw3, { wr_id = 51, send_flags = "SIGNALED",
  bind_info = { mr = plain, addr = plain.addr, length = 64, mw_access_flags = "REMOTE_READ" } })
eq(rk, verbs.inc_rkey(before), "the provider moved mw.rkey on although the bind will fail")
wc = T.wc(cq_b, "bind to an MR without MW_BIND")
eq(wc.status, "MW_BIND_ERR", "bind without MW_BIND")
check(tostring(verbs.explain(wc)):find("MW_BIND", 1, true), "explain: %s", tostring(verbs.explain(wc)))
seen("bind to an MR without MW_BIND", wc.status)
print(tostring(wc))
eq(b.state, "ERR", "the binding QP after MW_BIND_ERR")
connect(a, b)
-- a window past its MR: MW_BIND_ERR too (64 bytes from offset 1 of a 64-byte MR)
b:bind_mw(mw3, { wr_id = 52, send_flags = "SIGNALED",
  bind_info = { mr = mr_b, addr = mr_b.addr + 1, length = 64, mw_access_flags = "REMOTE_READ" } })
wc = T.wc(cq_b, "bind past the MR")
eq(wc.status, "MW_BIND_ERR", "bind past the MR")
seen("bind past the MR", wc.status)
connect(a, b)
-- and the same window one byte shorter binds (mw3's rkey was moved on by the
-- failed binds in user space only: the kernel still has the first one)
local mw4 = pd:alloc_mw("TYPE_1")
b:bind_mw(mw4, { wr_id = 53, send_flags = "SIGNALED",
  bind_info = { mr = mr_b, addr = mr_b.addr + 1, length = 63, mw_access_flags = "REMOTE_READ" } })
eq(T.wc(cq_b, "bind to the MR's end").status, "SUCCESS", "a window ending at the MR's end")
-- zero-based type 1: refused by the provider at once
local e = T.raises("zero-based type 1", b.bind_mw, b, mw4, { wr_id = 54,
  bind_info = { mr = mr_b, addr = 0, length = 8, mw_access_flags = { "REMOTE_READ", "ZERO_BASED" } } })
eq(e.verb, "ibv_bind_mw", "zero-based verb"); eq(e.errname, "EINVAL", "zero-based errno")
check(tostring(e):find("zero-based", 1, true), "explained: %s", tostring(e))
seen("zero-based type 1 window", ("%s %s"):format(e.verb, e.errname))
print(tostring(e))
-- type 2 through qp:bind_mw: libibverbs refuses it
e = T.raises("type 2 through bind_mw", b.bind_mw, b, mw2, { bind_info = { mr = mr_b, addr = mr_b.addr, length = 8 } })
eq(e.errname, "EINVAL", "type 2 through bind_mw")
check(tostring(e):find("TYPE_2", 1, true), "explained: %s", tostring(e))
seen("type 2 through qp:bind_mw", e.errname)

-- ---- lifetimes: a PD with windows, a window gone
e = T.raises("dealloc pd with windows", pd.dealloc, pd)
check(tostring(e):find("mw1", 1, true), "pd:dealloc names the window: %s", tostring(e))
mw1:dealloc()
e = T.raises("mw after dealloc", function() return mw1.rkey end)
check(tostring(e):find("mw is destroyed", 1, true), "%s", tostring(e))
e = T.raises("bind a deallocated window", b.bind_mw, b, mw1, { bind_info = { mr = mr_b, addr = mr_b.addr, length = 8 } })
check(tostring(e):find("mw is destroyed", 1, true), "%s", tostring(e))
-- dereg of an MR a window is still bound to (mw4)
local ok, de = pcall(mr_b.dereg, mr_b)
seen("dereg of an MR with a bound window", ok and "accepted" or ("%s %s"):format(de.verb, de.errname))
if not ok then check(tostring(de):find("window", 1, true), "explained: %s", tostring(de)) end
T.done("verbs_mw")
