package coding

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// Patch is a parsed apply_patch input:
//
//	*** Begin Patch
//	*** Add File: <path>
//	+<line>                      (every content line prefixed with +)
//	*** Update File: <path>
//	*** Move to: <new path>      (optional rename)
//	@@ <optional anchor line>
//	 <context line>
//	-<removed line>
//	+<added line>
//	*** End of File              (optional: the hunk ends at end of file)
//	*** Delete File: <path>
//	*** End Patch
//
// The first hunk of an Update may omit its "@@" line. A blank line inside a
// hunk counts as an empty context line.
type Patch struct {
	Ops []PatchOp
}

// PatchOp is one file operation of a patch.
type PatchOp struct {
	// Kind is "add", "update" or "delete".
	Kind string
	Path string
	// MoveTo is the new path of an update with "*** Move to:".
	MoveTo string
	// Content is the full content of an added file.
	Content string
	Hunks   []Hunk
}

// Hunk is one "@@" section of an update.
type Hunk struct {
	// Anchor is the text after "@@": a line to find first (the hunk is then
	// searched after it). Empty when none.
	Anchor string
	// Old are the context and removed lines in order; New the context and
	// added lines in order.
	Old, New []string
	// EOF marks a hunk that must end at the end of the file.
	EOF bool
}

// PatchError is a patch that cannot be parsed or applied. File and Hunk
// (1-based, 0 when not about a hunk) locate the problem.
type PatchError struct {
	File   string
	Hunk   int
	Reason string
}

func (e *PatchError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Hunk > 0 {
			fmt.Fprintf(&b, " hunk %d", e.Hunk)
		}
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

const (
	beginPatch = "*** Begin Patch"
	endPatch   = "*** End Patch"
	addFile    = "*** Add File: "
	updateFile = "*** Update File: "
	deleteFile = "*** Delete File: "
	moveTo     = "*** Move to: "
	endOfFile  = "*** End of File"
)

// ParsePatch parses the apply_patch format.
func ParsePatch(input string) (Patch, error) {
	lines := strings.Split(strings.ReplaceAll(input, "\r\n", "\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != beginPatch {
		return Patch{}, &PatchError{Reason: "patch must start with \"*** Begin Patch\""}
	}
	if len(lines) < 2 || strings.TrimSpace(lines[len(lines)-1]) != endPatch {
		return Patch{}, &PatchError{Reason: "patch must end with \"*** End Patch\""}
	}
	lines = lines[1 : len(lines)-1]
	var p Patch
	isHeader := func(l string) bool {
		return strings.HasPrefix(l, addFile) || strings.HasPrefix(l, updateFile) || strings.HasPrefix(l, deleteFile)
	}
	for i := 0; i < len(lines); {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, addFile):
			op := PatchOp{Kind: "add", Path: strings.TrimSpace(l[len(addFile):])}
			i++
			var content []string
			for ; i < len(lines) && !isHeader(lines[i]); i++ {
				switch {
				case strings.HasPrefix(lines[i], "+"):
					content = append(content, lines[i][1:])
				case lines[i] == "":
					content = append(content, "")
				default:
					return Patch{}, &PatchError{File: op.Path, Reason: fmt.Sprintf("Add File line %q must start with \"+\"", lines[i])}
				}
			}
			if len(content) > 0 {
				op.Content = strings.Join(content, "\n") + "\n"
			}
			p.Ops = append(p.Ops, op)
		case strings.HasPrefix(l, deleteFile):
			p.Ops = append(p.Ops, PatchOp{Kind: "delete", Path: strings.TrimSpace(l[len(deleteFile):])})
			i++
		case strings.HasPrefix(l, updateFile):
			op := PatchOp{Kind: "update", Path: strings.TrimSpace(l[len(updateFile):])}
			i++
			if i < len(lines) && strings.HasPrefix(lines[i], moveTo) {
				op.MoveTo = strings.TrimSpace(lines[i][len(moveTo):])
				i++
			}
			var h *Hunk
			for ; i < len(lines) && !isHeader(lines[i]); i++ {
				hl := lines[i]
				if strings.HasPrefix(hl, "@@") {
					op.Hunks = append(op.Hunks, Hunk{Anchor: strings.TrimSpace(strings.TrimPrefix(hl, "@@"))})
					h = &op.Hunks[len(op.Hunks)-1]
					continue
				}
				if strings.TrimSpace(hl) == endOfFile {
					if h == nil {
						return Patch{}, &PatchError{File: op.Path, Reason: "\"*** End of File\" outside a hunk"}
					}
					h.EOF = true
					continue
				}
				if h == nil { // first hunk without "@@"
					op.Hunks = append(op.Hunks, Hunk{})
					h = &op.Hunks[len(op.Hunks)-1]
				}
				if h.EOF {
					return Patch{}, &PatchError{File: op.Path, Hunk: len(op.Hunks), Reason: "lines after \"*** End of File\""}
				}
				switch {
				case hl == "":
					h.Old = append(h.Old, "")
					h.New = append(h.New, "")
				case hl[0] == ' ':
					h.Old = append(h.Old, hl[1:])
					h.New = append(h.New, hl[1:])
				case hl[0] == '-':
					h.Old = append(h.Old, hl[1:])
				case hl[0] == '+':
					h.New = append(h.New, hl[1:])
				default:
					return Patch{}, &PatchError{File: op.Path, Hunk: len(op.Hunks), Reason: fmt.Sprintf("unexpected line %q (hunk lines start with ' ', '-' or '+')", hl)}
				}
			}
			if len(op.Hunks) == 0 && op.MoveTo == "" {
				return Patch{}, &PatchError{File: op.Path, Reason: "Update File without hunks"}
			}
			p.Ops = append(p.Ops, op)
		case strings.TrimSpace(l) == "":
			i++
		default:
			return Patch{}, &PatchError{Reason: fmt.Sprintf("unexpected line %q (expected \"*** Add File:\", \"*** Update File:\" or \"*** Delete File:\")", l)}
		}
	}
	if len(p.Ops) == 0 {
		return Patch{}, &PatchError{Reason: "patch has no file operations"}
	}
	for _, op := range p.Ops {
		if op.Path == "" {
			return Patch{}, &PatchError{Reason: fmt.Sprintf("%s operation without a path", op.Kind)}
		}
	}
	return p, nil
}

