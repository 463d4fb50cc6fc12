package asmgen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
)

// Asm collects the text of one assembly file: top-level comments and
// functions, each a list of instructions, labels and comment lines.
type Asm struct {
	header []string // the lines before the first function
	funcs  []*Func
	cur    *Func
}

// Func is one TEXT symbol being written, with the frame of its Go
// signature.
type Func struct {
	lines []*Inst
	args  map[string]int // frame offset of each argument name
}

// Inst is one line of a function: an instruction (op and args), a label,
// a comment line, a blank line, or a raw line (the TEXT directive and
// the comment above it).
type Inst struct {
	op, args, comment string
	label, raw        string
	blank, note       bool
}

// C sets the comment written at the end of the instruction's line.
func (in *Inst) C(comment string) *Inst {
	in.comment = comment
	return in
}

// Line adds a line to the file's header (before the first function).
func (a *Asm) Line(s string) {
	if a.cur != nil {
		panic("asmgen: Line after a function; use Note")
	}
	a.header = append(a.header, s)
}

// Text starts a function whose Go declaration is sig (for example
// "func kern(k int, a []float64)"), with doc as its comment lines under
// the signature. The frame size and every argument's offset come from sig.
func (a *Asm) Text(sig string, doc ...string) *Func {
	name, args, size := frame(sig)
	f := &Func{args: args}
	a.funcs = append(a.funcs, f)
	a.cur = f
	f.raw("// " + sig)
	for _, d := range doc {
		f.raw("// " + d)
	}
	f.raw(fmt.Sprintf("TEXT ·%s(SB), NOSPLIT, $0-%d", name, size))
	return f
}

// Arg is the operand of argument (or result) name: "k+0(FP)". A slice s
// has the names s_base, s_len and s_cap.
func (f *Func) Arg(name string) string {
	off, ok := f.args[name]
	if !ok {
		panic("asmgen: no argument " + name)
	}
	return fmt.Sprintf("%s+%d(FP)", name, off)
}

// Op adds the instruction op with its operands, in Go assembler order.
func (f *Func) Op(op string, args ...string) *Inst {
	in := &Inst{op: op, args: strings.Join(args, ", ")}
	f.lines = append(f.lines, in)
	return in
}

// Label adds a blank line and the label name.
func (f *Func) Label(name string) {
	f.Blank()
	f.lines = append(f.lines, &Inst{label: name})
}

// Blank adds an empty line.
func (f *Func) Blank() { f.lines = append(f.lines, &Inst{blank: true}) }

// Note adds a comment line inside the function.
func (f *Func) Note(s string) { f.lines = append(f.lines, &Inst{comment: s, note: true}) }

func (f *Func) raw(s string) { f.lines = append(f.lines, &Inst{raw: s}) }

// frame reads a Go function declaration and returns its name, the frame
// offset of every argument and result (a slice s as s_base, s_len,
// s_cap), and the size of the arguments and results. Every type it
// accepts is a slice or one word (int, uint64, float64, a pointer), as
// the kernels' are.
func frame(sig string) (string, map[string]int, int) {
	file, err := parser.ParseFile(token.NewFileSet(), "", "package p\n"+sig+"\n", 0)
	if err != nil {
		panic(fmt.Sprintf("asmgen: signature %q: %v", sig, err))
	}
	fd, ok := file.Decls[0].(*ast.FuncDecl)
	if !ok || len(file.Decls) != 1 {
		panic(fmt.Sprintf("asmgen: signature %q is not one function", sig))
	}
	args := map[string]int{}
	off := 0
	add := func(fl *ast.FieldList) {
		if fl == nil {
			return
		}
		for _, field := range fl.List {
			if len(field.Names) == 0 {
				panic(fmt.Sprintf("asmgen: signature %q: unnamed parameter", sig))
			}
			for _, n := range field.Names {
				if at, ok := field.Type.(*ast.ArrayType); ok && at.Len == nil {
					args[n.Name+"_base"] = off
					args[n.Name+"_len"] = off + 8
					args[n.Name+"_cap"] = off + 16
					off += 24
					continue
				}
				args[n.Name] = off
				off += 8
			}
		}
	}
	add(fd.Type.Params)
	add(fd.Type.Results)
	return fd.Name.Name, args, off
}

// Bytes formats the file. Within a run of instructions (between labels,
// blank lines and comment lines) the operands start in one column and the
// end-of-line comments in another, as asmfmt aligns them.
func (a *Asm) Bytes() []byte {
	var b strings.Builder
	for _, h := range a.header {
		b.WriteString(h + "\n")
	}
	for i, f := range a.funcs {
		if i > 0 || len(a.header) > 0 {
			b.WriteString("\n")
		}
		f.write(&b)
	}
	return []byte(b.String())
}

func (f *Func) write(b *strings.Builder) {
	for i := 0; i < len(f.lines); {
		in := f.lines[i]
		switch {
		case in.raw != "":
			b.WriteString(in.raw + "\n")
		case in.blank:
			b.WriteString("\n")
		case in.label != "":
			b.WriteString(in.label + ":\n")
		case in.note:
			b.WriteString("\t// " + in.comment + "\n")
		default:
			j := i
			for j < len(f.lines) && f.lines[j].op != "" {
				j++
			}
			writeRun(b, f.lines[i:j])
			i = j
			continue
		}
		i++
	}
}

func writeRun(b *strings.Builder, run []*Inst) {
	opw, w := 0, 0
	for _, in := range run {
		opw = max(opw, len(in.op))
	}
	for _, in := range run {
		w = max(w, opw+1+len(in.args))
	}
	for _, in := range run {
		s := in.op
		if in.args != "" {
			s += strings.Repeat(" ", opw+1-len(in.op)) + in.args
		}
		if in.comment != "" {
			s += strings.Repeat(" ", w+1-len(s)) + "// " + in.comment
		}
		b.WriteString("\t" + s + "\n")
	}
}

// Operands.

// Y and Z name vector registers; X names the low 128 bits.
func Y(i int) string { return fmt.Sprintf("Y%d", i) }
func Z(i int) string { return fmt.Sprintf("Z%d", i) }
func X(i int) string { return fmt.Sprintf("X%d", i) }

// Imm is the immediate $n.
func Imm(n int) string { return fmt.Sprintf("$%d", n) }

// Mem is the memory operand off(reg), (reg) when off is 0.
func Mem(off int, reg string) string {
	if off == 0 {
		return "(" + reg + ")"
	}
	return fmt.Sprintf("%d(%s)", off, reg)
}
