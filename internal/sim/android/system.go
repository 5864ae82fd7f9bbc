package android

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"sort"
	"strings"
)

// objectID imitates System.identityHashCode in dumpsys output,
// deterministically derived from what the object represents.
func objectID(parts ...any) string {
	h := fnv.New32a()
	fmt.Fprint(h, parts...)
	return fmt.Sprintf("%07x", h.Sum32()&0xfffffff)
}

func activityRecord(t *task, a *activity) string {
	return fmt.Sprintf("ActivityRecord{%s u0 %s t%d}", objectID("ar", t.id, a.component()), a.component(), t.id)
}

func (p *Phone) allPackages() []string {
	pkgs := append([]string(nil), systemPackages...)
	for _, a := range apps {
		if !p.hasApp(a) {
			continue
		}
		pkgs = append(pkgs, a.pkg)
	}
	sort.Strings(pkgs)
	return pkgs
}

func isThirdParty(pkg string) bool { return strings.HasPrefix(pkg, "com.openpocket.") }

func cmdPm(ctx context.Context, p *Phone, c *cmdIO) int {
	args := c.args[1:]
	if len(args) == 0 {
		c.errorf("usage: pm [list|path|clear|query-activities|resolve-activity] ...")
		return 1
	}
	switch args[0] {
	case "list":
		if len(args) < 2 || args[1] != "packages" {
			c.errorf("Error: unknown list type '%s'", strings.Join(args[1:], " "))
			return 1
		}
		flags, rest := splitFlags(args[2:])
		filter := ""
		if len(rest) > 0 {
			filter = rest[len(rest)-1]
		}
		var out strings.Builder
		for _, pkg := range append(p.allPackages(), p.installedPackages()...) {
			if strings.Contains(flags, "3") && !isThirdParty(pkg) || strings.Contains(flags, "s") && isThirdParty(pkg) {
				continue
			}
			if strings.Contains(pkg, filter) {
				out.WriteString("package:" + pkg + "\n")
			}
		}
		io.WriteString(c.stdout, out.String())
		return 0
	case "path":
		if len(args) < 2 || appByPackage(args[1]) == nil && !contains(systemPackages, args[1]) {
			return 1
		}
		fmt.Fprintf(c.stdout, "package:/data/app/%s/base.apk\n", args[1])
		return 0
	case "clear":
		if len(args) < 2 {
			c.errorf("Error: no package specified")
			return 1
		}
		pkg := args[len(args)-1]
		if !contains(p.allPackages(), pkg) {
			fmt.Fprintln(c.stdout, "Failed")
			return 1
		}
		p.locked(func() { p.clearLocked(pkg) })
		fmt.Fprintln(c.stdout, "Success")
		return 0
	case "query-activities":
		return queryActivities(p, c, args[1:])
	case "resolve-activity":
		return resolveActivity(p, c, args[1:])
	}
	if code, ok := pmExtra(p, c, args); ok {
		return code
	}
	c.errorf("Unknown command: %s", args[0])
	return 1
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// intentArgs is the subset of am/pm intent options the phone understands.
type intentArgs struct {
	action, pkg, component string
	categories             []string
	wait, brief            bool
	positional             []string
	data                   string            // -d URI
	extras                 map[string]string // --es/--ei/… key → value
}

func parseIntent(args []string) (intentArgs, error) {
	var in intentArgs
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() (string, error) {
			if i+1 >= len(args) {
				return "", fmt.Errorf("Error: No value specified for %s", a)
			}
			i++
			return args[i], nil
		}
		var err error
		switch a {
		case "-a":
			in.action, err = next()
		case "-c":
			var cat string
			cat, err = next()
			in.categories = append(in.categories, cat)
		case "-n":
			in.component, err = next()
		case "-p":
			in.pkg, err = next()
		case "-d":
			in.data, err = next()
		case "-t", "-f", "--user", "--display", "--windowingMode", "--activityType", "--components":
			_, err = next()
		case "--es", "--ei", "--ez", "--el", "--ef", "--eu", "--ecn":
			var k, v string
			if k, err = next(); err == nil {
				if v, err = next(); err == nil {
					if in.extras == nil {
						in.extras = map[string]string{}
					}
					in.extras[k] = v
				}
			}
		case "-W":
			in.wait = true
		case "--brief":
			in.brief = true
		default:
			if strings.HasPrefix(a, "-") {
				continue // flags without values (-S, -D, --activity-clear-task…)
			}
			in.positional = append(in.positional, a)
		}
		if err != nil {
			return in, err
		}
	}
	return in, nil
}

