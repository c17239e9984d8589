package mcpbridge

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/time/rate"
)

// A request's progress notifications are rate-limited: the first progressBurst go out as the
// steps happen, then at most one every progressEvery. A step beyond the rate is not sent, but
// it counts: the next notification's progress says how many steps there were. Runs emit
// events per request and per tool call, never per streamed token, so a run's first steps all
// reach the client, and a run with many parallel tool calls cannot flood it.
const (
	progressBurst = 10
	progressEvery = 100 * time.Millisecond
)

// maxFlush bounds how long a request waits, once its run has ended, for its notifications to
// leave the session's queue (see progress.flush).
const maxFlush = 250 * time.Millisecond

// progress sends a request's notifications/progress, one for each step of the runs it is
// given to as a callback handler: the run served for the request and every run it delegates
// to.
type progress struct {
	ctx   context.Context // the request's: its session is where notifications go
	srv   *server.MCPServer
	token mcp.ProgressToken
	limit *rate.Limiter
	steps int              // written only by Write, which lines calls under its lock
	sent  atomic.Bool      // a notification was queued
	lines callback.Handler // callback.NewProgress writing to the progress: one line a step
}

// newProgress returns the progress of the request whose _meta is meta, or nil when the client
// gave no progress token, and so asked for no notifications.
func newProgress(ctx context.Context, srv *server.MCPServer, meta *mcp.Meta) *progress {
	if meta == nil || meta.ProgressToken == nil {
		return nil
	}
	p := &progress{ctx: ctx, srv: srv, token: meta.ProgressToken, limit: rate.NewLimiter(rate.Every(progressEvery), progressBurst)}
	p.lines = callback.NewProgress(p)
	return p
}

// Handle passes e to the line writer, which calls Write for the steps it describes.
func (p *progress) Handle(ctx context.Context, e callback.Event) { p.lines.Handle(ctx, e) }

// Write sends one line of callback.NewProgress, such as "supervisor: running researcher", as
// a notification. The line writer calls it under its lock, one line at a time, so that the
// progress counts up in the order the notifications are queued. It never fails: a
// notification that cannot be queued (the client is gone, or reads too slowly) is dropped.
func (p *progress) Write(line []byte) (int, error) {
	p.steps++
	if p.ctx.Err() != nil || !p.limit.Allow() {
		return len(line), nil
	}
	err := p.srv.SendNotificationToClient(p.ctx, string(mcp.MethodNotificationProgress), map[string]any{
		"progressToken": p.token,
		"progress":      p.steps,
		"message":       strings.TrimSpace(string(line)),
	})
	if err == nil {
		p.sent.Store(true)
	}
	return len(line), nil
}

// flush waits until the session's queue of notifications is empty, for at most maxFlush,
// when the request queued any: call it when the run has ended, before the response. mcp-go
// writes a session's notifications from a goroutine of their own (stdio) or from whichever of
// the session's streams takes them (streamable HTTP), and the response from the request's:
// without waiting, a quick run's response can overtake its notifications, which a client
// then reports as progress for a request it no longer knows (the TypeScript SDK does). Once
// the queue is empty they have all been taken to be written; one more tick gives the last of
// them the time to be, which leaves only a narrow race.
func (p *progress) flush() {
	if p == nil || !p.sent.Load() || p.ctx.Err() != nil {
		return
	}
	session := server.ClientSessionFromContext(p.ctx)
	if session == nil {
		return
	}
	queue := session.NotificationChannel()
	deadline := time.NewTimer(maxFlush)
	defer deadline.Stop()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for empty := false; !empty; {
		empty = len(queue) == 0 // then one more tick, for the last one taken to be written
		select {
		case <-tick.C:
		case <-deadline.C:
			return
		case <-p.ctx.Done():
			return
		}
	}
}

// options returns the run options that have a run report to p: none when p is nil.
func (p *progress) options() []assistant.Option {
	if p == nil {
		return nil
	}
	return []assistant.Option{assistant.WithCallback(p)}
}

type progressKey struct{}

// withProgress returns ctx carrying p, for Reporting to find: nil p hides any progress ctx
// carries.
func withProgress(ctx context.Context, p *progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

func progressFrom(ctx context.Context) *progress {
	p, _ := ctx.Value(progressKey{}).(*progress)
	return p
}

// Reporting returns a Runner that runs r, and that reports the progress of a run served by
// AddTool to the MCP client that asked for it. Serve an assistant as a tool with
// assistant.AsTool[I](mcpbridge.Reporting(a)) to have a client that gives a progress token
// (in the call's _meta) receive notifications/progress while the assistant works, one per step
// of its run and of the runs it delegates to, with the step as the message ("planner: running
// forecast", in the form of callback.NewProgress) and the number of steps so far as the
// progress; the first ten at once, then at most ten a second. The run gets the callback handler
// that sends them through its Input.Options, for that call alone.
//
// The wrapping is needed because AsTool starts the assistant's run with an Input of its own,
// to which AddTool cannot add options; AddPrompt needs none, since it gives the served run the
// handler itself. Outside such a call, and when the client gave no token, the Runner runs r as
// r would. The runs that a reporting run delegates to report through it: a Reporting run
// among them does not add the handler a second time, so wrapping every assistant changes
// nothing.
//
// The Runner is also an assistant.Resumer, which resumes r's paused runs when r is one, and
// reports as Run does.
func Reporting[O any](r assistant.Runner[O]) assistant.Runner[O] {
	return reporting[O]{r}
}

type reporting[O any] struct{ assistant.Runner[O] }

// Run runs the Runner with the call's progress handler, when the call has one to give.
func (r reporting[O]) Run(ctx context.Context, in assistant.Input) (*assistant.Result[O], error) {
	ctx, in = reported(ctx, in)
	return r.Runner.Run(ctx, in)
}

// Call is Run for callers that do not know O.
func (r reporting[O]) Call(ctx context.Context, in assistant.Input) (*assistant.Response, error) {
	ctx, in = reported(ctx, in)
	return r.Runner.Call(ctx, in)
}

// Resume resumes the paused run with r, when r can resume.
func (r reporting[O]) Resume(ctx context.Context, paused *assistant.Paused, decisions map[string]assistant.Decision, opts ...assistant.Option) (*assistant.Result[O], error) {
	rs, ok := r.Runner.(assistant.Resumer[O])
	if !ok {
		return nil, fmt.Errorf("%s cannot resume a paused run: it is not an assistant.Resumer", r.Name())
	}
	ctx, in := reported(ctx, assistant.Input{Options: opts})
	return rs.Resume(ctx, paused, decisions, in.Options...)
}

// reported takes the progress ctx carries, if any: the run gets it as a per-run handler, and
// the context given to it carries none, so that a Reporting run it delegates to does not add
// the handler it inherits a second time.
func reported(ctx context.Context, in assistant.Input) (context.Context, assistant.Input) {
	p := progressFrom(ctx)
	if p == nil {
		return ctx, in
	}
	in.Options = append(in.Options[:len(in.Options):len(in.Options)], p.options()...)
	return withProgress(ctx, nil), in
}