// FileChange is one applied file operation.
type FileChange struct {
	// Kind is "add", "update", "move" (update with rename) or "delete".
	Kind string
	Path string
	// To is the new path of a move.
	To string
}

// PatchResult lists the applied changes in patch order.
type PatchResult struct {
	Changes []FileChange
}

// String renders "apply_patch ok files=<n>" and one line per change:
// "A path", "M path", "M old -> new", "D path".
func (r PatchResult) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "apply_patch ok files=%d", len(r.Changes))
	for _, c := range r.Changes {
		switch c.Kind {
		case "add":
			fmt.Fprintf(&b, "\nA %s", c.Path)
		case "update":
			fmt.Fprintf(&b, "\nM %s", c.Path)
		case "move":
			fmt.Fprintf(&b, "\nM %s -> %s", c.Path, c.To)
		case "delete":
			fmt.Fprintf(&b, "\nD %s", c.Path)
		}
	}
	return b.String()
}

// fileState is the planned or original state of one path.
type fileState struct {
	t       target
	exists  bool
	content string
	mode    os.FileMode
}

// ApplyPatch parses and applies a patch all-or-nothing: every path is
// checked and every file's new content computed before anything is written;
// a failed hunk, a missing file or a path outside the workspace leaves every
// file untouched. If writing fails midway, the files already written are
// restored.
func (e *Executor) ApplyPatch(input string) (PatchResult, error) {
	if !e.cfg.ApplyPatchEnabled {
		return PatchResult{}, errors.New("apply_patch is disabled (codingTools.applyPatchEnabled=false)")
	}
	p, err := ParsePatch(input)
	if err != nil {
		return PatchResult{}, err
	}
	var (
		orig    = map[string]fileState{} // by resolved path: state before
		planned = map[string]fileState{} // by resolved path: state after
		order   []string                 // resolved paths in first-touch order
		res     PatchResult
	)
	load := func(path string) (fileState, error) {
		t, err := e.resolve(path)
		if err != nil {
			return fileState{}, &PatchError{File: path, Reason: err.Error()}
		}
		if _, seen := planned[t.abs]; seen {
			return fileState{}, &PatchError{File: path, Reason: "file is touched twice in one patch"}
		}
		st := fileState{t: t, mode: 0o644}
		fi, err := e.stat(t)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return fileState{}, &PatchError{File: path, Reason: err.Error()}
		case fi.IsDir():
			return fileState{}, &PatchError{File: path, Reason: "is a directory"}
		default:
			data, err := e.readFile(t)
			if err != nil {
				return fileState{}, &PatchError{File: path, Reason: err.Error()}
			}
			st.exists, st.content, st.mode = true, string(data), fi.Mode().Perm()
		}
		orig[t.abs] = st
		order = append(order, t.abs)
		return st, nil
	}
	for _, op := range p.Ops {
		st, err := load(op.Path)
		if err != nil {
			return PatchResult{}, err
		}
		switch op.Kind {
		case "add":
			if st.exists {
				return PatchResult{}, &PatchError{File: op.Path, Reason: "Add File: file already exists (use Update File, or Delete File first)"}
			}
			planned[st.t.abs] = fileState{t: st.t, exists: true, content: op.Content, mode: 0o644}
			res.Changes = append(res.Changes, FileChange{Kind: "add", Path: st.t.show})
		case "delete":
			if !st.exists {
				return PatchResult{}, &PatchError{File: op.Path, Reason: "Delete File: file does not exist"}
			}
			planned[st.t.abs] = fileState{t: st.t}
			res.Changes = append(res.Changes, FileChange{Kind: "delete", Path: st.t.show})
		case "update":
			if !st.exists {
				return PatchResult{}, &PatchError{File: op.Path, Reason: "Update File: file does not exist"}
			}
			content, herr := applyHunks(st.content, op.Hunks)
			if herr != nil {
				herr.File = op.Path
				return PatchResult{}, herr
			}
			if op.MoveTo == "" {
				planned[st.t.abs] = fileState{t: st.t, exists: true, content: content, mode: st.mode}
				res.Changes = append(res.Changes, FileChange{Kind: "update", Path: st.t.show})
				continue
			}
			planned[st.t.abs] = fileState{t: st.t} // the old path goes away
			dst, err := load(op.MoveTo)
			if err != nil {
				return PatchResult{}, err
			}
			if dst.exists {
				return PatchResult{}, &PatchError{File: op.Path, Reason: fmt.Sprintf("Move to: %s already exists", op.MoveTo)}
			}
			planned[dst.t.abs] = fileState{t: dst.t, exists: true, content: content, mode: st.mode}
			res.Changes = append(res.Changes, FileChange{Kind: "move", Path: st.t.show, To: dst.t.show})
		}
	}
	// Everything validated: write, restoring on failure.
	for i, abs := range order {
		if err := e.commit(planned[abs]); err != nil {
			for _, done := range order[:i+1] {
				e.commit(orig[done])
			}
			return PatchResult{}, fmt.Errorf("apply_patch: writing %s failed, changes rolled back: %w", planned[abs].t.show, err)
		}
	}
	return res, nil
}

