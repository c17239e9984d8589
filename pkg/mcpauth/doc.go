// Package mcpauth makes an MCP endpoint served over streamable HTTP an OAuth 2.1 resource
// server, as MCP's authorization specification asks.
//
// [Authorizer.Protect] lets a request through only with a bearer access token (a JWT, RFC 9068)
// that the endpoint's authorization server signed for it, and answers any other with the
// challenge (RFC 6750, RFC 9728) that tells the client where to get one; it puts the token's
// claims in the request's context ([ClaimsFromContext]), where mcp-go's streamable HTTP server
// hands them to every prompt and tool handler, and keeps each MCP session to the caller that
// began it ([WithSessionOwner]). [Authorizer.Metadata] serves the endpoint's Protected
// Resource Metadata. [ClaimIdentity] takes a chat's tenant and user from the claims, for
// mcpbridge.WithIdentity, so that each caller's chats stay theirs.
//
// The package stands apart from mcpbridge, which serves and imports MCP prompts and tools, so
// that only a program that checks tokens links the JWT libraries it needs (golang-jwt, jwkset,
// keyfunc): neither package imports the other. Protect wraps any http.Handler, such as mcp-go's
// server.NewStreamableHTTPServer; with mcpbridge.CancellationHandler, Protect goes outside,
// auth.Protect(mcpbridge.CancellationHandler(h)), so that nothing of a request without a valid
// token is read past its headers (CancellationHandler reads the body of every POST).
//
// An Authorizer keeps the sessions' callers in memory and refreshes the issuer's keys while the
// context given to [NewAuthorizer] lasts; the package keeps no other state.
package mcpauth
