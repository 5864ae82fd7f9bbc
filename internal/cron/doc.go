// Package cron schedules jobs from workspace/cron/jobs.json with gocron:
// cron expressions in a job's own time zone (with daylight-saving handling),
// fixed intervals and one-shot times. Each job runs at most once at a time
// and each device runs one job at a time; a job due while its device is busy
// is recorded as skipped. Run state goes to state/cron-state.json, the jobs
// file is re-read when it changes, and the package also provides the
// gateway heartbeat log and the single-gateway lock file.
//
// What a job does is up to a Runner (agent run, playbook, Lua script),
// wired by the CLI.
package cron
