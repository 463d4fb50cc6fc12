package ast

import (
	"strconv"
	"strings"
)

// Format writes an expression back as KML source. Binary and unary operations
// are fully parenthesised, so the result shows how the parser grouped them.
func Format(e Expr) string {
	var b strings.Builder
	format(&b, e)
	return b.String()
}

func format(b *strings.Builder, e Expr) {
	switch e := e.(type) {
	case *Ident:
		b.WriteString(e.Name)
	case *Number:
		if e.Text != "" {
			b.WriteString(e.Text)
		} else {
			b.WriteString(strconv.FormatFloat(e.Value, 'g', -1, 64))
		}
	case *String:
		b.WriteString(strconv.Quote(e.Value))
	case *Bool:
		b.WriteString(strconv.FormatBool(e.Value))
	case *Vector:
		b.WriteByte('[')
		for i, x := range e.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			format(b, x)
		}
		b.WriteByte(']')
	case *Record:
		b.WriteByte('{')
		for i, f := range e.Fields {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(f.Name.Name)
			b.WriteString(": ")
			format(b, f.Value)
		}
		b.WriteByte('}')
	case *Selector:
		format(b, e.X)
		b.WriteByte('.')
		b.WriteString(e.Name.Name)
	case *Slice:
		if e.Lo != nil {
			format(b, e.Lo)
		}
		b.WriteByte(':')
		if e.Hi != nil {
			format(b, e.Hi)
		}
	case *Index:
		format(b, e.X)
		b.WriteByte('[')
		for i, x := range e.Indices {
			if i > 0 {
				b.WriteString(", ")
			}
			format(b, x)
		}
		b.WriteByte(']')
	case *Call:
		format(b, e.Fn)
		b.WriteByte('(')
		for i, x := range e.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			format(b, x)
		}
		for i, a := range e.Named {
			if i > 0 || len(e.Args) > 0 {
				b.WriteString(", ")
			}
			b.WriteString(a.Name.Name)
			b.WriteString(": ")
			format(b, a.Value)
		}
		b.WriteByte(')')
	case *Binary:
		b.WriteByte('(')
		format(b, e.X)
		b.WriteString(" " + e.Op + " ")
		format(b, e.Y)
		b.WriteByte(')')
	case *Unary:
		b.WriteString("(" + e.Op)
		format(b, e.X)
		b.WriteByte(')')
	case *If:
		b.WriteString("if ")
		format(b, e.Cond)
		b.WriteString(" then ")
		format(b, e.Then)
		b.WriteString(" else ")
		format(b, e.Else)
	default:
		b.WriteString("?")
	}
}
