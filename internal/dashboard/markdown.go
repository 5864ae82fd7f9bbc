package dashboard

import (
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// The session files (docs/formats.md) and skills are a small, known markdown:
// headings, nested "- key: value" and numbered lists, `code` and **bold**
// spans, fenced blocks and a skill's front matter. This renders exactly
// that, escaping all text, rather than pulling in a general renderer.

// step is one "### Step N" block of a session.
type step struct {
	N                       int
	Thought, Action, Result string
}

// stepLine is a step as the CLI's progress line shows it: number, the
// action in short ("launch_app com.android.settings", "tap 540,1200"), the
// result's first line, and the step's screenshot as a thumbnail.
type stepLine struct {
	N              int
	Action, Result string
	Thumb          string // URL of the step's screenshot, "" without one
}

// actionArgs are the action fields a step line shows, in this order.
var actionArgs = []string{"packageName", "text", "x", "y", "keycode", "direction", "durationMs", "message", "id", "resourceId"}

func stepLineOf(st step, agent string, shots map[int]string) stepLine {
	l := stepLine{N: st.N, Action: st.Action, Result: shortText(firstLine(st.Result), 140)}
	var a map[string]any
	if json.Unmarshal([]byte(st.Action), &a) == nil {
		typ, _ := a["type"].(string)
		parts := []string{typ}
		if x, ok := a["x"].(float64); ok {
			if y, ok := a["y"].(float64); ok {
				parts = append(parts, fmt.Sprintf("%d,%d", int(x), int(y)))
			}
		}
		for _, k := range actionArgs {
			if k == "x" || k == "y" {
				continue
			}
			switch v := a[k].(type) {
			case string:
				if k == "text" || k == "message" {
					v = strconv.Quote(shortText(v, 60))
				}
				parts = append(parts, v)
			case float64:
				parts = append(parts, k+"="+strconv.FormatFloat(v, 'f', -1, 64))
			}
		}
		l.Action = strings.Join(parts, " ")
	}
	if name, ok := shots[st.N]; ok {
		l.Thumb = "/a/" + url.PathEscape(agent) + "/shots/" + url.PathEscape(name)
	}
	return l
}

// pathRe is an absolute file path in a result line, shown by its base name.
var pathRe = regexp.MustCompile(`(^|[\s(=:])(/[^\s:()]+/)([^\s/:()]+)`)

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return pathRe.ReplaceAllString(s, "$1$3")
}

func shortText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// parseSteps reads the step blocks of a session file.
func parseSteps(md string) []step {
	var steps []step
	var cur *step
	field := ""
	inFence := false
	var buf strings.Builder
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "```") {
			if inFence && cur != nil {
				text := strings.TrimSpace(buf.String())
				switch field {
				case "thought":
					cur.Thought = text
				case "action":
					cur.Action = text
				case "execution_result":
					cur.Result = text
				}
			}
			inFence = !inFence
			buf.Reset()
			continue
		}
		if inFence {
			buf.WriteString(line + "\n")
			continue
		}
		if n, ok := stepHeading(line); ok {
			steps = append(steps, step{N: n})
			cur = &steps[len(steps)-1]
			continue
		}
		if strings.HasPrefix(line, "## ") {
			cur = nil
		}
		if k, ok := strings.CutPrefix(line, "- "); ok {
			field = strings.TrimSuffix(k, ":")
		}
	}
	return steps
}

func stepHeading(line string) (int, bool) {
	rest, ok := strings.CutPrefix(line, "### Step ")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSpace(rest))
	return n, err == nil
}

// renderMarkdown renders the markdown subset as escaped HTML.
func renderMarkdown(md string) template.HTML {
	return renderWith(md, nil)
}

// renderSession renders a session file with each step's screenshot shown
// under its heading.
func renderSession(md, agent string, shots map[int]string) template.HTML {
	return renderWith(md, func(n int) string {
		name, ok := shots[n]
		if !ok {
			return ""
		}
		src := "/a/" + url.PathEscape(agent) + "/shots/" + url.PathEscape(name)
		return `<img class="shot" alt="step ` + strconv.Itoa(n) + ` screenshot" src="` + html.EscapeString(src) + `">`
	})
}

