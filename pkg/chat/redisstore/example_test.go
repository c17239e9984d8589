package redisstore_test

import (
	"context"
	"fmt"
	"log"

	"github.com/cadrehq/cadre/pkg/chat"
	"github.com/cadrehq/cadre/pkg/chat/redisstore"
	"github.com/redis/go-redis/v9"
	"github.com/tmc/langchaingo/llms"
)

// Instances of a service behind a load balancer share history through one Redis: each makes
// its Store from its own client, and any of them continues any chat.
func Example() {
	rdb := redis.NewClient(&redis.Options{Addr: "localhost:6379"})
	defer rdb.Close()
	store := redisstore.New(rdb, redisstore.WithPrefix("support:chat:"))

	// An assistant given the store (assistant.WithStore(store)) and run under
	// chat.WithID(ctx, id) loads and appends the chat itself; here by hand.
	ctx := context.Background()
	id := chat.ID{Tenant: "acme", User: "alice", Chat: "order-1234"}
	err := store.Append(ctx, id, []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Where is my order?"),
		llms.TextParts(llms.ChatMessageTypeAI, "It ships today."),
	})
	if err != nil {
		log.Fatal(err) // Redis down is an error, never an empty history
	}
	msgs, err := store.Load(ctx, id)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(msgs), "messages")
}
