package eval

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadSourceRefuses checks that a device, a FIFO, a directory and a file
// over MaxSource are errors at once: `import "/dev/zero"` read forever and a
// FIFO blocked until a writer came.
func TestReadSourceRefuses(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.kml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.kml")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(MaxSource + 1) // sparse: no disk is written
	f.Close()
	good := filepath.Join(dir, "good.kml")
	os.WriteFile(good, []byte("let a = 1\n"), 0o600)
	cases := map[string]string{
		"/dev/zero":                       "not a regular file",
		fifo:                              "not a regular file",
		dir:                               "not a regular file",
		big:                               "larger than the 16 MiB",
		filepath.Join(dir, "missing.kml"): "no such file",
	}
	for path, want := range cases {
		_, err := ReadSource(path)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadSource(%s) = %v, want an error with %q", path, err, want)
		}
		if err != nil && !strings.Contains(err.Error(), path) {
			t.Errorf("ReadSource(%s): %v does not name the file", path, err)
		}
	}
	if src, err := ReadSource(good); err != nil || src != "let a = 1\n" {
		t.Errorf("ReadSource(good) = %q, %v", src, err)
	}
	_, err = ReadSource("/dev/zero")
	if !errors.Is(err, errNotRegular) {
		t.Errorf("ReadSource(/dev/zero): %v is not errNotRegular", err)
	}
}
