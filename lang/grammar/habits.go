package grammar

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/kml-lang/kml/lang/ast"
)

// Habits of Stan, PyMC, BUGS and R users. What they write is usually a
// syntax error in KML whose plain message ("unexpected name", "cannot
// assign to an expression") does not say what KML writes instead. habits
// recognises the foreign form in a statement's tokens and its message says
// so; the checker asks ForeignName about names such as dnorm or library.

// stanTypes are Stan's declaration types.
var stanTypes = map[string]bool{
	"real": true, "int": true, "vector": true, "row_vector": true, "matrix": true,
	"simplex": true, "ordered": true, "positive_ordered": true, "unit_vector": true,
	"cov_matrix": true, "corr_matrix": true, "cholesky_factor_corr": true,
	"cholesky_factor_cov": true, "array": true, "complex": true,
}

// stanBlocks are Stan's program blocks (model is a KML keyword, checked apart).
var stanBlocks = map[string]bool{
	"data": true, "parameters": true, "transformed": true, "functions": true,
}

// habits returns an error for each statement of a chunk written as Stan,
// PyMC or R would write it. failed says whether the chunk failed to parse
// or lower: only R's `x <- value`, which also parses as the comparison
// x < -value, is reported in a chunk that parsed.
func (s *scanner) habits(toks []token, failed bool) ast.ErrorList {
	var out ast.ErrorList
	val := func(i int) string {
		if i < 0 || i >= len(toks) {
			return ""
		}
		return s.value(toks[i])
	}
	is := func(i int, typ int8, v string) bool {
		return i >= 0 && i < len(toks) && toks[i].typ == typ && s.value(toks[i]) == v
	}
	ident := func(i int) bool { return i >= 0 && i < len(toks) && toks[i].is(tokIdent) }
	add := func(i int, format string, args ...any) {
		t := toks[i]
		out.Add(ast.Pos{File: s.file, Line: int(t.line), Col: int(t.col)}, format, args...)
	}
	punct, kw := int8(tokPunct), int8(tokKeyword)
	start := true // at the start of a statement
	for i := range toks {
		atStart := start
		start = toks[i].is(tokEOL) || is(i, punct, "{")
		if !atStart {
			if failed && ident(i) && val(i) == "pm" && is(i+1, punct, ".") && ident(i+2) && is(i+3, punct, "(") {
				add(i, "%s", pymcHint(val(i+2)))
			}
			if failed && ident(i) && val(i) == "T" && is(i+1, punct, "[") && is(i-1, punct, ")") {
				add(i, "Stan's truncation `T[lo, hi]` is written with the distribution's `lower:` and `upper:`, `normal(0, 1, lower: 0)`")
			}
			continue
		}
		switch v := val(i); {
		case ident(i) && is(i+1, punct, "<") && is(i+2, punct, "-") && toks[i+2].off == toks[i+1].off+1:
			add(i+1, "`<-` is R's assignment; KML binds with `let %s = ...` (inside a model, `%s = ...`, or `%s ~ DIST` for a parameter)", v, v, v)
		case !failed:
		case ident(i) && stanTypes[v] && (is(i+1, punct, "<") || is(i+1, punct, "[") || ident(i+1)):
			add(i, "%s", s.declarationHint(toks[i:]))
		case ident(i) && (v == "for" || v == "while") && (ident(i+1) || is(i+1, punct, "(")):
			add(i, "KML has no `%s` loops: write the statement once for whole vectors (`y ~ normal(a + b * x, sigma)` observes every element of y; `w[N] ~ normal(0, 1)` declares N parameters) or call a function on each element with `map(xs, f)`", v)
		case ident(i) && stanBlocks[v] && (is(i+1, punct, "{") || ident(i+1) && is(i+2, punct, "{")):
			add(i, "%s", blockHint(v, val(i+1)))
		case is(i, kw, "model") && is(i+1, punct, "{"):
			add(i, "a KML model is named, `model m { ... }`, and holds the whole program: its priors declare the parameters, its `~` on data the observations")
		case is(i, kw, "generated") && ident(i+1) && val(i+1) == "quantities":
			add(i, "KML writes Stan's `generated quantities` as `generated { NAME = EXPR ... }`, the last statement inside the model")
		case is(i, kw, "import") && ident(i+1):
			add(i+1, "`import` takes a KML file in quotes, `import \"other.kml\"`; there are no Python or R packages to import: every builtin is always there (`:help` lists them)")
		case ident(i) && v == "def" && ident(i+1) && is(i+2, punct, "("):
			add(i, "KML defines a function with `fn %s(ARGS) = EXPR`", val(i+1))
		}
	}
	return out
}

