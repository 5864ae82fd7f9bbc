// Package telegramtest is a fake Telegram Bot API server for tests: an
// httptest server speaking POST /bot<token>/<method> with the Bot API's
// JSON envelope ({"ok": true, "result": …}). It queues updates for
// getUpdates (long polling with the offset semantics of the real API),
// records every sendMessage / editMessageText / sendPhoto /
// answerCallbackQuery call, and can answer a method with an error status
// (429 with retry_after, 5xx) a number of times, so retry paths are
// exercised through the real Bot API client.
package telegramtest

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Call is one request the bot made.
type Call struct {
	Method string
	// Params are the form fields (JSON values stay JSON text, e.g.
	// reply_markup).
	Params map[string]string
	// Photo is the uploaded photo's bytes (sendPhoto).
	Photo []byte
	// MessageID is the id the server gave a sent message (0 otherwise).
	MessageID int
	At        time.Time
}

// Server is a fake Bot API server. Methods are safe for concurrent use.
type Server struct {
	srv   *httptest.Server
	token string

	mu       sync.Mutex
	cond     *sync.Cond
	updates  []map[string]any
	nextUpd  int64
	nextMsg  int
	calls    []Call
	failures map[string][]int // method → statuses still to answer with
	closed   bool
}

// NewServer starts a server that accepts token; it closes with the test.
func NewServer(t testing.TB, token string) *Server {
	t.Helper()
	s := &Server{token: token, nextUpd: 100, nextMsg: 1000, failures: map[string][]int{}}
	s.cond = sync.NewCond(&s.mu)
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.Close)
	return s
}

// URL is the server's base URL (the bot's apiBaseUrl).
func (s *Server) URL() string { return s.srv.URL }

// Close stops the server and wakes long polls.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	s.cond.Broadcast()
	s.mu.Unlock()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// User is a Telegram user in a private chat with the bot (chat id = user id).
type User struct {
	ID        int64
	FirstName string
}

// SendText queues a text message from u in its private chat.
func (s *Server) SendText(u User, text string) { s.SendTextIn(u, u.ID, text) }

// SendTextIn queues a text message from u in chat.
func (s *Server) SendTextIn(u User, chat int64, text string) {
	msg := map[string]any{
		"message_id": s.msgID(),
		"date":       time.Now().Unix(),
		"from":       map[string]any{"id": u.ID, "is_bot": false, "first_name": u.FirstName},
		"chat":       map[string]any{"id": chat, "type": chatType(u, chat)},
		"text":       text,
	}
	if strings.HasPrefix(text, "/") {
		cmd, _, _ := strings.Cut(text, " ")
		msg["entities"] = []any{map[string]any{"type": "bot_command", "offset": 0, "length": len(cmd)}}
	}
	s.push(map[string]any{"message": msg})
}

// TextUpdate is the JSON of an update carrying a text message from u in
// its private chat, as Telegram posts it to a webhook.
func (s *Server) TextUpdate(u User, id int64, text string) []byte {
	data, _ := json.Marshal(map[string]any{"update_id": id, "message": map[string]any{
		"message_id": s.msgID(), "date": time.Now().Unix(),
		"from": map[string]any{"id": u.ID, "is_bot": false, "first_name": u.FirstName},
		"chat": map[string]any{"id": u.ID, "type": "private"}, "text": text}})
	return data
}

// PressButton queues a callback query: u pressed an inline button with
// data under the bot's message messageID in chat.
func (s *Server) PressButton(u User, chat int64, messageID int, data string) {
	s.push(map[string]any{"callback_query": map[string]any{
		"id":            fmt.Sprintf("cb%d", s.msgID()),
		"from":          map[string]any{"id": u.ID, "is_bot": false, "first_name": u.FirstName},
		"chat_instance": "ci",
		"data":          data,
		"message": map[string]any{
			"message_id": messageID, "date": time.Now().Unix(),
			"chat": map[string]any{"id": chat, "type": chatType(u, chat)},
		},
	}})
}

func chatType(u User, chat int64) string {
	if chat == u.ID {
		return "private"
	}
	return "group"
}

// Fail answers the next n calls of method with status (429 carries
// retry_after 1 second).
func (s *Server) Fail(method string, status, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.failures[method] = append(s.failures[method], status)
	}
}

