// Package llmtest provides models for testing programs built on langchaingo and cadre, without
// a network or a provider account.
//
// [Scripted] answers requests with a list of replies, in order; [FuncModel] computes each reply
// with a function of the request. Both implement llms.Model, are safe for concurrent use, and
// record the requests they receive ([Scripted.Requests]) so that a test can check what the
// model was sent: the messages, the tools offered, the tool choice, the call options.
//
// A [Reply] is a text answer ([Text]), a turn of tool calls ([Calls] of [Call]), an error
// ([Fail]), or a whole response shaped as some provider shapes it. A reply can report token
// usage and take time (Latency) to answer, honouring the request's context.
//
// [Synthetic] needs no script: for any assistant, it first calls each tool offered once, with
// arguments generated from the tool's JSON Schema, then answers through final_result (or with
// JSON for a schema that ends the system prompt, or with a fixed text), every value valid for its
// schema and determined by a seed ([WithSeed]). It decides from each request's messages alone,
// so concurrent runs can share it. Use it to test the wiring of an agent (tools, output type,
// delegation, limits) where the model's choices do not matter.
//
// To test the wire, [NewOpenAIServer] and [NewAnthropicServer] start fake OpenAI Chat
// Completions and Anthropic Messages APIs on 127.0.0.1, for langchaingo's real clients: a
// [Server] answers each request with a model's reply (a Scripted or FuncModel, which sees the
// request converted to messages and call options), rendered in the provider's JSON or stream.
// It rejects, with the provider's status and error JSON, the requests the real API rejects —
// a tool call not answered in the next message, a result for an unknown call, an empty text
// block, a tool schema that is not an object... — so that a test fails where production
// would. It records the raw bodies it receives, can require an API key ([WithAPIKey]), and can
// be made to fail ([Server.Fault]): an error status with Retry-After, a delay, a body cut in
// the middle.
package llmtest
