// Package ast is the syntax tree of a KML program: statements and expressions
// that carry their source positions, the position and error types shared by
// every stage of the language, and the caret snippets that show a user where
// an error is. The grammar (lang/grammar) produces it, the checker
// (lang/check) annotates it, and the evaluator (lang/eval) runs it.
package ast
