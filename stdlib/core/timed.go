package core

import (
	"time"

	"github.com/kml-lang/kml/lang/eval"
)

func registerTimed(reg *eval.Registry) {
	reg.Register("timed(f, args...)",
		"Calls f(args...) and returns {value, seconds}: its result and the wall-clock seconds it took, for comparing methods at equal computing time. The seconds vary from run to run; nothing else in KML reads the clock.",
		func(a *eval.Args) (eval.Value, error) {
			f := a.Value("f")
			if _, ok := f.(eval.Callable); !ok {
				return nil, a.Errorf("f", "f must be a function, got %s", eval.Describe(f))
			}
			start := time.Now()
			v, err := a.Th.CallValue(a.PosOf("f"), f, a.Rest...)
			if err != nil {
				return nil, err
			}
			return eval.NewRecord().Set("value", v).Set("seconds", eval.Num(time.Since(start).Seconds())), nil
		})
}
