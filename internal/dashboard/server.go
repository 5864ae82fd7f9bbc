package dashboard

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ErrNoAgent is wrapped by Manager.Agent for an unknown id (404).
var ErrNoAgent = errors.New("no such agent")

// screenWidth is the CSS width of the live screen; clicks are mapped from
// it to the device's pixels.
const screenWidth = 360

// Server is the dashboard's HTTP handler.
type Server struct {
	mgr   Manager
	opts  Options
	pages *template.Template
	mux   *http.ServeMux
	// actions are the jobs and replays started from the pages.
	actions actions
	// wait bounds how long a form waits for an action (tests shorten it).
	wait time.Duration
}

// New builds the handler over mgr.
func New(mgr Manager, o Options) *Server {
	s := &Server{mgr: mgr, opts: o, pages: parsePages(), mux: http.NewServeMux(), wait: actionWait}
	s.routes()
	return s
}

func (s *Server) routes() {
	m := s.mux
	m.HandleFunc("GET /{$}", s.managerPage)
	m.HandleFunc("GET /a/{agent}/{$}", s.agentHandler(s.agentPage))
	m.HandleFunc("GET /a/{agent}/screen.png", s.agentHandler(s.screenPNG))
	m.HandleFunc("GET /a/{agent}/steps", s.agentHandler(s.stepsFragment))
	m.HandleFunc("POST /a/{agent}/tap", s.agentHandler(s.tap))
	m.HandleFunc("POST /a/{agent}/type", s.agentHandler(s.typeText))
	m.HandleFunc("POST /a/{agent}/key", s.agentHandler(s.key))
	m.HandleFunc("GET /a/{agent}/sessions/{session}", s.agentHandler(s.sessionPage))
	m.HandleFunc("GET /a/{agent}/shots/{name}", s.agentHandler(s.shot))
	m.HandleFunc("POST /a/{agent}/jobs/{job}/{op}", s.agentHandler(s.jobOp))
	m.HandleFunc("GET /a/{agent}/skills/{skill}", s.agentHandler(s.skillPage))
	m.HandleFunc("POST /a/{agent}/skills/{skill}/replay", s.agentHandler(s.replay))
	m.HandleFunc("POST /a/{agent}/humanauth/{req}", s.agentHandler(s.decideAuth))
	if s.opts.Relay != nil {
		// The relay hub: one address serves every agent's human-auth
		// pages (docs/agents.md); each link carries its own token.
		m.Handle("/a/{agent}/auth/", s.opts.Relay)
	}
}

// ServeHTTP checks the token and the origin of state-changing requests,
// then routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.opts.Relay != nil && isRelayPath(r.URL.Path) {
		s.mux.ServeHTTP(w, r) // the relay checks the link's own token
		return
	}
	if !s.authorized(w, r) {
		return
	}
	if r.Method == http.MethodPost && !sameOrigin(r) {
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
		return
	}
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Referrer-Policy", "no-referrer")
	s.mux.ServeHTTP(w, r)
}

