package mcpauth_test

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cadrehq/cadre/internal/oauthtest"
	"github.com/cadrehq/cadre/pkg/mcpauth"
	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"
)

// resource is the URL of the endpoint the unit tests protect; the handler is called directly.
const resource = "http://127.0.0.1:8080/mcp"

const metadataURL = "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"

// authorizer returns an Authorizer of iss for resource, whose key refreshes end with the test.
func authorizer(t *testing.T, iss *oauthtest.Issuer, opts ...mcpauth.Option) *mcpauth.Authorizer {
	t.Helper()
	a, err := mcpauth.NewAuthorizer(t.Context(), resource, iss.URL, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// refusals collects what a refusal handler is told.
type refusals struct {
	mu   sync.Mutex
	errs []error
}

func (r *refusals) handle(req *http.Request, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, err)
	if req.Header.Get("Authorization") != "" {
		r.errs = append(r.errs, errors.New("the refusal handler was given the Authorization header"))
	}
}

func (r *refusals) all() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.errs
}

// reached is a handler that counts the requests that reach it and keeps the last one's claims.
type reached struct {
	n      atomic.Int32
	claims atomic.Value
}

func (h *reached) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.n.Add(1)
	if c, ok := mcpauth.ClaimsFromContext(r.Context()); ok {
		h.claims.Store(c)
	}
	w.WriteHeader(http.StatusOK)
}

// send sends a request with the Authorization headers auth through a.Protect to next.
func send(a *mcpauth.Authorizer, next http.Handler, auth ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, resource, strings.NewReader(`{}`))
	for _, v := range auth {
		req.Header.Add("Authorization", v)
	}
	rec := httptest.NewRecorder()
	a.Protect(next).ServeHTTP(rec, req)
	return rec
}

func invalidToken(reason string) string {
	return `Bearer error="invalid_token", error_description="` + reason + `", resource_metadata="` + metadataURL + `"`
}

