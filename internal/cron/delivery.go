package cron

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/openpocket/openpocket/engine/hostfs"
)

// Delivery is where a job's result goes: a chat channel ("telegram") and
// the chat there ("to": a chat id). It is the seed's jobs.json "delivery".
type Delivery struct {
	Channel string `json:"channel"`
	To      string `json:"to"`
}

// DeliveryOf reads job's delivery; ok is false when it has none (null or
// absent). A legacy job's chatId counts as a Telegram delivery. "to" may be
// a JSON number or string.
func DeliveryOf(j Job) (d Delivery, ok bool, err error) {
	raw := bytes.TrimSpace(j.Delivery)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		if chat, isChat := j.Extra["chatId"]; isChat && !bytes.Equal(bytes.TrimSpace(chat), []byte("null")) {
			return Delivery{Channel: "telegram", To: strings.Trim(string(chat), `" `)}, true, nil
		}
		return Delivery{}, false, nil
	}
	var v struct {
		Channel string          `json:"channel"`
		To      json.RawMessage `json:"to"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return Delivery{}, false, fmt.Errorf("job %s: delivery: expected {\"channel\": \"telegram\", \"to\": CHAT_ID}: %w", j.ID, err)
	}
	to := strings.Trim(strings.TrimSpace(string(v.To)), `"`)
	if v.Channel == "" || to == "" || to == "null" {
		return Delivery{}, false, fmt.Errorf("job %s: delivery: expected {\"channel\": \"telegram\", \"to\": CHAT_ID}, got %s", j.ID, raw)
	}
	return Delivery{Channel: v.Channel, To: to}, true, nil
}

// SetDelivery stores d as job's delivery.
func (j *Job) SetDelivery(d Delivery) {
	data, _ := json.Marshal(d) // two strings: cannot fail
	j.Delivery = data
}

// deliverySigKey is the jobs.json field holding a delivery's signature.
const deliverySigKey = "deliverySig"

// DeliveryKeyPath is the key that signs deliveries: in the state
// directory, which no model, script or skill can read or write.
func DeliveryKeyPath(stateDir string) string { return filepath.Join(stateDir, "cron-delivery.key") }

// DeliveryKey reads (creating on first use) the key that signs deliveries
// written by OpenPocket itself (the cron_add action from a chat).
func DeliveryKey(stateDir string) ([]byte, error) {
	path := DeliveryKeyPath(stateDir)
	var fresh [32]byte
	if _, err := rand.Read(fresh[:]); err != nil {
		return nil, err
	}
	if _, err := hostfs.WriteNew(stateDir, path, []byte(hex.EncodeToString(fresh[:])+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("delivery key: %w", err)
	}
	data, err := hostfs.ReadFile(stateDir, path, 1024)
	if err != nil {
		return nil, fmt.Errorf("delivery key: %w", err)
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(data)))
	if err != nil || len(key) < 16 {
		return nil, fmt.Errorf("delivery key %s: expected hex of 32 bytes; remove it to make a new one", path)
	}
	return key, nil
}

func deliveryMAC(key []byte, id string, d Delivery) string {
	m := hmac.New(sha256.New, key)
	fmt.Fprintf(m, "%s\x00%s\x00%s", id, d.Channel, d.To)
	return hex.EncodeToString(m.Sum(nil))
}

// SignDelivery stores d as job's delivery, signed with key: the mark of a
// delivery target OpenPocket wrote itself. The job's ID must be set.
func (j *Job) SignDelivery(d Delivery, key []byte) {
	j.SetDelivery(d)
	if j.Extra == nil {
		j.Extra = map[string]json.RawMessage{}
	}
	sig, _ := json.Marshal(deliveryMAC(key, j.ID, d))
	j.Extra[deliverySigKey] = sig
}

// DeliveryTrusted reports whether job's delivery carries a valid signature
// of key: false for a delivery added or changed in the file by hand or by
// the model (which can write jobs.json but cannot read the key).
func DeliveryTrusted(j Job, d Delivery, key []byte) bool {
	var sig string
	if raw, ok := j.Extra[deliverySigKey]; !ok || json.Unmarshal(raw, &sig) != nil {
		return false
	}
	return hmac.Equal([]byte(sig), []byte(deliveryMAC(key, j.ID, d)))
}
