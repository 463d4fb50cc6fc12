package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeProgramRuns saves the README's first program at the top of a
// copy of the repository's data, as the README says, and runs it.
func TestReadmeProgramRuns(t *testing.T) {
	root := repoRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "```kml\n")
	src, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("README.md has no ```kml block")
	}
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "examples", "data"), 0o755)
	inputs, _ := filepath.Glob(filepath.Join(root, "examples", "data", "*"))
	for _, f := range inputs {
		data, _ := os.ReadFile(f)
		os.WriteFile(filepath.Join(dir, "examples", "data", filepath.Base(f)), data, 0o644)
	}
	os.WriteFile(filepath.Join(dir, "first.kml"), []byte(src), 0o644)
	var stdout, stderr bytes.Buffer
	if status := run([]string{"run", filepath.Join(dir, "first.kml")}, strings.NewReader(""), &stdout, &stderr); status != 0 || stderr.Len() > 0 {
		t.Fatalf("the README program exited %d:\n%s%s", status, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "ell") {
		t.Errorf("no summary printed:\n%s", stdout.String())
	}
}
