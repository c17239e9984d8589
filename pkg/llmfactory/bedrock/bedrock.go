package bedrock

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/auth/bearer"
	"github.com/aws/smithy-go/middleware"
	"github.com/cadrehq/cadre/pkg/llmfactory"
	"github.com/cadrehq/cadre/pkg/model"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/bedrock"
)

// Type returns the bedrock provider type. Its client sends InvokeModel requests through the
// factory's HTTP client (so it gets cadre's retries, timeouts and error reports; the AWS SDK's
// own retries are off), signed with SigV4 from the AWS SDK's default credential chain, or with
// the provider's api_key as a Bedrock API key. Its providers take a region.
func Type() llmfactory.ProviderType {
	f := model.Facts("bedrock")
	return llmfactory.ProviderType{New: newClient, Shape: f.Shape, NoTools: f.DropsTools, Provider: "bedrock", Regional: true}
}

// errNoRegion is returned when neither llm.yaml nor the AWS configuration names a region.
var errNoRegion = errors.New("no AWS region: give the provider one in llm.yaml (region: us-east-1, or region: ${AWS_REGION}), " +
	"or set AWS_REGION, or a region in the AWS profile in use")

func newClient(p llmfactory.Provider, id string) (llms.Model, error) {
	fam := family(id)
	if fam == "" {
		return nil, fmt.Errorf("model id %q is of no model family langchaingo's bedrock client knows: "+
			"use an id (or inference profile) of anthropic, amazon (Titan, Nova), meta, cohere or ai21, e.g. anthropic.claude-3-5-sonnet-20241022-v2:0", id)
	}
	var load []func(*config.LoadOptions) error
	if p.Region != "" {
		load = append(load, config.WithRegion(p.Region))
	}
	// The configuration and the credentials come from where the AWS SDK finds them: the
	// environment, the shared config and credentials files and their profile, web identity,
	// the container's or the instance's role. The credentials are looked up at the first
	// request, and again when they expire.
	cfg, err := config.LoadDefaultConfig(context.Background(), load...)
	if err != nil {
		return nil, fmt.Errorf("loading the AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		return nil, errNoRegion
	}
	rt := bedrockruntime.NewFromConfig(cfg, func(o *bedrockruntime.Options) {
		// Only Bedrock's requests go through the factory's client: those for credentials (to
		// STS, SSO, the instance's metadata) keep the SDK's own, and are no model's failure.
		o.HTTPClient = p.HTTPClient
		o.Retryer = aws.NopRetryer{} // the factory's transport retries
		if p.BaseURL != "" {
			o.BaseEndpoint = aws.String(p.BaseURL)
		}
		if fam == "anthropic" {
			o.APIOptions = append(o.APIOptions, keepCut)
		}
		if p.APIKey != "" {
			key := p.APIKey
			o.BearerAuthTokenProvider = bearer.TokenProviderFunc(func(context.Context) (bearer.Token, error) {
				return bearer.Token{Value: key.Reveal()}, nil
			})
			o.AuthSchemePreference = []string{"httpBearerAuth"}
		}
	})
	llm, err := bedrock.New(bedrock.WithClient(rt), bedrock.WithModel(id), bedrock.WithModelProvider(fam))
	if err != nil {
		return nil, err
	}
	c := &client{llm: llm, id: id, tools: fam == "anthropic"}
	if c.tools {
		c.maxTokens = model.Facts("bedrock").MaxTokens
	}
	return c, nil
}

// family is the model family of a Bedrock model id as langchaingo's client tells it (it
// sends each family its own request body), or "" for one it does not know. An inference
// profile (us.anthropic.claude-...) or its ARN names its family too.
func family(id string) string {
	// In the client's own order: an id that names two families is of the first.
	switch {
	case strings.Contains(id, ".nova-"):
		return "nova"
	case strings.Contains(id, "ai21"):
		return "ai21"
	case strings.Contains(id, "amazon"):
		return "amazon"
	case strings.Contains(id, "anthropic"):
		return "anthropic"
	case strings.Contains(id, "cohere"):
		return "cohere"
	case strings.Contains(id, "meta"):
		return "meta"
	}
	return ""
}

// client is langchaingo's bedrock client made fit for cadre: it sends tools only to the
// models that take them, does not lose a turn's tool calls to a stream, and gives Anthropic's
// models an output token limit that does not cut long answers short.
type client struct {
	llm       *bedrock.LLM
	id        string
	tools     bool // the family takes tools: Anthropic's only
	maxTokens int  // the default output token limit; 0 for the family's own
}

// SupportsTools reports whether the model takes tool definitions: langchaingo's client sends
// them to Anthropic's models only, and drops them for the others. It makes the model's
// model.Model NoTools, so that an assistant asks for its output in the prompt.
func (c *client) SupportsTools() bool { return c.tools }

func (c *client) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	if len(o.Tools) > 0 {
		if !c.tools {
			return nil, fmt.Errorf("bedrock model %q takes no tools (langchaingo's client sends them to Anthropic's models only), and %d were given", c.id, len(o.Tools))
		}
		// The client's stream carries the text only, and loses the tool calls: without one, the
		// answer comes whole (an assistant then streams its text as one chunk).
		if o.StreamingFunc != nil {
			opts = append(opts[:len(opts):len(opts)], llms.WithStreamingFunc(nil))
		}
	}
	if c.maxTokens > 0 && o.MaxTokens == 0 {
		opts = append([]llms.CallOption{llms.WithMaxTokens(c.maxTokens)}, opts...)
	}
	var cut bool
	resp, err := c.llm.GenerateContent(context.WithValue(ctx, cutKey{}, &cut), msgs, opts...)
	if err == nil && cut {
		for _, ch := range resp.Choices {
			ch.StopReason = "max_tokens"
		}
	}
	if err != nil && noIdentity(err) {
		return nil, fmt.Errorf("%w: the AWS SDK found no credentials it could use. It looks in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "+
			"in the profile AWS_PROFILE names (default: default) of ~/.aws/config and ~/.aws/credentials, in web identity, and in the container's or instance's role; "+
			"or give the provider a Bedrock API key in api_key", err)
	}
	return resp, err
}

