package sandbox

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kml-lang/kml/internal/relpath"
	"github.com/kml-lang/kml/runtime/progress"
)

// Every file a script writes (write_csv, save, a plot's file, CmdStan's
// per-chain files) goes through a File: the one writer, so that every
// writer stops and cleans up the same way. Issue 38 found a 589 MB
// write_csv and a 493 MB JSON save running 21 s and 117 s past Ctrl-C, and
// a hidden temporary file left behind by kill -9 or a failed rename.
//
// A File is a temporary file in the target's directory, opened through the
// granted directory's os.Root (as ReadFile does, so no link swapped in
// leads outside). Where the system allows it (Linux's O_TMPFILE) the
// temporary has no name at all until Commit gives it one, so a process
// killed while writing leaves nothing behind; elsewhere it is a hidden
// ".NAME.tmpXXXX" beside the target. The caller streams into it; every
// chunk (1 MiB) it checks the run's context, so an interrupt stops a large
// write within one chunk, and counts one step of progress. Commit fsyncs
// it, renames it over the target and fsyncs the directory, so that even a
// crash of the machine leaves the old file or the new one whole; any
// error, an interrupt, or Abort removes it. The target is either the old
// file or the complete new one, never a part.
//
// Nothing here (or anywhere in KML) removes files at startup: a temporary
// left by a killed process (one with a name) is the only debris, and it is
// not KML's to guess which hidden files are its own.

// chunk is how much is written between two checks of the context.
const chunk = 1 << 20

// A File is a file being written: Write streams into a temporary file,
// Commit puts it in place, Abort (safe after Commit, so deferred) removes
// it. A File is used by one goroutine.
type File struct {
	ctx  context.Context
	s    *Sandbox
	path string   // as the script gave it, for errors
	root *os.Root // the granted directory's
	dir  *os.File // the target's directory, opened through root
	rel  string   // the target, relative to root
	f    *os.File // the temporary
	tmp  string   // the temporary's name relative to root; "" while unnamed
	buf  *bufio.Writer
	// since counts the bytes written since the last check of ctx.
	since    int
	task     *progress.Task
	err      error // the first error: every later call returns it
	finished bool  // Finish was called: the temporary is complete
	done     bool  // committed or aborted
}

// Create starts writing path (relative to base) inside the granted
// directories. ctx is the run's: once it is done, the next chunk's Write
// and Commit fail with its error and the temporary is removed. A target
// that is a directory is refused here, before anything is written.
func (s *Sandbox) Create(ctx context.Context, base, path string) (*File, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	real, err := s.WritePath(base, path)
	if err != nil {
		return nil, err
	}
	afterCheck()
	r, rel, err := s.rootOf(real)
	if err != nil {
		return nil, err
	}
	return s.create(ctx, r, rel, path)
}

// create starts writing rel inside the root r (which the File closes),
// path being the name errors give.
func (s *Sandbox) create(ctx context.Context, r *os.Root, rel, path string) (*File, error) {
	w := &File{ctx: ctx, s: s, path: path, root: r, rel: rel}
	var err error
	if fi, err := r.Lstat(rel); err == nil && fi.IsDir() {
		w.close()
		return nil, fmt.Errorf("%s is a directory", path)
	} else if err == nil && !fi.Mode().IsRegular() {
		// The rename would replace a device, a FIFO or a socket (as
		// root, /dev/null itself) with a regular file.
		w.close()
		return nil, fmt.Errorf("%s is not a regular file (a device, a FIFO or a socket); only a regular file is replaced", path)
	}
	if w.dir, err = r.Open(filepath.Dir(rel)); err != nil {
		w.close()
		return nil, s.ioError(path, err)
	}
	if w.f, err = unnamed(w.dir); err != nil {
		if w.f, w.tmp, err = w.openNamed(); err != nil {
			w.close()
			return nil, s.ioError(path, err)
		}
	}
	w.buf = bufio.NewWriterSize(wrapWriter(w.f), 64<<10)
	w.task = progress.Start(ctx, "MiB written", 0)
	return w, nil
}

