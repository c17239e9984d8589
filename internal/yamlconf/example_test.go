package yamlconf_test

import (
	"fmt"
	"slices"
	"time"

	"github.com/cadrehq/cadre/internal/yamlconf"
)

// A file with two keys, checked in one pass: every mistake is reported, with its line.
func Example() {
	data := []byte("name: ${NAME:-server}\ntimeout: 60\nport: 80\n")
	env := func(string) (string, bool) { return "", false }

	r := yamlconf.NewReader("server.yaml", env)
	root, err := r.Document(data)
	if err != nil {
		fmt.Println(err)
		return
	}
	known := []string{"name", "timeout"}
	entries, _ := r.Entries(root, "")
	for _, e := range entries {
		if !slices.Contains(known, e.Key) {
			r.UnknownKey(e, e.Key, known, "")
			continue
		}
		v, st := r.Text(e.Val, e.Key, nil)
		if st != yamlconf.Present {
			continue
		}
		switch e.Key {
		case "name":
			fmt.Println("name:", v.Text)
		case "timeout":
			r.Duration(v, time.Hour)
		}
	}
	fmt.Println(r.Err())
	// Output:
	// name: server
	// server.yaml:2: timeout: "60" is not a duration (write e.g. 60s or 2m)
	// server.yaml:3: port: unknown key (known: name, timeout)
}
