package mcpbridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/cadrehq/cadre/pkg/assistant"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// ErrClosed is the error of a Remote's tools and calls after its Close.
var ErrClosed = errors.New("mcpbridge: the connection to the MCP server is closed")

// WithLogger makes a Remote (Connect) log what happens to its connection on l: a connection
// lost (at Warn, with the error) and made again (at Info). Without it, nothing is logged.
// Tools, which keeps no connection, has nothing to log.
func WithLogger(l *slog.Logger) ImportOption { return func(c *importConfig) { c.log = l } }

// Remote is an MCP server whose tools assistants use, over a connection the bridge owns and
// keeps: Connect makes it. It is an assistant.ToolSet (give it to assistant.WithToolSet), so
// that every run has the server's tools as they are when it starts.
//
// The tools are listed when the connection is made, page after page, and kept: they are listed
// again only when the server says they changed (notifications/tools/list_changed), at the
// start of the next run. Nothing else is sent to the server between calls.
//
// When a request fails because the connection is lost — the server forgot the session (HTTP
// 404 on a streamable HTTP session) or restarted (connection refused or reset, end of stream,
// a stdio server that exited) — the Remote makes one new connection (it dials again,
// initializes, lists the tools), then sends the request again, once; so do the requests in
// flight on the lost connection, on the same new one. The new connection is on the protocol
// the Remote had before, with its notification stream: one that initializing left on an older
// protocol is made again, a few times at most (see Connect). A call whose connection broke
// after it was sent may have run on the server: a tool that must not run twice should be
// idempotent there. A notification stream that ends (protocol 2026-07-28 and later) loses the
// connection too: the next run or call connects again.
//
// A Remote is safe for concurrent use. Close ends it: afterwards its tools fail with
// ErrClosed.
type Remote struct {
	dial   func(context.Context) (*client.Client, error)
	prefix string
	log    *slog.Logger // nil: nothing is logged

	// life is the clients': they are dialed and started with it, and it ends once Close has
	// closed them (a stdio server made with exec.CommandContext stops cleanly first).
	life context.Context
	end  context.CancelFunc
	// closing ends as Close begins: a connection in progress is cut short.
	closing context.Context
	abort   context.CancelFunc

	conn atomic.Pointer[conn] // nil while there is none: closed, or connecting again failed

	lock   chan struct{} // held to connect or to close: one new connection for all who found it lost
	closed bool          // guarded by lock
	name   string        // guarded by lock: the server's name, for errors when it cannot be reached
	// protocol is guarded by lock: the newest protocol version a connection negotiated, which
	// a new connection should reach again (see open).
	protocol string
}

// conn is one connection to the server: an initialized client, and the tools it listed.
type conn struct {
	c        *client.Client
	server   string // the server's name
	protocol string // the protocol version negotiated

	changed atomic.Uint64            // notifications/tools/list_changed received
	tools   atomic.Pointer[toolList] // never nil once the connection is made
	listing chan struct{}            // held to list the tools again: once for all runs
	lost    atomic.Pointer[loss]     // set when its notification stream ended, or it failed as soon as it was made
	closed  atomic.Bool              // set when the Remote closed it: its requests in flight fail

	acked      chan struct{} // closed when the server acknowledged the notification stream
	ackOnce    sync.Once
	stopListen context.CancelFunc // nil without a notification stream
	listening  chan struct{}      // closed when the stream's goroutine has returned
}

// toolList is the tools as listed when changed was at.
type toolList struct {
	tools []tool.Tool
	at    uint64
}

type loss struct{ err error }

var _ assistant.ToolSet = (*Remote)(nil)

