package agent

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/screen"
)

// downloadDir is where delegated images and files land on the phone, so
// the gallery and file pickers find them.
const downloadDir = "/sdcard/Download/"

// humanAuthResult applies an approved decision's artifact to the phone and
// returns the step result in the session lines of docs/formats.md#session:
//
//	Human auth approved|rejected|timeout request_id=<id> message=<summary>
//	human_artifact=<absolute path, optional>
//	delegation_result=<runtime apply summary, optional>
//
// plus human_auth_url=<link without its token> when a web page asked.
// Secrets (the typed text, credentials) never appear: only their length.
func humanAuthResult(ctx context.Context, sess *engine.Session, id string, dec HumanAuthDecision) (string, error) {
	var b strings.Builder
	b.WriteString(humanAuthHeader(id, dec))
	if dec.Status != "approved" {
		return b.String(), nil
	}
	if dec.Artifact != nil && dec.Artifact.Path != "" {
		fmt.Fprintf(&b, "\nhuman_artifact=%s", dec.Artifact.Path)
	}
	if d := describeArtifact(dec); d != "" {
		fmt.Fprintf(&b, "\nhuman_artifact_kind=%s", d)
	}
	var done []string
	if dec.Text != "" {
		done = append(done, applyText(ctx, sess, dec.Text))
	}
	if len(dec.Fields) > 0 {
		if p, err := sess.Phone(); err != nil {
			done = append(done, fmt.Sprintf("typing the form's fields failed: %v", err))
		} else {
			// Only a card goes into a secure form without elements: nothing
			// there shows which app owns the fields, so a password is never
			// typed blind.
			card := dec.Artifact != nil && dec.Artifact.Kind == "payment_card"
			done = append(done, applyFields(ctx, p, dec.Fields, card)...)
		}
	}
	if a := dec.Artifact; a != nil {
		switch a.Kind {
		case "geo":
			done = append(done, applyGeo(ctx, sess, a.Lat, a.Lon))
		case "image", "audio", "file":
			done = append(done, applyUpload(ctx, sess, id, a))
		}
	}
	if err := ctx.Err(); err != nil {
		return b.String(), err
	}
	for _, d := range done {
		fmt.Fprintf(&b, "\ndelegation_result=%s", d)
	}
	return b.String(), nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// describeArtifact tells the model what arrived — the kind and the field
// names, never a value: "credentials fields=username,password(secret)".
func describeArtifact(dec HumanAuthDecision) string {
	kind := ""
	if dec.Artifact != nil {
		kind = dec.Artifact.Kind
	}
	if len(dec.Fields) == 0 {
		if kind == "" && dec.Text != "" {
			kind = "text"
		}
		return kind
	}
	if kind == "" {
		kind = "form"
	}
	names := make([]string, len(dec.Fields))
	for i, f := range dec.Fields {
		names[i] = fieldName(f)
	}
	return kind + " fields=" + strings.Join(names, ",")
}

// applyText types the text a person sent (a one-time code, a password)
// into the focused field. The text stays out of the session, and the
// phone masks it from then on: the next element lists show the field's
// text as screen.SecretMask, not the code the model never needed to read.
func applyText(ctx context.Context, sess *engine.Session, text string) string {
	p, err := sess.Phone()
	if err == nil {
		p.MarkSecret(text, screen.SecretField{})
		_, err = p.Type(ctx, text)
	}
	if err != nil {
		return fmt.Sprintf("typing the provided text failed: %v", err)
	}
	return fmt.Sprintf("typed %d characters into the focused field", len([]rune(text)))
}

// applyUpload pushes an uploaded file to the phone's Download folder and
// asks the media scanner to index it, so the gallery and pickers see it.
func applyUpload(ctx context.Context, sess *engine.Session, id string, a *HumanAuthArtifact) string {
	p, err := sess.Phone()
	if err != nil {
		return fmt.Sprintf("pushing the %s failed: %v", a.Kind, err)
	}
	data, err := os.ReadFile(a.Path)
	if err != nil {
		return fmt.Sprintf("pushing the %s failed: %v", a.Kind, err)
	}
	remote := downloadDir + "openpocket-" + safeName(id) + filepath.Ext(a.Path)
	if err := p.Transport().Push(ctx, remote, data, 0o644); err != nil {
		return fmt.Sprintf("pushing the %s to %s failed: %v", a.Kind, remote, err)
	}
	scan := "am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d file://" + remote
	if res, err := p.Shell(ctx, scan); err != nil || res.ExitCode != 0 {
		return fmt.Sprintf("pushed %s to %s (%d bytes); the media scanner was not told: %v%s", a.Kind, remote, len(data), err, strings.TrimSpace(string(res.Stderr)))
	}
	return fmt.Sprintf("pushed %s to %s (%d bytes) and announced it to the media scanner", a.Kind, remote, len(data))
}

func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, s)
}

// applyGeo sets an emulator's GPS fix, as `adb emu geo fix <lon> <lat>`
// does: through the emulator console on the serial's port. A physical
// phone has no such console; the coordinates stay in the artifact.
func applyGeo(ctx context.Context, sess *engine.Session, lat, lon float64) string {
	p, err := sess.Phone()
	if err != nil {
		return fmt.Sprintf("setting the location failed: %v", err)
	}
	serial := p.Serial()
	port, ok := emulatorConsolePort(serial)
	if !ok {
		return fmt.Sprintf("location not applied: %s is not an emulator (adb emu geo fix only works on emulators); lat=%g lon=%g are in the artifact", serial, lat, lon)
	}
	if err := emulatorGeoFix(ctx, port, lat, lon); err != nil {
		return fmt.Sprintf("adb emu geo fix %g %g failed: %v", lon, lat, err)
	}
	return fmt.Sprintf("adb emu geo fix %g %g: the emulator's location is set", lon, lat)
}

func emulatorConsolePort(serial string) (int, bool) {
	n, ok := strings.CutPrefix(serial, "emulator-")
	if !ok {
		return 0, false
	}
	port, err := strconv.Atoi(n)
	return port, err == nil && port > 0 && port < 65536
}

// emulatorGeoFix speaks the emulator console protocol: a banner, "auth
// <token>" (from ~/.emulator_console_auth_token when the emulator wants
// one), then the command, each answered by "OK" or "KO: reason".
func emulatorGeoFix(ctx context.Context, port int, lat, lon float64) error {
	var d net.Dialer
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c, err := d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return err
	}
	defer c.Close()
	if dl, ok := ctx.Deadline(); ok {
		c.SetDeadline(dl)
	}
	r := bufio.NewReader(c)
	if err := untilOK(r); err != nil { // banner
		return err
	}
	if home, err := os.UserHomeDir(); err == nil {
		if tok, err := os.ReadFile(filepath.Join(home, ".emulator_console_auth_token")); err == nil {
			fmt.Fprintf(c, "auth %s\r\n", strings.TrimSpace(string(tok)))
			if err := untilOK(r); err != nil {
				return fmt.Errorf("console auth: %w", err)
			}
		}
	}
	fmt.Fprintf(c, "geo fix %s %s\r\n", strconv.FormatFloat(lon, 'f', -1, 64), strconv.FormatFloat(lat, 'f', -1, 64))
	err = untilOK(r)
	fmt.Fprint(c, "quit\r\n")
	return err
}

func untilOK(r *bufio.Reader) error {
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		line = strings.TrimSpace(line)
		switch {
		case line == "OK":
			return nil
		case strings.HasPrefix(line, "KO"):
			return fmt.Errorf("emulator console: %s", line)
		}
	}
}
