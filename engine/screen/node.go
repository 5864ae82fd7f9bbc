package screen

// Node is one <node> of a uiautomator dump, with its whole subtree: unlike
// upstream, containers with children are kept, so a clickable row whose label
// lives in a child TextView is still found. Attrs keeps every attribute that
// has no field of its own (hint, drawing-order, visible-to-user, display-id…).
type Node struct {
	Index         int               `json:"index"`
	Text          string            `json:"text,omitempty"`
	ResourceID    string            `json:"resourceId,omitempty"`
	Class         string            `json:"className,omitempty"`
	Package       string            `json:"package,omitempty"`
	ContentDesc   string            `json:"contentDesc,omitempty"`
	Checkable     bool              `json:"checkable,omitempty"`
	Checked       bool              `json:"checked,omitempty"`
	Clickable     bool              `json:"clickable,omitempty"`
	Enabled       bool              `json:"enabled"`
	Focusable     bool              `json:"focusable,omitempty"`
	Focused       bool              `json:"focused,omitempty"`
	Scrollable    bool              `json:"scrollable,omitempty"`
	LongClickable bool              `json:"longClickable,omitempty"`
	Password      bool              `json:"password,omitempty"`
	Selected      bool              `json:"selected,omitempty"`
	Bounds        Rect              `json:"bounds"`
	Attrs         map[string]string `json:"attrs,omitempty"`
	Children      []*Node           `json:"children,omitempty"`
	Parent        *Node             `json:"-"`
}
