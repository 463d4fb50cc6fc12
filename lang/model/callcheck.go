package model

import (
	"context"
	"errors"

	"github.com/kml-lang/kml/lang/ast"
	"github.com/kml-lang/kml/lang/eval"
)

// Data that do not fit a model with data arguments are an error at the
// call that gives them, `m(x: v)`, not at the first fit: each new instance
// of a family is compiled at the call (CheckInstance) as sample compiles
// it, and an error is placed at the argument the failing statement uses
// (eval.Model.BlameData). The compile's layout goes into the family's
// compile cache under the instance's shapes, so the check runs once per
// shapes — a later instance with data of the same shapes finds it there
// and is not run at the call — and the fit that follows the call starts
// from that layout instead of finding it again. Only data errors are
// reported at the call: an error the compile cannot place at an argument
// (a mistake in the model itself, or one that a fit's fix: would avoid)
// is left to the fit, which reports it as before.

func init() { eval.SetInstanceCheck(CheckInstance) }

// checkTerms are the terms the check compiles with: sample's.
var checkTerms = Terms{Prior: true, Likelihood: true, Jacobian: true}

// CheckInstance compiles the new instance m of a model family once at the
// origin, unless an instance with data of the same shapes has been
// compiled before; the error, if any, is at the call's argument.
func CheckInstance(th *eval.Thread, m *eval.Model) error {
	if m.Family == nil {
		return nil
	}
	if _, ok := m.Family.Lookup(cacheKey(m, nil, checkTerms)); ok {
		return nil
	}
	_, err := Compile(th, ast.Pos{}, m, nil, checkTerms)
	if err == nil || eval.IsDataError(err) || errors.Is(err, context.Canceled) {
		return err
	}
	return nil
}
