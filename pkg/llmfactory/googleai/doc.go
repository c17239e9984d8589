// Package googleai is the googleai provider type of llm.yaml: Google's Gemini API through
// langchaingo's googleai client. It lives in its own package so that programs that do not use
// it do not link Google's client libraries. Pass it to the factory:
//
//	f, err := llmfactory.Load("llm.yaml", llmfactory.WithProviderType("googleai", googleai.Type()))
//
// and name it in llm.yaml:
//
//	providers:
//	  gemini:
//	    type: googleai
//	    api_key: ${GOOGLE_API_KEY}
package googleai