// describe renders the intent the way Intent.toShortString does.
func (in intentArgs) describe(component string) string {
	var parts []string
	if in.action != "" {
		parts = append(parts, "act="+in.action)
	}
	if len(in.categories) > 0 {
		parts = append(parts, "cat=["+strings.Join(in.categories, ",")+"]")
	}
	if in.pkg != "" {
		parts = append(parts, "pkg="+in.pkg)
	}
	if component != "" {
		parts = append(parts, "cmp="+component)
	}
	return "Intent { " + strings.Join(parts, " ") + " }"
}

func (in intentArgs) isLauncherQuery() bool {
	return (in.action == "" || in.action == "android.intent.action.MAIN") &&
		(len(in.categories) == 0 || contains(in.categories, "android.intent.category.LAUNCHER"))
}

// resolvedApps returns the launchable apps an intent matches, sorted.
func (in intentArgs) resolvedApps(p *Phone) []*app {
	var out []*app
	home := contains(in.categories, "android.intent.category.HOME")
	for _, a := range apps {
		if !p.hasApp(a) {
			continue
		}
		switch {
		case home && a.pkg == PkgLauncher:
		case !home && a.launchable && in.isLauncherQuery():
		default:
			continue
		}
		if in.pkg != "" && in.pkg != a.pkg {
			continue
		}
		out = append(out, a)
	}
	return out
}

const resolvePriorityLine = "priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false"

func queryActivities(p *Phone, c *cmdIO, args []string) int {
	in, err := parseIntent(args)
	if err != nil {
		c.errorf("%v", err)
		return 1
	}
	if len(in.positional) > 0 && in.pkg == "" {
		in.pkg = in.positional[len(in.positional)-1]
	}
	found := in.resolvedApps(p)
	var out strings.Builder
	if len(found) == 0 {
		out.WriteString("No activities found\n")
	} else if in.brief {
		for _, a := range found {
			out.WriteString(resolvePriorityLine + "\n" + a.pkg + "/" + a.mainActivity + "\n")
		}
	} else {
		fmt.Fprintf(&out, "%d activities found:\n", len(found))
		for i, a := range found {
			cls := expandClass(a.pkg, a.mainActivity)
			fmt.Fprintf(&out, "  Activity #%d:\n    %s\n    ActivityInfo:\n", i, resolvePriorityLine)
			fmt.Fprintf(&out, "      name=%s\n      packageName=%s\n", cls, a.pkg)
			fmt.Fprintf(&out, "      labelRes=0x0 nonLocalizedLabel=%s icon=0x7f080001 banner=0x0\n", a.label)
			fmt.Fprintf(&out, "      enabled=true exported=true directBootAware=false\n")
			fmt.Fprintf(&out, "      taskAffinity=%s targetActivity=null persistableMode=PERSIST_ROOT_ONLY\n", a.pkg)
			fmt.Fprintf(&out, "      launchMode=0 flags=0x0 privateFlags=0x0 theme=0x7f100001\n")
			fmt.Fprintf(&out, "      screenOrientation=-1 configChanges=0x0 softInputMode=0x0\n")
			fmt.Fprintf(&out, "      lockTaskLaunchMode=LOCK_TASK_LAUNCH_MODE_DEFAULT\n")
			fmt.Fprintf(&out, "      resizeMode=RESIZE_MODE_RESIZEABLE\n")
			fmt.Fprintf(&out, "      ApplicationInfo:\n        name=null\n        packageName=%s\n", a.pkg)
			fmt.Fprintf(&out, "        labelRes=0x0 nonLocalizedLabel=%s icon=0x7f080001 banner=0x0\n", a.label)
			fmt.Fprintf(&out, "        processName=%s\n        taskAffinity=%s\n", a.pkg, a.pkg)
			fmt.Fprintf(&out, "        uid=%d flags=0x38c8be46 privateFlags=0x24001000 theme=0x7f100001\n", a.uid)
			fmt.Fprintf(&out, "        sourceDir=/data/app/%s/base.apk\n        dataDir=/data/user/0/%s\n", a.pkg, a.pkg)
			fmt.Fprintf(&out, "        enabled=true minSdkVersion=26 targetSdkVersion=34 versionCode=1 targetSandboxVersion=1\n")
		}
	}
	io.WriteString(c.stdout, out.String())
	return 0
}

func resolveActivity(p *Phone, c *cmdIO, args []string) int {
	in, err := parseIntent(args)
	if err != nil {
		c.errorf("%v", err)
		return 1
	}
	if len(in.positional) > 0 {
		in.pkg = in.positional[len(in.positional)-1]
	}
	if in.pkg == "" && in.component == "" {
		c.errorf("Error: Intent requires a package or component")
		return 1
	}
	found := in.resolvedApps(p)
	if len(found) != 1 {
		fmt.Fprintln(c.stdout, "No activity found")
		return 0
	}
	a := found[0]
	if in.brief {
		fmt.Fprintf(c.stdout, "%s\n%s/%s\n", resolvePriorityLine, a.pkg, a.mainActivity)
		return 0
	}
	fmt.Fprintf(c.stdout, "%s\n  ActivityInfo:\n    name=%s\n    packageName=%s\n", resolvePriorityLine, expandClass(a.pkg, a.mainActivity), a.pkg)
	return 0
}

