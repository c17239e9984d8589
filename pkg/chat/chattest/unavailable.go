package chattest

import (
	"errors"
	"testing"

	"github.com/cadrehq/cadre/pkg/chat"
)

// CheckUnavailable checks that s, a store that cannot answer (closed, or its server gone),
// says so for the chat id it held before: every method returns an error, and none wraps
// chat.ErrNotFound, which would tell an assistant the chat is new and lose its history. Call
// it from a store's own test once the store is unavailable.
func CheckUnavailable(t *testing.T, s chat.Store, id chat.ID) {
	t.Helper()
	for method, err := range everyMethod(t.Context(), s, id) {
		if err == nil || errors.Is(err, chat.ErrNotFound) {
			t.Errorf("%s on a store that cannot answer: %v; want an error that is not ErrNotFound", method, err)
		}
	}
}
