// Package bedrock is the bedrock provider type of llm.yaml: models on Amazon Bedrock through
// langchaingo's bedrock client and the AWS SDK for Go v2. It lives in its own package so that
// programs that do not use it do not link the AWS SDK. Pass it to the factory:
//
//	f, err := llmfactory.Load("llm.yaml", llmfactory.WithProviderType("bedrock", bedrock.Type()))
//
// and name it in llm.yaml, with the AWS region of the models:
//
//	providers:
//	  aws:
//	    type: bedrock
//	    region: ${AWS_REGION:-us-east-1}
//	models:
//	  sonnet: { provider: aws, model: us.anthropic.claude-3-5-sonnet-20241022-v2:0 }
//
// # Region
//
// The provider's region key gives the region; without it, the AWS SDK's own (AWS_REGION, or
// the region of the AWS profile in use). With neither, the provider's first model is an
// error that says so.
//
// # Credentials
//
// Requests are signed with SigV4, with the credentials of the AWS SDK's default chain:
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN; the shared config and
// credentials files (~/.aws/config, ~/.aws/credentials, or AWS_CONFIG_FILE and
// AWS_SHARED_CREDENTIALS_FILE) and their profile (AWS_PROFILE), SSO and assumed roles
// included; web identity (EKS); the container's or the instance's role. None of them goes
// in llm.yaml.
//
// A provider's api_key is a Bedrock API key instead: it is sent as a bearer token, and the
// chain is not used. The AWS SDK does the same with AWS_BEARER_TOKEN_BEDROCK when api_key is
// not set. A bearer token goes to an https:// address only.
//
// # Models
//
// A model's model key is a Bedrock model id (anthropic.claude-3-5-sonnet-20241022-v2:0), an
// inference profile id (us.anthropic.claude-3-5-sonnet-20241022-v2:0) or the ARN of either.
// langchaingo's client (v0.1.14) sends each model family its own request body, and knows
// Anthropic's, Amazon's (Titan, Nova), Meta's, Cohere's and AI21's: an id of another family
// (Mistral, DeepSeek, an application inference profile's opaque ARN) is an error at first
// use. Only Anthropic's models take tools: a model of another family is made NoTools, so
// that an assistant asks for its output in the prompt (one with tools of its own cannot use
// it). Anthropic's models get an output limit of model.Facts("bedrock").MaxTokens, 8192,
// where the client's own default would cut long answers short: set max_tokens for a model
// that takes fewer (Claude 3 Haiku and Opus take 4096).
//
// Requests go to Bedrock's InvokeModel, or InvokeModelWithResponseStream when an assistant
// streams a turn without tools: the client's stream carries no tool calls, so a turn with
// tools is asked for whole, and its text streamed as one chunk. An answer cut at its output
// limit comes back as a cut answer (stop reason max_tokens), which the client alone would
// fail.
//
// base_url, when given, is the endpoint: a VPC endpoint of bedrock-runtime, or a stand-in in
// tests.
package bedrock
