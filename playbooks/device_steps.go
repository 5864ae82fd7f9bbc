package playbooks

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Device-level steps that Maestro users rely on (deep links, permissions,
// location, airplane mode, keyboard, clipboard, random input). Each step's
// node, parser and code generator sit together. Most compile to adb shell
// commands through device.shell, run by the flow runtime's flow.sh, which
// fails the step on a non-zero exit code or an "Error:" line.

func deviceStepDefs() []*stepDef {
	return []*stepDef{
		define(stepDef{Name: "open_link", Short: "url", Keys: []string{"url", "app", "browser"},
			Doc: "Open a URL or deep link (am start -a android.intent.action.VIEW), optionally in a given app."}, parseOpenLink, genOpenLink),
		define(stepDef{Name: "set_permissions", Keys: []string{"app", "permissions"},
			Doc: "Grant or revoke runtime permissions of an app (pm grant / pm revoke)."}, parseSetPermissions, genSetPermissions),
		define(stepDef{Name: "install_apk", Short: "path", Keys: []string{"path"},
			Doc: "Install an APK: a file next to the playbook (pushed with adb sync) or a path on the device (pm install -r)."}, parseInstallApk, genInstallApk),
		define(stepDef{Name: "set_location", Keys: []string{"latitude", "longitude"},
			Doc: "Set the device's GPS location through a test location provider."}, parseSetLocation, genSetLocation),
		define(stepDef{Name: "airplane_mode", Short: "enabled", Keys: []string{"enabled"},
			Doc: "Turn airplane mode on (true), off (false) or flip it (toggle)."}, parseAirplane, genAirplane),
		define(stepDef{Name: "hide_keyboard", Bare: true,
			Doc: "Close the soft keyboard if it is shown (BACK only when it is up)."}, parseNothing, genHideKeyboard),
		define(stepDef{Name: "set_clipboard", Short: "text", Keys: []string{"text"},
			Doc: "Put text on the device clipboard."}, parseSetClipboard, genSetClipboard),
		define(stepDef{Name: "paste_text", Short: "from", Bare: true, Keys: []string{"from"},
			Doc: "Type the text a copy_text step saved (variable copied_text unless from: names another)."}, parsePasteText, genPasteText),
		define(stepDef{Name: "input_random", Short: "kind", Keys: []string{"kind", "length", "as"},
			Doc: "Type random text, a number, an email address or a person's name; as: keeps it in a variable."}, parseInputRandom, genInputRandom),
		define(stepDef{Name: "assert_screenshot", Short: "reference", Keys: []string{"reference", "tolerance"},
			Doc: "Compare the screen with a reference PNG (relative to the playbook; recorded on the first run) within a tolerance in percent of changed screen; a failure leaves a diff image."}, parseAssertScreenshot, genAssertScreenshot),
		define(stepDef{Name: "set_orientation", Short: "orientation", Keys: []string{"orientation"},
			Doc: "Rotate the screen: portrait, landscape_left, landscape_right or upside_down."}, parseOrientation, genOrientation),
	}
}

// Nodes of the device steps.
type (
	openLinkNode struct {
		URL     *Value
		App     *Value // nil = any app that handles it
		Browser bool   // only browsers (category BROWSABLE)
	}
	setPermissionsNode struct {
		App         *Value // nil = the header's app
		Permissions *Value // {name: grant bool}, from permissionGrants
	}
	installApkNode struct {
		Path *Value // next to the playbook, or absolute on the device
	}
	setLocationNode struct {
		Latitude, Longitude float64
	}
	airplaneNode struct {
		Mode string // enable, disable or toggle
	}
	setClipboardNode struct {
		Text *Value
	}
	pasteTextNode struct {
		From string // the variable holding the text
	}
	inputRandomNode struct {
		Kind   string // one of randomKinds
		Length *Value // an integer or ${expr}; nil = the runtime's default
		As     string // variable that receives the text; "" = none
	}
	assertScreenshotNode struct {
		Reference string  // a .png path inside the playbook's directory
		Tolerance float64 // percent of the screen that may differ
	}
	orientationNode struct {
		Orientation string // a key of orientations
	}
)

func (*openLinkNode) stepNode()         {}
func (*setPermissionsNode) stepNode()   {}
func (*installApkNode) stepNode()       {}
func (*setLocationNode) stepNode()      {}
func (*airplaneNode) stepNode()         {}
func (*setClipboardNode) stepNode()     {}
func (*pasteTextNode) stepNode()        {}
func (*inputRandomNode) stepNode()      {}
func (*assertScreenshotNode) stepNode() {}
func (*orientationNode) stepNode()      {}

func parseOpenLink(p *parser, s *Step, f *fields, n *openLinkNode) {
	n.URL = f.strValue("url")
	n.App = f.strValue("app")
	n.Browser = f.boolean("browser")
	if n.URL == nil {
		p.need(s, f, "open_link needs a url, e.g. `open_link: notes://note/1`")
		return
	}
	s.summary = "open link " + n.URL.Str.Raw
}

func genOpenLink(g *gen, s *Step, n *openLinkNode, id string) {
	cmd := `"am start -W -a android.intent.action.VIEW -d " .. flow.shq(` + g.literal(n.URL) + `)`
	if n.Browser {
		cmd += ` .. " -c android.intent.category.BROWSABLE"`
	}
	if a := n.App; a != nil {
		cmd += ` .. " -p " .. flow.shq(` + g.literal(a) + `)`
	}
	g.use("device")
	g.w.f("flow.sh(%s)", cmd)
	g.settle()
}

// maestroPermissions maps Maestro's permission names to Android ones.
var maestroPermissions = map[string][]string{
	"calendar":      {"android.permission.READ_CALENDAR", "android.permission.WRITE_CALENDAR"},
	"camera":        {"android.permission.CAMERA"},
	"contacts":      {"android.permission.READ_CONTACTS", "android.permission.WRITE_CONTACTS"},
	"location":      {"android.permission.ACCESS_FINE_LOCATION", "android.permission.ACCESS_COARSE_LOCATION"},
	"microphone":    {"android.permission.RECORD_AUDIO"},
	"notifications": {"android.permission.POST_NOTIFICATIONS"},
	"phone":         {"android.permission.CALL_PHONE", "android.permission.READ_PHONE_STATE"},
	"photos":        {"android.permission.READ_MEDIA_IMAGES"},
	"medialibrary":  {"android.permission.READ_MEDIA_AUDIO"},
	"sms":           {"android.permission.SEND_SMS", "android.permission.RECEIVE_SMS", "android.permission.READ_SMS"},
	"storage":       {"android.permission.READ_EXTERNAL_STORAGE", "android.permission.WRITE_EXTERNAL_STORAGE"},
	"bluetooth":     {"android.permission.BLUETOOTH_CONNECT", "android.permission.BLUETOOTH_SCAN"},
}

// permissionGrants parses a permissions mapping ({camera: allow,
// android.permission.X: deny, all: allow}) into a sorted list of
// {name, grant} pairs; "all" is kept as is for the runtime.
func (p *parser) permissionGrants(n *yaml.Node, path string) *Value {
	out := &Value{Kind: VMap, Pos: p.pos(n)}
	if n == nil || n.Kind != yaml.MappingNode {
		p.errAt(n, path, "permissions must be a mapping like {camera: allow, location: deny}, got %s", describeNode(n))
		return out
	}
	var names []string
	grant := map[string]bool{}
	p.eachPair(n, path, func(k string, kn, v *yaml.Node) {
		val := strings.ToLower(p.scalarString(v, path+"."+k))
		if val != "allow" && val != "deny" && val != "unset" {
			p.errAt(v, path, "permission %s must be allow, deny or unset, got %q", k, val)
			return
		}
		var perms []string
		switch {
		case k == "all":
			perms = []string{"all"}
		case strings.Contains(k, "."):
			perms = []string{k}
		default:
			perms = maestroPermissions[strings.ToLower(k)]
			if perms == nil {
				known := make([]string, 0, len(maestroPermissions))
				for name := range maestroPermissions {
					known = append(known, name)
				}
				sort.Strings(known)
				p.errAt(kn, path, "unknown permission %q%s: use a full name like android.permission.CAMERA or one of %s, all",
					k, didYouMean(k, known), strings.Join(known, ", "))
				return
			}
		}
		for _, perm := range perms {
			if _, dup := grant[perm]; !dup {
				names = append(names, perm)
			}
			grant[perm] = val == "allow"
		}
	})
	for _, name := range names {
		out.Keys = append(out.Keys, name)
		out.Map = append(out.Map, &Value{Kind: VBool, Bool: grant[name]})
	}
	return out
}

func parseSetPermissions(p *parser, s *Step, f *fields, node *setPermissionsNode) {
	node.App = f.strValue("app")
	n := f.node("permissions")
	if n == nil {
		p.need(s, f, "set_permissions needs permissions, e.g. `set_permissions: {permissions: {camera: allow}}`")
		return
	}
	node.Permissions = p.permissionGrants(n, s.Path+".permissions")
	s.summary = "set permissions"
}

// permissionCalls renders flow.permissions(pkg, {"name", true, ...}).
func (g *gen) permissionCalls(pkg string, v *Value) {
	var parts []string
	for i, k := range v.Keys {
		parts = append(parts, fmt.Sprintf("%q, %t", k, v.Map[i].Bool))
	}
	g.use("device")
	g.w.f("flow.permissions(%s, {%s})", pkg, strings.Join(parts, ", "))
}

// appPackage renders a step's app package: app when given, else the
// header's app.
func (g *gen) appPackage(s *Step, app *Value) string {
	if app != nil {
		return g.literal(app)
	}
	if g.pb.App == "" {
		g.errAt(s.Pos, s.Path, "%s needs an app package: write app: com.example.app or set app: in the header", s.Kind)
		return `""`
	}
	return strconv.Quote(g.pb.App)
}

func genSetPermissions(g *gen, s *Step, n *setPermissionsNode, id string) {
	g.permissionCalls(g.appPackage(s, n.App), n.Permissions)
}

// launchExtras parses launch's permissions and arguments keys.
func launchExtras(p *parser, s *Step, f *fields, node *appNode) {
	if n := f.node("permissions"); n != nil {
		node.Permissions = p.permissionGrants(n, s.Path+".permissions")
	}
	if n := f.node("arguments"); n != nil {
		if n.Kind != yaml.MappingNode {
			p.errAt(n, s.Path, "arguments must be a mapping of intent extras, e.g. {user: alice, retries: 3}, got %s", describeNode(n))
			return
		}
		node.Arguments = p.value(n, s.Path+".arguments", false)
	}
}

// genLaunchExtras generates a launch with permissions or arguments in
// Maestro's order: stop, clear, grant, start (clearing data resets
// permissions, so they are granted after it). It reports false when the
// launch has neither and the plain app.launch applies.
func (g *gen) genLaunchExtras(n *appNode, pkg string) bool {
	perms, args := n.Permissions, n.Arguments
	if perms == nil && args == nil {
		return false
	}
	app := g.use("app")
	if n.Stop {
		g.w.f("flow.must(%s.stop(%s))", app, pkg)
	}
	if n.ClearState {
		g.w.f("flow.must(%s.clear(%s))", app, pkg)
	}
	if perms != nil {
		g.permissionCalls(pkg, perms)
	}
	if args == nil {
		g.w.f("flow.must(%s.launch(%s))", app, pkg)
		return true
	}
	var parts []string
	for i, k := range args.Keys {
		parts = append(parts, fmt.Sprintf("{%s, %s}", strconv.Quote(k), g.typed(args.Map[i])))
	}
	g.use("device")
	g.w.f("flow.launch_with_extras(%s, {%s})", pkg, strings.Join(parts, ", "))
	return true
}

func parseInstallApk(p *parser, s *Step, f *fields, n *installApkNode) {
	n.Path = f.strValue("path")
	if n.Path == nil {
		p.need(s, f, "install_apk needs an APK, e.g. `install_apk: apks/app.apk` (next to the playbook) or `install_apk: /data/local/tmp/app.apk` (on the device)")
		return
	}
	st, static := n.Path.Str.Static()
	switch {
	case !static && !strings.HasPrefix(n.Path.Str.Raw, "/"):
		p.errAt(f.node("path"), s.Path, "install_apk path %q: a path next to the playbook must be literal", n.Path.Str.Raw)
	case static && !strings.HasPrefix(st, "/") && (strings.HasPrefix(st, "../") || strings.Contains(st, "/../") || st == ".."):
		p.errAt(f.node("path"), s.Path, "install_apk path %q must be inside the playbook's directory", st)
	case static && !strings.HasSuffix(st, ".apk"):
		p.errAt(f.node("path"), s.Path, "install_apk path %q must name an .apk file", st)
	}
	s.summary = "install " + n.Path.Str.Raw
}

// genInstallApk installs an APK on the device; a relative path is a file
// next to the playbook, pushed first to /data/local/tmp with adb sync.
func genInstallApk(g *gen, s *Step, n *installApkNode, id string) {
	g.use("device")
	path := n.Path
	if st, ok := path.Str.Static(); ok && !strings.HasPrefix(st, "/") {
		remote := "/data/local/tmp/" + filepath.Base(st)
		g.w.f("flow.must(%s.push(%s, %s))", g.use("assets"), strconv.Quote(st), strconv.Quote(remote))
		g.w.f(`flow.sh("pm install -r " .. flow.shq(%s))`, strconv.Quote(remote))
		g.w.f(`%s.shell("rm -f " .. flow.shq(%s))`, g.use("device"), strconv.Quote(remote))
		return
	}
	g.w.f(`flow.sh("pm install -r " .. flow.shq(%s))`, g.literal(path))
}

func parseSetLocation(p *parser, s *Step, f *fields, node *setLocationNode) {
	for _, k := range []string{"latitude", "longitude"} {
		n := f.node(k)
		if n == nil {
			p.need(s, f, "set_location needs latitude and longitude, e.g. `set_location: {latitude: 52.52, longitude: 13.40}`")
			return
		}
		v := p.value(n, f.path(k), false)
		limit := 90.0
		if k == "longitude" {
			limit = 180
		}
		num := v.Num
		if v.Kind == VInt {
			num = float64(v.Int)
		} else if v.Kind != VNumber {
			p.errAt(n, s.Path, "%s must be a number, got %s", k, describeNode(n))
			continue
		}
		if math.Abs(num) > limit {
			p.errAt(n, s.Path, "%s must be between -%g and %g, got %g", k, limit, limit, num)
		}
		if k == "latitude" {
			node.Latitude = num
		} else {
			node.Longitude = num
		}
	}
	s.summary = fmt.Sprintf("set location %g,%g", node.Latitude, node.Longitude)
}

func genSetLocation(g *gen, s *Step, n *setLocationNode, id string) {
	g.use("device")
	g.w.f("flow.set_location(%s, %s)", numLit(n.Latitude), numLit(n.Longitude))
}

func parseAirplane(p *parser, s *Step, f *fields, node *airplaneNode) {
	n := f.node("enabled")
	if n == nil {
		p.need(s, f, "airplane_mode needs true, false or toggle")
		return
	}
	mode := strings.ToLower(n.Value)
	switch mode {
	case "true", "on", "enable", "enabled":
		mode = "enable"
	case "false", "off", "disable", "disabled":
		mode = "disable"
	case "toggle":
	default:
		p.errAt(n, s.Path, "airplane_mode must be true, false or toggle, got %q", n.Value)
	}
	node.Mode = mode
	s.summary = "airplane mode " + mode
}

func genAirplane(g *gen, s *Step, n *airplaneNode, id string) {
	g.use("device")
	g.w.f("flow.airplane(%q)", n.Mode)
}

func genHideKeyboard(g *gen, s *Step, _ *bareNode, id string) {
	g.use("device")
	g.w.line("flow.hide_keyboard()")
	g.settle()
}

func parseSetClipboard(p *parser, s *Step, f *fields, n *setClipboardNode) {
	n.Text = f.strValue("text")
	if n.Text == nil {
		p.need(s, f, "set_clipboard needs text, e.g. `set_clipboard: hello`")
		return
	}
	s.summary = "set clipboard " + strconv.Quote(n.Text.Str.Raw)
}

func genSetClipboard(g *gen, s *Step, n *setClipboardNode, id string) {
	g.use("device")
	g.w.f(`flow.sh("cmd clipboard set text " .. flow.shq(%s))`, g.literal(n.Text))
}

func parsePasteText(p *parser, s *Step, f *fields, node *pasteTextNode) {
	name := "copied_text"
	if n := f.node("from"); n != nil {
		name = p.scalarString(n, s.Path+".from")
		p.checkVarName(n, s.Path+".from", "variable", name)
	}
	node.From = name
	s.summary = "paste " + name
}

func genPasteText(g *gen, s *Step, n *pasteTextNode, id string) {
	name := n.From
	g.w.f("if %s == nil then flow.fail(%q) end", name, "paste_text: nothing copied yet ("+name+" is nil; copy_text {as: "+name+"} first)")
	g.w.f("flow.must(%s.type(tostring(%s)))", g.use("device"), name)
	g.settle()
}

var randomKinds = []string{"text", "number", "email", "person_name"}

func parseInputRandom(p *parser, s *Step, f *fields, node *inputRandomNode) {
	kind := "text"
	if n := f.node("kind"); n != nil {
		kind = p.scalarString(n, s.Path+".kind")
		if !contains(randomKinds, kind) {
			p.errAt(n, s.Path, "kind must be one of %s, got %q%s", strings.Join(randomKinds, ", "), kind, didYouMean(kind, randomKinds))
		}
	}
	node.Kind = kind
	if f.has("length") {
		node.Length = f.intValue("length")
	}
	if n := f.node("as"); n != nil {
		name := p.scalarString(n, s.Path+".as")
		if p.checkVarName(n, s.Path+".as", "variable", name) {
			node.As = name
		}
	}
	s.summary = "input random " + kind
}

// assigns declares as: a local of the playbook, like set and copy_text's
// (lint then knows it, and it no longer leaks as a global).
func (n *inputRandomNode) assigns() []string {
	if n.As == "" {
		return nil
	}
	return []string{n.As}
}

func genInputRandom(g *gen, s *Step, n *inputRandomNode, id string) {
	length := "nil"
	if v := n.Length; v != nil {
		length = g.intExpr(v)
	}
	g.use("device")
	g.w.f("local __text = flow.random_text(%q, %s)", n.Kind, length)
	g.w.f("flow.must(device.type(__text))")
	if n.As != "" {
		g.w.f("%s = __text", n.As)
	}
	g.settle()
}

// orientations maps names to Android's user_rotation values.
var orientations = map[string]int{"portrait": 0, "landscape_left": 1, "upside_down": 2, "landscape_right": 3, "landscape": 1}

func parseOrientation(p *parser, s *Step, f *fields, node *orientationNode) {
	n := f.node("orientation")
	if n == nil {
		p.need(s, f, "set_orientation needs portrait, landscape_left, landscape_right or upside_down")
		return
	}
	o := strings.ToLower(n.Value)
	if _, ok := orientations[o]; !ok {
		p.errAt(n, s.Path, "orientation must be portrait, landscape_left, landscape_right or upside_down, got %q", n.Value)
	}
	node.Orientation = o
	s.summary = "orientation " + o
}

func genOrientation(g *gen, s *Step, n *orientationNode, id string) {
	g.use("device")
	g.w.line(`flow.sh("settings put system accelerometer_rotation 0")`)
	g.w.f(`flow.sh("settings put system user_rotation %d")`, orientations[n.Orientation])
	g.settle()
}

func parseAssertScreenshot(p *parser, s *Step, f *fields, node *assertScreenshotNode) {
	n := f.node("reference")
	if n == nil {
		p.need(s, f, "assert_screenshot needs a reference image, e.g. `assert_screenshot: refs/home.png`")
		return
	}
	ref := p.scalarString(n, s.Path+".reference")
	if !strings.HasSuffix(ref, ".png") {
		ref += ".png"
	}
	if strings.HasPrefix(ref, "/") || strings.HasPrefix(ref, "../") || strings.Contains(ref, "/../") {
		p.errAt(n, s.Path, "reference %q must be a path inside the playbook's directory", ref)
	}
	node.Reference = ref
	tol := 1.0
	if t := f.node("tolerance"); t != nil {
		v := p.value(t, f.path("tolerance"), false)
		switch v.Kind {
		case VInt:
			tol = float64(v.Int)
		case VNumber:
			tol = v.Num
		default:
			p.errAt(t, s.Path, "tolerance must be a number (percent of the screen), got %s", describeNode(t))
		}
		if tol < 0 || tol > 100 {
			p.errAt(t, s.Path, "tolerance must be between 0 and 100 (percent), got %g", tol)
		}
	}
	node.Tolerance = tol
	s.summary = "assert screenshot matches " + ref
}

func genAssertScreenshot(g *gen, s *Step, n *assertScreenshotNode, id string) {
	g.w.f("local __r = flow.must(%s.compare(%s, {tolerance = %s}))", g.use("visual"), strconv.Quote(n.Reference), numLit(n.Tolerance))
	// Recording is not a check: the step is a warning, never ✓ passed.
	g.w.f(`if __r.recorded then return flow.warned(%q) end`,
		"recorded, not compared: "+n.Reference+" did not exist, so this screen was saved as the reference (the next run compares against it)")
}
