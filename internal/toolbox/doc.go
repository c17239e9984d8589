// Package toolbox holds an assistant's tools by name, each with the JSON Schema of its
// arguments compiled once, and calls them as a run does: it finds the tool the model named,
// checks the arguments against the tool's schema, and turns a panic of the tool into an error
// (PanicError) that the model reads and an event handler takes the stack from. Its errors are
// written for the model: they say what was wrong and how to call again.
//
// A Box is what a run's tool-call chain ends in; the chain itself — events, middleware,
// approval, limits — is the assistant's.
package toolbox
