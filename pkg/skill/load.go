package skill

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// maxResources bounds the files listed for one skill: a folder holding a whole project would
// otherwise flood a model's context when the skill is activated.
const maxResources = 200

// Load loads every skill under root in fsys (an os.DirFS, an embed.FS, any fs.FS): each folder
// holding a SKILL.md is a skill, and what else is in that folder are its resources. Folders
// whose names start with a dot are passed over. root may itself be a skill's folder.
//
// Loading is lenient: a skill with a problem that does not stop it is loaded, a skill with a
// fatal one (no front matter, YAML that cannot be read, no name or description, a name another
// skill has) is not, and neither hides the others. Every problem is returned, in the order of
// the files. The error is for a root that cannot be read. LoadStrict refuses any problem.
func Load(fsys fs.FS, root string) ([]*Skill, []Problem, error) {
	if !fs.ValidPath(root) {
		return nil, nil, fmt.Errorf("skill: root %q is not a valid path in a file system: give a slash-separated path, without a leading slash, or \".\"", root)
	}
	var skills []*Skill
	var problems []Problem
	byName := map[string]string{}
	err := fs.WalkDir(fsys, root, func(dir string, d fs.DirEntry, err error) error {
		if err != nil {
			if dir == root {
				return err
			}
			problems = append(problems, Problem{File: dir, Message: "cannot be read: " + err.Error()})
			return nil
		}
		if !d.IsDir() {
			if d.Type()&fs.ModeSymlink != 0 {
				if _, _, found, _ := readSkillFile(fsys, dir); found {
					problems = append(problems, Problem{File: dir, Skill: folderName(dir), Message: "is a symbolic link to a skill's folder, and Load does not follow links: load its target, or copy the folder here", Fatal: true})
				}
			}
			return nil
		}
		if dir != root && strings.HasPrefix(d.Name(), ".") {
			return fs.SkipDir
		}
		file, data, found, ferr := readSkillFile(fsys, dir)
		switch {
		case ferr != nil:
			problems = append(problems, Problem{File: file, Skill: folderName(dir), Message: "cannot be read: " + ferr.Error(), Fatal: true})
			return fs.SkipDir
		case !found:
			return nil
		}
		s, found2 := Parse(file, folderName(dir), data)
		if path.Base(file) != FileName {
			name := folderName(dir)
			if s != nil {
				name = s.Name
			} else if len(found2) > 0 {
				name = found2[0].Skill
			}
			problems = append(problems, Problem{File: file, Skill: name, Message: "the file is named " + path.Base(file) + ": name it " + FileName})
		}
		problems = append(problems, found2...)
		if s == nil {
			return fs.SkipDir
		}
		if other, dup := byName[s.Name]; dup {
			problems = append(problems, Problem{File: file, Skill: s.Name, Message: fmt.Sprintf("another skill is named %q (%s): skill names must be unique; this one is not loaded", s.Name, other), Fatal: true})
			return fs.SkipDir
		}
		byName[s.Name] = file
		s.Dir, s.fsys = dir, fsys
		files, lerr := listResources(fsys, dir)
		if lerr != nil {
			problems = append(problems, Problem{File: dir, Skill: s.Name, Message: "its files cannot be listed: " + lerr.Error()})
		}
		s.resources = s.readable(files)
		skills = append(skills, s)
		return fs.SkipDir // the folders in a skill's folder are its resources
	})
	if err != nil {
		return nil, nil, fmt.Errorf("skill: loading %q: %w", root, err)
	}
	if len(skills) == 0 && len(problems) == 0 {
		problems = append(problems, Problem{File: root, Message: "no skill found: a skill is a folder with a " + FileName + " in it"})
	}
	return skills, problems, nil
}

// LoadStrict is Load that accepts no problem at all: it returns the skills only when every
// file follows the specification, and otherwise a Problems error listing what to change.
func LoadStrict(fsys fs.FS, root string) ([]*Skill, error) {
	skills, problems, err := Load(fsys, root)
	if err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		return nil, Problems(problems)
	}
	return skills, nil
}

// Problems is the error of LoadStrict: every problem found.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return fmt.Sprintf("skill: %d problems:\n%s", len(ps), strings.Join(lines, "\n"))
}

// readSkillFile reads dir's SKILL.md, or its skill.md (lowercase, which some tools write).
func readSkillFile(fsys fs.FS, dir string) (file string, data []byte, found bool, err error) {
	for _, name := range []string{FileName, strings.ToLower(FileName)} {
		file = path.Join(dir, name)
		data, err = fs.ReadFile(fsys, file)
		if err == nil {
			return file, data, true, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return file, nil, false, err
		}
	}
	return "", nil, false, nil
}

// folderName returns the name a skill in dir must have, or "" when root is "." and its name is
// not known.
func folderName(dir string) string {
	if dir == "." {
		return ""
	}
	return path.Base(dir)
}

// readable returns the files of files that ReadResource can open: a symbolic link that leads
// out of the skill's folder, or to a folder, is left out.
func (s *Skill) readable(files []string) []string {
	out := files[:0]
	for _, f := range files {
		full, err := s.resolve(f)
		if err != nil {
			continue
		}
		if info, err := fs.Stat(s.fsys, full); err == nil && info.Mode().IsRegular() {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

// listResources lists the files under dir but its SKILL.md, relative to dir.
func listResources(fsys fs.FS, dir string) ([]string, error) {
	var out []string
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		rel := strings.TrimPrefix(p, dir+"/")
		if dir == "." {
			rel = p
		}
		if rel == FileName || rel == strings.ToLower(FileName) || strings.HasPrefix(d.Name(), ".") {
			return nil
		}
		if len(out) == maxResources {
			return fs.SkipAll
		}
		out = append(out, rel)
		return nil
	})
	return out, err
}
