package usage_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cadrehq/cadre/pkg/usage"
)

// reserveRequests reserves n requests on a and fails the test if any is refused.
func reserveRequests(t *testing.T, a *usage.Account, n int) {
	t.Helper()
	for i := range n {
		if err := a.ReserveRequest(); err != nil {
			t.Fatalf("ReserveRequest %d of %d: %v", i+1, n, err)
		}
	}
}

// wantLimit fails the test unless err is a *LimitError equal to want.
func wantLimit(t *testing.T, err error, want usage.LimitError) {
	t.Helper()
	var le *usage.LimitError
	if !errors.As(err, &le) {
		t.Fatalf("error = %v, want a *usage.LimitError", err)
	}
	if diff := cmp.Diff(want, *le); diff != "" {
		t.Errorf("LimitError mismatch (-want +got):\n%s", diff)
	}
}

func TestDefaultLimits(t *testing.T) {
	t.Parallel()
	a := usage.NewLedger(usage.Limits{}).Open(nil, "a", nil)
	reserveRequests(t, a, usage.DefaultMaxRequests)
	wantLimit(t, a.ReserveRequest(), usage.LimitError{Limit: "requests", Max: 50, Used: 50, Agent: "a"})

	if err := a.ReserveToolCalls("m", usage.DefaultMaxToolCalls); err != nil {
		t.Fatalf("ReserveToolCalls(200): %v", err)
	}
	wantLimit(t, a.ReserveToolCalls("m", 1), usage.LimitError{Limit: "tool_calls", Max: 200, Used: 200, Agent: "a"})

	// No token limit by default.
	b := usage.NewLedger(usage.Limits{}).Open(nil, "b", nil)
	b.Record("m", usage.Usage{Requests: 1, InputTokens: 1 << 40, OutputTokens: 1 << 40})
	if err := b.ReserveRequest(); err != nil {
		t.Errorf("ReserveRequest after many tokens, default limits: %v", err)
	}
}

func TestNegativeMeansNoLimit(t *testing.T) {
	t.Parallel()
	l := usage.NewLedger(usage.Limits{MaxRequests: -1, MaxToolCalls: -1,
		MaxInputTokens: -1, MaxOutputTokens: -1, MaxTotalTokens: -1})
	a := l.Open(nil, "a", &usage.Limits{MaxRequests: -1, MaxToolCalls: -1})
	a.Record("m", usage.Usage{InputTokens: 1 << 40, OutputTokens: 1 << 40})
	reserveRequests(t, a, 1000)
	if err := a.ReserveToolCalls("m", 100000); err != nil {
		t.Errorf("ReserveToolCalls with no limit: %v", err)
	}
}

func TestRequestLimitExact(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 2, 7, 50, 120} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			t.Parallel()
			l := usage.NewLedger(usage.Limits{MaxRequests: n})
			a := l.Open(nil, "a", nil)
			reserveRequests(t, a, n)
			wantLimit(t, a.ReserveRequest(), usage.LimitError{Limit: "requests", Max: n, Used: n, Agent: "a"})
			// A refused reservation changes nothing: it is refused again the same way.
			wantLimit(t, a.ReserveRequest(), usage.LimitError{Limit: "requests", Max: n, Used: n, Agent: "a"})
		})
	}
}

func TestToolBatchAllOrNone(t *testing.T) {
	t.Parallel()
	l := usage.NewLedger(usage.Limits{MaxToolCalls: 5})
	a := l.Open(nil, "a", nil)
	if err := a.ReserveToolCalls("m", 3); err != nil {
		t.Fatalf("batch of 3: %v", err)
	}
	wantLimit(t, a.ReserveToolCalls("m", 3), usage.LimitError{Limit: "tool_calls", Max: 5, Used: 3, Agent: "a"})
	if err := a.ReserveToolCalls("m", 2); err != nil {
		t.Fatalf("batch of 2 after the refused batch: %v", err)
	}
	if err := a.ReserveToolCalls("m", 0); err != nil {
		t.Errorf("empty batch at the limit: %v", err)
	}
	wantLimit(t, a.ReserveToolCalls("m", 1), usage.LimitError{Limit: "tool_calls", Max: 5, Used: 5, Agent: "a"})

	// The reserved calls are recorded; the refused ones are not.
	want := usage.Report{
		Total:   usage.Usage{ToolCalls: 5},
		ByAgent: map[string]usage.Usage{"a": {ToolCalls: 5}},
		ByModel: map[string]usage.Usage{"m": {ToolCalls: 5}},
	}
	if diff := cmp.Diff(want, l.Report()); diff != "" {
		t.Errorf("Report mismatch (-want +got):\n%s", diff)
	}
}

