package stdlib

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/openpocket/openpocket/engine/device"
	"github.com/openpocket/openpocket/engine/screen"
	"github.com/openpocket/openpocket/lua"
)

// Sel is a compiled selector as Lua sees it (ui.sel objects).
type Sel struct {
	S screen.Selector
	M *screen.Matcher
}

// String renders the selector with the Lua field names, e.g.
// `text="Save" below(id="title")`.
func (s *Sel) String() string { return luaFieldNames(s.S.String()) }

// Find is the first match in root (device.Finder).
func (s *Sel) Find(root *screen.Node) *screen.Node { return s.M.Find(root) }

var _ device.Finder = (*Sel)(nil)

var (
	selOnce  sync.Once
	selTypeV *lua.UserDataType[*Sel]
)

// selUD is the selector userdata type (built on first use: its methods
// create selectors, which a package-level initializer cannot refer to).
func selUD() *lua.UserDataType[*Sel] {
	selOnce.Do(func() { selTypeV = newSelType() })
	return selTypeV
}

func newSelType() *lua.UserDataType[*Sel] {
	return &lua.UserDataType[*Sel]{
		Name: "openpocket.ui.selector",
		Methods: map[string]func(*lua.LState, *Sel) int{
			"below":    relMethod("below", func(s *screen.Selector, r *screen.Selector) { s.Below = r }),
			"above":    relMethod("above", func(s *screen.Selector, r *screen.Selector) { s.Above = r }),
			"left_of":  relMethod("left_of", func(s *screen.Selector, r *screen.Selector) { s.LeftOf = r }),
			"right_of": relMethod("right_of", func(s *screen.Selector, r *screen.Selector) { s.RightOf = r }),
			"child_of": relMethod("child_of", func(s *screen.Selector, r *screen.Selector) { s.ChildOf = r }),
			"contains": relMethod("contains", func(s *screen.Selector, r *screen.Selector) { s.Contains = r }),
			"contains_child": relMethod("contains_child", func(s *screen.Selector, r *screen.Selector) {
				s.ContainsChild = r
			}),
			"index": func(L *lua.LState, s *Sel) int {
				n := L.CheckInt(2)
				c := s.S
				c.Index = screen.Int(n)
				return pushSel(L, "sel:index", c)
			},
		},
		Meta: map[string]lua.LGFunction{
			"__tostring": func(L *lua.LState) int {
				if ud, ok := L.Get(1).(*lua.LUserData); ok {
					if s, ok := ud.Value.(*Sel); ok {
						return pushStr(L, s.String())
					}
				}
				return pushStr(L, "selector")
			},
		},
	}
}

func relMethod(name string, set func(s, ref *screen.Selector)) func(*lua.LState, *Sel) int {
	return func(L *lua.LState, s *Sel) int {
		ref := checkSel(L, 2, "sel:"+name)
		c := s.S
		r := ref.S
		set(&c, &r)
		return pushSel(L, "sel:"+name, c)
	}
}

func pushSel(L *lua.LState, fn string, s screen.Selector) int {
	m, err := s.Compile()
	if err != nil {
		return lua.Raisef(L, "%s: %s", fn, luaSelErr(err))
	}
	return selUD().Push(L, &Sel{S: s, M: m})
}

// luaSelErr rewrites screen's camelCase field names to the Lua ones.
func luaSelErr(err error) string {
	return luaFieldNames(strings.TrimPrefix(err.Error(), "screen: "))
}

// luaFieldNames rewrites the camelCase field names in text from
// engine/screen (Selector.String, Compile errors) to the Lua names,
// leaving quoted values such as text="leftOf" as they are.
func luaFieldNames(text string) string {
	var b strings.Builder
	for text != "" {
		i := strings.IndexByte(text, '"')
		if i < 0 {
			break
		}
		b.WriteString(camelFields.Replace(text[:i]))
		q, err := strconv.QuotedPrefix(text[i:])
		if err != nil { // an unpaired quote: treat the rest as unquoted
			text = text[i:]
			break
		}
		b.WriteString(q)
		text = text[i+len(q):]
	}
	b.WriteString(camelFields.Replace(text))
	return b.String()
}

