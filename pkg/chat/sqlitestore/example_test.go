package sqlitestore_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/chat/sqlitestore"
	"github.com/tmc/langchaingo/llms"
)

func Example() {
	dir, err := os.MkdirTemp("", "chats")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	store, err := sqlitestore.Open(filepath.Join(dir, "chats.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()

	// An assistant given the store (assistant.WithStore(store)) and run under
	// chat.WithID(ctx, id) loads and appends the chat itself; here by hand.
	ctx := context.Background()
	id := chat.ID{Tenant: "acme", User: "alice", Chat: "order-1234"}
	err = store.Append(ctx, id, []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Where is my order?"),
		llms.TextParts(llms.ChatMessageTypeAI, "It ships today."),
	})
	if err != nil {
		log.Fatal(err)
	}

	msgs, err := store.Load(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range msgs {
		fmt.Printf("%s: %s\n", m.Role, m.Parts[0])
	}
	chats, err := store.List(ctx, "acme")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(chats[0].ID.Chat, chats[0].Messages)
	// Output:
	// human: Where is my order?
	// ai: It ships today.
	// order-1234 2
}
