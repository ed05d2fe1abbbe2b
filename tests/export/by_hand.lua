-- A recorded session written by hand, for the host tests of verbs.export_c
-- (tests/host/export_host.bats): no device makes the objects, so they are
-- stand-ins the recorder names as it names verbs objects (cm_id1, qp1 ...),
-- and the events are what verbs.record notes for a call. main() is the
-- body of the program's main(), one statement a line, without the tab.
local R = require "verbs.record"
local S = {}

-- A stand-in object of a kind ("cq", "cm_id"): a userdata whose __name is
-- the class's type name, which is all the recorder reads of it.
-- declare: the object was made before recording began, so the program
-- declares it (NULL: the program is compiled, not run).
local CTYPE = { context = "struct ibv_context", pd = "struct ibv_pd", mr = "struct ibv_mr", td = "struct ibv_td",
  xrcd = "struct ibv_xrcd", cq = "struct ibv_cq", qp = "struct ibv_qp", srq = "struct ibv_srq", wq = "struct ibv_wq",
  cm_id = "struct rdma_cm_id", ah = "struct ibv_ah", cm_channel = "struct rdma_event_channel" }
local declared = {}
-- facts: what C reads of the object later ({ qp_num = ... }), as the
-- recorder notes it of a live one.
function S.object(kind, declare, facts)
  local o = debug.setmetatable(io.tmpfile(), { __name = "verbs." .. kind })
  R.name_of(o)
  for k, v in pairs(facts or {}) do R.facts(o)[k] = v end
  if declare then
    local n = R.name_of(o)
    declared[#declared + 1] = ("\t%s *%s = NULL;"):format(CTYPE[kind], n)
    if kind == "cq" then   -- and its extended CQ, which cq:iter polls
      declared[#declared + 1] = ("\tstruct ibv_cq_ex *%s_ex = NULL;"):format(n)
      declared[#declared + 1] = ("\t(void)%s, (void)%s_ex;"):format(n, n)
    end
  end
  return o
end

-- A call on self that returned results (a list), or failed with errno; the
-- event, for what else the recorder notes (an iteration's step).
function S.call(self, method, args, results)
  local ev = { class = R.kind(self), method = method, self = self, args = args or {}, results = results or {} }
  table.insert(R.events(), ev)
  return ev
end
function S.failed(self, method, args, errno, errname)
  local ev = S.call(self, method, args)
  ev.results, ev.err = nil, { errno = errno, errname = errname }
  return ev
end

-- Prints the program's main() body, one line each, and writes the program
-- to path (when given) with the declared objects, for a C compiler.
function S.print_main(path)
  local text = require("verbs.export_c").program("by_hand.c")
  for l in text:match("int main%(void%)\n{\n(.*)"):gmatch("[^\n]+") do print((l:gsub("^\t", ""))) end
  if path then
    local f = assert(io.open(path, "w"))
    f:write((text:gsub("int main%(void%)\n{\n", function(m) return m .. table.concat(declared, "\n") .. "\n" end)))
    f:close()
  end
end

return S
