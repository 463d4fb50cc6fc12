package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeProgramRuns checks that first.kml at the top of the repository is
// the README's first program, as the README says, and runs it from there.
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
	saved, err := os.ReadFile(filepath.Join(root, "first.kml"))
	if err != nil {
		t.Fatalf("the README says first.kml is saved at the top of the repository: %v", err)
	}
	if string(saved) != src {
		t.Fatalf("first.kml differs from the README's program:\n%s", saved)
	}
	t.Chdir(root)
	var stdout, stderr bytes.Buffer
	if status := run([]string{"run", "first.kml"}, strings.NewReader(""), &stdout, &stderr); status != 0 || stderr.Len() > 0 {
		t.Fatalf("the README program exited %d:\n%s%s", status, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "ell") {
		t.Errorf("no summary printed:\n%s", stdout.String())
	}
}
