package stdlib_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
)

// runIn runs src with dir as its only directory and returns the error text.
func runIn(t *testing.T, dir, src string) string {
	t.Helper()
	var out bytes.Buffer
	in := eval.New(eval.Options{Stdout: &out, Stderr: &out, Dirs: []string{dir}, BaseDir: dir})
	if _, err := in.Eval("t.kml", src); err != nil {
		var b bytes.Buffer
		in.Sources().Print(&b, err)
		return b.String()
	}
	return ""
}

// TestWriteCSVKeepsOtherFiles: write_csv replaces an existing file only if it
// is a .csv file, unless overwrite: true.
func TestWriteCSVKeepsOtherFiles(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("my notes\n"), 0o644)
	msg := runIn(t, dir, `write_csv([1, 2], "notes.txt")`)
	if !strings.Contains(msg, "overwrite: true") {
		t.Errorf("overwriting notes.txt: got %q", msg)
	}
	if b, _ := os.ReadFile(notes); string(b) != "my notes\n" {
		t.Errorf("notes.txt was changed: %q", b)
	}
	if msg := runIn(t, dir, `write_csv([1, 2], "notes.txt", overwrite: true)`); msg != "" {
		t.Errorf("overwrite: true refused: %s", msg)
	}
	if b, _ := os.ReadFile(notes); string(b) != "x\n1\n2\n" {
		t.Errorf("notes.txt after overwrite: true: %q", b)
	}
	os.WriteFile(filepath.Join(dir, "old.csv"), []byte("y\n3\n"), 0o644)
	if msg := runIn(t, dir, `write_csv([1], "old.csv")`+"\n"+`write_csv([1], "fresh.txt")`); msg != "" {
		t.Errorf("replacing a .csv or writing a new file refused: %s", msg)
	}
}
