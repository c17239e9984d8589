// Command mcpserver serves three assistants over the Model Context Protocol: "planner", which
// answers with a typed trip plan, "guide", which answers in prose, and "concierge", which
// delegates to both. Each is a prompt; their tools (forecast, phrasebook) and the assistants
// wrapped as tools (plan_trip, ask_guide, ask_concierge) are tools. forecast and plan_trip are typed: they return structured content. The planner has a
// skill, packing-list (skills/packing-list, bundled in the binary with embed.FS), which the
// server serves as resources too: skill://packing-list/SKILL.md and
// skill://packing-list/references/clothing.md, for a client to read.
//
// It serves over stdio by default, for a desktop client that starts it:
//
//	go run ./examples/mcpserver
//
// and over streamable HTTP, at /mcp, with -http:
//
//	go run ./examples/mcpserver -http 127.0.0.1:8080   # http://127.0.0.1:8080/mcp
//
// It runs offline by default: test models play the models' part, so it needs no key, and it
// says so on the first line of stderr (stdout carries the stdio protocol). With -config it
// uses the models that llm.yaml gives the assistants "planner", "guide" and "concierge" (or the
// default one):
//
//	go run ./examples/mcpserver -config llm.yaml
//
// A prompt get with a chat_id continues that chat: the assistants keep their chats in memory
// by default, and in Redis with -redis, where several servers share them — any of them can
// continue a chat that another began:
//
//	go run ./examples/mcpserver -http 127.0.0.1:8080 -redis 127.0.0.1:6379
//
// Each run's progress (which assistant is working, which tool is running, the tokens spent by
// all runs so far) goes to stderr as it happens. With -otel the runs are traced with
// OpenTelemetry (docs/observability.md): the spans go to stderr as indented JSON every few
// seconds, or over OTLP/HTTP to the collector that OTEL_EXPORTER_OTLP_ENDPOINT names:
//
//	OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 go run ./examples/mcpserver -http 127.0.0.1:8080 -otel
//
// Over HTTP with -issuer, the server is an OAuth 2.1 resource server, as MCP's authorization
// specification asks: every request at /mcp must carry a bearer access token that the issuer
// signed for this server (-audience: the URL clients reach /mcp at, by default the address it
// listens on), and a chat belongs to the tenant and the user of the token's "tenant" and "sub"
// claims, as does an MCP session: no other caller can use it, cancel its requests or end it.
// Clients learn where to get a token from the Protected Resource Metadata it serves at
// /.well-known/oauth-protected-resource/mcp:
//
//	go run ./examples/mcpserver -http 127.0.0.1:8080 -issuer https://auth.example.com
//
// Without -issuer a chat belongs to the tenant and the user that the request's X-Tenant and
// X-User headers name, which anyone can send: the server says so when it starts, and refuses to
// listen on anything but a loopback address. Over stdio a chat belongs to tenant "" and user "":
// the client that started the server is its only caller.
//
// A client that gives a progress token (in a request's _meta) receives the progress of the run
// it asked for, as notifications/progress: "concierge: running plan_trip", "planner: started,
// for concierge", .... A client that cancels a request (notifications/cancelled), goes away,
// or ends its HTTP session, stops its run and the runs it delegated to. Offline, the models
// answer at once; with -latency each answer takes that long, to watch the progress or cancel a
// run:
//
//	go run ./examples/mcpserver -http 127.0.0.1:8080 -latency 2s
//
// docs/mcp.md shows how to connect a client; docs/conversations.md explains chats;
// docs/skills.md explains skills.
package main

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/cadrehq/cadre/examples/internal/exampleotel"
	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/callback"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/mcpauth"
	"github.com/cadrehq/cadre/pkg/mcpbridge"
	"github.com/cadrehq/cadre/pkg/skill"
	"github.com/mark3labs/mcp-go/server"
)

// settings are the command line's.
type settings struct {
	config string // an llm.yaml; "" for the offline models
	http   string // the address to serve streamable HTTP on; "" for stdio
	redis  string // the address of the Redis to keep chats in; "" for memory
	otel   bool   // trace the runs, the spans going to stderr or to the collector the environment names

	issuer   string // over HTTP, the OAuth issuer whose access tokens say who calls; "" to trust headers, on loopback only
	audience string // the URL clients reach /mcp at, which tokens must name; "" for http://<the address>/mcp

	latency time.Duration // how long each answer of the offline models takes
}

