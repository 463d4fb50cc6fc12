package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
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

// TestDocsStandAlone checks that the README and docs/ name no file a user of
// the repository does not have: every `*.md` they mention and every relative
// link resolves inside the repository.
func TestDocsStandAlone(t *testing.T) {
	root := repoRoot(t)
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append(docs, filepath.Join(root, "README.md"))
	mdName := regexp.MustCompile(`[A-Za-z0-9_./-]*[A-Za-z0-9_-]+\.md\b`)
	for _, doc := range docs {
		data, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			for _, name := range mdName.FindAllString(line, -1) {
				if strings.Contains(name, "://") {
					continue
				}
				found := false
				for _, base := range []string{filepath.Dir(doc), root} {
					p := filepath.Join(base, name)
					if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
						if _, err := os.Stat(p); err == nil {
							found = true
						}
					}
				}
				if !found {
					t.Errorf("%s:%d names %s, which is not in the repository", filepath.Base(doc), i+1, name)
				}
			}
		}
	}
}
