// Package kst is the kernel Student-t density of Huszár and Lacoste-Julien
// (2011): a normal–inverse-Wishart model of the features φ(x) of the data,
// whose posterior predictive density is written through kernel values alone.
//
// With N training points, hyperparameters σ0 > 0, α > 0, β > 0, prior
// μ | Σ ~ N(0, Σ/β), Σ ~ IW(σ0² I, α), the posterior predictive density of a
// new feature vector φ is
//
//	q(φ) ∝ (γ + φ̃ᵀ Λ_N⁻¹ φ̃)^(−(1+N+α)/2),   γ = (1+β+N)/(β+N),
//	φ̃ = φ − Σ_i φ_i/(N+β),
//	Λ_N = σ0² I + Σ_i (φ_i − φ̄)(φ_i − φ̄)ᵀ + (Nβ/(N+β)) φ̄φ̄ᵀ.
//
// The paper's eq. (3) loses the last term of Λ_N (see ../shared/MATH.md §2).
// With the uncentred feature matrix Φ = [φ_1 … φ_N], Λ_N = σ0² I + Φ C Φᵀ with
// C = I − 11ᵀ/(N+β), C⁻¹ = I + 11ᵀ/β, and Woodbury gives
//
//	φ̃ᵀΛ_N⁻¹φ̃ = φ̃ᵀφ̃/σ0² − vᵀ (I + 11ᵀ/β + K/σ0²)⁻¹ v / σ0⁴,   v = Φᵀφ̃,
//
// where K is the Gram matrix and every inner product is a kernel value:
// v = k_x − K1/(N+β), φ̃ᵀφ̃ = k(x,x) − 2·1ᵀk_x/(N+β) + 1ᵀK1/(N+β)². That is
// eq. (4)–(5) with the uncentred Gram matrix in place of the centred one.
// Fit factors B = I + K/σ0² once (O(N³)); the rank-one 11ᵀ/β is applied by
// Sherman–Morrison, which stays accurate for the small β the paper uses,
// where I + 11ᵀ/β itself is badly conditioned. A new point then costs N
// kernel values and one triangular solve (O(N²)).
//
// In input space the density is multiplied by the Jacobian factor of
// eq. (6), det(G(x))^½ with G_ij = ⟨∂φ/∂x_i, ∂φ/∂x_j⟩ = ∂²k(x,y)/∂x_i∂y_j at
// y = x. For a shift-invariant kernel k(x,y) = f(x−y), G = −∇²f(0) does not
// depend on x, so the factor is a constant and is left out (the density is
// unnormalised anyway; Appendix B of the paper). For other kernels it is
// computed from the kernel's input gradient (Kernel.GradX) by central
// differences in y.
//
// The density is unnormalised. With a shift-invariant kernel it tends to a
// positive constant far from the data, so it is not normalisable on R^d:
// it ranks points (novelty, label reconstruction) but integrates only over
// a bounded region.
//
// Around the density: KDE, the Parzen-window baseline with the same kernel;
// Classify, label reconstruction from a joint density of features and a
// one-hot label; LogNormaliser1D, a quadrature normaliser on a window;
// Tune, a grid search by a held-out score; LogPDFGrad and Fantasy, fantasy
// data drawn by NUTS one point at a time (the paper's Figure 2).
package kst
