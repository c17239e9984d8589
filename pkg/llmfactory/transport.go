package llmfactory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cadrehq/cadre/pkg/model"
)

// transport is the http.RoundTripper of every client the factory makes. It retries what may
// succeed later (429, 5xx, connection errors) with exponential backoff and jitter, honouring
// Retry-After; it never retries a 4xx request error. It bounds each attempt by the provider's
// timeout. And it notes how the final attempt failed — the HTTP status and the provider's own
// message, with the key scrubbed — for the model call that sent it (see failureFrom), since
// langchaingo's clients turn those into strings.
//
// Retries happen below the model call: a retried attempt is the same model request, so it is
// not a new request in usage, and no tool runs again.
//
// It also writes the model's settings that the client cannot send, and a request's output
// schema, into the bodies of its chat requests (see bodyEdit), once, before the first attempt;
// and it reads what the client would drop of their answers (see thinking.go and refusal.go).
type transport struct {
	base    http.RoundTripper
	retry   RetryPolicy
	timeout time.Duration // per attempt; 0 for none
	key     Secret        // scrubbed from provider messages
	edit    *bodyEdit     // the model's settings for its request bodies; nil for a type without an API
}

// maxRetryAfter is the longest Retry-After the transport waits for; past it, the 429 or 503
// is returned at once, so that a fallback model can answer instead.
const maxRetryAfter = time.Minute

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx := req.Context()
	thinking := t.edit.thinking(req)
	req, err := t.replayable(req, thinking)
	if err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		resp, err := t.attempt(req, attempt)
		wait, retry := t.retryable(resp, err, attempt)
		if retry && ctx.Err() == nil {
			if resp != nil {
				io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
				resp.Body.Close()
			}
			if sleep(ctx, wait) == nil {
				continue
			}
			return nil, ctx.Err()
		}
		t.note(ctx, resp, err)
		if err == nil && resp.StatusCode/100 == 2 {
			if thinking != nil {
				thinkingResponse(resp, thinking)
			}
			t.edit.answer(req, resp)
		}
		return resp, err
	}
}

// replayable returns req with a body that can be sent again, edited for the model when req
// is one of its chat requests with settings or an output schema to write (t.edit). A request
// without a body, or whose body can be had again (GetBody, as http.NewRequest sets for a
// bytes.Reader) and needs no edit, is returned as it is.
func (t *transport) replayable(req *http.Request, thinking *thinkingCall) (*http.Request, error) {
	edit := t.edit.applies(req)
	if req.Body == nil || req.GetBody != nil && !edit {
		return req, nil
	}
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	if edit {
		if body, err = t.edit.apply(body, thinking, model.OutputSchemaOf(req.Context())); err != nil {
			return nil, fmt.Errorf("llmfactory: writing the model's settings into the request: %w", err)
		}
	}
	req = req.Clone(req.Context())
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	req.ContentLength = int64(len(body))
	return req, nil
}

// attempt sends req once, within the provider's timeout.
func (t *transport) attempt(req *http.Request, n int) (*http.Response, error) {
	r := req
	if n > 1 && req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r = req.Clone(req.Context())
		r.Body = body
	}
	cancel := context.CancelFunc(func() {})
	if t.timeout > 0 {
		var ctx context.Context
		ctx, cancel = context.WithTimeout(r.Context(), t.timeout)
		r = r.WithContext(ctx)
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		cancel()
		return nil, err
	}
	resp.Body = &watchedBody{ReadCloser: resp.Body, cancel: cancel, t: t, f: failureOf(req.Context())}
	return resp, nil
}

// retryable reports whether the attempt's outcome may be retried, and after how long.
func (t *transport) retryable(resp *http.Response, err error, attempt int) (time.Duration, bool) {
	if attempt >= t.retry.MaxAttempts {
		return 0, false
	}
	backoff := t.backoff(attempt)
	if err != nil {
		// A connection that failed or timed out may work the next time; a host that does not
		// exist or a certificate that is not valid will not.
		return backoff, transient(err)
	}
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500 {
		return 0, false
	}
	if after, ok := retryAfter(resp.Header.Get("Retry-After")); ok {
		return after, after <= maxRetryAfter
	}
	return backoff, true
}

