package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"text/tabwriter"

	"github.com/cadrehq/cadre/pkg/usage"
)

// printUsage writes r as a table: a line per assistant, a line per model, and the total. The
// assistants' lines add up to the total, and so do the models'.
func printUsage(w io.Writer, r usage.Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "usage\tname\trequests\ttool calls\tinput tokens\toutput tokens")
	for _, name := range slices.Sorted(maps.Keys(r.ByAgent)) {
		usageRow(tw, "assistant", name, r.ByAgent[name])
	}
	for _, name := range slices.Sorted(maps.Keys(r.ByModel)) {
		usageRow(tw, "model", name, r.ByModel[name])
	}
	usageRow(tw, "total", "", r.Total)
	return tw.Flush()
}

func usageRow(w io.Writer, kind, name string, u usage.Usage) {
	fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%d\t%d\n", kind, name, u.Requests, u.ToolCalls, u.InputTokens, u.OutputTokens)
}
