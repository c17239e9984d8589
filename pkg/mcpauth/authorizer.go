package mcpauth

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

// Option configures an Authorizer.
type Option func(*config)

type config struct {
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
func WithAudience(audiences ...string) Option {
	return func(c *config) { c.audiences = audiences }
}

// WithJWKSURL gives the URL of the issuer's JWK Set. Without it, NewAuthorizer finds it in the
// issuer's metadata: OAuth 2.0 Authorization Server Metadata (RFC 8414), or else OpenID
// Connect Discovery, at the addresses MCP's authorization specification lists.
func WithJWKSURL(url string) Option {
	return func(c *config) { c.jwksURL = url }
}

// WithRequiredScopes has the Authorizer refuse, with 403 and error="insufficient_scope", a
// token that lacks any of scopes. The scopes are also published in the metadata
// (scopes_supported) and in every challenge, so that a client asks for them.
func WithRequiredScopes(scopes ...string) Option {
	return func(c *config) { c.scopes = scopes }
}

// WithSigningAlgorithms narrows the JWS algorithms a token may be signed with. By default any
// of RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512 and EdDSA; "none" and the
// HMAC algorithms (HS256, ...) are refused by NewAuthorizer, since a resource server holds no
// secret shared with the issuer.
func WithSigningAlgorithms(algorithms ...string) Option {
	return func(c *config) { c.algorithms = algorithms }
}

// WithLeeway sets how far the clocks of the issuer and the server may differ when "exp",
// "nbf" and "iat" are checked: 30 seconds by default.
func WithLeeway(d time.Duration) Option {
	return func(c *config) { c.leeway = d }
}

// WithIssuerClient has the Authorizer fetch the issuer's metadata and JWK Set with client: for
// a proxy or a certificate authority of the program's own. By default, a client whose
// requests time out after 10 seconds.
func WithIssuerClient(client *http.Client) Option {
	return func(c *config) { c.client = client }
}

// WithRefusalHandler has h told of every request that Protect refuses, with why: ErrNoToken,
// a *TokenError, a *ScopeError or ErrForeignSession, none of which holds the token. h gets a
// copy of the request without its Authorization header, so that logging it cannot leak the
// token either. h is called on the request's goroutine, possibly from many at once, before the
// response is written, and must return promptly.
func WithRefusalHandler(h func(r *http.Request, err error)) Option {
	return func(c *config) { c.onRefusal = h }
}

// WithSessionOwner names the claims of a token that together say whose an MCP session is
// (Protect): by default the subject, "sub", which the issuer keeps unique. Give more for an
// issuer whose subjects are unique only within a tenant, such as "tenant" and "sub": the
// claims that say whose a chat is ([ClaimIdentity]) say whose a session is too. Name only
// claims that stay the same in the tokens the caller gets again (not "exp", "iat" or "jti"): a
// caller whose token names another owner gets 404 Not Found for its session, and must begin
// another.
func WithSessionOwner(claims ...string) Option {
	return func(c *config) { c.owner = claims }
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
func NewAuthorizer(ctx context.Context, resource, issuer string, opts ...Option) (*Authorizer, error) {
	c := config{leeway: 30 * time.Second, client: &http.Client{Timeout: 10 * time.Second}, owner: []string{"sub"}}
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
func (c *config) check(resource, issuer string) (*url.URL, []string, error) {
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
		return nil, nil, fmt.Errorf("mcpauth: WithSessionOwner(%q) must name the claims that say whose a session is, such as \"sub\"", c.owner)
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
				slog.Default().WarnContext(ctx, "mcpauth: refreshing the issuer's JWK Set failed", "url", u, "error", err)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("mcpauth: fetching the issuer's JWK Set at %s: %w", jwksURL, err)
	}
	sig, err := keyfunc.New(keyfunc.Options{Ctx: ctx, Storage: set.Storage(), UseWhitelist: []jwkset.USE{jwkset.UseSig, ""}})
	if err != nil {
		return nil, fmt.Errorf("mcpauth: the issuer's JWK Set at %s: %w", jwksURL, err)
	}
	return sig, nil
}

// checkURL parses raw as an absolute URL without a fragment, https or, on a loopback host,
// http: a token or a key that crossed a network in the clear could have been read or replaced.
func checkURL(what, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Fragment != "" {
		return nil, fmt.Errorf("mcpauth: the %s %q is not an absolute URL without a fragment", what, raw)
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && isLoopback(u.Hostname()):
	default:
		return nil, fmt.Errorf("mcpauth: the %s %q must be https (or http on a loopback host)", what, raw)
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
			return nil, fmt.Errorf("mcpauth: the signing algorithm %q is not one a resource server can verify with the issuer's public keys (%s)", alg, strings.Join(defaultAlgorithms, ", "))
		}
	}
	return slices.Clone(algorithms), nil
}

// discoverJWKS returns the jwks_uri of the issuer's metadata, tried at the addresses of MCP's
// authorization specification in its order.
func discoverJWKS(ctx context.Context, client *http.Client, issuer string) (string, error) {
	u, err := url.Parse(issuer)
	if err != nil {
		return "", fmt.Errorf("mcpauth: the issuer %q: %w", issuer, err)
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
	return "", fmt.Errorf("mcpauth: finding the JWK Set of the issuer %s (or give its URL with WithJWKSURL): %w", issuer, errors.Join(errs...))
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
