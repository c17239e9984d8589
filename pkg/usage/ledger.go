package usage

import (
	"context"
	"sync"
	"sync/atomic"
)

// A Ledger records the usage of a tree of runs and enforces its limits; safe for concurrent use.
// Create one with NewLedger; the zero value is not usable.
//
// Runs record into a ledger through the Accounts they open in it with Open. The ledger
// reports the whole tree; an account reports its own subtree.
type Ledger struct {
	mu     sync.Mutex // guards root and every node of every Account of this ledger
	limits Limits     // resolved
	root   node
	// first is room for the ledger's first top account, made with the ledger: a run that
	// makes its own ledger opens one account in it, and both cost one allocation.
	first atomic.Pointer[Account]
}

// ledgerRoom is a ledger and its first top account, allocated together.
type ledgerRoom struct {
	ledger Ledger
	first  Account
}

// NewLedger returns an empty ledger whose limits are l resolved with the defaults
// (see Limits.Resolved).
func NewLedger(l Limits) *Ledger {
	r := l.Resolved()
	room := &ledgerRoom{ledger: Ledger{limits: r, root: node{max: r}}}
	room.ledger.first.Store(&room.first)
	return &room.ledger
}

// Limits returns the ledger's limits, resolved: no field is zero, and a negative field means
// no limit.
func (l *Ledger) Limits() Limits { return l.limits }

// Report returns the usage of every run recorded into the ledger. Its maps are new on every
// call; the caller may keep and modify them.
func (l *Ledger) Report() Report {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.root.report()
}

// Open opens an account for a run of agent under parent, the account of the run that
// delegated to it; a nil parent opens a top run directly under the ledger. Open panics if
// parent belongs to another ledger.
//
// own, when non-nil, adds limits that bound this account's subtree, on top of its ancestors'
// and the ledger's. Unlike the ledger's limits, own is not resolved with defaults: a zero
// field, like a negative one, adds no limit here. Open copies *own.
//
// Open is safe for concurrent use.
func (l *Ledger) Open(parent *Account, agent string, own *Limits) *Account {
	var a *Account
	if parent == nil {
		a = l.first.Swap(nil)
	}
	if a == nil {
		a = &Account{}
	}
	a.ledger, a.agent = l, agent
	a.node.parent = &l.root
	if parent != nil {
		if parent.ledger != l {
			panic("usage: Ledger.Open: the parent account of " + agent +
				" belongs to another ledger; open it in the parent's ledger (parent.Ledger())")
		}
		a.node.parent = &parent.node
	}
	if own != nil {
		a.node.max = *own
	}
	return a
}

type ledgerKey struct{}

// WithLedger returns a copy of ctx that carries l: runs under the returned context record
// into l and are bound by its limits.
func WithLedger(ctx context.Context, l *Ledger) context.Context {
	return context.WithValue(ctx, ledgerKey{}, l)
}

// LedgerFrom returns the ledger that ctx carries, or nil when it carries none.
func LedgerFrom(ctx context.Context) *Ledger {
	l, _ := ctx.Value(ledgerKey{}).(*Ledger)
	return l
}
