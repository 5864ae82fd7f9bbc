local ui, app, device, wait = require("ui"), require("app"), require("device"), require("wait")
local events, time, log = require("events"), require("time"), require("log")
params = params or {}
HANDLERS = HANDLERS or {}
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

-- System dialogs ------------------------------------------------------------

local DIALOG_PKGS = {
  ["com.android.permissioncontroller"] = true, ["com.google.android.permissioncontroller"] = true,
  ["com.android.packageinstaller"] = true, ["com.google.android.packageinstaller"] = true,
  ["android"] = true,
}

local function is_dialog(pkg) return pkg ~= nil and DIALOG_PKGS[pkg] == true end

-- dialog_up returns the package of a system dialog in front: the current
-- app when it is one, else a dialog window in the UI dump (the focus of
-- some system dialogs, like "isn't responding", names no package).
local function dialog_up(cur)
  if is_dialog(cur) then return cur end
  for _, e in ipairs(ui.find_all(ALL) or {}) do
    if is_dialog(e.package) then return e.package end
  end
  return nil
end

-- dialog_view reads a dialog's window: its labels and its elements.
local function dialog_view(pkg)
  local els = ui.find_all({package = pkg}) or {}
  local labels = {}
  for _, e in ipairs(els) do
    local l = e.text ~= "" and e.text or e.desc
    if l ~= "" then labels[#labels + 1] = l end
  end
  return els, labels
end

-- answer_in finds the recorded answer among a dialog's elements (same
-- resource-id and text as recorded), so no second dump is needed.
local function answer_in(els, sel)
  for _, e in ipairs(els) do
    if (sel.id == nil or e.id == sel.id) and (sel.text == nil or e.text == sel.text) and
        (sel.desc == nil or e.desc == sel.desc) then
      return e
    end
  end
  return nil
end

local function has_label(labels, want)
  for _, l in ipairs(labels) do
    if l == want then return true end
  end
  return false
end

-- safe_answer is the answer to a dialog the recording never saw that is
-- safe to give anyway: "Wait" when an app is not responding, BACK on the
-- keyboard picker.
local function safe_answer(els, labels)
  for _, e in ipairs(els) do
    if e.id:find(":id/aerr_wait$") then return {el = e, label = "Wait"} end
  end
  if has_label(labels, "Choose input method") or has_label(labels, "Change keyboard") then
    return {back = true, label = "BACK"}
  end
  return nil
end

