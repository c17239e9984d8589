package soak

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/mcpbridge"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

const (
	mcpClients     = 1_000
	callsPerClient = 3
)

// 1,000 MCP clients at once, each with a connection of its own, initialize a session over
// streamable HTTP and call the round's assistant, served as a tool by mcpbridge, a few times.
func soakMCPClients(ctx context.Context, t *testing.T) {
	before := runtime.NumGoroutine()
	url, shutdown := serveRound(t)

	var latency durations
	var errs atomic.Int64
	fail := func(format string, args ...any) {
		if errs.Add(1) <= 5 {
			t.Errorf(format, args...)
		}
	}
	wall := atOnce(mcpClients, func(i int) {
		if err := callRound(ctx, url, &latency); err != nil {
			fail("client %d: %v", i, err)
		}
	})
	shutdown()
	after := settle(t, before)

	calls := mcpClients * callsPerClient
	tb := &table{title: "1,000 concurrent MCP clients over streamable HTTP, calling an assistant served as a tool"}
	tb.add("clients (concurrent) x calls each", "%d x %d", mcpClients, callsPerClient)
	tb.add("total wall time (sessions included)", "%s", ms(wall))
	tb.add("calls per second", "%s", rate(calls, wall))
	tb.add("latency of a call p50 / p99 / max", "%s / %s / %s", ms(latency.percentile(50)), ms(latency.percentile(99)), ms(latency.max()))
	tb.add("goroutines before / after", "%d / %d", before, after)
	tb.add("errors", "%d", errs.Load())
	tb.print(t)
	if n := errs.Load(); n > 0 {
		t.Errorf("%d of %d clients failed", n, mcpClients)
	}
}

// serveRound serves the round's assistant as the MCP tool "weather_report" over streamable
// HTTP on 127.0.0.1, and returns its URL and a function that shuts the server down.
func serveRound(t *testing.T) (url string, shutdown func()) {
	t.Helper()
	a := newRound(model.Fixed(model.Describe("scripted", roundModel())))
	s := server.NewMCPServer("soak", "1.0.0")
	if err := mcpbridge.AddTool(s, assistant.AsTool[weatherIn](a, assistant.ToolName("weather_report"))); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	h := server.NewStreamableHTTPServer(s, server.WithStreamableHTTPServer(hs))
	mux.Handle("/mcp", h)
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/mcp", func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.Shutdown(ctx); err != nil {
			t.Errorf("shutting the MCP server down: %v", err)
			hs.Close()
		}
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("the MCP server: %v", err)
		}
	}
}

// callRound is one client: its own connection, a session, callsPerClient calls of the tool,
// each timed into latency and its answer checked.
func callRound(ctx context.Context, url string, latency *durations) error {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	defer tr.CloseIdleConnections()
	c, err := client.NewStreamableHttpClient(url, transport.WithHTTPBasicClient(&http.Client{Transport: tr}))
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	for i := range callsPerClient {
		var req mcp.CallToolRequest
		req.Params.Name = "weather_report"
		req.Params.Arguments = map[string]any{"city": "Paris"}
		began := time.Now()
		res, err := c.CallTool(ctx, req)
		if err != nil {
			return fmt.Errorf("call %d: %w", i, err)
		}
		latency.add(time.Since(began))
		if res.IsError || len(res.Content) != 1 || !strings.Contains(mcp.GetTextFromContent(res.Content[0]), `"city":"Paris"`) {
			return fmt.Errorf("call %d answered %+v", i, res)
		}
	}
	return nil
}
