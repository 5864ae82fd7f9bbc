package relay

import (
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"github.com/openpocket/openpocket/internal/humanauth"
)

// secretTypes are field types whose values never leave the decision file
// (typed on the phone, not stored in the artifact, never in the session).
var secretTypes = map[string]bool{"password": true, "card-number": true, "cvc": true, "expiry": true}

// smallBodyBytes caps a POST whose link token is not in the URL (an old
// page, a script): enough for fields and a note, not for uploads.
const smallBodyBytes = 64 << 10

// formMemory is how much of a multipart body is held in memory; the rest
// of an upload goes to a temporary file.
const formMemory = 1 << 20

// maxUploads bounds the bodies read at once: a flood of large posts waits
// its turn instead of growing the process.
const maxUploads = 4

// decide records an approve or reject POST as the request's one decision.
// The request and its token (in the form's URL) are checked before a byte
// of the body is read: strangers' bodies are never parsed.
func (s *Server) decide(w http.ResponseWriter, r *http.Request) {
	token := r.URL.Query().Get("t")
	limit := int64(maxBodyBytes)
	if token != "" {
		if _, code, title, msg := s.lookup(r, token); code != 0 {
			s.fail(w, r, code, title, msg)
			return
		}
	} else {
		limit = smallBodyBytes
	}
	select {
	case s.uploads <- struct{}{}:
		defer func() { <-s.uploads }()
	case <-r.Context().Done():
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	if err := r.ParseMultipartForm(formMemory); err != nil && !errors.Is(err, http.ErrNotMultipart) {
		s.fail(w, r, http.StatusRequestEntityTooLarge, "Not sent", "The form could not be read (too large?).")
		return
	}
	if r.MultipartForm != nil {
		defer r.MultipartForm.RemoveAll()
	}
	if token == "" {
		token = r.PostFormValue("t")
	}
	p, code, title, msg := s.lookup(r, token)
	if code != 0 {
		s.fail(w, r, code, title, msg)
		return
	}
	d := humanauth.Decision{Status: "rejected", Message: "the user rejected the request", By: "web"}
	if r.PostFormValue("decision") == "approve" {
		var problem string
		d, problem = s.approval(r, p)
		if problem != "" {
			s.render(w, r, http.StatusBadRequest, p, token, problem)
			return
		}
	} else if note := oneLine(r.PostFormValue("note")); note != "" {
		d.Message += ": " + note
	}
	if err := s.store.Decide(p.ID, d); err != nil {
		if errors.Is(err, humanauth.ErrDecided) {
			s.fail(w, r, http.StatusGone, "Already answered", "This request was already answered; nothing more to do here.")
			return
		}
		s.fail(w, r, http.StatusInternalServerError, "Not recorded", "The answer could not be recorded.")
		return
	}
	word := map[string]string{"approved": "Approved", "rejected": "Rejected"}[d.Status]
	s.fail(w, r, http.StatusOK, word, "Thank you. The agent continues; you can close this page.")
}

// approval builds an approved decision and its artifact from the form:
// an upload (photo, audio, file) first, then the fields or the note, then
// a location. problem is set when the page must be shown again.
func (s *Server) approval(r *http.Request, p humanauth.Pending) (d humanauth.Decision, problem string) {
	v := newView(p, "", "")
	d = humanauth.Decision{Status: "approved", Message: "the user approved", By: "web"}
	var said []string
	var err error
	for _, in := range []struct{ name, kind string }{{"photo", "image"}, {"audio", "audio"}, {"file", "file"}} {
		if d.Artifact != nil || !allowed(v, in.name) {
			continue
		}
		if d.Artifact, err = s.upload(r, p.ID, in.name, in.kind); err != nil {
			return d, err.Error()
		}
		if d.Artifact != nil {
			said = append(said, "sent a "+map[string]string{"image": "photo", "audio": "recording", "file": "file"}[in.kind])
		}
	}
	text, kindSaid, err := s.fieldsArtifact(r, p, v, &d)
	if err != nil {
		return d, err.Error()
	}
	d.Text = text
	if kindSaid != "" {
		said = append(said, kindSaid)
	}
	if d.Artifact == nil && v.AllowLocation && r.PostFormValue("lat") != "" {
		lat, err1 := strconv.ParseFloat(r.PostFormValue("lat"), 64)
		lon, err2 := strconv.ParseFloat(r.PostFormValue("lon"), 64)
		if err1 != nil || err2 != nil || lat < -90 || lat > 90 || lon < -180 || lon > 180 {
			return d, "The location needs a latitude between -90 and 90 and a longitude between -180 and 180."
		}
		if d.Artifact, err = s.store.SaveJSON(p.ID, p.Capability, map[string]any{"kind": "geo", "lat": lat, "lon": lon}); err != nil {
			return d, "The location could not be stored."
		}
		said = append(said, "shared a location")
	}
	if d.Artifact == nil && v.RequireArtifact {
		return d, "Approving needs something to send: fill in the form or attach what is asked."
	}
	if mr := oneLine(r.PostFormValue("middle_result")); mr != "" {
		// The template's script runs what the model wrote over what the
		// person typed (a PIN in the model's own middleHtml): its result
		// never goes back to the model, only that there was one.
		said = append(said, fmt.Sprintf("the page's script returned a result (%d characters, not shown)", len([]rune(mr))))
		if len(mr) <= 2000 {
			d.PageResult = mr
		}
	}
	if len(said) > 0 {
		d.Message += " and " + strings.Join(said, ", ")
	}
	return d, ""
}

func allowed(v view, input string) bool {
	switch input {
	case "photo":
		return v.AllowPhoto
	case "audio":
		return v.AllowAudio
	}
	return v.AllowFile
}

// upload stores one uploaded file; the MIME type is sniffed from the
// bytes, not taken from the browser.
func (s *Server) upload(r *http.Request, id, input, kind string) (*humanauth.Artifact, error) {
	f, hdr, err := r.FormFile(input)
	if errors.Is(err, http.ErrMissingFile) || errors.Is(err, http.ErrNotMultipart) || (err == nil && hdr.Size == 0) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("The %s could not be read.", input)
	}
	defer f.(multipart.File).Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("The %s could not be read.", input)
	}
	mime := strings.TrimSuffix(strings.SplitN(http.DetectContentType(data), ";", 2)[0], " ")
	if kind == "image" && !strings.HasPrefix(mime, "image/") {
		return nil, errors.New("The photo is not an image.")
	}
	path, err := s.store.SaveArtifact(id, mime, data)
	if err != nil {
		return nil, errors.New("The upload could not be stored.")
	}
	return &humanauth.Artifact{Path: path, Kind: kind, MIME: mime}, nil
}

