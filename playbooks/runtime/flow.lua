-- flow: the runtime of compiled playbooks.
--
-- Generated code calls flow.run(meta, fn, overrides) once; fn(params)
-- returns {watchers, on_start, steps, on_complete, on_failure}. Every step
-- is flow.step(info, body): it runs the watchers, emits step_start /
-- step_end events and turns a failure into an error whose message starts
-- with the YAML position of the step ("demo.yaml:12: tap \"Save\": ...").
-- Actions return nil, err on operational failures; flow.must turns that
-- into a step failure.
local flow = {}

-- A step body returns flow.SKIPPED when it did nothing (an if without a
-- matching branch).
flow.SKIPPED = setmetatable({}, {__tostring = function() return "skipped" end})

-- A step body returns flow.warned(msg) when it ran but checked nothing
-- (assert_screenshot recording its reference, a placeholder for a command
-- that does not convert): the step is "warned" with msg, never "passed".
-- flow.skipped(msg) is the same for a step that did not run at all (a
-- converted command with no playbook equivalent): "skipped" with msg.
local warned_mt = {__tostring = function(w) return w.status .. ": " .. w.msg end}
function flow.warned(msg) return setmetatable({msg = msg, status = "warned"}, warned_mt) end
function flow.skipped(msg) return setmetatable({msg = msg, status = "skipped"}, warned_mt) end
-- flow.note(msg) is a step that passed with something the report should
-- say (an AI step the model re-resolved); nil or "" is a plain pass.
function flow.note(msg)
  if msg == nil or msg == "" then return nil end
  return setmetatable({msg = msg, status = "passed"}, warned_mt)
end

local M = {}          -- lazily required modules (nil when not registered)
local loaded = {}

local function mod(name)
  if not loaded[name] then
    loaded[name] = true
    local ok, m = pcall(require, name)
    if ok then M[name] = m end
  end
  return M[name]
end

local state = {
  depth = 0,          -- nesting depth of the running step
  watchers = {},      -- active watchers, outer flows first
  in_watcher = false,
  prefix = nil,       -- id prefix inside included playbooks ("5" → "5.1")
  secrets = {},       -- strings masked in messages
  nsecrets = 0,
  raised = nil,       -- the last positioned failure message
}

-- The hot path (flow.step) uses these, bound once by flow.run.
local now_ms, emit_fn
local step_events = {} -- depth → {start, finish}: reused event fields

local function now()
  if now_ms then return now_ms() end
  return 0
end

local function emit(kind, fields)
  if emit_fn then emit_fn(kind, fields) end
end

local function bind_hot()
  local t, ev = mod("time"), mod("events")
  now_ms = t and t.now_ms or nil
  emit_fn = ev and ev.emit or nil
end

