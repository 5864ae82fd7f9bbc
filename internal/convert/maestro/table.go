package maestro

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// command is one Maestro command as written: its name, its value (a
// scalar, a mapping or null for a bare command) and the list item.
type command struct {
	name      string
	val, item *yaml.Node
}

func (c command) isMap() bool  { return c.val.Kind == yaml.MappingNode }
func (c command) scalar() bool { return c.val.Kind == yaml.ScalarNode && c.val.Tag != "!!null" }

type converter func(fc *flowConv, c command) []*yaml.Node

func one(n *yaml.Node) []*yaml.Node { return []*yaml.Node{n} }

// commandTable maps every command of Maestro's public command reference to
// its conversion. It is filled in init because conversions of nested
// commands (repeat, retry, runFlow) refer back to it.
var commandTable map[string]converter

func init() {
	simple := func(kind string, short string) converter {
		return func(fc *flowConv, c command) []*yaml.Node {
			if short == "" {
				return one(step(kind, nil))
			}
			return one(step(kind, str(fc.text(scalarOr(c.val, short))), common(c.val)...))
		}
	}
	appStep := func(kind string) converter {
		return func(fc *flowConv, c command) []*yaml.Node {
			switch {
			case c.scalar():
				return one(step(kind, str(c.val.Value)))
			case c.isMap():
				return one(step(kind, mapping(pair{"app", strOrNil(mapGet(c.val, "appId"))}), common(c.val)...))
			}
			return one(step(kind, nil))
		}
	}
	assertSel := func(kind string) converter {
		return func(fc *flowConv, c command) []*yaml.Node {
			sel, rest := fc.selector(c.val, kind == "assert_visible")
			fc.unused(c.val, rest)
			return one(step(kind, sel, common(c.val)...))
		}
	}
	uiMode := func(want string) converter {
		return func(fc *flowConv, c command) []*yaml.Node {
			code := str(fmt.Sprintf("local mode = flow.sh(\"cmd uimode night\")\nif not mode:match(\"Night mode: %s\") then flow.fail(\"%s failed: \" .. mode) end\n", want, c.name))
			code.Style = yaml.LiteralStyle
			return one(step("lua", code, common(c.val)...))
		}
	}
	randomInput := func(kind string) converter {
		return func(fc *flowConv, c command) []*yaml.Node {
			m := mapping(pair{"kind", str(kind)}, pair{"length", intOrNil(mapGet(c.val, "length"))})
			return one(step("input_random", m, common(c.val)...))
		}
	}
	recording := func(fc *flowConv, c command) []*yaml.Node {
		return one(note(c.name + ": use `openpocket play --record` to record the run (kept on failure)"))
	}
	commandTable = map[string]converter{
		"launchApp":  func(fc *flowConv, c command) []*yaml.Node { return one(fc.launch(c.val)) },
		"stopApp":    appStep("stop"),
		"killApp":    appStep("stop"),
		"clearState": appStep("clear_state"),
		"clearKeychain": func(fc *flowConv, c command) []*yaml.Node {
			return one(note("clearKeychain: iOS only; nothing to do on Android"))
		},
		"tapOn":                 func(fc *flowConv, c command) []*yaml.Node { return one(fc.tap(c.name, c.val)) },
		"doubleTapOn":           func(fc *flowConv, c command) []*yaml.Node { return one(fc.tap(c.name, c.val)) },
		"longPressOn":           func(fc *flowConv, c command) []*yaml.Node { return one(fc.tap(c.name, c.val)) },
		"assertVisible":         assertSel("assert_visible"),
		"assertNotVisible":      assertSel("assert_not_visible"),
		"assertTrue":            convertAssertTrue,
		"assertWithAI":          convertAssertWithAI,
		"assertNoDefectsWithAI": convertNoDefectsWithAI,
		"extractTextWithAI":     convertExtractWithAI,
		"assertScreenshot":      func(fc *flowConv, c command) []*yaml.Node { return one(fc.assertScreenshot(c.val)) },
		"assertDarkMode":        uiMode("yes"),
		"assertLightMode":       uiMode("no"),
		"back":                  simple("back", ""),
		"hideKeyboard":          simple("hide_keyboard", ""),
		"pasteText":             simple("paste_text", ""),
		"inputText":             simple("input", "text"),
		"setClipboard":          simple("set_clipboard", "text"),
		"copyTextFrom": func(fc *flowConv, c command) []*yaml.Node {
			sel, rest := fc.selector(c.val, false)
			fc.unused(c.val, rest)
			fc.locals["copied_text"] = true
			return one(step("copy_text", sel, append(common(c.val), pair{"as", str("copied_text")})...))
		},
		"evalScript": func(fc *flowConv, c command) []*yaml.Node {
			js := strings.TrimSpace(c.val.Value)
			if strings.HasPrefix(js, "${") && strings.HasSuffix(js, "}") {
				js = js[2 : len(js)-1]
			}
			return one(fc.script(c.val, js, "evalScript"))
		},
		"runScript":             func(fc *flowConv, c command) []*yaml.Node { return one(fc.runScript(c.val)) },
		"eraseText":             convertErase,
		"extendedWaitUntil":     func(fc *flowConv, c command) []*yaml.Node { return one(fc.waitUntil(c.val)) },
		"waitForAnimationToEnd": convertWaitIdle,
		"inputRandomText":       randomInput("text"),
		"inputRandomNumber":     randomInput("number"),
		"inputRandomEmail":      randomInput("email"),
		"inputRandomPersonName": randomInput("person_name"),
		"openLink":              convertOpenLink,
		"pressKey": func(fc *flowConv, c command) []*yaml.Node {
			return one(step("key", str(scalarOr(c.val, "key").Value), common(c.val)...))
		},
		"scroll":             func(fc *flowConv, c command) []*yaml.Node { return one(step("swipe", str("up"), common(c.val)...)) },
		"scrollUntilVisible": func(fc *flowConv, c command) []*yaml.Node { return one(fc.scrollUntil(c.val)) },
		"swipe":              func(fc *flowConv, c command) []*yaml.Node { return one(fc.swipe(c.val)) },
		"setAirplaneMode": func(fc *flowConv, c command) []*yaml.Node {
			return one(step("airplane_mode", boolNode(strings.EqualFold(c.val.Value, "enabled") || c.val.Value == "true")))
		},
		"toggleAirplaneMode": func(fc *flowConv, c command) []*yaml.Node {
			return one(step("airplane_mode", str("toggle")))
		},
		"setLocation": func(fc *flowConv, c command) []*yaml.Node {
			loc := mapping(pair{"latitude", number(mapGet(c.val, "latitude"))}, pair{"longitude", number(mapGet(c.val, "longitude"))})
			return one(step("set_location", loc, common(c.val)...))
		},
		"travel": func(fc *flowConv, c command) []*yaml.Node { return fc.travel(c.val) },
		"setOrientation": func(fc *flowConv, c command) []*yaml.Node {
			return one(step("set_orientation", str(strings.ToLower(scalarOr(c.val, "orientation").Value))))
		},
		"setPermissions": func(fc *flowConv, c command) []*yaml.Node {
			m := mapping(pair{"app", strOrNil(mapGet(c.val, "appId"))}, pair{"permissions", fc.permissions(mapGet(c.val, "permissions"))})
			return one(step("set_permissions", m))
		},
		"takeScreenshot": func(fc *flowConv, c command) []*yaml.Node {
			return one(step("screenshot", str(strings.TrimSuffix(scalarOr(c.val, "path").Value, ".png"))))
		},
		"startRecording": recording,
		"stopRecording":  recording,
		"addMedia": func(fc *flowConv, c command) []*yaml.Node {
			return one(fc.todo(c.item, "addMedia needs host files pushed to the device (adb push, then a media scan)", yamlText(c.val)))
		},
		"repeat":  func(fc *flowConv, c command) []*yaml.Node { return one(fc.repeat(c.val)) },
		"retry":   func(fc *flowConv, c command) []*yaml.Node { return one(fc.retry(c.val)) },
		"runFlow": func(fc *flowConv, c command) []*yaml.Node { return fc.runFlow(c.val) },
	}
}