func renderWith(md string, afterStep func(int) string) template.HTML {
	var b strings.Builder
	var lists listStack
	inFence := false
	lines := strings.Split(md, "\n")
	lines = skipFrontMatter(lines)
	for _, line := range lines {
		if !inFence && !strings.HasPrefix(line, "```") {
			if indent, tag, start, text, ok := listItem(line); ok {
				lists.item(&b, indent, tag, start, text)
				continue
			}
			if lists.open() && strings.TrimSpace(line) != "" && line != strings.TrimLeft(line, " \t") {
				b.WriteString(" " + inline(strings.TrimSpace(line))) // a list item's continuation line
				continue
			}
		}
		switch {
		case strings.HasPrefix(line, "```"):
			lists.closeAll(&b)
			if inFence {
				b.WriteString("</code></pre>\n")
			} else {
				b.WriteString("<pre><code>")
			}
			inFence = !inFence
		case inFence:
			b.WriteString(html.EscapeString(line) + "\n")
		case strings.HasPrefix(line, "#"):
			lists.closeAll(&b)
			level := len(line) - len(strings.TrimLeft(line, "#"))
			level = min(max(level, 1), 6)
			text := strings.TrimSpace(line[level:])
			tag := "h" + strconv.Itoa(level)
			b.WriteString("<" + tag + ">" + inline(text) + "</" + tag + ">\n")
			if n, ok := stepHeading(line); ok && afterStep != nil {
				b.WriteString(afterStep(n))
			}
		case strings.TrimSpace(line) == "":
			// A blank line between items keeps the list open.
		default:
			lists.closeAll(&b)
			b.WriteString("<p>" + inline(line) + "</p>\n")
		}
	}
	lists.closeAll(&b)
	if inFence {
		b.WriteString("</code></pre>\n")
	}
	return template.HTML(b.String()) // every piece of text above is escaped
}

// skipFrontMatter drops a leading "---" … "---" block (a skill's name,
// description and metadata, which the page shows otherwise).
func skipFrontMatter(lines []string) []string {
	if len(lines) == 0 || strings.TrimSpace(lines[0]) != "---" {
		return lines
	}
	for i := 1; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == "---" {
			return lines[i+1:]
		}
	}
	return lines
}

var (
	itemRe       = regexp.MustCompile(`^(\s*)([-*]|\d+[.)])\s+(.*)$`)
	inlineCodeRe = regexp.MustCompile("`([^`]+)`")
	boldRe       = regexp.MustCompile(`\*\*([^*]+)\*\*`)
)

// listItem recognises "- x", "* x" and "1. x" at any indent (tabs count
// as four spaces).
func listItem(line string) (indent int, tag string, start int, text string, ok bool) {
	m := itemRe.FindStringSubmatch(strings.ReplaceAll(line, "\t", "    "))
	if m == nil {
		return 0, "", 0, "", false
	}
	tag = "ul"
	if m[2] != "-" && m[2] != "*" {
		tag = "ol"
		start, _ = strconv.Atoi(strings.TrimRight(m[2], ".)"))
	}
	return len(m[1]), tag, start, m[3], true
}

// inline escapes text and renders `code` and **bold** spans.
func inline(text string) string {
	s := html.EscapeString(text)
	s = inlineCodeRe.ReplaceAllString(s, "<code>$1</code>")
	return boldRe.ReplaceAllString(s, "<b>$1</b>")
}

// listStack is the open (nested) lists: a deeper indent opens a list
// inside the current item, a shallower one closes lists down to it.
type listStack []struct {
	indent int
	tag    string
}

func (ls *listStack) open() bool { return len(*ls) > 0 }

func (ls *listStack) pop(b *strings.Builder) {
	top := (*ls)[len(*ls)-1]
	b.WriteString("</li></" + top.tag + ">\n")
	*ls = (*ls)[:len(*ls)-1]
}

func (ls *listStack) item(b *strings.Builder, indent int, tag string, start int, text string) {
	for len(*ls) > 0 && (*ls)[len(*ls)-1].indent > indent {
		ls.pop(b)
	}
	if n := len(*ls); n > 0 && (*ls)[n-1].indent == indent {
		if (*ls)[n-1].tag == tag {
			b.WriteString("</li>\n")
		} else {
			ls.pop(b)
		}
	}
	if n := len(*ls); n == 0 || (*ls)[n-1].indent < indent {
		if tag == "ol" && start > 1 {
			b.WriteString(`<ol start="` + strconv.Itoa(start) + `">` + "\n")
		} else {
			b.WriteString("<" + tag + ">\n")
		}
		*ls = append(*ls, struct {
			indent int
			tag    string
		}{indent, tag})
	}
	b.WriteString("<li>" + inline(text))
}

func (ls *listStack) closeAll(b *strings.Builder) {
	for len(*ls) > 0 {
		ls.pop(b)
	}
}
