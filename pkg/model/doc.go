// Package model is what cadre knows about a langchaingo model and its provider.
//
// A [Model] pairs an llms.Model with its name, its provider's id of it, its provider and its
// default call options. cadre talks to every provider through the same conversation shape —
// one assistant message holding a turn's text and all its tool calls, then one tool message
// per result — and [Model.Generate] turns that shape into the one the provider accepts on the
// wire, and the provider's answer back into one [Reply]: text, tool calls, stop reason and
// token usage, counted once per response whatever the provider's response looks like.
//
// What cadre knows of each provider's API and of langchaingo's client for it — the wire shape,
// tool support, strict tool schemas, how tool parameters go out, the default output token
// limit, the API key's variable — is in one place, [Facts], which [Describe], the llm.yaml
// factory and [Model.ToolParameters] read.
//
// A [Resolver] gives an assistant its chain of models by the assistant's name; the llm.yaml
// factory (package llmfactory) is one, and [Fixed] is the simplest.
package model
