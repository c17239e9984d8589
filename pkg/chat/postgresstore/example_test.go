package postgresstore_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/chat/postgresstore"
	"github.com/tmc/langchaingo/llms"
)

// Instances of a service behind a load balancer share history through one PostgreSQL database:
// each opens its Store, and any of them continues any chat.
func Example() {
	ctx := context.Background()
	// postgres://user:password@host:5432/database; the tables go in the schema "support".
	store, err := postgresstore.Open(ctx, os.Getenv("DATABASE_URL"), postgresstore.WithSchema("support"))
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()

	// An assistant given the store (assistant.WithStore(store)) and run under
	// chat.WithID(ctx, id) loads and appends the chat itself; here by hand.
	id := chat.ID{Tenant: "acme", User: "alice", Chat: "order-1234"}
	err = store.Append(ctx, id, []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Where is my order?"),
		llms.TextParts(llms.ChatMessageTypeAI, "It ships today."),
	})
	if err != nil {
		log.Fatal(err) // a server that is down is an error, never an empty history
	}
	msgs, err := store.Load(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(msgs), "messages")
}