func TestProtectRefusesWhatIsNotAValidTokenForThisResource(t *testing.T) {
	t.Parallel()
	key := oauthtest.NewKey(t, "k1")
	iss := oauthtest.NewIssuer(t, key)
	log := &refusals{}
	a := authorizer(t, iss, mcpauth.WithRefusalHandler(log.handle))
	now := time.Now()
	with := func(change func(jwt.MapClaims)) string {
		c := iss.Claims(resource, "ana")
		change(c)
		return "Bearer " + oauthtest.Sign(t, key, c)
	}
	noChallenge := `Bearer resource_metadata="` + metadataURL + `"`

	// The classic confusion: HS256 with the issuer's public key as the shared secret.
	der, err := x509.MarshalPKIXPublicKey(key.Signer.Public())
	if err != nil {
		t.Fatal(err)
	}
	hmac := jwt.NewWithClaims(jwt.SigningMethodHS256, iss.Claims(resource, "ana"))
	hmac.Header["kid"] = "k1"
	confused, err := hmac.SignedString(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
	if err != nil {
		t.Fatal(err)
	}
	none := jwt.NewWithClaims(jwt.SigningMethodNone, iss.Claims(resource, "ana"))
	none.Header["kid"] = "k1"
	unsigned, err := none.SignedString(jwt.UnsafeAllowNoneSignatureType)
	if err != nil {
		t.Fatal(err)
	}

	cases := []struct {
		name      string
		auth      []string
		challenge string
	}{
		{"no token", nil, noChallenge},
		{"another scheme", []string{"Basic YW5hOnNlY3JldA=="}, noChallenge},
		{"Bearer and nothing", []string{"Bearer "}, invalidToken("the Authorization header does not hold one bearer token")},
		{"two tokens", []string{"Bearer a.b.c d.e.f"}, invalidToken("the Authorization header does not hold one bearer token")},
		{"two headers", []string{with(func(jwt.MapClaims) {}), with(func(jwt.MapClaims) {})}, invalidToken("the request has more than one Authorization header")},
		{"not a JWT", []string{"Bearer opaque-token-0123"}, invalidToken("it is not a well-formed JWT")},
		{"another audience", []string{with(func(c jwt.MapClaims) { c["aud"] = "https://other.example.com/mcp" })}, invalidToken("it is meant for another resource (audience)")},
		{"no audience", []string{with(func(c jwt.MapClaims) { delete(c, "aud") })}, invalidToken("it lacks a required claim (iss, aud or exp)")},
		{"another issuer", []string{with(func(c jwt.MapClaims) { c["iss"] = "https://evil.example.com" })}, invalidToken("another issuer issued it")},
		{"expired", []string{with(func(c jwt.MapClaims) { c["iat"], c["exp"] = now.Add(-2*time.Hour).Unix(), now.Add(-time.Hour).Unix() })}, invalidToken("it has expired")},
		{"no expiry", []string{with(func(c jwt.MapClaims) { delete(c, "exp") })}, invalidToken("it lacks a required claim (iss, aud or exp)")},
		{"not yet valid", []string{with(func(c jwt.MapClaims) { c["nbf"] = now.Add(time.Hour).Unix() })}, invalidToken("it is not valid yet")},
		{"issued in the future", []string{with(func(c jwt.MapClaims) { c["iat"] = now.Add(time.Hour).Unix() })}, invalidToken("it was issued in the future")},
		{"signed by another key under the issuer's key ID", []string{"Bearer " + oauthtest.Sign(t, oauthtest.NewKey(t, "k1"), iss.Claims(resource, "ana"))}, invalidToken("its signature does not verify")},
		{"alg none", []string{"Bearer " + unsigned}, invalidToken("its signing algorithm is not allowed")},
		{"HS256 with the public key", []string{"Bearer " + confused}, invalidToken("its signing algorithm is not allowed")},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			next := &reached{}
			rec := send(a, next, c.auth...)
			if rec.Code != http.StatusUnauthorized {
				t.Errorf("status %d, want 401", rec.Code)
			}
			if got := rec.Header().Get("WWW-Authenticate"); got != c.challenge {
				t.Errorf("WWW-Authenticate:\n got %s\nwant %s", got, c.challenge)
			}
			if n := next.n.Load(); n != 0 {
				t.Errorf("the protected handler ran %d times", n)
			}
			var body struct{ Error string }
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Error == "" {
				t.Errorf("body %q: %v", rec.Body, err)
			}
		})
	}

	// No refusal quotes a token, nor any part of one.
	errs := log.all()
	if len(errs) != len(cases) {
		t.Fatalf("the refusal handler was told of %d refusals, want %d", len(errs), len(cases))
	}
	for i, err := range errs {
		for _, h := range cases[i].auth {
			_, tok, _ := strings.Cut(h, " ")
			for part := range strings.SplitSeq(tok, ".") {
				if len(part) > 8 && strings.Contains(err.Error(), part) {
					t.Errorf("%s: the refusal %q quotes the token", cases[i].name, err)
				}
			}
		}
	}
}

func TestProtectLetsAValidTokenThroughWithItsClaims(t *testing.T) {
	t.Parallel()
	for _, key := range []oauthtest.Key{oauthtest.NewKey(t, "ec"), oauthtest.NewRSAKey(t, "rsa")} {
		t.Run(key.Method.Alg(), func(t *testing.T) {
			t.Parallel()
			iss := oauthtest.NewIssuer(t, key)
			a := authorizer(t, iss)
			now := time.Now()
			for name, change := range map[string]func(jwt.MapClaims){
				"fresh":                       func(jwt.MapClaims) {},
				"audience among several":      func(c jwt.MapClaims) { c["aud"] = []string{"https://other.example.com", resource} },
				"expired within the leeway":   func(c jwt.MapClaims) { c["exp"] = now.Add(-10 * time.Second).Unix() },
				"valid within the leeway":     func(c jwt.MapClaims) { c["nbf"] = now.Add(10 * time.Second).Unix() },
				"issued within the leeway":    func(c jwt.MapClaims) { c["iat"] = now.Add(10 * time.Second).Unix() },
				"with claims of the issuer's": func(c jwt.MapClaims) { c["tenant"] = "acme" },
			} {
				claims := iss.Claims(resource, "ana")
				change(claims)
				next := &reached{}
				rec := send(a, next, "Bearer "+oauthtest.Sign(t, key, claims))
				if rec.Code != http.StatusOK || next.n.Load() != 1 {
					t.Errorf("%s: status %d, %d calls, WWW-Authenticate %q; want it through", name, rec.Code, next.n.Load(), rec.Header().Get("WWW-Authenticate"))
					continue
				}
				got, _ := next.claims.Load().(mcpauth.Claims)
				if got["sub"] != "ana" || got["iss"] != iss.URL {
					t.Errorf("%s: claims %v", name, got)
				}
			}
		})
	}
}

