package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openpocket/openpocket/engine/action"
	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
)

// addTools registers every tool.
func (s *Server) addTools() {
	s.add("devices", "List the Android devices attached to the adb server: serial, state, model.", plain(map[string]any{}), s.devices)
	s.add("snapshot", "Look at the screen: the current app, the numbered element list exactly as OpenPocket's agent model reads it (coordinates in the screenshot's pixels), and the screenshot as an image (som: with numbered marks drawn on).",
		object(map[string]any{
			"som":   map[string]any{"type": "boolean", "description": "Draw the set-of-mark overlay (numbered boxes matching the element list) on the screenshot."},
			"fresh": map[string]any{"type": "boolean", "description": "Force a fresh UI dump instead of a cached element list."},
		}), s.snapshot)
	s.add("act", "Execute one device action from OpenPocket's action table (tap, tap_element by mark id from the last snapshot, swipe, drag, long_press_drag, type, keyevent, launch_app, shell, wait). The result says what happened and whether the screen changed (state_delta).",
		actSchema(), s.act)
	s.add("find", "Find an element by selector (the Lua ui.find semantics: polls the UI tree until found or timeout_ms, 5000 by default). Returns the element or a tool error when nothing matches.",
		selectorTool("How long to poll for a match (default 5000)."), s.selectorCall("find"))
	s.add("wait_for", "Wait until an element matching the selector is on screen (the Lua ui.wait semantics), up to timeout_ms (default 5000). Cancel the call to stop waiting.",
		selectorTool("How long to wait (default 5000)."), s.selectorCall("wait"))
	s.add("tap", "Tap the element matching the selector (the Lua ui.tap semantics: waits up to timeout_ms for it, taps the nearest clickable ancestor's center when the match is a label).",
		selectorTool("How long to wait for the element (default 5000)."), s.selectorCall("tap"))
	for _, name := range []string{"type_text", "launch_app"} {
		doc, schema := actionTool(name)
		s.add(name, doc, schema, s.actionShortcut(name))
	}
	s.addRunTools()
}

func (s *Server) devices(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var a struct{}
	if err := decode("devices", req, &a); err != nil {
		return nil, err
	}
	list, err := s.runner.Devices(ctx)
	if err != nil {
		return nil, err
	}
	return jsonResult(map[string]any{"devices": list})
}

type snapshotArgs struct {
	Device string `json:"device"`
	SOM    bool   `json:"som"`
	Fresh  bool   `json:"fresh"`
}

func (s *Server) snapshot(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var a snapshotArgs
	if err := decode("snapshot", req, &a); err != nil {
		return nil, err
	}
	phone, release, err := s.runner.Phone(ctx, a.Device)
	if err != nil {
		return nil, err
	}
	snap, err := phone.Capture(ctx, device.CaptureOptions{Scaled: true, SOM: a.SOM, NoCache: a.Fresh})
	release()
	if err != nil {
		return nil, err
	}
	s.remember(snap)
	img, mime := modelImage(snap, a.SOM)
	return &sdk.CallToolResult{
		Content: []sdk.Content{
			&sdk.TextContent{Text: describeScreen(snap)},
			&sdk.ImageContent{Data: img, MIMEType: mime},
		},
		StructuredContent: snapshotSummary(snap),
	}, nil
}

// modelImage is the screenshot the agent's model would get (scaled, in
// the model profile's format; with the marks drawn on when som), falling
// back to the full-size PNG.
func modelImage(snap *screen.Snapshot, som bool) ([]byte, string) {
	img := snap.ScaledScreenshot
	if som && len(snap.SOMScreenshot) > 0 {
		img = snap.SOMScreenshot
	}
	if len(img) > 0 {
		if mime := screen.SniffImageMIME(img); mime != "" {
			return img, mime
		}
		return img, snap.ImageFormat.MIME()
	}
	return snap.Screenshot, "image/png"
}

// describeScreen is the screen as the agent's model reads it: current
// app, screenshot size and the element block.
func describeScreen(snap *screen.Snapshot) string {
	var b strings.Builder
	app := snap.CurrentApp
	if app == "" {
		app = "unknown"
	}
	fmt.Fprintf(&b, "device %s: current app %s, screenshot %dx%d px (device %dx%d)\n", snap.DeviceID, app, snap.ScaledWidth, snap.ScaledHeight, snap.Width, snap.Height)
	if snap.SecureSurface {
		b.WriteString("The app blocks screenshots (secure surface): the image is black; rely on the element list.\n")
	}
	if len(snap.UIElements) == 0 {
		b.WriteString("\nElements: none detected; use coordinates on the screenshot.\n")
		for _, n := range snap.UINotes {
			b.WriteString(n + "\n")
		}
		return b.String()
	}
	b.WriteString("\nElements (marks on the screenshot; coordinates in screenshot pixels; act with tap_element {elementId} or tap {x, y}):\n")
	b.WriteString(screen.ElementBlock(snap.UIElements, snap.UINotes))
	return b.String()
}

