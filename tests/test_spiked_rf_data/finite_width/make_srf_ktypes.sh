#!/bin/bash
# Reference data of tests/test_spiked_rf_finite_width.py: the sRF simulator (true features, ridge readout,
# 10^5 fresh test points per seed, one row per seed) at the K-type cases of docs/spiked-rf-finite-width.md.
# Target z + He3(z)/sqrt(6), tanh student, c = 1, r = 1.5, gamma = 1, alpha = 3, beta = 1 (p = d), lambda = 0.01.
# Made with the library at commit 964a6c1 (about 25 CPU-minutes); run from the repository root:
#   bash tests/test_spiked_rf_data/finite_width/make_srf_ktypes.sh
set -e
out=tests/test_spiked_rf_data/finite_width
T="x + (x**3-3*x)/sqrt(6)"
run() { # name readout d seeds
  asymptotics simulate --protocol srf --d $3 --alpha 3 --beta 1 --c 1 --r 1.5 --gamma 1 \
    --lam 0.01 --student tanh --teacher "$T" --readout $2 --seeds $4 --seed 16 --n-test 100000 \
    --blas-threads 1 --per-seed -f csv -o $out/srf_$1_d$3.csv
}
for spec in "three 0.5,1,1.5" "two 0.5,1.5"; do set -- $spec
  run $1 $2 300 40; run $1 $2 600 24; run $1 $2 1200 12; run $1 $2 2400 6
done
run uniform 1 300 16; run uniform 1 1200 6
