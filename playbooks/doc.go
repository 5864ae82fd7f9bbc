// Package playbooks compiles YAML playbooks to Lua that runs on the flow
// runtime in OpenPocket's sandboxed Lua VM.
//
// A playbook is a header (name, app, tags, typed params, defaults, hooks,
// watchers) and a list of steps. Steps have a short scalar form
// (`- tap: Save`) and a full mapping form (`- tap: {id: save, timeout: 2s}`);
// every device action of the action table (engine/action) is a step too,
// validated against its spec. Strings interpolate ${lua expr} against the
// params and variables. docs/playbooks.md is the reference.
//
//	lua, warnings, err := playbooks.Compile(src, playbooks.Options{File: "flow.yaml"})
//	res, err := playbooks.CompileWithMap(src, opts) // + source map, meta, plan
//	reg.RegisterSource(playbooks.RuntimeModule, playbooks.RuntimeSource)
//	vm, _ := lua.New(ctx, reg, lua.Options{SourceMap: res.Map.VMFunc(res.Chunk)})
//	err = vm.Run(res.Chunk, res.Lua) // failures read "flow.yaml:12: tap \"Save\": ..."
//
// Compilation has three stages: Parse builds the AST from yaml.Node values
// (each Step's Node holds its kind's typed fields), keeping every position
// (unknown keys get a "did you mean" suggestion;
// all errors of a file are collected in an ErrorList of *Error with file,
// line, column, step path and a caret snippet); Compile resolves run steps
// (paths relative to the including file, cycles reported), checks params;
// the generator writes one readable Lua block per step, each preceded by a
// "-- file:line label" comment, and records a SourceMap from Lua lines to
// YAML lines.
//
// The generated chunk calls the flow runtime (runtime/flow.lua, exported as
// RuntimeSource): flow.step wraps each step in pcall, emits step_start and
// step_end events, runs watchers between steps and from ui.on_poll while a
// step waits, and re-raises failures with the YAML position of the step.
// Timeouts are passed to ui calls as timeout_ms (the step's timeout, else
// defaults.timeout, else 5s); nothing sleeps unless a sleep step says so.
//
// Plan / Options.DryRun list the steps (number, file:line, label) without
// a device; Lint compiles files for `openpocket lint`.
package playbooks
