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
// JSON for the output schema the request's context carries or for a schema that ends the
// system prompt, or with a fixed text), every value valid for its schema and determined by a
// seed ([WithSeed]). It decides from each request alone, so concurrent runs can share it. Use it to test the wiring of an agent (tools, output type,
// delegation, limits) where the model's choices do not matter.
//
// To test the wire too — langchaingo's real provider clients, retries, fallback — put one of
// these models behind a fake provider API of [github.com/cadrehq/cadre/pkg/providertest].
package llmtest