// declarationHint explains a Stan declaration such as `real<lower=0> sigma`
// (toks starts at the type).
func (s *scanner) declarationHint(toks []token) string {
	typ := s.value(toks[0])
	var bounds, size, name string
	i := 1
	// The bracketed parts: <lower=0, upper=1> and [N].
	for i < len(toks) {
		v := s.value(toks[i])
		if v != "<" && v != "[" {
			break
		}
		closer := map[string]string{"<": ">", "[": "]"}[v]
		depth, j := 0, i
		for ; j < len(toks); j++ {
			w := s.value(toks[j])
			if w == v {
				depth++
			} else if w == closer {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		if j >= len(toks) {
			break
		}
		text := strings.TrimSpace(s.src[toks[i].off+1 : toks[j].off])
		if v == "<" {
			bounds = text
		} else {
			size = text
		}
		i = j + 1
	}
	if i < len(toks) && toks[i].is(tokIdent) {
		name = s.value(toks[i])
	} else {
		name = "x"
	}
	decl := strings.TrimSpace(s.src[toks[0].off:toks[min(i, len(toks)-1)].off])
	if i < len(toks) && toks[i].is(tokIdent) {
		decl += " " + name
	}
	lower, upper := bound(bounds, "lower"), bound(bounds, "upper")
	if typ == "int" {
		return fmt.Sprintf("`%s` is a Stan declaration; KML has no types: bind data with `let %s = ...`, or make it an argument of the model, `model m(%s, y) { ... }`", decl, name, name)
	}
	lhs := name
	if size != "" {
		lhs = fmt.Sprintf("%s[%s]", name, size)
	}
	var prior string
	switch {
	case typ == "simplex":
		prior = fmt.Sprintf("`%s ~ dirichlet(rep(1, %s))`", lhs, size)
	case typ == "ordered":
		prior = fmt.Sprintf("`%s ~ ordered(normal(0, 5))`", lhs)
	case typ == "cholesky_factor_corr":
		prior = fmt.Sprintf("`%s ~ lkj_corr_cholesky(2)`", lhs)
	case lower == "0" && upper == "":
		prior = fmt.Sprintf("`%s ~ half_normal(1)` or `%s ~ normal(0, 1, lower: 0)`", lhs, lhs)
	case lower != "" && upper != "":
		prior = fmt.Sprintf("`%s ~ uniform(%s, %s)` or `%s ~ normal(0, 1, lower: %s, upper: %s)`", lhs, lower, upper, lhs, lower, upper)
	case lower != "":
		prior = fmt.Sprintf("`%s ~ normal(0, 1, lower: %s)`", lhs, lower)
	case upper != "":
		prior = fmt.Sprintf("`%s ~ normal(0, 1, upper: %s)`", lhs, upper)
	default:
		prior = fmt.Sprintf("`%s ~ normal(0, 1)`", lhs)
	}
	return fmt.Sprintf("`%s` is a Stan declaration; KML declares a parameter by its prior inside `model NAME { ... }`, and the prior's support gives its bounds: %s; data is bound with `let %s = ...` or passed as a model argument", decl, prior, name)
}

// bound returns the value of key in Stan's `lower=0, upper=1`, or "".
func bound(bounds, key string) string {
	for _, part := range strings.Split(bounds, ",") {
		k, v, ok := strings.Cut(part, "=")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func blockHint(block, next string) string {
	if block == "transformed" {
		block += " " + next
	}
	switch block {
	case "data", "transformed data":
		return fmt.Sprintf("KML has no `%s { }` block: bind data with `let x = ...` at the top level, or give the model data arguments, `model m(x, y) { ... }`", block)
	case "functions":
		return "KML has no `functions { }` block: define each function at the top level, `fn f(a, b) = EXPR`"
	case "transformed parameters":
		return "KML has no `transformed parameters { }` block: write `NAME = EXPR` inside the model after the parameters it uses; it is recorded at every draw"
	}
	return fmt.Sprintf("KML has no `%s { }` block: a parameter is declared inside `model NAME { ... }` by its prior, `mu ~ normal(0, 1)`, whose support gives its bounds", block)
}

// pymcHint explains PyMC's `pm.Normal("mu", 0, 1)`.
func pymcHint(dist string) string {
	return fmt.Sprintf("PyMC's `pm.%s(\"mu\", ...)` is written `mu ~ %s(...)` inside `model NAME { ... }`, with KML's parameters for the distribution (`:help %s`)", dist, snake(dist), snake(dist))
}

// snake turns PyMC's HalfNormal into half_normal.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// foreignNames are names from R, BUGS/JAGS, Stan and Python that KML spells
// otherwise, with what to write instead.
var foreignNames = map[string]string{
	"library": "KML has no packages to load: every builtin is always there (`:help` lists them); `import \"other.kml\"` runs another KML file",
	"require": "KML has no packages to load: every builtin is always there (`:help` lists them); `import \"other.kml\"` runs another KML file",
	"pm":      "PyMC's `pm.Normal(\"mu\", 0, 1)` is written `mu ~ normal(0, 1)` inside `model NAME { ... }`",
	"np":      "KML has no numpy: vectors and matrices are built in (`[1, 2, 3]`, `[[1, 2], [3, 4]]`, `x @ y`)",
	"numpy":   "KML has no numpy: vectors and matrices are built in (`[1, 2, 3]`, `[[1, 2], [3, 4]]`, `x @ y`)",
	"c":       "R's `c(1, 2, 3)` is written `[1, 2, 3]` in KML (`concat(a, b)` joins vectors)",
	"dnorm":   "KML's normal distribution is `normal(mu, sigma)` with the standard deviation (BUGS's `dnorm(mu, tau)` takes the precision tau = 1/sigma²)",
	"dlnorm":  "KML's log-normal distribution is `lognormal(mu, sigma)` with the standard deviation of the log (BUGS's `dlnorm` takes the precision)",
	"dgamma":  "KML's gamma distribution is `gamma(alpha, beta)`, shape and rate",
	"dbeta":   "KML's beta distribution is `beta(a, b)`",
	"dunif":   "KML's uniform distribution is `uniform(lo, hi)`",
	"dexp":    "KML's exponential distribution is `exponential(beta)`, with the rate",
	"dpois":   "KML's Poisson distribution is `poisson(lambda)`",
	"dbinom":  "KML's binomial distribution is `binomial(n, p)` (BUGS's `dbin(p, n)` puts p first)",
	"dbin":    "KML's binomial distribution is `binomial(n, p)` (BUGS's `dbin(p, n)` puts p first)",
	"dt":      "KML's Student t distribution is `student_t(nu, mu, sigma)` with the scale (BUGS's `dt(mu, tau, nu)` takes the precision)",
	"dcauchy": "KML's Cauchy distribution is `cauchy(mu, sigma)`",
	"ddexp":   "KML's double exponential distribution is `laplace(mu, b)`, b the scale",
	"dnegbin": "KML's negative binomial is `neg_binomial_2(mu, phi)`, mean mu and variance mu + mu²/phi",
	"dnbinom": "KML's negative binomial is `neg_binomial_2(mu, phi)`, mean mu and variance mu + mu²/phi",
	"ddirch":  "KML's Dirichlet distribution is `dirichlet(alpha)`",
	"ddirich": "KML's Dirichlet distribution is `dirichlet(alpha)`",
	"dmnorm":  "KML's multivariate normal is `multi_normal(mu, Sigma)` with the covariance (BUGS's `dmnorm` takes the precision matrix)",
	"dbern":   "KML has `bernoulli_logit(alpha)` on the log-odds: write `y ~ bernoulli_logit(logit(p))` for a probability p",
	"rnorm":   "KML draws with `draw(normal(mu, sigma), n)`",
}

// ForeignName returns what KML writes instead of name when name is how R,
// BUGS, PyMC or numpy spell something KML has (dnorm, library, pm), or "".
// The checker adds it to its "undefined" error.
func ForeignName(name string) string { return foreignNames[name] }
