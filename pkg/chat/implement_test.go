package chat_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/chat"
)

func TestNotFoundWrapsErrNotFoundAndNamesTheChat(t *testing.T) {
	t.Parallel()
	err := chat.NotFound(chat.ID{Tenant: "acme", User: "alice", Chat: "c1"})
	if !errors.Is(err, chat.ErrNotFound) {
		t.Errorf("NotFound = %v, which does not wrap ErrNotFound", err)
	}
	for _, part := range []string{"acme", "alice", "c1"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("NotFound = %q, which does not name %q", err, part)
		}
	}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	valid := chat.ID{Chat: "c"}
	tests := []struct {
		name string
		ctx  context.Context
		id   chat.ID
		want error // nil: no error; errAny: any error
	}{
		{"valid", t.Context(), valid, nil},
		{"cancelled", cancelled, valid, context.Canceled},
		{"empty chat", t.Context(), chat.ID{Tenant: "t"}, errAny},
		{"NUL", t.Context(), chat.ID{Chat: "a\x00"}, errAny},
		{"cancelled and invalid", cancelled, chat.ID{}, context.Canceled},
	}
	for _, tt := range tests {
		err := chat.Check(tt.ctx, tt.id)
		switch {
		case tt.want == nil && err != nil, tt.want != nil && err == nil:
			t.Errorf("%s: Check = %v, want %v", tt.name, err, tt.want)
		case tt.want != nil && tt.want != errAny && !errors.Is(err, tt.want):
			t.Errorf("%s: Check = %v, want an error wrapping %v", tt.name, err, tt.want)
		}
	}
}

var errAny = errors.New("any error")