-- dialog_name names a dialog in messages: its package and first labels.
local function dialog_name(pkg, labels)
  local shown = {}
  for i = 1, math.min(#labels, 3) do shown[i] = '"' .. labels[i] .. '"' end
  if #shown == 0 then return "a " .. pkg .. " dialog" end
  return "a " .. pkg .. " dialog (" .. table.concat(shown, ", ") .. ")"
end

-- handle_dialog answers the dialog of package pkg with the recorded answer
-- (same dialog, same message) or a known safe one. It returns true when it
-- answered, else false and the dialog's name.
local function handle_dialog(pkg)
  local els, labels = dialog_view(pkg)
  local answer
  for _, h in ipairs(HANDLERS) do
    local el = not h.back and answer_in(els, h.answer)
    if h.pkg == pkg and (h.message == nil or has_label(labels, h.message)) and (h.back or el) then
      answer = {el = el, back = h.back, label = h.label, why = "as in the recorded step " .. h.step}
      break
    end
  end
  if not answer then
    answer = safe_answer(els, labels)
    if answer then answer.why = "a safe answer to a dialog the recording never saw" end
  end
  if not answer then return false, dialog_name(pkg, labels) end
  log.info(string.format("step %d: answering %s with %s (%s)", current and current.id or 0, dialog_name(pkg, labels), answer.label, answer.why))
  if answer.back then device.back() else device.tap(answer.el.center.x, answer.el.center.y) end
  wait["until"](function() return #(ui.find_all({package = pkg}) or {}) == 0 end, {timeout_ms = 3000, interval_ms = 150})
  return true
end

-- unexpected stops the replay on a dialog it has no answer for.
local function unexpected(name)
  fail("no dialog the recording never saw, but " .. name .. " is up (stopped instead of guessing an answer)")
end

-- wait_app waits for pkg in front, answering dialogs on the way.
-- An unknown dialog that stays up UNKNOWN_GRACE_MS stops it early.
local UNKNOWN_GRACE_MS = 2000

local function wait_app(pkg, what)
  local deadline, unknown, since = time.now_ms() + TIMEOUT, nil, nil
  repeat
    local cur = app.current()
    if cur == pkg then return end
    local d = dialog_up(cur)
    if d then
      local ok, name = handle_dialog(d)
      if not ok then
        unknown, since = name, since or time.now_ms()
        if time.now_ms() - since >= UNKNOWN_GRACE_MS then unexpected(name) end
      end
    end
    wait.ms(200)
  until time.now_ms() >= deadline
  if unknown then unexpected(unknown) end
  fail(what or ("app " .. pkg .. " in front"))
end

-- enter checks the app a step starts in; a dialog in front is answered
-- (recorded or safe answer) or stops the replay naming it.
local function enter(pkg)
  local deadline = time.now_ms() + 2000
  repeat
    local cur = app.current()
    if cur == pkg then return end
    local d = dialog_up(cur)
    if d then
      local ok, name = handle_dialog(d)
      if not ok then unexpected(name) end
    else
      wait.ms(200)
    end
  until time.now_ms() >= deadline
  fail("app " .. pkg .. " in front")
end

-- While a ui function waits for an element, a dialog that pops up is
-- answered (recorded or safe answer) so the wait can go on; an unknown one
-- is left for the step's own check, which stops naming it.
ui.on_poll(function()
  local cur = app.current()
  local d = (cur == nil or cur == "" or is_dialog(cur)) and dialog_up(cur)
  if d then handle_dialog(d) end
end)

-- Start from anywhere -----------------------------------------------------

-- on_screen reports whether the screen the skill needs is up: pkg in front
-- and its anchor (the first element the skill acts on) visible.
local function on_screen(pkg, anchor, wait_ms, in_front)
  if not in_front and app.current() ~= pkg then return false end
  if not anchor then return true end
  return ui.find(anchor, {timeout_ms = wait_ms}) ~= nil
end

-- start_app brings pkg up on the screen the skill starts from, whatever is
-- in front: another app, the home screen, a dialog, a deeper screen of the
-- same app or the keyboard over it (BACK closes the keyboard first, then
-- backs out; else the app is relaunched). It launches only when pkg is not
-- already there.
local function start_app(pkg, anchor)
  local cur = app.current()
  local d = cur ~= pkg and dialog_up(cur)
  if d and handle_dialog(d) then cur = app.current() end
  if cur == pkg and on_screen(pkg, anchor, 0, true) then return "skipped" end
  if cur == pkg and anchor then
    for _ = 1, 3 do
      device.back()
      if app.current() ~= pkg then break end
      if ui.find(anchor, {timeout_ms = 800}) then return end
    end
  end
  local ok, err = app.launch(pkg)
  if not ok then fail("to launch " .. pkg .. " (" .. tostring(err) .. ")") end
  wait_app(pkg, "app " .. pkg .. " in front after launching it")
  if on_screen(pkg, anchor, 1500, true) then return end
  log.info(string.format("step %d: %s is not on its first screen; restarting it", current.id, pkg))
  ok, err = app.launch(pkg, {stop = true})
  if not ok then fail("to relaunch " .. pkg .. " (" .. tostring(err) .. ")") end
  wait_app(pkg, "app " .. pkg .. " in front after relaunching it")
  if anchor and not ui.find(anchor, {timeout_ms = 1500}) then
    -- The next step looks for it again and fails naming it if it stays away.
    log.warn(string.format("step %d: %s shows no %s after relaunching it", current.id, pkg, tostring(ui.sel(anchor))))
  end
end

-- go_home is start_app for the home screen.
local function go_home()
  local ok, err = device.home()
  if not ok then fail("the home screen (" .. tostring(err) .. ")") end
  wait["until"](function() return (app.current() or ""):find("launcher", 1, true) ~= nil end, {timeout_ms = 2000, interval_ms = 200})
end

-- Effects -----------------------------------------------------------------

-- wait_changed waits for the screen to change and checks the app stayed.
local function wait_changed(before, what, pkg)
  if not wait["until"](function() return signature() ~= before end, {timeout_ms = TIMEOUT, interval_ms = 200}) then
    fail(what)
  end
  if pkg and app.current() ~= pkg then enter(pkg) end
end

-- wait_focused checks that a tap focused the text field sel.
local function wait_focused(sel)
  local el, err = ui.wait(sel, {timeout_ms = TIMEOUT})
  if not el then fail("the text field focused after the tap (" .. tostring(err) .. ")") end
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

-- nearest picks, among same-looking matches, the one closest to the
-- recorded neighbouring label; nil when that label is not on screen.
local function nearest(matches, near)
  local best, best_d
  for _, l in ipairs(ui.find_all({text = near}) or {}) do
    for _, m in ipairs(matches) do
      local dx, dy = m.center.x - l.center.x, m.center.y - l.center.y
      local d = dx * dx + dy * dy
      if not best_d or d < best_d then best, best_d = m, d end
    end
  end
  return best
end

-- tap_near taps the match of sel beside the recorded label (several
-- elements look the same); nil when it cannot tell them apart.
local function tap_near(sel, near)
  local matches = ui.find_all(sel) or {}
  if #matches == 0 then return nil end
  local el = matches[1]
  if #matches > 1 then
    el = nearest(matches, near)
    if not el then return nil end
  end
  local ok = device.tap(el.center.x, el.center.y)
  if ok then return el end
  return nil
end

-- Skill self-repair: when a run has a model, a step whose recorded
-- selectors found nothing asks it once for the element (the ai_tap
-- protocol), taps it and goes on; the run writes the corrected selector
-- back into the skill afterwards.
local REPAIR = (function()
  local ok, m = pcall(require, "skill_repair")
  if ok then return m end
  return nil
end)()

local function repair(t)
  if not REPAIR or not t.target then return nil end
  local r, err = REPAIR.tap({id = current.id, label = current.label}, {target = t.target, near = t.near})
  if not r then
    log.warn(string.format("step %d: not repaired: %s", current.id, tostring(err)))
    return nil
  end
  log.warn(string.format("step %d: repaired: %s found nothing; tapped %s, chosen by the model", current.id, t.target, r.target))
  return r
end

-- tap_target finds the recorded element by its selectors (the recorded one
-- first, then relaxed ones that must be unique; among same-looking matches
-- the one beside the recorded label) and taps where it is now; the
-- recorded point is the last resort, never for same-looking elements.
local function tap_target(t)
  local deadline = time.now_ms() + TIMEOUT
  repeat
    for i, c in ipairs(t.cands) do
      local el
      if t.near and i == 1 then
        el = tap_near(c.sel, t.near)
      elseif i == 1 or #(ui.find_all(c.sel) or {}) == 1 then
        el = ui.tap(c.sel, {timeout_ms = 0})
      end
      if el then
        if i > 1 then log.warn(string.format("step %d: found %s by %s", current.id, t.target, c.why)) end
        return el
      end
    end
    local d = dialog_up(app.current())
    if d then
      local ok, name = handle_dialog(d)
      if not ok then unexpected(name) end
    end
    wait.ms(200)
  until time.now_ms() >= deadline
  local fixed = repair(t)
  if fixed then return fixed end
  if t.near then fail("an element matching " .. t.target .. " beside \"" .. t.near .. "\"") end
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
