package humanauth

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"time"

	"github.com/openpocket/openpocket/internal/atomicfile"
)

// ExtForMIME is docs/formats.md's MIME type → extension mapping.
func ExtForMIME(mime string) string {
	// Browsers send parameters ("audio/webm;codecs=opus").
	mime, _, _ = strings.Cut(mime, ";")
	switch strings.ToLower(strings.TrimSpace(mime)) {
	case "image/png":
		return ".png"
	case "image/jpeg":
		return ".jpg"
	case "image/webp":
		return ".webp"
	case "application/json":
		return ".json"
	case "audio/webm":
		// Voice notes recorded in the relay page's browser (MediaRecorder);
		// upstream saves them as .webm, not as unknown data.
		return ".webm"
	}
	return ".bin"
}

// SaveArtifact writes data as state/human-auth-artifacts/<id>.<ext>
// (private, atomically) and returns its absolute path.
func (s *Store) SaveArtifact(id, mime string, data []byte) (string, error) {
	if !ValidID(id) {
		return "", ErrNotFound
	}
	path, err := filepath.Abs(filepath.Join(s.ArtifactDir(), id+ExtForMIME(mime)))
	if err != nil {
		return "", err
	}
	return path, atomicfile.WriteFile(path, data, 0o600)
}

// SaveJSON writes a JSON payload of docs/formats.md#human-authorization-artifacts ({kind, …, capability,
// capturedAt}) and returns the artifact describing it.
func (s *Store) SaveJSON(id, capability string, payload map[string]any) (*Artifact, error) {
	payload["capability"] = capability
	payload["capturedAt"] = time.Now().UTC().Format(time.RFC3339Nano)
	data, err := json.MarshalIndent(payload, "", "  ")
	if err != nil {
		return nil, err
	}
	path, err := s.SaveArtifact(id, "application/json", data)
	if err != nil {
		return nil, err
	}
	a := &Artifact{Path: path, Kind: payload["kind"].(string), MIME: "application/json"}
	if a.Kind == "geo" {
		a.Lat, _ = payload["lat"].(float64)
		a.Lon, _ = payload["lon"].(float64)
	}
	return a, nil
}

// TextKind is the payload kind of a plain text answer: qr_text for a
// scanned QR code, text otherwise.
func TextKind(capability string) string {
	if capability == "qr" {
		return "qr_text"
	}
	return "text"
}
