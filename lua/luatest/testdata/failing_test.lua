function TestFails(t)
  t:eq(1 + 1, 3, "math is broken")
  t:ok(false, "falsy")
  t:fatal("stop here")
  t:error("unreachable")
end

function TestRaises(t)
  local x = nil
  return x.field
end