// openNamed creates a hidden temporary beside the target, through the root.
func (w *File) openNamed() (*os.File, string, error) {
	tmp := filepath.Join(filepath.Dir(w.rel), tempName(filepath.Base(w.rel)))
	f, err := w.root.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	return f, tmp, err
}

// tempName is the name of a temporary for the file name: hidden, and
// marked as a temporary of that file.
func tempName(name string) string {
	var suffix [6]byte
	rand.Read(suffix[:])
	return "." + name + ".tmp" + hex.EncodeToString(suffix[:])
}

// Write writes p to the temporary, checking the context at every chunk.
func (w *File) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if w.done || w.finished {
		return 0, fmt.Errorf("%s: write after the file was closed", w.path)
	}
	n := 0
	for len(p) > 0 {
		k := min(len(p), chunk-w.since)
		m, err := w.buf.Write(p[:k])
		n += m
		if err != nil {
			return n, w.fail(w.s.ioError(w.path, err))
		}
		p = p[k:]
		if w.since += k; w.since == chunk {
			w.since = 0
			w.task.Add(1)
			if err := w.ctx.Err(); err != nil {
				return n, w.fail(err)
			}
		}
	}
	return n, nil
}

// WriteString writes s (for the writers that format text).
func (w *File) WriteString(s string) (int, error) { return w.Write([]byte(s)) }

// fail records err as the File's error and removes the temporary.
func (w *File) fail(err error) error {
	w.err = err
	w.Abort()
	return err
}

// Finish writes out what is buffered and ends the File's progress line:
// the temporary is complete, and Commit or CommitAll puts it in place. A
// save of several files finishes each once it is written, so that the
// next one's progress is shown. Commit finishes a File not finished.
func (w *File) Finish() error {
	if w.err != nil {
		return w.err
	}
	if w.done {
		return fmt.Errorf("%s: the file was already closed", w.path)
	}
	if w.finished {
		return nil
	}
	if err := w.buf.Flush(); err != nil {
		return w.fail(w.s.ioError(w.path, err))
	}
	w.finished = true
	w.task.Done()
	return nil
}

// ready finishes w, fsyncs it and checks the context once more: an
// interrupt that came after the last chunk (or during the fsync, which may
// take seconds for a large file) still leaves the target as it was.
func (w *File) ready() error {
	if err := w.Finish(); err != nil {
		return err
	}
	// The data reach the disk before the name does: without the fsync a
	// crash of the machine soon after the rename can leave the target
	// empty or partial (ext4 and XFS may commit the rename first), the one
	// outcome the temporary is there to rule out.
	if err := syncFile(w.f); err != nil {
		return w.fail(w.s.ioError(w.path, err))
	}
	if err := w.ctx.Err(); err != nil {
		return w.fail(err)
	}
	return nil
}

// place gives the complete temporary the target's name.
func (w *File) place() error {
	if w.tmp == "" {
		// An unnamed temporary gets a hidden name first (a link cannot
		// replace a file); the rename below replaces the target.
		name := tempName(filepath.Base(w.rel))
		if err := linkUnnamed(w.f, w.dir, name); err == nil {
			w.tmp = filepath.Join(filepath.Dir(w.rel), name)
		} else if err := w.copyToNamed(); err != nil {
			return w.fail(w.s.ioError(w.path, err))
		}
	}
	if err := w.f.Close(); err != nil {
		return w.fail(w.s.ioError(w.path, err))
	}
	w.f = nil
	if err := beforeRename(w.path); err != nil {
		return w.fail(w.s.ioError(w.path, err))
	}
	if err := w.root.Rename(w.tmp, w.rel); err != nil {
		return w.fail(w.s.ioError(w.path, err))
	}
	w.tmp = ""
	w.done = true
	// And the rename reaches it with the directory's fsync. Best effort:
	// the target is complete and in place whatever it returns, and some
	// systems refuse to sync a directory.
	syncFile(w.dir)
	w.close()
	return nil
}

// copyToNamed copies the unnamed temporary into a named one, for a system
// that opens unnamed files but does not let this process link them (no
// /proc mounted).
func (w *File) copyToNamed() error {
	if _, err := w.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	f, tmp, err := w.openNamed()
	if err != nil {
		return err
	}
	w.tmp = tmp // Abort removes it from here on
	_, err = io.Copy(f, w.f)
	w.f.Close()
	w.f = f // place closes it
	if err == nil {
		err = syncFile(f)
	}
	return err
}

