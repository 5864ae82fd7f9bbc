-- Tests of the pure-Lua helpers and the device-free Go modules, run by
-- stdlib's Go tests through luatest.
local assert = require("assert")
local json, re, time, log = require("json"), require("re"), require("time"), require("log")

function TestAssertEqAndTruthy(t)
  t:eq(assert.eq({ 1, { a = "b" } }, { 1, { a = "b" } }), { 1, { a = "b" } })
  local ok, err = pcall(assert.eq, { a = 1 }, { a = 2 }, "table")
  t:ok(not ok)
  t:ok(err:find('table: assert.eq: expected {a = 2}, got {a = 1}', 1, true), err)
  ok, err = pcall(assert.truthy, false, "flag")
  t:ok(err:find("flag: assert.truthy: got false", 1, true), err)
  t:eq(assert.truthy("x"), "x")
  t:eq(select("#", assert(1, 2, 3)), 3, "callable assert returns its arguments")
  ok, err = pcall(assert, nil, "callable")
  t:ok(not ok and err:find("callable", 1, true), err)
  t:eq(assert.repr({ "a", k = { 1 }, [10] = true }), '{"a", [10] = true, k = {1}}')
end

function TestJSON(t)
  t:eq(json.encode({ 1, 2, "x" }), '[1,2,"x"]')
  t:eq(json.encode({ b = 1, a = { true, false }, c = "<&>" }), '{"a":[true,false],"b":1,"c":"<&>"}')
  t:eq(json.encode({}), "{}")
  t:eq(json.encode(1.5), "1.5")
  t:eq(json.encode({ a = 1 }, { indent = true }), '{\n  "a": 1\n}')
  local v = json.decode('{"a": [1, 2.5, "x", null, {"b": false}]}')
  t:eq(v.a[1], 1)
  t:eq(v.a[2], 2.5)
  t:eq(v.a[5].b, false)
  local cyc = {}
  cyc.self = cyc
  local s, err = json.encode(cyc)
  t:eq(s, nil)
  t:ok(err:find("json.encode: $.self refers back", 1, true), err)
  s, err = json.encode({ f = print })
  t:ok(err:find("cannot encode a function at $.f", 1, true), err)
  s, err = json.encode(0 / 0)
  t:ok(err:find("JSON cannot represent", 1, true), err)
  v, err = json.decode('{"a": 1,\n "b": }')
  t:eq(v, nil)
  t:ok(err:find("line 2, column 7", 1, true), err)
  -- columns count characters, not bytes ("é" is two bytes)
  v, err = json.decode('{"é": 1,\n "ü": }')
  t:ok(err:find("line 2, column 7", 1, true), err)
  v, err = json.decode('{"a": 1')
  t:ok(err:find("unexpected end of input", 1, true), err)
  v, err = json.decode('1 2')
  t:ok(err:find("unexpected data after the value", 1, true), err)
  v, err = json.decode('')
  t:ok(err:find("empty input", 1, true), err)
end

-- Hostile inputs end with an error naming the limit, at bounded cost: deep
-- nesting used to cost depth² memory, a repeated large string gigabytes.
function TestJSONLimits(t)
  local deep = {}
  local cur = deep
  for _ = 1, 5000 do cur.a = {} cur = cur.a end
  local s, err = json.encode(deep)
  t:eq(s, nil)
  t:ok(err:find("nests deeper than 200 levels", 1, true), err)
  local big = string.rep("x", 1000000)
  local many = {}
  for i = 1, 100 do many[i] = big end
  s, err = json.encode(many)
  t:eq(s, nil)
  t:ok(err:find("json.encode: result exceeds the string size limit of 16777216 bytes", 1, true), err)
end

function TestRe(t)
  t:eq(re.match([[^\d+$]], "123"), true)
  t:eq(re.match([[^\d+$]], "12a"), false)
  t:eq({ re.find([[(\w+)@(\w+)?\.com]], "mail ada@.com now") }, { "ada@.com", "ada" })
  t:eq(re.find("x", "abc"), nil)
  t:eq({ re.gsub([[(\d+)]], "a1b22", "<$1>") }, { "a<1>b<22>", 2 })
  t:eq({ re.gsub([[\d]], "a1b2", function(d) return tostring(d * 2) end) }, { "a2b4", 2 })
  t:eq(re.gsub("b", "abc", function() return nil end), "abc")
  t:eq({ re.gsub([[(?P<w>\w+)]], "a bc", "<${w}>") }, { "<a> <bc>", 2 })
  t:eq({ re.gsub("x*", "abc", "-") }, { "-a-b-c-", 4 }, "empty matches as Go's ReplaceAllString")
  t:eq({ re.gsub("z", "abc", "-") }, { "abc", 0 })
  local ok, err = pcall(re.match, "(", "x")
  t:ok(not ok)
  t:ok(err:find('re.match: invalid pattern "("', 1, true), err)
end

function TestTimeAndLog(t)
  local a = time.now_ms()
  t:ok(a > 1.6e12, "now_ms is Unix milliseconds")
  t:eq(time.iso(0), "1970-01-01T00:00:00.000Z")
  t:ok(time.iso():match("^%d%d%d%d%-%d%d%-%d%dT"), time.iso())
  log.info("hello", "count", 3)
  log.debug("odd", 1, 2, 3)
  log.warn("w")
  log.error("e")
end

function TestSessionlessDeviceRaises(t)
  local ok, err = pcall(require("device").tap, 1, 2)
  t:ok(not ok)
  t:ok(err:find("device.tap: no engine session is bound to this VM", 1, true), err)
end
