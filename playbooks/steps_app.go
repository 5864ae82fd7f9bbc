package playbooks

import (
	"github.com/openpocket/openpocket/lua/luasrc"
)

// App steps: start, stop and clear an app. Each step's parser and code generator sit together here.

func appStepDefs() []*stepDef {
	return []*stepDef{
		{Name: "launch", Short: "app", Bare: true, Keys: []string{"app", "clear_state", "stop", "permissions", "arguments"}, parse: parseAppStep, gen: genAppStep,
			Doc: "Start an app (default: the header's app), optionally stopping it and clearing its data first."},
		{Name: "stop", Short: "app", Bare: true, Keys: []string{"app"}, parse: parseAppStep, gen: genAppStep, Doc: "Force-stop an app."},
		{Name: "clear_state", Short: "app", Bare: true, Keys: []string{"app"}, parse: parseAppStep, gen: genAppStep, Doc: "Clear an app's data (pm clear)."},
	}
}

func parseAppStep(p *parser, s *Step, f *fields) {
	if a := f.str("app"); a != nil {
		s.Args["app"] = &Value{Kind: VString, Pos: a.Pos, Str: a}
	}
	if s.Kind == "launch" {
		for _, k := range []string{"clear_state", "stop"} {
			if f.has(k) {
				s.Args[k] = &Value{Kind: VBool, Bool: f.boolean(k), Pos: p.pos(f.node(k))}
			}
		}
	}
	if s.Kind == "launch" {
		launchExtras(p, s, f)
	}
	s.summary = s.Kind
	if a := s.Args["app"]; a != nil {
		s.summary += " " + a.Str.Raw
	}
}

func genAppStep(g *gen, s *Step, id string) {
	w := g.w
	pkg := g.argStr(s, "app")
	if pkg == "" {
		if g.pb.App == "" {
			g.errAt(s.Pos, s.Path, "%s needs an app package: write `%s: com.example.app` or set app: in the header", s.Kind, s.Kind)
			return
		}
		pkg = luasrc.Quote(g.pb.App)
	}
	switch s.Kind {
	case "launch":
		o := g.opts("clear", boolLit(s.Args["clear_state"]), "stop", boolLit(s.Args["stop"]))
		if g.genLaunchExtras(s, pkg) {
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
