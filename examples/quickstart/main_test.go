package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestQuickstartOffline(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	want := []string{
		"quickstart: offline, with a scripted model (no API key needed)",
		"pack for Lisbon: sunglasses, light jacket, umbrella",
		"usage: 2 requests, 1 tool calls, 472 input + 42 output tokens",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("output:\n%s\nwant:\n%s", out.String(), strings.Join(want, "\n"))
	}
}