func main() {
	var set settings
	flag.StringVar(&set.config, "config", "", "an llm.yaml to take the models from (default: offline, with test models)")
	flag.StringVar(&set.http, "http", "", "serve streamable HTTP on this address, e.g. 127.0.0.1:8080, at /mcp (default: stdio)")
	flag.StringVar(&set.redis, "redis", "", "keep chats in the Redis at this host:port, shared with every server given the same (default: in memory)")
	flag.BoolVar(&set.otel, "otel", false, exampleotel.Usage)
	flag.StringVar(&set.issuer, "issuer", os.Getenv("MCPSERVER_ISSUER"), "over HTTP, accept only callers with a bearer access token of this OAuth issuer, e.g. https://auth.example.com; tenant and user come from its \"tenant\" and \"sub\" claims (default $MCPSERVER_ISSUER; none: trust the X-Tenant and X-User headers, and listen on loopback only)")
	flag.StringVar(&set.audience, "audience", os.Getenv("MCPSERVER_AUDIENCE"), "with -issuer, the URL clients reach /mcp at, which tokens must name as their audience (default $MCPSERVER_AUDIENCE, else http://<-http>/mcp)")
	flag.DurationVar(&set.latency, "latency", 0, "how long each answer of the offline models takes, e.g. 2s, to watch a run's progress or cancel it (default: at once)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, set, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "mcpserver:", err)
		os.Exit(1)
	}
}

// run serves until ctx is done or, over stdio, until stdin ends. Everything it says goes to
// stderr, and the spans too with set.otel (when the environment names no collector); the last
// of them before it returns.
func run(ctx context.Context, set settings, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	chats, err := openChats(ctx, set.redis)
	if err != nil {
		return err
	}
	defer chats.close()
	var traces io.Writer // nil: no tracing
	if set.otel {
		traces = stderr
	}
	tracing, err := exampleotel.Start(ctx, "mcpserver", traces)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, tracing.Shutdown(ctx)) }()
	s, err := newServer(set, chats, stderr, tracing.Option())
	if err != nil {
		return err
	}
	fmt.Fprintln(stderr, "mcpserver:", chats.where())
	if set.http == "" {
		fmt.Fprintln(stderr, "mcpserver: serving MCP over stdio")
		return serveStdio(ctx, s, stdin, stdout, stderr)
	}
	ln, err := net.Listen("tcp", set.http)
	if err != nil {
		return err
	}
	auth, err := authorize(ctx, set, ln.Addr(), stderr)
	if err != nil {
		ln.Close()
		return err
	}
	return serveHTTP(ctx, s, ln, auth, stderr)
}

// bundled holds the planner's skills: each folder under skills/ with a SKILL.md is one.
//
//go:embed skills
var bundled embed.FS

// loadSkills loads the bundled skills. A problem that does not stop a skill goes to stderr, and
// the skill is loaded; the error is for skills that cannot be read at all.
func loadSkills(stderr io.Writer) ([]*skill.Skill, error) {
	skills, problems, err := skill.Load(bundled, "skills")
	if err != nil {
		return nil, err
	}
	for _, p := range problems {
		fmt.Fprintln(stderr, "mcpserver: skill problem:", p)
	}
	return skills, nil
}

// newServer makes the MCP server: the assistants as prompts, their tools and the assistants
// wrapped as tools as tools, the planner's skills as resources. It says which models it uses,
// the progress of every run, and every failed request on stderr. tracing, when not nil, traces
// the runs.
func newServer(set settings, chats *chatStores, stderr io.Writer, tracing assistant.Option) (*server.MCPServer, error) {
	models, err := chooseModels(set, stderr)
	if err != nil {
		return nil, err
	}
	skills, err := loadSkills(stderr)
	if err != nil {
		return nil, err
	}
	// One progress handler for all runs, so that its count of tokens is the server's.
	watch := assistant.Options(assistant.WithCallback(callback.NewProgress(stderr)), tracing)
	plannerChats, guideChats := chats.of("planner"), chats.of("guide")
	planner := newPlanner(models.planner, plannerChats, watch, skills)
	guide := newGuide(models.guide, guideChats, watch)
	concierge := newConcierge(models.concierge, chats.of("concierge"), watch,
		newPlanner(models.planner, plannerChats, assistant.Options(), skills), newGuide(models.guide, guideChats, assistant.Options()))

	s := server.NewMCPServer("cadre-mcpserver", "1.0.0",
		server.WithInstructions("Trip planning: the planner prompt and plan_trip tool plan a trip; the guide prompt and ask_guide tool answer questions about a city; the concierge prompt and ask_concierge tool ask both and sum up. Give the prompts a chat_id to continue a conversation. The skill:// resources are the planner's skills (Agent Skills): SKILL.md and the files it points to."))
	logged := mcpbridge.WithErrorHandler(logTo(stderr))
	for _, a := range []assistant.Agent{planner, guide, concierge} {
		if err := mcpbridge.AddPrompt(s, a, logged, mcpbridge.WithIdentity(callerOf)); err != nil {
			return nil, err
		}
	}
	// Reporting: a client that gives a progress token follows the run of the tool it called.
	tools := append(travelTools(),
		assistant.AsTool[TripRequest](mcpbridge.Reporting(planner), assistant.ToolName("plan_trip")),
		assistant.AsTool[string](mcpbridge.Reporting(guide), assistant.ToolName("ask_guide")),
		assistant.AsTool[string](mcpbridge.Reporting(concierge), assistant.ToolName("ask_concierge")),
	)
	for _, t := range tools {
		if err := mcpbridge.AddTool(s, t, logged); err != nil {
			return nil, err
		}
	}
	if err := mcpbridge.AddSkills(s, skills...); err != nil {
		return nil, err
	}
	return s, nil
}

