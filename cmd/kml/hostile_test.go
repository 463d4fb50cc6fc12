package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostileFiles reruns the file cases of issue 38's table through kml
// run: links and .. out of the grant, dangling links, FIFOs, devices, huge
// sparse files, directories as targets. Each must end at once in a clear
// positioned error (exit 1, FILE:LINE:COL: error: ...), never a Go crash
// or a hang, with nothing outside read (the secret never printed) or
// written (the outside directory as it was).
func TestHostileFiles(t *testing.T) {
	top := t.TempDir()
	in, out := filepath.Join(top, "in"), filepath.Join(top, "out")
	os.Mkdir(in, 0o755)
	os.Mkdir(out, 0o755)
	os.WriteFile(filepath.Join(out, "secret.csv"), []byte("SECRET\n1\n"), 0o644)
	os.Symlink(out, filepath.Join(in, "lo"))
	os.Symlink(filepath.Join(out, "missing.csv"), filepath.Join(in, "dangling.csv"))
	os.Mkdir(filepath.Join(in, "d.csv"), 0o755)
	for _, n := range []string{"p.csv", "p.kml"} {
		if err := syscall.Mkfifo(filepath.Join(in, n), 0o600); err != nil {
			t.Skip("no FIFOs here:", err)
		}
	}
	for _, n := range []string{"huge.csv", "huge.kml"} {
		f, _ := os.Create(filepath.Join(in, n))
		f.Truncate(64 << 30) // sparse: nothing is written
		f.Close()
	}
	before := func() []string {
		entries, _ := os.ReadDir(out)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}
	outside := before()
	cases := []struct {
		src   string
		allow string // --allow, besides the script's directory
		want  string
	}{
		{`write_csv([1], "../out/x.csv")`, "", "is outside the directories"},
		{`write_csv([1], "lo/x.csv")`, "", "is outside the directories"},
		{`read_csv("lo/secret.csv")`, "", "is outside the directories"},
		{`read_csv("../out/secret.csv")`, "", "is outside the directories"},
		{`write_csv([1], "dangling.csv")`, "", "dangling.csv is outside the directories"},
		{`read_csv("dangling.csv")`, "", "dangling.csv is outside the directories"},
		{`save([1], to: "/etc/kml-x.json")`, "", "is outside the directories"},
		{`read_csv("p.csv")`, "", "p.csv: not a regular file"},
		{`write_csv([1], "p.csv")`, "", "p.csv is not a regular file"},
		{`import "p.kml"`, "", "not a regular file"},
		{`read_csv("/dev/zero")`, "/", "/dev/zero: not a regular file"},
		{`import "/dev/zero"`, "/", "not a regular file"},
		{`save([1], to: "/dev/null.csv")`, "", "is outside the directories"},
		{`read_csv("huge.csv")`, "", "huge.csv is 64 GB, more than the memory budget"},
		{`import "huge.kml"`, "", "huge.kml: 64 GiB, more than the 16 MiB this file may have"},
		{`save([1], to: "d.csv")`, "", "d.csv is a directory"},
		{`write_csv([1], "nodir/x.csv")`, "", "nodir/x.csv: directory "},
	}
	for i, c := range cases {
		script := filepath.Join(in, "case.kml")
		os.WriteFile(script, []byte(c.src+"\n"), 0o644)
		args := []string{"run", script, "--max-memory", "1GB"}
		if c.allow != "" {
			args = append(args, "--allow", c.allow)
		}
		var stdout, stderr bytes.Buffer
		status := make(chan int, 1)
		go func() { status <- run(args, strings.NewReader(""), &stdout, &stderr) }()
		select {
		case code := <-status:
			msg := stderr.String()
			want := exitRuntime
			if strings.HasPrefix(c.src, "import") {
				want = exitStatic // an import is read before the script runs
			}
			if code != want || !strings.Contains(msg, "case.kml:1:") || !strings.Contains(msg, c.want) {
				t.Errorf("case %d, %s: status %d, want %d with %q:\n%s", i+1, c.src, code, want, c.want, msg)
			}
			if strings.Contains(msg+stdout.String(), "SECRET") || strings.Contains(msg, out+"/") || strings.Contains(msg, "goroutine ") {
				t.Errorf("case %d, %s: the output shows the outside or a Go crash:\n%s", i+1, c.src, msg)
			}
		case <-time.After(time.Minute):
			t.Fatalf("case %d, %s: no end within a minute", i+1, c.src)
		}
	}
	if now := before(); !slices.Equal(now, outside) {
		t.Errorf("the outside directory holds %v, held %v", now, outside)
	}
	entries, _ := os.ReadDir(in)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("a temporary was left: %s", e.Name())
		}
	}
}