// commit makes a path match a state: written atomically, or removed.
func (e *Executor) commit(st fileState) error {
	if st.exists {
		return e.writeAtomic(st.t, []byte(st.content), st.mode)
	}
	return e.remove(st.t)
}

// applyHunks applies hunks in order to content. Each hunk is searched from
// where the previous one ended: first exactly, then ignoring trailing
// whitespace on each line. CRLF files keep their line endings.
func applyHunks(content string, hunks []Hunk) (string, *PatchError) {
	crlf := strings.Contains(content, "\r\n")
	if crlf {
		content = strings.ReplaceAll(content, "\r\n", "\n")
	}
	trailingNL := content == "" || strings.HasSuffix(content, "\n")
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	if content == "" {
		lines = nil
	}
	cursor := 0
	for i, h := range hunks {
		if h.Anchor != "" {
			at := findLine(lines, h.Anchor, cursor)
			if at < 0 {
				return "", &PatchError{Hunk: i + 1, Reason: fmt.Sprintf("@@ anchor line %q not found", h.Anchor)}
			}
			cursor = at + 1
		}
		var at int
		switch {
		case len(h.Old) == 0:
			at = len(lines) // pure addition: append at the end
		default:
			at = findBlock(lines, h.Old, cursor, h.EOF)
			if at < 0 {
				return "", &PatchError{Hunk: i + 1, Reason: "context not found:\n" + excerpt(h.Old)}
			}
		}
		next := make([]string, 0, len(lines)-len(h.Old)+len(h.New))
		next = append(next, lines[:at]...)
		next = append(next, h.New...)
		next = append(next, lines[at+len(h.Old):]...)
		lines = next
		cursor = at + len(h.New)
	}
	out := strings.Join(lines, "\n")
	if trailingNL && len(lines) > 0 {
		out += "\n"
	}
	if crlf {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	return out, nil
}

func findLine(lines []string, want string, from int) int {
	for _, eq := range []func(a, b string) bool{
		func(a, b string) bool { return a == b },
		func(a, b string) bool { return strings.TrimSpace(a) == strings.TrimSpace(b) },
	} {
		for i := from; i < len(lines); i++ {
			if eq(lines[i], want) {
				return i
			}
		}
	}
	return -1
}

// findBlock finds old as consecutive lines at or after from: exact first,
// then with trailing whitespace ignored. With eof only a match ending at the
// last line counts.
func findBlock(lines, old []string, from int, eof bool) int {
	trimRight := func(s string) string { return strings.TrimRight(s, " \t\r") }
	for _, eq := range []func(a, b string) bool{
		func(a, b string) bool { return a == b },
		func(a, b string) bool { return trimRight(a) == trimRight(b) },
	} {
		start := from
		if eof {
			start = max(len(lines)-len(old), from)
		}
		for i := start; i+len(old) <= len(lines); i++ {
			match := true
			for j := range old {
				if !eq(lines[i+j], old[j]) {
					match = false
					break
				}
			}
			if match {
				return i
			}
		}
	}
	return -1
}

// excerpt quotes up to the first 5 lines of a hunk's expected text.
func excerpt(old []string) string {
	n := min(len(old), 5)
	var b strings.Builder
	for _, l := range old[:n] {
		b.WriteString("  | " + l + "\n")
	}
	if len(old) > n {
		fmt.Fprintf(&b, "  | … (%d more lines)\n", len(old)-n)
	}
	return strings.TrimRight(b.String(), "\n")
}