// assistantModels holds the model option of each assistant.
type assistantModels struct{ planner, guide, concierge assistant.Option }

// chooseModels returns the offline models, answering after set.latency, or the models of the
// llm.yaml set.config names.
func chooseModels(set settings, stderr io.Writer) (assistantModels, error) {
	if set.config == "" {
		fmt.Fprintln(stderr, "mcpserver: offline, with test models that play the models' part (no API key needed); give -config llm.yaml for real models")
		return assistantModels{
			planner:   assistant.WithModel(offlinePlanner(set.latency)),
			guide:     assistant.WithModel(offlineGuide(set.latency)),
			concierge: assistant.WithModel(offlineConcierge(set.latency)),
		}, nil
	}
	f, err := llmfactory.Load(set.config)
	if err != nil {
		return assistantModels{}, err
	}
	fmt.Fprintln(stderr, "mcpserver: with the models of", set.config)
	return assistantModels{planner: assistant.WithModels(f), guide: assistant.WithModels(f), concierge: assistant.WithModels(f)}, nil
}

// logTo returns an error handler that logs each failed prompt or tool call to w: the client
// got the error too, and a panic's stack is only here.
func logTo(w io.Writer) func(context.Context, string, error) {
	l := log.New(w, "mcpserver: ", log.LstdFlags)
	return func(_ context.Context, name string, err error) {
		var p *mcpbridge.PanicError
		if errors.As(err, &p) {
			l.Printf("%s: %v\n%s", name, err, p.Stack)
			return
		}
		l.Printf("%s: %v", name, err)
	}
}

func serveStdio(ctx context.Context, s *server.MCPServer, stdin io.Reader, stdout, stderr io.Writer) error {
	srv := server.NewStdioServer(s)
	srv.SetErrorLogger(log.New(stderr, "mcpserver: ", log.LstdFlags))
	return srv.Listen(ctx, stdin, stdout)
}

// serveHTTP serves streamable HTTP at /mcp on ln until ctx is done, then shuts down. With auth,
// every request at /mcp must carry a token that auth accepts, whose claims say who calls, and
// the resource's metadata is served; without, the X-Tenant and X-User headers say who calls.
func serveHTTP(ctx context.Context, s *server.MCPServer, ln net.Listener, auth *mcpauth.Authorizer, stderr io.Writer) error {
	mux := http.NewServeMux()
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	identify := callerFromHeaders
	if auth != nil {
		identify = callerFromToken
	}
	h := server.NewStreamableHTTPServer(s,
		server.WithStreamableHTTPServer(hs),
		server.WithHTTPContextFunc(identify),
		server.WithStreamableHTTPLogger(slog.New(slog.NewTextHandler(stderr, nil))))
	endpoint := mcpbridge.CancellationHandler(h) // a client cancels its own runs, and only those
	if auth == nil {
		mux.Handle("/mcp", endpoint)
	} else {
		mux.Handle("/mcp", auth.Protect(endpoint))
		mountMetadata(mux, auth)
	}

	fmt.Fprintf(stderr, "mcpserver: serving MCP over streamable HTTP at http://%s/mcp\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := h.Shutdown(shutdown); err != nil {
		_ = hs.Close()
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