// Connect makes a Remote of the MCP server that dial connects to, and connects to it: it
// initializes the client dial returns and lists the server's tools, page after page. The tools
// are named, described and called as Tools does (see Tools, and WithPrefix; WithLogger logs
// the connection's life).
//
// dial makes a new client each time the Remote connects: client.NewStreamableHttpClient,
// client.NewStdioMCPClient, or any other. The Remote starts it (Start) with dial's context,
// which ends with Close, not with the run that connects; it closes the client when it is done
// with it. Over streamable HTTP with a protocol before 2026-07-28, the server's notifications
// reach the client between calls only on a standing stream: give the transport
// transport.WithContinuousListening() for the tools to stay current there. On protocol
// 2026-07-28 and later, the Remote opens a notification stream itself when the server says
// its tool list can change.
//
// A new connection after a lost one should be on the protocol the Remote had before. mcp-go's
// client probes with server/discover (protocol 2026-07-28) and, when that request fails for
// any reason — a kept-alive connection to the server before its restart does it — falls back
// to the initialize handshake of older protocols, without saying why. Such a connection works,
// but over streamable HTTP it has no notification stream (the transport opens none unless it
// was made for the older protocols alone), so the server's tool changes would no longer reach
// runs. The Remote closes it and connects again, up to three handshakes in all: a server that
// answers with an older protocol each time (an older build of it, restarted) is used on that
// protocol, with a warning logged.
//
// Connect returns an error, and keeps nothing open, when dial, initializing or listing fails,
// or when the tools cannot be used (see Tools). The caller closes the Remote.
func Connect(ctx context.Context, dial func(ctx context.Context) (*client.Client, error), opts ...ImportOption) (*Remote, error) {
	if dial == nil {
		return nil, errors.New("mcpbridge.Connect: dial is nil")
	}
	var cfg importConfig
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	r := &Remote{dial: dial, prefix: cfg.prefix, log: cfg.log, lock: make(chan struct{}, 1)}
	r.life, r.end = context.WithCancel(context.WithoutCancel(ctx))
	r.closing, r.abort = context.WithCancel(r.life)
	cn, err := r.connect(ctx, nil)
	if err != nil {
		r.abort()
		r.end()
		return nil, fmt.Errorf("mcpbridge.Connect: %w", err)
	}
	r.name, r.protocol = cn.server, cn.protocol
	r.conn.Store(cn)
	return r, nil
}

// Tools returns the server's tools: as listed last, or listed again when the server said
// they changed since. It connects again when the connection is lost (see Remote). A tool the
// server did not change is the same value in every list, across connections too.
func (r *Remote) Tools(ctx context.Context) ([]tool.Tool, error) {
	cn, err := r.current(ctx)
	if err != nil {
		return nil, err
	}
	tools, err := r.toolsOf(ctx, cn)
	if err != nil && ctx.Err() == nil && cn.lostBy(err) {
		if cn, err = r.reconnect(ctx, cn, err); err == nil {
			tools = cn.tools.Load().tools
		}
	}
	if err != nil {
		return nil, err
	}
	return slices.Clone(tools), nil // the caller's to change
}

// Close closes the connection, and ends every goroutine the Remote started. A connection in
// progress is cut short.
func (r *Remote) Close() error {
	r.abort()
	r.lock <- struct{}{}
	defer r.release()
	if r.closed {
		return nil
	}
	r.closed = true
	defer r.end()
	if cn := r.conn.Swap(nil); cn != nil {
		return cn.close()
	}
	return nil
}

// callTool calls a tool of the server, connecting again once when the connection is lost.
func (r *Remote) callTool(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	cn, err := r.current(ctx)
	if err != nil {
		return nil, err
	}
	res, err := cn.c.CallTool(ctx, req)
	if err == nil || ctx.Err() != nil || !cn.lostBy(err) {
		return res, err
	}
	if cn, err = r.reconnect(ctx, cn, err); err != nil {
		return nil, err
	}
	res, err = cn.c.CallTool(ctx, req)
	if err != nil && ctx.Err() == nil && cn.lostBy(err) {
		err = fmt.Errorf("MCP server %q: the connection was lost again right after it was made anew: %w", cn.server, err)
		cn.lose(r, err) // the next call connects again
	}
	return res, err
}

// current returns the connection, or makes a new one when it is lost or there is none.
func (r *Remote) current(ctx context.Context) (*conn, error) {
	cn := r.conn.Load()
	if cn == nil {
		return r.reconnect(ctx, nil, nil)
	}
	if l := cn.lost.Load(); l != nil {
		return r.reconnect(ctx, cn, l.err)
	}
	return cn, nil
}

