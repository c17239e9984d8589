package skill

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
	"unicode/utf8"
)

// MaxResourceBytes is the size of the largest resource ReadResource reads.
const MaxResourceBytes = 1 << 20

// ErrOutside is returned (wrapped) by ReadResource for a path that leads out of the skill's
// folder: one with "..", an absolute one, or a symbolic link whose target is outside.
var ErrOutside = errors.New("the path leads out of the skill's folder")

// maxLinks bounds the symbolic links followed for one path, as a kernel does.
const maxLinks = 40

// ReadResource returns the text of the file at rel, a slash-separated path relative to the
// skill's folder (as Resources lists them). It refuses a path that leads out of the folder
// (ErrOutside) — symbolic links included, where the file system can read them
// (fs.ReadLinkFS: os.DirFS can) —, a hidden file or folder (a name starting with a dot, as
// .env), anything but a regular file, a file that is not UTF-8 text, and one over
// MaxResourceBytes, with an error that says which and what to do.
//
// The links are checked before the file is opened: on a folder that others may change while
// the program runs, load the skills from os.OpenRoot(dir) and its FS method, which refuses a
// way out at every open as well.
func (s *Skill) ReadResource(rel string) (string, error) {
	if s.fsys == nil {
		return "", fmt.Errorf("skill %q was not loaded from a file system: it has no resources", s.Name)
	}
	full, err := s.resolve(rel)
	if err != nil {
		return "", err
	}
	if info, err := fs.Stat(s.fsys, full); err == nil && !info.IsDir() && !info.Mode().IsRegular() {
		return "", fmt.Errorf("skill %q: %q is not a regular file: only files are read", s.Name, rel)
	}
	f, err := s.fsys.Open(full)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("skill %q has no file %q: its files are %s", s.Name, rel, s.listed())
		}
		return "", fmt.Errorf("skill %q: reading %q: %w", s.Name, rel, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return "", fmt.Errorf("skill %q: %q is a folder: give the path of a file in it: its files are %s", s.Name, rel, s.listed())
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxResourceBytes+1))
	if err != nil {
		return "", fmt.Errorf("skill %q: reading %q: %w", s.Name, rel, err)
	}
	if len(data) > MaxResourceBytes {
		return "", fmt.Errorf("skill %q: %q is over %d bytes, the most a resource may be: split it into smaller files", s.Name, rel, MaxResourceBytes)
	}
	if !utf8.Valid(data) || strings.IndexByte(string(data), 0) >= 0 {
		return "", fmt.Errorf("skill %q: %q is not a text file: only text resources are read", s.Name, rel)
	}
	return string(data), nil
}

// resolve returns the path in the file system of the skill's file rel, following the symbolic
// links on the way where the file system can read them, and refusing any way out of the
// skill's folder.
func (s *Skill) resolve(rel string) (string, error) {
	outside := func(why string) error {
		return fmt.Errorf("skill %q: %q: %w (%s): give a path relative to the skill's folder, such as %s", s.Name, rel, ErrOutside, why, s.example())
	}
	switch {
	case rel == "":
		return "", fmt.Errorf("skill %q: the path is empty: give a path relative to the skill's folder, such as %s", s.Name, s.example())
	case strings.HasPrefix(rel, "/"):
		return "", outside("it is absolute")
	case strings.Contains(rel, `\`):
		return "", fmt.Errorf("skill %q: %q: separate folders with /, not \\", s.Name, rel)
	}
	clean := path.Clean(rel)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", outside("it goes up with ..")
	}
	if clean == "." {
		return "", fmt.Errorf("skill %q: %q is the skill's folder: give the path of a file in it, such as %s", s.Name, rel, s.example())
	}
	if hidden(clean) {
		return "", fmt.Errorf("skill %q: %q is hidden (a name starting with a dot): hidden files are not read", s.Name, rel)
	}
	lfs, ok := s.fsys.(fs.ReadLinkFS)
	if !ok {
		return path.Join(s.Dir, clean), nil
	}
	// Walk the path one name at a time; a link's target replaces the names walked so far.
	done, todo := "", strings.Split(clean, "/")
	for links := 0; len(todo) > 0; {
		next := path.Join(done, todo[0])
		todo = todo[1:]
		if next == ".." || strings.HasPrefix(next, "../") {
			return "", outside("a symbolic link leads out of it")
		}
		info, err := lfs.Lstat(path.Join(s.Dir, next))
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			done = next // a name that does not exist fails at Open, with the files listed
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("skill %q: %q: too many symbolic links", s.Name, rel)
		}
		target, err := lfs.ReadLink(path.Join(s.Dir, next))
		if err != nil {
			return "", fmt.Errorf("skill %q: %q: %w", s.Name, rel, err)
		}
		if path.IsAbs(target) || strings.Contains(target, `\`) {
			return "", outside("a symbolic link leads out of it")
		}
		// The target is relative to the link's folder: walk it from there.
		todo = append(strings.Split(path.Join(path.Dir(next), target), "/"), todo...)
		done = ""
	}
	if hidden(done) {
		return "", fmt.Errorf("skill %q: %q leads to a hidden file (a name starting with a dot): hidden files are not read", s.Name, rel)
	}
	return path.Join(s.Dir, done), nil
}

// hidden reports whether a name of the slash-separated path p starts with a dot.
func hidden(p string) bool {
	for name := range strings.SplitSeq(p, "/") {
		if strings.HasPrefix(name, ".") && name != "." {
			return true
		}
	}
	return false
}

// example returns a resource's path to show in an error, or a made-up one.
func (s *Skill) example() string {
	if len(s.resources) > 0 {
		return fmt.Sprintf("%q", s.resources[0])
	}
	return `"references/guide.md"`
}

func (s *Skill) listed() string {
	if len(s.resources) == 0 {
		return "none"
	}
	return strings.Join(s.resources, ", ")
}