var camelFields = strings.NewReplacer(
	"textContains", "text_contains", "textRegex", "text_regex", "descContains", "desc_contains",
	"leftOf", "left_of", "rightOf", "right_of", "childOf", "child_of",
	"idRegex", "id_regex", "containsChild", "contains_child",
)

// selFields are the keys a selector table accepts.
var selFields = []string{
	"text", "text_contains", "text_regex", "id", "id_regex", "desc", "desc_contains", "class", "package", "index",
	"clickable", "enabled", "checked", "focused", "selected", "scrollable", "checkable",
	"below", "above", "left_of", "right_of", "child_of", "contains", "contains_child",
}

// checkSel reads a selector argument: a string (exact text, content-desc
// or hint), a table of fields or a ui.sel object. Anything else, an
// unknown field or an invalid selector raises naming fn.
func checkSel(L *lua.LState, idx int, fn string) *Sel {
	if s, ok := selUD().Test(L, idx); ok {
		return s
	}
	s, err := toSelector(L, L.Get(idx), 0)
	if err != nil {
		L.ArgError(idx, fmt.Sprintf("%s: %v", fn, err))
	}
	m, err := s.Compile()
	if err != nil {
		L.ArgError(idx, fmt.Sprintf("%s: %s", fn, luaSelErr(err)))
	}
	return &Sel{S: s, M: m}
}

func toSelector(L *lua.LState, v lua.LValue, depth int) (screen.Selector, error) {
	var s screen.Selector
	if depth > 16 {
		return s, fmt.Errorf("selector relations nested more than 16 deep")
	}
	switch x := v.(type) {
	case lua.LString:
		if strings.TrimSpace(string(x)) == "" {
			return s, fmt.Errorf("selector string is empty (give the text, content-desc or hint to match)")
		}
		s.Text = string(x)
		return s, nil
	case *lua.LUserData:
		if sel, ok := selUD().Is(L, x); ok {
			return sel.S, nil
		}
	case *lua.LTable:
		return tableSelector(L, x, depth)
	}
	return s, fmt.Errorf("selector expected (a string, a table of fields or ui.sel), got %s", v.Type())
}

func tableSelector(L *lua.LState, t *lua.LTable, depth int) (screen.Selector, error) {
	var s screen.Selector
	var err error
	strs := map[string]*string{"text": &s.Text, "text_contains": &s.TextContains, "text_regex": &s.TextRegex, "id": &s.ID,
		"id_regex": &s.IDRegex, "desc": &s.Desc, "desc_contains": &s.DescContains, "class": &s.Class, "package": &s.Package}
	bools := map[string]**bool{"clickable": &s.Clickable, "enabled": &s.Enabled, "checked": &s.Checked, "focused": &s.Focused,
		"selected": &s.Selected, "scrollable": &s.Scrollable, "checkable": &s.Checkable}
	rels := map[string]**screen.Selector{"below": &s.Below, "above": &s.Above, "left_of": &s.LeftOf, "right_of": &s.RightOf,
		"child_of": &s.ChildOf, "contains": &s.Contains, "contains_child": &s.ContainsChild}
	t.ForEach(func(k, v lua.LValue) {
		if err != nil {
			return
		}
		if n, ok := k.(lua.LNumber); ok && n == 1 { // ui.sel{"Save"}
			err = selStr("[1]", &s.Text, v)
			return
		}
		key, ok := k.(lua.LString)
		if !ok {
			err = fmt.Errorf("unknown selector field %s (valid: %s)", k.String(), strings.Join(selFields, ", "))
			return
		}
		name := string(key)
		if dst, ok := strs[name]; ok {
			err = selStr(name, dst, v)
		} else if dst, ok := bools[name]; ok {
			err = selBool(name, dst, v)
		} else if name == "index" {
			err = selIndex(&s, v)
		} else if list, ok := selectorList(v); ok && name == "contains" {
			// contains = {sel, sel, …}: every one is a descendant.
			s.ContainsAll, err = selList(L, list, depth)
		} else if dst, ok := rels[name]; ok {
			err = selRel(L, name, dst, v, depth)
		} else {
			err = fmt.Errorf("unknown selector field %q (valid: %s)", name, strings.Join(selFields, ", "))
		}
	})
	return s, err
}

