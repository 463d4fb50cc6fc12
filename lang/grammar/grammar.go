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
	Name    *gIdent   `parser:"\"model\" @@ \"{\""`
	Entries []*gEntry `parser:"@@* \"}\""`
}

type gImport struct {
	Pos  lexer.Position
	Path *gString `parser:"\"import\" @@"`
}

// gSimple is an expression, `LHS ~ DIST` or `NAME = VALUE`; lowering says
// which are allowed where.
type gSimple struct {
	Pos  lexer.Position
	LHS  *gExpr       `parser:"@@"`
	Rest *gSimpleRest `parser:"@@?"`
}

type gSimpleRest struct {
	Pos lexer.Position
	Op  string `parser:"@( \"~\" | \"=\" )"`
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

type gExpr struct {
	Pos lexer.Position
	If  *gIf  `parser:"  @@"`
	Or  *gBin `parser:"| @@"`
}

type gIf struct {
	Pos  lexer.Position
	Cond *gExpr `parser:"\"if\" @@"`
	Then *gExpr `parser:"\"then\" @@"`
	Else *gExpr `parser:"\"else\" @@"`
}

// gBin is the lowest precedence level of left-associative binary operators;
// the levels below nest through their Left/Right fields. Each level is its own
// type because participle's grammar is the struct shape.
type gBin struct {
	Left *gAnd    `parser:"@@"`
	Rest []*gOrOp `parser:"@@*"`
}

type gOrOp struct {
	Pos   lexer.Position
	Op    string `parser:"@\"||\""`
	Right *gAnd  `parser:"@@"`
}

type gAnd struct {
	Left *gCmp     `parser:"@@"`
	Rest []*gAndOp `parser:"@@*"`
}

type gAndOp struct {
	Pos   lexer.Position
	Op    string `parser:"@\"&&\""`
	Right *gCmp  `parser:"@@"`
}

type gCmp struct {
	Left *gAdd     `parser:"@@"`
	Rest []*gCmpOp `parser:"@@*"`
}

type gCmpOp struct {
	Pos   lexer.Position
	Op    string `parser:"@( \"==\" | \"!=\" | \"<=\" | \">=\" | \"<\" | \">\" )"`
	Right *gAdd  `parser:"@@"`
}

type gAdd struct {
	Left *gMul     `parser:"@@"`
	Rest []*gAddOp `parser:"@@*"`
}

type gAddOp struct {
	Pos   lexer.Position
	Op    string `parser:"@( \"+\" | \"-\" )"`
	Right *gMul  `parser:"@@"`
}

type gMul struct {
	Left *gUnary   `parser:"@@"`
	Rest []*gMulOp `parser:"@@*"`
}

type gMulOp struct {
	Pos   lexer.Position
	Op    string  `parser:"@( \"*\" | \"/\" | \"%\" | \"@\" )"`
	Right *gUnary `parser:"@@"`
}

type gUnary struct {
	Pos lexer.Position
	Op  string  `parser:"(  @( \"-\" | \"!\" )"`
	X   *gUnary `parser:"   @@"`
	Pow *gPow   `parser:"| @@ )"`
}

// gPow is right-associative and binds tighter than unary minus on its left
// (-x^2 is -(x^2)) but takes a unary exponent (2^-1).
type gPow struct {
	Base *gPostfix `parser:"@@"`
	Exp  *gPowOp   `parser:"@@?"`
}

type gPowOp struct {
	Pos lexer.Position
	X   *gUnary `parser:"\"^\" @@"`
}

type gPostfix struct {
	Prim *gPrimary `parser:"@@"`
	Ops  []*gPost  `parser:"@@*"`
}

type gPost struct {
	Pos   lexer.Position
	Call  *gCallArgs `parser:"(  \"(\" @@ \")\""`
	Index *gIndexes  `parser:" | \"[\" @@ \"]\""`
	Field *gIdent    `parser:" | \".\" @@ )"`
}

type gCallArgs struct {
	Args []*gArg `parser:"( @@ ( \",\" @@ )* \",\"? )?"`
}

type gArg struct {
	Pos   lexer.Position
	Name  string `parser:"( @Ident \":\" )?"`
	Value *gExpr `parser:"@@"`
}

type gIndexes struct {
	Items []*gIndexItem `parser:"@@ ( \",\" @@ )*"`
}

type gIndexItem struct {
	Pos   lexer.Position
	Lo    *gExpr `parser:"@@?"`
	Colon bool   `parser:"@\":\"?"`
	Hi    *gExpr `parser:"@@?"`
}

type gPrimary struct {
	Pos    lexer.Position
	Number *string  `parser:"  @Number"`
	String *string  `parser:"| @String"`
	Bool   *string  `parser:"| @( \"true\" | \"false\" )"`
	Vector *gVector `parser:"| \"[\" @@ \"]\""`
	Record *gRecord `parser:"| \"{\" @@ \"}\""`
	Paren  *gExpr   `parser:"| \"(\" @@ \")\""`
	Ident  *string  `parser:"| @Ident"`
}

type gVector struct {
	Elems []*gExpr `parser:"( @@ ( \",\" @@ )* \",\"? )?"`
}

type gRecord struct {
	Fields []*gField `parser:"( @@ ( \",\" @@ )* \",\"? )?"`
}

type gField struct {
	Name  *gIdent `parser:"@@ \":\""`
	Value *gExpr  `parser:"@@"`
}