// Calls returns the calls of method in order; "" is every call that
// talks to people (all but getUpdates, getMe and deleteWebhook).
func (s *Server) Calls(method string) []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Call
	for _, c := range s.calls {
		if (method == "" && c.Method != "getUpdates" && c.Method != "getMe" && c.Method != "deleteWebhook") || c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// WaitFor polls until cond holds for the calls (all but getUpdates) or
// the timeout passes; it returns the calls seen and whether cond held.
func (s *Server) WaitFor(timeout time.Duration, cond func([]Call) bool) ([]Call, bool) {
	deadline := time.Now().Add(timeout)
	for {
		calls := s.Calls("")
		if cond(calls) {
			return calls, true
		}
		if time.Now().After(deadline) {
			return calls, false
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *Server) msgID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextMsg++
	return s.nextMsg
}

func (s *Server) push(u map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextUpd++
	u["update_id"] = s.nextUpd
	s.updates = append(s.updates, u)
	s.cond.Broadcast()
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/bot"+s.token+"/")
	if !ok {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"ok": false, "error_code": 401, "description": "Unauthorized"})
		return
	}
	method := rest
	params, photo, err := readParams(r)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"ok": false, "error_code": 400, "description": "Bad Request: " + err.Error()})
		return
	}
	call := Call{Method: method, Params: params, Photo: photo, At: time.Now()}
	if status := s.takeFailure(method); status != 0 {
		s.record(call)
		body := map[string]any{"ok": false, "error_code": status, "description": http.StatusText(status)}
		if status == http.StatusTooManyRequests {
			body["description"] = "Too Many Requests: retry after 1"
			body["parameters"] = map[string]any{"retry_after": 1}
		}
		writeJSON(w, status, body)
		return
	}
	var result any
	switch method {
	case "getMe":
		result = map[string]any{"id": 1, "is_bot": true, "first_name": "OpenPocket", "username": "openpocket_test_bot"}
	case "getUpdates":
		result = s.getUpdates(r, params)
	case "sendMessage", "sendPhoto":
		call.MessageID = s.msgID()
		result = s.message(call)
	case "editMessageText":
		id, _ := strconv.Atoi(params["message_id"])
		call.MessageID = id
		result = s.message(call)
	case "answerCallbackQuery", "editMessageReplyMarkup", "setMyCommands", "deleteWebhook", "setWebhook":
		result = true
	default:
		writeJSON(w, http.StatusNotFound, map[string]any{"ok": false, "error_code": 404, "description": "Not Found: method " + method})
		return
	}
	if method != "getUpdates" {
		s.record(call)
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "result": result})
}

func (s *Server) takeFailure(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.failures[method]
	if len(q) == 0 {
		return 0
	}
	s.failures[method] = q[1:]
	return q[0]
}

func (s *Server) record(c Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, c)
}

func (s *Server) message(c Call) map[string]any {
	chat, _ := strconv.ParseInt(c.Params["chat_id"], 10, 64)
	m := map[string]any{"message_id": c.MessageID, "date": time.Now().Unix(),
		"chat": map[string]any{"id": chat, "type": "private"}, "text": c.Params["text"]}
	if c.Method == "sendPhoto" {
		m["photo"] = []any{map[string]any{"file_id": "f1", "file_unique_id": "u1", "width": 1, "height": 1}}
		m["caption"] = c.Params["caption"]
	}
	return m
}

// getUpdates answers updates after offset, waiting up to the request's
// timeout (capped at 2 s so tests stay quick) for one to arrive.
func (s *Server) getUpdates(r *http.Request, params map[string]string) []map[string]any {
	offset, _ := strconv.ParseInt(params["offset"], 10, 64)
	wait, _ := strconv.Atoi(params["timeout"])
	deadline := time.Now().Add(min(time.Duration(wait)*time.Second, 2*time.Second))
	stop := make(chan struct{})
	defer close(stop)
	go func() { // wake the wait when the client goes away or time is up
		select {
		case <-r.Context().Done():
		case <-time.After(time.Until(deadline)):
		case <-stop:
			return
		}
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	}()
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		var out []map[string]any
		for _, u := range s.updates {
			if id, _ := u["update_id"].(int64); id >= offset {
				out = append(out, u)
			}
		}
		if len(out) > 0 || s.closed || r.Context().Err() != nil || !time.Now().Before(deadline) {
			if out == nil {
				out = []map[string]any{}
			}
			return out
		}
		s.cond.Wait()
	}
}

// readParams reads a multipart, urlencoded or JSON body into strings.
func readParams(r *http.Request) (map[string]string, []byte, error) {
	out := map[string]string{}
	ct, ctParams, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case "multipart/form-data":
		mr := multipart.NewReader(r.Body, ctParams["boundary"])
		var photo []byte
		for {
			p, err := mr.NextPart()
			if err == io.EOF {
				return out, photo, nil
			}
			if err != nil {
				return nil, nil, err
			}
			data, err := io.ReadAll(p)
			if err != nil {
				return nil, nil, err
			}
			if p.FileName() != "" {
				photo = data
				continue
			}
			out[p.FormName()] = string(data)
		}
	case "application/json":
		var m map[string]any
		if err := json.NewDecoder(r.Body).Decode(&m); err != nil {
			return nil, nil, err
		}
		for k, v := range m {
			if s, ok := v.(string); ok {
				out[k] = s
				continue
			}
			b, _ := json.Marshal(v)
			out[k] = string(b)
		}
		return out, nil, nil
	default:
		if err := r.ParseForm(); err != nil {
			return nil, nil, err
		}
		for k := range r.PostForm {
			out[k] = r.PostForm.Get(k)
		}
		return out, nil, nil
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
