package soak

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"
)

// TestSoak runs the parts of the soak in turn, each within its time limit, when CADRE_SOAK=1
// (make soak); `go test ./...` skips it. -run 'TestSoak/NAME' runs one part.
func TestSoak(t *testing.T) {
	if os.Getenv("CADRE_SOAK") != "1" {
		t.Skip("the soak runs with CADRE_SOAK=1 (make soak)")
	}
	for _, part := range []struct {
		name  string
		limit time.Duration // the part's bound: it must end well before
		run   func(ctx context.Context, t *testing.T)
	}{
		{"runs_in_process", 2 * time.Minute, soakRunsInProcess},
		{"runs_over_HTTP", 3 * time.Minute, soakRunsOverHTTP},
		{"MCP_clients", 2 * time.Minute, soakMCPClients},
		{"appends_to_one_chat", 4 * time.Minute, soakAppends},
	} {
		t.Run(part.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), part.limit)
			defer cancel()
			part.run(ctx, t)
			if err := ctx.Err(); err != nil {
				t.Errorf("the part ran out of time (%v): %v", part.limit, err)
			}
		})
	}
}

// atOnce runs f(0) to f(n-1) on n goroutines released at the same instant, and returns the
// time from that instant until the last returns.
func atOnce(n int, f func(i int)) time.Duration {
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			f(i)
		})
	}
	began := time.Now()
	close(start)
	wg.Wait()
	return time.Since(began)
}

// table is a part's figures, printed as aligned rows.
type table struct {
	title string
	rows  [][2]string
}

func (tb *table) add(name, format string, args ...any) {
	tb.rows = append(tb.rows, [2]string{name, fmt.Sprintf(format, args...)})
}

// print writes the table to stdout, where make soak shows it as it comes, and to t's log.
func (tb *table) print(t *testing.T) {
	t.Helper()
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "\n%s\n", tb.title)
	for _, r := range tb.rows {
		fmt.Fprintf(w, "  %s\t%s\n", r[0], r[1])
	}
	w.Flush()
	fmt.Print(b.String())
	t.Log(b.String())
}

// durations collects durations from any number of goroutines.
type durations struct {
	mu sync.Mutex
	ds []time.Duration
}

func (d *durations) add(x time.Duration) {
	d.mu.Lock()
	d.ds = append(d.ds, x)
	d.mu.Unlock()
}

// percentile returns the p-th percentile (0 < p <= 100) by nearest rank, or 0 for none.
func (d *durations) percentile(p float64) time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.ds) == 0 {
		return 0
	}
	s := slices.Clone(d.ds)
	slices.Sort(s)
	i := int(float64(len(s))*p/100+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func (d *durations) max() time.Duration { return d.percentile(100) }

// ms is d in milliseconds with one decimal, as the tables show durations.
func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }

// rate is n per second over d.
func rate(n int, d time.Duration) string { return fmt.Sprintf("%.0f/s", float64(n)/d.Seconds()) }

// settle waits until no more goroutines run than baseline, for up to 10 s, and fails t with
// the goroutines' stacks when some stay. It returns how many run at the end.
func settle(t *testing.T, baseline int) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= baseline {
			return n
		}
		if time.Now().After(deadline) {
			var b strings.Builder
			pprof.Lookup("goroutine").WriteTo(&b, 1)
			t.Errorf("%d goroutines run 10 s after the load, %d before it:\n%s", n, baseline, b.String())
			return n
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// heapPeak samples the heap every few milliseconds until stop is called, and returns the
// highest HeapInuse and HeapAlloc it saw above what they were when it started (after a GC).
type heapPeak struct {
	baseInuse, baseAlloc uint64
	inuse, alloc         uint64
	done                 chan struct{}
	stopped              chan struct{}
}

func sampleHeap() *heapPeak {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	h := &heapPeak{baseInuse: m.HeapInuse, baseAlloc: m.HeapAlloc, done: make(chan struct{}), stopped: make(chan struct{})}
	go func() {
		defer close(h.stopped)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			runtime.ReadMemStats(&m)
			h.inuse, h.alloc = max(h.inuse, m.HeapInuse), max(h.alloc, m.HeapAlloc)
			select {
			case <-tick.C:
			case <-h.done:
				return
			}
		}
	}()
	return h
}

// stop ends the sampling and returns the peaks above the baseline, in bytes.
func (h *heapPeak) stop() (inuse, alloc uint64) {
	close(h.done)
	<-h.stopped
	return h.inuse - min(h.inuse, h.baseInuse), h.alloc - min(h.alloc, h.baseAlloc)
}

// perRun is bytes divided by n, in KiB.
func perRun(bytes uint64, n int) string {
	return fmt.Sprintf("%.1f KiB", float64(bytes)/float64(n)/1024)
}
