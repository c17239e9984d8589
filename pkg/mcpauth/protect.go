package mcpauth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/golang-jwt/jwt/v5"
)

// ErrNoToken is why Protect refuses a request without a bearer token: without an
// Authorization header, or with one of another scheme.
var ErrNoToken = errors.New("no bearer token")

// ErrForeignSession is why Protect refuses a request whose Mcp-Session-Id names a session
// that another caller holds: a session is its caller's, and only theirs to use, cancel in or end.
var ErrForeignSession = errors.New("the Mcp-Session-Id names another caller's session")

// TokenError is why Protect refuses a request whose bearer token is not valid here. Reason
// says why in words of the Authorizer's own ("it has expired"), never quoting the token.
type TokenError struct {
	Reason string
}

func (e *TokenError) Error() string { return "invalid bearer token: " + e.Reason }

// ScopeError is why Protect refuses a valid token that lacks scopes the resource requires.
type ScopeError struct {
	Missing []string // the required scopes the token lacks
}

func (e *ScopeError) Error() string {
	return "the bearer token lacks the scopes " + strings.Join(e.Missing, " ")
}

// Protect returns next behind the check of bearer tokens: a request with a token that the
// Authorizer accepts reaches next with the token's claims in its context
// ([ClaimsFromContext]); any other gets 401 (no token, or one that is not valid here) or 403
// (a valid token without the required scopes), with a WWW-Authenticate challenge that points
// to the metadata, and next is not called. Every request is checked, a CORS preflight too: a
// CORS handler goes in front of Protect.
//
// Behind mcp-go's streamable HTTP server, the claims reach every prompt and tool handler's
// context, where [ClaimIdentity] reads who is calling.
//
// An MCP session (the Mcp-Session-Id header) belongs to its caller, as MCP's security best
// practices ask — mcp-go binds a session to nothing but its ID, and another caller who learned
// it could cancel the session's requests, end the session or read its notifications. The
// caller is the token's subject ("sub"), or the claims that [WithSessionOwner] names; for a
// token with none of them, the token itself. A request with another caller's session ID gets
// 404 Not Found, as for a session that does not exist, and next is not called. A session is
// the caller's whose request got the response that began it (mcp-go's answer to an
// initialize); a session ID that Protect has not seen — made up, or begun behind another
// process's Protect — becomes the first caller's to send it. Protect keeps this in memory: it
// forgets a session that its caller ends (DELETE) and one that no request has used for an
// hour, which the caller's next request takes again.
func (a *Authorizer) Protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		claims, token, err := a.check(r)
		if err != nil {
			a.refuse(w, r, err)
			return
		}
		r = r.WithContext(context.WithValue(r.Context(), claimsKey{}, claims))
		a.serveSession(w, r, next, callerOf(claims, a.owner, token))
	})
}

// check returns the claims of the request's bearer token and the token, or why it is refused.
func (a *Authorizer) check(r *http.Request) (Claims, string, error) {
	raw, err := bearerToken(r.Header)
	if err != nil {
		return nil, "", err
	}
	claims := jwt.MapClaims{}
	// A refresh for an unknown key ID ends with the request.
	tok, err := a.parser.ParseWithClaims(raw, claims, a.keys.KeyfuncCtx(r.Context()))
	if err != nil {
		return nil, "", &TokenError{Reason: a.reason(tok, err)}
	}
	c := Claims(claims)
	if missing := missingScopes(a.scopes, c.Scopes()); len(missing) > 0 {
		return nil, "", &ScopeError{Missing: missing}
	}
	return c, raw, nil
}

// bearerToken returns the token of the request's one Authorization header. A header of another
// scheme is no bearer token; a Bearer header that does not hold one token is malformed.
func bearerToken(h http.Header) (string, error) {
	values := h.Values("Authorization")
	if len(values) == 0 {
		return "", ErrNoToken
	}
	if len(values) > 1 {
		return "", &TokenError{Reason: "the request has more than one Authorization header"}
	}
	scheme, token, _ := strings.Cut(values[0], " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return "", ErrNoToken
	}
	token = strings.TrimLeft(token, " ")
	if token == "" || strings.ContainsAny(token, " \t") {
		return "", &TokenError{Reason: "the Authorization header does not hold one bearer token"}
	}
	return token, nil
}

// reason says why golang-jwt refused a token, in words of the Authorizer's own: jwt's errors
// may quote parts of the token.
func (a *Authorizer) reason(tok *jwt.Token, err error) string {
	switch {
	case errors.Is(err, jwt.ErrTokenMalformed):
		return "it is not a well-formed JWT"
	case tok != nil && tok.Method != nil && !slices.Contains(a.algorithms, tok.Method.Alg()):
		return "its signing algorithm is not allowed"
	case errors.Is(err, jwt.ErrTokenUnverifiable):
		return "it is not signed with a key that the issuer publishes"
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		return "its signature does not verify"
	case errors.Is(err, jwt.ErrTokenExpired):
		return "it has expired"
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		return "it is not valid yet"
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return "it was issued in the future"
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return "another issuer issued it"
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return "it is meant for another resource (audience)"
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return "it lacks a required claim (iss, aud or exp)"
	default:
		return "it is not valid"
	}
}

func missingScopes(required, granted []string) []string {
	var missing []string
	for _, s := range required {
		if !slices.Contains(granted, s) {
			missing = append(missing, s)
		}
	}
	return missing
}

// refuse answers a refused request: 401 or 403 with the challenge RFC 6750 and RFC 9728
// describe, and the same error in a JSON body; 404 for another caller's session.
func (a *Authorizer) refuse(w http.ResponseWriter, r *http.Request, err error) {
	if a.onRefusal != nil {
		r = r.Clone(r.Context())
		r.Header.Del("Authorization")
		a.onRefusal(r, err)
	}
	if errors.Is(err, ErrForeignSession) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_ = json.NewEncoder(w).Encode(map[string]string{"error": "session_not_found", "error_description": "no session of this caller has this Mcp-Session-Id: begin a new one with initialize"})
		return
	}
	status, code, description, scopes := http.StatusUnauthorized, "", "", a.scopes
	var te *TokenError
	var se *ScopeError
	switch {
	case errors.As(err, &se):
		status, code, description = http.StatusForbidden, "insufficient_scope", se.Error()
	case errors.As(err, &te):
		code, description = "invalid_token", te.Reason
	}
	var params []string
	if code != "" {
		params = append(params, "error="+quote(code), "error_description="+quote(description))
	}
	if len(scopes) > 0 {
		params = append(params, "scope="+quote(strings.Join(scopes, " ")))
	}
	params = append(params, "resource_metadata="+quote(a.metadataURL))
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if code == "" {
		code, description = "unauthorized", "a bearer access token is required: see "+a.metadataURL
	}
	_ = json.NewEncoder(w).Encode(map[string]string{"error": code, "error_description": description})
}

// quote makes s an HTTP quoted-string.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
