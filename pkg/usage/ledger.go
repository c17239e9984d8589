package usage

import (
	"context"
	"sync"
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
	solo   bool // made by NewAccount: its one top account is its root
}

// NewLedger returns an empty ledger whose limits are l resolved with the defaults
// (see Limits.Resolved).
func NewLedger(l Limits) *Ledger {
	r := l.Resolved()
	return &Ledger{limits: r, root: node{max: r}}
}

// NewAccount returns the account of a run that has a ledger of its own: the one top account
// of a new ledger whose limits are l resolved with the defaults. The account's report is the
// ledger's, and the runs it delegates to open their accounts under it in its Ledger. It is
// NewLedger(l).Open(nil, agent, nil) in one allocation, without a root apart from the
// account: no other top account can be opened in that ledger (Open panics).
func NewAccount(agent string, l Limits) *Account {
	r := l.Resolved()
	room := &struct {
		ledger  Ledger
		account Account
	}{ledger: Ledger{limits: r, root: node{max: r}, solo: true}}
	room.account = Account{ledger: &room.ledger, agent: agent, node: &room.ledger.root}
	return &room.account
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
	room := &struct {
		account Account
		node    node
	}{}
	a := &room.account
	a.ledger, a.agent, a.node = l, agent, &room.node
	a.node.parent = &l.root
	if parent != nil {
		if parent.ledger != l {
			panic("usage: Ledger.Open: the parent account of " + agent +
				" belongs to another ledger; open it in the parent's ledger (parent.Ledger())")
		}
		a.node.parent = parent.node
	} else if l.solo {
		panic("usage: Ledger.Open: the ledger of an account made by NewAccount has one top account; open " +
			agent + " under it (pass it as the parent), or use a ledger of NewLedger")
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
