package callback

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// maxErrLen is the longest error text a progress line holds; the run's caller gets the error
// whole.
const maxErrLen = 200

// NewProgress returns a [Handler] that writes one line to w for each step of the runs it
// receives, for a person watching a program work: which assistant is working, which model it
// is waiting for, which tool is running, and how many tokens have been spent so far. Lines
// look like this:
//
//	supervisor: started
//	supervisor: asking deep
//	supervisor: deep answered: 876 tokens (876 so far)
//	supervisor: running researcher
//	  researcher: started, for supervisor
//	  researcher: running search
//	  researcher: search returned
//	  researcher: done
//	supervisor: researcher returned
//	supervisor: done
//
// A delegated run's lines are indented under those of the run that called it, when the
// handler received that run's events too (give it to the top assistant, or to the top run's
// Input.Options, and it receives every run it delegates to). The count "so far" adds up every
// response the handler has received, from every run: give each top run a handler of its own
// to count one run's tree alone. Errors (a model's, a tool's, the run's) are written on their
// event's line, on one line and cut to 200 characters; tool arguments and results, and
// answers, are never written, since they may hold personal data. Kinds NewProgress does not
// know are skipped.
//
// The handler is safe for concurrent use: it writes each line with one Write call, under a
// lock, so the lines of parallel runs never mix, and runs wait for the write. Give it a w that
// is quick to write to, such as os.Stderr or a buffer. Write errors are ignored, since a
// handler cannot report them. It keeps a few bytes for each run in progress, and forgets a
// run when it ends, so a long-running server may keep one handler for all its runs.
// NewProgress panics if w is nil.
func NewProgress(w io.Writer) Handler {
	if w == nil {
		panic("callback.NewProgress: nil io.Writer; pass os.Stderr to write progress to the terminal")
	}
	return &progress{w: w, runs: make(map[string]progressRun)}
}

type progress struct {
	mu     sync.Mutex
	w      io.Writer
	tokens int                    // of every response received
	runs   map[string]progressRun // the runs in progress, by RunID
}

type progressRun struct {
	assistant string
	depth     int // 0 for a top run (or one whose caller this handler never saw)
}

func (p *progress) Handle(_ context.Context, e Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var text string
	switch e.Kind {
	case RunStart:
		text = p.start(e)
	case ModelRequest:
		text = "asking " + e.Model
	case ModelResponse:
		p.tokens += e.Usage.TotalTokens()
		text = fmt.Sprintf("%s answered: %d tokens (%d so far)", e.Model, e.Usage.TotalTokens(), p.tokens)
	case ModelError:
		text = e.Model + " failed: " + errText(e.Err)
	case ModelFallback:
		text = "trying the next model after " + e.Model
	case ToolStart:
		text = "running " + e.Tool
	case ToolEnd:
		text = e.Tool + " returned"
	case ToolError:
		text = e.Tool + " failed: " + errText(e.Err)
	case OutputCorrection:
		text = "answer not usable, asking again: " + errText(e.Err)
	case OutputFallback:
		text = e.Model + " did not take the output schema, asking with a tool: " + errText(e.Err)
	case RunEnd:
		text = "done"
	case RunError:
		text = "failed: " + errText(e.Err)
	default:
		return
	}
	indent := strings.Repeat("  ", p.runs[e.RunID].depth)
	_, _ = io.WriteString(p.w, indent+e.Assistant+": "+text+"\n")
	if e.Kind == RunEnd || e.Kind == RunError {
		delete(p.runs, e.RunID)
	}
}

// start records the run that e starts and returns its line's text.
func (p *progress) start(e Event) string {
	parent, delegated := p.runs[e.ParentRunID]
	if e.ParentRunID == "" || !delegated {
		p.runs[e.RunID] = progressRun{assistant: e.Assistant}
		return "started"
	}
	p.runs[e.RunID] = progressRun{assistant: e.Assistant, depth: parent.depth + 1}
	return "started, for " + parent.assistant
}

// errText is err's text on one line, cut to maxErrLen characters.
func errText(err error) string {
	if err == nil {
		return "unknown error"
	}
	s := strings.Join(strings.Fields(err.Error()), " ")
	if utf8.RuneCountInString(s) <= maxErrLen {
		return s
	}
	r := []rune(s)
	return string(r[:maxErrLen]) + "…"
}
