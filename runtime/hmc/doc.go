// Package hmc samples a differentiable log density on the unconstrained scale with
// the no-U-turn sampler (NUTS) as Stan runs it: multinomial trajectories, step-size
// and metric adaptation in windows, parallel chains, and the convergence
// diagnostics of Vehtari et al. (2021).
package hmc
