package plot

import (
	"fmt"
	"sync"

	"gonum.org/v1/plot/vg"
)

// Figure is what plot returns without `to:`: the figure not yet drawn, so
// a front end draws it in the format it shows (lang/render's Image: the
// notebook kernel asks for PNG and SVG) and a script that never shows it
// pays nothing. Drawings are kept, since a notebook may ask twice.
type Figure struct {
	fig  figure
	kind string // the kind of value drawn, for String

	mu    sync.Mutex
	drawn map[string][]byte
}

func (f *Figure) Type() string { return "figure" }

func (f *Figure) String() string {
	return fmt.Sprintf("figure of a %s, %.0f×%.0f in (plot(..., to: \"FILE.png\") saves it)",
		f.kind, float64(f.fig.w/vg.Inch), float64(f.fig.h/vg.Inch))
}

// Image draws the figure as format: "png", "svg" or "pdf".
func (f *Figure) Image(format string) ([]byte, error) {
	if !plotFormats["."+format] {
		return nil, fmt.Errorf("a figure is drawn as svg, png or pdf, not %q", format)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if data, ok := f.drawn[format]; ok {
		return data, nil
	}
	data, err := f.fig.render(format)
	if err != nil {
		return nil, err
	}
	if f.drawn == nil {
		f.drawn = map[string][]byte{}
	}
	f.drawn[format] = data
	return data, nil
}
