package render_test

import (
	"bytes"
	"encoding/base64"
	"io"
	"strings"
	"testing"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/render"
	_ "github.com/kml-lang/kml/stdlib"
)

func value(t *testing.T, src string) eval.Value {
	t.Helper()
	in := eval.New(eval.Options{Stdout: io.Discard, Stderr: io.Discard})
	v, err := in.Eval("t.kml", src)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestBundleKinds checks which MIME types each kind of value carries:
// text/plain always (the REPL's text), HTML for records and summaries,
// PNG and SVG for a figure, whose PNG must decode as PNG.
func TestBundleKinds(t *testing.T) {
	vec := value(t, "[1, 2, 3]")
	b, err := render.Bundle(vec)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 1 || b["text/plain"] != vec.String() {
		t.Errorf("vector bundle = %v, want text/plain %q only", b, vec.String())
	}

	rec := value(t, `{name: "<b>&", m: [[1, 2], [3, 4]]}`)
	b, err = render.Bundle(rec)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := b["text/html"].(string)
	if !strings.Contains(h, "<th>name</th><td>&#34;&lt;b&gt;&amp;&#34;</td>") && !strings.Contains(h, "<th>name</th><td>&lt;b&gt;&amp;</td>") {
		t.Errorf("record HTML does not escape the field:\n%s", h)
	}
	if !strings.Contains(h, "<th>m</th><td><pre>") {
		t.Errorf("record HTML does not keep a matrix's lines in <pre>:\n%s", h)
	}

	fig := value(t, "plot([1, 4, 9], title: \"squares\")")
	if !strings.HasPrefix(fig.String(), "figure of a vector") {
		t.Errorf("figure text = %q", fig.String())
	}
	b, err = render.Bundle(fig)
	if err != nil {
		t.Fatal(err)
	}
	png, err := base64.StdEncoding.DecodeString(b["image/png"].(string))
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("image/png is not a base64 PNG (err %v)", err)
	}
	if svg, _ := b["image/svg+xml"].(string); !strings.Contains(svg, "<svg") || !strings.Contains(svg, "squares") {
		t.Errorf("image/svg+xml is not an SVG with the title")
	}
}

// TestSummaryHTML checks the summary table against the summary's own
// fields: a row per quantity, in order, with its mean as the text table
// prints it.
func TestSummaryHTML(t *testing.T) {
	v := value(t, `model m {
  mu ~ normal(0, 1)
  s ~ gamma(2, 2)
}
summary(sample(m, chains: 1, warmup: 100, draws: 100, seed: 3))`)
	h, ok := render.HTML(v)
	if !ok {
		t.Fatal("no HTML for a summary")
	}
	rows := strings.Count(h[strings.Index(h, "<tbody>"):], "<tr><th>")
	if rows != 2 || strings.Index(h, "<th>mu</th>") > strings.Index(h, "<th>s</th>") {
		t.Errorf("want rows mu then s, got %d rows:\n%s", rows, h)
	}
	text := v.String()
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) > 2 && f[0] == "mu" && !strings.Contains(h, "<th>mu</th><td>"+f[1]+"</td>") {
			t.Errorf("HTML mean of mu differs from the text's %s:\n%s", f[1], h)
		}
	}
	if _, ok := render.HTML(value(t, "3")); ok {
		t.Error("a number has an HTML table")
	}
}

// BenchmarkFigureImage measures drawing a posterior's figure (trace and
// density panels of two parameters, 2 chains × 300 draws) in each format
// the kernel sends, to show what sending SVG beside PNG costs.
func BenchmarkFigureImage(b *testing.B) {
	in := eval.New(eval.Options{Stdout: io.Discard, Stderr: io.Discard})
	if _, err := in.Eval("t.kml", "model m {\n  mu ~ normal(0, 1)\n  s ~ gamma(2, 2)\n}\nlet p = sample(m, chains: 2, warmup: 200, draws: 300, seed: 3)"); err != nil {
		b.Fatal(err)
	}
	for _, format := range []string{"png", "svg"} {
		b.Run(format, func(b *testing.B) {
			for b.Loop() {
				fig, err := in.Eval("t.kml", "plot(p)") // a fresh figure: drawings are kept
				if err != nil {
					b.Fatal(err)
				}
				if _, err := fig.(render.Image).Image(format); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
