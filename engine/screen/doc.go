// Package screen is the snapshot model: what the runtime sees of a device at
// one moment (screenshot, UI element tree, numbered interactive elements,
// capture metrics), plus the pure functions over it — uiautomator XML parsing,
// element scoring and numbering, scaling, the visual hash, the set-of-mark
// overlay and selectors. It imports the standard library and its own
// engine/screen/imagecodec only.
//
// # Tree
//
// ParseHierarchy keeps the whole uiautomator tree (upstream kept only leaf
// nodes, losing clickable containers whose label lives in a child). The root
// Node has Class "hierarchy" and one child per window root; real-device
// noise (junk lines, BOMs, several windows, CRLF, entities, odd Unicode,
// malformed bounds) is tolerated, see ParseHierarchy.
//
// Labels are compared after normalizing whitespace: NBSP, U+202F and other
// Unicode spaces become a space, invisible format characters (U+FEFF, U+200E,
// U+200F, zero-width and bidi controls) are removed, whitespace runs
// (including newlines from "&#10;") collapse to one space, the Unicode
// hyphens U+2010/U+2011 (Settings writes "Wi‑Fi" with U+2011) become '-',
// and the ends are trimmed.
//
// # Elements
//
// Select turns a tree into what the model reads of a snapshot: numbered
// elements and notes (docs/what-the-model-sees.md explains the rules for
// users). Windows are classified (windows.go: the focused app window,
// dialogs, the soft keyboard, system bars) and read in that order; a node
// becomes an element when it is a control (clickable, long-clickable,
// checkable, a text field — enabled, inside no disabled container) or a
// labelled text outside any control, or a named scrollable list. Controls
// without a label borrow their descendants' texts (labels.go) or a paired
// sibling caption; wrappers with identical bounds merge; elements under a
// higher window are dropped; the keyboard folds into KeyboardNote unless
// ElementOptions.KeyboardKeys. Then budget.go keeps, by priority, the
// elements whose lines (ElementLine, line.go) fit ElementOptions.Budget
// characters, numbers them "1".."N" in reading order per window group and
// says what it cut in the notes. Elements returns only the elements.
//
// # Selectors
//
// A Selector is compiled to a Matcher, then run against a tree. All set
// fields must hold:
//
//   - Text: equal to the normalized text, content-desc or hint.
//   - TextContains: case-insensitive substring of text, content-desc or hint.
//   - TextRegex: RE2 expression that must match the whole normalized text,
//     content-desc or hint (it is anchored as ^(?:expr)$).
//   - ID: the full resource-id ("com.app:id/save") or the part after ":id/"
//     ("save").
//   - IDRegex: RE2 expression that must match the whole resource-id or the
//     part after ":id/" (".*page_save"); nodes without an id never match.
//   - Desc / DescContains: like Text / TextContains on content-desc only.
//   - Class: the full class name or the simple name after the last dot
//     ("Button" matches android.widget.Button).
//   - Package: exact package name.
//   - Clickable, Enabled, Checked, Focused, Selected, Scrollable, Checkable:
//     the node's boolean must equal the given one.
//
// Relations take another selector, the reference:
//
//   - Below / Above / LeftOf / RightOf: compared with the first match of the
//     reference (its own ordering and Index apply). Below means the node's
//     top ≥ the reference's bottom; Above: bottom ≤ reference top; LeftOf:
//     right ≤ reference left; RightOf: left ≥ reference right.
//   - ChildOf: the node is a (strict) descendant of any match of the reference.
//   - Contains: the node has a (strict) descendant matching the reference.
//   - ContainsChild: a direct child of the node matches the reference.
//   - ContainsAll: for each of these references the node has a descendant
//     matching it (Maestro's containsDescendants).
//
// A selector with a relation returns its matches nearest first: nodes in the
// reference's row (LeftOf/RightOf: vertical extents overlap) or column
// (Below/Above: horizontal extents overlap) come before the others, then by
// the gap between the node's and the reference's rectangles, then the
// distance between their centres (summed over spatial relations), then the
// number of tree levels to the ChildOf/Contains match (direct children,
// innermost containers first), then document order. Without relations matches come in document order. Index
// picks the i-th (0-based) match of that final order. Invisible nodes (empty
// bounds or visible-to-user="false") and the synthetic hierarchy root never
// match. When the reference of a relation matches nothing, nothing matches.
//
// Matching a plain label is enough to act on its row: ActionTarget returns
// the nearest clickable ancestor-or-self, which is what a tap should hit.
// Selector.String renders a selector for error messages, e.g.
// text="Save" below(id="title").
//
// # Images
//
// DecodeRawScreencap reads raw `screencap` output (12- or 16-byte header by
// Android version, RGBA_8888 without a copy); DecodeScaledPNG reads
// `screencap -p` straight to the model's size, hashing on the way
// (imagecodec.DecodePNGRows), DecodePNG any PNG whole (image/png). Resize
// scales to the model's size (ScaledSize) with an area-average filter in
// parallel bands; DHash and SetOfMark work on the scaled image,
// ContentHash on the full one. ImageEncoding encodes the model's image as
// JPEG (EncodeJPEG, i.e. imagecodec.EncodeJPEG: baseline, parallel bands
// joined with restart markers; the default) or PNG (EncodePNG, through
// imagecodec.EncodeOpaquePNG for opaque images).
// Snapshot.FullPNG produces the full-size PNG only when something saves
// it. The codecs the project writes itself live in engine/screen/imagecodec
// behind differential fuzz targets.
package screen