// snapshotSummary is the structured form: app, sizes and the elements.
func snapshotSummary(snap *screen.Snapshot) map[string]any {
	els := make([]map[string]any, 0, len(snap.UIElements))
	for _, e := range snap.UIElements {
		els = append(els, map[string]any{
			"id": e.ID, "text": e.Text, "desc": e.ContentDesc, "resourceId": e.ResourceID, "class": e.ClassName,
			"clickable": e.Clickable, "checked": e.Checked, "center": []int{e.ScaledCenter.X, e.ScaledCenter.Y},
			"line": screen.ElementLine(e),
		})
	}
	out := map[string]any{
		"device": snap.DeviceID, "currentApp": snap.CurrentApp, "width": snap.Width, "height": snap.Height,
		"scaledWidth": snap.ScaledWidth, "scaledHeight": snap.ScaledHeight, "secureSurface": snap.SecureSurface,
		"elements": els, "notes": snap.UINotes,
	}
	if m := snap.CaptureMetrics; m != nil {
		// Where the element list came from ("fresh" UI dump, "cache"…) and
		// what the capture cost: a client polling a static screen sees the
		// server's phone reusing its caches.
		out["elementsSource"], out["captureMs"] = m.UIElementsSource, m.TotalMs
	}
	return out
}

func (s *Server) remember(snap *screen.Snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.marks[snap.DeviceID] = snap
}

func (s *Server) lastSnapshot(serial string) *screen.Snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.marks[serial]
}

type actArgs struct {
	Device string         `json:"device"`
	Action map[string]any `json:"action"`
	Scaled *bool          `json:"scaled"`
}

func (s *Server) act(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var a actArgs
	if err := decode("act", req, &a); err != nil {
		return nil, err
	}
	if a.Action == nil {
		return nil, errors.New(`act: argument "action" is required: {"type": "tap", "x": 100, "y": 200} or {"type": "tap_element", "elementId": "3"}`)
	}
	act, err := newAction(a.Action)
	if err != nil {
		return nil, err
	}
	return s.run(ctx, a.Device, act, a.Scaled)
}

// newAction checks a client's action against the action table strictly:
// unknown types and parameters and wrong types are errors naming them.
func newAction(raw map[string]any) (action.Action, error) {
	typ, _ := raw["type"].(string)
	if typ == "" {
		return action.Action{}, fmt.Errorf(`act: the action needs a "type" (one of %s)`, strings.Join(actableNames(), ", "))
	}
	if spec := specByTool(typ); spec.Name != "" {
		typ = spec.Name // type_text → type
	}
	spec, ok := action.Lookup(typ)
	if !ok || !actable(spec) {
		return action.Action{}, fmt.Errorf("act: unknown action type %q (one of %s)", typ, strings.Join(actableNames(), ", "))
	}
	params := make(map[string]any, len(raw))
	for k, v := range raw {
		if k != "type" {
			params[k] = jsonNumbers(v)
		}
	}
	return action.New(typ, params)
}

// jsonNumbers turns integral JSON numbers into ints, as the action table
// expects for integer parameters.
func jsonNumbers(v any) any {
	if f, ok := v.(float64); ok && f == float64(int(f)) {
		return int(f)
	}
	return v
}

func actableNames() []string {
	var names []string
	for _, sp := range action.Specs() {
		if actable(sp) {
			names = append(names, sp.Name)
		}
	}
	sort.Strings(names)
	return names
}

// run executes one action on the device. tap_element ids and scaled
// coordinates refer to the last snapshot taken on that device; without
// one, tap_element takes a snapshot first so ids mean what snapshot shows.
func (s *Server) run(ctx context.Context, dev string, act action.Action, scaled *bool) (*sdk.CallToolResult, error) {
	phone, release, err := s.runner.Phone(ctx, dev)
	if err != nil {
		return nil, err
	}
	defer release()
	out, err := s.execute(ctx, phone, act, scaled)
	if err != nil {
		return nil, fmt.Errorf("act %s: %w", act.Type, err)
	}
	return textResult(out.Result), nil
}

