package files_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/stdlib/internal/kmltest"
)

// TestWriteCSVKeepsOtherFiles: write_csv replaces an existing file only if it
// is a .csv file, unless overwrite: true.
func TestWriteCSVKeepsOtherFiles(t *testing.T) {
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes.txt")
	os.WriteFile(notes, []byte("my notes\n"), 0o644)
	msg := kmltest.RunIn(t, dir, `write_csv([1, 2], "notes.txt")`)
	if !strings.Contains(msg, "overwrite: true") {
		t.Errorf("overwriting notes.txt: got %q", msg)
	}
	if b, _ := os.ReadFile(notes); string(b) != "my notes\n" {
		t.Errorf("notes.txt was changed: %q", b)
	}
	if msg := kmltest.RunIn(t, dir, `write_csv([1, 2], "notes.txt", overwrite: true)`); msg != "" {
		t.Errorf("overwrite: true refused: %s", msg)
	}
	if b, _ := os.ReadFile(notes); string(b) != "x\n1\n2\n" {
		t.Errorf("notes.txt after overwrite: true: %q", b)
	}
	os.WriteFile(filepath.Join(dir, "old.csv"), []byte("y\n3\n"), 0o644)
	if msg := kmltest.RunIn(t, dir, `write_csv([1], "old.csv")`+"\n"+`write_csv([1], "fresh.txt")`); msg != "" {
		t.Errorf("replacing a .csv or writing a new file refused: %s", msg)
	}
}

// TestReadCSVDefects: a duplicated header, a byte order mark, an overflowing
// number and missing values, each with its own message or handling.
func TestReadCSVDefects(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"dup.csv":     "x,x\n1,2\n",
		"bom.csv":     "\ufeffa,b\n1,2\n3,4\n",
		"big.csv":     "a\n1\n1e400\n",
		"tiny.csv":    "a\n1e-400\n",
		"missing.csv": "a,b,c\n1,2,3\n4,,6\n7,8,NA\n9,10,11\n",
		"allgone.csv": "a\n\nNA\n",
	}
	for name, data := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644)
	}
	for _, c := range []struct{ src, want string }{
		{`read_csv("dup.csv")`, `column "x" appears twice`},
		{`read_csv("big.csv")`, `big.csv:3:1: number out of range: "1e400"`},
		{`read_csv("missing.csv")`, `missing.csv:3:3: missing value in column "b"`},
		{`read_csv("missing.csv", missing: "skip")`, `missing must be "error" or "drop"`},
		{`read_csv("allgone.csv", missing: "drop")`, `no complete rows`},
	} {
		got := kmltest.RunIn(t, dir, c.src)
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: got %q, want it to contain %q", c.src, got, c.want)
		}
	}
	in := eval.New(eval.Options{Dirs: []string{dir}, BaseDir: dir})
	for _, c := range []struct {
		src  string
		want []float64
	}{
		{`read_csv("bom.csv", columns: ["a"])`, []float64{1, 3}},
		{`read_csv("missing.csv", missing: "drop")`, []float64{1, 2, 3, 9, 10, 11}},
		{`read_csv("missing.csv", columns: ["a", "b"], missing: "drop")`, []float64{1, 2, 7, 8, 9, 10}},
		{`read_csv("tiny.csv")`, []float64{0}},
	} {
		v, err := in.Eval("t.kml", c.src)
		if err != nil {
			t.Errorf("%s: %v", c.src, err)
			continue
		}
		m, _ := eval.ToMatrix(v)
		r, k := m.Dims()
		var got []float64
		for i := 0; i < r; i++ {
			for j := 0; j < k; j++ {
				got = append(got, m.At(i, j))
			}
		}
		if len(got) != len(c.want) {
			t.Errorf("%s = %v, want %v", c.src, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s = %v, want %v", c.src, got, c.want)
				break
			}
		}
	}
}

// TestReadCSVHints: a table separated by semicolons or tabs gets the
// separator named, and a missing file the nearest file beside it — but
// never a file outside the directories the script may use.
func TestReadCSVHints(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "work")
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	files := map[string]string{
		"semi.csv":     "a;b\n1,5;2\n",
		"tab.csv":      "a\tb\n1\t2\n",
		"data.csv":     "x,y\n1,2\n",
		"sub/rows.csv": "x\n1\n",
		"../data2.csv": "x\n1\n",
	}
	for name, data := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644)
	}
	cases := []struct{ src, want string }{
		{`read_csv("semi.csv")`, `the header is one column, "a;b", whose names look separated by semicolons`},
		{`read_csv("tab.csv")`, "separated by tabs"},
		{`read_csv("dat.csv")`, `dat.csv: no such file; did you mean "data.csv"?`},
		{`read_csv("DATA.csv")`, `did you mean "data.csv"?`},
		{`read_csv("sub/row.csv")`, `did you mean "sub/rows.csv"?`},
		{`read_csv("zebra.csv")`, "zebra.csv: no such file\n"},
		// Outside, a missing file is refused as an existing one is:
		// whether it exists is not the script's to learn.
		{`read_csv("../data3.csv")`, "../data3.csv is outside the directories"},
	}
	for _, c := range cases {
		msg := kmltest.RunIn(t, dir, c.src) + "\n"
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s: got %q, want %q", c.src, msg, c.want)
		}
	}
}

// TestReadCSVHugeFile: a file larger than the memory budget is refused
// before it is read (a sparse file of terabytes was read until the process
// died), naming its size and the budget.
func TestReadCSVHugeFile(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "huge.csv"))
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(64 << 30) // sparse: nothing is written
	f.Close()
	var out strings.Builder
	in := eval.New(eval.Options{Stdout: &out, Stderr: &out, Dirs: []string{dir}, BaseDir: dir, MaxMemory: 64 << 20})
	_, err = in.Eval("t.kml", `read_csv("huge.csv")`)
	if err == nil || !strings.Contains(err.Error(), "huge.csv is 64 GB, more than the memory budget of 64 MB (--max-memory)") {
		t.Errorf("reading a 64 GiB file: %v", err)
	}
}
