package agui_test

import (
	"net/http/httptest"
	"testing"

	"github.com/cadrehq/cadre/pkg/agui"
)

func TestWriter(t *testing.T) {
	t.Parallel()
	rec := httptest.NewRecorder()
	w := agui.NewWriter(rec)
	if err := w.Write(agui.RunStarted{ThreadID: "t", RunID: "r"}); err != nil {
		t.Fatal(err)
	}
	if !rec.Flushed {
		t.Error("the first event was not flushed")
	}
	if err := w.Write(agui.TextMessageContent{MessageID: "m", Delta: "a\n\nb"}); err != nil {
		t.Fatal(err)
	}
	want := "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n" +
		"data: {\"type\":\"TEXT_MESSAGE_CONTENT\",\"messageId\":\"m\",\"delta\":\"a\\n\\nb\"}\n\n"
	if got := rec.Body.String(); got != want {
		t.Errorf("stream:\n got %q\nwant %q", got, want)
	}
	if ct := rec.Header().Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("Content-Type %q", ct)
	}
}
