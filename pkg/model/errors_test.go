package model_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/cadrehq/cadre/pkg/model"
)

func TestCanFallback(t *testing.T) {
	t.Parallel()
	provider := func(status int) error {
		return &model.ProviderError{Provider: "openai", Model: "gpt", Status: status, Message: "boom"}
	}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"500", provider(500), true},
		{"503", provider(503), true},
		{"429", provider(429), true},
		{"408", provider(408), true},
		{"no answer", provider(0), true},
		{"an answer that could not be read", provider(200), true},
		{"wrapped 500", fmt.Errorf("assistant %q: %w", "a", provider(500)), true},
		{"300", provider(300), false},
		{"400", provider(400), false},
		{"401", provider(401), false},
		{"404", provider(404), false},
		{"canceled", context.Canceled, false},
		{"wrapped canceled", fmt.Errorf("request: %w", context.Canceled), false},
		{"deadline exceeded", context.DeadlineExceeded, true},
		{"wrapped deadline exceeded", fmt.Errorf("request: %w", context.DeadlineExceeded), true},
		{"connection refused", refused, true},
		{"bare ECONNREFUSED", syscall.ECONNREFUSED, true},
		{"no route to the host", &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.EHOSTUNREACH)}, true},
		{"a read that failed otherwise", &net.OpError{Op: "read", Net: "tcp", Err: errors.New("use of closed network connection")}, false},
		{"connection reset", fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{"network timeout", &net.DNSError{Err: "i/o timeout", Name: "api.example.com", IsTimeout: true}, true},
		{"unknown host", &net.DNSError{Err: "no such host", Name: "api.example.com", IsNotFound: true}, false},
		{"other error", errors.New("model name missing in llm.yaml"), false},
	}
	for _, tt := range tests {
		if got := model.CanFallback(tt.err); got != tt.want {
			t.Errorf("CanFallback(%s: %v) = %t, want %t", tt.name, tt.err, got, tt.want)
		}
	}
}

func TestProviderErrorMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err  *model.ProviderError
		want string
	}{
		{&model.ProviderError{Provider: "openai", Model: "fast", Status: 429, Message: "rate limited"}, `openai model "fast": HTTP 429: rate limited`},
		{&model.ProviderError{Provider: "openai", Model: "fast", Message: "connection reset"}, `openai model "fast": no answer: connection reset`},
		{&model.ProviderError{Model: "fast", Status: 500, Message: "oops"}, `model "fast": HTTP 500: oops`},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}
