package kmltest

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// StanCSV is one file read the way CmdStan's readers (cmdstanpy's
// scan_sampler_csv, ArviZ, cmdstanr) read a sampler CSV: config comments,
// the header, the adaptation block, the draws, the closing comments.
type StanCSV struct {
	Config   map[string]string
	Columns  []string
	StepSize float64
	Metric   [][]float64
	Draws    [][]float64
}

// ReadStanCSV reads the sampler CSV at path, failing t where it departs
// from CmdStan's layout.
func ReadStanCSV(t testing.TB, path string) StanCSV {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	out := StanCSV{Config: map[string]string{}}
	i := 0
	for ; i < len(lines) && strings.HasPrefix(lines[i], "#"); i++ {
		l := strings.TrimSpace(strings.Replace(lines[i], "(Default)", "", 1))
		l = strings.TrimLeft(l, " #\t")
		if k, v, ok := strings.Cut(l, "="); ok && strings.Count(l, "=") == 1 {
			out.Config[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	out.Columns = strings.Split(lines[i], ",")
	i++
	expect := func(want string) {
		t.Helper()
		if strings.TrimSpace(lines[i]) != want {
			t.Fatalf("%s line %d: %q, want %q", path, i+1, lines[i], want)
		}
		i++
	}
	expect("# Adaptation terminated")
	label, val, _ := strings.Cut(lines[i], "=")
	if !strings.HasPrefix(label, "# Step size") {
		t.Fatalf("line %d: %q, want the step size", i+1, lines[i])
	}
	out.StepSize, err = strconv.ParseFloat(strings.TrimSpace(val), 64)
	if err != nil {
		t.Fatalf("step size: %v", err)
	}
	i++
	rows := 1
	switch out.Config["metric"] {
	case "diag_e":
		expect("# Diagonal elements of inverse mass matrix:")
	case "dense_e":
		expect("# Elements of inverse mass matrix:")
		rows = -1
	default:
		t.Fatalf("metric = %q", out.Config["metric"])
	}
	for r := 0; rows < 0 || r < rows; r++ {
		var row []float64
		for _, x := range strings.Split(strings.TrimLeft(lines[i], " #\t"), ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
			if err != nil {
				t.Fatalf("line %d: metric %q: %v", i+1, x, err)
			}
			row = append(row, v)
		}
		if rows < 0 {
			rows = len(row)
		}
		out.Metric = append(out.Metric, row)
		i++
	}
	for ; i < len(lines) && !strings.HasPrefix(lines[i], "#"); i++ {
		fields := strings.Split(lines[i], ",")
		if len(fields) != len(out.Columns) {
			t.Fatalf("line %d: %d fields, the header has %d", i+1, len(fields), len(out.Columns))
		}
		row := make([]float64, len(fields))
		for k, x := range fields {
			if row[k], err = strconv.ParseFloat(x, 64); err != nil {
				t.Fatalf("line %d: %v", i+1, err)
			}
		}
		out.Draws = append(out.Draws, row)
	}
	if i == len(lines) || !strings.Contains(strings.Join(lines[i:], "\n"), "Elapsed Time") {
		t.Fatalf("%s: no timing comments after the Draws", path)
	}
	return out
}
