package eval

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxSource is the largest file ReadSource reads as KML source. A program is
// text a person or a generator wrote; a larger file is data (read it with
// read_csv) or a mistake, and reading it whole would hold the process.
const MaxSource = 16 << 20

// errNotRegular is why a device, FIFO, socket or directory is not read as
// source: /dev/zero never ends and a FIFO blocks until a writer comes.
var errNotRegular = errors.New("not a regular file (a device, FIFO, socket or directory cannot be KML source)")

// ReadSource reads a KML source file: a regular file of at most MaxSource
// bytes. `kml run`, import, :load and the language server read programs
// through it, so `import "/dev/zero"` or a FIFO is an error at once instead
// of a hang or an exhausted memory. Errors are *fs.PathError naming path as
// given.
func ReadSource(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", &fs.PathError{Op: "read", Path: path, Err: errNotRegular}
	}
	if st.Size() > MaxSource {
		return "", &fs.PathError{Op: "read", Path: path, Err: tooLarge(st.Size())}
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	// The file may have grown since Stat: read one byte past the limit.
	b, err := io.ReadAll(io.LimitReader(f, MaxSource+1))
	if err != nil {
		return "", &fs.PathError{Op: "read", Path: path, Err: err}
	}
	if len(b) > MaxSource {
		return "", &fs.PathError{Op: "read", Path: path, Err: tooLarge(int64(len(b)))}
	}
	return string(b), nil
}

func tooLarge(n int64) error {
	return fmt.Errorf("%d bytes is larger than the %d MiB a source file may have", n, MaxSource>>20)
}
