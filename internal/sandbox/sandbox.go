package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kml-lang/kml/internal/relpath"
)

// Sandbox is the set of directories a script may read and write. Paths are
// resolved against a base directory, cleaned, and followed through symbolic
// links before the check, so neither `..` nor a link can lead outside.
type Sandbox struct {
	dirs []string      // cleaned, absolute, links resolved
	ids  []os.FileInfo // what each directory was when granted (os.SameFile)
}

// NewSandbox grants dirs (and everything below them). Directories that do
// not exist are ignored, and a directory granted twice (or through a link)
// is kept once.
func NewSandbox(dirs ...string) *Sandbox {
	s := &Sandbox{}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			continue
		}
		fi, err := os.Stat(real)
		if err != nil || !fi.IsDir() {
			continue
		}
		if !slices.Contains(s.dirs, real) {
			s.dirs = append(s.dirs, real)
			s.ids = append(s.ids, fi)
		}
	}
	return s
}

// Dirs lists the granted directories.
func (s *Sandbox) Dirs() []string { return s.dirs }

func (s *Sandbox) inside(real string) bool {
	for _, d := range s.dirs {
		// A root ("/") already ends in the separator.
		prefix := d
		if !strings.HasSuffix(prefix, string(filepath.Separator)) {
			prefix += string(filepath.Separator)
		}
		if real == d || strings.HasPrefix(real, prefix) {
			return true
		}
	}
	return false
}

func (s *Sandbox) refuse(path string) error {
	if len(s.dirs) == 0 {
		return fmt.Errorf("%s: this interpreter may not read or write files", path)
	}
	return fmt.Errorf("%s is outside the directories this script may use (%s)", path, strings.Join(relpath.ShowAll(s.dirs), ", "))
}

// ReadPath resolves path (relative to base) for reading: the file must exist
// and lie, after following links, inside a granted directory.
func (s *Sandbox) ReadPath(base, path string) (string, error) {
	abs := absUnder(base, path)
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		// A dangling link to the outside is refused as a link to an
		// outside file is, so that the answer tells nothing of what
		// exists there; the error never prints where a link leads.
		if !s.inside(followMissing(abs, 0)) {
			return "", s.refuse(path)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s: no such file", path)
		}
		return "", fmt.Errorf("%s: %v", path, bareError(err))
	}
	if !s.inside(real) {
		return "", s.refuse(path)
	}
	return real, nil
}

// followMissing is where abs leads through links when it cannot be
// resolved (its file, or a link's target, does not exist): each existing
// directory resolved, each link followed, as far as they go.
func followMissing(abs string, depth int) string {
	if depth > 40 { // a loop of links
		return abs
	}
	dir := filepath.Dir(abs)
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	} else if dir != abs {
		dir = followMissing(dir, depth+1)
	}
	p := filepath.Join(dir, filepath.Base(abs))
	target, err := os.Readlink(p)
	if err != nil {
		return p
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(dir, target)
	}
	return followMissing(filepath.Clean(target), depth+1)
}

// bareError is err without the path a *fs.PathError names, which may be
// a link's target outside the grant.
func bareError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Siblings lists the names of the files in path's directory (resolved
// against base), for a "did you mean" when path does not exist; nothing
// when that directory is missing or outside the granted ones, whose names
// a script may not learn.
func (s *Sandbox) Siblings(base, path string) []string {
	dir, err := filepath.EvalSymlinks(filepath.Dir(absUnder(base, path)))
	if err != nil || !s.inside(dir) {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names
}

// WritePath resolves path (relative to base) for writing: its directory
// must exist inside a granted directory, and if the file exists and is a
// link, the link's target must be inside too.
func (s *Sandbox) WritePath(base, path string) (string, error) {
	abs := absUnder(base, path)
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return "", fmt.Errorf("%s: directory %s does not exist", path, relpath.Show(filepath.Dir(abs)))
	}
	real := filepath.Join(dir, filepath.Base(abs))
	if fi, err := os.Lstat(real); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(real)
		if err != nil {
			// A dangling link: written through if it leads inside,
			// refused alike whether or not an outside target exists.
			target = followMissing(real, 0)
			if s.inside(target) && !errors.Is(err, fs.ErrNotExist) {
				return "", fmt.Errorf("%s: %v", path, bareError(err))
			}
		}
		real = target
	}
	if !s.inside(real) {
		return "", s.refuse(path)
	}
	return real, nil
}

func absUnder(base, path string) string {
	if !filepath.IsAbs(path) {
		path = filepath.Join(base, path)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	return abs
}
