package llm

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/openpocket/openpocket/engine"
	"github.com/openpocket/openpocket/engine/screen"
)

// imageDataURL encodes a screenshot as a data URL whose media type is read
// from the bytes: model images are JPEG by default, PNG when the profile's
// imageFormat says so (unknown bytes are labelled PNG, as before).
func imageDataURL(img []byte) string {
	mime := screen.SniffImageMIME(img)
	if mime == "" {
		mime = "image/png"
	}
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(img)
}

// chatParams builds the chat completions request for one step.
func (c *Client) chatParams(req engine.ModelRequest) openai.ChatCompletionNewParams {
	var msgs []openai.ChatCompletionMessageParamUnion
	if req.System != "" {
		msgs = append(msgs, openai.SystemMessage(req.System))
	}
	parts := []openai.ChatCompletionContentPartUnionParam{openai.TextContentPart(req.Text)}
	if len(req.ImagePNG) > 0 {
		parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{
			URL:    imageDataURL(req.ImagePNG),
			Detail: "auto",
		}))
	}
	msgs = append(msgs, openai.UserMessage(parts))

	p := openai.ChatCompletionNewParams{
		Model:    c.profile.Model,
		Messages: msgs,
	}
	if len(req.Tools) > 0 {
		for _, t := range req.Tools {
			fn := shared.FunctionDefinitionParam{
				Name:       t.Name,
				Strict:     openai.Bool(false),
				Parameters: shared.FunctionParameters(t.Parameters),
			}
			if t.Description != "" {
				fn.Description = openai.String(t.Description)
			}
			p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(fn))
		}
		p.ToolChoice = openai.ChatCompletionToolChoiceOptionUnionParam{
			OfAuto: openai.String(string(openai.ChatCompletionToolChoiceOptionAutoRequired)),
		}
		p.ParallelToolCalls = openai.Bool(false)
	}
	if c.profile.MaxTokens > 0 {
		if c.useMaxCT {
			p.MaxCompletionTokens = openai.Int(int64(c.profile.MaxTokens))
		} else {
			p.MaxTokens = openai.Int(int64(c.profile.MaxTokens))
		}
	}
	if c.profile.ReasoningEffort != "" {
		p.ReasoningEffort = shared.ReasoningEffort(c.profile.ReasoningEffort)
	}
	if c.profile.Temperature != nil {
		p.Temperature = openai.Float(*c.profile.Temperature)
	}
	return p
}

// callChat asks the chat completions endpoint.
func (c *Client) callChat(ctx context.Context, req engine.ModelRequest) (reply, error) {
	return c.doChat(ctx, c.chatParams(req))
}

// doChat sends chat completions params and reads the reply.
func (c *Client) doChat(ctx context.Context, p openai.ChatCompletionNewParams) (reply, error) {
	res, err := c.api.Chat.Completions.New(ctx, p)
	if err != nil {
		return reply{}, err
	}
	var out reply
	out.usage = engine.Usage{
		InputTokens:  res.Usage.PromptTokens,
		OutputTokens: res.Usage.CompletionTokens,
		TotalTokens:  res.Usage.TotalTokens,
	}
	if out.usage.TotalTokens == 0 {
		out.usage.TotalTokens = out.usage.InputTokens + out.usage.OutputTokens
	}
	if len(res.Choices) == 0 {
		return out, nil
	}
	msg := res.Choices[0].Message
	for _, tc := range msg.ToolCalls {
		switch tc.Type {
		case "function", "":
			out.calls = append(out.calls, toolCall{name: tc.Function.Name, arguments: tc.Function.Arguments})
		case "custom":
			out.calls = append(out.calls, toolCall{name: tc.Custom.Name, arguments: tc.Custom.Input})
		}
	}
	// Legacy function_call replies from older servers.
	if len(out.calls) == 0 && msg.FunctionCall.Name != "" {
		out.calls = append(out.calls, toolCall{name: msg.FunctionCall.Name, arguments: msg.FunctionCall.Arguments})
	}
	out.text = strings.TrimSpace(msg.Content)
	if out.text == "" {
		out.text = strings.TrimSpace(msg.Refusal)
	}
	for _, k := range []string{"reasoning_content", "reasoning"} {
		if f, ok := msg.JSON.ExtraFields[k]; ok {
			var s string
			if json.Unmarshal([]byte(f.Raw()), &s) == nil && strings.TrimSpace(s) != "" {
				out.reasoning = strings.TrimSpace(s)
				break
			}
		}
	}
	return out, nil
}
