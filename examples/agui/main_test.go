package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The conversation, as the client prints it: the run, the researcher's run as a sub-agent,
// the interrupt for the booking, and, once approved, the rest of the run.
func TestAGUIOffline(t *testing.T) {
	var out, progress bytes.Buffer
	if err := run(context.Background(), &out, &progress, "", "127.0.0.1:0", false, nil); err != nil {
		t.Fatal(err)
	}
	got := regexp.MustCompile(`127\.0\.0\.1:\d+`).ReplaceAllString(out.String(), "127.0.0.1:PORT")
	want := []string{
		"agui: offline, with function models playing the models' parts (no API key needed)",
		"agui: serving the concierge at http://127.0.0.1:PORT/agui",
		"you: A table for two in Porto tonight, somewhere with good fish.",
		"RUN_STARTED run-1 on thread porto-dinner",
		"CUSTOM cadre.usage: 310 input + 32 output tokens",
		`TOOL_CALL call_c1 researcher {"city":"Porto","wish":"good fish"}`,
		"SUBAGENT_STARTED researcher, for call call_c1",
		"  researcher: CUSTOM cadre.usage: 280 input + 19 output tokens",
		`  researcher: TOOL_CALL call_r1 find_restaurants {"city":"Porto","cuisine":"fish"}`,
		`  researcher: TOOL_CALL_RESULT call_r1 [{"name":"Casa Marinha","known_for":"grilled sea bass, by the river"},{"name":"O Gaveto","known_for":"seafood rice"}]`,
		"  researcher: CUSTOM cadre.usage: 371 input + 36 output tokens",
		`  researcher: SUBAGENT_FINISHED success {"restaurant":"Casa Marinha","why":"Known for grilled sea bass, by the river."}`,
		`TOOL_CALL_RESULT call_c1 {"restaurant":"Casa Marinha","why":"Known for grilled sea bass, by the river."}`,
		"CUSTOM cadre.usage: 402 input + 28 output tokens",
		`TOOL_CALL call_c2 book_table {"restaurant":"Casa Marinha","time":"20:00","people":2}`,
		"RUN_FINISHED interrupt call_c2 (tool_approval): concierge asks to call book_table",
		`approve call_c2: resume with {"interruptId":"call_c2","status":"resolved","payload":{"approved":true}}`,
		"RUN_STARTED run-2 on thread porto-dinner",
		`TOOL_CALL_RESULT call_c2 {"reference":"PT-4417","restaurant":"Casa Marinha","time":"20:00","people":2}`,
		"CUSTOM cadre.usage: 461 input + 24 output tokens",
		`TEXT_MESSAGE "Booked: a table for 2 at Casa Marinha at 20:00, reference PT-4417."`,
		`RUN_FINISHED success "Booked: a table for 2 at Casa Marinha at 20:00, reference PT-4417."`,
	}
	if diff := cmp.Diff(want, strings.Split(strings.TrimSuffix(got, "\n"), "\n")); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	// The booking ran once, after its approval, in the run the resume started.
	if p := progress.String(); strings.Count(p, "concierge: running book_table") != 1 ||
		!strings.Contains(p, "concierge: done\nconcierge: started\nconcierge: running book_table\n") {
		t.Errorf("progress:\n%s", p)
	}
}

// With -serve it serves until its context ends, for any client: here one more conversation,
// on a thread of its own.
func TestAGUIServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, w, io.Discard, "", "127.0.0.1:0", true, nil)
		w.Close()
	}()
	lines := bufio.NewScanner(r)
	url := ""
	for url == "" && lines.Scan() {
		_, url, _ = strings.Cut(lines.Text(), "serving the concierge at ")
	}
	if url == "" {
		t.Fatalf("no URL printed; run: %v", <-done)
	}
	go func() { _, _ = io.Copy(io.Discard, r) }() // what else it prints

	var out bytes.Buffer
	if err := newClient(url, "another-dinner", &out).converse(ctx, "Dinner for two?"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(out.String(), "RUN_FINISHED success \"Booked: a table for 2 at Casa Marinha at 20:00, reference PT-4417.\"\n") {
		t.Errorf("client output:\n%s", out.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
}

// With -otel, the concierge's two runs (paused, then resumed) and the researcher's run are
// spans in the traces writer.
func TestAGUIOtel(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "") // the spans to the writer, not to a collector
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "")
	var out, traces bytes.Buffer
	if err := run(context.Background(), &out, io.Discard, "", "127.0.0.1:0", false, &traces); err != nil {
		t.Fatal(err)
	}
	for name, n := range map[string]int{"invoke_agent concierge": 2, "invoke_agent researcher": 1, "execute_tool book_table": 1} {
		if got := strings.Count(traces.String(), `"Name": "`+name+`"`); got != n {
			t.Errorf("%d spans %q in the traces, want %d", got, name, n)
		}
	}
}