func convertAssertTrue(fc *flowConv, c command) []*yaml.Node {
	cond := c.val
	if c.isMap() {
		cond = mapGet(c.val, "condition")
	}
	if lua, ok := fc.cond(cond); ok {
		return one(step("assert", str(lua), common(c.val)...))
	}
	return one(fc.todo(c.item, "assertTrue condition", cond.Value))
}

func convertErase(fc *flowConv, c command) []*yaml.Node {
	switch {
	case c.scalar():
		return one(step("erase", raw("!!int", c.val.Value)))
	case c.isMap() && mapGet(c.val, "charactersToErase").Kind != 0:
		return one(step("erase", raw("!!int", mapGet(c.val, "charactersToErase").Value), common(c.val)...))
	}
	return one(step("erase", nil))
}

func convertWaitIdle(fc *flowConv, c command) []*yaml.Node {
	var extra []pair
	if t := mapGet(c.val, "timeout"); t.Kind == yaml.ScalarNode {
		extra = append(extra, pair{"timeout", str(t.Value + "ms")})
	}
	return one(step("wait_idle", nil, extra...))
}

func convertOpenLink(fc *flowConv, c command) []*yaml.Node {
	m := mapping(pair{"url", str(fc.text(scalarOr(c.val, "link")))})
	if b := mapGet(c.val, "browser"); b.Value == "true" {
		m.Content = append(m.Content, str("browser"), boolNode(true))
	}
	if a := mapGet(c.val, "autoVerify"); a.Value == "true" {
		fc.warn(a, "autoVerify (accept the app-link chooser) is not automatic; add a tap on the chooser if one appears")
	}
	return one(step("open_link", m, common(c.val)...))
}
