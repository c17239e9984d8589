package chat_test

import (
	"testing"

	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/chat/chattest"
)

func TestMemory(t *testing.T) {
	chattest.Run(t, func(*testing.T) chat.Store { return chat.NewMemory() })
}

func TestMemoryIsLinearizable(t *testing.T) {
	t.Parallel()
	chattest.CheckLinearizable(t, "memory", func(*testing.T) chat.Store { return chat.NewMemory() })
}
