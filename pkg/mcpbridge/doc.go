// Package mcpbridge connects cadre to the Model Context Protocol, both ways, on mcp-go.
//
// Serving: [AddPrompt] registers an assistant (any [assistant.Agent]) on an mcp-go server as
// a prompt with the arguments "input" and "chat_id"; getting the prompt runs the assistant and
// returns the user's turn and the assistant's answer. A chat_id runs the assistant in that
// chat (chat.WithID), which an assistant with a chat store (assistant.WithStore) continues;
// [WithIdentity] takes the chat's tenant and user from the request's context, so that one
// tenant's or user's chat_id never reaches another's chat. [AddTool] registers a [tool.Tool] (a
// tool.Func, an assistant wrapped by assistant.AsTool, any tool) as an MCP tool with the
// tool's argument schema; a [tool.Typed] also declares its output schema and returns its
// result as structured content beside the text. [AddSkills] serves Agent Skills (package
// skill) as MCP resources: each skill's SKILL.md and files, for clients to read. The server is
// the caller's: the bridge adds to it and wraps nothing, so the caller picks the transport
// (stdio, streamable HTTP) and the server's options.
//
// A served run reports its progress to a client that asks for it with a progress token:
// notifications/progress, one per step of the run and of the runs it delegates to, such as
// "supervisor: running researcher" (AddPrompt does it for any agent; a tool reports through
// [Reporting], which wraps the assistant given to assistant.AsTool). A served run stops, with
// every run it delegated to, when its client cancels the request (notifications/cancelled) or
// goes away (the end of stdin, a closed HTTP connection): mcp-go ends the request's context.
// Over streamable HTTP, wrap the handler with [CancellationHandler]: a client that ends its
// session (DELETE) then ends its runs in progress, and no client can cancel another's.
//
// The bridge does not rely on the server's options to stay safe: it checks every tool call's
// arguments against the tool's schema itself and answers a mismatch with an isError result
// naming the fields; it answers a tool's error with an isError result; and it recovers a panic
// in a tool or an agent, telling the client only that an internal error happened and the
// error handler ([WithErrorHandler]) the rest. One bad request never stops the server.
//
// Authorizing callers is left to package mcpauth, so that this package links no JWT library:
// its Authorizer makes a streamable HTTP endpoint an OAuth 2.1 resource server, and its
// ClaimIdentity takes a chat's tenant and user for [WithIdentity] from the claims of the
// request's bearer token.
//
// Using: [Tools] lists the tools of an MCP server that an mcp-go client is connected to and
// returns them as []tool.Tool for an assistant's WithTools, with names made valid for model
// APIs and an optional prefix ([WithPrefix]) so that the tools of two servers cannot collide.
// [Connect] keeps the connection itself: its [Remote] is an assistant.ToolSet whose tools every
// run reads as they are when it starts — listed again when the server says they changed
// (notifications/tools/list_changed), never otherwise — and it connects again, once, when the
// server restarted or forgot the session.
//
// Apart from a Remote, which owns its connection until Close, the package keeps no state of
// its own: everything lives in the server, the client and the values the functions return.
package mcpbridge