func TestTokenLimits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		limits usage.Limits
		first  usage.Usage // recorded after the first request; overshoots the limit
		want   usage.LimitError
	}{
		{"input", usage.Limits{MaxInputTokens: 100},
			usage.Usage{Requests: 1, InputTokens: 130, OutputTokens: 5},
			usage.LimitError{Limit: "input_tokens", Max: 100, Used: 130, Agent: "a"}},
		{"output", usage.Limits{MaxOutputTokens: 10},
			usage.Usage{Requests: 1, InputTokens: 5, OutputTokens: 10},
			usage.LimitError{Limit: "output_tokens", Max: 10, Used: 10, Agent: "a"}},
		{"total", usage.Limits{MaxTotalTokens: 100},
			usage.Usage{Requests: 1, InputTokens: 60, OutputTokens: 41},
			usage.LimitError{Limit: "total_tokens", Max: 100, Used: 101, Agent: "a"}},
		{"tokens before requests", usage.Limits{MaxRequests: 1, MaxInputTokens: 100},
			usage.Usage{Requests: 1, InputTokens: 150},
			usage.LimitError{Limit: "input_tokens", Max: 100, Used: 150, Agent: "a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			a := usage.NewLedger(tt.limits).Open(nil, "a", nil)
			if err := a.ReserveRequest(); err != nil {
				t.Fatalf("first ReserveRequest: %v", err)
			}
			a.Record("m", tt.first) // may overshoot: Record never refuses
			wantLimit(t, a.ReserveRequest(), tt.want)
		})
	}

	// Below the limit, requests go on.
	a := usage.NewLedger(usage.Limits{MaxTotalTokens: 100}).Open(nil, "a", nil)
	a.Record("m", usage.Usage{Requests: 1, InputTokens: 60, OutputTokens: 39})
	if err := a.ReserveRequest(); err != nil {
		t.Errorf("ReserveRequest at 99 of 100 tokens: %v", err)
	}
}

func TestOwnLimitsBoundSubtreeOnly(t *testing.T) {
	t.Parallel()
	l := usage.NewLedger(usage.Limits{MaxRequests: 10, MaxToolCalls: 10})
	top := l.Open(nil, "top", nil)
	child := l.Open(top, "child", &usage.Limits{MaxRequests: 2, MaxToolCalls: 3}) // zero token fields: no extra limit
	grandchild := l.Open(child, "grandchild", nil)
	sibling := l.Open(top, "sibling", nil)

	reserveRequests(t, grandchild, 1)
	reserveRequests(t, child, 1)
	// The child's limit binds the child and the run below it, whoever asks.
	wantLimit(t, grandchild.ReserveRequest(), usage.LimitError{Limit: "requests", Max: 2, Used: 2, Agent: "grandchild"})
	wantLimit(t, child.ReserveRequest(), usage.LimitError{Limit: "requests", Max: 2, Used: 2, Agent: "child"})
	if err := grandchild.ReserveToolCalls("m", 3); err != nil {
		t.Fatalf("grandchild batch of 3: %v", err)
	}
	wantLimit(t, child.ReserveToolCalls("m", 1), usage.LimitError{Limit: "tool_calls", Max: 3, Used: 3, Agent: "child"})

	// Not the rest of the tree, which still counts the child's use against the ledger.
	reserveRequests(t, sibling, 7)
	reserveRequests(t, top, 1)
	wantLimit(t, sibling.ReserveRequest(), usage.LimitError{Limit: "requests", Max: 10, Used: 10, Agent: "sibling"})
	if err := sibling.ReserveToolCalls("m", 7); err != nil {
		t.Fatalf("sibling batch of 7: %v", err)
	}
	wantLimit(t, top.ReserveToolCalls("m", 1), usage.LimitError{Limit: "tool_calls", Max: 10, Used: 10, Agent: "top"})

	// A child's own limit cannot loosen the ledger's.
	loose := l.Open(top, "loose", &usage.Limits{MaxRequests: 1000})
	wantLimit(t, loose.ReserveRequest(), usage.LimitError{Limit: "requests", Max: 10, Used: 10, Agent: "loose"})
}

