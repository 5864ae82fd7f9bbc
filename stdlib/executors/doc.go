// Package executors makes OpenPocket's non-device executors reachable from
// Lua: it binds a workspace's tools (the engine/tools port: scripts, files,
// host commands, memory) as the Lua modules script, fs, exec, process and
// memory, and runs the Lua scripts of run_script and script.run in fresh
// sandboxed VMs (VMRunner).
//
// It does not build the executors: internal/executor/execset does, outside
// the standard library, and implements [Set]. Modules built from one Set's
// tools share its executors with its action map, so a background command
// started by the agent's exec action is visible to a script's
// process.list().
//
//	set := execset.New(ws, execset.DefaultConfig()) // the composition root
//	defer set.Close()
//	reg := lua.NewRegistry(append(stdlibModules, executors.Modules(set.Tools())...)...)
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