func cmdAm(_ context.Context, p *Phone, c *cmdIO) int {
	args := c.args[1:]
	if len(args) == 0 {
		c.errorf("usage: am [start|force-stop] ...")
		return 1
	}
	switch args[0] {
	case "start", "start-activity":
		return amStart(p, c, args[1:])
	case "force-stop", "kill":
		if len(args) < 2 {
			c.errorf("Error: no package specified")
			return 1
		}
		pkg := args[len(args)-1]
		p.locked(func() { p.forceStopLocked(pkg) })
		return 0
	case "broadcast":
		return amBroadcast(p, c, args[1:])
	case "stack", "kill-all", "get-current-user":
		return 0
	}
	c.errorf("Error: Unknown command: %s", args[0])
	return 1
}

func amStart(p *Phone, c *cmdIO, args []string) int {
	in, err := parseIntent(args)
	if err != nil {
		c.errorf("%v", err)
		return 1
	}
	if in.action == "android.intent.action.VIEW" && in.data != "" && in.component == "" {
		return amView(p, c, in)
	}
	if in.component == "" && len(in.positional) > 0 && strings.Contains(in.positional[0], "/") {
		in.component = in.positional[0]
	}
	if in.component == "" && in.pkg == "" {
		c.errorf("Error: Intent does not match any activities: %s", in.describe(""))
		return 1
	}
	if in.component != "" {
		pkg, cls, ok := strings.Cut(in.component, "/")
		if !ok || pkg == "" || cls == "" {
			c.errorf("Error: Bad component name: %s", in.component)
			return 1
		}
		short := shortClass(pkg, cls)
		fmt.Fprintf(c.stdout, "Starting: %s\n", in.describe(pkg+"/"+short))
		var startErr error
		p.locked(func() { startErr = p.startActivityLocked(pkg, short) })
		if startErr != nil {
			c.errorf("%v", startErr)
			return 1
		}
		return amWaitReport(c, in, pkg+"/"+short)
	}
	p.rememberExtras(in.extras)
	fmt.Fprintf(c.stdout, "Starting: %s\n", in.describe(""))
	found := in.resolvedApps(p)
	if len(found) != 1 {
		c.errorf("Error: Activity not started, unable to resolve %s", in.describe(""))
		return 1
	}
	p.locked(func() { p.launchLocked(found[0].pkg) })
	return amWaitReport(c, in, found[0].pkg+"/"+found[0].mainActivity)
}

func amWaitReport(c *cmdIO, in intentArgs, component string) int {
	if in.wait {
		fmt.Fprintf(c.stdout, "Status: ok\nLaunchState: COLD\nActivity: %s\nTotalTime: 120\nWaitTime: 124\nComplete\n", component)
	}
	return 0
}

// cmdMonkey supports the launch idiom `monkey -p PKG -c CATEGORY N`.
func cmdMonkey(_ context.Context, p *Phone, c *cmdIO) int {
	args := c.args[1:]
	var out strings.Builder
	for _, a := range args {
		fmt.Fprintf(&out, "  bash arg: %s\n", a)
	}
	var pkgs, cats []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-p", "-c":
			if i+1 >= len(args) {
				io.WriteString(c.stdout, out.String())
				c.errorf("** Error: missing argument for %s", args[i])
				return 1
			}
			if args[i] == "-p" {
				pkgs = append(pkgs, args[i+1])
			} else {
				cats = append(cats, args[i+1])
			}
			i++
		}
	}
	fmt.Fprintf(&out, "args: [%s]\n", strings.Join(args, ", "))
	for _, a := range args {
		fmt.Fprintf(&out, " arg: %q\n", a)
	}
	for _, pkg := range pkgs {
		fmt.Fprintf(&out, "data=%q\n", pkg)
	}
	for _, cat := range cats {
		fmt.Fprintf(&out, "data=%q\n", cat)
	}
	launched := false
	p.locked(func() {
		if p.st.failMonkey || len(pkgs) != 1 {
			return
		}
		a := appByPackage(pkgs[0])
		if a == nil || !a.launchable {
			return
		}
		launched = p.launchLocked(pkgs[0])
	})
	if !launched {
		io.WriteString(c.stdout, out.String())
		c.errorf("** No activities found to run, monkey aborted.")
		return 252
	}
	out.WriteString("Events injected: 1\n## Network stats: elapsed time=18ms (0ms mobile, 0ms wifi, 18ms not connected)\n")
	io.WriteString(c.stdout, out.String())
	return 0
}