func TestOwnTokenLimits(t *testing.T) {
	t.Parallel()
	l := usage.NewLedger(usage.Limits{})
	top := l.Open(nil, "top", nil)
	child := l.Open(top, "child", &usage.Limits{MaxOutputTokens: 50})
	l.Open(child, "grandchild", nil).Record("m", usage.Usage{Requests: 1, OutputTokens: 60})
	wantLimit(t, child.ReserveRequest(), usage.LimitError{Limit: "output_tokens", Max: 50, Used: 60, Agent: "child"})
	if err := top.ReserveRequest(); err != nil {
		t.Errorf("top ReserveRequest: %v", err)
	}
}

// tree records into a 3-level tree and returns its ledger and accounts.
func tree(t *testing.T) (l *usage.Ledger, top, researcher, searcher, writer *usage.Account) {
	t.Helper()
	l = usage.NewLedger(usage.Limits{})
	top = l.Open(nil, "supervisor", nil)
	researcher = l.Open(top, "researcher", nil)
	searcher = l.Open(researcher, "searcher", nil)
	writer = l.Open(top, "writer", nil)
	// Two accounts of one agent: a second delegation to the researcher.
	researcher2 := l.Open(top, "researcher", nil)

	top.Record("big", usage.Usage{Requests: 1, InputTokens: 100, OutputTokens: 10, CacheReadTokens: 50})
	if err := top.ReserveToolCalls("big", 3); err != nil {
		t.Fatal(err)
	}
	researcher.Record("small", usage.Usage{Requests: 1, InputTokens: 40, OutputTokens: 4})
	if err := researcher.ReserveToolCalls("small", 1); err != nil {
		t.Fatal(err)
	}
	searcher.Record("small", usage.Usage{Requests: 1, InputTokens: 20, OutputTokens: 2})
	searcher.Record("big", usage.Usage{Requests: 1, InputTokens: 30, OutputTokens: 3, ReasoningTokens: 2})
	writer.Record("big", usage.Usage{Requests: 1, InputTokens: 7, OutputTokens: 70})
	researcher2.Record("small", usage.Usage{Requests: 1, InputTokens: 1, OutputTokens: 1, CacheWriteTokens: 1})
	top.Record("big", usage.Usage{Requests: 1, InputTokens: 200, OutputTokens: 20})
	return l, top, researcher, searcher, writer
}

func sum(m map[string]usage.Usage) usage.Usage {
	var s usage.Usage
	for _, u := range m {
		s = s.Add(u)
	}
	return s
}

