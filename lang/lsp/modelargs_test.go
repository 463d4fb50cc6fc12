package lsp

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestModelDataArguments: inside a model with data arguments they
// complete (and not after it), and hovering the model's name shows its
// signature and its arguments.
func TestModelDataArguments(t *testing.T) {
	main := filepath.Join(t.TempDir(), "main.kml")
	src := "model m(xdata, ydata) {\n  a ~ normal(0, 1)\n  ydata ~ normal(a * xd, 1)\n}\nlet z = xd\nlet b = m(xdata: [1], ydata: [2])\n"
	d := &document{uri: pathToURI(main), path: main, text: newText(src)}
	s := &server{}
	a := analyze(builtins, main, d.text)
	c, _ := s.complete(d, a, 3, 24, position{2, 23})
	if !hasLabel(c.(completionList), "xdata") {
		t.Errorf("completion in the model body: %+v", c)
	}
	c, _ = s.complete(d, a, 5, 11, position{4, 10})
	if hasLabel(c.(completionList), "xdata") {
		t.Errorf("completion after the model offers its data argument: %+v", c)
	}
	h, _ := s.hover(d, a, 6, 9, position{})
	hv, ok := h.(hover)
	if !ok || !strings.Contains(hv.Contents.Value, "model m(xdata, ydata)") || !strings.Contains(hv.Contents.Value, "`xdata`: data argument") {
		t.Errorf("hover on m: %+v", h)
	}
}
