package llmfactory

import (
	"slices"
	"time"

	"github.com/cadrehq/cadre/internal/yamlconf"
)

// RateLimits is llm.yaml's rate_limits section: the limits of package ratelimit's Middleware,
// per tenant and per user, in a form that keeps llmfactory free of the packages that run
// assistants. A zero field is no limit; a RateLimits from Load or Parse has no negative field.
// ratelimit.LimitsFrom converts it, field for field:
//
//	limits := ratelimit.LimitsFrom(factory.RateLimits())
type RateLimits struct {
	Tenant, User RateQuota     // rate_limits.tenant, rate_limits.user
	MaxWait      time.Duration // rate_limits.max_wait; 0 fails a request at once
}

// RateQuota is one caller's quota in llm.yaml's rate_limits section.
type RateQuota struct {
	RequestsPerMinute int // requests_per_minute
	TokensPerDay      int // tokens_per_day
}

// RateLimits returns the file's rate_limits section; the zero RateLimits, which limits
// nothing, when the file has none.
func (f *Factory) RateLimits() RateLimits { return f.cfg.rateLimits }

// The keys of the rate_limits section, and of its tenant and user quotas.
var (
	rateLimitKeys = []string{"tenant", "user", "max_wait"}
	quotaKeys     = []string{"requests_per_minute", "tokens_per_day"}
)

// The bounds of the rate_limits section's numbers: past them, a value is a mistake.
const (
	maxRequestsPerMinute = 1_000_000
	maxTokensPerDay      = 1_000_000_000_000
	maxWait              = time.Hour
)

// rateLimits reads the rate_limits section.
func (p *parser) rateLimits(cfg *fileConfig, sec *yamlconf.Entry) {
	fields, _ := p.Entries(sec.Val, "rate_limits")
	r := &cfg.rateLimits
	for _, f := range fields {
		fp := "rate_limits." + f.Key
		switch f.Key {
		case "tenant":
			r.Tenant = p.quota(f, fp)
		case "user":
			r.User = p.quota(f, fp)
		case "max_wait":
			if v, st := p.Text(f.Val, fp, nil); st == yamlconf.Present {
				r.MaxWait = p.wait(v)
			}
		default:
			p.UnknownKey(f, fp, rateLimitKeys, "")
		}
	}
}

// quota reads the quota of rate_limits.tenant or rate_limits.user.
func (p *parser) quota(e yamlconf.Entry, path string) RateQuota {
	var q RateQuota
	fields, _ := p.Entries(e.Val, path)
	for _, f := range fields {
		fp := path + "." + f.Key
		if !slices.Contains(quotaKeys, f.Key) {
			p.UnknownKey(f, fp, quotaKeys, "")
			continue
		}
		v, st := p.Text(f.Val, fp, nil)
		if st != yamlconf.Present {
			continue
		}
		hi := maxRequestsPerMinute
		if f.Key == "tokens_per_day" {
			hi = maxTokensPerDay
		}
		n := p.Integer(v, 0, hi, "60, or 0 for no limit")
		if n == nil {
			continue
		}
		switch f.Key {
		case "requests_per_minute":
			q.RequestsPerMinute = *n
		case "tokens_per_day":
			q.TokensPerDay = *n
		}
	}
	return q
}

// wait parses max_wait: a duration of 0 or more.
func (p *parser) wait(v yamlconf.Value) time.Duration {
	d, err := time.ParseDuration(v.Text)
	switch {
	case err != nil:
		p.Errorf(v.Node, v.Path, "%s is not a duration (write e.g. 2s, or 0 to fail at once)", v.Quoted())
	case d < 0:
		p.Errorf(v.Node, v.Path, "%s: must be 0 (fail at once) or more", v.Quoted())
	case d > maxWait:
		p.Errorf(v.Node, v.Path, "%s is out of range (0 to %s)", v.Quoted(), maxWait)
	default:
		return d
	}
	return 0
}
