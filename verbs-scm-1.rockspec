-- The verbs module (libibverbs and librdmacm for Lua 5.4) as a rock:
--   luarocks --lua-version 5.4 make            (from the checkout)
-- builds verbs.so with the project's Makefile, against the system's
-- rdma-core (libibverbs-dev, librdmacm-dev), and installs it as `verbs`.
rockspec_format = "3.0"
package = "verbs"
version = "scm-1"
source = {
   -- Built from a checkout: `luarocks make` uses the files here.
   url = "git+file://."
}
description = {
   summary = "RDMA verbs (libibverbs, librdmacm) for Lua, under the C API's names",
   detailed = [[
      ctx = require("verbs").open(); pd = ctx:alloc_pd(); mr = pd:reg_mr(4096, "LOCAL_WRITE") ...
      The module of verbsh, the interactive shell for learning RDMA verbs:
      every verb, struct field and enumerator keeps its C name, bad input
      raises an error that names the argument, and errors explain the errno.
   ]],
   license = "MIT",
   labels = { "rdma", "infiniband", "roce" },
}
dependencies = {
   "lua >= 5.4, < 5.5",
}
external_dependencies = {
   IBVERBS = { header = "infiniband/verbs.h", library = "ibverbs" },
   RDMACM = { header = "rdma/rdma_cma.h", library = "rdmacm" },
}
build = {
   type = "make",
   -- The Makefile compiles lua/*.lua into the module and takes its flags
   -- from pkg-config; only the module is built and installed.
   build_target = "verbs.so",
   build_variables = { CFLAGS = "$(CFLAGS)" },
   install_pass = false,
   install = { lib = { verbs = "verbs.so" } },
}
