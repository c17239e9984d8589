package redisstore

import (
	"strings"
	"testing"

	"github.com/cadrehq/cadre/pkg/chat"
)

// hashTag is the part of key Redis Cluster hashes: what the first "{" and the first "}" after
// it enclose, when that is not empty; else the whole key.
func hashTag(key string) string {
	if _, rest, ok := strings.Cut(key, "{"); ok {
		if tag, _, ok := strings.Cut(rest, "}"); ok && tag != "" {
			return tag
		}
	}
	return key
}

var oddIDs = []chat.ID{
	{Tenant: "", User: "", Chat: "c"},
	{Tenant: "a:b", User: "c", Chat: "d"},
	{Tenant: "a", User: "b:c", Chat: "d"},
	{Tenant: "a", User: "b", Chat: "c:d"},
	{Tenant: "a}", User: "b", Chat: "c"},
	{Tenant: "a", User: "}b", Chat: "c"},
	{Tenant: "{a}", User: "b", Chat: "c"},
	{Tenant: "%7Ba%7D", User: "b", Chat: "c"},
	{Tenant: "a", User: "b", Chat: "c d"},
	{Tenant: "a", User: "b", Chat: "c+d"},
	{Tenant: "a", User: "b", Chat: "c%2Bd"},
	{Tenant: "a", User: "b", Chat: "m:c"},
	{Tenant: "a", User: "m", Chat: "c"},
	{Tenant: "a", User: "s", Chat: "c"},
	{Tenant: "a", User: "chats", Chat: "c"},
}

func TestKeysOfATenantShareOneHashTag(t *testing.T) {
	t.Parallel()
	s := New(nil)
	for _, id := range oddIDs {
		k := s.keysOf(id)
		tag := hashTag(k.index)
		if tag == k.index {
			t.Errorf("%q: the key %q has no hash tag", id, k.index)
		}
		for _, key := range []string{k.messages, k.state, k.lengths} {
			if hashTag(key) != tag {
				t.Errorf("%q: the key %q hashes by %q, the index %q by %q: one call's keys would be in two Cluster slots",
					id, key, hashTag(key), k.index, tag)
			}
		}
	}
}

func TestKeysKeepIDsApart(t *testing.T) {
	t.Parallel()
	s := New(nil, WithPrefix("p:"))
	owner := map[string]chat.ID{}
	for _, id := range oddIDs {
		k := s.keysOf(id)
		for _, key := range []string{k.messages, k.state} {
			if other, ok := owner[key]; ok {
				t.Errorf("%q and %q share the key %q", id, other, key)
			}
			owner[key] = id
		}
		if !strings.HasPrefix(k.index, "p:") || !strings.HasPrefix(k.messages, "p:") {
			t.Errorf("%q: keys %q, %q do not start with the prefix", id, k.index, k.messages)
		}
	}
	tenants := map[string]string{}
	for _, id := range oddIDs {
		k := s.keysOf(id)
		if other, ok := tenants[k.index]; ok && other != id.Tenant {
			t.Errorf("tenants %q and %q share the index %q", id.Tenant, other, k.index)
		}
		tenants[k.index] = id.Tenant
	}
}
