// Package callbacktest provides what a test needs to see the events of runs: a [Recorder],
// a callback.Handler that keeps every event it is given, in the way net/http/httptest's
// ResponseRecorder keeps what a handler wrote.
//
// Give a Recorder to an assistant (assistant.WithCallback) or to one run (in Input.Options),
// run it, and read what happened:
//
//	rec := callbacktest.NewRecorder()
//	res, err := a.Run(ctx, assistant.Input{Prompt: "…", Options: []assistant.Option{assistant.WithCallback(rec)}})
//	for _, e := range rec.Of(callback.ToolError) { … }
package callbacktest
