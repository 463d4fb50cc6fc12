package files

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/kml-lang/kml/lang/eval"
)

// The writers here render a value into an io.Writer as they go, instead of
// into memory first and then the file: the file is a sandbox.File, which
// checks the run's context at every MiB, so a large write_csv or save
// stops within a MiB of an interrupt. Issue 38 measured 21 s (a 589 MB
// write_csv) and 117 s (a 493 MB JSON save) from Ctrl-C to the stop, all
// of it rendering before the first byte was written.

// flushAt is how much a writer buffers before handing it on.
const flushAt = 64 << 10

// table is a matrix, a vector or a record of equal-length vectors as CSV
// columns: the header and how to read cell (i, j).
type table struct {
	header []string
	rows   int
	at     func(i, j int) float64
}

// newTable checks v (and names, the header to use instead of the default
// one) before anything is written.
func newTable(v eval.Value, names []string) (*table, error) {
	t := &table{}
	switch v := v.(type) {
	case *eval.Vec:
		t.header, t.rows = []string{"x"}, len(v.Data)
		t.at = func(i, _ int) float64 { return v.Data[i] }
	case *eval.Mat:
		r, c := v.Dims()
		for j := 0; j < c; j++ {
			t.header = append(t.header, "x"+strconv.Itoa(j+1))
		}
		t.rows, t.at = r, v.M.At
	case *eval.Record:
		var cols [][]float64
		for _, k := range v.AttrNames() {
			f, _ := v.Attr(k)
			xs, ok := eval.ToFloats(f)
			if !ok {
				return nil, fmt.Errorf("field %s is %s; a table needs vectors", k, eval.Describe(f))
			}
			if len(cols) > 0 && len(xs) != len(cols[0]) {
				return nil, fmt.Errorf("field %s has %d values but %s has %d", k, len(xs), t.header[0], len(cols[0]))
			}
			t.header, cols = append(t.header, k), append(cols, xs)
		}
		if len(cols) > 0 {
			t.rows = len(cols[0])
		}
		t.at = func(i, j int) float64 { return cols[j][i] }
	default:
		return nil, fmt.Errorf("cannot write %s as a table", eval.Describe(v))
	}
	if names != nil {
		if len(names) != len(t.header) {
			return nil, fmt.Errorf("%d column names for %d columns", len(names), len(t.header))
		}
		t.header = names
	}
	return t, nil
}

