local ui, app, device, wait = require("ui"), require("app"), require("device"), require("wait")
local events, time, log = require("events"), require("time"), require("log")
params = params or {}
local TIMEOUT = tonumber(params.timeout_ms) or DEFAULT_TIMEOUT_MS
local ALL = {text_regex = ".*"}
local current = nil

-- What the screen shows, for error messages: the app and its labels.
local function shows()
  local cur = app.current() or "unknown"
  local labels, seen = {}, {}
  for _, e in ipairs(ui.find_all({text_regex = ".+"}) or {}) do
    local l = e.label
    if l ~= "" and not seen[l] then
      seen[l] = true
      if #labels < 15 then labels[#labels + 1] = '"' .. l .. '"' end
    end
  end
  if #labels == 0 then return "app " .. cur .. " in front, no labels on screen" end
  return "app " .. cur .. " in front, screen shows " .. table.concat(labels, ", ")
end

-- fail stops the replay at the current step: what was expected, what the
-- screen showed.
local function fail(expected)
  local saw = shows()
  current.expected, current.saw = expected, saw
  error(string.format("step %d (%s): expected %s; %s", current.id, current.label, expected, saw), 0)
end

local function step(s, fn)
  current = s
  events.emit("step_start", {id = s.id, label = s.label})
  local t0 = time.now_ms()
  local ok, err = pcall(fn)
  local ms = time.now_ms() - t0
  if ok then
    events.emit("step_end", {id = s.id, label = s.label, status = err == "skipped" and "skipped" or "passed", duration_ms = ms})
    return
  end
  events.emit("step_end", {id = s.id, label = s.label, status = "failed", duration_ms = ms,
    error = tostring(err), expected = s.expected or "", saw = s.saw or ""})
  error(err, 0)
end

-- A recorded device point on the current screen (scaled when its size
-- differs from the recorded one).
local function scale(x, y)
  if REC_W then
    local w, h = device.size()
    if w and h and (w ~= REC_W or h ~= REC_H) then
      return math.floor(x * w / REC_W + 0.5), math.floor(y * h / REC_H + 0.5)
    end
  end
  return x, y
end

-- A fingerprint of the UI tree, to tell whether an action changed it.
local function signature()
  local parts = {}
  for i, e in ipairs(ui.find_all(ALL) or {}) do
    local b = e.bounds
    parts[i] = table.concat({e.class, e.id, e.text, e.desc, tostring(e.checked), tostring(e.focused),
      tostring(e.selected), tostring(e.enabled), b.left, b.top, b.right, b.bottom}, "\1")
  end
  return table.concat(parts, "\2")
end

local function is_app(pkg) return function() return app.current() == pkg end end

local function wait_app(pkg, what)
  if not wait["until"](is_app(pkg), {timeout_ms = TIMEOUT, interval_ms = 200}) then
    fail(what or ("app " .. pkg .. " in front"))
  end
end

-- expect_app checks the app a step starts in; the first step brings it up.
local function expect_app(pkg, first)
  if app.current() == pkg then return end
  if first then
    if pkg:find("launcher", 1, true) then
      device.home()
    else
      local ok, err = app.launch(pkg)
      if not ok then fail("to launch " .. pkg .. " (" .. tostring(err) .. ")") end
    end
    wait_app(pkg, "app " .. pkg .. " in front after launching it")
    return
  end
  if not wait["until"](is_app(pkg), {timeout_ms = 2000, interval_ms = 200}) then
    fail("app " .. pkg .. " in front")
  end
end

-- wait_changed waits for the screen to change and checks the app stayed.
local function wait_changed(before, what, pkg)
  if not wait["until"](function() return signature() ~= before end, {timeout_ms = TIMEOUT, interval_ms = 200}) then
    fail(what)
  end
  if pkg and not wait["until"](is_app(pkg), {timeout_ms = 2000, interval_ms = 200}) then
    fail("app " .. pkg .. " still in front after " .. what:gsub("^the screen to change after ", ""):gsub(" %(it did in the recorded run%)$", ""))
  end
