package cron

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// payloadSigKey is the jobs.json field holding a payload path's signature.
const payloadSigKey = "payloadSig"

// payloadMAC signs a job's payload file: the job id, the payload kind and
// the path exactly as stored. Its key is derived from the delivery key
// under its own label, so neither signature can stand in for the other.
func payloadMAC(key []byte, id string, p Payload) string {
	sub := hmac.New(sha256.New, key)
	sub.Write([]byte("openpocket cron payload path v1"))
	m := hmac.New(sha256.New, sub.Sum(nil))
	fmt.Fprintf(m, "%s\x00%s\x00%s", id, p.Kind, p.Path)
	return hex.EncodeToString(m.Sum(nil))
}

// SignPayload marks job's payload file (playbook, Lua script or skill
// path) as named by the user through OpenPocket (`openpocket cron add`),
// with the key of DeliveryKey. The job's ID must be set. A job without a
// file payload gets no signature.
func (j *Job) SignPayload(key []byte) {
	if j.Extra == nil {
		j.Extra = map[string]json.RawMessage{}
	}
	if j.Payload.Path == "" {
		delete(j.Extra, payloadSigKey)
		return
	}
	sig, _ := json.Marshal(payloadMAC(key, j.ID, j.Payload))
	j.Extra[payloadSigKey] = sig
}

// PayloadTrusted reports whether job's payload path carries a valid
// signature of key: false for a path written or changed in jobs.json by
// hand or by the model (which can write the file but cannot read the key).
// The gateway reads an untrusted payload file only inside the workspace.
func PayloadTrusted(j Job, key []byte) bool {
	var sig string
	if raw, ok := j.Extra[payloadSigKey]; !ok || json.Unmarshal(raw, &sig) != nil || j.Payload.Path == "" {
		return false
	}
	return hmac.Equal([]byte(sig), []byte(payloadMAC(key, j.ID, j.Payload)))
}
