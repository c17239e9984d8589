// Package providertest provides fake provider APIs for testing programs that talk to a
// provider over HTTP with langchaingo's real clients, without a network or a provider account,
// as net/http/httptest does for net/http.
//
// [NewOpenAI], [NewAnthropic] and [NewGemini] start fake OpenAI Chat Completions, Anthropic
// Messages and Gemini APIs on 127.0.0.1: a [Server] answers each request with a model's reply
// (any llms.Model; a Scripted or FuncModel of [github.com/cadrehq/cadre/pkg/llmtest] sees the
// request converted to messages and call options), rendered in the provider's JSON or stream.
// It rejects, with the provider's status and error JSON, the requests the real API rejects — a
// tool call not answered in the next message, a result for an unknown call, an empty text
// block, a tool schema that is not an object... — so that a test fails where production
// would. It records the raw bodies it receives and when they arrived, can require an API key
// ([WithAPIKey]), and can be made to fail ([Server.Fault]): an error status with Retry-After,
// a delay, a body cut in the middle.
//
// Each fake takes its API's structured-output field — OpenAI's response_format (text,
// json_object, json_schema), Anthropic's output_config.format, Gemini's responseMimeType with
// responseJsonSchema or responseSchema — and refuses, as the API does, a malformed one or a
// schema outside what the API takes (OpenAI's strict subset, Anthropic's limits). The model
// gets the schema in the context of its request
// ([github.com/cadrehq/cadre/pkg/model.OutputSchemaOf]), as a client's transport would get
// it: a Synthetic model of llmtest answers in it. A model's refusal (an llmtest.Reply's
// Refusal) comes back as the API gives one: OpenAI's message.refusal, Anthropic's stop
// reason "refusal".
//
// Use it to test what lies between a model and the wire: a client's configuration (llm.yaml),
// retries, fallback between providers, timeouts, the shape of what is sent. To test an agent
// where the wire does not matter, give it an llmtest model directly.
package providertest
