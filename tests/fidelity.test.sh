#!/bin/sh
# Fidelity against 109 measured iterations (tests/data, vTrain): a guard
# that the default model does not drift. make bench prints the figures;
# the aim is MAPE <= 6 % and Spearman >= 0.97, the model reaches
# about 6.04 % and 0.971 (see core/cost.c).
G=${GEOPLAN:-build/geoplan}
V=$(dirname "$G")/tests/vtrain
out=$("$V" tests/data/vtrain-a100-measured.csv --max-mape 6.5 --min-spearman 0.965 2>&1)
if [ $? -eq 0 ]; then echo "ok 1 - $out"; else echo "not ok 1 - $out"; fi
