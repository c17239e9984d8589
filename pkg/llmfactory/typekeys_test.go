package llmfactory

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// versionedTypes are testTypes with one like azure: no address of its own, and an API version.
var versionedTypes = map[string]ProviderType{
	"openai": {}, "anthropic": {}, "ollama": {},
	"azure": {NeedsBaseURL: true, APIVersion: true},
}

// The keys a provider needs, or may have, depend on its type: each mistake is an error that
// names the file, the line and the key.
func TestKeysOfTheProvidersType(t *testing.T) {
	t.Parallel()
	models := "models:\n  m: {provider: az, model: my-deployment}\n"
	tests := []struct {
		name string
		env  map[string]string
		data string
		want []string // each must be in the error
	}{
		{name: "azure without base_url", data: doc(
			"providers:",
			"  az:",
			"    type: azure",
			"    api_version: 2024-10-21",
		) + models, want: []string{"llm.yaml:2: providers.az: missing base_url: type azure has no address of its own"}},
		{name: "azure with a base_url empty after expansion", data: doc(
			"providers:",
			"  az: {type: azure, api_version: 2024-10-21, base_url: '${AZURE_URL:-}'}",
		) + models, want: []string{"llm.yaml:2: providers.az: missing base_url"}},
		{name: "azure without api_version", data: doc(
			"providers:",
			"  az:",
			"    type: azure",
			"    base_url: https://cadre.openai.azure.com",
		) + models, want: []string{"llm.yaml:2: providers.az: missing api_version: type azure needs the version of the API to call, e.g. api_version: 2024-10-21"}},
		{name: "azure missing both, reported together", data: doc(
			"providers:",
			"  az: {type: azure}",
		) + models, want: []string{"llm.yaml:2: providers.az: missing base_url", "llm.yaml:2: providers.az: missing api_version"}},
		{name: "api_version on a type that takes none", data: doc(
			"providers:",
			"  az: {type: azure, base_url: 'https://cadre.openai.azure.com', api_version: 2024-10-21}",
			"  openai:",
			"    api_version: 2024-10-21",
		) + models, want: []string{"llm.yaml:4: providers.openai.api_version: type openai takes no api_version (types that do: azure)"}},
		{name: "api_version that cannot go into a URL", data: doc(
			"providers:",
			"  az:",
			"    type: azure",
			"    base_url: https://cadre.openai.azure.com",
			"    api_version: 2024-10-21&key=x",
		) + models, want: []string{`llm.yaml:5: providers.az.api_version: "2024-10-21&key=x" is not an API version (write e.g. 2024-10-21)`}},
		{name: "the unknown key names api_version", data: doc(
			"providers:",
			"  az: {type: azure, base_url: 'https://cadre.openai.azure.com', apiversion: 2024-10-21}",
		) + models, want: []string{"providers.az.apiversion: unknown key (known: type, api_key, base_url, api_version, timeout, region)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseConfig([]byte(tc.data), "llm.yaml", envOf(tc.env), versionedTypes)
			if err == nil {
				t.Fatalf("no error for\n%s", tc.data)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error:\n%v\ndoes not say %q", err, w)
				}
			}
		})
	}
}

func TestAzureProvidersKeys(t *testing.T) {
	t.Parallel()
	data := doc(
		"providers:",
		"  az:",
		"    type: azure",
		"    base_url: ${AZURE_OPENAI_ENDPOINT}",
		"    api_version: ${AZURE_OPENAI_API_VERSION:-2024-10-21}",
		"    api_key: ${AZURE_OPENAI_API_KEY}",
		"  later:",
		"    type: azure",
		"    base_url: https://later.openai.azure.com",
		"    api_version: ${LATER_VERSION}",
		"models:",
		"  m: {provider: az, model: my-deployment}",
		"  n: {provider: later, model: other-deployment}",
	)
	cfg, err := parseConfig([]byte(data), "llm.yaml", envOf(map[string]string{
		"AZURE_OPENAI_ENDPOINT": "https://cadre.openai.azure.com", "AZURE_OPENAI_API_KEY": "k",
	}), versionedTypes)
	if err != nil {
		t.Fatal(err)
	}
	az := cfg.providers["az"]
	if az.baseURL != "https://cadre.openai.azure.com" || az.version != "2024-10-21" || len(az.missing) != 0 {
		t.Errorf("az = %v, want its endpoint and the default API version", az)
	}
	// An unset variable defers api_version, as it does base_url: an error at first use.
	if later := cfg.providers["later"]; later.version != "" || !cmp.Equal(later.missing, []string{"LATER_VERSION"}) {
		t.Errorf("later = %v, want api_version deferred on LATER_VERSION", later)
	}
}

// An api_version goes into the request's URL as it is written: letters, digits, '-', '.' and
// '_' are one, every other character is refused.
func TestAPIVersionCharacters(t *testing.T) {
	t.Parallel()
	parse := func(version string) (*fileConfig, error) {
		return parseConfig([]byte(doc(
			"providers:",
			"  az: {type: azure, base_url: 'https://cadre.openai.azure.com', api_version: '"+version+"'}",
			"models:",
			"  m: {provider: az, model: my-deployment}",
		)), "llm.yaml", envOf(nil), versionedTypes)
	}
	for _, v := range []string{"2024-10-21", "2025-04-01-preview", "azAZ09-._", "a", "z", "A", "Z", "0", "9"} {
		cfg, err := parse(v)
		if err != nil {
			t.Errorf("api_version %q: %v", v, err)
			continue
		}
		if got := cfg.providers["az"].version; got != v {
			t.Errorf("api_version %q read as %q", v, got)
		}
	}
	// Each the character next to a range's end, or one a URL gives a meaning.
	for _, v := range []string{"2024`1", "2024{1", "2024@1", "2024[1", "2024/1", "2024:1", "2024 1", "2024?x", "2024#x", "2024%20"} {
		_, err := parse(v)
		if want := `"` + v + `" is not an API version`; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("api_version %q: error %v, want one that says %s", v, err, want)
		}
	}
}