// authorized accepts the token from ?token= (then sets a cookie, so links
// need not carry it) or the cookie.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if s.opts.Token == "" {
		// Without a token the server is on loopback: a page elsewhere
		// that rebinds its own name to 127.0.0.1 still sends that name
		// as Host, and is refused here.
		if !loopbackHost(r.Host) {
			http.Error(w, "this dashboard answers only to localhost addresses", http.StatusForbidden)
			return false
		}
		return true
	}
	if q := r.URL.Query().Get("token"); q != "" && equal(q, s.opts.Token) {
		http.SetCookie(w, &http.Cookie{Name: "openpocket_dashboard", Value: s.opts.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		return true
	}
	if c, err := r.Cookie("openpocket_dashboard"); err == nil && equal(c.Value, s.opts.Token) {
		return true
	}
	http.Error(w, "this dashboard needs its token: open the URL `openpocket dashboard` printed", http.StatusUnauthorized)
	return false
}

// isRelayPath reports whether path is a human-auth page: /a/ID/auth/….
func isRelayPath(path string) bool {
	rest, ok := strings.CutPrefix(path, "/a/")
	if !ok {
		return false
	}
	_, tail, ok := strings.Cut(rest, "/")
	return ok && strings.HasPrefix(tail, "auth/")
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// sameOrigin refuses POSTs another site's page makes the browser send.
func sameOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" || origin == "null" {
		return r.Header.Get("Sec-Fetch-Site") != "cross-site"
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host == r.Host
}

// agentHandler resolves {agent} before calling h.
func (s *Server) agentHandler(h func(http.ResponseWriter, *http.Request, string, Agent)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id := r.PathValue("agent")
		ag, err := s.mgr.Agent(id)
		if errors.Is(err, ErrNoAgent) {
			http.Error(w, err.Error(), http.StatusNotFound)
			return
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		h(w, r, id, ag)
	}
}

func (s *Server) render(w http.ResponseWriter, name string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := s.pages.ExecuteTemplate(w, name, data); err != nil {
		slog.Default().Warn("dashboard: render", "page", name, "err", err)
	}
}

func (s *Server) managerPage(w http.ResponseWriter, r *http.Request) {
	agents, err := s.mgr.Agents(r.Context())
	s.render(w, "manager", map[string]any{"Agents": agents, "Err": errText(err)})
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func (s *Server) agentPage(w http.ResponseWriter, r *http.Request, id string, ag Agent) {
	flash := r.URL.Query().Get("msg")
	data := map[string]any{"ID": id, "ScreenWidth": screenWidth, "Flash": flash, "Now": time.Now(), "FlashFailed": strings.HasPrefix(flash, "failed: "),
		"Actions": s.actions.list(id)}
	// Why there is no screen (several phones, none, bound elsewhere) is
	// said in words rather than a broken image.
	dctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	if _, err := ag.Device(dctx); err != nil {
		data["NoScreen"] = err.Error()
	}
	cancel()
	var errs []string
	note := func(err error) {
		if err != nil {
			errs = append(errs, err.Error())
		}
	}
	sum, err := ag.Summary(r.Context())
	note(err)
	sessions, err := ag.Sessions()
	note(err)
	jobs, err := ag.Jobs()
	note(err)
	skills, err := ag.Skills()
	note(err)
	auth, err := ag.HumanAuth()
	note(err)
	data["Summary"], data["Sessions"], data["Jobs"], data["Skills"], data["Auth"], data["Errs"] = sum, sessions, jobs, skills, auth, errs
	data["Steps"] = runningSteps(ag, id, sessions)
	s.render(w, "agent", data)
}

func (s *Server) screenPNG(w http.ResponseWriter, r *http.Request, _ string, ag Agent) {
	ctx, cancel := context.WithTimeout(r.Context(), 20*time.Second)
	defer cancel()
	sc, err := ag.Screen(ctx)
	if err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", http.DetectContentType(sc.PNG)) // PNG or JPEG, as captured
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Device-Size", fmt.Sprintf("%dx%d", sc.Width, sc.Height))
	w.Write(sc.PNG)
}

// tap maps a click on the screen image (<input type=image name=screen>
// sends screen.x and screen.y in CSS pixels of the image) to the device.
func (s *Server) tap(w http.ResponseWriter, r *http.Request, id string, ag Agent) {
	x, errX := strconv.Atoi(r.FormValue("screen.x"))
	y, errY := strconv.Atoi(r.FormValue("screen.y"))
	if errors.Join(errX, errY) != nil || x < 0 || y < 0 {
		http.Error(w, "tap: expected screen.x and screen.y as integers (a click on the screen)", http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 20*time.Second)
	defer cancel()
	sc, err := ag.Screen(ctx) // the device's size now (it may have rotated)
	if err != nil {
		back(w, r, id, "failed: "+err.Error())
		return
	}
	// The page sends the width the image was shown at (narrower than
	// screenWidth on a phone); without it, screenWidth.
	shown := float64(screenWidth)
	if v, err := strconv.ParseFloat(r.FormValue("shown_width"), 64); err == nil && v >= 50 && v <= 4*screenWidth {
		shown = v
	}
	scale := float64(sc.Width) / shown
	dx, dy := int(float64(x)*scale), int(float64(y)*scale)
	if dx >= sc.Width || dy >= sc.Height {
		http.Error(w, "tap: outside the screen", http.StatusBadRequest)
		return
	}
	s.act(w, r, id, ag, map[string]any{"type": "tap", "x": dx, "y": dy}, fmt.Sprintf("tapped %d,%d", dx, dy))
}

func (s *Server) typeText(w http.ResponseWriter, r *http.Request, id string, ag Agent) {
	text := r.FormValue("text")
	if text == "" {
		http.Error(w, "type: expected a text", http.StatusBadRequest)
		return
	}
	s.act(w, r, id, ag, map[string]any{"type": "type", "text": text}, "typed")
}

// keys are the buttons the page offers (a TV's D-pad among them).
var keys = map[string]string{
	"back": "KEYCODE_BACK", "home": "KEYCODE_HOME", "enter": "KEYCODE_ENTER",
	"up": "KEYCODE_DPAD_UP", "down": "KEYCODE_DPAD_DOWN", "left": "KEYCODE_DPAD_LEFT", "right": "KEYCODE_DPAD_RIGHT", "center": "KEYCODE_DPAD_CENTER",
}

func (s *Server) key(w http.ResponseWriter, r *http.Request, id string, ag Agent) {
	code, ok := keys[r.FormValue("key")]
	if !ok {
		http.Error(w, "key: expected back, home, enter, up, down, left, right or center", http.StatusBadRequest)
		return
	}
	s.act(w, r, id, ag, map[string]any{"type": "keyevent", "keycode": code}, "pressed "+r.FormValue("key"))
}

func (s *Server) act(w http.ResponseWriter, r *http.Request, id string, ag Agent, a map[string]any, done string) {
	raw, _ := json.Marshal(a)
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	msg := done
	if err := ag.Act(ctx, string(raw)); err != nil {
		msg = "failed: " + err.Error()
	}
	back(w, r, id, msg)
}

// back answers a form with a redirect to the agent page and a message.
func back(w http.ResponseWriter, r *http.Request, id, msg string) {
	http.Redirect(w, r, "/a/"+url.PathEscape(id)+"/?msg="+url.QueryEscape(msg), http.StatusSeeOther)
}

func (s *Server) stepsFragment(w http.ResponseWriter, r *http.Request, id string, ag Agent) {
	sessions, _ := ag.Sessions()
	s.render(w, "steps", runningSteps(ag, id, sessions))
}

func (s *Server) sessionPage(w http.ResponseWriter, r *http.Request, id string, ag Agent) {
	sid := r.PathValue("session")
	md, err := ag.SessionMarkdown(sid)
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	shots, _ := ag.SessionScreenshots(sid)
	s.render(w, "session", map[string]any{"ID": id, "Session": sid, "HTML": renderSession(md, id, shots)})
}

func (s *Server) shot(w http.ResponseWriter, r *http.Request, _ string, ag Agent) {
	png, err := ag.Screenshot(r.PathValue("name"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", http.DetectContentType(png))
	w.Write(png)
}

func (s *Server) jobOp(w http.ResponseWriter, r *http.Request, id string, ag Agent) {
	job, op := r.PathValue("job"), r.PathValue("op")
	var err error
	switch op {
	case "enable", "disable":
		err = ag.SetJobEnabled(job, op == "enable")
	case "run":
		back(w, r, id, s.actions.start(id, "job "+job, s.wait, func(ctx context.Context) (string, error) { return ag.RunJob(ctx, job) }))
		return
	default:
		http.Error(w, "job: expected enable, disable or run", http.StatusBadRequest)
		return
	}
	msg := fmt.Sprintf("job %s: %s", job, op)
	if err != nil {
		msg = "failed: " + err.Error()
	}
	back(w, r, id, msg)
}

// decideAuth answers a pending human-auth request from the agent page
// (authenticated by the dashboard's token and same-origin check).
func (s *Server) decideAuth(w http.ResponseWriter, r *http.Request, id string, ag Agent) {
	req, decision := r.PathValue("req"), r.FormValue("decision")
	if decision != "approve" && decision != "reject" {
		http.Error(w, "human auth: expected decision approve or reject", http.StatusBadRequest)
		return
	}
	msg := fmt.Sprintf("request %s: %sd", req, decision)
	if err := ag.DecideHumanAuth(req, decision == "approve", r.FormValue("text")); err != nil {
		msg = "failed: " + err.Error()
	}
	back(w, r, id, msg)
}

func (s *Server) skillPage(w http.ResponseWriter, r *http.Request, id string, ag Agent) {
	text, err := ag.SkillText(r.PathValue("skill"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	s.render(w, "skill", map[string]any{"ID": id, "Name": r.PathValue("skill"), "HTML": renderMarkdown(text)})
}

func (s *Server) replay(w http.ResponseWriter, r *http.Request, id string, ag Agent) {
	name := r.PathValue("skill")
	back(w, r, id, s.actions.start(id, "replay of skill "+name, s.wait, func(ctx context.Context) (string, error) { return ag.ReplaySkill(ctx, name) }))
}

// runningSteps are the steps of the newest session still running.
func runningSteps(ag Agent, id string, sessions []SessionInfo) stepsView {
	for _, si := range sessions {
		if !si.Running {
			continue
		}
		md, err := ag.SessionMarkdown(si.ID)
		if err != nil {
			return stepsView{}
		}
		shots, _ := ag.SessionScreenshots(si.ID)
		v := stepsView{Session: si.ID, Task: si.Task}
		for _, st := range parseSteps(md) {
			v.Lines = append(v.Lines, stepLineOf(st, id, shots))
		}
		return v
	}
	return stepsView{}
}

// stepsView is the running task: its steps as the CLI prints them.
type stepsView struct {
	Session, Task string
	Lines         []stepLine
}

// loopbackHost reports whether a Host header names this machine's loopback.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}

// IsLoopback reports whether addr (host:port) listens on loopback only.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// sortedKeys lists a map's keys in order (template helper).
func sortedKeys(m map[int]string) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}
