package cron

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
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