// A token signed with a key the Authorizer does not hold makes it fetch the JWK Set again, so
// that the issuer can rotate its keys; made-up key IDs cannot make it fetch more than once a
// minute, and a token that would have to wait for that is refused at once. (In a bubble: the
// limiter's minute passes in no time when a token waits for it.)
func TestProtectRefreshesTheKeysOnAnUnknownKeyID(t *testing.T) {
	t.Parallel()
	old, rotated := oauthtest.NewKey(t, "old"), oauthtest.NewKey(t, "new")
	iss := oauthtest.NewIssuer(t, old)
	synctest.Test(t, func(t *testing.T) {
		a, err := mcpauth.NewAuthorizer(t.Context(), resource, iss.URL, mcpauth.WithIssuerClient(&http.Client{Transport: iss.Transport()}))
		if err != nil {
			t.Fatal(err)
		}
		if n := iss.KeyFetches(); n != 1 {
			t.Fatalf("%d fetches of the JWK Set by NewAuthorizer, want 1", n)
		}
		status := func(key oauthtest.Key) int {
			return send(a, &reached{}, "Bearer "+oauthtest.Sign(t, key, iss.Claims(resource, "ana"))).Code
		}
		if got := status(old); got != http.StatusOK {
			t.Fatalf("a token of the published key: %d", got)
		}

		iss.Publish(rotated) // the issuer rotates: the old key is withdrawn
		if got := status(rotated); got != http.StatusOK {
			t.Errorf("a token of the rotated key: %d, want 200 after a refresh", got)
		}
		if n := iss.KeyFetches(); n != 2 {
			t.Errorf("%d fetches after the rotation, want 2", n)
		}
		if got := status(old); got != http.StatusUnauthorized {
			t.Errorf("a token of the withdrawn key: %d, want 401", got)
		}
		start := time.Now()
		rec := send(a, &reached{}, "Bearer "+oauthtest.Sign(t, oauthtest.NewKey(t, "made-up"), iss.Claims(resource, "ana")))
		if want := invalidToken("it is not signed with a key that the issuer publishes"); rec.Header().Get("WWW-Authenticate") != want {
			t.Errorf("a made-up key ID: %d %s, want 401 %s", rec.Code, rec.Header().Get("WWW-Authenticate"), want)
		}
		if waited := time.Since(start); waited != 0 {
			t.Errorf("a made-up key ID within the minute was refused after %v, want at once", waited)
		}
		if n := iss.KeyFetches(); n != 2 {
			t.Errorf("%d fetches after two unknown key IDs within a minute, want still 2", n)
		}
	})
}

