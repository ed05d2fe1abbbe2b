# Shared by every .bats file: `load ../helpers`.

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
# The binary under test: ./verbsh, or build/asan/verbsh when tests/run runs
# the suite again under ASan+UBSan.
: "${VERBSH:=$ROOT/verbsh}"
case $VERBSH in /*) ;; *) VERBSH=$ROOT/$VERBSH ;; esac
export VERBSH ROOT
# Finished lessons and the progress log go to the test's own directory, never
# to the user's ~/.local/state (which the micro-VM shares with the host).
export XDG_STATE_HOME=${BATS_TEST_TMPDIR:-${TMPDIR:-/tmp}}/state
# Guests see the checkout read-only: what a test writes in its current
# directory stays in the guest (tests/vm/share.bats turns the share on).
export RXE_VM_SHARE=0
# ASan: the process's own leaks fail the test; libibverbs' provider cache
# (loaded once, on purpose kept until exit) is suppressed.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:exitcode=86}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1:exitcode=87}
[ -f "$ROOT/tests/lsan.supp" ] && export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$ROOT/tests/lsan.supp}

# Device tests need rxe: tests/run sets RXE_* (from the micro-VM or from the
# host's own active port). Fail loudly when run some other way without them.
require_device() {
    if [ -z "${RXE_DEV:-}" ]; then
        echo "no RDMA device: run device tests through tests/run or scripts/rxe-vm" >&2
        return 1
    fi
}

# A Lua prelude for a chunk that counts this process's open descriptors:
# "$FDS_LUA"'...' defines fds(), the number in /proc/PID/fd, the fewest of
# three counts (a count may see the pipe of its own io.popen half made).
# With collectgarbage("stop"), a file or socket left unclosed stays counted.
FDS_LUA='
  local fds_pid
  do local st = io.open("/proc/self/stat"); fds_pid = st:read("n"); st:close() end
  local function fds_once()
    local p = io.popen("ls /proc/" .. fds_pid .. "/fd | wc -l"); local n = p:read("n"); p:close(); return n
  end
  local function fds() return math.min(fds_once(), fds_once(), fds_once()) end
'

# Runs a Lua chunk in verbsh: vsh 'print(1)'
vsh() { "$VERBSH" -e "$1"; }

# The stand-in provider (tests/fakeverbs/fakeverbs.c): fakeverbs_build DIR
# builds DIR/fakeverbs.so; fakeverbs_sh SO CODE runs verbsh -e CODE with it
# preloaded (an ASan build wants its runtime first in the preload list).
fakeverbs_build() { gcc -Wall -Wextra -Werror -shared -fPIC -o "$1/fakeverbs.so" "$ROOT/tests/fakeverbs/fakeverbs.c"; }
fakeverbs_sh() {
    local asan
    asan=$(ldd "$VERBSH" | awk '/libasan/ { print $3 }')
    LD_PRELOAD="${asan:+$asan }$1" "$VERBSH" -e "$2"
}

# fakerdmacm_build DIR: DIR/librdmacm.so.1, a stand-in librdmacm
# (tests/fakeverbs/fakerdmacm.c) that verbsh's dlopen finds first when
# LD_LIBRARY_PATH=DIR.
fakerdmacm_build() { gcc -Wall -Wextra -Werror -shared -fPIC -Wl,-soname,librdmacm.so.1 -o "$1/librdmacm.so.1" "$ROOT/tests/fakeverbs/fakerdmacm.c"; }

# After `run`: succeeds when one line of the output is exactly $1 (a glob
# such as *"B	1"* would also match "B	12").
has_line() {
    local l
    for l in "${lines[@]}"; do [ "$l" = "$1" ] && return 0; done
    echo "no line is exactly '$1'" >&2
    return 1
}

# ladder_frames REGEX < LADDER: the frame numbers ("| #N ") of the rows of a
# printed capture ladder that match REGEX, in order, on one line
ladder_frames() { grep -E "$1" | sed -E 's/.*\| #([0-9]+) .*/\1/' | paste -sd' '; }

# The per-test coverage map (tests/mutate-coverage build sets
# MUTATE_COV_PER_TEST=DIR, nothing else does): this file is sourced again for
# each test, so each test's processes write their gcc counters and Lua lines
# to DIR/<test number>; setup_file's and teardown_file's to DIR/file (there
# BATS_TEST_NAME is empty; BATS_TEST_NUMBER may be a calling bats' own).
if [ -n "${MUTATE_COV_PER_TEST:-}" ]; then
    GCOV_PREFIX=$MUTATE_COV_PER_TEST/file
    [ -z "${BATS_TEST_NAME:-}" ] || GCOV_PREFIX=$MUTATE_COV_PER_TEST/$BATS_TEST_NUMBER
    VERBSH_LUA_COVERAGE=$GCOV_PREFIX
    mkdir -p "$GCOV_PREFIX"
    export GCOV_PREFIX VERBSH_LUA_COVERAGE
fi
