package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets a test run this command as a child process (to send it a
// signal): with KML_TEST_MAIN set, the test binary is `kml`.
func TestMain(m *testing.M) {
	if os.Getenv("KML_TEST_MAIN") == "1" {
		if os.Getenv("KML_TEST_DEAF") == "1" {
			registerDeaf()
		}
		main()
	}
	os.Exit(m.Run())
}

// TestInterruptStopsRun sends SIGINT to `kml run` during a long fit: the
// run must stop with "interrupted" at the statement's position, exit 130,
// and leave no file behind in the script's directory.
func TestInterruptStopsRun(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			// "started" comes right before the fit, so however loaded
			// the machine the signal reaches the fit on line 7.
			src := `let x = draw(normal(0, 1), 200000, seed: 1)
model m {
  mu ~ normal(0, 1)
  x ~ normal(mu, 1)
}
print("started")
let post = sample(m, chains: 1, warmup: 100000, draws: 100000, seed: 2)
write_csv([1, 2], "never.csv")
`
			code, msg, _ := signalChild(t, dir, src, 200*time.Millisecond, sig)
			if code != exitSignal {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, exitSignal, msg)
			}
			if !strings.Contains(msg, "long.kml:7:") || !strings.Contains(msg, "interrupted") {
				t.Errorf("stderr does not report the interrupted statement:\n%s", msg)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.Name() != "long.kml" {
					t.Errorf("file left behind: %s", e.Name())
				}
			}
		})
	}
}

// TestSandboxGrants: by default a script may use only its own directory, not
// the working directory; --allow grants another (and / grants everything).
func TestSandboxGrants(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "notes.csv"), []byte("x\n1\n"), 0o644)
	os.Mkdir(filepath.Join(home, "Downloads"), 0o755)
	script := filepath.Join(home, "Downloads", "x.kml")
	os.WriteFile(script, []byte(`write_csv([7], "../notes.csv")`+"\n"), 0o644)
	wd, _ := os.Getwd()
	os.Chdir(home)
	defer os.Chdir(wd)
	var stdout, stderr bytes.Buffer
	if status := run([]string{"run", "Downloads/x.kml"}, strings.NewReader(""), &stdout, &stderr); status != exitRuntime || !strings.Contains(stderr.String(), "outside the directories") {
		t.Errorf("writing to the working directory: status %d, %s", status, stderr.String())
	}
	if b, _ := os.ReadFile(filepath.Join(home, "notes.csv")); string(b) != "x\n1\n" {
		t.Fatalf("notes.csv was overwritten: %q", b)
	}
	for _, grant := range []string{".", "/"} {
		stderr.Reset()
		if status := run([]string{"run", "Downloads/x.kml", "--allow", grant}, strings.NewReader(""), &stdout, &stderr); status != exitOK {
			t.Errorf("--allow %s: status %d, %s", grant, status, stderr.String())
		}
	}
	stderr.Reset()
	if status := run([]string{"run", "Downloads/x.kml", "--allow"}, strings.NewReader(""), &stdout, &stderr); status != exitStatic {
		t.Errorf("--allow without a directory: status %d, %s", status, stderr.String())
	}
}
