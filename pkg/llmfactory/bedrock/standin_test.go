package bedrock_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// The AWS credentials of the tests, which fakeAWS puts in the environment. The secret must
// never be seen outside a signature.
const (
	accessKey    = "AKIDCADRETEST0000001"
	secretKey    = "cadre-SECRET-wJalrXUtnFEMI-K7MDENG-0123"
	sessionToken = "cadre-session-TOKEN-0123456789"
	region       = "eu-west-3"
)

// fakeAWS sets the AWS SDK's environment for one test (see awsEnv), with empty shared config
// and credentials files in a temporary directory. It returns the config file, for a test to
// write a profile in.
func fakeAWS(t *testing.T, session bool) (configFile string) {
	t.Helper()
	dir := t.TempDir()
	configFile, credentials := filepath.Join(dir, "config"), filepath.Join(dir, "credentials")
	for _, f := range []string{configFile, credentials} {
		if err := os.WriteFile(f, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range awsEnv(configFile, credentials, session) {
		t.Setenv(k, v)
	}
	return configFile
}

// awsEnv is the AWS SDK's environment of the tests: their keys (with sessionToken when
// session is set), the shared config and credentials files given, and nothing else the SDK
// would read: no developer's profile, region, endpoint or Bedrock API key, and no instance
// metadata (no request leaves the machine).
func awsEnv(configFile, credentials string, session bool) map[string]string {
	token := ""
	if session {
		token = sessionToken
	}
	env := map[string]string{
		"AWS_ACCESS_KEY_ID": accessKey, "AWS_SECRET_ACCESS_KEY": secretKey, "AWS_SESSION_TOKEN": token,
		"AWS_CONFIG_FILE": configFile, "AWS_SHARED_CREDENTIALS_FILE": credentials,
		"AWS_EC2_METADATA_DISABLED": "true",
	}
	for _, k := range []string{"AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_REGION", "AWS_DEFAULT_REGION",
		"AWS_BEARER_TOKEN_BEDROCK", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS",
		"AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
		"AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CA_BUNDLE", "AWS_SDK_LOAD_CONFIG"} {
		env[k] = ""
	}
	return env
}

// standIn is Bedrock's runtime API on 127.0.0.1 as far as the tests need it: InvokeModel
// and InvokeModelWithResponseStream, answering from a script and recording what it got.
type standIn struct {
	*httptest.Server
	t *testing.T

	mu     sync.Mutex
	got    []received
	script []answer
}

// received is one request the stand-in got.
type received struct {
	Path   string // unescaped
	Header http.Header
	Body   []byte
	// SignatureErr is why the request's SigV4 signature is not the one the test's keys make;
	// nil when it is (or when the request has a bearer token instead).
	SignatureErr error
}

// JSON decodes the request's body.
func (r received) JSON(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("the body %s: %v", r.Body, err)
	}
	return m
}

// answer is one answer of the script: a status and a body, or the chunks of a stream.
type answer struct {
	status int
	body   string
	stream []string // the JSON chunks of a response stream, in order
}

func newStandIn(t *testing.T, tls bool, script ...answer) *standIn {
	t.Helper()
	s := &standIn{t: t, script: script}
	if tls {
		s.Server = httptest.NewTLSServer(http.HandlerFunc(s.serve))
	} else {
		s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	}
	t.Cleanup(s.Close)
	return s
}

// requests returns the requests the stand-in got.
func (s *standIn) requests() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.got...)
}

func (s *standIn) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rec := received{Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	if strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
		rec.SignatureErr = verifySignature(r, body)
	}
	s.mu.Lock()
	s.got = append(s.got, rec)
	var a answer
	ok := len(s.script) > 0
	if ok {
		a, s.script = s.script[0], s.script[1:]
	}
	s.mu.Unlock()
	switch {
	case !ok:
		s.t.Errorf("the stand-in got a request it has no answer for: %s %s", r.Method, r.URL.Path)
		writeError(w, http.StatusInternalServerError, "InternalServerException", "the stand-in has no more answers")
	case a.stream != nil:
		writeStream(s.t, w, a.stream)
	case a.status >= 400:
		writeError(w, a.status, errorType(a.status), a.body)
	default:
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Amzn-Bedrock-Input-Token-Count", "40")
		w.WriteHeader(max(a.status, http.StatusOK))
		io.WriteString(w, a.body)
	}
}

// writeError answers as Bedrock does: the exception's name in a header, its message in the
// body.
func writeError(w http.ResponseWriter, status int, typ, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-ErrorType", typ+":http://internal.amazon.com/coral/com.amazon.bedrock/")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"message": message})
}

func errorType(status int) string {
	switch {
	case status == http.StatusTooManyRequests:
		return "ThrottlingException"
	case status == http.StatusForbidden:
		return "AccessDeniedException"
	case status == http.StatusServiceUnavailable:
		return "ServiceUnavailableException"
	case status >= 500:
		return "InternalServerException"
	}
	return "ValidationException"
}

// writeStream answers InvokeModelWithResponseStream: each chunk in an event of an AWS event
// stream, as {"bytes": base64 of the chunk}.
func writeStream(t *testing.T, w http.ResponseWriter, chunks []string) {
	w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
	w.WriteHeader(http.StatusOK)
	enc := eventstream.NewEncoder()
	for _, c := range chunks {
		payload, _ := json.Marshal(map[string][]byte{"bytes": []byte(c)})
		msg := eventstream.Message{Payload: payload}
		msg.Headers.Set(":message-type", eventstream.StringValue("event"))
		msg.Headers.Set(":event-type", eventstream.StringValue("chunk"))
		msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
		if err := enc.Encode(w, msg); err != nil {
			t.Errorf("writing the stream: %v", err)
			return
		}
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
}

// verifySignature signs the request again as AWS would check it, with the test's keys and
// region, the time it was signed at and the headers it says it signed, and compares the
// signatures.
func verifySignature(r *http.Request, body []byte) error {
	auth := r.Header.Get("Authorization")
	_, signedList, ok := strings.Cut(auth, "SignedHeaders=")
	if !ok {
		return fmt.Errorf("no SignedHeaders in %q", auth)
	}
	signedList, _, _ = strings.Cut(signedList, ",")
	at, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		return fmt.Errorf("X-Amz-Date: %w", err)
	}
	again, err := http.NewRequest(r.Method, "http://"+r.Host+r.RequestURI, bytes.NewReader(body))
	if err != nil {
		return err
	}
	for _, h := range strings.Split(signedList, ";") {
		if h != "host" && h != "content-length" {
			again.Header[http.CanonicalHeaderKey(h)] = r.Header.Values(h)
		}
	}
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: accessKey, SecretAccessKey: secretKey, SessionToken: r.Header.Get("X-Amz-Security-Token")}
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, again, hex.EncodeToString(sum[:]), "bedrock", region, at); err != nil {
		return err
	}
	if want := again.Header.Get("Authorization"); want != auth {
		return fmt.Errorf("the signature is not the test keys':\n got  %s\n want %s", auth, want)
	}
	return nil
}

func writeFile(name, text string) error { return os.WriteFile(name, []byte(text), 0o600) }
