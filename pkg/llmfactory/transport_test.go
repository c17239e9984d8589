package llmfactory

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"
)

// The transport's rules, one by one: what the wire tests cannot pin down (the waits are random,
// the boundaries rare).

func TestBackoffGrowsAndIsCapped(t *testing.T) {
	t.Parallel()
	tr := &transport{retry: RetryPolicy{MaxAttempts: 10, InitialBackoff: 100 * time.Millisecond, MaxBackoff: time.Second}}
	for _, tc := range []struct {
		attempt  int
		min, max time.Duration
	}{
		{1, 50 * time.Millisecond, 100 * time.Millisecond},
		{2, 100 * time.Millisecond, 200 * time.Millisecond},
		{4, 400 * time.Millisecond, 800 * time.Millisecond},
		{5, 500 * time.Millisecond, time.Second},  // 1.6 s, capped
		{70, 500 * time.Millisecond, time.Second}, // the shift overflows: capped too
	} {
		for range 50 {
			if d := tr.backoff(tc.attempt); d < tc.min || d > tc.max {
				t.Fatalf("backoff(%d) = %v, want within [%v, %v]", tc.attempt, d, tc.min, tc.max)
			}
		}
	}
}

func TestRetryAfterParsing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		header string
		want   time.Duration
		ok     bool
	}{
		{"", 0, false},
		{"0", 0, true},
		{"5", 5 * time.Second, true},
		{" 7 ", 7 * time.Second, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{"Mon, 02 Jan 2006 15:04:05 GMT", 0, true}, // in the past: at once
	} {
		got, ok := retryAfter(tc.header)
		if got != tc.want || ok != tc.ok {
			t.Errorf("retryAfter(%q) = %v, %v; want %v, %v", tc.header, got, ok, tc.want, tc.ok)
		}
	}
}

func TestRetryAfterAtTheCap(t *testing.T) {
	t.Parallel()
	tr := &transport{retry: RetryPolicy{MaxAttempts: 3, InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond}}
	answer := func(after string) *http.Response {
		return &http.Response{StatusCode: 429, Header: http.Header{"Retry-After": {after}}}
	}
	if wait, retry := tr.retryable(answer("60"), nil, 1); !retry || wait != maxRetryAfter {
		t.Errorf("Retry-After at the cap: wait %v, retry %v; want %v, true", wait, retry, maxRetryAfter)
	}
	if _, retry := tr.retryable(answer("61"), nil, 1); retry {
		t.Error("Retry-After past the cap is waited for; want no retry")
	}
	if _, retry := tr.retryable(answer("0"), nil, 3); retry {
		t.Error("a retry past MaxAttempts")
	}
	if _, retry := tr.retryable(&http.Response{StatusCode: 400}, nil, 1); retry {
		t.Error("a 400 is retried")
	}
}

func TestSleep(t *testing.T) {
	t.Parallel()
	if err := sleep(context.Background(), 0); err != nil {
		t.Errorf("sleep(0) = %v", err)
	}
	if err := sleep(context.Background(), -time.Second); err != nil {
		t.Errorf("sleep(-1s) = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sleep(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("sleep(0) in a cancelled context = %v, want its error", err)
	}
	start := time.Now()
	if err := sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Errorf("sleep(1h) in a cancelled context = %v after %v, want its error at once", err, time.Since(start))
	}
}

func TestARetryResendsABodyWithoutGetBody(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		n := len(bodies)
		mu.Unlock()
		if n == 1 {
			w.WriteHeader(503)
			return
		}
		w.WriteHeader(200)
	}))
	defer srv.Close()
	tr := &transport{base: srv.Client().Transport, retry: RetryPolicy{MaxAttempts: 2, InitialBackoff: time.Millisecond, MaxBackoff: time.Millisecond}}
	req, err := http.NewRequest("POST", srv.URL, io.NopCloser(strings.NewReader(`{"q":1}`)))
	if err != nil {
		t.Fatal(err)
	}
	req.GetBody = nil // a body that cannot be read again by itself
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if len(bodies) != 2 || bodies[0] != `{"q":1}` || bodies[1] != `{"q":1}` {
		t.Errorf("bodies received = %q; want the same body twice", bodies)
	}
}

