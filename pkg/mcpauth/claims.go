package mcpauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Claims are the claims of a bearer token that Protect accepted, as JSON decoded them:
// strings, float64 numbers, []any, map[string]any.
type Claims map[string]any

// Scopes returns the token's scopes: its "scope" claim, split at spaces (RFC 9068), or else
// its "scp" claim, a string or a list of strings.
func (c Claims) Scopes() []string {
	if s, ok := c["scope"].(string); ok {
		return strings.Fields(s)
	}
	switch v := c["scp"].(type) {
	case string:
		return strings.Fields(v)
	case []any:
		var scopes []string
		for _, s := range v {
			if s, ok := s.(string); ok {
				scopes = append(scopes, s)
			}
		}
		return scopes
	}
	return nil
}

type claimsKey struct{}

// ClaimsFromContext returns the claims of the bearer token that Protect accepted for the
// request whose context ctx is, or derives from.
func ClaimsFromContext(ctx context.Context) (Claims, bool) {
	c, ok := ctx.Value(claimsKey{}).(Claims)
	return c, ok
}

// ClaimIdentity returns an identity for mcpbridge.WithIdentity that takes the tenant and the
// user of a chat from the claims of the request's bearer token: tenantClaim names the tenant's claim
// (such as "tenant"; "" for a server of one tenant, whose tenant is ""), userClaim the user's
// (usually "sub", which the issuer keeps unique and stable). It fails, and the prompt get with
// it, when the request came with no token that Protect accepted, or when a named claim is
// missing, null, empty or not a string: a chat is never filed under a tenant or a user that
// the token did not name. Its error names the claim, what it names, and what is wrong with it,
// such as `the bearer token has no claim "tenant", which names the caller's tenant: it is
// empty`; the client is told it.
func ClaimIdentity(tenantClaim, userClaim string) func(ctx context.Context) (tenant, user string, err error) {
	return func(ctx context.Context) (string, string, error) {
		claims, ok := ClaimsFromContext(ctx)
		if !ok {
			return "", "", errors.New("the request carries no checked bearer token")
		}
		tenant, err := claims.text(tenantClaim, "the caller's tenant")
		if err != nil {
			return "", "", err
		}
		user, err := claims.text(userClaim, "the caller")
		if err != nil {
			return "", "", err
		}
		return tenant, user, nil
	}
}

// text returns the string of claim name, which names what, or "" when name is "".
func (c Claims) text(name, what string) (string, error) {
	if name == "" {
		return "", nil
	}
	missing := fmt.Sprintf("the bearer token has no claim %q, which names %s", name, what)
	switch v := c[name].(type) {
	case nil:
		return "", errors.New(missing)
	case string:
		if v == "" {
			return "", errors.New(missing + ": it is empty")
		}
		return v, nil
	default:
		return "", fmt.Errorf("%s: it is %s, not a string", missing, jsonKind(v))
	}
}

// jsonKind names the kind of JSON value v, as encoding/json decodes it.
func jsonKind(v any) string {
	switch v.(type) {
	case float64, json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	default:
		return fmt.Sprintf("a %T", v)
	}
}
