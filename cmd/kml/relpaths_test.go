package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMessagesUseRelativePaths checks that messages name files relative to
// the working directory, as the user types them, never by the absolute paths
// the interpreter resolved; and that a file importing itself gets one cycle
// error, not also a clash of its names with its own copy's.
func TestMessagesUseRelativePaths(t *testing.T) {
	root := t.TempDir()
	work := filepath.Join(root, "work")
	os.MkdirAll(filepath.Join(work, "sub"), 0o755)
	files := map[string]string{
		"a.kml":    "import \"b.kml\"\nlet a = 1\n",
		"b.kml":    "import \"a.kml\"\nlet b = 1\n",
		"self.kml": "import \"self.kml\"\nlet s = 1\n",
		"save.kml": "save([1, 2], to: \"nofolder/x.csv\")\n",
		"../x.kml": "print(1)\n",
		"dir.kml":  "read_csv(\"sub\")\n",
		"imp.kml":  "import \"Self.kml\"\n",
	}
	for name, src := range files {
		os.WriteFile(filepath.Join(work, name), []byte(src), 0o644)
	}
	t.Chdir(work)
	cases := []struct {
		args  []string
		stdin string
		want  []string
	}{
		{[]string{"check", "a.kml"}, "", []string{"b.kml:1:8: error: import cycle: a.kml → b.kml → a.kml"}},
		{[]string{"check", "self.kml"}, "", []string{"self.kml:1:8: error: import cycle: self.kml → self.kml"}},
		{[]string{"run", "save.kml"}, "", []string{"save.kml:1:18: error: save: nofolder/x.csv: directory nofolder does not exist"}},
		{[]string{"run", "dir.kml"}, "", []string{"dir.kml:1:10: error: read_csv: sub: is a directory"}},
		{[]string{"check", "imp.kml"}, "", []string{`imp.kml:1:8: error: cannot import: Self.kml: no such file; did you mean "self.kml"?`}},
		{[]string{"repl"}, ":load " + filepath.Join(root, "x.kml") + "\n", []string{"outside the directories this script may use (.)"}},
		{[]string{"repl"}, ":load selff.kml\n", []string{`error: :load: selff.kml: no such file; did you mean "self.kml"?`}},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		run(c.args, strings.NewReader(c.stdin), &stdout, &stderr)
		got := stderr.String()
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("kml %s: stderr lacks %q:\n%s", strings.Join(c.args, " "), w, got)
			}
		}
		// The :load line names the file as typed; nothing else may be absolute.
		if strings.Count(got, root) > strings.Count(c.stdin, root) {
			t.Errorf("kml %s: stderr shows an absolute path:\n%s", strings.Join(c.args, " "), got)
		}
		if strings.Contains(got, "already defined") {
			t.Errorf("kml %s: a spurious clash:\n%s", strings.Join(c.args, " "), got)
		}
	}
	// From a subdirectory the same files are named from there.
	t.Chdir(filepath.Join(work, "sub"))
	var stdout, stderr bytes.Buffer
	run([]string{"check", "../a.kml"}, strings.NewReader(""), &stdout, &stderr)
	if w := "import cycle: ../a.kml → ../b.kml → ../a.kml"; !strings.Contains(stderr.String(), w) {
		t.Errorf("from sub: stderr lacks %q:\n%s", w, stderr.String())
	}
}
