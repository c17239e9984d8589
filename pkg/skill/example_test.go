package skill_test

import (
	"fmt"
	"testing/fstest"

	"github.com/cadrehq/cadre/pkg/skill"
)

func ExampleLoad() {
	fsys := fstest.MapFS{
		"skills/release-notes/SKILL.md": {Data: []byte(`---
name: release-notes
description: Writes release notes from a list of merged changes. Use it when asked for release notes or a changelog.
---
Group the changes as Added, Changed and Fixed; read references/style.md for the wording.
`)},
		"skills/release-notes/references/style.md": {Data: []byte("Write in the past tense.\n")},
		"skills/Broken/SKILL.md":                   {Data: []byte("no front matter\n")},
	}
	skills, problems, err := skill.Load(fsys, "skills")
	if err != nil {
		panic(err)
	}
	for _, s := range skills {
		fmt.Println(s.Name, s.Resources())
	}
	for _, p := range problems {
		fmt.Println(p)
	}
	style, _ := skills[0].ReadResource("references/style.md")
	fmt.Print(style)
	// Output:
	// release-notes [references/style.md]
	// skills/Broken/SKILL.md:1: skill "Broken": the file does not start with front matter: begin it with a line of three hyphens (---), then name: and description:, then another line of ---
	// Write in the past tense.
}
