// Package workspace owns OPENPOCKET_HOME: the config file (config.json), the
// workspace directory the agent works in (sessions, daily memory, skills,
// scripts, cron jobs, context files) and the state directory (screenshots,
// model endpoint modes).
//
// It implements engine.Workspace with the exact file formats of the upstream
// the formats of docs/formats.md (session markdown, daily memory lines, screenshot
// names, workspace-state.json). Whole files are written with
// internal/atomicfile; append-only files (sessions, daily memory) are written
// with O_APPEND and fsync so a crash keeps every completed entry.
//
// An install (Install, agents.go) is the default agent's home plus managed
// agents, each a complete home below INSTALL/agents/ID; target bindings
// (targets.go) give one agent a phone exclusively, recorded in files that
// survive restarts.
//
// Config decoding starts from the defaults and lets every value present in
// the file win, also false and 0. Malformed JSON is reported as
// "config.json:LINE:COL: what was expected"; unknown keys are warnings that
// suggest the nearest valid key.
package workspace
