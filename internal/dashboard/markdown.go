package dashboard

import (
	"html"
	"html/template"
	"net/url"
	"strconv"
	"strings"
)

// The session files (docs/formats.md) and skills are a small, known markdown:
// headings, "- key: value" lists and fenced blocks. This renders exactly
// that, escaping all text, rather than pulling in a general renderer.

// step is one "### Step N" block of a session.
type step struct {
	N                       int
	Thought, Action, Result string
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
	inFence, inList := false, false
	closeList := func() {
		if inList {
			b.WriteString("</ul>\n")
			inList = false
		}
	}
	for _, line := range strings.Split(md, "\n") {
		switch {
		case strings.HasPrefix(line, "```"):
			closeList()
			if inFence {
				b.WriteString("</code></pre>\n")
			} else {
				b.WriteString("<pre><code>")
			}
			inFence = !inFence
		case inFence:
			b.WriteString(html.EscapeString(line) + "\n")
		case strings.HasPrefix(line, "#"):
			closeList()
			level := len(line) - len(strings.TrimLeft(line, "#"))
			level = min(max(level, 1), 6)
			text := strings.TrimSpace(line[level:])
			tag := "h" + strconv.Itoa(level)
			b.WriteString("<" + tag + ">" + html.EscapeString(text) + "</" + tag + ">\n")
			if n, ok := stepHeading(line); ok && afterStep != nil {
				b.WriteString(afterStep(n))
			}
		case strings.HasPrefix(line, "- "):
			if !inList {
				b.WriteString("<ul>\n")
				inList = true
			}
			b.WriteString("<li>" + html.EscapeString(line[2:]) + "</li>\n")
		case strings.TrimSpace(line) == "":
			closeList()
		default:
			closeList()
			b.WriteString("<p>" + html.EscapeString(line) + "</p>\n")
		}
	}
	closeList()
	if inFence {
		b.WriteString("</code></pre>\n")
	}
	return template.HTML(b.String()) // every piece of text above is escaped
}
