package android

import (
	"fmt"
	"sort"
	"strings"
)

// dumpPackagesLocked is `dumpsys package` with no package: the package
// manager's whole state, of which the phone models what a reader of grants
// needs, laid out as Android 13's is: a "Packages:" section with one block
// per package, its requested and install permissions, and per user a
// "runtime permissions:" list with each grant and its flags. Real output
// has many more sections before (resolver tables, features, libraries) and
// after ("Hidden system packages:"); a "Database versions" and "Features"
// head stands for them, so a parser must find the section, not assume it
// starts the output.
func (p *Phone) dumpPackagesLocked() string {
	var b strings.Builder
	b.WriteString("Database versions:\n  Internal:\n    sdkVersion=33 databaseVersion=3\n\n")
	b.WriteString("Features:\n  android.hardware.camera\n  android.hardware.location.gps\n  android.hardware.microphone\n\n")
	b.WriteString("Packages:\n")
	pkgs := make([]string, 0, len(runtimePermissions))
	for pkg := range runtimePermissions {
		pkgs = append(pkgs, pkg)
	}
	sort.Strings(pkgs)
	for i, pkg := range pkgs {
		id := objectID("pkg", pkg)
		fmt.Fprintf(&b, "  Package [%s] (%s):\n    userId=%d\n    pkg=Package{%s %s}\n    versionCode=1 minSdk=26 targetSdk=33\n", pkg, id, 10100+i, id, pkg)
		b.WriteString("    requested permissions:\n")
		for _, perm := range runtimePermissions[pkg] {
			fmt.Fprintf(&b, "      %s\n", perm)
		}
		b.WriteString("      android.permission.INTERNET\n    install permissions:\n      android.permission.INTERNET: granted=true\n")
		b.WriteString("    User 0: ceDataInode=4097 installed=true hidden=false suspended=false distractionFlags=0 stopped=false notLaunched=false enabled=0 instant=false virtual=false\n")
		b.WriteString("      gids=[3003]\n      runtime permissions:\n")
		for _, perm := range runtimePermissions[pkg] {
			fmt.Fprintf(&b, "        %s: granted=%t, flags=[ %s ]\n", perm, p.st.x.granted[pkg+" "+perm], p.grantFlagsLocked(pkg, perm))
		}
		b.WriteString("      enabledComponents:\n      disabledComponents:\n\n")
	}
	b.WriteString("Hidden system packages:\n  Package [com.android.providers.media] (4e1f2a0):\n    userId=10040\n\n")
	return b.String()
}

// grantFlagsLocked are a runtime permission's flags as dumpsys prints
// them: USER_SET once a person (or pm) decided it, ONE_TIME for "Only this
// time", the sensitivity flags every dangerous permission carries.
func (p *Phone) grantFlagsLocked(pkg, perm string) string {
	key := pkg + " " + perm
	flags := []string{}
	if p.st.x.granted[key] || p.st.perm.decided[pkg+" "+groupOf(perm)] {
		flags = append(flags, "USER_SET")
	}
	if p.st.perm.oneTime[key] {
		flags = append(flags, "ONE_TIME")
	}
	flags = append(flags, "USER_SENSITIVE_WHEN_GRANTED", "USER_SENSITIVE_WHEN_DENIED")
	return strings.Join(flags, "|")
}
