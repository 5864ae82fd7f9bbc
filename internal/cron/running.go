package cron

import "os"

// GatewayRunning reports the gateway holding stateDir's lock, if one is
// alive: on this host its pid exists; a lock from another host is taken
// at its word. Front ends use it to refuse what must not change under a
// running gateway (an agent's target).
func GatewayRunning(stateDir string) (GatewayLock, bool) {
	held, err := readLock(GatewayLockPath(stateDir))
	if err != nil || held.PID <= 0 {
		return GatewayLock{}, false
	}
	host, _ := os.Hostname()
	if held.Host != host || processAlive(held.PID) {
		return held, true
	}
	return GatewayLock{}, false
}
