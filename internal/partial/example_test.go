package partial_test

import (
	"fmt"

	"github.com/cadrehq/cadre/internal/partial"
)

func ExampleClose() {
	stream := `{"title":"Rain","tags":["wet","co`
	doc, ok := partial.Close([]byte(stream), false)
	fmt.Println(string(doc), ok)
	doc, ok = partial.Close([]byte(stream), true)
	fmt.Println(string(doc), ok)
	_, ok = partial.Close([]byte(`  `), true)
	fmt.Println(ok)
	// Output:
	// {"title":"Rain","tags":["wet"]} true
	// {"title":"Rain","tags":["wet","co"]} true
	// false
}

func ExampleRelax() {
	schema := `{"type":"object","required":["tags"],"properties":{"tags":{"type":"array","minItems":2,"maxItems":5}}}`
	relaxed, err := partial.Relax([]byte(schema))
	if err != nil {
		panic(err)
	}
	fmt.Println(string(relaxed))
	// Output:
	// {"type":"object","properties":{"tags":{"type":"array","maxItems":5}}}
}
