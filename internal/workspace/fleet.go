package workspace

import (
	"net/url"
	"strconv"
	"strings"
)

// FleetConfig joins this gateway to a fleet (docs/fleet.md): every host
// runs the same jobs.json and Redis decides which host runs each
// scheduled run. An empty RedisURL keeps the gateway on its own.
type FleetConfig struct {
	// RedisURL is redis://[user:password@]host:port/db (rediss:// for
	// TLS). Its password never reaches logs: see RedactRedisURL.
	RedisURL string `json:"redisUrl,omitempty"`
	// HostName names this host in the fleet ("" = the machine's name).
	HostName string `json:"hostName,omitempty"`
	// Phones limits the phones this host offers the fleet to these adb
	// serials (default: every phone its adb server lists), for hosts that
	// share one adb server.
	Phones []string `json:"phones,omitempty"`
}

// Enabled reports whether the gateway coordinates with a fleet.
func (f FleetConfig) Enabled() bool { return strings.TrimSpace(f.RedisURL) != "" }

// RedactRedisURL is u with its password replaced, for messages and logs;
// a URL that does not parse is replaced whole (it may hold a password).
func RedactRedisURL(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		return "<redis URL not shown>"
	}
	return p.Redacted()
}

func (c Config) validateFleet() error {
	f := c.Fleet
	if !f.Enabled() {
		if f.HostName != "" || len(f.Phones) > 0 {
			return badConfig("fleet.redisUrl", "expected a redis:// URL: fleet.hostName and fleet.phones need one")
		}
		return nil
	}
	const want = "expected redis://[user:password@]host:port/db or rediss://…"
	u, err := url.Parse(f.RedisURL)
	if err != nil { // the text may hold a password: never echoed
		return badConfig("fleet.redisUrl", "%s; the value does not parse as a URL", want)
	}
	if u.Scheme != "redis" && u.Scheme != "rediss" {
		return badConfig("fleet.redisUrl", "%s, got scheme %q", want, u.Scheme)
	}
	if u.Hostname() == "" {
		return badConfig("fleet.redisUrl", "%s, got no host in %s", want, u.Redacted())
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return badConfig("fleet.redisUrl", "%s, got port %q in %s", want, p, u.Redacted())
		}
	}
	if db := strings.Trim(u.Path, "/"); db != "" {
		if n, err := strconv.Atoi(db); err != nil || n < 0 {
			return badConfig("fleet.redisUrl", "%s, got database %q (a number) in %s", want, db, u.Redacted())
		}
	}
	if h := f.HostName; h != "" && (len(h) > 64 || strings.ContainsAny(h, " \t\n:/")) {
		return badConfig("fleet.hostName", "expected up to 64 characters without spaces, ':' or '/', got %q", h)
	}
	return nil
}
