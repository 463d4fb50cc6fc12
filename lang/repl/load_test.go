package repl

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
)

// TestLoadKeepsToTheSandbox checks that :load reads only files inside the
// session's directories (a file outside is refused before it is read, so
// its lines never appear in errors) and that a loaded script reads its data
// relative to its own directory, in the working directory or one granted
// with --allow.
func TestLoadKeepsToTheSandbox(t *testing.T) {
	root := t.TempDir()
	work, other := filepath.Join(root, "work"), filepath.Join(root, "other")
	for _, d := range []string{filepath.Join(work, "sub"), other} {
		os.MkdirAll(d, 0o755)
	}
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "outside.kml"), "print(\"RAN OUTSIDE\")\nsecret line here\n")
	write(filepath.Join(work, "sub", "s.kml"), "print(sum(read_csv(\"d.csv\")))\n")
	write(filepath.Join(work, "sub", "d.csv"), "x\n1\n2\n")
	write(filepath.Join(other, "o.kml"), "print(sum(read_csv(\"d.csv\")) + 100)\n")
	write(filepath.Join(other, "d.csv"), "x\n3\n4\n")

	load := func(dirs []string, arg string) (string, string) {
		var out, errw bytes.Buffer
		in := eval.New(eval.Options{Stdout: &out, Stderr: &errw, Dirs: dirs, BaseDir: work})
		r := &session{in: in, out: &out, errw: &errw, interrupts: make(chan os.Signal)}
		r.command(":load " + arg)
		return out.String(), errw.String()
	}
	for _, arg := range []string{"../outside.kml", filepath.Join(root, "outside.kml"), "/etc/passwd", "../other/o.kml"} {
		out, errw := load([]string{work}, arg)
		if !strings.Contains(errw, "error: :load: ") || !strings.Contains(errw, "outside the directories") || strings.Contains(out+errw, "RAN") ||
			strings.Contains(errw, "secret") || strings.Contains(errw, "root:") {
			t.Errorf(":load %s: stdout %q, stderr %q; want it refused unread", arg, out, errw)
		}
	}
	if out, errw := load([]string{work}, "sub/s.kml"); out != "3\n" || errw != "" {
		t.Errorf(":load sub/s.kml: stdout %q, stderr %q; want 3", out, errw)
	}
	if out, errw := load([]string{work, other}, "../other/o.kml"); out != "107\n" || errw != "" {
		t.Errorf(":load ../other/o.kml with other granted: stdout %q, stderr %q; want 107", out, errw)
	}
}
