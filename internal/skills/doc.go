// Package skills learns from successful runs and replays what it learned.
//
// # Artifacts
//
// [WriteArtifacts] turns a run's trace ([]engine.TraceStep) into two files in
// the workspace (docs/formats.md#learned-skills-and-replay-scripts):
//
//   - skills/auto/<timestamp>-<slug>.md: a readable skill (title, source
//     session, behavior_fingerprint, when to use, preconditions, the numbered
//     procedure with each step's app, intent and ui_target, completion
//     criteria) the agent may read later;
//   - scripts/auto/<timestamp>-<slug>.lua: a replay script for the Lua
//     runtime (docs/lua-api.md).
//
// [Learn] first reads the trace as a [Plan] of what the task needs: the
// start app (the first app the task used, not what was in front), the kept
// steps, system-dialog answers as [Handler]s (permission controller, "isn't
// responding", "Open with", keyboard picker) and the dropped steps (detours
// undone by BACK/HOME, attempts with state_delta changed=false), which the
// script and the markdown show as comments / "Left out". The replay brings
// the start app up from any state, answers recorded or known-safe dialogs
// wherever they show up and stops naming any other dialog. Same-looking
// elements are told apart by the recorded neighbouring label
// (engine.Target.Near, [NearLabel]).
//
// Unlike upstream's replay (raw taps in the model's scaled coordinate space),
// the replay finds every element again by the selector recorded for it
// (resource-id, text, content-desc, with class and index among matches),
// taps its current position, checks the app before each step and the effect
// after it (the app that should come to the front, the screen that should
// change, the text that should read back), and uses the recorded device
// point — scaled from the recorded screen size to the current one — only as
// a last resort. Text the user typed becomes a parameter (params.text_1 …)
// with the recorded value as default. A failed check raises an error naming
// the step, what was expected and what the screen showed. [ReplayOptions]
// CoordinatesOnly generates the upstream-style script (taps at recorded
// points) for comparison: it keeps the checks, so on a shifted or resized
// layout it fails where the selector replay passes.
//
// The behaviour fingerprint ([Fingerprint]) follows docs/formats.md#learned-skills-and-replay-scripts: over the
// first 25 steps, "<currentApp>:<detail>" joined with "|", SHA-256, first 12
// hex digits. Earlier auto artifacts with the same slug or fingerprint are
// deleted before the new ones are written (atomically).
//
// # Loader
//
// [Loader] finds skills in three sources — bundled (embedded in the
// binary), OPENPOCKET_HOME/skills and workspace/skills (auto/ included) —
// where, for the same name, the more specific source wins: workspace over
// home over bundled. A skill is markdown with optional frontmatter (name,
// description, metadata as JSON); without it the name is the first "# "
// heading or the file name and the description the first non-heading line.
// Skills whose metadata requires an environment variable or binary that is
// missing are hidden from the model ([Missing], [Available]); trigger
// phrases ([Triggers]) are shown with the index.
// [Loader.Index] is the index for the agent's system prompt (bundled and
// home skills are copied to workspace/.openpocket/skills/ first, because
// the model's read tool only reaches the workspace); [Loader.Script]
// finds a skill's runnable Lua (the replay script with the same base name in
// scripts/auto, a metadata "script" path, or a fenced lua block).
//
// # Running
//
// This package learns and loads skills and imports no Lua: replaying one is
// the run service's Replay (internal/run), whose VM work is
// stdlib/skillsmod's Run (a fresh sandboxed VM bound to a session, step
// events forwarded, a failed check turned into a *StepError naming the
// step, what was expected and what the screen showed). It calls no model.
package skills
