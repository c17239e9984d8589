// Package skill reads Agent Skills (https://agentskills.io/specification): folders that each
// hold a SKILL.md — YAML front matter with the skill's name and description, then instructions
// for one kind of task — and files beside it, the skill's resources.
//
// [Load] finds every skill under a folder of any [io/fs.FS] (os.DirFS, embed.FS). It is
// lenient, as the specification's guide for clients advises: each [Problem] names its file,
// its line and what to change, a skill with a problem that does not stop it is loaded, and a
// bad skill never hides the good ones. [LoadStrict] refuses any problem — the mode for checking
// skills in a repository's tests. [Parse] reads one SKILL.md.
//
// A [Skill]'s resources are read with [Skill.ReadResource], which keeps to the skill's folder:
// ".." and absolute paths are refused, and so are symbolic links that lead out, on file
// systems that can read links ([io/fs.ReadLinkFS]).
//
// An assistant uses skills through their [ToolSet] (assistant.WithSkills makes it): a model
// sees each skill's name and description, and activates a skill — receiving its instructions —
// only when a task needs it. Nothing here runs a skill's scripts.
package skill
