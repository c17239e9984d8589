package model

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
)

// ProviderError is a provider's refusal or failure, without any key: an error.
type ProviderError struct {
	Provider, Model string
	Status          int    // HTTP status; 0 when the provider never answered; 2xx when its answer could not be read
	Message         string // the provider's own words
	// Err is what the failure means for the run, where cadre knows it: ErrOutputSchema for a
	// request refused for its output schema; nil otherwise. errors.Is finds it. It is not part
	// of the error's JSON: a sentinel has none.
	Err error `json:"-"`
}

// Unwrap returns e.Err.
func (e *ProviderError) Unwrap() error { return e.Err }

func (e *ProviderError) Error() string {
	who := fmt.Sprintf("%s model %q", e.Provider, e.Model)
	if e.Provider == "" {
		who = fmt.Sprintf("model %q", e.Model)
	}
	if e.Status == 0 {
		return fmt.Sprintf("%s: no answer: %s", who, e.Message)
	}
	return fmt.Sprintf("%s: HTTP %d: %s", who, e.Status, e.Message)
}

// CanFallback reports whether another model could succeed where err failed: 5xx, 429 after
// retries, timeouts, refused connections, an answer that could not be read (a ProviderError
// with a 2xx status). Not 4xx request errors, not configuration errors, not a cancelled
// context.
func CanFallback(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var pe *ProviderError
	if errors.As(err, &pe) {
		return pe.Status == 0 || pe.Status >= 200 && pe.Status < 300 || pe.Status == 408 || pe.Status == 429 || pe.Status >= 500
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}
