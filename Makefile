# verbsh: an interactive shell for RDMA verbs.
#   make          build ./verbsh and ./verbs.so
#   make run      build, then open the shell on a real device (or in the rxe micro-VM);
#                 make run TWO=1: the micro-VM with rxe0 and rxe1 on a veth pair
#                 make run SIW=1: the micro-VM with siw0 (soft-iWARP) beside rxe0
#   make test     host tests, then device tests on rxe (host device or micro-VM),
#                 then the same under ASan+UBSan
#   make bench    benchmarks (in the micro-VM unless the host has a device)
#   make fuzz     a fuzz campaign on the ASan build (FUZZ_SEEDS, FUZZ_OPS, FUZZ_FAMILIES),
#                 then the recorder's trace-on/off differential (DIFF_SEEDS)
#   make mutate   mutation testing: plants each bug of tests/mutants/ and checks
#                 that a test fails (builds in build/mutate/, not ./verbsh)
#   make clean    remove build output (the VM cache in .cache/ is kept)
#   make install PREFIX=/usr/local DESTDIR=    (and make uninstall, same variables)
#   make package  build/package/verbsh_*.deb (lintian-clean) and the verbs rock,
#                 then the .deb in the micro-VM runs lesson 1

PKGS    := libibverbs librdmacm lua5.4 readline
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Werror -Wmissing-prototypes -Wunused-parameter
DEPCFLAGS = $(shell pkg-config --cflags $(PKGS))
DEPLIBS   = $(shell pkg-config --libs libibverbs)
# ./verbsh links Lua in, as Debian's lua5.4 does, and exports its C API
# alone (src/verbsh.dynlist): no liblua to load and relocate at start,
# calls into Lua without a PLT.
LUA_STATIC = -Wl,-Bstatic -llua5.4 -Wl,-Bdynamic -lm -Wl,--dynamic-list=src/verbsh.dynlist
ALLCFLAGS = -std=gnu11 $(WARN) $(CPPFLAGS) $(CFLAGS) $(DEPCFLAGS) -D_GNU_SOURCE -Ibuild -Isrc