end

-- dialog_shown reports whether a system dialog recorded in the run is up
-- again; recorded answers to it are skipped when it is not.
local function dialog_shown(pkg)
  return wait["until"](is_app(pkg), {timeout_ms = 1500, interval_ms = 200}) ~= nil
end

-- scroll_to scrolls until sel is visible and not at the screen's bottom
-- edge (where navigation bars cover it).
local function scroll_to(sel, dir, max_swipes)
  local el, err = ui.scroll_into_view(sel, {direction = dir, max_swipes = max_swipes, timeout_ms = TIMEOUT})
  if not el then fail(current.label:gsub("^Scroll %a+ until ", "") .. " (" .. tostring(err) .. ")") end
  local w, h = device.size()
  if h and (dir == "down" and el.center.y > h * 0.8 or dir == "up" and el.center.y < h * 0.2) then
    local from, to = math.floor(h * 0.6), math.floor(h * 0.4)
    if dir == "up" then from, to = to, from end
    device.swipe(math.floor(w / 2), from, math.floor(w / 2), to, {duration_ms = 400})
    el = ui.wait(sel, {timeout_ms = TIMEOUT})
    if not el then fail("the element to stay visible after scrolling it away from the screen edge") end
  end
  return el
end

-- tap_target finds the recorded element by its selectors (the recorded one
-- first, then relaxed ones that must be unique) and taps where it is now;
-- the recorded point is the last resort.
local function tap_target(t)
  local deadline = time.now_ms() + TIMEOUT
  repeat
    for i, c in ipairs(t.cands) do
      if i == 1 or #(ui.find_all(c.sel) or {}) == 1 then
        local el = ui.tap(c.sel, {timeout_ms = 0})
        if el then
          if i > 1 then log.warn(string.format("step %d: found %s by %s", current.id, t.target, c.why)) end
          return el
        end
      end
    end
    wait.ms(200)
  until time.now_ms() >= deadline
  if t.point then
    local x, y = scale(t.point[1], t.point[2])
    log.warn(string.format("step %d: no selector matched %s; tapping the recorded point (%d, %d)", current.id, t.target, x, y))
    local ok, err = device.tap(x, y)
    if not ok then fail("to tap (" .. x .. ", " .. y .. "): " .. tostring(err)) end
    return nil
  end
  fail("an element matching " .. t.target)
end

-- tap_point taps the recorded point (scaled), after checking that the
-- recorded element is there (coordinate-only replays).
local function tap_point(t)
  local x, y = scale(t.point[1], t.point[2])
  if t.cands then
    local hit = false
    for _, c in ipairs(t.cands) do
      for _, e in ipairs(ui.find_all(c.sel) or {}) do
        local b = e.bounds
        if x >= b.left and x < b.right and y >= b.top and y < b.bottom then hit = true end
      end
      if hit then break end
    end
    if not hit then fail(string.format("%s at the recorded point (%d, %d)", t.target, x, y)) end
  end
  local ok, err = device.tap(x, y)
  if not ok then fail("to tap (" .. x .. ", " .. y .. "): " .. tostring(err)) end
end

-- type_into types text into the field and reads it back.
local function type_into(field, text, what)
  if field then
    local ok, err = ui.set_text(field, text, {timeout_ms = TIMEOUT})
    if not ok then fail(what .. " (" .. tostring(err) .. ")") end
    return
  end
  local ok, err = device.type(text)
  if not ok then fail(what .. " (" .. tostring(err) .. ")") end
  local f = ui.find({focused = true}, {timeout_ms = 2000})
  if not f then fail(what .. " (no focused field)") end
  if not f.password and f.text ~= text then fail(what .. " (the field reads \"" .. f.text .. "\")") end
end

local function need(name, what)
  if params[name] == nil or params[name] == "" then
    error(string.format("parameter %s is required (%s): run with -e %s=VALUE", name, what, name), 0)
  end
end
