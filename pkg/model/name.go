package model

import (
	"path"
	"reflect"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// Namer is implemented by an llms.Model that can say what it is. A model that nobody names —
// one given to assistant.WithModel, or to Describe with the name "" — takes its ModelName as
// its Model.Name; llmtest's models name themselves by their kind ("scripted", "func",
// "synthetic"). A wrapper around a client can name the model it reaches, such as
// "gateway:gpt-5-mini".
//
// The name keys usage reports (usage.Report.ByModel) and names the model in events, errors,
// traces and a durable run's steps: ModelName must return the same name every time, and a
// program should keep it from one version to the next while durable runs are in flight, since
// a replay finds their steps by it. A blank name is ignored.
type Namer interface {
	ModelName() string
}

// clientName is the name of a model that nobody named (see Describe): its ModelName, the
// package of one of langchaingo's clients, or else its Go type.
func clientName(llm llms.Model) string {
	if n, ok := llm.(Namer); ok {
		if name := n.ModelName(); name != "" {
			return name
		}
	}
	t := reflect.TypeOf(llm)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return ""
	}
	if pkg := langchaingoPackage(t); pkg != "" {
		return path.Base(pkg)
	}
	return t.String()
}

// langchaingoPackage returns the path of t's package under langchaingo's llms ("openai",
// "googleai/vertex"), or "" when t is not one of langchaingo's clients. It reads the package
// path without linking the client in.
func langchaingoPackage(t reflect.Type) string {
	const llmsPath = "langchaingo/llms/"
	p := t.PkgPath()
	i := strings.LastIndex(p, llmsPath)
	if i < 0 {
		return ""
	}
	return p[i+len(llmsPath):]
}
