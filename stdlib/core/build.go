package core

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/runtime/ad"
)

func registerBuild(reg *eval.Registry) {
	reg.Register("linspace(from, to, n)", "n evenly spaced numbers from `from` to `to`, both included.", func(a *eval.Args) (eval.Value, error) {
		return spaced(a, false)
	})
	reg.Register("logspace(from, to, n)", "10^linspace(from, to, n): n numbers from 10^from to 10^to, evenly spaced on a log scale.", func(a *eval.Args) (eval.Value, error) {
		return spaced(a, true)
	})
	reg.Register("seq(from, to, by = 1)", "The numbers from, from + by, ... up to to (included when it is reached, to within rounding).", func(a *eval.Args) (eval.Value, error) {
		var from, to, by float64
		if err := a.Unpack("from", &from, "to", &to, "by", &by); err != nil {
			return nil, err
		}
		if math.IsNaN(from) || math.IsInf(from, 0) {
			return nil, a.Errorf("from", "from must be a finite number, got %v", from)
		}
		if math.IsNaN(to) || math.IsInf(to, 0) {
			return nil, a.Errorf("to", "to must be a finite number, got %v", to)
		}
		if by == 0 || math.IsNaN(by) {
			return nil, a.Errorf("by", "by must not be 0")
		}
		if (to-from)*by < 0 {
			return nil, a.Errorf("by", "by = %v goes away from %v towards %v", by, from, to)
		}
		n := math.Floor((to-from)/by+1e-10) + 1
		if n > eval.MaxLength {
			return nil, a.Errorf("by", "seq would have %.0f elements, more than the %d a vector may have", n, eval.MaxLength)
		}
		if err := a.CheckVector(int(n), "the result"); err != nil {
			return nil, err
		}
		out := make([]float64, int(n))
		for i := range out {
			out[i] = from + float64(i)*by
		}
		return &eval.Vec{Data: out}, nil
	})
	reg.Register("which(mask)", "The 1-based positions of the nonzero (true) elements of a vector, so x[which(label == 3), :] keeps the rows whose label is 3.", func(a *eval.Args) (eval.Value, error) {
		var mask []float64
		if err := a.Unpack("mask", &mask); err != nil {
			return nil, err
		}
		out := []float64{}
		for i, v := range mask {
			if math.IsNaN(v) {
				return nil, a.Errorf("mask", "mask is NaN at position %d", i+1)
			}
			if v != 0 {
				out = append(out, float64(i+1))
			}
		}
		return &eval.Vec{Data: out}, nil
	})
	c := reg.Register("concat(values...)", "Joins numbers and vectors into one vector.", concat)
	c.AD = true
	reg.Register("rbind(values...)", "Stacks vectors (as rows) and matrices on top of one another; the widths must agree.", func(a *eval.Args) (eval.Value, error) {
		return bind(a, true)
	})
	reg.Register("cbind(values...)", "Puts vectors (as columns) and matrices side by side; the heights must agree.", func(a *eval.Args) (eval.Value, error) {
		return bind(a, false)
	})
	reg.Register("transpose(m)", "The transpose of a matrix (a vector becomes a 1×n matrix).", func(a *eval.Args) (eval.Value, error) {
		if t := adTranspose(a.Value("m")); t != nil {
			return t, nil
		}
		var m *mat.Dense
		if err := a.Unpack("m", &m); err != nil {
			return nil, err
		}
		var t mat.Dense
		t.CloneFrom(m.T())
		return eval.NewMat(&t), nil
	}).AD = true
	r := reg.Register("rep(x, times)", "The vector (or number) x repeated times times.", func(a *eval.Args) (eval.Value, error) {
		var x eval.Value
		var times eval.Length
		if err := a.Unpack("x", &x, "times", &times); err != nil {
			return nil, err
		}
		if n, ok := eval.ToFloats(x); ok && int(times)*len(n) > eval.MaxLength {
			return nil, a.Errorf("times", "x repeated %d times would have %d elements, more than the %d a vector may have", times, int(times)*len(n), eval.MaxLength)
		}
		if xs, ok := plainFloats(x); ok {
			// Numbers only: one allocation at the final size, checked
			// against the memory budget first. (Through join, rep(1, 5e7)
			// built a 5e7-element list of values and grew the result by
			// appending: 2.6 GB for a 400 MB vector.)
			n := int(times) * len(xs)
			if err := a.CheckVector(n, "the result"); err != nil {
				return nil, err
			}
			out := make([]float64, n)
			for i := 0; i < n; i += len(xs) {
				copy(out[i:], xs)
			}
			return &eval.Vec{Data: out}, nil
		}
		parts := make([]eval.Value, times)
		for i := range parts {
			parts[i] = x
		}
		return join(a, parts)
	})
	r.AD = true
}

func spaced(a *eval.Args, log bool) (eval.Value, error) {
	var from, to float64
	var length eval.Length
	if err := a.Unpack("from", &from, "to", &to, "n", &length); err != nil {
		return nil, err
	}
	n := int(length)
	if n < 1 {
		return nil, a.Errorf("n", "n must be at least 1, got %d", n)
	}
	if err := a.CheckVector(n, "the result"); err != nil {
		return nil, err
	}
	out := make([]float64, n)
	for i := range out {
		if n == 1 {
			out[i] = from
		} else {
			out[i] = from + (to-from)*float64(i)/float64(n-1)
		}
		if log {
			out[i] = math.Pow(10, out[i])
		}
	}
	return &eval.Vec{Data: out}, nil
}

