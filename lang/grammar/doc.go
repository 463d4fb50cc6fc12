// Package grammar parses KML source text into the syntax tree of lang/ast.
//
// A hand-written scanner (lexer.go) produces participle tokens and decides
// which newlines end statements; the participle grammar (grammar.go) parses
// one top-level statement at a time, so one syntax error does not hide the
// next; lower.go turns participle's structs into ast nodes. Nothing outside
// this package sees the grammar structs.
package grammar
