package asmgen

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// root is the module root, from this package's directory.
const root = "../../.."

// TestGeneratedUpToDate regenerates every file into a temporary directory
// and compares it with the committed one: a hand edit of a generated .s
// file, or a description changed without go generate, fails here.
func TestGeneratedUpToDate(t *testing.T) {
	for _, pkg := range Packages() {
		dir := t.TempDir()
		if _, err := Write(dir, pkg); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if f.pkg != pkg {
				continue
			}
			want, err := os.ReadFile(filepath.Join(dir, filepath.Base(f.path)))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(root, f.path))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				line, g, w := firstDiff(string(got), string(want))
				t.Errorf("%s is not what runtime/internal/asmgen generates (run go generate ./%s):\nline %d: committed %q\n         generated %q",
					f.path, filepath.Dir(f.path), line, g, w)
			}
		}
	}
}

// firstDiff returns the first line (1-based) where a and b differ, and
// that line of each.
func firstDiff(a, b string) (int, string, string) {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; ; i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y || i >= len(la) || i >= len(lb) {
			return i + 1, x, y
		}
	}
}

// TestFrame checks the frame offsets read from Go signatures against the
// ones the hand-written files had (and go vet's asmdecl accepted).
func TestFrame(t *testing.T) {
	for _, c := range []struct {
		sig  string
		args map[string]int
		size int
	}{
		{"func kernAVX2(k int, a, b, c []float64, ldc int, alpha float64)",
			map[string]int{"k": 0, "a_base": 8, "b_base": 32, "c_base": 56, "ldc": 80, "alpha": 88}, 96},
		{"func dist2(x0, x1, a0, a1 float64, z, v, q []float64) (qmin float64)",
			map[string]int{"z_base": 32, "v_base": 56, "q_base": 80, "q_len": 88, "qmin": 104}, 112},
		{"func tileJac(acc *[48]float64, qmin *[8]float64, lim *jacLimits, out *[32]float64) (ok uint64)",
			map[string]int{"acc": 0, "out": 24, "ok": 32}, 40},
	} {
		name, args, size := frame(c.sig)
		if size != c.size {
			t.Errorf("%s: frame size %d, want %d", name, size, c.size)
		}
		for a, off := range c.args {
			if args[a] != off {
				t.Errorf("%s: %s at %d, want %d", name, a, args[a], off)
			}
		}
	}
}

// TestFormat checks the layout the emitter writes: operands in one column
// within a run of instructions, comments after the widest, a label after a
// blank line.
func TestFormat(t *testing.T) {
	a := new(Asm)
	a.Line("// head")
	f := a.Text("func f(x []float64)", "doc")
	f.Op("MOVQ", f.Arg("x_len"), "CX").C("n")
	f.Op("VZEROUPPER")
	f.Label("l")
	f.Op("RET")
	want := "// head\n\n// func f(x []float64)\n// doc\nTEXT ·f(SB), NOSPLIT, $0-24\n" +
		"\tMOVQ       x_len+8(FP), CX // n\n\tVZEROUPPER\n\nl:\n\tRET\n"
	if got := string(a.Bytes()); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