// reconnect replaces old, lost with cause, by a new connection; or returns the connection
// that another caller made meanwhile.
func (r *Remote) reconnect(ctx context.Context, old *conn, cause error) (*conn, error) {
	select {
	case r.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer r.release()
	if r.closed {
		return nil, ErrClosed
	}
	cn := r.conn.Load()
	if cn != nil && cn != old && cn.lost.Load() == nil {
		return cn, nil
	}
	var known []tool.Tool
	if cn != nil {
		r.conn.Store(nil)
		known = cn.tools.Load().tools
		_ = cn.close() // it is lost: what closing it says does not matter
	}
	lost := "the connection is lost"
	if cause != nil {
		lost = fmt.Sprintf("the connection was lost (%v)", cause)
		r.logf(ctx, slog.LevelWarn, "mcpbridge: the connection to the MCP server was lost; connecting again", "server", r.name, "err", cause)
	}
	next, err := r.connect(ctx, known)
	if err != nil {
		return nil, fmt.Errorf("MCP server %q: %s, and connecting again failed: %w", r.name, lost, err)
	}
	r.name = next.server
	r.protocol = max(r.protocol, next.protocol)
	r.conn.Store(next)
	r.logf(ctx, slog.LevelInfo, "mcpbridge: connected to the MCP server again", "server", r.name)
	return next, nil
}

func (r *Remote) release() { <-r.lock }

func (r *Remote) logf(ctx context.Context, level slog.Level, msg string, args ...any) {
	if r.log != nil {
		r.log.Log(ctx, level, msg, args...)
	}
}

// handshakes bounds the handshakes of one new connection that keep landing on a protocol older
// than the Remote's (see open).
const handshakes = 3

// connect makes a new connection: it dials, starts and initializes a client (see open), opens
// its notification stream when there is one to open, and lists the tools. Tools of known that
// did not change are kept (the same values), so that assistants need not prepare them again.
// It must be called with lock held, or before the Remote is shared.
func (r *Remote) connect(ctx context.Context, known []tool.Tool) (*conn, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(r.closing, cancel)() // Close cuts it short
	cn, res, err := r.open(ctx)
	if err != nil {
		return nil, err
	}
	c := cn.c
	if mcp.IsModernProtocol(res.ProtocolVersion) && res.Capabilities.Tools != nil && res.Capabilities.Tools.ListChanged {
		if err := cn.listen(ctx, r); err != nil {
			_ = cn.close()
			return nil, fmt.Errorf("MCP server %q: opening its notification stream: %w", cn.server, err)
		}
	}
	at := cn.changed.Load()
	tools, err := r.list(ctx, c, known)
	if err != nil {
		_ = cn.close()
		return nil, fmt.Errorf("MCP server %q: %w", cn.server, err)
	}
	cn.tools.Store(&toolList{tools: tools, at: at})
	return cn, nil
}

// open dials, starts and initializes a client, on a protocol no older than r.protocol when
// it can. mcp-go's Initialize falls back to the handshake of the protocols before 2026-07-28
// whenever server/discover fails, a dropped connection included, and does not say why: a
// connection that lands on an older protocol than the Remote had is closed and made again,
// handshakes times in all. A new client is dialed each time, rather than initializing the
// same one again, because the fallback left it a session of the older protocol. There is no
// pause between the handshakes: the request that failed took its broken connection with it.
// The last one is kept whatever its protocol, with a warning: the server may really have gone
// back to an older protocol.
func (r *Remote) open(ctx context.Context) (*conn, *mcp.InitializeResult, error) {
	for attempt := 1; ; attempt++ {
		cn, res, err := r.handshake(ctx)
		if err != nil || res.ProtocolVersion >= r.protocol {
			return cn, res, err
		}
		if attempt == handshakes {
			r.logf(ctx, slog.LevelWarn, "mcpbridge: the MCP server's new connection is on an older protocol than before; its notifications may not reach the Remote",
				"server", cn.server, "protocol", res.ProtocolVersion, "before", r.protocol, "handshakes", handshakes)
			return cn, res, nil
		}
		r.logf(ctx, slog.LevelInfo, "mcpbridge: the new connection to the MCP server fell back to an older protocol; connecting again",
			"server", cn.server, "protocol", res.ProtocolVersion, "before", r.protocol)
		_ = cn.c.Close() // it has no notification stream yet
	}
}

// handshake dials, starts and initializes a client, as a connection whose tools are not yet
// listed.
func (r *Remote) handshake(ctx context.Context) (*conn, *mcp.InitializeResult, error) {
	c, err := r.dial(r.life)
	if err != nil {
		return nil, nil, fmt.Errorf("dialing: %w", err)
	}
	if c == nil {
		return nil, nil, errors.New("dialing gave no client")
	}
	cn := &conn{c: c, listing: make(chan struct{}, 1), acked: make(chan struct{})}
	c.OnNotification(cn.notified)
	if err := c.Start(r.life); err != nil {
		_ = c.Close()
		return nil, nil, fmt.Errorf("starting the client: %w", err)
	}
	var init mcp.InitializeRequest
	init.Params.ClientInfo = mcp.Implementation{Name: "cadre-mcpbridge", Version: "1"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		_ = c.Close()
		return nil, nil, fmt.Errorf("initializing: %w", err)
	}
	cn.server, cn.protocol = res.ServerInfo.Name, res.ProtocolVersion
	return cn, res, nil
}

// toolsOf returns cn's tools, listed again when the server said they changed since.
func (r *Remote) toolsOf(ctx context.Context, cn *conn) ([]tool.Tool, error) {
	if l := cn.tools.Load(); l.at == cn.changed.Load() {
		return l.tools, nil
	}
	select {
	case cn.listing <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-cn.listing }()
	l, at := cn.tools.Load(), cn.changed.Load()
	if l.at == at { // listed by another run meanwhile
		return l.tools, nil
	}
	tools, err := r.list(ctx, cn.c, l.tools)
	if err != nil {
		return nil, fmt.Errorf("MCP server %q: %w", cn.server, err)
	}
	cn.tools.Store(&toolList{tools: tools, at: at})
	return tools, nil
}

// list lists the server's tools through c, as tools that call them through r. A tool of
// known with the same name, description and schema is kept in place of the new one.
func (r *Remote) list(ctx context.Context, c *client.Client, known []tool.Tool) ([]tool.Tool, error) {
	listed, err := listTools(ctx, c, viaRemote{r}, r.prefix)
	if err != nil {
		return nil, err
	}
	old := make(map[string]*remoteTool, len(known))
	for _, t := range known {
		if rt, ok := t.(*remoteTool); ok {
			old[rt.name] = rt
		}
	}
	tools := make([]tool.Tool, len(listed))
	for i, t := range listed {
		tools[i] = t
		if o := old[t.name]; o != nil && o.remote == t.remote && o.description == t.description && bytes.Equal(o.schema, t.schema) {
			tools[i] = o
		}
	}
	return tools, nil
}

// viaRemote calls the server's tools through the Remote, on its connection of the moment.
type viaRemote struct{ r *Remote }

func (v viaRemote) CallTool(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return v.r.callTool(ctx, req)
}

// notified takes the server's notifications. It runs on the client's reading goroutine, so
// it only records them.
func (cn *conn) notified(n mcp.JSONRPCNotification) {
	switch n.Method {
	case mcp.MethodNotificationToolsListChanged:
		cn.changed.Add(1)
	case mcp.MethodNotificationSubscriptionsAcknowledged:
		cn.ackOnce.Do(func() { close(cn.acked) })
	}
}

// listen opens the notification stream of protocol 2026-07-28 for the tool list's changes,
// and waits until the server has acknowledged it, so that no change after the listing that
// follows is missed. The stream ending before Close loses the connection.
func (cn *conn) listen(ctx context.Context, r *Remote) error {
	lctx, stop := context.WithCancel(r.life)
	cn.stopListen, cn.listening = stop, make(chan struct{})
	go func() {
		defer close(cn.listening)
		err := cn.c.Listen(lctx, mcp.SubscriptionFilter{ToolsListChanged: true})
		if lctx.Err() != nil {
			return // closed
		}
		if err == nil {
			err = errors.New("the server ended it")
		}
		cn.lose(r, fmt.Errorf("its notification stream ended: %w", err))
	}()
	select {
	case <-cn.acked:
		return nil
	case <-cn.listening:
		if l := cn.lost.Load(); l != nil {
			return l.err
		}
		return ErrClosed // Close ended it
	case <-ctx.Done():
		return ctx.Err()
	}
}

// lose records that the connection is lost: the next use of the Remote connects again.
func (cn *conn) lose(r *Remote, err error) {
	if cn.lost.CompareAndSwap(nil, &loss{err: err}) {
		r.logf(r.life, slog.LevelWarn, "mcpbridge: the connection to the MCP server is lost", "server", cn.server, "err", err)
	}
}

// lostBy reports whether a request failed with err because the connection is lost, or was
// closed under it when another request found it lost.
func (cn *conn) lostBy(err error) bool {
	return lostConnection(err) || cn.closed.Load()
}

// close ends the notification stream, if any, and closes the client.
func (cn *conn) close() error {
	cn.closed.Store(true)
	if cn.stopListen != nil {
		cn.stopListen()
		<-cn.listening
	}
	return cn.c.Close()
}

// lostConnection reports whether err says that the connection to the server is lost: the
// server forgot the session (HTTP 404), refused or broke the connection, or exited.
func lostConnection(err error) bool {
	for _, target := range []error{
		transport.ErrSessionTerminated, transport.ErrTransportClosed,
		syscall.ECONNREFUSED, syscall.ECONNRESET, syscall.EPIPE,
		io.EOF, io.ErrUnexpectedEOF, io.ErrClosedPipe,
	} {
		if errors.Is(err, target) {
			return true
		}
	}
	// net/http's error for a kept-alive connection the server closed as a request went out:
	// it has no exported value.
	return strings.Contains(err.Error(), "server closed idle connection")
}