# The bindings (everything but the shell's own main and REPL) go into both
# ./verbsh and the Lua C module ./verbs.so.
SHELL_SRC := src/main.c src/repl.c
LIB_SRC   := $(filter-out $(SHELL_SRC),$(wildcard src/*.c))
LUA_SRC   := $(sort $(wildcard lua/*.lua))
EMBED_C   := build/embedded_lua.c

# Libraries opened on first use (src/lazylib.h) instead of linked, so that
# start-up does not pay for them: the sonames the linker would have recorded.
soname = $(shell objdump -p "$$($(CC) -print-file-name=lib$(1).so)" 2>/dev/null | awk '$$1 == "SONAME" { print $$2 }')
PCAP_SONAME := $(call soname,pcap)
ZLIB_SONAME := $(call soname,z)
READLINE_SONAME := $(call soname,readline)
RDMACM_SONAME := $(call soname,rdmacm)

OBJ_DIR   := build/obj
LIB_OBJ   := $(LIB_SRC:src/%.c=$(OBJ_DIR)/%.o) $(OBJ_DIR)/embedded_lua.o
SHELL_OBJ := $(SHELL_SRC:src/%.c=$(OBJ_DIR)/%.o)
PIC_DIR   := build/pic
PIC_OBJ   := $(LIB_OBJ:$(OBJ_DIR)/%.o=$(PIC_DIR)/%.o)

ASAN_DIR  := build/asan
ASAN_FLAGS := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined

.PHONY: all deps deps-test run test test-host test-device bench clean asan fuzz mutate
all: deps verbsh verbs.so

deps:
	@scripts/deps build

verbsh: $(SHELL_OBJ) $(LIB_OBJ) src/verbsh.dynlist
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(DEPLIBS) $(LUA_STATIC)

# The module must not link liblua itself: the interpreter that loads it provides Lua.
verbs.so $(ASAN_DIR)/verbs.so: $(PIC_OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -o $@ $^ $(DEPLIBS)

# deps is order-only everywhere it is needed, so that `make -j` installs the
# packages before the first compile instead of racing it.
$(OBJ_DIR)/%.o: src/%.c $(wildcard src/*.h) | $(OBJ_DIR) deps
	$(CC) $(ALLCFLAGS) -c -o $@ $<
$(OBJ_DIR)/embedded_lua.o: $(EMBED_C) | $(OBJ_DIR)
	$(CC) $(ALLCFLAGS) -c -o $@ $<
$(OBJ_DIR)/pcap_lazy.o $(PIC_DIR)/pcap_lazy.o: ALLCFLAGS += $(if $(PCAP_SONAME),-DPCAP_SONAME='"$(PCAP_SONAME)"')
$(OBJ_DIR)/zlib_lazy.o $(PIC_DIR)/zlib_lazy.o: ALLCFLAGS += $(if $(ZLIB_SONAME),-DZLIB_SONAME='"$(ZLIB_SONAME)"')
$(OBJ_DIR)/rdmacm_lazy.o $(PIC_DIR)/rdmacm_lazy.o: ALLCFLAGS += $(if $(RDMACM_SONAME),-DRDMACM_SONAME='"$(RDMACM_SONAME)"')
$(OBJ_DIR)/repl.o: ALLCFLAGS += $(if $(READLINE_SONAME),-DREADLINE_SONAME='"$(READLINE_SONAME)"')
# Hidden visibility: verbs.so exports luaopen_verbs alone, so no internal
# name can clash with a libc symbol (as a function named verr once did).
$(PIC_DIR)/%.o: src/%.c $(wildcard src/*.h) | $(PIC_DIR) deps
	$(CC) $(ALLCFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<
$(PIC_DIR)/embedded_lua.o: $(EMBED_C) | $(PIC_DIR)
	$(CC) $(ALLCFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

# lua/*.lua are compiled into the binary so that verbsh and verbs.so need no
# install path to find their Lua half.
$(EMBED_C): $(LUA_SRC) scripts/embed.lua | build deps
	lua5.4 scripts/embed.lua $@ $(LUA_SRC)

build $(OBJ_DIR) $(PIC_DIR):
	mkdir -p $@

# The same program under ASan+UBSan, for `make test`.
# (the embedded Lua made first, here: the sub-make would make it again,
# beside this make's own compile of it under -j)
asan: deps $(EMBED_C)
	$(MAKE) --no-print-directory OBJ_DIR=$(ASAN_DIR)/obj PIC_DIR=$(ASAN_DIR)/pic CFLAGS="$(ASAN_FLAGS)" \
	    LDFLAGS="-fsanitize=address,undefined" $(ASAN_DIR)/verbsh $(ASAN_DIR)/verbs.so
$(ASAN_DIR)/verbsh: $(SHELL_OBJ) $(LIB_OBJ) src/verbsh.dynlist
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(DEPLIBS) $(LUA_STATIC)

# make run [ARGS="--lesson 5"] [LINK=HOST:PORT LISTEN=PORT SEAT=N PEER_SEAT=M | CLASS=GROUP:PORT SEAT=N] [ROLE=partner]
# (exported, not pasted into the recipe: ARGS may hold any quotes)
run: export ARGS := $(ARGS)
run: export LINK := $(LINK)
run: export LISTEN := $(LISTEN)
run: export CLASS := $(CLASS)
run: export SEAT := $(SEAT)
run: export PEER_SEAT := $(PEER_SEAT)
run: export MTU := $(MTU)
run: export TWO := $(TWO)
run: export SIW := $(SIW)
run: export ROLE := $(ROLE)
run: all
	@scripts/run-shell

# (the build two jobs at once, or as many as there are cores: a serial one
# took about a minute of make test's 20)
test: deps-test
	@$(MAKE) --no-print-directory -j$$(nproc) all asan bench/rc_loop build/oracle
	@tests/run
deps-test:
	@scripts/deps test

bench: all bench/rc_loop
	@scripts/deps bench
	@bench/run
	@bench/wire
	@bench/boot

# Seeded random API sequences on rxe (tests/fuzz/): crashes, hangs and leaks.
FUZZ_SEEDS    ?= 500
FUZZ_OPS      ?= 300
FUZZ_FIRST    ?= 1
FUZZ_FAMILIES ?= all
# then the recorder's differential (tests/fuzz/diff): DIFF_SEEDS seeds with
# the trace off, on, toggled and under --export-c must give the same outcomes
DIFF_SEEDS    ?= 200
fuzz: all asan
	@tests/fuzz/run --seeds $(FUZZ_SEEDS) --first $(FUZZ_FIRST) --ops $(FUZZ_OPS) --families $(FUZZ_FAMILIES)
	@tests/fuzz/diff --seeds $(DIFF_SEEDS) --first $(FUZZ_FIRST) --ops 150 --corpus

mutate: deps deps-test build/oracle bench/rc_loop
	@tests/mutate

# The C row of the benchmark: plain libibverbs, no verbsh.
bench/rc_loop: bench/rc_loop.c
	$(CC) -std=gnu11 $(WARN) -O2 -o $@ $< $(shell pkg-config --cflags --libs libibverbs)

# The C oracle of tests/device/oracle.bats: plain libibverbs and librdmacm.
build/oracle: tests/oracle/oracle.c | build
	$(CC) -std=gnu11 $(WARN) -O1 -o $@ $< $(shell pkg-config --cflags --libs libibverbs librdmacm)

clean:
	rm -rf build verbsh verbs.so bench/rc_loop

# ------------------------------------------------------------ installing
# verbsh finds its lessons at ../share/verbsh/lessons from its own binary,
# and verbsh-vm its in-guest half at ../libexec/verbsh, so the tree can be
# staged under DESTDIR and moved. verbs.so goes where stock lua5.4 looks:
# Debian's multiarch directory for /usr, PREFIX/lib/lua/5.4 otherwise.
PREFIX      ?= /usr/local
DESTDIR     ?=
BINDIR      := $(PREFIX)/bin
DATADIR     := $(PREFIX)/share/verbsh
LIBEXECDIR  := $(PREFIX)/libexec/verbsh
MANDIR      := $(PREFIX)/share/man/man1
BASHCOMPDIR := $(PREFIX)/share/bash-completion/completions
LUA_CMOD    ?= $(if $(filter /usr,$(PREFIX)),$(shell pkg-config --variable=INSTALL_CMOD lua5.4),$(PREFIX)/lib/lua/5.4)
INSTALL     ?= install

.PHONY: install uninstall package deps-package
install: all
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LUA_CMOD) $(DESTDIR)$(LIBEXECDIR) $(DESTDIR)$(MANDIR) \
	    $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(DATADIR)/lessons $(DESTDIR)$(DATADIR)/examples
	$(INSTALL) -m 755 verbsh $(DESTDIR)$(BINDIR)/verbsh
	$(INSTALL) -m 755 scripts/rxe-vm $(DESTDIR)$(BINDIR)/verbsh-vm
	$(INSTALL) -m 755 scripts/rxe-vm-guest scripts/deps $(DESTDIR)$(LIBEXECDIR)/
	$(INSTALL) -m 644 verbs.so $(DESTDIR)$(LUA_CMOD)/verbs.so
	$(INSTALL) -m 644 lessons/*.lua $(DESTDIR)$(DATADIR)/lessons/
	$(INSTALL) -m 644 examples/*.lua $(DESTDIR)$(DATADIR)/examples/
	$(INSTALL) -m 644 doc/verbsh.1 $(DESTDIR)$(MANDIR)/verbsh.1
	$(INSTALL) -m 644 doc/verbsh.bash-completion $(DESTDIR)$(BASHCOMPDIR)/verbsh
	ln -sf verbsh $(DESTDIR)$(BASHCOMPDIR)/verbsh-vm

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/verbsh $(DESTDIR)$(BINDIR)/verbsh-vm $(DESTDIR)$(LUA_CMOD)/verbs.so \
	    $(DESTDIR)$(MANDIR)/verbsh.1 $(DESTDIR)$(BASHCOMPDIR)/verbsh $(DESTDIR)$(BASHCOMPDIR)/verbsh-vm
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(LIBEXECDIR)

# The .deb (lintian-checked) and the rock, each from a clean copy of the
# tree; then the .deb installed in the micro-VM runs lesson 1 (2-3 min).
package: all deps-package
	scripts/package
deps-package:
	@scripts/deps package vm
