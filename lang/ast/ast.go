package ast

// Node is any syntax tree node.
type Node interface {
	// Pos is where the node starts.
	Pos() Pos
}

// Expr is an expression.
type Expr interface {
	Node
	exprNode()
}

// Stmt is a statement, at the top level or inside a model.
type Stmt interface {
	Node
	stmtNode()
}

// File is one parsed source file.
type File struct {
	Name  string
	Stmts []Stmt
}

// Let is `let NAME = VALUE`.
type Let struct {
	At    Pos
	Name  *Ident
	Value Expr
}

// Fn is `fn NAME(PARAMS) = BODY`, a pure function.
type Fn struct {
	At     Pos
	Name   *Ident
	Params []*Ident
	Body   Expr
}

// Model is `model NAME { BODY }` or, with data arguments, `model
// NAME(X, Y) { BODY }`. Its body holds Tilde and Assign statements. A model
// with Params is not fitted itself: `NAME(x: ..., y: ...)` makes a model for
// that data (as Stan's data block, or PyMC's set_data).
type Model struct {
	At     Pos
	Name   *Ident
	Params []*Ident // the data arguments; nil for `model NAME { ... }`
	Body   []Stmt
}

// Import is `import "PATH"`.
type Import struct {
	At   Pos
	Path *String
}

// ExprStmt is an expression evaluated for its value or its effect.
type ExprStmt struct {
	X Expr
}

// TildeKind says what a `~` statement in a model declares; the checker sets it.
type TildeKind int

const (
	// Unclassified is the kind before checking.
	Unclassified TildeKind = iota
	// Param declares a scalar parameter: `NAME ~ PRIOR`.
	Param
	// VecParam declares a vector of i.i.d. parameters: `NAME[K] ~ PRIOR`.
	VecParam
	// Observe states that data bound outside the model follow a distribution.
	Observe
	// Latent declares a latent function: `f ~ gp(X, KERNEL)`.
	Latent
)

func (k TildeKind) String() string {
	switch k {
	case Param:
		return "parameter"
	case VecParam:
		return "vector parameter"
	case Observe:
		return "observation"
	case Latent:
		return "latent function"
	}
	return "unclassified"
}

// Tilde is `LHS ~ DIST` inside a model. For parameters and latent functions
// the checker fills Name (and Size for `NAME[K]`).
type Tilde struct {
	At   Pos // of the `~`
	LHS  Expr
	Dist Expr
	Kind TildeKind
	Name *Ident
	Size Expr
}

// Assign is `NAME = VALUE` inside a model: a derived quantity.
type Assign struct {
	At    Pos
	Name  *Ident
	Value Expr
}

// Generated is `generated { NAME = EXPR ... }` inside a model: quantities
// computed once per draw from the draw's values (not on the tape), with the
// draw's own random stream, as Stan's generated quantities.
type Generated struct {
	At   Pos
	Body []*Assign
}

func (s *Generated) Pos() Pos { return s.At }
func (*Generated) stmtNode()  {}

// Target is `target += VALUE` inside a model: VALUE (a number, or a vector
// whose sum is meant) is added to the log density.
type Target struct {
	At    Pos // the +=
	Value Expr
}

func (s *Target) Pos() Pos { return s.At }
func (*Target) stmtNode()  {}

func (s *Let) Pos() Pos      { return s.At }
func (s *Fn) Pos() Pos       { return s.At }
func (s *Model) Pos() Pos    { return s.At }
func (s *Import) Pos() Pos   { return s.At }
func (s *ExprStmt) Pos() Pos { return s.X.Pos() }
func (s *Tilde) Pos() Pos    { return s.LHS.Pos() }
func (s *Assign) Pos() Pos   { return s.Name.At }

func (*Let) stmtNode()      {}
func (*Fn) stmtNode()       {}
func (*Model) stmtNode()    {}
func (*Import) stmtNode()   {}
func (*ExprStmt) stmtNode() {}
func (*Tilde) stmtNode()    {}
func (*Assign) stmtNode()   {}

// Ident is a name.
type Ident struct {
	At   Pos
	Name string
}

// Number is a numeric literal.
type Number struct {
	At    Pos
	Value float64
	Text  string
}

// String is a string literal, Value unquoted.
type String struct {
	At    Pos
	Value string
}

// Bool is `true` or `false`.
type Bool struct {
	At    Pos
	Value bool
}

// Vector is `[a, b, c]`; a vector of equal-length vectors is a matrix.
type Vector struct {
	At    Pos
	Elems []Expr
}

// Field is `NAME: VALUE` in a record literal.
type Field struct {
	Name  *Ident
	Value Expr
}

// Record is `{a: 1, b: "s"}`.
type Record struct {
	At     Pos
	Fields []*Field
}

// Selector is `X.NAME`.
type Selector struct {
	X    Expr
	Name *Ident
}

// Slice is `LO:HI` inside an index, either bound optional (`:` alone is the
// whole axis). Bounds are 1-based and inclusive.
type Slice struct {
	At     Pos
	Lo, Hi Expr
}

// Index is `X[I]` or `X[I, J]`; each index is an Expr or a *Slice.
type Index struct {
	X       Expr
	Lbrack  Pos
	Indices []Expr
}

// NamedArg is `NAME: VALUE` in a call.
type NamedArg struct {
	Name  *Ident
	Value Expr
}

// Call is `FN(ARGS, NAME: VALUE, ...)`: positional arguments first.
type Call struct {
	Fn     Expr
	Lparen Pos
	Args   []Expr
	Named  []*NamedArg
	// Binding is set by the checker when it knows the callee's signature:
	// a *check.CallBinding, the arguments matched to the parameters once,
	// so the evaluator need not match them again at every call.
	Binding any
}

// Binary is `X OP Y`.
type Binary struct {
	OpPos Pos
	Op    string
	X, Y  Expr
}

// Unary is `-X` or `!X`.
type Unary struct {
	OpPos Pos
	Op    string
	X     Expr
}

// If is `if COND then A else B`.
type If struct {
	At               Pos
	Cond, Then, Else Expr
}

func (e *Ident) Pos() Pos    { return e.At }
func (e *Number) Pos() Pos   { return e.At }
func (e *String) Pos() Pos   { return e.At }
func (e *Bool) Pos() Pos     { return e.At }
func (e *Vector) Pos() Pos   { return e.At }
func (e *Record) Pos() Pos   { return e.At }
func (e *Selector) Pos() Pos { return e.X.Pos() }
func (e *Slice) Pos() Pos    { return e.At }
func (e *Index) Pos() Pos    { return e.X.Pos() }
func (e *Call) Pos() Pos     { return e.Fn.Pos() }
func (e *Binary) Pos() Pos   { return e.X.Pos() }
func (e *Unary) Pos() Pos    { return e.OpPos }
func (e *If) Pos() Pos       { return e.At }

func (*Ident) exprNode()    {}
func (*Number) exprNode()   {}
func (*String) exprNode()   {}
func (*Bool) exprNode()     {}
func (*Vector) exprNode()   {}
func (*Record) exprNode()   {}
func (*Selector) exprNode() {}
func (*Slice) exprNode()    {}
func (*Index) exprNode()    {}
func (*Call) exprNode()     {}
func (*Binary) exprNode()   {}
func (*Unary) exprNode()    {}
func (*If) exprNode()       {}

// Pos is the start of the file.
func (f *File) Pos() Pos { return Pos{File: f.Name, Line: 1, Col: 1} }
