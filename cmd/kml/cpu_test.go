package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// kmlChild runs this test binary as `kml args...` (TestMain) with the
// environment variables env added, and returns its exit status, stdout
// and stderr.
func kmlChild(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "KML_TEST_MAIN=1"), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// TestKMLCPU checks KML_CPU end to end: `kml version` names the capped
// path (generic always, avx2 where the CPU has it), and a value that is
// not a level stops every command with a usage error.
func TestKMLCPU(t *testing.T) {
	code, out, _ := kmlChild(t, []string{"KML_CPU=generic"}, "version")
	if code != exitOK || !strings.Contains(out, "\nisa: none (cpu ") || !strings.Contains(out, "KML_CPU=generic) model: ") {
		t.Errorf("KML_CPU=generic kml version: status %d, output:\n%s", code, out)
	}
	code, out, _ = kmlChild(t, []string{"KML_CPU=avx512"}, "version")
	if code != exitOK || !strings.Contains(out, "\nisa: ") {
		t.Errorf("KML_CPU=avx512 kml version: status %d, output:\n%s", code, out)
	}
	code, out, msg := kmlChild(t, []string{"KML_CPU=sse4"}, "run", "x.kml")
	if code != exitStatic || out != "" || msg != "error: KML_CPU=\"sse4\" is not one of generic, avx2, avx512\n" {
		t.Errorf("KML_CPU=sse4 kml run: status %d, stdout %q, stderr %q", code, out, msg)
	}
}
