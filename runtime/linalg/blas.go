package linalg

// Importing blas3 installs KML's level-3 kernels (DGEMM, DSYRK, DTRSM in
// assembly, packed and blocked, on all cores) as gonum's BLAS through
// blas64.Use in its init. Every runtime package that does dense linear
// algebra imports linalg, so every KML binary gets them, and gonum's
// Dpotrf, Dpotrs, Dgetrf, Dtrtri and mat.* run on them unchanged.
import _ "github.com/kml-lang/kml/runtime/internal/blas3"
