package cli

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/openpocket/openpocket/internal/humanauth"
	"github.com/openpocket/openpocket/internal/workspace"
)

// AuthCmd answers human-auth requests from the machine:
// `openpocket auth list | approve ID [--text …] | reject ID`. Requests are
// files in the state directory, so this works while a run (or the
// gateway) in another process waits; the first answer wins.
type AuthCmd struct {
	List    AuthListCmd    `cmd:"" help:"List pending human-auth requests."`
	Approve AuthApproveCmd `cmd:"" help:"Approve a pending request, optionally with text to type into the focused field."`
	Reject  AuthRejectCmd  `cmd:"" help:"Reject a pending request."`
}

// AuthListCmd lists pending requests.
type AuthListCmd struct{}

// AuthApproveCmd approves one.
type AuthApproveCmd struct {
	ID   string `arg:"" help:"Request id (from auth list)."`
	Text string `help:"Text typed into the focused field (an OTP code); stored as a text artifact (docs/formats.md#human-authorization-artifacts)." placeholder:"TEXT"`
}

// AuthRejectCmd rejects one.
type AuthRejectCmd struct {
	ID string `arg:"" help:"Request id (from auth list)."`
}

func (c *AuthListCmd) Help() string    { return exampleHelp("auth list") }
func (c *AuthApproveCmd) Help() string { return exampleHelp("auth approve") }
func (c *AuthRejectCmd) Help() string  { return exampleHelp("auth reject") }

// Run prints id, capability, expiry and instruction of each request.
func (c *AuthListCmd) Run(out Streams, h *workspace.Home) error {
	ps, err := humanauth.Open(h.State()).List()
	if err != nil {
		return err
	}
	if len(ps) == 0 {
		fmt.Fprintln(out.Stdout, "no pending human-auth requests")
		return nil
	}
	tw := tabwriter.NewWriter(out.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCAPABILITY\tEXPIRES\tINSTRUCTION")
	for _, p := range ps {
		left := time.Until(p.ExpiresAt).Round(time.Second)
		exp := "in " + left.String()
		if left <= 0 {
			exp = "expired"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.ID, p.Capability, exp, agentShort(agentFirstLine(p.Instruction), 60))
	}
	return tw.Flush()
}

// Run approves the request.
func (c *AuthApproveCmd) Run(out Streams, h *workspace.Home) error {
	d := humanauth.Decision{Status: "approved", Message: "the user approved", By: "cli", Text: c.Text}
	return decideAuth(out.Stdout, h, c.ID, &d, c.Text)
}

// Run rejects the request.
func (c *AuthRejectCmd) Run(out Streams, h *workspace.Home) error {
	d := humanauth.Decision{Status: "rejected", Message: "the user rejected the request", By: "cli"}
	return decideAuth(out.Stdout, h, c.ID, &d, "")
}

// decideAuth answers request id in h's request store and says so on w.
func decideAuth(w io.Writer, h *workspace.Home, id string, d *humanauth.Decision, text string) error {
	s := humanauth.Open(h.State())
	p, err := s.Get(id)
	switch {
	case errors.Is(err, humanauth.ErrNotFound):
		return UsageError{fmt.Errorf("auth: no pending request %q (see openpocket auth list)", id)}
	case errors.Is(err, humanauth.ErrDecided):
		return FailedError{Msg: fmt.Sprintf("auth: request %s was already answered", id)}
	case err != nil:
		return err
	case p.Expired(time.Now()):
		return FailedError{Msg: fmt.Sprintf("auth: request %s has expired", id)}
	}
	if text != "" {
		if d.Artifact, err = s.SaveJSON(id, p.Capability, map[string]any{"kind": humanauth.TextKind(p.Capability), "value": text}); err != nil {
			return err
		}
		d.Message += " and provided text"
	}
	if err := s.Decide(id, *d); errors.Is(err, humanauth.ErrDecided) {
		return FailedError{Msg: fmt.Sprintf("auth: request %s was already answered", id)}
	} else if err != nil {
		return err
	}
	fmt.Fprintf(w, "%s %s\n", d.Status, id)
	return nil
}
