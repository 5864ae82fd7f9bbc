// Package run is the run service: the one place a run starts, whatever the
// front end (the CLI, the gateway's schedules, the human-auth relay,
// dashboards, chat channels, the MCP server). It owns the only
// session → VM → run → finish lifecycle for playbooks, agent tasks, Lua
// scripts, skill replays and the REPL, plus the device-level helpers front
// ends need (Snapshot, Act), and it publishes one typed event stream (run
// start/end, step start/end, agent step, progress, human-auth request,
// artifact, device ready) that front ends render.
//
// A Service is built once by the composition root (cmd/openpocket) from its
// dependencies (Config); front ends never build engines, VMs or adapters
// themselves. See docs/run-service.md.
package run