// plainFloats is x's numbers when x is a number or a vector of numbers (no
// tape nodes, no matrix).
func plainFloats(x eval.Value) ([]float64, bool) {
	switch x := x.(type) {
	case eval.Num:
		return []float64{float64(x)}, true
	case *eval.Vec:
		return x.Data, true
	}
	return nil, false
}

func concat(a *eval.Args) (eval.Value, error) { return join(a, a.Rest) }

// join concatenates numbers and vectors, keeping tape nodes when any part
// depends on model parameters.
func join(a *eval.Args, parts []eval.Value) (eval.Value, error) {
	var t *ad.Tape
	for _, p := range parts {
		switch p := p.(type) {
		case *eval.ADNum:
			t = p.T
		case *eval.ADVec:
			t = p.T
		}
	}
	var fs []float64
	var vs []ad.Var
	if t == nil {
		// Numbers only: one allocation at the final size, checked first.
		total := 0
		for _, p := range parts {
			switch p := p.(type) {
			case eval.Num:
				total++
			case *eval.Vec:
				total += len(p.Data)
			case *eval.Mat:
				r, c := p.Dims()
				total += r * c
			}
		}
		if err := a.CheckVector(total, "the result"); err != nil {
			return nil, err
		}
		fs = make([]float64, 0, total)
	}
	for i, p := range parts {
		switch p := p.(type) {
		case eval.Num:
			fs = append(fs, float64(p))
		case *eval.Vec:
			fs = append(fs, p.Data...)
		case *eval.Mat:
			xs, ok := eval.ToFloats(p)
			if !ok {
				r, c := p.Dims()
				return nil, a.Fail("cannot concatenate a %d×%d matrix; use rbind or cbind", r, c)
			}
			fs = append(fs, xs...)
		case *eval.ADNum:
			vs = append(vs, padVars(t, &fs)...)
			vs = append(vs, p.V)
			continue
		case *eval.ADVec:
			vs = append(vs, padVars(t, &fs)...)
			vs = append(vs, p.Vs...)
			continue
		default:
			return nil, a.RestErrorf(i, "takes numbers and vectors, got %s", eval.Describe(p))
		}
	}
	if t == nil {
		if fs == nil {
			fs = []float64{}
		}
		return &eval.Vec{Data: fs}, nil
	}
	vs = append(vs, padVars(t, &fs)...)
	return &eval.ADVec{T: t, Vs: vs}, nil
}

// padVars moves pending plain numbers onto the tape as constants.
func padVars(t *ad.Tape, fs *[]float64) []ad.Var {
	out := make([]ad.Var, len(*fs))
	for i, x := range *fs {
		out[i] = t.Input(x)
	}
	*fs = (*fs)[:0]
	return out
}

// bindPart is one argument of rbind or cbind as a block: a number is
// 1×1, a vector a row (rbind) or a column (cbind).
type bindPart struct {
	data       []float64 // row-major
	rows, cols int
	stride     int
}

// bind stacks the parts (rows) or puts them side by side (cbind): the
// shape is worked out first, checked against the memory budget, and the
// result allocated once and filled, so the time is linear in the total
// size. (Joining pairwise copied the growing result at every argument:
// 13 CPU-s for 1,000 vectors, quadratic.)
func bind(a *eval.Args, rows bool) (eval.Value, error) {
	name := "cbind"
	if rows {
		name = "rbind"
	}
	parts := make([]bindPart, 0, len(a.Rest))
	for i, v := range a.Rest {
		var p bindPart
		switch v := v.(type) {
		case eval.Num:
			p = bindPart{data: []float64{float64(v)}, rows: 1, cols: 1, stride: 1}
		case *eval.Vec:
			if len(v.Data) == 0 {
				continue
			}
			if rows {
				p = bindPart{data: v.Data, rows: 1, cols: len(v.Data), stride: len(v.Data)}
			} else {
				p = bindPart{data: v.Data, rows: len(v.Data), cols: 1, stride: 1}
			}
		case *eval.Mat:
			raw := v.M.RawMatrix()
			p = bindPart{data: raw.Data, rows: raw.Rows, cols: raw.Cols, stride: raw.Stride}
		default:
			return nil, a.RestErrorf(i, "takes vectors and matrices, got %s", eval.Describe(v))
		}
		if len(parts) > 0 {
			first := parts[0]
			if rows && p.cols != first.cols {
				return nil, a.Fail("%s: widths differ: %d×%d and %d×%d (argument %d)", name, first.rows, first.cols, p.rows, p.cols, i+1)
			}
			if !rows && p.rows != first.rows {
				return nil, a.Fail("%s: heights differ: %d×%d and %d×%d (argument %d)", name, first.rows, first.cols, p.rows, p.cols, i+1)
			}
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return nil, a.Fail("nothing to bind")
	}
	r, c := parts[0].rows, parts[0].cols
	total := 0
	for _, p := range parts {
		if rows {
			total += p.rows
		} else {
			total += p.cols
		}
	}
	if rows {
		r = total
	} else {
		c = total
	}
	if err := a.CheckDense(r, c, "the result", ""); err != nil {
		return nil, err
	}
	out := make([]float64, r*c)
	at := 0 // the first row (rbind) or column (cbind) of the next part
	for _, p := range parts {
		for i := range p.rows {
			src := p.data[i*p.stride : i*p.stride+p.cols]
			if rows {
				copy(out[(at+i)*c:], src)
			} else {
				copy(out[i*c+at:], src)
			}
		}
		if rows {
			at += p.rows
		} else {
			at += p.cols
		}
	}
	return eval.NewMat(mat.NewDense(r, c, out)), nil
}
