#!/usr/bin/env bats
# Issue 19 item 2 without a device: the metatables of every verbs class are
# in the registry, and each metamethod checks its self before reading it (for
# a class with live fields, __index is the object's methods table, and the
# function that reads the fields is its metatable's __index).
load ../helpers

@test "each class's __gc, __close, __tostring, __index and __newindex called by hand on a number, a table or another class's userdata -> an error naming the class" {
    run "$VERBSH" -e '
      local reg = debug.getregistry()
      local wr = verbs.send_wr{ opcode = "SEND" }
      local n = 0
      for _, cls in ipairs{ "context", "pd", "mr", "cq", "comp_channel", "qp", "ah", "srq", "cm_channel", "cm_id", "cm_event" } do
        local mt = reg["verbs." .. cls]
        for _, mm in ipairs{ "__gc", "__close", "__tostring", "__index", "__newindex" } do
          if type(mt[mm]) == "function" then
            for _, bad in ipairs{ 5, {}, wr } do
              local ok, e = pcall(mt[mm], bad, "x")
              local want = ("%s of verbs.%s: self must be a verbs.%s, got %s"):format(mm, cls, cls,
                type(bad) == "userdata" and "verbs.send_wr" or type(bad))
              if ok or not tostring(e):find(want, 1, true) then print("FAIL", mm, cls, ok, e) end
              n = n + 1
            end
          end
        end
        -- a class with live fields: its objects index their own methods
        -- table, whose metatable (__fields_meta) reads the fields
        local fm = rawget(mt, "__fields_meta")
        if fm then
          for _, bad in ipairs{ 5, {}, wr } do
            local ok, e = pcall(fm.__index, bad, "x")
            local want = ("__index of verbs.%s\x27s methods: a table of a %s\x27s own methods expected, got %s"):format(
              cls, cls, type(bad) == "userdata" and "verbs.send_wr" or type(bad))
            if ok or not tostring(e):find(want, 1, true) then print("FAIL", "fields __index", cls, ok, e) end
            n = n + 1
          end
        else
          -- a class without: the __index of its methods table, called by hand
          -- with a key that is no name, gives one nil, as an index does
          local r = table.pack(getmetatable(mt.__index).__index(mt.__index, 7))
          if r.n ~= 1 or r[1] ~= nil then print("FAIL", "methods __index(7)", cls, r.n, r[1]) end
          n = n + 1
        end
      end
      print("checked", n)'
    echo "$output"
    [ "$status" -eq 0 ]
    [[ $output != *FAIL* ]]
    [ "$output" = "checked	129" ]
}
