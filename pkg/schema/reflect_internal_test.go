package schema

import "testing"

// A $defs name keeps the ASCII letters, digits and '_' of the Go type's name, without package
// paths, its type arguments joined by '_': a JSON pointer holds it as it is, and tool APIs that
// limit the characters of a name accept it.
func TestDefName(t *testing.T) {
	t.Parallel()
	for goName, want := range map[string]string{
		"Page[example.com/x.Item]":            "Page_Item",
		"Pair[int,github.com/a/b.Name]":       "Pair_int_Name",
		"list[*int]":                          "list_int",
		"AZ_az09":                             "AZ_az09",
		"Café":                                "Caf",
		"a`{@/:":                              "a",
		"Map[map[string]example.com/x.Zone9]": "Map_map_string_Zone9",
		"é":                                   "T",
	} {
		if got := defName(goName); got != want {
			t.Errorf("defName(%q) = %q, want %q", goName, got, want)
		}
	}
}
