package agui

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// ContentType is the media type of an AG-UI event stream over SSE, which HttpAgent reads when
// the response's Content-Type is not the protobuf one.
const ContentType = "text/event-stream"

// Writer writes events to an HTTP response as server-sent events, one "data:" line of JSON
// and a blank line per event, flushing each so the client sees it at once. A Writer is not
// safe for concurrent use: one goroutine writes a run's stream.
type Writer struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// NewWriter returns a Writer on w and sets the response's Content-Type to [ContentType] and
// Cache-Control to no-cache; it writes nothing, so the caller may still set headers and the
// status before the first Write.
func NewWriter(w http.ResponseWriter) *Writer {
	w.Header().Set("Content-Type", ContentType)
	w.Header().Set("Cache-Control", "no-cache")
	return &Writer{w: w, rc: http.NewResponseController(w)}
}

// Write writes e as one SSE event, "data: <json>\n\n", and flushes it. The JSON is on one
// line, as HttpAgent's parser splits events at blank lines. An error is the event's encoding
// or the connection's (a client gone): the stream is then over. A response that cannot flush
// is written all the same.
func (w *Writer) Write(e Event) error {
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	frame := make([]byte, 0, len(data)+8)
	frame = append(frame, "data: "...)
	frame = append(frame, data...)
	frame = append(frame, '\n', '\n')
	if _, err := w.w.Write(frame); err != nil {
		return fmt.Errorf("agui: write %s: %w", e.Type(), err)
	}
	if err := w.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return fmt.Errorf("agui: flush %s: %w", e.Type(), err)
	}
	return nil
}