// The Authorizer fetches the JWK Set every hour while its context lasts: a key published since
// is known before any token names it.
func TestAuthorizerRefreshesTheKeysEveryHour(t *testing.T) {
	t.Parallel()
	old, rotated := oauthtest.NewKey(t, "old"), oauthtest.NewKey(t, "new")
	iss := oauthtest.NewIssuer(t, old)
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		a, err := mcpauth.NewAuthorizer(ctx, resource, iss.URL, mcpauth.WithIssuerClient(&http.Client{Transport: iss.Transport()}))
		if err != nil {
			t.Fatal(err)
		}
		iss.Publish(rotated)
		time.Sleep(time.Hour - time.Minute)
		synctest.Wait()
		if n := iss.KeyFetches(); n != 1 {
			t.Errorf("%d fetches of the JWK Set within the hour, want 1", n)
		}
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		if n := iss.KeyFetches(); n != 2 {
			t.Fatalf("%d fetches of the JWK Set after an hour, want 2", n)
		}
		// The hourly fetch brought the new key: a token of it needs no fetch of its own.
		if rec := send(a, &reached{}, "Bearer "+oauthtest.Sign(t, rotated, iss.Claims(resource, "ana"))); rec.Code != http.StatusOK {
			t.Errorf("a token of the published key: %d, want 200", rec.Code)
		}
		if n := iss.KeyFetches(); n != 2 {
			t.Errorf("%d fetches, want still 2: the hourly refresh found the new key", n)
		}
		if rec := send(a, &reached{}, "Bearer "+oauthtest.Sign(t, old, iss.Claims(resource, "ana"))); rec.Code != http.StatusUnauthorized {
			t.Errorf("a token of the withdrawn key: %d, want 401", rec.Code)
		}
	})
}

// The fetches of NewAuthorizer give up after 10 seconds each: the default client's requests
// time out (the metadata is looked for at two addresses), and a fetch of the JWK Set ends then
// even through a client of the program's own that has no timeout.
func TestNewAuthorizerGivesUpOnAStalledIssuer(t *testing.T) {
	t.Parallel()
	t.Run("metadata, default client", func(t *testing.T) {
		t.Parallel()
		// It never answers at the first address of its metadata; at the other, it has none.
		stalled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.URL.Path, "oauth-authorization-server") {
				<-r.Context().Done()
			}
			http.NotFound(w, r)
		}))
		t.Cleanup(stalled.Close) // after t.Context() is done, which ends the request of a stuck NewAuthorizer
		failed := make(chan error, 1)
		go func() {
			_, err := mcpauth.NewAuthorizer(t.Context(), resource, stalled.URL)
			failed <- err
		}()
		select {
		case err := <-failed:
			if err == nil {
				t.Fatal("NewAuthorizer succeeded against an issuer that never answers")
			}
		case <-time.After(40 * time.Second):
			t.Fatal("NewAuthorizer still waits for an issuer that never answers after 40 s; the default client's requests time out after 10 s")
		}
	})
	t.Run("JWK Set, a client without a timeout", func(t *testing.T) {
		t.Parallel()
		synctest.Test(t, func(t *testing.T) {
			stalled := roundTripFunc(func(r *http.Request) (*http.Response, error) {
				<-r.Context().Done()
				return nil, r.Context().Err()
			})
			start := time.Now()
			_, err := mcpauth.NewAuthorizer(t.Context(), resource, "http://127.0.0.1:9/",
				mcpauth.WithJWKSURL("http://127.0.0.1:9/jwks.json"), mcpauth.WithIssuerClient(&http.Client{Transport: stalled}))
			if err == nil {
				t.Fatal("NewAuthorizer succeeded against a JWK Set that never answers")
			}
			if waited := time.Since(start); waited != 10*time.Second {
				t.Errorf("NewAuthorizer gave up after %v, want 10s", waited)
			}
		})
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestProtectRequiresScopes(t *testing.T) {
	t.Parallel()
	key := oauthtest.NewKey(t, "k1")
	iss := oauthtest.NewIssuer(t, key)
	a := authorizer(t, iss, mcpauth.WithRequiredScopes("chats", "tools"))
	token := func(extra map[string]any) string {
		return "Bearer " + iss.Token(t, resource, "ana", extra)
	}
	cases := []struct {
		name      string
		auth      []string
		status    int
		challenge string
	}{
		{"no token", nil, 401, `Bearer scope="chats tools", resource_metadata="` + metadataURL + `"`},
		{"no scope", []string{token(nil)}, 403, `Bearer error="insufficient_scope", error_description="the bearer token lacks the scopes chats tools", scope="chats tools", resource_metadata="` + metadataURL + `"`},
		{"one of two", []string{token(map[string]any{"scope": "chats profile"})}, 403, `Bearer error="insufficient_scope", error_description="the bearer token lacks the scopes tools", scope="chats tools", resource_metadata="` + metadataURL + `"`},
		{"scope", []string{token(map[string]any{"scope": "profile tools chats"})}, 200, ""},
		{"scp list", []string{token(map[string]any{"scp": []string{"chats", "tools"}})}, 200, ""},
	}
	for _, c := range cases {
		next := &reached{}
		rec := send(a, next, c.auth...)
		if rec.Code != c.status || rec.Header().Get("WWW-Authenticate") != c.challenge {
			t.Errorf("%s: %d %s\nwant %d %s", c.name, rec.Code, rec.Header().Get("WWW-Authenticate"), c.status, c.challenge)
		}
		want := int32(0) // runs
		if c.status == http.StatusOK {
			want = 1
		}
		if n := next.n.Load(); n != want {
			t.Errorf("%s: the handler ran %d times, want %d", c.name, n, want)
		}
	}
}

func TestMetadataIsTheProtectedResourceMetadata(t *testing.T) {
	t.Parallel()
	iss := oauthtest.NewIssuer(t, oauthtest.NewKey(t, "k1"))
	a := authorizer(t, iss, mcpauth.WithRequiredScopes("chats"))
	if got, want := a.MetadataPath(), "/.well-known/oauth-protected-resource/mcp"; got != want {
		t.Errorf("MetadataPath %q, want %q", got, want)
	}
	if a.MetadataURL() != metadataURL {
		t.Errorf("MetadataURL %q, want %q", a.MetadataURL(), metadataURL)
	}
	rec := httptest.NewRecorder()
	a.Metadata().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, metadataURL, nil))
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s: %s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
	}
	var got map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"resource":                 resource,
		"authorization_servers":    []any{iss.URL},
		"bearer_methods_supported": []any{"header"},
		"scopes_supported":         []any{"chats"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("metadata (-want +got):\n%s", d)
	}
}

