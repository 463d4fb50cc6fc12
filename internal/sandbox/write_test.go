package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// bothTemporaries runs test with the unnamed temporary (O_TMPFILE, where
// the system has it) and with the named one every system has.
func bothTemporaries(t *testing.T, test func(t *testing.T)) {
	t.Run("unnamed", test)
	t.Run("named", func(t *testing.T) {
		unnamed = func(*os.File) (*os.File, error) { return nil, errors.ErrUnsupported }
		defer func() { unnamed = openUnnamed }()
		test(t)
	})
}

// listDir lists the names in dir, hidden ones included.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// checkUntouched checks that dir holds only old.csv with its old content.
func checkUntouched(t *testing.T, dir string) {
	t.Helper()
	if names := listDir(t, dir); !slices.Equal(names, []string{"old.csv"}) {
		t.Errorf("the directory holds %v; want only old.csv (no partial target, no temporary)", names)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "old.csv")); string(data) != "old\n" {
		t.Errorf("old.csv now holds %d bytes, want its old content", len(data))
	}
}

func newDir(t *testing.T) (string, *Sandbox) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "old.csv"), []byte("old\n"), 0o644)
	return dir, NewSandbox(dir)
}

// TestInterruptedWriteLeavesNothing interrupts a write of 5 MiB after its
// first 1.5 MiB: the next chunk's Write fails with the context's error, and
// neither the target (new or replaced) nor a temporary is left. Before the
// shared writer a save rendered everything and wrote it whole, past any
// interrupt (a 589 MB write_csv ran 21 s after Ctrl-C).
func TestInterruptedWriteLeavesNothing(t *testing.T) {
	bothTemporaries(t, func(t *testing.T) {
		for _, target := range []string{"new.csv", "old.csv"} {
			dir, s := newDir(t)
			ctx, cancel := context.WithCancel(context.Background())
			w, err := s.Create(ctx, dir, target)
			if err != nil {
				t.Fatal(err)
			}
			block := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
			w.Write(block)
			w.Write(block[:len(block)/2])
			cancel()
			var werr error
			for i := 0; i < 4 && werr == nil; i++ {
				_, werr = w.Write(block)
			}
			if !errors.Is(werr, context.Canceled) {
				t.Fatalf("%s: writing on after the interrupt: %v, want context.Canceled", target, werr)
			}
			if err := w.Commit(); !errors.Is(err, context.Canceled) {
				t.Errorf("%s: Commit after the interrupt: %v", target, err)
			}
			w.Abort()
			checkUntouched(t, dir)
		}
	})
}

// TestInterruptBeforeCommit: an interrupt after the last chunk but before
// Commit still leaves the target as it was.
func TestInterruptBeforeCommit(t *testing.T) {
	bothTemporaries(t, func(t *testing.T) {
		dir, s := newDir(t)
		ctx, cancel := context.WithCancel(context.Background())
		w, err := s.Create(ctx, dir, "old.csv")
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("new\n"))
		cancel()
		if err := w.Commit(); !errors.Is(err, context.Canceled) {
			t.Errorf("Commit after the interrupt: %v", err)
		}
		checkUntouched(t, dir)
	})
}

// failingWriter is a disk that fills after n bytes.
type failingWriter struct{ n int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k := f.n
		f.n = 0
		return k, syscall.ENOSPC
	}
	f.n -= len(p)
	return len(p), nil
}

