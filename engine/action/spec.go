package action

// Kind is the value kind of a parameter. Normalized values use one Go type
// per kind (see Action).
type Kind int

// Parameter kinds.
const (
	KindInt    Kind = iota // Go int; JSON integer
	KindNumber             // Go float64; JSON number
	KindString             // Go string
	KindBool               // Go bool
	KindEnum               // Go string, one of Param.Enum
	KindObject             // Go map[string]any, shaped by a nested JSON schema
)

// String returns the kind's name as used in docs and error messages.
func (k Kind) String() string {
	switch k {
	case KindInt:
		return "integer"
	case KindNumber:
		return "number"
	case KindString:
		return "string"
	case KindBool:
		return "boolean"
	case KindEnum:
		return "enum"
	case KindObject:
		return "object"
	}
	return "unknown"
}

// jsonType is the JSON Schema type of the kind.
func (k Kind) jsonType() string {
	switch k {
	case KindEnum:
		return "string"
	default:
		return k.String()
	}
}

// Param describes one parameter of an action.
type Param struct {
	Name     string
	Kind     Kind
	Required bool     // the model/user must supply it (a field without a default in docs/formats.md#actions)
	Default  any      // nil = none; otherwise the normalized Go value used when missing or invalid
	Enum     []string // allowed values for KindEnum
	Min      *float64 // optional lower bound, enforced by executors (not by Normalize)
	Doc      string

	// schema is the nested JSON schema of a KindObject parameter.
	schema func() map[string]any
	// canon canonicalizes an already-coerced value; ok=false marks it invalid.
	canon func(v any) (any, bool)
	// expect replaces the kind phrase in notes and errors ("an Android key code").
	expect string
	// numText lets New accept integral numbers for this string ("12" for 12).
	numText bool
}

// Category groups actions by the executor that runs them.
type Category string

// Action categories.
const (
	CategoryDevice    Category = "device"
	CategoryScript    Category = "script"
	CategoryCoding    Category = "coding"
	CategoryMemory    Category = "memory"
	CategoryHumanAuth Category = "human_auth"
	CategoryControl   Category = "control" // wait, finish
	// CategorySchedule: cron_add, cron_update, cron_list, cron_remove (the
	// gateway's jobs).
	CategorySchedule Category = "schedule"
	// CategoryChat: request_user_input (a question to the person in the
	// chat that started the task).
	CategoryChat Category = "chat"
)

// Spec is one action of the union.
type Spec struct {
	Name     string
	ToolName string // "type_text" for type, else Name
	Category Category
	Doc      string
	Params   []Param
}

