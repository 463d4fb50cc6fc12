// Package assist is what KML offers a person while they type: the help
// text of a builtin and the completion candidates at a cursor, including
// the named arguments of the call the cursor is in. The REPL (lang/repl)
// and the language server (lang/lsp) both use it, so `:help` and an
// editor's hover read the same and Tab and an editor's completion offer the
// same names, in the same order.
//
// It knows nothing of where names come from: the REPL passes its session's
// names and values, the language server the checker's scopes of a file.
package assist

import (
	"sort"
	"strings"

	"github.com/kml-lang/kml/lang/check"
	"github.com/kml-lang/kml/lang/eval"
)

// HelpWidth is the width builtin documentation is filled to.
const HelpWidth = 76

// BuiltinHelp is what `:help NAME` prints for builtin b: its call pattern
// with defaults, then its documentation filled to HelpWidth and indented
// by two, ending in a newline.
func BuiltinHelp(b *eval.Builtin) string {
	return b.Usage() + "\n" + Indent(strings.Fields(b.Doc), HelpWidth) + "\n"
}

// Indent fills words into lines of at most width columns, indented by two.
func Indent(words []string, width int) string {
	var b strings.Builder
	col := 0
	for _, w := range words {
		n := len([]rune(w))
		if col > 0 && col+1+n > width {
			b.WriteString("\n")
			col = 0
		}
		if col == 0 {
			b.WriteString("  ")
		} else {
			b.WriteString(" ")
			col++
		}
		b.WriteString(w)
		col += n
	}
	return b.String()
}

// Wrap lists words separated by commas in lines of at most width columns.
func Wrap(words []string, width int) string {
	var b strings.Builder
	col := 0
	for i, w := range words {
		if i > 0 {
			if col+2+len(w) > width {
				b.WriteString("\n")
				col = 0
			} else {
				b.WriteString(", ")
				col += 2
			}
		}
		b.WriteString(w)
		col += len(w)
	}
	return b.String()
}

// SigFunc gives the signature of a callable name, nil when the name is not
// callable or unknown.
type SigFunc func(name string) *check.Signature

// Complete returns the name being typed at the end of before (the text up
// to the cursor) and the candidates that extend it: at an argument of a
// call, the call's named arguments ("chains: ") first, then names, sorted.
// A candidate equal to the prefix is left out.
func Complete(before []rune, names []string, sig SigFunc) (prefix string, candidates []string) {
	start := len(before)
	for start > 0 && IsNameRune(before[start-1]) {
		start--
	}
	prefix = string(before[start:])
	all := NamedArgs(before[:start], sig)
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	all = append(all, sorted...)
	for _, c := range all {
		if strings.HasPrefix(c, prefix) && c != prefix {
			candidates = append(candidates, c)
		}
	}
	return prefix, candidates
}

// Callee returns the name of the function whose argument list before ends
// in, when the next word begins an argument (before ends in `(` or `,` and
// blanks), and "" elsewhere. Brackets inside strings and `#` comments are
// skipped.
func Callee(before []rune) string {
	i := len(before)
	for i > 0 && (before[i-1] == ' ' || before[i-1] == '\t' || before[i-1] == '\n' || before[i-1] == '\r') {
		i--
	}
	if i == 0 || (before[i-1] != '(' && before[i-1] != ',') {
		return ""
	}
	// Find the innermost bracket still open.
	var open []int
	inString, inComment := false, false
	for j := 0; j < i; j++ {
		switch r := before[j]; {
		case inComment:
			inComment = r != '\n'
		case inString && r == '\\':
			j++
		case r == '"':
			inString = !inString
		case inString:
		case r == '#':
			inComment = true
		case r == '(' || r == '[' || r == '{':
			open = append(open, j)
		case (r == ')' || r == ']' || r == '}') && len(open) > 0:
			open = open[:len(open)-1]
		}
	}
	if len(open) == 0 || before[open[len(open)-1]] != '(' {
		return ""
	}
	end := open[len(open)-1]
	k := end
	for k > 0 && IsNameRune(before[k-1]) {
		k--
	}
	return string(before[k:end])
}

// NamedArgs returns "name: " for each parameter that can be passed by name
// of the call whose argument list before ends in (see Callee), sorted; nil
// elsewhere.
func NamedArgs(before []rune, sig SigFunc) []string {
	name := Callee(before)
	if name == "" || sig == nil {
		return nil
	}
	s := sig(name)
	if s == nil {
		return nil
	}
	var out []string
	for _, p := range s.Params {
		if p.Name != s.Variadic {
			out = append(out, p.Name+": ")
		}
	}
	sort.Strings(out)
	return out
}

// IsNameRune reports whether r can be part of a KML name.
func IsNameRune(r rune) bool {
	return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 127
}
