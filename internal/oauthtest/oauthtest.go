// Package oauthtest runs an OAuth authorization server for tests: it serves its metadata
// (RFC 8414) and its JWK Set over HTTP on a loopback address, and signs access tokens (JWTs,
// RFC 9068) with keys made in the test. A test can publish other keys to rotate them, sign
// with a key it does not publish, and count how often the JWK Set was fetched.
package oauthtest

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"
)

// Key is a signing key and the key ID that tokens signed with it name.
type Key struct {
	ID     string
	Signer crypto.Signer
	Method jwt.SigningMethod
}

// NewKey makes an ECDSA P-256 key that signs with ES256.
func NewKey(t testing.TB, id string) Key {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return Key{ID: id, Signer: k, Method: jwt.SigningMethodES256}
}

// NewRSAKey makes a 2048-bit RSA key that signs with RS256.
func NewRSAKey(t testing.TB, id string) Key {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return Key{ID: id, Signer: k, Method: jwt.SigningMethodRS256}
}

// Sign returns the JWT of claims signed with key, its ID in the header.
func Sign(t testing.TB, key Key, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(key.Method, claims)
	tok.Header["kid"] = key.ID
	s, err := tok.SignedString(key.Signer)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Issuer is an authorization server on a loopback address. Its methods are safe for
// concurrent use.
type Issuer struct {
	URL string // the issuer identifier, and the base of its metadata's address

	mux *http.ServeMux

	mu      sync.Mutex
	keys    []Key // published
	fetches int   // of the JWK Set
}

// NewIssuer starts an issuer that publishes keys; it stops when the test ends.
func NewIssuer(t testing.TB, keys ...Key) *Issuer {
	t.Helper()
	mux := http.NewServeMux()
	i := &Issuer{keys: keys, mux: mux}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	i.URL = srv.URL
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, map[string]any{
			"issuer":                           i.URL,
			"jwks_uri":                         i.JWKSURL(),
			"authorization_endpoint":           i.URL + "/authorize",
			"token_endpoint":                   i.URL + "/token",
			"response_types_supported":         []string{"code"},
			"code_challenge_methods_supported": []string{"S256"},
		})
	})
	mux.HandleFunc("GET /jwks.json", func(w http.ResponseWriter, _ *http.Request) {
		i.mu.Lock()
		i.fetches++
		keys := i.keys
		i.mu.Unlock()
		set := jwkset.JWKSMarshal{Keys: []jwkset.JWKMarshal{}}
		for _, k := range keys {
			jwk, err := jwkset.NewJWKFromKey(k.Signer.Public(), jwkset.JWKOptions{Metadata: jwkset.JWKMetadataOptions{
				KID: k.ID, ALG: jwkset.ALG(k.Method.Alg()), USE: jwkset.UseSig,
			}})
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			set.Keys = append(set.Keys, jwk.Marshal())
		}
		writeJSON(w, set)
	})
	return i
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// Transport returns a RoundTripper that serves the issuer's requests in process, whatever
// their host, without a connection: for a client in a testing/synctest bubble, whose clock
// moves only while every goroutine in it waits on something of the bubble.
func (i *Issuer) Transport() http.RoundTripper {
	return roundTripper(func(r *http.Request) (*http.Response, error) {
		rec := httptest.NewRecorder()
		i.mux.ServeHTTP(rec, r)
		return rec.Result(), nil
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// JWKSURL returns the address of the issuer's JWK Set.
func (i *Issuer) JWKSURL() string { return i.URL + "/jwks.json" }

// Publish replaces the issuer's published keys with keys.
func (i *Issuer) Publish(keys ...Key) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.keys = keys
}

// KeyFetches returns how many times the JWK Set was fetched.
func (i *Issuer) KeyFetches() int {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.fetches
}

// Claims returns the claims of an access token of this issuer for audience, of subject,
// issued now and valid for an hour.
func (i *Issuer) Claims(audience, subject string) jwt.MapClaims {
	now := time.Now()
	return jwt.MapClaims{
		"iss": i.URL,
		"aud": audience,
		"sub": subject,
		"iat": now.Unix(),
		"exp": now.Add(time.Hour).Unix(),
	}
}

// Token returns an access token for audience, of subject, with the claims of Claims and
// extra, signed with the first published key.
func (i *Issuer) Token(t testing.TB, audience, subject string, extra map[string]any) string {
	t.Helper()
	i.mu.Lock()
	if len(i.keys) == 0 {
		i.mu.Unlock()
		t.Fatal("oauthtest: the issuer publishes no key to sign with")
	}
	key := i.keys[0]
	i.mu.Unlock()
	claims := i.Claims(audience, subject)
	for k, v := range extra {
		claims[k] = v
	}
	return Sign(t, key, claims)
}
