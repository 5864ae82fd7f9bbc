// Package agent runs model-driven tasks ("openpocket agent <task>"): a model
// looks at the screen and picks one action per step until it calls finish.
//
// The loop itself is Lua — agent.lua, embedded and registered as the module
// `agent` — so users can read it and replace it ([Options.Source]). It is
// built on the Go primitives of the per-run module `agent_host`:
//
//	host.options()                          → {task, max_steps, loop_delay_ms, return_home, stuck_after, history}
//	host.capture()                          → snapshot | nil, err
//	host.decide(snap, history, problems, n) → decision | nil, err, kind ("reply"|"model")
//	host.act(decision|action_table, snap)   → outcome  | nil, err
//	host.record{step, snapshot, decision, outcome} → persisted result | nil, err
//	host.emit(kind, fields)
//	host.sleep(ms)
//	host.go_home()                          → result | nil, err
//	host.stuck()                            → reason | nil
//	host.relaunch(step, app, why)           → result | nil, err
//	host.ask_person(step, question)         → answer | nil, err
//
// capture takes a snapshot with the scaled screenshot and the set-of-mark
// overlay (installed apps on the first capture of the run). decide builds the
// system prompt once per run (prompt.System with every action tool, the
// workspace context files) and the step message (prompt.Step), shows the
// model the set-of-mark screenshot when elements exist (else the scaled
// one) and calls engine.Model.Decide. A reply the model gave but that held
// no usable action comes back as kind "reply" (the loop tells the model and
// tries again, at most 3 times in a row); anything else (endpoint down,
// retries exhausted) is kind "model" and ends the run. act executes the
// action with model (scaled) coordinates and observes the state delta of UI
// actions; request_human_auth asks the person at the terminal
// ([Options.HumanAuth], [TerminalAuth]). record appends the step to the
// session (engine.Session.Record: action in model and device space, the
// element acted on as a replayable [engine.Target], app/hash before and
// after, usage, model latency), saves the step screenshot through the
// workspace (local_screenshot=… is appended to the result), and appends one
// JSON line to the session trace file ([TracePath]).
//
// The loop breaker ([Options.StuckAfter], agent.stuckAfter): act feeds
// every observed UI action to a detector; stuck says why the run is
// stuck (N actions that changed nothing, the same action N times with the
// screen going back where it was, or, after a relaunch, the first action
// that changed nothing); the loop (break_loop in agent.lua) then relaunches
// the app once (relaunch: force-stop and launch, recorded as a step), then
// asks the person (ask_person: the chat's [Options.UserInput], else the
// terminal, else the human-auth answerer such as the relay page; recorded
// as a request_user_input step with only the answer's length), else ends
// FAILED "stuck: …". The token budget ([Options.MaxTokens]) is decide's:
// a call that would exceed it is not made, a reply that did is not acted
// on (kind "budget"), and the run ends FAILED whatever the loop does.
//
// [Run] runs the loop in a fresh sandboxed VM and always finalizes the
// session: SUCCESS when the model finishes; FAILED on max steps, model or
// device errors, Lua errors and cancellation ("cancelled").
package agent
