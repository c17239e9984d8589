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
package llmtest
