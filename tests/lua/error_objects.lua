-- A failed verb's error, for tests/host/fakedev.bats: V names the verb
-- that FAKEVERBS_FAIL makes fail; prints the verb the error names, its
-- errno, whether its object is the receiver the verb was called on, and the
-- type of its context.
local verb = os.getenv("V")
local ctx = verbs.open("fake0")
local pd = verb ~= "alloc_pd" and ctx:alloc_pd() or nil
local ch = verb ~= "create_comp_channel" and ctx:create_comp_channel() or nil
local cq = pd and ctx:create_cq(4, { channel = ch })
local cqx = pd and ctx:create_cq_ex{ cqe = 4 }
local qp = pd and pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = { max_send_wr = 1, max_recv_wr = 1 } }
local mr = pd and pd:reg_mr(64, "LOCAL_WRITE")
local calls = {
  query_device = { ctx, function() return ctx:query_device() end },
  query_port = { ctx, function() return ctx:query_port(1) end },
  query_device_ex = { ctx, function() return ctx:query_device_ex() end },
  alloc_pd = { ctx, function() return ctx:alloc_pd() end },
  create_comp_channel = { ctx, function() return ctx:create_comp_channel() end },
  req_notify_cq = { cq, function() return cq:req_notify() end },
  poll_cq = { cq, function() return cq:poll() end },
  get_cq_event = { ch, function() cq:req_notify(); return ch:get_cq_event(1000) end },
  query_qp = { qp, function() return qp:query() end },
  modify_qp = { qp, function() return qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 } end },
  start_poll = { cqx, function() return cqx:start_poll() end },
  rereg_mr = { mr, function() return mr:rereg("CHANGE_ACCESS", nil, "REMOTE_READ") end },
}
local ok, e = pcall(calls[verb][2])
print(verb, ok, type(e) == "table" and e.verb or tostring(e), type(e) == "table" and e.errno, type(e) == "table" and e.object == calls[verb][1], type(e) == "table" and type(e.context))
