package agent

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// HumanAuthRequest is a request_human_auth action put to a person
// (docs/formats.md#actions).
type HumanAuthRequest struct {
	ID string
	// Task is the run's task, shown to the person who decides.
	Task        string
	Capability  string
	Instruction string
	Reason      string
	Timeout     time.Duration
	// UITemplate is the normalized uiTemplate object (nil when absent).
	UITemplate map[string]any
	// TemplatePath names a template JSON file in the workspace.
	TemplatePath string
}

// HumanAuthDecision is the person's answer.
type HumanAuthDecision struct {
	// Status is "approved", "rejected" or "timeout".
	Status string
	// Text, when not empty, is typed into the focused field. It may be a
	// secret: it never reaches the session, events or logs.
	Text string
	// Message summarizes the decision for the model; it never holds a
	// secret ("credentials provided").
	Message string
	// Fields are a form's values in the template's order (credentials,
	// payment card, several fields): each is typed into its own phone
	// field, secrets only into a password field or the field the template
	// names. Values never reach the session, events or the model.
	Fields []HumanAuthField
	// Artifact is what the person sent with an approval, stored per seed
	// 003 (nil when nothing was sent).
	Artifact *HumanAuthArtifact
	// Link is the approval page's address without its token, shown in the
	// session ("" for the terminal).
	Link string
	// Delegate (humanAuth.mode "delegate") stores and describes what
	// arrived instead of applying it: the model applies it, typing values
	// through {{human_auth:…}} placeholders it never sees filled in.
	Delegate bool
}

// HumanAuthField is one filled-in uiTemplate field.
type HumanAuthField struct {
	// Key is the field's artifactKey (else its id); Label its label.
	Key, Label string
	// Type is the uiTemplate field type (text, password, card-number, …).
	Type  string
	Value string
	// Secret is set for password, card-number, expiry and cvc fields.
	Secret bool
	// Target names the phone field to type into (a resource id, with or
	// without "pkg:id/", or the field's hint or text); "" picks one.
	Target string
}

// HumanAuthArtifact describes a stored artifact
// (state/human-auth-artifacts/<requestId>.<ext>).
type HumanAuthArtifact struct {
	// Path is the file's absolute path.
	Path string
	// Kind is the JSON payload kind (text, qr_text, geo, credentials,
	// payment_card, form) or image, audio or file for uploads.
	Kind string
	// MIME is the upload's content type (application/json for payloads).
	MIME string
	// Lat and Lon are set for kind geo.
	Lat, Lon float64
}

// HumanAuthFunc asks a person to approve a request_human_auth action. An
// error means no one can be asked (no terminal); it becomes the step's
// result, not a run failure.
type HumanAuthFunc func(ctx context.Context, req HumanAuthRequest) (HumanAuthDecision, error)

// ErrHumanAuthUnavailable reports that nobody can answer a human-auth
// request (stdin is not a terminal, no relay configured).
var ErrHumanAuthUnavailable = errors.New("human auth unavailable: no interactive terminal to ask (stdin is not a TTY) and no relay configured")

