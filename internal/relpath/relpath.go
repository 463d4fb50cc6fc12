// Package relpath shows file paths in messages as the user would type them:
// relative to the working directory. Messages name files by position
// (FILE:LINE:COL) with the path the user wrote; paths the program resolved
// itself (an import's key, a granted directory, a missing folder) are
// absolute and pass through here before they are shown.
package relpath

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Show returns path relative to the working directory when it is at or
// below it, or at most two levels above it (../data); other paths, and
// every path when the working directory is unknown, are returned cleaned,
// as given: /etc/passwd reads better than ../../../etc/passwd.
func Show(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return filepath.Clean(path)
	}
	return showFrom(wd, path)
}

func showFrom(wd, path string) string {
	if !filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	rel, err := filepath.Rel(wd, path)
	if err != nil {
		return filepath.Clean(path)
	}
	up := ".." + string(filepath.Separator)
	if strings.HasPrefix(rel, up+up+"..") {
		return filepath.Clean(path)
	}
	return rel
}

// ShowAll is Show for each path.
func ShowAll(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = Show(p)
	}
	return out
}

// Err rewrites the path in an *fs.PathError or *os.LinkError (what os
// functions return, naming the absolute path they were given) with Show,
// keeping the cause: "out/x.csv: permission denied". Other errors pass
// through.
func Err(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", Show(pe.Path), pe.Err)
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return fmt.Errorf("%s: %w", Show(le.New), le.Err)
	}
	return err
}
