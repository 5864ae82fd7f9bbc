package adb

import "testing"

func TestServerAddrFollowsADBsEnvironment(t *testing.T) {
	cases := []struct {
		name, flag, socket, port, want string
	}{
		{"default", "", "", "", DefaultServer},
		{"port variable", "", "", "5099", "127.0.0.1:5099"},
		{"socket host and port", "", "tcp:10.0.0.2:6000", "5099", "10.0.0.2:6000"},
		{"socket port only", "", "tcp:6001", "", "127.0.0.1:6001"},
		{"socket of another kind is not ours", "", "localabstract:adb", "5099", "127.0.0.1:5099"},
		{"explicit address wins", "192.168.1.5:5037", "tcp:10.0.0.2:6000", "5099", "192.168.1.5:5037"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("ADB_SERVER_SOCKET", c.socket)
			t.Setenv("ANDROID_ADB_SERVER_PORT", c.port)
			if got := ServerAddr(c.flag); got != c.want {
				t.Fatalf("ServerAddr(%q) = %q, want %q", c.flag, got, c.want)
			}
			if got := NewClient(c.flag).Addr(); got != c.want {
				t.Fatalf("NewClient(%q).Addr() = %q, want %q", c.flag, got, c.want)
			}
		})
	}
}
