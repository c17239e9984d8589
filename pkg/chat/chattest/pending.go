package chattest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// pendingAppends are the Appends to a chat that the model has linearized since the last Load,
// whose order no Load has revealed yet: a set, so that two orders of the same Appends are one
// state of the model, and porcupine's search does not try every order of a chat's Appends
// (times every order of the calls between them) before the one the next Load needs.
//
// The Load that sees them reveals their order: it must hold each one's messages together,
// and may put one before another only if it was called before the other returned. Appends
// change nothing but the messages, which only Loads read, so a linearization then exists with
// the Appends in that order and every other call in the same order as before — except for the
// Append that created the chat, which calls after it may have found: the model never keeps it
// pending, and porcupine's search tries each Append that could have come first.
//
// It is comparable: a sorted list of Appends, each "CALLED RETURNED TEXT+TEXT...", joined by
// ";". The texts of a history hold none of " ", "+" and ";".
type pendingAppends string

// pendingAppend is one of pendingAppends.
type pendingAppend struct {
	called, returned int64
	texts            []string
}

// with returns p and an Append of texts called and returned at the instants given. An Append
// of no messages adds nothing to order.
func (p pendingAppends) with(called, returned int64, texts []string) pendingAppends {
	if len(texts) == 0 {
		return p
	}
	entries := []string{fmt.Sprintf("%d %d %s", called, returned, strings.Join(texts, "+"))}
	if p != "" {
		entries = append(entries, strings.Split(string(p), ";")...)
	}
	slices.Sort(entries)
	return pendingAppends(strings.Join(entries, ";"))
}

// appends returns the Appends of p.
func (p pendingAppends) appends() []pendingAppend {
	if p == "" {
		return nil
	}
	var out []pendingAppend
	for _, entry := range strings.Split(string(p), ";") {
		f := strings.SplitN(entry, " ", 3)
		called, _ := strconv.ParseInt(f[0], 10, 64)
		returned, _ := strconv.ParseInt(f[1], 10, 64)
		out = append(out, pendingAppend{called, returned, strings.Split(f[2], "+")})
	}
	return out
}

// revealedIn reports whether texts, the messages a Load found after those already revealed
// (as joined by joinTexts), are the Appends of p, each whole, in an order their calls and
// returns allow.
func (p pendingAppends) revealedIn(texts string) bool {
	appends := p.appends()
	byFirst := make(map[string]int, len(appends))
	for i, a := range appends {
		byFirst[a.texts[0]] = i
	}
	var order []int
	for words := strings.Fields(texts); len(words) > 0; {
		i, ok := byFirst[words[0]]
		if !ok || len(words) < len(appends[i].texts) || !slices.Equal(words[:len(appends[i].texts)], appends[i].texts) {
			return false
		}
		delete(byFirst, words[0]) // an Append's texts are found once
		order = append(order, i)
		words = words[len(appends[i].texts):]
	}
	if len(order) != len(appends) {
		return false
	}
	for i, earlier := range order {
		for _, later := range order[i+1:] {
			if appends[later].returned < appends[earlier].called {
				return false // later returned before earlier was called: it took effect first
			}
		}
	}
	return true
}

func (p pendingAppends) String() string {
	var each []string
	for _, a := range p.appends() {
		each = append(each, "("+strings.Join(a.texts, " ")+")")
	}
	return strings.Join(each, " ")
}
