package usage

// Account is one run's share of a Ledger: that run's usage and the usage of every run below it.
// Open one with Ledger.Open. Safe for concurrent use (all Accounts of a Ledger share the
// Ledger's one mutex).
type Account struct {
	ledger *Ledger
	agent  string
	node   *node // its own, allocated with it; the ledger's root for NewAccount's
}

// node is what one level of the tree counts: the ledger's root, or one account.
type node struct {
	parent *node  // nil for the ledger's root
	max    Limits // a field <= 0 is no limit at this level
	// Reserved, counted against the limits. A failed request stays reserved.
	requests, toolCalls int
	total               Usage   // recorded; tokens here are checked against the token limits
	agents, models      tallies // recorded, by agent and by model
}

// Agent returns the agent name the account was opened for.
func (a *Account) Agent() string { return a.agent }

// Ledger returns the ledger the account belongs to.
func (a *Account) Ledger() *Ledger { return a.ledger }

// ReserveRequest reserves one model request; call it before each request. It checks, for
// this account, each ancestor and the ledger, that the tokens recorded so far are below each
// token limit (input, output, total) and that the requests reserved so far are below
// MaxRequests. A response may overshoot a token limit; the next reservation then fails with
// Used > Max.
//
// On success the request is counted as reserved at every level. On failure nothing changes
// and the error is a *LimitError for the first limit found hit, looking from this account
// upwards; its Agent is this account's agent.
func (a *Account) ReserveRequest() error {
	a.ledger.mu.Lock()
	defer a.ledger.mu.Unlock()
	for n := a.node; n != nil; n = n.parent {
		if e := n.requestLimit(); e != nil {
			e.Agent = a.agent
			return e
		}
	}
	for n := a.node; n != nil; n = n.parent {
		n.requests++
	}
	return nil
}

// RequestsLeft returns how many more requests MaxRequests allows this account, the fewest left
// at any level from this account up to the ledger; -1 when no level limits requests. Another
// run of the tree may take some before this account does.
func (a *Account) RequestsLeft() int {
	a.ledger.mu.Lock()
	defer a.ledger.mu.Unlock()
	left := -1
	for n := a.node; n != nil; n = n.parent {
		if limit := n.max.MaxRequests; limit > 0 && (left < 0 || limit-n.requests < left) {
			left = max(limit-n.requests, 0)
		}
	}
	return left
}

// ReserveToolCalls reserves a whole batch of n tool calls made by model, all or none, against
// MaxToolCalls of this account, each ancestor and the ledger. On success the n calls are also
// recorded as Usage.ToolCalls, under this account's agent and model, in this account and
// every ancestor. On failure nothing changes and the error is a *LimitError whose Used counts
// the calls reserved before this batch. n == 0 reserves nothing and succeeds; a negative n
// panics.
func (a *Account) ReserveToolCalls(model string, n int) error {
	if n < 0 {
		panic("usage: Account.ReserveToolCalls: negative batch size; pass the number of calls the model made")
	}
	if n == 0 {
		return nil
	}
	a.ledger.mu.Lock()
	defer a.ledger.mu.Unlock()
	for x := a.node; x != nil; x = x.parent {
		if limit := x.max.MaxToolCalls; limit > 0 && x.toolCalls+n > limit {
			return &LimitError{Limit: LimitToolCalls, Max: limit, Used: x.toolCalls, Agent: a.agent}
		}
	}
	u := Usage{ToolCalls: n}
	for x := a.node; x != nil; x = x.parent {
		x.toolCalls += n
		x.record(a.agent, model, u)
	}
	return nil
}

// Record adds u, the usage of one response from model (typically Requests 1 plus its tokens),
// to this account, every ancestor and the ledger, under this account's agent and model. The
// requests recorded are what reports show; the requests reserved are what limits count, so a
// request that failed stays reserved but, unrecorded, does not appear in reports.
func (a *Account) Record(model string, u Usage) {
	a.ledger.mu.Lock()
	defer a.ledger.mu.Unlock()
	for n := a.node; n != nil; n = n.parent {
		n.record(a.agent, model, u)
	}
}

// Report returns the usage of this account's subtree: its own run and every run opened below
// it. Its maps are new on every call; the caller may keep and modify them.
func (a *Account) Report() Report {
	a.ledger.mu.Lock()
	defer a.ledger.mu.Unlock()
	return a.node.report()
}

// requestLimit returns the limit that forbids another request at n, or nil. Token limits come
// first: when both are hit, tokens are the more telling reason.
func (n *node) requestLimit() *LimitError {
	checks := [...]struct {
		limit     string
		max, used int
	}{
		{LimitInputTokens, n.max.MaxInputTokens, n.total.InputTokens},
		{LimitOutputTokens, n.max.MaxOutputTokens, n.total.OutputTokens},
		{LimitTotalTokens, n.max.MaxTotalTokens, n.total.TotalTokens()},
		{LimitRequests, n.max.MaxRequests, n.requests},
	}
	for _, c := range checks {
		if c.max > 0 && c.used >= c.max {
			return &LimitError{Limit: c.limit, Max: c.max, Used: c.used}
		}
	}
	return nil
}

func (n *node) record(agent, model string, u Usage) {
	n.total = n.total.Add(u)
	n.agents.add(agent, u)
	n.models.add(model, u)
}

func (n *node) report() Report {
	return Report{Total: n.total, ByAgent: n.agents.toMap(), ByModel: n.models.toMap()}
}

// Carry adds an earlier report to this account, every ancestor and the ledger: the usage of a
// run that paused (waiting for a person) and is resumed in this account. Its requests and tool
// calls count against the limits as reserved, as they were before the pause.
func (a *Account) Carry(r Report) {
	a.ledger.mu.Lock()
	defer a.ledger.mu.Unlock()
	for n := a.node; n != nil; n = n.parent {
		n.carry(r)
	}
}

// Adopt adds an earlier report to this account alone: the usage of a paused run resumed in
// this account that an ancestor carried already, with the rest of its paused tree (see Carry).
// The ancestors and the ledger hold r; Adopt makes this account's report and its own limits
// hold it too, so that the usage is counted once at every level.
func (a *Account) Adopt(r Report) {
	a.ledger.mu.Lock()
	defer a.ledger.mu.Unlock()
	a.node.carry(r)
}

func (n *node) carry(r Report) {
	n.requests += r.Total.Requests
	n.toolCalls += r.Total.ToolCalls
	n.total = n.total.Add(r.Total)
	for name, u := range r.ByAgent {
		n.agents.add(name, u)
	}
	for name, u := range r.ByModel {
		n.models.add(name, u)
	}
}
