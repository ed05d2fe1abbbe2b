#!/usr/bin/env bats
# The installed verbsh on real rxe, the last step of `make package` (about
# 2 minutes, most of it dpkg -i reading its database over 9p in the guest):
# the .deb built by scripts/package installed in the micro-VM, started by a
# staged install's verbsh-vm (its guest half from ../libexec/verbsh, its
# cache under XDG_CACHE_HOME), then lesson 1 --auto, an example, stock
# lua5.4 with the packaged module, and the doctor.
load ../helpers

setup_file() {
    export STAGE=$BATS_FILE_TMPDIR/stage
    make -s -C "$ROOT" install DESTDIR="$STAGE" PREFIX=/usr >/dev/null
}

@test "the .deb installs in the micro-VM and runs lesson 1 --auto, an example, lua5.4 and the doctor" {
    local deb xdg=$BATS_TEST_TMPDIR/xdg
    deb=$(ls "$ROOT"/build/package/verbsh_*.deb)
    # The staged verbsh-vm must use $XDG_CACHE_HOME/verbsh/rxe-vm: given the
    # shared cache there, it boots at once instead of building one.
    mkdir -p "$xdg/verbsh/rxe-vm"
    ln -s "${RXE_VM_CACHE:-$ROOT/.cache/rxe-vm}/current" "$xdg/verbsh/rxe-vm/current"
    cd "$BATS_TEST_TMPDIR"
    run env -u RXE_VM_CACHE XDG_CACHE_HOME="$xdg" "$STAGE/usr/bin/verbsh-vm" -- bash -c "
        # (--no-triggers: man-db's index rebuild over 9p takes minutes.)
        dpkg --no-triggers -i '$deb' >/dev/null 2>&1 || { echo 'dpkg -i failed'; exit 9; }
        cd /
        echo \"binary: \$(command -v verbsh)\"
        verbsh --lesson 1 --auto >/tmp/l1.out 2>&1; echo \"lesson 1: \$?\"
        grep -c '^✓' /tmp/l1.out
        verbsh /usr/share/verbsh/examples/rc_pingpong.lua -g \$RXE_GID_INDEX >/tmp/srv.out 2>&1 &
        sleep 2
        verbsh /usr/share/verbsh/examples/rc_pingpong.lua -g \$RXE_GID_INDEX -n 10 127.0.0.1 2>&1 | tail -n 1
        wait
        lua5.4 -e 'local v = require \"verbs\"; print(package.searchpath(\"verbs\", package.cpath), v.open():query_port(1).state)'
        verbsh --doctor >/tmp/doc.out; echo \"doctor: \$?\"
        grep -c '^fail' /tmp/doc.out; true"
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output != *"building the guest kernel"* ]]
    [ "${lines[0]}" = "binary: /usr/bin/verbsh" ]
    [ "${lines[1]}" = "lesson 1: 0" ]
    [ "${lines[2]}" -ge 3 ]
    [[ ${lines[3]} == *"iters in"* ]]
    [ "${lines[4]}" = "$(pkg-config --variable=INSTALL_CMOD lua5.4)/verbs.so	ACTIVE" ]
    [ "${lines[5]}" = "doctor: 0" ]
    [ "${lines[6]}" = "0" ]
}
