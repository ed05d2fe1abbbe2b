#!/usr/bin/env bats
# help's key lists against the real methods: every key that help lists for
# a method's table is one that method reads (a wrong value is refused naming
# that key, never as an unknown key), and every method with keys is covered.
load ../helpers

setup() { require_device; }

@test "every key help lists for a method's table is read by that method, on real objects" {
    run "$VERBSH" -e '
      local doc = require("verbs.help").doc
      local ctx = verbs.open()
      local pd, cq = ctx:alloc_pd(), ctx:create_cq(4)
      local cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 }
      local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq, cap = cap }
      local srq = pd:create_srq{ max_wr = 4, max_sge = 1 }
      local ch = verbs.create_event_channel()
      local id = ch:create_id("TCP")
      local mw = pd:alloc_mw("TYPE_1")
      -- how each documented method is called with a table t
      local calls = {
        create_cq = function(t) return ctx:create_cq(4, t) end,
        create_qp = function(t) return pd:create_qp(t) end,
        create_ah = function(t) return pd:create_ah(t) end,
        create_srq = function(t) return pd:create_srq(t) end,
        modify = function(t) return qp:modify(t) end,
        ["srq:modify"] = function(t) return srq:modify(t) end,
        post_send = function(t) return qp:post_send(t) end,
        post_recv = function(t) return qp:post_recv(t) end,
        ["srq:post_recv"] = function(t) return srq:post_recv(t) end,
        send_wr = function(t) return verbs.send_wr(t) end,
        recv_wr = function(t) return verbs.recv_wr(t) end,
        create_ah_from_wc = function(t) return pd:create_ah_from_wc(t, ("\0"):rep(40), 1) end,
        init_ah_from_wc = function(t) return ctx:init_ah_from_wc(1, t, ("\0"):rep(40)) end,
        create_qp_ex = function(t) return ctx:create_qp_ex(t) end,
        wr_set_sge_list = function(t) return qp:wr_set_sge_list({ t }) end,
        create_cq_ex = function(t) return ctx:create_cq_ex(t) end,
        ["cm_id:create_qp"] = function(t) return id:create_qp(pd, t) end,
        connect = function(t) return id:connect(t) end,
        accept = function(t) return id:accept(t) end,
        bind_mw = function(t) return qp:bind_mw(mw, t) end,
        wr_bind_mw = function(t) return qp:wr_bind_mw(mw, 1, t) end,
        getaddrinfo = function(t) return verbs.getaddrinfo(os.getenv("RXE_ADDR"), "7471", t) end,
        join_multicast_ex = function(t) return ch:create_id("UDP"):join_multicast_ex(t) end,
        ["cm_id:create_srq"] = function(t) return id:create_srq(pd, t) end,
        ["cm_id:create_srq_ex"] = function(t) return id:create_srq_ex(t) end,
        create_srq_ex = function(t) return ctx:create_srq_ex(t) end,
        ["cm_id:create_qp_ex"] = function(t) return id:create_qp_ex(t) end,
        create_ep = function(t) return verbs.create_ep(verbs.getaddrinfo(os.getenv("RXE_ADDR"), "7471"), pd, t) end,
      }
      local bad, n = {}, 0
      for name, d in pairs(doc) do
        if d.keys then
          local call = calls[name]
          if not call then bad[#bad + 1] = "no call for " .. name end
          for _, f in ipairs(call and verbs.fields(d.keys) or {}) do
            n = n + 1
            local ok, e = pcall(call, { [f.name] = coroutine.create(print) })
            e = tostring(e)
            if ok or not e:find(f.name, 1, true) or e:find("unknown key") then
              bad[#bad + 1] = name .. "." .. f.name .. ": " .. (ok and "accepted" or e)
            end
          end
        end
      end
      print(n, #bad == 0 and "all read" or table.concat(bad, "\n"))'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ ${lines[0]} == *"all read" ]]
}

# A flushed receive is a completion with known values: the wr_id posted,
# WR_FLUSH_ERR, the QP's number.
@test "help(wc): a completion (a userdata copy of struct ibv_wc) says so on its own first line, then shows help \"ibv_wc\"" {
    run "$VERBSH" -e '
      local ctx = verbs.open()
      local pd, cq = ctx:alloc_pd(), ctx:create_cq(4)
      local qp = pd:create_qp{ qp_type = "RC", send_cq = cq, recv_cq = cq,
        cap = { max_send_wr = 1, max_recv_wr = 1, max_send_sge = 1, max_recv_sge = 1 } }
      local mr = pd:reg_mr(64, "LOCAL_WRITE")
      qp:modify{ qp_state = "INIT", pkey_index = 0, port_num = 1, qp_access_flags = 0 }
      qp:post_recv{ wr_id = 4660, sg_list = { { mr = mr, offset = 0, length = 64 } } }
      qp:modify{ qp_state = "ERR" }
      local wc = cq:wait(1, 5000)[1]
      print(("0x%06x"):format(qp.qp_num), type(wc))
      print("results", select("#", help(wc)))'
    echo "$output"
    [ "$status" -eq 0 ]
    qpn=${lines[0]%%	*}
    [ "${lines[0]}" = "$qpn	userdata" ]
    [ "${lines[1]}" = "wc wr_id=4660 WR_FLUSH_ERR qp_num=$qpn -- a copy of struct ibv_wc, read like a table:" ]
    # then what help "ibv_wc" prints; and help returns nothing
    [ "$(sed '1,2d;$d' <<<"$output")" = "$("$VERBSH" -e 'help "ibv_wc"')" ]
    [ "${lines[-1]}" = "results	0" ]
}
