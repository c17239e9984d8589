package skill_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cadrehq/cadre/pkg/skill"
)

// FuzzParse: a user relies on Parse taking any bytes — a SKILL.md is written by anyone —
// without panicking, and on its results keeping their promises: a nil skill exactly when a
// problem is fatal, a returned skill always named and described, every problem pointing into
// the file given, and the same input always giving the same results.
func FuzzParse(f *testing.F) {
	for _, row := range conformanceRows() {
		f.Add(row.folder+"/SKILL.md", row.folder, []byte(row.text))
	}
	f.Add("SKILL.md", "", []byte("---\nname: a\ndescription: b: c: d\nlicense: e: f\n---\nx"))
	f.Add("SKILL.md", "", []byte("---\nname: &a x\ndescription: *a\n---\nx"))
	f.Fuzz(func(t *testing.T, file, folder string, data []byte) {
		s, problems := skill.Parse(file, folder, data)

		fatal := false
		for _, p := range problems {
			fatal = fatal || p.Fatal
			if p.File != file {
				t.Errorf("problem %v: got File %q, want %q", p, p.File, file)
			}
			if p.Line < 0 {
				t.Errorf("problem %v: got Line %d, want ≥ 0", p, p.Line)
			}
			if p.Message == "" {
				t.Errorf("problem %+v: got an empty Message, want one", p)
			}
		}
		if (s == nil) != fatal {
			t.Errorf("Parse returned a nil skill: %v, want %v (problems: %v)", s == nil, fatal, problems)
		}
		if s != nil && (s.Name == "" || s.Description == "") {
			t.Errorf("Parse returned a skill with Name %q and Description %q, want both set", s.Name, s.Description)
		}

		s2, problems2 := skill.Parse(file, folder, data)
		if diff := cmp.Diff(s, s2, ignoreUnexported); diff != "" {
			t.Errorf("Parse gave another skill the second time (-first +second):\n%s", diff)
		}
		if diff := cmp.Diff(problems, problems2); diff != "" {
			t.Errorf("Parse gave other problems the second time (-first +second):\n%s", diff)
		}
	})
}
