-- assert: assertions that raise (they are a test's verdict). The module
-- table is callable like Lua's assert. Failure messages name the selector
-- and what the screen showed (ui's error text carries the visible labels).
local M = {}

-- Error levels: gopher-lua counts the frame of `error` itself, so the
-- caller of an assert function is level 3 (PUC Lua's 2), and the caller
-- of the function calling check_opts is level 4.
local CALLER = 3

local function check_opts(fn, opts, valid)
  if opts == nil then return {} end
  if type(opts) ~= "table" then
    error(string.format("%s: options table expected, got %s", fn, type(opts)), CALLER + 1)
  end
  for k in pairs(opts) do
    if not valid[k] then
      local names = {}
      for n in pairs(valid) do names[#names + 1] = n end
      table.sort(names)
      error(string.format("%s: unknown option %q (valid: %s)", fn, tostring(k), table.concat(names, ", ")), CALLER + 1)
    end
  end
  return opts
end

local function prefix(message)
  if message ~= nil and message ~= "" then return tostring(message) .. ": " end
  return ""
end

-- repr renders a value for messages: strings quoted, tables as
-- {k = v, ...} in key order, shallow beyond depth 3.
local function repr(v, depth)
  depth = depth or 0
  local t = type(v)
  if t == "string" then return string.format("%q", v) end
  if t ~= "table" then return tostring(v) end
  if depth >= 3 then return "{…}" end
  local n, parts = 0, {}
  while v[n + 1] ~= nil do n = n + 1 end
  for i = 1, n do parts[#parts + 1] = repr(v[i], depth + 1) end
  local keys = {}
  for k in pairs(v) do
    if not (type(k) == "number" and k >= 1 and k <= n and k == math.floor(k)) then keys[#keys + 1] = k end
  end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for _, k in ipairs(keys) do
    local ks = type(k) == "string" and k:match("^[%a_][%w_]*$") and k or "[" .. repr(k, depth + 1) .. "]"
    parts[#parts + 1] = ks .. " = " .. repr(v[k], depth + 1)
  end
  return "{" .. table.concat(parts, ", ") .. "}"
end
M.repr = repr

local function deep_eq(a, b, seen)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return false end
  seen = seen or {}
  if seen[a] == b then return true end
  seen[a] = b
  for k, v in pairs(a) do
    if not deep_eq(v, b[k], seen) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end

local function ui() return require("ui") end

local function selstr(sel)
  if type(sel) == "string" then return string.format("text=%q", sel) end
  return tostring(ui().sel(sel))
end

-- assert.visible(sel, {timeout_ms, message}) → element.
function M.visible(sel, opts)
  opts = check_opts("assert.visible", opts, { timeout_ms = true, message = true })
  local el, err = ui().wait(sel, { timeout_ms = opts.timeout_ms })
  if not el then
    error(prefix(opts.message) .. "assert.visible: " .. selstr(sel) .. " is not visible (" .. tostring(err) .. ")", CALLER)
  end
  return el
end

-- assert.not_visible(sel, {timeout_ms, message}) → true.
function M.not_visible(sel, opts)
  opts = check_opts("assert.not_visible", opts, { timeout_ms = true, message = true })
  local ok, err = ui().wait_gone(sel, { timeout_ms = opts.timeout_ms })
  if not ok then
    error(prefix(opts.message) .. "assert.not_visible: " .. selstr(sel) .. " is " .. tostring(err), CALLER)
  end
  return true
end

-- assert.eq(actual, expected, message): deep equality for tables.
function M.eq(actual, expected, message)
  if not deep_eq(actual, expected) then
    error(prefix(message) .. "assert.eq: expected " .. repr(expected) .. ", got " .. repr(actual), CALLER)
  end
  return actual
end

-- assert.truthy(v, message) → v.
function M.truthy(v, message)
  if not v then
    error(prefix(message) .. "assert.truthy: got " .. repr(v), CALLER)
  end
  return v
end

-- assert.text(sel, expected, {timeout_ms, message}): the element's text
-- equals expected (polling until it does or the timeout ends; the ui
-- module's default timeout when none is given, like the other finds).
function M.text(sel, expected, opts)
  opts = check_opts("assert.text", opts, { timeout_ms = true, message = true })
  if type(expected) ~= "string" then
    error("assert.text: expected text must be a string, got " .. type(expected), CALLER)
  end
  local u = ui()
  local last, lasterr
  local found = require("wait")["until"](function()
    local txt, err = u.text(sel, { timeout_ms = 0 })
    last, lasterr = txt, err
    return txt == expected
  end, { timeout_ms = opts.timeout_ms or u.default_timeout(), interval_ms = 150 })
  if not found then
    if last == nil then
      error(prefix(opts.message) .. "assert.text: " .. selstr(sel) .. ": expected " .. repr(expected) .. " but " .. tostring(lasterr), CALLER)
    end
    error(prefix(opts.message) .. "assert.text: " .. selstr(sel) .. ": expected " .. repr(expected) .. ", got " .. repr(last), CALLER)
  end
  return true
end

return setmetatable(M, {
  __call = function(_, ...)
    local v, message = ...
    if not v then
      error(message or "assertion failed!", CALLER)
    end
    return ... -- exactly its arguments, like the builtin
  end,
})