func selStr(key string, dst *string, v lua.LValue) error {
	str, ok := v.(lua.LString)
	if !ok {
		return fmt.Errorf("selector field %s: string expected, got %s", key, v.Type())
	}
	*dst = string(str)
	return nil
}

func selBool(key string, dst **bool, v lua.LValue) error {
	b, ok := v.(lua.LBool)
	if !ok {
		return fmt.Errorf("selector field %s: boolean expected, got %s", key, v.Type())
	}
	*dst = screen.Bool(bool(b))
	return nil
}

func selIndex(s *screen.Selector, v lua.LValue) error {
	n, ok := v.(lua.LNumber)
	if !ok || float64(n) != float64(int(n)) {
		return fmt.Errorf("selector field index: integer expected, got %s", v.String())
	}
	s.Index = screen.Int(int(n))
	return nil
}

func selRel(L *lua.LState, key string, dst **screen.Selector, v lua.LValue, depth int) error {
	r, err := toSelector(L, v, depth+1)
	if err != nil {
		return fmt.Errorf("selector field %s: %v", key, err)
	}
	*dst = &r
	return nil
}

func selList(L *lua.LState, list []lua.LValue, depth int) ([]*screen.Selector, error) {
	var out []*screen.Selector
	for i, item := range list {
		r, err := toSelector(L, item, depth+1)
		if err != nil {
			return nil, fmt.Errorf("selector field contains[%d]: %v", i+1, err)
		}
		out = append(out, &r)
	}
	return out, nil
}

// elementTable renders a tree node as the element table of the docs:
// {text, desc, id, class, package, clickable, enabled, checked, focused,
// selected, scrollable, bounds, center} plus hint and label.
func elementTable(L *lua.LState, n *screen.Node) *lua.LTable {
	t := L.CreateTable(0, 16)
	t.RawSetString("text", lua.LString(n.Text))
	t.RawSetString("desc", lua.LString(n.ContentDesc))
	t.RawSetString("id", lua.LString(n.ResourceID))
	t.RawSetString("class", lua.LString(n.Class))
	t.RawSetString("package", lua.LString(n.Package))
	t.RawSetString("hint", lua.LString(n.Hint()))
	t.RawSetString("label", lua.LString(n.Label()))
	t.RawSetString("clickable", lua.LBool(n.Clickable))
	t.RawSetString("enabled", lua.LBool(n.Enabled))
	t.RawSetString("checked", lua.LBool(n.Checked))
	t.RawSetString("focused", lua.LBool(n.Focused))
	t.RawSetString("selected", lua.LBool(n.Selected))
	t.RawSetString("scrollable", lua.LBool(n.Scrollable))
	t.RawSetString("password", lua.LBool(n.Password))
	t.RawSetString("bounds", rectTable(L, n.Bounds))
	t.RawSetString("center", pointTable(L, n.Center()))
	return t
}

func elementsTable(L *lua.LState, nodes []*screen.Node) *lua.LTable {
	t := L.CreateTable(len(nodes), 0)
	for i, n := range nodes {
		t.RawSetInt(i+1, elementTable(L, n))
	}
	return t
}

// screenShows describes a tree for failure messages (device.ScreenShows).
func screenShows(root *screen.Node) string { return device.ScreenShows(root) }

// selectorList reports whether v is a list of selectors ({{text = "A"},
// {id = "b"}} or {"A", "B"}) rather than one selector table ({"A"} or
// {text = "A"}).
func selectorList(v lua.LValue) ([]lua.LValue, bool) {
	t, ok := v.(*lua.LTable)
	if !ok || t.Len() == 0 {
		return nil, false
	}
	mixed := false
	t.ForEach(func(k, _ lua.LValue) {
		if _, isNum := k.(lua.LNumber); !isNum {
			mixed = true // {text = "A", {…}} is one selector, not a list
		}
	})
	if mixed {
		return nil, false
	}
	var items []lua.LValue
	for i := 1; i <= t.Len(); i++ {
		item := t.RawGetInt(i)
		switch item.(type) {
		case *lua.LTable, *lua.LUserData:
		case lua.LString:
			if t.Len() == 1 {
				return nil, false // {"Save"}: one text selector
			}
		default:
			return nil, false
		}
		items = append(items, item)
	}
	return items, true
}