func TestNoteTellsAnAnswerFromAFailure(t *testing.T) {
	t.Parallel()
	tr := &transport{}
	for _, tc := range []struct {
		status   int
		noted    bool
		answered int
	}{{200, false, 200}, {399, false, 399}, {400, true, 0}, {503, true, 0}} {
		var f failure
		resp := &http.Response{StatusCode: tc.status, Status: http.StatusText(tc.status), Body: io.NopCloser(strings.NewReader(`{"error":{"message":"no"}}`))}
		tr.note(withFailure(context.Background(), &f), resp, nil)
		if f.noted != tc.noted || f.answered != tc.answered || tc.noted && (f.status != tc.status || f.message != "no") {
			t.Errorf("status %d: %+v; want noted %v, answered %d", tc.status, f, tc.noted, tc.answered)
		}
	}
}

func TestAnAnswerCutShortIsNoted(t *testing.T) {
	t.Parallel()
	tr := &transport{}
	var f failure
	b := &watchedBody{ReadCloser: io.NopCloser(strings.NewReader("whole")), cancel: func() {}, t: tr, f: &f}
	if _, err := io.ReadAll(b); err != nil || f.noted {
		t.Errorf("a body read to its end: err %v, failure %+v; want nothing noted", err, f)
	}
	cut := &watchedBody{ReadCloser: io.NopCloser(iotest.ErrReader(io.ErrUnexpectedEOF)), cancel: func() {}, t: tr, f: &f}
	if _, err := io.ReadAll(cut); err == nil || !f.noted || !strings.Contains(f.message, "cut short") {
		t.Errorf("a body cut short: err %v, failure %+v; want it noted as cut short", err, f)
	}
	first := f.message
	again := &watchedBody{ReadCloser: io.NopCloser(iotest.ErrReader(errors.New("later"))), cancel: func() {}, t: tr, f: &f}
	_, _ = io.ReadAll(again)
	if f.message != first {
		t.Errorf("a later error replaced the first noted: %q", f.message)
	}
}

func TestScrubRemovesShortKeysButNotNothing(t *testing.T) {
	t.Parallel()
	if got := (&transport{key: "abcd"}).scrub("key abcd here"); got != "key [redacted] here" {
		t.Errorf("a 4-character key: %q", got)
	}
	if got := (&transport{key: "abc"}).scrub("abc"); got != "abc" {
		t.Errorf("a 3-character key, too short to tell from text: %q", got)
	}
	if got := (&transport{}).scrub("text"); got != "text" {
		t.Errorf("no key: %q", got)
	}
}

// TestProviderMessage: a failure's message is the provider's own words wherever its error body
// keeps them; a body of other words is quoted up to 300 bytes; an empty one gives the status.
func TestProviderMessage(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 300)
	for _, tc := range []struct{ body, want string }{
		{`{"error":{"message":"model not found","type":"invalid_request_error"}}`, "model not found"},
		{`{"error":"invalid api key"}`, "invalid api key"},
		{`{"message":"quota exceeded"}`, "quota exceeded"},
		{`{"error":"","message":"quota exceeded"}`, "quota exceeded"},
		{`{"error":{"code":5},"message":"not found"}`, "not found"},
		{`{"error":{}}`, `{"error":{}}`},
		{"  upstream connect error  \n", "upstream connect error"},
		{"", "502 Bad Gateway"},
		{" \n", "502 Bad Gateway"},
		{long, long},
		{long + "y", long + "..."},
	} {
		if got := providerMessage("502 Bad Gateway", []byte(tc.body)); got != tc.want {
			t.Errorf("the message of %q = %q, want %q", tc.body, got, tc.want)
		}
	}
}
