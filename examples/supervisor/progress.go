package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/cadrehq/cadre/pkg/callback"
)

// progress is a callback.Handler that writes one line per event: which assistant is working,
// which tool is running, and the tokens spent so far by the whole tree. Delegated runs are
// indented under the run that called them.
//
// The tool calls of one turn run in parallel, so events arrive from several goroutines at
// once: a mutex keeps the lines whole and the counts right.
type progress struct {
	mu     sync.Mutex
	w      io.Writer
	tokens int
	runs   map[string]runInfo // by run ID
}

type runInfo struct {
	assistant string
	depth     int
}

func newProgress(w io.Writer) *progress {
	return &progress{w: w, runs: make(map[string]runInfo)}
}

func (p *progress) Handle(_ context.Context, e callback.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.Kind == callback.RunStart {
		parent, delegated := p.runs[e.ParentRunID]
		info := runInfo{assistant: e.Assistant}
		if delegated {
			info.depth = parent.depth + 1
		}
		p.runs[e.RunID] = info
		if delegated {
			p.line(e, "started, for %s", parent.assistant)
		} else {
			p.line(e, "started")
		}
		return
	}
	switch e.Kind {
	case callback.ModelResponse:
		p.tokens += e.Usage.TotalTokens()
		p.line(e, "%s answered: %d tokens (%d so far)", e.Model, e.Usage.TotalTokens(), p.tokens)
	case callback.ModelError, callback.ModelFallback:
		p.line(e, "%s failed: %v", e.Model, e.Err)
	case callback.ToolStart:
		p.line(e, "running %s", e.Tool)
	case callback.ToolEnd:
		p.line(e, "%s returned", e.Tool)
	case callback.ToolError:
		p.line(e, "%s failed: %v", e.Tool, e.Err)
	case callback.OutputCorrection:
		p.line(e, "answer not usable, asking again: %v", e.Err)
	case callback.RunEnd:
		p.line(e, "done")
	case callback.RunError:
		p.line(e, "failed: %v", e.Err)
	}
}

// line writes one line for e, on one line even when an error's text has several.
func (p *progress) line(e callback.Event, format string, args ...any) {
	indent := strings.Repeat("  ", p.runs[e.RunID].depth)
	text := strings.ReplaceAll(fmt.Sprintf(format, args...), "\n", " ")
	fmt.Fprintf(p.w, "%s%s: %s\n", indent, e.Assistant, text)
}
