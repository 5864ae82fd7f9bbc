package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openpocket/openpocket/docs"
)

// docResources are the pages served as resources: what a coding agent
// needs to write playbooks, Lua and actions.
var docResources = []struct{ file, title, doc string }{
	{"lua-api.md", "Lua API", "The Lua modules run_lua scripts, skills and playbooks use (device, screen, ui, app, json, time…)."},
	{"playbooks.md", "Playbooks", "The YAML playbook format play runs: steps, selectors, params, reports."},
	{"actions.md", "Actions", "Every action act accepts, with parameters, types and defaults (generated from the action table)."},
	{"skills.md", "Skills", "Skills: learned procedures, their files and replay."},
	{"mcp.md", "MCP server", "This server: tools, resources, transports and client setup."},
}

// recentSessionsURI lists the latest sessions; sessionURITemplate reads one.
const (
	recentSessionsURI  = "openpocket://sessions/recent"
	sessionURITemplate = "openpocket://sessions/{id}"
)

func (s *Server) addResources() {
	for _, d := range docResources {
		uri := "openpocket://docs/" + d.file
		s.sdk.AddResource(&sdk.Resource{URI: uri, Name: strings.TrimSuffix(d.file, ".md"), Title: d.title, Description: d.doc, MIMEType: "text/markdown"},
			func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
				data, err := fs.ReadFile(docs.Files(), d.file)
				if err != nil {
					return nil, sdk.ResourceNotFoundError(uri)
				}
				return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: string(data)}}}, nil
			})
	}
	s.sdk.AddResource(&sdk.Resource{URI: recentSessionsURI, Name: "recent-sessions", Title: "Recent sessions",
		Description: "The 20 latest recorded agent sessions (id, status, task, steps, path).", MIMEType: "application/json"},
		func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			list, err := s.runner.SessionsList(ctx, 20)
			if err != nil {
				return nil, err
			}
			data, err := json.MarshalIndent(list, "", "  ")
			if err != nil {
				return nil, err
			}
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: recentSessionsURI, MIMEType: "application/json", Text: string(data)}}}, nil
		})
	s.sdk.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: sessionURITemplate, Name: "session", Title: "Session",
		Description: "One recorded session's markdown, by id (as the recent sessions list shows).", MIMEType: "text/markdown"},
		func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			uri := req.Params.URI
			id := strings.TrimPrefix(uri, "openpocket://sessions/")
			text, err := s.runner.SessionGet(ctx, id)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", uri, err)
			}
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/markdown", Text: text}}}, nil
		})
}
