# Sourced by the bench/ scripts whose peer is NumPy/SciPy: defines peer_py,
# which runs Debian's /usr/bin/python3 (numpy, scipy, scikit-learn) on
# OpenBLAS without changing the machine's default BLAS, and checks that
# NumPy and SciPy really load it.
#
# Debian's numpy and scipy link libblas.so.3 and liblapack.so.3, which the
# alternatives system points at the reference (netlib) BLAS unless told
# otherwise; that BLAS is 10-20 times slower than OpenBLAS and no peer for
# speed figures. libopenblas0-pthread puts OpenBLAS's libblas.so.3 and
# liblapack.so.3 in $openblas_dir; with that directory first on
# LD_LIBRARY_PATH the loader takes them for NumPy and SciPy in this process
# only. When the directory is missing: as root the package is installed,
# with the current libblas.so.3 and liblapack.so.3 alternatives pinned
# first (update-alternatives --set to the library they already point at),
# so that the package's higher priority does not switch the machine's
# default; otherwise the script stops and says what to run.
#
# peer_py refuses to run when NumPy or SciPy did not load OpenBLAS;
# BENCH_ANY_BLAS=1 runs them on whatever they load, with a warning.
# Threads: OpenBLAS's pthread build uses every core, as KML does
# (GOMAXPROCS); OPENBLAS_NUM_THREADS=1 GOMAXPROCS=1 puts both on one.
#
# OpenBLAS's kernels (its "core type") follow KML's vector path: with
# KML_CPU=avx2 the peer runs OpenBLAS's Haswell (AVX2) kernels, with
# KML_CPU=avx512 its SkylakeX (AVX-512) ones, so that forcing the AVX2
# path on an AVX-512 machine forces it on both sides. Without KML_CPU,
# OpenBLAS picks its kernels itself, unless it does not know the CPU and
# falls back to pre-AVX2 kernels on a CPU with AVX2 (OpenBLAS 0.3.21, in
# Debian 12, takes the Xeon "model 207", Emerald Rapids, for a Prescott:
# SSE3); then it gets the kernels of the CPU's widest path. An
# OPENBLAS_CORETYPE already set is left alone. The check below prints the
# core type in use.

openblas_dir=/usr/lib/$(uname -m)-linux-gnu/openblas-pthread

if [ ! -e "$openblas_dir/libblas.so.3" ] || [ ! -e "$openblas_dir/liblapack.so.3" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing libopenblas0-pthread (the machine's default BLAS stays as it is)" >&2
    for alt in libblas.so.3 liblapack.so.3; do
      name=$alt-$(uname -m)-linux-gnu
      cur=$(update-alternatives --query "$name" 2>/dev/null | sed -n 's/^Value: //p' || true)
      if [ -n "$cur" ]; then update-alternatives --set "$name" "$cur" >/dev/null; fi
    done
    DEBIAN_FRONTEND=noninteractive apt-get install -y libopenblas0-pthread >&2
  elif [ "${BENCH_ANY_BLAS:-}" != 1 ]; then
    echo "error: $openblas_dir/libblas.so.3 is missing: install OpenBLAS for the peer with" >&2
    echo "  sudo apt-get install -y libopenblas0-pthread" >&2
    echo "(or set BENCH_ANY_BLAS=1 to time NumPy on the BLAS it loads now)" >&2
    exit 1
  fi
fi

# peer_py ARGS...: /usr/bin/python3 ARGS with OpenBLAS first on the
# library path.
peer_py() {
  LD_LIBRARY_PATH=$openblas_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} /usr/bin/python3 "$@"
}

# peer_coretype PATH: OpenBLAS's core type for KML's vector path PATH
# (avx2, avx512; empty for any other: OpenBLAS's own choice).
peer_coretype() {
  case $1 in
  avx512) echo SkylakeX ;;
  avx2) echo Haswell ;;
  esac
}

# The CPU's widest vector path, as KML names it.
peer_widest=generic
if grep -qw avx2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then peer_widest=avx2; fi
if grep -qw avx512f /proc/cpuinfo; then peer_widest=avx512; fi
if [ -z "${OPENBLAS_CORETYPE:-}" ]; then
  case ${KML_CPU:-} in
  avx2 | avx512)
    if [ "$KML_CPU" = avx512 ] && [ "$peer_widest" != avx512 ]; then
      OPENBLAS_CORETYPE=$(peer_coretype "$peer_widest")
    else
      OPENBLAS_CORETYPE=$(peer_coretype "$KML_CPU")
    fi
    ;;
  *)
    peer_auto=$(OPENBLAS_VERBOSE=2 peer_py -c 'import numpy' 2>&1 | sed -n 's/^Core: //p')
    case $peer_auto in
    Prescott | Core2 | Penryn | Dunnington | Nehalem | Atom | Sandybridge | Bulldozer | Piledriver | Barcelona | Opteron*)
      OPENBLAS_CORETYPE=$(peer_coretype "$peer_widest")
      if [ -n "$OPENBLAS_CORETYPE" ]; then
        echo "note: OpenBLAS took this $peer_widest CPU for a $peer_auto; the peer runs its $OPENBLAS_CORETYPE kernels" >&2
      fi
      ;;
    esac
    ;;
  esac
  if [ -n "${OPENBLAS_CORETYPE:-}" ]; then export OPENBLAS_CORETYPE; else unset OPENBLAS_CORETYPE; fi
fi

# The BLAS and LAPACK libraries NumPy and SciPy loaded, from the process's
# memory map, and the check that they are OpenBLAS.
peer_blas=$(OPENBLAS_VERBOSE=2 peer_py -c '
import re
import numpy, scipy, scipy.linalg
libs = set()
with open("/proc/self/maps") as f:
    for line in f:
        m = re.search(r"(/\S*lib(open)?(blas|lapack)\S*\.so\S*)", line)
        if m:
            libs.add(m.group(1))
print("numpy", numpy.__version__, "scipy", scipy.__version__, "loaded:", " ".join(sorted(libs)) or "no BLAS library")
' 2>&1 | tr '\n' ' ')
echo "peer: $peer_blas"
case $peer_blas in
*libopenblas*) ;;
*)
  if [ "${BENCH_ANY_BLAS:-}" = 1 ]; then
    echo "warning: NumPy/SciPy did not load OpenBLAS; their times are no peer for KML's" >&2
  else
    echo "error: NumPy/SciPy did not load OpenBLAS (BENCH_ANY_BLAS=1 runs them anyway)" >&2
    exit 1
  fi
  ;;
esac
