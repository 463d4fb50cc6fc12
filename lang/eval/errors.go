package eval

import (
	"context"
	"errors"
	"strings"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/runtime/progress"
)

// Interrupted is the error of a run stopped by its context at pos: the user
// reads "interrupted", and an embedder's errors.Is(err, context.Canceled)
// (or context.DeadlineExceeded) sees cause.
func Interrupted(pos ast.Pos, cause error) *ast.Error {
	return &ast.Error{Pos: pos, Msg: "interrupted", Cause: cause}
}

// Interrupted is the error of a builtin stopped by the run's context, at the
// call and prefixed with the builtin's name ("sample: interrupted").
func (a *Args) Interrupted(cause error) error {
	return &ast.Error{Pos: a.Pos, Msg: a.prefixed("interrupted"), Cause: cause}
}

// Context is the run's context for the builtin's work: the thread's, and
// when the run draws progress, carrying the reporter under the builtin's
// name, so a runtime loop's progress.Start draws "NAME: what 3/10 ...".
// A long builtin passes it to the runtime instead of a.Th.Context().
func (a *Args) Context() context.Context {
	return progress.With(a.Th.ctx, a.Th.in.progress, a.b.Name)
}

// Progress starts a progress task of total steps for a loop in the
// builtin itself (nil, which counts nothing, when no progress is drawn).
// The caller calls Done when the loop ends.
func (a *Args) Progress(what string, total int) *progress.Task {
	if a.Th.in.progress == nil {
		return nil
	}
	return progress.Start(a.Context(), what, total)
}

// Step counts one step of task and returns the builtin's interrupted error
// once the run is cancelled: the check a builtin's own loop makes at each
// step (a user function called through CallValue checks too).
func (a *Args) Step(task *progress.Task) error {
	task.Add(1)
	if err := a.Th.ctx.Err(); err != nil {
		return a.Interrupted(err)
	}
	return nil
}

// stopped reports whether err, returned by a builtin, is the run's
// cancellation: an error wrapping context.Canceled or DeadlineExceeded, or
// any error once the run's context is done (a runtime package that formats
// the context's error into its own message loses the wrapping).
func (th *Thread) stopped(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || th.ctx.Err() != nil
}

// interrupted is the error a builtin stopped by the run's context reports:
// a nested builtin's "NAME: interrupted", made further in (inside a function
// the builtin called), is kept with its position; anything else — a bare
// "interrupted" from a statement of the model or the function the builtin
// was evaluating, which says nothing of the call — becomes
// "NAME: interrupted" at the call, so every builtin stops with the same
// message (and exit status 130 in kml run) however its loop noticed.
func (th *Thread) interrupted(a *Args, err error) error {
	var ae *ast.Error
	if errors.As(err, &ae) && strings.HasSuffix(ae.Msg, ": interrupted") && ae.Pos.IsValid() {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return err
		}
	}
	cause := th.ctx.Err()
	if cause == nil {
		cause = context.Canceled
		if errors.Is(err, context.DeadlineExceeded) {
			cause = context.DeadlineExceeded
		}
	}
	return a.Interrupted(cause)
}

// withFrame returns err with the call f added to its stack: a copy of the
// KML error it reports, never the error itself changed. An error wrapping a
// KML error keeps being reachable as the copy's cause.
func withFrame(err error, f ast.Frame) error {
	var ae *ast.Error
	if !errors.As(err, &ae) {
		return err
	}
	c := ae.WithFrame(f)
	if err != error(ae) {
		c.Cause = err
	}
	return c
}

// placed returns err placed at pos when the KML error it reports has no
// position of its own (a copy; err is not changed).
func placed(err error, pos ast.Pos) error {
	var ae *ast.Error
	if !errors.As(err, &ae) || ae.Pos.IsValid() {
		return err
	}
	c := ae.WithPos(pos)
	if err != error(ae) {
		c.Cause = err
	}
	return c
}
