-- agent.lua — the OpenPocket agent loop.
--
-- One step: capture the screen, ask the model for exactly one action, act,
-- record the step, report progress. The loop stops when the model calls
-- finish (success), after max_steps (failure), on an error it cannot
-- recover from (model down, device lost), when the token budget is spent,
-- when it is stuck and nobody helps (see break_loop) or when the run is
-- cancelled (Ctrl-C: the cancellation is raised and the host finalizes the
-- session).
--
-- The Go primitives live in agent_host (see stdlib/agent docs). Replace this
-- file with `agent.Options.Source` to change the loop; keep the contract:
-- run() returns {ok = boolean, message = string}.

local host = require("agent_host")

local M = {}

-- history entry as the model reads it: step N: app=… action=… result=…
local function remember(state, step, app, action, result)
  local h = state.history
  h[#h + 1] = { step = step, app = app, action = action, result = result }
end

-- one step; returns a verdict table to stop, nil to go on.
local function step_once(state, step)
  local snap, err = host.capture()
  if not snap then
    return { ok = false, message = "device error: " .. tostring(err) }
  end

  local d, derr, kind = host.decide(snap, state.history, state.problems, step)
  if not d then
    if kind == "budget" then
      return { ok = false, message = tostring(derr) }
    end
    if kind == "reply" and state.bad_replies < state.max_bad_replies then
      -- The model answered without a usable action: tell it, try again.
      state.bad_replies = state.bad_replies + 1
      state.problems = { tostring(derr) }
      remember(state, step, snap.app, "none", "reply rejected: " .. tostring(derr))
      host.emit("agent_step", { step = step, max_steps = state.max_steps, action = "none",
        result = "reply rejected: " .. tostring(derr), model_ms = 0 })
      return nil
    end
    return { ok = false, message = "model error: " .. tostring(derr) }
  end
  state.bad_replies = 0

  local out, aerr = host.act(d, snap)
  if not out then
    return { ok = false, message = "action " .. d.summary .. " failed: " .. tostring(aerr) }
  end

  local _, rerr = host.record({ step = step, snapshot = snap, decision = d, outcome = out })
  if rerr then
    return { ok = false, message = "cannot record step " .. step .. ": " .. tostring(rerr) }
  end
  host.emit("agent_step", { step = step, max_steps = state.max_steps, action = d.summary,
    result = out.result, model_ms = d.model_ms, app = snap.app })

  -- reply: what only the model may read (a user's answer); the record
  -- and the events keep result.
  remember(state, step, snap.app, d.summary, out.reply or out.result)
  state.problems = d.problems
  if out.failed then
    -- A person rejected a human-auth request (or nobody answered): the
    -- task ends here, whatever the model would do next.
    return { ok = false, message = out.failed }
  end
  if out.finished then
    return { ok = true, message = d.message }
  end
  local why = host.stuck()
  if why then
    return M.break_loop(state, snap.app, why)
  end
  return nil
end

-- break_loop is the loop breaker (agent.stuckAfter): the model keeps
-- acting without effect. The first time, relaunch the app in front
-- (force-stop, launch: a wedged screen often recovers); when that did not
-- help, ask the person (the chat the task came from, the terminal, or the
-- relay page) and tell the model their answer; with nobody to ask, fail
-- "stuck". After an answer, a new stuck streak asks again. Each of
-- these is a step of the run. Returns a verdict to stop, nil to go on.
function M.break_loop(state, app, why)
  if not state.relaunched and app and app ~= "" and state.step < state.max_steps then
    state.relaunched = true
    state.step = state.step + 1
    local res, err = host.relaunch(state.step, app, why)
    if not res then
      return { ok = false, message = "stuck: " .. why .. "; relaunching " .. app .. " failed: " .. tostring(err) }
    end
    local summary = "relaunch_app(" .. app .. ")"
    host.emit("agent_step", { step = state.step, max_steps = state.max_steps, action = summary,
      result = res, model_ms = 0, app = app })
    remember(state, state.step, app, summary, res .. " (you were stuck: " .. why .. ")")
    return nil
  end
  local tried = state.relaunched and "; relaunching the app did not help" or ""
  if state.step >= state.max_steps then
    return { ok = false, message = "stuck: " .. why .. tried .. "; no steps left to ask the person" }
  end
  state.step = state.step + 1
  local q = "The agent is stuck on the task \"" .. state.task .. "\": " .. why .. tried ..
    ". What should it do?"
  local ans, err = host.ask_person(state.step, q)
  host.emit("agent_step", { step = state.step, max_steps = state.max_steps, action = "ask_person",
    result = ans and "the person answered" or ("no answer: " .. tostring(err)), model_ms = 0, app = app })
  if not ans then
    return { ok = false, message = "stuck: " .. why .. tried .. "; asked the person: " .. tostring(err) }
  end
  remember(state, state.step, app, "ask_person", "The person says: " .. ans)
  return nil
end

-- run(overrides?) → {ok, message}. overrides may set max_steps,
-- loop_delay_ms and return_home.
function M.run(overrides)
  local o = host.options()
  for k, v in pairs(overrides or {}) do
    o[k] = v
  end
  local state = {
    task = o.task,
    max_steps = o.max_steps,
    max_bad_replies = o.max_bad_replies,
    history = o.history or {},
    problems = {},
    bad_replies = 0,
    step = 0,
    relaunched = false,
  }
  local verdict
  while state.step < o.max_steps do
    -- The loop breaker's own steps (relaunch, question) advance
    -- state.step too: they count against max_steps.
    state.step = state.step + 1
    verdict = step_once(state, state.step)
    if verdict then
      break
    end
    if state.step < o.max_steps and o.loop_delay_ms > 0 then
      host.sleep(o.loop_delay_ms)
    end
  end
  verdict = verdict or { ok = false, message = "max steps (" .. o.max_steps .. ") reached" }
  if o.return_home then
    host.go_home() -- best effort: a failure here does not change the verdict
  end
  return verdict
end

return M
