-- Lesson 1: devices, ports and GIDs.
local K = require "verbs.lesson_kit"

return {
  title = "Devices, ports and GIDs",
  transports = { "RoCE" },
  intro = [[
    Everything in verbs hangs off a device context. In this lesson you open the
    device, look at its port, and find the GID that RoCE traffic must carry.]],
  -- This lesson opens the device in its first step, not in a setup: with no
  -- device at all it cannot run (a skip, as for every other lesson), and
  -- says why as verbs.open would.
  requires = function()
    local ok, devs = pcall(verbs.devices)
    if ok and #devs > 0 then return nil end
    local _, why = pcall(verbs.open)
    io.write("\n", tostring(why), "\n")
    return "no RDMA device"
  end,

  steps = {
    {
      title = "Open the device",
      text = [[
        libibverbs lists the RDMA devices of this machine (ibv_get_device_list)
        and opens one (ibv_open_device), which gives a context: the handle that
        every later object (PD, CQ, QP, ...) is created from.
        verbs.devices() lists them; verbs.open() opens the device named by -d
        (the VERBSH_DEVICE environment variable), else the first one with an
        ACTIVE port.]],
      c = [[
        struct ibv_device **list = ibv_get_device_list(NULL);
        struct ibv_context *ctx = ibv_open_device(list[0]);]],
      task = [[Look at verbs.devices(), then open the device into the global ctx.]],
      hint = [[ctx = verbs.open()]],
      solution = [[
        verbs.devices()
        ctx = verbs.open()]],
      check = function()
        if not K.is(ctx, "context") then return false, "ctx is not an open device context" end
        return true, "opened " .. tostring(ctx)
      end,
    },
    {
      title = "The port",
      text = [[
        A device has one or more ports (numbered from 1). ibv_query_port says
        whether the port can carry traffic (state ACTIVE), its MTUs, and its
        link layer. On rxe the link layer is ETHERNET: this is RoCE, RDMA over
        Ethernet. There are no InfiniBand LIDs here (lid is 0); packets are
        addressed by GID instead. active_mtu is the largest payload per packet
        (derived from the netdev's MTU: 1500 bytes of Ethernet gives 1024);
        max_mtu is what the device could do.]],
      c = [[
        struct ibv_port_attr port;
        ibv_query_port(ctx, 1, &port);]],
      task = [[Query port 1 into the global `port` and look at state, active_mtu and link_layer.]],
      hint = [[port = ctx:query_port(1)]],
      solution = [[
        port = ctx:query_port(1)
        port.state, port.active_mtu, port.max_mtu, port.link_layer, port.lid]],
      check = function()
        if type(port) ~= "table" then return false, "`port` is not a table from ctx:query_port(1)" end
        local real = ctx:query_port(1)
        if port.state ~= real.state or port.link_layer ~= real.link_layer then
          return false, "`port` does not match ctx:query_port(1)"
        end
        return true, ("state=%s active_mtu=%s max_mtu=%s link_layer=%s lid=%s"):format(
          real.state, real.active_mtu, real.max_mtu, real.link_layer, tostring(real.lid))
      end,
    },
    {
      title = "GIDs: the RoCE address",
      text = [[
        On RoCE every packet carries a Global Route Header or, with RoCE v2, a
        UDP/IP header (UDP port 4791). Its source and destination addresses are
        GIDs: 128-bit IPv6 addresses, or IPv4 addresses written as IPv4-mapped
        IPv6 (::ffff:a.b.c.d). That is why every RoCE connection needs a GID
        index: it picks the source address, and the peer's GID is the
        destination.
        The port's GID table has one entry per address of the netdev and per
        RoCE version: index 0 is usually the fe80:: link-local address. rxe
        speaks RoCE v2 only. Which index holds the IPv4 address depends on the
        addresses configured, so programs choose it by type and address
        (like `show_gids` does), never by a fixed number.
        (sysfs: /sys/class/infiniband/DEV/ports/1/gids/N and gid_attrs/types/N)]],
      c = [[
        union ibv_gid gid;
        ibv_query_gid(ctx, 1, index, &gid);
        /* type: ibv_query_gid_ex() or sysfs gid_attrs/types/<index> */]],
      task = [[
        List the GIDs of port 1 (ctx:gids(1)) and set the global gid_index to the
        index of the "RoCE v2" GID that holds an IPv4-mapped address.]],
      hint = [[
        for _, g in ipairs(ctx:gids(1)) do print(g.index, g.type, g.gid) end
        then gid_index = <the index whose type is "RoCE v2" and whose gid contains ffff and the IPv4 address>]],
      solution = [[
        for _, g in ipairs(ctx:gids(1)) do print(g.index, g.type, g.gid) end
        for _, g in ipairs(ctx:gids(1)) do if g.type == "RoCE v2" and g.gid:find("ffff") then gid_index = g.index end end
        gid_index]],
      check = function()
        local want, gid = K.roce_gid(ctx, 1)
        if not want then return false, gid end
        if gid_index ~= want then
          return false, ("gid_index is %s; the RoCE v2 IPv4-mapped GID is elsewhere"):format(tostring(gid_index))
        end
        return true, ("gid_index=%d gid=%s (IPv4 %s)"):format(want, gid, tostring(K.gid_ipv4(gid)))
      end,
    },
    {
      title = "Device limits",
      text = [[
        ibv_query_device returns the device's limits: how many QPs, CQs, MRs,
        how large a work queue (max_qp_wr), how many scatter/gather entries,
        how many RDMA READs and atomics a QP may have in flight
        (max_qp_rd_atom, used in lesson 7), and whether atomics are supported
        (atomic_cap, lesson 8). rxe is software, so its limits are generous.]],
      c = [[
        struct ibv_device_attr attr;
        ibv_query_device(ctx, &attr);]],
      task = [[Query the device into the global `dev`; look at max_qp, max_qp_wr, max_qp_rd_atom and atomic_cap.]],
      hint = [[dev = ctx:query_device()]],
      solution = [[
        dev = ctx:query_device()
        dev.max_qp, dev.max_qp_wr, dev.max_qp_rd_atom, dev.atomic_cap]],
      check = function()
        if type(dev) ~= "table" then return false, "`dev` is not a table from ctx:query_device()" end
        local real = ctx:query_device()
        if dev.max_qp ~= real.max_qp then return false, "`dev` does not match ctx:query_device()" end
        return true, ("max_qp=%s max_qp_wr=%s max_qp_rd_atom=%s atomic_cap=%s"):format(
          real.max_qp, real.max_qp_wr, real.max_qp_rd_atom, tostring(real.atomic_cap))
      end,
    },
  },
}