// backoff is the wait before attempt+1: exponential from the initial backoff, capped, with
// jitter over its upper half.
func (t *transport) backoff(attempt int) time.Duration {
	d := t.retry.InitialBackoff << (attempt - 1)
	if d > t.retry.MaxBackoff || d <= 0 {
		d = t.retry.MaxBackoff
	}
	return d/2 + rand.N(d/2+1)
}

// retryAfter parses a Retry-After header: seconds, or an HTTP date.
func retryAfter(v string) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(time.Until(at), 0), true
	}
	return 0, false
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// transient reports whether a failed attempt may succeed if sent again: a refused or reset
// connection, a timeout, a connection cut short. Not a cancelled request, an unknown host, or
// a TLS certificate error: those are configuration errors.
func transient(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return dns.IsTimeout || dns.IsTemporary
	}
	var ne net.Error
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// watchedBody is a response body that ends its attempt's timeout when closed, and notes a
// body cut short (a broken connection, the timeout) as the request's failure: the clients
// report such errors without their cause.
type watchedBody struct {
	io.ReadCloser
	cancel context.CancelFunc
	t      *transport
	f      *failure
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF && b.f != nil && !b.f.noted {
		*b.f = failure{noted: true, transient: transient(err), message: b.t.scrub("the answer was cut short: " + connectionError(err))}
	}
	return n, err
}

func (b *watchedBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// failure is how a model call's last HTTP attempt failed, noted by the transport.
type failure struct {
	noted     bool
	status    int    // 0 when the provider never answered
	transient bool   // with status 0: the connection failed in a way that may not last
	message   string // the provider's words, or the connection error; key scrubbed
	cause     error  // the connection error
	answered  int    // the 2xx status of an answer handed to the client (not a failure)
}

func failureOf(ctx context.Context) *failure {
	f, _ := ctx.Value(failureKey{}).(*failure)
	return f
}

type failureKey struct{}

// withFailure returns a context under which the transport notes a failure in f.
func withFailure(ctx context.Context, f *failure) context.Context {
	return context.WithValue(ctx, failureKey{}, f)
}

// note records a failed final attempt in the request's failure, if it has one. The response
// body is read (up to a limit) and put back, so that the client reads it as it came.
func (t *transport) note(ctx context.Context, resp *http.Response, err error) {
	f := failureOf(ctx)
	if f == nil {
		return
	}
	if err != nil {
		*f = failure{noted: true, transient: transient(err), message: t.scrub(connectionError(err)), cause: err}
		return
	}
	if resp.StatusCode < 400 {
		f.answered = resp.StatusCode
		return
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), resp.Body), resp.Body}
	*f = failure{noted: true, status: resp.StatusCode, message: t.scrub(providerMessage(resp.Status, body))}
}

// providerMessage finds the provider's own words in an error body: OpenAI's and Anthropic's
// {"error": {"message": ...}}, Google's {"error": {"message": ...}} too, or {"message": ...};
// else the start of the body, or the status.
func providerMessage(status string, body []byte) string {
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &e) == nil {
		var nested struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(e.Error, &nested) == nil && nested.Message != "" {
			return nested.Message
		}
		var s string
		if json.Unmarshal(e.Error, &s) == nil && s != "" {
			return s
		}
		if e.Message != "" {
			return e.Message
		}
	}
	text := strings.TrimSpace(string(body))
	if text == "" {
		return status
	}
	if len(text) > 300 {
		text = text[:300] + "..."
	}
	return text
}

// connectionError describes a failed attempt without the request's URL (which may carry a
// key in its query, as Google's API does).
func connectionError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	return err.Error()
}

// scrub removes the key from s.
func (t *transport) scrub(s string) string {
	if k := t.key.Reveal(); len(k) >= 4 {
		s = strings.ReplaceAll(s, k, "[redacted]")
	}
	return s
}
