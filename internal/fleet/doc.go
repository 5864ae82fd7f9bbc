// Package fleet coordinates the gateways of several hosts through Redis
// (docs/fleet.md): it is the scheduler's cron.Coordinator. Each scheduled
// run is claimed once across the fleet by a tick-keyed lock (SET NX PX
// with a random token, held past the run so a host whose clock lags
// cannot run the tick again) behind gocron's own distributed-locker
// option; runs are placed on the host whose adb server has the job's
// phone; hosts publish their presence (phones, running jobs) on a
// heartbeat; every run lands in a per-job history. Redis is the only
// shared state: a host that dies leaves keys that expire.
package fleet
