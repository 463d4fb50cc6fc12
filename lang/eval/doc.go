// Package eval runs KML programs: it holds the values (with their automatic
// differentiation twins), the builtin registry (which the standard library
// fills), the evaluator of statements and expressions, and the Interpreter
// that chains the stages:
//
//	source → grammar.Parse → check.Checker → evaluation
//
// Interpreter.Eval is that one entry point; the command line, the REPL and Go
// programs that embed KML all go through it. What a model means — compiling
// it into a log density and fitting it — is lang/model's job.
package eval
