package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRootGrantCoversEverything(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "a.csv")
	if err := os.WriteFile(f, []byte("x\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := NewSandbox("/")
	if _, err := s.ReadPath("/", f); err != nil {
		t.Errorf("a grant of / refuses %s: %v", f, err)
	}
	if _, err := s.WritePath("/", filepath.Join(dir, "b.csv")); err != nil {
		t.Errorf("a grant of / refuses writing in %s: %v", dir, err)
	}
}

func TestOutsideIsRefusedAndDirsListedOnce(t *testing.T) {
	root := t.TempDir()
	inside := filepath.Join(root, "in")
	os.Mkdir(inside, 0o755)
	os.WriteFile(filepath.Join(root, "secret.txt"), []byte("x"), 0o644)
	s := NewSandbox(inside, inside, inside+"/.")
	if len(s.Dirs()) != 1 {
		t.Fatalf("granted %v, want one directory", s.Dirs())
	}
	_, err := s.WritePath(inside, "../secret.txt")
	if err == nil {
		t.Fatal("writing ../secret.txt from inside the grant was allowed")
	}
	real, _ := filepath.EvalSymlinks(inside)
	if strings.Count(err.Error(), real) != 1 {
		t.Errorf("the refusal should name the granted directory once: %v", err)
	}
	// A link inside the grant that points outside is refused too.
	os.Symlink(filepath.Join(root, "secret.txt"), filepath.Join(inside, "link.txt"))
	if _, err := s.WritePath(inside, "link.txt"); err == nil {
		t.Error("writing through a link to outside the grant was allowed")
	}
	if _, err := s.ReadPath(inside, "link.txt"); err == nil {
		t.Error("reading through a link to outside the grant was allowed")
	}
}
