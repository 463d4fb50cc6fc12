package sandbox

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// The checks of ReadPath and WritePath resolve a path and compare it with
// the granted directories; a file opened by that path afterwards could be
// reached through a directory another process swapped for a link to the
// outside in between (8 reads and 2 writes outside in a test of issue 38).
// ReadFile and every write (write.go) therefore do the I/O through an os.Root of the
// granted directory: every component is opened relative to the one before
// it, and a link that leads out of the root is an error, whatever changes
// between the check and the open.

// ReadFile reads path (relative to base) from inside the granted
// directories: a regular file, opened through the directory's root so that
// no link swapped in after the check leads outside.
func (s *Sandbox) ReadFile(base, path string) ([]byte, error) {
	return s.ReadFileLimit(base, path, -1)
}

// ReadFileLimit is ReadFile refusing a file of more than limit bytes
// (limit < 0: no limit), read to at most one byte past it.
func (s *Sandbox) ReadFileLimit(base, path string, limit int64) ([]byte, error) {
	real, err := s.ReadPath(base, path)
	if err != nil {
		return nil, err
	}
	afterCheck()
	r, rel, err := s.rootOf(real)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	// O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
	// writer; it is refused below as not a regular file.
	f, err := r.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, s.ioError(path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s: is a directory", path)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	var rd io.Reader = f
	if limit >= 0 {
		if fi.Size() > limit {
			return nil, tooLarge(path, fi.Size(), limit)
		}
		rd = io.LimitReader(f, limit+1)
	}
	data, err := io.ReadAll(rd)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if limit >= 0 && int64(len(data)) > limit {
		return nil, tooLarge(path, int64(len(data)), limit)
	}
	return data, nil
}

// afterCheck runs between the check and the I/O; a test sets it to swap a
// directory for a link exactly there.
var afterCheck = func() {}

// rootOf opens the root of the granted directory that holds real (a path
// ReadPath or WritePath resolved) and gives real relative to it. The
// directory must still be the one granted: one replaced since is refused.
func (s *Sandbox) rootOf(real string) (*os.Root, string, error) {
	for i, d := range s.dirs {
		rel, err := filepath.Rel(d, real)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		r, err := os.OpenRoot(d)
		if err != nil {
			return nil, "", fmt.Errorf("the granted directory %s: %v", d, err)
		}
		if fi, err := r.Stat("."); err != nil || !os.SameFile(fi, s.ids[i]) {
			r.Close()
			return nil, "", fmt.Errorf("the granted directory %s was replaced while the script ran", d)
		}
		return r, rel, nil
	}
	return nil, "", s.refuse(real)
}

// ioError words an error of an access through a root: an escape is the
// sandbox's refusal, anything else names the path as the script gave it.
func (s *Sandbox) ioError(path string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		if strings.Contains(pe.Err.Error(), "escapes") {
			return s.refuse(path)
		}
		err = pe.Err
	}
	return fmt.Errorf("%s: %v", path, err)
}

func tooLarge(path string, n, limit int64) error {
	return &TooLargeError{Path: path, Size: n, Limit: limit}
}

// TooLargeError is ReadFileLimit's error for a file over its limit: Size
// bytes (or at least Size, for a file that grew while read).
type TooLargeError struct {
	Path        string
	Size, Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: %s, more than the %s this file may have", e.Path, sizeText(e.Size), sizeText(e.Limit))
}

// sizeText is n bytes in the largest binary unit that keeps it at least 1.
func sizeText(n int64) string {
	x, units := float64(n), []string{"bytes", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for x >= 1024 && i < len(units)-1 {
		x /= 1024
		i++
	}
	if x == math.Trunc(x) {
		return fmt.Sprintf("%.0f %s", x, units[i])
	}
	return fmt.Sprintf("%.1f %s", x, units[i])
}
