package files

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"runtime"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
)

// TestWriteJSONIsMarshalIndent: the streaming writer gives, byte for byte,
// what save wrote before it, json.MarshalIndent of eval.ToJSON: numbers in
// both of encoding/json's forms (1e-7, 1e+21, -0), NaN and infinities as
// null, empty arrays and records, strings HTML-escaped, nested records,
// lists and a matrix.
func TestWriteJSONIsMarshalIndent(t *testing.T) {
	vec := &eval.Vec{Data: []float64{1, -0.5, 1e-7, 1.5e-6, 1e21, 123456789012, math.NaN(), math.Inf(-1), math.Copysign(0, -1), 0.1, 2.5e-300}}
	m := eval.NewMat(mat.NewDense(2, 3, []float64{1, 2, 3, 4.25, math.Inf(1), 6e-9}))
	inner := eval.NewRecord().Set("s", eval.Str(`<a & "b">`)).Set("empty", &eval.Vec{}).Set("none", eval.NoneValue)
	rec := eval.NewRecord().Set("v", vec).Set("m", m).Set("inner", inner).Set("flag", eval.Bool(true)).Set("n", eval.Num(3)).
		Set("list", &eval.List{Elems: []eval.Value{eval.Num(1), eval.Str("x"), inner, &eval.List{}, vec, m,
			&eval.List{Elems: []eval.Value{vec, eval.NoneValue}}}}).
		Set("nothing", eval.NewRecord())
	for _, v := range []eval.Value{vec, m, inner, rec, eval.Num(2), eval.Str("plain"), &eval.Vec{}, eval.NewRecord(), eval.NoneValue} {
		want, err := json.MarshalIndent(eval.ToJSON(v), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, '\n')
		var got bytes.Buffer
		if err := writeJSON(&got, v); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s:\n got %s\nwant %s", v.Type(), got.Bytes(), want)
		}
	}
}

// TestTableWriteIsCSV: the table writer gives what encoding/csv writes of
// the same cells (header names quoted where they must be, numbers at full
// precision) across several flushes.
func TestTableWriteIsCSV(t *testing.T) {
	const rows = 9000 // more than one flushAt of text
	data := make([]float64, rows*3)
	for i := range data {
		data[i] = math.Sin(float64(i)) * math.Pow(10, float64(i%40-20))
	}
	data[5], data[7] = math.NaN(), math.Inf(-1)
	names := []string{"a,b", `say "hi"`, "plain"}
	tab, err := newTable(eval.NewMat(mat.NewDense(rows, 3, data)), names)
	if err != nil {
		t.Fatal(err)
	}
	var got, want bytes.Buffer
	if err := tab.write(&got); err != nil {
		t.Fatal(err)
	}
	cw := csv.NewWriter(&want)
	cw.Write(names)
	for i := 0; i < rows; i++ {
		rec := make([]string, 3)
		for j := range rec {
			rec[j] = strconv.FormatFloat(data[i*3+j], 'g', -1, 64)
		}
		cw.Write(rec)
	}
	cw.Flush()
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Errorf("the table's CSV (%d bytes) differs from encoding/csv's (%d bytes)", got.Len(), want.Len())
	}
}

// TestWriteJSONListStreams: a record holding a list of large vectors is
// written without building its JSON: the bytes allocated (about 0.26 MB,
// the buffer) are under half of the 2 MB the vectors hold; through
// eval.ToJSON the list took 6 MB, an interface value and a boxed float a
// number.
func TestWriteJSONListStreams(t *testing.T) {
	const n = 1 << 17
	vecs := make([]eval.Value, 2)
	for i := range vecs {
		xs := make([]float64, n)
		for k := range xs {
			xs[k] = float64(k%1000) / 7
		}
		vecs[i] = &eval.Vec{Data: xs}
	}
	rec := eval.NewRecord().Set("name", eval.Str("draws")).Set("chains", &eval.List{Elems: append(vecs, eval.Str("end"))})
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := writeJSON(io.Discard, rec); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8*n {
		t.Errorf("writing a record with a list of 2 vectors of %d numbers (%d kB) allocated %d kB, want under %d kB",
			n, (16*n)>>10, alloc>>10, (8*n)>>10)
	}
}
