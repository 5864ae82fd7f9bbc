// Package engine owns a run: it binds a device, a model, executors and the
// workspace (its ports) into a Session with a context, budgets and a trace,
// and finalizes what the run persisted on every exit path. It never imports
// adapters, Lua or the CLI; they depend on it.
package engine
