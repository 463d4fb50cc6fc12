package plot

import (
	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib/causal"
	"github.com/kml-lang/kml/stdlib/core"
	"github.com/kml-lang/kml/stdlib/dists"
)

// testRegistry holds the builtins the internal tests' scripts call: the
// umbrella stdlib imports this package, so they build their own registry.
func testRegistry() *eval.Registry {
	r := eval.NewRegistry()
	core.Register(r)
	dists.Register(r)
	causal.Register(r)
	Register(r)
	return r
}
