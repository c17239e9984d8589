package soak

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/model"
)

// concurrentRuns is how many runs of the round start at the same instant.
const concurrentRuns = 10_000

// 10,000 runs of the round at once, with the model in the process: what cadre itself costs
// when the model and the tools cost nothing.
func soakRunsInProcess(ctx context.Context, t *testing.T) {
	before := runtime.NumGoroutine()
	a := newRound(model.Fixed(model.Describe("scripted", roundModel())))
	fig := runLoad(ctx, t, a, concurrentRuns)
	after := settle(t, before)
	fig.print(t, "10,000 concurrent runs of the four-tool round, llmtest model in the process", before, after)
}

// The same 10,000 runs against the fake OpenAI API, in a process of its own on 127.0.0.1,
// through an llm.yaml: langchaingo's openai client, the factory's retrying transport, the
// wire. The model's time is then the client's and the server's.
func soakRunsOverHTTP(ctx context.Context, t *testing.T) {
	before := runtime.NumGoroutine()
	api := startFakeOpenAI(ctx, t)
	config := filepath.Join(t.TempDir(), "llm.yaml")
	doc := fmt.Sprintf(`providers:
  fake:
    type: openai
    base_url: %s/v1
    api_key: soak-key
    timeout: 60s
models:
  fast: { provider: fake, model: gpt-soak }
default: fast
`, api.url)
	if err := os.WriteFile(config, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	models, err := llmfactory.Load(config)
	if err != nil {
		t.Fatal(err)
	}
	a := newRound(models)
	var opened, reused atomic.Int64
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(c httptrace.GotConnInfo) {
		if c.Reused {
			reused.Add(1)
		} else {
			opened.Add(1)
		}
	}})
	fig := runLoad(ctx, t, a, concurrentRuns)
	attempts := api.stop(t)
	// The factory's clients share http.DefaultTransport (no WithHTTPClient): its idle
	// connections are the program's, and stay until closed.
	http.DefaultTransport.(*http.Transport).CloseIdleConnections()
	after := settle(t, before)
	fig.extra = [][2]string{
		{"HTTP requests the API received", fmt.Sprintf("%d (%d model requests, %d retried)", attempts, 2*concurrentRuns, attempts-2*concurrentRuns)},
		{"connections opened / reused", fmt.Sprintf("%d / %d", opened.Load(), reused.Load())},
	}
	fig.print(t, "10,000 concurrent runs of the four-tool round, fake OpenAI API over HTTP (llm.yaml)", before, after)
	if attempts != 2*concurrentRuns {
		t.Errorf("the API received %d requests for %d model requests: the transport retried", attempts, 2*concurrentRuns)
	}
}

// loadFigures is what runLoad measured.
type loadFigures struct {
	runs, errs         int
	wall               time.Duration
	cpu                time.Duration // of the process, user and system; 0 when unknown
	latency, own       durations
	heapInuse, heapAll uint64
	extra              [][2]string
}

// runLoad starts n runs of a at the same instant, waits for them, and checks each answer; it
// fails t for each run that fails or answers wrongly (the first few are shown).
func runLoad(ctx context.Context, t *testing.T, a *assistant.Assistant[answer], n int) *loadFigures {
	t.Helper()
	fig := &loadFigures{runs: n}
	heap := sampleHeap()
	cpu, _ := cpuTime()
	var errs atomic.Int64
	fig.wall = atOnce(n, func(i int) {
		c := &clock{}
		began := time.Now()
		res, err := a.Run(withClock(ctx, c), assistant.Input{Prompt: prompt})
		took := time.Since(began)
		if err == nil && (res.Output.City != "Paris" || len(res.Messages) != 7) {
			err = fmt.Errorf("answered %+v in %d messages, want Paris in 7 (user, calls, 4 results, answer)", res.Output, len(res.Messages))
		}
		if err != nil {
			if errs.Add(1) <= 5 {
				t.Errorf("run %d: %v", i, err)
			}
			return
		}
		fig.latency.add(took)
		fig.own.add(took - c.outside())
	})
	if used, ok := cpuTime(); ok {
		fig.cpu = used - cpu
	}
	fig.heapInuse, fig.heapAll = heap.stop()
	fig.errs = int(errs.Load())
	if fig.errs > 0 {
		t.Errorf("%d of %d runs failed", fig.errs, n)
	}
	return fig
}

func (f *loadFigures) print(t *testing.T, title string, before, after int) {
	t.Helper()
	tb := &table{title: title}
	tb.add("runs (concurrent)", "%d", f.runs)
	tb.add("total wall time", "%s", ms(f.wall))
	tb.add("runs per second", "%s", rate(f.runs, f.wall))
	tb.add("latency of a run p50 / p99 / max", "%s / %s / %s", ms(f.latency.percentile(50)), ms(f.latency.percentile(99)), ms(f.latency.max()))
	tb.add("cadre's own time p50 / p99", "%s / %s", ms(f.own.percentile(50)), ms(f.own.percentile(99)))
	if f.cpu > 0 {
		tb.add("CPU time of the process per run", "%.0f µs", float64(f.cpu)/float64(f.runs)/float64(time.Microsecond))
	}
	tb.add("peak heap per run (in use / allocated)", "%s / %s", perRun(f.heapInuse, f.runs), perRun(f.heapAll, f.runs))
	tb.add("goroutines before / after", "%d / %d", before, after)
	tb.add("errors", "%d", f.errs)
	for _, r := range f.extra {
		tb.add(r[0], "%s", r[1])
	}
	tb.print(t)
}
