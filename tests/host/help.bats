#!/usr/bin/env bats
# help(): nothing a student can type is without help, and the keys help
# lists are the ones the marshaller accepts.
load ../helpers

# help_check LUA: runs LUA with H = require "verbs.help" and missing(), a
# list collector that prints "missing: ..." at exit when not empty.
help_check() {
    "$VERBSH" -e '
      H = require "verbs.help"
      bad = {}
      function missing(what) bad[#bad + 1] = what end
      function has(name, ...)
        local t = H.text(name)
        if not t then return missing(name .. " (no help)") end
        for _, s in ipairs { ... } do
          if not t:find(s, 1, true) then missing(name .. " (lacks " .. s .. ")") end
        end
      end' -e "$1" -e 'print(#bad == 0 and "none missing" or "missing: " .. table.concat(bad, "; "))'
}

@test "help: every method of every class and every verbs.* function has a prototype and an example" {
    run help_check '
      local n = 0
      for key, mt in pairs(debug.getregistry()) do
        local kind = type(key) == "string" and key:match("^verbs%.(.+)$")
        if kind and type(mt) == "table" and type(rawget(mt, "__methods")) == "table" then
          for name in pairs(mt.__methods) do
            n = n + 1
            has(kind .. ":" .. name, "\n    C: ", "\n  example:\n")
            local t = H.text(kind .. ":" .. name) or ""
            -- the first entry is this class'"'"'s own method
            local form = t:match("^[^\n]*")
            if not (form:find(":" .. name, 1, true) or form:find("obj:" .. name, 1, true)) then
              missing(kind .. ":" .. name .. " (shows " .. form .. ")")
            end
          end
        end
      end
      for name, v in pairs(verbs) do
        if type(v) == "function" then n = n + 1; has(name, "\n    C: ", "\n  example:\n") end
      end
      for _, name in ipairs { "oob.listen", "oob.connect", "oob:accept", "oob:send", "oob:recv", "oob:close" } do
        n = n + 1; has(name, "\n    C: ", "\n  example:\n")
      end
      for name, v in pairs(require "verbs.oob") do
        if type(v) == "function" and name ~= "encode" and name ~= "decode" then has("oob." .. name) end
      end
      print(n > 100 and "many" or n)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "many" ]
    [ "${lines[1]}" = "none missing" ]
}

@test "help: every ibv_*/rdma_* name in the C sources (verbs, structs, enums) has help" {
    # The names verbsh calls or names in its traces; static helpers of ours are not C verbs.
    names=$(grep -ohE '\b(ibv|rdma)_[a-z0-9_]+\(|"(ibv|rdma)_[a-z0-9_]+"' "$ROOT"/src/*.c | tr -d '("' | sort -u)
    ours=$(grep -ohE '^static [a-z_ *]+\b(ibv|rdma)_[a-z0-9_]+\(' "$ROOT"/src/*.c | grep -oE '(ibv|rdma)_[a-z0-9_]+' | sort -u)
    list=$(comm -23 <(echo "$names") <(echo "$ours") | tr '\n' ' ')
    [ "$(echo "$list" | wc -w)" -gt 100 ]
    run help_check "for name in ('$list'):gmatch('%S+') do has(name, name) end"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "none missing" ]
}

@test "help: every enum value, short and IBV_ full, names its enum, value and use" {
    run help_check '
      local n = 0
      for ctype in pairs(verbs.enums) do
        local e = verbs.enum(ctype)
        has(ctype, ctype .. ":", "used in: ")
        for _, name in ipairs(e.names) do
          n = n + 1
          local line = ("%s%s = %d"):format(e.prefix, name, e.values[name])
          has(name, line, "of " .. (e.flags and "flag set " or "enum ") .. ctype, "used in: ")
          if e.prefix ~= "" then has(e.prefix .. name, line) end
        end
      end
      print(n)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" -gt 250 ]
    [ "${lines[1]}" = "none missing" ]
}

@test "help: every lesson command and helper has help" {
    # What lessons put in globals: lesson.lua's commands, lesson_kit's globals,
    # the lesson table's own functions, and what lessons tell students to call.
    cmds=$(grep -ohE 'function commands\.[a-z_]+|commands\.[a-z_]+ = function' "$ROOT"/lua/lesson.lua |
           sed -E 's/.*commands\.([a-z_]+).*/\1/')
    globals=$(grep -ohE 'rawset\(_G, "[a-z_]+", K\.' "$ROOT"/lua/*.lua | sed -E 's/.*"([a-z_]+)".*/\1/')
    table=$(grep -oE '_G\.lesson = setmetatable\(\{[^}]*' "$ROOT"/lua/lesson.lua | sed 's/.*({//' | grep -oE '[a-z_]+ =' | tr -d ' =' |
            sed 's/^/lesson./')
    kit=$(grep -ohE 'lesson\.kit\.[a-z_0-9]+' "$ROOT"/lessons/*.lua "$ROOT"/README.md | sort -u)
    list=$(printf '%s\n' lesson wcs $cmds $globals $table $kit | sort -u | tr '\n' ' ')
    echo "$list"
    for w in hint show skip check restart progress rc_connect lesson.kit; do [[ " $list " == *" $w "* ]]; done
    run help_check "for name in ('$list'):gmatch('%S+') do has(name, 'example:') end"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "none missing" ]
}

@test "help \"post_send\": WR keys with types, opcodes, sg_list forms, rdma = {remote_addr, rkey}, an example" {
    run "$VERBSH" -e 'help "post_send"'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "qp:post_send(wr_or_list or verbs.send_wr)" ]
    [[ $output == *"C: int ibv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)"* ]]
    [[ $output == *"keys (struct ibv_send_wr):"* ]]
    [[ $output == *"    wr_id = integer (64 bits, unsigned)"* ]]
    [[ $output == *"    opcode = a name of enum ibv_wr_opcode: RDMA_WRITE, RDMA_WRITE_WITH_IMM, SEND, SEND_WITH_IMM, RDMA_READ,"* ]]
    [[ $output == *"    sg_list = list of SGE tables (ibv_sge)"* ]]
    [[ $output == *"{ mr = mr, offset = 0, length = n }"*"{ addr = a, length = n, lkey = k }"* ]]
    [[ $output == *"        lkey = integer 0..0xffffffff"* ]]
    [[ $output == *"    rdma = a table (C: wr.rdma): { remote_addr, rkey }"* ]]
    [[ $output == *"    ud = a table (C: wr.ud): { ah, remote_qpn, remote_qkey }"* ]]
    [[ $output == *"        remote_qpn = integer 0..0xffffff"* ]]
    [[ $output == *"  example:"*"rdma = { remote_addr = mr_b.addr, rkey = mr_b.rkey }"* ]]
    # the C name finds the same text
    # (help "post_send" also shows cm_id:post_send, rdma_post_send: the plain name names both)
    run "$VERBSH" -e 'local H = require("verbs.help"); io.write(H.text("post_send"):find(H.text("ibv_post_send"), 1, true) == 1 and "same" or "differs")'
    [ "$output" = "same" ]
}

@test "help lists exactly the keys the marshaller accepts (send_wr, recv_wr, conn_param ...)" {
    # Every key help lists is read by the marshaller: a value of the wrong type
    # is refused naming that key, never as an unknown key; and a key that is
    # not listed is unknown.
    run "$VERBSH" -e '
      local bad = {}
      for ctype, make in pairs { ibv_send_wr = verbs.send_wr, ibv_recv_wr = verbs.recv_wr } do
        local text = require("verbs.help").text(ctype)
        for _, f in ipairs(verbs.fields(ctype)) do
          if not text:find("\n    " .. f.name .. " = ", 1, true) then bad[#bad + 1] = ctype .. " help lacks " .. f.name end
          local ok, e = pcall(make, { [f.name] = coroutine.create(print) })
          if ok or not tostring(e):find("key .?" .. f.name) or tostring(e):find("unknown key") then
            bad[#bad + 1] = ctype .. "." .. f.name .. ": " .. tostring(e)
          end
        end
        local ok, e = pcall(make, { not_a_key = 1 })
        if ok or not tostring(e):find("unknown key") then bad[#bad + 1] = "not_a_key accepted" end
      end
      print(#bad == 0 and "all read" or table.concat(bad, "\n"))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "all read" ]
}

@test "help \"RDMA_WRITE\", \"IBV_QPS_RTS\", \"sg_list\", \"rc_connect\", \"ibv_qp_attr\": enum, key, helper, struct" {
    run "$VERBSH" -e 'help "RDMA_WRITE"'
    echo "$output"
    [ "${lines[0]}" = "RDMA_WRITE: IBV_WR_RDMA_WRITE = 0, a value of enum ibv_wr_opcode" ]   # the one students post, first
    [[ $output == *"used in: key opcode of ibv_send_wr (qp:post_send, verbs.send_wr)"* ]]
    [[ $output == *"RDMA_WRITE: IBV_WC_RDMA_WRITE = 1, a value of enum ibv_wc_opcode"* ]]
    run "$VERBSH" -e 'help "IBV_QPS_RTS"'
    [[ ${lines[0]} == "RTS: IBV_QPS_RTS = 3, a value of enum ibv_qp_state" ]]
    [[ $output == *"used in: key qp_state of ibv_qp_attr ("*"qp:modify"* ]]
    run "$VERBSH" -e 'help "sg_list"'
    [[ ${lines[0]} == "sg_list: key of ibv_send_wr (qp:post_send, verbs.send_wr): list of SGE tables (ibv_sge)" ]]
    [[ $output == *"sg_list: key of ibv_recv_wr (qp:post_recv, srq:post_recv, verbs.recv_wr)"* ]]
    run "$VERBSH" -e 'help "rc_connect"'
    [ "${lines[0]}" = "rc_connect(qp, peer [, opts])" ]
    [[ $output == *"RESET, INIT, RTR, RTS"* ]]
    run "$VERBSH" -e 'help "ibv_qp_attr"'
    [[ ${lines[0]} == "struct ibv_qp_attr, as a table: ibv_qp_attr (id:init_qp_attr, qp:modify, qp:query)" ]]
    [[ $output == *"    path_mtu = a name of enum ibv_mtu: 256, 512, 1024, 2048, 4096 (or full names such as IBV_MTU_256, or the C value: 1 for 256)"* ]]
    run "$VERBSH" -e 'help "ibv_free_device_list"'
    [ "${lines[0]}" = "ibv_free_device_list: verbsh calls it inside verbs.devices():" ]
    # a function finds its own help, as its name does
    run "$VERBSH" -e 'help(verbs.open); help(debug.getregistry()["verbs.srq"].__methods.modify); help(help)'
    [ "${lines[0]}" = "verbs.open([name])" ]
    [[ $output == *$'\nsrq:modify(attr [, mask])\n'* ]]
    [[ $output == *$'\nhelp([name | object | function])\n'* ]]
    run "$VERBSH" -e 'help "port_cap_flags"'
    [[ ${lines[0]} == "port_cap_flags: key of ibv_port_attr (ctx:query_port): flags of ibv_port_cap_flags:"*"CM_SUP"* ]]
}

@test "verbs.fields and verbs.enum describe the descriptors; unknown names are errors with did-you-mean" {
    run "$VERBSH" -e '
      local f = verbs.fields("ibv_qp_attr")
      print(f[1].name, f[1].type, f[1].enum, #f)
      for _, x in ipairs(verbs.fields("struct ibv_send_wr")) do
        if x.name == "rdma" then print(x.type, x.c, x.struct) end
      end
      for _, x in ipairs(verbs.fields("ibv_ah_attr")) do
        if x.name == "sl" or x.name == "is_global" then print(x.name, x.min, x.max, x.boolean) end
      end
      local e = verbs.enum("ibv_mtu")
      print(e.prefix, e.flags, e.values["1024"], table.concat(e.names, ","))
      print(select(2, pcall(verbs.fields, "ibv_qp_atr")))
      print(select(2, pcall(verbs.enum, "ibv_qp_stat")))
      print(select(2, pcall(function() return verbs.enums.ibv_qp_stat end)))
      print(select(2, pcall(verbs.enum, "ibv_qp_attr")))
      print(#verbs.fields() > 15)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "qp_state	enum	ibv_qp_state	26" ]
    [ "${lines[1]}" = "struct	wr.rdma	ibv_send_wr.wr.rdma" ]
    [ "${lines[2]}" = "sl	0	15	nil" ]
    [ "${lines[3]}" = "is_global	0	1	true" ]
    [ "${lines[4]}" = "IBV_MTU_	false	3	256,512,1024,2048,4096" ]
    [ "${lines[5]}" = "bad argument #1 to 'verbs.fields' (unknown C struct 'ibv_qp_atr'; did you mean 'ibv_qp_attr'? (verbs.fields() lists them))" ]
    [ "${lines[6]}" = "bad argument #1 to 'verbs.enum' (unknown C enum 'ibv_qp_stat'; did you mean 'ibv_qp_state'? (pairs(verbs.enums) lists them))" ]
    [ "${lines[7]}" = "(command line):14: verbs.enums has no enum 'ibv_qp_stat'; did you mean 'ibv_qp_state'?" ]
    [ "${lines[8]}" = "bad argument #1 to 'verbs.enum' (ibv_qp_attr is a struct, not an enum: verbs.fields(\"ibv_qp_attr\") gives its keys)" ]
    [ "${lines[9]}" = "true" ]
}

@test "verbs.enum and verbs.fields take C's \"enum \" and \"struct \" prefixes; a C type with a NUL byte, an enum asked of fields, and a name near nothing are refused as argument 1; verbs.enums[1] is nil" {
    run "$VERBSH" -e '
      local e = verbs.enum("enum ibv_mtu")
      print(e.ctype, e.prefix, e.values["4096"], #verbs.fields("struct ibv_qp_attr"))
      print(select(2, pcall(verbs.enum, "ibv_mtu\0x")))
      print(select(2, pcall(verbs.fields, "ibv_qp_attr\0x")))
      print(select(2, pcall(verbs.fields, "ibv_mtu")))
      print(select(2, pcall(verbs.fields, "zzzzzzzzzzzz")))
      print(select(2, pcall(verbs.enum, "zzzzzzzzzzzz")))
      print(verbs.enums[1], select(2, pcall(function() return verbs.enums.zzzzzzzzzzzzzz end)))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "ibv_mtu	IBV_MTU_	5	26" ]
    [ "${lines[1]}" = "bad argument #1 to 'verbs.enum' (C type: the string has a NUL byte after 'ibv_mtu' (C would stop reading there and ignore the rest))" ]
    [ "${lines[2]}" = "bad argument #1 to 'verbs.fields' (C type: the string has a NUL byte after 'ibv_qp_attr' (C would stop reading there and ignore the rest))" ]
    [ "${lines[3]}" = "bad argument #1 to 'verbs.fields' (ibv_mtu is an enum, not a struct: verbs.enum(\"ibv_mtu\") gives its names and values)" ]
    [ "${lines[4]}" = "bad argument #1 to 'verbs.fields' (unknown C struct 'zzzzzzzzzzzz' (verbs.fields() lists them))" ]
    [ "${lines[5]}" = "bad argument #1 to 'verbs.enum' (unknown C enum 'zzzzzzzzzzzz' (pairs(verbs.enums) lists them))" ]
    [ "${lines[6]}" = "nil	(command line):9: verbs.enums has no enum 'zzzzzzzzzzzzzz' (its keys are C type names: ibv_qp_state, ibv_access_flags, ...; pairs(verbs.enums) lists them)" ]
}

@test "help: every field of every verbs object (qp.qp_num, mr.rkey ...) says what it is" {
    run help_check '
      local n = 0
      for key, mt in pairs(debug.getregistry()) do
        local kind = type(key) == "string" and key:match("^verbs%.(.+)$")
        local fields = kind and type(mt) == "table" and rawget(mt, "__fields")
        for _, f in ipairs(type(fields) == "table" and fields or {}) do
          n = n + 1
          local t = H.text(f) or ""
          local at = t:find(("%s: field of a %s object (%s.%s)\n    "):format(f, kind, kind, f), 1, true)
          if not at then missing(kind .. "." .. f) end
        end
      end
      print(n)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" -gt 35 ]
    [ "${lines[1]}" = "none missing" ]
}

@test "help: every key of every struct the marshaller reads says what it means, under its type" {
    run "$VERBSH" -e '
      local missing, n = {}, 0
      for _, ctype in ipairs(verbs.fields()) do
        local text = require("verbs.help").text(ctype) or ""
        for _, f in ipairs(verbs.fields(ctype)) do
          n = n + 1
          -- "    key = its type" then an indented line of meaning (help_keys.lua)
          if not text:find("\n    " .. f.name .. " = [^\n]*\n        %S") then missing[#missing + 1] = ctype .. "." .. f.name end
        end
      end
      print(n > 100, table.concat(missing, " "))'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "true	" ]
}

# help_first NAME: the first line help "NAME" prints.
help_first() { "$VERBSH" -e "help '$1'" | head -n 1; }

@test "help: verbs.capture and each capture method by name, cap:NAME, C name and function, print(cap)" {
    sig='verbs.capture{device = "rxe1"} or verbs.capture{netdev = "veth1"}'
    [ "$(help_first capture)" = "$sig" ]
    [ "$(help_first verbs.capture)" = "$sig" ]
    [ "$(help_first pcap_create)" = "$sig" ]
    [ "$("$VERBSH" -e 'help(verbs.capture)' | head -n 1)" = "$sig" ]
    for m in 'stop:cap:stop()' 'packets:cap:packets()' 'info:cap:info()' 'posts:cap:posts()' \
             'save:cap:save(file)' 'filter:cap:filter{qp=, opcode=}' 'ladder:cap:ladder([notes])'; do
        name=${m%%:*} sig=${m#*:}
        for what in "$name" "cap:$name" "capture:$name" "cap.$name" "verbs.capture:$name"; do
            echo "help \"$what\": $(help_first "$what")"
            [ "$(help_first "$what")" = "$sig" ]
        done
        # by function, without a capture (that needs root): the class's method table
        run "$VERBSH" -e "help(debug.getregistry()['verbs.capture'].__index.$name)"
        [ "${lines[0]}" = "$sig" ]
        [[ ${lines[1]} == "    C: "* ]]
        [[ $output == *$'\n  example:\n    '* ]]
    done
    [ "$(help_first 'print(cap)')" = "print(cap) or tostring(cap)" ]
    [ "$(help_first pcap_dump)" = "cap:save(file)" ]
    [ "$(help_first pcap_dispatch)" = "cap:packets()" ]
    run "$VERBSH" -e 'help "stop"'
    [ "${lines[1]}" = "    C: pcap_dispatch(p, -1, cb, user) until 20 ms quiet; pcap_stats(p, &ps); pcap_close(p)  /* libpcap */" ]
    run "$VERBSH" -e 'help "save"'
    [[ ${lines[1]} == "    C: dead = pcap_open_dead(DLT_EN10MB, 65535); d = pcap_dump_open(dead, file); pcap_dump(d, &hdr, bytes)"* ]]
    # every method of the class, as the registry holds them, has its own entry
    run help_check '
      local n = 0
      for name in pairs(debug.getregistry()["verbs.capture"].__index) do
        n = n + 1
        has("capture:" .. name, "cap:" .. name, "\n    C: ", "\n  example:\n")
        if not (H.text("capture:" .. name) or ""):find("^cap:" .. name) then missing("capture:" .. name .. " (not first)") end
      end
      print(n)'
    echo "$output"
    [ "${lines[0]}" -ge 7 ]
    [ "${lines[1]}" = "none missing" ]
}

@test "help(cap) lists every method with its signature, and help \"NAME\" and help(cap.NAME) show that entry" {
    [ "$(id -u)" -eq 0 ] || skip "capturing needs root (CAP_NET_RAW)"
    run "$VERBSH" -e 'cap = verbs.capture{netdev = "lo"}; help(cap); local n = 0
      for _ in pairs(getmetatable(cap).__index) do n = n + 1 end; print("methods: " .. n)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "capture on lo (0 frames) -- methods:" ]
    [[ $output == *$'\n  print(cap) or tostring(cap)\n'* ]]
    [[ $output == *$'\n  help "NAME" shows a method with its C prototype, its keys and an example\n'* ]]
    # the listed methods: lines indented by two spaces (their meaning, by six);
    # a method without an entry is listed by its bare name and fails here
    mapfile -t listed < <(printf '%s\n' "${lines[@]:1}" | grep -E '^  [^ ]' | grep -vE '^  (help "NAME"|print\(cap\))')
    [ "${lines[-1]}" = "methods: ${#listed[@]}" ]
    [ "${#listed[@]}" -ge 7 ]
    for sig in "${listed[@]}"; do
        sig=${sig#  }
        name=$(echo "$sig" | sed -nE 's/^cap:([a-z_]+)[({].*/\1/p')
        echo "listed: $sig -> ${name:-(no entry)}"
        [ -n "$name" ]
        [ "$(help_first "$name")" = "$sig" ]
        [ "$(help_first "cap:$name")" = "$sig" ]
        [ "$("$VERBSH" -e "cap = verbs.capture{netdev = 'lo'}; help(cap.$name)" | head -n 1)" = "$sig" ]
    done
}

@test "help: verbs.wire and each of its functions by name, verbs.wire.NAME and function; oob.NAME is not wire's" {
    [ "$(help_first verbs.wire)" = "verbs.wire" ]
    [ "$(help_first wire)" = "verbs.wire" ]
    [ "$("$VERBSH" -e 'help(verbs.wire)' | head -n 1)" = "verbs.wire" ]
    for m in 'decode:verbs.wire.decode(bytes)' 'read_pcap:verbs.wire.read_pcap(file)' \
             'attribute:verbs.wire.attribute(list, posts)' 'crc32:verbs.wire.crc32(s)' \
             'opcodes:verbs.wire.opcodes[n]' 'ladder:verbs.wire.ladder(list_or_cap [, notes])' \
             'filter:verbs.wire.filter(list_or_cap, {qp=, opcode=})' 'show:verbs.wire.show(cap)' \
             'frames:verbs.wire.frames(file)'; do
        name=${m%%:*} sig=${m#*:}
        for what in "verbs.wire.$name" "wire.$name"; do
            echo "help \"$what\": $(help_first "$what")"
            [ "$(help_first "$what")" = "$sig" ]
        done
        [ "$("$VERBSH" -e "help(verbs.wire.$name)" | head -n 1)" = "$sig" ]
        "$VERBSH" -e "help '$name'" | grep -qxF "$sig"
    done
    [ "$(help_first decode)" = "verbs.wire.decode(bytes)" ]
    [ "$(help_first read_pcap)" = "verbs.wire.read_pcap(file)" ]
    [ "$(help_first attribute)" = "verbs.wire.attribute(list, posts)" ]
    # a name the capture shares with verbs.wire gives both, the method first
    run "$VERBSH" -e 'help "filter"'
    [ "${lines[0]}" = "cap:filter{qp=, opcode=}" ]
    [[ $output == *$'\nverbs.wire.filter(list_or_cap, {qp=, opcode=})\n'* ]]
    run "$VERBSH" -e 'help "ladder"'
    [ "${lines[0]}" = "cap:ladder([notes])" ]
    [[ $output == *$'\nverbs.wire.ladder(list_or_cap [, notes])\n'* ]]
    # every function (and table) verbs.wire exports has an entry
    run help_check '
      local n = 0
      for name in pairs(verbs.wire) do
        n = n + 1
        has("wire." .. name, "\n    C: ", "\n  example:\n")
        if not (H.text("wire." .. name) or ""):find("^verbs%.wire%." .. name) then missing("wire." .. name .. " (not first)") end
      end
      print(n)'
    echo "$output"
    [ "${lines[0]}" -ge 8 ]
    [ "${lines[1]}" = "none missing" ]
    # a name under another module is not taken for verbs.wire's
    [ "$(help_first oob.decode)" = 'no help for "oob.decode"' ]
    [ "$("$VERBSH" -e 'help(verbs.oob.listen)' | head -n 1)" = "verbs.oob.listen(port [, addr])" ]
}

@test "help(f) of a lesson kit helper, given as the function itself, is that helper's help (lesson.kit.u64), not the overview's refusal; without a lesson it is no verbs object" {
    run "$VERBSH" -e 'lesson = { kit = require "verbs.lesson_kit" }; help(lesson.kit.u64); help(lesson.kit.gid_ipv4)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "lesson.kit.u64(mr, offset)" ]
    [ "${lines[1]}" = "    the 64-bit word at offset in mr, in host order (atomics)" ]
    [ "${lines[4]}" = "lesson.kit.gid_ipv4(gid_text)" ]
    run "$VERBSH" -e 'help(require("verbs.lesson_kit").u64)'
    [ "$status" -eq 0 ]
    [[ $output == "function: 0x"*" is not a verbs object; help() gives the overview" ]]
}

@test "help of an unknown name: the close names sorted, all when they are 12 or fewer (10 for ibv_qp_), else the first 12 and ... (qp_ has more)" {
    run "$VERBSH" -e 'help "ibv_qp_"; help "qp_"'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = 'no help for "ibv_qp_"; try ibv_qp_attr, ibv_qp_attr_mask, ibv_qp_cap, ibv_qp_create_flags, ibv_qp_create_send_ops_flags, ibv_qp_init_attr, ibv_qp_init_attr_ex, ibv_qp_init_attr_mask, ibv_qp_state, ibv_qp_type' ]
    [ "${lines[1]}" = 'no help for "qp_"; try CURR_QP_STATE_MOD, LOC_QP_OP_ERR, MAX_QP_RD_ATOMIC, QP_ACCESS_ERR, QP_FATAL, QP_LAST_WQE_REACHED, QP_NUM, QP_REQ_ERR, ai_qp_type, cm_id:create_qp_ex, create_qp_ex, cur_qp_state, ...' ]
    [ "${#lines[@]}" -eq 2 ]
}

# (a random mutant wrote the "gives" line over the one before it: out[#out + 0])
@test "help of a method that returns a struct: its meaning, then the struct it gives, each on its own line" {
    run "$VERBSH" -e 'help "query_port"'
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "ctx:query_port([port])" ]
    [ "${lines[2]}" = "    state, MTUs, link layer, GID table length" ]
    [ "${lines[3]}" = "  gives a table of struct ibv_port_attr:" ]
    [[ ${lines[4]} == "    state = a name of enum ibv_port_state: "* ]]
    run "$VERBSH" -e 'help "poll"'
    [ "${lines[2]}" = "    take up to max completions now (an empty list when there is none)" ]
    [ "${lines[3]}" = "  gives a list of completions, each a copy of struct ibv_wc:" ]
}

@test "help(v) of a value that is no verbs object (a number, a boolean, a plain table) says so, prints nothing else and returns nothing" {
    run "$VERBSH" -e 'print(select("#", help(42.5))); print(select("#", help(true))); local t = setmetatable({}, { __tostring = function() return "a plain table" end }); help(t)'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "42.5 is not a verbs object; help() gives the overview" ]
    [ "${lines[1]}" = 0 ]
    [ "${lines[2]}" = "true is not a verbs object; help() gives the overview" ]
    [ "${lines[3]}" = 0 ]
    [ "${lines[4]}" = "a plain table is not a verbs object; help() gives the overview" ]
    [ "${#lines[@]}" -eq 5 ]
}

@test "help(verbs), the module itself, prints the overview, as help() does (not that a table is no verbs object)" {
    run "$VERBSH" -e 'help()'
    [ "$status" -eq 0 ]
    local overview=$output
    [[ ${lines[0]} == "verbsh: the RDMA verbs of libibverbs, in Lua. Every name follows C:" ]]
    run "$VERBSH" -e 'help(verbs)'
    [ "$status" -eq 0 ]
    [ "$output" = "$overview" ]
}

@test "help(a struct): a struct it holds twice (ibv_qp_attr's ah_attr and alt_ah_attr, both ibv_ah_attr) has its keys listed at the first and '(its keys as listed above)' at the second" {
    run "$VERBSH" -e 'help("ibv_qp_attr")'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$(grep -c '^            sgid_index = integer 0..255$' <<<"$output")" -eq 1 ]
    [ "$(grep -A2 '^    alt_ah_attr = ' <<<"$output" | tail -1)" = "        (its keys as listed above)" ]
    [ "$(grep -c '(its keys as listed above)' <<<"$output")" -eq 1 ]
}

@test "help(a key): the key's struct and type, then its meaning on the next line, then a struct key's own keys (alt_ah_attr, dest_qp_num)" {
    run "$VERBSH" -e 'help("alt_ah_attr")'
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "alt_ah_attr: key of ibv_qp_attr (id:init_qp_attr, qp:modify, qp:query): a table (C: alt_ah_attr): { grh, dlid, sl, src_path_bits, static_rate, is_global, port_num }" ]
    [ "${lines[1]}" = "    the alternate path's address (automatic path migration)" ]
    [ "${lines[2]}" = "    grh = a table (C: grh): { dgid, flow_label, sgid_index, hop_limit, traffic_class }" ]
    run "$VERBSH" -e 'help("dest_qp_num")'
    [ "${lines[0]}" = "dest_qp_num: key of ibv_qp_attr (id:init_qp_attr, qp:modify, qp:query): integer 0..0xffffff" ]
    [ "${lines[1]}" = "    the peer QP's qp_num, at RTR (RC, UC)" ]
}

@test "help works the same with the global verbs gone (verbs = nil at the prompt): it falls back on require 'verbs'" {
    run "$VERBSH" -e 'help("qp_state"); help("ibv_wc_status")'
    [ "$status" -eq 0 ]
    local with=$output
    [[ $with == *"qp_state"* && $with == *"RNR_RETRY_EXC_ERR"* ]]
    run "$VERBSH" -e 'verbs = nil; help("qp_state"); help("ibv_wc_status")'
    [ "$status" -eq 0 ]
    [ "$output" = "$with" ]
}
