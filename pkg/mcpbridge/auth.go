package mcpbridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/time/rate"
)

// Authorizer makes an MCP endpoint served over HTTP an OAuth 2.1 resource server, as MCP's
// authorization specification asks: [Authorizer.Protect] lets a request through only with a
// bearer access token that the endpoint's authorization server (the issuer) signed for this
// endpoint, and [Authorizer.Metadata] serves the endpoint's Protected Resource Metadata
// (RFC 9728), from which a client learns where to get a token.
//
// A token is a JWT (RFC 9068) in the Authorization header. It is accepted when
//   - its signature verifies with a key of the issuer's JWK Set, by an asymmetric algorithm
//     allowed ([WithSigningAlgorithms]; never "none", never an HMAC);
//   - its "iss" is the issuer and its "aud" names the resource (or [WithAudience]);
//   - it has an "exp" that has not passed, and its "nbf" and "iat", when present, have come,
//     give or take the leeway ([WithLeeway], 30 seconds by default);
//   - it carries every scope of [WithRequiredScopes], in "scope" or "scp".
//
// The JWK Set is fetched when the Authorizer is made, again every hour (so that a key the
// issuer withdrew stops being accepted), and again when a token names a key ID that it does
// not hold, at most once a minute (so that the issuer can rotate its keys, and made-up key IDs
// cannot make the Authorizer fetch it more often).
//
// An Authorizer is safe for concurrent use. It keeps no token: errors, refusals and logs say
// why a token was refused, never what it held.
type Authorizer struct {
	resource    string
	metadata    server.ProtectedResourceMetadataConfig
	metadataURL string
	scopes      []string
	keys        keyfunc.Keyfunc
	parser      *jwt.Parser
	algorithms  []string
	onRefusal   func(r *http.Request, err error)
	owner       []string // the claims that name a session's caller
	sessions    *sessionOwners
}

// AuthOption configures an Authorizer.
type AuthOption func(*authConfig)

type authConfig struct {
	audiences  []string
	jwksURL    string
	scopes     []string
	algorithms []string
	leeway     time.Duration
	client     *http.Client
	onRefusal  func(r *http.Request, err error)
	owner      []string
}

// WithAudience has the Authorizer accept tokens whose "aud" names any of audiences instead
// of the resource's URL: for an authorization server that names resources by identifiers of
// its own. Accept only identifiers of this endpoint: a token meant for another service must
// not be accepted here.
func WithAudience(audiences ...string) AuthOption {
	return func(c *authConfig) { c.audiences = audiences }
}

// WithJWKSURL gives the URL of the issuer's JWK Set. Without it, NewAuthorizer finds it in the
// issuer's metadata: OAuth 2.0 Authorization Server Metadata (RFC 8414), or else OpenID
// Connect Discovery, at the addresses MCP's authorization specification lists.
func WithJWKSURL(url string) AuthOption {
	return func(c *authConfig) { c.jwksURL = url }
}

// WithRequiredScopes has the Authorizer refuse, with 403 and error="insufficient_scope", a
// token that lacks any of scopes. The scopes are also published in the metadata
// (scopes_supported) and in every challenge, so that a client asks for them.
func WithRequiredScopes(scopes ...string) AuthOption {
	return func(c *authConfig) { c.scopes = scopes }
}

// WithSigningAlgorithms narrows the JWS algorithms a token may be signed with. By default any
// of RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512 and EdDSA; "none" and the
// HMAC algorithms (HS256, ...) are refused by NewAuthorizer, since a resource server holds no
// secret shared with the issuer.
func WithSigningAlgorithms(algorithms ...string) AuthOption {
	return func(c *authConfig) { c.algorithms = algorithms }
}

// WithLeeway sets how far the clocks of the issuer and the server may differ when "exp",
// "nbf" and "iat" are checked: 30 seconds by default.
func WithLeeway(d time.Duration) AuthOption {
	return func(c *authConfig) { c.leeway = d }
}