// IsTerminal reports whether r is an interactive terminal: a file whose
// terminal attributes can be read. A character device is not enough:
// /dev/null is one, and `openpocket agent … </dev/null` (nohup, cron,
// systemd) would then answer its own prompt with end-of-input.
func IsTerminal(r any) bool {
	f, ok := r.(*os.File)
	if !ok || f == nil {
		return false
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	tty := false
	if rc.Control(func(fd uintptr) { tty = isatty(fd) }) != nil {
		return false
	}
	return tty
}

// ErrInputClosed reports that the terminal's input ended before an
// answer: nobody is there, which is not a rejection.
var ErrInputClosed = errors.New("human auth: terminal input closed before an answer")

// TerminalAuth asks on a terminal: the instruction, "Approve? [y/N]", then
// an optional text to type into the focused field (an OTP code). in is read
// line by line by one goroutine for the whole process (shared by every
// TerminalAuth over the same reader, one per run), so a request that times
// out does not leave a second reader behind; a line typed before a question
// was shown (a late answer to a timed-out one) never answers it.
func TerminalAuth(in io.Reader, out io.Writer) HumanAuthFunc {
	lr := sharedLineReader(in)
	return func(ctx context.Context, req HumanAuthRequest) (HumanAuthDecision, error) {
		if req.Timeout <= 0 {
			req.Timeout = 300 * time.Second
		}
		ctx, cancel := context.WithTimeout(ctx, req.Timeout)
		defer cancel()
		asked := time.Now()
		fmt.Fprintf(out, "\nHuman authorization requested (%s, request %s):\n  %s\nApprove? [y/N] ", req.Capability, req.ID, req.Instruction)
		ans, err := lr.line(ctx, asked)
		if err != nil {
			return timeoutOr(ctx, err)
		}
		if a := strings.ToLower(strings.TrimSpace(ans)); a != "y" && a != "yes" {
			return HumanAuthDecision{Status: "rejected", Message: "the user rejected the request"}, nil
		}
		asked = time.Now()
		fmt.Fprint(out, "Text to type into the focused field (Enter for none): ")
		text, err := lr.line(ctx, asked)
		if err != nil {
			return timeoutOr(ctx, err)
		}
		text = strings.TrimRight(text, "\r\n")
		msg := "the user approved"
		if text != "" {
			msg += " and provided text"
		}
		return HumanAuthDecision{Status: "approved", Text: text, Message: msg}, nil
	}
}

func timeoutOr(ctx context.Context, err error) (HumanAuthDecision, error) {
	if errors.Is(err, context.DeadlineExceeded) && context.Cause(ctx) == context.DeadlineExceeded {
		return HumanAuthDecision{Status: "timeout", Message: "no answer before the timeout"}, nil
	}
	if errors.Is(err, io.EOF) {
		// End of input is never an answer: the relay, `openpocket auth`
		// or a chat may still answer the same request.
		return HumanAuthDecision{}, ErrInputClosed
	}
	return HumanAuthDecision{}, err
}

// lineReader reads lines from r on demand with one long-lived goroutine.
type lineReader struct {
	r     io.Reader
	once  sync.Once
	lines chan lineResult
	want  chan struct{}

	mu sync.Mutex
	// pending is set while the goroutine reads a line nobody has received
	// yet (also one an abandoned call asked for): asking again would read
	// a line ahead and date it before the question it answers.
	pending bool
}

type lineResult struct {
	s   string
	err error
	at  time.Time // when the line was read
}

var (
	lineReadersMu sync.Mutex
	lineReaders   = map[io.Reader]*lineReader{}
)

// sharedLineReader is the one lineReader of a file (the terminal): two
// readers of one terminal would each take every other line. Other readers
// (tests) get their own.
func sharedLineReader(r io.Reader) *lineReader {
	if _, isFile := r.(*os.File); !isFile {
		return &lineReader{r: r}
	}
	lineReadersMu.Lock()
	defer lineReadersMu.Unlock()
	lr, ok := lineReaders[r]
	if !ok {
		lr = &lineReader{r: r}
		lineReaders[r] = lr
	}
	return lr
}

// line returns the next line read after since; earlier lines (typed before
// the question was shown) are dropped.
func (l *lineReader) line(ctx context.Context, since time.Time) (string, error) {
	l.once.Do(func() {
		l.lines = make(chan lineResult)
		l.want = make(chan struct{}, 1)
		go func() {
			br := bufio.NewReader(l.r)
			for range l.want {
				s, err := br.ReadString('\n')
				if err != nil && s != "" {
					err = nil
				}
				l.lines <- lineResult{s, err, time.Now()}
				if err != nil {
					close(l.lines)
					return
				}
			}
		}()
	})
	for {
		l.mu.Lock()
		if !l.pending {
			l.pending = true
			l.want <- struct{}{} // the goroutine is idle: never blocks
		}
		l.mu.Unlock()
		select {
		case r, ok := <-l.lines:
			if !ok {
				return "", io.EOF
			}
			l.mu.Lock()
			l.pending = false
			l.mu.Unlock()
			if r.err == nil && r.at.Before(since) {
				continue // a late answer to an earlier question
			}
			return r.s, r.err
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}
