package files

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
)

// CSVWriter is a value that save writes as CSV (a posterior's draws).
type CSVWriter interface {
	WriteCSV(w io.Writer) error
}

func registerIo(reg *eval.Registry) {
	reg.Register("print(values...)",
		"Writes its arguments on one line, separated by spaces (strings without quotes; a matrix on lines of its own); under `kml run --json`, each argument as one line of JSON.",
		printBuiltin)
	reg.Register(`read_csv(path, columns?, missing = "error")`,
		`Reads a CSV file with a header row into a matrix (one row per observation) of the columns named in columns (a list of strings; all columns when left out). A missing value (an empty cell, NA or NaN) is an error, or with missing: "drop" drops the rows that miss a value in a chosen column. Errors name the file, line and column.`,
		readCSV)
	reg.Register("write_csv(value, path, columns?, overwrite = false)",
		"Writes a matrix (header x1, x2, ... unless columns names them), a vector (header x) or a record of equal-length vectors (the field names as header) as CSV, at full precision. It replaces an existing file only if its name ends in .csv, or with overwrite: true.",
		writeCSV)
	reg.Register(`save(value, to, format = "auto")`,
		`Saves a value: to a .csv file, a matrix, vector or posterior (one row per draw, with chain, draw, the parameters and the sampler's columns); to a .json file, anything (as --json prints it). format: "cmdstan" writes a posterior as CmdStan does, one CSV per chain (to: "out/draws.csv" writes out/draws_1.csv, ...), readable by cmdstanpy, ArviZ and cmdstanr.`,
		save)
}

func printBuiltin(a *eval.Args) (eval.Value, error) {
	in := a.Th.Interp()
	w := in.Stdout()
	if in.Options().JSON {
		for _, v := range a.Rest {
			b, err := json.Marshal(eval.ToJSON(v))
			if err != nil {
				return nil, a.Fail("%v", err)
			}
			w.Write(append(b, '\n'))
		}
		return nil, nil
	}
	// Arguments share a line, separated by spaces, except that one shown on
	// several lines (a matrix) starts a line and the next argument starts
	// another, so its rows stay aligned.
	var b strings.Builder
	lineEmpty := true
	for _, v := range a.Rest {
		text := v.String()
		multi := strings.Contains(text, "\n")
		switch {
		case lineEmpty:
		case multi:
			b.WriteByte('\n')
		default:
			b.WriteByte(' ')
		}
		b.WriteString(text)
		lineEmpty = false
		if multi {
			b.WriteByte('\n')
			lineEmpty = true
		}
	}
	if !lineEmpty || b.Len() == 0 {
		b.WriteByte('\n')
	}
	io.WriteString(w, b.String())
	return nil, nil
}

func readCSV(a *eval.Args) (eval.Value, error) {
	var path, missing string
	var want eval.Names
	if err := a.Unpack("path", &path, "columns?", &want, "missing", &missing); err != nil {
		return nil, err
	}
	if missing != "error" && missing != "drop" {
		return nil, a.Errorf("missing", `missing must be "error" or "drop", got %q`, missing)
	}
	in := a.Th.Interp()
	data, err := in.Sandbox().ReadFile(in.BaseDir(), path)
	if err != nil {
		if near := in.NearbyFile(in.BaseDir(), path); near != "" {
			return nil, a.Errorf("path", "%v; did you mean %q?", err, near)
		}
		return nil, a.Errorf("path", "%v", err)
	}
	m, err := parseCSV(path, data, want, missing == "drop")
	if err != nil {
		return nil, a.Errorf("path", "%v", err)
	}
	return eval.NewMat(m), nil
}

// separators are the field separators other than a comma that spreadsheets
// write, with their names.
var separators = []struct{ sep, name string }{{";", "semicolons"}, {"\t", "tabs"}, {"|", "vertical bars"}}

// separatorHint says which other separator a one-column header uses, or "".
func separatorHint(name string, header []string) error {
	if len(header) != 1 {
		return nil
	}
	for _, s := range separators {
		if strings.Contains(header[0], s.sep) {
			return fmt.Errorf("%s:1: the header is one column, %q, whose names look separated by %s: read_csv reads comma-separated files; save the table with commas as separators (and points as decimal marks)", name, header[0], s.name)
		}
	}
	return nil
}

