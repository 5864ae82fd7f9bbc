package workspace

import (
	"strings"
	"testing"
)

// TestFleetRedisURLErrorsAtItsLineWithoutPassword: a bad fleet.redisUrl
// is a config error at its line, and the password in it is never shown.
func TestFleetRedisURLErrorsAtItsLineWithoutPassword(t *testing.T) {
	cases := []struct{ url, want string }{
		{"http://u:hunter2@host:6379/0", `config.json:3:17: fleet.redisUrl: expected redis://[user:password@]host:port/db or rediss://…, got scheme "http"`},
		{"redis://u:hunter2@host:99999/0", `got port "99999" in redis://u:xxxxx@host:99999/0`},
		{"redis://u:hunter2@host:6379/zero", `got database "zero" (a number)`},
		{"redis://u:hunter2@:6379/0", "got no host"},
		{"redis://u:hunter2@ho st/0", "the value does not parse as a URL"},
	}
	for _, c := range cases {
		path := writeConfig(t, "{\n  \"fleet\": {\n    \"redisUrl\": \""+c.url+"\"\n  }\n}")
		_, err := LoadConfig(path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("redisUrl %s: error = %v, want it to contain %q", c.url, err, c.want)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("redisUrl %s: the error shows the password: %v", c.url, err)
		}
	}
	path := writeConfig(t, `{"fleet": {"redisUrl": "redis://:pw@10.0.0.2:6379/1", "hostName": "rack-1"}}`)
	cfg, err := LoadConfig(path)
	if err != nil || !cfg.Fleet.Enabled() || cfg.Fleet.HostName != "rack-1" {
		t.Fatalf("a good fleet config: %+v, %v", cfg.Fleet, err)
	}
	if got := RedactRedisURL(cfg.Fleet.RedisURL); strings.Contains(got, "pw@") {
		t.Fatalf("RedactRedisURL = %q", got)
	}
}
