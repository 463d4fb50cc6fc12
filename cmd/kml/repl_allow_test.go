package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestREPLAllow checks that kml repl grants the working directory and the
// --allow ones, as kml run does, and that :load keeps to them.
func TestREPLAllow(t *testing.T) {
	root := t.TempDir()
	work, other := filepath.Join(root, "work"), filepath.Join(root, "other")
	os.MkdirAll(work, 0o755)
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "o.kml"), []byte("print(sum(read_csv(\"d.csv\")))\n"), 0o644)
	os.WriteFile(filepath.Join(other, "d.csv"), []byte("x\n3\n4\n"), 0o644)
	t.Chdir(work)
	repl := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		status := run(append([]string{"repl"}, args...), strings.NewReader(":load ../other/o.kml\n"), &stdout, &stderr)
		return status, stdout.String(), stderr.String()
	}
	if status, out, errs := repl(); status != 0 || strings.Contains(out, "7") || !strings.Contains(errs, "error: :load: ../other/o.kml is outside the directories") {
		t.Errorf("without --allow: status %d, stdout %q, stderr %q; want the load refused", status, out, errs)
	}
	if status, out, errs := repl("--allow", other); status != 0 || !strings.Contains(out, "7\n") || errs != "" {
		t.Errorf("with --allow: status %d, stdout %q, stderr %q; want 7", status, out, errs)
	}
	if status, _, errs := repl("--allow"); status != exitStatic || !strings.Contains(errs, "--allow needs a value") {
		t.Errorf("--allow without a value: status %d, stderr %q", status, errs)
	}
}
