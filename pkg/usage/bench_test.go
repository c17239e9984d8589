package usage_test

import (
	"testing"

	"github.com/cadrehq/cadre/pkg/usage"
)

// BenchmarkAccount is one delegated run's bookkeeping: open, two requests, one tool batch,
// the report at the end.
func BenchmarkAccount(b *testing.B) {
	l := usage.NewLedger(usage.Limits{MaxRequests: -1, MaxToolCalls: -1})
	top := l.Open(nil, "supervisor", nil)
	u := usage.Usage{Requests: 1, InputTokens: 1000, OutputTokens: 100}
	b.ReportAllocs()
	for b.Loop() {
		a := l.Open(top, "researcher", nil)
		if err := a.ReserveRequest(); err != nil {
			b.Fatal(err)
		}
		a.Record("small", u)
		if err := a.ReserveToolCalls("small", 3); err != nil {
			b.Fatal(err)
		}
		if err := a.ReserveRequest(); err != nil {
			b.Fatal(err)
		}
		a.Record("small", u)
		if r := a.Report(); r.Total.Requests != 2 {
			b.Fatalf("Requests = %d, want 2", r.Total.Requests)
		}
	}
}
