package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestStartupRemovesNothing: kml run removes no file it did not write,
// not even one named as KML names its temporaries (which a process killed
// while writing leaves where there is no O_TMPFILE): a hidden file of that
// pattern may be the user's, and no command cleans up at startup.
func TestStartupRemovesNothing(t *testing.T) {
	dir := t.TempDir()
	stale := []string{".data.csv.tmp0123456789ab", ".data.csv.tmp", ".other.tmp", "x.tmp", ".s.kml.tmpabcdefabcdef"}
	for _, n := range stale {
		os.WriteFile(filepath.Join(dir, n), []byte("mine\n"), 0o644)
	}
	script := filepath.Join(dir, "s.kml")
	os.WriteFile(script, []byte(`write_csv([1, 2], "data.csv")`+"\n"), 0o644)
	for _, args := range [][]string{{"run", script}, {"check", script}, {"fmt", "-w", script}} {
		if code, _, stderr := kmlChild(t, nil, args...); code != exitOK {
			t.Fatalf("kml %v: status %d\n%s", args, code, stderr)
		}
	}
	for _, n := range stale {
		if b, err := os.ReadFile(filepath.Join(dir, n)); err != nil || string(b) != "mine\n" {
			t.Errorf("%s was removed or changed: %v", n, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "data.csv")); string(b) != "x\n1\n2\n" {
		t.Errorf("data.csv holds %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(stale)+2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the directory holds %v: a temporary was left", names)
	}
}
