//go:build !linux

package sandbox

import (
	"errors"
	"os"
)

// openUnnamed: only Linux opens a file without a name (O_TMPFILE); here
// the temporary is always named.
func openUnnamed(dir *os.File) (*os.File, error) { return nil, errors.ErrUnsupported }

func linkUnnamed(f, dir *os.File, name string) error { return errors.ErrUnsupported }
