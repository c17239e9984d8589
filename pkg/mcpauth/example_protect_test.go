package mcpauth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/cadrehq/cadre/pkg/mcpauth"
	"github.com/cadrehq/cadre/pkg/mcpbridge"
	"github.com/cadrehq/cadre/pkg/tool"
	"github.com/golang-jwt/jwt/v5"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// Serve a tool to callers with an access token: Protect lets through only the requests whose
// token the issuer signed for this endpoint, with the scope "tools", and the tool reads who
// calls from the token's claims. A caller without a token is told where the metadata is.
func ExampleAuthorizer_Protect() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel() // ends the Authorizer's refreshes of the issuer's keys
	iss := startIssuer()
	defer iss.Close()

	mux := http.NewServeMux()
	web := httptest.NewServer(mux)
	defer web.Close()
	endpoint := web.URL + "/mcp"
	auth, err := mcpauth.NewAuthorizer(ctx, endpoint, iss.URL, mcpauth.WithRequiredScopes("tools"))
	if err != nil {
		log.Fatal(err)
	}

	s := server.NewMCPServer("whoami", "1.0.0")
	caller := mcpauth.ClaimIdentity("tenant", "sub")
	whoami := tool.Func("whoami", "Says who calls.", func(ctx context.Context, _ struct{}) (string, error) {
		tenant, user, err := caller(ctx)
		return user + " of " + tenant, err
	})
	if err := mcpbridge.AddTool(s, whoami); err != nil {
		log.Fatal(err)
	}
	mux.Handle("/mcp", auth.Protect(mcpbridge.CancellationHandler(server.NewStreamableHTTPServer(s))))
	mux.Handle(auth.MetadataPath(), auth.Metadata())

	call := func(token string) {
		headers := map[string]string{}
		if token != "" {
			headers["Authorization"] = "Bearer " + token
		}
		c, err := client.NewStreamableHttpClient(endpoint, transport.WithHTTPHeaders(headers))
		if err != nil {
			log.Fatal(err)
		}
		defer c.Close()
		if err := c.Start(ctx); err != nil {
			log.Fatal(err)
		}
		var authErr *transport.AuthorizationRequiredError
		if _, err := c.Initialize(ctx, mcp.InitializeRequest{}); errors.As(err, &authErr) {
			fmt.Println("refused; the metadata is at", strings.TrimPrefix(authErr.ResourceMetadataURL, web.URL))
			return
		} else if err != nil {
			log.Fatal(err)
		}
		var req mcp.CallToolRequest
		req.Params.Name = "whoami"
		res, err := c.CallTool(ctx, req)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.Content[0].(mcp.TextContent).Text)
	}
	call(iss.token(endpoint, map[string]any{"sub": "ana", "tenant": "acme", "scope": "tools"}))
	call("")
	// Output:
	// ana of acme
	// refused; the metadata is at /.well-known/oauth-protected-resource/mcp
}

// issuer stands for the organisation's authorization server: it publishes its metadata and
// its public key, and signs access tokens.
type issuer struct {
	*httptest.Server
	key *ecdsa.PrivateKey
}

func startIssuer() *issuer {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	iss := &issuer{key: key}
	mux := http.NewServeMux()
	iss.Server = httptest.NewServer(mux)
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": iss.URL, "jwks_uri": iss.URL + "/jwks.json"})
	})
	mux.HandleFunc("GET /jwks.json", func(w http.ResponseWriter, _ *http.Request) {
		jwk, err := jwkset.NewJWKFromKey(key.Public(), jwkset.JWKOptions{Metadata: jwkset.JWKMetadataOptions{KID: "k1", ALG: jwkset.AlgES256, USE: jwkset.UseSig}})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		_ = json.NewEncoder(w).Encode(jwkset.JWKSMarshal{Keys: []jwkset.JWKMarshal{jwk.Marshal()}})
	})
	return iss
}

// token returns an access token for audience with claims, valid for an hour.
func (iss *issuer) token(audience string, claims map[string]any) string {
	c := jwt.MapClaims{"iss": iss.URL, "aud": audience, "iat": time.Now().Unix(), "exp": time.Now().Add(time.Hour).Unix()}
	for k, v := range claims {
		c[k] = v
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodES256, c)
	tok.Header["kid"] = "k1"
	s, err := tok.SignedString(iss.key)
	if err != nil {
		log.Fatal(err)
	}
	return s
}
