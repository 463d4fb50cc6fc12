// Package format lays out KML source in one canonical form, as gofmt does
// for Go: `kml fmt` and, later, an editor's language server call Source.
//
// # How it works
//
// Source parses the file into the syntax tree of lang/ast and prints the
// tree again; comments, which the tree does not hold, come from the
// scanner's token stream (grammar.Tokens) and are printed between the
// nodes by position: every comment that comes before the next node to
// print is printed first, on a line of its own if it stood on one, else
// at the end of the current line. Printing the tree, rather than
// re-spacing the tokens, is what makes the layout canonical: spacing,
// parentheses, statement separators and line breaks are decided by the
// tree and the line width alone, never by how the source happened to be
// written, so formatting is idempotent by construction. The tokens keep
// only what the tree cannot: comments, blank lines between statements,
// the spelling of string literals (escapes as written; numbers keep
// theirs in the tree) and where brackets close. A token-stream
// formatter would have had to rediscover the grouping that the parser
// already knows, to decide where parentheses and breaks may go.
//
// Source parses its own result and compares the two trees with Equal
// (positions aside); a difference is returned as an error, never as text,
// so a formatter bug cannot change what a program means.
//
// # The layout
//
//   - One statement a line; `;` separators become newlines. Blank lines
//     between statements (and between comments and statements, and
//     between the items of a broken list) are kept, at most one; none at
//     the start or end of a file or block. Model and generated blocks
//     indent by two spaces.
//   - Binary operators have a space on each side, except ^, which is
//     written tight (x^2, (a + b)^2) as in mathematics and R: it binds
//     tighter than anything else, and most KML code already wrote it so.
//     Prefix - and ! are tight. `name: value` has one space after the
//     colon; slices `lo:hi` have none.
//   - Parentheses are printed where precedence needs them and nowhere
//     else, with two exceptions kept for reading: a slice bound that is an
//     operation ((h + 1):(h + 100)), and an if nested in the condition or
//     the then-branch of another if.
//   - A line longer than Width (100) columns is broken at its outermost
//     bracketed list (call arguments, vector elements, record fields,
//     indices): the bracket ends the line, the items follow one level in,
//     each with a trailing comma, and the closing bracket has a line of
//     its own. Positional items fill lines; named arguments and record
//     fields have a line each; a matrix (a vector of vectors) has a row a
//     line. An expression with no list to break breaks after a binary
//     operator, or an if breaks into `else` lines. A list that holds a
//     comment is always broken, so that the comment has a line to end.
//   - Trailing comments of consecutive lines are aligned one space after
//     the longest line, as gofmt aligns them; comment text is kept as
//     written.
package format