// TestFailedWriteCleansUp: a disk that fills in the middle of a write, and
// a rename that fails, leave the target as it was and no temporary, and
// the error names the file as the script gave it.
func TestFailedWriteCleansUp(t *testing.T) {
	bothTemporaries(t, func(t *testing.T) {
		dir, s := newDir(t)
		wrapWriter = func(*os.File) io.Writer { return &failingWriter{n: 3 << 20} }
		defer func() { wrapWriter = func(f *os.File) io.Writer { return f } }()
		err := s.WriteFile(context.Background(), dir, "old.csv", make([]byte, 5<<20))
		if err == nil || !strings.Contains(err.Error(), "old.csv: no space left on device") {
			t.Errorf("a write to a full disk: %v", err)
		}
		checkUntouched(t, dir)

		wrapWriter = func(f *os.File) io.Writer { return f }
		beforeRename = func(string) error { return syscall.EXDEV }
		defer func() { beforeRename = func(string) error { return nil } }()
		err = s.WriteFile(context.Background(), dir, "old.csv", []byte("new\n"))
		if err == nil || !strings.Contains(err.Error(), "old.csv:") {
			t.Errorf("a failed rename: %v", err)
		}
		checkUntouched(t, dir)
	})
}

// TestWriteReplacesWhole writes and replaces a file of several chunks, and
// refuses a directory as the target before writing anything.
func TestWriteReplacesWhole(t *testing.T) {
	bothTemporaries(t, func(t *testing.T) {
		dir, s := newDir(t)
		data := bytes.Repeat([]byte("x,y\n"), 3<<18+7) // 3 MiB and a bit
		if err := s.WriteFile(context.Background(), dir, "old.csv", data); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "old.csv")); !bytes.Equal(got, data) {
			t.Errorf("read back %d bytes, wrote %d", len(got), len(data))
		}
		if names := listDir(t, dir); !slices.Equal(names, []string{"old.csv"}) {
			t.Errorf("the directory holds %v", names)
		}
		os.Mkdir(filepath.Join(dir, "d.csv"), 0o755)
		if err := s.WriteFile(context.Background(), dir, "d.csv", data); err == nil || !strings.Contains(err.Error(), "d.csv is a directory") {
			t.Errorf("writing over a directory: %v", err)
		}
		if names := listDir(t, dir); !slices.Equal(names, []string{"d.csv", "old.csv"}) {
			t.Errorf("the directory holds %v", names)
		}
	})
}

// TestCommitAll writes three files as one save: an interrupt while the
// third is written leaves none of them; a rename failing at the second
// leaves the first in place, the third not written, and says so.
func TestCommitAll(t *testing.T) {
	bothTemporaries(t, func(t *testing.T) {
		dir, s := newDir(t)
		create := func(ctx context.Context) []*File {
			var files []*File
			for i := 1; i <= 3; i++ {
				w, err := s.Create(ctx, dir, fmt.Sprintf("d_%d.csv", i))
				if err != nil {
					t.Fatal(err)
				}
				w.Write([]byte("draws\n"))
				files = append(files, w)
			}
			return files
		}
		ctx, cancel := context.WithCancel(context.Background())
		files := create(ctx)
		cancel()
		if err := CommitAll(files...); !errors.Is(err, context.Canceled) {
			t.Errorf("CommitAll after an interrupt: %v", err)
		}
		checkUntouched(t, dir)

		beforeRename = func(path string) error {
			if path == "d_2.csv" {
				return syscall.EIO
			}
			return nil
		}
		defer func() { beforeRename = func(string) error { return nil } }()
		err := CommitAll(create(context.Background())...)
		want := "d_2.csv: input/output error; written: d_1.csv; not written: d_3.csv"
		if err == nil || err.Error() != want {
			t.Errorf("a rename failing at the second file: %v\nwant %s", err, want)
		}
		if names := listDir(t, dir); !slices.Equal(names, []string{"d_1.csv", "old.csv"}) {
			t.Errorf("the directory holds %v, want d_1.csv and old.csv", names)
		}
	})
}

