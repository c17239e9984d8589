package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/cadrehq/cadre/pkg/agui"
)

// client talks to an AG-UI endpoint as a front end does: each request POSTs the whole
// conversation as a RunAgentInput, and the events that come back, as server-sent events, add
// the assistant's messages to it. It prints each event on a line.
type client struct {
	url, thread string
	w           io.Writer
	messages    []agui.Message // the conversation, as the next request sends it
	runs        int

	texts map[string]string         // message id -> the text streamed so far
	calls map[string]*agui.ToolCall // tool call id -> the call streamed so far
	names map[string]string         // sub-agent run id -> the prefix of its events' lines
}

func newClient(url, thread string, w io.Writer) *client {
	return &client{url: url, thread: thread, w: w,
		texts: map[string]string{}, calls: map[string]*agui.ToolCall{}, names: map[string]string{}}
}

// converse sends prompt and approves every interrupt the runs end with, until a run ends
// without one.
func (c *client) converse(ctx context.Context, prompt string) error {
	fmt.Fprintln(c.w, "you:", prompt)
	c.messages = append(c.messages, agui.Message{ID: "user-1", Role: agui.RoleUser, Content: agui.Content{Text: prompt}})
	var resume []agui.ResumeEntry
	for {
		done, err := c.run(ctx, resume)
		if err != nil || done.Outcome == nil || done.Outcome.Type != agui.OutcomeInterrupt {
			return err
		}
		// A front end would show each interrupt and ask; this one approves. A refusal is
		// {"approved": false, "reason": "..."}, and a cancelled entry refuses too.
		resume = nil
		for _, in := range done.Outcome.Interrupts {
			e := agui.ResumeEntry{InterruptID: in.ID, Status: agui.ResumeResolved, Payload: json.RawMessage(`{"approved":true}`)}
			b, _ := json.Marshal(e)
			fmt.Fprintf(c.w, "approve %s: resume with %s\n", in.ID, b)
			resume = append(resume, e)
		}
	}
}

// run makes one request, reads its events to the end of the response, and returns its
// RUN_FINISHED. It reads on after RUN_FINISHED, as HttpAgent does: the thread takes its next
// request once this one is over.
func (c *client) run(ctx context.Context, resume []agui.ResumeEntry) (*agui.RunFinished, error) {
	c.runs++
	body, err := json.Marshal(agui.RunAgentInput{ThreadID: c.thread, RunID: fmt.Sprint("run-", c.runs), Messages: c.messages, Resume: resume})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", agui.ContentType)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK { // 400, 403, 405, 409: a line of text says why
		msg, _ := io.ReadAll(resp.Body)
		return nil, fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(msg))
	}
	// cadre writes each event as one "data:" line and a blank line; a client for any
	// server would join an event's data lines, as the SSE standard has it.
	var finished *agui.RunFinished
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		e, err := agui.ParseEvent([]byte(data))
		if err != nil {
			return nil, err
		}
		c.show(e)
		c.keep(e)
		switch e := e.(type) {
		case agui.RunFinished:
			finished = &e
		case agui.RunError:
			return nil, errors.New(e.Message)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if finished == nil {
		return nil, errors.New("the stream ended before RUN_FINISHED")
	}
	return finished, nil
}

// show prints an event on a line, a sub-agent's indented under its name; a text message and
// a tool call are printed whole, when they end.
func (c *client) show(e agui.Event) {
	switch e := e.(type) {
	case agui.RunStarted:
		fmt.Fprintf(c.w, "RUN_STARTED %s on thread %s\n", e.RunID, e.ThreadID)
	case agui.TextMessageContent:
		c.texts[e.MessageID] += e.Delta
	case agui.TextMessageEnd:
		fmt.Fprintf(c.w, "%sTEXT_MESSAGE %q\n", c.prefix(e.SubagentRunID), c.texts[e.MessageID])
	case agui.ToolCallStart:
		c.calls[e.ToolCallID] = &agui.ToolCall{ID: e.ToolCallID, Function: agui.FunctionCall{Name: e.ToolCallName}}
	case agui.ToolCallArgs:
		c.calls[e.ToolCallID].Function.Arguments += e.Delta
	case agui.ToolCallEnd:
		f := c.calls[e.ToolCallID].Function
		fmt.Fprintf(c.w, "%sTOOL_CALL %s %s %s\n", c.prefix(e.SubagentRunID), e.ToolCallID, f.Name, f.Arguments)
	case agui.ToolCallResult:
		fmt.Fprintf(c.w, "%sTOOL_CALL_RESULT %s %s\n", c.prefix(e.SubagentRunID), e.ToolCallID, e.Content.Text)
	case agui.SubagentStarted:
		c.names[e.SubagentRunID] = c.prefix(e.ParentSubagentRunID) + "  " + e.Name + ": "
		fmt.Fprintf(c.w, "%sSUBAGENT_STARTED %s, for call %s\n", c.prefix(e.ParentSubagentRunID), e.Name, e.ParentToolCallID)
	case agui.SubagentFinished:
		result, _ := json.Marshal(e.Result)
		fmt.Fprintf(c.w, "%sSUBAGENT_FINISHED %s %s\n", c.prefix(e.SubagentRunID), e.Outcome.Type, result)
	case agui.SubagentError:
		fmt.Fprintf(c.w, "%sSUBAGENT_ERROR %s\n", c.prefix(e.SubagentRunID), e.Message)
	case agui.Custom:
		if e.Name == agui.CustomUsage { // after each model request
			v, _ := e.Value.(map[string]any)
			fmt.Fprintf(c.w, "%sCUSTOM %s: %v input + %v output tokens\n", c.prefix(e.SubagentRunID), e.Name, v["inputTokens"], v["outputTokens"])
		}
	case agui.RunFinished:
		if o := e.Outcome; o != nil && o.Type == agui.OutcomeInterrupt {
			for _, in := range o.Interrupts {
				fmt.Fprintf(c.w, "RUN_FINISHED interrupt %s (%s): %s\n", in.ID, in.Reason, in.Message)
			}
			return
		}
		result, _ := json.Marshal(e.Result)
		fmt.Fprintf(c.w, "RUN_FINISHED success %s\n", result)
	case agui.RunError:
		fmt.Fprintf(c.w, "RUN_ERROR %s\n", e.Message)
	}
}

// prefix is the start of the lines of a sub-agent's events: its name, indented by its depth;
// "" for the top run's.
func (c *client) prefix(subagentRunID string) string { return c.names[subagentRunID] }

// keep adds the top run's messages to the conversation once they are complete, as a front
// end's client does: its text, its tool calls, their results. A sub-agent's messages are its
// own: the endpoint leaves them out of the conversation, and so does this client.
func (c *client) keep(e agui.Event) {
	switch e := e.(type) {
	case agui.TextMessageEnd:
		if e.SubagentRunID == "" {
			c.messages = append(c.messages, agui.Message{ID: e.MessageID, Role: agui.RoleAssistant, Content: agui.Content{Text: c.texts[e.MessageID]}})
		}
	case agui.ToolCallEnd:
		if e.SubagentRunID == "" {
			c.messages = append(c.messages, agui.Message{ID: e.ToolCallID, Role: agui.RoleAssistant, ToolCalls: []agui.ToolCall{*c.calls[e.ToolCallID]}})
		}
	case agui.ToolCallResult:
		if e.SubagentRunID == "" {
			c.messages = append(c.messages, agui.Message{ID: e.MessageID, Role: agui.RoleTool, ToolCallID: e.ToolCallID, Content: e.Content})
		}
	}
}