func TestNewAuthorizerRefusesWhatCannotBeSafe(t *testing.T) {
	t.Parallel()
	iss := oauthtest.NewIssuer(t, oauthtest.NewKey(t, "k1"))
	// Metadata that names another issuer than the one it was fetched for.
	liar := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": iss.URL, "jwks_uri": iss.JWKSURL()})
	}))
	t.Cleanup(liar.Close)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()

	cases := []struct {
		name, resource, issuer string
		opts                   []mcpauth.Option
		want                   string
	}{
		{"a resource in the clear", "http://mcp.example.com/mcp", iss.URL, nil, `the resource "http://mcp.example.com/mcp" must be https`},
		{"a relative resource", "/mcp", iss.URL, nil, "not an absolute URL"},
		{"an issuer in the clear", resource, "http://auth.example.com", nil, `the issuer "http://auth.example.com" must be https`},
		{"a JWK Set in the clear", resource, iss.URL, []mcpauth.Option{mcpauth.WithJWKSURL("http://auth.example.com/jwks")}, "must be https"},
		{"HS256", resource, iss.URL, []mcpauth.Option{mcpauth.WithSigningAlgorithms("ES256", "HS256")}, `"HS256" is not one`},
		{"none", resource, iss.URL, []mcpauth.Option{mcpauth.WithSigningAlgorithms("none")}, `"none" is not one`},
		{"metadata of another issuer", resource, liar.URL, nil, "names the issuer"},
		{"an issuer that does not answer", resource, gone.URL, nil, "finding the JWK Set of the issuer"},
		{"a JWK Set that does not answer", resource, iss.URL, []mcpauth.Option{mcpauth.WithJWKSURL(gone.URL + "/jwks")}, "fetching the issuer's JWK Set"},
	}
	for _, c := range cases {
		_, err := mcpauth.NewAuthorizer(t.Context(), c.resource, c.issuer, c.opts...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}

	// The JWK Set given instead of found: NewAuthorizer fetches no metadata.
	if _, err := mcpauth.NewAuthorizer(t.Context(), resource, liar.URL, mcpauth.WithJWKSURL(iss.JWKSURL())); err != nil {
		t.Errorf("with WithJWKSURL: %v", err)
	}
}

