package playbooks

import (
	"github.com/openpocket/openpocket/lua/luasrc"
)

// App steps: start, stop and clear an app. Each step's node, parser and code generator sit together here.

func appStepDefs() []*stepDef {
	return []*stepDef{
		define(stepDef{Name: "launch", Short: "app", Bare: true, Keys: []string{"app", "clear_state", "stop", "permissions", "arguments"},
			Doc: "Start an app (default: the header's app), optionally stopping it and clearing its data first."}, parseAppStep, genAppStep),
		define(stepDef{Name: "stop", Short: "app", Bare: true, Keys: []string{"app"}, Doc: "Force-stop an app."}, parseAppStep, genAppStep),
		define(stepDef{Name: "clear_state", Short: "app", Bare: true, Keys: []string{"app"}, Doc: "Clear an app's data (pm clear)."}, parseAppStep, genAppStep),
	}
}

// appNode is launch, stop and clear_state.
type appNode struct {
	App        *Value // the package; nil = the header's app
	ClearState bool   // launch: clear the app's data first
	Stop       bool   // launch: force-stop it first
	// launch's Maestro extras: permissions to set and intent extras.
	Permissions *Value // {name: grant bool}, from permissionGrants
	Arguments   *Value // a mapping
}

func (*appNode) stepNode() {}

func parseAppStep(p *parser, s *Step, f *fields, n *appNode) {
	n.App = f.strValue("app")
	if s.Kind == "launch" {
		n.ClearState = f.boolean("clear_state")
		n.Stop = f.boolean("stop")
		launchExtras(p, s, f, n)
	}
	s.summary = s.Kind
	if n.App != nil {
		s.summary += " " + n.App.Str.Raw
	}
}

func genAppStep(g *gen, s *Step, n *appNode, id string) {
	w := g.w
	var pkg string
	switch {
	case n.App != nil:
		pkg = g.literal(n.App)
	case g.pb.App == "":
		g.errAt(s.Pos, s.Path, "%s needs an app package: write `%s: com.example.app` or set app: in the header", s.Kind, s.Kind)
		return
	default:
		pkg = luasrc.Quote(g.pb.App)
	}
	switch s.Kind {
	case "launch":
		o := g.opts("clear", boolLit(n.ClearState), "stop", boolLit(n.Stop))
		if g.genLaunchExtras(n, pkg) {
			g.settle()
		} else if o == "{}" {
			w.f("flow.must(%s.launch(%s))", g.use("app"), pkg)
		} else {
			w.f("flow.must(%s.launch(%s, %s))", g.use("app"), pkg, o)
		}
		g.settle()
	case "stop":
		w.f("flow.must(%s.stop(%s))", g.use("app"), pkg)
	default:
		w.f("flow.must(%s.clear(%s))", g.use("app"), pkg)
	}
}