// Seams for the tests: beforeRename runs before each rename (a test makes
// it fail), wrapWriter wraps the temporary (a test makes it a full disk),
// unnamed opens an unnamed temporary (a test makes it unsupported, to
// run the named path), and syncFile fsyncs the temporary and the
// directory (a test records the order, or fails it).
var (
	syncFile     = func(f *os.File) error { return f.Sync() }
	beforeRename = func(path string) error { return nil }
	wrapWriter   = func(f *os.File) io.Writer { return f }
	unnamed      = openUnnamed
)

// Commit finishes the file and renames it over the target. On any error
// (the context done included) the temporary is removed and the target is
// as it was.
func (w *File) Commit() error {
	if err := w.ready(); err != nil {
		return err
	}
	return w.place()
}

// Abort removes the temporary, if the File was not committed. It may be
// called any number of times, and after Commit (it does nothing then).
func (w *File) Abort() {
	if w.done {
		return
	}
	w.done = true
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
	if w.tmp != "" {
		w.root.Remove(w.tmp)
		w.tmp = ""
	}
	w.close()
}

// close releases the handles and ends the progress task.
func (w *File) close() {
	w.task.Done()
	if w.dir != nil {
		w.dir.Close()
		w.dir = nil
	}
	if w.root != nil {
		w.root.Close()
		w.root = nil
	}
}

// CommitAll puts a set of files in place together, as one save of several
// files (CmdStan's one file per chain): every file is finished before the
// first is renamed, so an error or an interrupt while writing leaves none of
// them; the renames then follow one another, and should one fail, the
// error names the files already in place and those not written.
func CommitAll(files ...*File) error {
	for i, f := range files {
		if err := f.ready(); err != nil {
			for _, g := range files[i+1:] {
				g.Abort()
			}
			return err
		}
	}
	for i, f := range files {
		if err := f.place(); err != nil {
			var placed, missing []string
			for _, g := range files[:i] {
				placed = append(placed, g.path)
			}
			for _, g := range files[i+1:] {
				missing = append(missing, g.path)
				g.Abort()
			}
			msg := err.Error()
			if len(placed) > 0 {
				msg += "; written: " + strings.Join(placed, ", ")
			}
			if len(missing) > 0 {
				msg += "; not written: " + strings.Join(missing, ", ")
			}
			return errors.New(msg)
		}
	}
	return nil
}

// WriteFile writes data to path (relative to base) inside the granted
// directories through a File: a failed or interrupted write leaves the
// target as it was and no temporary.
func (s *Sandbox) WriteFile(ctx context.Context, base, path string, data []byte) error {
	w, err := s.Create(ctx, base, path)
	if err != nil {
		return err
	}
	defer w.Abort()
	if _, err := w.Write(data); err != nil {
		return err
	}
	return w.Commit()
}

var _ io.StringWriter = (*File)(nil)

// WriteFileAtomic writes data to path, a file the user named on the
// command line (kml fmt), outside any sandbox, through the same File: a
// failed write leaves the file as it was. A link is followed, so the file
// it points to is replaced and the link kept. Errors name the file
// relative to the working directory.
func WriteFileAtomic(path string, data []byte) error {
	w, err := CreateAtomic(path)
	if err != nil {
		return err
	}
	defer w.Abort()
	if _, err := w.Write(data); err != nil {
		return err
	}
	return w.Commit()
}

// CreateAtomic starts writing path, a file the user named on the command
// line (kml fmt's file, kml run's --cpuprofile), outside any sandbox and
// with no context: a File as Create makes one, so that until Commit the
// target is as it was, and a process killed meanwhile leaves no part of the
// new file. A link is followed, as WriteFileAtomic does.
func CreateAtomic(path string) (*File, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path // a new file
	}
	r, err := os.OpenRoot(filepath.Dir(real))
	if err != nil {
		return nil, relpath.Err(err)
	}
	return (&Sandbox{}).create(context.Background(), r, filepath.Base(real), relpath.Show(path))
}
