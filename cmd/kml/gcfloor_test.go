package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// gcCycle is one line of GODEBUG=gctrace=1: the heap live after the
// cycle and the goal it ran to, in MB.
type gcCycle struct{ live, goal int }

var gcLine = regexp.MustCompile(`(?m)^gc \d+ .* \d+->\d+->(\d+) MB, (\d+) MB goal`)

// gcCycles runs kml run on src in a child with gctrace on and returns the
// collections it made.
func gcCycles(t *testing.T, src string, env ...string) []gcCycle {
	t.Helper()
	script := filepath.Join(t.TempDir(), "s.kml")
	os.WriteFile(script, []byte(src), 0o644)
	code, _, stderr := kmlChild(t, append([]string{"GODEBUG=gctrace=1"}, env...), "run", script)
	if code != exitOK {
		t.Fatalf("status %d\n%s", code, stderr)
	}
	var out []gcCycle
	for _, m := range gcLine.FindAllStringSubmatch(stderr, -1) {
		live, _ := strconv.Atoi(m[1])
		goal, _ := strconv.Atoi(m[2])
		out = append(out, gcCycle{live, goal})
	}
	return out
}

// TestLateFirstGC: a run that allocates 24 MB makes no collection (Go's
// default makes two or three, as it does with GOGC set by the user: a
// cycle's gctrace line is written when it ends, and the third vector
// cannot be allocated before the first cycle ends); one that holds 192 MB
// collects, and from its first collection on the heap goal is about twice
// what is live (GOGC=100 again, set by a cleanup that runs after the first
// cycle, while the later vectors are allocated), not nine times.
func TestLateFirstGC(t *testing.T) {
	small := "let a = rep(1, 1e6)\nlet b = rep(2, 1e6)\nlet c = rep(3, 1e6)\nprint(sum(a) + sum(c))\n"
	if c := gcCycles(t, small); len(c) != 0 {
		t.Errorf("24 MB: %d collections %v, want none before 32 MB", len(c), c)
	}
	if c := gcCycles(t, small, "GOGC=100"); len(c) == 0 {
		t.Errorf("24 MB with GOGC=100 set: no collection; the user's GOGC must apply from the start")
	}
	big := ""
	for _, v := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"} {
		big += "let " + v + " = rep(1, 2e6)\n"
	}
	big += "print(sum(a) + sum(l))\n"
	c := gcCycles(t, big)
	if len(c) < 2 {
		t.Fatalf("192 MB: collections %v, want several", c)
	}
	back := false
	for i := 1; i < len(c); i++ {
		if c[i].goal <= 2*c[i-1].live+c[i-1].live/10+4 {
			back = true
		}
		if c[i].goal > 4*c[i-1].live+4 {
			t.Errorf("collection %d ran to %d MB with %d MB live before: GOGC was not restored", i+1, c[i].goal, c[i-1].live)
		}
	}
	if !back {
		t.Errorf("192 MB: collections %v, none with a goal of about twice the live heap", c)
	}
}
