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
// the provider's api_key as a Bedrock API key. Its providers take a region. Its client writes
// a request's output schema into the requests to Anthropic's models, as Anthropic's
// output_config (see writeOutput).
func Type() llmfactory.ProviderType {
	f := model.Facts("bedrock")
	return llmfactory.ProviderType{New: newClient, Shape: f.Shape, NoTools: f.DropsTools, Provider: "bedrock", Regional: true,
		OutputSchema: llmfactory.AnthropicAPI}
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
			o.APIOptions = append(o.APIOptions, keepStop, writeOutput)
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
// models that take them, does not lose a turn's tool calls to a stream, gives Anthropic's
// models an output token limit that does not cut long answers short, and sends them a
// request's output schema.
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

// SupportsOutputSchema reports whether the client writes an output schema into the model's
// requests: for Anthropic's models only, whose InvokeModel body is Anthropic's Messages
// request (see writeOutput).
func (c *client) SupportsOutputSchema() bool { return c.tools }

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
	var stop string
	resp, err := c.llm.GenerateContent(context.WithValue(ctx, stopKey{}, &stop), msgs, opts...)
	if err == nil && stop != "" {
		for _, ch := range resp.Choices {
			ch.StopReason = stop
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

// stopKey is the context key of a call's stop reason that keepStop notes.
type stopKey struct{}

// keepStop is a middleware of the AWS SDK's client that lets an Anthropic answer cut at its
// output limit, or refused, reach cadre as such (model.FinishLength, model.FinishRefusal),
// with its text and usage. langchaingo's client fails such an answer ("completed due to
// max_tokens", and "no results" for a refusal without content), and nothing of it would be
// seen or counted. keepStop tells the client that the model ended its turn (with an empty
// text block when it wrote nothing), and notes the stop reason in the call's value, for
// GenerateContent to put back: the value goes through the context because langchaingo's
// client, between the two, returns nothing else.
func keepStop(stack *middleware.Stack) error {
	return stack.Deserialize.Add(middleware.DeserializeMiddlewareFunc("cadreKeepStop", func(ctx context.Context, in middleware.DeserializeInput,
		next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
		out, md, err := next.HandleDeserialize(ctx, in)
		res, ok := out.Result.(*bedrockruntime.InvokeModelOutput)
		stop, _ := ctx.Value(stopKey{}).(*string)
		if err == nil && ok && stop != nil {
			if body, reason, ok := ended(res.Body); ok {
				res.Body, *stop = body, reason
			}
		}
		return out, md, err
	}), middleware.Before)
}

// ended returns an Anthropic answer that stopped at max_tokens, or was refused, as one that
// ended its turn, with at least one content block, and the stop reason it had; ok is false
// for any other answer.
func ended(body []byte) (_ []byte, reason string, ok bool) {
	if !bytes.Contains(body, []byte(`"max_tokens"`)) && !bytes.Contains(body, []byte(`"refusal"`)) {
		return nil, "", false
	}
	var answer map[string]json.RawMessage
	if json.Unmarshal(body, &answer) != nil || json.Unmarshal(answer["stop_reason"], &reason) != nil ||
		reason != "max_tokens" && reason != "refusal" {
		return nil, "", false
	}
	answer["stop_reason"] = json.RawMessage(`"end_turn"`)
	var content []json.RawMessage
	if json.Unmarshal(answer["content"], &content) != nil || len(content) == 0 {
		answer["content"] = json.RawMessage(`[{"type":"text","text":""}]`)
	}
	out, err := json.Marshal(answer)
	return out, reason, err == nil
}

// writeOutput is a middleware of the AWS SDK's client that writes the output schema the
// request's context carries (model.OutputSchemaOf) into the body of an InvokeModel request to
// an Anthropic model, as Anthropic's Messages API takes it: "output_config": {"format":
// {"type": "json_schema", "schema": ...}} (llmfactory.AnthropicOutputFormat). It edits the
// operation's input, before the SDK serializes and signs it; langchaingo's client writes no
// schema.
func writeOutput(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("cadreOutputSchema", func(ctx context.Context, in middleware.InitializeInput,
		next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
		s := model.OutputSchemaOf(ctx)
		var body *[]byte
		switch p := in.Parameters.(type) {
		case *bedrockruntime.InvokeModelInput:
			body = &p.Body
		case *bedrockruntime.InvokeModelWithResponseStreamInput:
			body = &p.Body
		}
		if s != nil && body != nil {
			edited, err := withOutputConfig(*body, s)
			if err != nil {
				return middleware.InitializeOutput{}, middleware.Metadata{}, err
			}
			*body = edited
		}
		return next.HandleInitialize(ctx, in)
	}), middleware.After)
}

// withOutputConfig returns body, an Anthropic Messages request, with s in its output_config.
func withOutputConfig(body []byte, s *model.OutputSchema) ([]byte, error) {
	format, err := llmfactory.AnthropicOutputFormat(s)
	if err != nil {
		return nil, err
	}
	var req map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("the request body is not a JSON object: %w", err)
	}
	config := map[string]json.RawMessage{}
	if raw, ok := req["output_config"]; ok {
		if err := json.Unmarshal(raw, &config); err != nil {
			return nil, fmt.Errorf("output_config: %w", err)
		}
	}
	config["format"] = format
	if req["output_config"], err = json.Marshal(config); err != nil {
		return nil, err
	}
	return json.Marshal(req)
}
