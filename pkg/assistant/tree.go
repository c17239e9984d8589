package assistant

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/usage"
)

// runState is a run as the runs it delegates to find it in their context: its place in the
// tree of runs, and what they join to their own — its handlers, its stream, its middleware,
// its callers' first in each. It also stamps the run's events.
type runState struct {
	id        string // made only when a handler, a stream or a middleware reads it (see open)
	parentID  string
	assistant string
	depth     int   // 0 for a top run
	tree      *tree // shared by every run of the tree
	account   *usage.Account
	handler   callback.Handler
	stream    StreamFunc
	mw        chain
	start     time.Time // when the run started, for its handlers' events
}

// tree is what the runs of one delegation tree share.
type tree struct {
	cancel   context.CancelCauseFunc // ends every run of the tree, with the cause
	maxDepth int                     // the top run's
}

type runKey struct{}

func runFrom(ctx context.Context) *runState {
	s, _ := ctx.Value(runKey{}).(*runState)
	return s
}

// emit sends e, stamped with the time and the run, to the run's handlers; callers check that
// there are any first, so that a run without them builds no event and reads no clock.
func (s *runState) emit(ctx context.Context, e callback.Event) {
	e.Time = time.Now()
	e.RunID, e.ParentRunID, e.Assistant = s.id, s.parentID, s.assistant
	s.handler.Handle(ctx, e)
}

// open opens the run's account in the tree's ledger (creating the ledger for a top run), joins
// its handlers, stream and middleware to its caller's, and puts its state in the context for
// the runs it delegates to.
func (r *run[O]) open(ctx context.Context) (context.Context, error) {
	p := r.p
	s := &r.state
	s.assistant, s.handler, s.stream, s.mw = p.name, p.handler, p.cfg.stream, chain(p.cfg.middleware)
	var parent *usage.Account
	ledger := usage.LedgerFrom(ctx)
	if up := runFrom(ctx); up != nil {
		if up.depth+1 > up.tree.maxDepth {
			return ctx, fmt.Errorf("assistant %q: %w: %d runs deep, the most is %d: does an assistant reach itself through its tools? (WithMaxDepth raises the limit)", p.name, ErrDepthLimit, up.depth+1, up.tree.maxDepth)
		}
		parent, ledger = up.account, up.account.Ledger()
		s.parentID, s.depth, s.tree = up.id, up.depth+1, up.tree
		s.handler, s.stream, s.mw = callback.Multi(up.handler, s.handler), joinStreamFuncs(up.stream, s.stream), joinChains(up.mw, s.mw)
	} else {
		r.ownTree.maxDepth = p.cfg.maxDepth
		s.tree = &r.ownTree // its context is made with the first tool turn (treeContext)
	}
	switch own := p.cfg.limits; {
	case ledger != nil:
		s.account = ledger.Open(parent, p.name, own)
	case own != nil:
		s.account = usage.NewAccount(p.name, *own)
	default:
		s.account = usage.NewAccount(p.name, usage.Limits{})
	}
	if s.handler != nil || s.stream != nil || len(s.mw) > 0 {
		s.id = rand.Text()
	}
	r.models.next = s.mw.requests()
	r.calls = toolRunner{run: s, next: s.mw.toolCalls(p.tools.run), tools: p.tools, parallel: p.cfg.maxParallel, maxResult: p.cfg.maxResultBytes}
	return context.WithValue(ctx, runKey{}, s), nil
}

// treeContext returns the context of a top run's tool calls: one the runs they delegate to
// can cancel, with a cause, for the whole tree. It is made once, with the first tool turn, so
// that a run without tool calls does not pay for it.
func (r *run[O]) treeContext(ctx context.Context) context.Context {
	if r.state.depth > 0 || r.ownTree.cancel != nil {
		return ctx
	}
	ctx, r.ownTree.cancel = context.WithCancelCause(ctx)
	return ctx
}

// closeTree releases a top run's tree context.
func (r *run[O]) closeTree() {
	if r.ownTree.cancel != nil {
		r.ownTree.cancel(nil)
	}
}

// endsTreeCause reports whether err ends a whole delegation tree wherever it happens: a limit,
// or the depth limit.
func endsTreeCause(err error) bool {
	var limit *usage.LimitError
	return errors.As(err, &limit) || errors.Is(err, ErrDepthLimit)
}
