package mcp

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func constantTimeEqual(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// handler is a tool's body: it decodes its own arguments.
type handler func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error)

// add registers a tool whose failures — errors, panics, bad arguments —
// become tool errors the client's model can read, never protocol errors
// or a crashed server.
func (s *Server) add(name, doc string, schema map[string]any, h handler) {
	s.tools[name] = true
	s.sdk.AddTool(&sdk.Tool{Name: name, Description: doc, InputSchema: schema}, func(ctx context.Context, req *sdk.CallToolRequest) (res *sdk.CallToolResult, err error) {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("mcp: tool panicked", "tool", name, "panic", r)
				res, err = toolError(fmt.Errorf("%s: internal error: %v (a bug in openpocket: please report it)", name, r)), nil
			}
		}()
		res, err = h(ctx, req)
		if err != nil {
			if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				err = fmt.Errorf("%s: cancelled: %w", name, err)
			}
			return toolError(err), nil
		}
		return res, nil
	})
}

// toolError is a result with isError set and the message as text.
func toolError(err error) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: strings.TrimSpace(err.Error())}}}
}

// textResult is a plain text result.
func textResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

// jsonResult returns v as indented JSON text and as structured content.
func jsonResult(v any) (*sdk.CallToolResult, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	res := textResult(string(data))
	if isObject(data) {
		res.StructuredContent = json.RawMessage(data)
	}
	return res, nil
}

func isObject(data []byte) bool {
	for _, c := range data {
		switch c {
		case ' ', '\n', '\t', '\r':
			continue
		case '{':
			return true
		}
		return false
	}
	return false
}

// decode reads the tool's arguments into dst strictly: an unknown
// argument or a value of the wrong type is an error naming it.
func decode(tool string, req *sdk.CallToolRequest, dst any) error {
	raw := req.Params.Arguments
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("%s: argument %q: expected %s, got a JSON %s", tool, te.Field, jsonKind(te.Type.Kind().String()), te.Value)
		}
		if field, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return fmt.Errorf("%s: unknown argument %s (arguments: %s)", tool, field, strings.Join(argNames(dst), ", "))
		}
		return fmt.Errorf("%s: bad arguments: %s", tool, strings.TrimPrefix(err.Error(), "json: "))
	}
	return nil
}

// argNames are the JSON names of dst's fields.
func argNames(dst any) []string {
	t := reflect.TypeOf(dst)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			names = append(names, name)
		}
	}
	return names
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "int", "int64", "int32", "float64":
		return "a number"
	case "map", "struct":
		return "an object"
	case "slice":
		return "an array"
	}
	return goKind
}

// unknownToolAsToolError answers a call of a tool this server does not
// have with a tool error listing the tools, so the client's model can
// correct itself (the SDK would answer with a protocol error).
func (s *Server) unknownToolAsToolError(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		if method == "tools/call" {
			if call, ok := req.(*sdk.CallToolRequest); ok && call.Params != nil && !s.tools[call.Params.Name] {
				return toolError(fmt.Errorf("unknown tool %q (tools: %s)", call.Params.Name, strings.Join(s.toolNames(), ", "))), nil
			}
		}
		return next(ctx, method, req)
	}
}

func (s *Server) toolNames() []string {
	names := make([]string, 0, len(s.tools))
	for _, n := range toolOrder {
		if s.tools[n] {
			names = append(names, n)
		}
	}
	return names
}