// WithIssuerClient has the Authorizer fetch the issuer's metadata and JWK Set with client: for
// a proxy or a certificate authority of the program's own. By default, a client whose
// requests time out after 10 seconds.
func WithIssuerClient(client *http.Client) AuthOption {
	return func(c *authConfig) { c.client = client }
}

// WithRefusalHandler has h told of every request that Protect refuses, with why: ErrNoToken,
// a *TokenError, a *ScopeError or ErrForeignSession, none of which holds the token. h gets a
// copy of the request without its Authorization header, so that logging it cannot leak the
// token either. h is called on the request's goroutine, possibly from many at once, before the
// response is written, and must return promptly.
func WithRefusalHandler(h func(r *http.Request, err error)) AuthOption {
	return func(c *authConfig) { c.onRefusal = h }
}

// WithSessionOwner names the claims of a token that together say whose an MCP session is
// (Protect): by default the subject, "sub", which the issuer keeps unique. Give more for an
// issuer whose subjects are unique only within a tenant, such as "tenant" and "sub": the
// claims that say whose a chat is ([ClaimIdentity]) say whose a session is too. Name only
// claims that stay the same in the tokens the caller gets again (not "exp", "iat" or "jti"): a
// caller whose token names another owner gets 404 Not Found for its session, and must begin
// another.
func WithSessionOwner(claims ...string) AuthOption {
	return func(c *authConfig) { c.owner = claims }
}

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

// defaultAlgorithms are the asymmetric JWS algorithms that golang-jwt verifies.
var defaultAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// NewAuthorizer returns an Authorizer for the MCP endpoint at resource (its URL as clients
// reach it, such as "https://mcp.example.com/mcp"), whose tokens issuer signs (the issuer
// identifier of the authorization server, such as "https://auth.example.com"). Both URLs, and
// the JWK Set's, must be https, or http on a loopback host (for development and tests).
//
// NewAuthorizer fetches the issuer's metadata (without [WithJWKSURL]) and its JWK Set, and
// fails when it cannot. ctx bounds those fetches and the Authorizer's life: its keys are
// refreshed until ctx is done, and not after.
func NewAuthorizer(ctx context.Context, resource, issuer string, opts ...AuthOption) (*Authorizer, error) {
	c := authConfig{leeway: 30 * time.Second, client: &http.Client{Timeout: 10 * time.Second}, owner: []string{"sub"}}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	res, algorithms, err := c.check(resource, issuer)
	if err != nil {
		return nil, err
	}
	if c.jwksURL == "" {
		if c.jwksURL, err = discoverJWKS(ctx, c.client, issuer); err != nil {
			return nil, err
		}
		if _, err := checkURL("JWK Set", c.jwksURL); err != nil {
			return nil, err
		}
	}
	keys, err := fetchKeys(ctx, c.client, c.jwksURL)
	if err != nil {
		return nil, err
	}
	audiences := c.audiences
	if len(audiences) == 0 {
		audiences = []string{resource}
	}
	scopes := slices.Clone(c.scopes)
	path := server.ProtectedResourceMetadataPath(resource)
	return &Authorizer{
		resource: resource,
		metadata: server.ProtectedResourceMetadataConfig{
			Resource:               resource,
			AuthorizationServers:   []string{issuer},
			ScopesSupported:        scopes,
			BearerMethodsSupported: []string{"header"},
		},
		metadataURL: res.Scheme + "://" + res.Host + path,
		scopes:      scopes,
		keys:        keys,
		algorithms:  algorithms,
		onRefusal:   c.onRefusal,
		owner:       slices.Clone(c.owner),
		sessions:    newSessionOwners(),
		parser: jwt.NewParser(
			jwt.WithValidMethods(algorithms),
			jwt.WithIssuer(issuer),
			jwt.WithAudience(audiences...),
			jwt.WithExpirationRequired(),
			jwt.WithIssuedAt(),
			jwt.WithLeeway(c.leeway),
		),
	}, nil
}