func TestReportAddsUp(t *testing.T) {
	t.Parallel()
	l, top, researcher, searcher, writer := tree(t)
	reports := map[string]usage.Report{"ledger": l.Report(), "top": top.Report(),
		"researcher": researcher.Report(), "searcher": searcher.Report(), "writer": writer.Report()}
	for name, r := range reports {
		if s := sum(r.ByAgent); s != r.Total {
			t.Errorf("%s: ByAgent adds up to %+v, Total is %+v", name, s, r.Total)
		}
		if s := sum(r.ByModel); s != r.Total {
			t.Errorf("%s: ByModel adds up to %+v, Total is %+v", name, s, r.Total)
		}
	}

	want := usage.Report{
		Total: usage.Usage{Requests: 7, ToolCalls: 4, InputTokens: 398, OutputTokens: 110,
			CacheReadTokens: 50, CacheWriteTokens: 1, ReasoningTokens: 2},
		ByAgent: map[string]usage.Usage{
			"supervisor": {Requests: 2, ToolCalls: 3, InputTokens: 300, OutputTokens: 30, CacheReadTokens: 50},
			"researcher": {Requests: 2, ToolCalls: 1, InputTokens: 41, OutputTokens: 5, CacheWriteTokens: 1},
			"searcher":   {Requests: 2, InputTokens: 50, OutputTokens: 5, ReasoningTokens: 2},
			"writer":     {Requests: 1, InputTokens: 7, OutputTokens: 70},
		},
		ByModel: map[string]usage.Usage{
			"big":   {Requests: 4, ToolCalls: 3, InputTokens: 337, OutputTokens: 103, CacheReadTokens: 50, ReasoningTokens: 2},
			"small": {Requests: 3, ToolCalls: 1, InputTokens: 61, OutputTokens: 7, CacheWriteTokens: 1},
		},
	}
	if diff := cmp.Diff(want, l.Report()); diff != "" {
		t.Errorf("ledger Report mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, top.Report()); diff != "" {
		t.Errorf("top Report mismatch (-want +got):\n%s", diff)
	}
}

func TestChildReportCoversSubtree(t *testing.T) {
	t.Parallel()
	_, _, researcher, searcher, writer := tree(t)
	tests := []struct {
		name string
		got  usage.Report
		want usage.Report
	}{
		{"researcher", researcher.Report(), usage.Report{
			Total: usage.Usage{Requests: 3, ToolCalls: 1, InputTokens: 90, OutputTokens: 9, ReasoningTokens: 2},
			ByAgent: map[string]usage.Usage{
				"researcher": {Requests: 1, ToolCalls: 1, InputTokens: 40, OutputTokens: 4},
				"searcher":   {Requests: 2, InputTokens: 50, OutputTokens: 5, ReasoningTokens: 2},
			},
			ByModel: map[string]usage.Usage{
				"small": {Requests: 2, ToolCalls: 1, InputTokens: 60, OutputTokens: 6},
				"big":   {Requests: 1, InputTokens: 30, OutputTokens: 3, ReasoningTokens: 2},
			},
		}},
		{"searcher", searcher.Report(), usage.Report{
			Total:   usage.Usage{Requests: 2, InputTokens: 50, OutputTokens: 5, ReasoningTokens: 2},
			ByAgent: map[string]usage.Usage{"searcher": {Requests: 2, InputTokens: 50, OutputTokens: 5, ReasoningTokens: 2}},
			ByModel: map[string]usage.Usage{
				"small": {Requests: 1, InputTokens: 20, OutputTokens: 2},
				"big":   {Requests: 1, InputTokens: 30, OutputTokens: 3, ReasoningTokens: 2},
			},
		}},
		{"writer", writer.Report(), usage.Report{
			Total:   usage.Usage{Requests: 1, InputTokens: 7, OutputTokens: 70},
			ByAgent: map[string]usage.Usage{"writer": {Requests: 1, InputTokens: 7, OutputTokens: 70}},
			ByModel: map[string]usage.Usage{"big": {Requests: 1, InputTokens: 7, OutputTokens: 70}},
		}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.got); diff != "" {
			t.Errorf("%s Report mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestReportIsFresh(t *testing.T) {
	t.Parallel()
	l := usage.NewLedger(usage.Limits{})
	a := l.Open(nil, "a", nil)
	empty := a.Report()
	if empty.ByAgent == nil || empty.ByModel == nil {
		t.Fatalf("empty Report has nil maps: %+v", empty)
	}
	a.Record("m", usage.Usage{Requests: 1})
	r := a.Report()
	r.ByAgent["a"] = usage.Usage{Requests: 99}
	delete(r.ByModel, "m")
	r.ByAgent["intruder"] = usage.Usage{}
	want := usage.Report{
		Total:   usage.Usage{Requests: 1},
		ByAgent: map[string]usage.Usage{"a": {Requests: 1}},
		ByModel: map[string]usage.Usage{"m": {Requests: 1}},
	}
	if diff := cmp.Diff(want, a.Report()); diff != "" {
		t.Errorf("Report after the caller changed an earlier one (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, l.Report()); diff != "" {
		t.Errorf("ledger Report (-want +got):\n%s", diff)
	}
}

func TestReservedNotRecorded(t *testing.T) {
	t.Parallel()
	// A request that failed stays reserved, and is not in the report.
	l := usage.NewLedger(usage.Limits{MaxRequests: 2})
	a := l.Open(nil, "a", nil)
	reserveRequests(t, a, 2) // the first failed, the second answered
	a.Record("m", usage.Usage{Requests: 1, InputTokens: 5})
	wantLimit(t, a.ReserveRequest(), usage.LimitError{Limit: "requests", Max: 2, Used: 2, Agent: "a"})
	if got := l.Report().Total.Requests; got != 1 {
		t.Errorf("Report().Total.Requests = %d, want 1", got)
	}
}

func TestConcurrentReservations(t *testing.T) {
	t.Parallel()
	const (
		goroutines = 1000
		accounts   = 8
		limit      = 100
	)
	l := usage.NewLedger(usage.Limits{MaxRequests: limit})
	top := l.Open(nil, "top", nil)
	siblings := make([]*usage.Account, accounts)
	for i := range siblings {
		siblings[i] = l.Open(top, "worker", nil)
	}
	var ok, refused atomic.Int64
	var wg sync.WaitGroup
	for i := range goroutines {
		a := siblings[i%accounts]
		wg.Go(func() {
			err := a.ReserveRequest()
			var le *usage.LimitError
			switch {
			case err == nil:
				ok.Add(1)
				a.Record("m", usage.Usage{Requests: 1})
			case errors.As(err, &le) && le.Limit == usage.LimitRequests && le.Used == limit && le.Max == limit:
				refused.Add(1)
			default:
				t.Errorf("ReserveRequest: unexpected error %v", err)
			}
		})
	}
	wg.Wait()
	if ok.Load() != limit || refused.Load() != goroutines-limit {
		t.Errorf("%d reservations succeeded and %d were refused, want %d and %d",
			ok.Load(), refused.Load(), limit, goroutines-limit)
	}
	if got := l.Report().Total.Requests; got != limit {
		t.Errorf("Report().Total.Requests = %d, want %d", got, limit)
	}
}

func TestConcurrentToolBatches(t *testing.T) {
	t.Parallel()
	l := usage.NewLedger(usage.Limits{MaxToolCalls: 100})
	top := l.Open(nil, "top", nil)
	var ok atomic.Int64
	var wg sync.WaitGroup
	for i := range 200 {
		a := l.Open(top, "worker", nil)
		wg.Go(func() {
			if a.ReserveToolCalls("m", 1+i%3) == nil {
				ok.Add(int64(1 + i%3))
			}
		})
	}
	wg.Wait()
	total := l.Report().Total.ToolCalls
	if total > 100 || int64(total) != ok.Load() {
		t.Errorf("%d tool calls recorded and %d reserved, want equal and at most 100", total, ok.Load())
	}
}

func TestWithLedgerRoundTrip(t *testing.T) {
	t.Parallel()
	if got := usage.LedgerFrom(context.Background()); got != nil {
		t.Errorf("LedgerFrom(empty context) = %p, want nil", got)
	}
	l := usage.NewLedger(usage.Limits{})
	ctx := usage.WithLedger(context.Background(), l)
	if got := usage.LedgerFrom(ctx); got != l {
		t.Errorf("LedgerFrom(WithLedger(ctx, l)) = %p, want %p", got, l)
	}
	inner := usage.NewLedger(usage.Limits{})
	if got := usage.LedgerFrom(usage.WithLedger(ctx, inner)); got != inner {
		t.Errorf("LedgerFrom after a second WithLedger = %p, want the inner ledger %p", got, inner)
	}
}

func TestAccountAccessors(t *testing.T) {
	t.Parallel()
	l := usage.NewLedger(usage.Limits{})
	a := l.Open(nil, "analyst", nil)
	if a.Agent() != "analyst" || a.Ledger() != l {
		t.Errorf("Agent(), Ledger() = %q, %p; want %q, %p", a.Agent(), a.Ledger(), "analyst", l)
	}
}

func TestOpenForeignParentPanics(t *testing.T) {
	t.Parallel()
	other := usage.NewLedger(usage.Limits{}).Open(nil, "other", nil)
	defer func() {
		if recover() == nil {
			t.Error("Open with a parent from another ledger did not panic")
		}
	}()
	usage.NewLedger(usage.Limits{}).Open(other, "child", nil)
}

func TestOwnLimitsCopied(t *testing.T) {
	t.Parallel()
	own := usage.Limits{MaxRequests: 1}
	a := usage.NewLedger(usage.Limits{}).Open(nil, "a", &own)
	own.MaxRequests = 100
	reserveRequests(t, a, 1)
	wantLimit(t, a.ReserveRequest(), usage.LimitError{Limit: "requests", Max: 1, Used: 1, Agent: "a"})
}

func TestRequestsLeft(t *testing.T) {
	t.Parallel()
	l := usage.NewLedger(usage.Limits{MaxRequests: 5})
	top := l.Open(nil, "top", nil)
	child := l.Open(top, "child", &usage.Limits{MaxRequests: 2})
	if got := top.RequestsLeft(); got != 5 {
		t.Errorf("top.RequestsLeft() = %d, want 5", got)
	}
	reserveRequests(t, child, 1)
	if got := child.RequestsLeft(); got != 1 {
		t.Errorf("child.RequestsLeft() = %d, want 1: its own limit is the tighter", got)
	}
	reserveRequests(t, top, 3)
	if got := child.RequestsLeft(); got != 1 {
		t.Errorf("child.RequestsLeft() = %d, want 1", got)
	}
	reserveRequests(t, top, 1)
	if got := child.RequestsLeft(); got != 0 {
		t.Errorf("child.RequestsLeft() = %d, want 0: the ledger's 5 are spent", got)
	}
	if got := usage.NewLedger(usage.Limits{MaxRequests: -1}).Open(nil, "free", nil).RequestsLeft(); got != -1 {
		t.Errorf("RequestsLeft() without a limit = %d, want -1", got)
	}
}

func TestCarry(t *testing.T) {
	t.Parallel()
	before := usage.Report{
		Total:   usage.Usage{Requests: 2, ToolCalls: 1, InputTokens: 30},
		ByAgent: map[string]usage.Usage{"sup": {Requests: 1, InputTokens: 10}, "spec": {Requests: 1, ToolCalls: 1, InputTokens: 20}},
		ByModel: map[string]usage.Usage{"big": {Requests: 2, ToolCalls: 1, InputTokens: 30}},
	}
	l := usage.NewLedger(usage.Limits{MaxRequests: 3})
	a := l.Open(nil, "sup", nil)
	a.Carry(before)
	a.Record("big", usage.Usage{Requests: 1, InputTokens: 5})
	if got := a.RequestsLeft(); got != 1 {
		t.Errorf("RequestsLeft = %d, want 1: the carried requests count", got)
	}
	got := l.Report()
	if got.Total.Requests != 3 || got.ByAgent["spec"].ToolCalls != 1 || got.ByModel["big"].InputTokens != 35 {
		t.Errorf("report = %+v", got)
	}
}

// A resumed tree: the top run carries the whole paused tree's usage; the delegated run it
// resumes adopts its own share, so that each level counts it once.
func TestAdopt(t *testing.T) {
	ledger := usage.NewLedger(usage.Limits{})
	top := ledger.Open(nil, "top", nil)
	sub := usage.Usage{Requests: 2, ToolCalls: 1, InputTokens: 20}
	mine := usage.Usage{Requests: 1, InputTokens: 5}
	paused := usage.Report{
		Total:   mine.Add(sub),
		ByAgent: map[string]usage.Usage{"top": mine, "sub": sub},
		ByModel: map[string]usage.Usage{"m": mine.Add(sub)},
	}
	top.Carry(paused)
	child := ledger.Open(top, "sub", &usage.Limits{MaxRequests: 2})
	child.Adopt(usage.Report{Total: sub, ByAgent: map[string]usage.Usage{"sub": sub}, ByModel: map[string]usage.Usage{"m": sub}})
	if diff := cmp.Diff(paused, ledger.Report()); diff != "" {
		t.Errorf("ledger (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(paused, top.Report()); diff != "" {
		t.Errorf("top (-want +got):\n%s", diff)
	}
	if got := child.Report().Total; got != sub {
		t.Errorf("child = %+v, want %+v", got, sub)
	}
	// The adopted requests count against the child's own limit.
	wantLimit(t, child.ReserveRequest(), usage.LimitError{Limit: usage.LimitRequests, Max: 2, Used: 2, Agent: "sub"})
}

func TestReportAddsUpChecksBreakdowns(t *testing.T) {
	u := usage.Usage{Requests: 1, InputTokens: 3}
	for _, tc := range []struct {
		name string
		r    usage.Report
		want bool
	}{
		{"empty", usage.Report{}, true},
		{"whole", usage.Report{Total: u, ByAgent: map[string]usage.Usage{"a": u}, ByModel: map[string]usage.Usage{"m": u}}, true},
		{"no breakdown by agent", usage.Report{Total: u, ByModel: map[string]usage.Usage{"m": u}}, false},
		{"models short", usage.Report{Total: u, ByAgent: map[string]usage.Usage{"a": u}, ByModel: map[string]usage.Usage{"m": {Requests: 1}}}, false},
	} {
		if got := tc.r.AddsUp(); got != tc.want {
			t.Errorf("%s: AddsUp = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestNewAccountIsTheOneTopAccountOfItsLedger(t *testing.T) {
	top := usage.NewAccount("supervisor", usage.Limits{MaxRequests: 3, MaxToolCalls: -1})
	l := top.Ledger()
	if got := l.Limits(); got.MaxRequests != 3 || got.MaxToolCalls != -1 {
		t.Errorf("Limits = %+v; want the given ones, resolved", got)
	}
	child := l.Open(top, "researcher", nil)
	reserveRequests(t, top, 1)
	top.Record("fast", usage.Usage{Requests: 1, InputTokens: 10})
	reserveRequests(t, child, 2)
	child.Record("deep", usage.Usage{Requests: 2, InputTokens: 30})
	if err := child.ReserveRequest(); err == nil {
		t.Error("a fourth request in the tree was allowed; want MaxRequests 3 to hold across the tree")
	}
	want := usage.Report{
		Total:   usage.Usage{Requests: 3, InputTokens: 40},
		ByAgent: map[string]usage.Usage{"supervisor": {Requests: 1, InputTokens: 10}, "researcher": {Requests: 2, InputTokens: 30}},
		ByModel: map[string]usage.Usage{"fast": {Requests: 1, InputTokens: 10}, "deep": {Requests: 2, InputTokens: 30}},
	}
	if diff := cmp.Diff(want, top.Report()); diff != "" {
		t.Errorf("the top account's report (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, l.Report()); diff != "" {
		t.Errorf("the ledger's report (-want +got):\n%s", diff)
	}
	defer func() {
		if v := recover(); v == nil {
			t.Error("a second top account opened in the ledger of NewAccount; want a panic that says to open it under the first")
		}
	}()
	l.Open(nil, "other", nil)
}

func TestRequestsLeftIsTheFewestOfAnyLevel(t *testing.T) {
	t.Parallel()
	l := usage.NewLedger(usage.Limits{MaxRequests: 5})
	top := l.Open(nil, "top", nil)
	child := l.Open(top, "child", &usage.Limits{MaxRequests: 2})
	reserveRequests(t, child, 2)
	if got := child.RequestsLeft(); got != 0 {
		t.Errorf("child.RequestsLeft() = %d, want 0: its own 2 are spent, whatever the ledger has left", got)
	}
	if got := top.RequestsLeft(); got != 3 {
		t.Errorf("top.RequestsLeft() = %d, want 3", got)
	}
}

func TestAnEmptyReportHasEmptyMaps(t *testing.T) {
	t.Parallel()
	r := usage.NewLedger(usage.Limits{}).Open(nil, "idle", nil).Report()
	if len(r.ByAgent) != 0 || len(r.ByModel) != 0 || r.ByAgent == nil || r.ByModel == nil {
		t.Errorf("the report of an account that recorded nothing = %+v; want empty, non-nil maps", r)
	}
}
