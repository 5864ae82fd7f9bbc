local strings = require "strings"

function TestSplit(t)
  t:eq(strings.split("a,b,c", ","), {"a", "b", "c"}, "split on commas")
  t:eq(strings.split("", ","), {}, "empty input")
end

function TestTrim(t)
  t:eq(strings.trim("  x  "), "x")
  t:ok(strings.trim("") == "", "empty stays empty")
  t:log("trim ok")
end

function TestSkipped(t)
  t:skip("not on this device")
  t:error("unreachable")
end

-- Not a test: lowercase, or not a function.
function helper() end
TestNotAFunction = 1