func (s *Server) execute(ctx context.Context, phone *device.Phone, act action.Action, scaled *bool) (device.Outcome, error) {
	snap := s.lastSnapshot(phone.Serial())
	if snap == nil && act.Type == "tap_element" {
		var err error
		if snap, err = phone.Capture(ctx, device.CaptureOptions{Scaled: true}); err != nil {
			return device.Outcome{}, err
		}
		s.remember(snap)
	}
	useScaled := snap != nil && (scaled == nil || *scaled)
	if !useScaled && act.Type != "tap_element" {
		snap = nil
	}
	return phone.Execute(ctx, act, device.ActOptions{Snapshot: snap, Scaled: useScaled, Observe: true})
}

// actionShortcut is a tool for one action (type_text, launch_app) with
// the spec's own parameters.
func (s *Server) actionShortcut(tool string) handler {
	name := specByTool(tool).Name
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var raw map[string]any
		if err := decode(tool, req, &raw); err != nil {
			return nil, err
		}
		dev, _ := raw["device"].(string)
		if v, ok := raw["device"]; ok && v != nil {
			if _, isStr := v.(string); !isStr {
				return nil, fmt.Errorf("%s: argument \"device\": expected a string (adb serial)", tool)
			}
		}
		delete(raw, "device")
		params := map[string]any{}
		for k, v := range raw {
			params[k] = jsonNumbers(v)
		}
		act, err := action.New(name, params)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", tool, err)
		}
		return s.run(ctx, dev, act, nil)
	}
}

// resultMark prefixes the line a generated helper script prints its
// result on.
const resultMark = "\x1eopenpocket-result "

// selectorScript runs one ui function with a selector (decoded from JSON
// in Lua, so no client text is ever spliced into code) and prints the
// element as JSON.
const selectorScript = `local json = require("json")
local ui = require("ui")
local sel = json.decode(arg[2])
local opts = {}
if arg[3] ~= "" then opts.timeout_ms = tonumber(arg[3]) end
local el, err = ui[arg[1]](sel, opts)
if el == nil then error(err or "not found", 0) end
print("` + "\\30" + `openpocket-result " .. json.encode(el))
`

type selectorArgs struct {
	Device    string          `json:"device"`
	Selector  json.RawMessage `json:"selector"`
	TimeoutMs *int            `json:"timeout_ms"`
}

// selectorCall is find / wait_for / tap: the ui module's function fn run
// by the Lua VM, so the semantics are exactly the module's.
func (s *Server) selectorCall(fn string) handler {
	tool := map[string]string{"find": "find", "wait": "wait_for", "tap": "tap"}[fn]
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var a selectorArgs
		if err := decode(tool, req, &a); err != nil {
			return nil, err
		}
		if err := checkSelector(tool, a.Selector); err != nil {
			return nil, err
		}
		timeout := ""
		if a.TimeoutMs != nil {
			if *a.TimeoutMs < 0 {
				return nil, fmt.Errorf("%s: timeout_ms must not be negative, got %d", tool, *a.TimeoutMs)
			}
			timeout = strconv.Itoa(*a.TimeoutMs)
		}
		out, err := s.runner.RunLua(ctx, a.Device, "mcp-"+tool, []byte(selectorScript), []string{fn, string(a.Selector), timeout}, 0)
		if err != nil {
			return nil, fmt.Errorf("%s: %s", tool, luaMessage(err))
		}
		for _, line := range strings.Split(out, "\n") {
			if rest, ok := strings.CutPrefix(line, resultMark); ok {
				var el any
				if err := json.Unmarshal([]byte(rest), &el); err != nil {
					return nil, fmt.Errorf("%s: element result: %w", tool, err)
				}
				return jsonResult(map[string]any{"element": el})
			}
		}
		return nil, fmt.Errorf("%s: the ui module returned no element", tool)
	}
}

// checkSelector refuses what is not a selector before a VM starts.
func checkSelector(tool string, raw json.RawMessage) error {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil || v == nil {
		return fmt.Errorf(`%s: argument "selector" is required: a string (exact text) or fields such as {"text": "Wi-Fi"} or {"id": "wifi_switch"}`, tool)
	}
	switch x := v.(type) {
	case string:
		if strings.TrimSpace(x) == "" {
			return fmt.Errorf("%s: the selector string is empty (give the text, content-desc or hint to match)", tool)
		}
	case map[string]any:
	default:
		return fmt.Errorf(`%s: argument "selector": expected a string or an object of selector fields, got %s`, tool, action.JSONKind(v))
	}
	return nil
}

// helperPosition is the generated helper's chunk:line, which means
// nothing to the client.
var helperPosition = regexp.MustCompile(`^mcp-(find|wait_for|tap):\d+: `)

// luaMessage is a script error's message without the helper's position.
func luaMessage(err error) string {
	return helperPosition.ReplaceAllString(strings.TrimSpace(err.Error()), "")
}