// fieldsArtifact stores the fields (or the note) as a JSON payload (docs/formats.md#human-authorization-artifacts)
// payload and returns the text to type: a single value, never shown.
// Secret values (password, card number, expiry, cvc) are typed, not
// stored: the artifact says "[provided]".
func (s *Server) fieldsArtifact(r *http.Request, p humanauth.Pending, v view, d *humanauth.Decision) (text, said string, err error) {
	values, stored := map[string]any{}, map[string]any{}
	var only string
	secret, card := false, false
	for _, f := range v.Fields {
		val := strings.TrimSpace(r.PostFormValue(f.Name))
		if f.Required && val == "" {
			return "", "", fmt.Errorf("%s is required.", f.Label)
		}
		if val == "" {
			continue
		}
		key := f.ID
		if k := artifactKey(p, f.ID); k != "" {
			key = k
		}
		t := fieldType(p, f.ID)
		values[key], stored[key], only = val, val, val
		d.Fields = append(d.Fields, humanauth.Field{Key: key, Label: f.Label, Type: t, Value: val, Secret: secretTypes[t],
			Target: str(templateField(p, f.ID), "target", "")})
		if secretTypes[t] {
			stored[key] = "[provided]"
			secret = true
		}
		card = card || t == "card-number" || t == "cvc" || t == "expiry"
	}
	note := strings.TrimSpace(r.PostFormValue("note"))
	if len(values) == 0 {
		if note == "" || !v.AllowText {
			return "", "", nil
		}
		values["value"], only = note, note
	} else if note != "" && v.AllowText {
		d.Message += " (note: " + oneLine(note) + ")"
	}
	kind := v.ArtifactKind
	if kind == "" || kind == "auto" {
		switch {
		case card:
			kind = "payment_card"
		case secret:
			kind = "credentials"
		case len(values) == 1:
			kind = humanauth.TextKind(p.Capability)
		default:
			kind = "form"
		}
	}
	payload := map[string]any{"kind": kind}
	switch kind {
	case "text", "qr_text":
		payload["value"] = only
		if secret {
			payload["value"] = "[provided]"
		}
	default:
		payload["fields"] = stored
	}
	if d.Artifact == nil {
		if d.Artifact, err = s.store.SaveJSON(p.ID, p.Capability, payload); err != nil {
			return "", "", errors.New("The answer could not be stored.")
		}
	}
	if len(values) == 1 && !secret && len(d.Fields) <= 1 && (len(d.Fields) == 0 || d.Fields[0].Target == "") {
		// One plain value (a code) goes into the focused field, as seed
		// 000 says; anything else is typed field by field.
		text, d.Fields = only, nil
	}
	return text, saidOf(kind, len(values)), nil
}

// saidOf is how an approval of kind with n values is summarised to the
// agent and the person: never a value.
func saidOf(kind string, n int) string {
	switch {
	case kind == "payment_card":
		// A card is not a login; the agent and the person reading the
		// message should know which of the two was handed over.
		return "card details provided"
	case kind == "credentials":
		return "credentials provided"
	case n == 1:
		return "provided text"
	default:
		return fmt.Sprintf("filled in %d fields", n)
	}
}

func templateField(p humanauth.Pending, id string) map[string]any {
	for _, f := range list(p.UITemplate, "fields") {
		if str(f, "id", "") == id {
			return f
		}
	}
	return nil
}

func artifactKey(p humanauth.Pending, id string) string {
	return str(templateField(p, id), "artifactKey", "")
}

func fieldType(p humanauth.Pending, id string) string {
	if f := templateField(p, id); f != nil {
		return str(f, "type", "text")
	}
	return "otp" // the default code box
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
