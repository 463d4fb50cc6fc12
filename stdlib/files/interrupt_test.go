package files_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/progress"
)

// interruptAt runs setup, then src in dir with an interrupt (Ctrl-C in kml
// run, eval.Interpreter.Interrupt) at the n-th MiB a write reports, and
// returns the printed error and the files left in dir.
func interruptAt(t *testing.T, dir, setup, src string, n int) (string, []string) {
	t.Helper()
	var out bytes.Buffer
	var in *eval.Interpreter
	mib := 0
	in = eval.New(eval.Options{Stdout: &out, Stderr: &out, Dirs: []string{dir}, BaseDir: dir,
		ProgressDelay: -1, OnProgress: func(ev progress.Event) {
			if ev.What == "MiB written" && !ev.End {
				if mib++; mib == n {
					in.Interrupt()
				}
			}
		}})
	if _, err := in.Eval("setup.kml", setup); err != nil {
		t.Fatal(err)
	}
	var msg string
	if _, err := in.Eval("t.kml", src); err != nil {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the error does not wrap context.Canceled: %v", err)
		}
		var b bytes.Buffer
		in.Sources().Print(&b, err)
		msg = b.String()
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return msg, names
}

// TestInterruptedSaveLeavesNothing interrupts write_csv and save (CSV and
// JSON) a MiB into a 3 MiB file: each stops with "NAME: interrupted",
// leaving the old file as it was and no temporary. Before the shared
// writer each rendered the whole file and wrote it, past the interrupt.
func TestInterruptedSaveLeavesNothing(t *testing.T) {
	setup := `let x = rep(0.123456789, 300000)` // 3.3 MB as CSV, 4.2 MB as JSON
	for _, c := range []struct{ src, name string }{
		{`write_csv(x, "old.csv")`, "write_csv"},
		{`save(x, to: "old.csv")`, "save"},
		{`save({a: x}, to: "old.json")`, "save"},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "old.csv"), []byte("old\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "old.json"), []byte("{}\n"), 0o644)
		msg, names := interruptAt(t, dir, setup, c.src, 1)
		if !strings.Contains(msg, c.name+": interrupted") {
			t.Errorf("%s: %q, want %s: interrupted", c.src, msg, c.name)
		}
		if !slices.Equal(names, []string{"old.csv", "old.json"}) {
			t.Errorf("%s left %v", c.src, names)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "old.csv")); string(b) != "old\n" {
			t.Errorf("%s changed old.csv", c.src)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "old.json")); string(b) != "{}\n" {
			t.Errorf("%s changed old.json", c.src)
		}
	}
}

// TestInterruptedCmdStanSaveLeavesNone interrupts a CmdStan save of two
// chains while the second chain's file is written, the first complete:
// neither file is left (before, each chain's file was written on its own,
// and the first stayed). Without the interrupt both are written.
func TestInterruptedCmdStanSaveLeavesNone(t *testing.T) {
	setup := `model m { w[1500] ~ normal(0, 1) }
let post = sample(m, chains: 2, warmup: 20, draws: 60, seed: 3, max_depth: 3)`
	dir := t.TempDir()
	// Each chain's file is 60 rows of about 1,500 numbers: 1.7 MB, one
	// MiB reported per chain; the second report is the second chain's.
	msg, names := interruptAt(t, dir, setup, `save(post, to: "draws.csv", format: "cmdstan")`, 2)
	if !strings.Contains(msg, "save: interrupted") {
		t.Errorf("%q, want save: interrupted", msg)
	}
	if len(names) != 0 {
		t.Errorf("an interrupted CmdStan save left %v", names)
	}
	msg, names = interruptAt(t, dir, setup, `save(post, to: "draws.csv", format: "cmdstan")`, 3)
	if msg != "" || !slices.Equal(names, []string{"draws_1.csv", "draws_2.csv"}) {
		t.Errorf("without an interrupt: %q, files %v", msg, names)
	}
}
