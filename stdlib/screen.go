package stdlib

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/lua"
)

// Snap is a snapshot as Lua sees it: the capture plus lazily built field
// tables (built once per snapshot object).
type Snap struct {
	S      *screen.Snapshot
	fields map[string]lua.LValue
	host   *phoneHost
}

// String describes the snapshot ("snapshot com.app 1080x2400, 12 elements").
func (s *Snap) String() string {
	return fmt.Sprintf("snapshot %s %dx%d, %d elements", s.S.CurrentApp, s.S.Width, s.S.Height, len(s.S.UIElements))
}

var snapMethods = map[string]func(*lua.LState, *Snap) int{
	"save":     snapSave,
	"find":     snapFind,
	"find_all": snapFindAll,
}

// snapType serves methods and fields through one __index (which replaces
// a Methods table), so both are built once per snapshot object.
var snapType = &lua.UserDataType[*Snap]{
	Name: "openpocket.screen.snapshot",
	Meta: map[string]lua.LGFunction{
		"__index": func(L *lua.LState) int {
			L.Push(checkSnap(L, 1).field(L, L.CheckString(2)))
			return 1
		},
		"__tostring": func(L *lua.LState) int {
			return pushStr(L, checkSnap(L, 1).String())
		},
	},
}

// checkSnap reads a snapshot argument (the metamethods cannot use
// snapType.Check: it would make snapType's initializer refer to itself).
func checkSnap(L *lua.LState, idx int) *Snap {
	if ud, ok := L.Get(idx).(*lua.LUserData); ok {
		if s, ok := ud.Value.(*Snap); ok {
			return s
		}
	}
	L.ArgError(idx, "openpocket.screen.snapshot expected, got "+L.Get(idx).Type().String())
	return nil
}

// field returns a snapshot field or method (nil for unknown keys).
func (s *Snap) field(L *lua.LState, key string) lua.LValue {
	if v, ok := s.fields[key]; ok {
		return v
	}
	var v lua.LValue = lua.LNil
	sn := s.S
	switch key {
	case "app":
		v = lua.LString(sn.CurrentApp)
	case "width":
		v = lua.LNumber(sn.Width)
	case "height":
		v = lua.LNumber(sn.Height)
	case "scaled_width":
		v = lua.LNumber(sn.ScaledWidth)
	case "scaled_height":
		v = lua.LNumber(sn.ScaledHeight)
	case "scale_x":
		v = lua.LNumber(sn.ScaleX)
	case "scale_y":
		v = lua.LNumber(sn.ScaleY)
	case "hash":
		if sn.CaptureMetrics != nil {
			v = lua.LString(sn.CaptureMetrics.VisualHash)
		}
	case "secure":
		v = lua.LBool(sn.SecureSurface)
	case "device_id":
		v = lua.LString(sn.DeviceID)
	case "captured_at":
		v = lua.LString(sn.CapturedAt)
	case "installed":
		if sn.InstalledPackages != nil {
			v = lua.ToLua(L, sn.InstalledPackages)
		}
	case "elements":
		t := L.CreateTable(len(sn.UIElements), 0)
		for i := range sn.UIElements {
			t.RawSetInt(i+1, uiElementTable(L, &sn.UIElements[i]))
		}
		v = t
	case "metrics":
		v = metricsTable(L, sn.CaptureMetrics)
	default:
		m, ok := snapMethods[key]
		if !ok {
			return lua.LNil
		}
		v = L.NewFunction(func(L *lua.LState) int { return m(L, checkSnap(L, 1)) })
	}
	if s.fields == nil {
		s.fields = map[string]lua.LValue{}
	}
	s.fields[key] = v
	return v
}

// metricsTable renders capture metrics with snake_case keys.
func metricsTable(L *lua.LState, m *screen.CaptureMetrics) lua.LValue {
	if m == nil {
		return lua.LNil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return lua.LNil
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		return lua.LNil
	}
	t := L.CreateTable(0, len(raw))
	for k, v := range raw {
		t.RawSetString(snake(k), lua.ToLua(L, v))
	}
	return t
}

func openScreen(vm *lua.VM) (lua.LValue, error) {
	e := phoneHostOf(vm)
	return vm.NewModule(map[string]lua.LGFunction{
		// screen.capture({som, scaled, fresh}) → snapshot or nil, err.
		"capture": func(L *lua.LState) int {
			o := lua.CheckOptions(L, 1)
			co := device.CaptureOptions{
				SOM:     o.Bool("som", false),
				Scaled:  o.Bool("scaled", false),
				NoCache: o.Bool("fresh", false),
			}
			o.Check()
			p, err := e.Phone(L, "screen.capture")
			if err != nil {
				return lua.ReturnErr(L, err)
			}
			snap, err := p.Capture(lua.Context(L), co)
			if err != nil {
				return fail(L, "screen.capture", err)
			}
			e.lastSnap = snap
			return snapType.Push(L, &Snap{S: snap, host: e})
		},
	}), nil
}

// snap:save([path]) → path or nil, err. A relative path goes under the
// run's artifacts directory (a playbook's report directory, else the
// workspace) when there is one (it may not leave it), else under the
// current directory; the default is screenshots/capture-<time>.png.
func snapSave(L *lua.LState, s *Snap) int {
	name := L.OptString(2, "")
	if name == "" {
		name = filepath.Join("screenshots", "capture-"+time.Now().UTC().Format("20060102-150405.000")+".png")
	}
	png, err := s.S.FullPNG()
	if err != nil {
		return fail(L, "snap:save", err)
	}
	dst, err := writeArtifact(s.host.workspaceRoot(), name, png)
	if errors.Is(err, errLeavesRoot) {
		return lua.Raisef(L, "snap:save: %v", err)
	}
	if err != nil {
		return fail(L, "snap:save", err)
	}
	return pushStr(L, dst)
}

func (e *phoneHost) workspaceRoot() string {
	if e == nil {
		return ""
	}
	if s := e.Session(); s != nil {
		return s.ArtifactsDir()
	}
	return ""
}

// snap:find(sel) → element or nil, err (on this snapshot's tree).
func snapFind(L *lua.LState, s *Snap) int {
	sel := checkSel(L, 2, "snap:find")
	if s.S.Tree == nil {
		return lua.ReturnErr(L, fmt.Errorf("snap:find: the snapshot has no UI tree"))
	}
	n := sel.M.Find(s.S.Tree)
	if n == nil {
		return lua.ReturnErr(L, fmt.Errorf("%w: %s; %s", errNotFound, sel, screenShows(s.S.Tree)))
	}
	L.Push(elementTable(L, n))
	return 1
}

// snap:find_all(sel) → array of elements.
func snapFindAll(L *lua.LState, s *Snap) int {
	sel := checkSel(L, 2, "snap:find_all")
	L.Push(elementsTable(L, sel.M.FindAll(s.S.Tree)))
	return 1
}
