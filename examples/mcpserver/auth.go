package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"

	"github.com/cadrehq/cadre/pkg/mcpauth"
	"github.com/mark3labs/mcp-go/server"
)

// The claims of an access token that say whose chats a caller reaches.
const (
	tenantClaim = "tenant"
	userClaim   = "sub"
)

// authorize returns the Authorizer that checks the callers' tokens when set names an issuer.
//
// Without an issuer it returns nil, and the server believes the X-Tenant and X-User headers,
// which any caller can send. It does so only on a loopback address, where every caller is a
// process of this machine, as over stdio; anywhere else a caller could read any tenant's chats
// by naming it, so authorize refuses. A proxy that authenticates callers and sets the headers
// runs on the same machine and reaches the server on loopback.
func authorize(ctx context.Context, set settings, addr net.Addr, stderr io.Writer) (*mcpauth.Authorizer, error) {
	if set.issuer == "" {
		if tcp, ok := addr.(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
			return nil, fmt.Errorf("refusing to serve on %s without -issuer: the server would believe the X-Tenant and X-User headers of any caller, who could then read any tenant's chats; give -issuer (and -audience) to check access tokens, or listen on 127.0.0.1", addr)
		}
		fmt.Fprintln(stderr, "mcpserver: no -issuer: the X-Tenant and X-User headers say who calls, and are believed only because no issuer is configured and the server listens on loopback alone; give -issuer to check access tokens instead")
		return nil, nil
	}
	resource := set.audience
	if resource == "" {
		resource = "http://" + addr.String() + "/mcp"
	}
	refusals := log.New(stderr, "mcpserver: ", log.LstdFlags)
	auth, err := mcpauth.NewAuthorizer(ctx, resource, set.issuer,
		mcpauth.WithRefusalHandler(func(r *http.Request, err error) {
			refusals.Printf("refused %s %s from %s: %v", r.Method, r.URL.Path, r.RemoteAddr, err)
		}),
		// A session is its tenant's and user's, as a chat is: another tenant's user of the same
		// subject cannot use, cancel in or end it.
		mcpauth.WithSessionOwner(tenantClaim, userClaim))
	if err != nil {
		return nil, fmt.Errorf("%w (-audience gives the URL clients reach /mcp at)", err)
	}
	fmt.Fprintf(stderr, "mcpserver: callers need an access token of %s for %s; a chat belongs to the tenant of its %q claim and the user of its %q; where to get one: %s\n",
		set.issuer, resource, tenantClaim, userClaim, auth.MetadataURL())
	return auth, nil
}

// callerFromToken puts the caller that the request's checked token names in its context
// (server.WithHTTPContextFunc), or why it names nobody, which fails the gets that continue a
// chat.
func callerFromToken(ctx context.Context, r *http.Request) context.Context {
	tenant, user, err := mcpauth.ClaimIdentity(tenantClaim, userClaim)(r.Context())
	return context.WithValue(ctx, callerKey{}, caller{tenant: tenant, user: user, err: err})
}

// mountMetadata serves the resource's metadata where its challenges point and, since this
// server has one resource, at the root's well-known address too, where clients that got no
// challenge look last.
func mountMetadata(mux *http.ServeMux, auth *mcpauth.Authorizer) {
	mux.Handle(auth.MetadataPath(), auth.Metadata())
	if auth.MetadataPath() != server.WellKnownProtectedResourcePath {
		mux.Handle(server.WellKnownProtectedResourcePath, auth.Metadata())
	}
}
