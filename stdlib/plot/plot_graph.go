package plot

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/kml-lang/kml/lang/eval"
)

// pcEdge is an edge of a pc or fci record by node index: directed (an
// arrowhead at to, none at from) lays the nodes out in layers; tail and
// head are the marks of an fci edge at from and to ('o' circle, '>'
// arrowhead, '-' tail; 0 for a pc edge, drawn by directed alone); label
// is written at the middle (stability's frequencies).
type pcEdge struct {
	from, to   int
	directed   bool
	tail, head byte
	label      string
}

// pagMarks reads an fci edge type such as "o->" or "<->": the marks at
// from and at to, with '<' at from read as an arrowhead '>'.
func pagMarks(ty string) (tail, head byte, ok bool) {
	if len(ty) != 3 || ty[1] != '-' || !strings.ContainsRune("o<-", rune(ty[0])) || !strings.ContainsRune("o>-", rune(ty[2])) {
		return 0, 0, false
	}
	tail, head = ty[0], ty[2]
	if tail == '<' {
		tail = '>'
	}
	return tail, head, true
}

// pcGraph reads what pc returns: names and edges {from, to, type}.
func pcGraph(r *eval.Record) ([]string, []pcEdge, bool) {
	nv, ok1 := r.Attr("names")
	ev, ok2 := r.Attr("edges")
	nl, ok3 := nv.(*eval.List)
	el, ok4 := ev.(*eval.List)
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return nil, nil, false
	}
	index := map[string]int{}
	var names []string
	for _, v := range nl.Elems {
		s, ok := v.(eval.Str)
		if !ok {
			return nil, nil, false
		}
		index[string(s)] = len(names)
		names = append(names, string(s))
	}
	var edges []pcEdge
	for _, v := range el.Elems {
		e, ok := v.(*eval.Record)
		if !ok {
			return nil, nil, false
		}
		f, _ := e.Attr("from")
		t, _ := e.Attr("to")
		ty, _ := e.Attr("type")
		fs, ok1 := f.(eval.Str)
		ts, ok2 := t.(eval.Str)
		i, ok3 := index[string(fs)]
		j, ok4 := index[string(ts)]
		if !ok1 || !ok2 || !ok3 || !ok4 {
			return nil, nil, false
		}
		pe := pcEdge{from: i, to: j, directed: ty == eval.Str("directed")}
		if tys, ok := ty.(eval.Str); ok {
			if tail, head, ok := pagMarks(string(tys)); ok {
				pe.tail, pe.head, pe.directed = tail, head, head == '>' && tail != '>'
			}
		}
		if l, ok := e.Attr("label"); ok {
			if ls, ok := l.(eval.Str); ok {
				pe.label = string(ls)
			}
		}
		edges = append(edges, pe)
	}
	return names, edges, true
}

// graphLayout puts each node in a layer, its longest chain of directed
// edges from a node with none into it, and spreads each layer across;
// nodes without edges go in a last row of their own, out of the edges' way.
func graphLayout(n int, edges []pcEdge) plotter.XYs {
	layer := make([]int, n)
	for range n { // longest paths; n rounds suffice without cycles
		for _, e := range edges {
			if e.directed && layer[e.to] < layer[e.from]+1 && layer[e.from] < n {
				layer[e.to] = layer[e.from] + 1
			}
		}
	}
	linked := make([]bool, n)
	last := 0
	for _, e := range edges {
		linked[e.from], linked[e.to] = true, true
		last = max(last, layer[e.from], layer[e.to])
	}
	if len(edges) > 0 {
		for v := range layer {
			if !linked[v] {
				layer[v] = last + 1
			}
		}
	}
	count := map[int]int{}
	for _, l := range layer {
		count[l]++
	}
	seen := map[int]int{}
	pts := make(plotter.XYs, n)
	for v, l := range layer {
		k := seen[l]
		seen[l]++
		pts[v].X = float64(k+1) / float64(count[l]+1)
		pts[v].Y = -float64(l) - 0.25*float64(k%2) // staggered: same-layer edges miss nodes
	}
	return pts
}

