-- The range verbsh accepts for each integer key (verbs.fields' min and max),
-- against what it should be: the C member's own type, as the C compiler
-- gives it (the file of "struct field bytes signed" lines given as arg[1]),
-- narrowed where the InfiniBand spec makes the field narrower than its C
-- type (the table below, from the IBA's field widths). Prints one line per
-- key checked and a FAIL line per difference. Run by tests/host/boundaries.bats.
local IBA = {
  -- 24-bit PSNs and QP numbers
  ["ibv_qp_attr.rq_psn"] = 0xffffff, ["ibv_qp_attr.sq_psn"] = 0xffffff, ["ibv_qp_attr.dest_qp_num"] = 0xffffff,
  ["ibv_send_wr.wr.ud.remote_qpn"] = 0xffffff, ["rdma_conn_param.qp_num"] = 0xffffff,
  -- 5-bit timers (4.096 us * 2^timeout; the RNR NAK timer code)
  ["ibv_qp_attr.timeout"] = 31, ["ibv_qp_attr.alt_timeout"] = 31, ["ibv_qp_attr.min_rnr_timer"] = 31,
  -- 3-bit retry counters (7: forever, for RNR)
  ["ibv_qp_attr.retry_cnt"] = 7, ["ibv_qp_attr.rnr_retry"] = 7,
  ["rdma_conn_param.retry_count"] = 7, ["rdma_conn_param.rnr_retry_count"] = 7,
  -- the LRH's 4-bit SL, 7 path bits (LMC <= 7), the GRH's 20-bit flow label
  ["ibv_ah_attr.sl"] = 15, ["ibv_ah_attr.src_path_bits"] = 127, ["ibv_global_route.flow_label"] = 0xfffff,
  -- flags that C reads as 0 or 1
  ["ibv_qp_attr.en_sqd_async_notify"] = 1, ["ibv_ah_attr.is_global"] = 1, ["ibv_qp_init_attr.sq_sig_all"] = 1,
  ["ibv_qp_init_attr_ex.sq_sig_all"] = 1, ["rdma_conn_param.flow_control"] = 1, ["rdma_conn_param.srq"] = 1,
  -- ibv_create_cq's cqe is an int, whatever the _ex struct's type; comp_vector: verbsh's bound, far above any
  -- device's num_comp_vectors (ibv_create_cq fails EINVAL past it anyway)
  ["ibv_cq_init_attr_ex.cqe"] = 0x7fffffff, ["ibv_cq_init_attr_ex.comp_vector"] = 1024,
}

local facts = {}
for line in io.lines(arg[1]) do
  local key, bytes, signed = line:match("^(%S+) (%d+) (%d)$")
  facts[key] = { bytes = tonumber(bytes), signed = signed == "1" }
end

local n, bad = 0, 0
for _, s in ipairs(verbs.fields()) do
  for _, f in ipairs(verbs.fields(s)) do
    local key = s .. "." .. f.c
    local c = facts[key]
    if (f.type == "int" or f.type == "uint") and c then
      local min, max
      if c.signed then
        min, max = -(1 << (8 * c.bytes - 1)), (1 << (8 * c.bytes - 1)) - 1
      else
        min, max = 0, c.bytes < 8 and (1 << (8 * c.bytes)) - 1 or nil   -- 2^64-1 is no Lua integer
      end
      if IBA[key] then min, max = 0, IBA[key] end
      n = n + 1
      local ok = f.min == min and f.max == max
      if not ok then bad = bad + 1 end
      print(("%s %s: verbsh %s..%s, C/IBA %s..%s"):format(ok and "ok" or "FAIL", key, tostring(f.min),
        tostring(f.max), tostring(min), tostring(max)))
      IBA[key] = nil
    end
  end
end
for key in pairs(IBA) do bad = bad + 1; print("FAIL " .. key .. ": the IBA table names a key verbsh does not have") end
print(("%d keys, %d differ"):format(n, bad))