local function escape_pattern(s)
  return (s:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0"))
end

-- redact masks secret values (secret params, secret input) in a message.
local function redact(msg)
  if state.nsecrets == 0 then return msg end
  for s in pairs(state.secrets) do
    msg = msg:gsub(escape_pattern(s), "•••")
  end
  return msg
end
flow.redact = redact

-- flow.secret(v) marks v as secret and returns it.
function flow.secret(v)
  if type(v) == "string" and #v > 0 and not state.secrets[v] then
    state.secrets[v] = true
    state.nsecrets = state.nsecrets + 1
  end
  return v
end

-- flow.fail(msg) fails the current step.
function flow.fail(msg)
  error(tostring(msg), 0)
end

-- flow.must(v, err, ...) returns its arguments unless v is nil and err is
-- set (the nil, err convention), which fails the step with err.
function flow.must(v, err, ...)
  if v == nil and err ~= nil then
    error(tostring(err), 0)
  end
  return v, err, ...
end

-- flow.str(v, src) is tostring for ${expr} interpolation; nil fails.
function flow.str(v, src)
  if v == nil then
    error((src or "value") .. " is nil", 0)
  end
  return tostring(v)
end

-- flow.int(v, src) converts an ${expr} to an integer or fails.
function flow.int(v, src)
  local n = tonumber(v)
  if n == nil or n ~= math.floor(n) then
    error(string.format("%s must be an integer, got %s", src or "value", tostring(v)), 0)
  end
  return n
end

-- flow.list(v) accepts a table, a JSON array string or "a, b, c".
function flow.list(v)
  if type(v) == "table" then return v end
  if v == nil then error("for_each: the list is nil", 0) end
  local s = tostring(v)
  if s:match("^%s*%[") then
    local json = mod("json")
    if json then
      local ok, t = pcall(json.decode, s)
      if ok and type(t) == "table" then return t end
    end
    error("for_each: invalid JSON list: " .. s, 0)
  end
  local out = {}
  for item in s:gmatch("[^,]+") do
    item = item:match("^%s*(.-)%s*$")
    if item ~= "" then out[#out + 1] = item end
  end
  return out
end

local function describe(sel)
  if type(sel) == "string" then return string.format("%q", sel) end
  if type(sel) ~= "table" then return tostring(sel) end
  local keys = {}
  for k in pairs(sel) do keys[#keys + 1] = tostring(k) end
  table.sort(keys)
  local parts = {}
  for _, k in ipairs(keys) do
    local v = sel[k]
    if type(v) == "table" then v = "(" .. describe(v) .. ")" elseif type(v) == "string" then v = string.format("%q", v) end
    parts[#parts + 1] = k .. "=" .. tostring(v)
  end
  return table.concat(parts, " ")
end
flow.describe = describe

-- Watchers -----------------------------------------------------------------

local function check_watchers()
  if state.in_watcher or #state.watchers == 0 then return end
  local ui = mod("ui")
  for _, w in ipairs(state.watchers) do
    if w.hits < w.max_hits and ui.exists(w.when) then
      w.hits = w.hits + 1
      local log = mod("log")
      if log then log.info(string.format("%s:%d: watcher %s fired (%d/%d)", w.file, w.line, w.label, w.hits, w.max_hits)) end
      state.in_watcher = true
      local saved = state.prefix
      state.prefix = w.prefix
      local ok, err = pcall(w.run)
      state.prefix = saved
      state.in_watcher = false
      if not ok then error(err, 0) end
    end
  end
end
flow.check_watchers = check_watchers

-- Steps ----------------------------------------------------------------------

local function position(info, label, err)
  if type(err) ~= "string" then err = tostring(err) end
  if err == state.raised then return err end -- already names a (nested) step
  err = err:gsub("^[^\n]-:%d+: ", "", 1)     -- drop the generated Lua position
  return redact(info.file .. ":" .. info.line .. ": " .. label .. ": " .. err)
end

-- flow.label_value(v, src) renders one ${expr} of a step label; unlike
-- flow.str a nil shows the expression instead of failing.
function flow.label_value(v, src)
  if v == nil then return src end
  return tostring(v)
end

-- flow.step(info, fn, label_fn) runs one step: info = {id, label, file,
-- line, optional, timeout_ms, secret} is static (the generated code builds
-- each once per run); label_fn, when the label has ${expr}, renders it
-- with the current values (a failure keeps info.label).
function flow.step(info, fn, label_fn)
  local st = state
  if not st.in_watcher and st.watchers[1] ~= nil then
    check_watchers()
  end
  local label = info.label
  if label_fn then
    local ok, l = pcall(label_fn)
    if ok and l ~= nil then label = redact(tostring(l)) end
  end
  local id = info.id
  if st.prefix then id = st.prefix .. "." .. id end
  local depth = st.depth
  local emit, now = emit_fn, now_ms or now
  -- Building a table with string keys costs more than the rest of the
  -- step, so each depth reuses its step_start and step_end tables:
  -- events.emit converts the fields when called and keeps nothing (nested
  -- steps and watchers run one depth deeper). Fields are only ever
  -- overwritten, never cleared, except error.
  local ev = step_events[depth]
  if emit then
    if ev == nil then
      ev = {start = {}, finish = {}}
      step_events[depth] = ev
    end
    local e = ev.start
    e.id, e.label, e.file, e.line, e.depth = id, label, info.file, info.line, depth
    emit("step_start", e)
  end
  local t0 = now()
  st.depth = depth + 1
  local prev_id, prev_info = st.cur_id, st.cur_info
  st.cur_id, st.cur_info = id, info
  local ok, res = pcall(fn)
  st.cur_id, st.cur_info = prev_id, prev_info
  st.depth = depth
  local status, msg, note
  if ok then
    if res == flow.SKIPPED then
      status = "skipped"
    elseif type(res) == "table" and getmetatable(res) == warned_mt and res.status == "passed" then
      status, note = "passed", redact(res.msg)
    elseif type(res) == "table" and getmetatable(res) == warned_mt then
      status, msg = res.status, position(info, label, res.msg)
    else
      status = "passed"
    end
  else
    msg = position(info, label, res)
    status = info.optional and "warned" or "failed"
  end
  if emit then
    local e = ev.finish
    e.id, e.label, e.file, e.line, e.depth = id, label, info.file, info.line, depth
    e.status, e.duration_ms, e.ui = status, now() - t0, info.ui == true
    if e.error ~= msg then e.error = msg end
    if e.note ~= note then e.note = note end
    emit("step_end", e)
  end
  if ok then
    if status == "warned" then
      local log = mod("log")
      if log then log.warn(msg) end
    end
    return
  end
  if info.optional then
    local log = mod("log")
    if log then log.warn("optional step failed: " .. msg) end
    return
  end
  state.raised = msg
  error(msg, 0)
end

-- flow.current() is the step running now: {id, file, line, depth} (an
-- agent: step reports its own steps one level under it).
function flow.current()
  local info = state.cur_info
  if not info then return nil end
  return {id = state.cur_id, file = info.file, line = info.line, depth = state.depth - 1}
end

-- Conditions and helpers ------------------------------------------------------

function flow.visible(sel, ms)
  local ui = mod("ui")
  if ms and ms > 0 then return ui.wait(sel, {timeout_ms = ms}) ~= nil end
  return ui.exists(sel) and true or false
end

function flow.gone(sel, ms)
  local ui = mod("ui")
  if ms and ms > 0 then return ui.wait_gone(sel, {timeout_ms = ms}) == true end
  return not ui.exists(sel)
end

-- flow.erase(n) deletes n characters before the cursor (after moving it to
-- the end) with one shell round trip.
function flow.erase(n)
  n = flow.int(n, "erase")
  if n <= 0 then return end
  local out, code = flow.must(mod("device").shell("input keyevent 123" .. string.rep(" 67", n)))
  if code ~= nil and code ~= 0 then flow.fail("erase failed: " .. tostring(out)) end
end

-- flow.clear(el) erases the text of a just-tapped field.
function flow.clear(el)
  local t = type(el) == "table" and el.text or ""
  if type(t) == "string" and #t > 0 then
    local n = 0
    for _ in t:gmatch("[^\128-\191]") do n = n + 1 end
    flow.erase(n)
  end
  return el
end

-- flow.swipe(direction, from, opts): the finger moves in direction; from is
-- nil (screen center), a point {x, y, pct} or a selector.
function flow.swipe(dir, from, opts)
  local device = mod("device")
  local w, h = device.size()
  local x, y
  if from == nil then
    x, y = w / 2, h / 2
  elseif type(from) == "table" and from.pct ~= nil and from.x ~= nil then
    if from.pct then x, y = w * from.x / 100, h * from.y / 100 else x, y = from.x, from.y end
  else
    local el = flow.must(mod("ui").find(from, {timeout_ms = opts.timeout_ms}))
    x, y = el.center.x, el.center.y
  end
  local dx, dy = 0, 0
  if dir == "up" then dy = -0.4 * h elseif dir == "down" then dy = 0.4 * h
  elseif dir == "left" then dx = -0.4 * w elseif dir == "right" then dx = 0.4 * w
  else flow.fail("swipe: unknown direction " .. tostring(dir)) end
  if from == nil then x, y = x - dx / 2, y - dy / 2 end
  local function clamp(v, hi) return math.floor(math.max(1, math.min(hi - 2, v))) end
  return flow.must(device.swipe(clamp(x, w), clamp(y, h), clamp(x + dx, w), clamp(y + dy, h), {duration_ms = opts.duration_ms}))
end

-- flow.tap(sel, opts, retries) taps and, while the screen did not change,
-- taps again up to retries times (defaults.tap_retry).
function flow.tap(sel, opts, retries)
  local ui = mod("ui")
  local screen = mod("screen")
  local function sig()
    if not screen then return nil end
    local snap = screen.capture({fresh = true})
    return snap and snap.hash
  end
  local before = sig()
  local el = flow.must(ui.tap(sel, opts))
  if before == nil then return el end
  for _ = 1, retries do
    local wait = mod("wait")
    if wait then wait.idle({timeout_ms = 1000}) end
    if sig() ~= before then return el end
    el = flow.must(ui.tap(sel, opts))
  end
  return el
end

-- flow.assert_text(sel, mode, value, opts): mode is expected, contains or
-- regex; polls until it holds or opts.timeout_ms passes.
function flow.assert_text(sel, mode, value, opts)
  local ui, wait = mod("ui"), mod("wait")
  local last
  local function check()
    local t = ui.text(sel, {timeout_ms = 0})
    last = t
    if t == nil then return false end
    if mode == "expected" then return t == value end
    if mode == "contains" then return string.find(t, value, 1, true) ~= nil end
    return mod("re").match(value, t)
  end
  local ok = check()
  if not ok and wait and (opts.timeout_ms or 0) > 0 then
    ok = wait["until"](check, {timeout_ms = opts.timeout_ms})
  end
  if not ok then
    local verb = ({expected = "to be", contains = "to contain", regex = "to match"})[mode]
    local got = last == nil and "no such element" or string.format("%q", last)
    flow.fail(opts.message or string.format("expected text of %s %s %q, got %s", describe(sel), verb, value, got))
  end
end

function flow.screenshot(name)
  local screen = mod("screen")
  if not screen then flow.fail("screenshot: the screen module is not available") end
  if not name:match("%.png$") then name = name .. ".png" end
  local snap = flow.must(screen.capture({fresh = true}))
  return flow.must(snap:save(name))
end

function flow.expect_exit(out, code, want)
  if code ~= want then
    local text = tostring(out or ""):gsub("%s+$", "")
    if #text > 300 then text = text:sub(1, 300) .. "…" end
    flow.fail(string.format("exit code %s, expected %d: %s", tostring(code), want, text))
  end
end

-- flow.retry(max, fn) runs fn until it passes, at most max times.
function flow.retry(max, fn)
  local last
  for attempt = 1, max do
    local ok, err = pcall(fn)
    if ok then return end
    last = err
    local log = mod("log")
    if log and attempt < max then
      log.warn(string.format("attempt %d/%d failed: %s", attempt, max, tostring(err)))
    end
  end
  error(last, 0)
end

-- Playbooks ------------------------------------------------------------------

local function coerce(v, p, file)
  local t = p.type
  local bad = function()
    error(string.format("%s: parameter %s must be %s, got %s", file, p.name, t, tostring(v)), 0)
  end
  if t == "int" or t == "number" then
    local n = tonumber(v)
    if n == nil or (t == "int" and n ~= math.floor(n)) then bad() end
    return n
  elseif t == "bool" then
    if type(v) == "boolean" then return v end
    if v == "true" then return true elseif v == "false" then return false end
    bad()
  elseif t == "list" then
    return flow.list(v)
  end
  if type(v) == "table" then bad() end
  return tostring(v)
end

-- Secret parameter values reach the run as a host global (never as text
-- in the generated Lua); the table leaves _G on first use.
local secret_params
function flow.runtime_secret(name)
  if secret_params == nil then
    secret_params = rawget(_G, "__OPENPOCKET_SECRET_PARAMS") or {}
    rawset(_G, "__OPENPOCKET_SECRET_PARAMS", nil)
  end
  local v = secret_params[name]
  if v == nil then
    error("secret parameter " .. tostring(name) .. " was not passed to this run (run it with the playbook's compile result globals)", 0)
  end
  return v
end

-- flow.params(meta, given) binds declared parameters: given values, then
-- defaults; required ones must be present.
function flow.params(meta, given)
  local out, declared = {}, {}
  for _, p in ipairs(meta.params or {}) do
    declared[p.name] = true
    local v
    if given then v = given[p.name] end
    if v == nil then v = p.default end
    if v == nil and p.required then
      error(string.format("%s: missing required parameter %s", meta.file, p.name), 0)
    end
    if v ~= nil then v = coerce(v, p, meta.file) end
    if p.secret then
      if type(v) == "table" then for _, s in ipairs(v) do flow.secret(s) end else flow.secret(v) end
    end
    out[p.name] = v
  end
  if given then
    for k in pairs(given) do
      if not declared[k] then error(string.format("%s: unknown parameter %s", meta.file, tostring(k)), 0) end
    end
  end
  return out
end

local function run_level(meta, fn, params, prefix)
  local spec = fn(params)
  local base = #state.watchers
  for _, w in ipairs(spec.watchers or {}) do
    local copy = {}
    for k, v in pairs(w) do copy[k] = v end
    copy.hits, copy.prefix = 0, prefix and (prefix .. "." .. w.id) or w.id
    copy.max_hits = copy.max_hits or 1
    state.watchers[#state.watchers + 1] = copy
  end
  local saved = state.prefix
  local function hook(name)
    if not spec[name] then return end
    state.prefix = prefix and (prefix .. "." .. name) or name
    spec[name]()
    state.prefix = prefix
  end
  local ok, err = pcall(function()
    hook("on_start")
    state.prefix = prefix
    spec.steps()
    hook("on_complete")
  end)
  if not ok and spec.on_failure then
    local ok2, err2 = pcall(hook, "on_failure")
    if not ok2 then
      local log = mod("log")
      if log then log.warn("on_failure hook failed: " .. tostring(err2)) end
    end
  end
  state.prefix = saved
  for i = #state.watchers, base + 1, -1 do state.watchers[i] = nil end
  if not ok then error(err, 0) end
end

-- flow.sub(meta, fn, args, id) runs an included playbook (a run step).
function flow.sub(meta, fn, args, id)
  local params = flow.params(meta, args)
  local prefix = state.prefix and (state.prefix .. "." .. id) or id
  run_level(meta, fn, params, prefix)
end

-- flow.run(meta, fn, overrides) runs a compiled playbook and raises its
-- failure (a message starting with the YAML position of the failed step).
function flow.run(meta, fn, overrides)
  state.depth, state.watchers, state.in_watcher, state.prefix, state.raised = 0, {}, false, nil, nil
  bind_hot()
  local ui = mod("ui")
  emit("flow_start", {name = meta.name, file = meta.file})
  local hooked = ui and ui.on_poll ~= nil
  if hooked then ui.on_poll(check_watchers) end
  local t0 = now()
  local ok, err = pcall(function()
    run_level(meta, fn, flow.params(meta, overrides), nil)
  end)
  if hooked then ui.on_poll(nil) end
  if not ok then err = redact(tostring(err)) end
  emit("flow_end", {name = meta.name, status = ok and "passed" or "failed", error = not ok and err or nil, duration_ms = now() - t0})
  if not ok then error(err, 0) end
  return true
end

return flow
