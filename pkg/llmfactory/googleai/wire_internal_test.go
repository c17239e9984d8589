package googleai

import (
	"strings"
	"testing"
)

func TestWithoutEmptyParameters(t *testing.T) {
	t.Parallel()
	body := `{"contents":[],"tools":[{"functionDeclarations":[` +
		`{"name":"now","parameters":{"type":"OBJECT"}},` +
		`{"name":"lookup","parameters":{"type":"OBJECT","properties":{"city":{"type":"STRING"}}}},` +
		`{"name":"ping","parameters":{"type":6,"properties":{}}},` +
		`{"name":"list","parameters":{"type":"ARRAY"}}]}]}`
	out, ok := withoutEmptyParameters([]byte(body))
	if !ok {
		t.Fatal("nothing removed")
	}
	s := string(out)
	for _, want := range []string{`{"name":"now"}`, `{"name":"ping"}`, `"city":{"type":"STRING"}`, `{"name":"list","parameters":{"type":"ARRAY"}}`} {
		if !strings.Contains(s, want) {
			t.Errorf("the body %s lacks %s: only objects without properties lose their parameters", s, want)
		}
	}
	if _, ok := withoutEmptyParameters([]byte(`{"tools":[{"functionDeclarations":[{"name":"lookup","parameters":{"type":"OBJECT","properties":{"q":{}}}}]}]}`)); ok {
		t.Error("a body with nothing to remove was rewritten")
	}
	if _, ok := withoutEmptyParameters([]byte(`{"contents":[]}`)); ok {
		t.Error("a body without tools was rewritten")
	}
}
