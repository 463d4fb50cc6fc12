package eval

import (
	"errors"

	"github.com/kml-lang/kml/lang/ast"
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
