package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openpocket/openpocket/engine"
)

// Lua timeouts: run_lua's default and ceiling.
const (
	defaultLuaTimeout = 60 * time.Second
	maxLuaTimeout     = 30 * time.Minute
)

func (s *Server) addRunTools() {
	str := func(doc string) map[string]any { return map[string]any{"type": "string", "description": doc} }
	params := map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}, "description": "Parameters as KEY: VALUE strings."}
	s.add("run_lua", "Run Lua against the phone in OpenPocket's sandboxed VM, bound to a fresh session (modules device, screen, ui, app, json, time… — see the Lua API resource). Returns what the script printed; a script error is a tool error with file:line.",
		object(map[string]any{
			"code":       str("The Lua source."),
			"args":       map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "arg[1]..arg[n] for the script."},
			"timeout_ms": map[string]any{"type": "integer", "minimum": 1, "description": "Stop the script after this long (default 60000, at most 1800000)."},
		}, "code"), s.runLua)
	s.add("play", "Run a YAML playbook (a file path, or inline YAML) on the phone. Returns the status, each step's result and the report directory (log.txt, steps.json, failure screenshots).",
		object(map[string]any{
			"file":       str("Playbook file path (on the machine running openpocket)."),
			"yaml":       str("Inline playbook YAML (instead of file)."),
			"params":     params,
			"timeout_ms": map[string]any{"type": "integer", "minimum": 0, "description": "Abort after this long (0 = no limit)."},
		}), s.play)
	s.add("skills_list", "List OpenPocket skills (learned or written procedures): name, description, source, whether it can be replayed.", plain(map[string]any{}), s.skillsList)
	s.add("skill_run", "Replay a skill on the phone without a model (by name or skill file path).",
		object(map[string]any{"name": str("Skill name (as skills_list shows) or path."), "params": params}, "name"), s.skillRun)
	s.add("agent_run", "Hand a task to OpenPocket's own agent (it looks at the screen and acts step by step with the configured model). Progress arrives as MCP progress notifications; cancel the call to stop the run. Returns the verdict and the session path.",
		object(map[string]any{
			"task":      str("The task in plain words (\"Turn Wi-Fi off\")."),
			"model":     str("Model profile from config.json (default: defaultModel)."),
			"max_steps": map[string]any{"type": "integer", "minimum": 1, "description": "Stop after N steps (default: agent.maxSteps)."},
			"no_replay": map[string]any{"type": "boolean", "description": "Ask the model from the first step even when a learned skill matches the task (by default it is replayed first, with no model call)."},
		}, "task"), s.agentRun)
	s.add("sessions_list", "List recorded agent sessions, newest first: id, status, steps, task, path.",
		plain(map[string]any{"limit": map[string]any{"type": "integer", "minimum": 0, "description": "At most N (default 20, 0 = all)."}}), s.sessionsList)
	s.add("session_get", "Read one recorded session (markdown: task, steps, thoughts, actions, results).",
		plain(map[string]any{"id": str("Session id as sessions_list shows it, or \"latest\".")}, "id"), s.sessionGet)
}

type runLuaArgs struct {
	Device    string   `json:"device"`
	Code      string   `json:"code"`
	Args      []string `json:"args"`
	TimeoutMs *int     `json:"timeout_ms"`
}

func (s *Server) runLua(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var a runLuaArgs
	if err := decode("run_lua", req, &a); err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.Code) == "" {
		return nil, errors.New(`run_lua: argument "code" is required (Lua source, e.g. return app.current())`)
	}
	timeout := defaultLuaTimeout
	if a.TimeoutMs != nil {
		if *a.TimeoutMs <= 0 {
			return nil, fmt.Errorf("run_lua: timeout_ms must be positive, got %d", *a.TimeoutMs)
		}
		timeout = min(time.Duration(*a.TimeoutMs)*time.Millisecond, maxLuaTimeout)
	}
	out, err := s.runner.RunLua(ctx, a.Device, "mcp.lua", []byte(a.Code), a.Args, timeout)
	if err != nil {
		msg := strings.TrimSpace(err.Error())
		if out != "" {
			msg = "output:\n" + out + "\nerror: " + msg
		}
		return nil, errors.New(msg)
	}
	if out == "" {
		out = "(script finished; it printed nothing)"
	}
	return textResult(out), nil
}

type playArgs struct {
	Device    string            `json:"device"`
	File      string            `json:"file"`
	YAML      string            `json:"yaml"`
	Params    map[string]string `json:"params"`
	TimeoutMs int               `json:"timeout_ms"`
}

func (s *Server) play(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var a playArgs
	if err := decode("play", req, &a); err != nil {
		return nil, err
	}
	if (a.File == "") == (a.YAML == "") {
		return nil, errors.New(`play: give exactly one of "file" (a playbook path) or "yaml" (the playbook itself)`)
	}
	if a.TimeoutMs < 0 {
		return nil, fmt.Errorf("play: timeout_ms must not be negative, got %d", a.TimeoutMs)
	}
	report, err := s.runner.Play(ctx, a.Device, a.File, []byte(a.YAML), a.Params, time.Duration(a.TimeoutMs)*time.Millisecond, s.stepProgress(ctx, req))
	if err != nil {
		return nil, fmt.Errorf("play: %w", err)
	}
	res, err := jsonResult(report)
	if err != nil {
		return nil, err
	}
	// A failed playbook is a failed call; the report says where.
	var verdict struct {
		Status string `json:"status"`
	}
	if data, err := json.Marshal(report); err == nil && json.Unmarshal(data, &verdict) == nil {
		res.IsError = verdict.Status == "failed"
	}
	return res, nil
}

