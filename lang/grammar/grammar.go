package grammar

import "github.com/alecthomas/participle/v2/lexer"

// The participle grammar. These structs never leave this package: lower.go
// turns them into lang/ast nodes. Statement separators (EOL) are matched as
// entries of their own so that lowering can say exactly where one is missing.

type gFile struct {
	Entries []*gEntry `parser:"@@*"`
}

type gEntry struct {
	Pos  lexer.Position
	Sep  bool   `parser:"(  @EOL"`
	Stmt *gStmt `parser:" | @@ )"`
}

type gStmt struct {
	Pos    lexer.Position
	Let    *gLet    `parser:"  @@"`
	Fn     *gFn     `parser:"| @@"`
	Model  *gModel  `parser:"| @@"`
	Gen    *gGen    `parser:"| @@"`
	Import *gImport `parser:"| @@"`
	Simple *gSimple `parser:"| @@"`
}

type gLet struct {
	Pos   lexer.Position
	Name  *gIdent `parser:"\"let\" @@"`
	Value *gExpr  `parser:"\"=\" @@"`
}

type gFn struct {
	Pos    lexer.Position
	Name   *gIdent   `parser:"\"fn\" @@"`
	Params []*gIdent `parser:"\"(\" ( @@ ( \",\" @@ )* \",\"? )? \")\""`
	Body   *gExpr    `parser:"\"=\" @@"`
}

type gModel struct {
	Pos     lexer.Position
	Name    *gIdent     `parser:"\"model\" @@"`
	Params  *gModelArgs `parser:"@@? \"{\""`
	Entries []*gEntry   `parser:"@@* \"}\""`
}

// gModelArgs is a model's data arguments, `(x, y)`.
type gModelArgs struct {
	Pos   lexer.Position
	Names []*gIdent `parser:"\"(\" ( @@ ( \",\" @@ )* \",\"? )? \")\""`
}

// gGen is a model's `generated { ... }` block.
type gGen struct {
	Pos     lexer.Position
	Entries []*gEntry `parser:"\"generated\" \"{\" @@* \"}\""`
}

type gImport struct {
	Pos  lexer.Position
	Path *gString `parser:"\"import\" @@"`
}

// gSimple is an expression, `LHS ~ DIST`, `NAME = VALUE` or `target += EXPR`; lowering says
// which are allowed where.
type gSimple struct {
	Pos  lexer.Position
	LHS  *gExpr       `parser:"@@"`
	Rest *gSimpleRest `parser:"@@?"`
}

type gSimpleRest struct {
	Pos lexer.Position
	Op  string `parser:"@( \"~\" | \"=\" | \"+=\" )"`
	RHS *gExpr `parser:"@@"`
}

type gIdent struct {
	Pos  lexer.Position
	Name string `parser:"@Ident"`
}

type gString struct {
	Pos   lexer.Position
	Value string `parser:"@String"`
}
