// Package kernel holds the kernel values every kernel-method domain
// shares: KernelVal (a runtime/kernels.Kernel with its hyperparameters as
// values, which may depend on model parameters), its argument kind Arg, and
// the kernel builtins (rbf, matern, periodic, sums and products, ...), gram
// (also on the tape), median_heuristic and landmarks. Every other domain
// may import it.
package kernel
