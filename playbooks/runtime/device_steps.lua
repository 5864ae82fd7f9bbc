-- Device steps (appended to flow.lua before `return flow`, so it sees
-- flow's locals): shell helpers, permissions, location, airplane mode,
-- keyboard, random input, scrolling with visibility and element size.

-- flow.shq(s) quotes s for the device shell.
function flow.shq(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

-- sh_checked fails the step when a shell command's output says it failed.
local function sh_checked(cmd, text, code)
  if (code ~= nil and code ~= 0) or text:match("^Error") or text:match("\nError")
    or text:match("^Failure") or text:match("\nFailure") or text:match("Exception") then
    text = text:gsub("%s+$", "")
    if #text > 300 then text = text:sub(1, 300) .. "…" end
    flow.fail(string.format("%s: exit code %s: %s", cmd, tostring(code), text))
  end
  return text
end

-- flow.sh(cmd) runs an adb shell command and fails the step on a non-zero
-- exit code or an "Error:" / "Failure" line (am and pm print those with 0).
function flow.sh(cmd)
  local out, code = flow.must(mod("device").shell(cmd))
  return sh_checked(cmd, tostring(out or ""), code)
end

-- flow.permissions(pkg, {name, grant, name, grant, ...}); "all" grants or
-- revokes every runtime permission the package requests.
function flow.permissions(pkg, list)
  for i = 1, #list, 2 do
    local name, grant = list[i], list[i + 1]
    local verb = grant and "grant" or "revoke"
    if name == "all" then
      local dump = flow.sh("dumpsys package " .. flow.shq(pkg))
      local section = dump:match("requested permissions:(.-)\n%s*[%a ]+permissions:") or dump:match("requested permissions:(.*)") or ""
      for perm in section:gmatch("(android%.permission%.[%w_]+)") do
        mod("device").shell("pm " .. verb .. " " .. flow.shq(pkg) .. " " .. perm)
      end
    else
      -- Android answers an undeclared permission with a raw
      -- SecurityException; say what it means instead.
      local cmd = "pm " .. verb .. " " .. flow.shq(pkg) .. " " .. flow.shq(name)
      local out, code = flow.must(mod("device").shell(cmd))
      local text = tostring(out or "")
      if text:find("has not requested permission", 1, true) then
        flow.fail(string.format("set_permissions: %s is not requested by the app %s (its manifest does not declare it), so it cannot be %s",
          name, pkg, grant and "granted" or "revoked"))
      end
      sh_checked(cmd, text, code)
    end
  end
end

-- flow.launch_with_extras(pkg, {{key, value}, ...}) starts the launcher
-- activity with intent extras (--es / --ei / --ef / --ez).
function flow.launch_with_extras(pkg, extras)
  local parts = {"am start -W -a android.intent.action.MAIN -c android.intent.category.LAUNCHER -p", flow.shq(pkg)}
  for _, kv in ipairs(extras) do
    local k, v = kv[1], kv[2]
    local flag = "--es"
    if type(v) == "boolean" then flag = "--ez"
    elseif type(v) == "number" then flag = (math.floor(v) == v) and "--ei" or "--ef" end
    parts[#parts + 1] = flag .. " " .. flow.shq(k) .. " " .. flow.shq(tostring(v))
  end
  flow.sh(table.concat(parts, " "))
end

-- flow.set_location(lat, lng) feeds a test GPS provider (Android 12+ cmd
-- location; shell must be allowed to mock locations).
function flow.set_location(lat, lng)
  local device = mod("device")
  device.shell("appops set com.android.shell android:mock_location allow")
  device.shell("cmd location providers add-test-provider gps")
  device.shell("cmd location providers set-test-provider-enabled gps true")
  flow.sh(string.format("cmd location providers set-test-provider-location gps --location %.7f,%.7f", lat, lng))
end

-- flow.airplane(mode) with mode "enable", "disable" or "toggle".
function flow.airplane(mode)
  if mode == "toggle" then
    local state = flow.sh("cmd connectivity airplane-mode")
    mode = state:match("enabled") and "disable" or "enable"
  end
  flow.sh("cmd connectivity airplane-mode " .. mode)
end

-- flow.hide_keyboard() presses BACK only while the IME window is shown.
function flow.hide_keyboard()
  local out = flow.sh("dumpsys input_method")
  -- Builds name it mInputShown (most), mIsInputViewShown or isInputViewShown.
  if out:match("mInputShown=true") or out:match("[iI]sInputViewShown=true") then
    flow.must(mod("device").back())
  end
end

local first_names = {"Ada", "Alan", "Grace", "Linus", "Margaret", "Ken", "Barbara", "Dennis", "Frances", "Edsger"}
local last_names = {"Lovelace", "Turing", "Hopper", "Torvalds", "Hamilton", "Thompson", "Liskov", "Ritchie", "Allen", "Dijkstra"}
local seeded = false

-- flow.random_text(kind, length): text, number, email or person_name.
function flow.random_text(kind, length)
  if not seeded then
    local t = mod("time")
    math.randomseed(t and t.now_ms() or 1)
    seeded = true
  end
  local function chars(set, n)
    local out = {}
    for i = 1, n do
      local k = math.random(1, #set)
      out[i] = set:sub(k, k)
    end
    return table.concat(out)
  end
  local lower = "abcdefghijklmnopqrstuvwxyz"
  if kind == "number" then
    local n = length or 8
    return chars("123456789", 1) .. chars("0123456789", n - 1)
  elseif kind == "email" then
    return chars(lower, 8) .. "@" .. chars(lower, 6) .. ".com"
  elseif kind == "person_name" then
    return first_names[math.random(1, #first_names)] .. " " .. last_names[math.random(1, #last_names)]
  end
  return chars(lower .. "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", length or 8)
end

-- visible_fraction is the share of an element's area inside the screen.
local function visible_fraction(el, w, h)
  local b = el.bounds
  local area = (b.right - b.left) * (b.bottom - b.top)
  if area <= 0 then return 0 end
  local iw = math.max(0, math.min(b.right, w) - math.max(b.left, 0))
  local ih = math.max(0, math.min(b.bottom, h) - math.max(b.top, 0))
  return iw * ih / area
end

-- labels is the screen's text, a signature that stops changing at the
-- end of a list.
local function labels(ui)
  local parts = {}
  for _, el in ipairs(ui.find_all({text_regex = ".+"})) do parts[#parts + 1] = el.text end
  return table.concat(parts, "\n")
end

-- flow.scroll_until_visible(sel, opts): swipes until at least
-- opts.visibility % of the element is on screen; speed 0-100 sets the
-- swipe duration (100 = fastest); centered moves it to the middle.
function flow.scroll_until_visible(sel, opts)
  local ui, device = mod("ui"), mod("device")
  local w, h = device.size()
  local need = (opts.visibility or 100) / 100
  local duration = math.floor(2000 - 19 * (opts.speed or 40))
  local dir = opts.direction or "down"
  local deadline = now() + (opts.timeout_ms or 30000)
  for _ = 0, opts.max_swipes or 10 do
    local el = ui.find(sel, {timeout_ms = 0})
    if el and visible_fraction(el, w, h) >= need - 1e-9 then
      if opts.centered then
        local dy = el.center.y - h / 2
        if math.abs(dy) > h / 10 then
          flow.must(device.swipe(math.floor(w / 2), math.floor(h / 2 + dy / 2), math.floor(w / 2), math.floor(h / 2 - dy / 2), {duration_ms = duration}))
          el = ui.find(sel, {timeout_ms = 0}) or el
        end
      end
      return el
    end
    if now() > deadline then break end
    local before = labels(ui)
    flow.swipe(({down = "up", up = "down", left = "right", right = "left"})[dir], nil, {duration_ms = duration})
    if labels(ui) == before and not ui.exists(sel) then break end -- the end of the list
  end
  flow.fail("scroll_until_visible: " .. describe(sel) .. " not visible enough after scrolling")
end

-- flow.assert_size(sel, size, opts): some match of sel is width × height
-- pixels within tolerance; polls until opts.timeout_ms.
function flow.assert_size(sel, size, opts)
  local ui, wait = mod("ui"), mod("wait")
  local tol = size.tolerance or 0
  local deadline = now() + (opts.timeout_ms or 5000)
  local seen
  repeat
    for _, el in ipairs(ui.find_all(sel)) do
      local b = el.bounds
      local ew, eh = b.right - b.left, b.bottom - b.top
      seen = string.format("%dx%d", ew, eh)
      if (not size.width or math.abs(ew - size.width) <= tol) and (not size.height or math.abs(eh - size.height) <= tol) then
        return el
      end
    end
    if wait then wait.ms(100) end
  until now() > deadline
  flow.fail(opts.message or string.format("%s is not %sx%s (±%d px); saw %s", describe(sel),
    tostring(size.width or "any"), tostring(size.height or "any"), tol, seen or "no match"))
end

-- flow.js_add(a, b) is JavaScript's +: numbers add, anything else
-- concatenates (used by flows converted from Maestro).
function flow.js_add(a, b)
  if type(a) == "number" and type(b) == "number" then return a + b end
  return tostring(a) .. tostring(b)
end
