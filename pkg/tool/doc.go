// Package tool defines what an assistant can call: the [Tool] interface, the [Typed] tools whose
// result is a JSON object of a known schema, and [Func], which makes a tool of a typed Go
// function the way http.HandlerFunc makes a handler of a function.
//
// A tool's arguments are always a JSON object described by its [Tool.Schema]. The assistant
// checks the model's arguments against that schema before it calls the tool, so a tool sees only
// arguments that match it; a tool that finds more wrong with them returns an error wrapping
// [ErrInvalidArgs] and the model is asked to fix its call.
//
// A [Set] is tools that go together and may change while an assistant lives; a set may also be
// a [FixedSet], whose tools never change, and a [Prompter], which writes a part of each run's
// system prompt from the conversation (package skill's ToolSet is both). The context of every
// tool call holds the [Call]: its ID, and the run's messages so far ([CallOf], [Messages]).
package tool