// graphPlot draws a pc graph: nodes as discs with their names, undirected edges
// as grey lines, directed edges as black lines with an arrowhead.
func graphPlot(names []string, edges []pcEdge) (*plot.Plot, error) {
	p := plot.New()
	p.HideAxes()
	pts := graphLayout(len(names), edges)
	minY := 0.0
	for _, q := range pts {
		minY = math.Min(minY, q.Y)
	}
	// Data units per inch of the 6 × 4 inch figure, for round arrowheads.
	sx, sy := 1.1/5.5, (0.6-minY)/3.4
	grey := color.RGBA{R: 150, G: 150, B: 150, A: 255}
	// Nodes are discs with their names inside; edges run between the
	// discs' rims, so that no line or arrowhead covers a name.
	// The disc fits names of up to about seven characters (about 2.9
	// points of radius per character); longer ones spill over its rim.
	longest := 0
	for _, n := range names {
		longest = max(longest, len([]rune(n)))
	}
	radius := vg.Points(min(max(13, 2.9*float64(longest)), 20))
	rim := float64(radius/vg.Inch) + 0.03 // inches, the disc's radius and a small gap
	for _, e := range edges {
		a, b := pts[e.from], pts[e.to]
		c := color.Color(grey)
		if e.directed || e.tail == '>' || e.head == '>' || (e.tail == '-' && e.head != 0) {
			c = color.Black
		}
		dx, dy := (b.X-a.X)/sx, (b.Y-a.Y)/sy // inches
		d := math.Hypot(dx, dy)
		if d <= 2*rim {
			continue // the discs touch: no room for a line
		}
		ux, uy := dx/d, dy/d
		tail := plotter.XY{X: a.X + rim*ux*sx, Y: a.Y + rim*uy*sy}
		tip := plotter.XY{X: b.X - rim*ux*sx, Y: b.Y - rim*uy*sy}
		head, foot := e.head, e.tail
		if head == 0 && e.directed {
			head = '>'
		}
		// A mark at each end: an arrowhead, or a small ring whose line
		// stops at the ring.
		for _, end := range []struct {
			at     *plotter.XY
			mark   byte
			ux, uy float64
		}{{&tip, head, ux, uy}, {&tail, foot, -ux, -uy}} {
			switch end.mark {
			case '>':
				for _, s := range []float64{1, -1} {
					ang := math.Atan2(end.uy, end.ux) + math.Pi - s*0.4
					arm := plotter.XYs{*end.at, {X: end.at.X + 0.13*math.Cos(ang)*sx, Y: end.at.Y + 0.13*math.Sin(ang)*sy}}
					if err := addLineWidth(p, arm, c, "", 1.5); err != nil {
						return nil, err
					}
				}
			case 'o':
				const r = 0.045 // inches
				centre := plotter.XY{X: end.at.X - r*end.ux*sx, Y: end.at.Y - r*end.uy*sy}
				ring, err := plotter.NewScatter(plotter.XYs{centre})
				if err != nil {
					return nil, err
				}
				ring.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Length(r) * vg.Inch, Shape: draw.RingGlyph{}}
				p.Add(ring)
				*end.at = plotter.XY{X: end.at.X - 2*r*end.ux*sx, Y: end.at.Y - 2*r*end.uy*sy}
			}
		}
		if err := addLineWidth(p, plotter.XYs{tail, tip}, c, "", 1.5); err != nil {
			return nil, err
		}
		if e.label != "" {
			// Beside the line's middle, 0.12 inch to its left.
			mid := plotter.XY{X: (tail.X+tip.X)/2 - 0.12*uy*sx, Y: (tail.Y+tip.Y)/2 + 0.12*ux*sy}
			lab, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{mid}, Labels: []string{e.label}})
			if err != nil {
				return nil, err
			}
			lab.TextStyle[0].XAlign = draw.XCenter
			lab.TextStyle[0].YAlign = draw.YCenter
			lab.TextStyle[0].Color = color.RGBA{R: 213, G: 94, B: 0, A: 255}
			p.Add(lab)
		}
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{R: 204, G: 227, B: 240, A: 255}, Radius: radius, Shape: draw.CircleGlyph{}}
	p.Add(sc)
	ring, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, err
	}
	ring.GlyphStyle = draw.GlyphStyle{Color: color.RGBA{R: 0, G: 114, B: 178, A: 255}, Radius: radius, Shape: draw.RingGlyph{}}
	p.Add(ring)
	labels, err := plotter.NewLabels(plotter.XYLabels{XYs: pts, Labels: names})
	if err != nil {
		return nil, err
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i].XAlign = draw.XCenter
		labels.TextStyle[i].YAlign = draw.YCenter
	}
	p.Add(labels)
	p.X.Min, p.X.Max = 0, 1.1
	p.Y.Min, p.Y.Max = minY-0.3, 0.3
	p.Title.Text = fmt.Sprintf("%d nodes, %d edges (black: directed)", len(names), len(edges))
	for _, e := range edges {
		if e.head != 0 {
			p.Title.Text = fmt.Sprintf("%d nodes, %d edges (PAG: > arrowhead, o circle, no mark tail)", len(names), len(edges))
			break
		}
	}
	return p, nil
}
