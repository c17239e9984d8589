package llmtest

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	cmodel "github.com/cadrehq/cadre/pkg/model"
	"github.com/cadrehq/cadre/pkg/usage"
	"github.com/tmc/langchaingo/llms"
)

// model is what Scripted and FuncModel share: configuration, the record of requests, and
// building responses from replies.
type model struct {
	noTools  bool // configured before first use, then read only
	noRecord bool

	callIDs atomic.Int64 // tool call IDs handed out

	mu       sync.Mutex
	arrived  int       // requests received
	requests []Request // unless noRecord
}

// Requests returns a copy of the list of requests the model received, in the order they
// arrived.
// It is safe to call at any time, also while requests are running; it returns nil for a model
// built with NoRecord.
func (m *model) Requests() []Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.requests)
}

// SupportsTools reports whether the model can take tools: true unless it was built with
// WithoutTools. Code that picks how to ask a model for structured output looks for this method.
func (m *model) SupportsTools() bool { return !m.noTools }

// arrive counts a request, records req unless the model is built with NoRecord, and returns
// the request's number, 0 for the first. req may be nil when not recording.
func (m *model) arrive(req *Request) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.arrived
	m.arrived++
	if !m.noRecord {
		m.requests = append(m.requests, *req)
	}
	return n
}

// respond answers with r after its latency: r.Err, r.Response, or a response built from r.
func (m *model) respond(ctx context.Context, r *Reply, info *usageInfo) (*llms.ContentResponse, error) {
	if err := wait(ctx, r.Latency); err != nil {
		return nil, err
	}
	if r.Err != nil {
		return nil, r.Err
	}
	if r.Response != nil {
		return r.Response, nil
	}
	return m.build(r, info), nil
}

// wait returns nil after d, or ctx's error when ctx is done first or already.
func wait(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil || d <= 0 {
		return err
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// response puts a ContentResponse and its one choice in a single allocation.
type response struct {
	resp    llms.ContentResponse
	choices [1]*llms.ContentChoice
	choice  llms.ContentChoice
}

func (m *model) build(r *Reply, info *usageInfo) *llms.ContentResponse {
	b := &response{}
	b.choices[0] = &b.choice
	b.resp.Choices = b.choices[:]
	c := &b.choice
	c.Content = r.Text
	c.StopReason = r.StopReason
	if len(r.ToolCalls) > 0 {
		c.ToolCalls = m.copyCalls(r.ToolCalls)
		c.FuncCall = c.ToolCalls[0].FunctionCall // as langchaingo's openai client does
		if c.StopReason == "" {
			c.StopReason = "tool_calls"
		}
	} else if c.StopReason == "" {
		c.StopReason = "stop"
	}
	c.GenerationInfo = info.generationInfo()
	if r.Refusal != "" {
		if c.GenerationInfo == nil {
			c.GenerationInfo = map[string]any{}
		}
		c.GenerationInfo[cmodel.RefusalInfo] = r.Refusal
	}
	return &b.resp
}

// copyCalls copies calls and their function calls, so that no response shares anything a
// caller could modify with the script, and fills in missing IDs and types.
func (m *model) copyCalls(calls []llms.ToolCall) []llms.ToolCall {
	out := slices.Clone(calls)
	funcs := make([]llms.FunctionCall, len(calls))
	missing := 0
	for i := range out {
		if fc := out[i].FunctionCall; fc != nil {
			funcs[i] = *fc
			out[i].FunctionCall = &funcs[i]
		}
		if out[i].Type == "" {
			out[i].Type = "function"
		}
		if out[i].ID == "" {
			missing++
		}
	}
	if missing == 0 {
		return out
	}
	// Reserve the IDs at once, so that concurrent requests never share one, and write them
	// all into one string.
	next := m.callIDs.Add(int64(missing)) - int64(missing) + 1
	var ids strings.Builder
	ids.Grow(missing * len("call_9223372036854775807"))
	var digits [20]byte
	for i := range out {
		if out[i].ID != "" {
			continue
		}
		start := ids.Len()
		ids.WriteString("call_")
		ids.Write(strconv.AppendInt(digits[:0], next, 10))
		next++
		// Earlier strings stay valid: a Builder only ever appends.
		out[i].ID = ids.String()[start:]
	}
	return out
}

// usageInfo holds the values of the GenerationInfo usage keys, already boxed so that a
// response costs no allocation for them; nil for a key left out.
type usageInfo struct {
	prompt, completion, total, cached, reasoning any
}

func newUsageInfo(u usage.Usage) usageInfo {
	v := usageInfo{prompt: u.InputTokens, completion: u.OutputTokens, total: u.InputTokens + u.OutputTokens}
	if u.CacheReadTokens != 0 {
		v.cached = u.CacheReadTokens
	}
	if u.ReasoningTokens != 0 {
		v.reasoning = u.ReasoningTokens
	}
	return v
}

func (v *usageInfo) generationInfo() map[string]any {
	info := make(map[string]any, 5)
	info["PromptTokens"] = v.prompt
	info["CompletionTokens"] = v.completion
	info["TotalTokens"] = v.total
	if v.cached != nil {
		info["PromptCachedTokens"] = v.cached
	}
	if v.reasoning != nil {
		info["ReasoningTokens"] = v.reasoning
	}
	return info
}
