package llm

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"

	"github.com/openpocket/openpocket/engine"
)

// ModeCompletions is the legacy completions endpoint, the chat
// assistant's last resort (text only, no tools).
const ModeCompletions = "completions"

// assistantOrder is the chat assistant's endpoint order (docs/agents.md).
var assistantOrder = []string{ModeResponses, ModeChat, ModeCompletions}

// AssistantReply is one chat-assistant answer: a text, or one tool call.
type AssistantReply struct {
	Text string
	// Tool and Arguments (raw JSON) are set when the model called a tool.
	Tool      string
	Arguments string
	// Mode is the endpoint that answered.
	Mode  string
	Usage engine.Usage
}

// Converse asks the model as the chat assistant does: the model may answer
// in words or call one of req.Tools. Endpoints are tried in the order
// responses → chat → completions, starting with the one that worked last
// for this profile (remembered apart from the task loop's mode).
func (c *Client) Converse(ctx context.Context, req engine.ModelRequest) (AssistantReply, error) {
	key := c.profile.Name + "#assistant"
	order := slices.Clone(assistantOrder)
	if m := c.opts.Modes.Get(key); slices.Contains(order, m) {
		order = append([]string{m}, slices.DeleteFunc(order, func(x string) bool { return x == m })...)
	}
	var errs []error
	for i, mode := range order {
		res, err := c.converseOnce(ctx, mode, req)
		if ctx.Err() != nil {
			return AssistantReply{Mode: mode}, ctx.Err()
		}
		if err != nil {
			err = c.describe(mode, err)
			errs = append(errs, err)
			if i+1 < len(order) && endpointUnsupported(err) {
				c.log.Info("assistant endpoint not supported, falling back", "mode", mode, "next", order[i+1], "err", err)
				continue
			}
			return AssistantReply{Mode: mode}, errors.Join(errs...)
		}
		if mode != c.opts.Modes.Get(key) {
			if serr := c.opts.Modes.Set(key, mode); serr != nil {
				c.log.Warn("cannot remember assistant endpoint mode", "mode", mode, "err", serr)
			}
		}
		out := AssistantReply{Text: res.text, Mode: mode, Usage: res.usage}
		if len(res.calls) > 0 {
			out.Tool, out.Arguments = res.calls[0].name, res.calls[0].arguments
		}
		return out, nil
	}
	return AssistantReply{}, errors.Join(errs...)
}

func (c *Client) converseOnce(ctx context.Context, mode string, req engine.ModelRequest) (reply, error) {
	switch mode {
	case ModeChat:
		p := c.chatParams(req)
		if len(req.Tools) > 0 { // words are an answer too
			p.ToolChoice = openai.ChatCompletionToolChoiceOptionUnionParam{
				OfAuto: openai.String(string(openai.ChatCompletionToolChoiceOptionAutoAuto))}
		}
		return c.doChat(ctx, p)
	case ModeResponses:
		p := c.responsesParams(req)
		if len(req.Tools) > 0 {
			p.ToolChoice = responses.ResponseNewParamsToolChoiceUnion{OfToolChoiceMode: param.NewOpt(responses.ToolChoiceOptionsAuto)}
		}
		return c.doResponses(ctx, p)
	default:
		return c.complete(ctx, req)
	}
}

// complete asks the legacy completions endpoint with the system prompt and
// the conversation as one prompt; it can only answer in words.
func (c *Client) complete(ctx context.Context, req engine.ModelRequest) (reply, error) {
	prompt := strings.TrimSpace(req.System + "\n\n" + req.Text + "\nassistant:")
	p := openai.CompletionNewParams{Model: openai.CompletionNewParamsModel(c.profile.Model),
		Prompt: openai.CompletionNewParamsPromptUnion{OfString: openai.String(prompt)}}
	if c.profile.MaxTokens > 0 {
		p.MaxTokens = openai.Int(int64(c.profile.MaxTokens))
	}
	res, err := c.api.Completions.New(ctx, p)
	if err != nil {
		return reply{}, err
	}
	out := reply{usage: engine.Usage{InputTokens: res.Usage.PromptTokens, OutputTokens: res.Usage.CompletionTokens, TotalTokens: res.Usage.TotalTokens}}
	if len(res.Choices) > 0 {
		out.text = strings.TrimSpace(res.Choices[0].Text)
	}
	return out, nil
}
