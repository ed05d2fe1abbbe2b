-- Lesson 2: protection domains and memory regions.
local K = require "verbs.lesson_kit"

return {
  title = "Protection domains and memory regions",
  transports = { "RoCE" },
  intro = [[
    The device reads and writes your memory directly, without the CPU. You
    allow it, region by region, by registering memory: the kernel pins the
    pages and gives the region two keys.]],
  setup = function()
    K.open()
    return K.describe { "ctx", "gid_index" }
  end,

  steps = {
    {
      title = "A protection domain",
      text = [[
        A PD groups the objects that may be used together: a QP can only use
        MRs (and AHs) of its own PD. Applications usually have one PD; two
        PDs keep two tenants' memory apart on one device.]],
      c = [[struct ibv_pd *pd = ibv_alloc_pd(ctx);]],
      task = [[Allocate a PD into the global pd.]],
      hint = [[pd = ctx:alloc_pd()]],
      solution = [[pd = ctx:alloc_pd()]],
      check = function()
        return K.check(K.is(pd, "pd"), "pd is not a protection domain yet", tostring(pd))
      end,
    },
    {
      title = "Register memory: lkey and rkey",
      text = [[
        ibv_reg_mr registers a buffer: the kernel pins its pages (they cannot be
        swapped out or moved while the device may DMA into them) and returns
        an MR with
          lkey  -- names the MR in your own work requests' scatter/gather lists;
          rkey  -- the key you give a peer so that its RDMA READ/WRITE/atomics
                   may touch this memory (only with the matching access flag).
        pd:reg_mr(size, access) allocates the buffer for you; mr.addr is its
        virtual address, which a peer uses as remote_addr.
        LOCAL_WRITE lets the device write here (receives, READ results).]],
      c = [[
        void *buf = malloc(4096);
        struct ibv_mr *mr_a = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_LOCAL_WRITE);]],
      task = [[Register 4096 bytes with LOCAL_WRITE into the global mr_a; look at mr_a.addr, mr_a.lkey and mr_a.rkey.]],
      hint = [[mr_a = pd:reg_mr(4096, "LOCAL_WRITE")]],
      solution = [[
        mr_a = pd:reg_mr(4096, "LOCAL_WRITE")
        mr_a.addr, mr_a.length, mr_a.lkey, mr_a.rkey]],
      check = function()
        if not K.is(mr_a, "mr") then return false, "mr_a is not a memory region yet" end
        if mr_a.length < 4096 then return false, "mr_a is shorter than 4096 bytes" end
        return true, ("length=%d lkey=0x%x rkey=0x%x"):format(mr_a.length, mr_a.lkey, mr_a.rkey)
      end,
    },
    {
      title = "Access flags have rules",
      text = [[
        Remote rights are opt-in: REMOTE_WRITE, REMOTE_READ, REMOTE_ATOMIC.
        A region a peer may write (or modify atomically) must also be locally
        writable, so ibv_reg_mr refuses REMOTE_WRITE or REMOTE_ATOMIC without
        LOCAL_WRITE with EINVAL. Try it, keeping the error in err.]],
      c = [[
        mr = ibv_reg_mr(pd, buf, 4096, IBV_ACCESS_REMOTE_WRITE);   /* NULL, errno = EINVAL */]],
      task = [[
        Catch the failure: ok, err = pcall(pd.reg_mr, pd, 4096, "REMOTE_WRITE")
        and print(err). Then register mr_b with LOCAL_WRITE, REMOTE_WRITE and REMOTE_READ.]],
      hint = [[mr_b = pd:reg_mr(4096, {"LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ"})]],
      solution = [[
        ok, err = pcall(pd.reg_mr, pd, 4096, "REMOTE_WRITE")
        print(err)
        mr_b = pd:reg_mr(4096, {"LOCAL_WRITE", "REMOTE_WRITE", "REMOTE_READ"})]],
      check = function()
        if not K.is_verb_error(err, "ibv_reg_mr", "EINVAL") then
          return false, "err does not hold the EINVAL of ibv_reg_mr with REMOTE_WRITE alone"
        end
        if not K.is(mr_b, "mr") then return false, "mr_b is not a memory region yet" end
        return true, ("REMOTE_WRITE alone: %s (errno %d); mr_b rkey=0x%x"):format(err.errname, err.errno, mr_b.rkey)
      end,
    },
    {
      title = "It is your memory",
      text = [[
        The MR's buffer is ordinary process memory: the CPU reads and writes it
        as usual, and the device sees the same bytes. mr:write(offset, string)
        and mr:read(offset, length) are verbsh's memcpy into and out of it.]],
      c = [[
        memcpy(buf, "hello", 5);]],
      task = [[Write "hello" at offset 0 of mr_a and read it back.]],
      hint = [[mr_a:write(0, "hello") then mr_a:read(0, 5)]],
      solution = [[
        mr_a:write(0, "hello")
        mr_a:read(0, 5)]],
      check = function()
        return K.check(mr_a:read(0, 5) == "hello", "mr_a does not start with \"hello\"",
                       "mr_a:read(0, 5) == \"hello\"")
      end,
    },
    {
      title = "Pinned memory and memlock",
      text = [[
        Pinned pages count in the process's VmPin (/proc/self/status) and,
        unless the process has CAP_IPC_LOCK (root does), against the memlock
        limit (ulimit -l; RLIMIT_MEMLOCK). Over the limit, ibv_reg_mr fails
        with ENOMEM -- and so can create_cq and create_qp, whose queues are
        pinned too. The fix is `ulimit -l unlimited` (or --ulimit memlock=-1
        in a container). Watch VmPin grow and shrink.]],
      c = [[
        struct ibv_mr *big = ibv_reg_mr(pd, malloc(16 << 20), 16 << 20, IBV_ACCESS_LOCAL_WRITE);
        ibv_dereg_mr(big);]],
      task = [[
        Note the pinned memory (before = lesson.kit.vm_pin_kb()), register 16 MiB
        into big, compare lesson.kit.vm_pin_kb(); then big:dereg().]],
      hint = [[big = pd:reg_mr(16 * 1024 * 1024, "LOCAL_WRITE"), then big:dereg()]],
      enter = function(S) S.pin0 = K.vm_pin_kb() end,
      solution = [[
        before = lesson.kit.vm_pin_kb()
        big = pd:reg_mr(16 * 1024 * 1024, "LOCAL_WRITE")
        pinned = lesson.kit.vm_pin_kb()
        pinned - before
        lesson.kit.memlock()
        big:dereg()]],
      check = function(S)
        if type(pinned) ~= "number" or type(before) ~= "number" then
          return false, "keep VmPin before and after the registration in `before` and `pinned`"
        end
        if pinned - before < 16 * 1024 then
          return false, ("VmPin grew by only %d kB"):format(pinned - before)
        end
        if K.is(big, "mr") and pcall(big.read, big, 0, 1) then
          return false, "big is still registered: big:dereg()"
        end
        local now = K.vm_pin_kb()
        return true, ("VmPin %d kB -> %d kB with 16 MiB registered, %d kB after dereg; memlock=%s"):format(
          before, pinned, now, tostring(K.memlock()))
      end,
    },
  },
}