// Param returns the parameter called name.
func (s Spec) Param(name string) (Param, bool) {
	for _, p := range s.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// Specs returns every action spec in a stable order. The result is a copy;
// changing it does not change the table.
func Specs() []Spec {
	out := make([]Spec, len(specs))
	for i, s := range specs {
		out[i] = s.clone()
	}
	return out
}

// Lookup returns the spec for an action name or a tool name ("type_text").
func Lookup(name string) (Spec, bool) {
	s := lookup(name)
	if s == nil {
		return Spec{}, false
	}
	return s.clone(), true
}

func lookup(name string) *Spec {
	if i, ok := specIndex[name]; ok {
		return &specs[i]
	}
	return nil
}

func (s Spec) clone() Spec {
	ps := make([]Param, len(s.Params))
	copy(ps, s.Params)
	for i := range ps {
		if ps[i].Enum != nil {
			ps[i].Enum = append([]string(nil), ps[i].Enum...)
		}
		if ps[i].Min != nil {
			m := *ps[i].Min
			ps[i].Min = &m
		}
	}
	s.Params = ps
	return s
}

// index returns the position of the parameter, or -1.
func (s *Spec) index(name string) int {
	for i := range s.Params {
		if s.Params[i].Name == name {
			return i
		}
	}
	return -1
}

func minOf(v float64) *float64 { return &v }

// Parameter constructors keep the table below readable.

func reqInt(name string, def int, doc string) Param {
	return Param{Name: name, Kind: KindInt, Required: true, Default: def, Doc: doc}
}

func optInt(name string, def int, min *float64, doc string) Param {
	return Param{Name: name, Kind: KindInt, Default: def, Min: min, Doc: doc}
}

func reqStr(name string, def any, doc string) Param {
	return Param{Name: name, Kind: KindString, Required: true, Default: def, Doc: doc}
}

func optStr(name, doc string) Param {
	return Param{Name: name, Kind: KindString, Doc: doc}
}

func optBool(name string, def bool, doc string) Param {
	return Param{Name: name, Kind: KindBool, Default: def, Doc: doc}
}

func reasonParam() Param {
	return optStr("reason", "Why this action is taken; shown in logs and history.")
}

func coords(doc string) []Param {
	return []Param{
		reqInt("x1", 0, "Start x "+doc),
		reqInt("y1", 0, "Start y "+doc),
		reqInt("x2", 0, "End x "+doc),
		reqInt("y2", 0, "End y "+doc),
	}
}

const screenSpace = "in screenshot pixels (the scaled screenshot the model sees)."

func with(ps []Param, more ...Param) []Param { return append(ps, more...) }

// Capabilities of request_human_auth (docs/formats.md#actions).
var capabilities = []string{
	"camera", "qr", "microphone", "voice", "nfc", "sms", "2fa", "location",
	"biometric", "notification", "contacts", "calendar", "files", "oauth",
	"payment", "permission", "unknown",
}

// processActions are the sub-commands of the process action.
var processActions = []string{"list", "poll", "log", "write", "kill"}

// specs is the action table: the single source of truth for tool schemas,
// normalization, docs and bindings. Order is the public order of Specs.
var specs = []Spec{
	{
		Name: "tap", ToolName: "tap", Category: CategoryDevice,
		Doc: "Tap a point on the screen. Prefer tap_element when the target is in the element list.",
		Params: []Param{
			reqInt("x", 0, "X coordinate "+screenSpace),
			reqInt("y", 0, "Y coordinate "+screenSpace),
			reasonParam(),
		},
	},
	{
		Name: "tap_element", ToolName: "tap_element", Category: CategoryDevice,
		Doc: "Tap the numbered element from the element list (taps its center).",
		Params: []Param{
			{Name: "elementId", Kind: KindString, Required: true, Default: "", canon: canonElementID, numText: true,
				Doc: "Id (mark number) of the element in the element list, e.g. \"12\"."},
			reasonParam(),
		},
	},
	{
		Name: "swipe", ToolName: "swipe", Category: CategoryDevice,
		Doc: "Swipe (fling) from one point to another, e.g. to scroll.",
		Params: with(coords(screenSpace),
			optInt("durationMs", 300, minOf(100), "Gesture duration in milliseconds."),
			reasonParam()),
	},
	{
		Name: "drag", ToolName: "drag", Category: CategoryDevice,
		Doc: "Drag slowly from one point to another, e.g. to move a slider.",
		Params: with(coords(screenSpace),
			optInt("durationMs", 360, minOf(100), "Gesture duration in milliseconds."),
			reasonParam()),
	},
	{
		Name: "long_press_drag", ToolName: "long_press_drag", Category: CategoryDevice,
		Doc: "Press and hold at the start point, then drag to the end point (e.g. to reorder items).",
		Params: with(coords(screenSpace),
			optInt("holdMs", 450, minOf(120), "How long to hold before moving, in milliseconds."),
			optInt("durationMs", 300, minOf(100), "Duration of the move after the hold, in milliseconds."),
			reasonParam()),
	},
	{
		Name: "type", ToolName: "type_text", Category: CategoryDevice,
		Doc: "Type text into the focused input field.",
		Params: []Param{
			reqStr("text", "", "Text to type; any Unicode."),
			reasonParam(),
		},
	},
	{
		Name: "keyevent", ToolName: "keyevent", Category: CategoryDevice,
		Doc: "Press a hardware or system key.",
		Params: []Param{
			{Name: "keycode", Kind: KindString, Required: true, Default: "KEYCODE_ENTER", canon: canonKeycode, numText: true,
				expect: "an Android key code (KEYCODE_HOME, home or a number)",
				Doc:    "Android key code such as KEYCODE_HOME, KEYCODE_BACK, KEYCODE_ENTER (\"home\" is accepted) or its number."},
			reasonParam(),
		},
	},
	{
		Name: "launch_app", ToolName: "launch_app", Category: CategoryDevice,
		Doc: "Launch an installed app by its package name.",
		Params: []Param{
			reqStr("packageName", "", "Android package name, e.g. com.android.settings."),
			reasonParam(),
		},
	},
	{
		Name: "shell", ToolName: "shell", Category: CategoryDevice,
		Doc: "Run one adb shell command on the device.",
		Params: []Param{
			reqStr("command", "", "Command line run after `adb shell`."),
			{Name: "timeoutSec", Kind: KindInt, Min: minOf(1),
				Doc: "Stop the command after this many seconds and return its output so far (default: the config's device.shellTimeoutSec, 20)."},
			reasonParam(),
		},
	},
	{
		Name: "run_script", ToolName: "run_script", Category: CategoryScript,
		Doc: "Run a short shell script on the host in the sandboxed script executor (allowlisted commands only).",
		Params: []Param{
			reqStr("script", "", "Script text (bash)."),
			optInt("timeoutSec", 60, minOf(1), "Timeout in seconds."),
			reasonParam(),
		},
	},
	{
		Name: "read", ToolName: "read", Category: CategoryCoding,
		Doc: "Read lines of a text file in the workspace.",
		Params: []Param{
			reqStr("path", nil, "File path, relative to the workspace."),
			optInt("from", 1, minOf(1), "First line to read (1-based)."),
			optInt("lines", 200, minOf(1), "Number of lines to read."),
			reasonParam(),
		},
	},
	{
		Name: "write", ToolName: "write", Category: CategoryCoding,
		Doc: "Write (or append to) a text file in the workspace.",
		Params: []Param{
			reqStr("path", nil, "File path, relative to the workspace."),
			reqStr("content", "", "Text to write."),
			optBool("append", false, "Append instead of replacing the file."),
			reasonParam(),
		},
	},
	{
		Name: "edit", ToolName: "edit", Category: CategoryCoding,
		Doc: "Replace text in a workspace file; fails when the text to find is absent.",
		Params: []Param{
			reqStr("path", nil, "File path, relative to the workspace."),
			reqStr("find", "", "Exact text to find."),
			reqStr("replace", "", "Replacement text."),
			optBool("replaceAll", false, "Replace every occurrence instead of the first."),
			reasonParam(),
		},
	},
	{
		Name: "apply_patch", ToolName: "apply_patch", Category: CategoryCoding,
		Doc: "Apply a patch in the `*** Begin Patch` / `*** End Patch` format to workspace files.",
		Params: []Param{
			reqStr("input", "", "The whole patch text."),
			reasonParam(),
		},
	},
	{
		Name: "exec", ToolName: "exec", Category: CategoryCoding,
		Doc: "Run a host command in the workspace (foreground, or as a background session).",
		Params: []Param{
			reqStr("command", nil, "Command line, run with bash -lc."),
			optStr("workdir", "Working directory, relative to the workspace."),
			optInt("yieldMs", 0, minOf(0), "Return early after this many milliseconds and keep running in the background (0 = wait)."),
			optBool("background", false, "Start as a background session and return at once."),
			optInt("timeoutSec", 1800, minOf(1), "Timeout in seconds."),
			reasonParam(),
		},
	},
	{
		Name: "process", ToolName: "process", Category: CategoryCoding,
		Doc: "Manage background exec sessions: list, poll, log, write (stdin), kill.",
		Params: []Param{
			{Name: "action", Kind: KindEnum, Required: true, Default: "list", Enum: processActions,
				Doc: "What to do."},
			optStr("sessionId", "Session id (all actions but list)."),
			optStr("input", "Text to write to the session's stdin (write)."),
			optInt("offset", 0, minOf(0), "First log line (log)."),
			optInt("limit", 200, minOf(1), "Number of log lines (log)."),
			optInt("timeoutMs", 0, minOf(0), "How long to wait for new output (poll)."),
			reasonParam(),
		},
	},
	{
		Name: "memory_search", ToolName: "memory_search", Category: CategoryMemory,
		Doc: "Search MEMORY.md and memory/*.md for relevant snippets.",
		Params: []Param{
			reqStr("query", "", "What to search for."),
			optInt("maxResults", 6, minOf(1), "Maximum number of results."),
			{Name: "minScore", Kind: KindNumber, Default: 0.2, Min: minOf(0),
				Doc: "Minimum score (0..1) of a result."},
			reasonParam(),
		},
	},
	{
		Name: "memory_get", ToolName: "memory_get", Category: CategoryMemory,
		Doc: "Read lines of MEMORY.md or a memory/*.md file.",
		Params: []Param{
			reqStr("path", nil, "MEMORY.md or memory/<file>.md."),
			optInt("from", 1, minOf(1), "First line to read (1-based)."),
			optInt("lines", 120, minOf(1), "Number of lines to read."),
			reasonParam(),
		},
	},
	{
		Name: "request_human_auth", ToolName: "request_human_auth", Category: CategoryHumanAuth,
		Doc: "Pause and ask the human to do or approve something the agent cannot (camera, 2FA code, payment, permission...).",
		Params: []Param{
			{Name: "capability", Kind: KindEnum, Required: true, Default: "unknown", Enum: capabilities,
				Doc: "What kind of help is needed."},
			reqStr("instruction", "Human authorization is required to continue.",
				"What the human should do, in one or two sentences."),
			optInt("timeoutSec", 300, minOf(1), "How long to wait for the human, in seconds."),
			reasonParam(),
			{Name: "uiTemplate", Kind: KindObject, schema: uiTemplateSchema,
				Doc: "Optional form shown to the human (title, fields, attachments, style)."},
			optStr("templatePath", "Path of a saved uiTemplate JSON file in the workspace."),
		},
	},
	{
		Name: "request_user_input", ToolName: "request_user_input", Category: CategoryChat,
		Doc: "Ask the person who gave the task a question in their chat and wait for the answer (a choice, a missing detail).",
		Params: []Param{
			optStr("question", "The question, in one or two sentences."),
			optStr("instruction", "The question, when question is absent (upstream's name)."),
			optStr("placeholder", "An example of the expected answer, shown with the question."),
			optBool("secret", true, "false when the answer is not secret (a choice, a size): it is then recorded as given; otherwise sessions and events record only its length."),
			optInt("timeoutSec", 300, minOf(1), "How long to wait for the answer, in seconds."),
			reasonParam(),
		},
	},
	{
		Name: "cron_add", ToolName: "cron_add", Category: CategorySchedule,
		Doc: "Schedule a task to run later or repeatedly; its result goes to the chat that asked.",
		Params: with(append([]Param{
			reqStr("task", "", "What to do each time, in plain words."),
			{Name: "kind", Kind: KindEnum, Default: "cron", Enum: scheduleKinds,
				Doc: "cron: a 5-field cron expression in expr; at: once at the ISO 8601 time in at; every: every everyMs milliseconds."},
		}, scheduleParams()...),
			optStr("name", "Short name of the job."),
			optStr("id", "Id for the job (default: a new one)."),
			scheduleObjectParam(),
			optStr("channel", "Channel the results go to (e.g. telegram; default: the chat that asked)."),
			optStr("to", "Chat id on that channel the results go to."),
			reasonParam(),
		),
	},
	{
		Name: "cron_update", ToolName: "cron_update", Category: CategorySchedule,
		Doc: "Change a scheduled job by id (see cron_list): only the fields given change.",
		Params: with(append([]Param{
			reqStr("id", "", "The job's id."),
			{Name: "kind", Kind: KindEnum, Enum: scheduleKinds, Doc: "New schedule kind (cron, at or every)."},
		}, scheduleParams()...),
			optStr("name", "New name."),
			optStr("task", "New task."),
			Param{Name: "enabled", Kind: KindBool, Doc: "Turn the job on (true) or off (false)."},
			scheduleObjectParam(),
			optStr("channel", "Channel the results go to (e.g. telegram)."),
			optStr("to", "Chat id on that channel the results go to."),
			reasonParam(),
		),
	},
	{
		Name: "cron_list", ToolName: "cron_list", Category: CategorySchedule,
		Doc: "List the scheduled jobs (id, name, schedule, task).",
		Params: []Param{
			reasonParam(),
		},
	},
	{
		Name: "cron_remove", ToolName: "cron_remove", Category: CategorySchedule,
		Doc: "Remove a scheduled job by id (see cron_list).",
		Params: []Param{
			reqStr("id", "", "The job's id."),
			reasonParam(),
		},
	},
	{
		Name: "wait", ToolName: "wait", Category: CategoryControl,
		Doc: "Wait, e.g. for the screen to finish loading.",
		Params: []Param{
			optInt("durationMs", 1000, minOf(100), "How long to wait, in milliseconds."),
			reasonParam(),
		},
	},
	{
		Name: "finish", ToolName: "finish", Category: CategoryControl,
		Doc: "End the task successfully with a short summary.",
		Params: []Param{
			reqStr("message", "Task finished.", "Summary of what was done."),
		},
	},
}

// specIndex maps action names and tool names to positions in specs.
var specIndex = func() map[string]int {
	m := make(map[string]int, 2*len(specs))
	for i, s := range specs {
		m[s.Name] = i
		m[s.ToolName] = i
	}
	return m
}()
