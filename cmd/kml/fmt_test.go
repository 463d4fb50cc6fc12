package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFmt(t *testing.T) {
	dir := t.TempDir()
	messy := filepath.Join(dir, "messy.kml")
	tidy := filepath.Join(dir, "tidy.kml")
	bad := filepath.Join(dir, "bad.kml")
	os.WriteFile(messy, []byte("let a=1+2 # three\nprint( a )\n"), 0o600)
	os.WriteFile(tidy, []byte("let a = 1\n"), 0o644)
	os.WriteFile(bad, []byte("let a = 1\nlet b = (2 +\n"), 0o644)
	const formatted = "let a = 1 + 2 # three\nprint(a)\n"

	kml := func(stdin string, args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		status := run(append([]string{"fmt"}, args...), strings.NewReader(stdin), &stdout, &stderr)
		return status, stdout.String(), stderr.String()
	}

	if status, out, errs := kml("", messy); status != 0 || out != formatted || errs != "" {
		t.Errorf("kml fmt FILE: %d %q %q", status, out, errs)
	}
	if status, out, _ := kml("let  x=2\n"); status != 0 || out != "let x = 2\n" {
		t.Errorf("kml fmt < stdin: %d %q", status, out)
	}
	status, out, _ := kml("", "-d", tidy, messy)
	if status != 1 || !strings.Contains(out, "--- a/"+strings.TrimPrefix(messy, "/")) || !strings.Contains(out, "-let a=1+2 # three\n-print( a )\n+let a = 1 + 2 # three\n+print(a)\n") || strings.Contains(out, tidy) {
		t.Errorf("kml fmt -d: %d\n%s", status, out)
	}
	if status, out, _ := kml("", "-d", tidy); status != 0 || out != "" {
		t.Errorf("kml fmt -d on a formatted file: %d %q", status, out)
	}
	if status, out, _ := kml("", "-w", messy); status != 0 || out != "" {
		t.Errorf("kml fmt -w: %d %q", status, out)
	}
	if b, _ := os.ReadFile(messy); string(b) != formatted {
		t.Errorf("kml fmt -w wrote %q", b)
	}
	if fi, _ := os.Stat(messy); fi.Mode().Perm() != 0o600 {
		t.Errorf("kml fmt -w changed the mode to %v", fi.Mode())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
	status, out, errs := kml("", bad)
	if status != 2 || out != "" || !strings.HasPrefix(errs, bad+":2:9: error: \"(\" is never closed\nlet b = (2 +\n        ^\n") {
		t.Errorf("syntax error: %d %q\n%s", status, out, errs)
	}
	if b, _ := os.ReadFile(bad); string(b) != "let a = 1\nlet b = (2 +\n" {
		t.Errorf("a file with errors was changed: %q", b)
	}
	if status, _, errs := kml("", "-x", tidy); status != 2 || !strings.Contains(errs, "unknown option -x") {
		t.Errorf("unknown option: %d %q", status, errs)
	}
	if status, _, _ := kml("", filepath.Join(dir, "missing.kml")); status != 2 {
		t.Errorf("missing file: status %d", status)
	}
}