// write writes the table as CSV at full precision (the shortest 'g' form
// that reads back the same float64): the header as
// encoding/csv quotes it, the rows as numbers, which need no quoting.
func (t *table) write(w io.Writer) error {
	var b bytes.Buffer
	cw := csv.NewWriter(&b)
	cw.Write(t.header)
	cw.Flush()
	num := make([]byte, 0, 32)
	for i := 0; i < t.rows; i++ {
		for j := range t.header {
			if j > 0 {
				b.WriteByte(',')
			}
			num = strconv.AppendFloat(num[:0], t.at(i, j), 'g', -1, 64)
			b.Write(num)
		}
		b.WriteByte('\n')
		if b.Len() >= flushAt {
			if _, err := w.Write(b.Bytes()); err != nil {
				return err
			}
			b.Reset()
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// jsonWriter writes a value as json.MarshalIndent(eval.ToJSON(v), "", "  ")
// does, byte for byte, without building the value's JSON in memory:
// vectors, matrices, records and lists are walked directly, and only other
// values go through eval.ToJSON.
type jsonWriter struct {
	w   io.Writer
	b   bytes.Buffer
	err error
}

// writeJSON writes v as save writes a .json file: indented, with a final
// newline.
func writeJSON(w io.Writer, v eval.Value) error {
	j := &jsonWriter{w: w}
	j.value(v, 0)
	j.b.WriteByte('\n')
	j.flush()
	return j.err
}

func (j *jsonWriter) flush() {
	if j.err == nil {
		_, j.err = j.w.Write(j.b.Bytes())
	}
	j.b.Reset()
}

// newline starts a line indented for depth, handing the buffer on when it
// is full.
func (j *jsonWriter) newline(depth int) {
	if j.b.Len() >= flushAt {
		j.flush()
	}
	j.b.WriteByte('\n')
	for range depth {
		j.b.WriteString("  ")
	}
}

func (j *jsonWriter) value(v eval.Value, depth int) {
	if j.err != nil {
		return
	}
	// A list is a JSONer whose JSON is the array of its elements': walked
	// here, so that a list of large vectors (a record of results holding
	// one) is not first copied whole into []any.
	if l, ok := v.(*eval.List); ok {
		j.array(len(l.Elems), depth, func(i int) { j.value(l.Elems[i], depth+1) })
		return
	}
	if _, ok := v.(eval.JSONer); ok {
		j.any(eval.ToJSON(v), depth)
		return
	}
	switch v := v.(type) {
	case *eval.Vec:
		j.array(len(v.Data), depth, func(i int) { j.number(v.Data[i]) })
	case *eval.Mat:
		r, c := v.Dims()
		j.array(r, depth, func(i int) {
			j.array(c, depth+1, func(k int) { j.number(v.M.At(i, k)) })
		})
	case *eval.Record:
		keys := v.AttrNames()
		j.object(len(keys), depth, func(i int) string { return keys[i] }, func(i int) {
			f, _ := v.Attr(keys[i])
			j.value(f, depth+1)
		})
	default:
		j.any(eval.ToJSON(v), depth)
	}
}

// any writes what eval.ToJSON gives.
func (j *jsonWriter) any(x any, depth int) {
	if j.err != nil {
		return
	}
	switch x := x.(type) {
	case nil:
		j.b.WriteString("null")
	case bool:
		j.b.WriteString(strconv.FormatBool(x))
	case float64:
		j.number(x)
	case []any:
		j.array(len(x), depth, func(i int) { j.any(x[i], depth+1) })
	case eval.OrderedObject:
		j.object(len(x), depth, func(i int) string { return x[i].Key }, func(i int) { j.any(x[i].Value, depth+1) })
	default:
		// A string or a value with its own JSON (a summary): as
		// MarshalIndent writes it, indented for where it stands.
		raw, err := json.Marshal(x)
		if err != nil {
			j.err = err
			return
		}
		j.err = json.Indent(&j.b, raw, strings.Repeat("  ", depth), "  ")
	}
}

// array writes n elements, each by elem, as MarshalIndent lays out an array
// at depth.
func (j *jsonWriter) array(n, depth int, elem func(i int)) {
	if n == 0 {
		j.b.WriteString("[]")
		return
	}
	j.b.WriteByte('[')
	for i := 0; i < n && j.err == nil; i++ {
		if i > 0 {
			j.b.WriteByte(',')
		}
		j.newline(depth + 1)
		elem(i)
	}
	j.newline(depth)
	j.b.WriteByte(']')
}

// object writes n fields, named by key and written by val, as
// MarshalIndent lays out an object at depth.
func (j *jsonWriter) object(n, depth int, key func(i int) string, val func(i int)) {
	if n == 0 {
		j.b.WriteString("{}")
		return
	}
	j.b.WriteByte('{')
	for i := 0; i < n && j.err == nil; i++ {
		if i > 0 {
			j.b.WriteByte(',')
		}
		j.newline(depth + 1)
		k, _ := json.Marshal(key(i))
		j.b.Write(k)
		j.b.WriteString(": ")
		val(i)
	}
	j.newline(depth)
	j.b.WriteByte('}')
}

// number writes x as encoding/json does (NaN and infinities as null, as
// eval.ToJSON makes them).
func (j *jsonWriter) number(x float64) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		j.b.WriteString("null")
		return
	}
	format := byte('f')
	if a := math.Abs(x); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	var buf [32]byte
	s := strconv.AppendFloat(buf[:0], x, format, -1, 64)
	if n := len(s); format == 'e' && n >= 4 && s[n-4] == 'e' && s[n-3] == '-' && s[n-2] == '0' {
		s[n-2] = s[n-1] // e-07 → e-7, as encoding/json writes it
		s = s[:n-1]
	}
	j.b.Write(s)
}
