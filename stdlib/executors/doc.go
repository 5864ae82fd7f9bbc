// Package executors makes OpenPocket's non-device executors reachable from
// Lua and from the agent: it binds the script, coding and memory executors
// (internal/executor/...) of one workspace as the Lua modules script, fs,
// exec, process and memory, and adapts them to engine.Executor for the
// run_script, read, write, edit, apply_patch, exec, process, memory_search
// and memory_get actions.
//
// One [Set] owns the executors of a workspace; its Lua modules and its
// action map share them, so a background command started by the agent's
// exec action is visible to a script's process.list(). Close the set when
// the process ends (it kills background commands).
//
//	set := executors.New(ws, executors.DefaultConfig())
//	defer set.Close()
//	reg := lua.NewRegistry(append(stdlibModules, set.Modules()...)...)
//	eng.Executors = set.Actions(executors.VMRunner(reg, sessionOf))
//
// # Lua API
//
//	script.run(src [, {timeout_ms, language = "sh"|"lua"}]) → result | nil, err
//	fs.read(path [, {from, lines}])                       → text, info | nil, err
//	fs.write(path, content [, {append}])                  → info | nil, err
//	fs.edit(path, find, replace [, {all}])                → info | nil, err
//	fs.apply_patch(input)                                 → info | nil, err
//	exec.run(cmd [, {timeout_ms, workdir}])               → result | nil, err
//	exec.start(cmd [, {yield_ms, timeout_ms, workdir}])   → session | nil, err
//	process.list()                                        → sessions
//	process.poll(id [, {timeout_ms}])                     → session | nil, err
//	process.log(id [, {offset, limit}])                   → text, window | nil, err
//	process.write(id, input)                              → bytes | nil, err
//	process.kill(id)                                      → session | nil, err
//	memory.search(query [, {max_results, min_score}])     → result | nil, err
//	memory.get(path [, {from, lines}])                    → text, window | nil, err
//
// Result tables use snake_case keys (run_id, exit_code, start_line, …).
// Bad arguments raise; operational failures (a missing file, a path outside
// the workspace, a refused command) return nil and the error message, the
// gopher-lua-libs convention. A script rejected by the run_script policy is
// not a failure: script.run returns its result with ok=false and rejected
// (the reason) and rejected_rule (the rule, e.g. "deny:sudo") set.
//
// # Lua scripts
//
// script.run with language="lua", or a source whose first line is
// "-- lua", runs the source in a new sandboxed VM built from the caller's
// registry and bound to the caller's session, so it can use the device
// modules. Module names resolve as globals (device.tap() without require).
// What it prints is its stdout; an error is its stderr (exit code 1); its
// timeout stops it (exit code 137, timed_out=true). The run is recorded
// like a shell script, with script.lua in place of script.sh:
// <workspace>/scripts/runs/run-<id>/{script.lua,stdout.log,stderr.log,result.json}.
package executors
