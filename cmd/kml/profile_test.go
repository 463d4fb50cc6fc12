package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestProfileFlags(t *testing.T) {
	rest, cpu, mem, err := profileFlags([]string{"x.kml", "--cpuprofile", "c.prof", "--seed", "3", "-memprofile=m.prof"})
	if err != nil || cpu != "c.prof" || mem != "m.prof" || !slices.Equal(rest, []string{"x.kml", "--seed", "3"}) {
		t.Errorf("got %q %q %q %v", rest, cpu, mem, err)
	}
	for _, bad := range [][]string{{"x.kml", "--cpuprofile"}, {"--memprofile="}} {
		if _, _, _, err := profileFlags(bad); err == nil || !strings.Contains(err.Error(), "needs a file") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// profileStrings checks that path holds a profile as runtime/pprof writes
// it — gzip, then a protocol buffer whose top-level fields are well formed
// and include sample types (field 1) and a string table (field 6) — and
// returns the string table.
func profileStrings(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) < 2 || raw[0] != 0x1f || raw[1] != 0x8b {
		t.Fatalf("%s: not gzip (%d bytes)", path, len(raw))
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	pb, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var strs []string
	seen := map[uint64]bool{}
	for len(pb) > 0 {
		key, n := binary.Uvarint(pb)
		if n <= 0 {
			t.Fatalf("%s: bad field key", path)
		}
		pb = pb[n:]
		field, wire := key>>3, key&7
		seen[field] = true
		switch wire {
		case 0:
			_, n = binary.Uvarint(pb)
			if n <= 0 {
				t.Fatalf("%s: bad varint in field %d", path, field)
			}
			pb = pb[n:]
		case 2:
			l, n := binary.Uvarint(pb)
			if n <= 0 || uint64(len(pb)-n) < l {
				t.Fatalf("%s: field %d runs past the end", path, field)
			}
			if field == 6 {
				strs = append(strs, string(pb[n:n+int(l)]))
			}
			pb = pb[n+int(l):]
		default:
			t.Fatalf("%s: wire type %d in field %d", path, wire, field)
		}
	}
	if !seen[1] || !seen[6] {
		t.Fatalf("%s: no sample types or string table", path)
	}
	if goTool, err := exec.LookPath("go"); err == nil {
		if out, err := exec.Command(goTool, "tool", "pprof", "-top", path).CombinedOutput(); err != nil {
			t.Fatalf("go tool pprof -top %s: %v\n%s", path, err, out)
		}
	}
	return strs
}

// profileRun starts `kml run sub/p.kml --cpuprofile cpu.prof --memprofile
// mem.prof` as a child in a fresh working directory, the script one level
// below it, so that paths relative to the working directory and to the
// script differ.
func profileRun(t *testing.T, src string) (*exec.Cmd, string, *bytes.Buffer) {
	t.Helper()
	wd := t.TempDir()
	os.Mkdir(filepath.Join(wd, "sub"), 0o755)
	if err := os.WriteFile(filepath.Join(wd, "sub", "p.kml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "run", "sub/p.kml", "--cpuprofile", "cpu.prof", "--memprofile", "mem.prof")
	cmd.Dir = wd
	cmd.Env = append(os.Environ(), "KML_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	return cmd, wd, &stderr
}

func checkProfiles(t *testing.T, wd string) {
	t.Helper()
	if s := profileStrings(t, filepath.Join(wd, "cpu.prof")); !slices.Contains(s, "cpu") || !slices.Contains(s, "nanoseconds") {
		t.Errorf("cpu.prof: sample types missing from %q", s[:min(len(s), 8)])
	}
	if s := profileStrings(t, filepath.Join(wd, "mem.prof")); !slices.Contains(s, "alloc_space") || !slices.Contains(s, "inuse_space") {
		t.Errorf("mem.prof: sample types missing from %q", s[:min(len(s), 8)])
	}
	for _, f := range []string{"cpu.prof", "mem.prof"} {
		if _, err := os.Stat(filepath.Join(wd, "sub", f)); err == nil {
			t.Errorf("%s written beside the script, not in the working directory", f)
		}
	}
}

// TestProfilesWritten: a run that ends, one that fails at runtime, and one
// stopped by Ctrl-C each write both profiles, in the working directory.
func TestProfilesWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	work := "let x = draw(normal(0, 1), 300, seed: 1)\nlet L = chol(outer(x, x) + 400 * eye(300))\n"
	t.Run("ok", func(t *testing.T) {
		cmd, wd, stderr := profileRun(t, work+"print(L[1, 1])\n")
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		checkProfiles(t, wd)
	})
	t.Run("runtime error", func(t *testing.T) {
		cmd, wd, stderr := profileRun(t, work+"print(chol([[1, 2], [3, 4]]))\n")
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitRuntime || !strings.Contains(stderr.String(), "p.kml:3:") {
			t.Fatalf("%v\n%s", err, stderr)
		}
		checkProfiles(t, wd)
	})
	t.Run("interrupted", func(t *testing.T) {
		cmd, wd, stderr := profileRun(t, `let x = draw(normal(0, 1), 200000, seed: 1)
model m {
  mu ~ normal(0, 1)
  x ~ normal(mu, 1)
}
print("started")
let post = sample(m, chains: 1, warmup: 100000, draws: 100000, seed: 2)
`)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if line, _ := bufio.NewReader(out).ReadString('\n'); strings.TrimSpace(line) != "started" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("first line %q; stderr:\n%s", line, stderr)
		}
		time.Sleep(100 * time.Millisecond)
		cmd.Process.Signal(syscall.SIGINT)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(2 * time.Minute):
			cmd.Process.Kill()
			<-done
			t.Fatalf("not stopped 2 minutes after SIGINT; stderr:\n%s", stderr)
		}
		if code := cmd.ProcessState.ExitCode(); code != exitSignal {
			t.Fatalf("exit status %d; stderr:\n%s", code, stderr)
		}
		checkProfiles(t, wd)
	})
	t.Run("unwritable", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		dir := t.TempDir()
		script := filepath.Join(dir, "x.kml")
		os.WriteFile(script, []byte("print(1)\n"), 0o644)
		status := run([]string{"run", script, "--cpuprofile", filepath.Join(dir, "no", "c.prof")}, strings.NewReader(""), &stdout, &stderr)
		if status != exitRuntime || !strings.HasPrefix(stderr.String(), "error: --cpuprofile: ") ||
			!strings.Contains(stderr.String(), "no such file or directory") || stdout.Len() != 0 {
			t.Errorf("status %d, stdout %q, stderr %q", status, stdout.String(), stderr.String())
		}
	})
}

// TestProfilesAtomic: the profiles are written as every file KML writes, to
// a temporary put in place at the end, so a run killed before it ends
// leaves the profiles of an earlier run as they were and no part of new
// ones, and nothing else in the directory.
func TestProfilesAtomic(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	cmd, wd, stderr := profileRun(t, `model m {
  mu ~ normal(0, 1)
  draw(normal(0, 1), 200000, seed: 1) ~ normal(mu, 1)
}
print("started")
let post = sample(m, chains: 1, warmup: 100000, draws: 100000, seed: 2)
`)
	old := map[string]string{"cpu.prof": "an earlier CPU profile", "mem.prof": "an earlier memory profile"}
	for name, body := range old {
		if err := os.WriteFile(filepath.Join(wd, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if line, _ := bufio.NewReader(out).ReadString('\n'); strings.TrimSpace(line) != "started" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("first line %q; stderr:\n%s", line, stderr)
	}
	time.Sleep(100 * time.Millisecond)
	cmd.Process.Kill()
	cmd.Wait()
	for name, body := range old {
		if got, err := os.ReadFile(filepath.Join(wd, name)); err != nil || string(got) != body {
			t.Errorf("%s after kill -9 of the run writing it: %q, %v; want the earlier file, %q", name, got, err, body)
		}
	}
	entries, _ := os.ReadDir(wd)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{"cpu.prof", "mem.prof", "sub"}; !slices.Equal(names, want) {
		t.Errorf("the directory holds %q, want %q (no temporary left)", names, want)
	}
}
