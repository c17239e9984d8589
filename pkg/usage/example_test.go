package usage_test

import (
	"errors"
	"fmt"

	"github.com/cadrehq/cadre/pkg/usage"
)

// A supervisor delegates to a researcher, whose own limits bound its subtree. Each run
// reserves before it calls the model and records what the response used.
func Example() {
	ledger := usage.NewLedger(usage.Limits{MaxRequests: 10})
	supervisor := ledger.Open(nil, "supervisor", nil)
	researcher := ledger.Open(supervisor, "researcher", &usage.Limits{MaxRequests: 1})

	if err := supervisor.ReserveRequest(); err == nil {
		supervisor.Record("big", usage.Usage{Requests: 1, InputTokens: 120, OutputTokens: 30})
	}
	if err := supervisor.ReserveToolCalls("big", 1); err != nil {
		fmt.Println(err)
	}
	if err := researcher.ReserveRequest(); err == nil {
		researcher.Record("small", usage.Usage{Requests: 1, InputTokens: 80, OutputTokens: 20})
	}

	err := researcher.ReserveRequest()
	var limit *usage.LimitError
	if errors.As(err, &limit) {
		fmt.Println(err)
	}

	r := ledger.Report()
	fmt.Println("requests:", r.Total.Requests, "tool calls:", r.Total.ToolCalls, "tokens:", r.Total.TotalTokens())
	fmt.Println("researcher's tokens:", r.ByAgent["researcher"].TotalTokens())
	fmt.Println("researcher's subtree requests:", researcher.Report().Total.Requests)
	// Output:
	// assistant "researcher": request limit reached (1 of 1 used): raise usage.Limits.MaxRequests, or set it negative for no limit
	// requests: 2 tool calls: 1 tokens: 250
	// researcher's tokens: 100
	// researcher's subtree requests: 1
}
