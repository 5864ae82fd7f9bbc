package screen

import (
	"math"
	"regexp"
)

// DefaultElementBudget is the size in characters of the element block the
// model reads (element lines, window headers and notes): 28 element lines
// of the average length over the test screens (103 characters) plus room
// for headers and notes, so a dense screen keeps more short labels and a
// screen of long labels fewer.
const DefaultElementBudget = 3200

// fullscreenRatio is the share of the screen an unlabelled node must cover
// to count as a background surface, not a control.
const fullscreenRatio = 0.85

// ElementOptions configure Select. Width and Height are the device screen
// size (0: the union of the window bounds); ScaleX and ScaleY are device
// pixels per scaled pixel (0: 1), the space the lines' coordinates are in.
type ElementOptions struct {
	Width, Height  int
	ScaleX, ScaleY float64
	// Budget is the size of the element block in characters: element
	// lines, window headers and the notes known before cutting (keyboard,
	// hidden elements); the notes saying what was cut come on top
	// (DefaultElementBudget when 0).
	Budget int
	// MaxElements, when set, also caps the number of elements.
	MaxElements int
	// KeyboardKeys lists a soft keyboard's keys one by one instead of
	// folding the keyboard into KeyboardNote (TaskNeedsKeys decides).
	KeyboardKeys bool
	// Secrets are values the runtime typed for a person (passwords, codes):
	// shown as SecretMask wherever a label holds them. SecretFields are the
	// fields holding them, shown as SecretMask whatever their text.
	Secrets      []string
	SecretFields []SecretField
}

func (o ElementOptions) withDefaults() ElementOptions {
	if o.Budget <= 0 {
		o.Budget = DefaultElementBudget
	}
	if o.ScaleX <= 0 {
		o.ScaleX = 1
	}
	if o.ScaleY <= 0 {
		o.ScaleY = 1
	}
	return o
}

// Selection is what Select keeps of a screen: the numbered elements and
// the notes read after them (KeyboardNote, elements hidden under another
// window, "+14 more rows in list inbox; scroll to see").
type Selection struct {
	Elements []UIElement
	Notes    []string
}

// Elements is Select(root, o).Elements.
func Elements(root *Node, o ElementOptions) []UIElement {
	return Select(root, o).Elements
}

// keyWords are the words of a task that ask for the keyboard's own keys.
var keyWords = regexp.MustCompile(`(?i)\b(keyboard|keys?|keypad|keystrokes?)\b`)

// TaskNeedsKeys reports whether a task talks about the soft keyboard's
// keys ("press the search key", "switch the keyboard to French"): then the
// keys are listed instead of folded.
func TaskNeedsKeys(task string) bool { return keyWords.MatchString(task) }

func scaleCoord(v int, scale float64) int {
	return int(math.Round(float64(v) / scale))
}
