package kernels

// Kernel is a positive semi-definite function k(x, y) on R^D with a flat vector
// of real hyperparameters. Implementations are immutable and safe for
// concurrent use; WithHyper makes a new kernel rather than changing one.
//
// The hyperparameter vector is what samplers and optimisers differentiate:
// composite kernels concatenate their parts' vectors (a sum or product of a and
// b has a's hyperparameters then b's; a scaled kernel c·k has c first, then
// k's), so a model can map a gradient with respect to the kernel's
// hyperparameters back onto the expressions that produced them.
type Kernel interface {
	// NumHyper is the number of hyperparameters.
	NumHyper() int
	// Hyper appends the hyperparameters, in the order of HyperNames, to dst
	// and returns the extended slice.
	Hyper(dst []float64) []float64
	// HyperNames names the hyperparameters in order, for messages and
	// tables: "ell", "ell.1", "ell.2", "alpha", "period", ...
	HyperNames() []string
	// WithHyper returns a kernel of the same structure with hyperparameters
	// h (len(h) == NumHyper()). It returns an error naming the
	// hyperparameter when h is outside the kernel's domain, such as a
	// non-positive lengthscale.
	WithHyper(h []float64) (Kernel, error)
	// Dim is the input dimension the kernel requires, or 0 when it accepts
	// any (an isotropic kernel). An ARD kernel requires len(ell).
	Dim() int
	// Eval returns k(x, y). x and y have the same length.
	Eval(x, y []float64) float64
	// GradHyper writes ∂k(x, y)/∂h into dst (length NumHyper) and returns
	// k(x, y).
	GradHyper(dst, x, y []float64) float64
	// GradX writes ∂k(x, y)/∂x into dst (length len(x)) and returns k(x, y).
	GradX(dst, x, y []float64) float64
	// String writes the kernel as KML source would, e.g. "rbf(0.5)",
	// "2 * rbf([1, 2])" or "rbf(1) + white()".
	String() string
}
