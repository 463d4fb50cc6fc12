package stdlib

import (
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib/bke"
	"github.com/kml-lang/kml/stdlib/causal"
	"github.com/kml-lang/kml/stdlib/core"
	"github.com/kml-lang/kml/stdlib/dists"
	"github.com/kml-lang/kml/stdlib/files"
	"github.com/kml-lang/kml/stdlib/fit"
	"github.com/kml-lang/kml/stdlib/gp"
	"github.com/kml-lang/kml/stdlib/kbr"
	"github.com/kml-lang/kml/stdlib/kernel"
	"github.com/kml-lang/kml/stdlib/kst"
	"github.com/kml-lang/kml/stdlib/ktest"
	"github.com/kml-lang/kml/stdlib/loo"
	"github.com/kml-lang/kml/stdlib/plot"
)

// Register adds every domain's builtins to r.
func Register(r *eval.Registry) {
	core.Register(r)
	dists.Register(r)
	fit.Register(r)
	kernel.Register(r)
	ktest.Register(r)
	bke.Register(r)
	gp.Register(r)
	kbr.Register(r)
	kst.Register(r)
	causal.Register(r)
	files.Register(r)
	plot.Register(r)
	loo.Register(r)
}

// Importing stdlib fills the default registry, eval.Builtins, with the
// whole library.
func init() { Register(eval.Builtins) }