func TestClaimIdentity(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name                string
		claims              mcpauth.Claims // nil: no token
		tenantClaim         string
		tenant, user, error string
	}{
		{"tenant and user", mcpauth.Claims{"tenant": "acme", "sub": "ana"}, "tenant", "acme", "ana", ""},
		{"one tenant", mcpauth.Claims{"sub": "ana"}, "", "", "ana", ""},
		{"no tenant", mcpauth.Claims{"sub": "ana"}, "tenant", "", "", `the bearer token has no claim "tenant"`},
		{"an empty tenant", mcpauth.Claims{"tenant": "", "sub": "ana"}, "tenant", "", "", `the bearer token has no claim "tenant"`},
		{"a tenant that is not a string", mcpauth.Claims{"tenant": 7.0, "sub": "ana"}, "tenant", "", "", `the bearer token has no claim "tenant"`},
		{"no user", mcpauth.Claims{"tenant": "acme"}, "tenant", "", "", `the bearer token has no claim "sub"`},
		{"no token", nil, "tenant", "", "", "no checked bearer token"},
	}
	for _, c := range cases {
		ctx := context.Background()
		if c.claims != nil {
			ctx = withClaims(t, c.claims)
		}
		tenant, user, err := mcpauth.ClaimIdentity(c.tenantClaim, "sub")(ctx)
		if c.error != "" {
			if err == nil || !strings.Contains(err.Error(), c.error) {
				t.Errorf("%s: %q %q %v, want an error saying %q", c.name, tenant, user, err, c.error)
			}
			continue
		}
		if err != nil || tenant != c.tenant || user != c.user {
			t.Errorf("%s: %q %q %v, want %q %q", c.name, tenant, user, err, c.tenant, c.user)
		}
	}
}

// withClaims returns a context holding claims as Protect puts them there: it lets a token of
// them through a.Protect and keeps the request's context.
func withClaims(t *testing.T, claims mcpauth.Claims) context.Context {
	t.Helper()
	key := oauthtest.NewKey(t, "k1")
	iss := oauthtest.NewIssuer(t, key)
	a := authorizer(t, iss)
	c := iss.Claims(resource, "")
	delete(c, "sub")
	for k, v := range claims {
		c[k] = v
	}
	var ctx context.Context
	send(a, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { ctx = r.Context() }), "Bearer "+oauthtest.Sign(t, key, c))
	if ctx == nil {
		t.Fatal("the token was refused")
	}
	return ctx
}

// An issuer with a path that publishes OpenID Connect discovery only, as Keycloak's realms do:
// NewAuthorizer finds its JWK Set at the last address MCP's specification lists.
func TestNewAuthorizerFindsTheKeysOfAnOpenIDProvider(t *testing.T) {
	t.Parallel()
	key := oauthtest.NewKey(t, "k1")
	keys := oauthtest.NewIssuer(t, key)
	mux := http.NewServeMux()
	provider := httptest.NewServer(mux)
	t.Cleanup(provider.Close)
	issuer := provider.URL + "/realms/acme"
	mux.HandleFunc("GET /realms/acme/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": issuer, "jwks_uri": keys.JWKSURL()})
	})
	a, err := mcpauth.NewAuthorizer(t.Context(), resource, issuer)
	if err != nil {
		t.Fatal(err)
	}
	claims := keys.Claims(resource, "ana")
	claims["iss"] = issuer
	if rec := send(a, &reached{}, "Bearer "+oauthtest.Sign(t, key, claims)); rec.Code != http.StatusOK {
		t.Errorf("a token of the provider: %d %s", rec.Code, rec.Header().Get("WWW-Authenticate"))
	}
}