// parseCSV reads numeric CSV with a header; errors say FILE:LINE:COL. With
// drop, rows missing a value in a wanted column are left out.
func parseCSV(name string, data []byte, want []string, drop bool) (*mat.Dense, error) {
	// Excel's "CSV UTF-8" starts with a byte order mark.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s is empty: it needs a header row and data", name)
	}
	if err != nil {
		return nil, csvError(name, err)
	}
	if err := separatorHint(name, header); err != nil {
		return nil, err
	}
	index := map[string]int{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if j, dup := index[h]; dup {
			return nil, fmt.Errorf("%s:1: column %q appears twice in the header (columns %d and %d); rename one", name, h, j+1, i+1)
		}
		index[h] = i
	}
	var cols []int
	if want == nil {
		for i := range header {
			cols = append(cols, i)
		}
		want = header
	} else {
		for _, w := range want {
			i, ok := index[w]
			if !ok {
				return nil, fmt.Errorf("%s has no column %q; its columns are %s", name, w, strings.Join(header, ", "))
			}
			cols = append(cols, i)
		}
	}
	var values []float64
	rows := 0
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		line, _ := r.FieldPos(0)
		if len(rec) != len(header) {
			return nil, fmt.Errorf("%s:%d: the row has %d fields but the header has %d", name, line, len(rec), len(header))
		}
		start := len(values)
		for k, c := range cols {
			cell := strings.TrimSpace(rec[c])
			_, col := r.FieldPos(c)
			if cell == "" || strings.EqualFold(cell, "na") || strings.EqualFold(cell, "nan") {
				if drop {
					values = values[:start]
					break
				}
				return nil, fmt.Errorf(`%s:%d:%d: missing value in column %q (read_csv(..., missing: "drop") leaves out incomplete rows)`, name, line, col, want[k])
			}
			v, err := strconv.ParseFloat(cell, 64)
			if errors.Is(err, strconv.ErrRange) {
				return nil, fmt.Errorf("%s:%d:%d: number out of range: %q in column %q", name, line, col, cell, want[k])
			}
			if err != nil {
				return nil, fmt.Errorf("%s:%d:%d: not a number: %q in column %q", name, line, col, cell, want[k])
			}
			if math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s:%d:%d: infinite value %q in column %q", name, line, col, cell, want[k])
			}
			values = append(values, v)
		}
		if len(values) > start {
			rows++
		}
	}
	if rows == 0 && drop {
		return nil, fmt.Errorf("%s has no complete rows: every row misses a value", name)
	}
	if rows == 0 {
		return nil, fmt.Errorf("%s has a header but no data rows", name)
	}
	return mat.NewDense(rows, len(cols), values), nil
}

func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d:%d: %v", name, pe.Line, pe.Column, pe.Err)
	}
	return fmt.Errorf("%s: %v", name, err)
}