func (s *Server) skillsList(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var a struct{}
	if err := decode("skills_list", req, &a); err != nil {
		return nil, err
	}
	list, err := s.runner.Skills(ctx)
	if err != nil {
		return nil, err
	}
	return jsonResult(map[string]any{"skills": list})
}

type skillRunArgs struct {
	Device string            `json:"device"`
	Name   string            `json:"name"`
	Params map[string]string `json:"params"`
}

func (s *Server) skillRun(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var a skillRunArgs
	if err := decode("skill_run", req, &a); err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.Name) == "" {
		return nil, errors.New(`skill_run: argument "name" is required (see skills_list)`)
	}
	res, err := s.runner.RunSkill(ctx, a.Device, a.Name, a.Params)
	if err != nil && res.Message == "" {
		return nil, fmt.Errorf("skill_run: %w", err)
	}
	out, jerr := jsonResult(runResult(res))
	if jerr != nil {
		return nil, jerr
	}
	out.IsError = !res.Success
	return out, nil
}

// runResult is a run's verdict for the client.
func runResult(r engine.RunResult) map[string]any {
	status := "SUCCESS"
	if !r.Success {
		status = "FAILED"
	}
	m := map[string]any{"status": status, "message": r.Message, "steps": r.Steps}
	if r.SessionPath != "" {
		m["sessionPath"] = r.SessionPath
	}
	if r.SkillPath != "" {
		m["skillPath"], m["scriptPath"] = r.SkillPath, r.ScriptPath
	}
	return m
}

type agentArgs struct {
	Device   string `json:"device"`
	Task     string `json:"task"`
	Model    string `json:"model"`
	MaxSteps int    `json:"max_steps"`
	NoReplay bool   `json:"no_replay"`
}

func (s *Server) agentRun(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	var a agentArgs
	if err := decode("agent_run", req, &a); err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.Task) == "" {
		return nil, errors.New(`agent_run: argument "task" is required ("Turn Wi-Fi off")`)
	}
	if a.MaxSteps < 0 {
		return nil, fmt.Errorf("agent_run: max_steps must be positive, got %d", a.MaxSteps)
	}
	res, err := s.runner.Agent(ctx, AgentCall{Device: a.Device, Task: a.Task, Model: a.Model, MaxSteps: a.MaxSteps, NoReplay: a.NoReplay,
		OnEvent: s.progress(ctx, req)})
	if err != nil && res.Message == "" && res.SessionPath == "" {
		return nil, fmt.Errorf("agent_run: %w", err)
	}
	out, jerr := jsonResult(runResult(res))
	if jerr != nil {
		return nil, jerr
	}
	out.IsError = !res.Success
	return out, nil
}

// progress turns agent_step events into MCP progress notifications when
// the client asked for them (a progress token).
func (s *Server) progress(ctx context.Context, req *sdk.CallToolRequest) func(engine.Event) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return nil
	}
	return func(ev engine.Event) {
		if ev.Kind != "agent_step" {
			return
		}
		step, maxSteps := ev.Int("step"), ev.Int("max_steps")
		msg := fmt.Sprintf("step %d", step)
		if maxSteps > 0 {
			msg = fmt.Sprintf("step %d/%d", step, maxSteps)
		}
		if act, ok := ev.Fields["action"].(string); ok && act != "" {
			msg += ": " + act
		}
		p := &sdk.ProgressNotificationParams{ProgressToken: token, Progress: float64(step), Message: msg}
		if maxSteps > 0 {
			p.Total = float64(maxSteps)
		}
		if err := req.Session.NotifyProgress(ctx, p); err != nil {
			s.log.Debug("mcp: progress notification", "err", err)
		}
	}
}

// stepProgress turns a playbook's ended steps into MCP progress
// notifications when the client asked for them (a progress token); a
// playbook's step count is not known in advance, so there is no total.
func (s *Server) stepProgress(ctx context.Context, req *sdk.CallToolRequest) func(done int, label string) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return nil
	}
	return func(done int, label string) {
		msg := fmt.Sprintf("step %d", done)
		if label != "" {
			msg += ": " + label
		}
		p := &sdk.ProgressNotificationParams{ProgressToken: token, Progress: float64(done), Message: msg}
		if err := req.Session.NotifyProgress(ctx, p); err != nil {
			s.log.Debug("mcp: progress notification", "err", err)
		}
	}
}

func (s *Server) sessionsList(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	a := struct {
		Limit *int `json:"limit"`
	}{}
	if err := decode("sessions_list", req, &a); err != nil {
		return nil, err
	}
	limit := 20
	if a.Limit != nil {
		if *a.Limit < 0 {
			return nil, fmt.Errorf("sessions_list: limit must not be negative, got %d", *a.Limit)
		}
		limit = *a.Limit
	}
	list, err := s.runner.SessionsList(ctx, limit)
	if err != nil {
		return nil, err
	}
	return jsonResult(map[string]any{"sessions": list})
}

func (s *Server) sessionGet(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	a := struct {
		ID string `json:"id"`
	}{}
	if err := decode("session_get", req, &a); err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.ID) == "" {
		return nil, errors.New(`session_get: argument "id" is required (see sessions_list, or "latest")`)
	}
	text, err := s.runner.SessionGet(ctx, a.ID)
	if err != nil {
		return nil, fmt.Errorf("session_get: %w", err)
	}
	return textResult(text), nil
}
