package render

import (
	"encoding/base64"
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"

	"github.com/kml-lang/kml/lang/eval"
	"github.com/kml-lang/kml/lang/infer"
)

// Image is a value that draws itself as a picture: format is "png" or
// "svg". stdlib/plot's figures are Images.
type Image interface {
	eval.Value
	Image(format string) ([]byte, error)
}

// Text is the value as the REPL prints it.
func Text(v eval.Value) string { return v.String() }

// HTML is the value as an HTML table, for the kinds a table shows better
// than text: a posterior summary (a row per quantity) and a record (a row
// per field). Other kinds give false.
func HTML(v eval.Value) (string, bool) {
	switch v := v.(type) {
	case *infer.SummaryVal:
		return summaryHTML(v), true
	case *eval.Record:
		return recordHTML(v), true
	}
	return "", false
}

// Bundle is the MIME bundle of v, as Jupyter's display messages carry it:
// text/plain always, text/html for tables, and image/png (base64) and
// image/svg+xml for a picture. A picture that cannot be drawn gives its
// error.
func Bundle(v eval.Value) (map[string]any, error) {
	b := map[string]any{"text/plain": Text(v)}
	if h, ok := HTML(v); ok {
		b["text/html"] = h
	}
	if img, ok := v.(Image); ok {
		png, err := img.Image("png")
		if err != nil {
			return nil, err
		}
		svg, err := img.Image("svg")
		if err != nil {
			return nil, err
		}
		b["image/png"] = base64.StdEncoding.EncodeToString(png)
		b["image/svg+xml"] = string(svg)
	}
	return b, nil
}

// summaryHTML is the summary's table: the run's totals as a caption, a row
// per quantity with the columns of the text table, and its warnings.
func summaryHTML(v *infer.SummaryVal) string {
	s := v.S
	var b strings.Builder
	b.WriteString("<table class=\"kml-summary\">\n")
	fmt.Fprintf(&b, "<caption>%d chains, %d warm-up + %d draws each, %d divergences, %.2f s</caption>\n",
		s.Chains, s.Warmup, s.Draws, s.Divergences, s.Seconds)
	b.WriteString("<thead><tr><th></th>")
	for _, h := range []string{"mean", "mcse", "sd", "5%", "50%", "95%", "ess_bulk", "ess_tail", "rhat"} {
		fmt.Fprintf(&b, "<th>%s</th>", h)
	}
	b.WriteString("</tr></thead>\n<tbody>\n")
	for _, p := range s.Params {
		fmt.Fprintf(&b, "<tr><th>%s</th>", html.EscapeString(p.Name))
		for _, x := range []string{g4(p.Mean), g4(p.MCSEMean), g4(p.SD), g4(p.Q5), g4(p.Q50), g4(p.Q95),
			fixed(p.ESSBulk, 0), fixed(p.ESSTail, 0), fixed(p.Rhat, 2)} {
			fmt.Fprintf(&b, "<td>%s</td>", x)
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody>\n</table>")
	for _, w := range s.Warnings {
		fmt.Fprintf(&b, "\n<p>warning: %s</p>", html.EscapeString(w))
	}
	return b.String()
}

// recordHTML is a row per field: its name and its value's text (in <pre>
// when it spans lines, as a matrix does).
func recordHTML(r *eval.Record) string {
	var b strings.Builder
	b.WriteString("<table class=\"kml-record\">\n<tbody>\n")
	for _, name := range r.AttrNames() {
		f, _ := r.Attr(name)
		text := html.EscapeString(Text(f))
		if strings.Contains(text, "\n") {
			text = "<pre>" + text + "</pre>"
		}
		fmt.Fprintf(&b, "<tr><th>%s</th><td>%s</td></tr>\n", html.EscapeString(name), text)
	}
	b.WriteString("</tbody>\n</table>")
	return b.String()
}

// g4 and fixed format as the summary's text table does.
func g4(x float64) string {
	if math.IsNaN(x) {
		return "NaN"
	}
	return strconv.FormatFloat(x, 'g', 4, 64)
}

func fixed(x float64, digits int) string {
	if math.IsNaN(x) {
		return "NaN"
	}
	if digits == 0 {
		x = math.Round(x)
	}
	return strconv.FormatFloat(x, 'f', digits, 64)
}