// check checks the URLs and the algorithms before anything is fetched, and returns the
// resource's URL and the algorithms to allow.
func (c *authConfig) check(resource, issuer string) (*url.URL, []string, error) {
	res, err := checkURL("resource", resource)
	if err != nil {
		return nil, nil, err
	}
	if _, err := checkURL("issuer", issuer); err != nil {
		return nil, nil, err
	}
	if c.jwksURL != "" {
		if _, err := checkURL("JWK Set", c.jwksURL); err != nil {
			return nil, nil, err
		}
	}
	algorithms, err := checkAlgorithms(c.algorithms)
	if err != nil {
		return nil, nil, err
	}
	if len(c.owner) == 0 || slices.Contains(c.owner, "") {
		return nil, nil, fmt.Errorf("mcpbridge: WithSessionOwner(%q) must name the claims that say whose a session is, such as \"sub\"", c.owner)
	}
	return res, algorithms, nil
}

// fetchKeys fetches the JWK Set at jwksURL, and returns the function that finds a token's key
// in it: the keys are refreshed every hour and on an unknown key ID, as Authorizer says, until
// ctx is done. Keys marked for encryption ("use": "enc") are never used.
func fetchKeys(ctx context.Context, client *http.Client, jwksURL string) (_ keyfunc.Keyfunc, err error) {
	// The refresh goroutine starts before the first fetch: stop it when the fetch fails.
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		if err != nil {
			cancel()
		}
	}()
	failFirst := false
	set, err := keyfunc.NewDefaultOverrideCtx(ctx, []string{jwksURL}, keyfunc.Override{
		Client:                    client,
		HTTPTimeout:               10 * time.Second,
		NoErrorReturnFirstHTTPReq: &failFirst,
		RefreshInterval:           time.Hour,
		RefreshUnknownKID:         rate.NewLimiter(rate.Every(time.Minute), 1),
		// A token with an unknown key ID waits at most this long for the limiter and the fetch.
		RateLimitWaitMax: 5 * time.Second,
		RefreshErrorHandlerFunc: func(u string) func(context.Context, error) {
			return func(ctx context.Context, err error) {
				slog.Default().WarnContext(ctx, "mcpbridge: refreshing the issuer's JWK Set failed", "url", u, "error", err)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("mcpbridge: fetching the issuer's JWK Set at %s: %w", jwksURL, err)
	}
	sig, err := keyfunc.New(keyfunc.Options{Ctx: ctx, Storage: set.Storage(), UseWhitelist: []jwkset.USE{jwkset.UseSig, ""}})
	if err != nil {
		return nil, fmt.Errorf("mcpbridge: the issuer's JWK Set at %s: %w", jwksURL, err)
	}
	return sig, nil
}

// checkURL parses raw as an absolute URL without a fragment, https or, on a loopback host,
// http: a token or a key that crossed a network in the clear could have been read or replaced.
func checkURL(what, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Fragment != "" {
		return nil, fmt.Errorf("mcpbridge: the %s %q is not an absolute URL without a fragment", what, raw)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && isLoopback(u.Hostname()):
	default:
		return nil, fmt.Errorf("mcpbridge: the %s %q must be https (or http on a loopback host)", what, raw)
	}
	return u, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkAlgorithms returns the algorithms, or the default ones when there are none, refusing
// any that is not asymmetric.
func checkAlgorithms(algorithms []string) ([]string, error) {
	if len(algorithms) == 0 {
		return defaultAlgorithms, nil
	}
	for _, alg := range algorithms {
		if !slices.Contains(defaultAlgorithms, alg) {
			return nil, fmt.Errorf("mcpbridge: the signing algorithm %q is not one a resource server can verify with the issuer's public keys (%s)", alg, strings.Join(defaultAlgorithms, ", "))
		}
	}
	return slices.Clone(algorithms), nil
}

// discoverJWKS returns the jwks_uri of the issuer's metadata, tried at the addresses of MCP's
// authorization specification in its order.
func discoverJWKS(ctx context.Context, client *http.Client, issuer string) (string, error) {
	u, err := url.Parse(issuer)
	if err != nil {
		return "", fmt.Errorf("mcpbridge: the issuer %q: %w", issuer, err)
	}
	origin, path := u.Scheme+"://"+u.Host, strings.TrimSuffix(u.Path, "/")
	candidates := []string{
		origin + "/.well-known/oauth-authorization-server" + path,
		origin + "/.well-known/openid-configuration" + path,
	}
	if path != "" {
		candidates = append(candidates, origin+path+"/.well-known/openid-configuration")
	}
	var errs []error
	for _, at := range candidates {
		jwks, err := fetchMetadata(ctx, client, at, issuer)
		if err == nil {
			return jwks, nil
		}
		errs = append(errs, err)
	}
	return "", fmt.Errorf("mcpbridge: finding the JWK Set of the issuer %s (or give its URL with WithJWKSURL): %w", issuer, errors.Join(errs...))
}

// fetchMetadata fetches the authorization server metadata at addr and returns its jwks_uri.
// Metadata that names another issuer is refused (RFC 8414, section 3.3).
func fetchMetadata(ctx context.Context, client *http.Client, addr, issuer string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, addr, nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %s", addr, resp.Status)
	}
	var md struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&md); err != nil {
		return "", fmt.Errorf("%s: %w", addr, err)
	}
	switch {
	case md.Issuer != issuer:
		return "", fmt.Errorf("%s names the issuer %q, not %q", addr, md.Issuer, issuer)
	case md.JWKSURI == "":
		return "", fmt.Errorf("%s has no jwks_uri", addr)
	}
	return md.JWKSURI, nil
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

// serveSession serves r, of caller, with next, if r's session is caller's or none: a response
// that begins a session makes it caller's, and a DELETE that next accepts forgets it.
func (a *Authorizer) serveSession(w http.ResponseWriter, r *http.Request, next http.Handler, caller string) {
	id := r.Header.Get(server.HeaderKeySessionID)
	if id == "" {
		next.ServeHTTP(&sessionWriter{ResponseWriter: w, began: func(id string) { a.sessions.begin(id, caller) }}, r)
		return
	}
	owner, ok := a.sessions.enter(id, caller)
	if !ok {
		a.refuse(w, r, ErrForeignSession)
		return
	}
	defer a.sessions.leave(owner)
	if r.Method != http.MethodDelete {
		next.ServeHTTP(w, r)
		return
	}
	status := &statusWriter{ResponseWriter: w}
	next.ServeHTTP(status, r)
	if status.code == 0 || status.code == http.StatusOK || status.code == http.StatusNoContent {
		a.sessions.end(id)
	}
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

// Metadata returns the handler of the resource's Protected Resource Metadata (RFC 9728), as
// JSON: the resource, the issuer as its one authorization server, the required scopes, and
// "header" as the one way to send a token. Serve it at [Authorizer.MetadataPath], where the
// challenges point; a server whose one resource this is may serve it at
// server.WellKnownProtectedResourcePath too, where clients that got no challenge look last.
func (a *Authorizer) Metadata() http.Handler {
	return server.NewProtectedResourceMetadataHandler(a.metadata)
}

// MetadataPath returns the path of the resource's metadata on its host (RFC 9728, section
// 3.1): "/.well-known/oauth-protected-resource" followed by the resource's path, such as
// "/.well-known/oauth-protected-resource/mcp" for "https://mcp.example.com/mcp".
func (a *Authorizer) MetadataPath() string {
	return server.ProtectedResourceMetadataPath(a.resource)
}

// MetadataURL returns the URL of the resource's metadata, which every challenge gives as
// resource_metadata.
func (a *Authorizer) MetadataURL() string { return a.metadataURL }

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

// ClaimIdentity returns an identity for [WithIdentity] that takes the tenant and the user of
// a chat from the claims of the request's bearer token: tenantClaim names the tenant's claim
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