func fmtCSV(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// tableCSV renders a matrix, vector or record of equal-length vectors.
func tableCSV(v eval.Value, names []string) ([]byte, error) {
	var header []string
	var cols [][]float64
	switch v := v.(type) {
	case *eval.Vec:
		header, cols = []string{"x"}, [][]float64{v.Data}
	case *eval.Mat:
		r, c := v.Dims()
		for j := 0; j < c; j++ {
			header = append(header, "x"+strconv.Itoa(j+1))
			col := make([]float64, r)
			for i := range col {
				col[i] = v.M.At(i, j)
			}
			cols = append(cols, col)
		}
	case *eval.Record:
		for _, k := range v.AttrNames() {
			f, _ := v.Attr(k)
			xs, ok := eval.ToFloats(f)
			if !ok {
				return nil, fmt.Errorf("field %s is %s; a table needs vectors", k, eval.Describe(f))
			}
			if len(cols) > 0 && len(xs) != len(cols[0]) {
				return nil, fmt.Errorf("field %s has %d values but %s has %d", k, len(xs), header[0], len(cols[0]))
			}
			header, cols = append(header, k), append(cols, xs)
		}
	default:
		return nil, fmt.Errorf("cannot write %s as a table", eval.Describe(v))
	}
	if names != nil {
		if len(names) != len(header) {
			return nil, fmt.Errorf("%d column names for %d columns", len(names), len(header))
		}
		header = names
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(header)
	n := 0
	if len(cols) > 0 {
		n = len(cols[0])
	}
	rec := make([]string, len(cols))
	for i := 0; i < n; i++ {
		for j, c := range cols {
			rec[j] = fmtCSV(c[i])
		}
		w.Write(rec)
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

func writePath(a *eval.Args, name string) (string, error) {
	p, err := a.Str(name)
	if err != nil {
		return "", err
	}
	in := a.Th.Interp()
	real, err := in.Sandbox().WritePath(in.BaseDir(), p)
	if err != nil {
		return "", a.Errorf(name, "%v", err)
	}
	return real, nil
}

func writeCSV(a *eval.Args) (eval.Value, error) {
	var names eval.Names
	var overwrite bool
	if err := a.Unpack("columns?", &names, "overwrite", &overwrite); err != nil {
		return nil, err
	}
	data, err := tableCSV(a.Value("value"), names)
	if err != nil {
		return nil, a.Errorf("value", "%v", err)
	}
	path, err := writePath(a, "path")
	if err != nil {
		return nil, err
	}
	// A typo or a hostile script must not turn notes.txt into a table.
	if fi, err := os.Stat(path); err == nil && !overwrite && strings.ToLower(filepath.Ext(path)) != ".csv" {
		what := "a file that is not .csv"
		if fi.IsDir() {
			what = "a directory"
		}
		return nil, a.Errorf("path", "%s is %s; write_csv replaces only .csv files unless overwrite: true", a.Value("path"), what)
	}
	given, _ := a.Str("path") // writePath has read it
	in := a.Th.Interp()
	if err := in.Sandbox().WriteFile(in.BaseDir(), given, data); err != nil {
		return nil, a.Errorf("path", "%v", err)
	}
	return nil, nil
}

func save(a *eval.Args) (eval.Value, error) {
	var to, format string
	if err := a.Unpack("to", &to, "format", &format); err != nil {
		return nil, err
	}
	v := a.Value("value")
	ext := strings.ToLower(filepath.Ext(to))
	switch format {
	case "auto":
	case "cmdstan":
		return saveCmdStan(a, v, to)
	default:
		return nil, a.Errorf("format", `format must be "auto" (by the extension) or "cmdstan", got %q`, format)
	}
	var data []byte
	var err error
	switch ext {
	case ".csv":
		if cw, ok := v.(CSVWriter); ok {
			var b bytes.Buffer
			if err := cw.WriteCSV(&b); err != nil {
				return nil, a.Fail("%v", err)
			}
			data = b.Bytes()
		} else if data, err = tableCSV(v, nil); err != nil {
			return nil, a.Errorf("value", "%v; save it to a .json file instead", err)
		}
	case ".json":
		data, err = json.MarshalIndent(eval.ToJSON(v), "", "  ")
		if err != nil {
			return nil, a.Fail("%v", err)
		}
		data = append(data, '\n')
	default:
		return nil, a.Errorf("to", "to must end in .csv or .json, got %q", to)
	}
	if _, err := writePath(a, "to"); err != nil {
		return nil, err
	}
	in := a.Th.Interp()
	if err := in.Sandbox().WriteFile(in.BaseDir(), to, data); err != nil {
		return nil, a.Errorf("to", "%v", err)
	}
	return nil, nil
}

// saveCmdStan writes one CmdStan CSV per chain, NAME_1.csv ... NAME_K.csv
// beside to (CmdStan's naming). Every file is rendered and every path
// checked before the first is written.
func saveCmdStan(a *eval.Args, v eval.Value, to string) (eval.Value, error) {
	post, ok := v.(*infer.Posterior)
	if !ok {
		return nil, a.Errorf("value", `format: "cmdstan" saves a posterior (the result of sample), got %s`, eval.Describe(v))
	}
	if strings.ToLower(filepath.Ext(to)) != ".csv" {
		return nil, a.Errorf("to", `format: "cmdstan" writes .csv files, got %q`, to)
	}
	stem := strings.TrimSuffix(to, filepath.Ext(to))
	in := a.Th.Interp()
	paths := make([]string, len(post.Result.Chains))
	files := make([][]byte, len(paths))
	for c := range paths {
		name := fmt.Sprintf("%s_%d.csv", stem, c+1)
		if _, err := in.Sandbox().WritePath(in.BaseDir(), name); err != nil {
			return nil, a.Errorf("to", "%v", err)
		}
		paths[c] = name
	}
	// The chains' files are formatted on every core (formatting the
	// numbers was a tenth of eight schools' whole run), then written in
	// order.
	errs := make([]error, len(paths))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(paths)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := int(next.Add(1)) - 1; c < len(paths); c = int(next.Add(1)) - 1 {
				var b bytes.Buffer
				errs[c] = post.WriteCmdStan(&b, c, filepath.Base(paths[c]))
				files[c] = b.Bytes()
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, a.Fail("%v", err)
		}
	}
	for c, p := range paths {
		if err := in.Sandbox().WriteFile(in.BaseDir(), p, files[c]); err != nil {
			return nil, a.Errorf("to", "%v", err)
		}
	}
	return nil, nil
}