// noIdentity reports whether err is a request that failed before it was sent, for want of
// credentials (or of a token): the SDK wraps such a failure as "get identity: ...".
func noIdentity(err error) bool {
	var oe *smithy.OperationError
	return errors.As(err, &oe) && oe.Err != nil && strings.HasPrefix(oe.Err.Error(), "get identity:")
}

func (c *client) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, c, prompt, opts...)
}

// cutKey is the context key of a call's flag that keepCut sets.
type cutKey struct{}

// keepCut is a middleware of the AWS SDK's client that lets an Anthropic answer cut at its
// output limit reach cadre as a cut answer (model.FinishLength), with its text and usage.
// langchaingo's client fails such an answer ("completed due to max_tokens"), and nothing of
// it would be seen or counted. keepCut tells the client that the model ended its turn, and
// notes in the call's flag that it did not, for GenerateContent to put back: the flag goes
// through the context because langchaingo's client, between the two, returns nothing else.
func keepCut(stack *middleware.Stack) error {
	return stack.Deserialize.Add(middleware.DeserializeMiddlewareFunc("cadreKeepCut", func(ctx context.Context, in middleware.DeserializeInput,
		next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
		out, md, err := next.HandleDeserialize(ctx, in)
		res, ok := out.Result.(*bedrockruntime.InvokeModelOutput)
		cut, _ := ctx.Value(cutKey{}).(*bool)
		if err == nil && ok && cut != nil {
			if body, ok := uncut(res.Body); ok {
				res.Body, *cut = body, true
			}
		}
		return out, md, err
	}), middleware.Before)
}

// uncut returns an Anthropic answer that stopped at max_tokens as one that ended its turn,
// and whether it was one.
func uncut(body []byte) ([]byte, bool) {
	if !bytes.Contains(body, []byte(`"max_tokens"`)) {
		return nil, false
	}
	var answer map[string]json.RawMessage
	if json.Unmarshal(body, &answer) != nil || string(answer["stop_reason"]) != `"max_tokens"` {
		return nil, false
	}
	answer["stop_reason"] = json.RawMessage(`"end_turn"`)
	out, err := json.Marshal(answer)
	return out, err == nil
}
