package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestSwappedLinkRace reads and writes through a directory that another
// thread keeps swapping between a real directory and a link to the outside,
// the race of issue 38 (the check resolved the path, the open followed the
// link swapped in after it: 8 reads of the outside file and 2 files written
// outside). Through the granted directory's os.Root no read may see the
// outside file and no write may land outside, however the swaps fall.
func TestSwappedLinkRace(t *testing.T) {
	top := t.TempDir()
	inside := filepath.Join(top, "in")
	outside := filepath.Join(top, "out")
	for _, d := range []string{inside, outside, filepath.Join(top, "real")} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(top, "real", "f.txt"), []byte("inside"), 0o644)
	os.WriteFile(filepath.Join(outside, "f.txt"), []byte("SECRET"), 0o644)
	d := filepath.Join(inside, "d")
	// d starts as the real directory (moved in) and is swapped with a link
	// to outside by renames, each swap atomic.
	if err := os.Rename(filepath.Join(top, "real"), d); err != nil {
		t.Fatal(err)
	}
	s := NewSandbox(inside)
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		link, parked := filepath.Join(inside, "link"), filepath.Join(top, "parked")
		for !stop.Load() {
			os.Symlink(outside, link)
			os.Rename(d, parked) // the real directory out of the way
			os.Rename(link, d)   // d is now a link to outside
			os.Remove(d)
			os.Rename(parked, d) // d is the real directory again
		}
	}()
	const rounds = 1000
	reads, writes := 0, 0
	for i := 0; i < rounds; i++ {
		if data, err := s.ReadFile(inside, "d/f.txt"); err == nil {
			reads++
			if string(data) != "inside" {
				stop.Store(true)
				<-done
				t.Fatalf("round %d read %q through the swapped link", i, data)
			}
		}
		if err := s.WriteFile(context.Background(), inside, "d/w.txt", []byte("x")); err == nil {
			writes++
		}
	}
	stop.Store(true)
	<-done
	entries, _ := os.ReadDir(outside)
	for _, e := range entries {
		if e.Name() != "f.txt" {
			t.Errorf("a write landed outside the grant: %s", e.Name())
		}
	}
	if reads == 0 || writes == 0 {
		t.Errorf("%d reads and %d writes succeeded in %d rounds; the test did not exercise the inside path", reads, writes, rounds)
	}
	t.Logf("%d rounds: %d reads and %d writes inside, none outside", rounds, reads, writes)
	// A refused access names the path as given and the grant.
	os.Symlink(outside, filepath.Join(inside, "out"))
	_, err := s.ReadFile(inside, "out/f.txt")
	if err == nil || !strings.Contains(err.Error(), "outside the directories") {
		t.Errorf("reading through a link to outside: %v", err)
	}
}

// TestSwapBetweenCheckAndOpen swaps the directory for a link to the outside
// exactly between the check and the I/O, the race's worst case: the read
// and the write must be refused, and nothing outside read or written.
func TestSwapBetweenCheckAndOpen(t *testing.T) {
	top := t.TempDir()
	inside, outside := filepath.Join(top, "in"), filepath.Join(top, "out")
	d := filepath.Join(inside, "d")
	for _, dir := range []string{inside, outside, d} {
		os.Mkdir(dir, 0o755)
	}
	os.WriteFile(filepath.Join(d, "f.txt"), []byte("inside"), 0o644)
	os.WriteFile(filepath.Join(outside, "f.txt"), []byte("SECRET"), 0o644)
	s := NewSandbox(inside)
	swap := func() {
		os.Rename(d, filepath.Join(top, "parked"))
		os.Symlink(outside, d)
	}
	unswap := func() {
		os.Remove(d)
		os.Rename(filepath.Join(top, "parked"), d)
	}
	afterCheck = swap
	defer func() { afterCheck = func() {} }()
	data, err := s.ReadFile(inside, "d/f.txt")
	if err == nil {
		t.Errorf("a read through the link swapped in after the check succeeded: %q", data)
	}
	unswap()
	if err := s.WriteFile(context.Background(), inside, "d/w.txt", []byte("x")); err == nil {
		t.Error("a write through the link swapped in after the check succeeded")
	}
	unswap()
	if _, err := os.Stat(filepath.Join(outside, "w.txt")); err == nil {
		t.Error("the write landed outside the grant")
	}
	afterCheck = func() {}
	if data, err := s.ReadFile(inside, "d/f.txt"); err != nil || string(data) != "inside" {
		t.Errorf("without a swap: %q, %v", data, err)
	}
}

// TestReadFileRefusesFIFO checks that a FIFO inside the grant is refused
// at once instead of waiting for a writer.
func TestReadFileRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := mkfifo(filepath.Join(dir, "p.csv")); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	s := NewSandbox(dir)
	if _, err := s.ReadFile(dir, "p.csv"); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("reading a FIFO: %v", err)
	}
}
