package llm

import (
	"context"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/openpocket/openpocket/engine"
)

// responsesParams builds the Responses API request for one step.
func (c *Client) responsesParams(req engine.ModelRequest) responses.ResponseNewParams {
	content := responses.ResponseInputMessageContentListParam{
		responses.ResponseInputContentParamOfInputText(req.Text),
	}
	if len(req.ImagePNG) > 0 {
		content = append(content, responses.ResponseInputContentUnionParam{
			OfInputImage: &responses.ResponseInputImageParam{
				Detail:   responses.ResponseInputImageDetailAuto,
				ImageURL: openai.String(imageDataURL(req.ImagePNG)),
			},
		})
	}
	p := responses.ResponseNewParams{
		Model: c.profile.Model,
		Input: responses.ResponseNewParamsInputUnion{
			OfInputItemList: responses.ResponseInputParam{
				responses.ResponseInputItemParamOfMessage(content, responses.EasyInputMessageRoleUser),
			},
		},
		// Local-first: do not ask the provider to keep the conversation.
		Store: openai.Bool(false),
	}
	if req.System != "" {
		p.Instructions = openai.String(req.System)
	}
	if len(req.Tools) > 0 {
		for _, t := range req.Tools {
			tool := responses.ToolParamOfFunction(t.Name, t.Parameters, false)
			if t.Description != "" {
				tool.OfFunction.Description = openai.String(t.Description)
			}
			p.Tools = append(p.Tools, tool)
		}
		p.ToolChoice = responses.ResponseNewParamsToolChoiceUnion{
			OfToolChoiceMode: param.NewOpt(responses.ToolChoiceOptionsRequired),
		}
		p.ParallelToolCalls = openai.Bool(false)
	}
	if c.profile.MaxTokens > 0 {
		p.MaxOutputTokens = openai.Int(int64(c.profile.MaxTokens))
	}
	if c.profile.ReasoningEffort != "" {
		p.Reasoning = shared.ReasoningParam{Effort: shared.ReasoningEffort(c.profile.ReasoningEffort)}
	}
	if c.profile.Temperature != nil {
		p.Temperature = openai.Float(*c.profile.Temperature)
	}
	return p
}

// callResponses asks the Responses endpoint.
func (c *Client) callResponses(ctx context.Context, req engine.ModelRequest) (reply, error) {
	return c.doResponses(ctx, c.responsesParams(req))
}

// doResponses sends Responses params and reads the reply.
func (c *Client) doResponses(ctx context.Context, p responses.ResponseNewParams) (reply, error) {
	res, err := c.api.Responses.New(ctx, p)
	if err != nil {
		return reply{}, err
	}
	var out reply
	out.usage = engine.Usage{
		InputTokens:  res.Usage.InputTokens,
		OutputTokens: res.Usage.OutputTokens,
		TotalTokens:  res.Usage.TotalTokens,
	}
	if out.usage.TotalTokens == 0 {
		out.usage.TotalTokens = out.usage.InputTokens + out.usage.OutputTokens
	}
	var reasoning []string
	for _, item := range res.Output {
		switch item.Type {
		case "function_call":
			fc := item.AsFunctionCall()
			out.calls = append(out.calls, toolCall{name: fc.Name, arguments: fc.Arguments})
		case "custom_tool_call":
			ct := item.AsCustomToolCall()
			out.calls = append(out.calls, toolCall{name: ct.Name, arguments: ct.Input})
		case "reasoning":
			r := item.AsReasoning()
			for _, s := range r.Summary {
				reasoning = append(reasoning, s.Text)
			}
			if len(r.Summary) == 0 {
				for _, s := range r.Content {
					reasoning = append(reasoning, s.Text)
				}
			}
		}
	}
	out.text = strings.TrimSpace(res.OutputText())
	out.reasoning = strings.TrimSpace(strings.Join(reasoning, "\n"))
	return out, nil
}
