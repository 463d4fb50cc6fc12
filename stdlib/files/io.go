package files

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/kml-lang/kml/internal/sandbox"
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
	// The file is held in memory while it is parsed: one larger than the
	// memory budget is refused before a byte is read (a sparse file of
	// terabytes read until the process died).
	data, err := in.Sandbox().ReadFileLimit(in.BaseDir(), path, in.MemoryBudget())
	if big := (*sandbox.TooLargeError)(nil); errors.As(err, &big) {
		return nil, a.Errorf("path", "%s is %s, more than the memory budget of %s (--max-memory)", path, eval.FormatBytes(float64(big.Size)), eval.FormatBytes(float64(big.Limit)))
	}
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
	t, err := newTable(a.Value("value"), names)
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
	return nil, writeTo(a, "path", given, t.write)
}

// writeTo writes the file to (relative to the script) through the
// sandbox's one writer: render streams into a temporary that the run's
// interrupt stops within a MiB, and only a complete file replaces the
// target. Errors are placed at the argument name.
func writeTo(a *eval.Args, name, to string, render func(io.Writer) error) error {
	in := a.Th.Interp()
	w, err := in.Sandbox().Create(a.Context(), in.BaseDir(), to)
	if err != nil {
		return a.Errorf(name, "%v", err)
	}
	defer w.Abort()
	if err := render(w); err != nil {
		return placeWriteError(a, name, err)
	}
	if err := w.Commit(); err != nil {
		return placeWriteError(a, name, err)
	}
	return nil
}

// placeWriteError is a write's error at the argument: the run's interrupt
// is returned as it is (the interpreter reports "NAME: interrupted").
func placeWriteError(a *eval.Args, name string, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return a.Errorf(name, "%v", err)
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
	var render func(io.Writer) error
	switch ext {
	case ".csv":
		if cw, ok := v.(CSVWriter); ok {
			render = cw.WriteCSV
		} else if t, err := newTable(v, nil); err != nil {
			return nil, a.Errorf("value", "%v; save it to a .json file instead", err)
		} else {
			render = t.write
		}
	case ".json":
		render = func(w io.Writer) error { return writeJSON(w, v) }
	default:
		return nil, a.Errorf("to", "to must end in .csv or .json, got %q", to)
	}
	if _, err := writePath(a, "to"); err != nil {
		return nil, err
	}
	return nil, writeTo(a, "to", to, render)
}

// saveCmdStan writes one CmdStan CSV per chain, NAME_1.csv ... NAME_K.csv
// beside to (CmdStan's naming), as one save: every path is checked before
// anything is written, every file is written to its temporary, and only
// then are they renamed into place, so an interrupt or an error while
// writing leaves none of them (sandbox.CommitAll; a rename failing part way
// names the files written and those not).
func saveCmdStan(a *eval.Args, v eval.Value, to string) (eval.Value, error) {
	post, ok := v.(*infer.Posterior)
	if !ok {
		return nil, a.Errorf("value", `format: "cmdstan" saves a posterior (the result of sample), got %s`, eval.Describe(v))
	}
	if strings.ToLower(filepath.Ext(to)) != ".csv" {
		return nil, a.Errorf("to", `format: "cmdstan" writes .csv files, got %q`, to)
	}
	if post.Approx != nil {
		return nil, a.Fail("%v", post.WriteCmdStan(io.Discard, 0, ""))
	}
	stem := strings.TrimSuffix(to, filepath.Ext(to))
	in := a.Th.Interp()
	paths := make([]string, len(post.Result.Chains))
	for c := range paths {
		paths[c] = fmt.Sprintf("%s_%d.csv", stem, c+1)
		if _, err := in.Sandbox().WritePath(in.BaseDir(), paths[c]); err != nil {
			return nil, a.Errorf("to", "%v", err)
		}
	}
	files := make([]*sandbox.File, 0, len(paths))
	defer func() {
		for _, w := range files {
			w.Abort()
		}
	}()
	for c, p := range paths {
		w, err := in.Sandbox().Create(a.Context(), in.BaseDir(), p)
		if err != nil {
			return nil, a.Errorf("to", "%v", err)
		}
		files = append(files, w)
		if err := post.WriteCmdStan(w, c, filepath.Base(p)); err != nil {
			return nil, placeWriteError(a, "to", err)
		}
		if err := w.Finish(); err != nil {
			return nil, placeWriteError(a, "to", err)
		}
	}
	if err := sandbox.CommitAll(files...); err != nil {
		return nil, placeWriteError(a, "to", err)
	}
	return nil, nil
}
