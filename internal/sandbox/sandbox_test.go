package sandbox

import (
	"context"
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

// TestDanglingLinksTellNothing: a link to a missing file outside the grant
// is refused exactly as a link to an existing one, for reading and for
// writing, and no error prints where a link leads (issue 38: the error
// printed the absolute target and so told whether it existed). A dangling
// link that leads inside reads as a missing file and is written through.
func TestDanglingLinksTellNothing(t *testing.T) {
	root := t.TempDir()
	inside := filepath.Join(root, "in")
	os.Mkdir(inside, 0o755)
	os.WriteFile(filepath.Join(root, "exists.txt"), []byte("x"), 0o644)
	os.Symlink(filepath.Join(root, "exists.txt"), filepath.Join(inside, "to-existing"))
	os.Symlink(filepath.Join(root, "missing.txt"), filepath.Join(inside, "to-missing"))
	os.Symlink("../nodir/missing.txt", filepath.Join(inside, "to-missing-dir"))
	os.Symlink("here.txt", filepath.Join(inside, "to-inside"))
	s := NewSandbox(inside)
	refusal := func(err error) string {
		if err == nil {
			return "<nil>"
		}
		return strings.Replace(err.Error(), "to-existing", "LINK", 1)
	}
	for _, op := range []struct {
		name string
		f    func(string) (string, error)
	}{{"read", func(p string) (string, error) { return s.ReadPath(inside, p) }},
		{"write", func(p string) (string, error) { return s.WritePath(inside, p) }}} {
		_, errExisting := op.f("to-existing")
		want := refusal(errExisting)
		if !strings.Contains(want, "outside the directories") {
			t.Fatalf("%s through a link to an outside file: %v", op.name, errExisting)
		}
		for _, link := range []string{"to-missing", "to-missing-dir"} {
			_, err := op.f(link)
			if got := strings.Replace(refusal(err), link, "LINK", 1); got != want {
				t.Errorf("%s %s: %q\nwant the same refusal as for an existing target: %q", op.name, link, got, want)
			}
			if err != nil && strings.Contains(err.Error(), root+string(filepath.Separator)+"missing") {
				t.Errorf("%s %s: the error names the link's target: %v", op.name, link, err)
			}
		}
	}
	if _, err := s.ReadPath(inside, "to-inside"); err == nil || err.Error() != "to-inside: no such file" {
		t.Errorf("reading a dangling link inside: %v", err)
	}
	if err := s.WriteFile(context.Background(), inside, "to-inside", []byte("y")); err != nil {
		t.Errorf("writing through a dangling link inside: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(inside, "here.txt")); string(b) != "y" {
		t.Errorf("the write through the link gave %q", b)
	}
}