// TestKilledWriteLeavesNothing kills (SIGKILL) a process in the middle of
// a write: with an unnamed temporary nothing is left, where issue 38 found
// a hidden .tmp file.
func TestKilledWriteLeavesNothing(t *testing.T) {
	if dir := os.Getenv("KML_SANDBOX_KILLED_WRITE"); dir != "" {
		w, err := NewSandbox(dir).Create(context.Background(), dir, "big.csv")
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		w.Write(make([]byte, 2<<20))
		w.buf.Flush()
		fmt.Println("writing")
		select {} // killed here
	}
	dir := t.TempDir()
	probe, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, err := openUnnamed(probe)
	probe.Close()
	if err != nil {
		t.Skip("no unnamed temporaries on this system:", err)
	}
	f.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriteLeavesNothing$")
	cmd.Env = append(os.Environ(), "KML_SANDBOX_KILLED_WRITE="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make([]byte, 8)
	io.ReadFull(out, line)
	cmd.Process.Kill()
	cmd.Wait()
	if string(line) != "writing\n" {
		t.Fatalf("the child said %q", line)
	}
	if names := listDir(t, dir); len(names) != 0 {
		t.Errorf("a killed write left %v", names)
	}
}

// TestWriteRefusesNonRegular: a FIFO (as a device would be, /dev/null for
// a script run as root with --allow /) is not replaced by a regular file.
func TestWriteRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "p.csv")
	if err := mkfifo(fifo); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	s := NewSandbox(dir)
	err := s.WriteFile(context.Background(), dir, "p.csv", []byte("x\n"))
	if err == nil || !strings.Contains(err.Error(), "p.csv is not a regular file") {
		t.Errorf("writing over a FIFO: %v", err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", fi.Mode(), err)
	}
}

// TestCommitSyncs: every temporary is fsynced before the first rename (a
// crash of the machine after a rename must not find an empty target) and
// the directory after; a failing fsync, or an interrupt during one, leaves
// the targets as they were and no temporary.
func TestCommitSyncs(t *testing.T) {
	bothTemporaries(t, func(t *testing.T) {
		dir, s := newDir(t)
		var events []string
		var onSync func(isDir bool) error
		syncFile = func(f *os.File) error {
			fi, err := f.Stat()
			if err != nil {
				t.Fatal(err)
			}
			what := "sync file"
			if fi.IsDir() {
				what = "sync dir"
			}
			events = append(events, what)
			if onSync != nil {
				if err := onSync(fi.IsDir()); err != nil {
					return err
				}
			}
			return f.Sync()
		}
		beforeRename = func(path string) error {
			events = append(events, "rename "+path)
			return nil
		}
		defer func() {
			syncFile = func(f *os.File) error { return f.Sync() }
			beforeRename = func(string) error { return nil }
		}()
		create := func(ctx context.Context, names ...string) []*File {
			var files []*File
			for _, name := range names {
				w, err := s.Create(ctx, dir, name)
				if err != nil {
					t.Fatal(err)
				}
				w.Write([]byte("new\n"))
				files = append(files, w)
			}
			return files
		}
		if err := CommitAll(create(context.Background(), "a.csv", "b.csv")...); err != nil {
			t.Fatal(err)
		}
		want := []string{"sync file", "sync file", "rename a.csv", "sync dir", "rename b.csv", "sync dir"}
		if !slices.Equal(events, want) {
			t.Errorf("CommitAll did %q, want %q", events, want)
		}
		os.Remove(filepath.Join(dir, "a.csv"))
		os.Remove(filepath.Join(dir, "b.csv"))

		onSync = func(bool) error { return syscall.EIO }
		if err := create(context.Background(), "old.csv")[0].Commit(); err == nil || !strings.Contains(err.Error(), "old.csv: input/output error") {
			t.Errorf("a failing fsync: %v", err)
		}
		checkUntouched(t, dir)

		ctx, cancel := context.WithCancel(context.Background())
		onSync = func(bool) error { cancel(); return nil }
		if err := create(ctx, "old.csv")[0].Commit(); !errors.Is(err, context.Canceled) {
			t.Errorf("an interrupt during the fsync: %v", err)
		}
		checkUntouched(t, dir)
	})
}
